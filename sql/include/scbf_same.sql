--
-- scbf_same: the comparison every regression test of query results uses,
-- included (\i) by those tests.  Not a test of its own.
--
-- scbf_same(query [, parameter types, parameter values]): run the query with
-- the index forced (bitmap scans only) and with a sequential scan, raise an
-- error if the rows differ, and return how it ran and how many rows it found:
-- 'index N' when every Bitmap Index Scan of the plan is on an scbf index,
-- 'seqscan N' when the planner could not use the index at all.  With
-- parameter types the query is PREPAREd and EXECUTEd with a generic plan
-- ('index generic N' when the plan really has parameters).
CREATE OR REPLACE FUNCTION scbf_same(q text, ptypes text DEFAULT NULL, pargs text DEFAULT NULL)
RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	wrapped text := 'SELECT count(*) || '':'' || coalesce(sum(hashtext(sub::text)::int8), 0) FROM ('
		|| q || ') sub';
	plan text := '';
	res text[] := '{}';
	how text;
	r record;
	pass int;
BEGIN
	IF EXISTS (SELECT 1 FROM pg_prepared_statements WHERE name IN ('scbf_same_p', 'scbf_same_w')) THEN
		DEALLOCATE scbf_same_p;
		DEALLOCATE scbf_same_w;
	END IF;
	SET LOCAL plan_cache_mode = force_generic_plan;
	SET LOCAL enable_indexscan = off;
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
			EXECUTE wrapped INTO how;
		ELSE
			EXECUTE format('PREPARE scbf_same_p(%s) AS %s', ptypes, q);
			EXECUTE format('PREPARE scbf_same_w(%s) AS %s', ptypes, wrapped);
			IF pass = 1 THEN
				FOR r IN EXECUTE format('EXPLAIN (COSTS OFF) EXECUTE scbf_same_p(%s)', pargs) LOOP
					plan := plan || r."QUERY PLAN" || E'\n';
				END LOOP;
			END IF;
			EXECUTE format('EXECUTE scbf_same_w(%s)', pargs) INTO how;
			DEALLOCATE scbf_same_p;
			DEALLOCATE scbf_same_w;
		END IF;
		res := res || how;
	END LOOP;
	IF res[1] IS DISTINCT FROM res[2] THEN
		RAISE EXCEPTION 'index and seqscan disagree for %: % vs %', q, res[1], res[2];
	END IF;
	IF plan ~ 'Bitmap Index Scan on' AND NOT EXISTS (
		SELECT 1 FROM regexp_matches(plan, 'Bitmap Index Scan on (\S+)', 'g') m
		WHERE NOT EXISTS (SELECT 1 FROM pg_class c JOIN pg_am a ON a.oid = c.relam
						  WHERE c.relname = m[1] AND a.amname = 'scbf')) THEN
		how := 'index';
		IF ptypes IS NOT NULL AND plan ~ '\$1' THEN
			how := how || ' generic';
		END IF;
	ELSIF plan ~ 'Seq Scan' THEN
		how := 'seqscan';
	ELSE
		how := 'plan: ' || split_part(plan, E'\n', 1);
	END IF;
	RETURN how || ' ' || split_part(res[2], ':', 1);
END $$;
