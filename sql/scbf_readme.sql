--
-- scbf_readme: the example of README.md's "Diagnostics" section, whose
-- output blocks are copied from this test's expected output: the orders
-- table, its churn, and every diagnostic query the section shows.  The
-- queries the section runs with EXPLAIN ANALYZE are compared with a
-- sequential scan here instead (their timings are not reproducible).
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS scbf;
RESET client_min_messages;
\getenv abs_srcdir PG_ABS_SRCDIR
\set scbf_same_sql :abs_srcdir '/sql/include/scbf_same.sql'
\set ECHO none
\i :scbf_same_sql
\set ECHO all

CREATE TABLE orders (id bigint, customer_id int4, code text, status text)
  WITH (autovacuum_enabled = off);   -- so that the state below is reproducible

-- 200,000 orders; each customer orders in bursts of 20 consecutive rows
INSERT INTO orders
SELECT i,
       1 + (hashint4(i / 20) & 2147483647) % 5000,
       substr(md5(i::text), 1, 12),
       (ARRAY['new', 'paid', 'shipped', 'delivered', 'cancelled'])[1 + i % 5]
FROM generate_series(1, 200000) i;

CREATE INDEX orders_customer_scbf ON orders USING scbf (customer_id);

-- churn: delete 48,000 rows, vacuum, then insert 40,000 into the freed space
DELETE FROM orders WHERE status = 'cancelled' OR id BETWEEN 60001 AND 70000;
CALL scbf_wait_snapshots();
VACUUM orders;
INSERT INTO orders                    -- more bursts of 20 from known customers
SELECT i, 1 + (hashint4(i / 20) & 2147483647) % 5000, substr(md5(i::text), 1, 12), 'new'
FROM generate_series(200001, 230000) i;
INSERT INTO orders                    -- single orders from 20,000 customers
SELECT i, 1 + (hashint4(i) & 2147483647) % 20000, substr(md5(i::text), 1, 12), 'new'
FROM generate_series(230001, 240000) i;
ANALYZE orders;
SELECT pg_relation_size('orders') / 8192 AS table_pages,
       pg_relation_size('orders_customer_scbf') / 8192 AS index_pages;

-- scbf_index_info
\x
SELECT * FROM scbf_index_info('orders_customer_scbf');
\x

-- scbf_segments
SELECT segno, first_block, last_block, chain_length, ledger_pages, entries, nulls,
       round(fpr::numeric, 8) AS fpr, round(fill::numeric, 4) AS fill,
       max_count, saturated, flags
FROM scbf_segments('orders_customer_scbf');

-- scbf_filters
SELECT segno, filter, serial, state, roots, ledger_pages, entries,
       round(fill::numeric, 4) AS fill,
       round(fpr::numeric, 8) AS fpr, max_count, nonzero, saturated, stale,
       round(est_keys) AS est_keys
FROM scbf_filters('orders_customer_scbf')
WHERE segno BETWEEN 3 AND 6;
SELECT segno, filter,
       ARRAY(SELECT round(s::numeric, 3) FROM unnest(slice_fill) s) AS slice_fill
FROM scbf_filters('orders_customer_scbf')
WHERE segno BETWEEN 3 AND 6;

-- scbf_pages
SELECT kind, count(*) AS pages, sum(entries) AS entries
FROM scbf_pages('orders_customer_scbf')
GROUP BY kind ORDER BY min(blkno);

SELECT * FROM scbf_pages('orders_customer_scbf')
WHERE kind IN ('meta', 'table') OR segno = 0
   OR kind IN ('rows', 'pending') AND block_index = 0
ORDER BY blkno;

-- why did my query read this?  A customer who has orders
SELECT scbf_same('SELECT * FROM orders WHERE customer_id = 4128');
SELECT * FROM scbf_probe('orders_customer_scbf', 4128);
-- a customer who has no orders, but whom one filter lets through
SELECT scbf_empty('SELECT * FROM orders WHERE customer_id = 26648');
SELECT * FROM scbf_probe('orders_customer_scbf', 26648);
SELECT count(DISTINCT v) AS absent_with_maybe
FROM generate_series(20001, 40000) v, scbf_probe('orders_customer_scbf', v) p
WHERE p.verdict = 'maybe';
-- a value that every filter rejects, in the text form
SELECT * FROM scbf_probe('orders_customer_scbf', '30001');
SELECT scbf_empty('SELECT * FROM orders WHERE customer_id = 30001');

-- scbf_verify
SELECT scbf_verify('orders_customer_scbf');
SELECT scbf_verify('orders_customer_scbf', heapallindexed => true);

-- every scbf index of the database at a glance
SELECT i.indexrelid::regclass AS index_name, s.segments, s.max_chain, s.entries_live,
       round(s.est_fpr::numeric, 5) AS est_fpr, round(s.worst_segment_fpr::numeric, 5) AS worst_fpr,
       s.max_count, s.saturated_counters, s.stale_counters,
       pg_size_pretty(pg_relation_size(i.indexrelid)) AS size
FROM pg_index i
JOIN pg_class c ON c.oid = i.indexrelid
JOIN pg_am am ON am.oid = c.relam AND am.amname = 'scbf',
     scbf_index_info(i.indexrelid) s;

-- a VACUUM after the queries: it frees the leaves the first one
-- superseded and folds the pending single orders
CALL scbf_wait_snapshots();
VACUUM orders;
SELECT filters, max_chain, pages_free, entries_pending,
       round(worst_segment_fpr::numeric, 5) AS worst_segment_fpr
FROM scbf_index_info('orders_customer_scbf');
SELECT chain_length FROM scbf_segments('orders_customer_scbf') WHERE segno = 6;
SELECT scbf_same('SELECT * FROM orders WHERE customer_id = 4128');
SELECT scbf_verify('orders_customer_scbf', heapallindexed => true);

DROP TABLE orders;
DROP FUNCTION scbf_same, scbf_empty, scbf_noindex, scbf_compare;
