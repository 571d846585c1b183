--
-- scbf_math: the mathematics functions against the reference values of
-- research/sim/analysis.py (test/data/reference_values.tsv, exact values
-- from 60-digit arithmetic), to 6 significant digits, and the paper's
-- tables.  Every reference row whose name has a function is checked; only
-- a summary is printed (rows checked, rows failed, the failures).
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS scbf;
RESET client_min_messages;

-- the reference values (name, params as key=value ..., value), loaded
-- whole lines at a time (no delimiter can occur) since comment lines have
-- fewer fields; the path is relative to where pg_regress runs
CREATE TABLE ref_lines (line text);
\copy ref_lines FROM 'test/data/reference_values.tsv' WITH (FORMAT csv, DELIMITER E'\x01', QUOTE E'\x02')
CREATE TABLE ref AS
SELECT split_part(line, E'\t', 1) AS name, split_part(line, E'\t', 2) AS params,
	split_part(line, E'\t', 3) AS value
FROM ref_lines
WHERE line !~ '^#' AND line <> '';
-- the file is all there: every line is a comment or a full row
SELECT count(*) AS lines,
	count(*) FILTER (WHERE line ~ '^#') AS comments,
	count(*) FILTER (WHERE line ~ '^[A-Za-z_0-9]+\t[^\t]*\t[^\t]+$') AS rows
FROM ref_lines;

-- a parameter: plain numbers, 1/N, ln2 and X*ln2
CREATE FUNCTION param(params text, key text) RETURNS float8 LANGUAGE sql AS $$
	SELECT CASE
		WHEN v ~ '^1/' THEN 1.0 / substr(v, 3)::float8
		WHEN v = 'ln2' THEN ln(2)
		WHEN v ~ '\*ln2$' THEN split_part(v, '*', 1)::float8 * ln(2)
		ELSE v::float8 END
	FROM substring(params FROM '(?:^| )' || key || '=([^ ]+)') v
$$;

-- the value each reference row names, computed by the scbf functions
CREATE FUNCTION computed(name text, p text) RETURNS numeric LANGUAGE plpgsql AS $$
DECLARE
	model text := substring(p FROM 'model=([^ ]+)');
	t int := param(p, 't');
	r record;
BEGIN
	CASE name
	WHEN 'optimal_k' THEN RETURN scbf_optimal_k(param(p, 'P'));
	WHEN 'optimal_k_real' THEN RETURN scbf_optimal_k_real(param(p, 'P'));
	WHEN 'slice_size_m' THEN RETURN scbf_slice_size(param(p, 'M')::bigint, param(p, 'P'));
	WHEN 'capacity_n_paper' THEN RETURN scbf_capacity(param(p, 'M')::bigint, param(p, 'P'));
	WHEN 'capacity_n_paper_real' THEN RETURN scbf_capacity(param(p, 'M')::bigint, param(p, 'P'), 'paper_real');
	WHEN 'capacity_n_half_fill' THEN RETURN scbf_capacity(param(p, 'M')::bigint, param(p, 'P'), 'half_fill');
	WHEN 'capacity_n_exact_intk' THEN RETURN scbf_capacity(param(p, 'M')::bigint, param(p, 'P'), 'exact');
	WHEN 'fpr_at_paper_capacity_exact' THEN
		RETURN scbf_fpr(scbf_slice_size(param(p, 'M')::bigint, param(p, 'P')),
						scbf_optimal_k(param(p, 'P')),
						scbf_capacity(param(p, 'M')::bigint, param(p, 'P'))::bigint);
	WHEN 'counters_per_element' THEN RETURN scbf_counters_per_element(param(p, 'P'));
	WHEN 'counters_required_M' THEN RETURN scbf_counters_required(param(p, 'n')::bigint, param(p, 'P'));
	WHEN 'page_capacity_n' THEN
		RETURN scbf_page_capacity(param(p, 'bits')::int, param(p, 'usable_bytes')::int, param(p, 'P'));
	WHEN 'chain_fpr' THEN RETURN scbf_chain_fpr(param(p, 'P'), param(p, 'd')::int);
	WHEN 'fpr_at_half_fill' THEN RETURN scbf_fpr_at_half_fill(param(p, 'k')::int);
	WHEN 'expected_fill_exact' THEN RETURN scbf_expected_fill(param(p, 'm')::bigint, param(p, 'n')::bigint);
	WHEN 'expected_fill_approx' THEN RETURN scbf_expected_fill(param(p, 'm')::bigint, param(p, 'n')::bigint, false);
	WHEN 'fpr_scbf_exact' THEN RETURN scbf_fpr(param(p, 'm')::bigint, param(p, 'k')::int, param(p, 'n')::bigint);
	WHEN 'fpr_scbf_approx' THEN RETURN scbf_fpr(param(p, 'm')::bigint, param(p, 'k')::int, param(p, 'n')::bigint, false);
	WHEN 'double_hash_fpr_floor' THEN RETURN scbf_double_hash_floor(param(p, 'm')::bigint, param(p, 'n')::bigint);
	WHEN 'counter_max_value' THEN RETURN scbf_counter_max(param(p, 'b')::int);
	WHEN 'paper_table2_printed' THEN
		RETURN (SELECT printed FROM scbf_paper_table2() WHERE b = param(p, 'b'));
	WHEN 'paper_table2_formula_without_e' THEN
		RETURN (SELECT formula_without_e FROM scbf_paper_table2() WHERE b = param(p, 'b'));
	WHEN 'stirling_bound_correct' THEN
		RETURN (SELECT correct_bound FROM scbf_paper_table2() WHERE b = param(p, 'b'));
	WHEN 'paper_table4_printed' THEN
		RETURN (SELECT printed FROM scbf_paper_table4() WHERE b = param(p, 'b'));
	WHEN 'paper_table4_naive_double' THEN
		RETURN (SELECT naive_double FROM scbf_paper_table4() WHERE b = param(p, 'b'));
	WHEN 'p_counter_overflow', 'p_counter_saturate' THEN
		IF model = 'poisson' THEN
			RETURN scbf_counter_tail_poisson(param(p, 'lambda'), t);
		END IF;
		RETURN scbf_counter_tail_binomial(param(p, 'N')::bigint, param(p, 'p'), t);
	WHEN 'p_any_counter_overflow_lower', 'p_any_counter_saturate_lower',
		 'p_any_counter_overflow_upper', 'p_any_counter_saturate_upper' THEN
		IF model = 'poisson' THEN
			SELECT * INTO r FROM scbf_any_counter_poisson(param(p, 'lambda'), t, param(p, 'M')::bigint);
		ELSE
			SELECT * INTO r FROM scbf_any_counter_binomial(param(p, 'N')::bigint, param(p, 'p'), t,
														   param(p, 'M')::bigint);
		END IF;
		RETURN CASE WHEN name LIKE '%lower' THEN r.lower ELSE r.upper END;
	WHEN 'p_max_counter_ge_t' THEN
		RETURN (SELECT lower FROM scbf_any_counter_binomial(param(p, 'n')::bigint,
															1 / param(p, 'm'), t,
															param(p, 'M')::bigint));
	WHEN 'expected_counters_ge_t' THEN
		RETURN scbf_counter_tail_binomial(param(p, 'n')::bigint, 1 / param(p, 'm'), t)
			* param(p, 'M')::numeric;
	ELSE
		RETURN NULL;
	END CASE;
END $$;

-- agreement to 6 significant digits; the paper's printed literals to the
-- digits it printed (they match the formulas, which shows where its errors
-- came from)
CREATE TABLE checked AS
SELECT name, params, value, computed(name, params) AS got,
	CASE WHEN name LIKE 'paper_%_printed' THEN
		0.5 * 10 ^ (floor(log(abs(value::numeric))) - (length(regexp_replace(split_part(value, 'e', 1), '^[0.]*|\.', '', 'g')) - 1))
		/ abs(value::numeric)
	ELSE 5e-6 END AS tolerance
FROM ref;
ALTER TABLE checked ADD COLUMN ok bool;
UPDATE checked SET ok = got IS NOT NULL AND
	(value::numeric = 0 AND got = 0 OR
	 value::numeric <> 0 AND abs(got / value::numeric - 1) <= tolerance);

-- every name of the file has a function: nothing is left unchecked
SELECT count(*) AS checked, count(*) FILTER (WHERE NOT ok) AS failed,
	coalesce(string_agg(name || ' (' || params || '): ' || value || ' <> ' || coalesce(got::text, 'NULL'),
						E'\n' ORDER BY name, params) FILTER (WHERE NOT ok), '') AS failures
FROM checked;
SELECT count(DISTINCT name) AS names, count(DISTINCT name) FILTER (WHERE got IS NULL) AS names_without_function
FROM checked;

-- the paper's tables; Table 1's k, m and n exactly as printed
SELECT fpr, k, m, n,
	concat_ws('/', k, m, n) = ANY ('{10/36864/25639, 14/26331/19229, 17/21684/15383, 20/18432/12819}') AS as_printed,
	round(n_real::numeric, 2) AS n_real, round(n_exact::numeric, 2) AS n_exact,
	to_char(fpr_at_n, '9.9999EEEE') AS fpr_at_n
FROM scbf_paper_table1();
SELECT b, j, printed, to_char(formula_without_e, '9.99999EEEE') AS formula_without_e,
	to_char(correct_bound, '9.99999EEEE') AS correct_bound,
	to_char(formula_without_e / correct_bound, '9.999EEEE') AS ratio,
	to_char(exp(-j::numeric), '9.999EEEE') AS e_minus_j
FROM scbf_paper_table2();
SELECT b, printed, to_char(naive_double, '9.99999EEEE') AS naive_double,
	to_char(exact, '9.99999EEEE') AS exact
FROM scbf_paper_table4();

-- four-bit counters at the optimum load, and overfilled
SELECT bits, to_char(scbf_counter_overflow(bits), '9.99999EEEE') AS wraps,
	to_char(scbf_counter_overflow(bits, sticky => true), '9.99999EEEE') AS saturates
FROM unnest(ARRAY[1, 2, 3, 4, 5, 8]) bits;
SELECT load, to_char(scbf_counter_overflow(4, load, true), '9.99999EEEE') AS saturates
FROM unnest(ARRAY[1, 2, 3, 4, 6, 8]) load;

-- bounds on "some counter of the filter reaches t" are a one-row table
SELECT to_char(lower, '9.99999EEEE') AS lower, to_char(upper, '9.99999EEEE') AS upper
FROM scbf_any_counter_poisson(ln(2), 16, 368640);
SELECT count(*) FROM scbf_any_counter_binomial(25552, 1.0 / 36864, 256, 368640);
SELECT to_char(upper, '9.99999EEEE') AS upper_b8
FROM scbf_any_counter_binomial(25552, 1.0 / 36864, 256, 368640);

-- bad arguments
\set VERBOSITY terse
SELECT scbf_optimal_k(0);
SELECT scbf_optimal_k(1.5);
SELECT scbf_capacity(1000, 0.01, 'bogus');
SELECT scbf_counter_overflow(0);
SELECT scbf_counter_tail_binomial(10, 2, 3);
SELECT scbf_chain_fpr(0.01, -1);
SELECT scbf_slice_size(0, 0.01);
SELECT scbf_page_capacity(17, 8152, 0.01);
SELECT scbf_counter_max(0);
SELECT scbf_expected_fill(0, 10);
SELECT scbf_fpr(100, 0, 10);
SELECT scbf_counter_tail_poisson(-1, 3);
SELECT * FROM scbf_any_counter_binomial(100, 0, 3, 1000);
SELECT scbf_counter_overflow(4, 'infinity');

-- a count beyond bigint is an error, not a wrapped or saturated value:
-- 5e17 keys at 1e-4 take 9.59e18 counters (2^63 is 9.22e18), 4e17 fit
SELECT scbf_counters_required(500000000000000000, 0.0001);
SELECT scbf_counters_required(9223372036854775807, 1e-300);
SELECT scbf_counters_required(400000000000000000, 0.0001) BETWEEN 7.6e18 AND 7.7e18 AS fits;
SELECT scbf_page_capacity(2, 1000, 0.9999999999999999);
SELECT scbf_page_capacity(1, 1073741824, 0.9999999999999999);
SELECT scbf_page_capacity(16, 1073741824, 0.999999) BETWEEN 2.5e14 AND 2.6e14 AS fits;
-- float8 capacities beyond 2^64 (1.8e19) are computed, not saturated
SELECT scbf_capacity(9223372036854775807, 0.9999999999999999) BETWEEN 3.9e34 AND 4.1e34 AS paper,
	scbf_capacity(9223372036854775807, 0.9999999999999999) =
		floor(scbf_capacity(9223372036854775807, 0.9999999999999999, 'paper_real')) AS paper_is_floor,
	scbf_capacity(9223372036854775807, 0.9999999999999999, 'exact') BETWEEN 3e20 AND 4e20 AS exact;
-- the smallest rates (subnormal, where 1/P is infinite) need at most 1074
-- slices
SELECT scbf_optimal_k('5e-324'), scbf_optimal_k_real('5e-324'),
	scbf_optimal_k('1e-310'), scbf_slice_size(1074000, '5e-324');
-- a probability below the smallest nonzero numeric (1e-16383) is an
-- underflow; one above it keeps its digits
SELECT scbf_counter_tail_poisson(1e-300, 100000);
SELECT * FROM scbf_any_counter_poisson(1e-10, 2000, 1000);
SELECT to_char(scbf_counter_tail_poisson(1e-10, 1000), '9.99999EEEE') AS tail;
\set VERBOSITY default

DROP TABLE checked;
DROP FUNCTION computed(text, text);
DROP FUNCTION param(text, text);
DROP TABLE ref;
DROP TABLE ref_lines;
