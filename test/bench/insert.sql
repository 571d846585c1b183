-- test/bench/insert.sql: insert throughput with each index, single session.
-- psql variable ins_rows: rows per INSERT ... SELECT.
\set ON_ERROR_STOP on
SET client_min_messages = warning;
SET max_parallel_workers_per_gather = 0;

CREATE TEMP TABLE ins_methods (method text, ddl_clustered text, ddl_text text);
INSERT INTO ins_methods VALUES
	('none', NULL, NULL),
	('btree', 'CREATE INDEX ON ins (customer_id)', 'CREATE INDEX ON ins (code)'),
	('hash', 'CREATE INDEX ON ins USING hash (customer_id)', 'CREATE INDEX ON ins USING hash (code)'),
	('bloom', 'CREATE INDEX ON ins USING bloom (customer_id) WITH (length = 80, col1 = 4)',
			  'CREATE INDEX ON ins USING bloom (code) WITH (length = 80, col1 = 4)'),
	('brin_minmax', 'CREATE INDEX ON ins USING brin (customer_id)', 'CREATE INDEX ON ins USING brin (code)'),
	('brin_bloom', 'CREATE INDEX ON ins USING brin (customer_id int4_bloom_ops)',
				   'CREATE INDEX ON ins USING brin (code text_bloom_ops)'),
	('scbf', 'CREATE INDEX ON ins USING scbf (customer_id)', 'CREATE INDEX ON ins USING scbf (code)');

CREATE OR REPLACE FUNCTION ins_measure(dataset text, method text, ddl text, nrows int) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
	t0 timestamptz;
	ms float8;
	w0 pg_lsn;
	wal float8;
BEGIN
	DROP TABLE IF EXISTS ins;
	CREATE TABLE ins (id bigint, customer_id int, code text, status int);
	IF ddl IS NOT NULL THEN
		EXECUTE ddl;
	END IF;
	w0 := pg_current_wal_insert_lsn();
	t0 := clock_timestamp();
	INSERT INTO ins SELECT g, g / 20, substr(md5(g::text || 'i'), 1, 12), g % 10
	FROM generate_series(1, nrows) g;
	ms := extract(epoch FROM clock_timestamp() - t0) * 1000;
	wal := pg_current_wal_insert_lsn() - w0;
	INSERT INTO bench_metric VALUES
		(dataset, nrows, method, 'insert_rows_per_s', nrows / (ms / 1000), ddl),
		(dataset, nrows, method, 'insert_wal_bytes_per_row', wal / nrows, ddl);
	DROP TABLE ins;
END $$;

SELECT ins_measure('clustered', method, ddl_clustered, :ins_rows) FROM ins_methods;
SELECT ins_measure('random_text', method, ddl_text, :ins_rows) FROM ins_methods;
-- a second round: timings on a shared machine drift, the best of two counts
SELECT ins_measure('clustered', method, ddl_clustered, :ins_rows) FROM ins_methods;
SELECT ins_measure('random_text', method, ddl_text, :ins_rows) FROM ins_methods;
