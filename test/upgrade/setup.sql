--
-- test/upgrade/setup.sql: the database that test/upgrade/run carries from
-- PostgreSQL 15 to 17 to 18 with pg_upgrade.  Run once, on the first major.
--
-- One table with a column of every type that has a default hash operator
-- class in core (the polymorphic classes through an enum, an int4 array, a
-- range, a multirange and a composite type), and citext; one scbf index
-- per column, small segments so that each has many; NULL in every 11th
-- row.  u_spec holds, per column, a literal of a value rows hold (one of
-- rows 1 .. 1000, which test/upgrade/churn.sql never deletes) and one that
-- no row holds, and
-- the first major that has the column: pg_upgrade refuses a table with an
-- aclitem column from before 16 (its format changed in 16), so that one is
-- added on 17 (by churn.sql, through u_add_columns).  u_cols: the columns
-- the table has.
--
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
CREATE EXTENSION citext;
CREATE EXTENSION scbf;
RESET client_min_messages;

CREATE TYPE u_mood AS ENUM ('sad', 'ok', 'happy', 'unused');
CREATE TYPE u_pair AS (x int, y text);

CREATE TABLE u_spec (n int PRIMARY KEY, col text, typ text, expr text,
	present text, absent text, since int DEFAULT 15);
INSERT INTO u_spec (n, col, typ, expr, present, absent) VALUES
	(1, 'c_int2', 'int2', '(g % 1000)::int2', '8', '-7'),
	(2, 'c_int4', 'int4', 'g % 997', '7', '-7'),
	(3, 'c_int8', 'int8', 'g::int8 * 1000003', '8000024', '7'),
	(4, 'c_float4', 'float4', '((g % 500) / 4.0)::float4', '1.25', '1.3'),
	(5, 'c_float8', 'float8', '(g % 700) / 8.0', '0.875', '0.876'),
	(6, 'c_numeric', 'numeric', 'round((g % 600) / 10.0, g % 3 + 1)', '1.5', '1.55'),
	(7, 'c_text', 'text', '''text'' || (g % 800)', '''text42''', '''text-42'''),
	(8, 'c_varchar', 'varchar(20)', '''v'' || (g % 800)', '''v42''', '''v-42'''),
	(9, 'c_name', 'name', '(''n'' || (g % 800))::name', '''n42''', '''n-42'''),
	(10, 'c_bpchar', 'char(8)', '''b'' || (g % 800)', '''b42''', '''b-42'''),
	(11, 'c_uuid', 'uuid', 'md5((g % 900)::text)::uuid', 'md5(''42'')::uuid', 'md5(''x'')::uuid'),
	(12, 'c_date', 'date', 'date ''2020-01-01'' + g % 400', '''2020-01-15''', '''1999-01-01'''),
	(13, 'c_timestamp', 'timestamp', 'timestamp ''2020-01-01'' + (g % 500) * interval ''1 hour''', '''2020-01-02 03:00''', '''2020-01-02 03:30'''),
	(14, 'c_timestamptz', 'timestamptz', 'timestamptz ''2020-01-01 00:00+00'' + (g % 500) * interval ''1 hour''', '''2020-01-02 05:00+02''', '''2020-01-02 05:30+00'''),
	(15, 'c_time', 'time', 'time ''00:00'' + (g % 300) * interval ''1 minute''', '''01:05''', '''23:59'''),
	(16, 'c_timetz', 'timetz', 'timetz ''00:00+02'' + (g % 300) * interval ''1 minute''', '''01:05+02''', '''01:05+03'''),
	(17, 'c_interval', 'interval', '(g % 200) * interval ''1 hour''', '''2 days''', '''2 days 1 second'''),
	(18, 'c_bytea', 'bytea', 'decode(md5((g % 900)::text), ''hex'')', 'decode(md5(''42''), ''hex'')', '''\x00'''),
	(19, 'c_bool', 'bool', 'g % 3 = 0', 'true', 'NULL'),
	(20, 'c_char', '"char"', 'chr(65 + g % 26)', '''C''', '''z'''),
	(21, 'c_oid', 'oid', '(g % 1000)::oid', '43', '4242'),
	(22, 'c_inet', 'inet', '(''10.0.'' || (g % 50) || ''.'' || (g % 250))::inet', '''10.0.42.42''', '''10.0.42.42/24'''),
	(23, 'c_cidr', 'cidr', '(''10.'' || (g % 200) || ''.0.0/16'')::cidr', '''10.42.0.0/16''', '''10.42.0.0/24'''),
	(24, 'c_macaddr', 'macaddr', '(''08:00:2b:01:02:'' || lpad(to_hex(g % 256), 2, ''0''))::macaddr', '''08:00:2b:01:02:2a''', '''09:00:2b:01:02:2a'''),
	(25, 'c_macaddr8', 'macaddr8', '(''08:00:2b:01:02:03:04:'' || lpad(to_hex(g % 256), 2, ''0''))::macaddr8', '''08:00:2b:01:02:03:04:2a''', '''08:00:2b:01:02:03:05:2a'''),
	(26, 'c_pg_lsn', 'pg_lsn', '(''0/'' || to_hex(g % 5000))::pg_lsn', '''0/2B''', '''1/2A'''),
	(27, 'c_enum', 'u_mood', '(ARRAY[''sad'', ''ok'', ''happy''])[g % 3 + 1]::u_mood', '''ok''', '''unused'''),
	(28, 'c_jsonb', 'jsonb', 'jsonb_build_object(''a'', g % 100, ''b'', jsonb_build_array(g % 7, ''x''))', '''{"b": [0, "x"], "a": 42}''', '''{"a": 42, "b": [7, "x"]}'''),
	(29, 'c_array', 'int4[]', 'ARRAY[g % 50, g % 7]', '''{42,0}''', '''{42,7}'''),
	(30, 'c_range', 'int4range', 'int4range(g % 40, g % 40 + 5)', '''[2,7)''', '''[2,8)'''),
	(31, 'c_multirange', 'int4multirange', 'int4multirange(int4range(g % 30, g % 30 + 2), int4range(100, 101))', '''{[3,5),[100,101)}''', '''{[3,5)}'''),
	(32, 'c_record', 'u_pair', 'ROW(g % 70, ''y'' || g % 7)::u_pair', '''(42,y0)''::u_pair', '''(42,y1)''::u_pair'),
	(33, 'c_tid', 'tid', 'format(''(%s,%s)'', g % 90, g % 3 + 1)::tid', '''(42,1)''', '''(42,4)'''),
	(34, 'c_xid', 'xid', '(g % 500)::text::xid', '''42''', '''4242'''),
	(35, 'c_xid8', 'xid8', '(g % 500 + 4294967296)::text::xid8', '''4294967338''', '''4294968296'''),
	(36, 'c_cid', 'cid', '(g % 400)::text::cid', '''42''', '''4242'''),
	(37, 'c_oidvector', 'oidvector', '((g % 20) || '' '' || (g % 3))::oidvector', '''2 0''', '''2 5''');
INSERT INTO u_spec (n, col, typ, expr, present, absent, since) VALUES
	(38, 'c_aclitem', 'aclitem', 'makeaclitem(0, 10, (ARRAY[''SELECT'', ''INSERT'', ''UPDATE'', ''DELETE'', ''TRUNCATE'', ''REFERENCES'', ''TRIGGER''])[g % 7 + 1], false)', 'makeaclitem(0, 10, ''SELECT'', false)', 'makeaclitem(0, 10, ''USAGE'', false)', 16),
	(39, 'c_citext', 'citext', '(ARRAY[''User'', ''USER'', ''user''])[g % 3 + 1] || (g % 400) || ''@Example.COM''', '''USER42@example.com''', '''user42@example.org''', 15);

CREATE TABLE u_t (id int) WITH (autovacuum_enabled = off);
CREATE VIEW u_cols AS
	SELECT s.* FROM u_spec s
	JOIN pg_attribute a ON a.attrelid = 'u_t'::regclass AND a.attname = s.col
		AND NOT a.attisdropped;

-- u_fill(lo, hi): rows lo .. hi
CREATE FUNCTION u_fill(lo int, hi int) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('INSERT INTO u_t (id, %s) SELECT g, %s FROM generate_series(%s, %s) g',
		(SELECT string_agg(quote_ident(col), ', ' ORDER BY n) FROM u_cols),
		(SELECT string_agg(format('CASE WHEN g %% 11 <> 0 THEN %s END', expr), ', ' ORDER BY n)
		 FROM u_cols), lo, hi);
END $$;

-- u_add_columns(): the columns this major may have and the table has not,
-- with the values of the rows there are, and their indexes
CREATE FUNCTION u_add_columns() RETURNS int LANGUAGE plpgsql AS $$
DECLARE
	s record;
	added int := 0;
BEGIN
	FOR s IN SELECT * FROM u_spec
			 WHERE since <= current_setting('server_version_num')::int / 10000
			   AND col NOT IN (SELECT col FROM u_cols)
			 ORDER BY u_spec.n
	LOOP
		EXECUTE format('ALTER TABLE u_t ADD COLUMN %I %s', s.col, s.typ);
		EXECUTE format('UPDATE u_t SET %I = v.v FROM (SELECT g, %s AS v FROM generate_series(1, (SELECT max(id) FROM u_t)) g) v WHERE v.g = u_t.id AND u_t.id %% 11 <> 0',
					   s.col, s.expr);
		EXECUTE format('CREATE INDEX %I ON u_t USING scbf (%I) WITH (pages_per_segment = 8)',
					   'u_t_' || s.col, s.col);
		added := added + 1;
	END LOOP;
	RETURN added;
END $$;

-- the columns, the rows, then the indexes (the first CREATE INDEX also
-- installs scbf_citext: citext came first)
DO $$
BEGIN
	EXECUTE format('ALTER TABLE u_t %s',
		(SELECT string_agg(format('ADD COLUMN %I %s', col, typ), ', ' ORDER BY n)
		 FROM u_spec WHERE since <= current_setting('server_version_num')::int / 10000));
END $$;
SELECT u_fill(1, 8000);
DO $$
DECLARE s record;
BEGIN
	FOR s IN SELECT * FROM u_cols ORDER BY n LOOP
		EXECUTE format('CREATE INDEX %I ON u_t USING scbf (%I) WITH (pages_per_segment = 8)',
					   'u_t_' || s.col, s.col);
	END LOOP;
END $$;
-- rows inserted after the build: entries in the pending area
SET scbf.fold_helpers = off;
SELECT u_fill(8001, 8500);
