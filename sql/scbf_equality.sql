--
-- scbf_equality: the index finds what the type's own "=" finds, never just
-- equal bytes: numeric scales and NaN, float -0.0 and NaN (float4, float8
-- and across them), bpchar trailing blanks, cross-type integer, float and
-- text/name comparisons (literals, arrays and generic-plan parameters),
-- timestamptz under different time zones, intervals, inet and cidr, uuid,
-- bytea, macaddr, pg_lsn, oid, "char" and bool spellings.
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

-- numeric: the scale does not matter, NaN equals NaN, -0 equals 0
CREATE TABLE eq_num (id int, v numeric);
CREATE INDEX eq_num_v ON eq_num USING scbf (v) WITH (pages_per_segment = 8);
INSERT INTO eq_num VALUES (-1, 1), (-2, 1.0), (-3, 1.00), (-4, 1.000), (-5, 10), (-6, 0.1),
	(-7, 'NaN'), (-8, 'NaN'), (-9, -0.0), (-10, 0), (-11, 0.000), (-12, 1e3), (-13, 1000.0000),
	(-14, NULL);
INSERT INTO eq_num SELECT g, round(g / 7.0, g % 5) FROM generate_series(1, 4000) g;
SELECT scbf_same('SELECT * FROM eq_num WHERE v = 1');
SELECT scbf_same('SELECT * FROM eq_num WHERE v = 1.0000000');
SELECT scbf_same('SELECT * FROM eq_num WHERE v = ''NaN''');
SELECT scbf_same('SELECT * FROM eq_num WHERE v = 0');
SELECT scbf_same('SELECT * FROM eq_num WHERE v = -0.00');
SELECT scbf_same('SELECT * FROM eq_num WHERE v = 1000');
SELECT scbf_same('SELECT * FROM eq_num WHERE v IN (1.00, 10.0, 0.10, ''NaN'')');
SELECT scbf_same('SELECT * FROM eq_num WHERE v = $1', 'numeric', '1.00000');
SELECT scbf_same('SELECT * FROM eq_num WHERE v = ANY($1)', 'numeric[]', '''{1.0,NaN,2.000}''');
-- numeric against an integer goes through numeric = numeric
SELECT scbf_same('SELECT * FROM eq_num WHERE v = 10::int8');

-- float4 and float8: -0.0 = 0.0, all NaNs are equal, and the two types
-- compare across each other
CREATE TABLE eq_flt (id int, f4 float4, f8 float8);
CREATE INDEX eq_flt_f4 ON eq_flt USING scbf (f4) WITH (pages_per_segment = 8);
CREATE INDEX eq_flt_f8 ON eq_flt USING scbf (f8) WITH (pages_per_segment = 8);
INSERT INTO eq_flt VALUES (-1, 0.0, 0.0), (-2, -0.0, -0.0), (-3, 'NaN', 'NaN'),
	(-4, 'Infinity'::float4 - 'Infinity'::float4, 'Infinity'::float8 - 'Infinity'::float8),
	(-5, '-NaN', '-NaN'), (-6, 'Infinity', '-Infinity'), (-7, 0.5, 0.5), (-8, 0.1, 0.1),
	(-9, 1e-45, 5e-324), (-10, 3.4028235e38, 1.7976931348623157e308), (-11, NULL, NULL),
	(-12, NULL, 0.1::float4), (-13, NULL, (1 / 3.0)::float4);
INSERT INTO eq_flt SELECT g, g / 3.0, g / 3.0 FROM generate_series(1, 4000) g;
SELECT scbf_same('SELECT * FROM eq_flt WHERE f4 = 0');
SELECT scbf_same('SELECT * FROM eq_flt WHERE f4 = ''-0''');
SELECT scbf_same('SELECT * FROM eq_flt WHERE f8 = 0');
SELECT scbf_same('SELECT * FROM eq_flt WHERE f8 = ''-0''::float8');
SELECT scbf_same('SELECT * FROM eq_flt WHERE f4 = ''NaN''');
SELECT scbf_same('SELECT * FROM eq_flt WHERE f8 = ''NaN''');
SELECT scbf_same('SELECT * FROM eq_flt WHERE f8 = ''Infinity''::float8 * 0');
SELECT scbf_same('SELECT * FROM eq_flt WHERE f4 = ''Infinity''');
SELECT scbf_same('SELECT * FROM eq_flt WHERE f8 = ''-Infinity''');
SELECT scbf_same('SELECT * FROM eq_flt WHERE f4 = 1e-45::float4');
SELECT scbf_same('SELECT * FROM eq_flt WHERE f8 = 5e-324');
-- across float4 and float8
SELECT scbf_same('SELECT * FROM eq_flt WHERE f4 = 0.5::float8');
SELECT scbf_same('SELECT * FROM eq_flt WHERE f4 = ''-0''::float8');
SELECT scbf_same('SELECT * FROM eq_flt WHERE f4 = ''NaN''::float8');
SELECT scbf_same('SELECT * FROM eq_flt WHERE f4 = ''Infinity''::float8');
-- (float4 0.1 is not float8 0.1: nothing)
SELECT scbf_empty('SELECT * FROM eq_flt WHERE f4 = 0.1::float8');
SELECT scbf_same('SELECT * FROM eq_flt WHERE f4 = 0.1::float4::float8');
SELECT scbf_same('SELECT * FROM eq_flt WHERE f8 = 0.5::float4');
SELECT scbf_same('SELECT * FROM eq_flt WHERE f8 = ''-0''::float4');
SELECT scbf_same('SELECT * FROM eq_flt WHERE f8 = ''NaN''::float4');
SELECT scbf_same('SELECT * FROM eq_flt WHERE f8 = 0.1::float4');
SELECT scbf_same('SELECT * FROM eq_flt WHERE f8 = (1 / 3.0)::float4');
SELECT scbf_same('SELECT * FROM eq_flt WHERE f4 = ANY(ARRAY[0.5, ''-0'', ''NaN'']::float8[])');
SELECT scbf_same('SELECT * FROM eq_flt WHERE f8 = ANY(ARRAY[0.5, ''-0'', ''NaN'']::float4[])');
SELECT scbf_same('SELECT * FROM eq_flt WHERE f4 = $1', 'float8', '''-0''');
SELECT scbf_same('SELECT * FROM eq_flt WHERE f4 = $1', 'float8', '''NaN''');
SELECT scbf_same('SELECT * FROM eq_flt WHERE f8 = $1', 'float4', '0.5');
SELECT scbf_same('SELECT * FROM eq_flt WHERE f8 = ANY($1)', 'float4[]', '''{-0,NaN,0.5}''');

-- bpchar: trailing blanks do not count
CREATE TABLE eq_bp (id int, c char(6), v varchar(10));
CREATE INDEX eq_bp_c ON eq_bp USING scbf (c) WITH (pages_per_segment = 8);
CREATE INDEX eq_bp_v ON eq_bp USING scbf (v) WITH (pages_per_segment = 8);
INSERT INTO eq_bp VALUES (-1, 'ab', 'ab'), (-2, 'ab   ', 'ab '), (-3, 'ab ', 'ab'), (-4, 'abc', 'abc'),
	(-5, '', ''), (-6, '      ', ' '), (-7, NULL, NULL);
INSERT INTO eq_bp SELECT g, 'x' || g, 'x' || g FROM generate_series(1, 4000) g;
SELECT scbf_same('SELECT * FROM eq_bp WHERE c = ''ab''');
SELECT scbf_same('SELECT * FROM eq_bp WHERE c = ''ab     ''::bpchar');
SELECT scbf_same('SELECT * FROM eq_bp WHERE c = ''ab''::char(2)');
SELECT scbf_same('SELECT * FROM eq_bp WHERE c = ''''');
SELECT scbf_same('SELECT * FROM eq_bp WHERE c IN (''abc   '', ''x7'')');
SELECT scbf_same('SELECT * FROM eq_bp WHERE c = $1', 'bpchar', '''ab   ''');
-- varchar keeps its blanks
SELECT scbf_same('SELECT * FROM eq_bp WHERE v = ''ab''');
SELECT scbf_same('SELECT * FROM eq_bp WHERE v = ''ab ''');

-- integers across int2, int4 and int8
CREATE TABLE eq_int (id int, i2 int2, i4 int4, i8 int8);
CREATE INDEX eq_int_i2 ON eq_int USING scbf (i2) WITH (pages_per_segment = 8);
CREATE INDEX eq_int_i4 ON eq_int USING scbf (i4) WITH (pages_per_segment = 8);
CREATE INDEX eq_int_i8 ON eq_int USING scbf (i8) WITH (pages_per_segment = 8);
INSERT INTO eq_int SELECT g, (g % 30000) - 15000, g - 2000, (g::int8 - 2000) * 3 FROM generate_series(1, 6000) g;
INSERT INTO eq_int VALUES (-1, 32767, 2147483647, 9223372036854775807),
	(-2, -32768, -2147483648, -9223372036854775808), (-3, 0, 0, 4294967296), (-4, -1, -1, -4294967296),
	(-5, NULL, NULL, NULL);
SELECT scbf_same('SELECT * FROM eq_int WHERE i8 = 42');
SELECT scbf_same('SELECT * FROM eq_int WHERE i8 = 42::int2');
SELECT scbf_same('SELECT * FROM eq_int WHERE i8 = -42::int4');
SELECT scbf_same('SELECT * FROM eq_int WHERE i8 = 0');
SELECT scbf_same('SELECT * FROM eq_int WHERE i8 = -3');
SELECT scbf_same('SELECT * FROM eq_int WHERE i8 = 4294967296');
SELECT scbf_same('SELECT * FROM eq_int WHERE i8 = -4294967296');
SELECT scbf_same('SELECT * FROM eq_int WHERE i8 = 9223372036854775807');
-- (70000 is beyond int2, 5000000000 beyond int4: nothing)
SELECT scbf_empty('SELECT * FROM eq_int WHERE i2 = 70000::int8');
SELECT scbf_same('SELECT * FROM eq_int WHERE i2 = -9042::int8');
SELECT scbf_same('SELECT * FROM eq_int WHERE i2 = -12000::int8');
SELECT scbf_same('SELECT * FROM eq_int WHERE i2 = 32767');
SELECT scbf_same('SELECT * FROM eq_int WHERE i2 = -32768::int8');
SELECT scbf_same('SELECT * FROM eq_int WHERE i4 = 5::int2');
SELECT scbf_same('SELECT * FROM eq_int WHERE i4 = -5::int2');
SELECT scbf_empty('SELECT * FROM eq_int WHERE i4 = 5000000000::int8');
SELECT scbf_same('SELECT * FROM eq_int WHERE i4 = -2147483648::int8');
SELECT scbf_same('SELECT * FROM eq_int WHERE i4 = 2147483647');
SELECT scbf_same('SELECT * FROM eq_int WHERE i4 = ANY(ARRAY[1, 2, -3, 5000000000]::int8[])');
SELECT scbf_same('SELECT * FROM eq_int WHERE i8 = ANY(ARRAY[3, -6, 9]::int2[])');
SELECT scbf_same('SELECT * FROM eq_int WHERE i2 = ANY(ARRAY[1, 70000, -1]::int4[])');
SELECT scbf_same('SELECT * FROM eq_int WHERE i2 = $1', 'int8', '-12000');
SELECT scbf_empty('SELECT * FROM eq_int WHERE i2 = $1', 'int8', '70000');
SELECT scbf_same('SELECT * FROM eq_int WHERE i4 = $1', 'int2', '5');
SELECT scbf_same('SELECT * FROM eq_int WHERE i8 = $1', 'int4', '-42');
SELECT scbf_same('SELECT * FROM eq_int WHERE i8 = ANY($1)', 'int2[]', '''{3,-6,9}''');
SELECT scbf_same('SELECT * FROM eq_int WHERE i2 = $1 AND i4 = $2', 'int8, int8', '-12000, 1000');

-- text, name and varchar
CREATE TABLE eq_txt (id int, t text, n name, vc varchar(30));
CREATE INDEX eq_txt_t ON eq_txt USING scbf (t) WITH (pages_per_segment = 8);
CREATE INDEX eq_txt_n ON eq_txt USING scbf (n) WITH (pages_per_segment = 8);
CREATE INDEX eq_txt_vc ON eq_txt USING scbf (vc) WITH (pages_per_segment = 8);
INSERT INTO eq_txt SELECT g, 'k' || g, 'k' || g, 'k' || g FROM generate_series(1, 5000) g;
INSERT INTO eq_txt VALUES (-1, '', '', ''), (-2, 'K77', 'K77', 'K77'), (-3, NULL, NULL, NULL);
SELECT scbf_same('SELECT * FROM eq_txt WHERE vc = ''k77''::text');
SELECT scbf_same('SELECT * FROM eq_txt WHERE vc = ''k77''::varchar');
SELECT scbf_same('SELECT * FROM eq_txt WHERE vc = ''''');
SELECT scbf_same('SELECT * FROM eq_txt WHERE vc IN (''k1'', ''k2''::varchar, ''nope'')');
SELECT scbf_same('SELECT * FROM eq_txt WHERE n = ''k77''::text');
SELECT scbf_same('SELECT * FROM eq_txt WHERE n = ''k77''::name');
SELECT scbf_same('SELECT * FROM eq_txt WHERE n = ANY(ARRAY[''k77'', ''K77'', ''k78''])');
SELECT scbf_same('SELECT * FROM eq_txt WHERE t = ''k77''::text');
-- (text = name: the name brings collation "C", which is not the column's,
-- so the clause cannot use the index, as with btree; the rows are compared
-- all the same; with the column's collation it can)
SELECT scbf_noindex('SELECT * FROM eq_txt WHERE t = ''k77''::name');
SELECT scbf_same('SELECT * FROM eq_txt WHERE t = ''k77''::name COLLATE "default"');
SELECT scbf_same('SELECT * FROM eq_txt WHERE n = $1', 'text', '''k77''');
SELECT scbf_same('SELECT * FROM eq_txt WHERE vc = $1', 'text', '''k77''');
SELECT scbf_same('SELECT * FROM eq_txt WHERE t = ANY($1)', 'text[]', '''{k1,k2,"",K77}''');
-- a long name is truncated to 63 bytes on the way in, and so is the key
INSERT INTO eq_txt VALUES (-4, repeat('L', 100), repeat('L', 100), repeat('L', 30));
SELECT scbf_same('SELECT * FROM eq_txt WHERE n = repeat(''L'', 100)::name');
SELECT scbf_same('SELECT * FROM eq_txt WHERE n = repeat(''L'', 63)::name');

-- timestamptz is an instant, whatever the time zone of the literal or the session
CREATE TABLE eq_time (id int, tz timestamptz, ts timestamp, d date, i interval, tt timetz);
CREATE INDEX eq_time_tz ON eq_time USING scbf (tz) WITH (pages_per_segment = 8);
CREATE INDEX eq_time_ts ON eq_time USING scbf (ts) WITH (pages_per_segment = 8);
CREATE INDEX eq_time_d ON eq_time USING scbf (d) WITH (pages_per_segment = 8);
CREATE INDEX eq_time_i ON eq_time USING scbf (i) WITH (pages_per_segment = 8);
CREATE INDEX eq_time_tt ON eq_time USING scbf (tt) WITH (pages_per_segment = 8);
SET TimeZone = 'UTC';
INSERT INTO eq_time SELECT g, timestamptz '2024-03-01 00:00+00' + g * interval '1 hour',
	timestamp '2024-03-01 00:00' + g * interval '1 hour', date '2024-03-01' + g % 500,
	g * interval '1 hour', timetz '00:00+00' + (g % 1440) * interval '1 minute'
FROM generate_series(1, 4000) g;
INSERT INTO eq_time VALUES (-1, 'infinity', 'infinity', 'infinity', '1 day', '12:00+01'),
	(-2, '-infinity', '-infinity', '-infinity', '1 mon', '11:00+00'),
	(-3, NULL, NULL, NULL, '30 days', NULL), (-4, NULL, NULL, NULL, '720 hours', NULL);
SET TimeZone = 'America/New_York';
SELECT scbf_same('SELECT * FROM eq_time WHERE tz = ''2024-03-02 07:00+05''');
SELECT scbf_same('SELECT * FROM eq_time WHERE tz = ''2024-03-01 21:00''');
SET TimeZone = 'Asia/Tokyo';
SELECT scbf_same('SELECT * FROM eq_time WHERE tz = ''2024-03-02 11:00''');
SELECT scbf_same('SELECT * FROM eq_time WHERE tz = $1', 'timestamptz', '''2024-03-02 02:00:00+00''');
SELECT scbf_same('SELECT * FROM eq_time WHERE tz = ''infinity''');
-- timestamp has no time zone: the literal is taken as written
SELECT scbf_same('SELECT * FROM eq_time WHERE ts = ''2024-03-02 02:00''');
SELECT scbf_same('SELECT * FROM eq_time WHERE ts = ''-infinity''');
RESET TimeZone;
SELECT scbf_same('SELECT * FROM eq_time WHERE d = ''2024-03-11''');
SELECT scbf_same('SELECT * FROM eq_time WHERE d = ''infinity''');
-- an interval of 1 day equals one of 24 hours, 1 month one of 30 days
SELECT scbf_same('SELECT * FROM eq_time WHERE i = interval ''1 day''');
SELECT scbf_same('SELECT * FROM eq_time WHERE i = interval ''24 hours''');
SELECT scbf_same('SELECT * FROM eq_time WHERE i = interval ''1440 minutes''');
SELECT scbf_same('SELECT * FROM eq_time WHERE i = interval ''1 mon''');
SELECT scbf_same('SELECT * FROM eq_time WHERE i = interval ''30 days''');
SELECT scbf_same('SELECT * FROM eq_time WHERE i = interval ''1 day 1 hour''');
SELECT scbf_same('SELECT * FROM eq_time WHERE i = $1', 'interval', '''P1D''');
-- timetz: equal only with the same zone
SELECT scbf_same('SELECT * FROM eq_time WHERE tt = ''12:00+01''');
SELECT scbf_same('SELECT * FROM eq_time WHERE tt = ''11:00+00''');

-- network, uuid, bytea, macaddr, pg_lsn, oid, "char", bool
CREATE TABLE eq_misc (id int, a inet, c cidr, u uuid, b bytea, m macaddr, m8 macaddr8,
	l pg_lsn, o oid, ch "char", bo bool);
CREATE INDEX eq_misc_a ON eq_misc USING scbf (a) WITH (pages_per_segment = 8);
CREATE INDEX eq_misc_c ON eq_misc USING scbf (c) WITH (pages_per_segment = 8);
CREATE INDEX eq_misc_u ON eq_misc USING scbf (u) WITH (pages_per_segment = 8);
CREATE INDEX eq_misc_b ON eq_misc USING scbf (b) WITH (pages_per_segment = 8);
CREATE INDEX eq_misc_m ON eq_misc USING scbf (m) WITH (pages_per_segment = 8);
CREATE INDEX eq_misc_m8 ON eq_misc USING scbf (m8) WITH (pages_per_segment = 8);
CREATE INDEX eq_misc_l ON eq_misc USING scbf (l) WITH (pages_per_segment = 8);
CREATE INDEX eq_misc_o ON eq_misc USING scbf (o) WITH (pages_per_segment = 8);
CREATE INDEX eq_misc_ch ON eq_misc USING scbf (ch) WITH (pages_per_segment = 8);
CREATE INDEX eq_misc_bo ON eq_misc USING scbf (bo) WITH (pages_per_segment = 8);
INSERT INTO eq_misc SELECT g, ('192.168.' || g % 200 || '.' || g % 250)::inet,
	('192.168.' || g % 200 || '.0/24')::cidr, md5(g::text)::uuid, decode(md5(g::text), 'hex'),
	('08:00:2b:01:' || lpad(to_hex(g / 256 % 256), 2, '0') || ':' || lpad(to_hex(g % 256), 2, '0'))::macaddr,
	('08:00:2b:01:02:03:' || lpad(to_hex(g / 256 % 256), 2, '0') || ':' || lpad(to_hex(g % 256), 2, '0'))::macaddr8,
	('0/' || to_hex(g * 16))::pg_lsn, g::oid, chr(33 + g % 90)::"char", g % 7 = 0
FROM generate_series(1, 4000) g;
INSERT INTO eq_misc (id, a, c) VALUES (-1, '192.168.7.0/24', '192.168.7.0/24'), (-2, '::1', '::1/128'),
	(-3, '::ffff:192.168.7.7', '10.0.0.0/8');
SELECT scbf_same('SELECT * FROM eq_misc WHERE a = ''192.168.7.7''');
SELECT scbf_same('SELECT * FROM eq_misc WHERE a = ''192.168.7.7/32''');
SELECT scbf_same('SELECT * FROM eq_misc WHERE a = ''192.168.7.0/24''::cidr');
SELECT scbf_same('SELECT * FROM eq_misc WHERE a = ''::1''');
SELECT scbf_same('SELECT * FROM eq_misc WHERE a = ''0:0::1/128''');
SELECT scbf_same('SELECT * FROM eq_misc WHERE c = ''192.168.7.0/24''::inet');
SELECT scbf_same('SELECT * FROM eq_misc WHERE c = ''192.168.7/24''');
-- (the host 192.168.7.0 is not the network 192.168.7.0/24: nothing)
SELECT scbf_empty('SELECT * FROM eq_misc WHERE c = ''192.168.7.0''::inet');
SELECT scbf_same('SELECT * FROM eq_misc WHERE c = $1', 'cidr', '''10/8''');
SELECT scbf_same('SELECT * FROM eq_misc WHERE c = ANY($1)', 'inet[]', '''{10.0.0.0/8,192.168.9.0/24}''');
SELECT scbf_same('SELECT * FROM eq_misc WHERE u = ''C81E728D-9D4C-2F63-6F06-7F89CC14862C''');
SELECT scbf_same('SELECT * FROM eq_misc WHERE u = ''{c81e728d9d4c2f636f067f89cc14862c}''');
SELECT scbf_same('SELECT * FROM eq_misc WHERE b = ''\xC81E728D9D4C2F636F067F89CC14862C''');
SELECT scbf_same('SELECT * FROM eq_misc WHERE b = decode(md5(''2''), ''hex'')');
SELECT scbf_same('SELECT * FROM eq_misc WHERE m = ''0800.2b01.002a''');
SELECT scbf_same('SELECT * FROM eq_misc WHERE m = ''08-00-2B-01-00-2A''');
SELECT scbf_same('SELECT * FROM eq_misc WHERE m8 = ''08:00:2b:01:02:03:00:2a''');
SELECT scbf_same('SELECT * FROM eq_misc WHERE m8 = ''08002b010203002a''');
SELECT scbf_same('SELECT * FROM eq_misc WHERE l = ''0/2A0''');
SELECT scbf_same('SELECT * FROM eq_misc WHERE l = ''00000000/000002a0''');
SELECT scbf_same('SELECT * FROM eq_misc WHERE o = 42');
SELECT scbf_same('SELECT * FROM eq_misc WHERE o = ''42''::regclass');
SELECT scbf_same('SELECT * FROM eq_misc WHERE ch = ''A''');
SELECT scbf_same('SELECT * FROM eq_misc WHERE ch = ''ABC''::"char"');
-- (bool = true is planned as the bare column, which core 15 matches only to
-- btree and hash indexes, and so is a one-element IN (true); a list of
-- two and = ANY use scbf)
SELECT CASE WHEN current_setting('server_version_num')::int < 170000
	THEN scbf_noindex('SELECT * FROM eq_misc WHERE bo = true')
	ELSE scbf_same('SELECT * FROM eq_misc WHERE bo = true') END AS scbf_noindex;
SELECT scbf_same('SELECT * FROM eq_misc WHERE bo IN (true, NULL)');
SELECT scbf_same('SELECT * FROM eq_misc WHERE bo = ANY(ARRAY[false, NULL])');
SELECT scbf_same('SELECT * FROM eq_misc WHERE bo = $1', 'bool', 'true');

DROP TABLE eq_num, eq_flt, eq_bp, eq_int, eq_txt, eq_time, eq_misc;
DROP FUNCTION scbf_same, scbf_empty, scbf_noindex, scbf_compare;
