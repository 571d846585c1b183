--
-- scbf_diag: what the diagnostic functions take as arguments (a value as
-- text or of another type of the column's family, a column number, a
-- domain), checked against the table's rows and against a scan; segments
-- the build found empty; then errors on things that are not scbf indexes.
-- What each function reports of an index, checked against the table and
-- between the functions: scbf_storage_diag.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS scbf;
RESET client_min_messages;
\getenv abs_srcdir PG_ABS_SRCDIR
\set scbf_same_sql :abs_srcdir '/sql/include/scbf_same.sql'
\set ECHO none
\i :scbf_same_sql
\set ECHO all

CREATE TABLE d (id int, a int, b text) WITH (fillfactor = 70, autovacuum_enabled = off);
CREATE INDEX d_a ON d USING scbf (a) WITH (pages_per_segment = 8);
CREATE INDEX d_ab ON d USING scbf (a, b);
-- empty
SELECT count(*) FROM scbf_segments('d_a');
SELECT count(*) FROM scbf_filters('d_a');
SELECT kind FROM scbf_pages('d_a');
SELECT count(*) FROM scbf_probe('d_a', 1);

-- 6000 rows, 10 per value, a NULL every 50 rows, folded into the filters
INSERT INTO d SELECT g, CASE WHEN g % 50 = 0 THEN NULL ELSE g / 10 END, 'b' || g % 97
FROM generate_series(1, 6000) g;
SELECT scbf_clean_pending('d_a') >= 0 AS folded, scbf_clean_pending('d_ab') >= 0 AS folded;
SELECT entries_live = (SELECT count(*) FROM d) AS all_live, entries_pending
FROM scbf_index_info('d_a');
-- a probe's matches are the rows holding the value
SELECT (SELECT sum(ledger_matches) FROM scbf_probe('d_a', 123)) AS matches,
	(SELECT count(*) FROM d WHERE a = 123) AS rows;
SELECT scbf_same('SELECT * FROM d WHERE a = 123');
-- IS NULL
SELECT (SELECT sum(ledger_matches) FROM scbf_probe('d_a', NULL::int)) AS matches,
	(SELECT count(*) FROM d WHERE a IS NULL) AS rows;
SELECT (SELECT coalesce(sum(ledger_matches), 0) FROM scbf_probe('d_ab', NULL::text, 2)) AS matches,
	(SELECT count(*) FROM d WHERE b IS NULL) AS rows;
SELECT scbf_same('SELECT * FROM d WHERE a IS NULL');
-- text is converted to the column's type; a column number picks the column
SELECT (SELECT sum(ledger_matches) FROM scbf_probe('d_a', '123')) AS matches,
	(SELECT count(*) FROM d WHERE a = 123) AS rows;
SELECT (SELECT sum(ledger_matches) FROM scbf_probe('d_ab', 'b7', 2)) AS matches,
	(SELECT count(*) FROM d WHERE b = 'b7') AS rows;
SELECT (SELECT sum(ledger_matches) FROM scbf_probe('d_ab', 'b7'::varchar, 2)) AS varchar_matches;
SELECT scbf_same('SELECT * FROM d WHERE b = ''b70'' AND a = 7');
-- a typed value: cross-type as a scan hashes it, and through a domain
CREATE DOMAIN small_int AS int2;
SELECT (SELECT sum(ledger_matches) FROM scbf_probe('d_a', 123::int8)) AS int8,
	(SELECT sum(ledger_matches) FROM scbf_probe('d_a', 123::int2)) AS int2,
	(SELECT sum(ledger_matches) FROM scbf_probe('d_a', 123::small_int)) AS domain;
SELECT scbf_same('SELECT * FROM d WHERE a = 123::int8');

-- segments the build found empty have no filter and are not probed
CREATE TABLE e (id int, a int) WITH (autovacuum_enabled = off);
INSERT INTO e SELECT g, g % 100 FROM generate_series(1, 20000) g;
DELETE FROM e WHERE id BETWEEN 2000 AND 14000;
VACUUM e;
CREATE INDEX e_a ON e USING scbf (a) WITH (pages_per_segment = 8);
SELECT empty_segments > 0 AS has_empty,
	segments + empty_segments = (pg_relation_size('e') / 8192 + 7) / 8 AS every_segment
FROM scbf_index_info('e_a');
SELECT flags, chain_length, count(*) > 0 AS some FROM scbf_segments('e_a') GROUP BY 1, 2 ORDER BY 1, 2;
SELECT count(*) FILTER (WHERE s.flags = '{empty}') AS empty_segments_probed
FROM scbf_probe('e_a', 7) p JOIN scbf_segments('e_a') s USING (segno);
SELECT sum(ledger_matches) AS matches, (SELECT count(*) FROM e WHERE a = 7) AS rows
FROM scbf_probe('e_a', 7);
SELECT scbf_same('SELECT * FROM e WHERE a = 7');
-- inserts into the empty segments (folded): they get filters
INSERT INTO e SELECT -g, 7 FROM generate_series(1, 3000) g;
SELECT scbf_clean_pending('e_a') >= 0 AS folded;
SELECT sum(ledger_matches) AS matches, (SELECT count(*) FROM e WHERE a = 7) AS rows
FROM scbf_probe('e_a', 7);
SELECT scbf_same('SELECT * FROM e WHERE a = 7');
SELECT scbf_verify('e_a', true);
DROP TABLE e;

-- errors
CREATE INDEX d_btree ON d (a);
CREATE INDEX d_gone ON d USING scbf (b);
CREATE TABLE gone AS SELECT 'd_gone'::regclass::oid AS o;
DROP INDEX d_gone;
CREATE VIEW d_view AS SELECT * FROM d;
CREATE TABLE part (a int) PARTITION BY RANGE (a);
CREATE INDEX part_a ON part USING scbf (a);
-- the OID of a dropped index (the message names the OID: not printed here)
CREATE FUNCTION try_gone(f text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('SELECT count(*) FROM %s(%s::regclass)', f, (SELECT o FROM gone));
	RETURN 'no error';
EXCEPTION WHEN undefined_object THEN
	RETURN SQLSTATE || ': ' || regexp_replace(SQLERRM, '[0-9]+', 'N');
END $$;
SELECT f, try_gone(f) FROM unnest(ARRAY['scbf_index_info', 'scbf_segments', 'scbf_filters',
	'scbf_pages', 'scbf_verify', 'scbf_clean_pending']) f;
\set VERBOSITY terse
SELECT * FROM scbf_index_info('d_btree');
SELECT * FROM scbf_segments('d');
SELECT * FROM scbf_filters('d_view');
SELECT * FROM scbf_pages('part_a');
SELECT * FROM scbf_index_info(NULL);
SELECT * FROM scbf_probe(NULL, 1);
SELECT scbf_verify(NULL);
SELECT scbf_clean_pending(NULL);
SELECT scbf_clean_pending('d_btree');
SELECT scbf_verify('pg_class');
SELECT scbf_verify('pg_class_oid_index');
SELECT * FROM scbf_probe('d_a', 1, 2);
SELECT * FROM scbf_probe('d_a', 1, 0);
SELECT * FROM scbf_probe('d_a', point(1, 2));
SELECT * FROM scbf_probe('d_a', 'x');
SELECT * FROM scbf_probe('d_ab', 1.5::numeric);
\set VERBOSITY default
SELECT * FROM scbf_probe('d_a', point(1, 2));

DROP FUNCTION try_gone(text);
DROP TABLE gone;
DROP VIEW d_view;
DROP TABLE part;
DROP TABLE d;
DROP DOMAIN small_int;
DROP FUNCTION scbf_same, scbf_empty, scbf_noindex, scbf_compare;
