\set g random(1, 100000000)
\set c random(0, 49999)
BEGIN;
INSERT INTO orders_1m (id, customer_id, code, status, amount) VALUES (1000000 + :g * 10 + 0, 2 * ((:c + 0 * 7919) % 50000), substr(md5('p' || (:g * 10 + 0)), 1, 12), 'new', 1.00);
INSERT INTO orders_1m (id, customer_id, code, status, amount) VALUES (1000000 + :g * 10 + 1, 2 * ((:c + 1 * 7919) % 50000), substr(md5('p' || (:g * 10 + 1)), 1, 12), 'new', 1.00);
INSERT INTO orders_1m (id, customer_id, code, status, amount) VALUES (1000000 + :g * 10 + 2, 2 * ((:c + 2 * 7919) % 50000), substr(md5('p' || (:g * 10 + 2)), 1, 12), 'new', 1.00);
INSERT INTO orders_1m (id, customer_id, code, status, amount) VALUES (1000000 + :g * 10 + 3, 2 * ((:c + 3 * 7919) % 50000), substr(md5('p' || (:g * 10 + 3)), 1, 12), 'new', 1.00);
INSERT INTO orders_1m (id, customer_id, code, status, amount) VALUES (1000000 + :g * 10 + 4, 2 * ((:c + 4 * 7919) % 50000), substr(md5('p' || (:g * 10 + 4)), 1, 12), 'new', 1.00);
INSERT INTO orders_1m (id, customer_id, code, status, amount) VALUES (1000000 + :g * 10 + 5, 2 * ((:c + 5 * 7919) % 50000), substr(md5('p' || (:g * 10 + 5)), 1, 12), 'new', 1.00);
INSERT INTO orders_1m (id, customer_id, code, status, amount) VALUES (1000000 + :g * 10 + 6, 2 * ((:c + 6 * 7919) % 50000), substr(md5('p' || (:g * 10 + 6)), 1, 12), 'new', 1.00);
INSERT INTO orders_1m (id, customer_id, code, status, amount) VALUES (1000000 + :g * 10 + 7, 2 * ((:c + 7 * 7919) % 50000), substr(md5('p' || (:g * 10 + 7)), 1, 12), 'new', 1.00);
INSERT INTO orders_1m (id, customer_id, code, status, amount) VALUES (1000000 + :g * 10 + 8, 2 * ((:c + 8 * 7919) % 50000), substr(md5('p' || (:g * 10 + 8)), 1, 12), 'new', 1.00);
INSERT INTO orders_1m (id, customer_id, code, status, amount) VALUES (1000000 + :g * 10 + 9, 2 * ((:c + 9 * 7919) % 50000), substr(md5('p' || (:g * 10 + 9)), 1, 12), 'new', 1.00);
END;
