--
-- scbf_top: the top over the groups of bands (src/README, "Step 5, the
-- order to build it in").  With scbf.test_band_filters = 16 and
-- scbf.test_group_bands = 1, settings only the tests use, every band is a
-- group of its own, so a few thousand rows make several groups and the top
-- over them.  A build past one group writes the top, with a spare half of
-- columns; a fold that opens a group within the top's width covers it
-- from its opening; a group past the width is probed directly until VACUUM
-- writes the top anew, wider; VACUUM writes it anew too once its groups
-- lost a quarter of their keys.  Answers stay those of a sequential scan,
-- an absent value reads fewer pages than one a group, and the verifier
-- checks every ledger key's top bits.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS scbf;
CREATE EXTENSION IF NOT EXISTS pageinspect;
RESET client_min_messages;
\getenv abs_srcdir PG_ABS_SRCDIR
\set scbf_same_sql :abs_srcdir '/sql/include/scbf_same.sql'
\set ECHO none
\i :scbf_same_sql
\set index_pages_sql :abs_srcdir '/sql/include/index_pages.sql'
\i :index_pages_sql
\set ECHO all

SET scbf.test_band_filters = 16;
SET scbf.test_group_bands = 1;
SET scbf.fold_helpers = off;

-- an index's groups (their live summary maps), its top (map, pages and
-- serial) and its storage format version (the metapage's bytes 28 to 31)
CREATE FUNCTION top_shape(idx regclass,
	OUT groups bigint, OUT top_maps bigint, OUT top_pages bigint,
	OUT top_serial bigint, OUT version int)
LANGUAGE sql AS $$
	SELECT count(*) FILTER (WHERE kind = 'summary map' AND block_index IS NOT NULL),
		count(*) FILTER (WHERE kind = 'top map'),
		count(*) FILTER (WHERE kind = 'top'),
		max(serial) FILTER (WHERE kind = 'top map'),
		get_byte(get_raw_page(idx::text, 0), 28)
	FROM scbf_pages(idx)
$$;

-- one band: no group and no top, format 3
CREATE TABLE t (id int, a int, code text) WITH (autovacuum_enabled = off);
INSERT INTO t SELECT g, g % 1000, md5(g::text) FROM generate_series(1, 8000) g;
CREATE INDEX t_code ON t USING scbf (code) WITH (pages_per_segment = 8);
SELECT groups, top_maps, version FROM top_shape('t_code');

-- growth by inserts past one group: folds open groups, not the top
INSERT INTO t SELECT g, g % 1000, md5(g::text) FROM generate_series(8001, 60000) g;
SELECT scbf_clean_pending('t_code') >= 0 AS folded;
SELECT groups >= 4 AS several_groups, top_maps, version FROM top_shape('t_code');
SELECT scbf_same('SELECT * FROM t WHERE code = md5(''59999'')');
SELECT scbf_verify('t_code', true);

-- VACUUM opens the top, from the ledgers of every group: format 5
VACUUM t;
SELECT groups >= 4 AS several_groups, top_maps, top_pages > 0 AS top_pages,
	version FROM top_shape('t_code');
SELECT scbf_verify('t_code', true);

-- a build past one group writes the top too
CREATE INDEX t_a ON t USING scbf (a) WITH (pages_per_segment = 8);
SELECT groups >= 4 AS several_groups, top_maps, version FROM top_shape('t_a');
-- past the first group, bands are sized for half the rate: more rows a
-- slice than the first group's band at the same width (serial 2 against 1)
SELECT (SELECT count(*) FROM scbf_pages('t_a') WHERE kind = 'rows' AND serial = 2) >
	(SELECT count(*) FROM scbf_pages('t_a') WHERE kind = 'rows' AND serial = 1)
	AS half_rate_rows;
SELECT scbf_same('SELECT * FROM t WHERE code = md5(''1'')');
SELECT scbf_same('SELECT * FROM t WHERE code = md5(''59999'')');
SELECT scbf_same('SELECT * FROM t WHERE code IN (md5(''2''), md5(''30000''), md5(''44444''))');
SELECT scbf_same('SELECT * FROM t WHERE a = 7');
SELECT scbf_same('SELECT * FROM t WHERE a IN (0, 500, 999)');
SELECT scbf_empty('SELECT * FROM t WHERE code = md5(''60001'')');
SELECT scbf_empty('SELECT * FROM t WHERE a = 1000');
SELECT scbf_verify('t_code', true), scbf_verify('t_a', true);

-- every present value of a sample, through the index, as a sequential scan
-- finds it
DO $$
DECLARE
	v int;
BEGIN
	FOR v IN SELECT g * 997 % 60000 + 1 FROM generate_series(1, 60) g LOOP
		PERFORM scbf_same(format('SELECT * FROM t WHERE code = md5(%L)', v));
	END LOOP;
END $$;

-- an absent value: the top rules out every group, so it reads the
-- metapage, the top's page and the pending pages, fewer than a page a group
SELECT index_pages('SELECT * FROM t WHERE code = md5(''60001'')') < groups
	AS fewer_than_groups
FROM top_shape('t_code');

-- growth by inserts: the groups that open within the top's width are
-- covered from their opening (the same top, its bits set by the folds,
-- which the verifier checks); past its width, the new groups are probed
-- directly
CREATE TEMP TABLE built AS SELECT groups, top_serial FROM top_shape('t_code');
INSERT INTO t SELECT g, g % 1000, md5(g::text) FROM generate_series(60001, 75000) g;
SELECT scbf_clean_pending('t_code') >= 0 AS folded,
	scbf_clean_pending('t_a') >= 0 AS folded;
SELECT s.groups > b.groups AS more_groups, s.top_serial = b.top_serial AS same_top
FROM top_shape('t_code') s, built b;
SELECT scbf_same('SELECT * FROM t WHERE code = md5(''74999'')');
SELECT scbf_same('SELECT * FROM t WHERE code = md5(''3'')');
SELECT scbf_empty('SELECT * FROM t WHERE code = md5(''75001'')');
SELECT scbf_verify('t_code', true), scbf_verify('t_a', true);
INSERT INTO t SELECT g, g % 1000, md5(g::text) FROM generate_series(75001, 120000) g;
SELECT scbf_clean_pending('t_code') >= 0 AS folded,
	scbf_clean_pending('t_a') >= 0 AS folded;
SELECT s.groups > b.groups + b.groups / 2 AS past_the_width,
	s.top_serial = b.top_serial AS same_top
FROM top_shape('t_code') s, built b;
SELECT scbf_same('SELECT * FROM t WHERE code = md5(''119999'')');
SELECT scbf_same('SELECT * FROM t WHERE code IN (md5(''5''), md5(''70000''), md5(''100000''))');
SELECT scbf_same('SELECT * FROM t WHERE a = 7');
SELECT scbf_empty('SELECT * FROM t WHERE code = md5(''120001'')');
SELECT scbf_verify('t_code', true), scbf_verify('t_a', true);

-- VACUUM writes the top anew over every group (a new serial; the old top
-- waits in the graveyard), and the absent value reads fewer pages than a
-- page a group again
CREATE TEMP TABLE grown AS SELECT groups, top_serial FROM top_shape('t_code');
VACUUM t;
SELECT s.groups = g.groups AS same_groups, s.top_serial > g.top_serial AS new_top,
	s.top_maps, s.version
FROM top_shape('t_code') s, grown g;
SELECT count(*) > 0 AS old_top_in_graveyard FROM scbf_pages('t_code')
WHERE kind = 'summary map' AND block_index IS NULL;
SELECT index_pages('SELECT * FROM t WHERE code = md5(''120001'')') < groups
	AS fewer_than_groups
FROM top_shape('t_code');
SELECT scbf_same('SELECT * FROM t WHERE code = md5(''119999'')');
SELECT scbf_same('SELECT * FROM t WHERE code = md5(''60000'')');
SELECT scbf_empty('SELECT * FROM t WHERE code = md5(''120001'')');
SELECT scbf_verify('t_code', true), scbf_verify('t_a', true);

-- churn: VACUUM takes a third of the keys out, more than a quarter of the
-- top's, so it writes the top anew from the ledgers; a deleted value's
-- probe finds nothing
CREATE TEMP TABLE before_churn AS SELECT top_serial FROM top_shape('t_a');
DELETE FROM t WHERE id % 3 = 0;
CALL scbf_wait_snapshots();
VACUUM t;
SELECT s.top_serial > b.top_serial AS written_anew
FROM top_shape('t_a') s, before_churn b;
SELECT scbf_same('SELECT * FROM t WHERE code = md5(''119998'')');
SELECT scbf_empty('SELECT * FROM t WHERE code = md5(''119997'')');
SELECT scbf_same('SELECT * FROM t WHERE a IN (1, 2, 4)');
SELECT scbf_verify('t_code', true), scbf_verify('t_a', true);

-- wider hashes with a top: format 6
CREATE INDEX t_code40 ON t USING scbf (code) WITH (pages_per_segment = 8, hash_bits = 40);
SELECT top_maps, version FROM top_shape('t_code40');
SELECT scbf_same('SELECT * FROM t WHERE code = md5(''119998'')');
SELECT scbf_verify('t_code40', true);

RESET scbf.fold_helpers;
RESET scbf.test_group_bands;
RESET scbf.test_band_filters;
DROP TABLE t;
DROP TABLE built, grown, before_churn;
DROP FUNCTION top_shape(regclass), index_pages(text);
