--
-- scbf_basic: build, insert, equality scans, DELETE/VACUUM/INSERT rounds.
-- Every index answer is compared with a sequential scan of the same query.
--
CREATE EXTENSION scbf;

-- index results must equal seqscan results for every query
CREATE FUNCTION scbf_check(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	idx bigint;
	seq bigint;
	plan text;
BEGIN
	SET LOCAL enable_seqscan = off;
	SET LOCAL enable_indexscan = off;
	SET LOCAL enable_bitmapscan = on;
	EXECUTE 'EXPLAIN (COSTS OFF) ' || q INTO plan;
	EXECUTE 'SELECT coalesce(sum(hashtext(sub::text)), 0) + count(*) FROM (' || q || ') sub' INTO idx;
	SET LOCAL enable_seqscan = on;
	SET LOCAL enable_bitmapscan = off;
	EXECUTE 'SELECT coalesce(sum(hashtext(sub::text)), 0) + count(*) FROM (' || q || ') sub' INTO seq;
	IF idx IS DISTINCT FROM seq THEN
		RAISE EXCEPTION 'index and seqscan disagree for %: % vs %', q, idx, seq;
	END IF;
	RETURN CASE WHEN plan LIKE 'Bitmap Heap Scan%' THEN 'index' ELSE plan END;
END $$;

CREATE TABLE tst (id int, i int, t text, n int8);
INSERT INTO tst SELECT g, g % 500, 'v' || (g % 1000), g / 7 FROM generate_series(1, 50000) g;
CREATE INDEX tst_i ON tst USING scbf (i);
CREATE INDEX tst_t ON tst USING scbf (t);
CREATE INDEX tst_multi ON tst USING scbf (i, t, n);

SELECT scbf_check('SELECT * FROM tst WHERE i = 7');
SELECT scbf_check('SELECT * FROM tst WHERE i = 700');
SELECT scbf_check('SELECT * FROM tst WHERE t = ''v42''');
SELECT scbf_check('SELECT * FROM tst WHERE t = ''absent''');
SELECT scbf_check('SELECT * FROM tst WHERE i IN (1, 2, 3, 999)');
SELECT scbf_check('SELECT * FROM tst WHERE i = ANY(ARRAY[5, NULL, 6])');
SELECT scbf_check('SELECT * FROM tst WHERE i = 3 AND t = ''v3''');
SELECT scbf_check('SELECT * FROM tst WHERE n = 1000');
SELECT scbf_check('SELECT * FROM tst WHERE n = 1000::int2');

-- DELETE / VACUUM / INSERT rounds reusing the freed space
DELETE FROM tst WHERE i BETWEEN 0 AND 99;
VACUUM tst;
SELECT scbf_check('SELECT * FROM tst WHERE i = 7');
SELECT scbf_check('SELECT * FROM tst WHERE i = 150');
INSERT INTO tst SELECT g, 100000 + g % 50, 'w' || g, g FROM generate_series(1, 10000) g;
SELECT scbf_check('SELECT * FROM tst WHERE i = 100007');
SELECT scbf_check('SELECT * FROM tst WHERE t = ''w77''');
SELECT scbf_check('SELECT * FROM tst WHERE i = 3 AND t = ''v3''');
DELETE FROM tst WHERE id % 3 = 0;
VACUUM tst;
SELECT scbf_check('SELECT * FROM tst WHERE i = 100007');
SELECT scbf_check('SELECT * FROM tst WHERE i IN (101, 102, 100001)');
SELECT scbf_check('SELECT * FROM tst WHERE n = 1000');

DROP TABLE tst;
