--
-- scbf_planner: with default planner settings, a selective equality uses
-- the index, and a predicate that matches half the rows or more does not.
-- A value in a quarter of the rows (on every heap page) gets a bitmap scan,
-- as of a btree on the column (scbf_costing says why).
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS scbf;
RESET client_min_messages;

CREATE TABLE pl (id int, customer int, status text, code text);
INSERT INTO pl SELECT g, g / 20, (ARRAY['new', 'paid', 'shipped', 'done'])[1 + g % 4],
	md5(g::text)
FROM generate_series(1, 200000) g;
CREATE INDEX pl_customer ON pl USING scbf (customer);
CREATE INDEX pl_status ON pl USING scbf (status);
CREATE INDEX pl_code ON pl USING scbf (code);
VACUUM ANALYZE pl;

-- selective: the index
EXPLAIN (COSTS OFF) SELECT * FROM pl WHERE customer = 4242;
EXPLAIN (COSTS OFF) SELECT * FROM pl WHERE customer IN (1, 2, 3);
EXPLAIN (COSTS OFF) SELECT * FROM pl WHERE code = md5('777');
EXPLAIN (COSTS OFF) SELECT * FROM pl WHERE customer = 4242 AND status = 'paid';
-- a quarter of the rows: the index; half of them: a sequential scan
EXPLAIN (COSTS OFF) SELECT * FROM pl WHERE status = 'paid';
EXPLAIN (COSTS OFF) SELECT * FROM pl WHERE status IN ('new', 'paid');
-- not an equality: not the index
EXPLAIN (COSTS OFF) SELECT * FROM pl WHERE customer < 10;
-- the answers
SELECT count(*) FROM pl WHERE customer = 4242;
SELECT count(*) FROM pl WHERE code = md5('777');
SELECT count(*) FROM pl WHERE customer = 4242 AND status = 'paid';

-- a btree on the same column is cheaper to probe: the planner prefers it
CREATE INDEX pl_customer_btree ON pl (customer);
EXPLAIN (COSTS OFF) SELECT * FROM pl WHERE customer = 4242;
DROP INDEX pl_customer_btree;

-- statistics: the bitmap index scans were counted
SELECT pg_stat_force_next_flush();
SELECT idx_scan > 0 AS scanned FROM pg_stat_user_indexes WHERE indexrelname = 'pl_customer';

-- EXPLAIN ANALYZE: from PostgreSQL 18 each Bitmap Index Scan shows "Index
-- Searches", which the access method counts: one per scan, so the inner
-- side of a nested loop searches once per loop.  Earlier majors show no
-- such line.  The rows of the same queries are compared with a sequential
-- scan.
\getenv abs_srcdir PG_ABS_SRCDIR
\set scbf_same_sql :abs_srcdir '/sql/include/scbf_same.sql'
\set ECHO none
\i :scbf_same_sql
\set ECHO all
CREATE FUNCTION pl_searches(q text) RETURNS text LANGUAGE plpgsql
SET enable_seqscan = off SET enable_indexscan = off AS $$
DECLARE
	j			jsonb;
	node		jsonb;
BEGIN
	EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, FORMAT JSON) ' || q
		INTO j;
	node := jsonb_path_query_first(j, '$.** ? (@."Node Type" == "Bitmap Index Scan")');
	IF node IS NULL THEN
		RETURN 'no bitmap index scan';
	END IF;
	RETURN format('%s, %s loops: %s', node->>'Index Name', node->>'Actual Loops',
		CASE
			WHEN current_setting('server_version_num')::int < 180000 THEN
				CASE WHEN node ? 'Index Searches' THEN 'Index Searches shown before 18'
					ELSE 'one search per loop' END
			WHEN node->>'Index Searches' = node->>'Actual Loops' THEN 'one search per loop'
			ELSE 'Index Searches ' || coalesce(node->>'Index Searches', 'missing')
		END);
END $$;
SELECT pl_searches('SELECT * FROM pl WHERE customer = 4242');
SELECT pl_searches('SELECT * FROM pl WHERE customer IN (1, 2, 3)');
SELECT pl_searches('SELECT * FROM (VALUES (7), (70), (700)) v(c) JOIN pl ON pl.customer = v.c');
SELECT scbf_same('SELECT * FROM pl WHERE customer = 4242');
SELECT scbf_same('SELECT * FROM pl WHERE customer IN (1, 2, 3)');
SELECT scbf_same('SELECT * FROM (VALUES (7), (70), (700)) v(c) JOIN pl ON pl.customer = v.c');
SELECT scbf_same('SELECT * FROM pl WHERE status = ''paid''');

DROP TABLE pl;
