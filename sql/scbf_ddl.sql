--
-- scbf_ddl: the index through VACUUM FULL, CLUSTER (on a btree), REINDEX
-- [CONCURRENTLY], CREATE / DROP INDEX CONCURRENTLY, DROP and re-create,
-- ALTER TABLE rewrites, TRUNCATE (rolled back and committed); expression,
-- partial and mixed-type multi-column indexes; unlogged tables (also SET
-- LOGGED / UNLOGGED), temporary and partitioned tables.
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

CREATE TABLE dd (id int PRIMARY KEY, a int, t text, n numeric, ts timestamptz);
INSERT INTO dd SELECT g, g % 700, 'Val' || (g % 1300), (g % 90) / 3.0,
	timestamptz '2025-01-01 00:00+00' + (g % 400) * interval '1 hour'
FROM generate_series(1, 20000) g;
CREATE INDEX dd_a ON dd USING scbf (a);
CREATE INDEX dd_lower ON dd USING scbf (lower(t)) WITH (pages_per_segment = 16);
CREATE INDEX dd_part ON dd USING scbf (t) WHERE a < 100;
CREATE INDEX dd_multi ON dd USING scbf (n, ts, a, t) WITH (pages_per_segment = 8);
DELETE FROM dd WHERE id % 4 = 0;

CREATE FUNCTION dd_checks() RETURNS SETOF text LANGUAGE sql AS $$
	SELECT scbf_same('SELECT * FROM dd WHERE a = 42')
	UNION ALL SELECT scbf_same('SELECT * FROM dd WHERE a IN (1, 2, 699, 700)')
	UNION ALL SELECT scbf_same('SELECT * FROM dd WHERE lower(t) = ''val77''')
	UNION ALL SELECT scbf_same('SELECT * FROM dd WHERE lower(t) = ANY(ARRAY[''val1'', ''VAL2''])')
	UNION ALL SELECT scbf_same('SELECT * FROM dd WHERE t IN (''Val77'', ''VAL77'') AND a < 100')
	UNION ALL SELECT scbf_same('SELECT * FROM dd WHERE n = 10 AND ts = ''2025-01-01 10:00+00''')
	UNION ALL SELECT scbf_same('SELECT * FROM dd WHERE n = 10.000 AND a = 30 AND t IN (''Val30'', ''VAL30'')')
$$;

SELECT * FROM dd_checks();
-- Val1000 has a = 300: outside the partial index
SELECT scbf_empty('SELECT * FROM dd WHERE t = ''Val1000'' AND a < 100') AS outside_partial;
VACUUM FULL dd;
SELECT * FROM dd_checks();
CLUSTER dd USING dd_pkey;
SELECT * FROM dd_checks();
REINDEX TABLE dd;
SELECT * FROM dd_checks();
REINDEX INDEX dd_multi;
REINDEX INDEX CONCURRENTLY dd_a;
REINDEX TABLE CONCURRENTLY dd;
SELECT * FROM dd_checks();
-- DROP / re-create, also CONCURRENTLY (in a regression run nothing runs
-- beside it, but it goes through validate_index and the bulk-delete
-- callback that collects every TID the index holds)
DROP INDEX dd_a;
CREATE INDEX CONCURRENTLY dd_a ON dd USING scbf (a);
SELECT indisvalid, indisready FROM pg_index WHERE indexrelid = 'dd_a'::regclass;
DROP INDEX CONCURRENTLY dd_lower;
CREATE INDEX dd_lower ON dd USING scbf (lower(t)) WITH (pages_per_segment = 16);
SELECT * FROM dd_checks();
-- a rewrite of the table by ALTER TABLE rebuilds the indexes
ALTER TABLE dd ALTER COLUMN a TYPE int8;
SELECT * FROM dd_checks();
-- TRUNCATE, in a transaction rolled back and for good, then new rows
BEGIN;
TRUNCATE dd;
SELECT scbf_empty('SELECT * FROM dd WHERE a = 42') AS truncated,
	scbf_empty('SELECT * FROM dd WHERE lower(t) = ''val77''') AS truncated_expr;
INSERT INTO dd SELECT g, g % 7, 'x', 1, now() FROM generate_series(1, 100) g;
SELECT scbf_same('SELECT * FROM dd WHERE a = 3');
ROLLBACK;
SELECT * FROM dd_checks();
TRUNCATE dd;
SELECT scbf_empty('SELECT * FROM dd WHERE n = 10 AND ts = ''2025-01-01 10:00+00''') AS truncated;
INSERT INTO dd SELECT g, g % 700, 'VAL' || (g % 1300), (g % 90) / 3.0,
	timestamptz '2025-01-01 00:00+00' + (g % 400) * interval '1 hour'
FROM generate_series(1, 5000) g;
SELECT * FROM dd_checks();

-- unlogged: built empty, filled, vacuumed, truncated; SET LOGGED and back
CREATE UNLOGGED TABLE du (a int, b text);
CREATE INDEX du_a ON du USING scbf (a);
CREATE INDEX du_b ON du USING scbf (b) WITH (pages_per_segment = 8);
SELECT relpersistence FROM pg_class WHERE relname IN ('du_a', 'du_b');
SELECT pg_relation_size('du_a', 'init') > 0 AS has_init_fork;
INSERT INTO du SELECT g % 333, md5(g::text) FROM generate_series(1, 10000) g;
SELECT scbf_same('SELECT * FROM du WHERE a = 17');
SELECT scbf_same('SELECT * FROM du WHERE b = md5(''4242'')');
DELETE FROM du WHERE a % 2 = 0;
VACUUM du;
SELECT scbf_same('SELECT * FROM du WHERE a = 17');
SELECT scbf_empty('SELECT * FROM du WHERE a = 18') AS deleted;
TRUNCATE du;
SELECT scbf_empty('SELECT * FROM du WHERE a = 17') AS truncated;
INSERT INTO du VALUES (17, 'x');
SELECT scbf_same('SELECT * FROM du WHERE a = 17');
ALTER TABLE du SET LOGGED;
SELECT relpersistence FROM pg_class WHERE relname IN ('du_a', 'du_b');
INSERT INTO du SELECT g % 333, md5(g::text) FROM generate_series(1, 3000) g;
SELECT scbf_same('SELECT * FROM du WHERE a = 17');
ALTER TABLE du SET UNLOGGED;
INSERT INTO du SELECT g % 333, md5(g::text) FROM generate_series(1, 3000) g;
SELECT scbf_same('SELECT * FROM du WHERE a = 17');
SELECT scbf_same('SELECT * FROM du WHERE b = md5(''42'')');

-- a temporary table
CREATE TEMP TABLE dt (a int);
CREATE INDEX dt_a ON dt USING scbf (a) WITH (pages_per_segment = 8);
INSERT INTO dt SELECT g % 50 FROM generate_series(1, 5000) g;
DELETE FROM dt WHERE a = 7;
VACUUM dt;
SELECT scbf_empty('SELECT * FROM dt WHERE a = 7') AS deleted;
SELECT scbf_same('SELECT * FROM dt WHERE a = 8');

-- a partitioned table: the index cascades to every partition, and new
-- partitions get one
CREATE TABLE dp (k int, v text) PARTITION BY RANGE (k);
CREATE TABLE dp1 PARTITION OF dp FOR VALUES FROM (0) TO (1000);
CREATE TABLE dp2 PARTITION OF dp FOR VALUES FROM (1000) TO (2000);
CREATE INDEX dp_v ON dp USING scbf (v);
CREATE TABLE dp3 PARTITION OF dp FOR VALUES FROM (2000) TO (3000);
INSERT INTO dp SELECT g, 'v' || (g % 97) FROM generate_series(0, 2999) g;
SELECT c.relname, a.amname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
	JOIN pg_am a ON a.oid = c.relam WHERE i.inhparent = 'dp_v'::regclass ORDER BY 1;
SELECT scbf_same('SELECT * FROM dp WHERE v = ''v42''');
SELECT scbf_same('SELECT * FROM dp WHERE v = ''v42'' AND k >= 2000');

-- the extension cannot be dropped while an index uses it
DROP TABLE dd, du, dt, dp;
DROP FUNCTION dd_checks();
DROP FUNCTION scbf_same, scbf_empty, scbf_noindex, scbf_compare;
CREATE TABLE dx (a int);
CREATE INDEX dx_a ON dx USING scbf (a);
\set VERBOSITY terse
DROP EXTENSION scbf;
\set VERBOSITY default
DROP TABLE dx;
