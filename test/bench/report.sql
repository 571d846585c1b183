-- test/bench/report.sql: the markdown report of a benchmark run.
\set ON_ERROR_STOP on
\pset format unaligned
\pset tuples_only on
\pset footer off

SELECT '# scbf benchmark report' || E'\n\n'
	|| string_agg(format('- %s: %s', key, value), E'\n' ORDER BY key) || E'\n'
FROM bench_run;

SELECT E'Probe latency is the server-side execution time of EXPLAIN (ANALYZE, BUFFERS, TIMING OFF), median and 95th percentile; every index is read through a bitmap scan (index and heap pages counted apart), the sequential scan without parallel workers. Heap/match is the number of heap pages the probe read divided by the number of pages that really hold a match (from the btree''s exact bitmap). Planner: what EXPLAIN chooses at default settings with only that index on the table.\n';

-- main table, one per size and data set
WITH m AS (
	SELECT dataset, nrows, method,
		max(value) FILTER (WHERE metric = 'build_ms') AS build_ms,
		max(value) FILTER (WHERE metric = 'index_bytes') AS bytes,
		max(detail) FILTER (WHERE metric = 'planner_uses_index') AS planner
	FROM bench_metric GROUP BY 1, 2, 3),
s AS (
	SELECT dataset, nrows, method,
		max(median_ms) FILTER (WHERE kind = 'present') AS present_ms,
		max(p95_ms) FILTER (WHERE kind = 'present') AS present_p95,
		max(median_ms) FILTER (WHERE kind = 'absent') AS absent_ms,
		max(median_ms) FILTER (WHERE kind = 'in10') AS in10_ms,
		max(index_pages) FILTER (WHERE kind = 'present') AS ipages,
		max(heap_pages) FILTER (WHERE kind = 'present') AS hpages,
		max(heap_pages) FILTER (WHERE kind = 'absent') AS hpages_absent,
		max(heap_over_match) FILTER (WHERE kind = 'present') AS hom
	FROM bench_summary GROUP BY 1, 2, 3),
j AS (
	SELECT s.*, m.build_ms, m.bytes, m.planner,
		m.bytes / nullif((SELECT bytes FROM m b WHERE b.dataset = s.dataset AND b.nrows = s.nrows AND b.method = 'btree'), 0) AS size_vs_btree,
		s.present_ms / nullif((SELECT present_ms FROM s b WHERE b.dataset = s.dataset AND b.nrows = s.nrows AND b.method = 'btree'), 0) AS lat_vs_btree,
		s.present_ms / nullif((SELECT present_ms FROM s b WHERE b.dataset = s.dataset AND b.nrows = s.nrows AND b.method = 'brin_bloom_tuned'), 0) AS lat_vs_brin
	FROM s LEFT JOIN m USING (dataset, nrows, method))
SELECT format(E'## %s, %s rows\n\n| method | build s | size | vs btree | present ms (p95) | absent ms | IN-10 ms | index pages | heap pages (absent) | heap/match | latency vs btree | vs tuned BRIN bloom | planner |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n%s\n',
		dataset, to_char(nrows, 'FM999,999,999'),
		string_agg(format('| %s | %s | %s | %s | %s (%s) | %s | %s | %s | %s (%s) | %s | %s | %s | %s |',
			method, coalesce(round((build_ms / 1000)::numeric, 2)::text, '-'),
			coalesce(pg_size_pretty(bytes::bigint), '-'),
			coalesce(round(size_vs_btree::numeric, 2)::text, '-'),
			round(present_ms::numeric, 3), round(present_p95::numeric, 3),
			round(absent_ms::numeric, 3), coalesce(round(in10_ms::numeric, 3)::text, '-'),
			round(ipages::numeric, 1), round(hpages::numeric, 1), round(hpages_absent::numeric, 1),
			coalesce(round(hom::numeric, 2)::text, '-'),
			coalesce(round(lat_vs_btree::numeric, 2)::text, '-'),
			coalesce(round(lat_vs_brin::numeric, 2)::text, '-'),
			coalesce(planner, '-')),
			E'\n' ORDER BY CASE method WHEN 'scbf' THEN 0 WHEN 'scbf_fpr0.001' THEN 1 WHEN 'btree' THEN 2
				WHEN 'hash' THEN 3 WHEN 'bloom' THEN 4 WHEN 'brin_bloom_tuned' THEN 5 WHEN 'brin_bloom' THEN 6
				WHEN 'brin_minmax' THEN 7 ELSE 8 END))
FROM j GROUP BY dataset, nrows ORDER BY nrows, dataset;

-- inserts
SELECT format(E'## Insert throughput\n\nSingle session: INSERT ... SELECT of %s rows into an empty table with the index (best of two); WAL bytes per row include the heap''s. pgbench: 4 clients, one row per transaction, random customer.\n\n| method | clustered rows/s | random text rows/s | WAL B/row (clustered) | WAL B/row (text) | pgbench tps | vs no index |\n|---|---|---|---|---|---|---|\n%s\n',
	(SELECT max(nrows) FROM bench_metric WHERE metric = 'insert_rows_per_s'),
	string_agg(format('| %s | %s | %s | %s | %s | %s | %s |', method,
		round(c), round(t), round(cw), round(tw), coalesce(round(p)::text, '-'),
		coalesce(round((p / nullif(p0, 0))::numeric, 2)::text, '-')), E'\n' ORDER BY c DESC))
FROM (
	SELECT method,
		max(value) FILTER (WHERE dataset = 'clustered' AND metric = 'insert_rows_per_s')::numeric AS c,
		max(value) FILTER (WHERE dataset = 'random_text' AND metric = 'insert_rows_per_s')::numeric AS t,
		min(value) FILTER (WHERE dataset = 'clustered' AND metric = 'insert_wal_bytes_per_row')::numeric AS cw,
		min(value) FILTER (WHERE dataset = 'random_text' AND metric = 'insert_wal_bytes_per_row')::numeric AS tw,
		max(value) FILTER (WHERE dataset = 'pgbench_insert')::numeric AS p,
		(SELECT value FROM bench_metric WHERE dataset = 'pgbench_insert' AND method = 'none')::numeric AS p0
	FROM bench_metric WHERE metric IN ('insert_rows_per_s', 'insert_wal_bytes_per_row', 'tps')
	GROUP BY method) x;

-- churn
SELECT format(E'## Churn\n\nFive cycles of: delete the rows of 20%% of the customer ids, VACUUM, insert as many rows with new ids (into the freed space). After each cycle, 200 probes of deleted ids and 200 of ids never present. Heap %% is the share of the table a probe reads; touching %% the share of probes that read the heap at all.\n\n| method | cycle | deleted: heap %% | deleted: touching %% | never present: heap %% | never present: touching %% | index pages/probe | median ms | index size | scbf est. FPR |\n|---|---|---|---|---|---|---|---|---|---|\n%s\n',
	string_agg(format('| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |', method, cycle,
		coalesce(round((d_heap * 100)::numeric, 3)::text, '-'), coalesce(round((d_touch * 100)::numeric, 1)::text, '-'),
		round((n_heap * 100)::numeric, 3), round((n_touch * 100)::numeric, 1),
		round(ipages::numeric, 1), round(ms::numeric, 3), pg_size_pretty(bytes),
		coalesce(round(fpr::numeric, 5)::text, '-')), E'\n' ORDER BY method, cycle))
FROM (
	SELECT method, cycle,
		max(heap_share) FILTER (WHERE kind = 'deleted') AS d_heap,
		max(touching_share) FILTER (WHERE kind = 'deleted') AS d_touch,
		max(heap_share) FILTER (WHERE kind = 'never_present') AS n_heap,
		max(touching_share) FILTER (WHERE kind = 'never_present') AS n_touch,
		avg(index_pages) AS ipages, avg(ms) AS ms, max(index_bytes) AS bytes, max(est_fpr) AS fpr
	FROM bench_churn GROUP BY 1, 2) x;
