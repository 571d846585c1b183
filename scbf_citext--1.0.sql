/* scbf_citext--1.0.sql */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION scbf_citext" to load this file. \quit

--
-- The default scbf operator class of citext: citext's own "=", which
-- compares lower-cased values, and the function its default hash operator
-- class hashes with (citext_hash, which hashes the lower-cased value), so
-- that equal values hash equal and WHERE email = 'X@Y.COM' can use an scbf
-- index on a citext column.  Without it CREATE INDEX would take scbf's
-- text_ops for a citext column (citext is binary-coercible to text), whose
-- equality is text's, and scbf refuses that.
--
-- The class copies citext's hash operator class as the catalog holds it,
-- for every type of extension citext that has a default one: citext's
-- schema is the user's choice and PostgreSQL 15 has no @extschema:citext@,
-- so the script looks the objects up by their membership in the extension
-- and names each one qualified with its schema.
--
DO $$
DECLARE
	c			record;
	n			int := 0;
BEGIN
	FOR c IN
		SELECT oc.opcname, mynsp.nspname AS mynsp,
			   tn.nspname AS typnsp, t.typname,
			   opn.nspname AS oprnsp, o.oprname,
			   pn.nspname AS procnsp, p.proname,
			   an.nspname AS argnsp, a.typname AS argname
		FROM pg_catalog.pg_extension e
		JOIN pg_catalog.pg_extension me
			ON me.extname OPERATOR(pg_catalog.=) 'scbf_citext'
		JOIN pg_catalog.pg_namespace mynsp
			ON mynsp.oid OPERATOR(pg_catalog.=) me.extnamespace
		JOIN pg_catalog.pg_depend d
			ON d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_extension'::pg_catalog.regclass
			AND d.refobjid OPERATOR(pg_catalog.=) e.oid
			AND d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_type'::pg_catalog.regclass
			AND d.deptype OPERATOR(pg_catalog.=) 'e'
		JOIN pg_catalog.pg_type t ON t.oid OPERATOR(pg_catalog.=) d.objid
		JOIN pg_catalog.pg_namespace tn
			ON tn.oid OPERATOR(pg_catalog.=) t.typnamespace
		JOIN pg_catalog.pg_am am ON am.amname OPERATOR(pg_catalog.=) 'hash'
		JOIN pg_catalog.pg_opclass oc
			ON oc.opcmethod OPERATOR(pg_catalog.=) am.oid
			AND oc.opcintype OPERATOR(pg_catalog.=) t.oid AND oc.opcdefault
		JOIN pg_catalog.pg_amop ao
			ON ao.amopfamily OPERATOR(pg_catalog.=) oc.opcfamily
			AND ao.amoplefttype OPERATOR(pg_catalog.=) t.oid
			AND ao.amoprighttype OPERATOR(pg_catalog.=) t.oid
			AND ao.amopstrategy OPERATOR(pg_catalog.=) 1
		JOIN pg_catalog.pg_operator o ON o.oid OPERATOR(pg_catalog.=) ao.amopopr
		JOIN pg_catalog.pg_namespace opn
			ON opn.oid OPERATOR(pg_catalog.=) o.oprnamespace
		JOIN pg_catalog.pg_amproc ap
			ON ap.amprocfamily OPERATOR(pg_catalog.=) oc.opcfamily
			AND ap.amproclefttype OPERATOR(pg_catalog.=) t.oid
			AND ap.amprocrighttype OPERATOR(pg_catalog.=) t.oid
			AND ap.amprocnum OPERATOR(pg_catalog.=) 1
		JOIN pg_catalog.pg_proc p ON p.oid OPERATOR(pg_catalog.=) ap.amproc
		JOIN pg_catalog.pg_namespace pn
			ON pn.oid OPERATOR(pg_catalog.=) p.pronamespace
		JOIN pg_catalog.pg_type a
			ON a.oid OPERATOR(pg_catalog.=) p.proargtypes[0]
		JOIN pg_catalog.pg_namespace an
			ON an.oid OPERATOR(pg_catalog.=) a.typnamespace
		WHERE e.extname OPERATOR(pg_catalog.=) 'citext'
		ORDER BY t.typname
	LOOP
		-- (an operator name is not an identifier: it is written as is, and
		-- is made of operator characters only)
		EXECUTE pg_catalog.format(
			'CREATE OPERATOR CLASS %I.%I DEFAULT FOR TYPE %I.%I USING scbf AS '
			'OPERATOR 1 %I.%s (%I.%I, %I.%I), FUNCTION 1 %I.%I(%I.%I)',
			c.mynsp, c.opcname, c.typnsp, c.typname,
			c.oprnsp, c.oprname, c.typnsp, c.typname, c.typnsp, c.typname,
			c.procnsp, c.proname, c.argnsp, c.argname);
		n := n OPERATOR(pg_catalog.+) 1;
	END LOOP;
	IF n OPERATOR(pg_catalog.=) 0 THEN
		RAISE EXCEPTION 'extension citext has no type with a default hash operator class'
			USING ERRCODE = 'undefined_object';
	END IF;
END
$$;
