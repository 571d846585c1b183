--
-- scbf_security: the extension installed, and its functions run, under a
-- search_path an attacker prepared.  The install script follows
-- PostgreSQL's rules for extension scripts ("Security Considerations for
-- Extensions"): no CREATE OR REPLACE and no IF NOT EXISTS, so an object an
-- attacker created first makes CREATE EXTENSION fail instead of being
-- adopted; the C functions look nothing up by name, the SQL and PL/pgSQL
-- ones run under their own SET search_path and call scbf's functions by
-- qualified names; and the operators, hash functions and types it names
-- are qualified with pg_catalog.  Here an attacker who owns the target schema and
-- a schema of his own has shadowed them all beforehand: the extension must
-- reference only pg_catalog's objects, and every function must answer
-- under the attacker's search_path exactly as under a clean one.
--
\set regress_db :DBNAME
SET client_min_messages = warning;
DROP DATABASE IF EXISTS regress_scbf_security;
DROP ROLE IF EXISTS regress_scbf_attacker;
RESET client_min_messages;
CREATE DATABASE regress_scbf_security;
CREATE ROLE regress_scbf_attacker;
\c regress_scbf_security
CREATE SCHEMA target AUTHORIZATION regress_scbf_attacker;
CREATE SCHEMA hostile AUTHORIZATION regress_scbf_attacker;

-- the attacker's shadows of what the script and the index use
SET ROLE regress_scbf_attacker;
CREATE FUNCTION target.yes(int4, int4) RETURNS bool LANGUAGE sql IMMUTABLE AS 'SELECT true';
CREATE FUNCTION hostile.yes(int4, int4) RETURNS bool LANGUAGE sql IMMUTABLE AS 'SELECT true';
CREATE OPERATOR target.= (LEFTARG = int4, RIGHTARG = int4, FUNCTION = target.yes);
CREATE OPERATOR hostile.= (LEFTARG = int4, RIGHTARG = int4, FUNCTION = hostile.yes);
CREATE FUNCTION target.hashint4(int4) RETURNS int4 LANGUAGE sql IMMUTABLE AS 'SELECT 0';
CREATE FUNCTION hostile.hashint4(int4) RETURNS int4 LANGUAGE sql IMMUTABLE AS 'SELECT 0';
CREATE DOMAIN target.regclass AS text;
CREATE DOMAIN hostile.regclass AS text;
CREATE DOMAIN target.int4 AS int8;
CREATE DOMAIN hostile.int4 AS int8;
-- and one of scbf's own functions, created first
CREATE FUNCTION target.scbf_verify(regclass, boolean) RETURNS void LANGUAGE sql AS '';
RESET ROLE;

SET search_path = hostile, target, pg_catalog;
-- not adopted: CREATE EXTENSION fails
\set VERBOSITY terse
CREATE EXTENSION scbf SCHEMA target;
\set VERBOSITY default
DROP FUNCTION target.scbf_verify(pg_catalog.regclass, pg_catalog.bool);
CREATE EXTENSION scbf SCHEMA target;
RESET search_path;

-- every operator, support function and type the extension names is
-- pg_catalog's, and none of the attacker's objects became its member
SELECT count(*) AS operators, count(*) FILTER (WHERE o.oprnamespace <> 'pg_catalog'::regnamespace) AS not_pg_catalog
FROM pg_amop ao JOIN pg_opfamily f ON f.oid = ao.amopfamily JOIN pg_am a ON a.oid = f.opfmethod
JOIN pg_operator o ON o.oid = ao.amopopr WHERE a.amname = 'scbf';
SELECT count(*) AS support_functions, count(*) FILTER (WHERE p.pronamespace <> 'pg_catalog'::regnamespace) AS not_pg_catalog
FROM pg_amproc ap JOIN pg_opfamily f ON f.oid = ap.amprocfamily JOIN pg_am a ON a.oid = f.opfmethod
JOIN pg_proc p ON p.oid = ap.amproc WHERE a.amname = 'scbf';
SELECT count(DISTINCT p.oid) AS functions, count(*) FILTER (WHERE ty.typnamespace <> 'pg_catalog'::regnamespace) AS types_not_pg_catalog
FROM pg_proc p
CROSS JOIN LATERAL unnest(coalesce(p.proallargtypes, p.proargtypes::oid[]) || p.prorettype) t(typ)
JOIN pg_type ty ON ty.oid = t.typ
WHERE p.pronamespace = 'target'::regnamespace AND p.proname LIKE 'scbf%';
SELECT count(*) AS attacker_objects_in_extension
FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'scbf'
WHERE d.deptype = 'e' AND (d.classid, d.objid) IN (
	SELECT 'pg_proc'::regclass, oid FROM pg_proc WHERE proname IN ('yes', 'hashint4') AND pronamespace <> 'pg_catalog'::regnamespace
	UNION ALL SELECT 'pg_operator'::regclass, oid FROM pg_operator WHERE oprnamespace <> 'pg_catalog'::regnamespace
	UNION ALL SELECT 'pg_type'::regclass, oid FROM pg_type WHERE typnamespace IN ('target'::regnamespace, 'hostile'::regnamespace));

-- The rules PostgreSQL documents for extension scripts, checked on every
-- installed script of scbf and of scbf_citext (this version's and any
-- upgrade script), with comments removed: no CREATE OR REPLACE and no IF
-- NOT EXISTS (either would adopt an object someone created first), and no
-- SQL or PL function body (whose unqualified names would resolve at run
-- time under the caller's search_path) unless the function carries SET
-- search_path.  The extension is not trusted: only a superuser installs
-- it.  One function is SECURITY DEFINER: the event triggers' function
-- (scbf_install_bridges), which creates scbf_citext, an extension only a
-- superuser may create, when a CREATE INDEX of anyone's needs it.
SELECT count(*) > 0 AS scripts_read,
	count(*) FILTER (WHERE body ~* 'create\s+or\s+replace') AS create_or_replace,
	count(*) FILTER (WHERE body ~* 'if\s+not\s+exists') AS if_not_exists
FROM (SELECT f, regexp_replace(pg_read_file(d || '/' || f), '--[^\n]*', '', 'g') AS body
	  FROM (SELECT setting || '/extension' AS d FROM pg_config WHERE name = 'SHAREDIR') dir,
		   pg_ls_dir(d) f
	  WHERE f ~ '^scbf(_citext)?--.*\.sql$') scripts;
SELECT count(*) AS functions,
	count(*) FILTER (WHERE l.lanname <> 'c') AS not_c,
	count(*) FILTER (WHERE l.lanname <> 'c' AND NOT coalesce(p.proconfig::text ~ 'search_path=', false)) AS not_c_without_search_path,
	count(*) FILTER (WHERE p.prosecdef) AS security_definer
FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'scbf'
JOIN pg_proc p ON d.classid = 'pg_proc'::regclass AND p.oid = d.objid
JOIN pg_language l ON l.oid = p.prolang
WHERE d.deptype = 'e';
SELECT name, version, superuser, trusted FROM pg_available_extension_versions WHERE name IN ('scbf', 'scbf_citext') ORDER BY name;

-- a table and its indexes, made under a clean search_path
SET search_path = public, target;
\getenv abs_srcdir PG_ABS_SRCDIR
\set scbf_same_sql :abs_srcdir '/sql/include/scbf_same.sql'
SET client_min_messages = warning;
\set ECHO none
\i :scbf_same_sql
\set ECHO all
RESET client_min_messages;
CREATE TABLE t (a int4, b text);
INSERT INTO t SELECT g % 100, 'v' || g FROM generate_series(1, 5000) g;
CREATE INDEX t_a ON t USING scbf (a) WITH (pages_per_segment = 8);
CREATE INDEX t_ab ON t USING scbf (a, b);

-- under the attacker's search_path: inserts, deletes, VACUUM, the
-- maintenance functions and every diagnostic, whose answers are kept for
-- the comparison below
SET search_path = hostile, target, pg_catalog, public;
INSERT INTO public.t SELECT g % 100, 'v' || g FROM generate_series(5001, 8000) g;
DELETE FROM public.t WHERE a OPERATOR(pg_catalog.=) 13;
VACUUM public.t;
SELECT target.scbf_clean_pending('public.t_ab') >= 0 AS folded;
SELECT target.scbf_verify('public.t_a', true), target.scbf_verify('public.t_ab', true);
CREATE TEMP TABLE answers AS
	SELECT 'info' AS f, target.scbf_index_info('public.t_a')::text AS r
	UNION ALL SELECT 'segments', s::text FROM target.scbf_segments('public.t_ab') s
	UNION ALL SELECT 'filters', s::text FROM target.scbf_filters('public.t_a') s
	UNION ALL SELECT 'pages', s::text FROM target.scbf_pages('public.t_a') s
	UNION ALL SELECT 'probe', s::text FROM target.scbf_probe('public.t_a', 7) s
	UNION ALL SELECT 'probe text', s::text FROM target.scbf_probe('public.t_ab', '7'::pg_catalog.text) s;

-- the same answers under a clean search_path
RESET search_path;
SELECT count(*) AS answers, count(*) FILTER (WHERE f = 'probe') AS probe_rows FROM pg_temp.answers;
CREATE TEMP TABLE clean_answers AS
	SELECT 'info' AS f, target.scbf_index_info('t_a')::text AS r
	UNION ALL SELECT 'segments', s::text FROM target.scbf_segments('t_ab') s
	UNION ALL SELECT 'filters', s::text FROM target.scbf_filters('t_a') s
	UNION ALL SELECT 'pages', s::text FROM target.scbf_pages('t_a') s
	UNION ALL SELECT 'probe', s::text FROM target.scbf_probe('t_a', 7) s
	UNION ALL SELECT 'probe text', s::text FROM target.scbf_probe('t_ab', '7'::text) s;
-- no row in one set that is not in the other, in either direction
(SELECT 'hostile only' AS side, f, r FROM pg_temp.answers
 EXCEPT ALL SELECT 'hostile only', f, r FROM pg_temp.clean_answers)
UNION ALL
(SELECT 'clean only', f, r FROM pg_temp.clean_answers
 EXCEPT ALL SELECT 'clean only', f, r FROM pg_temp.answers);

-- The SQL and PL/pgSQL functions (routing): their own search_path is
-- pg_catalog, the extension's schema and pg_temp, never the caller's, and
-- they call scbf's functions by their qualified names.  The attacker's
-- look-alike of scbf_probe in a schema of the caller's path is not called,
-- and the answers equal those under a clean path.
SET ROLE regress_scbf_attacker;
CREATE FUNCTION hostile.scbf_probe(regclass, int4, int4 DEFAULT 1,
	OUT verdict text, OUT ledger_matches int)
RETURNS SETOF record LANGUAGE sql AS $$SELECT 'hijacked', 1$$;
RESET ROLE;
SELECT p.proname, l.lanname, p.proconfig
FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'scbf'
JOIN pg_proc p ON d.classid = 'pg_proc'::regclass AND p.oid = d.objid
JOIN pg_language l ON l.oid = p.prolang
WHERE d.deptype = 'e' AND l.lanname <> 'c'
ORDER BY p.proname, p.oid;
SET search_path = hostile, target, pg_catalog, public;
SELECT target.scbf_may_contain('public.t_a', 7) AS has_7,
	target.scbf_may_contain('public.t_a', 13) AS has_13,
	target.scbf_may_contain('public.t_ab', '7'::pg_catalog.text) AS has_text_7,
	target.scbf_table_may_contain('public.t', 'a', '7') AS table_has_7,
	target.scbf_table_may_contain('public.t', 'a', '100') AS table_has_100;
RESET search_path;
SELECT target.scbf_may_contain('t_a', 7) AS has_7,
	target.scbf_may_contain('t_a', 13) AS has_13,
	target.scbf_may_contain('t_ab', '7'::text) AS has_text_7,
	target.scbf_table_may_contain('t', 'a', '7') AS table_has_7,
	target.scbf_table_may_contain('t', 'a', '100') AS table_has_100;

-- The extension stays in its schema: a move would leave the bodies above
-- naming the old one, where the attacker (who owns it) would plant
-- look-alikes of scbf's functions.
CREATE SCHEMA moved;
\set VERBOSITY terse
ALTER EXTENSION scbf SET SCHEMA moved;
\set VERBOSITY default
SELECT n.nspname AS extension_schema FROM pg_extension e
JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'scbf';

-- and the index, changed under the attacker's search_path, answers right
SET search_path = public, target;
SELECT scbf_same('SELECT * FROM t WHERE a = 7');
SELECT scbf_same($$SELECT * FROM t WHERE a = 8 AND b = 'v1008'$$);
SELECT scbf_empty('SELECT * FROM t WHERE a = 13');
RESET search_path;

\c :regress_db
DROP DATABASE regress_scbf_security;
DROP ROLE regress_scbf_attacker;
