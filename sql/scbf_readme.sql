--
-- scbf_readme: the examples of README.md and doc/*.md.  Every output block
-- of those documents is copied from this test's expected output, so a
-- change that alters one fails here until the documents follow:
--   README.md: "Getting Started", "Index options" and "Monitoring";
--   doc/diagnostics.md: the same table after churn, and every diagnostic;
--   doc/mathematics.md: the mathematics functions.
-- EXPLAIN goes through readme_explain(), which leaves out the planning
-- buffers (they depend on the session's catalog caches) and what
-- PostgreSQL 18 adds (Index Searches, row counts with two decimals), so
-- that the output is the same on every major.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS scbf;
RESET client_min_messages;
\getenv abs_srcdir PG_ABS_SRCDIR
\set scbf_same_sql :abs_srcdir '/sql/include/scbf_same.sql'
\set ECHO none
\i :scbf_same_sql
CREATE FUNCTION readme_explain(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q
	LOOP
		EXIT WHEN line = 'Planning:';
		CONTINUE WHEN line ~ '^ *Index Searches: ';
		RETURN NEXT regexp_replace(line, 'rows=(\d+)\.00 ', 'rows=\1 ');
	END LOOP;
END $$;
-- index pages a query's Bitmap Index Scan read
CREATE FUNCTION readme_index_pages(q text) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
	plan json;
	node json;
BEGIN
	EXECUTE 'EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY OFF, FORMAT JSON) ' || q
		INTO plan;
	node := plan -> 0 -> 'Plan' -> 'Plans' -> 0;
	IF node ->> 'Node Type' IS DISTINCT FROM 'Bitmap Index Scan' THEN
		RAISE EXCEPTION 'not a bitmap index scan: %', plan;
	END IF;
	RETURN (node ->> 'Shared Hit Blocks')::int + (node ->> 'Shared Read Blocks')::int;
END $$;
-- an scbf index on orders(col) WITH (opts): its layout, size and the index
-- pages of a probe for a present and an absent value; dropped again
CREATE FUNCTION readme_options(col text, opts text)
RETURNS TABLE (options text, k int, filters int, size text, bytes_per_row numeric,
			   present_pages int, absent_pages int)
LANGUAGE plpgsql SET enable_seqscan = off AS $$
DECLARE
	present text;
BEGIN
	EXECUTE format('CREATE INDEX orders_options ON orders USING scbf (%I) WITH (%s)',
				   col, opts);
	EXECUTE format('SELECT %I::text FROM orders WHERE id = 4242', col) INTO present;
	options := opts;
	SELECT i.k, i.filters, pg_size_pretty(pg_relation_size('orders_options')),
		   round(i.bytes_per_heap_tuple::numeric, 1)
	INTO k, filters, size, bytes_per_row
	FROM scbf_index_info('orders_options') i;
	present_pages := readme_index_pages(format('SELECT * FROM orders WHERE %I = %L', col, present));
	absent_pages := readme_index_pages(format('SELECT * FROM orders WHERE %I = %L', col, '-1'));
	DROP INDEX orders_options;
	RETURN NEXT;
END $$;
\set ECHO all

--
-- README.md, "Getting Started"
--
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
ANALYZE orders;

-- at the default settings the planner picks the index
SELECT readme_explain('SELECT * FROM orders WHERE customer_id = 4128') AS "QUERY PLAN";
SELECT readme_explain('SELECT * FROM orders WHERE customer_id = 30001') AS "QUERY PLAN";
SELECT readme_explain('SELECT * FROM orders WHERE customer_id IN (4128, 1017, 30001)') AS "QUERY PLAN";
SELECT scbf_same('SELECT * FROM orders WHERE customer_id = 4128');
SELECT scbf_empty('SELECT * FROM orders WHERE customer_id = 30001');
SELECT scbf_same('SELECT * FROM orders WHERE customer_id IN (4128, 1017, 30001)');

--
-- README.md, "Index options": the code column (every value distinct) under
-- other options, one index at a time, beside a btree
--
SELECT * FROM readme_options('code', 'false_positive_rate = 0.0001')
UNION ALL SELECT * FROM readme_options('code', 'false_positive_rate = 0.001')
UNION ALL SELECT * FROM readme_options('code', 'false_positive_rate = 0.01')
UNION ALL SELECT * FROM readme_options('code', 'pages_per_segment = 32')
UNION ALL SELECT * FROM readme_options('code', 'pages_per_segment = 8');
CREATE INDEX orders_code_btree ON orders (code);
SELECT pg_size_pretty(pg_relation_size('orders_code_btree')) AS btree_size;
DROP INDEX orders_code_btree;

--
-- doc/diagnostics.md: churn, then every diagnostic
--
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
SELECT readme_explain('SELECT * FROM orders WHERE customer_id = 4128') AS "QUERY PLAN";
SELECT scbf_same('SELECT * FROM orders WHERE customer_id = 4128');
SELECT * FROM scbf_probe('orders_customer_scbf', 4128);
-- a customer who has no orders, but whom one filter lets through
SELECT readme_explain('SELECT * FROM orders WHERE customer_id = 26648') AS "QUERY PLAN";
SELECT scbf_empty('SELECT * FROM orders WHERE customer_id = 26648');
SELECT * FROM scbf_probe('orders_customer_scbf', 26648);
SELECT count(DISTINCT v) AS absent_with_maybe
FROM generate_series(20001, 40000) v, scbf_probe('orders_customer_scbf', v) p
WHERE p.verdict = 'maybe';
-- a value that every filter rejects, in the text form
SELECT * FROM scbf_probe('orders_customer_scbf', '30001');
SELECT readme_explain('SELECT * FROM orders WHERE customer_id = 30001') AS "QUERY PLAN";
SELECT scbf_empty('SELECT * FROM orders WHERE customer_id = 30001');

-- scbf_verify
SELECT scbf_verify('orders_customer_scbf');
SELECT scbf_verify('orders_customer_scbf', heapallindexed => true);

-- README.md, "Monitoring": every scbf index of the database at a glance
SELECT i.indexrelid::regclass AS index_name, s.segments, s.max_chain, s.entries_live,
       s.entries_pending, round(s.est_fpr::numeric, 5) AS est_fpr,
       round(s.worst_segment_fpr::numeric, 5) AS worst_fpr, s.stale_counters,
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

--
-- doc/mathematics.md
--
-- scbf's slices (k) and filter bits per distinct key for a target rate,
-- beside the paper's optimal k and counters per key
SELECT p AS fpr, k, round(fill::numeric, 4) AS fill,
       round((k / -ln(1 - fill))::numeric, 1) AS bits_per_key,
       scbf_optimal_k(p) AS paper_k,
       round(scbf_counters_per_element(p)::numeric, 1) AS paper_counters_per_key
FROM unnest(ARRAY[0.1, 0.01, 0.001, 0.0001]::float8[]) p,
     LATERAL (SELECT ceil(log(2, (1 / p)::numeric) / 2.7)::int AS k) kk,
     LATERAL (SELECT p ^ (1.0 / k) AS fill) ff;

-- the false-positive rate of a chain of d full filters
SELECT d AS filters, round(scbf_chain_fpr(0.0001, d)::numeric, 8) AS chain_fpr
FROM generate_series(1, 4) d;

-- the paper's Table 1 as printed, and what its n really gives
SELECT fpr, k, m, n, round(n_real::numeric, 2) AS n_real,
       round(n_half_fill::numeric, 2) AS n_half_fill, round(n_exact::numeric, 2) AS n_exact,
       to_char(fpr_at_n, '9.9999EEEE') AS fpr_at_n
FROM scbf_paper_table1();

-- Tables 2 and 4: the printed values beside the corrected ones
SELECT b, j, printed, to_char(formula_without_e, '9.999EEEE') AS formula_without_e,
       to_char(correct_bound, '9.999EEEE') AS correct_bound
FROM scbf_paper_table2();
SELECT b, printed, naive_double, to_char(exact, '9.99999EEEE') AS exact
FROM scbf_paper_table4() WHERE b = 4;

-- counters of b bits at the optimal load (ln 2 per counter): wrapping and
-- saturating; any of 368,640 four-bit counters reaching 16
SELECT bits,
       to_char(scbf_counter_overflow(bits), '9.99999EEEE') AS wraps,
       to_char(scbf_counter_overflow(bits, sticky => true), '9.99999EEEE') AS saturates
FROM unnest(ARRAY[2, 3, 4, 8]) bits;
SELECT to_char(upper, '9.99999EEEE') AS any_of_368640_reaches_16
FROM scbf_any_counter_poisson(ln(2), 16, 368640);

DROP FUNCTION readme_explain, readme_index_pages, readme_options;
DROP FUNCTION scbf_same, scbf_empty, scbf_noindex, scbf_compare;
