--
-- scbf_queries: parameters and generic plans, ANDs over the columns of a
-- multi-column index, and rounds of DELETE / VACUUM / INSERT on an index
-- that inserts grew (chains, then consolidation) with small segments.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS scbf;
RESET client_min_messages;

-- scbf_same(query [, parameter types, parameter values]): the index is
-- scanned and returns the sequential scan's rows, at least one;
-- scbf_empty(...): the same, no row; scbf_noindex(...): the planner cannot
-- use scbf here.  Each raises an error otherwise (sql/include/scbf_same.sql).
\getenv abs_srcdir PG_ABS_SRCDIR
\set scbf_same_sql :abs_srcdir '/sql/include/scbf_same.sql'
\set ECHO none
\i :scbf_same_sql
\set ECHO all

-- an index created on the empty table, then filled: filter chains grow
CREATE TABLE q (id int, a int, b text, c int8, d date);
CREATE INDEX q_abcd ON q USING scbf (a, b, c, d) WITH (pages_per_segment = 8);
CREATE INDEX q_a ON q USING scbf (a);
INSERT INTO q SELECT g, g % 1000, 'b' || (g % 300),
	CASE WHEN g % 17 = 0 THEN NULL ELSE g % 50 END, date '2024-01-01' + g % 90
FROM generate_series(1, 40000) g;

CREATE FUNCTION q_checks() RETURNS TABLE (query text, result text) LANGUAGE plpgsql AS $$
DECLARE
	qs text[] := ARRAY[
		'SELECT * FROM q WHERE a = 7',
		'SELECT * FROM q WHERE a = 7 AND b = ''b7''',
		'SELECT * FROM q WHERE b = ''b42''',
		'SELECT * FROM q WHERE c = 3 AND d = ''2024-02-23''',
		'SELECT * FROM q WHERE a IN (1, 2, 3) AND c IS NULL',
		'SELECT * FROM q WHERE a = ANY(ARRAY[11, 21, 31]) AND b = ANY(ARRAY[''b11'', ''b21''])',
		'SELECT * FROM q WHERE c IS NULL AND d = ''2024-01-18''',
		'SELECT * FROM q WHERE a = 999 AND c IS NOT NULL',
		'SELECT * FROM q WHERE a = 6 AND a IN (5, 6)'];
	s text;
BEGIN
	FOREACH s IN ARRAY qs LOOP
		query := s;
		result := scbf_same(s);
		RETURN NEXT;
	END LOOP;
END $$;

SELECT * FROM q_checks();
-- nothing matches: an absent key, a pair no row holds, a contradiction
SELECT scbf_empty('SELECT * FROM q WHERE d = ''2023-01-01''') AS absent,
	scbf_empty('SELECT * FROM q WHERE a = 7 AND b = ''b8''') AS absent_pair,
	-- (PostgreSQL 17 and later see the contradiction when planning: no scan)
	CASE WHEN current_setting('server_version_num')::int < 170000
		THEN scbf_empty('SELECT * FROM q WHERE a = 5 AND a = 6')
		ELSE scbf_noindex('SELECT * FROM q WHERE a = 5 AND a = 6') END AS contradiction;

-- parameters, custom and generic plans
PREPARE p1(int, text) AS SELECT count(*) FROM q WHERE a = $1 AND b = $2;
PREPARE p2(int8[]) AS SELECT count(*) FROM q WHERE a = ANY($1);
SET enable_seqscan = off;
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE p1(7, 'b7');
EXECUTE p1(7, 'b7');
EXECUTE p1(7, 'b8');
EXECUTE p2(ARRAY[1, 2, NULL, 999]);
EXECUTE p2(ARRAY[NULL]::int8[]);
SET plan_cache_mode = force_custom_plan;
EXECUTE p1(7, 'b7');
EXECUTE p2(ARRAY[1, 2, NULL, 999]);
RESET plan_cache_mode;
RESET enable_seqscan;
SELECT count(*) FROM q WHERE a = 7 AND b = 'b7';
SELECT count(*) FROM q WHERE a IN (1, 2, 999);
DEALLOCATE p1;
DEALLOCATE p2;

-- a parameter from a nested loop (rescans with runtime keys)
SET enable_seqscan = off;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SELECT count(*) FROM (VALUES (7), (8), (-1)) v(x) JOIN q ON q.a = v.x;
RESET enable_seqscan;
RESET enable_hashjoin;
RESET enable_mergejoin;
SELECT count(*) FROM (VALUES (7), (8), (-1)) v(x) JOIN q ON q.a = v.x;

-- rounds of DELETE / VACUUM / INSERT reusing the freed space
DELETE FROM q WHERE a % 5 = 0;
VACUUM q;
SELECT * FROM q_checks();
INSERT INTO q SELECT g, g % 1000, 'x' || (g % 300), g % 7, date '2025-01-01' + g % 30
FROM generate_series(40001, 48000) g;
DELETE FROM q WHERE id % 3 = 0;
VACUUM q;
INSERT INTO q SELECT g, g % 1000, 'b' || (g % 300), NULL, date '2024-01-01' + g % 90
FROM generate_series(48001, 52000) g;
SELECT * FROM q_checks();
VACUUM q;
SELECT * FROM q_checks();

DROP FUNCTION q_checks();
DROP TABLE q;
DROP FUNCTION scbf_same, scbf_empty, scbf_noindex, scbf_compare;
