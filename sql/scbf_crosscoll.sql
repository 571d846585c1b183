--
-- scbf_crosscoll: cross-type keys under a nondeterministic collation.
--
-- text_ops holds the cross-type operators name = text and text = name,
-- hashed with hashname() on the name side.  hashname() ignores the
-- collation, but nameeqtext()/texteqname() compare under it: with a
-- case-insensitive collation 'ABC'::name = 'abc'::text is true while the
-- two hashes differ.  (Core's hash access method has this flaw.)  scbf
-- treats such a key as matching every segment, so the answers must equal
-- the sequential scan's.
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

-- ICU nondeterministic collations need a server built with ICU and a UTF8
-- database: the Makefile's REGRESS_OPTS (--encoding=UTF8 --no-locale) make
-- pg_regress create it so, whatever the caller's locale.  If either is
-- missing, this says so first:
SELECT getdatabaseencoding() AS encoding,
	EXISTS (SELECT FROM pg_collation WHERE collprovider = 'i') AS icu_available;

CREATE COLLATION xc_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
CREATE TABLE xc_coll (id int, t text COLLATE xc_ci, n name COLLATE xc_ci);
CREATE INDEX xc_coll_t ON xc_coll USING scbf (t);
CREATE INDEX xc_coll_n ON xc_coll USING scbf (n);
INSERT INTO xc_coll SELECT g, 'val' || g, 'val' || g FROM generate_series(1, 1000) g;
INSERT INTO xc_coll VALUES (-1, 'ABC', 'ABC');

-- name column, text key: the row 'ABC' must be found
SELECT scbf_same('SELECT * FROM xc_coll WHERE n = ''abc''::text COLLATE xc_ci');
-- text column, name key
SELECT scbf_same('SELECT * FROM xc_coll WHERE t = ''abc''::name COLLATE xc_ci');
-- same-type comparisons are right (name = name is bytewise)
SELECT scbf_same('SELECT * FROM xc_coll WHERE t = ''abc''');
SELECT scbf_same('SELECT * FROM xc_coll WHERE n = ''ABC''::name COLLATE xc_ci');

DROP TABLE xc_coll;
DROP COLLATION xc_ci;
DROP FUNCTION scbf_same, scbf_empty, scbf_noindex, scbf_compare;
