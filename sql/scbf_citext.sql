--
-- scbf_citext: citext columns are indexed with citext's own equality.  The
-- operator class comes from the extension scbf_citext, which scbf's event
-- triggers install once scbf and citext are both there, whichever came
-- first; an index whose operator class does not have the equality of its
-- column's type (text_ops on a citext column) is refused, with a hint.
-- Another extension's type (hstore) takes a class made by hand.
-- Every answer goes through scbf_same(), which compares it with a
-- sequential scan and fails loudly on any difference, on a plan without
-- the index, on no rows.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS scbf;
RESET client_min_messages;
\getenv abs_srcdir PG_ABS_SRCDIR
\set scbf_same_sql :abs_srcdir '/sql/include/scbf_same.sql'
\set ECHO none
\i :scbf_same_sql
\set ECHO all

-- citext installed after scbf: the bridge comes with it
SELECT count(*) AS bridges FROM pg_extension WHERE extname = 'scbf_citext';
CREATE EXTENSION citext;
SELECT e.extname, e.extnamespace = s.extnamespace AS in_scbf_schema,
	(SELECT array_agg(r.extname ORDER BY r.extname) FROM pg_depend d
	 JOIN pg_extension r ON r.oid = d.refobjid
	 WHERE d.classid = 'pg_extension'::regclass AND d.objid = e.oid
	   AND d.refclassid = 'pg_extension'::regclass) AS requires
FROM pg_extension e, pg_extension s
WHERE e.extname = 'scbf_citext' AND s.extname = 'scbf';

-- the class: citext's "=" and citext's hash function, as citext's hash
-- operator class has them; amvalidate accepts it
SELECT c.opcname, c.opcintype::regtype, c.opcdefault, amvalidate(c.oid),
	o.amopopr::regoperator, p.amproc::regprocedure
FROM pg_opclass c
JOIN pg_amop o ON o.amopfamily = c.opcfamily
JOIN pg_amproc p ON p.amprocfamily = c.opcfamily
WHERE c.opcmethod = (SELECT oid FROM pg_am WHERE amname = 'scbf')
  AND c.opcintype = 'citext'::regtype;

CREATE TABLE ci (id int, email citext, name citext, note text);
INSERT INTO ci
SELECT g, CASE WHEN g % 13 <> 0 THEN
		(ARRAY['User', 'USER', 'user'])[g % 3 + 1] || g % 400 || '@Example.COM' END,
	(ARRAY['Ann', 'ANN', 'ann', 'Bob', 'BOB'])[g % 5 + 1] || g % 50,
	'n' || g % 10
FROM generate_series(1, 6000) g;
CREATE INDEX ci_email ON ci USING scbf (email) WITH (pages_per_segment = 8);
CREATE INDEX ci_name_note ON ci USING scbf (name, note);
SELECT i.indexrelid::regclass, o.opcname
FROM pg_index i, unnest(i.indclass::oid[]) WITH ORDINALITY u(opc, n)
JOIN pg_opclass o ON o.oid = u.opc
WHERE i.indrelid = 'ci'::regclass ORDER BY 1, u.n;
ANALYZE ci;

-- equality ignores case, as citext's "=" does: every spelling finds the
-- same rows, which are rows of every spelling
CREATE FUNCTION ci_check() RETURNS TABLE (eq_lower text, eq_upper text,
	eq_mixed text, in_list text, any_array text, generic text, two_columns text,
	is_null text, spellings bigint)
LANGUAGE plpgsql AS $$
BEGIN
	eq_lower := scbf_same('SELECT * FROM ci WHERE email = ''user7@example.com''');
	eq_upper := scbf_same('SELECT * FROM ci WHERE email = ''USER7@EXAMPLE.COM''');
	eq_mixed := scbf_same('SELECT * FROM ci WHERE email = ''uSeR7@eXaMpLe.cOm''');
	in_list := scbf_same('SELECT * FROM ci WHERE email IN (''USER7@example.com'', ''user8@EXAMPLE.com'', ''nobody@example.com'')');
	any_array := scbf_same('SELECT * FROM ci WHERE email = ANY(ARRAY[''User12@Example.Com'', NULL]::citext[])');
	generic := scbf_same('SELECT * FROM ci WHERE email = ANY($1)', 'citext[]', 'ARRAY[''user10@example.com'', ''USER11@EXAMPLE.COM'']::citext[]');
	two_columns := scbf_same('SELECT * FROM ci WHERE name = ''ANN7'' AND note = ''n7''');
	is_null := scbf_same('SELECT * FROM ci WHERE email IS NULL');
	SELECT count(DISTINCT email::text) INTO spellings FROM ci WHERE email = 'user7@example.com';
	RETURN NEXT;
END $$;
SELECT * FROM ci_check();
SELECT scbf_empty('SELECT * FROM ci WHERE email = ''user7@example.org''') AS absent;

-- after DELETE / VACUUM / INSERT, and rebuilt
DELETE FROM ci WHERE id % 4 = 1;
CALL scbf_wait_snapshots();
VACUUM ci;
INSERT INTO ci SELECT g, 'NEW' || g % 400 || '@example.com', 'Ann' || g % 50, 'n' || g % 10
FROM generate_series(6001, 7000) g;
SELECT * FROM ci_check();
SELECT scbf_same('SELECT * FROM ci WHERE email = ''new7@EXAMPLE.com''') AS new_rows;
REINDEX INDEX ci_email;
SELECT * FROM ci_check();

-- the verifier and the diagnostics: a probe finds the rows of every
-- spelling, whatever the spelling probed
SELECT scbf_verify('ci_email', heapallindexed => true), scbf_verify('ci_name_note', true);
SELECT (SELECT sum(ledger_matches) FROM scbf_probe('ci_email', 'USER7@EXAMPLE.COM'::citext)) AS typed,
	(SELECT sum(ledger_matches) FROM scbf_probe('ci_email', 'user7@example.com')) AS as_text,
	(SELECT count(*) FROM ci WHERE email = 'User7@Example.com') AS rows;
SELECT scbf_may_contain('ci_email', 'USER7@example.COM'::citext) AS present,
	scbf_table_may_contain('ci', 'email', 'uSeR7@ExAmPlE.cOm') AS by_column;

-- text_ops on a citext column would hash case-sensitively and no query on
-- citext's "=" could use it: refused, with a hint; the column cast to text
-- is indexed as text, and text's "=" uses it
\set VERBOSITY default
CREATE INDEX ci_email_text ON ci USING scbf (email text_ops);
CREATE INDEX ci_email_cast ON ci USING scbf ((email::text));
SELECT scbf_same('SELECT * FROM ci WHERE email::text = ''User7@Example.COM''') AS cast_eq,
	scbf_empty('SELECT * FROM ci WHERE email::text = ''USER7@EXAMPLE.COM''') AS cast_case_differs;
DROP INDEX ci_email_cast;

-- without the bridge, CREATE INDEX and ALTER TABLE install it again before
-- they choose an operator class; a column changed to citext gets it
DROP INDEX ci_email, ci_name_note;
DROP EXTENSION scbf_citext;
CREATE TABLE ci2 (id int, email text);
INSERT INTO ci2 SELECT g, 'User' || g % 100 FROM generate_series(1, 2000) g;
CREATE INDEX ci2_email ON ci2 USING scbf (email);
SELECT count(*) AS bridges FROM pg_extension WHERE extname = 'scbf_citext';
DROP EXTENSION scbf_citext;
ALTER TABLE ci2 ALTER COLUMN email TYPE citext;
SELECT o.opcname FROM pg_index i JOIN pg_opclass o ON o.oid = i.indclass[0]
WHERE i.indexrelid = 'ci2_email'::regclass;
SELECT scbf_same('SELECT * FROM ci2 WHERE email = ''USER42''') AS altered;
-- the same through CREATE INDEX CONCURRENTLY
DROP INDEX ci2_email;
DROP EXTENSION scbf_citext;
CREATE INDEX CONCURRENTLY ci2_email ON ci2 USING scbf (email);
SELECT scbf_same('SELECT * FROM ci2 WHERE email = ''user42''') AS concurrently;
-- and when the table's owner, who runs CREATE INDEX, is no superuser (the
-- event triggers' function runs as scbf's installer, who may create it)
DROP INDEX ci2_email;
DROP EXTENSION scbf_citext;
CREATE ROLE regress_scbf_citext_owner;
GRANT CREATE ON SCHEMA public TO regress_scbf_citext_owner;
ALTER TABLE ci2 OWNER TO regress_scbf_citext_owner;
SET ROLE regress_scbf_citext_owner;
CREATE INDEX ci2_email ON ci2 USING scbf (email);
RESET ROLE;
SELECT o.opcname, pg_get_userbyid(e.extowner) = current_user AS owned_by_installer
FROM pg_index i JOIN pg_opclass o ON o.oid = i.indclass[0], pg_extension e
WHERE i.indexrelid = 'ci2_email'::regclass AND e.extname = 'scbf_citext';
SELECT scbf_same('SELECT * FROM ci2 WHERE email = ''user43''') AS not_superuser;

-- dropping citext: the bridge requires it (and the indexes its class);
-- with CASCADE they go, scbf stays
DROP EXTENSION citext;
DROP TABLE ci2;
REVOKE CREATE ON SCHEMA public FROM regress_scbf_citext_owner;
DROP ROLE regress_scbf_citext_owner;
DROP FUNCTION ci_check();
DROP TABLE ci;
DROP EXTENSION citext CASCADE;
SELECT extname FROM pg_extension WHERE extname IN ('scbf', 'scbf_citext', 'citext');

-- another extension's type with a default hash operator class: the class
-- the README shows, made by hand with the type's own "=" and hash function
CREATE EXTENSION hstore;
CREATE OPERATOR CLASS hstore_ops DEFAULT FOR TYPE hstore USING scbf AS
    OPERATOR 1 = (hstore, hstore),
    FUNCTION 1 hstore_hash(hstore);
SELECT amvalidate(oid) FROM pg_opclass
WHERE opcname = 'hstore_ops' AND opcmethod = (SELECT oid FROM pg_am WHERE amname = 'scbf');
CREATE TABLE hs (id int, h hstore);
INSERT INTO hs SELECT g, hstore('k', (g % 100)::text) || hstore('j', (g % 7)::text)
FROM generate_series(1, 3000) g;
CREATE INDEX hs_h ON hs USING scbf (h);
SELECT scbf_same('SELECT * FROM hs WHERE h = ''j=>0, k=>42''') AS hstore_eq,
	scbf_empty('SELECT * FROM hs WHERE h = ''j=>7, k=>42''') AS hstore_absent;
SELECT scbf_verify('hs_h', heapallindexed => true);
DROP TABLE hs;
DROP EXTENSION hstore CASCADE;

-- citext installed before scbf (a database of its own): the first CREATE
-- INDEX installs the bridge, before it chooses the operator class
SELECT current_database() AS regress_db \gset
CREATE DATABASE regression_scbf_citext;
\c regression_scbf_citext
SET client_min_messages = warning;
CREATE EXTENSION citext;
CREATE EXTENSION scbf;
RESET client_min_messages;
SELECT count(*) AS bridges FROM pg_extension WHERE extname = 'scbf_citext';
CREATE TABLE ci3 (id int, email citext);
INSERT INTO ci3 SELECT g, 'User' || g % 100 || '@Example.com' FROM generate_series(1, 3000) g;
CREATE INDEX ci3_email ON ci3 USING scbf (email);
SELECT count(*) AS bridges FROM pg_extension WHERE extname = 'scbf_citext';
SELECT o.opcname FROM pg_index i JOIN pg_opclass o ON o.oid = i.indclass[0]
WHERE i.indexrelid = 'ci3_email'::regclass;
\set ECHO none
\i :scbf_same_sql
\set ECHO all
SELECT scbf_same('SELECT * FROM ci3 WHERE email IN (''USER1@EXAMPLE.COM'', ''user2@example.com'')') AS in_list;
-- DROP EXTENSION scbf CASCADE takes the bridge and the index, not citext
DROP EXTENSION scbf CASCADE;
SELECT extname FROM pg_extension WHERE extname IN ('scbf', 'scbf_citext', 'citext');
SELECT count(*) AS indexes FROM pg_index WHERE indrelid = 'ci3'::regclass;
\c :regress_db
DROP DATABASE regression_scbf_citext;
