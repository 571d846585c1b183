--
-- scbf_reloptions: pages_per_segment (8..128) and false_positive_rate
-- (0.0001..0.25) at their bounds and beyond, wrong types, unknown and
-- repeated options, with exact messages; ALTER INDEX SET / RESET (effective
-- at REINDEX); the layout frozen in the metapage; what the access method
-- does not support (unique, INCLUDE, ordering, exclusion, CLUSTER).
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

CREATE TABLE ro (id int, a int, t text);
INSERT INTO ro SELECT g, g % 300, 't' || (g % 1000) FROM generate_series(1, 20000) g;

-- in range, at both bounds of each option; the layout frozen in the
-- metapage follows the options (k = ceil(log2(1 / P)))
CREATE INDEX ro_lo ON ro USING scbf (a) WITH (pages_per_segment = 8, false_positive_rate = 0.0001);
CREATE INDEX ro_hi ON ro USING scbf (a) WITH (pages_per_segment = 128, false_positive_rate = 0.25);
CREATE INDEX ro_mid ON ro USING scbf (t) WITH (pages_per_segment = 33, false_positive_rate = 0.013);
CREATE INDEX ro_def ON ro USING scbf (t);
CREATE INDEX ro_sci ON ro USING scbf (t) WITH (false_positive_rate = 1e-3, pages_per_segment = '16');
SELECT c.relname, c.reloptions, i.pages_per_segment, i.false_positive_rate, i.k
FROM pg_class c, LATERAL scbf_index_info(c.oid) i
WHERE c.relname LIKE 'ro\_%' ORDER BY 1;
SELECT scbf_same('SELECT * FROM ro WHERE a = 7');
SELECT scbf_same('SELECT * FROM ro WHERE a IN (7, 8, -1)');
SELECT scbf_same('SELECT * FROM ro WHERE t = ''t77''');
DELETE FROM ro WHERE id % 4 = 0;
VACUUM ro;
INSERT INTO ro SELECT g, g % 300, 't' || (g % 1000) FROM generate_series(20001, 25000) g;
SELECT scbf_same('SELECT * FROM ro WHERE a = 7');
SELECT scbf_same('SELECT * FROM ro WHERE t = ''t77''');

-- out of range, wrong type, unknown, repeated: exact messages
\set VERBOSITY terse
CREATE INDEX ro_bad ON ro USING scbf (a) WITH (pages_per_segment = 7);
CREATE INDEX ro_bad ON ro USING scbf (a) WITH (pages_per_segment = 129);
CREATE INDEX ro_bad ON ro USING scbf (a) WITH (pages_per_segment = 0);
CREATE INDEX ro_bad ON ro USING scbf (a) WITH (pages_per_segment = -1);
CREATE INDEX ro_bad ON ro USING scbf (a) WITH (pages_per_segment = 'x');
CREATE INDEX ro_bad ON ro USING scbf (a) WITH (pages_per_segment = '');
CREATE INDEX ro_bad ON ro USING scbf (a) WITH (pages_per_segment = 99999999999);
CREATE INDEX ro_bad ON ro USING scbf (a) WITH (pages_per_segment);
CREATE INDEX ro_bad ON ro USING scbf (a) WITH (false_positive_rate = 0);
CREATE INDEX ro_bad ON ro USING scbf (a) WITH (false_positive_rate = 0.00009);
CREATE INDEX ro_bad ON ro USING scbf (a) WITH (false_positive_rate = 0.3);
CREATE INDEX ro_bad ON ro USING scbf (a) WITH (false_positive_rate = 1);
CREATE INDEX ro_bad ON ro USING scbf (a) WITH (false_positive_rate = -0.01);
CREATE INDEX ro_bad ON ro USING scbf (a) WITH (false_positive_rate = 'x');
CREATE INDEX ro_bad ON ro USING scbf (a) WITH (false_positive_rate = 'NaN');
CREATE INDEX ro_bad ON ro USING scbf (a) WITH (false_positive_rate = 'Infinity');
CREATE INDEX ro_bad ON ro USING scbf (a) WITH (fillfactor = 50);
CREATE INDEX ro_bad ON ro USING scbf (a) WITH (pages_per_range = 16);
CREATE INDEX ro_bad ON ro USING scbf (a) WITH (length = 80);
CREATE INDEX ro_bad ON ro USING scbf (a) WITH (pages_per_segment = 8, pages_per_segment = 16);
CREATE INDEX ro_bad ON ro USING scbf (a) WITH (scbf.pages_per_segment = 8);
\set VERBOSITY default
-- the first out-of-range error with its detail
CREATE INDEX ro_bad ON ro USING scbf (a) WITH (pages_per_segment = 129);
CREATE INDEX ro_bad ON ro USING scbf (a) WITH (false_positive_rate = 0.3);
SELECT count(*) AS no_bad_index FROM pg_class WHERE relname = 'ro_bad';

-- ALTER INDEX SET / RESET: checked like CREATE; the new values take
-- effect at REINDEX (the layout is frozen in the metapage)
\set VERBOSITY terse
ALTER INDEX ro_mid SET (pages_per_segment = 200);
ALTER INDEX ro_mid SET (pages_per_segment = 7);
ALTER INDEX ro_mid SET (false_positive_rate = 0.5);
ALTER INDEX ro_mid SET (bogus = 1);
ALTER INDEX ro_mid RESET (bogus);
\set VERBOSITY default
ALTER INDEX ro_mid SET (pages_per_segment = 16, false_positive_rate = 0.2);
SELECT c.reloptions, i.pages_per_segment, i.false_positive_rate, i.k
FROM pg_class c, LATERAL scbf_index_info(c.oid) i WHERE c.relname = 'ro_mid';
SELECT scbf_same('SELECT * FROM ro WHERE t = ''t77''');
REINDEX INDEX ro_mid;
SELECT c.reloptions, i.pages_per_segment, i.false_positive_rate, i.k
FROM pg_class c, LATERAL scbf_index_info(c.oid) i WHERE c.relname = 'ro_mid';
SELECT scbf_same('SELECT * FROM ro WHERE t = ''t77''');
ALTER INDEX ro_mid RESET (pages_per_segment, false_positive_rate);
REINDEX INDEX ro_mid;
SELECT c.reloptions, i.pages_per_segment, i.false_positive_rate, i.k
FROM pg_class c, LATERAL scbf_index_info(c.oid) i WHERE c.relname = 'ro_mid';
SELECT scbf_same('SELECT * FROM ro WHERE t = ''t77''');

-- what scbf cannot do, with core's messages
\set VERBOSITY terse
CREATE UNIQUE INDEX ro_bad ON ro USING scbf (a);
CREATE INDEX ro_bad ON ro USING scbf (a) INCLUDE (t);
CREATE INDEX ro_bad ON ro USING scbf (a DESC);
CREATE INDEX ro_bad ON ro USING scbf (a NULLS FIRST);
ALTER TABLE ro ADD CONSTRAINT ro_excl EXCLUDE USING scbf (a WITH =);
CLUSTER ro USING ro_def;
\set VERBOSITY default

-- the access method's properties
SELECT prop, pg_indexam_has_property((SELECT oid FROM pg_am WHERE amname = 'scbf'), prop)
FROM unnest(ARRAY['can_order', 'can_unique', 'can_multi_col', 'can_exclude', 'can_include']) prop;
SELECT prop, pg_index_has_property('ro_def'::regclass, prop)
FROM unnest(ARRAY['clusterable', 'index_scan', 'bitmap_scan', 'backward_scan']) prop;
SELECT prop, pg_index_column_has_property('ro_def'::regclass, 1, prop)
FROM unnest(ARRAY['asc', 'orderable', 'distance_orderable', 'returnable', 'search_array', 'search_nulls']) prop;
-- the build phases shown in pg_stat_progress_create_index
SELECT n, pg_indexam_progress_phasename((SELECT oid FROM pg_am WHERE amname = 'scbf'), n)
FROM generate_series(1, 4) n;

DROP TABLE ro;
DROP FUNCTION scbf_same(text, text, text);
