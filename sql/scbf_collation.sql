--
-- scbf_collation: nondeterministic ICU collations (case- and accent-
-- insensitive) on text, varchar and bpchar columns, a collation given in
-- the index definition, multi-column, generic plans; through DELETE /
-- VACUUM / INSERT and REINDEX.  'ABC' = 'abc' must be found.
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

-- nondeterministic ICU collations: equal strings with different bytes hash
-- alike (the hash functions hash the collation's sort key), so the index
-- finds every row that "=" finds
CREATE COLLATION coll_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
CREATE COLLATION coll_ai (provider = icu, locale = 'und-u-ks-level1', deterministic = false);

CREATE TABLE coll (id int, t text COLLATE coll_ci, v varchar(20) COLLATE coll_ci,
	b char(8) COLLATE coll_ci, a text COLLATE coll_ai, d text);
CREATE INDEX coll_t ON coll USING scbf (t) WITH (pages_per_segment = 8);
CREATE INDEX coll_v ON coll USING scbf (v) WITH (pages_per_segment = 8);
CREATE INDEX coll_b ON coll USING scbf (b) WITH (pages_per_segment = 8);
CREATE INDEX coll_a ON coll USING scbf (a) WITH (pages_per_segment = 8);
CREATE INDEX coll_d ON coll USING scbf (d) WITH (pages_per_segment = 8);
CREATE INDEX coll_td ON coll USING scbf (t, d) WITH (pages_per_segment = 8);
-- an index with the column's default collation overridden
CREATE INDEX coll_d_ci ON coll USING scbf (d COLLATE coll_ci) WITH (pages_per_segment = 8);

CREATE FUNCTION coll_fill(lo int, hi int) RETURNS void LANGUAGE sql AS $$
	INSERT INTO coll SELECT g, w, w, w, w, w
	FROM generate_series(lo, hi) g,
		LATERAL (SELECT CASE g % 4 WHEN 0 THEN 'word' || g % 500 WHEN 1 THEN 'WORD' || g % 500
							  WHEN 2 THEN 'Word' || g % 500 ELSE 'wörd' || g % 500 END) x(w)
$$;
INSERT INTO coll VALUES (-1, 'ABC', 'ABC', 'ABC', 'ABC', 'ABC'), (-2, 'abc', 'abc', 'abc', 'abc', 'abc'),
	(-3, 'Abc', 'aBc', 'aBC  ', 'Àbç', 'Abc'), (-4, 'straße', 'straße', 'straße', 'straße', 'straße'),
	(-5, 'STRASSE', 'STRASSE', 'STRASSE', 'STRASSE', 'STRASSE'), (-10, NULL, NULL, NULL, NULL, NULL),
	(-7, 'résumé', 'résumé', 'résumé', 'resume', 'résumé');
SELECT coll_fill(1, 4000);

CREATE FUNCTION coll_checks() RETURNS TABLE (query text, result text) LANGUAGE plpgsql AS $$
DECLARE
	qs text[] := ARRAY[
		'SELECT * FROM coll WHERE t = ''abc''',
		'SELECT * FROM coll WHERE t = ''ABC''',
		'SELECT * FROM coll WHERE t = ''aBc'' COLLATE coll_ci',
		'SELECT * FROM coll WHERE t = ''strasse''',
		'SELECT * FROM coll WHERE t = ''RÉSUMÉ''',
		'SELECT * FROM coll WHERE t IN (''aBC'', ''WORD7'', ''nope'')',
		'SELECT * FROM coll WHERE t = ANY(ARRAY[''WoRd42'', NULL])',
		'SELECT * FROM coll WHERE v = ''abc''',
		'SELECT * FROM coll WHERE v = ''ABC''::text',
		'SELECT * FROM coll WHERE b = ''abc''',
		'SELECT * FROM coll WHERE b = ''ABC     ''',
		'SELECT * FROM coll WHERE a = ''abc''',
		'SELECT * FROM coll WHERE a = ''RESUME''',
		'SELECT * FROM coll WHERE a = ''word7''',
		'SELECT * FROM coll WHERE d = ''abc''',
		'SELECT * FROM coll WHERE d = ''wörd7''',
		'SELECT * FROM coll WHERE d = ''abc'' COLLATE coll_ci',
		'SELECT * FROM coll WHERE d COLLATE coll_ci = ''WÖRD7''',
		'SELECT * FROM coll WHERE t = ''WÖRD7'' AND d = ''wörd7''',
		'SELECT * FROM coll WHERE t IS NULL'];
	s text;
BEGIN
	FOREACH s IN ARRAY qs LOOP
		query := s;
		result := scbf_same(s);
		RETURN NEXT;
	END LOOP;
	-- generic plans
	query := 't = $1';
	result := scbf_same('SELECT * FROM coll WHERE t = $1', 'text', '''WORD42''');
	RETURN NEXT;
	query := 'v = ANY($1)';
	result := scbf_same('SELECT * FROM coll WHERE v = ANY($1)', 'text[]', '''{abc,STRASSE}''');
	RETURN NEXT;
	query := 'a = $1';
	result := scbf_same('SELECT * FROM coll WHERE a = $1', 'text', '''WÖRD42''');
	RETURN NEXT;
END $$;

SELECT * FROM coll_checks();
-- what must not match: an accent under a case-insensitive collation, a
-- case under the deterministic default (no row holds 'word7')
SELECT scbf_empty('SELECT * FROM coll WHERE t = ''resume''') AS accent_matters,
	scbf_empty('SELECT * FROM coll WHERE d = ''word7''') AS case_matters;

-- through DELETE / VACUUM / INSERT
DELETE FROM coll WHERE id % 3 = 0 OR id = -1;
VACUUM coll;
SELECT coll_fill(4001, 5000);
SELECT * FROM coll_checks();

-- rebuilt
REINDEX TABLE coll;
SELECT * FROM coll_checks();

DROP TABLE coll;
DROP FUNCTION coll_checks();
DROP FUNCTION coll_fill(int, int);
DROP COLLATION coll_ci;
DROP COLLATION coll_ai;
DROP FUNCTION scbf_same, scbf_empty, scbf_noindex, scbf_compare;
