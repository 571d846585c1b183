--
-- scbf_storage_diag: the diagnostic functions and the verifier: what each
-- column means (README.md, "Reference"), checked by relations between the
-- functions and with the table rather than by layout-dependent numbers,
-- the counts the ledgers imply among them;
-- scbf_probe and scbf_may_contain against the truth of the table for
-- present, absent, NULL and pending values; scbf_verify(index, true) clean
-- after the build, inserts, folds, DELETE + VACUUM, and on an empty index.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS scbf;
RESET client_min_messages;
\getenv abs_srcdir PG_ABS_SRCDIR
\set scbf_same_sql :abs_srcdir '/sql/include/scbf_same.sql'
\set ECHO none
\i :scbf_same_sql
\set ECHO all


-- clustered int4 in bursts of 20 with some NULLs, a random text
CREATE TABLE d2 (id int, cust int, code text);
INSERT INTO d2
SELECT g, CASE WHEN g % 101 = 0 THEN NULL ELSE g / 20 END, md5(g::text)
FROM generate_series(1, 30000) g;
CREATE INDEX d2_cust ON d2 USING scbf (cust) WITH (pages_per_segment = 8);
CREATE INDEX d2_pair ON d2 USING scbf (code, cust);
VACUUM ANALYZE d2;

-- the checks that every state below repeats
CREATE FUNCTION d2_check(idx regclass) RETURNS TABLE (check_name text, ok boolean)
LANGUAGE sql AS $$
	WITH i AS (SELECT * FROM scbf_index_info(idx)),
	s AS (SELECT * FROM scbf_segments(idx)),
	f AS (SELECT * FROM scbf_filters(idx)),
	p AS (SELECT * FROM scbf_pages(idx)),
	t AS (SELECT count(*) AS n, count(*) FILTER (WHERE cust IS NULL) AS nulls,
			ceil(pg_relation_size('d2') / 8192.0 / (SELECT pages_per_segment FROM i)) AS segs
		  FROM d2)
	SELECT 'counters sum their filters', slice_counters > 0 AND filter_capacity > 0
		AND max_count = (SELECT coalesce(max(max_count), 0) FROM f)
		AND saturated_counters = (SELECT coalesce(sum(saturated), 0) FROM f)
		AND stale_counters = (SELECT coalesce(sum(stale), 0) FROM f) FROM i
	UNION ALL
	SELECT 'entries = rows', entries_live + entries_pending = (SELECT n FROM t) FROM i
	UNION ALL
	SELECT 'pages by kind', pages_total = (SELECT count(*) FROM p)
		AND pages_meta = (SELECT count(*) FROM p WHERE kind = 'meta')
		AND pages_table = (SELECT count(*) FROM p WHERE kind = 'table')
		AND pages_rows = (SELECT count(*) FROM p WHERE kind IN ('rows', 'band map'))
		AND pages_delta = (SELECT count(*) FROM p WHERE kind = 'delta')
		AND pages_ledger = (SELECT count(*) FROM p WHERE kind IN ('root', 'leaf'))
		AND pages_pending = (SELECT count(*) FROM p WHERE kind = 'pending')
		AND pages_free = (SELECT count(*) FROM p WHERE kind IN ('free', 'new')) FROM i
	UNION ALL
	SELECT 'every page a known kind', bool_and(kind IN ('meta', 'table', 'rows',
		'band map', 'root', 'leaf', 'pending', 'free', 'new')) AND bool_and((kind = 'meta') = (blkno = 0))
		FROM p
	UNION ALL
	SELECT 'segments and filters', segments = (SELECT count(DISTINCT segno) FROM f)
		AND filters = (SELECT count(*) FROM f)
		AND max_chain = (SELECT coalesce(max(chain_length), 0) FROM s)
		AND coalesce((SELECT sum(x) FROM unnest(chain_lengths) x), 0) = segments FROM i
	UNION ALL
	SELECT 'a row per segment', count(*) >= (SELECT segs FROM t)
		AND sum(chain_length) = (SELECT filters FROM i)
		AND count(*) FILTER (WHERE chain_length = 0) = (SELECT empty_segments FROM i)
		AND bool_and((chain_length = 0) = (flags = '{empty}'))
		FROM s
	UNION ALL
	SELECT 'segments sum their filters'' counters', bool_and(s.max_count = coalesce(x.max_count, 0)
		AND s.saturated = coalesce(x.saturated, 0))
		FROM s LEFT JOIN (SELECT segno, max(max_count) AS max_count, sum(saturated) AS saturated
						  FROM f GROUP BY segno) x USING (segno)
	UNION ALL
	SELECT 'segments sum their filters', (SELECT coalesce(sum(entries), 0) FROM s) = (SELECT entries_live FROM i)
		AND (SELECT coalesce(sum(entries), 0) FROM f) = (SELECT entries_live FROM i)
		AND (SELECT coalesce(sum(ledger_pages), 0) FROM s) = (SELECT coalesce(sum(ledger_pages), 0) FROM f)
	UNION ALL
	SELECT 'filters', coalesce(bool_and(state IN ('active', 'closed') AND flags = '{}'
		AND array_length(roots, 1) = (SELECT columns FROM i)
		AND array_length(slice_fill, 1) = (SELECT k FROM i)
		AND fpr > 0 AND fpr <= 1 AND fill > 0 AND est_keys > 0
		AND ledger_pages >= (SELECT columns FROM i)), true) FROM f
	UNION ALL
	SELECT 'counts from the ledger', coalesce(bool_and(entries = 0 OR (
		-- every entry of every column counts once in each slice
		max_count BETWEEN 1 AND entries * (SELECT columns FROM i)
		AND nonzero BETWEEN (SELECT k FROM i) AND (SELECT k FROM i) * entries * (SELECT columns FROM i)
		AND nonzero * max_count >= (SELECT k FROM i) * entries * (SELECT columns FROM i)
		AND saturated <= nonzero AND (saturated > 0) = (max_count > 15)
		-- the bits: one under each count, and none other
		AND stale = 0
		AND ((SELECT pages_delta FROM i) > 0 OR round((SELECT sum(x) FROM unnest(slice_fill) x) *
			(SELECT slice_counters FROM i)) = nonzero + stale))), true) FROM f
	UNION ALL
	SELECT 'chain positions from 1', coalesce(bool_and(filter = pos), true)
		FROM (SELECT filter, row_number() OVER (PARTITION BY segno ORDER BY filter) AS pos FROM f) x
	UNION ALL
	SELECT 'one segment''s filters', bool_and((SELECT count(*) FROM scbf_filters(idx, s.segno)) = s.chain_length)
		FROM s WHERE s.segno % 7 = 0
	UNION ALL
	SELECT 'roots and leaves named', (SELECT count(*) FROM p WHERE kind = 'root') =
		(SELECT count(*) FROM f) * (SELECT columns FROM i)
		AND (SELECT count(*) FROM f, unnest(f.roots) WITH ORDINALITY r(blkno, col), p
			 WHERE p.blkno = r.blkno AND p.kind = 'root' AND p.serial = f.serial
				AND p.block_index = r.col) = (SELECT count(*) FROM f) * (SELECT columns FROM i)
		AND (SELECT bool_and(block_index BETWEEN 1 AND (SELECT columns FROM i)
			AND serial IN (SELECT f.serial FROM f)) FROM p WHERE kind = 'root')
		AND coalesce((SELECT bool_and(entries > 0 AND segno IS NOT NULL) FROM p WHERE kind = 'leaf'), true)
	UNION ALL
	SELECT 'the band', (SELECT count(DISTINCT serial) FROM p WHERE kind = 'rows') <= 1
		AND (SELECT coalesce(max(block_index) + 1, 0) FROM p WHERE kind = 'rows') = (SELECT count(*) FROM p WHERE kind = 'rows')
		AND (SELECT count(*) FROM p WHERE kind = 'band map') = sign((SELECT count(*) FROM p WHERE kind = 'rows'))
		AND NOT EXISTS (SELECT FROM p m, p r WHERE m.kind = 'band map' AND r.kind = 'rows' AND m.serial <> r.serial)
	UNION ALL
	SELECT 'pending pages hold the pending entries',
		(SELECT coalesce(sum(entries), 0) FROM p WHERE kind = 'pending') >= (SELECT entries_pending FROM i)
$$;

-- what scbf_probe says of a value, against the table
CREATE FUNCTION d2_probe(idx regclass, v anyelement, col int, truth bigint,
	OUT matches bigint, OUT pending bigint, OUT exact boolean, OUT may boolean)
LANGUAGE sql AS $$
	SELECT coalesce(sum(ledger_matches), 0),
		coalesce(sum(ledger_matches) FILTER (WHERE verdict = 'pending'), 0),
		coalesce(sum(ledger_matches), 0) = truth
		AND coalesce(bool_and(verdict IN ('maybe', 'pending')
			AND (verdict = 'pending') = (filter IS NULL)
			AND heap_pages <= ledger_matches), true),
		scbf_may_contain(idx, v, col) = (truth > 0)
	FROM scbf_probe(idx, v, col)
$$;

SELECT * FROM d2_check('d2_cust') WHERE NOT ok;
SELECT * FROM d2_check('d2_pair') WHERE NOT ok;
SELECT count(*) AS checks FROM d2_check('d2_cust');
SELECT scbf_verify('d2_cust', true), scbf_verify('d2_pair', true);

-- probes: present, absent, NULL, text, a second column
SELECT * FROM d2_probe('d2_cust', 500, 1, (SELECT count(*) FROM d2 WHERE cust = 500));
SELECT * FROM d2_probe('d2_cust', -7, 1, 0);
SELECT * FROM d2_probe('d2_cust', NULL::int, 1, (SELECT count(*) FROM d2 WHERE cust IS NULL));
SELECT * FROM d2_probe('d2_pair', md5('4242'), 1, 1);
SELECT * FROM d2_probe('d2_pair', 'absent'::text, 1, 0);
SELECT * FROM d2_probe('d2_pair', 1234, 2, (SELECT count(*) FROM d2 WHERE cust = 1234));
SELECT scbf_may_contain('d2_cust', '700'::text), scbf_may_contain('d2_cust', '30001'::text);
SELECT segno = (SELECT (ctid::text::point)[0]::int / 8 FROM d2 WHERE cust = 500 LIMIT 1) AS segment,
	first_block = segno * 8 AS first_block, block IS NULL AS no_block
FROM scbf_probe('d2_cust', 500) WHERE ledger_matches > 0;
SELECT scbf_same('SELECT * FROM d2 WHERE cust = 500');
SELECT scbf_same('SELECT * FROM d2 WHERE cust IS NULL');
SELECT scbf_same('SELECT * FROM d2 WHERE code = md5(''4242'')');
SELECT scbf_same('SELECT * FROM d2 WHERE code = md5(''77'') AND cust = 3');
SELECT scbf_empty('SELECT * FROM d2 WHERE cust = -7');

-- inserts wait in the pending area: probes see them there
INSERT INTO d2 SELECT g, 900000 + g % 3, md5((g % 3)::text) FROM generate_series(1, 500) g;
INSERT INTO d2 SELECT g, 500, 'five hundred' FROM generate_series(1, 40) g;
SELECT entries_pending FROM scbf_index_info('d2_cust');
SELECT * FROM d2_check('d2_cust') WHERE NOT ok;
SELECT * FROM d2_check('d2_pair') WHERE NOT ok;
SELECT * FROM d2_probe('d2_cust', 900001, 1, (SELECT count(*) FROM d2 WHERE cust = 900001));
SELECT * FROM d2_probe('d2_cust', 500, 1, (SELECT count(*) FROM d2 WHERE cust = 500));
SELECT * FROM d2_probe('d2_pair', 900002, 2, (SELECT count(*) FROM d2 WHERE cust = 900002));
SELECT * FROM d2_probe('d2_pair', 'five hundred'::text, 1, 40);
SELECT count(*) FILTER (WHERE verdict = 'pending') AS partitions_read,
	count(DISTINCT block) FILTER (WHERE verdict = 'pending') AS distinct_partitions
FROM scbf_probe('d2_cust', 900001);
SELECT scbf_verify('d2_cust', true), scbf_verify('d2_pair', true);
SELECT scbf_same('SELECT * FROM d2 WHERE cust = 900001');
SELECT scbf_same('SELECT * FROM d2 WHERE cust = 500');
SELECT scbf_same('SELECT * FROM d2 WHERE code = ''five hundred'' AND cust = 500');

-- a fold moves them into the filters
SELECT scbf_clean_pending('d2_cust') > 0 AS folded, scbf_clean_pending('d2_pair') > 0 AS folded;
SELECT entries_pending, entries_live = (SELECT count(*) FROM d2) AS all_live
FROM scbf_index_info('d2_cust');
SELECT * FROM d2_check('d2_cust') WHERE NOT ok;
SELECT * FROM d2_check('d2_pair') WHERE NOT ok;
SELECT * FROM d2_probe('d2_cust', 900001, 1, (SELECT count(*) FROM d2 WHERE cust = 900001));
SELECT * FROM d2_probe('d2_cust', 500, 1, (SELECT count(*) FROM d2 WHERE cust = 500));
SELECT * FROM d2_probe('d2_pair', 'five hundred'::text, 1, 40);
SELECT scbf_verify('d2_cust', true), scbf_verify('d2_pair', true);
SELECT scbf_same('SELECT * FROM d2 WHERE cust = 900001');
SELECT scbf_same('SELECT * FROM d2 WHERE cust IN (500, 900000)');

-- DELETE + VACUUM: the entries go, and so does the value
DELETE FROM d2 WHERE cust IN (900000, 1000) OR id % 10 = 0;
VACUUM d2;
SELECT * FROM d2_check('d2_cust') WHERE NOT ok;
SELECT * FROM d2_check('d2_pair') WHERE NOT ok;
SELECT * FROM d2_probe('d2_cust', 900000, 1, 0);
SELECT * FROM d2_probe('d2_cust', 1000, 1, 0);
SELECT * FROM d2_probe('d2_cust', 1001, 1, (SELECT count(*) FROM d2 WHERE cust = 1001));
SELECT * FROM d2_probe('d2_pair', md5('1'), 1, (SELECT count(*) FROM d2 WHERE code = md5('1')));
SELECT scbf_verify('d2_cust', true), scbf_verify('d2_pair', true);
SELECT scbf_same('SELECT * FROM d2 WHERE cust = 1001');
SELECT scbf_empty('SELECT * FROM d2 WHERE cust = 1000');
SELECT scbf_same('SELECT * FROM d2 WHERE code = md5(''1'')');

-- the counts the ledger implies, exact: a value repeated 40 times in one
-- segment counts 40 at each of its k positions, past what a 4-bit counter
-- holds; a unique column counts little; the columns of a two-column index
-- count in the bits they share; VACUUM takes the counts down with the rows
CREATE TABLE d2c (id int, rep int, uniq int);
INSERT INTO d2c SELECT g, 7, g FROM generate_series(1, 40) g;
CREATE INDEX d2c_rep ON d2c USING scbf (rep);
CREATE INDEX d2c_uniq ON d2c USING scbf (uniq);
CREATE INDEX d2c_two ON d2c USING scbf (rep, uniq);
SELECT f.entries, f.max_count, f.nonzero = i.k AS one_key_k_positions,
	f.saturated = i.k AS k_saturated, f.stale
FROM scbf_filters('d2c_rep') f, scbf_index_info('d2c_rep') i;
SELECT max_count, saturated_counters = k AS k_saturated, stale_counters
FROM scbf_index_info('d2c_rep');
SELECT f.entries, f.max_count < 16 AS small, f.saturated, f.stale,
	f.nonzero * f.max_count >= i.k * 40 AS counts_cover_entries
FROM scbf_filters('d2c_uniq') f, scbf_index_info('d2c_uniq') i;
SELECT f.entries, f.max_count >= 40 AS rep_counts, f.saturated >= i.k AS k_saturated,
	f.nonzero BETWEEN i.k AND i.k * 41 AS positions, f.stale
FROM scbf_filters('d2c_two') f, scbf_index_info('d2c_two') i;
SELECT s.max_count, s.saturated = i.k AS k_saturated
FROM scbf_segments('d2c_rep') s, scbf_index_info('d2c_rep') i;
SELECT scbf_same('SELECT * FROM d2c WHERE rep = 7');
SELECT scbf_same('SELECT * FROM d2c WHERE rep = 7 AND uniq = 3');
DELETE FROM d2c WHERE id > 10;
CALL scbf_wait_snapshots();
VACUUM d2c;
SELECT f.entries, f.max_count, f.nonzero = i.k AS one_key_k_positions, f.saturated, f.stale
FROM scbf_filters('d2c_rep') f, scbf_index_info('d2c_rep') i;
SELECT scbf_verify('d2c_rep', true), scbf_verify('d2c_two', true);
SELECT scbf_same('SELECT * FROM d2c WHERE rep = 7');
DROP TABLE d2c;

-- an empty index, then its first entries
CREATE TABLE d2e (a int);
CREATE INDEX d2e_a ON d2e USING scbf (a);
SELECT segments, filters, max_chain, chain_lengths, entries_live, entries_pending,
	pages_total, pages_meta, worst_segment, bytes_per_heap_tuple,
	max_count, saturated_counters, stale_counters
FROM scbf_index_info('d2e_a');
SELECT count(*) AS segments FROM scbf_segments('d2e_a');
SELECT count(*) AS filters FROM scbf_filters('d2e_a');
SELECT blkno, kind FROM scbf_pages('d2e_a');
SELECT count(*) AS probe_rows FROM scbf_probe('d2e_a', 1);
SELECT scbf_may_contain('d2e_a', 1);
SELECT scbf_verify('d2e_a', true);
SELECT scbf_empty('SELECT * FROM d2e WHERE a = 1');
INSERT INTO d2e SELECT g % 50 FROM generate_series(1, 1000) g;
SELECT entries_live, entries_pending FROM scbf_index_info('d2e_a');
SELECT sum(ledger_matches) FILTER (WHERE verdict = 'pending') AS pending,
	count(*) FILTER (WHERE verdict = 'maybe') AS filters
FROM scbf_probe('d2e_a', 7);
SELECT scbf_verify('d2e_a', true);
SELECT scbf_same('SELECT * FROM d2e WHERE a = 7');
SELECT scbf_clean_pending('d2e_a');
SELECT entries_live, entries_pending, filters > 0 AS has_filters FROM scbf_index_info('d2e_a');
SELECT sum(ledger_matches) FILTER (WHERE verdict = 'maybe') AS in_filters FROM scbf_probe('d2e_a', 7);
SELECT scbf_verify('d2e_a', true);
SELECT scbf_same('SELECT * FROM d2e WHERE a = 7');
SELECT scbf_empty('SELECT * FROM d2e WHERE a = 50');

-- routing over partitions of format 2 asks their filters
CREATE TABLE d2p (k int, v int) PARTITION BY LIST (k);
CREATE TABLE d2p_1 PARTITION OF d2p FOR VALUES IN (1);
CREATE TABLE d2p_2 PARTITION OF d2p FOR VALUES IN (2);
INSERT INTO d2p SELECT 1 + g % 2, g FROM generate_series(1, 4000) g;
CREATE INDEX d2p_v ON d2p USING scbf (v);
SELECT target, may_contain FROM scbf_route('d2p', 'v', '17') ORDER BY target;
SELECT target, may_contain FROM scbf_route('d2p', 'v', '-17') ORDER BY target;

DROP TABLE d2, d2e, d2p;
DROP FUNCTION d2_check(regclass), d2_probe(regclass, anyelement, int, bigint);
