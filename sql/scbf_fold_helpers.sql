--
-- scbf_fold_helpers: a bulk load hands each full insert batch (65,536
-- entries of a one-column index) to a fold helper, a background worker.
-- A batch that fills while the helper still folds the one before goes to
-- the pending area instead.  The backend waits for the helper before the
-- transaction commits and before a diagnostic or the verifier reads the
-- index (a scan reads the helper's batch in memory instead).  The
-- backend says what became of each batch at DEBUG1: "folded" by the
-- helper, or "did not fold ... folding them here" when the helper could
-- not lock the table without waiting.  The load's last, partial batch
-- goes to the pending area at commit ("for its fold helper to fold after
-- the commit"), and the helper folds it once the transaction has ended.
-- Either way every row is in the index once the load commits (probes
-- equal a sequential scan), and once the helper's last fold is done
-- ("entries = rows": no pending entries, the verifier clean).
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS scbf;
RESET client_min_messages;
\getenv abs_srcdir PG_ABS_SRCDIR
\set scbf_same_sql :abs_srcdir '/sql/include/scbf_same.sql'
\set ECHO none
\i :scbf_same_sql
\set ECHO all

CREATE TABLE fh (id int, a int, t text) WITH (autovacuum_enabled = off);
INSERT INTO fh SELECT g, g / 20, md5(g::text) FROM generate_series(1, 20000) g;
CREATE INDEX fh_a ON fh USING scbf (a);
CREATE INDEX fh_t ON fh USING scbf (t);
-- (defined once the library is loaded, as by the CREATE INDEX above)
SHOW scbf.fold_helpers;
-- true once the index has one entry per row and none pending: waits up
-- to 60 s for a helper's fold after the commit
CREATE FUNCTION entries_equal_rows(idx regclass) RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
	ok boolean;
BEGIN
	FOR i IN 1 .. 6000 LOOP
		SELECT entries_live = (SELECT count(*) FROM fh) AND entries_pending = 0
		INTO ok FROM scbf_index_info(idx);
		EXIT WHEN ok;
		PERFORM pg_sleep(0.01);
	END LOOP;
	RETURN ok;
END
$$;

-- a full batch per index goes to its helper; the rest to the pending area
-- at commit, and each helper folds it after
SET client_min_messages = debug1;
INSERT INTO fh SELECT g, g / 20, md5(g::text) FROM generate_series(20001, 90000) g;
RESET client_min_messages;
-- two full batches per index: the second goes to the helper too, or to the
-- pending area if the helper is still folding the first (which depends on
-- timing, so this load does not show its messages; TAP 011 stops a helper
-- to take that path)
INSERT INTO fh SELECT g, g / 20, md5(g::text) FROM generate_series(90001, 230000) g;
SELECT scbf_same('SELECT * FROM fh WHERE t = md5(''159999'')');
SELECT entries_equal_rows('fh_a'), entries_equal_rows('fh_t');
SELECT scbf_same('SELECT * FROM fh WHERE a = 7000');
SELECT scbf_same('SELECT * FROM fh WHERE t = md5(''150001'')');
SELECT scbf_same('SELECT * FROM fh WHERE a IN (10, 4000, 7999) OR t = md5(''99999'')');
SELECT scbf_empty('SELECT * FROM fh WHERE t = ''absent''');
SELECT scbf_verify('fh_a', true), scbf_verify('fh_t', true);

-- the loading transaction reads its own rows, those of the batch a helper
-- may still be folding included, without waiting for the helpers: the
-- commit waits for them (so their messages come at COMMIT), and the last
-- batch goes to the pending area for the helpers to fold after it
BEGIN;
SET LOCAL client_min_messages = debug1;
INSERT INTO fh SELECT g, g / 20, md5(g::text) FROM generate_series(230001, 300000) g;
SELECT scbf_same('SELECT * FROM fh WHERE a = 14000');
SELECT scbf_same('SELECT * FROM fh WHERE t = md5(''299999'')');
COMMIT;
SELECT entries_equal_rows('fh_a'), entries_equal_rows('fh_t');

-- the table locked by the loading transaction: the helpers cannot take
-- it without waiting, and the backend folds their batches itself
BEGIN;
LOCK TABLE fh IN ACCESS EXCLUSIVE MODE;
SET LOCAL client_min_messages = debug1;
INSERT INTO fh SELECT g, g / 20, md5(g::text) FROM generate_series(300001, 370000) g;
COMMIT;
SELECT entries_equal_rows('fh_a'), entries_equal_rows('fh_t');
SELECT scbf_same('SELECT * FROM fh WHERE a = 17000 OR t = md5(''369999'')');

-- a DDL after a load in the same transaction waits for the helpers' locks
BEGIN;
INSERT INTO fh SELECT g, g / 20, md5(g::text) FROM generate_series(370001, 440000) g;
ALTER TABLE fh ADD COLUMN extra int;
INSERT INTO fh SELECT g, g / 20, md5(g::text) FROM generate_series(440001, 450000) g;
COMMIT;
SELECT entries_equal_rows('fh_a'), entries_equal_rows('fh_t');
SELECT scbf_same('SELECT * FROM fh WHERE a = 21500 OR t = md5(''449999'')');

-- a rolled-back load: its handed-over entries stay (as a direct fold's
-- would), VACUUM removes them, and no probe returns its rows.  The
-- verifier, before the rollback, waits for both helpers (so that VACUUM
-- comes after their folds), appends the rest to the pending area and finds
-- every row of the load in the index
BEGIN;
SET LOCAL client_min_messages = debug1;
INSERT INTO fh SELECT g, -1, 'gone' FROM generate_series(1, 70000) g;
SELECT scbf_same('SELECT * FROM fh WHERE a = -1');
SELECT scbf_same('SELECT * FROM fh WHERE t = ''gone''');
SELECT scbf_verify('fh_a', true), scbf_verify('fh_t', true);
ROLLBACK;
SELECT scbf_empty('SELECT * FROM fh WHERE a = -1');
SELECT scbf_empty('SELECT * FROM fh WHERE t = ''gone''');
CALL scbf_wait_snapshots();
VACUUM fh;
SELECT entries_equal_rows('fh_a'), entries_equal_rows('fh_t');

-- TRUNCATE after a load in the same transaction: new storage, no stray
-- entries; a load into storage new in this transaction folds here
BEGIN;
INSERT INTO fh SELECT g, g / 20, md5(g::text) FROM generate_series(1, 70000) g;
TRUNCATE fh;
INSERT INTO fh SELECT g, g / 20, md5(g::text) FROM generate_series(1, 70000) g;
COMMIT;
SELECT entries_equal_rows('fh_a'), entries_equal_rows('fh_t');
SELECT scbf_same('SELECT * FROM fh WHERE a = 3000 OR t = md5(''69999'')');

-- a temporary table's index is folded by the loading backend (its pages
-- are in local buffers no helper can see)
CREATE TEMP TABLE fht (id int, a int);
CREATE INDEX fht_a ON fht USING scbf (a);
SET client_min_messages = debug1;
INSERT INTO fht SELECT g, g / 20 FROM generate_series(1, 70000) g;
RESET client_min_messages;
SELECT scbf_same('SELECT * FROM fht WHERE a = 3000');

-- helpers off: the backend folds every batch, with the same result
SET scbf.fold_helpers = off;
SET client_min_messages = debug1;
INSERT INTO fh SELECT g, g / 20, md5(g::text) FROM generate_series(70001, 140000) g;
RESET client_min_messages;
RESET scbf.fold_helpers;
SELECT entries_equal_rows('fh_a'), entries_equal_rows('fh_t');
SELECT scbf_same('SELECT * FROM fh WHERE a = 6000 OR t = md5(''139999'')');
SELECT scbf_verify('fh_a', true), scbf_verify('fh_t', true);

DROP TABLE fh, fht;
DROP FUNCTION entries_equal_rows(regclass);
