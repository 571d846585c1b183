--
-- scbf_types: every operator class of scbf, every query form, with NULLs,
-- on an empty table, a filled one, after REINDEX and through rounds of
-- DELETE / VACUUM / INSERT that reuse the freed space.  Each type gets its
-- own table (with small segments, so that there are many) and index.
-- Every answer goes through scbf_same(), which compares it with a
-- sequential scan and fails loudly on any difference.
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

-- every operator class of scbf passes amvalidate, and there is one per type
SELECT c.opcname, c.opcintype::regtype, f.opfname, c.opcdefault, amvalidate(c.oid)
FROM pg_opclass c JOIN pg_opfamily f ON f.oid = c.opcfamily
WHERE c.opcmethod = (SELECT oid FROM pg_am WHERE amname = 'scbf')
ORDER BY 1;

-- support function 1 of every class is the function of the default hash
-- operator class of its type, on every major (18 gave bool, bytea, date and
-- timestamptz hash functions of their own, which the install script looks
-- up), so a value hashes to the same bits on every major
SELECT c.opcname, s.amproc = h.amproc AS hash_am_function
FROM pg_opclass c
JOIN pg_amproc s ON s.amprocfamily = c.opcfamily AND s.amprocnum = 1
	AND s.amproclefttype = c.opcintype AND s.amprocrighttype = c.opcintype
LEFT JOIN (pg_opclass hc JOIN pg_amproc h ON h.amprocfamily = hc.opcfamily
	AND h.amprocnum = 1 AND h.amproclefttype = hc.opcintype
	AND h.amprocrighttype = hc.opcintype)
	ON hc.opcintype = c.opcintype AND hc.opcdefault
	AND hc.opcmethod = (SELECT oid FROM pg_am WHERE amname = 'hash')
WHERE c.opcmethod = (SELECT oid FROM pg_am WHERE amname = 'scbf')
ORDER BY 1;

-- the operators each family supports, cross-type ones included
SELECT f.opfname, o.amoplefttype::regtype, o.amoprighttype::regtype, o.amopstrategy
FROM pg_amop o JOIN pg_opfamily f ON f.oid = o.amopfamily
WHERE o.amopmethod = (SELECT oid FROM pg_am WHERE amname = 'scbf')
  AND o.amoplefttype <> o.amoprighttype
ORDER BY 1, 2, 3;

-- the types: name, column type, value for row g, a present and an absent literal
CREATE TABLE ty_spec (n int, typ text, expr text, present text, absent text,
	ptyp text GENERATED ALWAYS AS (CASE typ WHEN 'char(8)' THEN 'bpchar'
		WHEN 'varchar(20)' THEN 'varchar' ELSE typ END) STORED);
INSERT INTO ty_spec (n, typ, expr, present, absent) VALUES
	(1, 'int2', '(g % 1000)::int2', '8', '-7'),
	(2, 'int4', 'g % 997', '7', '-7'),
	(3, 'int8', 'g::int8 * 1000003', '8000024', '7'),
	(4, 'float4', '((g % 500) / 4.0)::float4', '1.25', '1.3'),
	(5, 'float8', '(g % 700) / 8.0', '0.875', '0.876'),
	(6, 'numeric', 'round((g % 600) / 10.0, g % 3 + 1)', '1.5', '1.55'),
	(7, 'text', '''text'' || (g % 800)', '''text42''', '''text-42'''),
	(8, 'varchar(20)', '''v'' || (g % 800)', '''v42''', '''v-42'''),
	(9, 'name', '(''n'' || (g % 800))::name', '''n42''', '''n-42'''),
	(10, 'char(8)', '''b'' || (g % 800)', '''b42''', '''b-42'''),
	(11, 'uuid', 'md5((g % 900)::text)::uuid', 'md5(''42'')::uuid', 'md5(''x'')::uuid'),
	(12, 'date', 'date ''2020-01-01'' + g % 400', '''2020-01-15''', '''1999-01-01'''),
	(13, 'timestamp', 'timestamp ''2020-01-01'' + (g % 500) * interval ''1 hour''', '''2020-01-02 03:00''', '''2020-01-02 03:30'''),
	(14, 'timestamptz', 'timestamptz ''2020-01-01 00:00+00'' + (g % 500) * interval ''1 hour''', '''2020-01-02 05:00+02''', '''2020-01-02 05:30+00'''),
	(15, 'time', 'time ''00:00'' + (g % 300) * interval ''1 minute''', '''01:05''', '''23:59'''),
	(16, 'timetz', 'timetz ''00:00+02'' + (g % 300) * interval ''1 minute''', '''01:05+02''', '''01:05+03'''),
	(17, 'interval', '(g % 200) * interval ''1 hour''', '''2 days''', '''2 days 1 second'''),
	(18, 'bytea', 'decode(md5((g % 900)::text), ''hex'')', 'decode(md5(''42''), ''hex'')', '''\x00'''),
	(19, 'bool', 'g % 3 = 0', 'true', 'false'),
	(20, '"char"', 'chr(65 + g % 26)', '''C''', '''z'''),
	(21, 'oid', '(g % 1000)::oid', '43', '4242'),
	(22, 'inet', '(''10.0.'' || (g % 50) || ''.'' || (g % 250))::inet', '''10.0.42.42''', '''10.0.42.42/24'''),
	(23, 'cidr', '(''10.'' || (g % 200) || ''.0.0/16'')::cidr', '''10.42.0.0/16''', '''10.42.0.0/24'''),
	(24, 'macaddr', '(''08:00:2b:01:02:'' || lpad(to_hex(g % 256), 2, ''0''))::macaddr', '''08:00:2b:01:02:2a''', '''09:00:2b:01:02:2a'''),
	(25, 'macaddr8', '(''08:00:2b:01:02:03:04:'' || lpad(to_hex(g % 256), 2, ''0''))::macaddr8', '''08:00:2b:01:02:03:04:2a''', '''08:00:2b:01:02:03:05:2a'''),
	(26, 'pg_lsn', '(''0/'' || to_hex(g % 5000))::pg_lsn', '''0/2B''', '''1/2A''');
-- (each present value is held by rows that no DELETE below removes)

-- one table per type: id, the value (NULL in every 11th row), and a pad
-- that spreads the rows over more pages
DO $$
DECLARE s record;
BEGIN
	FOR s IN SELECT * FROM ty_spec ORDER BY n LOOP
		EXECUTE format('CREATE TABLE ty_%s (id int, c %s, pad text)', s.n, s.typ);
		EXECUTE format('CREATE INDEX ty_%s_c ON ty_%s USING scbf (c) WITH (pages_per_segment = 8)', s.n, s.n);
	END LOOP;
END $$;

CREATE FUNCTION ty_fill(lo int, hi int) RETURNS void LANGUAGE plpgsql AS $$
DECLARE s record;
BEGIN
	FOR s IN SELECT * FROM ty_spec ORDER BY n LOOP
		EXECUTE format('INSERT INTO ty_%s SELECT g, CASE WHEN g %% 11 <> 0 THEN %s END, repeat(''p'', 60) FROM generate_series(%s, %s) g',
					   s.n, s.expr, lo, hi);
	END LOOP;
END $$;

-- every query form for one type: =, IN with an absent value, = ANY with a
-- NULL element, IS NULL, IS NOT NULL, and = $1 and = ANY($1) with generic
-- plans.  (bool = true is planned as the bare column, which core 15 matches
-- to btree and hash indexes only: recorded as such; the other forms use
-- scbf.)
CREATE FUNCTION ty_check(s ty_spec) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	t text := 'ty_' || s.n;
	ptyp text := s.ptyp;
	eq text := format('SELECT * FROM %s WHERE c = %s', t, s.present);
BEGIN
	RETURN concat_ws(' | ',
		CASE WHEN s.typ = 'bool' AND current_setting('server_version_num')::int < 170000 THEN scbf_noindex(eq) ELSE scbf_same(eq) END,
		scbf_same(format('SELECT * FROM %s WHERE c IN (%s, %s)', t, s.present, s.absent)),
		scbf_same(format('SELECT * FROM %s WHERE c = ANY(ARRAY[%s, NULL]::%s[])', t, s.present, ptyp)),
		scbf_same(format('SELECT * FROM %s WHERE c IS NULL', t)),
		scbf_same(format('SELECT * FROM %s WHERE c IS NOT NULL AND id < 100', t)),
		scbf_same(format('SELECT * FROM %s WHERE c = $1', t), ptyp, s.present || '::' || ptyp),
		scbf_same(format('SELECT * FROM %s WHERE c = ANY($1)', t), ptyp || '[]',
				  format('ARRAY[%s, %s]::%s[]', s.present, s.absent, ptyp)));
END $$;

-- the empty tables: the indexes, built empty, find nothing
SELECT scbf_empty('SELECT * FROM ty_7 WHERE c = ''text42''') AS text_eq,
	scbf_empty('SELECT * FROM ty_3 WHERE c = ANY($1)', 'int8[]', 'ARRAY[8000024, 7]') AS int8_any,
	scbf_empty('SELECT * FROM ty_11 WHERE c IS NULL') AS uuid_is_null;

-- filled by inserts (the indexes were built empty)
SELECT ty_fill(1, 3000);
SELECT pg_relation_size('ty_7') / 8192 AS ty7_blocks \gset
SELECT s.n, s.typ, ty_check(s) FROM ty_spec s ORDER BY n;

-- rebuilt from the filled tables
DO $$
DECLARE s record;
BEGIN
	FOR s IN SELECT n FROM ty_spec LOOP
		EXECUTE format('REINDEX INDEX ty_%s_c', s.n);
	END LOOP;
END $$;
SELECT s.n, s.typ, ty_check(s) FROM ty_spec s ORDER BY n;

-- two rounds of DELETE / VACUUM / INSERT; the new rows reuse the space
DO $$
DECLARE s record;
BEGIN
	FOR s IN SELECT n FROM ty_spec LOOP
		EXECUTE format('DELETE FROM ty_%s WHERE id %% 4 = 1 OR id BETWEEN 1000 AND 1500', s.n);
	END LOOP;
END $$;
VACUUM ty_1, ty_2, ty_3, ty_4, ty_5, ty_6, ty_7, ty_8, ty_9, ty_10, ty_11, ty_12, ty_13,
	ty_14, ty_15, ty_16, ty_17, ty_18, ty_19, ty_20, ty_21, ty_22, ty_23, ty_24, ty_25, ty_26;
SELECT ty_fill(3001, 4200);
DO $$
DECLARE s record;
BEGIN
	FOR s IN SELECT n FROM ty_spec LOOP
		EXECUTE format('DELETE FROM ty_%s WHERE id %% 5 = 2', s.n);
	END LOOP;
END $$;
VACUUM ty_1, ty_2, ty_3, ty_4, ty_5, ty_6, ty_7, ty_8, ty_9, ty_10, ty_11, ty_12, ty_13,
	ty_14, ty_15, ty_16, ty_17, ty_18, ty_19, ty_20, ty_21, ty_22, ty_23, ty_24, ty_25, ty_26;
SELECT ty_fill(4201, 5000);
SELECT s.n, s.typ, ty_check(s) FROM ty_spec s ORDER BY n;
-- values no row holds
SELECT scbf_empty('SELECT * FROM ty_7 WHERE c = ''text-42''') AS text_absent,
	scbf_empty('SELECT * FROM ty_14 WHERE c = $1', 'timestamptz', '''2020-01-02 05:30+00''') AS tstz_absent;

-- the new rows went into the space the deletes freed
SELECT count(*) > 500 AS reused FROM ty_7
WHERE id > 3000 AND (ctid::text::point)[0] < :ty7_blocks;

-- a type without an scbf operator class (one without a hash operator
-- class: composites, ranges, jsonb and the rest are in scbf_types_more) is
-- an error naming the type
\set VERBOSITY terse
CREATE TABLE ty_bad (i int, p point, b box);
CREATE INDEX ON ty_bad USING scbf (p);
CREATE INDEX ON ty_bad USING scbf (b);
CREATE INDEX ON ty_bad USING scbf (i, p);
-- nor can an operator class of another type be forced on a column
CREATE INDEX ON ty_bad USING scbf ((1::int4) int8_ops);
\set VERBOSITY default
DROP TABLE ty_bad;

DO $$
DECLARE s record;
BEGIN
	FOR s IN SELECT n FROM ty_spec LOOP
		EXECUTE format('DROP TABLE ty_%s', s.n);
	END LOOP;
END $$;
DROP FUNCTION ty_check(ty_spec);
DROP FUNCTION ty_fill(int, int);
DROP TABLE ty_spec;
DROP FUNCTION scbf_same, scbf_empty, scbf_noindex, scbf_compare;
