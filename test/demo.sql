-- test/demo.sql: what scbf does, in one psql session (run by test/run-demo).
\set ON_ERROR_STOP on
\pset pager off
SET client_min_messages = warning;

\echo
\echo '== An orders table: 1,000,000 rows, customer_id arrives in bursts (about'
\echo '== 20 orders per customer in adjacent pages), code is a random 12-character string.'
CREATE EXTENSION IF NOT EXISTS scbf;
DROP TABLE IF EXISTS orders;
CREATE TABLE orders (
	id bigint GENERATED ALWAYS AS IDENTITY,
	customer_id int NOT NULL,
	code text NOT NULL,
	status text NOT NULL,
	amount numeric(10,2) NOT NULL
);
INSERT INTO orders (customer_id, code, status, amount)
SELECT g / 20,
	   substr(md5(g::text), 1, 12),
	   (ARRAY['new', 'paid', 'shipped', 'returned'])[1 + g % 4],
	   (g % 10000) / 100.0
FROM generate_series(1, 1000000) g;
VACUUM ANALYZE orders;

\echo
\echo '== scbf indexes on the two equality columns'
\timing on
CREATE INDEX orders_customer_scbf ON orders USING scbf (customer_id);
CREATE INDEX orders_code_scbf ON orders USING scbf (code) WITH (false_positive_rate = 0.01);
\timing off
ANALYZE orders;

\echo
\echo '== A customer that exists: the filters skip every segment but one, the ledger gives exact TIDs'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT * FROM orders WHERE customer_id = 4242;

\echo
\echo '== A customer that does not exist: no heap page is read'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT * FROM orders WHERE customer_id = -1;

\echo
\echo '== IN lists are one index pass'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT * FROM orders WHERE customer_id IN (7, 70, 700, 7000, 70000);

\echo
\echo '== A random code, and a bigint parameter against the int column (cross-type)'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT * FROM orders WHERE code = substr(md5('123456'), 1, 12);
PREPARE by_customer(bigint) AS SELECT count(*) FROM orders WHERE customer_id = $1;
EXECUTE by_customer(123);

\echo
\echo '== A value in every segment (a quarter of the rows are paid): the planner weighs the index against a sequential scan, as for a btree'
CREATE INDEX orders_status_scbf ON orders USING scbf (status);
ANALYZE orders;
EXPLAIN (COSTS OFF) SELECT * FROM orders WHERE status = 'paid';
DROP INDEX orders_status_scbf;

\echo
\echo '== What the index holds'
SELECT * FROM scbf_index_info('orders_code_scbf') \gx
SELECT segno, first_block, last_block, chain_length, entries, round(fpr::numeric, 5) AS fpr, flags
FROM scbf_segments('orders_customer_scbf') LIMIT 5;

\echo
\echo '== Why a probe reads what it reads'
SELECT * FROM scbf_probe('orders_customer_scbf', 4242);

\echo
\echo '== Churn: delete the orders of 20% of the customers, VACUUM, insert new ones'
DELETE FROM orders WHERE customer_id % 5 = 0;
VACUUM orders;
INSERT INTO orders (customer_id, code, status, amount)
SELECT 100000 + g / 20, substr(md5('new' || g), 1, 12), 'new', 1
FROM generate_series(1, 200000) g;
\echo 'a deleted customer now reads no heap page:'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT * FROM orders WHERE customer_id = 4240;

\echo
\echo '== Verify: every live row has its ledger entry and tests positive in its filter'
SELECT scbf_verify('orders_customer_scbf', heapallindexed => true);
SELECT scbf_verify('orders_code_scbf', heapallindexed => true);

\echo
\echo '== Sizes next to btree (the scbf indexes after the churn above, the btrees built now)'
CREATE INDEX orders_customer_btree ON orders (customer_id);
CREATE INDEX orders_code_btree ON orders (code);
SELECT c.relname AS index, am.amname AS method, pg_size_pretty(pg_relation_size(c.oid)) AS size
FROM pg_class c JOIN pg_index i ON i.indexrelid = c.oid JOIN pg_am am ON am.oid = c.relam
WHERE i.indrelid = 'orders'::regclass ORDER BY c.relname;
