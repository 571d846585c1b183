--
-- scbf_batch: inserts are kept in the backend's batch and written before
-- the transaction commits, when the batch is full, or before a diagnostic
-- or the verifier reads the index, or a plan that may run in parallel
-- workers starts.  A transaction sees its own inserts
-- through the index: a scan reads the batch in memory and writes nothing;
-- a rolled-back subtransaction's entries are never written nor found;
-- TRUNCATE, REINDEX and DROP INDEX after inserts in the same transaction
-- leave no stray entries; a batch larger than its bound is written in the
-- middle of a statement.  "entries = rows" compares the index's entries
-- with the table's rows (no dead tuples here, so they must be equal): the
-- entries of the ledgers (entries_live) and of the pending area
-- (entries_pending).  The verifier checks every entry against the heap.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS scbf;
RESET client_min_messages;
\getenv abs_srcdir PG_ABS_SRCDIR
\set scbf_same_sql :abs_srcdir '/sql/include/scbf_same.sql'
\set ECHO none
\i :scbf_same_sql
\set ECHO all

CREATE TABLE bt (id int, a int, t text);
INSERT INTO bt SELECT g, g % 100, 'x' || g FROM generate_series(1, 2000) g;
CREATE INDEX bt_a ON bt USING scbf (a);
CREATE INDEX bt_at ON bt USING scbf (a, t);
CREATE FUNCTION entries_equal_rows(idx regclass) RETURNS boolean
LANGUAGE sql AS $$
	SELECT entries_live + entries_pending = (SELECT count(*) FROM bt) FROM scbf_index_info(idx)
$$;

-- a transaction finds its own inserts, before it commits
BEGIN;
INSERT INTO bt SELECT g, 500 + g % 10, 'y' || g FROM generate_series(1, 300) g;
SELECT scbf_same('SELECT * FROM bt WHERE a = 503');
SELECT scbf_same('SELECT * FROM bt WHERE a = 504 AND t = ''y14''');
INSERT INTO bt VALUES (9001, 600, 'z');
SELECT scbf_same('SELECT * FROM bt WHERE a = 600');
COMMIT;
SELECT scbf_same('SELECT * FROM bt WHERE a IN (503, 600)');
SELECT entries_equal_rows('bt_a'), entries_equal_rows('bt_at');

-- a scan of the index by the inserting transaction writes nothing: its
-- Bitmap Index Scan dirties no page and writes no WAL (scan_writes: the
-- blocks dirtied and WAL records of the query's Bitmap Index Scans), and
-- still finds the rows of the batch
CREATE FUNCTION scan_writes(q text) RETURNS bigint
LANGUAGE plpgsql SET enable_seqscan = off SET enable_indexscan = off AS $$
DECLARE
	plan json;
	written bigint;
BEGIN
	EXECUTE 'EXPLAIN (ANALYZE, BUFFERS, WAL, COSTS OFF, TIMING OFF, FORMAT JSON) ' || q
		INTO plan;
	SELECT sum((n->>'Shared Dirtied Blocks')::bigint +
			   (n->>'Local Dirtied Blocks')::bigint +
			   (n->>'WAL Records')::bigint)
	INTO written
	FROM json_array_elements(plan -> 0 -> 'Plan' -> 'Plans') n
	WHERE n->>'Node Type' = 'Bitmap Index Scan';
	RETURN written;
END $$;
BEGIN;
INSERT INTO bt SELECT 20000 + g, 1500 + g % 10, 'w' || g FROM generate_series(1, 200) g;
SELECT scan_writes('SELECT * FROM bt WHERE a = 1503') AS scan_writes;
SELECT scbf_same('SELECT * FROM bt WHERE a = 1503');
SELECT scbf_same('SELECT * FROM bt WHERE a = 1504 AND t = ''w14''');

-- a subtransaction's rows are found until it rolls back, then no longer
SAVEPOINT s;
INSERT INTO bt SELECT 20200 + g, 1510, 'sub' FROM generate_series(1, 20) g;
SELECT scbf_same('SELECT * FROM bt WHERE a IN (1503, 1510)');
ROLLBACK TO SAVEPOINT s;
SELECT scbf_same('SELECT * FROM bt WHERE a IN (1503, 1510)');
SELECT scbf_empty('SELECT * FROM bt WHERE a = 1510') AS rolled_back;

-- cursors declared before more inserts and fetched after them: the scan
-- runs at the first FETCH and finds what the cursor's snapshot sees (the
-- rows inserted before the DECLARE), the index's cursor as the sequential
-- scan's
SET LOCAL enable_seqscan = off;
SET LOCAL enable_indexscan = off;
EXPLAIN (COSTS OFF) SELECT count(*), sum(id) FROM bt WHERE a IN (1505, 1511);
DECLARE c_index CURSOR FOR SELECT count(*), sum(id) FROM bt WHERE a IN (1505, 1511);
SET LOCAL enable_seqscan = on;
SET LOCAL enable_bitmapscan = off;
DECLARE c_seq CURSOR FOR SELECT count(*), sum(id) FROM bt WHERE a IN (1505, 1511);
INSERT INTO bt SELECT 20300 + g, 1511, 'after' FROM generate_series(1, 10) g;
FETCH c_index;
FETCH c_seq;
CLOSE c_index;
CLOSE c_seq;
RESET enable_seqscan;
RESET enable_indexscan;
RESET enable_bitmapscan;
SELECT scbf_same('SELECT * FROM bt WHERE a IN (1505, 1511)');

-- one statement that inserts what it reads of the same table through the
-- index: the rows of the batch are found
SET LOCAL enable_seqscan = off;
SET LOCAL enable_indexscan = off;
EXPLAIN (COSTS OFF) INSERT INTO bt SELECT id + 1000, 1520, t FROM bt WHERE a = 1506;
INSERT INTO bt SELECT id + 1000, 1520, t FROM bt WHERE a = 1506;
RESET enable_seqscan;
RESET enable_indexscan;
SELECT scbf_same('SELECT * FROM bt WHERE a = 1520');
SELECT scan_writes('SELECT * FROM bt WHERE a = 1520') AS scan_writes;

-- the diagnostics and the verifier append the batch to the pending area
-- first: they count every row of the transaction, and the verifier finds
-- each one in the index
SELECT entries_equal_rows('bt_a'), entries_equal_rows('bt_at');
SELECT scbf_verify('bt_a', heapallindexed => true);
SELECT scbf_verify('bt_at', heapallindexed => true);
COMMIT;
SELECT scbf_same('SELECT * FROM bt WHERE a IN (1503, 1511, 1520)');
SELECT scbf_empty('SELECT * FROM bt WHERE a = 1510') AS rolled_back;
SELECT entries_equal_rows('bt_a'), entries_equal_rows('bt_at');

-- rolled-back subtransactions: their entries are never written
BEGIN;
INSERT INTO bt VALUES (9002, 700, 'kept1');
SAVEPOINT s1;
INSERT INTO bt SELECT g, 701, 'gone' FROM generate_series(1, 50) g;
SAVEPOINT s2;
INSERT INTO bt VALUES (9003, 702, 'gone too');
RELEASE SAVEPOINT s2;
ROLLBACK TO SAVEPOINT s1;
INSERT INTO bt VALUES (9004, 703, 'kept2');
SAVEPOINT s3;
INSERT INTO bt VALUES (9005, 704, 'kept3');
RELEASE SAVEPOINT s3;
COMMIT;
SELECT scbf_empty('SELECT * FROM bt WHERE a = 701') AS rolled_back;
SELECT scbf_same('SELECT * FROM bt WHERE a IN (700, 703, 704)');
SELECT entries_equal_rows('bt_a'), entries_equal_rows('bt_at');

-- the same through PL/pgSQL exception blocks, one subtransaction per row
DO $$
BEGIN
	FOR i IN 1..40 LOOP
		BEGIN
			INSERT INTO bt VALUES (10000 + i, 800 + i % 4, 'loop');
			IF i % 2 = 0 THEN
				RAISE EXCEPTION 'undo row %', i;
			END IF;
		EXCEPTION WHEN raise_exception THEN
			NULL;
		END;
	END LOOP;
END $$;
SELECT scbf_same('SELECT * FROM bt WHERE a IN (801, 803)');
SELECT scbf_empty('SELECT * FROM bt WHERE a IN (800, 802)') AS rolled_back;
SELECT entries_equal_rows('bt_a'), entries_equal_rows('bt_at');

-- a rolled-back transaction leaves nothing behind
BEGIN;
INSERT INTO bt SELECT g, 900, 'aborted' FROM generate_series(1, 100) g;
ROLLBACK;
SELECT entries_equal_rows('bt_a'), entries_equal_rows('bt_at');

-- TRUNCATE, REINDEX and DROP INDEX after inserts in the same transaction
CREATE TABLE bt2 (a int);
CREATE INDEX bt2_a ON bt2 USING scbf (a);
INSERT INTO bt2 SELECT g % 10 FROM generate_series(1, 100) g;
BEGIN;
INSERT INTO bt2 SELECT g % 10 FROM generate_series(1, 100) g;
TRUNCATE bt2;
INSERT INTO bt2 SELECT 20 + g % 5 FROM generate_series(1, 30) g;
COMMIT;
SELECT entries_live + entries_pending = 30 AS truncated FROM scbf_index_info('bt2_a');
SELECT scbf_same('SELECT * FROM bt2 WHERE a = 21');
SELECT scbf_empty('SELECT * FROM bt2 WHERE a = 1') AS truncated;
BEGIN;
INSERT INTO bt2 SELECT 30 FROM generate_series(1, 25) g;
REINDEX INDEX bt2_a;
INSERT INTO bt2 VALUES (31);
COMMIT;
SELECT entries_live + entries_pending = 56 AS reindexed FROM scbf_index_info('bt2_a');
SELECT scbf_same('SELECT * FROM bt2 WHERE a IN (30, 31)');
BEGIN;
INSERT INTO bt2 SELECT 40 FROM generate_series(1, 5) g;
DROP INDEX bt2_a;
COMMIT;
SELECT count(*) FROM bt2;

-- a batch past its bound (1 MB) is written in the middle of the statement,
-- then rolled back: the entries of the aborted rows wait for VACUUM
BEGIN;
INSERT INTO bt SELECT g, 1000 + g % 7, 'big' FROM generate_series(1, 150000) g;
SELECT scbf_same('SELECT * FROM bt WHERE a = 1003');
ROLLBACK;
SELECT entries_live > (SELECT count(*) FROM bt) AS aborted_entries_wait
	FROM scbf_index_info('bt_a');
VACUUM bt;
SELECT entries_equal_rows('bt_a'), entries_equal_rows('bt_at');
SELECT scbf_empty('SELECT * FROM bt WHERE a = 1003') AS rolled_back;

-- ON COMMIT DELETE ROWS: the batch is written, then the rows go
CREATE TEMP TABLE tmp_b (a int) ON COMMIT DELETE ROWS;
CREATE INDEX tmp_b_a ON tmp_b USING scbf (a);
BEGIN;
INSERT INTO tmp_b SELECT g % 3 FROM generate_series(1, 30) g;
SELECT scbf_same('SELECT * FROM tmp_b WHERE a = 2');
COMMIT;
SELECT entries_live FROM scbf_index_info('tmp_b_a');
INSERT INTO tmp_b VALUES (5);
SELECT count(*) FROM tmp_b;

-- a plan that may run in parallel workers: a worker that builds the
-- bitmap cannot read this backend's batch, so the batch is written to the
-- pending area before such a plan starts.  The plan is forced into a
-- worker (force_parallel_mode, debug_parallel_query from 16; the leader
-- does not take part); the counts through the index and through a
-- sequential scan must agree, and the rows just inserted be found.
BEGIN;
INSERT INTO bt SELECT g, 7000, 'parallel' FROM generate_series(1, 10) g;
SET LOCAL parallel_leader_participation = off;
SET LOCAL max_parallel_workers_per_gather = 2;
SELECT set_config(CASE WHEN current_setting('server_version_num')::int >= 160000
	THEN 'debug_parallel_query' ELSE 'force_parallel_mode' END, 'on', true) AS parallel;
SET LOCAL enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM bt WHERE a = 7000;
SELECT count(*) AS through_index FROM bt WHERE a = 7000;
SET LOCAL enable_seqscan = on;
SET LOCAL enable_bitmapscan = off;
SELECT count(*) AS through_seqscan FROM bt WHERE a = 7000;
COMMIT;

SELECT scbf_verify('bt_a', heapallindexed => true);
SELECT scbf_verify('bt_at', heapallindexed => true);

DROP TABLE bt, bt2, tmp_b;
DROP FUNCTION entries_equal_rows(regclass), scan_writes(text);
DROP FUNCTION scbf_same, scbf_empty, scbf_noindex, scbf_compare;
