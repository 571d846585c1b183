--
-- test/upgrade/check.sql: what test/upgrade/run checks on each major, before
-- and after each pg_upgrade (psql -v scbf_same=PATH of
-- sql/include/scbf_same.sql).  Any failed check is an error (ON_ERROR_STOP).
--
--   1. every scbf operator class passes amvalidate (on 18, after an upgrade,
--      those that kept the hash functions of 15 and 17 too), and every
--      type of u_spec is indexed with the class of its own type;
--   2. every index answers = and IN as a sequential scan does, rows
--      included, the plan scanning the index (scbf_same), and finds
--      nothing for a value no row holds (scbf_empty);
--   3. every index has entries in its pending area (inserted after its
--      last fold, before the upgrade) and the verifier, with
--      heapallindexed, finds the index whole.
--
\set ON_ERROR_STOP 1
\set ECHO none
\i :scbf_same
\set ECHO queries
SELECT current_setting('server_version_num')::int / 10000 AS major,
	(SELECT extversion FROM pg_extension WHERE extname = 'scbf') AS scbf,
	(SELECT count(*) FROM u_cols) AS columns, (SELECT count(*) FROM u_t) AS rows;

-- 1. the classes, and the hash function each of the seven types whose
-- function 18 changed uses here
SELECT count(*) AS classes,
	count(*) FILTER (WHERE amvalidate(c.oid)) AS valid
FROM pg_opclass c WHERE c.opcmethod = (SELECT oid FROM pg_am WHERE amname = 'scbf');
DO $$
DECLARE bad text;
BEGIN
	SELECT string_agg(c.opcname, ', ') INTO bad FROM pg_opclass c
	WHERE c.opcmethod = (SELECT oid FROM pg_am WHERE amname = 'scbf')
	  AND NOT amvalidate(c.oid);
	IF bad IS NOT NULL THEN
		RAISE EXCEPTION 'amvalidate rejects %', bad;
	END IF;
END $$;
SELECT c.opcname, p.amproc::regprocedure AS scbf_function,
	h.amproc::regprocedure AS hash_am_function
FROM pg_opclass c
JOIN pg_amproc p ON p.amprocfamily = c.opcfamily AND p.amproclefttype = c.opcintype
JOIN pg_opclass hc ON hc.opcintype = c.opcintype AND hc.opcdefault
	AND hc.opcmethod = (SELECT oid FROM pg_am WHERE amname = 'hash')
JOIN pg_amproc h ON h.amprocfamily = hc.opcfamily AND h.amproclefttype = hc.opcintype
	AND h.amprocrighttype = hc.opcintype AND h.amprocnum = 1
WHERE c.opcmethod = (SELECT oid FROM pg_am WHERE amname = 'scbf')
  AND c.opcintype IN ('bool'::regtype, 'bytea'::regtype, 'date'::regtype,
					  'timestamptz'::regtype, 'xid'::regtype, 'cid'::regtype,
					  'xid8'::regtype)
ORDER BY 1;
SELECT s.col, o.opcname
FROM u_cols s
JOIN pg_index i ON i.indexrelid = ('u_t_' || s.col)::regclass
JOIN pg_opclass o ON o.oid = i.indclass[0]
ORDER BY s.n;

-- 3. (before the queries, which do not fold) the pending entries
SELECT s.col, i.entries_pending, i.entries_live
FROM u_cols s, scbf_index_info(('u_t_' || s.col)::regclass) i ORDER BY s.n;
DO $$
DECLARE none text;
BEGIN
	SELECT string_agg(s.col, ', ') INTO none
	FROM u_cols s, scbf_index_info(('u_t_' || s.col)::regclass) i
	WHERE i.entries_pending = 0;
	IF none IS NOT NULL THEN
		RAISE EXCEPTION 'no pending entries in the indexes of %', none;
	END IF;
END $$;

-- 2. the answers (bool = true is planned as the bare column, which 15
-- matches to btree and hash indexes only: bool is asked with IN)
SELECT s.col,
	CASE WHEN s.typ = 'bool' THEN
		scbf_same(format('SELECT * FROM u_t WHERE %I IN (%s, %s)', s.col, s.present, s.absent))
	ELSE scbf_same(format('SELECT * FROM u_t WHERE %I = %s', s.col, s.present)) END AS eq,
	scbf_same(format('SELECT * FROM u_t WHERE %I IN (%s, %s)', s.col, s.present, s.absent)) AS in_list,
	CASE WHEN s.typ = 'bool' THEN '-'
	ELSE scbf_empty(format('SELECT * FROM u_t WHERE %I = %s', s.col, s.absent)) END AS absent
FROM u_cols s ORDER BY s.n;

-- 3. the verifier
SELECT s.col, scbf_verify(('u_t_' || s.col)::regclass, heapallindexed => true) IS NULL AS verified
FROM u_cols s ORDER BY s.n;

DROP FUNCTION scbf_same, scbf_empty, scbf_noindex, scbf_compare;
DROP PROCEDURE scbf_wait_snapshots;
