--
-- scbf_delta: once the row band is large, a fold puts its new keys in the
-- delta (src/scbfdelta.c) instead of setting their row bits; probes read
-- the delta first.  The developer setting scbf.delta_band_pages = 0 makes
-- even a small index use it.  Every value inserted while its key sits only
-- in the delta, after a merge that a full partition forced, and after
-- VACUUM, which merges it, and after a band that outgrew its delta gets a
-- new one, is found as a sequential scan finds it; the verifier checks
-- that every ledger entry has its bits or its delta entry.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS scbf;
RESET client_min_messages;
\getenv abs_srcdir PG_ABS_SRCDIR
\set scbf_same_sql :abs_srcdir '/sql/include/scbf_same.sql'
\set ECHO none
\i :scbf_same_sql
\set index_pages_sql :abs_srcdir '/sql/include/index_pages.sql'
\i :index_pages_sql
\set ECHO all

SET scbf.delta_band_pages = 0;

-- clustered int4 in bursts of 20, a random text, a low-cardinality int
CREATE TABLE dl (id int, cust int, code text, status int);
INSERT INTO dl SELECT g, g / 20, md5(g::text), g % 10
FROM generate_series(1, 20000) g;
CREATE INDEX dl_code ON dl USING scbf (code);
CREATE INDEX dl_pair ON dl USING scbf (cust, code);

-- the entries the delta holds, and its pages
CREATE FUNCTION dl_delta(idx regclass) RETURNS TABLE (pages bigint, entries bigint)
LANGUAGE sql AS $$
	SELECT count(*), coalesce(sum(entries), 0) FROM scbf_pages(idx)
	WHERE kind = 'delta' $$;
SELECT * FROM dl_delta('dl_code');

-- 3,000 rows: pending, then folded into the delta (no band bit is set)
INSERT INTO dl SELECT g, g / 20, md5(g::text), g % 10
FROM generate_series(20001, 23000) g;
SELECT scbf_clean_pending('dl_code'), scbf_clean_pending('dl_pair');
SELECT * FROM dl_delta('dl_code');
SELECT pages, entries BETWEEN 3000 AND 3300 AS about_the_keys FROM dl_delta('dl_pair');
SELECT scbf_same('SELECT * FROM dl WHERE code = md5(''21234'')');
SELECT scbf_same('SELECT * FROM dl WHERE code = md5(''23000'')');
SELECT scbf_same('SELECT * FROM dl WHERE code IN (md5(''5''), md5(''20001''), md5(''22999''), ''nope'')');
SELECT scbf_empty('SELECT * FROM dl WHERE code = md5(''23001'')');
SELECT scbf_same('SELECT * FROM dl WHERE cust = 1100 AND code = md5(''22010'')');
SELECT scbf_same('SELECT * FROM dl WHERE cust = 1100');
SELECT scbf_same('SELECT * FROM dl WHERE cust IN (1000, 1150) AND code = md5(''23000'')');
-- every inserted value, through the index only (the checks above compare
-- rows with a sequential scan; this one counts the values the index misses)
SET enable_seqscan = off;
SELECT count(*) AS missed FROM generate_series(20001, 23000) g
WHERE NOT EXISTS (SELECT 1 FROM dl WHERE code = md5(g::text));
SELECT count(*) AS missed FROM generate_series(20001, 23000, 7) g
WHERE NOT EXISTS (SELECT 1 FROM dl WHERE cust = g / 20 AND code = md5(g::text));
RESET enable_seqscan;
SELECT scbf_verify('dl_code', true), scbf_verify('dl_pair', true);

-- four more folds of 6,500 rows: the last one finds partitions full (28
-- pages, a quarter of the band, of 1,018 entries) and merges the delta
-- into the band
INSERT INTO dl SELECT g, g / 20, md5(g::text), g % 10
FROM generate_series(23001, 29500) g;
SELECT scbf_clean_pending('dl_code');
INSERT INTO dl SELECT g, g / 20, md5(g::text), g % 10
FROM generate_series(29501, 36000) g;
SELECT scbf_clean_pending('dl_code');
INSERT INTO dl SELECT g, g / 20, md5(g::text), g % 10
FROM generate_series(36001, 42500) g;
SELECT scbf_clean_pending('dl_code');
SELECT entries > 20000 AS filling FROM dl_delta('dl_code');
INSERT INTO dl SELECT g, g / 20, md5(g::text), g % 10
FROM generate_series(42501, 49000) g;
SELECT scbf_clean_pending('dl_code');
SELECT entries < 6500 AS merged FROM dl_delta('dl_code');
-- and 16,000 in one statement: too many for the delta, bits set at once
INSERT INTO dl SELECT g, g / 20, md5(g::text), g % 10
FROM generate_series(49001, 65000) g;
SELECT scbf_clean_pending('dl_code') >= 0 AS folded;
SELECT entries < 6500 AS unchanged FROM dl_delta('dl_code');
SELECT scbf_same('SELECT * FROM dl WHERE code = md5(''21234'')');
SELECT scbf_same('SELECT * FROM dl WHERE code = md5(''40000'')');
SELECT scbf_same('SELECT * FROM dl WHERE code IN (md5(''7''), md5(''22000''), md5(''64999''))');
SELECT scbf_same('SELECT * FROM dl WHERE cust = 2400 AND code = md5(''48010'')');
SET enable_seqscan = off;
SELECT count(*) AS missed FROM generate_series(1, 65000, 3) g
WHERE NOT EXISTS (SELECT 1 FROM dl WHERE code = md5(g::text));
RESET enable_seqscan;
SELECT scbf_verify('dl_code', true), scbf_verify('dl_pair', true);

-- VACUUM merges the delta before it removes entries: deleted values read
-- no heap page, the others are found, the delta is empty
DELETE FROM dl WHERE id % 4 = 0;
VACUUM dl;
SELECT * FROM dl_delta('dl_code');
SELECT scbf_empty('SELECT * FROM dl WHERE code = md5(''21236'')');
SELECT scbf_same('SELECT * FROM dl WHERE code = md5(''21235'')');
SELECT scbf_same('SELECT * FROM dl WHERE cust = 1100 AND code = md5(''22010'')');
SET enable_seqscan = off;
SELECT count(*) AS missed FROM generate_series(1, 65000, 3) g
WHERE g % 4 <> 0 AND NOT EXISTS (SELECT 1 FROM dl WHERE code = md5(g::text));
RESET enable_seqscan;
SELECT scbf_verify('dl_code', true), scbf_verify('dl_pair', true);
-- the metapage says the delta is empty: probes read no delta page
SELECT index_pages('SELECT * FROM dl WHERE code = md5(''21235'')') AS vacuumed_pages \gset

-- inserts after VACUUM use the delta again, and probes read it again: the
-- same probe reads one page more, its hash's partition
INSERT INTO dl SELECT g, g / 20, md5(g::text), g % 10
FROM generate_series(70001, 71000) g;
SELECT scbf_clean_pending('dl_code');
SELECT entries >= 1000 AS in_delta FROM dl_delta('dl_code');
SELECT index_pages('SELECT * FROM dl WHERE code = md5(''21235'')') - :vacuumed_pages AS delta_pages_read;
SELECT scbf_same('SELECT * FROM dl WHERE code = md5(''70500'')');
SELECT scbf_same('SELECT * FROM dl WHERE code = md5(''21235'')');
SET enable_seqscan = off;
SELECT count(*) AS missed FROM generate_series(70001, 71000) g
WHERE NOT EXISTS (SELECT 1 FROM dl WHERE code = md5(g::text));
RESET enable_seqscan;
SELECT scbf_verify('dl_code', true);

-- a band that grew to twice the size its delta was made for gets a new,
-- larger delta (the old one merged, replaced, freed after the commit); so
-- does an index whose delta was made as an eighth of its band, before
-- deltas were a quarter.  Segments of 8 pages make filters, and the band,
-- grow quickly: 25 folds of 8,000 rows take the band past 128 pages, a
-- quarter of which is twice the 16-page delta.
CREATE TABLE dg (id int, code text) WITH (autovacuum_enabled = off);
INSERT INTO dg SELECT g, md5(g::text) FROM generate_series(1, 20000) g;
CREATE INDEX dg_code ON dg USING scbf (code) WITH (pages_per_segment = 8);
INSERT INTO dg SELECT g, md5(g::text) FROM generate_series(20001, 28000) g;
SELECT scbf_clean_pending('dg_code');
SELECT * FROM dl_delta('dg_code');
SELECT min(blkno) AS first_delta FROM scbf_pages('dg_code') WHERE kind = 'delta' \gset
DO $$
BEGIN
	FOR lo IN 28001 .. 220001 BY 8000 LOOP
		INSERT INTO dg SELECT g, md5(g::text) FROM generate_series(lo, lo + 7999) g;
		PERFORM scbf_clean_pending('dg_code');
	END LOOP;
END $$;
SELECT * FROM dl_delta('dg_code');
SELECT min(blkno) <> :first_delta AS replaced
FROM scbf_pages('dg_code') WHERE kind = 'delta';
SELECT scbf_same('SELECT * FROM dg WHERE code = md5(''27000'')');
SELECT scbf_same('SELECT * FROM dg WHERE code = md5(''227999'')');
SELECT scbf_empty('SELECT * FROM dg WHERE code = md5(''228001'')');
SET enable_seqscan = off;
SELECT count(*) AS missed FROM generate_series(1, 228000, 7) g
WHERE NOT EXISTS (SELECT 1 FROM dg WHERE code = md5(g::text));
RESET enable_seqscan;
SELECT scbf_verify('dg_code', true);

-- VACUUM merges a filter's ledger runs once it has four (each fold adds
-- one; a probe reads a leaf of each): the same probe reads three leaves
-- less after VACUUM
RESET scbf.delta_band_pages;
CREATE TABLE dr (code text);
CREATE INDEX dr_code ON dr USING scbf (code);
INSERT INTO dr SELECT md5(g::text) FROM generate_series(1, 1500) g;
SELECT scbf_clean_pending('dr_code');
INSERT INTO dr SELECT md5(g::text) FROM generate_series(1501, 3000) g;
SELECT scbf_clean_pending('dr_code');
INSERT INTO dr SELECT md5(g::text) FROM generate_series(3001, 4500) g;
SELECT scbf_clean_pending('dr_code');
INSERT INTO dr SELECT md5(g::text) FROM generate_series(4501, 6000) g;
SELECT scbf_clean_pending('dr_code');
SELECT count(*) AS filters FROM scbf_filters('dr_code');
SELECT index_pages('SELECT * FROM dr WHERE code = md5(''7'')') AS four_runs \gset
VACUUM dr;
SELECT :four_runs - index_pages('SELECT * FROM dr WHERE code = md5(''7'')') AS leaves_saved;
SELECT scbf_same('SELECT * FROM dr WHERE code = md5(''7'')');
SELECT scbf_same('SELECT * FROM dr WHERE code = md5(''4777'')');
SET enable_seqscan = off;
SELECT count(*) AS missed FROM generate_series(1, 6000) g
WHERE NOT EXISTS (SELECT 1 FROM dr WHERE code = md5(g::text));
RESET enable_seqscan;
SELECT scbf_verify('dr_code', true);

DROP TABLE dl, dg, dr;
DROP FUNCTION dl_delta(regclass), index_pages(text);
