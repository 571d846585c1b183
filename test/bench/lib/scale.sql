-- test/bench/lib/scale.sql: the scale mode's narrow tables (test/bench/run
-- --scale), loaded after bench.sql.
--
-- A narrow table (customer_id int4, code text) of 1,000,000 to 100,000,000
-- rows with the main benchmark's generator: customer_id in bursts of 20
-- rows, the bursts in the same fixed pseudo-random order (row i of a table
-- of n rows has the customer_id and code of row i of bench.load's table of
-- n rows), code a random 12-character hex string.  The methods, probe sets,
-- ground truth and measurements are bench.sql's; only loading and the
-- statistics differ, so that 100,000,000 rows load without sorting the
-- table and are summarized without reading all of it.
SET client_min_messages = warning;

-- The order of the bursts (bench.load's permutation) as one array: burst b
-- (from 0) has customer 2 * a[b + 1].
CREATE TABLE IF NOT EXISTS bench.scale_perm (tab text PRIMARY KEY,
	bursts bigint, perm int4[]);

-- bench.scale_create(tab, n): create the empty narrow table and its burst
-- order.
CREATE OR REPLACE FUNCTION bench.scale_create(p_tab text, p_rows bigint)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	nb bigint := (p_rows + 19) / 20;
BEGIN
	PERFORM set_config('work_mem', '512MB', true);
	EXECUTE format('DROP TABLE IF EXISTS %I', p_tab);
	EXECUTE format('CREATE TABLE %I (customer_id int4 NOT NULL, code text NOT NULL)'
		' WITH (autovacuum_enabled = off)', p_tab);
	DELETE FROM bench.scale_perm WHERE tab = p_tab;
	INSERT INTO bench.scale_perm
		SELECT p_tab, nb, array_agg(p ORDER BY b) FROM (
			SELECT b, (row_number() OVER (ORDER BY hashint8(b), b) - 1)::int4 AS p
			FROM generate_series(0, nb - 1) b) s;
	DELETE FROM bench.tables WHERE tab = p_tab;
	INSERT INTO bench.tables (tab, nrows, load_s) VALUES (p_tab, p_rows, 0);
END $$;

-- bench.scale_fill(tab, from, to): append rows from..to (1-based, in order:
-- no sort), one call per chunk so that the driver can report progress.
-- Returns the seconds it took, also added to bench.tables.load_s.
CREATE OR REPLACE FUNCTION bench.scale_fill(p_tab text, p_from bigint,
	p_to bigint)
RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE
	t0 timestamptz := clock_timestamp();
	a int4[];
	secs float8;
BEGIN
	SELECT perm INTO a FROM bench.scale_perm WHERE tab = p_tab;
	EXECUTE format('INSERT INTO %I SELECT 2 * $1[(g - 1) / 20 + 1], bench.code_of(g)'
		' FROM generate_series($2, $3) g', p_tab) USING a, p_from, p_to;
	secs := extract(epoch FROM clock_timestamp() - t0);
	UPDATE bench.tables SET load_s = load_s + secs WHERE tab = p_tab;
	RETURN secs;
END $$;

-- Size and data-tuned BRIN parameters of a narrow table: distinct values per
-- 16 and per 128 pages, from its first p_blocks pages (the generator is the
-- same throughout, so a sample of 1,000,000 rows' pages is representative).
CREATE OR REPLACE FUNCTION bench.scale_stats(p_tab text, p_blocks bigint)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	r record;
	lim tid := format('(%s,0)', p_blocks)::tid;
BEGIN
	PERFORM set_config('work_mem', '512MB', true);
	EXECUTE format('SELECT avg(c16) c16, avg(x16) x16 FROM ('
		' SELECT count(DISTINCT customer_id) c16, count(DISTINCT code) x16'
		' FROM %I WHERE ctid < $1 GROUP BY bench.blk(ctid) / 16) s', p_tab)
		INTO r USING lim;
	UPDATE bench.tables SET nd16_customer = r.c16, nd16_code = r.x16
		WHERE tab = p_tab;
	EXECUTE format('SELECT avg(c16) c16, avg(x16) x16 FROM ('
		' SELECT count(DISTINCT customer_id) c16, count(DISTINCT code) x16'
		' FROM %I WHERE ctid < $1 GROUP BY bench.blk(ctid) / 128) s', p_tab)
		INTO r USING lim;
	UPDATE bench.tables SET nd128_customer = r.c16, nd128_code = r.x16,
		heap_pages = pg_relation_size(p_tab::regclass) / current_setting('block_size')::int,
		heap_bytes = pg_relation_size(p_tab::regclass)
		WHERE tab = p_tab;
END $$;
