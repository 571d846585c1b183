/*-------------------------------------------------------------------------
 *
 * scbfmath.c
 *	  The mathematics of split counting Bloom filters, with the paper's
 *	  errors corrected.
 *
 * NOTES
 *	  Server-free: C99 and <math.h>.  Every formula here is checked by
 *	  test/unit/test_math.c against test/data/reference_values.tsv (exact
 *	  values computed in 60-digit arithmetic by research/sim/analysis.py) to
 *	  6 significant digits, and the paper's Table 1 is reproduced exactly.
 *
 *	  Tail probabilities are summed upward from the threshold in log space
 *	  (never as 1 - CDF, which cancels: that is where the paper's Table 4 got
 *	  2.22e-16 = 2^-52 for a true 7.07e-17), and returned as log10, since
 *	  some are far below the smallest double (8-bit counters: 1e-548).
 *
 * Portions Copyright (c) 2026, scbf developers
 *
 * IDENTIFICATION
 *	  src/scbfmath.c
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>

#include "scbfmath.h"

#define SCBF_LN2		0.693147180559945309417232121458176568
#define SCBF_LN10		2.302585092994045684017991454684364208
#define SCBF_PI			3.141592653589793238462643383279502884
#define SCBF_E			2.718281828459045235360287471352662498

/* Relative size below which a term no longer changes a tail sum */
#define SCBF_TAIL_EPSILON	1e-18

/*
 * log2(1/P), the real-valued optimal number of slices.
 */
double
scbf_math_optimal_k_real(double P)
{
	return log2(1.0 / P);
}

/*
 * ceil(log2(1/P)); the epsilon keeps exact powers of two from rounding up.
 */
int
scbf_math_optimal_k(double P)
{
	double		k = ceil(log2(1.0 / P) - 1e-12);

	return (k < 1) ? 1 : (int) k;
}

/*
 * floor(M / k): counters per slice.
 */
uint64_t
scbf_math_slice_size(uint64_t M, double P)
{
	return M / (uint64_t) scbf_math_optimal_k(P);
}

/*
 * M (ln 2)^2 / |ln P|.
 */
double
scbf_math_capacity_paper_real(uint64_t M, double P)
{
	return (double) M * SCBF_LN2 * SCBF_LN2 / fabs(log(P));
}

/*
 * floor(M (ln 2)^2 / |ln P|).
 */
uint64_t
scbf_math_capacity_paper(uint64_t M, double P)
{
	return (uint64_t) floor(scbf_math_capacity_paper_real(M, P));
}

/*
 * floor(m ln 2) with m = floor(M / k).
 */
uint64_t
scbf_math_capacity_half_fill(uint64_t M, double P)
{
	return (uint64_t) floor((double) scbf_math_slice_size(M, P) * SCBF_LN2);
}

/*
 * floor(ln(1 - P^(1/k)) / ln(1 - 1/m)).
 */
uint64_t
scbf_math_capacity_exact_intk(uint64_t M, double P)
{
	int			k = scbf_math_optimal_k(P);
	double		m = (double) (M / (uint64_t) k);

	return (uint64_t) floor(log1p(-pow(P, 1.0 / k)) / log1p(-1.0 / m));
}

/*
 * |ln P| / (ln 2)^2.
 */
double
scbf_math_counters_per_element(double P)
{
	return fabs(log(P)) / (SCBF_LN2 * SCBF_LN2);
}

/*
 * ceil(n |ln P| / (ln 2)^2).
 */
uint64_t
scbf_math_counters_required(uint64_t n, double P)
{
	return (uint64_t) ceil((double) n * scbf_math_counters_per_element(P));
}

/*
 * Keys a page of usable_bytes holds with b-bit counters: the Table 1
 * capacity of M = usable_bytes * 8 / bits counters.
 */
uint64_t
scbf_math_page_capacity(int bits, uint64_t usable_bytes, double P)
{
	return scbf_math_capacity_paper(usable_bytes * 8 / (uint64_t) bits, P);
}

/*
 * Fill of a slice of m counters after n keys.
 */
double
scbf_math_expected_fill(uint64_t m, uint64_t n, int exact)
{
	if (exact)
		return -expm1((double) n * log1p(-1.0 / (double) m));
	return -expm1(-(double) n / (double) m);
}

/*
 * fill^k.
 */
double
scbf_math_fpr(uint64_t m, int k, uint64_t n, int exact)
{
	return pow(scbf_math_expected_fill(m, n, exact), k);
}

/*
 * FPR of the Table 1 filter at the paper's capacity.
 */
double
scbf_math_fpr_at_paper_capacity(uint64_t M, double P)
{
	return scbf_math_fpr(scbf_math_slice_size(M, P), scbf_math_optimal_k(P),
						 scbf_math_capacity_paper(M, P), 1);
}

/*
 * 2^-k.
 */
double
scbf_math_fpr_at_half_fill(int k)
{
	return ldexp(1.0, -k);
}

/*
 * 1 - (1 - P)^d.
 */
double
scbf_math_chain_fpr(double P, int d)
{
	return -expm1((double) d * log1p(-P));
}

/*
 * n / m^2.
 */
double
scbf_math_double_hash_floor(uint64_t m, uint64_t n)
{
	return (double) n / ((double) m * (double) m);
}

/*
 * 2^b - 1.
 */
uint64_t
scbf_math_counter_max(int b)
{
	return (b >= 64) ? UINT64_MAX : (((uint64_t) 1) << b) - 1;
}

/*
 * log10 P(Poisson(lambda) >= t): the pmf at t in log space, times the sum
 * of the ratios of the following terms to it.
 */
double
scbf_math_log10_poisson_tail(double lambda, int t)
{
	double		lterm;
	double		sum = 0;
	double		r = 1;
	int			j;

	if (t <= 0)
		return 0;
	lterm = -lambda + t * log(lambda) - lgamma(t + 1.0);
	for (j = t; r >= SCBF_TAIL_EPSILON * sum; j++)
	{
		sum += r;
		r *= lambda / (j + 1.0);
	}
	return (lterm + log(sum)) / SCBF_LN10;
}

/*
 * log10 P(Binomial(N, p) >= t).  ln C(N, t) is summed term by term, as
 * analysis.py does, which is exact enough where lgamma(N) would cancel.
 */
double
scbf_math_log10_binomial_tail(uint64_t N, double p, int t)
{
	double		lc = 0;
	double		lterm;
	double		sum = 0;
	double		r = 1;
	double		ratio = p / (1.0 - p);
	uint64_t	j;
	int			i;

	if (t <= 0)
		return 0;
	if ((uint64_t) t > N)
		return -HUGE_VAL;
	for (i = 0; i < t; i++)
		lc += log((double) (N - i) / (double) (i + 1));
	lterm = lc + t * log(p) + (double) (N - t) * log1p(-p);
	for (j = t; j <= N && r >= SCBF_TAIL_EPSILON * sum; j++)
	{
		sum += r;
		r *= (double) (N - j) / (double) (j + 1) * ratio;
	}
	return (lterm + log(sum)) / SCBF_LN10;
}

/*
 * log10 of 1 - (1 - p)^M, p = 10^log10_p.  When M p is far below one the
 * result is M p to double precision (and p may be below the double range).
 */
double
scbf_math_log10_any_lower(double log10_p, uint64_t M)
{
	double		x;

	if (log10_p >= 0)
		return 0;
	if (log10_p + log10((double) M) < -20)
		return log10_p + log10((double) M);
	x = (double) M * log1p(-pow(10.0, log10_p));
	return log10(-expm1(x));
}

/*
 * log10 of min(1, M p).
 */
double
scbf_math_log10_any_upper(double log10_p, uint64_t M)
{
	double		v = log10_p + log10((double) M);

	return (v > 0) ? 0 : v;
}

/*
 * log10 of (ln2 / j)^j / sqrt(2 pi j).
 */
double
scbf_math_log10_paper_table2(int j)
{
	return j * log10(SCBF_LN2 / j) - 0.5 * log10(2 * SCBF_PI * j);
}

/*
 * log10 of (e ln2 / j)^j / sqrt(2 pi j).
 */
double
scbf_math_log10_stirling_bound(int j)
{
	return j * log10(SCBF_E * SCBF_LN2 / j) - 0.5 * log10(2 * SCBF_PI * j);
}

/*
 * The paper's Table 4, evaluated the naive way in double precision, with
 * the same operations and order as research/sim/analysis.py.
 */
double
scbf_math_paper_table4_naive(int b)
{
	int			c = (1 << b) - 1;
	double		s = 0;
	double		fact = 1;
	int			j;

	for (j = 0; j <= c; j++)
	{
		if (j > 0)
			fact *= j;
		s += exp(-SCBF_LN2) * pow(SCBF_LN2, j) / fact;
	}
	return 1.0 - s;
}

/*
 * One row of the paper's Table 1.
 */
void
scbf_math_table1(uint64_t M, double P, scbf_math_table1_row *row)
{
	row->P = P;
	row->k_real = scbf_math_optimal_k_real(P);
	row->k = scbf_math_optimal_k(P);
	row->m = scbf_math_slice_size(M, P);
	row->n_real = scbf_math_capacity_paper_real(M, P);
	row->n = scbf_math_capacity_paper(M, P);
	row->n_half_fill = (double) row->m * SCBF_LN2;
	row->n_exact = log1p(-pow(P, 1.0 / row->k)) / log1p(-1.0 / (double) row->m);
	row->fpr_at_n = scbf_math_fpr(row->m, row->k, row->n, 1);
}

/*
 * x = mantissa * 10^exponent, 1 <= mantissa < 10, from log10(x).
 */
void
scbf_math_log10_split(double log10_x, double *mantissa, int *exponent)
{
	double		e = floor(log10_x);
	double		mant = pow(10.0, log10_x - e);

	if (mant >= 10.0)
	{
		mant /= 10.0;
		e += 1;
	}
	else if (mant < 1.0)
	{
		mant *= 10.0;
		e -= 1;
	}
	*mantissa = mant;
	*exponent = (int) e;
}
