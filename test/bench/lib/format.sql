-- test/bench/lib/format.sql: the output settings and number formatting
-- that report.sql and scale_report.sql share (each includes it with \ir).
\set ON_ERROR_STOP on
\pset format unaligned
\pset tuples_only on
\pset footer off
SET client_min_messages = warning;

-- number formatting: about three significant digits
CREATE FUNCTION pg_temp.n(x float8) RETURNS text LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE
		WHEN x IS NULL OR x = 'NaN' THEN '–'
		WHEN x = 0 THEN '0'
		WHEN abs(x) >= 1000 THEN to_char(round(x), 'FM999,999,999,990')
		WHEN abs(x) >= 100 THEN round(x::numeric, 0)::text
		WHEN abs(x) >= 10 THEN round(x::numeric, 1)::text
		WHEN abs(x) >= 1 THEN round(x::numeric, 2)::text
		WHEN abs(x) >= 0.1 THEN round(x::numeric, 3)::text
		WHEN abs(x) >= 0.01 THEN round(x::numeric, 4)::text
		ELSE round(x::numeric, 5)::text END
$$;
-- percentage with two decimals
CREATE FUNCTION pg_temp.pct(x float8) RETURNS text LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE WHEN x IS NULL THEN '–' ELSE round((100 * x)::numeric, 2)::text || '%' END
$$;
CREATE FUNCTION pg_temp.sz(x bigint) RETURNS text LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE WHEN x IS NULL THEN '–' ELSE replace(pg_size_pretty(x), 'bytes', 'B') END
$$;
CREATE FUNCTION pg_temp.ratio(a float8, b float8) RETURNS text LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE WHEN a IS NULL OR b IS NULL OR b = 0 THEN '–'
		ELSE round((a / b)::numeric, CASE WHEN a / b >= 10 THEN 0 WHEN a / b >= 1 THEN 2 ELSE 3 END)::text || '×' END
$$;
