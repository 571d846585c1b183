--
-- scbf_semantics: equality is the type's own, never the bytes'.  Numeric
-- scales, -0.0 and NaN, bpchar blanks, nondeterministic collations,
-- cross-type comparisons, TOASTed values and all-NULL segments: the index
-- must find every row a sequential scan finds.
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

-- numeric: scale does not matter, NaN equals NaN
CREATE TABLE num (v numeric);
CREATE INDEX ON num USING scbf (v);
INSERT INTO num VALUES (1), (1.0), (1.00), (1.000), (10), (0.1), ('NaN'), ('NaN'), (-0.0), (0);
INSERT INTO num SELECT g / 7.0 FROM generate_series(1, 2000) g;
SELECT scbf_same('SELECT * FROM num WHERE v = 1');
SELECT scbf_same('SELECT * FROM num WHERE v = 1.0000000');
SELECT scbf_same('SELECT * FROM num WHERE v = ''NaN''');
SELECT scbf_same('SELECT * FROM num WHERE v = 0');
SELECT scbf_same('SELECT * FROM num WHERE v IN (1.00, 10.0, 0.10)');

-- float: -0.0 = 0.0, every NaN equals every NaN, float4 against float8
CREATE TABLE flt (f4 float4, f8 float8);
CREATE INDEX ON flt USING scbf (f4);
CREATE INDEX ON flt USING scbf (f8);
INSERT INTO flt VALUES (0.0, 0.0), (-0.0, -0.0), ('NaN', 'NaN'),
	('Infinity'::float4 - 'Infinity'::float4, 'Infinity'::float8 - 'Infinity'::float8),
	('Infinity', '-Infinity'), (0.5, 0.5), (0.1, 0.1);
INSERT INTO flt SELECT g / 3.0, g / 3.0 FROM generate_series(1, 2000) g;
SELECT scbf_same('SELECT * FROM flt WHERE f8 = 0');
SELECT scbf_same('SELECT * FROM flt WHERE f8 = -0.0');
SELECT scbf_same('SELECT * FROM flt WHERE f4 = ''-0''::float4');
SELECT scbf_same('SELECT * FROM flt WHERE f8 = ''NaN''');
SELECT scbf_same('SELECT * FROM flt WHERE f4 = ''NaN''::float4');
SELECT scbf_same('SELECT * FROM flt WHERE f4 = ''NaN''::float8');
SELECT scbf_same('SELECT * FROM flt WHERE f4 = 0.5::float8');
-- (float4 0.1 is not float8 0.1)
SELECT scbf_empty('SELECT * FROM flt WHERE f4 = 0.1::float8');
SELECT scbf_same('SELECT * FROM flt WHERE f8 = 0.5::float4');
SELECT scbf_same('SELECT * FROM flt WHERE f8 = ''-Infinity''::float4');
SELECT scbf_same('SELECT * FROM flt WHERE f4 = ''Infinity''::float8');

-- bpchar: trailing blanks do not count
CREATE TABLE bp (c char(6), v varchar(10));
CREATE INDEX ON bp USING scbf (c);
INSERT INTO bp VALUES ('ab', 'ab'), ('ab   ', 'ab '), ('ab ', 'ab'), ('abc', 'abc');
INSERT INTO bp SELECT 'x' || g, 'x' || g FROM generate_series(1, 2000) g;
SELECT scbf_same('SELECT * FROM bp WHERE c = ''ab''');
SELECT scbf_same('SELECT * FROM bp WHERE c = ''ab     ''::bpchar');
SELECT scbf_same('SELECT * FROM bp WHERE c = ''ab''::char(2)');
SELECT scbf_same('SELECT * FROM bp WHERE c IN (''abc   '', ''x7'')');

-- cross-type integers, text and name, varchar
CREATE TABLE xt (i2 int2, i4 int4, i8 int8, t text, n name, vc varchar(30));
CREATE INDEX ON xt USING scbf (i2);
CREATE INDEX ON xt USING scbf (i4);
CREATE INDEX ON xt USING scbf (i8);
CREATE INDEX ON xt USING scbf (t);
CREATE INDEX ON xt USING scbf (n);
CREATE INDEX ON xt USING scbf (vc);
INSERT INTO xt SELECT g % 30000, g, g::int8 * 3, 'k' || g, 'k' || g, 'k' || g
FROM generate_series(1, 5000) g;
SELECT scbf_same('SELECT * FROM xt WHERE i8 = 42');
SELECT scbf_same('SELECT * FROM xt WHERE i8 = 42::int2');
-- (70000 is beyond int2, 5000000000 beyond int4: no row can hold them)
SELECT scbf_empty('SELECT * FROM xt WHERE i2 = 70000::int8');
SELECT scbf_same('SELECT * FROM xt WHERE i2 = 4242::int8');
SELECT scbf_same('SELECT * FROM xt WHERE i2 = 4242');
SELECT scbf_same('SELECT * FROM xt WHERE i4 = 5::int2');
SELECT scbf_empty('SELECT * FROM xt WHERE i4 = 5000000000::int8');
SELECT scbf_same('SELECT * FROM xt WHERE i4 = ANY(ARRAY[1, 2, 3]::int8[])');
SELECT scbf_same('SELECT * FROM xt WHERE i8 = ANY(ARRAY[3, 6, 9]::int2[])');
-- (text = name with a non-C column: the collations conflict and the clause
-- is not indexable, as for btree; the answer is still compared)
SELECT scbf_noindex('SELECT * FROM xt WHERE t = ''k77''::name');
SELECT scbf_same('SELECT * FROM xt WHERE n = ''k77''::text');
SELECT scbf_same('SELECT * FROM xt WHERE vc = ''k77''::text');
SELECT scbf_same('SELECT * FROM xt WHERE vc = ''k77''::varchar');
SELECT scbf_same('SELECT * FROM xt WHERE vc IN (''k1'', ''k2''::varchar, ''nope'')');

-- nondeterministic ICU collation: case-insensitive equality
CREATE COLLATION ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
CREATE TABLE coll (t text COLLATE ci, v varchar(20) COLLATE ci, d text);
CREATE INDEX ON coll USING scbf (t);
CREATE INDEX ON coll USING scbf (v);
CREATE INDEX ON coll USING scbf (d);
INSERT INTO coll VALUES ('ABC', 'ABC', 'ABC'), ('abc', 'abc', 'abc'), ('Abc', 'aBc', 'Abc'),
	('straße', 'straße', 'straße'), ('STRASSE', 'STRASSE', 'STRASSE');
INSERT INTO coll SELECT 'w' || g, 'w' || g, 'w' || g FROM generate_series(1, 2000) g;
SELECT scbf_same('SELECT * FROM coll WHERE t = ''abc''');
SELECT scbf_same('SELECT * FROM coll WHERE t = ''ABC''');
SELECT scbf_same('SELECT * FROM coll WHERE v = ''abc''');
SELECT scbf_same('SELECT * FROM coll WHERE t IN (''aBC'', ''W7'')');
SELECT scbf_same('SELECT * FROM coll WHERE d = ''abc''');
SELECT scbf_same('SELECT * FROM coll WHERE t = ''strasse''');

-- timestamptz is an instant, whatever the time zone of the literal
CREATE TABLE ts (t timestamptz, i interval, a inet, c cidr);
CREATE INDEX ON ts USING scbf (t);
CREATE INDEX ON ts USING scbf (i);
CREATE INDEX ON ts USING scbf (a);
CREATE INDEX ON ts USING scbf (c);
INSERT INTO ts SELECT timestamptz '2024-03-01 00:00+00' + g * interval '1 hour',
	g * interval '1 hour', ('192.168.' || g % 200 || '.0/24')::inet,
	('192.168.' || g % 200 || '.0/24')::cidr
FROM generate_series(1, 3000) g;
SET TimeZone = 'America/New_York';
SELECT scbf_same('SELECT * FROM ts WHERE t = ''2024-03-02 07:00+05''');
SET TimeZone = 'Asia/Tokyo';
SELECT scbf_same('SELECT * FROM ts WHERE t = ''2024-03-02 11:00''');
RESET TimeZone;
SELECT scbf_same('SELECT * FROM ts WHERE i = interval ''1 day''');
SELECT scbf_same('SELECT * FROM ts WHERE i = interval ''24 hours''');
SELECT scbf_same('SELECT * FROM ts WHERE i = interval ''1 day 1 hour''');
SELECT scbf_same('SELECT * FROM ts WHERE a = ''192.168.7.0/24''::cidr');
SELECT scbf_same('SELECT * FROM ts WHERE c = ''192.168.7.0/24''::inet');
-- (the host 192.168.7.0 is not the network 192.168.7.0/24)
SELECT scbf_empty('SELECT * FROM ts WHERE a = ''192.168.7.0''::inet');

-- a single huge TOASTed value, compressible and not
CREATE TABLE big (id int, t text);
CREATE INDEX ON big USING scbf (t);
INSERT INTO big SELECT g, 'small' || g FROM generate_series(1, 1000) g;
INSERT INTO big VALUES (-1, repeat('toast', 200000));
INSERT INTO big SELECT -2, string_agg(md5(g::text), '') FROM generate_series(1, 40000) g;
SELECT scbf_same('SELECT id FROM big WHERE t = repeat(''toast'', 200000)');
SELECT scbf_same('SELECT id FROM big WHERE t = (SELECT string_agg(md5(g::text), '''') FROM generate_series(1, 40000) g)');
-- (one "toast" short of the big value)
SELECT scbf_empty('SELECT id FROM big WHERE t = repeat(''toast'', 199999)');
SELECT pg_column_size(t) < octet_length(t) AS compressed FROM big WHERE id = -1;

-- all-NULL segments next to segments without NULLs
CREATE TABLE nul (a int, b text) WITH (fillfactor = 50);
CREATE INDEX nul_a ON nul USING scbf (a) WITH (pages_per_segment = 8);
CREATE INDEX nul_ab ON nul USING scbf (a, b) WITH (pages_per_segment = 8);
INSERT INTO nul SELECT g, 'b' || g FROM generate_series(1, 3000) g;
INSERT INTO nul SELECT NULL, NULL FROM generate_series(1, 3000) g;
INSERT INTO nul SELECT g, NULL FROM generate_series(1, 3000) g;
SELECT scbf_same('SELECT * FROM nul WHERE a IS NULL');
SELECT scbf_same('SELECT * FROM nul WHERE a IS NULL AND b IS NULL');
SELECT scbf_same('SELECT * FROM nul WHERE a = 5 AND b IS NULL');
SELECT scbf_same('SELECT * FROM nul WHERE a = 5 AND b IS NOT NULL');
SELECT scbf_same('SELECT * FROM nul WHERE a = 5 AND b = ''b5''');
-- (a = NULL is folded to false: no scan)
SELECT scbf_noindex('SELECT * FROM nul WHERE a = NULL');
SELECT scbf_empty('SELECT * FROM nul WHERE a = ANY(ARRAY[NULL, NULL]::int[])');
DELETE FROM nul WHERE a IS NULL AND b IS NULL;
VACUUM nul;
INSERT INTO nul SELECT NULL, 'late' || g FROM generate_series(1, 10) g;
SELECT scbf_same('SELECT * FROM nul WHERE a IS NULL');
SELECT scbf_same('SELECT * FROM nul WHERE b IS NULL');

DROP TABLE num, flt, bp, xt, coll, ts, big, nul;
DROP COLLATION ci;
DROP FUNCTION scbf_same, scbf_empty, scbf_noindex, scbf_compare;
