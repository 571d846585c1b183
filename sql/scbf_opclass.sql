--
-- scbf_opclass: every operator class, every query form, with NULLs, on an
-- empty and a filled table, before and after DELETE / VACUUM / INSERT.
-- Every index answer is compared with a sequential scan (scbf_same raises
-- an error on any difference, on a plan without the index, on no rows).
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

-- every default operator class of scbf passes amvalidate
SELECT c.opcname, c.opcintype::regtype, f.opfname, amvalidate(c.oid)
FROM pg_opclass c JOIN pg_opfamily f ON f.oid = c.opcfamily
WHERE c.opcmethod = (SELECT oid FROM pg_am WHERE amname = 'scbf')
ORDER BY 1;

CREATE TABLE types (
	id int,
	c_int2 int2, c_int4 int4, c_int8 int8,
	c_float4 float4, c_float8 float8, c_numeric numeric,
	c_text text, c_varchar varchar(20), c_name name, c_bpchar char(8),
	c_uuid uuid, c_date date, c_ts timestamp, c_tstz timestamptz,
	c_time time, c_timetz timetz, c_interval interval,
	c_bytea bytea, c_bool bool, c_char "char", c_oid oid,
	c_inet inet, c_cidr cidr, c_macaddr macaddr, c_macaddr8 macaddr8,
	c_lsn pg_lsn);

-- one scbf index per column, built on the empty table
DO $$
DECLARE c text;
BEGIN
	FOR c IN SELECT attname FROM pg_attribute
			 WHERE attrelid = 'types'::regclass AND attname LIKE 'c\_%' LOOP
		EXECUTE format('CREATE INDEX %I ON types USING scbf (%I)', 'types_' || c, c);
	END LOOP;
END $$;

-- the rows: a NULL in every column of every 13th row
CREATE FUNCTION types_rows(lo int, hi int) RETURNS SETOF types LANGUAGE sql AS $$
	SELECT g,
		CASE WHEN g % 13 <> 0 THEN (g % 1000)::int2 END,
		CASE WHEN g % 13 <> 0 THEN g % 997 END,
		CASE WHEN g % 13 <> 0 THEN g::int8 * 1000003 END,
		CASE WHEN g % 13 <> 0 THEN (g % 500) / 4.0 END,
		CASE WHEN g % 13 <> 0 THEN (g % 700) / 8.0 END,
		CASE WHEN g % 13 <> 0 THEN round((g % 600) / 10.0, g % 3 + 1) END,
		CASE WHEN g % 13 <> 0 THEN 'text' || (g % 800) END,
		CASE WHEN g % 13 <> 0 THEN 'v' || (g % 800) END,
		CASE WHEN g % 13 <> 0 THEN ('n' || (g % 800))::name END,
		CASE WHEN g % 13 <> 0 THEN 'b' || (g % 800) END,
		CASE WHEN g % 13 <> 0 THEN md5((g % 900)::text)::uuid END,
		CASE WHEN g % 13 <> 0 THEN date '2020-01-01' + g % 400 END,
		CASE WHEN g % 13 <> 0 THEN timestamp '2020-01-01' + (g % 500) * interval '1 hour' END,
		CASE WHEN g % 13 <> 0 THEN timestamptz '2020-01-01 00:00+00' + (g % 500) * interval '1 hour' END,
		CASE WHEN g % 13 <> 0 THEN time '00:00' + (g % 300) * interval '1 minute' END,
		CASE WHEN g % 13 <> 0 THEN timetz '00:00+02' + (g % 300) * interval '1 minute' END,
		CASE WHEN g % 13 <> 0 THEN (g % 200) * interval '1 hour' END,
		CASE WHEN g % 13 <> 0 THEN decode(md5((g % 900)::text), 'hex') END,
		CASE WHEN g % 13 <> 0 THEN g % 3 = 0 END,
		CASE WHEN g % 13 <> 0 THEN chr(65 + g % 26)::"char" END,
		CASE WHEN g % 13 <> 0 THEN (g % 1000)::oid END,
		CASE WHEN g % 13 <> 0 THEN ('10.0.' || (g % 50) || '.' || (g % 250))::inet END,
		CASE WHEN g % 13 <> 0 THEN ('10.' || (g % 200) || '.0.0/16')::cidr END,
		CASE WHEN g % 13 <> 0 THEN ('08:00:2b:01:02:' || lpad(to_hex(g % 256), 2, '0'))::macaddr END,
		CASE WHEN g % 13 <> 0 THEN ('08:00:2b:01:02:03:04:' || lpad(to_hex(g % 256), 2, '0'))::macaddr8 END,
		CASE WHEN g % 13 <> 0 THEN ('0/' || to_hex(g % 5000))::pg_lsn END
	FROM generate_series(lo, hi) g
$$;

-- =, IN with an absent value, = ANY with a NULL element, IS NULL, IS NOT
-- NULL, for column c; "present" is a literal of a value the column holds
-- through every round (not one the deletes remove), "absent" one it never
-- holds
CREATE FUNCTION check_column(c text, present text, absent text)
RETURNS TABLE (col text, eq text, in_list text, any_null text,
			   is_null text, not_null text)
LANGUAGE plpgsql AS $$
BEGIN
	col := c;
	-- (c_bool = true is planned as the boolean column itself, which
	-- PostgreSQL 15 matches to btree and hash boolean indexes only, 17 and
	-- later to scbf's too; IN and = ANY use the index)
	IF c = 'c_bool' AND current_setting('server_version_num')::int < 170000 THEN
		eq := scbf_noindex(format('SELECT * FROM types WHERE %I = %s', c, present));
	ELSE
		eq := scbf_same(format('SELECT * FROM types WHERE %I = %s', c, present));
	END IF;
	in_list := scbf_same(format('SELECT * FROM types WHERE %I IN (%s, %s)', c, present, absent));
	any_null := scbf_same(format('SELECT * FROM types WHERE %I = ANY(ARRAY[%s, NULL])', c, present));
	is_null := scbf_same(format('SELECT * FROM types WHERE %I IS NULL', c));
	not_null := scbf_same(format('SELECT * FROM types WHERE %I IS NOT NULL AND id < 100', c));
	RETURN NEXT;
END $$;

CREATE FUNCTION check_all() RETURNS SETOF record LANGUAGE sql AS $$
	SELECT * FROM check_column('c_int2', '7::int2', '-7::int2')
	UNION ALL SELECT * FROM check_column('c_int4', '7', '-7')
	UNION ALL SELECT * FROM check_column('c_int8', '8000024::int8', '7::int8')
	UNION ALL SELECT * FROM check_column('c_float4', '1.25::float4', '1.3::float4')
	UNION ALL SELECT * FROM check_column('c_float8', '1::float8', '0.876::float8')
	UNION ALL SELECT * FROM check_column('c_numeric', '1.5', '1.55')
	UNION ALL SELECT * FROM check_column('c_text', '''text42''', '''text-42''')
	UNION ALL SELECT * FROM check_column('c_varchar', '''v42''', '''v-42''')
	UNION ALL SELECT * FROM check_column('c_name', '''n42''::name', '''n-42''::name')
	UNION ALL SELECT * FROM check_column('c_bpchar', '''b42''::bpchar', '''b-42''::bpchar')
	UNION ALL SELECT * FROM check_column('c_uuid', 'md5(''42'')::uuid', 'md5(''x'')::uuid')
	UNION ALL SELECT * FROM check_column('c_date', 'date ''2020-01-15''', 'date ''1999-01-01''')
	UNION ALL SELECT * FROM check_column('c_ts', 'timestamp ''2020-01-02 03:00''', 'timestamp ''2020-01-02 03:30''')
	UNION ALL SELECT * FROM check_column('c_tstz', 'timestamptz ''2020-01-02 05:00+02''', 'timestamptz ''2020-01-02 05:30+00''')
	UNION ALL SELECT * FROM check_column('c_time', 'time ''01:05''', 'time ''23:59''')
	UNION ALL SELECT * FROM check_column('c_timetz', 'timetz ''01:05+02''', 'timetz ''01:05+03''')
	UNION ALL SELECT * FROM check_column('c_interval', 'interval ''2 days''', 'interval ''2 days 1 second''')
	UNION ALL SELECT * FROM check_column('c_bytea', 'decode(md5(''42''), ''hex'')', '''\x00''::bytea')
	UNION ALL SELECT * FROM check_column('c_bool', 'true', 'false')
	UNION ALL SELECT * FROM check_column('c_char', '''C''::"char"', '''z''::"char"')
	UNION ALL SELECT * FROM check_column('c_oid', '42::oid', '4242::oid')
	UNION ALL SELECT * FROM check_column('c_inet', '''10.0.42.42''::inet', '''10.0.42.42/24''::inet')
	UNION ALL SELECT * FROM check_column('c_cidr', '''10.42.0.0/16''::cidr', '''10.42.0.0/24''::cidr')
	UNION ALL SELECT * FROM check_column('c_macaddr', '''08:00:2b:01:02:2a''::macaddr', '''09:00:2b:01:02:2a''::macaddr')
	UNION ALL SELECT * FROM check_column('c_macaddr8', '''08:00:2b:01:02:03:04:2a''::macaddr8', '''08:00:2b:01:02:03:05:2a''::macaddr8')
	UNION ALL SELECT * FROM check_column('c_lsn', '''0/2B''::pg_lsn', '''1/2A''::pg_lsn')
$$;

-- the empty table: the indexes, built empty, find nothing
SELECT scbf_empty('SELECT * FROM types WHERE c_int4 = 7') AS int4_eq,
	scbf_empty('SELECT * FROM types WHERE c_text IN (''text42'', ''text43'')') AS text_in,
	scbf_empty('SELECT * FROM types WHERE c_uuid IS NULL') AS uuid_is_null;

-- filled by inserts
INSERT INTO types SELECT * FROM types_rows(1, 3000);
SELECT * FROM check_all() AS (col text, eq text, in_list text,
	any_null text, is_null text, not_null text);

-- rebuilt from the filled table
REINDEX TABLE types;
SELECT * FROM check_all() AS (col text, eq text, in_list text,
	any_null text, is_null text, not_null text);

-- rounds of DELETE / VACUUM / INSERT, the new rows reusing the freed space
DELETE FROM types WHERE id % 4 = 1;
VACUUM types;
INSERT INTO types SELECT * FROM types_rows(3001, 3600);
DELETE FROM types WHERE id % 5 = 2;
VACUUM types;
INSERT INTO types SELECT * FROM types_rows(3601, 4200);
-- a value no row holds
SELECT scbf_empty('SELECT * FROM types WHERE c_text = ''text-42''') AS text_absent;
SELECT * FROM check_all() AS (col text, eq text, in_list text,
	any_null text, is_null text, not_null text);

-- an unsupported type is an error naming it
\set VERBOSITY terse
CREATE TABLE pts (p point);
CREATE INDEX ON pts USING scbf (p);
\set VERBOSITY default
DROP TABLE pts;

DROP FUNCTION check_all();
DROP FUNCTION check_column(text, text, text);
DROP FUNCTION types_rows(int, int);
DROP TABLE types;
DROP FUNCTION scbf_same, scbf_empty, scbf_noindex, scbf_compare;
