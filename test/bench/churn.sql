-- test/bench/churn.sql: the churn experiment (issue 2).
--
-- A table of :churn_rows rows with a clustered int4 customer_id (about 20
-- rows per value in adjacent pages), one copy per method so that each index
-- sees the same history.  Five cycles: delete the rows of 20% of the values
-- present, VACUUM, insert as many new rows with new values (they reuse the
-- freed space).  After each cycle, for values deleted so far and for values
-- never present: the share of the heap a probe reads, the share of probes
-- that read the heap at all, index pages per probe, latency, index size.
\set ON_ERROR_STOP on
SET client_min_messages = warning;
SET maintenance_work_mem = '1GB';
DELETE FROM bench_churn;

CREATE TEMP TABLE churn_methods (method text, ddl text);
INSERT INTO churn_methods
SELECT 'scbf', 'CREATE INDEX ON %s USING scbf (customer_id)'
UNION ALL SELECT 'btree', 'CREATE INDEX ON %s (customer_id)'
UNION ALL SELECT 'brin_bloom', 'CREATE INDEX ON %s USING brin (customer_id int4_bloom_ops)'
UNION ALL SELECT 'brin_bloom_tuned',
	'CREATE INDEX ON %s USING brin (customer_id int4_bloom_ops(n_distinct_per_range = 120, false_positive_rate = 0.01)) WITH (pages_per_range = 16)';

-- deleted values so far, and values never present
CREATE TEMP TABLE churn_deleted (cycle int, v int);
CREATE TEMP TABLE churn_never AS SELECT 900000000 + i * 7 AS v FROM generate_series(1, 200) i;

CREATE OR REPLACE FUNCTION churn_table(m text) RETURNS text LANGUAGE sql AS $$
	SELECT 'churn_' || replace(m, '.', '_')
$$;

-- probe the values of one kind on one method's table
CREATE OR REPLACE FUNCTION churn_measure(m text, cyc int, kind text, vals int[]) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
	tbl text := churn_table(m);
	heap_total float8 := pg_relation_size(tbl) / 8192;
	v int;
	r record;
	n int := 0;
	heap float8 := 0;
	touching int := 0;
	ipages float8 := 0;
	times float8[] := '{}';
	idx regclass;
BEGIN
	SELECT indexrelid INTO idx FROM pg_index WHERE indrelid = tbl::regclass;
	PERFORM bench_force(m);
	FOREACH v IN ARRAY vals LOOP
		r := bench_explain(format('SELECT * FROM %s WHERE customer_id = %s', tbl, v));
		n := n + 1;
		heap := heap + r.heap_pages / heap_total;
		touching := touching + (r.heap_pages > 0)::int;
		ipages := ipages + r.index_pages;
		times := times || r.ms;
	END LOOP;
	PERFORM bench_unforce();
	INSERT INTO bench_churn VALUES (m, cyc, kind, n, heap / n, touching::float8 / n, ipages / n,
		(SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY t) FROM unnest(times) t),
		pg_relation_size(idx),
		CASE WHEN m = 'scbf' THEN (SELECT est_fpr FROM scbf_index_info(idx)) END);
END $$;

CREATE OR REPLACE FUNCTION churn_measure_all(cyc int) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	m record;
	deleted int[];
BEGIN
	-- a sample of the values deleted so far (all cycles), the same for every method
	SELECT array_agg(v ORDER BY h) INTO deleted FROM (
		SELECT v, hashint4(v) h FROM churn_deleted ORDER BY hashint4(v) LIMIT 200) x;
	FOR m IN SELECT * FROM churn_methods LOOP
		IF deleted IS NOT NULL THEN
			PERFORM churn_measure(m.method, cyc, 'deleted', deleted);
		END IF;
		PERFORM churn_measure(m.method, cyc, 'never_present', (SELECT array_agg(v) FROM churn_never));
	END LOOP;
END $$;

-- the tables, identical, one index each
SELECT format('DROP TABLE IF EXISTS %s', churn_table(method)) FROM churn_methods \gexec
SELECT format('CREATE TABLE %s (id bigint, customer_id int, code text, amount numeric(10,2))',
			  churn_table(method)) FROM churn_methods \gexec
SELECT format('INSERT INTO %s SELECT g, g / 20, substr(md5(g::text), 1, 12), (g %% 10000) / 100.0
			   FROM generate_series(1, %s) g', churn_table(method), :churn_rows)
FROM churn_methods \gexec
SELECT format('VACUUM ANALYZE %s', churn_table(method)) FROM churn_methods \gexec
SELECT format(ddl, churn_table(method)) FROM churn_methods \gexec
SELECT churn_measure_all(0);

-- five cycles (VACUUM cannot run in a function: psql drives them)
\set cyc 1
\ir churn_cycle.sql
\set cyc 2
\ir churn_cycle.sql
\set cyc 3
\ir churn_cycle.sql
\set cyc 4
\ir churn_cycle.sql
\set cyc 5
\ir churn_cycle.sql

SELECT format('DROP TABLE %s', churn_table(method)) FROM churn_methods \gexec
