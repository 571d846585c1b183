--
-- scbf_maint: the index through VACUUM FULL, CLUSTER, REINDEX [CONCURRENTLY],
-- CREATE INDEX CONCURRENTLY, TRUNCATE, unlogged tables, partial and
-- expression indexes, an empty build followed by inserts, and saturated
-- counters recounted by VACUUM.  Every answer is compared with a seqscan.
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

CREATE TABLE m (id int PRIMARY KEY, a int, t text);
INSERT INTO m SELECT g, g % 700, 'v' || (g % 1300) FROM generate_series(1, 20000) g;
CREATE INDEX m_a ON m USING scbf (a);
CREATE INDEX m_lower ON m USING scbf (lower(t));
CREATE INDEX m_part ON m USING scbf (t) WHERE a < 100;
DELETE FROM m WHERE id % 4 = 0;

CREATE FUNCTION m_checks() RETURNS SETOF text LANGUAGE sql AS $$
	SELECT scbf_same('SELECT * FROM m WHERE a = 42')
	UNION ALL SELECT scbf_same('SELECT * FROM m WHERE a IN (1, 2, 699, 700)')
	UNION ALL SELECT scbf_same('SELECT * FROM m WHERE lower(t) = ''v77''')
	UNION ALL SELECT scbf_same('SELECT * FROM m WHERE t IN (''v77'', ''V77'') AND a < 100')
$$;

SELECT * FROM m_checks();
-- v1000 has a = 300: outside the partial index
SELECT scbf_empty('SELECT * FROM m WHERE t = ''v1000'' AND a < 100') AS outside_partial;
VACUUM FULL m;
SELECT * FROM m_checks();
CLUSTER m USING m_pkey;
SELECT * FROM m_checks();
REINDEX TABLE m;
SELECT * FROM m_checks();
REINDEX INDEX CONCURRENTLY m_a;
SELECT * FROM m_checks();
DROP INDEX m_a;
CREATE INDEX CONCURRENTLY m_a ON m USING scbf (a);
SELECT * FROM m_checks();
SELECT indisvalid, indisready FROM pg_index WHERE indexrelid = 'm_a'::regclass;
-- scbf cannot drive CLUSTER (no ordering)
\set VERBOSITY terse
CLUSTER m USING m_a;
\set VERBOSITY default
TRUNCATE m;
SELECT scbf_empty('SELECT * FROM m WHERE a = 42') AS truncated;
INSERT INTO m SELECT g, g % 700, 'V' || (g % 1300) FROM generate_series(1, 5000) g;
SELECT * FROM m_checks();

-- an unlogged table: built empty, filled, truncated
CREATE UNLOGGED TABLE u (a int, b text);
CREATE INDEX u_a ON u USING scbf (a);
CREATE INDEX u_b ON u USING scbf (b) WITH (pages_per_segment = 8);
INSERT INTO u SELECT g % 333, md5(g::text) FROM generate_series(1, 10000) g;
SELECT scbf_same('SELECT * FROM u WHERE a = 17');
SELECT scbf_same('SELECT * FROM u WHERE b = md5(''4242'')');
DELETE FROM u WHERE a % 2 = 0;
VACUUM u;
SELECT scbf_same('SELECT * FROM u WHERE a = 17');
SELECT scbf_empty('SELECT * FROM u WHERE a = 18') AS deleted;
TRUNCATE u;
SELECT scbf_empty('SELECT * FROM u WHERE a = 17') AS truncated;
INSERT INTO u VALUES (17, 'x');
SELECT scbf_same('SELECT * FROM u WHERE a = 17');
SELECT relpersistence FROM pg_class WHERE relname IN ('u_a', 'u_b');

-- a value repeated far beyond 15 per filter saturates its counters; its
-- deletes cannot decrement them, and VACUUM recounts the filter from the
-- ledger so that the deleted value stops matching
CREATE TABLE sat (a int, b int);
CREATE INDEX sat_a ON sat USING scbf (a);
INSERT INTO sat SELECT CASE WHEN g % 2 = 0 THEN 1 ELSE g END, g FROM generate_series(1, 4000) g;
SELECT scbf_same('SELECT * FROM sat WHERE a = 1');
DELETE FROM sat WHERE a = 1;
SELECT scbf_empty('SELECT * FROM sat WHERE a = 1') AS deleted;
VACUUM sat;
SELECT scbf_empty('SELECT * FROM sat WHERE a = 1') AS deleted_vacuumed;
SELECT scbf_same('SELECT * FROM sat WHERE a = 3');
-- nothing of value 1 is left in any filter (scbf_probe: no row)
SELECT count(*) AS filters_that_may_hold_1 FROM scbf_probe('sat_a', 1);
INSERT INTO sat VALUES (1, -1);
SELECT count(*) AS filters_that_may_hold_1 FROM scbf_probe('sat_a', 1);
SELECT scbf_same('SELECT * FROM sat WHERE a = 1');

DROP FUNCTION m_checks();
DROP TABLE m, u, sat;
DROP FUNCTION scbf_same, scbf_empty, scbf_noindex, scbf_compare;
