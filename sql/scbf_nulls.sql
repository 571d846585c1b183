--
-- scbf_nulls: NULL is a key like any other.  All-NULL segments next to
-- segments without NULLs, IS NULL / IS NOT NULL alone and ANDed with
-- equalities on multi-column indexes, deletes of every NULL and their
-- return; a table of nothing but NULLs (291 tuples per page: the highest
-- line pointers a ledger TID holds); an index built empty then filled with
-- NULLs.
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

-- all-NULL segments next to segments without NULLs, small segments
CREATE TABLE nl (id int, a int, b text) WITH (fillfactor = 50);
CREATE INDEX nl_a ON nl USING scbf (a) WITH (pages_per_segment = 8);
CREATE INDEX nl_ab ON nl USING scbf (a, b) WITH (pages_per_segment = 8);
CREATE INDEX nl_ba ON nl USING scbf (b, a) WITH (pages_per_segment = 8);
INSERT INTO nl SELECT g, g, 'b' || g FROM generate_series(1, 3000) g;
INSERT INTO nl SELECT g, NULL, NULL FROM generate_series(3001, 6000) g;
INSERT INTO nl SELECT g, g, NULL FROM generate_series(6001, 9000) g;
INSERT INTO nl SELECT g, NULL, 'b' || g FROM generate_series(9001, 12000) g;

-- (with_both_null: whether rows with both columns NULL are there to find)
CREATE FUNCTION nl_checks(with_both_null bool DEFAULT true)
RETURNS TABLE (query text, result text) LANGUAGE plpgsql AS $$
DECLARE
	qs text[] := ARRAY[
		'a IS NULL',
		'b IS NULL',
		CASE WHEN with_both_null THEN 'a IS NULL AND b IS NULL' END,
		'a IS NULL AND b IS NOT NULL',
		'a IS NOT NULL AND b IS NULL',
		'a IS NOT NULL AND b IS NOT NULL',
		'a = 5',
		'a = 5 AND b IS NOT NULL',
		'a = 6005 AND b IS NULL',
		'a IS NULL AND b = ''b9005''',
		'a = 5 AND b = ''b5''',
		'a = ANY(ARRAY[5, 6005, NULL]) AND b IS NULL',
		'b = ANY(ARRAY[''b5'', ''b9005'']) AND a IS NULL'];
	s text;
BEGIN
	FOREACH s IN ARRAY array_remove(qs, NULL) LOOP
		query := s;
		result := scbf_same('SELECT * FROM nl WHERE ' || s);
		RETURN NEXT;
	END LOOP;
END $$;

SELECT * FROM nl_checks();
-- a key does not match a NULL, nor IS NULL a key
SELECT scbf_empty('SELECT * FROM nl WHERE a = 5 AND b IS NULL') AS key_and_null,
	scbf_empty('SELECT * FROM nl WHERE a IS NULL AND b = ''b5''') AS null_and_key;
-- the all-NULL segments have entries (NULL is a key like any other)
SELECT count(*) FILTER (WHERE s.nulls[1] = s.entries) AS all_null_segments,
	   count(*) FILTER (WHERE s.nulls[1] = 0) AS no_null_segments
FROM scbf_segments('nl_a') s;

-- delete every NULL of a, vacuum, insert NULLs again into the freed space
DELETE FROM nl WHERE a IS NULL AND b IS NULL;
VACUUM nl;
SELECT * FROM nl_checks(with_both_null => false);
INSERT INTO nl SELECT g, NULL, NULL FROM generate_series(12001, 13500) g;
DELETE FROM nl WHERE id % 2 = 0;
VACUUM nl;
SELECT * FROM nl_checks();
REINDEX TABLE nl;
SELECT * FROM nl_checks();

-- a table of nothing but NULLs: 291 tuples per heap page, the highest
-- line pointer numbers a ledger TID can carry
CREATE TABLE nl_only (a int, b int);
INSERT INTO nl_only SELECT NULL, NULL FROM generate_series(1, 20000);
SELECT max((ctid::text::point)[1]) AS max_offset FROM nl_only;
CREATE INDEX nl_only_a ON nl_only USING scbf (a);
CREATE INDEX nl_only_ab ON nl_only USING scbf (a, b) WITH (pages_per_segment = 8);
SELECT scbf_same('SELECT * FROM nl_only WHERE a IS NULL');
SELECT scbf_same('SELECT * FROM nl_only WHERE a IS NULL AND b IS NULL');
SELECT scbf_empty('SELECT * FROM nl_only WHERE a = 1');
SELECT scbf_empty('SELECT * FROM nl_only WHERE a IS NOT NULL');
UPDATE nl_only SET b = 7 WHERE (ctid::text::point)[1] IN (1, 145, 291);
SELECT scbf_same('SELECT * FROM nl_only WHERE b = 7 AND a IS NULL');
DELETE FROM nl_only WHERE (ctid::text::point)[1] > 200;
VACUUM nl_only;
INSERT INTO nl_only SELECT NULL, g FROM generate_series(1, 3000) g;
SELECT scbf_same('SELECT * FROM nl_only WHERE a IS NULL');
SELECT scbf_same('SELECT * FROM nl_only WHERE a IS NULL AND b = 2999');
SELECT scbf_same('SELECT * FROM nl_only WHERE b = 7 AND a IS NULL');

-- an index built empty, filled with NULLs only
CREATE TABLE nl_late (a text);
CREATE INDEX nl_late_a ON nl_late USING scbf (a) WITH (pages_per_segment = 8);
INSERT INTO nl_late SELECT NULL FROM generate_series(1, 5000);
SELECT scbf_same('SELECT * FROM nl_late WHERE a IS NULL');
INSERT INTO nl_late VALUES ('x');
SELECT scbf_same('SELECT * FROM nl_late WHERE a = ''x''');
SELECT scbf_same('SELECT * FROM nl_late WHERE a IS NOT NULL');

DROP TABLE nl, nl_only, nl_late;
DROP FUNCTION nl_checks(bool);
DROP FUNCTION scbf_same, scbf_empty, scbf_noindex, scbf_compare;
