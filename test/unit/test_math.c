/*-------------------------------------------------------------------------
 *
 * test_math.c
 *	  Server-free unit test of the mathematics module, src/scbfmath.c.
 *
 * NOTES
 *	  Usage: test_math path/to/reference_values.tsv
 *
 *	  Links scbfmath.c and libm only.  Every row of the reference file
 *	  (name<TAB>params<TAB>value, written by research/sim/analysis.py in
 *	  60-digit arithmetic) is recomputed and must agree to 6 significant
 *	  digits: the mantissas, compared through log10 so that values far
 *	  below the range of a double (1.04248e-548) work too, may differ by at
 *	  most 5e-6 relative; integers must match exactly.  A name this test
 *	  does not know, a known name missing from the file, or fewer rows than
 *	  the file is known to hold, all fail, so the test cannot pass by
 *	  skipping.  The paper's two literal tables (paper_table2_printed,
 *	  paper_table4_printed) are checked to the digits the paper printed.
 *
 *	  Then: the paper's Table 1 exactly; the tail probabilities against
 *	  direct long double summation and against closed forms at huge
 *	  arguments (where only a careful method is both fast and right); and
 *	  the edge cases of every function.  One line per group; exits
 *	  non-zero if any check failed.
 *
 * Portions Copyright (c) 2026, scbf developers
 *
 * IDENTIFICATION
 *	  test/unit/test_math.c
 *
 *-------------------------------------------------------------------------
 */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scbfmath.h"
#include "unit.h"

#define LN2			0.693147180559945309417232121458176568
#define PI			3.141592653589793238462643383279502884

/* Relative tolerance on mantissas: 6 significant digits */
#define REL_TOL		5e-6

/*
 * Rows research's reference_values.tsv holds (318 at the time of writing,
 * 9 of them the paper's literal values); fewer means the file or this test
 * lost some.
 */
#define MIN_ROWS	318

/* ------------------------------------------------------- parameter parsing */

/*
 * Param
 *		The value of key in a "k1=v1 k2=v2" list, copied into buf; NULL if
 *		the key is absent.
 */
static const char *
Param(const char *params, const char *key, char *buf, size_t len)
{
	const char *p = params;
	size_t		klen = strlen(key);

	while (*p)
	{
		size_t		toklen;

		while (*p == ' ')
			p++;
		toklen = strcspn(p, " ");
		if (toklen > klen && strncmp(p, key, klen) == 0 && p[klen] == '=')
		{
			size_t		n = toklen - klen - 1;

			if (n >= len)
				n = len - 1;
			memcpy(buf, p + klen + 1, n);
			buf[n] = '\0';
			return buf;
		}
		p += toklen;
	}
	return NULL;
}

/*
 * Num
 *		A numeric parameter: a plain number, "1/N", "ln2" or "X*ln2".
 *		Exits if it is missing or malformed: the file is then not what this
 *		test was written for.
 */
static double
Num(const char *params, const char *key)
{
	char		buf[64];
	const char *v = Param(params, key, buf, sizeof(buf));
	char	   *end;
	char	   *star;
	double		x;

	if (v == NULL)
	{
		printf("FAIL parameter %s missing in '%s'\n", key, params);
		exit(2);
	}
	if (strcmp(v, "ln2") == 0)
		return LN2;
	if ((star = strstr(buf, "*ln2")) != NULL && star[4] == '\0')
	{
		*star = '\0';
		x = strtod(buf, &end);
		if (end != star)
			goto bad;
		return x * LN2;
	}
	if (strncmp(v, "1/", 2) == 0)
	{
		x = strtod(v + 2, &end);
		if (*end != '\0' || x == 0)
			goto bad;
		return 1.0 / x;
	}
	x = strtod(v, &end);
	if (end != v && *end == '\0')
		return x;
bad:
	printf("FAIL parameter %s=%s in '%s' is not a number\n", key, v, params);
	exit(2);
}

/*
 * Count
 *		An integer parameter, exactly (N up to 2^64 - 1).
 */
static uint64_t
Count(const char *params, const char *key)
{
	char		buf[64];
	const char *v = Param(params, key, buf, sizeof(buf));
	char	   *end;
	unsigned long long x;

	if (v == NULL)
	{
		printf("FAIL parameter %s missing in '%s'\n", key, params);
		exit(2);
	}
	x = strtoull(v, &end, 10);
	if (end == v || *end != '\0')
	{
		printf("FAIL parameter %s=%s in '%s' is not an integer\n", key, v,
			   params);
		exit(2);
	}
	return (uint64_t) x;
}

/*
 * SplitDecimal
 *		Mantissa (1 <= |m| < 10) and exponent of a decimal string, without
 *		converting the whole number to a double (it may underflow).  Returns
 *		false for zero or a malformed string.
 */
static bool
SplitDecimal(const char *s, double *mant, int *exp10)
{
	char		digits[64];
	const char *e = strpbrk(s, "eE");
	size_t		n = e ? (size_t) (e - s) : strlen(s);
	char	   *end;
	double		m;
	int			x = 0;

	if (n == 0 || n >= sizeof(digits))
		return false;
	memcpy(digits, s, n);
	digits[n] = '\0';
	m = strtod(digits, &end);
	if (*end != '\0' || m == 0 || !isfinite(m))
		return false;
	if (e != NULL)
	{
		long		ev = strtol(e + 1, &end, 10);

		if (*end != '\0')
			return false;
		x = (int) ev;
	}
	while (fabs(m) >= 10.0)
	{
		m /= 10.0;
		x++;
	}
	while (fabs(m) < 1.0)
	{
		m *= 10.0;
		x--;
	}
	*mant = m;
	*exp10 = x;
	return true;
}

/* ------------------------------------------------------- value comparison */

static int	nrows = 0;			/* reference rows checked */
static double worst_rel = 0.0;	/* largest mantissa difference seen */
static char worst_row[256] = "";

/*
 * CheckLog10
 *		Compare log10_got, the log10 of a computed value, with a decimal
 *		reference to 6 significant digits: 10^log10_got and ref, both as
 *		mantissa * 10^exponent, may differ by REL_TOL relative.
 */
static void
CheckLog10(const char *name, const char *params, const char *ref,
		   double log10_got)
{
	double		rm;
	int			re;
	double		gm;
	int			ge;
	double		rel;

	nrows++;
	if (!SplitDecimal(ref, &rm, &re))
	{
		/* a zero reference: the computed value must be zero too */
		CHECK(strtod(ref, NULL) == 0 && isinf(log10_got) && log10_got < 0,
			  "%s %s: expected %s, got 10^%g", name, params, ref, log10_got);
		return;
	}
	if (!isfinite(log10_got))
	{
		CHECK(0, "%s %s: expected %s, got 10^%g", name, params, ref,
			  log10_got);
		return;
	}
	scbf_math_log10_split(log10_got, &gm, &ge);
	/* align exponents: 9.999999e-3 against 1.00000e-2 */
	rel = fabs(gm * pow(10.0, ge - re) - rm) / fabs(rm);
	if (abs(ge - re) > 1)
		rel = HUGE_VAL;
	if (rel > worst_rel)
	{
		worst_rel = rel;
		snprintf(worst_row, sizeof(worst_row), "%s %s", name, params);
	}
	CHECK(rel <= REL_TOL, "%s %s: expected %s, got %.7fe%+d (relative "
		  "difference %.2g)", name, params, ref, gm, ge, rel);
}

/*
 * CheckDouble
 *		Compare a computed double with a decimal reference, as above.
 */
static void
CheckDouble(const char *name, const char *params, const char *ref,
			double got)
{
	if (got == 0.0 || !isfinite(got))
	{
		CheckLog10(name, params, ref, got == 0.0 ? -HUGE_VAL : got);
		return;
	}
	if (got < 0)
	{
		nrows++;
		CHECK(0, "%s %s: expected %s, got %.10g", name, params, ref, got);
		return;
	}
	CheckLog10(name, params, ref, log10(got));
}

/*
 * CheckInt
 *		Compare a computed integer with its reference exactly.
 */
static void
CheckInt(const char *name, const char *params, const char *ref, uint64_t got)
{
	char	   *end;
	unsigned long long r = strtoull(ref, &end, 10);

	nrows++;
	CHECK(*end == '\0' && end != ref && r == got,
		  "%s %s: expected %s, got %llu", name, params, ref,
		  (unsigned long long) got);
}

/*
 * CheckPrinted
 *		What the paper printed (e.g. "0.00018", "1.54e-23") against the
 *		formula that research found behind it, to the digits printed:
 *		within half a unit of the last printed digit.
 */
static void
CheckPrinted(const char *name, const char *params, const char *ref,
			 double got)
{
	double		r = strtod(ref, NULL);
	int			nsig = 0;
	bool		started = false;
	const char *c;
	double		half_unit;

	nrows++;
	for (c = ref; *c && *c != 'e' && *c != 'E'; c++)
	{
		if (*c >= '1' && *c <= '9')
			started = true;
		if (started && *c >= '0' && *c <= '9')
			nsig++;
	}
	half_unit = 0.5 * pow(10.0, floor(log10(r)) - (nsig - 1));
	CHECK(nsig > 0 && fabs(got - r) <= half_unit * (1 + 1e-9),
		  "%s %s: the paper printed %s, the formula gives %.6g", name,
		  params, ref, got);
}

/* ------------------------------------------------------ the reference rows */

/* Every name of the reference file, and how many rows each had */
static const char *const known_names[] = {
	"optimal_k", "optimal_k_real", "slice_size_m", "capacity_n_paper",
	"capacity_n_paper_real", "capacity_n_half_fill",
	"fpr_at_paper_capacity_exact", "counters_per_element", "chain_fpr",
	"fpr_at_half_fill", "paper_table2_printed",
	"paper_table2_formula_without_e", "stirling_bound_correct",
	"paper_table4_printed", "paper_table4_naive_double",
	"p_counter_overflow", "p_counter_saturate",
	"p_any_counter_overflow_lower", "p_any_counter_overflow_upper",
	"p_any_counter_saturate_lower", "p_any_counter_saturate_upper",
	"p_max_counter_ge_t", "expected_counters_ge_t", "expected_fill_exact",
	"expected_fill_approx", "fpr_scbf_exact", "fpr_scbf_approx",
	"capacity_n_exact_intk", "counter_max_value", "double_hash_fpr_floor",
	"page_capacity_n", "counters_required_M",
};
#define NKNOWN (sizeof(known_names) / sizeof(known_names[0]))
static int	known_rows[NKNOWN];

/*
 * PerCounterTail
 *		log10 P(count >= t) for the model a row names: model=poisson with
 *		lambda, or model=binomial with N and p.
 */
static double
PerCounterTail(const char *params)
{
	char		buf[64];
	const char *model = Param(params, "model", buf, sizeof(buf));
	int			t = (int) Count(params, "t");

	if (model != NULL && strcmp(model, "poisson") == 0)
		return scbf_math_log10_poisson_tail(Num(params, "lambda"), t);
	if (model != NULL && strcmp(model, "binomial") == 0)
		return scbf_math_log10_binomial_tail(Count(params, "N"),
											 Num(params, "p"), t);
	printf("FAIL unknown model in '%s'\n", params);
	exit(2);
}

/*
 * CheckRow
 *		Recompute one reference row.  Returns false if the name is unknown.
 */
static bool
CheckRow(const char *name, const char *params, const char *ref)
{
	size_t		i;

	for (i = 0; i < NKNOWN; i++)
		if (strcmp(name, known_names[i]) == 0)
			break;
	if (i == NKNOWN)
		return false;
	known_rows[i]++;

	if (strcmp(name, "optimal_k") == 0)
		CheckInt(name, params, ref,
				 (uint64_t) scbf_math_optimal_k(Num(params, "P")));
	else if (strcmp(name, "optimal_k_real") == 0)
		CheckDouble(name, params, ref,
					scbf_math_optimal_k_real(Num(params, "P")));
	else if (strcmp(name, "slice_size_m") == 0)
		CheckInt(name, params, ref,
				 scbf_math_slice_size(Count(params, "M"), Num(params, "P")));
	else if (strcmp(name, "capacity_n_paper") == 0)
		CheckInt(name, params, ref,
				 scbf_math_capacity_paper(Count(params, "M"),
										  Num(params, "P")));
	else if (strcmp(name, "capacity_n_paper_real") == 0)
		CheckDouble(name, params, ref,
					scbf_math_capacity_paper_real(Count(params, "M"),
												  Num(params, "P")));
	else if (strcmp(name, "capacity_n_half_fill") == 0)
		CheckInt(name, params, ref,
				 scbf_math_capacity_half_fill(Count(params, "M"),
											  Num(params, "P")));
	else if (strcmp(name, "capacity_n_exact_intk") == 0)
		CheckInt(name, params, ref,
				 scbf_math_capacity_exact_intk(Count(params, "M"),
											   Num(params, "P")));
	else if (strcmp(name, "fpr_at_paper_capacity_exact") == 0)
		CheckDouble(name, params, ref,
					scbf_math_fpr_at_paper_capacity(Count(params, "M"),
													Num(params, "P")));
	else if (strcmp(name, "counters_per_element") == 0)
		CheckDouble(name, params, ref,
					scbf_math_counters_per_element(Num(params, "P")));
	else if (strcmp(name, "counters_required_M") == 0)
		CheckInt(name, params, ref,
				 scbf_math_counters_required(Count(params, "n"),
											 Num(params, "P")));
	else if (strcmp(name, "page_capacity_n") == 0)
		CheckInt(name, params, ref,
				 scbf_math_page_capacity((int) Count(params, "bits"),
										 Count(params, "usable_bytes"),
										 Num(params, "P")));
	else if (strcmp(name, "chain_fpr") == 0)
		CheckDouble(name, params, ref,
					scbf_math_chain_fpr(Num(params, "P"),
										(int) Count(params, "d")));
	else if (strcmp(name, "fpr_at_half_fill") == 0)
		CheckDouble(name, params, ref,
					scbf_math_fpr_at_half_fill((int) Count(params, "k")));
	else if (strcmp(name, "expected_fill_exact") == 0 ||
			 strcmp(name, "expected_fill_approx") == 0)
		CheckDouble(name, params, ref,
					scbf_math_expected_fill(Count(params, "m"),
											Count(params, "n"),
											strstr(name, "exact") != NULL));
	else if (strcmp(name, "fpr_scbf_exact") == 0 ||
			 strcmp(name, "fpr_scbf_approx") == 0)
		CheckDouble(name, params, ref,
					scbf_math_fpr(Count(params, "m"), (int) Count(params, "k"),
								  Count(params, "n"),
								  strstr(name, "exact") != NULL));
	else if (strcmp(name, "double_hash_fpr_floor") == 0)
		CheckDouble(name, params, ref,
					scbf_math_double_hash_floor(Count(params, "m"),
												Count(params, "n")));
	else if (strcmp(name, "counter_max_value") == 0)
		CheckInt(name, params, ref,
				 scbf_math_counter_max((int) Count(params, "b")));
	else if (strcmp(name, "paper_table2_formula_without_e") == 0)
		CheckLog10(name, params, ref,
				   scbf_math_log10_paper_table2((int) Count(params, "j")));
	else if (strcmp(name, "stirling_bound_correct") == 0)
		CheckLog10(name, params, ref,
				   scbf_math_log10_stirling_bound((int) Count(params, "j")));
	else if (strcmp(name, "paper_table4_naive_double") == 0)
		CheckDouble(name, params, ref,
					scbf_math_paper_table4_naive((int) Count(params, "b")));
	else if (strcmp(name, "paper_table2_printed") == 0)
	{
		int			j = 1 << (int) Count(params, "b");

		CheckPrinted(name, params, ref,
					 pow(10.0, scbf_math_log10_paper_table2(j)));
	}
	else if (strcmp(name, "paper_table4_printed") == 0)
		CheckPrinted(name, params, ref,
					 scbf_math_paper_table4_naive((int) Count(params, "b")));
	else if (strcmp(name, "p_counter_overflow") == 0 ||
			 strcmp(name, "p_counter_saturate") == 0)
		CheckLog10(name, params, ref, PerCounterTail(params));
	else if (strstr(name, "p_any_counter_") == name)
	{
		double		lp = PerCounterTail(params);
		uint64_t	M = Count(params, "M");

		CheckLog10(name, params, ref,
				   strstr(name, "_lower") != NULL ?
				   scbf_math_log10_any_lower(lp, M) :
				   scbf_math_log10_any_upper(lp, M));
	}
	else if (strcmp(name, "p_max_counter_ge_t") == 0 ||
			 strcmp(name, "expected_counters_ge_t") == 0)
	{
		/* per-counter tail Binomial(n, 1/m), over M counters */
		double		p = 1.0 / (double) Count(params, "m");
		double		lp = scbf_math_log10_binomial_tail(Count(params, "n"), p,
													   (int) Count(params, "t"));
		uint64_t	M = Count(params, "M");

		CheckLog10(name, params, ref,
				   name[0] == 'p' ? scbf_math_log10_any_lower(lp, M) :
				   lp + log10((double) M));
	}
	else
	{
		printf("FAIL %s is in known_names but not handled\n", name);
		exit(2);
	}
	return true;
}

/*
 * CheckReferenceFile
 *		Recompute every row of the reference file.
 */
static void
CheckReferenceFile(const char *path)
{
	FILE	   *f = fopen(path, "r");
	char		line[1024];
	int			lineno = 0;
	size_t		i;

	if (f == NULL)
	{
		printf("FAIL cannot open %s\n", path);
		exit(2);
	}
	while (fgets(line, sizeof(line), f) != NULL)
	{
		char	   *name = line;
		char	   *params;
		char	   *value;

		lineno++;
		line[strcspn(line, "\r\n")] = '\0';
		if (line[0] == '#' || line[0] == '\0')
			continue;
		params = strchr(name, '\t');
		value = params ? strchr(params + 1, '\t') : NULL;
		if (value == NULL)
		{
			CHECK(0, "%s:%d: not name<TAB>params<TAB>value", path, lineno);
			continue;
		}
		*params++ = '\0';
		*value++ = '\0';
		if (!CheckRow(name, params, value))
			CHECK(0, "%s:%d: unknown reference name %s", path, lineno, name);
	}
	fclose(f);

	for (i = 0; i < NKNOWN; i++)
		CHECK(known_rows[i] > 0, "no row named %s in %s", known_names[i],
			  path);
	CHECK(nrows >= MIN_ROWS, "only %d rows checked, expected at least %d",
		  nrows, MIN_ROWS);
	GroupDone("reference values: %d rows of %zu names agree to 6 significant "
			  "digits (largest relative difference %.2g, %s)", nrows,
			  (size_t) NKNOWN, worst_rel, worst_row);
}

/* --------------------------------------------------------------- Table 1 */

static void
CheckTable1(void)
{
	/*
	 * The paper's k, m, n, exactly; the real-valued columns of
	 * research/math.md section 2 to the digits printed there, except
	 * n_exact, which the header defines with the exact binomial fill
	 * (analysis.py: n_keepP_exact), while math.md's table prints the
	 * Poisson-fill version -m ln(1 - P^(1/k)), about n / 2m higher.
	 */
	static const struct
	{
		double		P;
		int			k;
		uint64_t	m;
		uint64_t	n;
		double		k_real;		/* +- 0.0005 */
		double		n_real;		/* +- 0.005 */
		double		n_half_fill;	/* +- 0.05 */
		double		n_exact;	/* +- 1e-6 */
		double		fpr_at_n;	/* 5 significant digits */
	}			rows[] = {
		{1e-3, 10, 36864, 25639, 9.966, 25639.91, 25552.2, 25639.466347,
		9.9987e-4},
		{1e-4, 14, 26331, 19229, 13.288, 19229.93, 18251.3, 19213.423331,
		1.0077e-4},
		{1e-5, 17, 21684, 15383, 16.610, 15383.94, 15030.2, 15380.559341,
		1.0019e-5},
		{1e-6, 20, 18432, 12819, 19.932, 12819.95, 12776.1, 12819.559290,
		9.9940e-7},
	};
	size_t		i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
	{
		scbf_math_table1_row r;

		scbf_math_table1(368640, rows[i].P, &r);
		CHECK(r.P == rows[i].P && r.k == rows[i].k && r.m == rows[i].m &&
			  r.n == rows[i].n,
			  "Table 1, P=%g: expected k=%d m=%llu n=%llu, got k=%d m=%llu "
			  "n=%llu", rows[i].P, rows[i].k,
			  (unsigned long long) rows[i].m, (unsigned long long) rows[i].n,
			  r.k, (unsigned long long) r.m, (unsigned long long) r.n);
		CHECK(fabs(r.k_real - rows[i].k_real) <= 0.0005,
			  "Table 1, P=%g: k_real expected %.3f, got %.6f", rows[i].P,
			  rows[i].k_real, r.k_real);
		CHECK(fabs(r.n_real - rows[i].n_real) <= 0.005,
			  "Table 1, P=%g: n_real expected %.2f, got %.6f", rows[i].P,
			  rows[i].n_real, r.n_real);
		CHECK(fabs(r.n_half_fill - rows[i].n_half_fill) <= 0.05,
			  "Table 1, P=%g: n_half_fill expected %.1f, got %.6f",
			  rows[i].P, rows[i].n_half_fill, r.n_half_fill);
		CHECK(fabs(r.n_exact - rows[i].n_exact) <= 1e-6,
			  "Table 1, P=%g: n_exact expected %.6f, got %.6f", rows[i].P,
			  rows[i].n_exact, r.n_exact);
		CHECK(fabs(r.fpr_at_n - rows[i].fpr_at_n) <=
			  0.5 * pow(10.0, floor(log10(rows[i].fpr_at_n)) - 4),
			  "Table 1, P=%g: fpr_at_n expected %.4e, got %.6e", rows[i].P,
			  rows[i].fpr_at_n, r.fpr_at_n);
		/* the row agrees with the functions it summarizes */
		CHECK(r.n == scbf_math_capacity_paper(368640, rows[i].P) &&
			  r.fpr_at_n ==
			  scbf_math_fpr_at_paper_capacity(368640, rows[i].P) &&
			  (uint64_t) floor(r.n_exact) ==
			  scbf_math_capacity_exact_intk(368640, rows[i].P),
			  "Table 1, P=%g: row disagrees with the single functions",
			  rows[i].P);
	}
	GroupDone("paper Table 1 with M=368640: (P=1e-3: k=10 m=36864 n=25639), "
			  "(1e-4: 14, 26331, 19229), (1e-5: 17, 21684, 15383), "
			  "(1e-6: 20, 18432, 12819)");
}

/* ------------------------------------------- tails against direct sums */

/*
 * LogSumExpAdd
 *		Add e^x to a sum kept as e^(*max) * (*scaled), so that terms far
 *		below the range of any floating type can be summed.
 */
static void
LogSumExpAdd(long double *max, long double *scaled, long double x)
{
	if (*scaled == 0.0L)
	{
		*max = x;
		*scaled = 1.0L;
	}
	else if (x > *max)
	{
		*scaled = *scaled * expl(*max - x) + 1.0L;
		*max = x;
	}
	else
		*scaled += expl(x - *max);
}

/*
 * DirectPoissonTail
 *		log10 P(X >= t) for X ~ Poisson(lambda) by plain summation of the
 *		mass function, term by term from 0 (ln P(X = j + 1) = ln P(X = j)
 *		+ ln(lambda / (j + 1))), in long double and in log space: nothing in
 *		common with the method under test.  Accurate to about 1e-13 even
 *		where long double is only a double.
 */
static long double
DirectPoissonTail(double lambda, int t)
{
	int			top = (int) (lambda + 40.0 * sqrt(lambda) + 200.0);
	long double lp = -(long double) lambda;
	long double max = 0.0L;
	long double scaled = 0.0L;
	int			j;

	for (j = 0; j <= top; j++)
	{
		if (j >= t)
			LogSumExpAdd(&max, &scaled, lp);
		lp += logl((long double) lambda / (j + 1));
	}
	return (max + logl(scaled)) / logl(10.0L);
}

/*
 * DirectBinomialTail
 *		The same for X ~ Binomial(N, p).
 */
static long double
DirectBinomialTail(uint64_t N, double p, int t)
{
	double		mean = (double) N * p;
	int			top = (int) fmin((double) N,
								 mean + 40.0 * sqrt(mean) + 200.0);
	long double odds = (long double) p / (1.0L - (long double) p);
	long double lp = (long double) N * log1pl(-(long double) p);
	long double max = 0.0L;
	long double scaled = 0.0L;
	int			j;

	for (j = 0; j <= top; j++)
	{
		if (j >= t)
			LogSumExpAdd(&max, &scaled, lp);
		lp += logl((long double) (N - (uint64_t) j) / (j + 1) * odds);
	}
	return (max + logl(scaled)) / logl(10.0L);
}

static void
CheckTailsDirect(void)
{
	static const double lambdas[] = {1e-3, 0.5, LN2, 1.0, 3.7, 17.5, 50.0,
	200.0};
	static const struct
	{
		uint64_t	N;
		double		p;
	}			binomials[] = {
		{1, 0.5}, {20, 0.3}, {20, 0.5}, {710, 1.0 / 1024},
		{1000, 0.3}, {25639, 1.0 / 36864}, {256390, 1.0 / 368640},
		{100000, 0.01},
	};
	size_t		i;
	int			t;
	int			ncases = 0;
	double		worst = 0.0;

	for (i = 0; i < sizeof(lambdas) / sizeof(lambdas[0]); i++)
	{
		double		lambda = lambdas[i];
		int			tmax = (int) (lambda + 8.0 * sqrt(lambda) + 60.0);

		for (t = 0; t <= tmax; t++)
		{
			long double direct = DirectPoissonTail(lambda, t);
			double		got = scbf_math_log10_poisson_tail(lambda, t);
			double		diff = fabs((double) (got - direct)) * log(10.0);

			if (diff > worst)
				worst = diff;
			CHECK(diff <= 1e-11,
				  "Poisson(%g) tail at t=%d: direct 10^%.15Lg, got 10^%.15g",
				  lambda, t, direct, got);
			ncases++;
		}
	}
	for (i = 0; i < sizeof(binomials) / sizeof(binomials[0]); i++)
	{
		uint64_t	N = binomials[i].N;
		double		p = binomials[i].p;
		double		mean = (double) N * p;
		int			tmax = (int) fmin((double) N,
									  mean + 8.0 * sqrt(mean) + 60.0);

		for (t = 0; t <= tmax; t++)
		{
			long double direct = DirectBinomialTail(N, p, t);
			double		got = scbf_math_log10_binomial_tail(N, p, t);
			double		diff = fabs((double) (got - direct)) * log(10.0);

			if (diff > worst)
				worst = diff;
			CHECK(diff <= 1e-11,
				  "Binomial(%llu, %g) tail at t=%d: direct 10^%.15Lg, got "
				  "10^%.15g", (unsigned long long) N, p, t, direct, got);
			ncases++;
		}
	}
	GroupDone("tails: %d Poisson and binomial tails, both sides of the mean, "
			  "equal direct long double sums (largest relative difference "
			  "%.1e)", ncases, worst);
}

/*
 * Arguments where summing from 0, or ln C(N, t) from lgamma, or a loop to
 * N would fail: checked against closed forms.
 */
static void
CheckTailsExtreme(void)
{
	double		n = 1e9;
	double		pmf;
	double		expected;
	double		got;
	double		x;

	/*
	 * Ramanujan: for integer n, P(Poisson(n) >= n) = 1/2 + theta(n)
	 * P(X = n), theta(n) = 1/3 + 4/(135 n) + O(n^-2), and
	 * P(X = n) = (1 - 1/(12 n) + ...) / sqrt(2 pi n).
	 */
	pmf = (1.0 - 1.0 / (12.0 * n)) / sqrt(2.0 * PI * n);
	expected = 0.5 + (1.0 / 3.0 + 4.0 / (135.0 * n)) * pmf;
	got = pow(10.0, scbf_math_log10_poisson_tail(n, (int) n));
	CHECK(fabs(got - expected) <= 1e-10 * expected,
		  "P(Poisson(1e9) >= 1e9): expected %.12f, got %.12f", expected, got);
	expected = 0.5 + (1.0 / 3.0 + 4.0 / (135.0 * n) - 1.0) * pmf;
	got = pow(10.0, scbf_math_log10_poisson_tail(n, (int) n + 1));
	CHECK(fabs(got - expected) <= 1e-10 * expected,
		  "P(Poisson(1e9) >= 1e9 + 1): expected %.12f, got %.12f", expected,
		  got);

	/*
	 * Binomial(N, 1/2), N even: P(X >= N/2) = (1 + P(X = N/2)) / 2 and
	 * P(X >= N/2 + 1) = (1 - P(X = N/2)) / 2, with
	 * P(X = N/2) = sqrt(2 / (pi N)) (1 - 1/(4N) + ...).
	 */
	n = 4e9;
	pmf = sqrt(2.0 / (PI * n)) * (1.0 - 1.0 / (4.0 * n));
	expected = 0.5 * (1.0 + pmf);
	got = pow(10.0, scbf_math_log10_binomial_tail((uint64_t) n, 0.5,
												  (int) (n / 2)));
	CHECK(fabs(got - expected) <= 1e-10 * expected,
		  "P(Binomial(4e9, 1/2) >= 2e9): expected %.12f, got %.12f",
		  expected, got);
	expected = 0.5 * (1.0 - pmf);
	got = pow(10.0, scbf_math_log10_binomial_tail((uint64_t) n, 0.5,
												  (int) (n / 2) + 1));
	CHECK(fabs(got - expected) <= 1e-10 * expected,
		  "P(Binomial(4e9, 1/2) >= 2e9 + 1): expected %.12f, got %.12f",
		  expected, got);

	/* Binomial(1e15, 1e-15) is Poisson(1) to 1e-15: P(X >= 3) = 1 - 2.5/e */
	expected = 1.0 - 2.5 * exp(-1.0);
	got = pow(10.0, scbf_math_log10_binomial_tail(UINT64_C(1000000000000000),
												  1e-15, 3));
	CHECK(fabs(got - expected) <= 1e-10 * expected,
		  "P(Binomial(1e15, 1e-15) >= 3): expected %.15f, got %.15f",
		  expected, got);

	/* tiny and huge loads */
	x = scbf_math_log10_poisson_tail(1e-300, 3);
	expected = 3.0 * -300.0 - log10(6.0);
	CHECK(fabs(x - expected) <= 1e-9, "log10 P(Poisson(1e-300) >= 3): "
		  "expected %.10f, got %.10f", expected, x);
	x = scbf_math_log10_poisson_tail(1e300, 1);
	CHECK(x == 0.0, "log10 P(Poisson(1e300) >= 1): expected 0, got %g", x);
	x = scbf_math_log10_poisson_tail(1e300, 100000);
	CHECK(x == 0.0, "log10 P(Poisson(1e300) >= 1e5): expected 0, got %g", x);
	x = scbf_math_log10_poisson_tail(2.0, INT_MAX);
	CHECK(isfinite(x) && x < -1e10, "log10 P(Poisson(2) >= INT_MAX): got %g",
		  x);
	x = scbf_math_log10_binomial_tail(UINT64_C(1) << 62, 0.5, 1);
	CHECK(x == 0.0, "log10 P(Binomial(2^62, 1/2) >= 1): expected 0, got %g",
		  x);
	x = scbf_math_log10_binomial_tail(UINT64_C(1) << 62, 0.5, INT_MAX);
	CHECK(fabs(x) < 1e-12, "log10 P(Binomial(2^62, 1/2) >= INT_MAX): "
		  "expected 0, got %g", x);
	x = scbf_math_log10_binomial_tail(1000, 1e-300, 5);
	expected = 5.0 * -300.0 + log10(1000.0 * 999 * 998 * 997 * 996 / 120);
	CHECK(fabs(x - expected) <= 1e-9, "log10 P(Binomial(1000, 1e-300) >= 5): "
		  "expected %.10f, got %.10f", expected, x);

	/* the degenerate cases */
	CHECK(scbf_math_log10_poisson_tail(LN2, 0) == 0.0 &&
		  scbf_math_log10_poisson_tail(LN2, -3) == 0.0 &&
		  scbf_math_log10_binomial_tail(10, 0.3, 0) == 0.0,
		  "t <= 0 must give log10 1 = 0");
	x = scbf_math_log10_poisson_tail(0.0, 1);
	CHECK(isinf(x) && x < 0, "Poisson(0) >= 1: expected -inf, got %g", x);
	x = scbf_math_log10_binomial_tail(5, 0.5, 6);
	CHECK(isinf(x) && x < 0, "Binomial(5) >= 6: expected -inf, got %g", x);
	x = scbf_math_log10_binomial_tail(5, 0.0, 1);
	CHECK(isinf(x) && x < 0, "Binomial(5, 0) >= 1: expected -inf, got %g", x);
	x = scbf_math_log10_binomial_tail(5, 1.0, 5);
	CHECK(x == 0.0, "Binomial(5, 1) >= 5: expected 0, got %g", x);
	x = scbf_math_log10_binomial_tail(5, 0.5, 5);
	CHECK(fabs(x - 5 * log10(0.5)) < 1e-14, "Binomial(5, 1/2) >= 5: "
		  "expected %.15f, got %.15f", 5 * log10(0.5), x);
	GroupDone("tails: huge and tiny arguments against closed forms, "
			  "degenerate cases, all fast");
}

/* -------------------------------------------------- the other functions */

static void
CheckAnyCounter(void)
{
	static const double lps[] = {-0.001, -0.3, -1, -3, -6, -10, -14, -15.5,
	-20, -40, -300, -600};
	static const uint64_t Ms[] = {1, 2, 100, 16304, 368640,
	UINT64_C(1) << 40};
	double		x;
	long double p;
	long double expected;
	size_t		i;
	size_t		j;

	for (i = 0; i < sizeof(lps) / sizeof(lps[0]); i++)
	{
		for (j = 0; j < sizeof(Ms) / sizeof(Ms[0]); j++)
		{
			double		lo = scbf_math_log10_any_lower(lps[i], Ms[j]);
			double		up = scbf_math_log10_any_upper(lps[i], Ms[j]);

			CHECK(lo <= up + 1e-15 && up <= 0.0,
				  "any(10^%g, M=%llu): lower 10^%g above upper 10^%g", lps[i],
				  (unsigned long long) Ms[j], lo, up);
			/*
			 * 1 - (1 - p)^M in long double where p is representable there;
			 * below that (1e-600 when long double is a double) the answer
			 * is M p to far more digits than a double holds.
			 */
			p = powl(10.0L, lps[i]);
			if (p > 0.0L)
				expected = log10l(-expm1l((long double) Ms[j] * log1pl(-p)));
			else
				expected = lps[i] + log10l((long double) Ms[j]);
			CHECK(fabsl(lo - expected) <= 1e-12L,
				  "any_lower(10^%g, M=%llu): expected 10^%.15Lg, got 10^%.15g",
				  lps[i], (unsigned long long) Ms[j], expected, lo);
		}
	}
	x = scbf_math_log10_any_lower(log10(0.5), 3);
	CHECK(fabs(x - log10(0.875)) < 1e-15, "any_lower(1/2, 3): expected "
		  "log10(7/8), got 10^%.17g", x);
	x = scbf_math_log10_any_lower(-600.0, 1000000);
	CHECK(fabs(x - -594.0) < 1e-12, "any_lower(1e-600, 1e6): expected "
		  "10^-594, got 10^%.15g", x);
	x = scbf_math_log10_any_upper(-3.0, 1000000);
	CHECK(x == 0.0, "any_upper(1e-3, 1e6): expected 0 (= log10 1), got %g", x);
	x = scbf_math_log10_any_upper(-3.0, 100);
	CHECK(fabs(x - -1.0) < 1e-15, "any_upper(1e-3, 100): expected -1, got %g",
		  x);
	x = scbf_math_log10_any_lower(-HUGE_VAL, 100);
	CHECK(isinf(x) && x < 0, "any_lower(0, 100): expected -inf, got %g", x);
	x = scbf_math_log10_any_lower(-2.0, 0);
	CHECK(isinf(x) && x < 0, "any_lower(p, 0): expected -inf, got %g", x);
	x = scbf_math_log10_any_upper(-2.0, 0);
	CHECK(isinf(x) && x < 0, "any_upper(p, 0): expected -inf, got %g", x);
	x = scbf_math_log10_any_lower(0.0, 7);
	CHECK(x == 0.0, "any_lower(1, 7): expected 0, got %g", x);
	GroupDone("any-counter bounds: lower = 1-(1-p)^M to 1e-12 for p down to "
			  "1e-600, lower <= upper = min(1, Mp), edge cases");
}

static void
CheckSplit(void)
{
	static const struct
	{
		double		mantissa;
		int			exponent;
	}			cases[] = {
		{1.0, 0}, {1.0, -3}, {3.1622776601683795, 2}, {3.1622776601683795, -1},
		{1.04248, -548}, {9.99999, -17}, {1.0, 308}, {5.0, 100000},
	};
	size_t		i;
	double		m;
	int			e;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		double		lx = log10(cases[i].mantissa) + cases[i].exponent;

		scbf_math_log10_split(lx, &m, &e);
		CHECK(e == cases[i].exponent &&
			  fabs(m - cases[i].mantissa) <= 1e-9 * cases[i].mantissa,
			  "split(%.12g): expected %.7f e%d, got %.12f e%d", lx,
			  cases[i].mantissa, cases[i].exponent, m, e);
	}
	/* just below a power of ten: mantissa below 10 */
	scbf_math_log10_split(nextafter(3.0, 0.0), &m, &e);
	CHECK(m >= 1.0 && m < 10.0 && (e == 2 || e == 3),
		  "split(3-): mantissa %.17g e%d out of [1, 10)", m, e);
	/* 10^(x - floor(x)) rounds up to 10 here: must renormalize */
	scbf_math_log10_split(-1e-17, &m, &e);
	CHECK(m == 1.0 && e == 0, "split(-1e-17): expected 1 e0, got %.17g e%d",
		  m, e);
	scbf_math_log10_split(-HUGE_VAL, &m, &e);
	CHECK(m == 0.0 && e == 0, "split(-inf): expected 0 e0, got %g e%d", m, e);
	scbf_math_log10_split(-1e300, &m, &e);
	CHECK(e == INT_MIN, "split(-1e300): exponent %d, expected INT_MIN", e);
	GroupDone("log10_split: mantissa in [1, 10), boundaries, zero");
}

static void
CheckEdges(void)
{
	double		x;

	CHECK(scbf_math_optimal_k(1e-3) == 10 && scbf_math_optimal_k(1e-6) == 20 &&
		  scbf_math_optimal_k(ldexp(1.0, -20)) == 20 &&
		  scbf_math_optimal_k(ldexp(1.0, -20) * 0.999) == 21 &&
		  scbf_math_optimal_k(0.5) == 1 && scbf_math_optimal_k(0.9) == 1,
		  "optimal_k: %d %d %d %d %d %d", scbf_math_optimal_k(1e-3),
		  scbf_math_optimal_k(1e-6), scbf_math_optimal_k(ldexp(1.0, -20)),
		  scbf_math_optimal_k(ldexp(1.0, -20) * 0.999),
		  scbf_math_optimal_k(0.5), scbf_math_optimal_k(0.9));
	/* a rounding error below 2^-k is still k (log2 gives 2 + 4e-16) */
	CHECK(scbf_math_optimal_k(nextafter(0.25, 0.0)) == 2,
		  "optimal_k(2^-2 - 1 ulp): expected 2, got %d",
		  scbf_math_optimal_k(nextafter(0.25, 0.0)));
	CHECK(scbf_math_optimal_k(1.0) == 1 && scbf_math_optimal_k(2.0) == 1 &&
		  scbf_math_optimal_k(0.0) == INT_MAX &&
		  scbf_math_optimal_k(1e-300) == 997,
		  "optimal_k out of range: %d %d %d %d", scbf_math_optimal_k(1.0),
		  scbf_math_optimal_k(2.0), scbf_math_optimal_k(0.0),
		  scbf_math_optimal_k(1e-300));
	/* subnormal rates: 1/P would overflow, -log2(P) does not */
	CHECK(scbf_math_optimal_k_real(ldexp(1.0, -1074)) == 1074.0 &&
		  scbf_math_optimal_k(ldexp(1.0, -1074)) == 1074 &&
		  scbf_math_optimal_k(ldexp(1.0, -1030)) == 1030 &&
		  scbf_math_optimal_k(ldexp(1.0, -1030) * 0.75) == 1031 &&
		  scbf_math_slice_size(1074000, ldexp(1.0, -1074)) == 1000,
		  "subnormal rates: k_real(2^-1074) = %g, k = %d %d %d, slice %llu",
		  scbf_math_optimal_k_real(ldexp(1.0, -1074)),
		  scbf_math_optimal_k(ldexp(1.0, -1074)),
		  scbf_math_optimal_k(ldexp(1.0, -1030)),
		  scbf_math_optimal_k(ldexp(1.0, -1030) * 0.75),
		  (unsigned long long) scbf_math_slice_size(1074000,
													ldexp(1.0, -1074)));
	CHECK(scbf_math_counter_max(0) == 0 && scbf_math_counter_max(4) == 15 &&
		  scbf_math_counter_max(63) == (UINT64_C(1) << 63) - 1 &&
		  scbf_math_counter_max(64) == UINT64_MAX &&
		  scbf_math_counter_max(-1) == 0,
		  "counter_max edges");
	CHECK(scbf_math_chain_fpr(0.5, 0) == 0.0 &&
		  scbf_math_chain_fpr(1.0, 3) == 1.0 &&
		  fabs(scbf_math_chain_fpr(1e-20, 10) - 1e-19) < 1e-31,
		  "chain_fpr edges: %g %g %g", scbf_math_chain_fpr(0.5, 0),
		  scbf_math_chain_fpr(1.0, 3), scbf_math_chain_fpr(1e-20, 10));
	CHECK(scbf_math_expected_fill(0, 5, 1) == 1.0 &&
		  scbf_math_expected_fill(10, 0, 1) == 0.0 &&
		  scbf_math_expected_fill(1, 1, 1) == 1.0 &&
		  fabs(scbf_math_expected_fill(1000000000, 1, 1) - 1e-9) < 1e-23,
		  "expected_fill edges");
	CHECK(scbf_math_capacity_paper(368640, 1.0 - 1e-16) == UINT64_MAX,
		  "capacity at P -> 1 must saturate, got %llu",
		  (unsigned long long) scbf_math_capacity_paper(368640, 1.0 - 1e-16));
	/*
	 * The counts saturate at UINT64_MAX, their real values go on (about
	 * 37 M and 4e34 for P -> 1); the second count is the one bigint
	 * showed as -8861685696342112256.
	 */
	x = scbf_math_capacity_exact_intk_real(INT64_MAX, 1.0 - 1e-16);
	CHECK(x > 3e20 && x < 4e20 &&
		  scbf_math_capacity_exact_intk(INT64_MAX, 1.0 - 1e-16) == UINT64_MAX,
		  "exact capacity at P -> 1: real %g, count %llu", x,
		  (unsigned long long) scbf_math_capacity_exact_intk(INT64_MAX,
															 1.0 - 1e-16));
	x = scbf_math_capacity_paper_real(INT64_MAX, nextafter(1.0, 0.0));
	CHECK(x > 3e34 && x < 5e34, "paper capacity at P -> 1: real %g", x);
	CHECK(scbf_math_counters_required(INT64_MAX, 1e-300) == UINT64_MAX &&
		  scbf_math_counters_required(UINT64_C(500000000000000000), 1e-4) ==
		  UINT64_C(9585058377367439360) &&
		  scbf_math_page_capacity(1, 1 << 30, nextafter(1.0, 0.0)) ==
		  UINT64_MAX,
		  "counts beyond 2^63: %llu %llu %llu",
		  (unsigned long long) scbf_math_counters_required(INT64_MAX, 1e-300),
		  (unsigned long long)
		  scbf_math_counters_required(UINT64_C(500000000000000000), 1e-4),
		  (unsigned long long) scbf_math_page_capacity(1, 1 << 30,
													   nextafter(1.0, 0.0)));
	CHECK(scbf_math_capacity_exact_intk_real(20, 0.001) ==
		  log1p(-pow(0.001, 0.1)) / log1p(-0.5) &&
		  scbf_math_capacity_exact_intk_real(10, 0.001) == 0.0,
		  "capacity_exact_intk_real with m = 2, 1: %g %g",
		  scbf_math_capacity_exact_intk_real(20, 0.001),
		  scbf_math_capacity_exact_intk_real(10, 0.001));
	CHECK(scbf_math_capacity_exact_intk(5, 0.001) == 0 &&
		  scbf_math_capacity_exact_intk(10, 0.001) == 0 &&
		  scbf_math_capacity_exact_intk(20, 0.001) == 1,
		  "capacity_exact_intk with m = 0, 1, 2: expected 0 0 1, got "
		  "%llu %llu %llu",
		  (unsigned long long) scbf_math_capacity_exact_intk(5, 0.001),
		  (unsigned long long) scbf_math_capacity_exact_intk(10, 0.001),
		  (unsigned long long) scbf_math_capacity_exact_intk(20, 0.001));
	/* floors, not roundings: 1001 ln 2 = 693.8 */
	CHECK(scbf_math_capacity_half_fill(1001, 0.5) == 693 &&
		  scbf_math_capacity_paper(1001, 0.5) == 693,
		  "capacities of m = 1001 at P = 1/2: expected 693 693, got %llu %llu",
		  (unsigned long long) scbf_math_capacity_half_fill(1001, 0.5),
		  (unsigned long long) scbf_math_capacity_paper(1001, 0.5));
	CHECK(scbf_math_page_capacity(0, 8152, 0.01) == 0,
		  "page_capacity with 0 bits");
	CHECK(scbf_math_counters_required(0, 0.01) == 0 &&
		  scbf_math_counters_required(1, 0.5) == 2,
		  "counters_required small: %llu %llu",
		  (unsigned long long) scbf_math_counters_required(0, 0.01),
		  (unsigned long long) scbf_math_counters_required(1, 0.5));
	CHECK(scbf_math_fpr_at_half_fill(10) == 1.0 / 1024 &&
		  scbf_math_fpr_at_half_fill(1074) > 0.0 &&
		  scbf_math_fpr_at_half_fill(2000) == 0.0,
		  "fpr_at_half_fill edges");

	/* Table 4's b = 4 is exactly 2^-52, the double-precision artifact */
	x = scbf_math_paper_table4_naive(4);
	CHECK(x == ldexp(1.0, -52), "table4_naive(4): expected 2^-52, got %.17g",
		  x);
	x = scbf_math_paper_table4_naive(0);
	CHECK(fabs(x - 0.5) < 1e-15, "table4_naive(0): expected 1/2, got %.17g",
		  x);
	x = scbf_math_paper_table4_naive(40);
	CHECK(fabs(x) < 1e-15, "table4_naive(40): expected about 0, got %g", x);

	/* Table 2 printed / correct bound = e^-j (math.md section 3) */
	x = scbf_math_log10_paper_table2(16) - scbf_math_log10_stirling_bound(16);
	CHECK(fabs(x - -16.0 / log(10.0)) < 1e-12, "table2 / bound at j=16: "
		  "expected 10^%.12f, got 10^%.12f", -16.0 / log(10.0), x);
	GroupDone("edges: k rounding (1e-3 -> 10, 1e-6 -> 20, 2^-1074 -> 1074), "
			  "saturating conversions, degenerate sizes, Table 4 = 2^-52, "
			  "Table 2 = bound * e^-j");
}

int
main(int argc, char **argv)
{
	if (argc != 2)
	{
		fprintf(stderr, "usage: %s reference_values.tsv\n", argv[0]);
		return 2;
	}
	CheckReferenceFile(argv[1]);
	CheckTable1();
	CheckTailsDirect();
	CheckTailsExtreme();
	CheckAnyCounter();
	CheckSplit();
	CheckEdges();

	if (nfail_total)
	{
		printf("not ok - test_math: %d checks failed\n", nfail_total);
		return 1;
	}
	printf("ok - test_math: all checks passed\n");
	return 0;
}
