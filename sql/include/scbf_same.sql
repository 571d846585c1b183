--
-- scbf_same.sql: the one comparison every regression test of query results
-- uses, included (\i) by those tests.  Not a test of its own.
--
-- Each function runs the query twice, with the index forced (bitmap scans
-- only, enable_seqscan off) and with a sequential scan, and raises an error
-- naming the query unless all of its assertions hold:
--
--   scbf_same(query [, parameter types, parameter values])
--       the plan scans an scbf index (every Bitmap Index Scan in it is on
--       one), both runs return the same rows, and there is at least one:
--       an empty answer cannot be wrong, since the scan rechecks each row.
--       Returns 'index N' (N rows), 'index generic N' for a generic plan
--       that really has parameters.
--   scbf_empty(query [, ...])
--       the same, but the answer must be empty: for the few checks where
--       emptiness is the point (an absent key, an empty table).
--       Returns 'index 0' / 'index generic 0'.
--   scbf_noindex(query [, ...])
--       a deliberate case the planner cannot give to scbf (say why at the
--       call): the plan must NOT scan an scbf index; the rows are still
--       compared.  Returns 'no index N'.
--
-- With parameter types the query is PREPAREd and EXECUTEd with a generic
-- plan; the values are SQL expressions, e.g. '7, ''b7'''.
-- sql/count-comparisons.sh counts these results in expected/*.out.
--
--   CALL scbf_wait_snapshots()
--       before a VACUUM whose effect a test checks: waits (up to a minute)
--       until no other session of this database holds a snapshot or a
--       transaction older than the call, so that the VACUUM's horizon has
--       passed everything committed before it.  Without it, an autovacuum
--       worker's ANALYZE (of a catalog, say) that began earlier keeps dead
--       rows and superseded pages for a later VACUUM, as it must, and the
--       check fails now and then.
--
CREATE OR REPLACE FUNCTION scbf_compare(q text, expect text, ptypes text, pargs text)
RETURNS text LANGUAGE plpgsql
-- the settings come back when the function returns, even inside a transaction
SET plan_cache_mode = force_generic_plan SET enable_indexscan = off
SET enable_seqscan = on SET enable_bitmapscan = on AS $$
DECLARE
	wrapped text := 'SELECT count(*) || '':'' || coalesce(sum(hashtext(sub::text)::int8), 0)'
		|| ' || '':'' || coalesce(sum(hashtext(md5(sub::text))::int8), 0) FROM (' || q || ') sub';
	plan text := '';
	res text[] := '{}';
	got text;
	r record;
	pass int;
	scanned bool;
	rows bigint;
BEGIN
	IF expect NOT IN ('rows', 'empty', 'no index') THEN
		RAISE EXCEPTION 'scbf_compare: unknown expectation %', expect;
	END IF;
	IF EXISTS (SELECT 1 FROM pg_prepared_statements WHERE name IN ('scbf_same_p', 'scbf_same_w')) THEN
		DEALLOCATE scbf_same_p;
		DEALLOCATE scbf_same_w;
	END IF;
	FOR pass IN 1..2 LOOP
		IF pass = 1 THEN
			SET LOCAL enable_seqscan = off;
			SET LOCAL enable_bitmapscan = on;
		ELSE
			SET LOCAL enable_seqscan = on;
			SET LOCAL enable_bitmapscan = off;
		END IF;
		IF ptypes IS NULL THEN
			IF pass = 1 THEN
				FOR r IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
					plan := plan || r."QUERY PLAN" || E'\n';
				END LOOP;
			END IF;
			EXECUTE wrapped INTO got;
		ELSE
			EXECUTE format('PREPARE scbf_same_p(%s) AS %s', ptypes, q);
			EXECUTE format('PREPARE scbf_same_w(%s) AS %s', ptypes, wrapped);
			IF pass = 1 THEN
				FOR r IN EXECUTE format('EXPLAIN (COSTS OFF) EXECUTE scbf_same_p(%s)', pargs) LOOP
					plan := plan || r."QUERY PLAN" || E'\n';
				END LOOP;
			END IF;
			EXECUTE format('EXECUTE scbf_same_w(%s)', pargs) INTO got;
			DEALLOCATE scbf_same_p;
			DEALLOCATE scbf_same_w;
		END IF;
		res := res || got;
	END LOOP;
	rows := split_part(res[2], ':', 1)::bigint;
	-- (2) the index's rows are the sequential scan's
	IF res[1] IS DISTINCT FROM res[2] THEN
		RAISE EXCEPTION 'index and seqscan disagree for %: % vs % (rows:hash:hash)', q, res[1], res[2];
	END IF;
	-- (1) the plan scans scbf, and nothing but scbf
	scanned := plan ~ 'Bitmap Index Scan on' AND NOT EXISTS (
		SELECT 1 FROM regexp_matches(plan, 'Bitmap Index Scan on (\S+)', 'g') m
		WHERE NOT EXISTS (SELECT 1 FROM pg_class c JOIN pg_am a ON a.oid = c.relam
						  WHERE c.relname = m[1] AND a.amname = 'scbf'));
	IF expect = 'no index' THEN
		IF plan ~ 'Bitmap Index Scan on' AND EXISTS (
			SELECT 1 FROM regexp_matches(plan, 'Bitmap Index Scan on (\S+)', 'g') m
			JOIN pg_class c ON c.relname = m[1] JOIN pg_am a ON a.oid = c.relam
			WHERE a.amname = 'scbf') THEN
			RAISE EXCEPTION 'scbf_noindex: the plan scans an scbf index for %: %', q, plan;
		END IF;
		RETURN 'no index ' || rows;
	END IF;
	IF NOT scanned THEN
		RAISE EXCEPTION 'the plan does not scan an scbf index for %: %', q, plan;
	END IF;
	-- (3) as many rows as the test expects
	IF expect = 'rows' AND rows = 0 THEN
		RAISE EXCEPTION 'scbf_same: no rows for % (a check that can only come out empty cannot fail; use scbf_empty if emptiness is the point)', q;
	ELSIF expect = 'empty' AND rows <> 0 THEN
		RAISE EXCEPTION 'scbf_empty: % rows for %', rows, q;
	END IF;
	RETURN 'index ' || CASE WHEN ptypes IS NOT NULL AND plan ~ '\$1' THEN 'generic ' ELSE '' END || rows;
END $$;

CREATE OR REPLACE FUNCTION scbf_same(q text, ptypes text DEFAULT NULL, pargs text DEFAULT NULL)
RETURNS text LANGUAGE sql AS $$ SELECT scbf_compare(q, 'rows', ptypes, pargs) $$;
CREATE OR REPLACE FUNCTION scbf_empty(q text, ptypes text DEFAULT NULL, pargs text DEFAULT NULL)
RETURNS text LANGUAGE sql AS $$ SELECT scbf_compare(q, 'empty', ptypes, pargs) $$;
CREATE OR REPLACE FUNCTION scbf_noindex(q text, ptypes text DEFAULT NULL, pargs text DEFAULT NULL)
RETURNS text LANGUAGE sql AS $$ SELECT scbf_compare(q, 'no index', ptypes, pargs) $$;

CREATE OR REPLACE PROCEDURE scbf_wait_snapshots()
LANGUAGE plpgsql AS $$
DECLARE
	-- the next transaction id, as xid: every snapshot taken from now on has
	-- an xmin at least this one, or a transaction's that began before
	horizon xid := (pg_snapshot_xmax(pg_current_snapshot())::text::numeric
		% 4294967296)::text::xid;
	deadline timestamptz := clock_timestamp() + interval '60 s';
BEGIN
	LOOP
		PERFORM pg_stat_clear_snapshot();
		EXIT WHEN NOT EXISTS (SELECT FROM pg_stat_activity
			WHERE datname = current_database() AND pid <> pg_backend_pid()
			AND (age(backend_xmin) > age(horizon) OR age(backend_xid) > age(horizon)));
		EXIT WHEN clock_timestamp() > deadline;
		PERFORM pg_sleep(0.05);
	END LOOP;
END $$;
