--
-- scbf_perm: the functions that reveal values or their presence are not
-- executable by PUBLIC, and once granted they still check that the caller
-- may SELECT from the table; scbf_clean_pending checks that the caller
-- owns it.  scbf_route_shards, routing's question to a worker, is for
-- everyone.
-- The mathematics is for everyone.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS scbf;
RESET client_min_messages;
CREATE TABLE secret (a int, t text);
INSERT INTO secret SELECT g, 'v' || g FROM generate_series(1, 1000) g;
CREATE INDEX secret_a ON secret USING scbf (a);
CREATE ROLE regress_scbf_reader;
CREATE ROLE regress_scbf_owner;

-- no EXECUTE for PUBLIC on any of them
SELECT p.oid::regprocedure AS function,
	has_function_privilege('regress_scbf_reader', p.oid, 'EXECUTE') AS reader_may
FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.classid = 'pg_proc'::regclass
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'scbf'
WHERE p.proname IN ('scbf_index_info', 'scbf_segments', 'scbf_filters', 'scbf_pages',
					'scbf_probe', 'scbf_verify', 'scbf_clean_pending',
					'scbf_may_contain', 'scbf_table_may_contain', 'scbf_route', 'scbf_lookup',
					'scbf_is_distributed', 'scbf_shard_nodes', 'scbf_read_shards',
					'scbf_run_on_nodes', 'scbf_schema', 'scbf_install_bridges')
ORDER BY p.oid::regprocedure::text;
-- but the mathematics, yes
SELECT count(*) AS math_functions,
	bool_and(has_function_privilege('regress_scbf_reader', p.oid, 'EXECUTE')) AS reader_may
FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.classid = 'pg_proc'::regclass
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'scbf'
WHERE p.proname LIKE 'scbf\_%' AND p.prorettype <> 'index_am_handler'::regtype
  AND p.proname NOT IN ('scbf_index_info', 'scbf_segments', 'scbf_filters', 'scbf_pages',
						'scbf_probe', 'scbf_verify',
						'scbf_clean_pending', 'scbf_may_contain', 'scbf_table_may_contain',
						'scbf_route', 'scbf_lookup', 'scbf_is_distributed', 'scbf_shard_nodes',
						'scbf_read_shards', 'scbf_run_on_nodes', 'scbf_schema',
						'scbf_install_bridges', 'scbf_route_shards');

-- the worker's side of routing on Citus, scbf_route_shards, is for everyone:
-- a table the caller may not read answers "may hold" (t) whatever the
-- value, one it may read answers from its scbf index
SELECT has_function_privilege('regress_scbf_reader',
	'scbf_route_shards(text[], name, regtype, text[], boolean)', 'EXECUTE') AS reader_may_route;
SET ROLE regress_scbf_reader;
SELECT scbf_route_shards(ARRAY['public.secret', 'secret'], 'a', 'int4', ARRAY['42'], false) AS present,
	scbf_route_shards(ARRAY['public.secret'], 'a', 'int4', ARRAY['424242'], false) AS absent;
RESET ROLE;
SELECT scbf_route_shards(ARRAY['public.secret', 'public.no_such_table', 'secret'], 'a', 'int4',
		ARRAY['42', '7'], true) AS present,
	scbf_route_shards(ARRAY['public.secret'], 'a', 'int4', ARRAY['424242', '-3'], false) AS absent,
	scbf_route_shards(ARRAY['public.secret'], 'a', 'int8', ARRAY['424242', '5000000000'], false) AS absent_int8,
	scbf_route_shards(ARRAY['public.secret'], 'a', 'int8', ARRAY['424242', '9'], false) AS present_int8,
	scbf_route_shards(ARRAY['public.secret'], 't', 'text', ARRAY['v1'], false) AS no_index,
	scbf_route_shards(ARRAY['public.secret'], 'a', 'int4', '{}', false) AS no_value;

SET ROLE regress_scbf_reader;
\set VERBOSITY terse
SELECT * FROM scbf_index_info('secret_a');
SELECT * FROM scbf_segments('secret_a');
SELECT * FROM scbf_filters('secret_a');
SELECT * FROM scbf_pages('secret_a');
SELECT count(*) FROM scbf_probe('secret_a', 42);
SELECT count(*) FROM scbf_probe('secret_a', '42'::text);
SELECT scbf_verify('secret_a');
SELECT scbf_clean_pending('secret_a');
\set VERBOSITY default
SELECT scbf_optimal_k(0.01), scbf_chain_fpr(0.01, 2);
SELECT n FROM scbf_paper_table1() WHERE k = 10;
RESET ROLE;

-- EXECUTE alone is not enough: the table must be readable
GRANT EXECUTE ON FUNCTION scbf_index_info(regclass), scbf_segments(regclass),
	scbf_filters(regclass, int), scbf_pages(regclass),
	scbf_probe(regclass, anyelement, int), scbf_probe(regclass, text, int),
	scbf_verify(regclass, boolean), scbf_clean_pending(regclass)
	TO regress_scbf_reader;
SET ROLE regress_scbf_reader;
\set VERBOSITY terse
SELECT segments FROM scbf_index_info('secret_a');
SELECT count(*) FROM scbf_segments('secret_a');
SELECT count(*) FROM scbf_filters('secret_a');
SELECT count(*) FROM scbf_pages('secret_a');
SELECT count(*) FROM scbf_probe('secret_a', 42);
SELECT count(*) FROM scbf_probe('secret_a', '42'::text);
SELECT scbf_verify('secret_a');
\set VERBOSITY default
RESET ROLE;

-- with SELECT on the table, every reading function works
GRANT SELECT ON secret TO regress_scbf_reader;
SET ROLE regress_scbf_reader;
SELECT segments, entries_live FROM scbf_index_info('secret_a');
SELECT count(*), sum(entries) FROM scbf_segments('secret_a');
SELECT count(*), sum(entries) FROM scbf_filters('secret_a');
SELECT count(*) FILTER (WHERE kind = 'meta') AS meta FROM scbf_pages('secret_a');
SELECT sum(ledger_matches) FROM scbf_probe('secret_a', 42);
SELECT sum(ledger_matches) FROM scbf_probe('secret_a', '42'::text);
SELECT scbf_verify('secret_a', true);
-- reading is not owning
\set VERBOSITY terse
SELECT scbf_clean_pending('secret_a');
\set VERBOSITY default
RESET ROLE;

-- column privileges are not table privileges: the functions read every
-- column the index covers
REVOKE SELECT ON secret FROM regress_scbf_reader;
GRANT SELECT (t) ON secret TO regress_scbf_reader;
SET ROLE regress_scbf_reader;
\set VERBOSITY terse
SELECT count(*) FROM scbf_probe('secret_a', 42);
\set VERBOSITY default
RESET ROLE;

-- the owner may fold the pending area: the rows inserted after the build
INSERT INTO secret SELECT g, 'v' || g FROM generate_series(1001, 1010) g;
ALTER TABLE secret OWNER TO regress_scbf_owner;
GRANT EXECUTE ON FUNCTION scbf_clean_pending(regclass) TO regress_scbf_owner;
SET ROLE regress_scbf_owner;
SELECT scbf_clean_pending('secret_a') AS folded;
RESET ROLE;
SELECT scbf_verify('secret_a', true);

DROP TABLE secret;
REVOKE ALL ON FUNCTION scbf_index_info(regclass), scbf_segments(regclass),
	scbf_filters(regclass, int), scbf_pages(regclass),
	scbf_probe(regclass, anyelement, int), scbf_probe(regclass, text, int),
	scbf_verify(regclass, boolean), scbf_clean_pending(regclass)
	FROM regress_scbf_reader;
REVOKE ALL ON FUNCTION scbf_clean_pending(regclass) FROM regress_scbf_owner;
DROP ROLE regress_scbf_reader;
DROP ROLE regress_scbf_owner;
