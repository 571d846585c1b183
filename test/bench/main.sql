-- test/bench/main.sql: every method on every data set, for one table size.
--
-- psql variables: nrows (table size), maxprobes (probes per kind),
-- budget_ms (stop a kind of probe after this much execution time, but not
-- before 5 probes).
--
-- The table is an orders table: customer_id arrives in bursts (20 orders per
-- customer in adjacent pages), code is a random 12-character string (all
-- distinct), status has 10 values spread everywhere.  Four data sets:
-- clustered (customer_id), random text (code), low cardinality (status) and
-- multi-column (customer_id AND status).
\set ON_ERROR_STOP on
SET client_min_messages = warning;
SET maintenance_work_mem = '1GB';
SELECT 'bench_t_' || :nrows AS tbl \gset

DROP TABLE IF EXISTS :tbl;
CREATE TABLE :tbl (id bigint, customer_id int, code text, status int, amount numeric(10,2));
INSERT INTO :tbl
SELECT g, g / 20, substr(md5(g::text || 'c'), 1, 12), abs(hashint4(g::int)) % 10,
	(g % 10000) / 100.0
FROM generate_series(1, :nrows) g;
VACUUM ANALYZE :tbl;
INSERT INTO bench_metric VALUES
	('table', :nrows, 'heap', 'heap_bytes', pg_relation_size(:'tbl'), NULL),
	('table', :nrows, 'heap', 'heap_pages', pg_relation_size(:'tbl') / 8192, NULL);

-- distinct values per 16-page range, for the tuned BRIN bloom
CREATE TEMP TABLE ndist AS
SELECT avg(c) AS customer_id, avg(t) AS code, avg(s) AS status
FROM (SELECT (ctid::text::point)[0]::int / 16 AS r, count(DISTINCT customer_id) c,
			 count(DISTINCT code) t, count(DISTINCT status) s
	  FROM :tbl WHERE id % 7 = 0 OR true GROUP BY 1) x;

-- the methods: name, DDL template (%1$s table, %2$s columns, %3$s BRIN bloom
-- opclasses, %4$s tuned BRIN bloom opclasses, %5$s bloom column options)
CREATE TEMP TABLE methods (ord int, method text, ddl text, multi bool);
INSERT INTO methods VALUES
	(1, 'btree', 'CREATE INDEX bench_idx ON %1$s (%2$s)', true),
	(2, 'seqscan', NULL, true),
	(3, 'hash', 'CREATE INDEX bench_idx ON %1$s USING hash (%2$s)', false),
	(4, 'bloom', 'CREATE INDEX bench_idx ON %1$s USING bloom (%2$s) WITH (length = 80, %5$s)', true),
	(5, 'brin_minmax', 'CREATE INDEX bench_idx ON %1$s USING brin (%2$s)', true),
	(6, 'brin_bloom', 'CREATE INDEX bench_idx ON %1$s USING brin (%3$s)', true),
	(7, 'brin_bloom_tuned', 'CREATE INDEX bench_idx ON %1$s USING brin (%4$s) WITH (pages_per_range = 16)', true),
	(8, 'scbf', 'CREATE INDEX bench_idx ON %1$s USING scbf (%2$s)', true),
	(9, 'scbf_fpr0.001', 'CREATE INDEX bench_idx ON %1$s USING scbf (%2$s) WITH (false_positive_rate = 0.001)', true);

-- the data sets: columns, opclasses, probe templates (%1$s table, %2$s value)
CREATE TEMP TABLE datasets (dataset text, cols text, bloomops text, tunedops text,
	bloomcols text, eq text, in10 text);
INSERT INTO datasets
SELECT 'clustered', 'customer_id', 'customer_id int4_bloom_ops',
	format('customer_id int4_bloom_ops(n_distinct_per_range = %s, false_positive_rate = 0.01)',
		   ceil(customer_id * 1.2)),
	'col1 = 4',
	'SELECT * FROM %1$s WHERE customer_id = %2$s', 'SELECT * FROM %1$s WHERE customer_id IN (%2$s)'
FROM ndist
UNION ALL
SELECT 'random_text', 'code', 'code text_bloom_ops',
	format('code text_bloom_ops(n_distinct_per_range = %s, false_positive_rate = 0.01)',
		   ceil(code * 1.2)),
	'col1 = 4',
	'SELECT * FROM %1$s WHERE code = %2$s', 'SELECT * FROM %1$s WHERE code IN (%2$s)'
FROM ndist
UNION ALL
SELECT 'low_cardinality', 'status', 'status int4_bloom_ops',
	format('status int4_bloom_ops(n_distinct_per_range = %s, false_positive_rate = 0.01)',
		   greatest(16, ceil(status * 1.2))),
	'col1 = 4',
	'SELECT * FROM %1$s WHERE status = %2$s', NULL
FROM ndist
UNION ALL
SELECT 'multi_column', 'customer_id, status', 'customer_id int4_bloom_ops, status int4_bloom_ops',
	format('customer_id int4_bloom_ops(n_distinct_per_range = %s, false_positive_rate = 0.01), '
		   'status int4_bloom_ops(n_distinct_per_range = %s, false_positive_rate = 0.01)',
		   ceil(customer_id * 1.2), greatest(16, ceil(status * 1.2))),
	'col1 = 4, col2 = 2',
	'SELECT * FROM %1$s WHERE %2$s', NULL
FROM ndist;

-- probe values: present (from the table), absent, IN lists of 10
CREATE TEMP TABLE probes (dataset text, kind text, vals text[]);
INSERT INTO probes
SELECT 'clustered', 'present', array_agg(((i * 7919) % (:nrows / 20))::text ORDER BY i)
FROM generate_series(1, 200) i
UNION ALL
SELECT 'clustered', 'absent', array_agg((-i)::text ORDER BY i) FROM generate_series(1, 200) i
UNION ALL
SELECT 'clustered', 'in10', array_agg(v ORDER BY i) FROM (
	SELECT i, string_agg(((i * 7919 + j * 104729) % (:nrows / 20))::text, ', ') v
	FROM generate_series(1, 100) i, generate_series(1, 10) j GROUP BY i) x
UNION ALL
SELECT 'random_text', 'present',
	array_agg(quote_literal(substr(md5(((i * 7919) % :nrows + 1)::text || 'c'), 1, 12)) ORDER BY i)
FROM generate_series(1, 200) i
UNION ALL
SELECT 'random_text', 'absent', array_agg(quote_literal('absent-' || i) ORDER BY i)
FROM generate_series(1, 200) i
UNION ALL
SELECT 'random_text', 'in10', array_agg(v ORDER BY i) FROM (
	SELECT i, string_agg(quote_literal(substr(md5(((i * 7919 + j * 104729) % :nrows + 1)::text || 'c'), 1, 12)), ', ') v
	FROM generate_series(1, 100) i, generate_series(1, 10) j GROUP BY i) x
UNION ALL
SELECT 'low_cardinality', 'present', array_agg((i % 10)::text ORDER BY i) FROM generate_series(1, 20) i
UNION ALL
SELECT 'low_cardinality', 'absent', array_agg((10 + i)::text ORDER BY i) FROM generate_series(1, 20) i
UNION ALL
SELECT 'multi_column', 'present',
	array_agg(format('customer_id = %s AND status = %s', (g / 20), abs(hashint4(g::int)) % 10) ORDER BY i)
FROM (SELECT i, (i * 7919) % :nrows + 1 AS g FROM generate_series(1, 200) i) x
UNION ALL
SELECT 'multi_column', 'absent',
	array_agg(format('customer_id = %s AND status = %s', (g / 20), (abs(hashint4(g::int)) % 10 + 5) % 10) ORDER BY i)
FROM (SELECT i, (i * 7919) % :nrows + 1 AS g FROM generate_series(1, 200) i) x;

-- run every method on every data set
CREATE OR REPLACE FUNCTION bench_all(tbl text, nrows bigint, maxprobes int, budget_ms float8)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	d record;
	m record;
	p record;
	tmpl text;
	matches bigint[];
BEGIN
	FOR d IN SELECT * FROM datasets LOOP
		FOR m IN SELECT * FROM methods WHERE multi OR d.dataset <> 'multi_column' ORDER BY ord LOOP
			RAISE NOTICE '% rows, %: %', nrows, d.dataset, m.method;
			EXECUTE 'DROP INDEX IF EXISTS bench_idx';
			PERFORM bench_build(d.dataset, nrows, m.method,
								format(m.ddl, tbl, d.cols, d.bloomops, d.tunedops, d.bloomcols),
								'bench_idx');
			FOR p IN SELECT * FROM probes WHERE dataset = d.dataset LOOP
				tmpl := CASE WHEN p.kind = 'in10' THEN d.in10 ELSE d.eq END;
				CONTINUE WHEN tmpl IS NULL;
				-- the btree runs first: its exact bitmap gives the heap pages
				-- that really hold a match
				SELECT array_agg(heap_pages ORDER BY probe) INTO matches
				FROM bench_probe b WHERE b.dataset = d.dataset AND b.nrows = bench_all.nrows
					AND b.method = 'btree' AND b.kind = p.kind;
				PERFORM bench_probes(d.dataset, nrows, m.method, p.kind, tbl, tmpl, p.vals,
									 matches, maxprobes, budget_ms);
			END LOOP;
			PERFORM bench_planner(d.dataset, nrows, m.method,
								  format(d.eq, tbl, (SELECT vals[1] FROM probes
													 WHERE dataset = d.dataset AND kind = 'present')));
			EXECUTE 'DROP INDEX IF EXISTS bench_idx';
		END LOOP;
	END LOOP;
END $$;

SELECT bench_all(:'tbl', :nrows, :maxprobes, :budget_ms);
DROP TABLE :tbl;
