--
-- scbf_reloptions: pages_per_segment (8..128), false_positive_rate
-- (0.0001..0.25) and hash_bits (32..40) at their bounds and beyond, wrong
-- types, unknown and repeated options, with exact messages; ALTER INDEX
-- SET / RESET (effective at REINDEX); the layout frozen in the metapage;
-- what the access method does not support (unique, INCLUDE, ordering,
-- exclusion, CLUSTER).
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

CREATE TABLE ro (id int, a int, t text);
INSERT INTO ro SELECT g, g % 300, 't' || (g % 1000) FROM generate_series(1, 20000) g;

-- in range, at both bounds of each option; the layout frozen in the
-- metapage follows the options (k = ceil(log2(1 / P)))
CREATE INDEX ro_lo ON ro USING scbf (a) WITH (pages_per_segment = 8, false_positive_rate = 0.0001);
CREATE INDEX ro_hi ON ro USING scbf (a) WITH (pages_per_segment = 128, false_positive_rate = 0.25);
CREATE INDEX ro_mid ON ro USING scbf (t) WITH (pages_per_segment = 33, false_positive_rate = 0.013);
CREATE INDEX ro_def ON ro USING scbf (t);
-- one option given: the other keeps its default
CREATE INDEX ro_pps ON ro USING scbf (t) WITH (pages_per_segment = 64);
CREATE INDEX ro_sci ON ro USING scbf (t) WITH (false_positive_rate = 1e-3, pages_per_segment = '16');
SELECT c.relname, c.reloptions, i.pages_per_segment, i.false_positive_rate, i.k
FROM pg_class c, LATERAL scbf_index_info(c.oid) i
WHERE c.relname LIKE 'ro\_%' ORDER BY 1;

-- ro_scan(idx, condition): scbf_same() of the rows of ro that meet the
-- condition, with idx the only index of ro (the others are dropped in a
-- subtransaction that is then rolled back), so that each variant is the
-- one scanned
CREATE FUNCTION ro_scan(idx text, cond text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	other regclass;
	res text;
BEGIN
	BEGIN
		FOR other IN SELECT indexrelid::regclass FROM pg_index
					 WHERE indrelid = 'ro'::regclass AND indexrelid <> idx::regclass LOOP
			EXECUTE format('DROP INDEX %s', other);
		END LOOP;
		res := scbf_same('SELECT * FROM ro WHERE ' || cond);
		RAISE SQLSTATE 'SCBF0';		-- undo the drops
	EXCEPTION WHEN SQLSTATE 'SCBF0' THEN
		NULL;
	END;
	RETURN idx || ': ' || res;
END $$;
CREATE FUNCTION ro_checks() RETURNS SETOF text LANGUAGE sql AS $$
	SELECT ro_scan('ro_lo', 'a = 7')
	UNION ALL SELECT ro_scan('ro_lo', 'a IN (7, 8, -1)')
	UNION ALL SELECT ro_scan('ro_hi', 'a = 7')
	UNION ALL SELECT ro_scan('ro_hi', 'a IN (7, 8, -1)')
	UNION ALL SELECT ro_scan('ro_mid', 't = ''t77''')
	UNION ALL SELECT ro_scan('ro_def', 't = ''t77''')
	UNION ALL SELECT ro_scan('ro_sci', 't = ''t77''')
	UNION ALL SELECT ro_scan('ro_sci', 't IN (''t77'', ''t78'', ''t-1'')')
$$;
SELECT * FROM ro_checks();
DELETE FROM ro WHERE id % 4 = 0;
VACUUM ro;
INSERT INTO ro SELECT g, g % 300, 't' || (g % 1000) FROM generate_series(20001, 25000) g;
SELECT * FROM ro_checks();

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
CREATE INDEX ro_bad ON ro USING scbf (a) WITH (hash_bits = 31);
CREATE INDEX ro_bad ON ro USING scbf (a) WITH (hash_bits = 41);
CREATE INDEX ro_bad ON ro USING scbf (a) WITH (hash_bits = 64);
CREATE INDEX ro_bad ON ro USING scbf (a) WITH (hash_bits = 'wide');
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
SELECT ro_scan('ro_mid', 't = ''t77''');
REINDEX INDEX ro_mid;
SELECT c.reloptions, i.pages_per_segment, i.false_positive_rate, i.k
FROM pg_class c, LATERAL scbf_index_info(c.oid) i WHERE c.relname = 'ro_mid';
SELECT ro_scan('ro_mid', 't = ''t77''');
ALTER INDEX ro_mid RESET (pages_per_segment, false_positive_rate);
REINDEX INDEX ro_mid;
SELECT c.reloptions, i.pages_per_segment, i.false_positive_rate, i.k
FROM pg_class c, LATERAL scbf_index_info(c.oid) i WHERE c.relname = 'ro_mid';
SELECT ro_scan('ro_mid', 't = ''t77''');
-- hash_bits too: the index of 40-bit hashes answers as the one of 32
ALTER INDEX ro_mid SET (hash_bits = 40);
REINDEX INDEX ro_mid;
SELECT c.reloptions FROM pg_class c WHERE c.relname = 'ro_mid';
SELECT ro_scan('ro_mid', 't = ''t77''');
SELECT scbf_verify('ro_mid', true);
ALTER INDEX ro_mid RESET (hash_bits);
REINDEX INDEX ro_mid;
SELECT ro_scan('ro_mid', 't = ''t77''');

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

DROP FUNCTION ro_checks();
DROP FUNCTION ro_scan(text, text);
DROP TABLE ro;
DROP FUNCTION scbf_same, scbf_empty, scbf_noindex, scbf_compare;
