--
-- scbf_perm: the functions that reveal values or their presence are not for
-- PUBLIC, and check that the caller may SELECT from the table (scbf_rebuild:
-- that the caller owns it).  The mathematics is for everyone.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS scbf;
RESET client_min_messages;
CREATE TABLE secret (a int);
INSERT INTO secret SELECT g FROM generate_series(1, 1000) g;
CREATE INDEX secret_a ON secret USING scbf (a);
CREATE ROLE regress_scbf_reader;
CREATE ROLE regress_scbf_owner;

SET ROLE regress_scbf_reader;
\set VERBOSITY terse
SELECT count(*) FROM scbf_probe('secret_a', 42);
SELECT * FROM scbf_index_info('secret_a');
SELECT scbf_verify('secret_a');
SELECT scbf_rebuild('secret_a');
\set VERBOSITY default
SELECT scbf_optimal_k(0.01), scbf_chain_fpr(0.01, 2);
RESET ROLE;

-- EXECUTE alone is not enough: the table must be readable
GRANT EXECUTE ON FUNCTION scbf_probe(regclass, anyelement, int) TO regress_scbf_reader;
GRANT EXECUTE ON FUNCTION scbf_verify(regclass, boolean) TO regress_scbf_reader;
GRANT EXECUTE ON FUNCTION scbf_rebuild(regclass, int, text) TO regress_scbf_reader;
SET ROLE regress_scbf_reader;
\set VERBOSITY terse
SELECT count(*) FROM scbf_probe('secret_a', 42);
SELECT scbf_verify('secret_a');
\set VERBOSITY default
RESET ROLE;

GRANT SELECT ON secret TO regress_scbf_reader;
SET ROLE regress_scbf_reader;
SELECT sum(ledger_matches) FROM scbf_probe('secret_a', 42);
SELECT scbf_verify('secret_a', true);
-- reading is not owning
\set VERBOSITY terse
SELECT scbf_rebuild('secret_a');
\set VERBOSITY default
RESET ROLE;

-- the owner may rebuild
ALTER TABLE secret OWNER TO regress_scbf_owner;
GRANT EXECUTE ON FUNCTION scbf_rebuild(regclass, int, text) TO regress_scbf_owner;
SET ROLE regress_scbf_owner;
SELECT scbf_rebuild('secret_a') > 0 AS rebuilt;
RESET ROLE;

DROP TABLE secret;
REVOKE ALL ON FUNCTION scbf_probe(regclass, anyelement, int) FROM regress_scbf_reader;
REVOKE ALL ON FUNCTION scbf_verify(regclass, boolean) FROM regress_scbf_reader;
REVOKE ALL ON FUNCTION scbf_rebuild(regclass, int, text) FROM regress_scbf_reader, regress_scbf_owner;
DROP ROLE regress_scbf_reader;
DROP ROLE regress_scbf_owner;
