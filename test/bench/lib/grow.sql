-- test/bench/lib/grow.sql: the grow mode's tables and functions
-- (test/bench/run --grow), loaded after bench.sql.
--
-- Indexes created on EMPTY tables, then the tables grown by INSERT batches,
-- as an application grows them: size against btree grown the same way and
-- against a rebuild (REINDEX), pages per probe, exactness.
--
-- Data model of a grown table:
--   id           bigint   row number g = 1, 2, ...
--   customer_id  int4     clustered: bursts of 20 rows (g = 20b + 1 .. 20b +
--                         20) share a value, 2 * ((b * 2654435761) mod 2^29):
--                         a bijection of the burst number, so every burst has
--                         its own value, new values land anywhere in the
--                         domain (a btree splits pages in its middle, as with
--                         a real customer id), only even values exist (an
--                         odd value is absent but inside the domain); up to
--                         2^29 bursts (10^10 rows)
--   code         text     md5 of the row number: 32 hex characters, unique
-- The generator needs no table and no final size, so a table can grow until
-- the server refuses it.
SET client_min_messages = warning;

-- One row per table and step (every SCBF_BENCH_GROW_STEP rows, after its
-- VACUUM) and index: sizes, scbf's diagnostics, the seconds the step's
-- inserts and VACUUM took on that table.
CREATE TABLE IF NOT EXISTS bench.grow_step (variant text, tab text,
	method text, col text, idx text, nrows bigint, heap_bytes bigint,
	size_bytes bigint, insert_s float8, vacuum_s float8, info jsonb,
	at timestamptz DEFAULT clock_timestamp());
-- One row per index at the end: grown and rebuilt size, scbf's diagnostics
-- and the count of its pages of each kind (scbf_pages) before and after
-- REINDEX.
CREATE TABLE IF NOT EXISTS bench.grow_end (variant text, tab text,
	method text, col text, idx text, nrows bigint, heap_bytes bigint,
	grown_bytes bigint, rebuilt_bytes bigint, reindex_s float8,
	info_grown jsonb, info_rebuilt jsonb, pages_grown jsonb,
	pages_rebuilt jsonb);
-- Rows committed so far (each batch updates it in its own transaction).
CREATE TABLE IF NOT EXISTS bench.grow_progress (tab text PRIMARY KEY,
	nrows bigint);
-- How a growth ended: the rows it reached, the most filters of one scbf
-- index, and the error of the batch the server refused (NULL if none).
CREATE TABLE IF NOT EXISTS bench.grow_result (variant text, tab text,
	target_rows bigint, target_filters bigint, batch bigint, nrows bigint,
	filters bigint, error text, seconds float8);

CREATE OR REPLACE FUNCTION bench.grow_cust(g bigint) RETURNS int4
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT (2 * ((((g - 1) / 20) * 2654435761) % 536870912))::int4 $$;

-- bench.grow_create(tab): the empty table (indexes are the caller's).
CREATE OR REPLACE FUNCTION bench.grow_create(p_tab text)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('DROP TABLE IF EXISTS %I', p_tab);
	EXECUTE format('CREATE TABLE %I (id bigint NOT NULL, customer_id int4 NOT NULL,'
		' code text NOT NULL) WITH (autovacuum_enabled = off)', p_tab);
	INSERT INTO bench.grow_progress VALUES (p_tab, 0)
		ON CONFLICT (tab) DO UPDATE SET nrows = 0;
	DELETE FROM bench.tables WHERE tab = p_tab;
	INSERT INTO bench.tables (tab, nrows, load_s) VALUES (p_tab, 0, 0);
END $$;

-- The CREATE INDEX of a grown table's index: scbf (pps: its
-- pages_per_segment, NULL for the default) or btree.
CREATE OR REPLACE FUNCTION bench.grow_ddl(p_tab text, p_method text,
	p_col text, p_pps int DEFAULT NULL)
RETURNS text LANGUAGE sql IMMUTABLE AS $$
	SELECT format('CREATE INDEX %I ON %I USING %s (%I)%s',
		left(p_tab || '_' || p_col, 63), p_tab, p_method, p_col,
		CASE WHEN p_method = 'scbf' AND p_pps IS NOT NULL
			THEN format(' WITH (pages_per_segment = %s)', p_pps) ELSE '' END)
$$;

-- CALL bench.grow_insert(tab, from, to, batch): insert rows from..to in
-- INSERT statements of batch rows, each its own transaction (as an
-- application's: scbf flushes its insert batch at commit).  A refused batch
-- ends the call with its error; bench.grow_progress then holds the rows of
-- the batches committed before it.
CREATE OR REPLACE PROCEDURE bench.grow_insert(p_tab text, p_from bigint,
	p_to bigint, p_batch bigint)
LANGUAGE plpgsql AS $$
DECLARE
	lo bigint := p_from;
	hi bigint;
BEGIN
	WHILE lo <= p_to LOOP
		hi := least(lo + p_batch - 1, p_to);
		EXECUTE format('INSERT INTO %I SELECT g, bench.grow_cust(g), md5(g::text)'
			' FROM generate_series($1, $2) g', p_tab) USING lo, hi;
		UPDATE bench.grow_progress SET nrows = hi WHERE tab = p_tab;
		COMMIT;
		lo := hi + 1;
	END LOOP;
END $$;

-- The number of pages of each kind of an scbf index (scbf_pages), as
-- jsonb; {"error": ...} if the diagnostic fails, NULL for other methods.
CREATE OR REPLACE FUNCTION bench.scbf_page_kinds(p_idx text)
RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
	j jsonb;
BEGIN
	IF (SELECT a.amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam
		WHERE c.oid = p_idx::regclass) IS DISTINCT FROM 'scbf' THEN
		RETURN NULL;
	END IF;
	BEGIN
		SELECT jsonb_object_agg(kind, n) INTO j FROM (
			SELECT (to_jsonb(p) ->> 'kind') AS kind, count(*) AS n
			FROM scbf_pages(p_idx::regclass) p GROUP BY 1) s;
	EXCEPTION WHEN OTHERS THEN
		j := jsonb_build_object('error', SQLERRM);
	END;
	RETURN j;
END $$;

-- The most filters of one scbf index on the table (scbf_index_info's
-- "filters", read by name: NULL if the diagnostic has no such column).
CREATE OR REPLACE FUNCTION bench.grow_filters(p_tab text)
RETURNS bigint LANGUAGE sql AS $$
	SELECT max((bench.scbf_info(x.indexrelid::regclass::text) ->> 'filters')::bigint)
	FROM pg_index x WHERE x.indrelid = p_tab::regclass
$$;

-- Record a step: one row per index of the table.
CREATE OR REPLACE FUNCTION bench.grow_record(p_variant text, p_tab text,
	p_insert_s float8, p_vacuum_s float8)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	n bigint := (SELECT nrows FROM bench.grow_progress WHERE tab = p_tab);
BEGIN
	INSERT INTO bench.grow_step (variant, tab, method, col, idx, nrows,
		heap_bytes, size_bytes, insert_s, vacuum_s, info)
	SELECT p_variant, p_tab, am.amname, a.attname, c.relname, n,
		pg_relation_size(p_tab::regclass), pg_relation_size(c.oid),
		p_insert_s, p_vacuum_s, bench.scbf_info(c.relname)
	FROM pg_index x JOIN pg_class c ON c.oid = x.indexrelid
	JOIN pg_am am ON am.oid = c.relam
	JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = x.indkey[0]
	WHERE x.indrelid = p_tab::regclass;
END $$;

-- bench.grow_probes(tab, n_eq): present and absent probes on customer_id and
-- code of a grown table of the rows in bench.grow_progress, and their ground
-- truth from a sequential scan (a hash join of the values with the table;
-- index and bitmap scans off), against which every probe's row count is
-- checked (bench.summary's "wrong").
CREATE OR REPLACE FUNCTION bench.grow_probes(p_tab text, p_eq int)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	n bigint := (SELECT nrows FROM bench.grow_progress WHERE tab = p_tab);
	nb bigint := (n + 19) / 20;
BEGIN
	PERFORM set_config('work_mem', '512MB', true);
	PERFORM set_config('enable_indexscan', 'off', true);
	PERFORM set_config('enable_indexonlyscan', 'off', true);
	PERFORM set_config('enable_bitmapscan', 'off', true);
	UPDATE bench.tables SET nrows = n, label = p_tab,
		heap_pages = pg_relation_size(p_tab::regclass) / current_setting('block_size')::int,
		heap_bytes = pg_relation_size(p_tab::regclass)
		WHERE tab = p_tab;
	DELETE FROM bench.atom WHERE tab = p_tab;
	DELETE FROM bench.probeset WHERE tab = p_tab;
	DELETE FROM bench.probe WHERE tab = p_tab;
	IF n = 0 THEN
		RETURN;
	END IF;
	INSERT INTO bench.atom (tab, col, kind, probe_no, cust)
	SELECT p_tab, 'customer_id', 'present', i, bench.grow_cust(20 * (bench.h(i * 31 + 1) % nb) + 1)
		FROM generate_series(1, p_eq) i
	UNION ALL
	SELECT p_tab, 'customer_id', 'absent', i, (2 * (bench.h(i * 31 + 2) % 536870912) + 1)::int4
		FROM generate_series(1, p_eq) i;
	INSERT INTO bench.atom (tab, col, kind, probe_no, code)
	SELECT p_tab, 'code', 'present', i, md5((1 + bench.h(i * 31 + 4) % n)::text)
		FROM generate_series(1, p_eq) i
	UNION ALL
	SELECT p_tab, 'code', 'absent', i, md5('absent' || i)
		FROM generate_series(1, p_eq) i;
	INSERT INTO bench.probeset (tab, col, kind, probe_no, qual)
	SELECT tab, col, kind, probe_no,
		CASE col WHEN 'customer_id' THEN format('customer_id = %s', cust)
			ELSE format('code = %L', code) END
	FROM bench.atom WHERE tab = p_tab;
	EXECUTE format('UPDATE bench.probeset p SET true_rows = g.r, true_pages = g.pg FROM ('
		' SELECT a.col, a.kind, a.probe_no, count(*) r, count(DISTINCT bench.blk(t.ctid)) pg'
		' FROM bench.atom a JOIN %I t ON t.customer_id = a.cust'
		' WHERE a.tab = $1 AND a.col = ''customer_id'' GROUP BY 1, 2, 3'
		' UNION ALL'
		' SELECT a.col, a.kind, a.probe_no, count(*) r, count(DISTINCT bench.blk(t.ctid)) pg'
		' FROM bench.atom a JOIN %I t ON t.code = a.code'
		' WHERE a.tab = $1 AND a.col = ''code'' GROUP BY 1, 2, 3) g'
		' WHERE p.tab = $1 AND p.col = g.col AND p.kind = g.kind AND p.probe_no = g.probe_no',
		p_tab, p_tab) USING p_tab;
	UPDATE bench.probeset SET true_rows = 0, true_pages = 0
		WHERE tab = p_tab AND true_rows IS NULL;
END $$;

-- bench.grow_end_before(variant, tab): the end's figures of each index as
-- grown (the caller then runs REINDEX and bench.grow_end_after).
CREATE OR REPLACE FUNCTION bench.grow_end_before(p_variant text, p_tab text)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	DELETE FROM bench.grow_end WHERE variant = p_variant AND tab = p_tab;
	INSERT INTO bench.grow_end (variant, tab, method, col, idx, nrows,
		heap_bytes, grown_bytes, info_grown, pages_grown)
	SELECT p_variant, p_tab, am.amname, a.attname, c.relname,
		(SELECT nrows FROM bench.grow_progress WHERE tab = p_tab),
		pg_relation_size(p_tab::regclass), pg_relation_size(c.oid),
		bench.scbf_info(c.relname), bench.scbf_page_kinds(c.relname)
	FROM pg_index x JOIN pg_class c ON c.oid = x.indexrelid
	JOIN pg_am am ON am.oid = c.relam
	JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = x.indkey[0]
	WHERE x.indrelid = p_tab::regclass;
END $$;

CREATE OR REPLACE FUNCTION bench.grow_end_after(p_variant text, p_tab text,
	p_idx text, p_reindex_s float8)
RETURNS void LANGUAGE sql AS $$
	UPDATE bench.grow_end SET rebuilt_bytes = pg_relation_size(p_idx::regclass),
		reindex_s = p_reindex_s, info_rebuilt = bench.scbf_info(p_idx),
		pages_rebuilt = bench.scbf_page_kinds(p_idx)
	WHERE variant = p_variant AND tab = p_tab AND idx = p_idx
$$;
