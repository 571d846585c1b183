--
-- scbf_types_more: the operator classes of the types whose hash functions
-- look at the value's own type (enums, arrays, ranges, multiranges,
-- composites: the polymorphic classes), jsonb, and the system types (tid,
-- xid, xid8, cid, oidvector, aclitem).  As scbf_types does for the others:
-- every query form, with NULLs, on an empty table, a filled one, after
-- REINDEX and through rounds of DELETE / VACUUM / INSERT; then the verifier
-- and the diagnostics on each index, enum values added after the index
-- exists, and the query forms these types are used with (a jsonb document,
-- a key inside it, a tag array, an enum IN list, a composite key).  Every
-- answer goes through scbf_same(), which compares it with a sequential scan
-- and fails loudly on any difference, on a plan without the index, on no
-- rows.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS scbf;
RESET client_min_messages;

-- scbf_same(query [, parameter types, parameter values]): the index is
-- scanned and returns the sequential scan's rows, at least one;
-- scbf_empty(...): the same, no row; scbf_noindex(...): the planner cannot
-- use scbf here.  Each raises an error otherwise (sql/include/scbf_same.sql).
\getenv abs_srcdir PG_ABS_SRCDIR
\set scbf_same_sql :abs_srcdir '/sql/include/scbf_same.sql'
\set ECHO none
\i :scbf_same_sql
\set ECHO all

-- each class is the hash access method's for the type: the same function,
-- the same equality operator (the types are created after the extension:
-- the polymorphic classes serve them with no further step)
SELECT c.opcname, c.opcintype::regtype, amvalidate(c.oid),
	s.amproc = h.amproc AS hash_am_function,
	so.amopopr = ho.amopopr AS hash_am_equality
FROM pg_opclass c
JOIN pg_amproc s ON s.amprocfamily = c.opcfamily AND s.amprocnum = 1
	AND s.amproclefttype = c.opcintype AND s.amprocrighttype = c.opcintype
JOIN pg_amop so ON so.amopfamily = c.opcfamily AND so.amopstrategy = 1
	AND so.amoplefttype = c.opcintype AND so.amoprighttype = c.opcintype
JOIN pg_opclass hc ON hc.opcintype = c.opcintype AND hc.opcdefault
	AND hc.opcmethod = (SELECT oid FROM pg_am WHERE amname = 'hash')
JOIN pg_amproc h ON h.amprocfamily = hc.opcfamily AND h.amprocnum = 1
	AND h.amproclefttype = hc.opcintype AND h.amprocrighttype = hc.opcintype
JOIN pg_amop ho ON ho.amopfamily = hc.opcfamily AND ho.amopstrategy = 1
	AND ho.amoplefttype = hc.opcintype AND ho.amoprighttype = hc.opcintype
WHERE c.opcmethod = (SELECT oid FROM pg_am WHERE amname = 'scbf')
  AND c.opcname IN ('enum_ops', 'array_ops', 'range_ops', 'multirange_ops',
					'record_ops', 'jsonb_ops', 'tid_ops', 'xid_ops', 'xid8_ops',
					'cid_ops', 'oidvector_ops', 'aclitem_ops')
ORDER BY 1;

-- every type with a default hash operator class in core has a default scbf
-- class for the same input type
SELECT hc.opcintype::regtype AS type_without_scbf_class
FROM pg_opclass hc
WHERE hc.opcmethod = (SELECT oid FROM pg_am WHERE amname = 'hash')
  AND hc.opcdefault AND hc.opcnamespace = 'pg_catalog'::regnamespace
  AND NOT EXISTS (SELECT FROM pg_opclass c
				  WHERE c.opcmethod = (SELECT oid FROM pg_am WHERE amname = 'scbf')
					AND c.opcdefault AND c.opcintype = hc.opcintype);

-- amvalidate takes the hash functions of every major: for the seven types
-- that 18 gave functions of their own, the function 15 and 17 use is right
-- too (a cluster that pg_upgrade brings to 18 keeps the classes the
-- extension's script made on its first major); another type's function is
-- not
CREATE FUNCTION tm_older_class(typ regtype, func regprocedure) RETURNS bool
LANGUAGE plpgsql AS $$
DECLARE
	ok bool;
BEGIN
	EXECUTE format('CREATE OPERATOR CLASS tm_older_ops FOR TYPE %s USING scbf AS OPERATOR 1 = (%s, %s), FUNCTION 1 %s',
				   typ, typ, typ, func);
	SELECT amvalidate(oid) INTO ok FROM pg_opclass
	WHERE opcname = 'tm_older_ops' AND opcmethod = (SELECT oid FROM pg_am WHERE amname = 'scbf');
	DROP OPERATOR FAMILY tm_older_ops USING scbf;
	RETURN ok;
END $$;
SELECT v.typ, v.func, tm_older_class(v.typ::regtype, v.func::regprocedure) AS valid
FROM (VALUES ('bool', 'hashchar("char")'), ('bytea', 'hashvarlena(internal)'),
			 ('date', 'hashint4(int4)'), ('timestamptz', 'timestamp_hash(timestamp)'),
			 ('xid', 'hashint4(int4)'), ('cid', 'hashint4(int4)'),
			 ('xid8', 'hashint8(int8)'), ('bool', 'hashint4(int4)'),
			 ('date', 'hashint8(int8)')) AS v(typ, func);
DROP FUNCTION tm_older_class(regtype, regprocedure);

CREATE TYPE tm_mood AS ENUM ('sad', 'ok', 'happy', 'unused');
CREATE TYPE tm_pair AS (x int, y text);

-- the types: column type, value for row g, a present and an absent
-- literal, and whether = ANY(array) can be written (no array of arrays)
CREATE TABLE tm_spec (n int, typ text, expr text, present text, absent text,
	has_any bool DEFAULT true,
	is_row bool GENERATED ALWAYS AS (typ = 'tm_pair') STORED);
INSERT INTO tm_spec (n, typ, expr, present, absent, has_any) VALUES
	(1, 'tm_mood', '(ARRAY[''sad'', ''ok'', ''happy''])[g % 3 + 1]::tm_mood', '''ok''', '''unused''', true),
	(2, 'jsonb', 'jsonb_build_object(''a'', g % 100, ''b'', jsonb_build_array(g % 7, ''x''))', '''{"b": [0, "x"], "a": 42}''', '''{"a": 42, "b": [7, "x"]}''', true),
	(3, 'int4[]', 'ARRAY[g % 50, g % 7]', '''{42,0}''', '''{42,7}''', false),
	(4, 'text[]', 'ARRAY[''a'' || g % 60, NULL, ''b'']', '''{a42,NULL,b}''', '''{a42,b}''', false),
	(5, 'int4range', 'int4range(g % 40, g % 40 + 5)', '''[2,7)''', '''[2,8)''', true),
	(6, 'int4multirange', 'int4multirange(int4range(g % 30, g % 30 + 2), int4range(100, 101))', '''{[3,5),[100,101)}''', '''{[3,5)}''', true),
	(7, 'tm_pair', 'ROW(g % 70, ''y'' || g % 7)::tm_pair', '''(42,y0)''::tm_pair', '''(42,y1)''::tm_pair', true),
	(8, 'tid', 'format(''(%s,%s)'', g % 90, g % 3 + 1)::tid', '''(42,1)''', '''(42,4)''', true),
	(9, 'xid', '(g % 500)::text::xid', '''42''', '''4242''', true),
	(10, 'xid8', '(g % 500 + 4294967296)::text::xid8', '''4294967338''', '''4294968296''', true),
	(11, 'cid', '(g % 400)::text::cid', '''42''', '''4242''', true),
	(12, 'oidvector', '((g % 20) || '' '' || (g % 3))::oidvector', '''2 0''', '''2 5''', true),
	(13, 'aclitem', 'makeaclitem(0, 10, (ARRAY[''SELECT'', ''INSERT'', ''UPDATE'', ''DELETE'', ''TRUNCATE'', ''REFERENCES'', ''TRIGGER''])[g % 7 + 1], false)',
	 'makeaclitem(0, 10, ''SELECT'', false)', 'makeaclitem(0, 10, ''USAGE'', false)', true);
-- (each present value is held by rows that no DELETE below removes; the
-- aclitems have no grant option, since from PostgreSQL 16 on hash_aclitem
-- leaves it out: an item with and one without it hash alike, which the
-- scan's recheck sorts out but would make the probe below count both)

-- one table per type: id, the value (NULL in every 11th row), and a pad
-- that spreads the rows over more pages; the index is built empty
DO $$
DECLARE s record;
BEGIN
	FOR s IN SELECT * FROM tm_spec ORDER BY n LOOP
		EXECUTE format('CREATE TABLE tm_%s (id int, c %s, pad text)', s.n, s.typ);
		EXECUTE format('CREATE INDEX tm_%s_c ON tm_%s USING scbf (c) WITH (pages_per_segment = 8)', s.n, s.n);
	END LOOP;
END $$;

-- the operator class each index got
SELECT s.n, s.typ, o.opcname
FROM tm_spec s JOIN pg_index i ON i.indexrelid = format('tm_%s_c', s.n)::regclass
JOIN pg_opclass o ON o.oid = i.indclass[0]
ORDER BY s.n;

CREATE FUNCTION tm_fill(lo int, hi int) RETURNS void LANGUAGE plpgsql AS $$
DECLARE s record;
BEGIN
	FOR s IN SELECT * FROM tm_spec ORDER BY n LOOP
		EXECUTE format('INSERT INTO tm_%s SELECT g, CASE WHEN g %% 11 <> 0 THEN %s END, repeat(''p'', 60) FROM generate_series(%s, %s) g',
					   s.n, s.expr, lo, hi);
	END LOOP;
END $$;

-- every query form for one type: =, IN with an absent value, = ANY with a
-- NULL element, IS NULL, IS NOT NULL, = $1 and = ANY($1) with generic plans
-- (for an array type IN becomes an OR of =, and = ANY cannot be written;
-- on a composite column IS NULL is true of a row whose fields are all NULL
-- as well, which no index can answer: the planner gives it no index)
CREATE FUNCTION tm_check(s tm_spec) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	t text := 'tm_' || s.n;
BEGIN
	RETURN concat_ws(' | ',
		scbf_same(format('SELECT * FROM %s WHERE c = %s', t, s.present)),
		scbf_same(format('SELECT * FROM %s WHERE c IN (%s, %s)', t, s.present, s.absent)),
		CASE WHEN s.has_any THEN
			scbf_same(format('SELECT * FROM %s WHERE c = ANY(ARRAY[%s, NULL]::%s[])', t, s.present, s.typ)) END,
		CASE WHEN s.is_row THEN
			scbf_noindex(format('SELECT * FROM %s WHERE c IS NULL', t))
		ELSE scbf_same(format('SELECT * FROM %s WHERE c IS NULL', t)) END,
		CASE WHEN s.is_row THEN
			scbf_noindex(format('SELECT * FROM %s WHERE c IS NOT NULL AND id < 100', t))
		ELSE scbf_same(format('SELECT * FROM %s WHERE c IS NOT NULL AND id < 100', t)) END,
		scbf_same(format('SELECT * FROM %s WHERE c = $1', t), s.typ, s.present || '::' || s.typ),
		CASE WHEN s.has_any THEN
			scbf_same(format('SELECT * FROM %s WHERE c = ANY($1)', t), s.typ || '[]',
					  format('ARRAY[%s, %s]::%s[]', s.present, s.absent, s.typ)) END);
END $$;

-- the empty tables: the indexes, built empty, find nothing
SELECT s.n, s.typ,
	scbf_empty(format('SELECT * FROM tm_%s WHERE c = %s', s.n, s.present)) AS eq
FROM tm_spec s ORDER BY n;

-- filled by inserts (the indexes were built empty)
SELECT tm_fill(1, 3000);
SELECT s.n, s.typ, tm_check(s) FROM tm_spec s ORDER BY n;

-- rebuilt from the filled tables
DO $$
DECLARE s record;
BEGIN
	FOR s IN SELECT n FROM tm_spec LOOP
		EXECUTE format('REINDEX INDEX tm_%s_c', s.n);
	END LOOP;
END $$;
SELECT s.n, s.typ, tm_check(s) FROM tm_spec s ORDER BY n;

-- two rounds of DELETE / VACUUM / INSERT; the new rows reuse the space
DO $$
DECLARE s record;
BEGIN
	FOR s IN SELECT n FROM tm_spec LOOP
		EXECUTE format('DELETE FROM tm_%s WHERE id %% 4 = 1 OR id BETWEEN 1000 AND 1500', s.n);
	END LOOP;
END $$;
CALL scbf_wait_snapshots();
VACUUM tm_1, tm_2, tm_3, tm_4, tm_5, tm_6, tm_7, tm_8, tm_9, tm_10, tm_11, tm_12, tm_13;
SELECT tm_fill(3001, 4200);
DO $$
DECLARE s record;
BEGIN
	FOR s IN SELECT n FROM tm_spec LOOP
		EXECUTE format('DELETE FROM tm_%s WHERE id %% 5 = 2', s.n);
	END LOOP;
END $$;
CALL scbf_wait_snapshots();
VACUUM tm_1, tm_2, tm_3, tm_4, tm_5, tm_6, tm_7, tm_8, tm_9, tm_10, tm_11, tm_12, tm_13;
-- the last rows stay in the pending area (and this backend's batch)
SELECT tm_fill(4201, 5000);
SELECT s.n, s.typ, tm_check(s) FROM tm_spec s ORDER BY n;
-- values no row holds
SELECT s.n, s.typ,
	scbf_empty(format('SELECT * FROM tm_%s WHERE c = %s', s.n, s.absent)) AS absent
FROM tm_spec s ORDER BY n;

-- the verifier, with the heap checked against the index, on every index,
-- with entries pending and after they are folded
CREATE FUNCTION tm_verify() RETURNS TABLE (n int, typ text, verified bool)
LANGUAGE plpgsql AS $$
DECLARE s record;
BEGIN
	FOR s IN SELECT * FROM tm_spec ORDER BY tm_spec.n LOOP
		PERFORM scbf_verify(format('tm_%s_c', s.n)::regclass, heapallindexed => true);
		n := s.n; typ := s.typ; verified := true;
		RETURN NEXT;
	END LOOP;
END $$;
SELECT * FROM tm_verify();
SELECT s.n, s.typ, scbf_clean_pending(format('tm_%s_c', s.n)::regclass) > 0 AS folded
FROM tm_spec s ORDER BY n;
SELECT * FROM tm_verify();

-- the diagnostics: what each index holds is what its table holds; the
-- probe of a present value (typed, and as text in the column's input
-- syntax) finds exactly the rows that hold it
CREATE FUNCTION tm_diag(s tm_spec) RETURNS TABLE (live_is_rows bool,
	probe_typed_is_rows bool, probe_text_is_rows bool, may_contain bool,
	absent_may_contain bool)
LANGUAGE plpgsql AS $$
DECLARE
	idx regclass := format('tm_%s_c', s.n)::regclass;
	rows bigint;
	present_text text;
BEGIN
	EXECUTE format('SELECT count(*) FROM tm_%s WHERE c = %s', s.n, s.present) INTO rows;
	EXECUTE format('SELECT (%s)::%s::text', s.present, s.typ) INTO present_text;
	EXECUTE format('SELECT (SELECT i.entries_live + i.entries_pending FROM scbf_index_info(%L) i) = count(*) FROM tm_%s',
				   idx, s.n) INTO live_is_rows;
	EXECUTE format('SELECT sum(ledger_matches) = %s FROM scbf_probe(%L, (%s)::%s)',
				   rows, idx, s.present, s.typ) INTO probe_typed_is_rows;
	SELECT sum(p.ledger_matches) = rows INTO probe_text_is_rows
	FROM scbf_probe(idx, present_text) p;
	EXECUTE format('SELECT scbf_may_contain(%L, (%s)::%s)', idx, s.present, s.typ) INTO may_contain;
	EXECUTE format('SELECT scbf_may_contain(%L, (%s)::%s)', idx, s.absent, s.typ) INTO absent_may_contain;
	RETURN NEXT;
END $$;
SELECT s.n, s.typ, d.* FROM tm_spec s, tm_diag(s) d ORDER BY n;
SELECT s.n, s.typ, i.segments > 1 AS many_segments, i.filters >= i.segments AS filters,
	i.est_fpr < 0.05 AS fpr_ok
FROM tm_spec s, scbf_index_info(format('tm_%s_c', s.n)::regclass) i ORDER BY n;

-- enum values added after the index exists: new values hash as any other
ALTER TYPE tm_mood ADD VALUE 'meh';
ALTER TYPE tm_mood ADD VALUE 'glad' BEFORE 'sad';
INSERT INTO tm_1 SELECT g, (ARRAY['meh', 'glad'])[g % 2 + 1]::tm_mood, 'new'
FROM generate_series(5001, 5200) g;
SELECT scbf_same('SELECT * FROM tm_1 WHERE c = ''meh''') AS meh,
	scbf_same('SELECT * FROM tm_1 WHERE c IN (''glad'', ''ok'')') AS glad_ok,
	scbf_same('SELECT * FROM tm_1 WHERE c = $1', 'tm_mood', '''glad''') AS generic;
REINDEX INDEX tm_1_c;
SELECT scbf_same('SELECT * FROM tm_1 WHERE c = ''meh''') AS meh,
	scbf_same('SELECT * FROM tm_1 WHERE c = ANY(ARRAY[''glad'', ''sad'']::tm_mood[])') AS glad_sad;
SELECT scbf_verify('tm_1_c', heapallindexed => true);

--
-- The query forms these types are used with: a jsonb document, an index on
-- a key inside it, a tag array, an enum IN list, a domain over an array, a
-- composite key (a column of composite type, and a row of two columns in a
-- two-column index)
--
CREATE TYPE tm_status AS ENUM ('new', 'paid', 'sent', 'void');
CREATE DOMAIN tm_tags AS text[];
CREATE TYPE tm_key AS (region text, num int);
CREATE TABLE tm_orders (id int, status tm_status, tags_d tm_tags,
	doc jsonb, tags text[], k tm_key, region text, num int);
INSERT INTO tm_orders
SELECT g, (ARRAY['new', 'paid', 'sent', 'void'])[g % 4 + 1]::tm_status,
	ARRAY['t' || g % 10, 't' || g % 3],
	jsonb_build_object('a', g % 50, 'k', 'key' || g % 300),
	ARRAY['t' || g % 10, 't' || g % 3],
	ROW('r' || g % 20, g % 500)::tm_key, 'r' || g % 20, g % 500
FROM generate_series(1, 6000) g;
CREATE INDEX tm_orders_status ON tm_orders USING scbf (status);
CREATE INDEX tm_orders_tags_d ON tm_orders USING scbf (tags_d);
CREATE INDEX tm_orders_doc ON tm_orders USING scbf (doc);
CREATE INDEX tm_orders_doc_k ON tm_orders USING scbf ((doc ->> 'k'));
CREATE INDEX tm_orders_tags ON tm_orders USING scbf (tags);
CREATE INDEX tm_orders_k ON tm_orders USING scbf (k);
CREATE INDEX tm_orders_region_num ON tm_orders USING scbf (region, num);
ANALYZE tm_orders;
SELECT scbf_same('SELECT * FROM tm_orders WHERE doc = ''{"a": 1, "k": "key1"}''') AS doc_eq,
	scbf_same('SELECT * FROM tm_orders WHERE doc ->> ''k'' = ''key42''') AS doc_key,
	scbf_same('SELECT * FROM tm_orders WHERE doc ->> ''k'' IN (''key42'', ''key43'', ''nokey'')') AS doc_key_in,
	scbf_same('SELECT * FROM tm_orders WHERE tags = ''{t4,t1}''') AS tags_eq,
	scbf_same('SELECT * FROM tm_orders WHERE status IN (''paid'', ''sent'')') AS status_in,
	scbf_same('SELECT * FROM tm_orders WHERE tags_d = ''{t4,t1}''') AS domain_eq,
	scbf_same('SELECT * FROM tm_orders WHERE k = ROW(''r7'', 27)::tm_key') AS composite_eq,
	scbf_same('SELECT * FROM tm_orders WHERE (region, num) = (''r7'', 27)') AS row_eq,
	scbf_same('SELECT * FROM tm_orders WHERE k IN (ROW(''r7'', 27)::tm_key, ROW(''r8'', 28)::tm_key)') AS composite_in;
-- a value the column does not hold
SELECT scbf_empty('SELECT * FROM tm_orders WHERE doc = ''{"a": 1, "k": "key2"}''') AS doc_absent,
	scbf_empty('SELECT * FROM tm_orders WHERE tags = ''{t1,t4}''') AS tags_order_matters,
	scbf_empty('SELECT * FROM tm_orders WHERE k = ROW(''r7'', 28)::tm_key') AS composite_absent;
SELECT scbf_verify('tm_orders_status', true), scbf_verify('tm_orders_doc', true),
	scbf_verify('tm_orders_doc_k', true), scbf_verify('tm_orders_tags', true),
	scbf_verify('tm_orders_k', true);

-- a composite, an array or a range whose element type has no hash
-- function cannot be indexed (the hash access method cannot either)
\set VERBOSITY terse
CREATE TYPE tm_pt AS (p point);
CREATE TABLE tm_bad (c tm_pt, a point[]);
INSERT INTO tm_bad VALUES (ROW(point(1, 2)), ARRAY[point(1, 2)]);
CREATE INDEX ON tm_bad USING scbf (c);
CREATE INDEX ON tm_bad USING scbf (a);
CREATE INDEX ON tm_bad USING hash (c);
\set VERBOSITY default
DROP TABLE tm_bad;
DROP TYPE tm_pt;

DROP TABLE tm_orders;
DROP TYPE tm_key;
DROP DOMAIN tm_tags;
DROP TYPE tm_status;
DO $$
DECLARE s record;
BEGIN
	FOR s IN SELECT n FROM tm_spec LOOP
		EXECUTE format('DROP TABLE tm_%s', s.n);
	END LOOP;
END $$;
DROP FUNCTION tm_diag(tm_spec);
DROP FUNCTION tm_verify();
DROP FUNCTION tm_check(tm_spec);
DROP FUNCTION tm_fill(int, int);
DROP TABLE tm_spec;
DROP TYPE tm_pair;
DROP TYPE tm_mood;
DROP FUNCTION scbf_same, scbf_empty, scbf_noindex, scbf_compare;
