-- test/bench/lib/bench.sql: schema and functions of the scbf benchmark.
--
-- Loaded once into a fresh database by test/bench/run.  Everything the
-- benchmark measures ends up in tables of schema "bench"; export.sql turns
-- them into CSV and report.sql into markdown.  Nothing here is specific to
-- one table size: functions take the table name.
--
-- Data model of a benchmark table ("orders"):
--   id           bigint   row number g = 1..N
--   customer_id  int4     clustered: bursts of 20 rows (adjacent pages) per
--                         value; bursts in random order; only even values
--                         exist, so every odd value is absent but inside the
--                         domain (fair to BRIN minmax)
--   code         text     random 12-character hex string, ~all distinct
--   status       text     10 values, spread evenly over every page
--   amount       numeric
SET client_min_messages = warning;
CREATE SCHEMA IF NOT EXISTS bench;

CREATE TABLE IF NOT EXISTS bench.env (key text PRIMARY KEY, value text);
CREATE TABLE IF NOT EXISTS bench.phase (name text, started timestamptz,
	finished timestamptz);
CREATE TABLE IF NOT EXISTS bench.tables (tab text PRIMARY KEY, label text,
	nrows bigint, heap_pages bigint, heap_bytes bigint, load_s float8,
	nd16_customer float8, nd16_code float8, nd16_status float8,
	nd128_customer float8, nd128_code float8, nd128_status float8);
CREATE TABLE IF NOT EXISTS bench.probeset (tab text, col text, kind text,
	probe_no int, qual text, true_rows bigint, true_pages int,
	PRIMARY KEY (tab, col, kind, probe_no));
CREATE TABLE IF NOT EXISTS bench.atom (tab text, col text, kind text,
	probe_no int, cust int4, code text, status text);
CREATE TABLE IF NOT EXISTS bench.build (tab text, method text, col text,
	idx text, ddl text, build_s float8, size_bytes bigint, info jsonb,
	PRIMARY KEY (tab, method, col));
-- a build the server refused (e.g. an index past a size limit): its error
ALTER TABLE bench.build ADD COLUMN IF NOT EXISTS error text;
CREATE TABLE IF NOT EXISTS bench.probe (tab text, method text, col text,
	kind text, probe_no int, exec_ms float8, idx_bufs bigint, heap_bufs bigint,
	heap_exact bigint, heap_lossy bigint, heap_pages bigint, nrows bigint,
	removed bigint, true_pages int, plan text);
-- paired references (bench.run_probes_paired): each probe of a method
-- (tab, method, col, kind, probe_no: its row in bench.probe) run again,
-- right before or after it in the same session, on ref_tab, the table's
-- no-index twin given a ref_method index on the same columns; ref_first:
-- the reference ran first.  The other columns as in bench.probe.
CREATE TABLE IF NOT EXISTS bench.probe_ref (tab text, method text, col text,
	kind text, probe_no int, ref_method text, ref_tab text, ref_first bool,
	exec_ms float8, idx_bufs bigint, heap_bufs bigint, heap_exact bigint,
	heap_lossy bigint, heap_pages bigint, nrows bigint, removed bigint,
	true_pages int, plan text);
CREATE TABLE IF NOT EXISTS bench.planner (tab text, method text, col text,
	kind text, plan text, uses_index bool, total_cost float8);
CREATE TABLE IF NOT EXISTS bench.inserts (tab text, method text, col text,
	test text, clients int, nrows bigint, seconds float8, rows_per_s float8,
	wal_per_row float8);
-- the round of insert_tests (1 to insert_reps) and, in paired rounds, the
-- method and column of the round this one was paired with: a no-index
-- round (method none, into the table's twin) names the indexed round's,
-- an indexed round names none and '-'; NULL when the rounds were not paired
ALTER TABLE bench.inserts ADD COLUMN IF NOT EXISTS round int,
	ADD COLUMN IF NOT EXISTS paired_method text,
	ADD COLUMN IF NOT EXISTS paired_col text;
-- churn experiment
CREATE TABLE IF NOT EXISTS bench.cvals (tab text, v int4, born int, died int);
CREATE TABLE IF NOT EXISTS bench.cset (tab text, cycle int, kind text,
	probe_no int, v int4, true_pages int);
CREATE TABLE IF NOT EXISTS bench.cprobe (tab text, cycle int, method text,
	kind text, probe_no int, exec_ms float8, idx_bufs bigint,
	heap_pages bigint, heap_total bigint, nrows bigint, true_pages int,
	maybe_segments int, segments int, plan text);
CREATE TABLE IF NOT EXISTS bench.ccycle (tab text, cycle int, method text,
	idx text, size_bytes bigint, heap_pages bigint, deleted_rows bigint,
	inserted_rows bigint, heap_grew_pages bigint, vacuum_s float8,
	insert_s float8, est_fpr float8, filters int, max_chain int,
	saturated bigint, stale bigint);

----------------------------------------------------------------------------
-- Data
----------------------------------------------------------------------------

CREATE OR REPLACE FUNCTION bench.h(x bigint) RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT hashint8(x)::bigint & 2147483647 $$;

CREATE OR REPLACE FUNCTION bench.code_of(g bigint) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT substr(md5('c' || g), 1, 12) $$;

CREATE OR REPLACE FUNCTION bench.status_of(g bigint) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT (ARRAY['new', 'paid', 'shipped', 'delivered', 'returned',
	'cancelled', 'refunded', 'pending', 'on_hold', 'disputed'])
	[1 + (hashint8(g + 7)::bigint & 2147483647) % 10] $$;

-- bench.load(tab, n): create and fill a benchmark table of n rows, VACUUM
-- ANALYZE is left to the caller (it cannot run in a function).  Bursts of 20
-- rows share a customer; the bursts are in a fixed pseudo-random order (a
-- permutation by hash), so customer_id is clustered but uncorrelated with
-- the physical order, as in an orders table.
CREATE OR REPLACE FUNCTION bench.load(p_tab text, p_rows bigint)
RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE
	nb bigint := (p_rows + 19) / 20;
	t0 timestamptz := clock_timestamp();
BEGIN
	PERFORM set_config('work_mem', '512MB', true);
	EXECUTE format('DROP TABLE IF EXISTS %I', p_tab);
	EXECUTE format('CREATE TABLE %I (id bigint NOT NULL, customer_id int4 NOT NULL,'
		' code text NOT NULL, status text NOT NULL, amount numeric(10,2) NOT NULL)'
		' WITH (autovacuum_enabled = off)', p_tab);
	DROP TABLE IF EXISTS pg_temp.perm;
	CREATE TEMP TABLE perm AS
		SELECT b, (row_number() OVER (ORDER BY hashint8(b), b) - 1)::int4 AS p
		FROM generate_series(0, nb - 1) b;
	EXECUTE format('INSERT INTO %I SELECT g, 2 * perm.p, bench.code_of(g),'
		' bench.status_of(g), (bench.h(g) %% 100000) / 100.0'
		' FROM generate_series(1, $1) g JOIN perm ON perm.b = (g - 1) / 20'
		' ORDER BY g', p_tab) USING p_rows;
	DROP TABLE perm;
	DELETE FROM bench.tables WHERE tab = p_tab;
	INSERT INTO bench.tables (tab, nrows, load_s)
		VALUES (p_tab, p_rows, extract(epoch FROM clock_timestamp() - t0));
	RETURN extract(epoch FROM clock_timestamp() - t0);
END $$;

-- bench.twin(tab, twin): the no-index twin of a loaded table for the paired
-- insert rounds: the same definition (columns, storage parameters) and the
-- same rows in the same physical order, no index.  VACUUM and prewarming
-- are left to the caller, as for bench.load; not in bench.tables.
CREATE OR REPLACE FUNCTION bench.twin(p_tab text, p_twin text)
RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE
	t0 timestamptz := clock_timestamp();
	opts text;
BEGIN
	EXECUTE format('DROP TABLE IF EXISTS %I', p_twin);
	EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING ALL EXCLUDING INDEXES)',
		p_twin, p_tab);
	SELECT array_to_string(reloptions, ', ') INTO opts
	FROM pg_class WHERE oid = p_tab::regclass;
	IF opts IS NOT NULL THEN
		EXECUTE format('ALTER TABLE %I SET (%s)', p_twin, opts);
	END IF;
	-- a sequential scan from the first page (not where another scan is)
	-- reads the rows in the order bench.load wrote them, without a sort
	PERFORM set_config('synchronize_seqscans', 'off', true);
	EXECUTE format('INSERT INTO %I SELECT * FROM %I', p_twin, p_tab);
	RETURN extract(epoch FROM clock_timestamp() - t0);
END $$;

-- bench.twin_btree(twin, col): a btree on the twin on the column(s) of
-- col (multi: customer_id, status), as bench.build's but not recorded in
-- bench.build; loaded into shared buffers.  Returns the index name.
CREATE OR REPLACE FUNCTION bench.twin_btree(p_twin text, p_col text)
RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	idx text := left(format('tx_%s_%s', p_twin, p_col), 63);
BEGIN
	EXECUTE format('DROP INDEX IF EXISTS %I', idx);
	EXECUTE bench.ddl(p_twin, 'btree', p_col, idx);
	PERFORM pg_prewarm(idx::regclass);
	RETURN idx;
END $$;

-- Row generator for rows added after the load (insert tests, churn): new
-- customers (even values above every loaded one), bursts of 20, new codes.
CREATE OR REPLACE FUNCTION bench.insert_rows(p_tab text, p_from bigint,
	p_count bigint, p_cust_base bigint DEFAULT NULL)
RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE t0 timestamptz := clock_timestamp();
BEGIN
	EXECUTE format('INSERT INTO %I SELECT g, 2 * (coalesce($3, 0) + (g - $1) / 20'
		'   + CASE WHEN $3 IS NULL THEN ($1 - 1) / 20 + 1 ELSE 0 END)::int4,'
		' bench.code_of(g), bench.status_of(g), (bench.h(g) %% 100000) / 100.0'
		' FROM generate_series($1, $1 + $2 - 1) g', p_tab)
		USING p_from, p_count, p_cust_base;
	RETURN extract(epoch FROM clock_timestamp() - t0);
END $$;

-- Block number of a ctid.
CREATE OR REPLACE FUNCTION bench.blk(tid) RETURNS int8
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT ($1::text::point)[0]::int8 $$;

-- Statistics of the loaded table, and the data-tuned BRIN parameters: mean
-- distinct values per range of 16 and of 128 pages.
CREATE OR REPLACE FUNCTION bench.table_stats(p_tab text)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE r record;
BEGIN
	PERFORM set_config('work_mem', '512MB', true);
	EXECUTE format('SELECT avg(c16) c16, avg(x16) x16, avg(s16) s16 FROM ('
		' SELECT count(DISTINCT customer_id) c16, count(DISTINCT code) x16,'
		'  count(DISTINCT status) s16 FROM %I GROUP BY bench.blk(ctid) / 16) s', p_tab)
		INTO r;
	UPDATE bench.tables SET nd16_customer = r.c16, nd16_code = r.x16,
		nd16_status = r.s16 WHERE tab = p_tab;
	EXECUTE format('SELECT avg(c16) c16, avg(x16) x16, avg(s16) s16 FROM ('
		' SELECT count(DISTINCT customer_id) c16, count(DISTINCT code) x16,'
		'  count(DISTINCT status) s16 FROM %I GROUP BY bench.blk(ctid) / 128) s', p_tab)
		INTO r;
	UPDATE bench.tables SET nd128_customer = r.c16, nd128_code = r.x16,
		nd128_status = r.s16,
		heap_pages = pg_relation_size(p_tab::regclass) / current_setting('block_size')::int,
		heap_bytes = pg_relation_size(p_tab::regclass)
		WHERE tab = p_tab;
END $$;

----------------------------------------------------------------------------
-- Probe sets
----------------------------------------------------------------------------

-- bench.make_probes(tab, n_eq, n_in): deterministic pseudo-random probes.
--   customer_id  present: an existing (even) value; absent: an odd value;
--                in: 10 present values
--   code         present: the code of a random row; absent: a random string
--                never generated; in: 10 present codes; collision: an
--                absent string whose 32-bit hash is some row's
--   status       present: each of the 10 values in turn; absent: 5 values
--                that never occur
--   multi        (customer_id, status) present: the pair of a random row;
--                absent: a present customer with a status it never has;
--                in: 10 present customers AND status = 'paid'
-- then the ground truth: rows and distinct heap pages that hold a match.
-- p_cols: the columns to probe (the scale mode's narrow table has only
-- customer_id and code).
CREATE OR REPLACE FUNCTION bench.make_probes(p_tab text, p_eq int, p_in int,
	p_cols text[] DEFAULT ARRAY['customer_id', 'code', 'status', 'multi'])
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	n bigint;
	nb bigint;
	truth text[] := '{}';
BEGIN
	PERFORM set_config('work_mem', '512MB', true);
	SELECT nrows INTO n FROM bench.tables WHERE tab = p_tab;
	nb := (n + 19) / 20;
	DELETE FROM bench.atom WHERE tab = p_tab;
	DELETE FROM bench.probeset WHERE tab = p_tab;

	-- customer_id
	INSERT INTO bench.atom (tab, col, kind, probe_no, cust)
	SELECT p_tab, 'customer_id', 'present', i, 2 * (bench.h(i * 31 + 1) % nb)
		FROM generate_series(1, p_eq) i
	UNION ALL
	SELECT p_tab, 'customer_id', 'absent', i, 2 * (bench.h(i * 31 + 2) % nb) + 1
		FROM generate_series(1, p_eq) i
	UNION ALL
	SELECT p_tab, 'customer_id', 'in', i, 2 * (bench.h(i * 1009 + j * 31 + 3) % nb)
		FROM generate_series(1, p_in) i, generate_series(1, 10) j;

	-- code
	INSERT INTO bench.atom (tab, col, kind, probe_no, code)
	SELECT p_tab, 'code', 'present', i, bench.code_of(1 + bench.h(i * 31 + 4) % n)
		FROM generate_series(1, p_eq) i
	UNION ALL
	SELECT p_tab, 'code', 'absent', i, substr(md5('absent' || i), 1, 12)
		FROM generate_series(1, p_eq) i
	UNION ALL
	SELECT p_tab, 'code', 'in', i, bench.code_of(1 + bench.h(i * 1009 + j * 31 + 5) % n)
		FROM generate_series(1, p_in) i, generate_series(1, 10) j;

	-- code, collision: absent strings whose 32-bit hash (hashtext, which
	-- scbf's, hash's and BRIN bloom's keys are) is some row's: about n / 2^32
	-- of all absent strings, so twice the expected number of candidates
	IF 'code' = ANY (p_cols) THEN
	EXECUTE format('INSERT INTO bench.atom (tab, col, kind, probe_no, code)'
		' SELECT $1, ''code'', ''collision'', row_number() OVER (ORDER BY c.i), c.v'
		' FROM (SELECT i, ''collision '' || i AS v FROM generate_series(1, $2) i) c'
		' WHERE hashtext(c.v) IN (SELECT hashtext(t.code) FROM %I t)'
		' ORDER BY c.i LIMIT $3', p_tab)
		USING p_tab, ceil(2 * p_eq * 4294967296.0 / greatest(n, 1))::bigint, p_eq;
	END IF;

	-- status: all 10 values, then 5 absent ones
	IF 'status' = ANY (p_cols) THEN
	INSERT INTO bench.atom (tab, col, kind, probe_no, status)
	SELECT p_tab, 'status', 'present', i,
		(ARRAY['new', 'paid', 'shipped', 'delivered', 'returned', 'cancelled',
			'refunded', 'pending', 'on_hold', 'disputed'])[1 + (i - 1) % 10]
		FROM generate_series(1, least(p_eq, 10)) i
	UNION ALL
	SELECT p_tab, 'status', 'absent', i,
		(ARRAY['archived', 'lost', 'draft', 'void', 'unknown'])[1 + (i - 1) % 5]
		FROM generate_series(1, least(p_eq, 5)) i;
	END IF;

	-- multi: pairs of random rows; absent pairs; IN lists with status 'paid'
	IF 'multi' = ANY (p_cols) THEN
	EXECUTE format('INSERT INTO bench.atom (tab, col, kind, probe_no, cust, status)'
		' SELECT $1, ''multi'', ''present'', s.i, t.customer_id, t.status'
		' FROM %I t JOIN (SELECT i, 1 + bench.h(i * 31 + 6) %% $2 AS g'
		'   FROM generate_series(1, $3) i) s ON t.id = s.g', p_tab)
		USING p_tab, n, p_eq;
	EXECUTE format('INSERT INTO bench.atom (tab, col, kind, probe_no, cust, status)'
		' SELECT $1, ''multi'', ''absent'', row_number() OVER (ORDER BY s.i), s.cust,'
		'   (SELECT a FROM unnest(ARRAY[''new'', ''paid'', ''shipped'', ''delivered'','
		'     ''returned'', ''cancelled'', ''refunded'', ''pending'', ''on_hold'','
		'     ''disputed'']) a WHERE a <> ALL (s.st) LIMIT 1)'
		' FROM (SELECT s.i, s.cust, array_agg(DISTINCT t.status) st'
		'   FROM %I t JOIN (SELECT i, 2 * (bench.h(i * 31 + 7) %% $2)::int4 AS cust'
		'     FROM generate_series(1, $3 * 2) i) s ON t.customer_id = s.cust'
		'   GROUP BY s.i, s.cust HAVING count(DISTINCT t.status) < 10) s'
		' ORDER BY s.i LIMIT $3', p_tab)
		USING p_tab, nb, p_eq;
	INSERT INTO bench.atom (tab, col, kind, probe_no, cust, status)
	SELECT p_tab, 'multi', 'in', i, 2 * (bench.h(i * 1009 + j * 31 + 8) % nb), 'paid'
		FROM generate_series(1, p_in) i, generate_series(1, 10) j;
	END IF;
	DELETE FROM bench.atom WHERE tab = p_tab AND col <> ALL (p_cols);

	-- quals
	INSERT INTO bench.probeset (tab, col, kind, probe_no, qual)
	SELECT tab, col, kind, probe_no,
		CASE
		WHEN col = 'customer_id' AND kind = 'in' THEN
			'customer_id IN (' || string_agg(cust::text, ', ' ORDER BY cust) || ')'
		WHEN col = 'customer_id' THEN format('customer_id = %s', min(cust))
		WHEN col = 'code' AND kind = 'in' THEN
			'code IN (' || string_agg(quote_literal(code), ', ' ORDER BY code) || ')'
		WHEN col = 'code' THEN format('code = %L', min(code))
		WHEN col = 'status' THEN format('status = %L', min(status))
		WHEN col = 'multi' AND kind = 'in' THEN
			'customer_id IN (' || string_agg(cust::text, ', ' ORDER BY cust)
			|| ') AND status = ''paid'''
		ELSE format('customer_id = %s AND status = %L', min(cust), min(status))
		END
	FROM bench.atom WHERE tab = p_tab
	GROUP BY tab, col, kind, probe_no;

	-- ground truth: one hash join per column
	IF 'customer_id' = ANY (p_cols) THEN
		truth := truth || format(
			' SELECT a.col, a.kind, a.probe_no, count(*) r, count(DISTINCT bench.blk(t.ctid)) pg'
			' FROM bench.atom a JOIN %I t ON t.customer_id = a.cust'
			' WHERE a.tab = $1 AND a.col = ''customer_id'' GROUP BY 1, 2, 3', p_tab);
	END IF;
	IF 'code' = ANY (p_cols) THEN
		truth := truth || format(
			' SELECT a.col, a.kind, a.probe_no, count(*) r, count(DISTINCT bench.blk(t.ctid)) pg'
			' FROM bench.atom a JOIN %I t ON t.code = a.code'
			' WHERE a.tab = $1 AND a.col = ''code'' GROUP BY 1, 2, 3', p_tab);
	END IF;
	IF 'status' = ANY (p_cols) THEN
		truth := truth || format(
			' SELECT a.col, a.kind, a.probe_no, count(*) r, count(DISTINCT bench.blk(t.ctid)) pg'
			' FROM bench.atom a JOIN %I t ON t.status = a.status'
			' WHERE a.tab = $1 AND a.col = ''status'' GROUP BY 1, 2, 3', p_tab);
	END IF;
	IF 'multi' = ANY (p_cols) THEN
		truth := truth || format(
			' SELECT a.col, a.kind, a.probe_no, count(*) r, count(DISTINCT bench.blk(t.ctid)) pg'
			' FROM bench.atom a JOIN %I t ON t.customer_id = a.cust AND t.status = a.status'
			' WHERE a.tab = $1 AND a.col = ''multi'' GROUP BY 1, 2, 3', p_tab);
	END IF;
	EXECUTE 'UPDATE bench.probeset p SET true_rows = g.r, true_pages = g.pg FROM ('
		|| array_to_string(truth, ' UNION ALL') || ') g'
		' WHERE p.tab = $1 AND p.col = g.col AND p.kind = g.kind AND p.probe_no = g.probe_no'
		USING p_tab;
	UPDATE bench.probeset SET true_rows = 0, true_pages = 0
		WHERE tab = p_tab AND true_rows IS NULL;
END $$;

----------------------------------------------------------------------------
-- Methods
----------------------------------------------------------------------------

-- The CREATE INDEX statement of a method on a column set, or NULL where the
-- method does not apply (hash: one column only; none: no index).
--   bloom             contrib/bloom, tuned: the smallest signature that keeps
--                     false matches below ~1e-5 per row for the probed
--                     columns (a signature of L bits with c bits per column
--                     gives a false match ~ 1/C(L, c) for distinct values)
--   brin_minmax       BRIN minmax, defaults
--   brin_bloom        BRIN bloom, all defaults (128 pages per range,
--                     n_distinct_per_range -0.1, false_positive_rate 0.01)
--   brin_bloom_nd     churn only: BRIN bloom at 128 pages per range and
--                     1% FPR, n_distinct_per_range = 1.25 x the measured
--                     mean distinct values per 128-page range
--   brin_bloom_tuned  16 pages per range, n_distinct_per_range = 1.25 x the
--                     measured mean distinct values per 16-page range,
--                     false_positive_rate 0.001
--   scbf              scbf, defaults
--   scbf_pps8         scbf with pages_per_segment = 8 (--scale): 16 times
--                     the default's segments, so that 10^8 rows pass the
--                     ~65,000 filters one index could once hold
--   scbf_h40          scbf with hash_bits = 40: values keyed by 40 bits of
--                     the extended hash, so that strings sharing a 32-bit
--                     hash (probe kind collision) cost nothing
CREATE OR REPLACE FUNCTION bench.ddl(p_tab text, p_method text, p_col text,
	p_idx text)
RETURNS text LANGUAGE plpgsql STABLE AS $$
DECLARE
	cols text := CASE p_col WHEN 'multi' THEN 'customer_id, status' ELSE p_col END;
	t bench.tables;
	nd_c int; nd_x int; nd_s int;
	bloomops text;
BEGIN
	SELECT * INTO t FROM bench.tables WHERE tab = p_tab;
	nd_c := greatest(16, ceil(1.25 * t.nd16_customer));
	nd_x := greatest(16, ceil(1.25 * t.nd16_code));
	nd_s := greatest(16, ceil(1.25 * t.nd16_status));
	CASE p_method
	WHEN 'none' THEN RETURN NULL;
	WHEN 'btree' THEN
		RETURN format('CREATE INDEX %I ON %I (%s)', p_idx, p_tab, cols);
	WHEN 'hash' THEN
		IF p_col = 'multi' THEN RETURN NULL; END IF;
		RETURN format('CREATE INDEX %I ON %I USING hash (%s)', p_idx, p_tab, cols);
	WHEN 'bloom' THEN
		RETURN format('CREATE INDEX %I ON %I USING bloom (%s) WITH (%s)', p_idx, p_tab, cols,
			CASE p_col WHEN 'status' THEN 'length = 16, col1 = 2'
				WHEN 'multi' THEN 'length = 64, col1 = 4, col2 = 2'
				ELSE 'length = 48, col1 = 4' END);
	WHEN 'brin_minmax' THEN
		RETURN format('CREATE INDEX %I ON %I USING brin (%s)', p_idx, p_tab, cols);
	WHEN 'brin_bloom' THEN
		bloomops := CASE p_col
			WHEN 'customer_id' THEN 'customer_id int4_bloom_ops'
			WHEN 'code' THEN 'code text_bloom_ops'
			WHEN 'status' THEN 'status text_bloom_ops'
			ELSE 'customer_id int4_bloom_ops, status text_bloom_ops' END;
		RETURN format('CREATE INDEX %I ON %I USING brin (%s)', p_idx, p_tab, bloomops);
	WHEN 'brin_bloom_nd' THEN
		-- default range size and FPR, n_distinct_per_range from the data
		-- (used in the churn experiment only: on the text column the filter
		-- would not fit in a page)
		RETURN format('CREATE INDEX %I ON %I USING brin (%s int4_bloom_ops(n_distinct_per_range = %s))',
			p_idx, p_tab, cols, greatest(16, ceil(1.25 * t.nd128_customer)));
	WHEN 'brin_bloom_tuned' THEN
		bloomops := CASE p_col
			WHEN 'customer_id' THEN format('customer_id int4_bloom_ops(n_distinct_per_range = %s, false_positive_rate = 0.001)', nd_c)
			WHEN 'code' THEN format('code text_bloom_ops(n_distinct_per_range = %s, false_positive_rate = 0.001)', nd_x)
			WHEN 'status' THEN format('status text_bloom_ops(n_distinct_per_range = %s, false_positive_rate = 0.001)', nd_s)
			ELSE format('customer_id int4_bloom_ops(n_distinct_per_range = %s, false_positive_rate = 0.001), '
				'status text_bloom_ops(n_distinct_per_range = %s, false_positive_rate = 0.001)', nd_c, nd_s) END;
		RETURN format('CREATE INDEX %I ON %I USING brin (%s) WITH (pages_per_range = 16)',
			p_idx, p_tab, bloomops);
	WHEN 'scbf' THEN
		RETURN format('CREATE INDEX %I ON %I USING scbf (%s)',
			p_idx, p_tab, cols);
	WHEN 'scbf_pps8' THEN
		RETURN format('CREATE INDEX %I ON %I USING scbf (%s) WITH (pages_per_segment = 8)',
			p_idx, p_tab, cols);
	WHEN 'scbf_h40' THEN
		RETURN format('CREATE INDEX %I ON %I USING scbf (%s) WITH (hash_bits = 40)',
			p_idx, p_tab, cols);
	ELSE RAISE EXCEPTION 'unknown method "%"', p_method;
	END CASE;
END $$;

-- scbf_index_info() of an scbf index as jsonb, NULL for other methods, or
-- {"error": message} if the diagnostic fails.  Callers read the columns by
-- name from the jsonb (a column this server does not have reads as NULL),
-- so a renamed or dropped diagnostic column never stops the benchmark.
CREATE OR REPLACE FUNCTION bench.scbf_info(p_idx text)
RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
	j jsonb;
BEGIN
	IF (SELECT a.amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam
		WHERE c.oid = p_idx::regclass) IS DISTINCT FROM 'scbf' THEN
		RETURN NULL;
	END IF;
	BEGIN
		SELECT to_jsonb(i) INTO j FROM scbf_index_info(p_idx::regclass) i;
	EXCEPTION WHEN OTHERS THEN
		j := jsonb_build_object('error', SQLERRM);
	END;
	RETURN j;
END $$;

-- Build the index of (method, column), timed; record size; load it into
-- shared buffers.  Returns the index name, or '' if the method does not
-- apply or the server refused the build: then the build's row records the
-- error and the seconds until it, and the run goes on without that index.
CREATE OR REPLACE FUNCTION bench.build(p_tab text, p_method text, p_col text)
RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	idx text := left(format('bx_%s_%s_%s', p_tab, p_method, p_col), 63);
	stmt text := bench.ddl(p_tab, p_method, p_col, idx);
	t0 timestamptz;
	secs float8;
BEGIN
	EXECUTE format('DROP INDEX IF EXISTS %I', idx);
	DELETE FROM bench.build WHERE tab = p_tab AND method = p_method AND col = p_col;
	IF stmt IS NULL THEN
		RETURN '';
	END IF;
	t0 := clock_timestamp();
	BEGIN
		EXECUTE stmt;
	EXCEPTION WHEN OTHERS THEN
		INSERT INTO bench.build (tab, method, col, idx, ddl, build_s, error)
			VALUES (p_tab, p_method, p_col, idx, stmt,
				extract(epoch FROM clock_timestamp() - t0), SQLERRM);
		RETURN '';
	END;
	secs := extract(epoch FROM clock_timestamp() - t0);
	INSERT INTO bench.build VALUES (p_tab, p_method, p_col, idx, stmt, secs,
		pg_relation_size(idx::regclass), bench.scbf_info(idx));
	PERFORM pg_prewarm(idx::regclass);
	RETURN idx;
END $$;

----------------------------------------------------------------------------
-- Measuring a plan
----------------------------------------------------------------------------

CREATE OR REPLACE FUNCTION bench.nodes(p json)
RETURNS TABLE (depth int, node json) LANGUAGE sql IMMUTABLE AS $$
	WITH RECURSIVE n(depth, node) AS (
		SELECT 0, p -> 0 -> 'Plan'
		UNION ALL
		SELECT n.depth + 1, c
		FROM n, json_array_elements(coalesce(n.node -> 'Plans', '[]'::json)) c
	)
	SELECT depth, node FROM n
$$;

CREATE OR REPLACE FUNCTION bench.bufs(n json) RETURNS bigint
LANGUAGE sql IMMUTABLE AS $$
	SELECT coalesce((n ->> 'Shared Hit Blocks')::bigint, 0)
		 + coalesce((n ->> 'Shared Read Blocks')::bigint, 0)
$$;

-- From EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON): execution time, buffers of
-- the index scan nodes, heap buffers and heap blocks of the heap scan node
-- (exact + lossy for a bitmap heap scan, every page for a seq scan), rows,
-- rows removed by recheck or filter, and the plan's shape.
CREATE OR REPLACE FUNCTION bench.plan_stats(p json,
	OUT exec_ms float8, OUT idx_bufs bigint, OUT heap_bufs bigint,
	OUT heap_exact bigint, OUT heap_lossy bigint, OUT heap_pages bigint,
	OUT nrows bigint, OUT removed bigint, OUT plan text)
LANGUAGE sql IMMUTABLE AS $$
	WITH n AS (SELECT * FROM bench.nodes(p)),
	idx AS (
		SELECT coalesce(sum(bench.bufs(node)), 0) AS b FROM n
		WHERE node ->> 'Node Type' IN ('Bitmap Index Scan', 'Index Scan', 'Index Only Scan')),
	heap AS (
		SELECT
			coalesce(sum(CASE WHEN node ->> 'Node Type' = 'Bitmap Heap Scan'
				THEN bench.bufs(node) - (SELECT coalesce(sum(bench.bufs(c)), 0)
					FROM json_array_elements(coalesce(node -> 'Plans', '[]')) c)
				WHEN node ->> 'Node Type' = 'Seq Scan' THEN bench.bufs(node) END), 0) AS hb,
			coalesce(sum((node ->> 'Exact Heap Blocks')::bigint), 0) AS ex,
			coalesce(sum((node ->> 'Lossy Heap Blocks')::bigint), 0) AS lo,
			coalesce(sum(CASE WHEN node ->> 'Node Type' = 'Seq Scan'
				THEN bench.bufs(node) END), 0) AS ss,
			coalesce(sum((node ->> 'Rows Removed by Index Recheck')::bigint), 0)
			+ coalesce(sum((node ->> 'Rows Removed by Filter')::bigint), 0) AS rm
		FROM n)
	SELECT (p -> 0 ->> 'Execution Time')::float8,
		idx.b, heap.hb, heap.ex, heap.lo, heap.ex + heap.lo + heap.ss,
		(p -> 0 -> 'Plan' ->> 'Actual Rows')::numeric::bigint, heap.rm,
		(SELECT string_agg((node ->> 'Node Type')
			|| coalesce(' on ' || (node ->> 'Index Name'), ''), ' > ' ORDER BY depth)
		 FROM n)
	FROM idx, heap
$$;

-- The plan's shape without running it, and its cost.
CREATE OR REPLACE FUNCTION bench.plan_shape(p json, OUT plan text,
	OUT total_cost float8)
LANGUAGE sql IMMUTABLE AS $$
	SELECT string_agg((node ->> 'Node Type')
			|| coalesce(' on ' || (node ->> 'Index Name'), ''), ' > ' ORDER BY depth),
		max((p -> 0 -> 'Plan' ->> 'Total Cost')::float8)
	FROM bench.nodes(p)
$$;

-- bench.run_probes_paired(tab, twin, method, col, kind, max, budget): up
-- to max probes of one kind on tab (stopping after budget seconds, but
-- never before 5 probes), each as EXPLAIN (ANALYZE, BUFFERS, TIMING OFF),
-- recorded in bench.probe; two unrecorded warm-up probes first.  The
-- caller's session settings pick the method (enable_seqscan = off etc.).
-- With a twin (which has a btree on col's columns), each probe is paired
-- with the same query on it, run right beside it in the same session: the
-- twin first for odd probes (1st, 3rd, ...), tab first for even ones; the
-- twin's go to bench.probe_ref, and the budget is per table (the pairs
-- stop after 2 × budget seconds).
CREATE OR REPLACE FUNCTION bench.run_probes_paired(p_tab text, p_twin text,
	p_method text, p_col text, p_kind text, p_max int, p_budget float8)
RETURNS int LANGUAGE plpgsql AS $$
DECLARE
	r record;
	j json;
	jt json;
	q text := 'EXPLAIN (ANALYZE, BUFFERS, TIMING OFF, FORMAT JSON) SELECT * FROM %I WHERE %s';
	n int := 0;
	t0 timestamptz;
BEGIN
	FOR r IN SELECT qual FROM bench.probeset
		WHERE tab = p_tab AND col = p_col AND kind = p_kind
		ORDER BY probe_no DESC LIMIT 2
	LOOP
		IF p_twin IS NOT NULL THEN
			EXECUTE format(q, p_twin, r.qual) INTO jt;
		END IF;
		EXECUTE format(q, p_tab, r.qual) INTO j;
	END LOOP;
	t0 := clock_timestamp();
	FOR r IN SELECT * FROM bench.probeset
		WHERE tab = p_tab AND col = p_col AND kind = p_kind ORDER BY probe_no
	LOOP
		EXIT WHEN n >= p_max
			OR (n >= 5 AND extract(epoch FROM clock_timestamp() - t0) >
				CASE WHEN p_twin IS NULL THEN 1 ELSE 2 END * p_budget);
		n := n + 1;
		IF p_twin IS NULL THEN
			EXECUTE format(q, p_tab, r.qual) INTO j;
		ELSIF n % 2 = 1 THEN
			EXECUTE format(q, p_twin, r.qual) INTO jt;
			EXECUTE format(q, p_tab, r.qual) INTO j;
		ELSE
			EXECUTE format(q, p_tab, r.qual) INTO j;
			EXECUTE format(q, p_twin, r.qual) INTO jt;
		END IF;
		INSERT INTO bench.probe
			SELECT p_tab, p_method, p_col, p_kind, r.probe_no, s.exec_ms, s.idx_bufs,
				s.heap_bufs, s.heap_exact, s.heap_lossy, s.heap_pages, s.nrows,
				s.removed, r.true_pages, s.plan
			FROM bench.plan_stats(j) s;
		IF p_twin IS NOT NULL THEN
			INSERT INTO bench.probe_ref
				SELECT p_tab, p_method, p_col, p_kind, r.probe_no, 'btree', p_twin,
					n % 2 = 1, s.exec_ms, s.idx_bufs, s.heap_bufs, s.heap_exact,
					s.heap_lossy, s.heap_pages, s.nrows, s.removed, r.true_pages,
					s.plan
				FROM bench.plan_stats(jt) s;
		END IF;
	END LOOP;
	RETURN n;
END $$;

-- bench.run_probes(tab, method, col, kind, max, budget): the probes of
-- bench.run_probes_paired, unpaired.
CREATE OR REPLACE FUNCTION bench.run_probes(p_tab text, p_method text,
	p_col text, p_kind text, p_max int, p_budget float8)
RETURNS int LANGUAGE sql AS $$
	SELECT bench.run_probes_paired(p_tab, NULL, p_method, p_col, p_kind,
		p_max, p_budget)
$$;

-- What the planner picks at default settings with only this index present,
-- for the first probe of each kind.
CREATE OR REPLACE FUNCTION bench.planner_choice(p_tab text, p_method text,
	p_col text, p_idx text)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	r record;
	j json;
	s record;
BEGIN
	FOR r IN SELECT DISTINCT ON (kind) kind, qual FROM bench.probeset
		WHERE tab = p_tab AND col = p_col ORDER BY kind, probe_no
	LOOP
		EXECUTE format('EXPLAIN (FORMAT JSON) SELECT * FROM %I WHERE %s', p_tab, r.qual)
			INTO j;
		SELECT * INTO s FROM bench.plan_shape(j);
		INSERT INTO bench.planner VALUES (p_tab, p_method, p_col, r.kind, s.plan,
			p_idx <> '' AND s.plan LIKE '%' || p_idx || '%', s.total_cost);
	END LOOP;
END $$;

----------------------------------------------------------------------------
-- Churn (issue 2): one table, every method's index on customer_id at once;
-- a method is measured with the others dropped inside a subtransaction that
-- is then rolled back.
----------------------------------------------------------------------------

CREATE OR REPLACE FUNCTION bench.churn_init(p_tab text)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	DELETE FROM bench.cvals WHERE tab = p_tab;
	EXECUTE format('INSERT INTO bench.cvals SELECT $1, customer_id, 0, NULL'
		' FROM %I GROUP BY customer_id', p_tab) USING p_tab;
	DELETE FROM bench.cset WHERE tab = p_tab;
	DELETE FROM bench.cprobe WHERE tab = p_tab;
	DELETE FROM bench.ccycle WHERE tab = p_tab;
END $$;

-- Delete the rows of share p_frac of the live customer values.
CREATE OR REPLACE FUNCTION bench.churn_delete(p_tab text, p_cycle int,
	p_frac float8)
RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
	n bigint;
BEGIN
	UPDATE bench.cvals c SET died = p_cycle
	FROM (SELECT v FROM bench.cvals WHERE tab = p_tab AND died IS NULL
		ORDER BY hashint4(v # (p_cycle * 40503)), v
		LIMIT (SELECT round(p_frac * count(*)) FROM bench.cvals
			WHERE tab = p_tab AND died IS NULL)) d
	WHERE c.tab = p_tab AND c.v = d.v;
	EXECUTE format('DELETE FROM %I WHERE customer_id IN'
		' (SELECT v FROM bench.cvals WHERE tab = $1 AND died = $2)', p_tab)
		USING p_tab, p_cycle;
	GET DIAGNOSTICS n = ROW_COUNT;
	RETURN n;
END $$;

-- Insert p_count rows of new customers (bursts of 20) into the freed space.
CREATE OR REPLACE FUNCTION bench.churn_insert(p_tab text, p_cycle int,
	p_count bigint)
RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE
	g0 bigint;
	base bigint;
	secs float8;
BEGIN
	EXECUTE format('SELECT max(id) + 1 FROM %I', p_tab) INTO g0;
	SELECT max(v) / 2 + 1 INTO base FROM bench.cvals WHERE tab = p_tab;
	secs := bench.insert_rows(p_tab, g0, p_count, base);
	INSERT INTO bench.cvals
		SELECT p_tab, (2 * (base + (g - g0) / 20))::int4, p_cycle, NULL
		FROM generate_series(g0, g0 + p_count - 1, 20) g;
	RETURN secs;
END $$;

-- Probe values of a cycle: values deleted in this cycle, values deleted in
-- earlier cycles, never-present values (odd, fixed), live values.
CREATE OR REPLACE FUNCTION bench.churn_probes(p_tab text, p_cycle int, p_n int)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	nb bigint;
BEGIN
	SELECT max(v) / 2 INTO nb FROM bench.cvals WHERE tab = p_tab AND born = 0;
	DELETE FROM bench.cset WHERE tab = p_tab AND cycle = p_cycle;
	INSERT INTO bench.cset (tab, cycle, kind, probe_no, v)
	SELECT p_tab, p_cycle, 'deleted', row_number() OVER (), v FROM (
		SELECT v FROM bench.cvals WHERE tab = p_tab AND died = p_cycle
		ORDER BY hashint4(v # 777), v LIMIT p_n) s
	UNION ALL
	SELECT p_tab, p_cycle, 'deleted_earlier', row_number() OVER (), v FROM (
		SELECT v FROM bench.cvals WHERE tab = p_tab AND died < p_cycle
		ORDER BY hashint4(v # 778), v LIMIT p_n) s
	UNION ALL
	SELECT p_tab, p_cycle, 'never', i, (2 * (bench.h(i * 31 + 9) % nb) + 1)::int4
		FROM generate_series(1, p_n) i
	UNION ALL
	SELECT p_tab, p_cycle, 'present', row_number() OVER (), v FROM (
		SELECT v FROM bench.cvals WHERE tab = p_tab AND died IS NULL
		ORDER BY hashint4(v # (779 + p_cycle)), v LIMIT p_n) s;
	EXECUTE format('UPDATE bench.cset c SET true_pages = g.pg FROM ('
		' SELECT c.kind, c.probe_no, count(DISTINCT bench.blk(t.ctid)) pg'
		' FROM bench.cset c JOIN %I t ON t.customer_id = c.v'
		' WHERE c.tab = $1 AND c.cycle = $2 GROUP BY 1, 2) g'
		' WHERE c.tab = $1 AND c.cycle = $2 AND c.kind = g.kind AND c.probe_no = g.probe_no',
		p_tab) USING p_tab, p_cycle;
	UPDATE bench.cset SET true_pages = 0
		WHERE tab = p_tab AND cycle = p_cycle AND true_pages IS NULL;
END $$;

-- Measure one method of the churn table: drop the other indexes in a
-- subtransaction, run the probes, roll the subtransaction back (PL/pgSQL
-- variables survive it), then record.
CREATE OR REPLACE FUNCTION bench.churn_measure(p_tab text, p_cycle int,
	p_method text, p_idx text)
RETURNS int LANGUAGE plpgsql AS $$
DECLARE
	res bench.cprobe[] := '{}';
	r record;
	j json;
	s record;
	o text;
	heap bigint := pg_relation_size(p_tab::regclass) / current_setting('block_size')::int;
	segs int;
	maybe int;
	is_scbf bool := p_method LIKE 'scbf%';
BEGIN
	-- a diagnostic that fails or lacks the column leaves the figure NULL,
	-- never the benchmark
	IF is_scbf THEN
		segs := (bench.scbf_info(p_idx) ->> 'segments')::int;
	END IF;
	BEGIN
		FOR o IN SELECT indexrelid::regclass::text FROM pg_index
			WHERE indrelid = p_tab::regclass AND indexrelid <> p_idx::regclass
		LOOP
			EXECUTE 'DROP INDEX ' || o;
		END LOOP;
		-- warm-up
		FOR r IN SELECT v FROM bench.cset WHERE tab = p_tab AND cycle = p_cycle
			AND kind = 'present' ORDER BY probe_no DESC LIMIT 2
		LOOP
			EXECUTE format('EXPLAIN (ANALYZE, BUFFERS, TIMING OFF, FORMAT JSON)'
				' SELECT * FROM %I WHERE customer_id = %s', p_tab, r.v) INTO j;
		END LOOP;
		FOR r IN SELECT * FROM bench.cset WHERE tab = p_tab AND cycle = p_cycle
			ORDER BY kind, probe_no
		LOOP
			EXECUTE format('EXPLAIN (ANALYZE, BUFFERS, TIMING OFF, FORMAT JSON)'
				' SELECT * FROM %I WHERE customer_id = %s', p_tab, r.v) INTO j;
			SELECT * INTO s FROM bench.plan_stats(j);
			maybe := NULL;
			IF is_scbf THEN
				-- segments whose filters say "maybe" (scbf_probe also returns
				-- a row per pending partition read, with no segment)
				BEGIN
					SELECT count(DISTINCT segno) INTO maybe
						FROM scbf_probe(p_idx::regclass, r.v);
				EXCEPTION WHEN OTHERS THEN
					maybe := NULL;
				END;
			END IF;
			res := res || ROW(p_tab, p_cycle, p_method, r.kind, r.probe_no,
				s.exec_ms, s.idx_bufs, s.heap_pages, heap, s.nrows, r.true_pages,
				maybe, segs, s.plan)::bench.cprobe;
		END LOOP;
		RAISE EXCEPTION USING ERRCODE = 'SBRLB', MESSAGE = 'bench: undo drops';
	EXCEPTION WHEN SQLSTATE 'SBRLB' THEN
		NULL;
	END;
	INSERT INTO bench.cprobe SELECT * FROM unnest(res);
	RETURN cardinality(res);
END $$;

-- Index size and, for scbf, its own statistics after a cycle.
CREATE OR REPLACE FUNCTION bench.churn_sizes(p_tab text, p_cycle int,
	p_deleted bigint, p_inserted bigint, p_grew bigint, p_vacuum_s float8,
	p_insert_s float8)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	r record;
	v_fpr float8;
	v_filters int;
	v_chain int;
	v_sat bigint;
	v_stale bigint;
	info jsonb;
BEGIN
	FOR r IN SELECT indexrelid::regclass::text AS idx, am.amname
		FROM pg_index x JOIN pg_class c ON c.oid = x.indexrelid
		JOIN pg_am am ON am.oid = c.relam
		WHERE x.indrelid = p_tab::regclass
	LOOP
		v_fpr := NULL; v_filters := NULL; v_chain := NULL; v_sat := NULL; v_stale := NULL;
		IF r.amname = 'scbf' THEN
			-- scbf keeps no counters: saturated and stale stay NULL unless
			-- the diagnostic has such columns
			info := bench.scbf_info(r.idx);
			v_fpr := (info ->> 'est_fpr')::float8;
			v_filters := (info ->> 'filters')::int;
			v_chain := (info ->> 'max_chain')::int;
			v_sat := (info ->> 'saturated_counters')::bigint;
			v_stale := (info ->> 'stale_counters')::bigint;
		END IF;
		INSERT INTO bench.ccycle VALUES (p_tab, p_cycle,
			substring(r.idx FROM '^cx_' || p_tab || '_(.*)$'), r.idx,
			pg_relation_size(r.idx::regclass),
			pg_relation_size(p_tab::regclass) / current_setting('block_size')::int,
			p_deleted, p_inserted, p_grew, p_vacuum_s, p_insert_s,
			v_fpr, v_filters, v_chain, v_sat, v_stale);
	END LOOP;
END $$;

----------------------------------------------------------------------------
-- Summaries (report.sql, export.sql)
----------------------------------------------------------------------------

-- Per table, method, column and kind of probe: latency median and p95,
-- pages per probe, heap pages per page that really holds a match, share of
-- probes that read the heap at all, and wrong answers (rows returned that
-- differ from the ground truth: must be 0).
CREATE OR REPLACE VIEW bench.summary AS
SELECT p.tab, t.label, t.nrows, p.method, p.col, p.kind, count(*) AS probes,
	percentile_cont(0.5) WITHIN GROUP (ORDER BY p.exec_ms) AS med_ms,
	percentile_cont(0.95) WITHIN GROUP (ORDER BY p.exec_ms) AS p95_ms,
	avg(p.idx_bufs) AS idx_pages, avg(p.heap_pages) AS heap_pages,
	avg(p.true_pages) AS true_pages,
	sum(p.heap_pages)::float8 / nullif(sum(p.true_pages), 0) AS heap_per_true,
	avg((p.heap_pages > 0)::int) AS touch_share,
	avg(p.heap_pages::float8 / t.heap_pages) AS heap_share,
	avg(p.removed) AS removed,
	count(*) FILTER (WHERE p.nrows <> s.true_rows) AS wrong,
	max(p.plan) AS plan
FROM bench.probe p
JOIN bench.tables t USING (tab)
JOIN bench.probeset s USING (tab, col, kind, probe_no)
GROUP BY p.tab, t.label, t.nrows, p.method, p.col, p.kind;

-- Paired probes, per table, method, column and kind: pairs, the method's
-- median, its btree reference's (on the twin, same session), the median
-- over the pairs of the per-probe ratio method ms ÷ btree ms (x_btree),
-- the ratio of the two medians (x_btree_med), and reference probes whose
-- rows differ from the ground truth (wrong).
CREATE OR REPLACE VIEW bench.psummary AS
SELECT p.tab, p.method, p.col, p.kind, count(*) AS pairs,
	percentile_cont(0.5) WITHIN GROUP (ORDER BY p.exec_ms) AS med_ms,
	percentile_cont(0.5) WITHIN GROUP (ORDER BY r.exec_ms) AS ref_med_ms,
	percentile_cont(0.5) WITHIN GROUP (ORDER BY p.exec_ms / nullif(r.exec_ms, 0)) AS x_btree,
	percentile_cont(0.5) WITHIN GROUP (ORDER BY p.exec_ms)
		/ nullif(percentile_cont(0.5) WITHIN GROUP (ORDER BY r.exec_ms), 0) AS x_btree_med,
	count(*) FILTER (WHERE r.nrows <> s.true_rows) AS wrong
FROM bench.probe p
JOIN bench.probe_ref r USING (tab, method, col, kind, probe_no)
JOIN bench.probeset s USING (tab, col, kind, probe_no)
WHERE r.ref_method = 'btree'
GROUP BY p.tab, p.method, p.col, p.kind;

-- Latency against btree, per table, method, column and kind, as the report
-- gives it: where the method's probes were paired with btree's on the twin
-- (paired true), the median over the pairs of the per-probe ratio
-- (bench.psummary); otherwise (btree itself, the sequential scan, runs
-- without pairs) the method's median ÷ btree's, measured at other moments.
CREATE OR REPLACE VIEW bench.xbtree AS
SELECT s.tab, s.method, s.col, s.kind, ps.pairs IS NOT NULL AS paired,
	coalesce(ps.x_btree, s.med_ms / nullif(b.med_ms, 0)) AS x_btree,
	s.med_ms / nullif(b.med_ms, 0) AS x_btree_unpaired
FROM bench.summary s
LEFT JOIN bench.summary b ON b.tab = s.tab AND b.col = s.col AND b.kind = s.kind
	AND b.method = 'btree'
LEFT JOIN bench.psummary ps ON ps.tab = s.tab AND ps.method = s.method
	AND ps.col = s.col AND ps.kind = s.kind;

-- Inserts, per table, method, column and test: rounds, the medians over
-- the rounds of rows/s and of WAL bytes per row, and the rate against no
-- index (x_none).  Paired rounds: the median over the rounds of the
-- method's rows/s ÷ the rows/s of the no-index round paired with it (the
-- same test on the table's twin, in the same round); rounds not paired
-- (SCBF_BENCH_INSERT_PAIRED=0): the method's median ÷ the median of every
-- no-index round of the table.  none: the medians over all its rounds (in
-- paired runs every method's twin rounds), x_none 1.
CREATE OR REPLACE VIEW bench.isummary AS
WITH med AS (
	SELECT tab, method, col, test, count(*) AS rounds,
		count(paired_method) AS paired_rounds,
		percentile_cont(0.5) WITHIN GROUP (ORDER BY rows_per_s) AS rows_per_s,
		percentile_cont(0.5) WITHIN GROUP (ORDER BY wal_per_row) AS wal_per_row
	FROM bench.inserts
	GROUP BY tab, method, col, test),
pair AS (
	SELECT i.tab, i.method, i.col, i.test, count(*) AS pairs,
		percentile_cont(0.5) WITHIN GROUP (ORDER BY i.rows_per_s / b.rows_per_s) AS x_none
	FROM bench.inserts i
	JOIN bench.inserts b ON b.tab = i.tab AND b.test = i.test AND b.round = i.round
		AND b.method = 'none' AND b.paired_method = i.method AND b.paired_col = i.col
	WHERE i.method <> 'none' AND i.paired_method = 'none' AND b.rows_per_s > 0
	GROUP BY i.tab, i.method, i.col, i.test)
SELECT m.tab, m.method, m.col, m.test, m.rounds, coalesce(p.pairs, 0) AS pairs,
	m.rows_per_s, m.wal_per_row,
	CASE WHEN m.method = 'none' THEN 1.0
		WHEN m.paired_rounds > 0 THEN p.x_none
		ELSE m.rows_per_s / nullif(b.rows_per_s, 0) END AS x_none
FROM med m
LEFT JOIN pair p USING (tab, method, col, test)
LEFT JOIN med b ON b.tab = m.tab AND b.test = m.test AND b.method = 'none';

-- Churn, per cycle, method and kind: share of the heap a probe reads, share
-- of probes that read the heap at all, pages, latency; for scbf the share
-- of segments whose filters say "maybe" (the filter false-positive rate for
-- never-present values, stale counters for deleted ones).
CREATE OR REPLACE VIEW bench.csummary AS
SELECT tab, cycle, method, kind, count(*) AS probes,
	avg(heap_pages::float8 / heap_total) AS heap_share,
	max(heap_pages::float8 / heap_total) AS heap_share_max,
	avg((heap_pages > 0)::int) AS touch_share,
	avg(heap_pages) AS heap_pages, avg(true_pages) AS true_pages,
	avg(idx_bufs) AS idx_pages,
	avg(idx_bufs + heap_pages) AS pages,
	percentile_cont(0.5) WITHIN GROUP (ORDER BY exec_ms) AS med_ms,
	percentile_cont(0.95) WITHIN GROUP (ORDER BY exec_ms) AS p95_ms,
	avg(maybe_segments::float8 / nullif(segments, 0)) AS maybe_share,
	count(*) FILTER (WHERE kind <> 'present' AND nrows <> 0) AS wrong
FROM bench.cprobe
GROUP BY tab, cycle, method, kind;

-- The environment as one row, for the CSV files.
CREATE OR REPLACE VIEW bench.envrow AS
SELECT max(value) FILTER (WHERE key = 'mode') AS mode,
	max(value) FILTER (WHERE key = 'server_version') AS server_version,
	max(value) FILTER (WHERE key = 'cpu_model') AS cpu_model,
	max(value) FILTER (WHERE key = 'cores') AS cores,
	max(value) FILTER (WHERE key = 'ram_gb') AS ram_gb,
	max(value) FILTER (WHERE key = 'scbf_commit') AS scbf_commit,
	max(value) FILTER (WHERE key = 'setting.shared_buffers') AS shared_buffers
FROM bench.env;
