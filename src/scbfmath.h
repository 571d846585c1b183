/*-------------------------------------------------------------------------
 *
 * scbfmath.h
 *	  The mathematics of split counting Bloom filters, with the paper's
 *	  errors corrected.
 *
 * Server-free, like scbffilter.h: C99 and <math.h> only.  These are the
 * formulas behind the scbf_* diagnostic SQL functions (sizing, chain FPR,
 * counter overflow) and behind the paper's Table 1, checked by the unit
 * tests against test/data/reference_values.tsv to 6 significant digits.
 *
 * Notation (../shared/research/math.md): M total counters, k slices (= hash
 * functions), m = M / k counters per slice, n distinct keys, P target
 * false-positive rate, b bits per counter, t a counter threshold.
 *
 * Probabilities that can fall below the range of a double (the overflow
 * tail of an 8-bit counter is about 1e-548) are returned as base-10
 * logarithms; scbf_math_log10_split() turns one into mantissa and exponent.
 *
 * Portions Copyright (c) 2026, scbf developers
 *
 * IDENTIFICATION
 *	  src/scbfmath.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SCBFMATH_H
#define SCBFMATH_H

#include <stdint.h>

/* ---- optimal geometry (math.md section 1 and Table 1) ---- */

/* log2(1/P), the real-valued optimal number of slices */
extern double scbf_math_optimal_k_real(double P);

/* ceil(log2(1/P)) (the paper's rounding), at least 1 */
extern int	scbf_math_optimal_k(double P);

/* floor(M / k) with k = optimal_k(P) */
extern uint64_t scbf_math_slice_size(uint64_t M, double P);

/* M (ln 2)^2 / |ln P|: capacity at the unrounded optimum (the paper's n
 * before flooring) */
extern double scbf_math_capacity_paper_real(uint64_t M, double P);

/* floor(M (ln 2)^2 / |ln P|): the paper's Table 1 n (UINT64_MAX from 2^64) */
extern uint64_t scbf_math_capacity_paper(uint64_t M, double P);

/* floor(m ln 2): capacity at half fill for the rounded k */
extern uint64_t scbf_math_capacity_half_fill(uint64_t M, double P);

/* ln(1 - P^(1/k)) / ln(1 - 1/m): the real n at which f^k = P with the
 * rounded k, exact binomial fill (0 when m <= 1) */
extern double scbf_math_capacity_exact_intk_real(uint64_t M, double P);

/* Its floor: the most keys that keep f^k <= P (UINT64_MAX from 2^64) */
extern uint64_t scbf_math_capacity_exact_intk(uint64_t M, double P);

/* |ln P| / (ln 2)^2: counters per key at the optimum */
extern double scbf_math_counters_per_element(double P);

/* ceil(n |ln P| / (ln 2)^2): counters needed for n keys (UINT64_MAX from
 * 2^64) */
extern uint64_t scbf_math_counters_required(uint64_t n, double P);

/* Keys one page holds: capacity_paper(M) with M = usable_bytes * 8 / bits
 * (UINT64_MAX from 2^64) */
extern uint64_t scbf_math_page_capacity(int bits, uint64_t usable_bytes,
										double P);

/* ---- fill and false-positive rate ---- */

/* Expected fill of a slice after n keys: exact 1 - (1 - 1/m)^n, or the
 * approximation 1 - e^(-n/m) */
extern double scbf_math_expected_fill(uint64_t m, uint64_t n, int exact);

/* FPR of a split filter with k slices of m after n keys: fill^k */
extern double scbf_math_fpr(uint64_t m, int k, uint64_t n, int exact);

/* FPR (exact fill) of the Table 1 filter: fpr(floor(M/k), k, capacity_paper) */
extern double scbf_math_fpr_at_paper_capacity(uint64_t M, double P);

/* 2^-k: FPR of a filter stopped at half fill */
extern double scbf_math_fpr_at_half_fill(int k);

/* 1 - (1 - P)^d: FPR of a chain of d filters each at P */
extern double scbf_math_chain_fpr(double P, int d);

/* n / m^2: the FPR floor that double hashing (h1 + i h2) mod m adds */
extern double scbf_math_double_hash_floor(uint64_t m, uint64_t n);

/* ---- counter overflow (math.md sections 3 and 4) ---- */

/* 2^b - 1: largest value of a b-bit counter */
extern uint64_t scbf_math_counter_max(int b);

/* log10 P(X >= t) for X ~ Poisson(lambda); t <= 0 gives 0 (= log10 1) */
extern double scbf_math_log10_poisson_tail(double lambda, int t);

/* log10 P(X >= t) for X ~ Binomial(N, p) */
extern double scbf_math_log10_binomial_tail(uint64_t N, double p, int t);

/*
 * Bounds on P(at least one of M counters >= t) from the per-counter tail
 * (given as log10): lower = 1 - (1 - p)^M (negative association), upper =
 * min(1, M p) (union bound).  Both returned as log10.
 */
extern double scbf_math_log10_any_lower(double log10_p, uint64_t M);
extern double scbf_math_log10_any_upper(double log10_p, uint64_t M);

/* log10 of (ln2 / j)^j / sqrt(2 pi j): what the paper's Table 2 printed */
extern double scbf_math_log10_paper_table2(int j);

/* log10 of (e ln2 / j)^j / sqrt(2 pi j): the paper's own Stirling bound,
 * correctly evaluated */
extern double scbf_math_log10_stirling_bound(int j);

/* 1 - sum_{i=0}^{2^b-1} e^-ln2 (ln2)^i / i!, evaluated naively in double
 * precision as the paper's Table 4 did (b = 4 gives 2^-52) */
extern double scbf_math_paper_table4_naive(int b);

/* ---- the paper's Table 1 ---- */

typedef struct scbf_math_table1_row
{
	double		P;
	double		k_real;			/* log2(1/P) */
	int			k;				/* ceil */
	uint64_t	m;				/* floor(M/k) */
	uint64_t	n;				/* floor(M ln^2 2/|ln P|) */
	double		n_real;			/* M ln^2 2/|ln P| */
	double		n_half_fill;	/* m ln 2 */
	double		n_exact;		/* ln(1 - P^(1/k)) / ln(1 - 1/m) */
	double		fpr_at_n;		/* exact FPR with k, m, n */
} scbf_math_table1_row;

/* Row for P with M counters (the paper: M = 368640, P = 1e-3 .. 1e-6) */
extern void scbf_math_table1(uint64_t M, double P, scbf_math_table1_row *row);

/* ---- presentation ---- */

/* Split log10(x) into x = mantissa * 10^exponent, 1 <= mantissa < 10 */
extern void scbf_math_log10_split(double log10_x, double *mantissa,
								  int *exponent);

#endif							/* SCBFMATH_H */
