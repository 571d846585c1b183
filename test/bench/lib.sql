-- test/bench/lib.sql: measurement functions of the scbf benchmark.
--
-- Every probe is run with EXPLAIN (ANALYZE, BUFFERS, TIMING OFF, FORMAT
-- JSON): its execution time (server side), the buffers of the index node
-- (pages read from the index), and the heap pages the bitmap visited (exact
-- + lossy) or the sequential scan read.  Index methods are measured through
-- bitmap scans, so index and heap pages are counted apart for every method
-- alike.
\set ON_ERROR_STOP on
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS scbf;
CREATE EXTENSION IF NOT EXISTS bloom;

CREATE TABLE IF NOT EXISTS bench_run (key text PRIMARY KEY, value text);

-- one row per probe
CREATE TABLE IF NOT EXISTS bench_probe (
	dataset text, nrows bigint, method text, kind text, probe int,
	ms float8, index_pages bigint, heap_pages bigint, match_pages bigint,
	found bigint);

-- one row per scalar measurement
CREATE TABLE IF NOT EXISTS bench_metric (
	dataset text, nrows bigint, method text, metric text, value float8,
	detail text);

-- the churn experiment, one row per method, cycle and kind of probe
CREATE TABLE IF NOT EXISTS bench_churn (
	method text, cycle int, kind text, probes int, heap_share float8,
	touching_share float8, index_pages float8, ms float8,
	index_bytes bigint, est_fpr float8);

-- Sum a buffer counter over a plan node and its children
CREATE OR REPLACE FUNCTION bench_node_sum(node jsonb, key text) RETURNS bigint
LANGUAGE sql IMMUTABLE AS $$
	SELECT coalesce((node ->> key)::bigint, 0)
$$;

-- Walk a JSON plan: the first node of a given type, depth first
CREATE OR REPLACE FUNCTION bench_find_node(node jsonb, types text[]) RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
	child jsonb;
	hit jsonb;
BEGIN
	IF node ->> 'Node Type' = ANY(types) THEN
		RETURN node;
	END IF;
	FOR child IN SELECT jsonb_array_elements(coalesce(node -> 'Plans', '[]'::jsonb)) LOOP
		hit := bench_find_node(child, types);
		IF hit IS NOT NULL THEN
			RETURN hit;
		END IF;
	END LOOP;
	RETURN NULL;
END $$;

-- Run query q once (already forced to the method) and measure it
DROP FUNCTION IF EXISTS bench_explain(text);
CREATE OR REPLACE FUNCTION bench_explain(q text, OUT ms float8, OUT index_pages bigint,
										 OUT heap_pages bigint, OUT nfound bigint)
LANGUAGE plpgsql AS $$
DECLARE
	plan jsonb;
	top jsonb;
	idx jsonb;
	heap jsonb;
BEGIN
	EXECUTE 'EXPLAIN (ANALYZE, BUFFERS, TIMING OFF, FORMAT JSON) ' || q INTO plan;
	top := plan -> 0;
	ms := (top ->> 'Execution Time')::float8;
	idx := bench_find_node(top -> 'Plan', ARRAY['Bitmap Index Scan', 'BitmapOr', 'Index Scan']);
	heap := bench_find_node(top -> 'Plan', ARRAY['Bitmap Heap Scan', 'Seq Scan']);
	index_pages := coalesce(bench_node_sum(idx, 'Shared Hit Blocks') + bench_node_sum(idx, 'Shared Read Blocks'), 0);
	IF heap ->> 'Node Type' = 'Seq Scan' THEN
		heap_pages := bench_node_sum(heap, 'Shared Hit Blocks') + bench_node_sum(heap, 'Shared Read Blocks');
		nfound := (heap ->> 'Actual Rows')::bigint;
	ELSIF heap IS NOT NULL THEN
		heap_pages := bench_node_sum(heap, 'Exact Heap Blocks') + bench_node_sum(heap, 'Lossy Heap Blocks');
		nfound := (heap ->> 'Actual Rows')::bigint;
	ELSE
		heap_pages := 0;
		nfound := 0;
	END IF;
END $$;

-- Force a method: a sequential scan, or a bitmap scan on the index
CREATE OR REPLACE FUNCTION bench_force(method text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	PERFORM set_config('max_parallel_workers_per_gather', '0', false);
	PERFORM set_config('enable_indexscan', 'off', false);
	PERFORM set_config('enable_indexonlyscan', 'off', false);
	IF method = 'seqscan' THEN
		PERFORM set_config('enable_seqscan', 'on', false);
		PERFORM set_config('enable_bitmapscan', 'off', false);
	ELSE
		PERFORM set_config('enable_seqscan', 'off', false);
		PERFORM set_config('enable_bitmapscan', 'on', false);
	END IF;
END $$;

CREATE OR REPLACE FUNCTION bench_unforce() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	PERFORM set_config('max_parallel_workers_per_gather', '2', false);
	PERFORM set_config('enable_indexscan', 'on', false);
	PERFORM set_config('enable_indexonlyscan', 'on', false);
	PERFORM set_config('enable_seqscan', 'on', false);
	PERFORM set_config('enable_bitmapscan', 'on', false);
END $$;

-- Run a probe template (%s: the value literal(s)) for each value, at most
-- maxprobes and for at most budget_ms of execution time, after one warm-up
-- run; record each probe with the heap pages that really hold a match
CREATE OR REPLACE FUNCTION bench_probes(dataset text, nrows bigint, method text, kind text,
										tbl text, template text, vals text[], match_pages bigint[],
										maxprobes int, budget_ms float8) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
	i int := 0;
	spent float8 := 0;
	r record;
BEGIN
	PERFORM bench_force(method);
	PERFORM bench_explain(format(template, tbl, vals[1]));	-- warm-up
	FOR i IN 1 .. least(maxprobes, array_length(vals, 1)) LOOP
		r := bench_explain(format(template, tbl, vals[i]));
		INSERT INTO bench_probe VALUES (dataset, nrows, method, kind, i, r.ms,
			r.index_pages, r.heap_pages, match_pages[i], r.nfound);
		spent := spent + r.ms;
		EXIT WHEN spent > budget_ms AND i >= 5;
	END LOOP;
	PERFORM bench_unforce();
END $$;

-- Heap pages holding rows that match a condition (by a sequential scan)
CREATE OR REPLACE FUNCTION bench_match_pages(tbl text, cond text) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
	n bigint;
BEGIN
	PERFORM bench_force('seqscan');
	EXECUTE format('SELECT count(DISTINCT (ctid::text::point)[0]) FROM %s WHERE %s', tbl, cond) INTO n;
	PERFORM bench_unforce();
	RETURN n;
END $$;

-- Build an index, recording build time and size
CREATE OR REPLACE FUNCTION bench_build(dataset text, nrows bigint, method text, ddl text,
									   idxname text) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
	t0 timestamptz;
	ms float8;
BEGIN
	IF ddl IS NULL THEN
		RETURN;
	END IF;
	t0 := clock_timestamp();
	EXECUTE ddl;
	ms := extract(epoch FROM clock_timestamp() - t0) * 1000;
	INSERT INTO bench_metric VALUES
		(dataset, nrows, method, 'build_ms', ms, ddl),
		(dataset, nrows, method, 'index_bytes', pg_relation_size(idxname::regclass), NULL);
END $$;

-- What the planner picks at default settings
CREATE OR REPLACE FUNCTION bench_planner(dataset text, nrows bigint, method text, q text) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
	plan jsonb;
	node jsonb;
	choice text;
BEGIN
	PERFORM bench_unforce();
	EXECUTE 'EXPLAIN (FORMAT JSON) ' || q INTO plan;
	node := bench_find_node(plan -> 0 -> 'Plan', ARRAY['Bitmap Index Scan', 'Index Scan', 'Index Only Scan']);
	choice := CASE WHEN node IS NULL THEN 'seq scan' ELSE lower(node ->> 'Node Type') END;
	INSERT INTO bench_metric VALUES (dataset, nrows, method, 'planner_uses_index',
		CASE WHEN node IS NULL THEN 0 ELSE 1 END, choice);
END $$;

-- Median and 95th percentile of a kind of probe; the heap pages that really
-- hold a match are those of the btree's exact bitmap for the same probe
CREATE OR REPLACE VIEW bench_summary AS
SELECT p.dataset, p.nrows, p.method, p.kind, count(*) AS probes,
	percentile_cont(0.5) WITHIN GROUP (ORDER BY p.ms) AS median_ms,
	percentile_cont(0.95) WITHIN GROUP (ORDER BY p.ms) AS p95_ms,
	avg(p.index_pages) AS index_pages, avg(p.heap_pages) AS heap_pages,
	avg(b.heap_pages) AS match_pages,
	CASE WHEN sum(b.heap_pages) > 0 THEN sum(p.heap_pages)::float8 / sum(b.heap_pages) END AS heap_over_match
FROM bench_probe p
LEFT JOIN bench_probe b ON b.dataset = p.dataset AND b.nrows = p.nrows AND b.kind = p.kind
	AND b.probe = p.probe AND b.method = 'btree'
GROUP BY 1, 2, 3, 4;
