--
-- scbf_forms: every query form on a multi-column index over mixed types:
-- =, IN and = ANY (duplicates, NULL elements, empty and NULL arrays), IS
-- NULL, IS NOT NULL, contradictions, ANDs over the columns, ORs, residual
-- conditions, generic-plan parameters (scalars, arrays, NULLs); through
-- DELETE / VACUUM / INSERT rounds and REINDEX.  A partial index used with
-- no index condition at all.
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

-- a multi-column index over mixed types, built empty and filled by inserts
-- (its filters grow chains), next to one-column indexes
CREATE TABLE fm (id int, a int, b text, c int8, d date, e numeric, f bool);
CREATE INDEX fm_abcdef ON fm USING scbf (a, b, c, d, e, f) WITH (pages_per_segment = 8);
CREATE INDEX fm_a ON fm USING scbf (a) WITH (pages_per_segment = 16);
CREATE FUNCTION fm_fill(lo int, hi int) RETURNS void LANGUAGE sql AS $$
	INSERT INTO fm SELECT g, g % 1000, 'b' || (g % 300),
		CASE WHEN g % 17 = 0 THEN NULL ELSE g % 50 END,
		date '2024-01-01' + g % 90,
		CASE WHEN g % 23 = 0 THEN NULL ELSE (g % 40) / 4.0 END,
		CASE WHEN g % 29 = 0 THEN NULL ELSE g % 2 = 0 END
	FROM generate_series(lo, hi) g
$$;
SELECT fm_fill(1, 30000);

-- every form, and ANDs of them over the columns; the index alone must
-- answer each (fm_a is disabled by making the checks name columns it lacks
-- or by the planner's choice: both are scbf).  Each finds rows in every
-- round: the keys are of rows that no DELETE below removes entirely.
CREATE FUNCTION fm_checks() RETURNS TABLE (query text, result text) LANGUAGE plpgsql AS $$
DECLARE
	qs text[] := ARRAY[
		-- one column
		'a = 7',
		'b = ''b42''',
		'c = 3',
		'd = ''2024-02-01''',
		'e = 2.75',
		'e = 2.750',
		'f = ANY(ARRAY[false])',
		-- IN / = ANY, with duplicates, NULLs, absent values, one element
		'a IN (1, 2, 3, 999, -5)',
		'a IN (7, 7, 7)',
		'a IN (7)',
		'a = ANY(ARRAY[11, NULL, 21])',
		'b = ANY(ARRAY[''b1'', ''b2'', ''nope'', NULL])',
		'c = ANY(ARRAY[1, 2]::int2[])',
		-- IS NULL and IS NOT NULL
		'c IS NULL',
		'c IS NOT NULL AND id < 200',
		'c IS NULL AND e IS NULL',
		'c IS NULL AND f IS NULL AND e IS NULL',
		-- ANDs over the columns of the multi-column index
		'a = 7 AND b = ''b7''',
		'a = 7 AND b = ''b7'' AND c = 7 AND d = ''2024-01-08'' AND e = 1.75 AND f = ANY(ARRAY[false])',
		'b = ''b42'' AND d = ''2024-02-12''',
		'c = 3 AND d = ''2024-02-23''',
		'a IN (1, 2, 3) AND c IS NULL',
		'a = ANY(ARRAY[11, 21, 31]) AND b = ANY(ARRAY[''b11'', ''b21''])',
		'c IS NULL AND d = ''2024-01-18''',
		'a = 999 AND c IS NOT NULL',
		'a = 6 AND a IN (5, 6)',
		'e IS NULL AND f = ANY(ARRAY[true]) AND a IN (23, 46, 69, 92)',
		'c = 3 AND c = 3::int2 AND c IN (3, 4)',
		-- the index for some clauses, the rest rechecked on the heap
		'a = 7 AND id > 15000',
		'a = 7 AND b LIKE ''b%''',
		'a IN (7, 13) AND c > 10',
		-- OR: a BitmapOr of index scans
		'a = 7 OR a = 8',
		'a = 7 OR b = ''b9''',
		'(a = 7 AND c IS NULL) OR (b = ''b1'' AND f = ANY(ARRAY[true]))'];
	s text;
BEGIN
	FOREACH s IN ARRAY qs LOOP
		query := s;
		result := scbf_same('SELECT * FROM fm WHERE ' || s);
		RETURN NEXT;
	END LOOP;
	-- generic plans: scalars, arrays, several parameters, NULL parameters
	query := 'a = $1 AND b = $2';
	result := scbf_same('SELECT * FROM fm WHERE a = $1 AND b = $2', 'int, text', '7, ''b7''');
	RETURN NEXT;
	query := 'a = ANY($1)';
	result := scbf_same('SELECT * FROM fm WHERE a = ANY($1)', 'int8[]', '''{1,2,NULL,999}''');
	RETURN NEXT;
	query := 'c = $1 AND d = $2 AND e = $3';
	result := scbf_same('SELECT * FROM fm WHERE c = $1 AND d = $2 AND e = $3', 'int2, date, numeric',
		'7, ''2024-01-08'', 1.75');
	RETURN NEXT;
	query := 'b = ANY($1) AND c IS NULL';
	result := scbf_same('SELECT * FROM fm WHERE b = ANY($1) AND c IS NULL', 'text[]', 'ARRAY[''b17'', ''b34'']');
	RETURN NEXT;
END $$;

SELECT * FROM fm_checks();

-- nothing can match: an absent key, NULL keys and arrays, empty arrays,
-- contradictions; the index must cope and find nothing
SELECT scbf_empty('SELECT * FROM fm WHERE a = -7') AS absent;
SELECT scbf_empty('SELECT * FROM fm WHERE a = 7 AND b = ''b8''') AS absent_pair;
SELECT scbf_empty('SELECT * FROM fm WHERE b = ''nope'' AND a = 1') AS absent_and_present;
SELECT scbf_empty('SELECT * FROM fm WHERE a = ANY(ARRAY[NULL, NULL]::int[])') AS null_array;
SELECT scbf_empty('SELECT * FROM fm WHERE a = ANY(''{}''::int[])') AS empty_array;
SELECT scbf_empty('SELECT * FROM fm WHERE a = ANY(NULL::int[])') AS array_null;
-- (PostgreSQL 17 and later see the contradiction when planning: no scan)
SELECT CASE WHEN current_setting('server_version_num')::int < 170000
	THEN scbf_empty('SELECT * FROM fm WHERE a = 5 AND a = 6')
	ELSE scbf_noindex('SELECT * FROM fm WHERE a = 5 AND a = 6') END AS contradiction;
SELECT scbf_empty('SELECT * FROM fm WHERE a = 5 AND a IN (6, 7)') AS contradiction_in;
SELECT scbf_empty('SELECT * FROM fm WHERE a = ANY($1)', 'int8[]', '''{NULL}''') AS param_null_array;
SELECT scbf_empty('SELECT * FROM fm WHERE a = $1', 'int', 'NULL') AS param_null;
-- (a = NULL is folded to false by the planner: no scan at all)
SELECT scbf_noindex('SELECT * FROM fm WHERE a = NULL') AS folded;

-- rounds of DELETE / VACUUM / INSERT reusing the freed space
DELETE FROM fm WHERE a % 5 = 0;
VACUUM fm;
SELECT * FROM fm_checks();
SELECT fm_fill(30001, 36000);
DELETE FROM fm WHERE id % 3 = 0;
VACUUM fm;
SELECT fm_fill(36001, 40000);
SELECT * FROM fm_checks();
REINDEX INDEX fm_abcdef;
SELECT * FROM fm_checks();

-- a partial index whose predicate the query implies is used without any
-- index condition: every entry of every segment is returned
CREATE TABLE fm_part (id int, a int, t text);
INSERT INTO fm_part SELECT g, g % 100, 't' || g FROM generate_series(1, 5000) g;
CREATE INDEX fm_part_t ON fm_part USING scbf (t) WHERE a < 10;
SELECT scbf_same('SELECT * FROM fm_part WHERE a < 10');
SELECT scbf_same('SELECT * FROM fm_part WHERE a < 10 AND t = ''t1005''');
-- (t1050 has a = 50: outside the index)
SELECT scbf_empty('SELECT * FROM fm_part WHERE a < 10 AND t = ''t1050''');
SELECT scbf_same('SELECT * FROM fm_part WHERE a < 5 AND t IN (''t1'', ''t2'', ''t3'')');
-- not implied: the index cannot be used
SELECT scbf_noindex('SELECT * FROM fm_part WHERE t = ''t1005''');

DROP TABLE fm, fm_part;
DROP FUNCTION fm_checks();
DROP FUNCTION fm_fill(int, int);
DROP FUNCTION scbf_same, scbf_empty, scbf_noindex, scbf_compare;
