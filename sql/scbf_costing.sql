--
-- scbf_costing: with default planner settings (after ANALYZE) a selective
-- equality, IN list or parameter uses a bitmap scan of the scbf index, and
-- a predicate that matches in nearly every segment (a low-cardinality
-- column spread over the table) gets a sequential scan; so do
-- non-equalities.  Also after DELETE / VACUUM; a btree wins when present.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS scbf;
RESET client_min_messages;

-- scbf_same(query [, parameter types, parameter values]): run the query with
-- the index forced (bitmap scans only) and with a sequential scan, raise an
-- error if the rows differ, and return how it ran and how many rows it found:
-- 'index N' when every Bitmap Index Scan of the plan is on an scbf index,
-- 'seqscan N' when the planner could not use the index at all.  With
-- parameter types the query is PREPAREd and EXECUTEd with a generic plan
-- ('index generic N' when the plan really has parameters).
CREATE OR REPLACE FUNCTION scbf_same(q text, ptypes text DEFAULT NULL, pargs text DEFAULT NULL)
RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	wrapped text := 'SELECT count(*) || '':'' || coalesce(sum(hashtext(sub::text)::int8), 0) FROM ('
		|| q || ') sub';
	plan text := '';
	res text[] := '{}';
	how text;
	r record;
	pass int;
BEGIN
	IF EXISTS (SELECT 1 FROM pg_prepared_statements WHERE name IN ('scbf_same_p', 'scbf_same_w')) THEN
		DEALLOCATE scbf_same_p;
		DEALLOCATE scbf_same_w;
	END IF;
	SET LOCAL plan_cache_mode = force_generic_plan;
	SET LOCAL enable_indexscan = off;
	FOR pass IN 1..2 LOOP
		IF pass = 1 THEN
			SET LOCAL enable_seqscan = off;
			SET LOCAL enable_bitmapscan = on;
		ELSE
			SET LOCAL enable_seqscan = on;
			SET LOCAL enable_bitmapscan = off;
		END IF;
		IF ptypes IS NULL THEN
			IF pass = 1 THEN
				FOR r IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
					plan := plan || r."QUERY PLAN" || E'\n';
				END LOOP;
			END IF;
			EXECUTE wrapped INTO how;
		ELSE
			EXECUTE format('PREPARE scbf_same_p(%s) AS %s', ptypes, q);
			EXECUTE format('PREPARE scbf_same_w(%s) AS %s', ptypes, wrapped);
			IF pass = 1 THEN
				FOR r IN EXECUTE format('EXPLAIN (COSTS OFF) EXECUTE scbf_same_p(%s)', pargs) LOOP
					plan := plan || r."QUERY PLAN" || E'\n';
				END LOOP;
			END IF;
			EXECUTE format('EXECUTE scbf_same_w(%s)', pargs) INTO how;
			DEALLOCATE scbf_same_p;
			DEALLOCATE scbf_same_w;
		END IF;
		res := res || how;
	END LOOP;
	IF res[1] IS DISTINCT FROM res[2] THEN
		RAISE EXCEPTION 'index and seqscan disagree for %: % vs %', q, res[1], res[2];
	END IF;
	IF plan ~ 'Bitmap Index Scan on' AND NOT EXISTS (
		SELECT 1 FROM regexp_matches(plan, 'Bitmap Index Scan on (\S+)', 'g') m
		WHERE NOT EXISTS (SELECT 1 FROM pg_class c JOIN pg_am a ON a.oid = c.relam
						  WHERE c.relname = m[1] AND a.amname = 'scbf')) THEN
		how := 'index';
		IF ptypes IS NOT NULL AND plan ~ '\$1' THEN
			how := how || ' generic';
		END IF;
	ELSIF plan ~ 'Seq Scan' THEN
		how := 'seqscan';
	ELSE
		how := 'plan: ' || split_part(plan, E'\n', 1);
	END IF;
	RETURN how || ' ' || split_part(res[2], ':', 1);
END $$;

CREATE TABLE cp (id int, customer int, status text, code text, tenant int);
INSERT INTO cp SELECT g, g / 20, (ARRAY['new', 'paid', 'shipped', 'done'])[1 + g % 4],
	md5(g::text), g % 3
FROM generate_series(1, 200000) g;
CREATE INDEX cp_customer ON cp USING scbf (customer);
CREATE INDEX cp_status ON cp USING scbf (status);
CREATE INDEX cp_code ON cp USING scbf (code) WITH (pages_per_segment = 32);
CREATE INDEX cp_multi ON cp USING scbf (tenant, customer, status);
ANALYZE cp;

-- default planner settings from here on
-- selective equalities: a bitmap scan of an scbf index
EXPLAIN (COSTS OFF) SELECT * FROM cp WHERE customer = 4242;
EXPLAIN (COSTS OFF) SELECT * FROM cp WHERE customer IN (1, 2, 3);
EXPLAIN (COSTS OFF) SELECT * FROM cp WHERE customer = ANY(ARRAY[10, 5000, 9999]);
EXPLAIN (COSTS OFF) SELECT * FROM cp WHERE code = md5('777');
EXPLAIN (COSTS OFF) SELECT * FROM cp WHERE code IN (md5('1'), md5('2'));
EXPLAIN (COSTS OFF) SELECT * FROM cp WHERE customer = 4242 AND status = 'paid';
EXPLAIN (COSTS OFF) SELECT id FROM cp WHERE customer = 4242 AND tenant = 1;
-- a low-cardinality column whose values are in every segment: a sequential scan
EXPLAIN (COSTS OFF) SELECT * FROM cp WHERE status = 'paid';
EXPLAIN (COSTS OFF) SELECT * FROM cp WHERE status IN ('new', 'paid');
EXPLAIN (COSTS OFF) SELECT * FROM cp WHERE tenant = 2;
EXPLAIN (COSTS OFF) SELECT * FROM cp WHERE status IS NOT NULL;
-- not an equality: never the index
EXPLAIN (COSTS OFF) SELECT * FROM cp WHERE customer < 10;
EXPLAIN (COSTS OFF) SELECT * FROM cp WHERE code LIKE 'abc%';
EXPLAIN (COSTS OFF) SELECT * FROM cp WHERE customer <> 10;
-- a generic plan of a selective parameterized equality uses the index too
PREPARE cp_q(int) AS SELECT * FROM cp WHERE customer = $1;
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE cp_q(4242);
RESET plan_cache_mode;
DEALLOCATE cp_q;
-- the answers (also through the helper: the same with a sequential scan)
SELECT scbf_same('SELECT * FROM cp WHERE customer = 4242');
SELECT scbf_same('SELECT * FROM cp WHERE code = md5(''777'')');
SELECT scbf_same('SELECT * FROM cp WHERE customer = 4242 AND status = ''paid''');
SELECT scbf_same('SELECT * FROM cp WHERE status = ''paid'' AND id < 50');

-- after deletes and VACUUM (the metapage statistics are refreshed) the
-- choices stay the same
DELETE FROM cp WHERE id % 5 = 0;
VACUUM ANALYZE cp;
EXPLAIN (COSTS OFF) SELECT * FROM cp WHERE customer = 4242;
EXPLAIN (COSTS OFF) SELECT * FROM cp WHERE code = md5('777');
EXPLAIN (COSTS OFF) SELECT * FROM cp WHERE status = 'paid';

-- a btree on the same column is cheaper to probe: the planner prefers it
CREATE INDEX cp_customer_btree ON cp (customer);
EXPLAIN (COSTS OFF) SELECT * FROM cp WHERE customer = 4242;
DROP INDEX cp_customer_btree;

-- statistics views count the scans of the scbf index
SELECT pg_stat_force_next_flush();
SELECT idx_scan > 0 AS scanned FROM pg_stat_user_indexes WHERE indexrelname = 'cp_customer';

DROP TABLE cp;
DROP FUNCTION scbf_same(text, text, text);
