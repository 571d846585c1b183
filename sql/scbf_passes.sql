--
-- scbf_passes: bands and group summaries written in several passes.  A
-- band's or a group's write fills its pages in passes of as many pages as
-- half of maintenance_work_mem holds.  With more than one pass, the keys
-- of its columns are read from the ledgers once and spilled to tapes, one
-- per range of passes, and each pass reads its range's tape (src/README,
-- "Writing a band"); a fold, whose temporary file would be an INSERT's,
-- asks them of the ledgers once a pass instead.  At maintenance_work_mem = 1MB a pass holds 64 pages
-- and there are at most 8 tapes, so a few hundred pages take several
-- passes, and more than 512 read a tape once for each of its passes.
-- Whatever the passes, the pages are those of a write in one pass, byte
-- for byte past the page header; answers stay those of a sequential scan,
-- and the verifier passes after VACUUM writes groups anew.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS scbf;
CREATE EXTENSION IF NOT EXISTS pageinspect;
RESET client_min_messages;
\getenv abs_srcdir PG_ABS_SRCDIR
\set scbf_same_sql :abs_srcdir '/sql/include/scbf_same.sql'
\set ECHO none
\i :scbf_same_sql
\set ECHO all

-- the blocks where two indexes differ past the page header, but the
-- metapage (its graves name the transactions that wrote them); NULL if
-- their sizes differ
CREATE FUNCTION blocks_differ(a regclass, b regclass) RETURNS bigint
LANGUAGE sql AS $$
	SELECT CASE WHEN pg_relation_size(a) = pg_relation_size(b) THEN
		(SELECT count(*) FROM generate_series(1, pg_relation_size(a) / 8192 - 1) blk
		 WHERE substr(get_raw_page(a::text, blk::int), 25) <>
			substr(get_raw_page(b::text, blk::int), 25))
	END
$$;

-- the pages of the largest band and of the largest group summary, and
-- the groups' serials
CREATE FUNCTION largest(idx regclass, OUT band_pages bigint,
	OUT group_pages bigint, OUT group_serials text)
LANGUAGE sql AS $$
	SELECT (SELECT max(n) FROM (SELECT count(*) AS n FROM scbf_pages(idx)
			WHERE kind = 'rows' GROUP BY serial, segno) r),
		(SELECT max(n) FROM (SELECT count(*) AS n FROM scbf_pages(idx)
			WHERE kind = 'summary' GROUP BY serial) s),
		(SELECT string_agg(serial::text, ',' ORDER BY block_index)
			FROM scbf_pages(idx)
			WHERE kind = 'summary map' AND block_index IS NOT NULL)
$$;

-- a build: one band of 1,000,000 keys, its rows built in one pass (64MB)
-- and in ten passes over eight tapes (1MB), two of them read twice
CREATE TABLE p (id int) WITH (autovacuum_enabled = off);
INSERT INTO p SELECT g FROM generate_series(1, 1000000) g;
SET maintenance_work_mem = '64MB';
CREATE INDEX p_one ON p USING scbf (id) WITH (pages_per_segment = 8);
SET maintenance_work_mem = '1MB';
CREATE INDEX p_many ON p USING scbf (id) WITH (pages_per_segment = 8);
SELECT band_pages > 512 AS tapes_read_twice, group_pages FROM largest('p_many');
SELECT blocks_differ('p_one', 'p_many');
SELECT scbf_same('SELECT * FROM p WHERE id = 777777');
SELECT scbf_same('SELECT * FROM p WHERE id IN (1, 500000, 1000000)');
SELECT scbf_empty('SELECT * FROM p WHERE id = 1000001');
DROP INDEX p_one, p_many;

-- bands of 64 filters in groups of 24: a build's group summaries of
-- several passes each
SET scbf.test_band_filters = 64;
SET scbf.test_group_bands = 24;
SET maintenance_work_mem = '64MB';
CREATE INDEX p_one ON p USING scbf (id) WITH (pages_per_segment = 8);
SET maintenance_work_mem = '1MB';
CREATE INDEX p_many ON p USING scbf (id) WITH (pages_per_segment = 8);
SELECT group_pages > 64 AS passes, group_serials FROM largest('p_many');
SELECT blocks_differ('p_one', 'p_many');
SELECT scbf_same('SELECT * FROM p WHERE id = 424242');
SELECT scbf_empty('SELECT * FROM p WHERE id = 0');
DROP TABLE p;

-- growth by inserts: folds open groups, each written from the ledgers of
-- the bands it holds, and write them anew wider, in passes at 1MB, each
-- pass reading the ledgers; each
-- batch adds a filter to the segment the one before left part full, in
-- another band
SET scbf.fold_helpers = off;
CREATE TABLE g1 (id int, pad text) WITH (autovacuum_enabled = off);
CREATE TABLE g2 (id int, pad text) WITH (autovacuum_enabled = off);
CREATE INDEX g1_id ON g1 USING scbf (id) WITH (pages_per_segment = 8);
CREATE INDEX g2_id ON g2 USING scbf (id) WITH (pages_per_segment = 8);
CREATE PROCEDURE grow(tab regclass) LANGUAGE plpgsql AS $$
BEGIN
	FOR i IN 0 .. 4 LOOP
		EXECUTE format('INSERT INTO %s SELECT g, md5(g::text) FROM generate_series($1, $2) g', tab)
			USING i * 100000 + 1, (i + 1) * 100000;
		COMMIT;
		-- no other session's older snapshot (an autovacuum worker's
		-- ANALYZE) keeps this batch's graves from the next batch's fold,
		-- which recycles them: both tables reuse the same pages
		CALL scbf_wait_snapshots();
	END LOOP;
END $$;
SET maintenance_work_mem = '64MB';
CALL grow('g1');
SET maintenance_work_mem = '1MB';
CALL grow('g2');
SELECT group_pages > 64 AS passes, group_serials FROM largest('g2_id');
SELECT blocks_differ('g1_id', 'g2_id');
SELECT scbf_same('SELECT * FROM g2 WHERE id = 499999');
SELECT scbf_same('SELECT * FROM g2 WHERE id IN (3, 300003, 400004)');

-- VACUUM after a third of the keys went: it merges the chains of two
-- filters into one and writes the groups anew (new serials), from the
-- ledgers, in passes at 1MB over spilled keys.  The groups leave out the keys of a filter
-- merged into another; the verifier knows that only probes that began
-- before the merge reach those, through the groups they began with
DELETE FROM g2 WHERE id % 3 = 0;
CALL scbf_wait_snapshots();
VACUUM g2;
SELECT group_pages > 64 AS passes, group_serials FROM largest('g2_id');
SELECT scbf_same('SELECT * FROM g2 WHERE id = 499999');
SELECT scbf_empty('SELECT * FROM g2 WHERE id = 499998');
SELECT scbf_same('SELECT * FROM g2 WHERE id IN (1, 2, 3, 4)');
SET maintenance_work_mem = '64MB';
SELECT scbf_verify('g2_id', true);

RESET maintenance_work_mem;
RESET scbf.fold_helpers;
RESET scbf.test_band_filters;
RESET scbf.test_group_bands;
DROP TABLE g1, g2;
DROP PROCEDURE grow(regclass);
DROP FUNCTION blocks_differ(regclass, regclass);
DROP FUNCTION largest(regclass);
