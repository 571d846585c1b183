/* scbf--1.0.sql */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION scbf" to load this file. \quit

--
-- The access method
--
CREATE FUNCTION scbfhandler(pg_catalog.internal)
RETURNS pg_catalog.index_am_handler
AS 'MODULE_PATHNAME'
LANGUAGE C;

CREATE ACCESS METHOD scbf TYPE INDEX HANDLER @extschema@.scbfhandler;
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
DEFAULT FOR TYPE pg_catalog.int2 USING scbf FAMILY @extschema@.integer_ops AS
	OPERATOR	1	pg_catalog.= (pg_catalog.int2, pg_catalog.int2),
	FUNCTION	1	pg_catalog.hashint2(pg_catalog.int2);

CREATE OPERATOR CLASS int4_ops
DEFAULT FOR TYPE pg_catalog.int4 USING scbf FAMILY @extschema@.integer_ops AS
	OPERATOR	1	pg_catalog.= (pg_catalog.int4, pg_catalog.int4),
	FUNCTION	1	pg_catalog.hashint4(pg_catalog.int4);

CREATE OPERATOR CLASS int8_ops
DEFAULT FOR TYPE pg_catalog.int8 USING scbf FAMILY @extschema@.integer_ops AS
	OPERATOR	1	pg_catalog.= (pg_catalog.int8, pg_catalog.int8),
	FUNCTION	1	pg_catalog.hashint8(pg_catalog.int8);

ALTER OPERATOR FAMILY @extschema@.integer_ops USING scbf ADD
	OPERATOR	1	pg_catalog.= (pg_catalog.int2, pg_catalog.int4),
	OPERATOR	1	pg_catalog.= (pg_catalog.int2, pg_catalog.int8),
	OPERATOR	1	pg_catalog.= (pg_catalog.int4, pg_catalog.int2),
	OPERATOR	1	pg_catalog.= (pg_catalog.int4, pg_catalog.int8),
	OPERATOR	1	pg_catalog.= (pg_catalog.int8, pg_catalog.int2),
	OPERATOR	1	pg_catalog.= (pg_catalog.int8, pg_catalog.int4);

-- float4, float8
CREATE OPERATOR FAMILY float_ops USING scbf;

CREATE OPERATOR CLASS float4_ops
DEFAULT FOR TYPE pg_catalog.float4 USING scbf FAMILY @extschema@.float_ops AS
	OPERATOR	1	pg_catalog.= (pg_catalog.float4, pg_catalog.float4),
	FUNCTION	1	pg_catalog.hashfloat4(pg_catalog.float4);

CREATE OPERATOR CLASS float8_ops
DEFAULT FOR TYPE pg_catalog.float8 USING scbf FAMILY @extschema@.float_ops AS
	OPERATOR	1	pg_catalog.= (pg_catalog.float8, pg_catalog.float8),
	FUNCTION	1	pg_catalog.hashfloat8(pg_catalog.float8);

ALTER OPERATOR FAMILY @extschema@.float_ops USING scbf ADD
	OPERATOR	1	pg_catalog.= (pg_catalog.float4, pg_catalog.float8),
	OPERATOR	1	pg_catalog.= (pg_catalog.float8, pg_catalog.float4);

-- text, name (varchar columns use text_ops through binary coercion)
CREATE OPERATOR FAMILY text_ops USING scbf;

CREATE OPERATOR CLASS text_ops
DEFAULT FOR TYPE pg_catalog.text USING scbf FAMILY @extschema@.text_ops AS
	OPERATOR	1	pg_catalog.= (pg_catalog.text, pg_catalog.text),
	FUNCTION	1	pg_catalog.hashtext(pg_catalog.text);

CREATE OPERATOR CLASS name_ops
DEFAULT FOR TYPE pg_catalog.name USING scbf FAMILY @extschema@.text_ops AS
	OPERATOR	1	pg_catalog.= (pg_catalog.name, pg_catalog.name),
	FUNCTION	1	pg_catalog.hashname(pg_catalog.name);

ALTER OPERATOR FAMILY @extschema@.text_ops USING scbf ADD
	OPERATOR	1	pg_catalog.= (pg_catalog.text, pg_catalog.name),
	OPERATOR	1	pg_catalog.= (pg_catalog.name, pg_catalog.text);

-- Types whose equality does not cross types (each its own family)
CREATE OPERATOR CLASS bpchar_ops
DEFAULT FOR TYPE pg_catalog.bpchar USING scbf AS
	OPERATOR	1	pg_catalog.= (pg_catalog.bpchar, pg_catalog.bpchar),
	FUNCTION	1	pg_catalog.hashbpchar(pg_catalog.bpchar);

CREATE OPERATOR CLASS numeric_ops
DEFAULT FOR TYPE pg_catalog.numeric USING scbf AS
	OPERATOR	1	pg_catalog.= (pg_catalog.numeric, pg_catalog.numeric),
	FUNCTION	1	pg_catalog.hash_numeric(pg_catalog.numeric);

CREATE OPERATOR CLASS uuid_ops
DEFAULT FOR TYPE pg_catalog.uuid USING scbf AS
	OPERATOR	1	pg_catalog.= (pg_catalog.uuid, pg_catalog.uuid),
	FUNCTION	1	pg_catalog.uuid_hash(pg_catalog.uuid);

CREATE OPERATOR CLASS timestamp_ops
DEFAULT FOR TYPE pg_catalog.timestamp USING scbf AS
	OPERATOR	1	pg_catalog.= (pg_catalog.timestamp, pg_catalog.timestamp),
	FUNCTION	1	pg_catalog.timestamp_hash(pg_catalog.timestamp);

CREATE OPERATOR CLASS time_ops
DEFAULT FOR TYPE pg_catalog.time USING scbf AS
	OPERATOR	1	pg_catalog.= (pg_catalog.time, pg_catalog.time),
	FUNCTION	1	pg_catalog.time_hash(pg_catalog.time);

CREATE OPERATOR CLASS timetz_ops
DEFAULT FOR TYPE pg_catalog.timetz USING scbf AS
	OPERATOR	1	pg_catalog.= (pg_catalog.timetz, pg_catalog.timetz),
	FUNCTION	1	pg_catalog.timetz_hash(pg_catalog.timetz);

CREATE OPERATOR CLASS interval_ops
DEFAULT FOR TYPE pg_catalog.interval USING scbf AS
	OPERATOR	1	pg_catalog.= (pg_catalog.interval, pg_catalog.interval),
	FUNCTION	1	pg_catalog.interval_hash(pg_catalog.interval);

CREATE OPERATOR CLASS char_ops
DEFAULT FOR TYPE pg_catalog."char" USING scbf AS
	OPERATOR	1	pg_catalog.= (pg_catalog."char", pg_catalog."char"),
	FUNCTION	1	pg_catalog.hashchar(pg_catalog."char");

CREATE OPERATOR CLASS oid_ops
DEFAULT FOR TYPE pg_catalog.oid USING scbf AS
	OPERATOR	1	pg_catalog.= (pg_catalog.oid, pg_catalog.oid),
	FUNCTION	1	pg_catalog.hashoid(pg_catalog.oid);

CREATE OPERATOR CLASS oidvector_ops
DEFAULT FOR TYPE pg_catalog.oidvector USING scbf AS
	OPERATOR	1	pg_catalog.= (pg_catalog.oidvector, pg_catalog.oidvector),
	FUNCTION	1	pg_catalog.hashoidvector(pg_catalog.oidvector);

CREATE OPERATOR CLASS tid_ops
DEFAULT FOR TYPE pg_catalog.tid USING scbf AS
	OPERATOR	1	pg_catalog.= (pg_catalog.tid, pg_catalog.tid),
	FUNCTION	1	pg_catalog.hashtid(pg_catalog.tid);

CREATE OPERATOR CLASS aclitem_ops
DEFAULT FOR TYPE pg_catalog.aclitem USING scbf AS
	OPERATOR	1	pg_catalog.= (pg_catalog.aclitem, pg_catalog.aclitem),
	FUNCTION	1	pg_catalog.hash_aclitem(pg_catalog.aclitem);

CREATE OPERATOR CLASS jsonb_ops
DEFAULT FOR TYPE pg_catalog.jsonb USING scbf AS
	OPERATOR	1	pg_catalog.= (pg_catalog.jsonb, pg_catalog.jsonb),
	FUNCTION	1	pg_catalog.jsonb_hash(pg_catalog.jsonb);

-- The polymorphic classes, as the hash access method has them: every enum,
-- array, range, multirange and composite type, those created after the
-- extension included, uses them (CREATE INDEX finds a class for a pseudo-
-- type the column's type is binary-coercible to).  Each hash function
-- looks up the hash function of the value's own type, or of its elements,
-- bounds or fields, with the collation the column passes: an array, range
-- or composite whose element type has no hash function cannot be indexed,
-- as with hash indexes.
CREATE OPERATOR CLASS enum_ops
DEFAULT FOR TYPE pg_catalog.anyenum USING scbf AS
	OPERATOR	1	pg_catalog.= (pg_catalog.anyenum, pg_catalog.anyenum),
	FUNCTION	1	pg_catalog.hashenum(pg_catalog.anyenum);

CREATE OPERATOR CLASS array_ops
DEFAULT FOR TYPE pg_catalog.anyarray USING scbf AS
	OPERATOR	1	pg_catalog.= (pg_catalog.anyarray, pg_catalog.anyarray),
	FUNCTION	1	pg_catalog.hash_array(pg_catalog.anyarray);

CREATE OPERATOR CLASS range_ops
DEFAULT FOR TYPE pg_catalog.anyrange USING scbf AS
	OPERATOR	1	pg_catalog.= (pg_catalog.anyrange, pg_catalog.anyrange),
	FUNCTION	1	pg_catalog.hash_range(pg_catalog.anyrange);

CREATE OPERATOR CLASS multirange_ops
DEFAULT FOR TYPE pg_catalog.anymultirange USING scbf AS
	OPERATOR	1	pg_catalog.= (pg_catalog.anymultirange, pg_catalog.anymultirange),
	FUNCTION	1	pg_catalog.hash_multirange(pg_catalog.anymultirange);

CREATE OPERATOR CLASS record_ops
DEFAULT FOR TYPE pg_catalog.record USING scbf AS
	OPERATOR	1	pg_catalog.= (pg_catalog.record, pg_catalog.record),
	FUNCTION	1	pg_catalog.hash_record(pg_catalog.record);

-- date, timestamptz, bytea, bool, xid, cid, xid8: up to PostgreSQL 17 the
-- hash access method hashes these with another type's function (hashint4,
-- timestamp_hash, hashvarlena, hashchar, hashint4, hashint4, hashint8), from
-- 18 with functions of their own (hashdate, timestamptz_hash, hashbytea,
-- hashbool, hashxid, hashcid, hashxid8) that return the same values.  Each
-- class takes the function that this server's default hash operator class
-- for the type uses, so one script serves every major and the hash values
-- do not depend on it.  scbfvalidate() accepts that function and, on 18,
-- the older one too: a cluster that pg_upgrade brought from 15 or 17 keeps
-- the classes as they were created there.
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
					 ('bool_ops', 'pg_catalog.bool'::pg_catalog.regtype),
					 ('xid_ops', 'pg_catalog.xid'::pg_catalog.regtype),
					 ('cid_ops', 'pg_catalog.cid'::pg_catalog.regtype),
					 ('xid8_ops', 'pg_catalog.xid8'::pg_catalog.regtype))
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
DEFAULT FOR TYPE pg_catalog.inet USING scbf AS
	OPERATOR	1	pg_catalog.= (pg_catalog.inet, pg_catalog.inet),
	FUNCTION	1	pg_catalog.hashinet(pg_catalog.inet);

CREATE OPERATOR CLASS macaddr_ops
DEFAULT FOR TYPE pg_catalog.macaddr USING scbf AS
	OPERATOR	1	pg_catalog.= (pg_catalog.macaddr, pg_catalog.macaddr),
	FUNCTION	1	pg_catalog.hashmacaddr(pg_catalog.macaddr);

CREATE OPERATOR CLASS macaddr8_ops
DEFAULT FOR TYPE pg_catalog.macaddr8 USING scbf AS
	OPERATOR	1	pg_catalog.= (pg_catalog.macaddr8, pg_catalog.macaddr8),
	FUNCTION	1	pg_catalog.hashmacaddr8(pg_catalog.macaddr8);

CREATE OPERATOR CLASS pg_lsn_ops
DEFAULT FOR TYPE pg_catalog.pg_lsn USING scbf AS
	OPERATOR	1	pg_catalog.= (pg_catalog.pg_lsn, pg_catalog.pg_lsn),
	FUNCTION	1	pg_catalog.pg_lsn_hash(pg_catalog.pg_lsn);

--
-- Operator classes for the types of other extensions
--
-- A type of another extension (citext) gets its scbf operator class from
-- a "bridge" extension that requires both, as hstore_plperl bridges hstore
-- and plperl: scbf_citext (scbf_citext--1.0.sql).  Not a member of scbf,
-- so that DROP EXTENSION citext CASCADE drops the bridge and the indexes
-- that use it, not scbf with every scbf index; and pg_dump writes CREATE
-- EXTENSION IF NOT EXISTS for it, which a restore that already made it
-- passes over.
--
-- The event triggers below install a bridge as soon as scbf and the other
-- extension are both installed: at the end of the other's CREATE EXTENSION
-- (installed after scbf) and, for one installed before scbf (whose script
-- cannot create an extension), at the start of the next CREATE INDEX or
-- ALTER TABLE, before the command chooses operator classes.  Without the
-- bridge CREATE INDEX would take text_ops for a citext column through
-- binary coercion, whose equality is not citext's: scbf refuses to build
-- such an index (ScbfCheckIndexEquality in src/scbfvalidate.c).
--
-- SECURITY DEFINER: an extension that is not trusted needs a superuser
-- (scbf's installer) to create it, whoever runs the CREATE INDEX.  The
-- function takes nothing from the command or its caller: it creates only
-- the bridges named here, in scbf's schema, and only when missing.  A
-- bridge that cannot be created is a warning, never a failed command.
CREATE FUNCTION scbf_install_bridges()
RETURNS event_trigger
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	b			record;
BEGIN
	FOR b IN
		SELECT v.bridge, v.ext, n.nspname
		FROM (VALUES ('scbf_citext', 'citext')) AS v(bridge, ext)
		JOIN pg_catalog.pg_extension s ON s.extname = 'scbf'
		JOIN pg_catalog.pg_namespace n ON n.oid = s.extnamespace
		WHERE EXISTS (SELECT FROM pg_catalog.pg_extension e
					  WHERE e.extname = v.ext)
		  AND NOT EXISTS (SELECT FROM pg_catalog.pg_extension e
						  WHERE e.extname = v.bridge)
	LOOP
		BEGIN
			EXECUTE pg_catalog.format('CREATE EXTENSION %I SCHEMA %I',
									  b.bridge, b.nspname);
		EXCEPTION WHEN OTHERS THEN
			RAISE WARNING 'could not create extension "%" for the scbf operator classes of extension "%": %',
				b.bridge, b.ext, SQLERRM
				USING HINT = pg_catalog.format('A superuser can run CREATE EXTENSION %s.', b.bridge);
		END;
	END LOOP;
END
$$;

CREATE EVENT TRIGGER scbf_bridges_after_extension ON ddl_command_end
	WHEN TAG IN ('CREATE EXTENSION')
	EXECUTE FUNCTION @extschema@.scbf_install_bridges();

CREATE EVENT TRIGGER scbf_bridges_before_index ON ddl_command_start
	WHEN TAG IN ('CREATE INDEX', 'ALTER TABLE')
	EXECUTE FUNCTION @extschema@.scbf_install_bridges();

--
-- Diagnostic and maintenance functions: see the end of this file.
--

-- What the index holds (one row)
CREATE FUNCTION scbf_index_info(index regclass,
	OUT pages_per_segment int, OUT false_positive_rate float8,
	OUT hash_bits int, OUT k int,
	OUT slice_counters int, OUT max_count bigint, OUT filter_capacity int,
	OUT columns int, OUT segments int, OUT empty_segments int,
	OUT filters int, OUT max_chain int, OUT chain_lengths int[],
	OUT pages_total bigint, OUT pages_meta bigint, OUT pages_table bigint,
	OUT pages_rows bigint, OUT pages_delta bigint, OUT pages_ledger bigint,
	OUT pages_pending bigint, OUT pages_free bigint,
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
	OUT chain_length int, OUT ledger_pages int,
	OUT entries bigint, OUT nulls bigint[], OUT fpr float8, OUT fill float8,
	OUT max_count bigint, OUT saturated bigint, OUT flags text[])
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'scbf_segments'
LANGUAGE C VOLATILE PARALLEL RESTRICTED;

-- One row per filter (of one segment, or all)
CREATE FUNCTION scbf_filters(index regclass, segno int DEFAULT NULL,
	OUT segno int, OUT filter int, OUT serial bigint, OUT state text,
	OUT flags text[], OUT roots bigint[],
	OUT ledger_pages int, OUT entries bigint, OUT nulls bigint[],
	OUT fill float8, OUT slice_fill float8[], OUT fpr float8,
	OUT max_count bigint, OUT nonzero bigint, OUT saturated bigint,
	OUT stale bigint, OUT est_keys float8)
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

-- Fold the pending area of the index now, as VACUUM does (as
-- gin_clean_pending_list does for GIN); returns the entries folded
CREATE FUNCTION scbf_clean_pending(index regclass)
RETURNS bigint
AS 'MODULE_PATHNAME', 'scbf_clean_pending'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

-- Security (PostgreSQL's "Security Considerations for Extensions"): the
-- script uses neither CREATE OR REPLACE nor IF NOT EXISTS, so an object
-- someone created first makes CREATE EXTENSION fail rather than be adopted;
-- every operator, support function and type the operator classes name is
-- qualified with pg_catalog, and the families and the handler with the
-- extension's schema (@extschema@), so nothing resolves through a
-- search_path; the C functions look nothing up by name.  The routing
-- functions at the end are SQL and PL/pgSQL: each has SET search_path =
-- pg_catalog, @extschema@, pg_temp, whatever the caller's path, names every
-- catalog with pg_catalog, calls scbf's own functions as @extschema@.name
-- and dblink's qualified by dblink's schema.  The extension is not
-- relocatable (scbf.control): ALTER EXTENSION SET SCHEMA would leave those
-- bodies and settings naming the old schema, where anyone who may create
-- objects there could plant look-alikes.  sql/scbf_security.sql installs
-- and runs all of it under a search_path an attacker prepared.
--
-- These reveal indexed values or their presence, or change the index: not
-- for PUBLIC (each also checks that the caller may SELECT from the table;
-- scbf_clean_pending that the caller owns it).
REVOKE ALL ON FUNCTION scbf_index_info(regclass) FROM PUBLIC;
REVOKE ALL ON FUNCTION scbf_segments(regclass) FROM PUBLIC;
REVOKE ALL ON FUNCTION scbf_filters(regclass, int) FROM PUBLIC;
REVOKE ALL ON FUNCTION scbf_pages(regclass) FROM PUBLIC;
REVOKE ALL ON FUNCTION scbf_probe(regclass, anyelement, int) FROM PUBLIC;
REVOKE ALL ON FUNCTION scbf_probe(regclass, text, int) FROM PUBLIC;
REVOKE ALL ON FUNCTION scbf_verify(regclass, boolean) FROM PUBLIC;
REVOKE ALL ON FUNCTION scbf_clean_pending(regclass) FROM PUBLIC;
-- Fired by the event triggers only (calling it is an error anyway); the
-- event triggers run it whoever runs the command.
REVOKE ALL ON FUNCTION scbf_install_bridges() FROM PUBLIC;

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

--
-- Routing by filters, the seed paper's global level (README, "Sharding and
-- scale-out"): a shard answers "may this table hold the value?" from its
-- scbf index alone, and only the shards that say "maybe" are read.  Each
-- shard server is asked in the same round trip that reads its shards, so
-- the summary a decision uses is never older than the probe: nothing is
-- cached on the coordinator, because a cache there cannot learn of a write
-- made on a shard directly without asking the shard.  An index entry is
-- written before its transaction commits (src/README, invariant I3), so a
-- write committed before the probe, through the coordinator or on the shard
-- itself, is in the answer.  A shard that cannot answer is read anyway.
--

-- false only if no filter and ledger of the index holds an entry whose hash
-- is the value's (nor, in storage format 2, its pending area): then no row
-- of the table equals it.  The scan's own walk (scbf_probe), never the
-- heap: a filter that says "maybe" and a pending partition count only if
-- they hold a matching entry, a segment the scan would read whole counts
-- always.
CREATE FUNCTION scbf_may_contain(index regclass, value anyelement,
	col int DEFAULT 1)
RETURNS boolean
LANGUAGE sql VOLATILE PARALLEL RESTRICTED
SET search_path = pg_catalog, @extschema@, pg_temp
AS $$
	SELECT EXISTS (SELECT FROM @extschema@.scbf_probe($1, $2, $3) p
				   WHERE p.verdict NOT IN ('maybe', 'pending')
					  OR p.ledger_matches > 0)
$$;

CREATE FUNCTION scbf_may_contain(index regclass, value text, col int DEFAULT 1)
RETURNS boolean
LANGUAGE sql VOLATILE PARALLEL RESTRICTED
SET search_path = pg_catalog, @extschema@, pg_temp
AS $$
	SELECT EXISTS (SELECT FROM @extschema@.scbf_probe($1, $2, $3) p
				   WHERE p.verdict NOT IN ('maybe', 'pending')
					  OR p.ledger_matches > 0)
$$;

-- The same question of a table's column, the value as text in the column's
-- input syntax: asks the first valid, complete (not partial) scbf index
-- that has the column as a key column; the leaf partitions of a partitioned
-- table in turn.  True when no such index can rule the value out (none
-- exists, scbf_probe cannot read it, or a partition is a foreign table).  On a Citus worker, Citus
-- hides shards from queries on pg_class unless told otherwise.  A lock it
-- waits for more than 5 s is an error, not a wait: the routing functions
-- ask over connections of their own, and a table locked by DDL earlier in
-- the caller's transaction would make them wait until statement_timeout.
CREATE FUNCTION scbf_table_may_contain(tbl regclass, column_name name,
	value text)
RETURNS boolean
LANGUAGE plpgsql VOLATILE PARALLEL RESTRICTED
SET search_path = pg_catalog, @extschema@, pg_temp
SET citus.override_table_visibility = off
SET lock_timeout = '5s'
AS $$
DECLARE
	kind "char";
	idx regclass;
	pos int;
	part regclass;
BEGIN
	SELECT c.relkind INTO kind FROM pg_catalog.pg_class c WHERE c.oid = tbl;
	IF kind = 'p' THEN
		FOR part IN
			SELECT t.relid FROM pg_catalog.pg_partition_tree(tbl) t
			WHERE t.isleaf
		LOOP
			IF @extschema@.scbf_table_may_contain(part, column_name, value) THEN
				RETURN true;
			END IF;
		END LOOP;
		RETURN false;
	END IF;
	IF kind IS DISTINCT FROM 'r' AND kind IS DISTINCT FROM 'm' THEN
		RETURN true;
	END IF;
	SELECT i.indexrelid::regclass, k.n INTO idx, pos
	FROM pg_catalog.pg_index i
	JOIN pg_catalog.pg_class ic ON ic.oid = i.indexrelid AND ic.relkind = 'i'
	JOIN pg_catalog.pg_am am ON am.oid = ic.relam AND am.amname = 'scbf'
	CROSS JOIN LATERAL unnest(i.indkey::int2[]) WITH ORDINALITY k(attnum, n)
	JOIN pg_catalog.pg_attribute a
		ON a.attrelid = i.indrelid AND a.attnum = k.attnum
	WHERE i.indrelid = tbl AND i.indisvalid AND i.indisready
		AND i.indpred IS NULL AND k.n <= i.indnkeyatts
		AND a.attname = column_name
	ORDER BY k.n, ic.relname
	LIMIT 1;
	IF idx IS NULL THEN
		RETURN true;
	END IF;
	BEGIN
		RETURN @extschema@.scbf_may_contain(idx, value, pos);
	EXCEPTION WHEN feature_not_supported THEN
		-- an index that scbf_probe cannot read: the table may hold anything
		RETURN true;
	END;
END
$$;

-- The schema scbf is installed in, quoted: where the commands sent to
-- Citus workers find scbf's functions (Citus installs the extension in the
-- same schema on every node)
CREATE FUNCTION scbf_schema()
RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE
SET search_path = pg_catalog, @extschema@, pg_temp
AS $$
	SELECT pg_catalog.quote_ident(n.nspname)
	FROM pg_catalog.pg_extension e
	JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace
	WHERE e.extname = 'scbf'
$$;

-- Whether a table is a Citus distributed table (false without Citus)
CREATE FUNCTION scbf_is_distributed(tbl regclass)
RETURNS boolean
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, @extschema@, pg_temp
AS $$
DECLARE
	found boolean := false;
BEGIN
	IF pg_catalog.to_regclass('pg_catalog.pg_dist_partition') IS NOT NULL THEN
		EXECUTE 'SELECT EXISTS (SELECT FROM pg_catalog.pg_dist_partition d'
			' WHERE d.logicalrelid = $1)' INTO found USING tbl;
	END IF;
	RETURN found;
END
$$;

-- The shards of a Citus distributed table grouped by the worker node that
-- holds them (the first healthy placement of each shard), the shard names
-- in shard id order.
CREATE FUNCTION scbf_shard_nodes(tbl regclass,
	OUT nodename text, OUT nodeport int, OUT shards text[])
RETURNS SETOF record
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, @extschema@, pg_temp
AS $$
BEGIN
	-- plpgsql, not sql: the catalogs exist only where Citus does
	RETURN QUERY
	SELECT n.nodename::text, n.nodeport,
		array_agg(pg_catalog.shard_name(tbl, s.shardid) ORDER BY s.shardid)
	FROM pg_catalog.pg_dist_shard s
	JOIN LATERAL (SELECT p.groupid FROM pg_catalog.pg_dist_placement p
				  WHERE p.shardid = s.shardid AND p.shardstate = 1
				  ORDER BY p.placementid LIMIT 1) p ON true
	JOIN pg_catalog.pg_dist_node n
		ON n.groupid = p.groupid AND n.noderole = 'primary'
	WHERE s.logicalrelid = tbl
	GROUP BY n.nodename, n.nodeport
	ORDER BY n.nodename, n.nodeport;
END
$$;

-- Run one command on each of the given nodes, in parallel, and return each
-- command's first column of its first row as text, as Citus's
-- master_run_on_worker does.  With the dblink extension installed (and on
-- the search path) the connections are dblink's named connections
-- "scbf:host:port", opened on first use and kept for the session, so a
-- probe pays no connection start; connected as the current user to the
-- current database, which the nodes must accept as they accept Citus's
-- connections (a password in ~/.pgpass, or trust).  Without dblink, Citus's
-- master_run_on_worker, which opens new connections on every call.  A node
-- that fails gives success = false and the error as result (its dblink
-- connection is closed, and opened again on the next call).
CREATE FUNCTION scbf_run_on_nodes(names text[], ports int[], cmds text[],
	OUT node_name text, OUT node_port int, OUT success boolean,
	OUT result text)
RETURNS SETOF record
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, @extschema@, pg_temp
AS $$
DECLARE
	n int := coalesce(cardinality(names), 0);
	conns text[] := '{}';
	connstrs text[] := '{}';
	errs text[] := '{}';
	fresh boolean[] := '{}';
	open text[];
	c text;
	connstr text;
	sent boolean;
	dbl text;
BEGIN
	IF n = 0 THEN
		RETURN;
	END IF;
	-- dblink's functions, qualified by the schema dblink is installed in
	SELECT pg_catalog.quote_ident(ns.nspname) INTO dbl
	FROM pg_catalog.pg_extension e
	JOIN pg_catalog.pg_namespace ns ON ns.oid = e.extnamespace
	WHERE e.extname = 'dblink';
	IF dbl IS NULL THEN
		RETURN QUERY SELECT w.node_name, w.node_port, w.success, w.result
			FROM pg_catalog.master_run_on_worker(names, ports, cmds, true) w;
		RETURN;
	END IF;

	-- send every command, connecting where needed; a connection that
	-- fails to send (the node restarted since) is opened again, once
	EXECUTE format('SELECT coalesce(%s.dblink_get_connections(), ''{}'')', dbl) INTO open;
	FOR i IN 1 .. n
	LOOP
		c := format('scbf:%s:%s', names[i], ports[i]);
		conns[i] := c;
		connstr := format('host=%s port=%s dbname=%s user=%s',
						  quote_literal(names[i]), ports[i],
						  quote_literal(current_database()),
						  quote_literal(current_user));
		connstrs[i] := connstr;
		fresh[i] := NOT c = ANY (open);
		sent := false;
		FOR attempt IN 1 .. 2
		LOOP
			BEGIN
				IF NOT c = ANY (open) THEN
					EXECUTE format('SELECT %s.dblink_connect($1, $2)', dbl) USING c, connstr;
					open := open || c;
					fresh[i] := true;
				END IF;
				EXECUTE format('SELECT %s.dblink_send_query($1, $2) = 1', dbl) INTO sent
					USING c, cmds[i];
				IF NOT sent THEN
					errs[i] := 'could not send the command';
				END IF;
			EXCEPTION WHEN OTHERS THEN
				errs[i] := SQLERRM;
			END;
			EXIT WHEN sent;
			IF c = ANY (open) THEN
				EXECUTE format('SELECT %s.dblink_disconnect($1)', dbl) USING c;
				open := array_remove(open, c);
			END IF;
		END LOOP;
		IF sent THEN
			errs[i] := NULL;
		END IF;
	END LOOP;

	-- collect: one result per command, then the empty one that ends it.  A
	-- kept connection can fail only now (its server ended it while idle):
	-- the command, which only reads, runs again on a new connection.
	FOR i IN 1 .. n
	LOOP
		node_name := names[i];
		node_port := ports[i];
		success := errs[i] IS NULL;
		result := errs[i];
		IF success THEN
			BEGIN
				EXECUTE format('SELECT r FROM %s.dblink_get_result($1) AS t(r text)', dbl)
					INTO result USING conns[i];
				EXECUTE format('SELECT count(*) FROM %s.dblink_get_result($1) AS t(r text)', dbl)
					USING conns[i];
			EXCEPTION WHEN OTHERS THEN
				success := false;
				result := SQLERRM;
				EXECUTE format('SELECT %s.dblink_disconnect($1)', dbl) USING conns[i];
			END;
		END IF;
		IF NOT success AND NOT fresh[i] THEN
			BEGIN
				EXECUTE format('SELECT %s.dblink_connect($1, $2)', dbl) USING conns[i], connstrs[i];
				EXECUTE format('SELECT r FROM %s.dblink($1, $2) AS t(r text)', dbl)
					INTO result USING conns[i], cmds[i];
				success := true;
			EXCEPTION WHEN OTHERS THEN
				result := SQLERRM;
				EXECUTE format('SELECT coalesce(%s.dblink_get_connections(), ''{}'')', dbl) INTO open;
				IF conns[i] = ANY (open) THEN
					EXECUTE format('SELECT %s.dblink_disconnect($1)', dbl) USING conns[i];
				END IF;
			END;
		END IF;
		RETURN NEXT;
	END LOOP;
END
$$;

-- A worker node's side of scbf_lookup: the rows of the given shards (or
-- tables) whose column equals the value, read only from those that
-- scbf_table_may_contain does not rule out, as one JSON object
-- {"read": <tables read>, "rows": [...]}.  One call answers for all the
-- shards of a node, so a routed lookup costs one round trip per node.  As
-- scbf_table_may_contain, it waits at most 5 s for a lock.
CREATE FUNCTION scbf_read_shards(shards text[], column_name name, value text)
RETURNS json
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, @extschema@, pg_temp
SET citus.override_table_visibility = off
SET lock_timeout = '5s'
AS $$
DECLARE
	s text;
	typ text;
	sql text;
	n int := 0;
	result json;
BEGIN
	FOREACH s IN ARRAY shards
	LOOP
		CONTINUE WHEN NOT @extschema@.scbf_table_may_contain(s::regclass, column_name, value);
		SELECT pg_catalog.format_type(a.atttypid, a.atttypmod) INTO typ
		FROM pg_catalog.pg_attribute a
		WHERE a.attrelid = s::regclass AND a.attname = column_name
			AND NOT a.attisdropped;
		IF typ IS NULL THEN
			RAISE EXCEPTION 'column "%" of relation "%" does not exist',
				column_name, s USING ERRCODE = 'undefined_column';
		END IF;
		n := n + 1;
		sql := coalesce(sql || ' UNION ALL ', '')
			|| format('SELECT * FROM %s WHERE %I = $1::%s', s, column_name, typ);
	END LOOP;
	IF sql IS NULL THEN
		RETURN json_build_object('read', 0, 'rows', '[]'::json);
	END IF;
	EXECUTE format('SELECT json_build_object(''read'', %s, ''rows'','
				   ' coalesce(json_agg(t), ''[]''::json)) FROM (%s) t', n, sql)
		INTO result USING value;
	RETURN result;
END
$$;

-- The coordinator's side: which shards of a Citus distributed table, or
-- which leaf partitions of a partitioned table (local ones, or foreign
-- tables of postgres_fdw), may hold rows whose column equals the value.  One
-- row per shard or partition; may_contain is NULL when its server did not
-- answer, and scbf_lookup then queries it all the same.  Citus shards are
-- asked with one command per worker node (scbf_run_on_nodes, in parallel),
-- foreign partitions with one dblink query per foreign server
-- (this needs the dblink extension and a user mapping for the server), local
-- partitions here.
CREATE FUNCTION scbf_route(tbl regclass, column_name name, value text,
	OUT target text, OUT server text, OUT may_contain boolean)
RETURNS SETOF record
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, @extschema@, pg_temp
AS $$
DECLARE
	r record;
	names text[] := '{}';
	ports int[] := '{}';
	cmds text[] := '{}';
	lists text[] := '{}';
	maybe text[];
	dbl text;
	ext text := @extschema@.scbf_schema();
BEGIN
	IF @extschema@.scbf_is_distributed(tbl) THEN
		-- Citus: one command per node, over the shards placed there (the
		-- first healthy placement of each)
		FOR r IN SELECT * FROM @extschema@.scbf_shard_nodes(tbl)
		LOOP
			names := names || r.nodename;
			ports := ports || r.nodeport;
			lists := lists || r.shards::text;
			cmds := cmds || format(
				'SELECT coalesce(string_agg(s, '',''), '''') FROM unnest(%L::text[]) s'
				' WHERE %s.scbf_table_may_contain(s::regclass, %L, %L)',
				r.shards, ext, column_name, value);
		END LOOP;
		FOR r IN
			SELECT c.name, c.port, c.list, w.success, w.result
			FROM unnest(names, ports, lists) c(name, port, list)
			LEFT JOIN @extschema@.scbf_run_on_nodes(names, ports, cmds) w
				ON w.node_name = c.name AND w.node_port = c.port
		LOOP
			maybe := CASE WHEN r.success THEN string_to_array(r.result, ',') END;
			server := r.name || ':' || r.port;
			FOR target IN SELECT unnest(r.list::text[])
			LOOP
				may_contain := CASE WHEN r.success THEN target = ANY (maybe) END;
				RETURN NEXT;
			END LOOP;
		END LOOP;
		RETURN;
	END IF;

	IF (SELECT c.relkind FROM pg_catalog.pg_class c WHERE c.oid = tbl)
		IS DISTINCT FROM 'p' THEN
		RAISE EXCEPTION 'cannot route queries on table "%"', tbl
			USING ERRCODE = 'wrong_object_type',
			DETAIL = 'Routing needs a Citus distributed table or a partitioned table.';
	END IF;

	-- local leaf partitions: here
	FOR target IN
		SELECT t.relid::regclass::text
		FROM pg_catalog.pg_partition_tree(tbl) t
		JOIN pg_catalog.pg_class c ON c.oid = t.relid
		WHERE t.isleaf AND c.relkind <> 'f'
		ORDER BY 1
	LOOP
		server := NULL;
		may_contain := @extschema@.scbf_table_may_contain(target::regclass, column_name, value);
		RETURN NEXT;
	END LOOP;

	-- foreign leaf partitions: one query per server, over the remote names
	FOR r IN
		SELECT s.srvname,
			array_agg(t.relid::regclass::text ORDER BY t.relid::regclass::text) AS locals,
			array_agg(format('%I.%I',
				coalesce((SELECT substr(o, 13) FROM unnest(ft.ftoptions) o
						  WHERE o LIKE 'schema\_name=%'), ns.nspname),
				coalesce((SELECT substr(o, 12) FROM unnest(ft.ftoptions) o
						  WHERE o LIKE 'table\_name=%'), c.relname))
				ORDER BY t.relid::regclass::text) AS remotes,
			array_agg(coalesce((SELECT substr(o, 13) FROM unnest(a.attfdwoptions) o
								WHERE o LIKE 'column\_name=%'), a.attname::text)
				ORDER BY t.relid::regclass::text) AS columns
		FROM pg_catalog.pg_partition_tree(tbl) t
		JOIN pg_catalog.pg_class c ON c.oid = t.relid AND c.relkind = 'f'
		JOIN pg_catalog.pg_namespace ns ON ns.oid = c.relnamespace
		JOIN pg_catalog.pg_foreign_table ft ON ft.ftrelid = t.relid
		JOIN pg_catalog.pg_foreign_server s ON s.oid = ft.ftserver
		LEFT JOIN pg_catalog.pg_attribute a
			ON a.attrelid = t.relid AND a.attname = column_name
		WHERE t.isleaf
		GROUP BY s.srvname
		ORDER BY s.srvname
	LOOP
		SELECT pg_catalog.quote_ident(ns.nspname) INTO dbl
		FROM pg_catalog.pg_extension e
		JOIN pg_catalog.pg_namespace ns ON ns.oid = e.extnamespace
		WHERE e.extname = 'dblink';
		IF dbl IS NULL THEN
			RAISE EXCEPTION 'routing to foreign partitions needs the dblink extension'
				USING ERRCODE = 'feature_not_supported',
				HINT = 'Run CREATE EXTENSION dblink on the coordinator.';
		END IF;
		BEGIN
			-- the positions (from 1) of the partitions that may hold it
			EXECUTE format('SELECT m FROM %s.dblink(%L, %L) AS t(m int[])',
				dbl, r.srvname,
				format('SELECT coalesce(array_agg(n), ''{}'') FROM unnest(%L::text[], %L::text[]) WITH ORDINALITY u(rel, col, n)'
					   ' WHERE scbf_table_may_contain(rel::regclass, col, %L)',
					   r.remotes, r.columns, value))
				INTO maybe;
		EXCEPTION WHEN OTHERS THEN
			maybe := NULL;
		END;
		server := r.srvname;
		FOR i IN 1 .. array_length(r.locals, 1)
		LOOP
			target := r.locals[i];
			may_contain := CASE WHEN maybe IS NOT NULL THEN i = ANY (maybe::int[]) END;
			RETURN NEXT;
		END LOOP;
	END LOOP;
END
$$;

-- The rows of a Citus distributed table or partitioned table whose column
-- equals the value, read only from the shards or partitions that scbf_route
-- says may hold it (or that did not answer): the rows of
-- SELECT * FROM tbl WHERE column = value.  The table is given by its row
-- type: SELECT * FROM scbf_lookup(NULL::orders, 'customer_id', '42').  On
-- Citus, one command per worker node (scbf_run_on_nodes, in parallel) both
-- asks and reads: scbf_read_shards there reads the node's shards that its
-- filters do not rule out, and the rows come back as JSON; a node that
-- fails raises an error, never a shorter answer.  Partitions are asked
-- with scbf_route, then the ones that may hold the value are read.  The
-- shards are read outside the caller's transaction, so they show what is
-- committed.  A DEBUG1 message says how many shards or partitions were
-- read.
CREATE FUNCTION scbf_lookup(tbl anyelement, column_name name, value text)
RETURNS SETOF anyelement
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, @extschema@, pg_temp
AS $$
DECLARE
	rel regclass;
	cond text;
	cols text;
	r record;
	names text[] := '{}';
	ports int[] := '{}';
	cmds text[] := '{}';
	sql text;
	asked int := 0;
	total int := 0;
	ext text := @extschema@.scbf_schema();
BEGIN
	SELECT t.typrelid INTO rel FROM pg_catalog.pg_type t
	WHERE t.oid = pg_catalog.pg_typeof(tbl) AND t.typrelid <> 0;
	IF rel IS NULL THEN
		RAISE EXCEPTION 'scbf_lookup needs the row type of a table, not %',
			pg_catalog.pg_typeof(tbl)
			USING ERRCODE = 'wrong_object_type',
			HINT = 'Pass NULL::tablename.';
	END IF;
	SELECT format('%I = %L::%s', a.attname, value,
				  pg_catalog.format_type(a.atttypid, NULL))
	INTO cond
	FROM pg_catalog.pg_attribute a
	WHERE a.attrelid = rel AND a.attname = column_name AND NOT a.attisdropped;
	IF cond IS NULL THEN
		RAISE EXCEPTION 'column "%" of relation "%" does not exist',
			column_name, rel USING ERRCODE = 'undefined_column';
	END IF;
	SELECT string_agg(quote_ident(a.attname), ', ' ORDER BY a.attnum) INTO cols
	FROM pg_catalog.pg_attribute a
	WHERE a.attrelid = rel AND a.attnum > 0 AND NOT a.attisdropped;

	IF @extschema@.scbf_is_distributed(rel) THEN
		FOR r IN SELECT * FROM @extschema@.scbf_shard_nodes(rel)
		LOOP
			total := total + cardinality(r.shards);
			names := names || r.nodename;
			ports := ports || r.nodeport;
			cmds := cmds || format('SELECT %s.scbf_read_shards(%L::text[], %L, %L)',
								   ext, r.shards, column_name, value);
		END LOOP;
		FOR r IN
			SELECT w.node_name, w.node_port, w.success, w.result
			FROM @extschema@.scbf_run_on_nodes(names, ports, cmds) w
		LOOP
			IF NOT r.success THEN
				RAISE EXCEPTION 'could not read the shards on %:%',
					r.node_name, r.node_port
					USING ERRCODE = 'connection_failure', DETAIL = r.result;
			END IF;
			asked := asked + (r.result::json ->> 'read')::int;
			RETURN QUERY SELECT * FROM json_populate_recordset(tbl, r.result::json -> 'rows');
		END LOOP;
		RAISE DEBUG 'scbf_lookup: % of % shards read', asked, total;
		RETURN;
	END IF;

	FOR r IN SELECT x.target, x.may_contain
		FROM @extschema@.scbf_route(rel, column_name, value) x ORDER BY x.target
	LOOP
		total := total + 1;
		CONTINUE WHEN r.may_contain IS false;
		asked := asked + 1;
		sql := coalesce(sql || ' UNION ALL ', '')
			|| format('SELECT %s FROM %s WHERE %s', cols, r.target, cond);
	END LOOP;
	RAISE DEBUG 'scbf_lookup: % of % partitions read', asked, total;
	IF sql IS NOT NULL THEN
		RETURN QUERY EXECUTE sql;
	END IF;
END
$$;

REVOKE ALL ON FUNCTION scbf_may_contain(regclass, anyelement, int) FROM PUBLIC;
REVOKE ALL ON FUNCTION scbf_may_contain(regclass, text, int) FROM PUBLIC;
REVOKE ALL ON FUNCTION scbf_table_may_contain(regclass, name, text) FROM PUBLIC;
REVOKE ALL ON FUNCTION scbf_route(regclass, name, text) FROM PUBLIC;
REVOKE ALL ON FUNCTION scbf_lookup(anyelement, name, text) FROM PUBLIC;
REVOKE ALL ON FUNCTION scbf_is_distributed(regclass) FROM PUBLIC;
REVOKE ALL ON FUNCTION scbf_shard_nodes(regclass) FROM PUBLIC;
REVOKE ALL ON FUNCTION scbf_read_shards(text[], name, text) FROM PUBLIC;
REVOKE ALL ON FUNCTION scbf_run_on_nodes(text[], int[], text[]) FROM PUBLIC;
REVOKE ALL ON FUNCTION scbf_schema() FROM PUBLIC;

-- Routing the plain query on Citus (src/scbfroute.c): a worker node's
-- answer to the coordinator's question, per shard (qualified names) whether
-- it may hold a row whose column equals one of the values (the text input of
-- value_type), from the shard's scbf index.  A shard that cannot tell (no
-- such table or index, a lock not free at once, no SELECT privilege; in
-- strict mode a transaction holding a write lock on it) answers true.
-- Executable by every role, since every role that reads a distributed
-- table routes: what it reveals is already the caller's to read.
CREATE FUNCTION scbf_route_shards(shards text[], column_name name,
	value_type regtype, vals text[], strict boolean)
RETURNS boolean[]
AS 'MODULE_PATHNAME', 'scbf_route_shards'
LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
