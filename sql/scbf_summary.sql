--
-- scbf_summary: the summaries of groups of bands (src/README, "Summaries
-- of bands").  With scbf.test_band_filters = 16 and scbf.test_group_bands
-- = 24, settings only the tests use, a few thousand rows make many bands
-- and several groups.  The first group opens with the second band, band
-- 0's summary written from its ledgers; later bands' summaries take their
-- keys as folds set their rows; a group is written anew, wider, as bands
-- open past its width, then a new group opens after a full one; VACUUM
-- writes a group's summary anew once its bands lost a fifth of their
-- keys.  Answers stay those of a sequential scan, a probe of an absent
-- value reads no band's rows, and the verifier checks every ledger key's
-- summary bits.
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

SET scbf.test_band_filters = 16;
SET scbf.test_group_bands = 24;

-- an index's bands and groups: the live band maps and summary maps (their
-- block_index is the band's or the group's number), and the summary pages
CREATE FUNCTION shape(idx regclass,
	OUT bands bigint, OUT groups bigint, OUT group_serials text)
LANGUAGE sql AS $$
	SELECT count(*) FILTER (WHERE kind = 'band map' AND block_index IS NOT NULL),
		count(*) FILTER (WHERE kind = 'summary map' AND block_index IS NOT NULL),
		string_agg(serial::text, ',' ORDER BY block_index)
			FILTER (WHERE kind = 'summary map' AND block_index IS NOT NULL)
	FROM scbf_pages(idx)
$$;

-- one band: no summary
CREATE TABLE s (id int, a int, code text) WITH (autovacuum_enabled = off);
INSERT INTO s SELECT g, g % 1000, md5(g::text) FROM generate_series(1, 10000) g;
CREATE INDEX s_a ON s USING scbf (a) WITH (pages_per_segment = 8);
SELECT * FROM shape('s_a');

-- growth by inserts: the second band opens the first group, whose summary
-- of band 0 comes from band 0's ledgers
SET scbf.fold_helpers = off;
INSERT INTO s SELECT g, g % 1000, md5(g::text) FROM generate_series(10001, 30000) g;
SELECT scbf_clean_pending('s_a') >= 0 AS folded;
SELECT bands >= 2 AS two_bands, groups, group_serials FROM shape('s_a');
SELECT scbf_same('SELECT * FROM s WHERE a = 7');
SELECT scbf_same('SELECT * FROM s WHERE a IN (0, 500, 999)');
SELECT scbf_same('SELECT * FROM s WHERE id = 3 AND a = 3');
SELECT scbf_empty('SELECT * FROM s WHERE a = 1000');
SELECT scbf_verify('s_a', true);

-- more bands: the group is written anew, wider (a new serial), up to 24
-- bands; then a second group opens after it
DO $$
BEGIN
	FOR step IN 0 .. 15 LOOP
		INSERT INTO s SELECT g, g % 1000, md5(g::text)
			FROM generate_series(30001 + step * 20000, 50000 + step * 20000) g;
		PERFORM scbf_clean_pending('s_a');
	END LOOP;
END $$;
SELECT bands > 24 AS past_one_group, groups, group_serials FROM shape('s_a');
SELECT scbf_same('SELECT * FROM s WHERE a = 7');
SELECT scbf_same('SELECT * FROM s WHERE a IN (1, 250, 998)');
SELECT scbf_same('SELECT * FROM s WHERE id = 349999 AND a = 999');
SELECT scbf_empty('SELECT * FROM s WHERE a = 1000');
SELECT scbf_verify('s_a', true);

-- an absent value: the summaries send the probe to no band, so it reads
-- the metapage, a page of each group's summary, and the pending pages,
-- far fewer than k row pages a band
SELECT scbf_clean_pending('s_a') >= 0 AS folded;
SELECT index_pages('SELECT * FROM s WHERE a = 1000') <= 1 + groups + 7 AS few_pages,
	index_pages('SELECT * FROM s WHERE a = 1000') < bands AS fewer_than_bands
FROM shape('s_a');

-- a text column, built: CREATE INDEX writes the groups its bands need
CREATE INDEX s_code ON s USING scbf (code) WITH (pages_per_segment = 8);
SELECT bands > 24 AS past_one_group, groups FROM shape('s_code');
SELECT scbf_same('SELECT * FROM s WHERE code = md5(''349999'')');
SELECT scbf_same('SELECT * FROM s WHERE code IN (md5(''1''), md5(''120000''), md5(''300001''))');
SELECT scbf_empty('SELECT * FROM s WHERE code = md5(''350001'')');
SELECT scbf_verify('s_code', true);

-- a segment of an early band takes more keys: its summary takes them
INSERT INTO s SELECT 0, 4242, 'late ' || g FROM generate_series(1, 3) g;
UPDATE s SET a = 4343, code = 'moved' WHERE id = 5;
SELECT scbf_clean_pending('s_a') >= 0 AS folded,
	scbf_clean_pending('s_code') >= 0 AS folded;
SELECT scbf_same('SELECT * FROM s WHERE a IN (4242, 4343)');
SELECT scbf_same('SELECT * FROM s WHERE code IN (''late 2'', ''moved'')');
SELECT scbf_verify('s_a', true), scbf_verify('s_code', true);

-- churn: VACUUM takes a third of the keys out of every band, more than a
-- fifth, so it writes each group's summary anew from the ledgers (new
-- serials; the old summaries wait in the graveyard); answers stay exact,
-- and a deleted value's probe reads no band
CREATE TEMP TABLE before_churn AS SELECT group_serials FROM shape('s_a');
DELETE FROM s WHERE a % 3 = 0;
CALL scbf_wait_snapshots();
VACUUM s;
SELECT s.groups, s.group_serials <> b.group_serials AS written_anew
FROM shape('s_a') s, before_churn b;
SELECT count(*) > 0 AS old_summaries_in_graveyard FROM scbf_pages('s_a')
WHERE kind = 'summary map' AND block_index IS NULL;
SELECT index_pages('SELECT * FROM s WHERE a = 9') <= 1 + groups + 7 AS few_pages
FROM shape('s_a');
SELECT scbf_same('SELECT * FROM s WHERE a = 7');
SELECT scbf_empty('SELECT * FROM s WHERE a = 9');
SELECT scbf_same('SELECT * FROM s WHERE code = md5(''77776'')');
SELECT scbf_empty('SELECT * FROM s WHERE code = md5(''77777'')');
SELECT scbf_verify('s_a', true), scbf_verify('s_code', true);

-- REINDEX writes bands and groups anew
REINDEX INDEX s_a;
SELECT bands > 24 AS past_one_group, groups FROM shape('s_a');
SELECT scbf_same('SELECT * FROM s WHERE a IN (4, 7, 4343)');
SELECT scbf_verify('s_a', true);

-- the setting is a superuser's: an ordinary role cannot change it
CREATE ROLE scbf_summary_user;
SET ROLE scbf_summary_user;
SET scbf.test_group_bands = 8;
RESET ROLE;
DROP ROLE scbf_summary_user;

RESET scbf.fold_helpers;
RESET scbf.test_group_bands;
RESET scbf.test_band_filters;
DROP TABLE s;
DROP TABLE before_churn;
DROP FUNCTION shape(regclass), index_pages(text);
