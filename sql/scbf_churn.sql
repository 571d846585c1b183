--
-- scbf_churn: rounds of DELETE / VACUUM / INSERT / UPDATE (HOT and not)
-- with the new rows reusing the freed space, on 8-page segments (more
-- segments as inserts extend the table); chains of filters grown by
-- inserts and merged by VACUUM; a value repeated in half the rows deleted
-- and vacuumed away.  scbf_verify() checks each index after each round.
-- (Format 1's segment directory and saturated counters, which this test
-- also covered, went with format 1; format 2's merges and reuse of
-- columns: scbf_storage.)
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

-- few rows per page (fillfactor 10, wide rows) and 8-page segments: many
-- segments, most of them added while inserts extend the table
CREATE TABLE ch (id int, a int, b text, pad text) WITH (fillfactor = 10);
CREATE INDEX ch_a ON ch USING scbf (a) WITH (pages_per_segment = 8);
CREATE INDEX ch_ab ON ch USING scbf (a, b) WITH (pages_per_segment = 8, false_positive_rate = 0.05);
INSERT INTO ch SELECT g, g % 700, 'b' || (hashint4(g) % 300), repeat('x', 200) FROM generate_series(1, 4000) g;
-- a second index built on the filled table
CREATE INDEX ch_b ON ch USING scbf (b) WITH (pages_per_segment = 8);
INSERT INTO ch SELECT g, g % 700, 'b' || (hashint4(g) % 300), repeat('x', 200) FROM generate_series(4001, 12000) g;
SELECT scbf_clean_pending('ch_b') >= 0 AS folded;
SELECT segments = (pg_relation_size('ch') / 8192 + 7) / 8 AS every_segment_indexed,
	segments > 300 AS many_segments
FROM scbf_index_info('ch_b');

-- the keys: each held by rows that survive every round below (the pair
-- a = 3, b = 'b166' by few: one of the first 12000 rows, one of the last)
CREATE FUNCTION ch_checks() RETURNS TABLE (query text, result text) LANGUAGE plpgsql AS $$
DECLARE
	qs text[] := ARRAY[
		'a = 7',
		'a = 699',
		'a IN (1, 350, 699, -1)',
		'b = ''b42''',
		'b = ''b-42''',
		'a = 3 AND b = ''b166''',
		'a = ANY(ARRAY[1, 2, 3]) AND b = ANY(ARRAY[''b1'', ''b166'', ''b-3''])',
		'id IN (11999, 25999) AND a = 99'];
	s text;
BEGIN
	FOREACH s IN ARRAY qs LOOP
		query := s;
		result := scbf_same('SELECT id, a, b FROM ch WHERE ' || s);
		RETURN NEXT;
	END LOOP;
END $$;
SELECT * FROM ch_checks();
-- a value no row holds
SELECT scbf_empty('SELECT id, a, b FROM ch WHERE a = -1') AS absent;

-- round 1: delete a third, vacuum, insert into the freed space
DELETE FROM ch WHERE id % 3 = 0;
CALL scbf_wait_snapshots();
VACUUM ch;
INSERT INTO ch SELECT g, g % 700, 'b' || (hashint4(g) % 300), repeat('y', 200) FROM generate_series(12001, 15000) g;
SELECT count(*) > 1000 AS reused_space FROM ch WHERE id > 12000 AND (ctid::text::point)[0] < 3000;
SELECT * FROM ch_checks();
SELECT scbf_verify('ch_a', true), scbf_verify('ch_ab', true), scbf_verify('ch_b', true);

-- round 2: non-HOT updates of the key (a new entry; the old one goes at
-- VACUUM), HOT updates of the pad (no new entry), deletes of whole segments
UPDATE ch SET a = a + 1000 WHERE id % 10 = 1;
UPDATE ch SET pad = repeat('z', 190) WHERE id % 10 = 2;
DELETE FROM ch WHERE id BETWEEN 2000 AND 3500;
SELECT * FROM ch_checks();
SELECT scbf_same('SELECT id, a FROM ch WHERE a = 1001');
CALL scbf_wait_snapshots();
VACUUM ch;
SELECT * FROM ch_checks();
SELECT scbf_same('SELECT id, a FROM ch WHERE a = 1001');
INSERT INTO ch SELECT g, g % 700, 'b' || (hashint4(g) % 300), repeat('w', 200) FROM generate_series(15001, 17000) g;
SELECT * FROM ch_checks();
SELECT scbf_verify('ch_a', true), scbf_verify('ch_ab', true), scbf_verify('ch_b', true);

-- round 3: delete everything, vacuum, fill again
DELETE FROM ch;
CALL scbf_wait_snapshots();
VACUUM ch;
SELECT scbf_empty('SELECT id, a, b FROM ch WHERE a = 7') AS all_deleted,
	scbf_empty('SELECT id, a, b FROM ch WHERE a = 3 AND b = ''b166''') AS all_deleted_pair;
SELECT entries_live FROM scbf_index_info('ch_a');
INSERT INTO ch SELECT g, g % 700, 'b' || (hashint4(g) % 300), repeat('v', 200) FROM generate_series(20001, 26000) g;
SELECT * FROM ch_checks();
SELECT scbf_verify('ch_a', true), scbf_verify('ch_ab', true), scbf_verify('ch_b', true);

-- an index built empty on a table filled afterwards grows chains of
-- filters in its segments; VACUUM merges them
CREATE TABLE chain (id int, k text);
CREATE INDEX chain_k ON chain USING scbf (k) WITH (pages_per_segment = 128, false_positive_rate = 0.001);
INSERT INTO chain SELECT g, md5(g::text) FROM generate_series(1, 60000) g;
SELECT max_chain > 1 AS chained FROM scbf_index_info('chain_k');
SELECT scbf_same('SELECT * FROM chain WHERE k = md5(''4242'')');
SELECT scbf_same('SELECT * FROM chain WHERE k IN (md5(''1''), md5(''59999''), md5(''-1''))');
DELETE FROM chain WHERE id % 2 = 0;
CALL scbf_wait_snapshots();
VACUUM chain;
SELECT max_chain AS chain_after_vacuum FROM scbf_index_info('chain_k');
SELECT scbf_same('SELECT * FROM chain WHERE k = md5(''4243'')');
-- (4242 was deleted)
SELECT scbf_empty('SELECT * FROM chain WHERE k = md5(''4242'')');
INSERT INTO chain SELECT g, md5(g::text) FROM generate_series(60001, 90000) g;
SELECT scbf_same('SELECT * FROM chain WHERE k IN (md5(''1''), md5(''60001''), md5(''89999''), md5(''2''))');
CALL scbf_wait_snapshots();
VACUUM chain;
SELECT scbf_same('SELECT * FROM chain WHERE k IN (md5(''1''), md5(''60001''), md5(''89999''), md5(''2''))');
SELECT scbf_verify('chain_k', true);

-- a value repeated in half the rows: one long posting list per filter;
-- deleting its rows in two steps, each followed by VACUUM, leaves the
-- other values found and the value gone (VACUUM recounts the filters from
-- their ledgers and clears the bits no survivor needs)
CREATE TABLE sat (id int, a int);
CREATE INDEX sat_a ON sat USING scbf (a);
INSERT INTO sat SELECT g, CASE WHEN g % 2 = 0 THEN 1 ELSE g END FROM generate_series(1, 6000) g;
SELECT scbf_same('SELECT * FROM sat WHERE a = 1');
DELETE FROM sat WHERE a = 1 AND id < 5000;
SELECT scbf_same('SELECT * FROM sat WHERE a = 1');
CALL scbf_wait_snapshots();
VACUUM sat;
SELECT scbf_same('SELECT * FROM sat WHERE a = 1');
SELECT scbf_same('SELECT * FROM sat WHERE a = 3');
DELETE FROM sat WHERE a = 1;
CALL scbf_wait_snapshots();
VACUUM sat;
SELECT scbf_empty('SELECT * FROM sat WHERE a = 1');
INSERT INTO sat VALUES (-1, 1);
SELECT scbf_same('SELECT * FROM sat WHERE a = 1');
SELECT scbf_verify('sat_a', true);

DROP TABLE ch, chain, sat;
DROP FUNCTION ch_checks();
DROP FUNCTION scbf_same, scbf_empty, scbf_noindex, scbf_compare;
