--
-- test/upgrade/churn.sql: on each major, after test/upgrade/check.sql:
-- the columns this major may have that the table lacks (aclitem on 17),
-- deletes, a VACUUM that removes their entries and folds the pending area,
-- REINDEX of one index, then new rows whose entries stay pending for the
-- next pg_upgrade (psql -v round=N: which deletes and which new rows).
--
\set ON_ERROR_STOP 1
\set ECHO queries
SELECT u_add_columns() AS columns_added;
-- (rows 1 .. 1000 stay: each value of u_spec.present is in one of them)
SELECT CASE :round WHEN 1 THEN 'id > 1000 AND id % 4 = 1'
	WHEN 2 THEN 'id > 1000 AND id % 5 = 2'
	ELSE 'id BETWEEN 2000 AND 3000' END AS deleted \gset
DELETE FROM u_t WHERE :deleted;
VACUUM u_t;
SELECT count(*) AS indexes_still_pending
FROM u_cols s, scbf_index_info(('u_t_' || s.col)::regclass) i
WHERE i.entries_pending > 0;
-- an index rebuilt on this major
REINDEX INDEX u_t_c_bool;
-- new rows, pending until the next VACUUM
SET scbf.fold_helpers = off;
SELECT u_fill(10000 * :round + 1, 10000 * :round + 500);
