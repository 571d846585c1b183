/*-------------------------------------------------------------------------
 *
 * scbfmath.c
 *	  The mathematics of split counting Bloom filters, with the paper's
 *	  errors corrected.
 *
 * NOTES
 *	  Server-free: C99 headers and <math.h> only.  Every formula here is
 *	  checked by test/unit/test_math.c against test/data/reference_values.tsv
 *	  (exact values from research/sim/analysis.py, which works in 60-digit
 *	  decimal arithmetic) to 6 significant digits, and the paper's Table 1
 *	  is reproduced exactly.  Notation and derivations: research/math.md.
 *
 *	  Sizing (math.md section 1).  For M counters and a target rate P:
 *
 *	  ----------
 *		k = ceil(log2(1/P))				slices, the paper's rounding
 *		m = floor(M / k)				counters per slice
 *		n = floor(M (ln 2)^2 / |ln P|)	the paper's capacity (unrounded k)
 *		f = 1 - (1 - 1/m)^n				fill of a slice, FPR = f^k
 *	  ----------
 *
 *	  Counter tails (sections 3 and 4).  A counter's count is
 *	  Binomial(n, 1/m), close to Poisson(n/m); at the optimum the mean is
 *	  ln 2.  P(count >= t) is computed from the probability mass function
 *	  in log space and a sum of term ratios, never as 1 - CDF when the tail
 *	  is small: that cancellation is where the paper's Table 4 got
 *	  2.22e-16 (= 2^-52) for a true 7.07e-17.  When t is above the mean the
 *	  terms from t upward fall and are summed until the rest is negligible;
 *	  when t is at or below the mean the tail is at least about 1/2, and it
 *	  is computed as 1 minus the lower tail, whose terms fall from t - 1
 *	  downward.  Either way the loop is short (a few standard deviations of
 *	  terms at most) and cannot overflow, whatever the arguments.  The mass
 *	  functions use Loader's saddle-point form (C. Loader, "Fast and
 *	  accurate computation of binomial probabilities", 2000), accurate to a
 *	  few units in the last place even for n near 2^63, where
 *	  lgamma(n + 1) - lgamma(t + 1) - lgamma(n - t + 1) would cancel.
 *	  Tails are returned as base-10 logarithms, since some are far below
 *	  the smallest double (8-bit counters: 1e-548).
 *
 * Portions Copyright (c) 2026, scbf developers
 *
 * IDENTIFICATION
 *	  src/scbfmath.c
 *
 *-------------------------------------------------------------------------
 */
#include <limits.h>
#include <math.h>

#include "scbfmath.h"

#define SCBF_LN2			0.693147180559945309417232121458176568
#define SCBF_LN10			2.302585092994045684017991454684364208
#define SCBF_PI				3.141592653589793238462643383279502884
#define SCBF_E				2.718281828459045235360287471352662498
#define SCBF_LN_2PI			1.837877066409345483560659472811235279
#define SCBF_LN_SQRT_2PI	0.918938533204672741780329736405617640

/*
 * A tail sum stops when what is left of it is below this fraction of the
 * sum: far below the double's precision.
 */
#define SCBF_TAIL_EPSILON	1e-17

/*
 * DoubleToCount
 *		Convert a non-negative count held in a double to uint64_t,
 *		truncating; negative values and NaN give 0 and values at or above
 *		2^64 give UINT64_MAX (a plain cast would be undefined).
 */
static uint64_t
DoubleToCount(double x)
{
	if (!(x > 0.0))
		return 0;
	if (x >= 18446744073709551616.0)
		return UINT64_MAX;
	return (uint64_t) x;
}

/*
 * StirlingError
 *		ln(n!) - ln(sqrt(2 pi n) (n/e)^n), the error of Stirling's
 *		formula, for an integer n >= 0 held in a double.
 *
 * Small n directly from lgamma (the terms are small, so nothing cancels
 * badly); larger n from the asymptotic series
 * 1/(12n) - 1/(360n^3) + 1/(1260n^5) - ..., to as many terms as double
 * precision needs (Loader's thresholds).  0 for n = 0 by convention; the
 * callers never need it.
 */
static double
StirlingError(double n)
{
	const double S0 = 1.0 / 12.0;
	const double S1 = 1.0 / 360.0;
	const double S2 = 1.0 / 1260.0;
	const double S3 = 1.0 / 1680.0;
	const double S4 = 1.0 / 1188.0;
	double		nn;

	if (n <= 0.0)
		return 0.0;
	if (n <= 15.0)
		return lgamma(n + 1.0) - (n + 0.5) * log(n) + n - SCBF_LN_SQRT_2PI;
	nn = n * n;
	if (n > 500.0)
		return (S0 - S1 / nn) / n;
	if (n > 80.0)
		return (S0 - (S1 - S2 / nn) / nn) / n;
	if (n > 35.0)
		return (S0 - (S1 - (S2 - S3 / nn) / nn) / nn) / n;
	return (S0 - (S1 - (S2 - (S3 - S4 / nn) / nn) / nn) / nn) / n;
}

/*
 * Deviance
 *		x ln(x / np) + np - x, for x >= 0 and np > 0, without the
 *		cancellation of evaluating it as written when x is close to np.
 *
 * Near np it is a fast series in v = (x - np) / (x + np) (Loader's bd0):
 * (x - np) v + 2 x (v^3/3 + v^5/5 + ...).
 */
static double
Deviance(double x, double np)
{
	if (fabs(x - np) < 0.1 * (x + np))
	{
		double		v = (x - np) / (x + np);
		double		s = (x - np) * v;
		double		ej = 2.0 * x * v;
		double		v2 = v * v;
		int			j;

		for (j = 1; j < 1000; j++)
		{
			double		s1;

			ej *= v2;
			s1 = s + ej / (2 * j + 1);
			if (s1 == s)
				return s1;
			s = s1;
		}
		return s;
	}
	return x * log(x / np) + np - x;
}

/*
 * LogPoissonPmf
 *		ln P(X = x) for X ~ Poisson(lambda), x >= 0 an integer in a double,
 *		lambda > 0 and finite.
 */
static double
LogPoissonPmf(double x, double lambda)
{
	if (x == 0.0)
		return -lambda;
	return -StirlingError(x) - Deviance(x, lambda) -
		0.5 * (SCBF_LN_2PI + log(x));
}

/*
 * LogBinomialPmf
 *		ln P(X = x) for X ~ Binomial(N, p), 0 <= x <= N integers held in
 *		doubles, 0 < p < 1.
 */
static double
LogBinomialPmf(double x, double N, double p)
{
	double		q = 1.0 - p;
	double		lc;

	if (x == 0.0)
		return N * log1p(-p);
	if (x == N)
		return N * log(p);
	lc = StirlingError(N) - StirlingError(x) - StirlingError(N - x) -
		Deviance(x, N * p) - Deviance(N - x, N * q);
	return lc - 0.5 * (SCBF_LN_2PI + log(x) + log1p(-x / N));
}

/*
 * scbf_math_optimal_k_real
 *		log2(1/P): the real-valued optimal number of slices for a target
 *		false-positive rate P.
 *
 * Evaluated as -log2(P), which is finite for every P > 0 (at most 1074),
 * while 1/P overflows to infinity for P below 2^-1024.
 */
double
scbf_math_optimal_k_real(double P)
{
	return -log2(P);
}

/*
 * scbf_math_optimal_k
 *		ceil(log2(1/P)), the paper's integer number of slices; at least 1.
 *
 * The epsilon keeps exact powers of two from rounding up through
 * floating-point error (P = 1/1024 gives 10), as analysis.py does; it also
 * makes P = 1e-3 give 10 and 1e-6 give 20.  P >= 1 (and NaN) gives 1; P <= 0
 * would need infinitely many slices and gives INT_MAX.  Any other P gives
 * at most 1074 (P = 2^-1074, the smallest double).
 */
int
scbf_math_optimal_k(double P)
{
	double		k;

	if (!(P < 1.0))
		return 1;
	if (!(P > 0.0))
		return INT_MAX;
	k = ceil(scbf_math_optimal_k_real(P) - 1e-12);
	return (k < 1.0) ? 1 : (int) k;
}

/*
 * scbf_math_slice_size
 *		floor(M / k) counters per slice, with k = scbf_math_optimal_k(P).
 */
uint64_t
scbf_math_slice_size(uint64_t M, double P)
{
	return M / (uint64_t) scbf_math_optimal_k(P);
}

/*
 * scbf_math_capacity_paper_real
 *		M (ln 2)^2 / |ln P| keys: the capacity of M counters at the
 *		unrounded optimum k = log2(1/P), where every slice is half full.
 *
 * Evaluated in analysis.py's order, (M (ln 2)^2) / |ln P|, so that the
 * floor below sees the same double.
 */
double
scbf_math_capacity_paper_real(uint64_t M, double P)
{
	return (double) M * (SCBF_LN2 * SCBF_LN2) / fabs(log(P));
}

/*
 * scbf_math_capacity_paper
 *		floor(M (ln 2)^2 / |ln P|) keys: the paper's Table 1 capacity;
 *		UINT64_MAX from 2^64 keys on (P very close to 1).
 */
uint64_t
scbf_math_capacity_paper(uint64_t M, double P)
{
	return DoubleToCount(floor(scbf_math_capacity_paper_real(M, P)));
}

/*
 * scbf_math_capacity_half_fill
 *		floor(m ln 2) keys, m = floor(M / k): the capacity that fills each
 *		slice of the rounded-k filter to one half (FPR 2^-k <= P).
 */
uint64_t
scbf_math_capacity_half_fill(uint64_t M, double P)
{
	return DoubleToCount(floor((double) scbf_math_slice_size(M, P) *
							   SCBF_LN2));
}

/*
 * scbf_math_capacity_exact_intk_real
 *		ln(1 - P^(1/k)) / ln(1 - 1/m) keys, k = optimal_k(P) and
 *		m = floor(M / k), before the floor: the real n at which the exact
 *		binomial fill reaches f^k = P.
 *
 * The logarithms are taken with log1p, which is exact where 1 - x is not.
 * 0 when m <= 1 (one key fills every slice).  Up to about 37 M for P just
 * below 1, beyond 2^64 for the largest M.
 */
double
scbf_math_capacity_exact_intk_real(uint64_t M, double P)
{
	int			k = scbf_math_optimal_k(P);
	uint64_t	m = M / (uint64_t) k;

	if (m <= 1)
		return 0.0;
	return log1p(-pow(P, 1.0 / k)) / log1p(-1.0 / (double) m);
}

/*
 * scbf_math_capacity_exact_intk
 *		floor(ln(1 - P^(1/k)) / ln(1 - 1/m)) keys, k = optimal_k(P) and
 *		m = floor(M / k): the most keys for which the exact binomial fill
 *		keeps f^k <= P.  0 when m <= 1; UINT64_MAX from 2^64 keys on.
 */
uint64_t
scbf_math_capacity_exact_intk(uint64_t M, double P)
{
	return DoubleToCount(floor(scbf_math_capacity_exact_intk_real(M, P)));
}

/*
 * scbf_math_counters_per_element
 *		|ln P| / (ln 2)^2 counters per key at the optimum (1.4427 log2(1/P)).
 */
double
scbf_math_counters_per_element(double P)
{
	return fabs(log(P)) / (SCBF_LN2 * SCBF_LN2);
}

/*
 * scbf_math_counters_required
 *		ceil(n |ln P| / (ln 2)^2) counters for n keys at rate P (evaluated
 *		in analysis.py's order, so the ceiling sees the same double);
 *		UINT64_MAX from 2^64 counters on.
 */
uint64_t
scbf_math_counters_required(uint64_t n, double P)
{
	return DoubleToCount(ceil((double) n * fabs(log(P)) /
							  (SCBF_LN2 * SCBF_LN2)));
}

/*
 * scbf_math_page_capacity
 *		Keys one page holds: scbf_math_capacity_paper() of the
 *		floor(usable_bytes * 8 / bits) counters of bits bits each that fit
 *		in usable_bytes (usable_bytes below 2^61).  0 when bits < 1;
 *		UINT64_MAX from 2^64 keys on.
 */
uint64_t
scbf_math_page_capacity(int bits, uint64_t usable_bytes, double P)
{
	if (bits < 1)
		return 0;
	return scbf_math_capacity_paper(usable_bytes * 8 / (uint64_t) bits, P);
}

/*
 * scbf_math_expected_fill
 *		Expected fill of a slice of m counters after n keys, the chance a
 *		given counter is non-zero: 1 - (1 - 1/m)^n when exact, else the
 *		approximation 1 - e^(-n/m).  In [0, 1]; m = 0 gives 1 (0 if n = 0).
 */
double
scbf_math_expected_fill(uint64_t m, uint64_t n, int exact)
{
	if (n == 0)
		return 0.0;
	if (m == 0)
		return 1.0;
	if (exact)
		return -expm1((double) n * log1p(-1.0 / (double) m));
	return -expm1(-(double) n / (double) m);
}

/*
 * scbf_math_fpr
 *		Expected false-positive rate of a split filter of k slices of m
 *		counters after n keys: fill^k (exact or approximate fill, as above).
 */
double
scbf_math_fpr(uint64_t m, int k, uint64_t n, int exact)
{
	return pow(scbf_math_expected_fill(m, n, exact), (double) k);
}

/*
 * scbf_math_fpr_at_paper_capacity
 *		Exact false-positive rate of the paper's Table 1 filter:
 *		scbf_math_fpr(floor(M/k), k, capacity_paper(M, P), exact).
 */
double
scbf_math_fpr_at_paper_capacity(uint64_t M, double P)
{
	return scbf_math_fpr(scbf_math_slice_size(M, P), scbf_math_optimal_k(P),
						 scbf_math_capacity_paper(M, P), 1);
}

/*
 * scbf_math_fpr_at_half_fill
 *		2^-k, the false-positive rate of k half-full slices.
 */
double
scbf_math_fpr_at_half_fill(int k)
{
	return ldexp(1.0, -k);
}

/*
 * scbf_math_chain_fpr
 *		1 - (1 - P)^d, the false-positive rate of a chain of d filters each
 *		at rate P (a probe is a false positive if any filter says "maybe").
 *		Evaluated as -expm1(d log1p(-P)), exact for small P; 0 for d <= 0.
 */
double
scbf_math_chain_fpr(double P, int d)
{
	if (d <= 0)
		return 0.0;
	return -expm1((double) d * log1p(-P));
}

/*
 * scbf_math_double_hash_floor
 *		n / m^2: the least false-positive rate that double hashing
 *		(h1 + i h2) mod m adds to a split filter of slices of m after n
 *		keys (a probe matching a stored key's h1 and h2 mod m collides in
 *		every slice).
 */
double
scbf_math_double_hash_floor(uint64_t m, uint64_t n)
{
	return (double) n / (double) m / (double) m;
}

/*
 * scbf_math_counter_max
 *		2^b - 1, the largest value of a b-bit counter; 0 for b <= 0 and
 *		UINT64_MAX for b >= 64.
 */
uint64_t
scbf_math_counter_max(int b)
{
	if (b <= 0)
		return 0;
	if (b >= 64)
		return UINT64_MAX;
	return (UINT64_C(1) << b) - 1;
}

/*
 * scbf_math_log10_poisson_tail
 *		log10 P(X >= t) for X ~ Poisson(lambda): the probability that a
 *		counter with mean load lambda reaches t.
 *
 * t <= 0 gives 0 (certainty); lambda <= 0 gives -HUGE_VAL (log10 of 0) for
 * t >= 1, an infinite lambda 0, and a NaN lambda NaN.  See the file header
 * for the method; the relative error is a few units in the 13th digit for
 * the loads of math.md (and stays near 1e-9 even at lambda = 1e9).
 */
double
scbf_math_log10_poisson_tail(double lambda, int t)
{
	double		sum = 0.0;
	double		r = 1.0;
	double		j;

	if (t <= 0)
		return 0.0;
	if (isnan(lambda))
		return lambda;
	if (!(lambda > 0.0))
		return -HUGE_VAL;
	if (isinf(lambda))
		return 0.0;

	if ((double) t > lambda)
	{
		/*
		 * Upper tail, summed upward from t.  Term j + 1 is term j times
		 * lambda / (j + 1) < 1, and the ratios keep falling, so the rest
		 * after a term r is below r / (1 - ratio).
		 */
		for (j = t;; j += 1.0)
		{
			double		ratio = lambda / (j + 1.0);

			sum += r;
			r *= ratio;
			if (r <= SCBF_TAIL_EPSILON * sum * (1.0 - ratio))
				break;
		}
		return (LogPoissonPmf((double) t, lambda) + log(sum)) / SCBF_LN10;
	}

	/*
	 * t <= lambda: the tail is at least about 1/2.  Sum the lower tail
	 * P(X <= t - 1) downward from t - 1, where term j - 1 is term j times
	 * j / lambda < 1, then take the complement.
	 */
	for (j = t - 1;; j -= 1.0)
	{
		double		ratio = j / lambda;

		sum += r;
		r *= ratio;
		if (j <= 0.0 || r <= SCBF_TAIL_EPSILON * sum * (1.0 - ratio))
			break;
	}
	return log1p(-exp(LogPoissonPmf((double) (t - 1), lambda) + log(sum))) /
		SCBF_LN10;
}

/*
 * scbf_math_log10_binomial_tail
 *		log10 P(X >= t) for X ~ Binomial(N, p): the probability that a
 *		counter hit by each of N keys with probability p reaches t.
 *
 * t <= 0 gives 0; t > N or p <= 0 gives -HUGE_VAL (log10 of 0); p >= 1
 * gives 0; a NaN p gives NaN.  Same method as the Poisson tail: upward from
 * t when t is above the mean N p, else the complement of the lower tail
 * summed downward from t - 1.
 */
double
scbf_math_log10_binomial_tail(uint64_t N, double p, int t)
{
	double		Nd = (double) N;
	double		odds;
	double		sum = 0.0;
	double		r = 1.0;
	double		j;

	if (t <= 0)
		return 0.0;
	if ((uint64_t) t > N)
		return -HUGE_VAL;
	if (isnan(p))
		return p;
	if (!(p > 0.0))
		return -HUGE_VAL;
	if (!(p < 1.0))
		return 0.0;
	odds = p / (1.0 - p);

	if ((double) t > Nd * p)
	{
		/*
		 * Upper tail: term j + 1 is term j times (N - j) / (j + 1) * odds,
		 * below 1 for every j >= t > N p, and falling.
		 */
		for (j = t; j < Nd; j += 1.0)
		{
			double		ratio = (Nd - j) / (j + 1.0) * odds;

			sum += r;
			r *= ratio;
			if (r <= SCBF_TAIL_EPSILON * sum * (1.0 - ratio))
				break;
		}
		if (j >= Nd)
			sum += r;			/* the last term, X = N */
		return (LogBinomialPmf((double) t, Nd, p) + log(sum)) / SCBF_LN10;
	}

	/*
	 * t <= N p, so t <= the median and the tail is at least 1/2.  Lower
	 * tail from t - 1 downward: term j - 1 is term j times
	 * j / (N - j + 1) / odds, below 1 for j <= t - 1 < N p.
	 */
	for (j = t - 1;; j -= 1.0)
	{
		double		ratio = j / (Nd - j + 1.0) / odds;

		sum += r;
		r *= ratio;
		if (j <= 0.0 || r <= SCBF_TAIL_EPSILON * sum * (1.0 - ratio))
			break;
	}
	return log1p(-exp(LogBinomialPmf((double) (t - 1), Nd, p) + log(sum))) /
		SCBF_LN10;
}

/*
 * scbf_math_log10_any_lower
 *		log10 of 1 - (1 - p)^M, p = 10^log10_p: the probability that at
 *		least one of M counters reaches a threshold each reaches with
 *		probability p, if they were independent.  Balls-in-bins counts are
 *		negatively associated, so this is a lower bound.
 *
 * Where M p < 1e-15 the answer is M p to double precision, computed in log
 * space because p itself may be below the range of a double; otherwise
 * p is representable and -expm1(M log1p(-p)) is exact.  -HUGE_VAL when
 * p = 0 or M = 0; 0 when p >= 1.
 */
double
scbf_math_log10_any_lower(double log10_p, uint64_t M)
{
	double		log10_Mp;

	if (isnan(log10_p))
		return log10_p;
	if (log10_p >= 0.0)
		return (M == 0) ? -HUGE_VAL : 0.0;
	if (M == 0 || isinf(log10_p))
		return -HUGE_VAL;
	log10_Mp = log10_p + log10((double) M);
	if (log10_Mp < -15.0)
		return log10_Mp;
	return log10(-expm1((double) M * log1p(-pow(10.0, log10_p))));
}

/*
 * scbf_math_log10_any_upper
 *		log10 of min(1, M p), p = 10^log10_p: the union bound on the
 *		probability that at least one of M counters reaches the threshold.
 *		-HUGE_VAL when M = 0.
 */
double
scbf_math_log10_any_upper(double log10_p, uint64_t M)
{
	double		v;

	if (M == 0)
		return -HUGE_VAL;
	v = log10_p + log10((double) M);
	return (v > 0.0) ? 0.0 : v;
}

/*
 * scbf_math_log10_paper_table2
 *		log10 of (ln2 / j)^j / sqrt(2 pi j): what the paper's Table 2
 *		printed for j = 2^b, its Stirling bound without the factor e^j.
 */
double
scbf_math_log10_paper_table2(int j)
{
	return j * log10(SCBF_LN2 / j) - 0.5 * log10(2.0 * SCBF_PI * j);
}

/*
 * scbf_math_log10_stirling_bound
 *		log10 of (e ln2 / j)^j / sqrt(2 pi j): the paper's bound on
 *		P(c >= j) for one counter at mean load ln 2, correctly evaluated.
 */
double
scbf_math_log10_stirling_bound(int j)
{
	return j * log10(SCBF_E * SCBF_LN2 / j) - 0.5 * log10(2.0 * SCBF_PI * j);
}

/*
 * scbf_math_paper_table4_naive
 *		1 - sum_{i=0}^{2^b-1} e^-ln2 (ln2)^i / i!, evaluated naively in
 *		double precision the way the paper's Table 4 was (and with the
 *		operations in the order of analysis.py), cancellation included: b = 4
 *		gives 2^-52 = 2.22e-16 against a true 7.07e-17.
 *
 * b is clamped to [0, 30].  Once i! overflows the terms are 0 and adding
 * them would change nothing, so the loop stops there.
 */
double
scbf_math_paper_table4_naive(int b)
{
	long		c;
	long		i;
	double		s = 0.0;
	double		fact = 1.0;

	if (b < 0)
		b = 0;
	if (b > 30)
		b = 30;
	c = (1L << b) - 1;
	for (i = 0; i <= c; i++)
	{
		double		term;

		if (i > 0)
			fact *= (double) i;
		term = exp(-SCBF_LN2) * pow(SCBF_LN2, (double) i) / fact;
		if (term == 0.0)
			break;
		s += term;
	}
	return 1.0 - s;
}

/*
 * scbf_math_table1
 *		One row of the paper's Table 1 for M counters and rate P (the paper:
 *		M = 368640, P = 1e-3 .. 1e-6).  See scbf_math_table1_row.
 */
void
scbf_math_table1(uint64_t M, double P, scbf_math_table1_row *row)
{
	row->P = P;
	row->k_real = scbf_math_optimal_k_real(P);
	row->k = scbf_math_optimal_k(P);
	row->m = scbf_math_slice_size(M, P);
	row->n = scbf_math_capacity_paper(M, P);
	row->n_real = scbf_math_capacity_paper_real(M, P);
	row->n_half_fill = (double) row->m * SCBF_LN2;
	row->n_exact = scbf_math_capacity_exact_intk_real(M, P);
	row->fpr_at_n = scbf_math_fpr(row->m, row->k, row->n, 1);
}

/*
 * scbf_math_log10_split
 *		Split log10(x) into x = mantissa * 10^exponent, 1 <= mantissa < 10.
 *
 * x = 0 (log10_x = -HUGE_VAL) gives mantissa 0 and exponent 0; +infinity
 * and NaN come back as the mantissa with exponent 0.  An exponent beyond
 * the range of int is clamped to it.
 */
void
scbf_math_log10_split(double log10_x, double *mantissa, int *exponent)
{
	double		e;
	double		mant;

	if (!isfinite(log10_x))
	{
		*mantissa = (log10_x < 0.0) ? 0.0 : log10_x;
		*exponent = 0;
		return;
	}
	e = floor(log10_x);
	mant = pow(10.0, log10_x - e);
	/* rounding may land on the boundaries */
	if (mant >= 10.0)
	{
		mant /= 10.0;
		e += 1.0;
	}
	else if (mant < 1.0)
	{
		mant *= 10.0;
		e -= 1.0;
	}
	if (e > (double) INT_MAX)
		e = (double) INT_MAX;
	if (e < (double) INT_MIN)
		e = (double) INT_MIN;
	*mantissa = mant;
	*exponent = (int) e;
}
