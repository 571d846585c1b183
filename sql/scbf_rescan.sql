--
-- scbf_rescan: an scbf bitmap scan re-run with new keys (a nested loop or a
-- correlated subquery), where one segment yields more than 1024 matching
-- TIDs.  amrescan resets the key memory context that also held the scan's
-- TID buffer; the scan must start a fresh buffer rather than write into the
-- freed one (it used to fail with "could not find block containing chunk"
-- or crash).
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS scbf;
RESET client_min_messages;

-- scbf_same(query [, parameter types, parameter values]): the index is
-- scanned and returns the sequential scan's rows, at least one;
-- scbf_empty(...): the same, no row; scbf_noindex(...): the planner cannot
-- use scbf here.  Each raises an error otherwise (sql/include/scbf_same.sql).
\getenv abs_srcdir PG_ABS_SRCDIR
\set scbf_same_sql :abs_srcdir '/sql/include/scbf_same.sql'
\set ECHO none
\i :scbf_same_sql
\set ECHO all

CREATE TABLE rescan_t (a int);
INSERT INTO rescan_t SELECT 0 FROM generate_series(1, 1100);
INSERT INTO rescan_t SELECT 1 FROM generate_series(1, 2200);
INSERT INTO rescan_t SELECT 2 FROM generate_series(1, 4400);
INSERT INTO rescan_t SELECT 3 FROM generate_series(1, 8800);
CREATE INDEX rescan_t_a ON rescan_t USING scbf (a);

-- each inner scan needs more TIDs than the one before
SELECT scbf_same('SELECT v.x, (SELECT count(*) FROM rescan_t r WHERE r.a = v.x) FROM (VALUES (0), (1), (2), (3)) v(x)');
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_material = off;
SELECT scbf_same('SELECT v.x, r.a FROM (VALUES (0), (1), (2), (3)) v(x) JOIN rescan_t r ON r.a = v.x');
-- the same values again and again: the freed buffer is reused
SELECT scbf_same('SELECT v.x, r.a FROM generate_series(1, 40) g, (VALUES (3), (0)) v(x) JOIN rescan_t r ON r.a = v.x');
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_material;

DROP TABLE rescan_t;
DROP FUNCTION scbf_same, scbf_empty, scbf_noindex, scbf_compare;
