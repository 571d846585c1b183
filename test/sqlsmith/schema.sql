--
-- test/sqlsmith/schema.sql: the database sqlsmith fuzzes (test/sqlsmith/run).
--
-- Five tables whose columns cover every type scbf has an operator class for
-- (scbf--1.0.sql; varchar and cidr through the text and inet classes, an
-- enum, an int4 array, a range, a multirange and a composite type through
-- the polymorphic classes; citext through scbf_citext), each
-- column with its own scbf index, plus two multicolumn indexes; NULL in
-- every 11th row, and small segments and sparse heap pages so that each
-- index has several.  The
-- tables belong to the unprivileged role that sqlsmith connects as, so the
-- scbf diagnostic functions (scbf_verify, scbf_probe, scbf_filters, ...)
-- work on them when sqlsmith happens to call them, while its random calls
-- of other functions cannot reach what only a superuser may do.
--
-- Run as a superuser in an empty database:
--   psql -v smith=ROLE -f test/sqlsmith/schema.sql
--
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS scbf;
-- (scbf's event triggers add scbf_citext)
CREATE EXTENSION IF NOT EXISTS citext;
RESET client_min_messages;

-- (a throwaway cluster: the password is the role's name)
SELECT format('CREATE ROLE %I LOGIN PASSWORD %L', :'smith', :'smith')
WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = :'smith') \gexec
CREATE SCHEMA smith AUTHORIZATION :"smith";
-- the planner takes a bitmap scan wherever scbf can answer (sqlsmith sets
-- statement_timeout to 1 s itself, after it has read the catalogs)
ALTER ROLE :"smith" SET search_path = smith, public;
ALTER ROLE :"smith" SET enable_seqscan = off;
-- which makes every plan cost more than jit_above_cost: JIT would compile
-- each query (half a second, far more than the query takes)
ALTER ROLE :"smith" SET jit = off;
-- the functions that reveal index contents are not for PUBLIC: sqlsmith's
-- role may call them all
GRANT EXECUTE ON FUNCTION scbf_index_info(regclass),
	scbf_segments(regclass), scbf_filters(regclass, int),
	scbf_pages(regclass), scbf_probe(regclass, anyelement, int),
	scbf_probe(regclass, text, int), scbf_verify(regclass, boolean),
	scbf_clean_pending(regclass) TO :"smith";
SET ROLE :"smith";
SET search_path = smith;

CREATE TABLE nums (id int, i2 int2, i4 int4, i8 int8, f4 float4, f8 float8,
	num numeric, o oid, b bool, ch "char") WITH (fillfactor = 10);
CREATE TABLE texts (id int, t text, v varchar(20), n name, bp char(8),
	by bytea, u uuid) WITH (fillfactor = 10);
CREATE TABLE times (id int, d date, ts timestamp, tstz timestamptz,
	tm time, tmtz timetz, iv interval) WITH (fillfactor = 10);
CREATE TABLE nets (id int, ip inet, cid cidr, mac macaddr, mac8 macaddr8,
	lsn pg_lsn) WITH (fillfactor = 10);
CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy');
CREATE TYPE pair AS (x int, y text);
CREATE TABLE others (id int, e mood, j jsonb, a int4[], r int4range,
	mr int4multirange, p pair, tid tid, x xid, x8 xid8, c cid, ov oidvector,
	ac aclitem, ci public.citext) WITH (fillfactor = 10);

-- rows 1 .. 500 (few, so that sqlsmith's joins seldom run into its 1 s
-- statement_timeout), at ten or so a page (fillfactor 10) so that each
-- index has several segments of 8 pages; the values repeat, as in
-- sql/scbf_types.sql
INSERT INTO nums
SELECT g, (g % 1000)::int2, g % 997, g::int8 * 1000003,
	((g % 500) / 4.0)::float4, (g % 700) / 8.0,
	round((g % 600) / 10.0, g % 3 + 1), (g % 1000)::oid, g % 3 = 0,
	chr(65 + g % 26)::"char"
FROM generate_series(1, 500) g;
INSERT INTO texts
SELECT g, 'text' || (g % 800), 'v' || (g % 800), ('n' || (g % 800))::name,
	'b' || (g % 800), decode(md5((g % 900)::text), 'hex'),
	md5((g % 900)::text)::uuid
FROM generate_series(1, 500) g;
INSERT INTO times
SELECT g, date '2020-01-01' + g % 400,
	timestamp '2020-01-01' + (g % 500) * interval '1 hour',
	timestamptz '2020-01-01 00:00+00' + (g % 500) * interval '1 hour',
	time '00:00' + (g % 300) * interval '1 minute',
	timetz '00:00+02' + (g % 300) * interval '1 minute',
	(g % 200) * interval '1 hour'
FROM generate_series(1, 500) g;
INSERT INTO nets
SELECT g, ('10.0.' || (g % 50) || '.' || (g % 250))::inet,
	('10.' || (g % 200) || '.0.0/16')::cidr,
	('08:00:2b:01:02:' || lpad(to_hex(g % 256), 2, '0'))::macaddr,
	('08:00:2b:01:02:03:04:' || lpad(to_hex(g % 256), 2, '0'))::macaddr8,
	('0/' || to_hex(g % 5000))::pg_lsn
FROM generate_series(1, 500) g;
INSERT INTO others
SELECT g, (ARRAY['sad', 'ok', 'happy'])[g % 3 + 1]::mood,
	jsonb_build_object('a', g % 100, 'b', jsonb_build_array(g % 7, 'x')),
	ARRAY[g % 50, g % 7], int4range(g % 40, g % 40 + 5),
	int4multirange(int4range(g % 30, g % 30 + 2), int4range(100, 101)),
	ROW(g % 70, 'y' || g % 7)::pair, format('(%s,%s)', g % 90, g % 3 + 1)::tid,
	(g % 500)::text::xid, (g % 500 + 4294967296)::text::xid8,
	(g % 400)::text::cid, ((g % 20) || ' ' || (g % 3))::oidvector,
	makeaclitem(0, 10, (ARRAY['SELECT', 'INSERT', 'UPDATE', 'DELETE'])[g % 4 + 1], false),
	(ARRAY['User', 'USER', 'user'])[g % 3 + 1] || (g % 400) || '@Example.COM'
FROM generate_series(1, 500) g;

-- NULL in every 11th row, every column but id
DO $$
DECLARE
	r record;
BEGIN
	FOR r IN SELECT attrelid::regclass AS tab, attname
		FROM pg_attribute
		WHERE attrelid IN ('nums'::regclass, 'texts'::regclass,
						   'times'::regclass, 'nets'::regclass,
						   'others'::regclass)
		  AND attnum > 0 AND NOT attisdropped AND attname <> 'id'
	LOOP
		EXECUTE format('UPDATE %s SET %I = NULL WHERE id %% 11 = 0',
					   r.tab, r.attname);
	END LOOP;
END $$;

-- an scbf index on every column but id, and two multicolumn ones
DO $$
DECLARE
	r record;
BEGIN
	FOR r IN SELECT attrelid::regclass AS tab, attname
		FROM pg_attribute
		WHERE attrelid IN ('nums'::regclass, 'texts'::regclass,
						   'times'::regclass, 'nets'::regclass,
						   'others'::regclass)
		  AND attnum > 0 AND NOT attisdropped AND attname <> 'id'
	LOOP
		EXECUTE format('CREATE INDEX %I ON %s USING scbf (%I) '
					   'WITH (pages_per_segment = 8)',
					   r.tab || '_' || r.attname, r.tab, r.attname);
	END LOOP;
END $$;
CREATE INDEX nums_i4_t ON nums USING scbf (i4, i8, b);
CREATE INDEX texts_t_u ON texts USING scbf (t, u, by)
	WITH (pages_per_segment = 16, false_positive_rate = 0.1);

VACUUM ANALYZE nums, texts, times, nets, others;

-- a view per indexed column that selects one of its values: sqlsmith takes
-- views as it takes tables, and every query that reads one of these scans
-- an scbf index (a random WHERE clause seldom has the "column = value"
-- form the index answers); the simple views also take sqlsmith's DML
DO $$
DECLARE
	r record;
BEGIN
	FOR r IN SELECT attrelid::regclass AS tab, attname
		FROM pg_attribute
		WHERE attrelid IN ('nums'::regclass, 'texts'::regclass,
						   'times'::regclass, 'nets'::regclass,
						   'others'::regclass)
		  AND attnum > 0 AND NOT attisdropped AND attname <> 'id'
	LOOP
		EXECUTE format('CREATE VIEW %I AS SELECT * FROM %s WHERE %I = '
					   '(SELECT %I FROM %s WHERE id = 42)',
					   r.tab || '_' || r.attname || '_eq', r.tab, r.attname,
					   r.attname, r.tab);
	END LOOP;
END $$;

-- the indexes as values, so that sqlsmith passes real ones (not only NULL)
-- to the functions that take a regclass
CREATE TABLE indexes AS
SELECT c.oid::regclass AS idx, c.relname::text AS name
FROM pg_class c
WHERE c.relnamespace = 'smith'::regnamespace AND c.relkind = 'i';

-- every operator class of scbf has an index here
RESET ROLE;
DO $$
DECLARE
	missing text;
BEGIN
	SELECT string_agg(c.opcname, ', ') INTO missing
	FROM pg_opclass c
	WHERE c.opcmethod = (SELECT oid FROM pg_am WHERE amname = 'scbf')
	  AND NOT EXISTS (SELECT FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid
					  WHERE ic.relnamespace = 'smith'::regnamespace
						AND c.oid = ANY (i.indclass::oid[]));
	IF missing IS NOT NULL THEN
		RAISE EXCEPTION 'operator classes of scbf without an index: %', missing;
	END IF;
END $$;
