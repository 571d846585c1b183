--
-- scbf_verify: the verifier passes, with and without heapallindexed, on
-- every kind of healthy index: empty, small, many types and NULLs, several
-- columns, partial and expression indexes, HOT chains, aborted and updated
-- rows, chains grown by inserts and merged by VACUUM, segments the
-- build found empty, churn (DELETE / VACUUM / INSERT cycles), unlogged and
-- temporary tables, TRUNCATE, REINDEX, VACUUM FULL and CLUSTER.  That it
-- finds corruption is shown by test/t/020_verify_corruption.pl, which
-- breaks pages on disk.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS scbf;
RESET client_min_messages;

-- verify every scbf index of a table, both ways; returns the indexes checked
CREATE FUNCTION verify_all(tab regclass) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	i regclass;
	done text[] := '{}';
BEGIN
	FOR i IN SELECT x.indexrelid::regclass FROM pg_index x JOIN pg_class c ON c.oid = x.indexrelid
		JOIN pg_am am ON am.oid = c.relam
		WHERE x.indrelid = tab AND am.amname = 'scbf' ORDER BY c.relname
	LOOP
		PERFORM scbf_verify(i);
		PERFORM scbf_verify(i, heapallindexed => true);
		done := done || i::text;
	END LOOP;
	RETURN array_to_string(done, ' ');
END $$;

-- empty
CREATE TABLE v (id int, a int, t text, n numeric, u uuid, ts timestamptz)
	WITH (fillfactor = 60, autovacuum_enabled = off);
CREATE INDEX v_a ON v USING scbf (a) WITH (pages_per_segment = 8);
CREATE INDEX v_t ON v USING scbf (t COLLATE "C") WITH (pages_per_segment = 16);
CREATE INDEX v_multi ON v USING scbf (a, t, n, u, ts) WITH (pages_per_segment = 8, false_positive_rate = 0.001);
CREATE INDEX v_part ON v USING scbf (t) WHERE a % 3 = 0;
CREATE INDEX v_expr ON v USING scbf ((a % 97), lower(t));
SELECT verify_all('v');
SELECT scbf_verify('v_a', NULL);

-- small, with NULLs in every column
INSERT INTO v SELECT g, CASE WHEN g % 17 = 0 THEN NULL ELSE g % 500 END,
	CASE WHEN g % 23 = 0 THEN NULL ELSE 'T' || (g % 700) END,
	CASE WHEN g % 29 = 0 THEN NULL ELSE (g % 300) / 7.0 END,
	CASE WHEN g % 31 = 0 THEN NULL ELSE md5((g % 400)::text)::uuid END,
	CASE WHEN g % 37 = 0 THEN NULL ELSE timestamptz '2024-01-01 UTC' + (g % 250) * interval '1 hour' END
FROM generate_series(1, 8000) g;
SELECT verify_all('v');
SELECT entries_live + entries_pending = (SELECT count(*) FROM v) AS all_rows_indexed FROM scbf_index_info('v_a');
SELECT entries_live + entries_pending = (SELECT count(*) FROM v WHERE a % 3 = 0) AS partial_rows_indexed
FROM scbf_index_info('v_part');

-- HOT updates keep one entry per chain, at its root; non-HOT updates add
-- entries; aborted inserts leave entries that VACUUM removes
UPDATE v SET id = -id WHERE id % 5 = 0;
UPDATE v SET id = -id WHERE id % 5 = 0;
SELECT verify_all('v');
UPDATE v SET a = a + 1000 WHERE id % 11 = 0;
BEGIN;
INSERT INTO v SELECT g, g % 500, 'aborted' FROM generate_series(20001, 21000) g;
ROLLBACK;
SELECT verify_all('v');
VACUUM v;
SELECT verify_all('v');
SELECT entries_live + entries_pending = (SELECT count(*) FROM v) AS all_rows_indexed FROM scbf_index_info('v_a');

-- churn: DELETE / VACUUM / INSERT cycles, the inserts landing in the
-- space the deletes freed, a value repeated in a third of the new rows
SELECT format('DELETE FROM v WHERE (id + %s) %% 4 = 0', cycle),
	'VACUUM v',
	format($$INSERT INTO v SELECT 100000 * %s + g, CASE WHEN g %% 3 = 0 THEN 4242 ELSE g %% 900 END,
		'c%s-' || g %% 50, NULL, NULL, NULL FROM generate_series(1, 2000) g$$, cycle, cycle),
	'SELECT verify_all(''v'')'
FROM generate_series(1, 4) cycle \gexec
SELECT entries_live + entries_pending = (SELECT count(*) FROM v) AS all_rows_indexed
FROM scbf_index_info('v_a');
VACUUM v;
SELECT verify_all('v');

-- chains grown by inserts, then VACUUM (it merges filters that fit in one)
CREATE TABLE g (k int, s text) WITH (autovacuum_enabled = off);
CREATE INDEX g_k ON g USING scbf (k);
CREATE INDEX g_ks ON g USING scbf (k, s) WITH (pages_per_segment = 32);
INSERT INTO g SELECT i, 's' || i FROM generate_series(1, 50000) i;
SELECT max_chain > 1 AS chained FROM scbf_index_info('g_k');
SELECT verify_all('g');
DELETE FROM g WHERE k % 10 = 0;
VACUUM g;
SELECT max_chain AS max_chain_after_vacuum FROM scbf_index_info('g_k');
SELECT verify_all('g');
-- inserts after VACUUM: new filters again
INSERT INTO g SELECT i, 's' || i FROM generate_series(50001, 60000) i;
SELECT verify_all('g');

-- segments the build found empty, then filled by inserts
CREATE TABLE e (id int, a int) WITH (autovacuum_enabled = off);
INSERT INTO e SELECT i, i % 100 FROM generate_series(1, 20000) i;
DELETE FROM e WHERE id BETWEEN 3000 AND 15000;
VACUUM e;
CREATE INDEX e_a ON e USING scbf (a) WITH (pages_per_segment = 8);
SELECT empty_segments > 0 AS has_empty_segments FROM scbf_index_info('e_a');
SELECT verify_all('e');
INSERT INTO e SELECT -i, i FROM generate_series(1, 5000) i;
SELECT empty_segments AS empty_segments_left FROM scbf_index_info('e_a');
SELECT verify_all('e');

-- the table shrinks: VACUUM truncates its end, the index keeps no entry
-- there
DELETE FROM e WHERE id > 15000 OR id < 0;
VACUUM e;
SELECT verify_all('e');

-- unlogged and temporary tables
CREATE UNLOGGED TABLE ul (a int);
INSERT INTO ul SELECT i % 333 FROM generate_series(1, 5000) i;
CREATE INDEX ul_a ON ul USING scbf (a) WITH (pages_per_segment = 8);
DELETE FROM ul WHERE a % 7 = 0;
VACUUM ul;
SELECT verify_all('ul');
CREATE TEMP TABLE tmp (a int);
INSERT INTO tmp SELECT i % 333 FROM generate_series(1, 5000) i;
CREATE INDEX tmp_a ON tmp USING scbf (a) WITH (pages_per_segment = 8);
SELECT verify_all('tmp');

-- TRUNCATE, REINDEX, VACUUM FULL, CLUSTER give new files: still sound
REINDEX TABLE g;
SELECT verify_all('g');
VACUUM FULL v;
SELECT verify_all('v');
CREATE INDEX v_btree ON v (id);
CLUSTER v USING v_btree;
SELECT verify_all('v');
TRUNCATE v;
SELECT verify_all('v');
INSERT INTO v (id, a, t) SELECT i, i % 10, 'x' FROM generate_series(1, 3000) i;
SELECT verify_all('v');

-- what the verifier accepts as its argument
\set VERBOSITY terse
SELECT scbf_verify('v_btree');
SELECT scbf_verify('v');
SELECT scbf_verify(NULL, true);
\set VERBOSITY default

DROP FUNCTION verify_all(regclass);
DROP TABLE v, g, e, ul, tmp;
