--
-- scbf_basic: build, insert, equality scans, DELETE/VACUUM/INSERT rounds.
-- Every index answer is compared with a sequential scan of the same query.
--
CREATE EXTENSION scbf;

-- scbf_same(query [, parameter types, parameter values]): the index is
-- scanned and returns the sequential scan's rows, at least one;
-- scbf_empty(...): the same, no row; scbf_noindex(...): the planner cannot
-- use scbf here.  Each raises an error otherwise (sql/include/scbf_same.sql).
\getenv abs_srcdir PG_ABS_SRCDIR
\set scbf_same_sql :abs_srcdir '/sql/include/scbf_same.sql'
\set ECHO none
\i :scbf_same_sql
\set ECHO all

CREATE TABLE tst (id int, i int, t text, n int8);
INSERT INTO tst SELECT g, g % 500, 'v' || (g % 1000), g / 7 FROM generate_series(1, 50000) g;
CREATE INDEX tst_i ON tst USING scbf (i);
CREATE INDEX tst_t ON tst USING scbf (t);
CREATE INDEX tst_multi ON tst USING scbf (i, t, n);

SELECT scbf_same('SELECT * FROM tst WHERE i = 7');
SELECT scbf_same('SELECT * FROM tst WHERE i = 499');
SELECT scbf_same('SELECT * FROM tst WHERE t = ''v42''');
SELECT scbf_empty('SELECT * FROM tst WHERE t = ''absent''');
SELECT scbf_same('SELECT * FROM tst WHERE i IN (1, 2, 3, 999)');
SELECT scbf_same('SELECT * FROM tst WHERE i = ANY(ARRAY[5, NULL, 6])');
SELECT scbf_same('SELECT * FROM tst WHERE i = 3 AND t = ''v3''');
SELECT scbf_same('SELECT * FROM tst WHERE n = 1000');
SELECT scbf_same('SELECT * FROM tst WHERE n = 1000::int2');

-- DELETE / VACUUM / INSERT rounds reusing the freed space
DELETE FROM tst WHERE i BETWEEN 0 AND 99;
VACUUM tst;
SELECT scbf_empty('SELECT * FROM tst WHERE i = 7') AS deleted;
SELECT scbf_same('SELECT * FROM tst WHERE i = 150');
INSERT INTO tst SELECT g, 100000 + g % 50, 'w' || g, g FROM generate_series(1, 10000) g;
SELECT scbf_same('SELECT * FROM tst WHERE i = 100007');
SELECT scbf_same('SELECT * FROM tst WHERE t = ''w77''');
SELECT scbf_same('SELECT * FROM tst WHERE i = 103 AND t = ''v103''');
DELETE FROM tst WHERE id % 3 = 0;
VACUUM tst;
SELECT scbf_same('SELECT * FROM tst WHERE i = 100007');
SELECT scbf_same('SELECT * FROM tst WHERE i IN (101, 102, 100001)');
SELECT scbf_same('SELECT * FROM tst WHERE n = 1000');

DROP TABLE tst;
DROP FUNCTION scbf_same, scbf_empty, scbf_noindex, scbf_compare;
