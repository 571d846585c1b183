--
-- scbf_collision: values that share their 32-bit hash.  An index of
-- 32-bit hashes (hash_bits = 32, the default) keys a value by its
-- opclass's hash, so two strings with one hashtext are one key to it: a
-- probe of either finds the rows of both, and the recheck keeps only the
-- equal ones.  With hash_bits = 40 the index keys them by 40 bits of the
-- extended hash and tells them apart.  Never a missed row, never a wrong
-- one, at either width, wherever the rows are (the pending area, the
-- filters after a fold and after VACUUM), in IN lists and in a two-column
-- index; what a shared key costs shows in the plan: the absent value's
-- probe reads its partner's heap page (src/README, "The hash floor").
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS scbf;
RESET client_min_messages;

\getenv abs_srcdir PG_ABS_SRCDIR
\set scbf_same_sql :abs_srcdir '/sql/include/scbf_same.sql'
\set ECHO none
\i :scbf_same_sql
\set ECHO all

-- pairs of md5 strings that share their hashtext: about N^2 / 2^33 of N
-- strings, so some ten of 300,000
CREATE TABLE coll_pairs AS
SELECT min(s) AS present, max(s) AS absent
FROM (SELECT md5(g::text) AS s FROM generate_series(1, 300000) g) strings
GROUP BY hashtext(s) HAVING count(*) = 2;
SELECT count(*) AS pairs,
	bool_and(present <> absent AND hashtext(present) = hashtext(absent)) AS one_hash
FROM coll_pairs;

-- at each width, a table that holds one string of each pair among others,
-- and a two-column index where the pair's strings are the second column
CREATE TABLE coll32 (id int, s text);
CREATE INDEX coll32_s ON coll32 USING scbf (s) WITH (pages_per_segment = 8);
CREATE TABLE coll40 (id int, s text);
CREATE INDEX coll40_s ON coll40 USING scbf (s)
	WITH (pages_per_segment = 8, hash_bits = 40);
CREATE TABLE coll2_32 (tag text, s text);
CREATE INDEX coll2_32_ts ON coll2_32 USING scbf (tag, s) WITH (pages_per_segment = 8);
CREATE TABLE coll2_40 (tag text, s text);
CREATE INDEX coll2_40_ts ON coll2_40 USING scbf (tag, s)
	WITH (pages_per_segment = 8, hash_bits = 40);
INSERT INTO coll32 SELECT g, md5('other ' || g) FROM generate_series(1, 20000) g;
INSERT INTO coll40 SELECT * FROM coll32;
INSERT INTO coll2_32 SELECT 'other', md5('other ' || g) FROM generate_series(1, 5000) g;
INSERT INTO coll2_40 SELECT * FROM coll2_32;
INSERT INTO coll32 SELECT -row_number() OVER (ORDER BY present), present FROM coll_pairs;
INSERT INTO coll40 SELECT -row_number() OVER (ORDER BY present), present FROM coll_pairs;
INSERT INTO coll2_32 SELECT 'pair', present FROM coll_pairs;
INSERT INTO coll2_40 SELECT 'pair', present FROM coll_pairs;

-- every string of every pair, alone and together, through the indexes of
-- one width
CREATE FUNCTION coll_checks(bits int) RETURNS TABLE (kind text, result text)
LANGUAGE plpgsql AS $$
DECLARE
	p record;
	t text := 'coll' || bits;
	t2 text := 'coll2_' || bits;
BEGIN
	FOR p IN SELECT present, absent FROM coll_pairs ORDER BY present LOOP
		kind := 'present';
		result := scbf_same(format('SELECT * FROM %I WHERE s = %L', t, p.present));
		RETURN NEXT;
		kind := 'absent, same hashtext';
		result := scbf_empty(format('SELECT * FROM %I WHERE s = %L', t, p.absent));
		RETURN NEXT;
		kind := 'both in an IN list';
		result := scbf_same(format('SELECT * FROM %I WHERE s IN (%L, %L)',
								   t, p.absent, p.present));
		RETURN NEXT;
		kind := 'absent, as a parameter';
		result := scbf_empty(format('SELECT * FROM %I WHERE s = $1', t), 'text',
							 quote_literal(p.absent));
		RETURN NEXT;
		kind := 'two columns, present';
		result := scbf_same(format('SELECT * FROM %I WHERE tag = %L AND s = %L',
								   t2, 'pair', p.present));
		RETURN NEXT;
		kind := 'two columns, absent';
		result := scbf_empty(format('SELECT * FROM %I WHERE tag = %L AND s = %L',
									t2, 'pair', p.absent));
		RETURN NEXT;
	END LOOP;
END $$;

-- the strings of the pairs are in the pending area (a small INSERT's batch)
SELECT entries_pending > 0 AS in_pending32 FROM scbf_index_info('coll32_s');
SELECT entries_pending > 0 AS in_pending40 FROM scbf_index_info('coll40_s');
SELECT bits, kind, result, count(*)
FROM (VALUES (32), (40)) b(bits), coll_checks(bits) GROUP BY 1, 2, 3 ORDER BY 1, 2, 3;

-- folded into the filters, then after a VACUUM that deleted rows around them
SELECT scbf_clean_pending(i) > 0 AS folded
FROM unnest('{coll32_s,coll40_s,coll2_32_ts,coll2_40_ts}'::regclass[]) i;
SELECT entries_pending AS pending_after_fold FROM scbf_index_info('coll40_s');
SELECT bits, kind, result, count(*)
FROM (VALUES (32), (40)) b(bits), coll_checks(bits) GROUP BY 1, 2, 3 ORDER BY 1, 2, 3;
DELETE FROM coll32 WHERE id > 0 AND id % 3 = 0;
DELETE FROM coll40 WHERE id > 0 AND id % 3 = 0;
DELETE FROM coll2_32 WHERE tag = 'other' AND s < '4';
DELETE FROM coll2_40 WHERE tag = 'other' AND s < '4';
CALL scbf_wait_snapshots();
VACUUM coll32, coll40, coll2_32, coll2_40;
SELECT bits, kind, result, count(*)
FROM (VALUES (32), (40)) b(bits), coll_checks(bits) GROUP BY 1, 2, 3 ORDER BY 1, 2, 3;
SELECT i AS index, scbf_verify(i, true) AS verify
FROM unnest('{coll32_s,coll40_s,coll2_32_ts,coll2_40_ts}'::regclass[]) i;

-- the cost at 32 bits: the absent string's probe finds its partner's row,
-- whose heap page the recheck reads and drops; at 40 bits it finds no row,
-- as a string of no pair finds none (from EXPLAIN ANALYZE's JSON, the same
-- on every major)
CREATE FUNCTION heap_reads(q text) RETURNS TABLE (index text, heap_blocks int,
	rows_removed int) LANGUAGE plpgsql AS $$
DECLARE
	j json;
BEGIN
	SET LOCAL enable_seqscan = off;
	EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, FORMAT JSON) ' || q
		INTO j;
	index := j->0->'Plan'->'Plans'->0->>'Index Name';
	heap_blocks := (j->0->'Plan'->>'Exact Heap Blocks')::numeric +
		(j->0->'Plan'->>'Lossy Heap Blocks')::numeric;
	rows_removed := (j->0->'Plan'->>'Rows Removed by Index Recheck')::numeric;
	RETURN NEXT;
END $$;
SELECT absent AS collider FROM coll_pairs ORDER BY present LIMIT 1 \gset
SELECT * FROM heap_reads(format('SELECT * FROM coll32 WHERE s = %L', :'collider'));
SELECT * FROM heap_reads(format('SELECT * FROM coll40 WHERE s = %L', :'collider'));
SELECT * FROM heap_reads('SELECT * FROM coll32 WHERE s = ''no such string''');
SELECT count(*) FILTER (WHERE r32.heap_blocks = 1 AND r32.rows_removed = 1) AS pairs_read_at_32,
	count(*) FILTER (WHERE r40.heap_blocks = 0) AS pairs_not_read_at_40
FROM coll_pairs p,
	LATERAL heap_reads(format('SELECT * FROM coll32 WHERE s = %L', p.absent)) r32,
	LATERAL heap_reads(format('SELECT * FROM coll40 WHERE s = %L', p.absent)) r40;

-- an int8 column keys 40 bits of hashint8extended, and an int4 key finds
-- it across types (hashint4extended agrees on equal values)
CREATE TABLE coll_i8 (v int8);
CREATE INDEX coll_i8_v ON coll_i8 USING scbf (v) WITH (hash_bits = 40);
INSERT INTO coll_i8 SELECT g * 7919 FROM generate_series(1, 5000) g;
SELECT scbf_same('SELECT * FROM coll_i8 WHERE v = 7919 * 17');
SELECT scbf_same('SELECT * FROM coll_i8 WHERE v = $1', 'int4', '7919 * 17');
SELECT scbf_same('SELECT * FROM coll_i8 WHERE v IN (7919, 15838::int2, 23757::int4)');
SELECT scbf_empty('SELECT * FROM coll_i8 WHERE v = 7920');
SELECT scbf_verify('coll_i8_v', true);

-- wider hashes in the delta (scbf_delta.sql), whose entries then hold the
-- bits above 32 too: keys there, then merged by VACUUM
SET scbf.delta_band_pages = 0;
CREATE TABLE coll_dl (id int, s text);
INSERT INTO coll_dl SELECT g, md5(g::text) FROM generate_series(1, 20000) g;
CREATE INDEX coll_dl_s ON coll_dl USING scbf (s) WITH (hash_bits = 40);
INSERT INTO coll_dl SELECT g, md5(g::text) FROM generate_series(20001, 23000) g;
SELECT scbf_clean_pending('coll_dl_s') AS folded;
SELECT count(*) > 0 AS delta_pages, sum(entries) BETWEEN 3000 AND 3300 AS about_the_keys
FROM scbf_pages('coll_dl_s') WHERE kind = 'delta';
SELECT scbf_same('SELECT * FROM coll_dl WHERE s = md5(''21234'')');
SELECT scbf_same('SELECT * FROM coll_dl WHERE s IN (md5(''5''), md5(''22999''), ''nope'')');
SELECT scbf_empty('SELECT * FROM coll_dl WHERE s = md5(''23001'')');
SET enable_seqscan = off;
SELECT count(*) AS missed FROM generate_series(1, 23000) g
WHERE NOT EXISTS (SELECT 1 FROM coll_dl WHERE s = md5(g::text));
RESET enable_seqscan;
SELECT scbf_verify('coll_dl_s', true);
CALL scbf_wait_snapshots();
VACUUM coll_dl;
SELECT coalesce(sum(entries), 0) AS delta_entries_after_vacuum
FROM scbf_pages('coll_dl_s') WHERE kind = 'delta';
SET enable_seqscan = off;
SELECT count(*) AS missed FROM generate_series(1, 23000) g
WHERE NOT EXISTS (SELECT 1 FROM coll_dl WHERE s = md5(g::text));
RESET enable_seqscan;
SELECT scbf_verify('coll_dl_s', true);
RESET scbf.delta_band_pages;

DROP FUNCTION coll_checks(int), heap_reads(text);
DROP TABLE coll32, coll40, coll2_32, coll2_40, coll_pairs, coll_i8, coll_dl;
DROP FUNCTION scbf_same, scbf_empty, scbf_noindex, scbf_compare;
