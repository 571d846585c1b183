--
-- scbf_bands: indexes whose filters span several bands of rows (src/README,
-- "Bands").  scbf.test_band_filters = 16, a setting only the tests use,
-- makes a band hold at most 16 filters, so a few thousand rows cross band
-- boundaries: CREATE INDEX writes several bands; inserts widen the last
-- band and then open new ones after it, and a full band is never written
-- again; a new geometry chosen by a fold goes to the last band and the
-- bands after it only.  Answers stay those of a sequential scan through
-- every step, after VACUUM and after REINDEX; the diagnostics and the
-- verifier read every band.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS scbf;
RESET client_min_messages;
\getenv abs_srcdir PG_ABS_SRCDIR
\set scbf_same_sql :abs_srcdir '/sql/include/scbf_same.sql'
\set ECHO none
\i :scbf_same_sql
\set ECHO all

SET scbf.test_band_filters = 16;

-- an index's live bands, in filter order: the map's block_index is the
-- band's number (NULL for a superseded band still in the graveyard), its
-- serial the band's; the rows pages of each band carry that serial
CREATE FUNCTION bands(idx regclass,
	OUT band int, OUT serial bigint, OUT row_pages bigint)
RETURNS SETOF record LANGUAGE sql AS $$
	SELECT m.block_index, m.serial,
		(SELECT count(*) FROM scbf_pages(idx) r
		 WHERE r.kind = 'rows' AND r.serial = m.serial)
	FROM scbf_pages(idx) m
	WHERE m.kind = 'band map' AND m.block_index IS NOT NULL
	ORDER BY m.block_index
$$;

-- a build: 21 filters of 16 a band at most make two bands
CREATE TABLE b (id int, a int, code text) WITH (autovacuum_enabled = off);
INSERT INTO b SELECT g, g % 1000, md5(g::text) FROM generate_series(1, 20000) g;
CREATE INDEX b_a ON b USING scbf (a) WITH (pages_per_segment = 8);
CREATE INDEX b_code ON b USING scbf (code) WITH (pages_per_segment = 8);
SELECT (SELECT count(*) FROM scbf_filters('b_a')) AS filters,
	(SELECT count(*) FROM bands('b_a')) AS bands;
SELECT scbf_same('SELECT * FROM b WHERE a = 7');
SELECT scbf_same('SELECT * FROM b WHERE a IN (0, 500, 999)');
SELECT scbf_empty('SELECT * FROM b WHERE a = 1000');
SELECT scbf_same('SELECT * FROM b WHERE code = md5(''19999'')');
SELECT scbf_same('SELECT * FROM b WHERE code = md5(''3'')');

-- a wide index (20 columns: 59 filters a table page) whose filter table
-- grows too: by runs of pages at the relation's end, half the table or
-- more at a time
CREATE INDEX b_wide ON b USING scbf (a, id, a, id, a, id, a, id, a, id,
	a, id, a, id, a, id, a, id, a, code) WITH (pages_per_segment = 8);
SELECT count(*) AS table_pages FROM scbf_pages('b_wide') WHERE kind = 'table';

-- growth by inserts: the last band widens up to 16 filters, then new
-- bands open after it; the first band, full, is never written again
CREATE TEMP TABLE first_band AS SELECT * FROM bands('b_a') WHERE band = 0;
INSERT INTO b SELECT g, g % 1000, md5(g::text) FROM generate_series(20001, 40000) g;
INSERT INTO b SELECT g, g % 1000, md5(g::text) FROM generate_series(40001, 80000) g;
SELECT scbf_clean_pending('b_a') >= 0 AS folded, scbf_clean_pending('b_code') >= 0 AS folded;
SELECT count(*) >= 5 AS several_bands,
	(SELECT count(*) FROM scbf_filters('b_a')) > 64 AS past_four_bands
FROM bands('b_a');
SELECT (SELECT serial FROM bands('b_a') WHERE band = 0) =
	(SELECT serial FROM first_band) AS first_band_unchanged;
-- the full bands are listed in the band directory, the last in the metapage
SELECT count(*) AS directory_pages FROM scbf_pages('b_a') WHERE kind = 'band directory';
-- serials rise with the band number
SELECT bool_and(serial > prev) AS serials_rise FROM (
	SELECT serial, lag(serial, 1, 0::bigint) OVER (ORDER BY band) AS prev FROM bands('b_a')) s;
SELECT scbf_same('SELECT * FROM b WHERE a = 7');
SELECT scbf_same('SELECT * FROM b WHERE a IN (1, 250, 998)');
SELECT scbf_same('SELECT * FROM b WHERE id = 79999 AND a = 999');
SELECT scbf_same('SELECT * FROM b WHERE code = md5(''79999'')');
SELECT scbf_same('SELECT * FROM b WHERE code IN (md5(''1''), md5(''40000''), md5(''60001''))');
SELECT scbf_empty('SELECT * FROM b WHERE code = md5(''80001'')');
SELECT scbf_verify('b_a', true), scbf_verify('b_code', true);
SELECT count(*) >= 2 AS table_grew FROM scbf_pages('b_wide') WHERE kind = 'table';
SELECT scbf_same('SELECT * FROM b WHERE a = 7 AND id = 79007');
SELECT scbf_same('SELECT * FROM b WHERE a = 999 AND code = md5(''79999'')');
SELECT scbf_verify('b_wide', true);
DROP INDEX b_wide;
SELECT stale_counters = 0 AS no_stale_bits,
	entries_live + entries_pending = (SELECT count(*) FROM b) AS all_entries
FROM scbf_index_info('b_a');

-- a segment of the first band takes more rows: its filter's bits go to
-- its own band; the probe finds them
INSERT INTO b SELECT 0, 4242, 'late ' || g FROM generate_series(1, 3) g;
UPDATE b SET a = 4343 WHERE id = 5;
SELECT scbf_clean_pending('b_a') >= 0 AS folded;
SELECT scbf_same('SELECT * FROM b WHERE a IN (4242, 4343)');
SELECT scbf_same('SELECT * FROM b WHERE code = ''late 2''');

-- churn: VACUUM removes entries of every band, releases merged filters'
-- columns (which later filters take, in any band), and keeps answers
DELETE FROM b WHERE a % 3 = 0;
CALL scbf_wait_snapshots();
VACUUM b;
SELECT scbf_same('SELECT * FROM b WHERE a = 7');
SELECT scbf_empty('SELECT * FROM b WHERE a = 9');
SELECT scbf_same('SELECT * FROM b WHERE code = md5(''77776'')');
SELECT scbf_empty('SELECT * FROM b WHERE code = md5(''77777'')');
INSERT INTO b SELECT g, g % 1000, md5(g::text) FROM generate_series(80001, 90000) g;
SELECT scbf_clean_pending('b_a') >= 0 AS folded;
SELECT scbf_same('SELECT * FROM b WHERE a IN (3, 7, 4343)');
SELECT scbf_same('SELECT * FROM b WHERE code = md5(''89999'')');
SELECT scbf_verify('b_a', true), scbf_verify('b_code', true);

-- an index built empty guesses its filters' size: once a fold can measure
-- 8 segments it chooses a smaller m, which the bands it opens take; the
-- bands before keep theirs (the verifier checks every filter's bits at its
-- band's m)
CREATE TABLE g (id int, a int) WITH (autovacuum_enabled = off);
CREATE INDEX g_a ON g USING scbf (a) WITH (pages_per_segment = 8);
CREATE TEMP TABLE g_guess AS SELECT slice_counters AS m FROM scbf_index_info('g_a');
SET scbf.fold_helpers = off;
DO $$
BEGIN
	FOR step IN 0 .. 11 LOOP
		INSERT INTO g SELECT i, i / 20 FROM generate_series(step * 5000 + 1, step * 5000 + 5000) i;
		PERFORM scbf_clean_pending('g_a');
	END LOOP;
END $$;
RESET scbf.fold_helpers;
SELECT count(*) >= 2 AS several_bands FROM bands('g_a');
SELECT slice_counters < (SELECT m FROM g_guess) AS smaller_m FROM scbf_index_info('g_a');
SELECT scbf_same('SELECT * FROM g WHERE a = 0');
SELECT scbf_same('SELECT * FROM g WHERE a IN (1, 1500, 2999, 3000)');
SELECT scbf_empty('SELECT * FROM g WHERE a = 3001');
SELECT scbf_verify('g_a', true);

-- REINDEX writes the bands anew, and a setting raised lets the last band
-- widen past the old limit
REINDEX INDEX b_a;
SELECT count(*) >= 5 AS several_bands FROM bands('b_a');
SELECT scbf_same('SELECT * FROM b WHERE a IN (3, 7, 4343)');
RESET scbf.test_band_filters;
INSERT INTO b SELECT g, g % 1000, md5(g::text) FROM generate_series(90001, 100000) g;
SELECT scbf_clean_pending('b_a') >= 0 AS folded;
SELECT scbf_same('SELECT * FROM b WHERE a = 998');
SELECT scbf_verify('b_a', true);

-- the setting is a superuser's: an ordinary role cannot change it
CREATE ROLE scbf_bands_user;
SET ROLE scbf_bands_user;
SET scbf.test_band_filters = 16;
RESET ROLE;
DROP ROLE scbf_bands_user;

DROP TABLE b, g;
DROP FUNCTION bands(regclass);
