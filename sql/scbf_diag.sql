--
-- scbf_diag: the diagnostic functions on empty, small and churned indexes,
-- each number checked against the table itself; errors on things that are
-- not scbf indexes.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS scbf;
RESET client_min_messages;

CREATE TABLE d (id int, a int, b text) WITH (fillfactor = 70);
CREATE INDEX d_a ON d USING scbf (a) WITH (pages_per_segment = 8);
CREATE INDEX d_ab ON d USING scbf (a, b);

-- empty
SELECT segments, filters, entries_live, pages_total, pages_meta, pages_free,
	chain_lengths, bytes_per_heap_tuple
FROM scbf_index_info('d_a');
SELECT count(*) FROM scbf_segments('d_a');
SELECT count(*) FROM scbf_filters('d_a');
SELECT * FROM scbf_pages('d_a');
SELECT count(*) FROM scbf_probe('d_a', 1);
SELECT scbf_verify('d_a', true);

-- what every diagnostic says must agree with the table
CREATE FUNCTION d_report(idx regclass) RETURNS TABLE (check_name text, ok bool)
LANGUAGE plpgsql AS $$
DECLARE
	info record;
	nseg int;
BEGIN
	SELECT * INTO info FROM scbf_index_info(idx);
	SELECT count(DISTINCT (ctid::text::point)[0]::int / info.pages_per_segment) INTO nseg FROM d;
	check_name := 'live entries = rows'; ok := info.entries_live = (SELECT count(*) FROM d); RETURN NEXT;
	check_name := 'segments = heap segments with rows'; ok := info.segments = nseg; RETURN NEXT;
	check_name := 'pages add up'; ok := info.pages_total = pg_relation_size(idx) / 8192
		AND info.pages_total = info.pages_meta + info.pages_directory + info.pages_filter
			+ info.pages_ledger + info.pages_free; RETURN NEXT;
	check_name := 'pages by kind agree with scbf_pages'; ok :=
		info.pages_filter = (SELECT count(*) FROM scbf_pages(idx) WHERE kind = 'filter') AND
		info.pages_ledger = (SELECT count(*) FROM scbf_pages(idx) WHERE kind = 'ledger'); RETURN NEXT;
	check_name := 'segment entries add up'; ok :=
		(SELECT sum(entries) FROM scbf_segments(idx)) = info.entries_live; RETURN NEXT;
	check_name := 'filter entries add up'; ok :=
		(SELECT sum(entries) FROM scbf_filters(idx)) = info.entries_live; RETURN NEXT;
	check_name := 'NULLs per segment add up'; ok :=
		(SELECT sum(nulls[1]) FROM scbf_segments(idx)) = (SELECT count(*) FROM d WHERE a IS NULL); RETURN NEXT;
	check_name := 'chain length histogram adds up'; ok :=
		(SELECT sum(x) FROM unnest(info.chain_lengths) x) = info.segments; RETURN NEXT;
	check_name := 'filters = sum of chain lengths'; ok :=
		(SELECT sum(chain_length) FROM scbf_segments(idx)) = info.filters; RETURN NEXT;
	check_name := 'segment block ranges'; ok :=
		(SELECT bool_and(first_block = segno * info.pages_per_segment
				AND last_block = first_block + info.pages_per_segment - 1) FROM scbf_segments(idx)); RETURN NEXT;
	check_name := 'FPRs within [0, 1] and below 2x target'; ok :=
		info.est_fpr BETWEEN 0 AND 2 * info.false_positive_rate
		AND (SELECT bool_and(fpr BETWEEN 0 AND 1) FROM scbf_filters(idx)); RETURN NEXT;
	check_name := 'slice fills average to the fill'; ok :=
		(SELECT bool_and(abs((SELECT avg(x) FROM unnest(slice_fill) x) - fill) < 1e-9) FROM scbf_filters(idx)); RETURN NEXT;
	check_name := 'no stale counters'; ok := info.stale_counters = 0; RETURN NEXT;
END $$;

-- a present value: the ledger entries that match are exactly its rows
CREATE FUNCTION d_probe(v int) RETURNS TABLE (rows bigint, matches numeric, maybe_filters bigint)
LANGUAGE sql AS $$
	SELECT (SELECT count(*) FROM d WHERE a = v),
		(SELECT coalesce(sum(ledger_matches), 0) FROM scbf_probe('d_a', v)),
		(SELECT count(*) FROM scbf_probe('d_a', v))
$$;

-- small
INSERT INTO d SELECT g, CASE WHEN g % 50 = 0 THEN NULL ELSE g / 10 END, 'b' || g % 97
FROM generate_series(1, 6000) g;
SELECT * FROM d_report('d_a');
SELECT * FROM d_report('d_ab');
SELECT * FROM d_probe(123);
SELECT * FROM d_probe(-5);
SELECT segno, first_block, filter, verdict, ledger_matches, heap_pages
FROM scbf_probe('d_a', 123);
SELECT sum(ledger_matches) FROM scbf_probe('d_a', NULL::int);
SELECT count(*) FROM d WHERE a IS NULL;
-- text is converted to the column's type; a column number picks the column
SELECT sum(ledger_matches) FROM scbf_probe('d_a', '123');
SELECT sum(ledger_matches) FROM scbf_probe('d_ab', 'b7', 2);
SELECT count(*) FROM d WHERE b = 'b7';
-- cross-type, as a scan hashes keys
SELECT sum(ledger_matches) FROM scbf_probe('d_a', 123::int8);
SELECT scbf_verify('d_a');
SELECT scbf_verify('d_ab', heapallindexed => true);

-- churned: deletes, VACUUM, inserts into the freed space, duplicates enough
-- to saturate counters
DELETE FROM d WHERE id % 3 = 0;
INSERT INTO d SELECT -g, 777, 'dup' FROM generate_series(1, 100) g;
VACUUM d;
SELECT * FROM d_report('d_a');
DELETE FROM d WHERE a = 777;
VACUUM d;
SELECT * FROM d_probe(777);
INSERT INTO d SELECT 10000 + g, g % 40, NULL FROM generate_series(1, 2000) g;
SELECT * FROM d_report('d_a');
SELECT * FROM d_report('d_ab');
SELECT * FROM d_probe(17);
SELECT scbf_verify('d_a', true);
SELECT scbf_verify('d_ab', true);

-- rebuilds, from the ledgers and from the heap
SELECT scbf_rebuild('d_a') > 0 AS rebuilt;
SELECT * FROM d_report('d_a');
SELECT scbf_rebuild('d_a', 1, 'heap');
SELECT scbf_rebuild('d_ab', source => 'heap') > 0 AS rebuilt;
SELECT * FROM d_report('d_ab');
SELECT * FROM d_probe(17);
SELECT scbf_verify('d_a', true);
SELECT scbf_verify('d_ab', true);
SET enable_seqscan = off;
SELECT count(*) FROM d WHERE a = 17 AND b IS NULL;
RESET enable_seqscan;
SELECT count(*) FROM d WHERE a = 17 AND b IS NULL;

-- churn does not grow the ledger: pages VACUUM leaves with room go on their
-- filter's room list, and inserts fill them before they extend the ledger
CREATE TABLE rl (id int, a int);
INSERT INTO rl SELECT g, g / 20 FROM generate_series(1, 30000) g;
CREATE INDEX rl_a ON rl USING scbf (a);
CREATE TABLE rl_size AS SELECT pages_ledger, pages_total FROM scbf_index_info('rl_a');
DELETE FROM rl WHERE a % 5 = 0;
VACUUM rl;
INSERT INTO rl SELECT -g, 100000 + g / 20 FROM generate_series(1, 6000) g;
DELETE FROM rl WHERE a % 5 = 1;
VACUUM rl;
INSERT INTO rl SELECT -g, 200000 + g / 20 FROM generate_series(1, 6000) g;
SELECT i.pages_ledger <= s.pages_ledger + 1 AS ledger_stays,
	i.pages_total <= s.pages_total + 2 AS index_stays
FROM scbf_index_info('rl_a') i, rl_size s;
SELECT scbf_verify('rl_a', true);
SET enable_seqscan = off;
SELECT count(*) FROM rl WHERE a IN (7, 100007, 200007, 5);
RESET enable_seqscan;
SELECT count(*) FROM rl WHERE a IN (7, 100007, 200007, 5);
DROP TABLE rl, rl_size;

-- errors
CREATE INDEX d_btree ON d (a);
CREATE INDEX d_gone ON d USING scbf (b);
CREATE TABLE gone AS SELECT 'd_gone'::regclass::oid AS o;
DROP INDEX d_gone;
-- the OID of a dropped index (the message names the OID: not printed here)
CREATE FUNCTION try_gone() RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	PERFORM scbf_index_info((SELECT o FROM gone)::regclass);
	RETURN 'no error';
EXCEPTION WHEN undefined_object THEN
	RETURN SQLSTATE || ': ' || regexp_replace(SQLERRM, '[0-9]+', 'N');
END $$;
SELECT try_gone();
\set VERBOSITY terse
SELECT * FROM scbf_index_info('d_btree');
SELECT * FROM scbf_segments('d');
SELECT * FROM scbf_index_info(NULL);
SELECT scbf_verify('pg_class');
SELECT * FROM scbf_probe('d_a', 1, 2);
SELECT * FROM scbf_probe('d_a', point(1, 2));
SELECT * FROM scbf_probe('d_a', 'x');
SELECT scbf_rebuild('d_a', 99999);
SELECT scbf_rebuild('d_a', 0, 'disk');
SELECT scbf_rebuild('d_btree');
\set VERBOSITY default
SELECT * FROM scbf_probe('d_a', point(1, 2));

DROP FUNCTION d_report(regclass);
DROP FUNCTION d_probe(int);
DROP FUNCTION try_gone();
DROP TABLE gone;
DROP TABLE d;
