--
-- scbf_planner: with default planner settings, a selective equality uses
-- the index, and a predicate that matches nearly every segment does not.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS scbf;
RESET client_min_messages;

CREATE TABLE pl (id int, customer int, status text, code text);
INSERT INTO pl SELECT g, g / 20, (ARRAY['new', 'paid', 'shipped', 'done'])[1 + g % 4],
	md5(g::text)
FROM generate_series(1, 200000) g;
CREATE INDEX pl_customer ON pl USING scbf (customer);
CREATE INDEX pl_status ON pl USING scbf (status);
CREATE INDEX pl_code ON pl USING scbf (code);
VACUUM ANALYZE pl;

-- selective: the index
EXPLAIN (COSTS OFF) SELECT * FROM pl WHERE customer = 4242;
EXPLAIN (COSTS OFF) SELECT * FROM pl WHERE customer IN (1, 2, 3);
EXPLAIN (COSTS OFF) SELECT * FROM pl WHERE code = md5('777');
EXPLAIN (COSTS OFF) SELECT * FROM pl WHERE customer = 4242 AND status = 'paid';
-- everywhere: a sequential scan
EXPLAIN (COSTS OFF) SELECT * FROM pl WHERE status = 'paid';
EXPLAIN (COSTS OFF) SELECT * FROM pl WHERE status IN ('new', 'paid');
-- not an equality: not the index
EXPLAIN (COSTS OFF) SELECT * FROM pl WHERE customer < 10;
-- the answers
SELECT count(*) FROM pl WHERE customer = 4242;
SELECT count(*) FROM pl WHERE code = md5('777');
SELECT count(*) FROM pl WHERE customer = 4242 AND status = 'paid';

-- a btree on the same column is cheaper to probe: the planner prefers it
CREATE INDEX pl_customer_btree ON pl (customer);
EXPLAIN (COSTS OFF) SELECT * FROM pl WHERE customer = 4242;
DROP INDEX pl_customer_btree;

-- statistics: the bitmap index scans were counted
SELECT pg_stat_force_next_flush();
SELECT idx_scan > 0 AS scanned FROM pg_stat_user_indexes WHERE indexrelname = 'pl_customer';

DROP TABLE pl;
