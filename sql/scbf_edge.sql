--
-- scbf_edge: single huge TOASTed values (compressed and external, text
-- and bytea), the widest index (32 columns) with NULLs and deletes, one
-- row per heap page, long key arrays (literals and parameters).
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

-- a single huge value, TOASTed: compressed inline-out-of-line (1 MB of a
-- repeated string) and external uncompressed (1 MB of md5 text)
CREATE TABLE ed_big (id int, t text, b bytea);
CREATE INDEX ed_big_t ON ed_big USING scbf (t);
CREATE INDEX ed_big_b ON ed_big USING scbf (b) WITH (pages_per_segment = 8);
INSERT INTO ed_big SELECT g, 'small' || g, decode(md5(g::text), 'hex') FROM generate_series(1, 2000) g;
INSERT INTO ed_big VALUES (-1, repeat('toast', 200000), convert_to(repeat('toast', 200000), 'UTF8'));
ALTER TABLE ed_big ALTER COLUMN t SET STORAGE EXTERNAL;
ALTER TABLE ed_big ALTER COLUMN b SET STORAGE EXTERNAL;
INSERT INTO ed_big SELECT -2, string_agg(md5(g::text), ''), convert_to(string_agg(md5(g::text), ''), 'UTF8')
FROM generate_series(1, 32768) g;
SELECT id, octet_length(t) AS bytes, pg_column_size(t) < octet_length(t) AS compressed
FROM ed_big WHERE id < 0 ORDER BY id;
SELECT scbf_same('SELECT id FROM ed_big WHERE t = repeat(''toast'', 200000)');
SELECT scbf_same('SELECT id FROM ed_big WHERE t = (SELECT string_agg(md5(g::text), '''') FROM generate_series(1, 32768) g)');
-- (one letter off the big value: nothing)
SELECT scbf_empty('SELECT id FROM ed_big WHERE t = repeat(''toast'', 199999) || ''toasT''');
SELECT scbf_same('SELECT id FROM ed_big WHERE b = convert_to(repeat(''toast'', 200000), ''UTF8'')');
SELECT scbf_same('SELECT id FROM ed_big WHERE t = ANY(ARRAY[repeat(''toast'', 200000), ''small7''])');
SELECT scbf_same('SELECT id FROM ed_big WHERE t = $1', 'text', 'repeat(''toast'', 200000)');
REINDEX TABLE ed_big;
SELECT scbf_same('SELECT id FROM ed_big WHERE t = repeat(''toast'', 200000)');
DELETE FROM ed_big WHERE id = -1;
VACUUM ed_big;
SELECT scbf_same('SELECT id FROM ed_big WHERE t = ANY(ARRAY[repeat(''toast'', 200000), ''small8''])');
SELECT scbf_same('SELECT id FROM ed_big WHERE t = (SELECT string_agg(md5(g::text), '''') FROM generate_series(1, 32768) g)');
SELECT scbf_same('SELECT id FROM ed_big WHERE b = decode(md5(''7''), ''hex'')');

-- the most columns an index can have (32), all of them in the ledger
CREATE TABLE ed_wide (id int,
	c1 int, c2 int, c3 int, c4 int, c5 int, c6 int, c7 int, c8 int,
	c9 text, c10 text, c11 text, c12 text, c13 text, c14 text, c15 text, c16 text,
	c17 int8, c18 int8, c19 int8, c20 int8, c21 numeric, c22 numeric, c23 date, c24 date,
	c25 float8, c26 float8, c27 uuid, c28 uuid, c29 bool, c30 bool, c31 int2, c32 int2);
CREATE INDEX ed_wide_all ON ed_wide USING scbf (c1, c2, c3, c4, c5, c6, c7, c8,
	c9, c10, c11, c12, c13, c14, c15, c16, c17, c18, c19, c20, c21, c22, c23, c24,
	c25, c26, c27, c28, c29, c30, c31, c32) WITH (pages_per_segment = 8);
\set VERBOSITY terse
CREATE INDEX ed_wide_33 ON ed_wide USING scbf (id, c1, c2, c3, c4, c5, c6, c7, c8,
	c9, c10, c11, c12, c13, c14, c15, c16, c17, c18, c19, c20, c21, c22, c23, c24,
	c25, c26, c27, c28, c29, c30, c31, c32);
\set VERBOSITY default
INSERT INTO ed_wide SELECT g, g % 10, g % 11, g % 13, g % 17, g % 19, g % 23, g % 29, g % 31,
	'a' || g % 37, 'b' || g % 41, 'c' || g % 43, 'd' || g % 47, 'e' || g % 53, 'f' || g % 59,
	'g' || g % 61, 'h' || g % 67, g % 71, g % 73, g % 79, g % 83, (g % 89) / 2.0, (g % 97) / 4.0,
	date '2020-01-01' + g % 101, date '2020-01-01' + g % 103, (g % 107) / 8.0, (g % 109) / 16.0,
	md5((g % 113)::text)::uuid, md5((g % 127)::text)::uuid, g % 2 = 0, g % 3 = 0,
	(g % 131)::int2, CASE WHEN g % 7 = 0 THEN NULL ELSE (g % 137)::int2 END
FROM generate_series(1, 20000) g;
SELECT scbf_same('SELECT id FROM ed_wide WHERE c1 = 3');
SELECT scbf_same('SELECT id FROM ed_wide WHERE c32 = 42');
SELECT scbf_same('SELECT id FROM ed_wide WHERE c32 IS NULL AND c1 = 7');
SELECT scbf_same('SELECT id FROM ed_wide WHERE c16 = ''h7'' AND c27 = md5(''7'')::uuid AND c21 = 3.5');
SELECT scbf_same('SELECT id FROM ed_wide WHERE c1 = 1 AND c2 = 1 AND c3 = 1 AND c4 = 1 AND c5 = 1');
DELETE FROM ed_wide WHERE id % 3 = 0;
VACUUM ed_wide;
INSERT INTO ed_wide (id, c1, c32) SELECT g, g % 10, NULL FROM generate_series(20001, 24000) g;
SELECT scbf_same('SELECT id FROM ed_wide WHERE c1 = 3');
SELECT scbf_same('SELECT id FROM ed_wide WHERE c32 IS NULL AND c1 = 7');
SELECT scbf_same('SELECT id FROM ed_wide WHERE c16 = ''h7'' AND c27 = md5(''7'')::uuid AND c21 = 3.5');
SELECT scbf_same('SELECT id FROM ed_wide WHERE c2 IS NULL AND c9 IS NULL AND c31 IS NULL');
SELECT scbf_verify('ed_wide_all', true);

-- one row per heap page (the widest rows), the smallest segments
CREATE TABLE ed_one (id int, k int, pad text) WITH (fillfactor = 10);
ALTER TABLE ed_one ALTER COLUMN pad SET STORAGE PLAIN;
CREATE INDEX ed_one_k ON ed_one USING scbf (k) WITH (pages_per_segment = 8);
INSERT INTO ed_one SELECT g, g % 5, repeat('p', 7000) FROM generate_series(1, 300) g;
SELECT count(DISTINCT (ctid::text::point)[0]) AS pages FROM ed_one;
SELECT scbf_same('SELECT id FROM ed_one WHERE k = 3');
DELETE FROM ed_one WHERE id % 2 = 0;
VACUUM ed_one;
INSERT INTO ed_one SELECT g, g % 5, repeat('q', 7000) FROM generate_series(301, 400) g;
SELECT scbf_same('SELECT id FROM ed_one WHERE k = 3');
SELECT scbf_same('SELECT id FROM ed_one WHERE k = 4 AND id > 300');

-- long arrays of keys, with NULLs and duplicates, literal and parameter
CREATE TABLE ed_arr (id int, k int8);
CREATE INDEX ed_arr_k ON ed_arr USING scbf (k) WITH (pages_per_segment = 8);
INSERT INTO ed_arr SELECT g, (hashint4(g) & 65535) FROM generate_series(1, 30000) g;
SELECT scbf_same('SELECT * FROM ed_arr WHERE k = ANY(ARRAY(SELECT g * 7 FROM generate_series(1, 2000) g))');
SELECT scbf_same('SELECT * FROM ed_arr WHERE k = ANY($1)', 'int8[]',
	quote_literal(ARRAY(SELECT CASE WHEN g % 100 = 0 THEN NULL ELSE g % 500 END
						FROM generate_series(1, 5000) g)::text));
-- (k is below 65536: nothing)
SELECT scbf_empty('SELECT * FROM ed_arr WHERE k = ANY(''{70000, 80000, -1}'')');

-- no NULLs at all: IS NULL finds nothing
SELECT scbf_empty('SELECT * FROM ed_arr WHERE k IS NULL');

DROP TABLE ed_big, ed_wide, ed_one, ed_arr;
DROP FUNCTION scbf_same, scbf_empty, scbf_noindex, scbf_compare;
