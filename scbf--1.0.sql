/* scbf--1.0.sql */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION scbf" to load this file. \quit

--
-- The access method
--
CREATE FUNCTION scbfhandler(internal)
RETURNS index_am_handler
AS 'MODULE_PATHNAME'
LANGUAGE C;

CREATE ACCESS METHOD scbf TYPE INDEX HANDLER scbfhandler;
COMMENT ON ACCESS METHOD scbf IS
	'split counting Bloom filter index: equality skipping per heap segment';

--
-- Operator classes
--
-- Support function 1 of every class is the type's standard 32-bit hash, the
-- very function the hash access method uses, called with the column's
-- collation.  It is the only safe notion of equality for hashing: numeric
-- scales (1.0 = 1.00), -0.0 = 0.0 and NaN, bpchar trailing blanks and
-- nondeterministic collations all hash equal when they compare equal.
-- Where equality crosses types and the hash functions agree across them
-- (the hash AM's integer_ops, float_ops and text_ops families), the family
-- holds every cross-type "=" so that, say, bigint_col = 42 can use the
-- index.  The scan hashes a key with the function of the key's own type.
--

-- int2, int4, int8
CREATE OPERATOR FAMILY integer_ops USING scbf;

CREATE OPERATOR CLASS int2_ops
DEFAULT FOR TYPE int2 USING scbf FAMILY integer_ops AS
	OPERATOR	1	=(int2, int2),
	FUNCTION	1	hashint2(int2);

CREATE OPERATOR CLASS int4_ops
DEFAULT FOR TYPE int4 USING scbf FAMILY integer_ops AS
	OPERATOR	1	=(int4, int4),
	FUNCTION	1	hashint4(int4);

CREATE OPERATOR CLASS int8_ops
DEFAULT FOR TYPE int8 USING scbf FAMILY integer_ops AS
	OPERATOR	1	=(int8, int8),
	FUNCTION	1	hashint8(int8);

ALTER OPERATOR FAMILY integer_ops USING scbf ADD
	OPERATOR	1	=(int2, int4),
	OPERATOR	1	=(int2, int8),
	OPERATOR	1	=(int4, int2),
	OPERATOR	1	=(int4, int8),
	OPERATOR	1	=(int8, int2),
	OPERATOR	1	=(int8, int4);

-- float4, float8
CREATE OPERATOR FAMILY float_ops USING scbf;

CREATE OPERATOR CLASS float4_ops
DEFAULT FOR TYPE float4 USING scbf FAMILY float_ops AS
	OPERATOR	1	=(float4, float4),
	FUNCTION	1	hashfloat4(float4);

CREATE OPERATOR CLASS float8_ops
DEFAULT FOR TYPE float8 USING scbf FAMILY float_ops AS
	OPERATOR	1	=(float8, float8),
	FUNCTION	1	hashfloat8(float8);

ALTER OPERATOR FAMILY float_ops USING scbf ADD
	OPERATOR	1	=(float4, float8),
	OPERATOR	1	=(float8, float4);

-- text, name (varchar columns use text_ops through binary coercion)
CREATE OPERATOR FAMILY text_ops USING scbf;

CREATE OPERATOR CLASS text_ops
DEFAULT FOR TYPE text USING scbf FAMILY text_ops AS
	OPERATOR	1	=(text, text),
	FUNCTION	1	hashtext(text);

CREATE OPERATOR CLASS name_ops
DEFAULT FOR TYPE name USING scbf FAMILY text_ops AS
	OPERATOR	1	=(name, name),
	FUNCTION	1	hashname(name);

ALTER OPERATOR FAMILY text_ops USING scbf ADD
	OPERATOR	1	=(text, name),
	OPERATOR	1	=(name, text);

-- Types whose equality does not cross types (each its own family)
CREATE OPERATOR CLASS bpchar_ops
DEFAULT FOR TYPE bpchar USING scbf AS
	OPERATOR	1	=(bpchar, bpchar),
	FUNCTION	1	hashbpchar(bpchar);

CREATE OPERATOR CLASS numeric_ops
DEFAULT FOR TYPE numeric USING scbf AS
	OPERATOR	1	=(numeric, numeric),
	FUNCTION	1	hash_numeric(numeric);

CREATE OPERATOR CLASS uuid_ops
DEFAULT FOR TYPE uuid USING scbf AS
	OPERATOR	1	=(uuid, uuid),
	FUNCTION	1	uuid_hash(uuid);

CREATE OPERATOR CLASS timestamp_ops
DEFAULT FOR TYPE timestamp USING scbf AS
	OPERATOR	1	=(timestamp, timestamp),
	FUNCTION	1	timestamp_hash(timestamp);

CREATE OPERATOR CLASS time_ops
DEFAULT FOR TYPE time USING scbf AS
	OPERATOR	1	=(time, time),
	FUNCTION	1	time_hash(time);

CREATE OPERATOR CLASS timetz_ops
DEFAULT FOR TYPE timetz USING scbf AS
	OPERATOR	1	=(timetz, timetz),
	FUNCTION	1	timetz_hash(timetz);

CREATE OPERATOR CLASS interval_ops
DEFAULT FOR TYPE interval USING scbf AS
	OPERATOR	1	=(interval, interval),
	FUNCTION	1	interval_hash(interval);

CREATE OPERATOR CLASS char_ops
DEFAULT FOR TYPE "char" USING scbf AS
	OPERATOR	1	=("char", "char"),
	FUNCTION	1	hashchar("char");

CREATE OPERATOR CLASS oid_ops
DEFAULT FOR TYPE oid USING scbf AS
	OPERATOR	1	=(oid, oid),
	FUNCTION	1	hashoid(oid);

-- date, timestamptz, bytea, bool: up to PostgreSQL 17 the hash access
-- method hashes these with another type's function (hashint4, timestamp_hash,
-- hashvarlena, hashchar), from 18 with functions of their own (hashdate,
-- timestamptz_hash, hashbytea, hashbool) that return the same values.  Each
-- class takes the function that this server's default hash operator class
-- for the type uses, which is also what scbfvalidate() accepts, so one
-- script serves every major and the hash values do not depend on it.
DO $$
DECLARE
	c			record;
BEGIN
	FOR c IN
		SELECT v.opcname, tn.nspname AS typnsp, t.typname,
			   pn.nspname AS procnsp, p.proname,
			   pg_catalog.oidvectortypes(p.proargtypes) AS procargs
		FROM (VALUES ('date_ops', 'pg_catalog.date'::pg_catalog.regtype),
					 ('timestamptz_ops', 'pg_catalog.timestamptz'::pg_catalog.regtype),
					 ('bytea_ops', 'pg_catalog.bytea'::pg_catalog.regtype),
					 ('bool_ops', 'pg_catalog.bool'::pg_catalog.regtype))
			 AS v(opcname, typid)
		JOIN pg_catalog.pg_type t ON t.oid OPERATOR(pg_catalog.=) v.typid
		JOIN pg_catalog.pg_namespace tn ON tn.oid OPERATOR(pg_catalog.=) t.typnamespace
		LEFT JOIN (pg_catalog.pg_opclass oc
				   JOIN pg_catalog.pg_am am
				   ON am.oid OPERATOR(pg_catalog.=) oc.opcmethod
				   AND am.amname OPERATOR(pg_catalog.=) 'hash'
				   JOIN pg_catalog.pg_amproc ap
				   ON ap.amprocfamily OPERATOR(pg_catalog.=) oc.opcfamily
				   AND ap.amproclefttype OPERATOR(pg_catalog.=) oc.opcintype
				   AND ap.amprocrighttype OPERATOR(pg_catalog.=) oc.opcintype
				   AND ap.amprocnum OPERATOR(pg_catalog.=) 1
				   JOIN pg_catalog.pg_proc p
				   ON p.oid OPERATOR(pg_catalog.=) ap.amproc
				   JOIN pg_catalog.pg_namespace pn
				   ON pn.oid OPERATOR(pg_catalog.=) p.pronamespace)
		ON oc.opcintype OPERATOR(pg_catalog.=) v.typid AND oc.opcdefault
	LOOP
		IF c.proname IS NULL THEN
			RAISE EXCEPTION 'type %.% has no default hash operator class',
				c.typnsp, c.typname
				USING ERRCODE = 'undefined_object';
		END IF;
		EXECUTE pg_catalog.format(
			'CREATE OPERATOR CLASS %I DEFAULT FOR TYPE %I.%I USING scbf AS '
			'OPERATOR 1 pg_catalog.= (%I.%I, %I.%I), FUNCTION 1 %I.%I(%s)',
			c.opcname, c.typnsp, c.typname,
			c.typnsp, c.typname, c.typnsp, c.typname,
			c.procnsp, c.proname, c.procargs);
	END LOOP;
END
$$;

-- inet (cidr columns use it through binary coercion)
CREATE OPERATOR CLASS inet_ops
DEFAULT FOR TYPE inet USING scbf AS
	OPERATOR	1	=(inet, inet),
	FUNCTION	1	hashinet(inet);

CREATE OPERATOR CLASS macaddr_ops
DEFAULT FOR TYPE macaddr USING scbf AS
	OPERATOR	1	=(macaddr, macaddr),
	FUNCTION	1	hashmacaddr(macaddr);

CREATE OPERATOR CLASS macaddr8_ops
DEFAULT FOR TYPE macaddr8 USING scbf AS
	OPERATOR	1	=(macaddr8, macaddr8),
	FUNCTION	1	hashmacaddr8(macaddr8);

CREATE OPERATOR CLASS pg_lsn_ops
DEFAULT FOR TYPE pg_lsn USING scbf AS
	OPERATOR	1	=(pg_lsn, pg_lsn),
	FUNCTION	1	pg_lsn_hash(pg_lsn);

--
-- Diagnostic and maintenance functions: see the end of this file.
--

-- What the index holds (one row)
CREATE FUNCTION scbf_index_info(index regclass,
	OUT pages_per_segment int, OUT false_positive_rate float8, OUT k int,
	OUT slice_counters int, OUT counter_bits int, OUT block_capacity int,
	OUT columns int, OUT segments int, OUT empty_segments int,
	OUT filters int, OUT max_chain int, OUT chain_lengths int[],
	OUT pages_total bigint, OUT pages_meta bigint, OUT pages_directory bigint,
	OUT pages_filter bigint, OUT pages_ledger bigint, OUT pages_free bigint,
	OUT entries_live bigint, OUT entries_pending bigint,
	OUT mean_fill float8, OUT worst_fill float8, OUT est_fpr float8,
	OUT worst_segment int, OUT worst_segment_fpr float8,
	OUT saturated_counters bigint, OUT stale_counters bigint,
	OUT bytes_per_heap_tuple float8)
RETURNS record
AS 'MODULE_PATHNAME', 'scbf_index_info'
LANGUAGE C VOLATILE PARALLEL RESTRICTED;

-- One row per segment
CREATE FUNCTION scbf_segments(index regclass,
	OUT segno int, OUT first_block bigint, OUT last_block bigint,
	OUT chain_length int, OUT filter_blocks int, OUT ledger_pages int,
	OUT entries bigint, OUT nulls bigint[], OUT fpr float8, OUT fill float8,
	OUT saturated bigint, OUT flags text[])
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'scbf_segments'
LANGUAGE C VOLATILE PARALLEL RESTRICTED;

-- One row per filter (of one segment, or all)
CREATE FUNCTION scbf_filters(index regclass, segno int DEFAULT NULL,
	OUT segno int, OUT filter int, OUT serial bigint, OUT state text,
	OUT flags text[], OUT head_block bigint, OUT blocks int,
	OUT ledger_pages int, OUT entries bigint, OUT nulls bigint[],
	OUT fill float8, OUT slice_fill float8[], OUT fpr float8,
	OUT saturated bigint, OUT est_keys float8)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'scbf_filters'
LANGUAGE C VOLATILE PARALLEL RESTRICTED;

-- One row per page
CREATE FUNCTION scbf_pages(index regclass,
	OUT blkno bigint, OUT kind text, OUT segno bigint, OUT serial bigint,
	OUT block_index int, OUT entries int, OUT next_block bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'scbf_pages'
LANGUAGE C VOLATILE PARALLEL RESTRICTED;

-- Which segments and filters may hold a value, and how many ledger entries match
CREATE FUNCTION scbf_probe(index regclass, value anyelement, col int DEFAULT 1,
	OUT segno int, OUT first_block bigint, OUT filter int, OUT serial bigint,
	OUT block int, OUT verdict text, OUT ledger_matches bigint,
	OUT heap_pages bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'scbf_probe'
LANGUAGE C VOLATILE PARALLEL RESTRICTED;

CREATE FUNCTION scbf_probe(index regclass, value text, col int DEFAULT 1,
	OUT segno int, OUT first_block bigint, OUT filter int, OUT serial bigint,
	OUT block int, OUT verdict text, OUT ledger_matches bigint,
	OUT heap_pages bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'scbf_probe_text'
LANGUAGE C VOLATILE PARALLEL RESTRICTED;

-- amcheck-style verification
CREATE FUNCTION scbf_verify(index regclass, heapallindexed boolean DEFAULT false)
RETURNS void
AS 'MODULE_PATHNAME', 'scbf_verify'
LANGUAGE C VOLATILE PARALLEL RESTRICTED;

-- Rebuild one segment (or all) from its ledger or from the heap
CREATE FUNCTION scbf_rebuild(index regclass, segno int DEFAULT NULL,
	source text DEFAULT 'ledger')
RETURNS int
AS 'MODULE_PATHNAME', 'scbf_rebuild'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

-- Fold the pending area of a format-2 index now, as VACUUM does (as
-- gin_clean_pending_list does for GIN); returns the entries folded
CREATE FUNCTION scbf_clean_pending(index regclass)
RETURNS bigint
AS 'MODULE_PATHNAME', 'scbf_clean_pending'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

-- Security (PostgreSQL's "Security Considerations for Extensions"): the
-- script uses neither CREATE OR REPLACE nor IF NOT EXISTS, so an object
-- someone created first makes CREATE EXTENSION fail rather than be adopted;
-- every function is C that looks nothing up by name, so none needs a SET
-- search_path; the operators, hash functions and types named here resolve
-- while CREATE EXTENSION searches pg_catalog first and pg_temp last
-- (sql/scbf_security.sql installs and runs all of it under a search_path
-- an attacker prepared).
--
-- These reveal indexed values or their presence, or change the index: not
-- for PUBLIC (each also checks that the caller may SELECT from the table;
-- scbf_rebuild and scbf_clean_pending that the caller owns it).
REVOKE ALL ON FUNCTION scbf_index_info(regclass) FROM PUBLIC;
REVOKE ALL ON FUNCTION scbf_segments(regclass) FROM PUBLIC;
REVOKE ALL ON FUNCTION scbf_filters(regclass, int) FROM PUBLIC;
REVOKE ALL ON FUNCTION scbf_pages(regclass) FROM PUBLIC;
REVOKE ALL ON FUNCTION scbf_probe(regclass, anyelement, int) FROM PUBLIC;
REVOKE ALL ON FUNCTION scbf_probe(regclass, text, int) FROM PUBLIC;
REVOKE ALL ON FUNCTION scbf_verify(regclass, boolean) FROM PUBLIC;
REVOKE ALL ON FUNCTION scbf_rebuild(regclass, int, text) FROM PUBLIC;
REVOKE ALL ON FUNCTION scbf_clean_pending(regclass) FROM PUBLIC;

--
-- The mathematics of split counting Bloom filters, with the paper's errors
-- corrected (see the README, "Diagnostics").  Probabilities that can be far
-- below the range of double precision are numeric.
--
CREATE FUNCTION scbf_optimal_k(fpr float8) RETURNS int
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION scbf_optimal_k_real(fpr float8) RETURNS float8
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION scbf_slice_size(counters bigint, fpr float8) RETURNS bigint
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION scbf_capacity(counters bigint, fpr float8, rule text DEFAULT 'paper')
RETURNS float8
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION scbf_counters_per_element(fpr float8) RETURNS float8
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION scbf_counters_required(keys bigint, fpr float8) RETURNS bigint
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION scbf_page_capacity(bits int, usable_bytes int, fpr float8)
RETURNS bigint
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION scbf_expected_fill(m bigint, n bigint, exact boolean DEFAULT true)
RETURNS float8
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION scbf_fpr(m bigint, k int, n bigint, exact boolean DEFAULT true)
RETURNS float8
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION scbf_fpr_at_half_fill(k int) RETURNS float8
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION scbf_chain_fpr(fpr float8, filters int) RETURNS float8
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION scbf_double_hash_floor(m bigint, n bigint) RETURNS float8
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION scbf_counter_max(bits int) RETURNS bigint
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION scbf_counter_tail_poisson(lambda float8, t int) RETURNS numeric
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION scbf_counter_tail_binomial(trials bigint, p float8, t int)
RETURNS numeric
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION scbf_any_counter_poisson(lambda float8, t int, counters bigint)
RETURNS TABLE (lower numeric, upper numeric)
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 1;
CREATE FUNCTION scbf_any_counter_binomial(trials bigint, p float8, t int,
	counters bigint)
RETURNS TABLE (lower numeric, upper numeric)
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 1;
CREATE FUNCTION scbf_counter_overflow(bits int, load float8 DEFAULT 1,
	sticky boolean DEFAULT false)
RETURNS numeric
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION scbf_paper_table1(counters bigint DEFAULT 368640,
	OUT fpr float8, OUT k_real float8, OUT k int, OUT m bigint, OUT n bigint,
	OUT n_real float8, OUT n_half_fill float8, OUT n_exact float8,
	OUT fpr_at_n float8)
RETURNS SETOF record
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION scbf_paper_table2(OUT b int, OUT j int, OUT printed float8,
	OUT formula_without_e numeric, OUT correct_bound numeric)
RETURNS SETOF record
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION scbf_paper_table4(OUT b int, OUT printed float8,
	OUT naive_double float8, OUT exact numeric)
RETURNS SETOF record
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
