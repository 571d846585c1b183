-- test/bench/pgbench_insert.sql: one order per transaction, random customer
\set c random(1, 10000000)
INSERT INTO pgb (customer_id, code, status) VALUES (:c, md5(:c::text), :c % 10);
