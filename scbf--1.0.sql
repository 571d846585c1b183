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

CREATE OPERATOR CLASS date_ops
DEFAULT FOR TYPE date USING scbf AS
	OPERATOR	1	=(date, date),
	FUNCTION	1	hashint4(int4);

CREATE OPERATOR CLASS timestamp_ops
DEFAULT FOR TYPE timestamp USING scbf AS
	OPERATOR	1	=(timestamp, timestamp),
	FUNCTION	1	timestamp_hash(timestamp);

CREATE OPERATOR CLASS timestamptz_ops
DEFAULT FOR TYPE timestamptz USING scbf AS
	OPERATOR	1	=(timestamptz, timestamptz),
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

CREATE OPERATOR CLASS bytea_ops
DEFAULT FOR TYPE bytea USING scbf AS
	OPERATOR	1	=(bytea, bytea),
	FUNCTION	1	hashvarlena(internal);

CREATE OPERATOR CLASS bool_ops
DEFAULT FOR TYPE bool USING scbf AS
	OPERATOR	1	=(bool, bool),
	FUNCTION	1	hashchar("char");

CREATE OPERATOR CLASS char_ops
DEFAULT FOR TYPE "char" USING scbf AS
	OPERATOR	1	=("char", "char"),
	FUNCTION	1	hashchar("char");

CREATE OPERATOR CLASS oid_ops
DEFAULT FOR TYPE oid USING scbf AS
	OPERATOR	1	=(oid, oid),
	FUNCTION	1	hashoid(oid);

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
