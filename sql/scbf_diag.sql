--
-- scbf_diag: the diagnostic functions on empty, small, chained and churned
-- indexes.  Every number is checked against the table itself (rows, NULLs
-- and distinct heap pages per segment), against scbf_pages (a walk over
-- every page) or against the other functions; probes are checked against
-- the rows that hold the value and against what a bitmap scan returns.
-- Then errors on things that are not scbf indexes.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS scbf;
RESET client_min_messages;
-- format 1's counters, directory, filter blocks and ledger pages, as this
-- test reads them, until format 1 is removed (format 2's diagnostics:
-- scbf_format2_diag)
SET scbf.build_format = 1;

-- Everything the diagnostics say about an index, checked.  Run after
-- VACUUM (or inserts only), when the ledgers hold exactly the table's rows.
CREATE FUNCTION diag_report(idx regclass) RETURNS TABLE (check_name text, ok bool)
LANGUAGE plpgsql AS $$
DECLARE
	info record;
	tab regclass;
	pps int;
	hsegs int;
	nullexprs text;
	segq text;
BEGIN
	SELECT indrelid INTO tab FROM pg_index WHERE indexrelid = idx;
	SELECT string_agg(format('count(*) FILTER (WHERE %I IS NULL)', a.attname), ', ' ORDER BY k.n)
	INTO nullexprs
	FROM pg_index i, unnest(i.indkey) WITH ORDINALITY k(attnum, n), pg_attribute a
	WHERE i.indexrelid = idx AND a.attrelid = i.indrelid AND a.attnum = k.attnum;
	SELECT * INTO info FROM scbf_index_info(idx);
	pps := info.pages_per_segment;
	hsegs := (pg_relation_size(tab) / 8192 + pps - 1) / pps;
	-- the table's rows, NULLs per column and distinct pages, per segment
	segq := format('SELECT (ctid::text::point)[0]::int / %s AS segno, count(*) AS n,
		ARRAY[%s]::bigint[] AS nulls FROM %s GROUP BY 1', pps, nullexprs, tab);

	check_name := 'live entries = rows';
	EXECUTE format('SELECT count(*) = %s FROM %s', info.entries_live, tab) INTO ok;
	RETURN NEXT;
	check_name := 'no removed entries left';
	ok := info.entries_pending = 0; RETURN NEXT;
	check_name := 'entries and NULLs per segment = rows and NULLs there';
	-- (a segment missing on either side makes the comparison NULL, which
	-- bool_and would skip: coalesce(..., false) counts it as a mismatch)
	EXECUTE format('SELECT coalesce(bool_and(coalesce(s.entries = coalesce(t.n, 0)
			AND (t.nulls IS NULL AND s.nulls = array_fill(0::bigint, ARRAY[%s]) OR s.nulls = t.nulls)
			AND (t.n IS NULL OR s.chain_length > 0), false)), true)
		FROM scbf_segments(%s) s FULL JOIN (%s) t USING (segno)', info.columns, idx::oid, segq)
	INTO ok;
	RETURN NEXT;
	check_name := 'one row per segment of the table';
	ok := (SELECT count(*) = hsegs AND count(DISTINCT segno) = hsegs
				AND coalesce(max(segno) = hsegs - 1, true)
		   FROM scbf_segments(idx)); RETURN NEXT;
	check_name := 'segments = segments with a chain';
	ok := info.segments = (SELECT count(*) FROM scbf_segments(idx) WHERE chain_length > 0);
	RETURN NEXT;
	check_name := 'empty segments are flagged, have no chain';
	ok := info.empty_segments = (SELECT count(*) FROM scbf_segments(idx) WHERE 'empty' = ANY (flags))
		AND (SELECT coalesce(bool_and(chain_length = 0 AND entries = 0), true)
			 FROM scbf_segments(idx) WHERE 'empty' = ANY (flags)); RETURN NEXT;
	check_name := 'no segment unindexed';
	ok := NOT EXISTS (SELECT FROM scbf_segments(idx) WHERE 'unindexed' = ANY (flags)); RETURN NEXT;
	check_name := 'segment block ranges';
	ok := (SELECT coalesce(bool_and(first_block = segno * pps
				AND last_block = first_block + pps - 1), true) FROM scbf_segments(idx));
	RETURN NEXT;
	check_name := 'pages by kind add up to the relation';
	ok := info.pages_total = pg_relation_size(idx) / 8192
		AND info.pages_total = info.pages_meta + info.pages_directory + info.pages_filter
			+ info.pages_ledger + info.pages_free
		AND info.pages_meta = 1; RETURN NEXT;
	check_name := 'pages by kind = scbf_pages';
	ok := (SELECT info.pages_directory = count(*) FILTER (WHERE kind = 'directory')
				AND info.pages_filter = count(*) FILTER (WHERE kind = 'filter')
				AND info.pages_ledger = count(*) FILTER (WHERE kind = 'ledger')
				AND info.pages_free = count(*) FILTER (WHERE kind IN ('free', 'new'))
		   FROM scbf_pages(idx)); RETURN NEXT;
	check_name := 'filters: blocks, ledger pages, entries = scbf_pages';
	ok := (SELECT coalesce(bool_and(coalesce(f.blocks = p.fblocks AND f.ledger_pages = p.lpages
				AND f.entries = p.entries AND f.head_block = p.head, false)), true)
		   FROM scbf_filters(idx) f
		   LEFT JOIN (SELECT segno, serial,
						 count(*) FILTER (WHERE kind = 'filter') AS fblocks,
						 count(*) FILTER (WHERE kind = 'ledger') AS lpages,
						 coalesce(sum(entries), 0) AS entries,
						 min(blkno) FILTER (WHERE kind = 'filter' AND block_index = 0) AS head
					  FROM scbf_pages(idx) GROUP BY 1, 2) p
			 ON p.segno = f.segno AND p.serial = f.serial); RETURN NEXT;
	check_name := 'filter and segment entries add up';
	ok := (SELECT sum(entries) FROM scbf_filters(idx)) IS NOT DISTINCT FROM
			(SELECT sum(entries) FROM scbf_segments(idx) WHERE chain_length > 0)
		AND (SELECT coalesce(sum(entries), 0) FROM scbf_segments(idx)) = info.entries_live;
	RETURN NEXT;
	check_name := 'chains: lengths, positions, serials, states';
	ok := (SELECT coalesce(bool_and(s.chain_length = f.n AND f.positions AND f.serials
				AND f.last_state IN ('active', 'growing')), true)
		   FROM scbf_segments(idx) s
		   JOIN (SELECT segno, count(*) AS n,
					array_agg(filter ORDER BY filter) = array_agg(g::int ORDER BY g) AS positions,
					bool_and(serial > coalesce(prev, 0)) AS serials,
					(array_agg(state ORDER BY filter DESC))[1] AS last_state
				 FROM (SELECT segno, filter, serial, state,
						  row_number() OVER w AS g, lag(serial) OVER w AS prev
					   FROM scbf_filters(idx) WINDOW w AS (PARTITION BY segno ORDER BY filter)) x
				 GROUP BY segno) f USING (segno)); RETURN NEXT;
	check_name := 'filters = sum of chain lengths, max_chain';
	ok := info.filters = (SELECT coalesce(sum(chain_length), 0) FROM scbf_segments(idx))
		AND info.max_chain = (SELECT coalesce(max(chain_length), 0) FROM scbf_segments(idx));
	RETURN NEXT;
	check_name := 'chain_lengths[i] = segments with i filters';
	ok := info.chain_lengths = (SELECT coalesce(array_agg(coalesce(n, 0) ORDER BY i), '{}')
		   FROM generate_series(1, info.max_chain) i
		   LEFT JOIN (SELECT chain_length, count(*)::int AS n FROM scbf_segments(idx)
					  GROUP BY 1) c ON c.chain_length = i)
		AND coalesce(array_lower(info.chain_lengths, 1), 1) = 1; RETURN NEXT;
	check_name := 'segment FPR = 1 - prod(1 - filter FPR)';
	ok := (SELECT coalesce(bool_and(abs(s.fpr - f.fpr) < 1e-12), true)
		   FROM scbf_segments(idx) s
		   JOIN (SELECT segno, 1 - exp(sum(ln(1 - fpr)) FILTER (WHERE state IN ('active', 'closed'))) AS fpr
				 FROM scbf_filters(idx) GROUP BY 1) f USING (segno)); RETURN NEXT;
	check_name := 'est_fpr = mean, worst_segment_fpr = max of segment FPRs';
	ok := (SELECT (info.segments = 0 OR abs(info.est_fpr - avg(fpr)) < 1e-12
					AND info.worst_segment_fpr = max(fpr)
					AND info.worst_segment_fpr = (SELECT fpr FROM scbf_segments(idx) WHERE segno = info.worst_segment))
		   FROM scbf_segments(idx) WHERE chain_length > 0); RETURN NEXT;
	check_name := 'fills: slices, filters, segments, index';
	ok := (SELECT coalesce(bool_and(abs((SELECT avg(x) FROM unnest(slice_fill) x) - fill) < 1e-12
				AND cardinality(slice_fill) = info.k AND fill BETWEEN 0 AND 1 AND fill <= info.worst_fill + 1e-12), true)
		   FROM scbf_filters(idx))
		AND (SELECT coalesce(bool_and(abs(s.fill - f.fill) < 1e-12), true)
			 FROM scbf_segments(idx) s
			 JOIN (SELECT segno, sum(fill * blocks) / sum(blocks) AS fill FROM scbf_filters(idx) GROUP BY 1) f
			 USING (segno))
		AND (info.filters = 0 OR abs(info.mean_fill -
				(SELECT sum(fill * blocks) / sum(blocks) FROM scbf_filters(idx))) < 1e-12); RETURN NEXT;
	check_name := 'saturated counters add up';
	ok := info.saturated_counters = (SELECT coalesce(sum(saturated), 0) FROM scbf_filters(idx))
		AND info.saturated_counters = (SELECT coalesce(sum(saturated), 0) FROM scbf_segments(idx));
	RETURN NEXT;
	check_name := 'no stale counters';
	ok := info.stale_counters = 0; RETURN NEXT;
	check_name := 'bytes per heap tuple';
	ok := info.entries_live = 0 AND info.bytes_per_heap_tuple IS NULL
		OR abs(info.bytes_per_heap_tuple - info.pages_total * 8192.0 / info.entries_live) < 1e-9;
	RETURN NEXT;
END $$;

-- A probe of column 1 of idx (on table d, column a) for value v, checked
-- against the rows: the ledger entries that match are exactly the rows
-- holding v, per segment (so no segment that holds v is missing), and the
-- heap pages counted are the distinct pages of those rows.  Also returns
-- the filters that said "maybe" without a match (false positives), and
-- whether a bitmap scan returns what a sequential scan does.
CREATE FUNCTION diag_probe(idx regclass, v int)
RETURNS TABLE (rows bigint, matches numeric, exact bool, false_positives bigint, scan_agrees bool)
LANGUAGE plpgsql AS $$
DECLARE
	pps int := (SELECT pages_per_segment FROM scbf_index_info(idx));
	a bigint;
	b bigint;
BEGIN
	rows := (SELECT count(*) FROM d WHERE d.a = v);
	matches := (SELECT coalesce(sum(ledger_matches), 0) FROM scbf_probe(idx, v));
	-- (a segment on one side only, a miss or an extra, compares as NULL:
	-- coalesce(..., false) makes it count against)
	exact := (SELECT coalesce(bool_and(coalesce(p.m = t.n AND p.pages = t.pages AND p.verdicts = '{maybe}', false)), false)
			  FROM (SELECT segno, sum(ledger_matches) AS m, sum(heap_pages) AS pages,
						   array_agg(DISTINCT verdict) AS verdicts
					FROM scbf_probe(idx, v) WHERE ledger_matches > 0 GROUP BY 1) p
			  FULL JOIN (SELECT (ctid::text::point)[0]::int / pps AS segno, count(*) AS n,
							 count(DISTINCT (ctid::text::point)[0]) AS pages
						 FROM d WHERE d.a = v GROUP BY 1) t USING (segno))
		OR rows = 0 AND matches = 0;
	false_positives := (SELECT count(*) FROM scbf_probe(idx, v) WHERE ledger_matches = 0);
	SET LOCAL enable_seqscan = off;
	SET LOCAL enable_indexscan = off;
	SELECT count(*) INTO a FROM d WHERE d.a = v;
	SET LOCAL enable_seqscan = on;
	SET LOCAL enable_bitmapscan = off;
	SELECT count(*) INTO b FROM d WHERE d.a = v;
	RESET enable_seqscan;
	RESET enable_indexscan;
	RESET enable_bitmapscan;
	scan_agrees := a = b;
	RETURN NEXT;
END $$;

CREATE TABLE d (id int, a int, b text) WITH (fillfactor = 70, autovacuum_enabled = off);
CREATE INDEX d_a ON d USING scbf (a) WITH (pages_per_segment = 8);
CREATE INDEX d_ab ON d USING scbf (a, b);

-- empty: the layout in force, nothing else
SELECT pages_per_segment, false_positive_rate, k, slice_counters, counter_bits,
	block_capacity, columns, segments, empty_segments, filters, max_chain,
	chain_lengths, pages_total, pages_meta, pages_directory, pages_filter,
	pages_ledger, pages_free, entries_live, entries_pending, mean_fill,
	worst_fill, est_fpr, worst_segment, worst_segment_fpr, saturated_counters,
	stale_counters, bytes_per_heap_tuple
FROM scbf_index_info('d_a');
SELECT k, columns, block_capacity FROM scbf_index_info('d_ab');
SELECT count(*) FROM scbf_segments('d_a');
SELECT count(*) FROM scbf_filters('d_a');
SELECT * FROM scbf_pages('d_a');
SELECT count(*) FROM scbf_probe('d_a', 1);
SELECT * FROM diag_report('d_a') WHERE NOT ok;

-- small: 6000 rows, 10 per value, a NULL every 50 rows
INSERT INTO d SELECT g, CASE WHEN g % 50 = 0 THEN NULL ELSE g / 10 END, 'b' || g % 97
FROM generate_series(1, 6000) g;
SELECT * FROM diag_report('d_a') WHERE NOT ok;
SELECT * FROM diag_report('d_ab') WHERE NOT ok;
SELECT segments, filters, max_chain, chain_lengths, entries_live, pages_meta,
	pages_directory, pages_filter, pages_ledger, pages_free
FROM scbf_index_info('d_a');
SELECT segno, first_block, last_block, chain_length, filter_blocks, ledger_pages,
	entries, nulls, flags
FROM scbf_segments('d_a') WHERE segno IN (0, 3, 5);
SELECT segno, filter, serial, state, flags, blocks, ledger_pages, entries, nulls,
	cardinality(slice_fill) AS slices, round(est_keys) AS est_keys
FROM scbf_filters('d_a', 3);
-- est_keys estimates the distinct keys of each filter (linear counting)
SELECT bool_and(abs(f.est_keys - t.n) <= 0.05 * t.n) AS est_keys_within_5pct
FROM scbf_filters('d_a') f
JOIN (SELECT (ctid::text::point)[0]::int / 8 AS segno, count(DISTINCT coalesce(a, -1)) AS n
	  FROM d GROUP BY 1) t USING (segno);

-- probes of present values: exact per segment, and scans agree
SELECT * FROM diag_probe('d_a', 123);
SELECT segno, filter, serial, block, verdict, ledger_matches, heap_pages
FROM scbf_probe('d_a', 123);
SELECT count(*) AS values_probed, bool_and(exact) AS all_exact, sum(rows) AS rows,
	sum(matches) AS matches, bool_and(scan_agrees) AS scans_agree
FROM generate_series(0, 600, 7) v, diag_probe('d_a', v);
SELECT count(*) AS values_probed, bool_and(exact) AS all_exact, sum(matches) AS matches
FROM generate_series(0, 600, 7) v, diag_probe('d_ab', v);
-- absent values: every "maybe" is a false positive with no ledger match
SELECT count(*) AS values_probed, sum(rows) AS rows, sum(matches) AS matches,
	sum(false_positives) AS false_positives, bool_and(scan_agrees) AS scans_agree
FROM generate_series(-1000, -1) v, diag_probe('d_a', v);
-- IS NULL
SELECT (SELECT sum(ledger_matches) FROM scbf_probe('d_a', NULL::int)) AS matches,
	(SELECT count(*) FROM d WHERE a IS NULL) AS rows;
SELECT (SELECT coalesce(sum(ledger_matches), 0) FROM scbf_probe('d_ab', NULL::text, 2)) AS matches,
	(SELECT count(*) FROM d WHERE b IS NULL) AS rows;
-- text is converted to the column's type; a column number picks the column
SELECT (SELECT sum(ledger_matches) FROM scbf_probe('d_a', '123')) AS matches,
	(SELECT count(*) FROM d WHERE a = 123) AS rows;
SELECT (SELECT sum(ledger_matches) FROM scbf_probe('d_ab', 'b7', 2)) AS matches,
	(SELECT count(*) FROM d WHERE b = 'b7') AS rows;
SELECT (SELECT sum(ledger_matches) FROM scbf_probe('d_ab', 'b7'::varchar, 2)) AS varchar_matches;
-- a typed value: cross-type as a scan hashes it, and through a domain
CREATE DOMAIN small_int AS int2;
SELECT (SELECT array_agg(ledger_matches) FROM scbf_probe('d_a', 123::int8)) AS int8,
	(SELECT array_agg(ledger_matches) FROM scbf_probe('d_a', 123::int2)) AS int2,
	(SELECT array_agg(ledger_matches) FROM scbf_probe('d_a', 123::small_int)) AS domain;
-- the probe reproduces the scan's work: the segments whose ledgers it reads
SELECT count(DISTINCT segno) FILTER (WHERE verdict = 'maybe') AS segments_read,
	count(*) FILTER (WHERE verdict <> 'maybe') AS whole_segments
FROM scbf_probe('d_a', 123);

-- segments the build found empty are flagged, skipped by probes and scans
CREATE TABLE e (id int, a int) WITH (autovacuum_enabled = off);
INSERT INTO e SELECT g, g % 100 FROM generate_series(1, 20000) g;
DELETE FROM e WHERE id BETWEEN 2000 AND 14000;
VACUUM e;
CREATE INDEX e_a ON e USING scbf (a) WITH (pages_per_segment = 8);
SELECT empty_segments > 0 AS has_empty, segments FROM scbf_index_info('e_a');
SELECT * FROM diag_report('e_a') WHERE NOT ok;
SELECT flags, chain_length, count(*) FROM scbf_segments('e_a') GROUP BY 1, 2 ORDER BY 1, 2;
SELECT count(*) FILTER (WHERE s.flags = '{empty}') AS empty_segments_probed
FROM scbf_probe('e_a', 7) p JOIN scbf_segments('e_a') s USING (segno);
SELECT sum(ledger_matches) AS matches, (SELECT count(*) FROM e WHERE a = 7) AS rows
FROM scbf_probe('e_a', 7);
-- an insert into an empty segment gives it a chain
INSERT INTO e SELECT -g, 7 FROM generate_series(1, 3000) g;
SELECT flags, chain_length, count(*) FROM scbf_segments('e_a') GROUP BY 1, 2 ORDER BY 1, 2;
SELECT * FROM diag_report('e_a') WHERE NOT ok;
SELECT sum(ledger_matches) AS matches, (SELECT count(*) FROM e WHERE a = 7) AS rows
FROM scbf_probe('e_a', 7);
DROP TABLE e;

-- chains: an index grown by inserts of distinct values chains filters as
-- each fills up; closed filters are flagged full
CREATE TABLE c (k int) WITH (autovacuum_enabled = off);
CREATE INDEX c_k ON c USING scbf (k);
INSERT INTO c SELECT g FROM generate_series(1, 60000) g;
SELECT segments, filters, max_chain, chain_lengths, entries_live FROM scbf_index_info('c_k');
SELECT * FROM diag_report('c_k') WHERE NOT ok;
SELECT segno, filter, state, flags, blocks, entries > 0 AS has_entries
FROM scbf_filters('c_k') ORDER BY segno, filter;
-- a value is in exactly one filter of its chain
SELECT count(*) AS values_probed,
	bool_and(m = 1) AS each_matched_once, bool_and(f = 1) AS in_one_filter
FROM generate_series(1, 60000, 613) v,
	LATERAL (SELECT sum(ledger_matches) AS m, count(*) FILTER (WHERE ledger_matches > 0) AS f
			 FROM scbf_probe('c_k', v)) p;
-- absent values: the fuller filters let some through (false positives,
-- about as many as est_fpr predicts), their ledgers hold no match, and
-- scans return nothing
SELECT count(*) > 0 AS some_false_positives, coalesce(sum(ledger_matches), 0) AS matches,
	bool_and(verdict = 'maybe') AS all_maybe,
	count(DISTINCT (v, segno)) / (3000.0 * (SELECT segments FROM scbf_index_info('c_k')))
		< 2 * (SELECT est_fpr FROM scbf_index_info('c_k')) AS rate_below_twice_est_fpr
FROM generate_series(-3000, -1) v, scbf_probe('c_k', v);
SET enable_seqscan = off;
SELECT count(*) FROM c WHERE k = ANY (ARRAY(SELECT -g FROM generate_series(1, 3000) g));
RESET enable_seqscan;
-- VACUUM consolidates every chain into one filter
VACUUM c;
SELECT segments, filters, max_chain, chain_lengths, entries_live FROM scbf_index_info('c_k');
SELECT * FROM diag_report('c_k') WHERE NOT ok;
SELECT count(*) AS values_probed, bool_and(m = 1) AS each_matched_once
FROM generate_series(1, 60000, 613) v,
	LATERAL (SELECT sum(ledger_matches) AS m FROM scbf_probe('c_k', v)) p;
DROP TABLE c;

-- churned: deletes, VACUUM, inserts into the freed space, duplicates enough
-- to saturate counters
DELETE FROM d WHERE id % 3 = 0;
INSERT INTO d SELECT -g, 777, 'dup' FROM generate_series(1, 100) g;
VACUUM d;
SELECT * FROM diag_report('d_a') WHERE NOT ok;
SELECT saturated_counters > 0 AS saturated FROM scbf_index_info('d_a');
SELECT bool_and(exact) AS exact, bool_and(scan_agrees) AS scans_agree FROM diag_probe('d_a', 777);
DELETE FROM d WHERE a = 777;
VACUUM d;
SELECT * FROM diag_probe('d_a', 777);
INSERT INTO d SELECT 10000 + g, g % 40, NULL FROM generate_series(1, 2000) g;
SELECT * FROM diag_report('d_a') WHERE NOT ok;
SELECT * FROM diag_report('d_ab') WHERE NOT ok;
SELECT count(*) AS values_probed, bool_and(exact) AS all_exact, bool_and(scan_agrees) AS scans_agree
FROM generate_series(0, 700, 3) v, diag_probe('d_a', v);

-- scbf_filters of one segment is that segment's part of the whole
SELECT (SELECT array_agg(serial ORDER BY filter) FROM scbf_filters('d_a', 2)) =
	(SELECT array_agg(serial ORDER BY filter) FROM scbf_filters('d_a') WHERE segno = 2) AS same;
SELECT count(*) FROM scbf_filters('d_a', -1);
SELECT count(*) FROM scbf_filters('d_a', 1000000);
-- scbf_pages: ledger pages link each filter's ledger, heads the chain
SELECT kind, count(*) > 0 AS present FROM scbf_pages('d_a') GROUP BY 1 ORDER BY 1;
SELECT bool_and(p.next_block = 0 OR n.kind = 'ledger' AND n.segno = p.segno AND n.serial = p.serial)
	AS ledger_links_stay_in_their_filter
FROM scbf_pages('d_a') p LEFT JOIN scbf_pages('d_a') n ON n.blkno = p.next_block
WHERE p.kind = 'ledger';

-- rebuilds, from the ledgers and from the heap
SELECT scbf_rebuild('d_a') AS rebuilt, (SELECT count(*) FROM scbf_segments('d_a') WHERE chain_length > 0) AS segments;
SELECT * FROM diag_report('d_a') WHERE NOT ok;
SELECT scbf_rebuild('d_a', 1, 'heap');
SELECT scbf_rebuild('d_ab', source => 'heap') > 0 AS rebuilt;
SELECT * FROM diag_report('d_a') WHERE NOT ok;
SELECT * FROM diag_report('d_ab') WHERE NOT ok;
SELECT bool_and(exact) AS all_exact, bool_and(scan_agrees) AS scans_agree
FROM generate_series(0, 700, 11) v, diag_probe('d_a', v);
SET enable_seqscan = off;
SELECT count(*) FROM d WHERE a = 17 AND b IS NULL;
RESET enable_seqscan;
SELECT count(*) FROM d WHERE a = 17 AND b IS NULL;

-- errors
CREATE INDEX d_btree ON d (a);
CREATE INDEX d_gone ON d USING scbf (b);
CREATE TABLE gone AS SELECT 'd_gone'::regclass::oid AS o;
DROP INDEX d_gone;
CREATE VIEW d_view AS SELECT * FROM d;
CREATE TABLE part (a int) PARTITION BY RANGE (a);
CREATE INDEX part_a ON part USING scbf (a);
-- the OID of a dropped index (the message names the OID: not printed here)
CREATE FUNCTION try_gone(f text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('SELECT count(*) FROM %s(%s::regclass)', f, (SELECT o FROM gone));
	RETURN 'no error';
EXCEPTION WHEN undefined_object THEN
	RETURN SQLSTATE || ': ' || regexp_replace(SQLERRM, '[0-9]+', 'N');
END $$;
SELECT f, try_gone(f) FROM unnest(ARRAY['scbf_index_info', 'scbf_segments', 'scbf_filters',
	'scbf_pages', 'scbf_verify', 'scbf_rebuild']) f;
\set VERBOSITY terse
SELECT * FROM scbf_index_info('d_btree');
SELECT * FROM scbf_segments('d');
SELECT * FROM scbf_filters('d_view');
SELECT * FROM scbf_pages('part_a');
SELECT * FROM scbf_index_info(NULL);
SELECT * FROM scbf_probe(NULL, 1);
SELECT scbf_verify(NULL);
SELECT scbf_rebuild(NULL);
SELECT scbf_verify('pg_class');
SELECT scbf_verify('pg_class_oid_index');
SELECT * FROM scbf_probe('d_a', 1, 2);
SELECT * FROM scbf_probe('d_a', 1, 0);
SELECT * FROM scbf_probe('d_a', point(1, 2));
SELECT * FROM scbf_probe('d_a', 'x');
SELECT * FROM scbf_probe('d_ab', 1.5::numeric);
SELECT scbf_rebuild('d_a', 99999);
SELECT scbf_rebuild('d_a', -1);
SELECT scbf_rebuild('d_a', 0, 'disk');
SELECT scbf_rebuild('d_a', 0, NULL);
SELECT scbf_rebuild('d_btree');
\set VERBOSITY default
SELECT * FROM scbf_probe('d_a', point(1, 2));
SELECT scbf_rebuild('d_a', 99999);

DROP FUNCTION diag_report(regclass);
DROP FUNCTION diag_probe(regclass, int);
DROP FUNCTION try_gone(text);
DROP TABLE gone;
DROP VIEW d_view;
DROP TABLE part;
DROP TABLE d;
DROP DOMAIN small_int;
