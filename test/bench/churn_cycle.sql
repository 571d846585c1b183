-- test/bench/churn_cycle.sql: one cycle of the churn experiment (psql
-- variable cyc), included by churn.sql.
INSERT INTO churn_deleted
SELECT DISTINCT :cyc, customer_id FROM churn_scbf
WHERE abs(hashint4(customer_id + :cyc * 7777)) % 5 = 0;
SELECT count(*) AS ndel FROM churn_scbf
WHERE customer_id IN (SELECT v FROM churn_deleted WHERE cycle = :cyc) \gset
SELECT format('DELETE FROM %s WHERE customer_id IN (SELECT v FROM churn_deleted WHERE cycle = %s)',
			  churn_table(method), :cyc) FROM churn_methods \gexec
SELECT format('VACUUM %s', churn_table(method)) FROM churn_methods \gexec
-- as many new rows with new values, 20 per value: they fill the freed space
SELECT format('INSERT INTO %s SELECT -g, 100000000 * %s + g / 20, substr(md5((-g)::text), 1, 12), 1
			   FROM generate_series(1, %s) g', churn_table(method), :cyc, :ndel)
FROM churn_methods \gexec
SELECT churn_measure_all(:cyc);
