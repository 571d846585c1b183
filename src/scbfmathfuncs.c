/*-------------------------------------------------------------------------
 *
 * scbfmathfuncs.c
 *	  SQL functions for the mathematics of split counting Bloom filters.
 *
 * NOTES
 *	  Thin wrappers of scbfmath.c (see its header for the formulas and
 *	  research/math.md for the corrections to the paper).  Probabilities
 *	  that may fall below the range of a double are returned as numeric,
 *	  built from the base-10 logarithm scbfmath.c computes, to 10
 *	  significant digits; the regression tests check them against the
 *	  reference values to 6.
 *
 *	  A result never wraps: scbfmath.c saturates a count at UINT64_MAX,
 *	  and a count beyond the range of bigint is an error here
 *	  (numeric_value_out_of_range, "bigint out of range" as int8's own
 *	  arithmetic reports it).  Results of type float8 are floored in double
 *	  precision, not through those counts, so they are never saturated.
 *
 * Portions Copyright (c) 2026, scbf developers
 *
 * IDENTIFICATION
 *	  src/scbfmathfuncs.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/numeric.h"
#include "utils/tuplestore.h"

#include "scbfmath.h"

PG_FUNCTION_INFO_V1(scbf_optimal_k);
PG_FUNCTION_INFO_V1(scbf_optimal_k_real);
PG_FUNCTION_INFO_V1(scbf_slice_size);
PG_FUNCTION_INFO_V1(scbf_capacity);
PG_FUNCTION_INFO_V1(scbf_counters_per_element);
PG_FUNCTION_INFO_V1(scbf_counters_required);
PG_FUNCTION_INFO_V1(scbf_page_capacity);
PG_FUNCTION_INFO_V1(scbf_expected_fill);
PG_FUNCTION_INFO_V1(scbf_fpr);
PG_FUNCTION_INFO_V1(scbf_fpr_at_half_fill);
PG_FUNCTION_INFO_V1(scbf_chain_fpr);
PG_FUNCTION_INFO_V1(scbf_double_hash_floor);
PG_FUNCTION_INFO_V1(scbf_counter_max);
PG_FUNCTION_INFO_V1(scbf_counter_tail_poisson);
PG_FUNCTION_INFO_V1(scbf_counter_tail_binomial);
PG_FUNCTION_INFO_V1(scbf_any_counter_poisson);
PG_FUNCTION_INFO_V1(scbf_any_counter_binomial);
PG_FUNCTION_INFO_V1(scbf_counter_overflow);
PG_FUNCTION_INFO_V1(scbf_paper_table1);
PG_FUNCTION_INFO_V1(scbf_paper_table2);
PG_FUNCTION_INFO_V1(scbf_paper_table4);

#define SCBF_LN2	0.693147180559945309417232121458176568

/*
 * A false-positive rate argument: strictly between 0 and 1.
 */
static double
ScbfArgFpr(FunctionCallInfo fcinfo, int argno)
{
	double		p = PG_GETARG_FLOAT8(argno);

	if (!(p > 0.0 && p < 1.0))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("false-positive rate must be between 0 and 1 exclusive, not %g", p)));
	return p;
}

/*
 * A positive count argument (bigint).
 */
static uint64
ScbfArgCount(FunctionCallInfo fcinfo, int argno, const char *what, int64 min)
{
	int64		v = PG_GETARG_INT64(argno);

	if (v < min)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("%s must be at least " INT64_FORMAT ", not " INT64_FORMAT,
						what, min, v)));
	return (uint64) v;
}

/*
 * An int argument within [min, max].
 */
static int
ScbfArgInt(FunctionCallInfo fcinfo, int argno, const char *what, int min,
		   int max)
{
	int32		v = PG_GETARG_INT32(argno);

	if (v < min || v > max)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("%s must be between %d and %d, not %d", what, min, max, v)));
	return v;
}

/*
 * A probability argument in [0, 1].
 */
static double
ScbfArgProbability(FunctionCallInfo fcinfo, int argno)
{
	double		p = PG_GETARG_FLOAT8(argno);

	if (!(p >= 0.0 && p <= 1.0))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("probability must be between 0 and 1, not %g", p)));
	return p;
}

/*
 * The most digits a numeric holds after the decimal point (the limit the
 * documentation of the numeric type gives; NUMERIC_DSCALE_MAX in
 * numeric.c).
 */
#define SCBF_NUMERIC_MAX_SCALE	16383

/*
 * numeric 10^log10_x, to 10 significant digits (0 for -infinity).
 *
 * Near numeric's smallest nonzero value, 10^-SCBF_NUMERIC_MAX_SCALE, the
 * digits past its last decimal place are dropped; a value below it is an
 * error, as a float8 underflow is.
 */
static Datum
ScbfNumericFromLog10(double log10_x)
{
	double		mantissa;
	int			exponent;
	int			digits = 10;
	char		buf[64];

	if (isinf(log10_x) && log10_x < 0)
		return DirectFunctionCall3(numeric_in, CStringGetDatum("0"),
								   ObjectIdGetDatum(InvalidOid),
								   Int32GetDatum(-1));
	scbf_math_log10_split(log10_x, &mantissa, &exponent);
	if (exponent < -SCBF_NUMERIC_MAX_SCALE)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("value out of range: underflow"),
				 errdetail("The result is about %.3fe%d, below the smallest nonzero numeric value, 1e-%d.",
						   mantissa, exponent, SCBF_NUMERIC_MAX_SCALE)));
	/* the last digit is at decimal place digits - 1 - exponent */
	if (digits - 1 - exponent > SCBF_NUMERIC_MAX_SCALE)
		digits = SCBF_NUMERIC_MAX_SCALE + exponent + 1;
	snprintf(buf, sizeof(buf), "%.*fe%d", digits - 1, mantissa, exponent);
	return DirectFunctionCall3(numeric_in, CStringGetDatum(buf),
							   ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
}

/* scbf_optimal_k(fpr float8) -> int: ceil(log2(1/fpr)) */
Datum
scbf_optimal_k(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT32(scbf_math_optimal_k(ScbfArgFpr(fcinfo, 0)));
}

/* scbf_optimal_k_real(fpr float8) -> float8: log2(1/fpr) */
Datum
scbf_optimal_k_real(PG_FUNCTION_ARGS)
{
	PG_RETURN_FLOAT8(scbf_math_optimal_k_real(ScbfArgFpr(fcinfo, 0)));
}

/* scbf_slice_size(counters bigint, fpr float8) -> bigint: floor(M / k) */
Datum
scbf_slice_size(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT64((int64) scbf_math_slice_size(ScbfArgCount(fcinfo, 0, "counters", 1),
												 ScbfArgFpr(fcinfo, 1)));
}

/*
 * scbf_capacity(counters bigint, fpr float8, rule text DEFAULT 'paper')
 * -> float8: keys a filter of M counters holds at rate P, by rule 'paper'
 * (floor(M ln^2 2 / |ln P|), Table 1), 'paper_real' (unfloored),
 * 'half_fill' (floor(m ln 2)) or 'exact' (largest n with f^k <= P).
 *
 * The floors are taken in double precision, not through the uint64 counts
 * of scbfmath.c: for P close to 1 a capacity exceeds 2^64 (up to about
 * 4e34), which float8 holds and a saturated count would not.
 */
Datum
scbf_capacity(PG_FUNCTION_ARGS)
{
	uint64		M = ScbfArgCount(fcinfo, 0, "counters", 1);
	double		P = ScbfArgFpr(fcinfo, 1);
	char	   *rule = text_to_cstring(PG_GETARG_TEXT_PP(2));

	if (strcmp(rule, "paper") == 0)
		PG_RETURN_FLOAT8(floor(scbf_math_capacity_paper_real(M, P)));
	if (strcmp(rule, "paper_real") == 0)
		PG_RETURN_FLOAT8(scbf_math_capacity_paper_real(M, P));
	if (strcmp(rule, "half_fill") == 0)
		PG_RETURN_FLOAT8((double) scbf_math_capacity_half_fill(M, P));
	if (strcmp(rule, "exact") == 0)
		PG_RETURN_FLOAT8(floor(scbf_math_capacity_exact_intk_real(M, P)));
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unknown capacity rule \"%s\"", rule),
			 errhint("Valid rules are \"paper\", \"paper_real\", \"half_fill\" and \"exact\".")));
	PG_RETURN_NULL();			/* keep compiler quiet */
}

/* scbf_counters_per_element(fpr float8) -> float8: |ln P| / ln^2 2 */
Datum
scbf_counters_per_element(PG_FUNCTION_ARGS)
{
	PG_RETURN_FLOAT8(scbf_math_counters_per_element(ScbfArgFpr(fcinfo, 0)));
}

/*
 * scbf_counters_required(keys bigint, fpr float8) -> bigint:
 * ceil(n |ln P| / ln^2 2); an error beyond the range of bigint.
 */
Datum
scbf_counters_required(PG_FUNCTION_ARGS)
{
	uint64		n = ScbfArgCount(fcinfo, 0, "keys", 0);
	double		P = ScbfArgFpr(fcinfo, 1);
	uint64		counters = scbf_math_counters_required(n, P);

	if (counters > (uint64) PG_INT64_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("bigint out of range"),
				 errdetail("Holding " UINT64_FORMAT " keys at false-positive rate %s takes %.4g counters.",
						   n, float8out_internal(P),
						   (double) n * scbf_math_counters_per_element(P))));
	PG_RETURN_INT64((int64) counters);
}

/*
 * scbf_page_capacity(bits int, usable_bytes int, fpr float8) -> bigint:
 * keys a page of usable_bytes bytes of bits-bit counters holds; an error
 * beyond the range of bigint.
 */
Datum
scbf_page_capacity(PG_FUNCTION_ARGS)
{
	int			bits = ScbfArgInt(fcinfo, 0, "bits per counter", 1, 16);
	int			bytes = ScbfArgInt(fcinfo, 1, "usable bytes", 1, 1 << 30);
	double		P = ScbfArgFpr(fcinfo, 2);
	uint64		keys = scbf_math_page_capacity(bits, (uint64) bytes, P);

	if (keys > (uint64) PG_INT64_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("bigint out of range"),
				 errdetail("With %d-bit counters, %d usable bytes hold %.4g keys at false-positive rate %s.",
						   bits, bytes,
						   scbf_math_capacity_paper_real((uint64) bytes * 8 / (uint64) bits, P),
						   float8out_internal(P))));
	PG_RETURN_INT64((int64) keys);
}

/* scbf_expected_fill(m bigint, n bigint, exact bool DEFAULT true) -> float8 */
Datum
scbf_expected_fill(PG_FUNCTION_ARGS)
{
	PG_RETURN_FLOAT8(scbf_math_expected_fill(ScbfArgCount(fcinfo, 0, "slice size", 1),
											 ScbfArgCount(fcinfo, 1, "keys", 0),
											 PG_GETARG_BOOL(2)));
}

/* scbf_fpr(m bigint, k int, n bigint, exact bool DEFAULT true) -> float8 */
Datum
scbf_fpr(PG_FUNCTION_ARGS)
{
	PG_RETURN_FLOAT8(scbf_math_fpr(ScbfArgCount(fcinfo, 0, "slice size", 1),
								   ScbfArgInt(fcinfo, 1, "k", 1, 64),
								   ScbfArgCount(fcinfo, 2, "keys", 0),
								   PG_GETARG_BOOL(3)));
}

/* scbf_fpr_at_half_fill(k int) -> float8: 2^-k */
Datum
scbf_fpr_at_half_fill(PG_FUNCTION_ARGS)
{
	PG_RETURN_FLOAT8(scbf_math_fpr_at_half_fill(ScbfArgInt(fcinfo, 0, "k", 1, 1000)));
}

/* scbf_chain_fpr(fpr float8, filters int) -> float8: 1 - (1 - P)^d */
Datum
scbf_chain_fpr(PG_FUNCTION_ARGS)
{
	double		p = ScbfArgFpr(fcinfo, 0);

	PG_RETURN_FLOAT8(scbf_math_chain_fpr(p, ScbfArgInt(fcinfo, 1, "filters", 0, INT_MAX)));
}

/* scbf_double_hash_floor(m bigint, n bigint) -> float8: n / m^2 */
Datum
scbf_double_hash_floor(PG_FUNCTION_ARGS)
{
	PG_RETURN_FLOAT8(scbf_math_double_hash_floor(ScbfArgCount(fcinfo, 0, "slice size", 1),
												 ScbfArgCount(fcinfo, 1, "keys", 0)));
}

/* scbf_counter_max(bits int) -> bigint: 2^b - 1 */
Datum
scbf_counter_max(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT64((int64) scbf_math_counter_max(ScbfArgInt(fcinfo, 0, "bits per counter", 1, 16)));
}

/* scbf_counter_tail_poisson(lambda float8, t int) -> numeric: P(X >= t) */
Datum
scbf_counter_tail_poisson(PG_FUNCTION_ARGS)
{
	double		lambda = PG_GETARG_FLOAT8(0);

	if (!(lambda > 0.0) || isinf(lambda))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("mean load must be positive and finite, not %g", lambda)));
	PG_RETURN_DATUM(ScbfNumericFromLog10(scbf_math_log10_poisson_tail(lambda,
																	  ScbfArgInt(fcinfo, 1, "threshold", 0, 100000))));
}

/* scbf_counter_tail_binomial(trials bigint, p float8, t int) -> numeric */
Datum
scbf_counter_tail_binomial(PG_FUNCTION_ARGS)
{
	uint64		n = ScbfArgCount(fcinfo, 0, "trials", 1);
	double		p = ScbfArgProbability(fcinfo, 1);
	int			t = ScbfArgInt(fcinfo, 2, "threshold", 0, 100000);

	if (p == 0.0 || p == 1.0)
		PG_RETURN_DATUM(DirectFunctionCall3(numeric_in,
											CStringGetDatum((p == 1.0 && (uint64) t <= n) || t == 0 ? "1" : "0"),
											ObjectIdGetDatum(InvalidOid),
											Int32GetDatum(-1)));
	PG_RETURN_DATUM(ScbfNumericFromLog10(scbf_math_log10_binomial_tail(n, p, t)));
}

/*
 * The one result row (lower numeric, upper numeric) of the any-counter
 * bounds, returned as a set (the functions are declared RETURNS TABLE).
 */
static Datum
ScbfAnyCounterRow(FunctionCallInfo fcinfo, double log10_p, uint64 M)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Datum		values[2];
	bool		nulls[2] = {false, false};

	InitMaterializedSRF(fcinfo, 0);
	values[0] = ScbfNumericFromLog10(scbf_math_log10_any_lower(log10_p, M));
	values[1] = ScbfNumericFromLog10(scbf_math_log10_any_upper(log10_p, M));
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	return (Datum) 0;
}

/*
 * scbf_any_counter_poisson(lambda, t, counters): bounds on P(some of M
 * counters >= t): lower 1 - (1 - p)^M, upper min(1, M p).
 */
Datum
scbf_any_counter_poisson(PG_FUNCTION_ARGS)
{
	double		lambda = PG_GETARG_FLOAT8(0);

	if (!(lambda > 0.0) || isinf(lambda))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("mean load must be positive and finite, not %g", lambda)));
	PG_RETURN_DATUM(ScbfAnyCounterRow(fcinfo,
									  scbf_math_log10_poisson_tail(lambda,
																   ScbfArgInt(fcinfo, 1, "threshold", 0, 100000)),
									  ScbfArgCount(fcinfo, 2, "counters", 1)));
}

/* scbf_any_counter_binomial(trials, p, t, counters): as above, binomial */
Datum
scbf_any_counter_binomial(PG_FUNCTION_ARGS)
{
	uint64		n = ScbfArgCount(fcinfo, 0, "trials", 1);
	double		p = ScbfArgProbability(fcinfo, 1);
	int			t = ScbfArgInt(fcinfo, 2, "threshold", 0, 100000);

	if (p == 0.0 || p == 1.0)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("probability must be between 0 and 1 exclusive, not %g", p)));
	PG_RETURN_DATUM(ScbfAnyCounterRow(fcinfo,
									  scbf_math_log10_binomial_tail(n, p, t),
									  ScbfArgCount(fcinfo, 3, "counters", 1)));
}

/*
 * scbf_counter_overflow(bits int, load float8 DEFAULT 1, sticky bool DEFAULT
 * false) -> numeric: probability that a b-bit counter at mean load
 * load * ln 2 (load 1 is the optimum) wraps (count >= 2^b) or, when sticky,
 * saturates (count >= 2^b - 1), Poisson model.
 */
Datum
scbf_counter_overflow(PG_FUNCTION_ARGS)
{
	int			bits = ScbfArgInt(fcinfo, 0, "bits per counter", 1, 16);
	double		load = PG_GETARG_FLOAT8(1);
	bool		sticky = PG_GETARG_BOOL(2);

	if (!(load > 0.0) || isinf(load))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("load must be positive and finite, not %g", load)));
	PG_RETURN_DATUM(ScbfNumericFromLog10(scbf_math_log10_poisson_tail(load * SCBF_LN2,
																	  (1 << bits) - (sticky ? 1 : 0))));
}

/*
 * scbf_paper_table1(counters bigint DEFAULT 368640): the paper's Table 1,
 * for P = 1e-3 .. 1e-6, with the exact FPR at the paper's capacity.
 */
Datum
scbf_paper_table1(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	uint64		M = ScbfArgCount(fcinfo, 0, "counters", 1);
	static const double P[] = {1e-3, 1e-4, 1e-5, 1e-6};
	int			i;

	InitMaterializedSRF(fcinfo, 0);
	for (i = 0; i < lengthof(P); i++)
	{
		scbf_math_table1_row row;
		Datum		values[9];
		bool		nulls[9] = {0};

		scbf_math_table1(M, P[i], &row);
		values[0] = Float8GetDatum(row.P);
		values[1] = Float8GetDatum(row.k_real);
		values[2] = Int32GetDatum(row.k);
		values[3] = Int64GetDatum((int64) row.m);
		values[4] = Int64GetDatum((int64) row.n);
		values[5] = Float8GetDatum(row.n_real);
		values[6] = Float8GetDatum(row.n_half_fill);
		values[7] = Float8GetDatum(row.n_exact);
		values[8] = Float8GetDatum(row.fpr_at_n);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

/*
 * scbf_paper_table2(): what the paper's Table 2 printed for b = 1..5, the
 * formula it evaluated ((ln2/j)^j / sqrt(2 pi j)) and the bound it meant
 * ((e ln2/j)^j / sqrt(2 pi j)): the printed values lack a factor e^j.
 */
Datum
scbf_paper_table2(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	static const double printed[] = {0.03388, 1.80e-4, 4.48e-10, 1.54e-23, 3.89e-55};
	int			b;

	InitMaterializedSRF(fcinfo, 0);
	for (b = 1; b <= 5; b++)
	{
		Datum		values[5];
		bool		nulls[5] = {0};
		int			j = 1 << b;

		values[0] = Int32GetDatum(b);
		values[1] = Int32GetDatum(j);
		values[2] = Float8GetDatum(printed[b - 1]);
		values[3] = ScbfNumericFromLog10(scbf_math_log10_paper_table2(j));
		values[4] = ScbfNumericFromLog10(scbf_math_log10_stirling_bound(j));
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

/*
 * scbf_paper_table4(): the paper's Table 4 for b = 1..4, the same formula
 * 1 - sum_{i < 2^b} Poisson(i; ln 2) evaluated naively in double precision
 * (b = 4 gives 2^-52: cancellation), and its exact value.
 */
Datum
scbf_paper_table4(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	static const double printed[] = {0.1534, 5.56e-3, 7.15e-7, 2.22e-16};
	int			b;

	InitMaterializedSRF(fcinfo, 0);
	for (b = 1; b <= 4; b++)
	{
		Datum		values[4];
		bool		nulls[4] = {0};

		values[0] = Int32GetDatum(b);
		values[1] = Float8GetDatum(printed[b - 1]);
		values[2] = Float8GetDatum(scbf_math_paper_table4_naive(b));
		values[3] = ScbfNumericFromLog10(scbf_math_log10_poisson_tail(SCBF_LN2, 1 << b));
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
