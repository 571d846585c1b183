--
-- scbf_storage: indexes of storage format 2 (src/README, "Storage v2")
-- answer every query form as a sequential scan does: clustered and random
-- columns, many small segments, segments split into several filters,
-- NULLs, multi-column ANDs, = ANY, cross-type keys, generic plans, an empty
-- table, an unlogged table.  Inserts go to the pending area and are found at once: in the
-- inserting transaction, after commit, in new segments, in an index built
-- on an empty table; rolled-back ones are not.  Operations format 2 does
-- not support yet fail cleanly.  VACUUM removes deleted rows' entries and
-- bits, and merges the runs of filters that took many folds.
--
-- What a VACUUM here removes, merges and frees depends on the oldest
-- snapshot in the database: the tables are not autovacuumed, and each
-- VACUUM first waits for the sessions with older snapshots to move on
-- (scbf_wait_snapshots, sql/include/scbf_same.sql).  Without that, an
-- autovacuum worker's ANALYZE (of f2 or f2c after their bulk loads, or of
-- a catalog) keeps dead rows, and superseded pages, for a later VACUUM, as
-- it must, and checks below failed now and then (12 runs in 20 with
-- autovacuum_naptime = 1s; once on 18 with the default).
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS scbf;
RESET client_min_messages;
\getenv abs_srcdir PG_ABS_SRCDIR
\set scbf_same_sql :abs_srcdir '/sql/include/scbf_same.sql'
\set ECHO none
\i :scbf_same_sql
\set ECHO all


-- clustered int4 in bursts of 20, a random text, a low-cardinality int
CREATE TABLE f2 (id int, cust int, code text, status int)
	WITH (autovacuum_enabled = off);
INSERT INTO f2
SELECT g, g / 20, md5(g::text), CASE WHEN g % 97 = 0 THEN NULL ELSE g % 10 END
FROM generate_series(1, 60000) g;
CREATE INDEX f2_cust ON f2 USING scbf (cust) WITH (pages_per_segment = 8);
CREATE INDEX f2_code ON f2 USING scbf (code);
CREATE INDEX f2_pair ON f2 USING scbf (cust, status) WITH (pages_per_segment = 16);

SELECT scbf_same('SELECT * FROM f2 WHERE cust = 1234');
SELECT scbf_same('SELECT * FROM f2 WHERE cust = 0');
SELECT scbf_same('SELECT * FROM f2 WHERE cust = 3000');
SELECT scbf_empty('SELECT * FROM f2 WHERE cust = 3001');
SELECT scbf_empty('SELECT * FROM f2 WHERE cust = -5');
SELECT scbf_same('SELECT * FROM f2 WHERE cust IN (7, 1500, 2999, 99999)');
SELECT scbf_same('SELECT * FROM f2 WHERE cust = ANY (ARRAY[11, NULL, 12])');
SELECT scbf_same('SELECT * FROM f2 WHERE cust = 77::int8');
SELECT scbf_same('SELECT * FROM f2 WHERE cust = 77::int2');
SELECT scbf_same('SELECT * FROM f2 WHERE code = md5(''4242'')');
SELECT scbf_same('SELECT * FROM f2 WHERE code IN (md5(''1''), md5(''60000''), ''nope'')');
SELECT scbf_empty('SELECT * FROM f2 WHERE code = ''absent''');
SELECT scbf_same('SELECT * FROM f2 WHERE cust = 1234 AND status = 8');
SELECT scbf_same('SELECT * FROM f2 WHERE cust = 1234 AND status = 3');
SELECT scbf_empty('SELECT * FROM f2 WHERE cust = 1234 AND status = 10');
SELECT scbf_same('SELECT * FROM f2 WHERE cust = 2328 AND status IS NULL');
SELECT scbf_same('SELECT * FROM f2 WHERE cust = 2328 AND status IS NOT NULL');
SELECT scbf_same('SELECT * FROM f2 WHERE cust = $1', 'int', '555');
SELECT scbf_same('SELECT * FROM f2 WHERE code = $1 AND cust = $2', 'text, int',
	'md5(''999''), 49');

-- signposts: a ledger leaf of the text column holds hundreds of posting
-- lists and ends with signposts (pd_upper below the special space, read
-- here with pageinspect), and a lookup starts at the last one below its
-- hash: 3,000 values, spread over every leaf by their hashes, are all
-- found through the index as a sequential scan finds them
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pageinspect;
RESET client_min_messages;
SELECT count(*) > 10 AS leaves,
	bool_and(p.entries >= 500 AND h.upper < h.special) AS each_with_signposts
FROM scbf_pages('f2_code') p,
	LATERAL page_header(get_raw_page('f2_code', p.blkno::int)) h
WHERE p.kind = 'leaf';
SELECT scbf_same('SELECT * FROM f2 WHERE code = ANY (ARRAY(SELECT md5(g::text) FROM generate_series(1, 60000, 20) g))');

-- a column of NULLs and values, each in its own index
CREATE TABLE f2n (id int, v int) WITH (autovacuum_enabled = off);
INSERT INTO f2n SELECT g, CASE WHEN g % 3 = 0 THEN NULL ELSE g % 500 END
FROM generate_series(1, 20000) g;
CREATE INDEX f2n_v ON f2n USING scbf (v) WITH (pages_per_segment = 8);
SELECT scbf_same('SELECT * FROM f2n WHERE v IS NULL');
SELECT scbf_same('SELECT * FROM f2n WHERE v = 250');
SELECT scbf_empty('SELECT * FROM f2n WHERE v = 500');

-- a sample of segments with few distinct keys sizes the filters small;
-- the segments after it have a key per row and are split into filters
CREATE TABLE f2s (id int, v int) WITH (autovacuum_enabled = off);
INSERT INTO f2s SELECT g, CASE WHEN g <= 40000 THEN g / 5000 ELSE g END
FROM generate_series(1, 80000) g;
CREATE INDEX f2s_v ON f2s USING scbf (v) WITH (pages_per_segment = 8);
SELECT scbf_same('SELECT * FROM f2s WHERE v = 3');
SELECT scbf_same('SELECT * FROM f2s WHERE v = 40001');
SELECT scbf_same('SELECT * FROM f2s WHERE v = 65432');
SELECT scbf_same('SELECT * FROM f2s WHERE v = 80000');
SELECT scbf_same('SELECT * FROM f2s WHERE v IN (0, 8, 50000, 70001)');
SELECT scbf_empty('SELECT * FROM f2s WHERE v = 39999');

-- an empty table, and an unlogged one
CREATE TABLE f2e (a int) WITH (autovacuum_enabled = off);
CREATE INDEX f2e_a ON f2e USING scbf (a);
SELECT scbf_empty('SELECT * FROM f2e WHERE a = 1');
CREATE UNLOGGED TABLE f2u (a int, b text) WITH (autovacuum_enabled = off);
INSERT INTO f2u SELECT g % 100, 'b' || g FROM generate_series(1, 5000) g;
CREATE INDEX f2u_ab ON f2u USING scbf (a, b);
SELECT scbf_same('SELECT * FROM f2u WHERE a = 42');
SELECT scbf_same('SELECT * FROM f2u WHERE a = 42 AND b = ''b4242''');

-- inserts: found in the transaction, after commit, in new segments
BEGIN;
INSERT INTO f2 VALUES (60001, 1234, 'fresh', 4), (60002, 777777, 'fresh2', NULL);
SELECT scbf_same('SELECT * FROM f2 WHERE cust = 1234');
SELECT scbf_same('SELECT * FROM f2 WHERE cust = 777777 AND status IS NULL');
SELECT scbf_same('SELECT * FROM f2 WHERE code = ''fresh''');
COMMIT;
SELECT scbf_same('SELECT * FROM f2 WHERE cust IN (1234, 777777)');
-- a bulk insert: its flush of 39,998 entries per index is folded straight
-- into the filters, without a pending page written for it
CREATE TEMP TABLE f2_pending AS
SELECT count(*) AS pages FROM scbf_pages('f2_cust') WHERE kind = 'pending';
INSERT INTO f2 SELECT g, g / 20, md5(g::text), g % 10
FROM generate_series(60003, 100000) g;
SELECT (SELECT count(*) FROM scbf_pages('f2_cust') WHERE kind = 'pending') =
	(SELECT pages FROM f2_pending) AS no_pending_pages_written,
	entries_pending = 0 AS none_pending
FROM scbf_index_info('f2_cust');
SELECT scbf_same('SELECT * FROM f2 WHERE cust = 4500');
SELECT scbf_same('SELECT * FROM f2 WHERE code = md5(''99999'')');
SELECT scbf_same('SELECT * FROM f2 WHERE cust = 2999');
SELECT scbf_same('SELECT * FROM f2 WHERE cust = 4500 AND status = 1');
SELECT scbf_same('SELECT * FROM f2 WHERE status IS NULL AND cust = 777777');
SELECT scbf_same('SELECT * FROM f2 WHERE cust = ANY (ARRAY[3, 3100, 4999])');

-- the fold: the flush of those 40,000 rows filled pending pages enough to
-- fold them into the filters, so nothing is left to fold; a few rows more
-- stay pending until scbf_clean_pending() folds exactly them, and every
-- answer stays the same through each fold
SELECT scbf_clean_pending('f2_cust') AS left_after_bulk_insert;
INSERT INTO f2 VALUES (100001, 4500, 'p1', 1), (100002, 123456, 'p2', 2),
	(100003, 3, NULL, NULL);
SELECT scbf_same('SELECT * FROM f2 WHERE cust IN (4500, 123456, 3)');
SELECT scbf_clean_pending('f2_cust') AS folded;
SELECT scbf_clean_pending('f2_cust') AS folded_again;
SELECT scbf_same('SELECT * FROM f2 WHERE cust IN (4500, 123456, 3)');
SELECT scbf_same('SELECT * FROM f2 WHERE cust = 123456 AND status = 2');
SELECT scbf_same('SELECT * FROM f2 WHERE code = ''p2''');
SELECT scbf_same('SELECT * FROM f2 WHERE cust = 2999');
SELECT scbf_clean_pending('f2_pair') AS pair_folded;
SELECT scbf_same('SELECT * FROM f2 WHERE cust = 123456 AND status = 2');
SELECT scbf_same('SELECT * FROM f2 WHERE cust = 3 AND status IS NULL');
SELECT scbf_empty('SELECT * FROM f2 WHERE cust = 123456 AND status = 3');

-- folds that outgrow the band: a one-segment index whose table grows by
-- many segments makes the fold move the rows to a wider band, twice; old
-- and new filters answer alike
CREATE TABLE f2w (a int, b text) WITH (autovacuum_enabled = off);
INSERT INTO f2w SELECT g % 50, 'w' || g FROM generate_series(1, 100) g;
CREATE INDEX f2w_ab ON f2w USING scbf (a, b) WITH (pages_per_segment = 8);
INSERT INTO f2w SELECT g % 50, 'w' || g FROM generate_series(101, 6000) g;
SELECT scbf_clean_pending('f2w_ab') >= 0 AS folded;
SELECT scbf_same('SELECT * FROM f2w WHERE a = 7');
SELECT scbf_same('SELECT * FROM f2w WHERE b = ''w5999''');
SELECT scbf_same('SELECT * FROM f2w WHERE b = ''w50''');
INSERT INTO f2w SELECT g % 50, 'w' || g FROM generate_series(6001, 60000) g;
SELECT scbf_clean_pending('f2w_ab') >= 0 AS folded;
SELECT scbf_same('SELECT * FROM f2w WHERE a = 49 AND b = ''w59999''');
SELECT scbf_same('SELECT * FROM f2w WHERE b IN (''w1'', ''w6001'', ''w59950'')');
SELECT scbf_empty('SELECT * FROM f2w WHERE b = ''w60001''');
-- a segment that takes more rows later: its filter takes a second run
INSERT INTO f2w SELECT 7, 'late' || g FROM generate_series(1, 5) g;
SELECT scbf_clean_pending('f2w_ab') AS folded;
SELECT scbf_same('SELECT * FROM f2w WHERE a = 7');
SELECT scbf_same('SELECT * FROM f2w WHERE b = ''late3''');
-- VACUUM folds too
INSERT INTO f2w VALUES (51, 'by vacuum');
CALL scbf_wait_snapshots();
VACUUM f2w;
SELECT scbf_clean_pending('f2w_ab') AS left_after_vacuum;
SELECT scbf_same('SELECT * FROM f2w WHERE a = 51');

-- rolled back, whole or in part: never found
BEGIN;
INSERT INTO f2 VALUES (0, 888888, 'gone', 1);
SAVEPOINT s;
INSERT INTO f2 VALUES (0, 888889, 'gone too', 1);
ROLLBACK TO s;
INSERT INTO f2 VALUES (0, 888890, 'kept', 1);
COMMIT;
BEGIN;
INSERT INTO f2 VALUES (0, 888891, 'gone', 1);
ROLLBACK;
SELECT scbf_empty('SELECT * FROM f2 WHERE cust IN (888889, 888891)');
SELECT scbf_same('SELECT * FROM f2 WHERE cust IN (888888, 888889, 888890)');

-- an index built on an empty table takes everything in its pending area
INSERT INTO f2e SELECT g % 300 FROM generate_series(1, 20000) g;
SELECT scbf_same('SELECT * FROM f2e WHERE a = 1');
SELECT scbf_same('SELECT * FROM f2e WHERE a IN (0, 299, 300)');
SELECT scbf_empty('SELECT * FROM f2e WHERE a = 300');
INSERT INTO f2u VALUES (42, NULL), (NULL, 'b1');
SELECT scbf_same('SELECT * FROM f2u WHERE a = 42 AND b IS NULL');
SELECT scbf_same('SELECT * FROM f2u WHERE a IS NULL');

-- the diagnostics and the verifier read the index (scbf_storage_diag tests
-- them in detail): every row has its entry, in a ledger or pending, and
-- the ledgers' counts cover the folded ones
SELECT entries_live + entries_pending = (SELECT count(*) FROM f2) AS all_entries,
	(max_count > 0) = (entries_live > 0) AS counted FROM scbf_index_info('f2_cust');
SELECT scbf_verify('f2_cust', true), scbf_verify('f2_pair', true);

-- deleted rows: VACUUM removes their entries from every column's ledger
-- and clears the row bits no entry needs any more.  f2_probe() reports
-- what the Bitmap Index Scan returned (TIDs, before the heap recheck) and
-- the index pages it read (Actual Rows through numeric: 18 prints it with
-- two decimals).
CREATE FUNCTION f2_probe(q text, OUT tids bigint, OUT pages bigint)
LANGUAGE plpgsql SET enable_seqscan = off SET enable_indexscan = off AS $$
DECLARE
	plan json;
BEGIN
	EXECUTE 'EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, FORMAT JSON) ' || q
		INTO plan;
	SELECT (n->>'Actual Rows')::numeric::bigint,
		(n->>'Shared Hit Blocks')::bigint + (n->>'Shared Read Blocks')::bigint
	INTO tids, pages
	FROM json_array_elements(plan -> 0 -> 'Plan' -> 'Plans') n
	WHERE n->>'Node Type' = 'Bitmap Index Scan';
END $$;
CREATE TEMP TABLE f2_before AS
SELECT 'cust' AS probe, * FROM f2_probe('SELECT * FROM f2 WHERE cust = 1050')
UNION ALL
SELECT 'code', * FROM f2_probe('SELECT * FROM f2 WHERE code = md5(''21010'')')
UNION ALL
SELECT 'half', * FROM f2_probe('SELECT * FROM f2 WHERE cust = 500');
DELETE FROM f2 WHERE cust BETWEEN 1000 AND 1100;
DELETE FROM f2 WHERE cust = 500 AND id % 2 = 0;
-- before VACUUM the index still hands out the dead rows' TIDs
SELECT probe, f.tids = b.tids AS same_tids
FROM f2_before b, LATERAL f2_probe(CASE probe
	WHEN 'cust' THEN 'SELECT * FROM f2 WHERE cust = 1050'
	WHEN 'code' THEN 'SELECT * FROM f2 WHERE code = md5(''21010'')'
	ELSE 'SELECT * FROM f2 WHERE cust = 500' END) f ORDER BY probe;
CALL scbf_wait_snapshots();
VACUUM f2;
-- after it, none of them; a value whose entries all went reads no ledger
SELECT probe, b.tids AS tids_before, f.tids AS tids_after,
	CASE probe WHEN 'half' THEN f.pages <= b.pages
		ELSE f.pages < b.pages END AS fewer_pages
FROM f2_before b, LATERAL f2_probe(CASE probe
	WHEN 'cust' THEN 'SELECT * FROM f2 WHERE cust = 1050'
	WHEN 'code' THEN 'SELECT * FROM f2 WHERE code = md5(''21010'')'
	ELSE 'SELECT * FROM f2 WHERE cust = 500' END) f ORDER BY probe;
SELECT scbf_empty('SELECT * FROM f2 WHERE cust = 1050');
SELECT scbf_empty('SELECT * FROM f2 WHERE code = md5(''21010'')');
SELECT scbf_same('SELECT * FROM f2 WHERE cust = 500');
SELECT scbf_same('SELECT * FROM f2 WHERE cust IN (999, 1050, 1101)');
SELECT scbf_same('SELECT * FROM f2 WHERE code IN (md5(''19999''), md5(''21010''), md5(''22020''))');
SELECT scbf_same('SELECT * FROM f2 WHERE cust = 1101 AND status = 3');
SELECT scbf_empty('SELECT * FROM f2 WHERE cust = 1000 AND status = 1');
SELECT scbf_same('SELECT * FROM f2 WHERE cust = 500 AND status = 1');
-- the freed line pointers take new rows with other values: found, and the
-- old values stay gone
INSERT INTO f2 SELECT -g, 900000 + g % 7, 'reused' || g, g % 10
FROM generate_series(1, 3000) g;
SELECT scbf_same('SELECT * FROM f2 WHERE cust = 900003');
SELECT scbf_same('SELECT * FROM f2 WHERE code = ''reused77''');
SELECT scbf_empty('SELECT * FROM f2 WHERE cust = 1050');
CALL scbf_wait_snapshots();
VACUUM f2;
SELECT scbf_same('SELECT * FROM f2 WHERE cust IN (900003, 1050, 1101)');
SELECT scbf_same('SELECT * FROM f2 WHERE code = ''reused77'' AND cust = 900000');
-- everything deleted: the index answers nothing, and takes rows again
DELETE FROM f2n;
CALL scbf_wait_snapshots();
VACUUM f2n;
SELECT tids FROM f2_probe('SELECT * FROM f2n WHERE v IS NULL');
SELECT scbf_empty('SELECT * FROM f2n WHERE v = 250');
INSERT INTO f2n VALUES (1, 250), (2, NULL);
SELECT scbf_same('SELECT * FROM f2n WHERE v = 250');
SELECT scbf_same('SELECT * FROM f2n WHERE v IS NULL');

-- an IN list looks up in each candidate filter only the values whose rows
-- name that filter: it reads no more pages than its values' own probes,
-- less the metapage they share (were every value looked up in every
-- candidate, each filter would read a leaf for the other values too)
CREATE TABLE f2j (id int, code text) WITH (autovacuum_enabled = off);
INSERT INTO f2j SELECT g, md5(g::text) FROM generate_series(1, 60000) g;
CREATE INDEX f2j_code ON f2j USING scbf (code) WITH (pages_per_segment = 32);
SELECT (SELECT pages FROM f2_probe('SELECT * FROM f2j WHERE code IN ('
		|| string_agg(format('md5(%L)', v::text), ', ') || ')')) <= sum(pages) - (count(*) - 1)
	AS in_list_reads_no_more, count(*) FILTER (WHERE tids = 1) AS found
FROM unnest(ARRAY[5, 7005, 14005, 21005, 28005, 35005, 42005, 49005]) v,
	LATERAL f2_probe(format('SELECT * FROM f2j WHERE code = md5(%L)', v::text));
SELECT scbf_same('SELECT * FROM f2j WHERE code IN (md5(''5''), md5(''7005''), md5(''14005''), md5(''21005''), md5(''28005''), md5(''35005''), md5(''42005''), md5(''49005''), md5(''x''))');

-- runs merge: a filter that took many folds (a run each) has its runs
-- merged into one by VACUUM: its root lists one run more (the merged one;
-- the superseded ones stay for older snapshots), and a probe reads no more
-- pages (these runs are small enough to sit in the root, inline)
CREATE TABLE f2m (a int, b int) WITH (autovacuum_enabled = off);
INSERT INTO f2m SELECT g % 40, g FROM generate_series(1, 200) g;
CREATE INDEX f2m_a ON f2m USING scbf (a) WITH (pages_per_segment = 64);
INSERT INTO f2m SELECT 7, -1;
SELECT scbf_clean_pending('f2m_a') AS folded;
INSERT INTO f2m SELECT 7, -2;
SELECT scbf_clean_pending('f2m_a') AS folded;
INSERT INTO f2m SELECT 7, -3;
SELECT scbf_clean_pending('f2m_a') AS folded;
INSERT INTO f2m SELECT 7, -4;
SELECT scbf_clean_pending('f2m_a') AS folded;
CREATE TEMP TABLE f2m_before AS
SELECT *, (SELECT entries FROM scbf_pages('f2m_a') WHERE kind = 'root') AS runs
FROM f2_probe('SELECT * FROM f2m WHERE a = 7');
SELECT scbf_same('SELECT * FROM f2m WHERE a = 7');
CALL scbf_wait_snapshots();
VACUUM f2m;
SELECT f.tids = b.tids AS same_tids, f.pages <= b.pages AS no_more_pages,
	(SELECT entries FROM scbf_pages('f2m_a') WHERE kind = 'root') - b.runs AS runs_added
FROM f2m_before b, f2_probe('SELECT * FROM f2m WHERE a = 7') f;
SELECT scbf_same('SELECT * FROM f2m WHERE a = 7');
SELECT scbf_same('SELECT * FROM f2m WHERE a IN (6, 7, 8)');
SELECT scbf_empty('SELECT * FROM f2m WHERE a = 40');

-- chains consolidate: segments split into many filters at build (the
-- sample sized filters for few keys) lose most rows; VACUUM merges each
-- segment's thinned filters, a later VACUUM releases the merged-away
-- columns, and new rows take those columns and the freed pages: the row
-- band keeps its size, and the index extends only once no freed page is
-- left
CREATE TABLE f2c (id int, v int) WITH (autovacuum_enabled = off);
INSERT INTO f2c SELECT g, CASE WHEN g <= 40000 THEN g / 5000 ELSE g END
FROM generate_series(1, 120000) g;
CREATE INDEX f2c_v ON f2c USING scbf (v) WITH (pages_per_segment = 8);
SELECT scbf_same('SELECT * FROM f2c WHERE v IN (3, 60000, 119980)');
DELETE FROM f2c WHERE v > 40000 AND v % 20 <> 0;
CALL scbf_wait_snapshots();
VACUUM f2c;
SELECT scbf_same('SELECT * FROM f2c WHERE v IN (3, 60000, 119980)');
SELECT scbf_empty('SELECT * FROM f2c WHERE v IN (60001, 119999)');
INSERT INTO f2c VALUES (-1, -1);
CALL scbf_wait_snapshots();
VACUUM f2c;
CREATE TEMP TABLE f2c_size AS
SELECT pg_relation_size('f2c_v') AS released,
	(SELECT count(*) FROM scbf_pages('f2c_v') WHERE kind = 'free') AS free,
	(SELECT count(*) FROM scbf_pages('f2c_v') WHERE kind = 'rows') AS band;
SELECT scbf_same('SELECT * FROM f2c WHERE v IN (-1, 3, 60000, 119980)');
INSERT INTO f2c SELECT -g, 200000 + g FROM generate_series(1, 60000) g;
SELECT scbf_same('SELECT * FROM f2c WHERE v IN (200001, 230000, 260000)');
CALL scbf_wait_snapshots();
VACUUM f2c;
SELECT free > 0 AS freed_pages,
	pg_relation_size('f2c_v') <= released OR
	NOT EXISTS (SELECT FROM scbf_pages('f2c_v') WHERE kind = 'free') AS reused_before_extending,
	(SELECT count(*) FROM scbf_pages('f2c_v') WHERE kind = 'rows') = band AS same_band
FROM f2c_size;
SELECT scbf_same('SELECT * FROM f2c WHERE v IN (-1, 3, 60000, 119980, 230000)');
SELECT scbf_same('SELECT * FROM f2c WHERE v = 259999');
SELECT scbf_empty('SELECT * FROM f2c WHERE v IN (60001, 119999, 260001)');

-- a band written anew goes into freed pages first: an index built empty
-- widens its band by relayouts as rows arrive, each superseded band's pages
-- freed once no snapshot reads them; at the end, no page of the bands
-- before the last superseded one is still free (they went to later bands,
-- ledgers and pending pages), where the relation used to grow by each band
CREATE TABLE f2g (v int) WITH (autovacuum_enabled = off);
CREATE INDEX f2g_v ON f2g USING scbf (v) WITH (pages_per_segment = 8);
CREATE TEMP TABLE f2g_bands (serial bigint, pages bigint);
\set round 'INSERT INTO f2g SELECT g FROM generate_series((SELECT count(*) FROM f2g) + 1, (SELECT count(*) FROM f2g) + 10000) g; CALL scbf_wait_snapshots(); SELECT scbf_clean_pending(''f2g_v'') >= 0 AS cleaned; INSERT INTO f2g_bands SELECT serial, count(*) FROM scbf_pages(''f2g_v'') WHERE kind = ''rows'' AND serial NOT IN (SELECT serial FROM f2g_bands) GROUP BY serial;'
:round
:round
:round
:round
:round
:round
:round
:round
SELECT count(*) >= 4 AS relaid_out,
	(SELECT count(*) FROM scbf_pages('f2g_v') WHERE kind = 'free') <=
	(SELECT pages + 1 FROM f2g_bands ORDER BY serial DESC OFFSET 1 LIMIT 1) AS old_bands_reused
FROM f2g_bands;
SELECT scbf_same('SELECT * FROM f2g WHERE v IN (1, 40000, 79999)');
SELECT scbf_empty('SELECT * FROM f2g WHERE v IN (0, 80001)');
SELECT scbf_verify('f2g_v', true);

-- regeometry: an index built empty sizes its filters by a guess (64 keys a
-- page); once a relayout has segments to measure, the band is written anew
-- at the m a build would choose.  A clustered int column (20 rows a value)
-- has fewer keys than the guess: m shrinks.  A unique text column has more:
-- m grows, and segments filled after it take one filter each
CREATE TABLE f2r (id int, cust int, code text) WITH (autovacuum_enabled = off);
CREATE INDEX f2r_cust ON f2r USING scbf (cust) WITH (pages_per_segment = 8);
CREATE INDEX f2r_code ON f2r USING scbf (code) WITH (pages_per_segment = 8);
CREATE TEMP TABLE f2r_empty AS
SELECT indexrelid::regclass::text AS idx, i.slice_counters, i.filter_capacity
FROM pg_index, scbf_index_info(indexrelid) i WHERE indrelid = 'f2r'::regclass;
\set round 'INSERT INTO f2r SELECT g, g / 20, md5(g::text) FROM generate_series((SELECT count(*) FROM f2r) + 1, (SELECT count(*) FROM f2r) + 20000) g;'
:round
:round
:round
:round
:round
:round
SELECT e.idx, i.slice_counters < e.slice_counters AS m_shrank,
	i.slice_counters > e.slice_counters AS m_grew
FROM f2r_empty e, scbf_index_info(e.idx::regclass) i ORDER BY 1;
-- the first segments chained (their keys outgrew the guessed filter), the
-- last third, filled after the regeometry, have one filter each
SELECT count(*) FILTER (WHERE segno < last / 3 AND n > 1) > 0 AS early_chains,
	count(*) FILTER (WHERE segno >= 2 * last / 3) > 20 AS late_segments,
	bool_and(n = 1) FILTER (WHERE segno >= 2 * last / 3) AS late_one_filter
FROM (SELECT segno, count(*) AS n, max(segno) OVER () AS last
	  FROM scbf_filters('f2r_code') GROUP BY segno) s;
SELECT scbf_same('SELECT * FROM f2r WHERE cust IN (1, 2500, 5999)');
SELECT scbf_same('SELECT * FROM f2r WHERE code IN (md5(''1''), md5(''77777''), md5(''119999''))');
SELECT scbf_empty('SELECT * FROM f2r WHERE cust = -1 OR code = ''absent''');
SELECT scbf_verify('f2r_cust', true), scbf_verify('f2r_code', true);

-- REINDEX
REINDEX INDEX f2_cust;
SELECT scbf_same('SELECT * FROM f2 WHERE cust = 1234');
INSERT INTO f2 VALUES (0, 1234, 'new', 1);
SELECT scbf_same('SELECT * FROM f2 WHERE cust = 1234');
SELECT scbf_same('SELECT * FROM f2 WHERE code = ''new''');

DROP TABLE f2, f2n, f2s, f2e, f2u, f2w, f2j, f2m, f2c, f2g, f2r;
DROP FUNCTION f2_probe(text);
