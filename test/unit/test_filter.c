/*-------------------------------------------------------------------------
 *
 * test_filter.c
 *	  Server-free unit test of the filter module, src/scbffilter.c.
 *
 * NOTES
 *	  Links scbffilter.c and libm only.  Prints one "ok - ..." or
 *	  "not ok - ..." line per group of checks, with a FAIL line (expected
 *	  and actual) for each failed check, and exits non-zero if any failed.
 *
 *	  Groups: sizing (k, fill, m, capacity and rows per page against their
 *	  definitions, and their clamps); pinned hash values (the on-disk
 *	  format depends on them: they were computed once, and cross-checked
 *	  against an independent Python implementation of XXH3's 4-byte path
 *	  and of the mix scheme); seeds; positions (range, determinism,
 *	  agreement with the research simulation's 128-bit fastrange,
 *	  uniformity, independence of the slices); the row-bit operations
 *	  against a plain model; and a band of filters probed as a scan probes
 *	  them, with no false negatives and the target false-positive rate.
 *	  Everything is deterministic (fixed seeds), so a failure always
 *	  reproduces.
 *
 * Portions Copyright (c) 2026, scbf developers
 *
 * IDENTIFICATION
 *	  test/unit/test_filter.c
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scbffilter.h"
#include "unit.h"

/* Seed of the column under test (any value will do) */
#define TEST_SEED		UINT64_C(0x5CBF5EED)

/* xorshift64*: deterministic test data, unrelated to the filter's mix */
static uint64_t rng_state = UINT64_C(0x853c49e6748fea9b);

static uint64_t
Rand64(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * UINT64_C(0x2545F4914F6CDD1D);
}

/* Uniform in [0, n), n >= 1 */
static uint32_t
RandBelow(uint32_t n)
{
	return (uint32_t) ((Rand64() >> 32) % n);
}

/* ---------------------------------------------------------------- sizing */

/*
 * k, fill, m and capacity of the filters against their definitions, at
 * rates from 1/4 to below the smallest normal double, and the clamps.
 */
static void
TestRowsSizing(void)
{
	static const struct
	{
		double		fpr;
		int			k;
	}			cases[] = {{0.25, 1}, {0.01, 3}, {0.001, 4}, {1e-4, 5},
	{1e-6, 8}, {1e-9, 8}};
	static const double bad[] = {0.0, 1.0, -0.5, 2.0, HUGE_VAL, -HUGE_VAL};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		int			k = scbf_rows_k(cases[i].fpr);
		double		fill = scbf_rows_fill(cases[i].fpr, (uint32_t) k);
		uint32_t	m = scbf_rows_m(10000, fill);
		uint32_t	cap = scbf_rows_capacity(m, fill);

		CHECK(k == cases[i].k, "rows_k(%g) = %d, expected %d", cases[i].fpr,
			  k, cases[i].k);
		CHECK(fabs(pow(fill, k) - cases[i].fpr) < 1e-9 * cases[i].fpr + 1e-15,
			  "fill^k = %g for %g", pow(fill, k), cases[i].fpr);
		CHECK(m == (uint32_t) ceil(10000 / -log1p(-fill)),
			  "rows_m(10000, %g) = %u", fill, m);
		CHECK(cap >= 10000 && cap < 10000 + 2,
			  "capacity of m for 10000 keys at %g: %u", cases[i].fpr, cap);
	}

	/* k = ceil(log2(1/P) / 2.7): both sides of each step */
	for (int k = 1; k < SCBF_ROWS_MAX_K; k++)
	{
		double		step = pow(2.0, -SCBF_ROWS_K_DIVISOR * k);

		CHECK(scbf_rows_k(step * 1.0001) == k &&
			  scbf_rows_k(step * 0.9999) == k + 1,
			  "rows_k around 2^-(2.7 * %d): %d and %d", k,
			  scbf_rows_k(step * 1.0001), scbf_rows_k(step * 0.9999));
	}
	CHECK(scbf_rows_k(5e-324) == SCBF_ROWS_MAX_K &&
		  scbf_rows_k(nextafter(1.0, 0.0)) == 1,
		  "rows_k clamps to [1, %d]: %d %d", SCBF_ROWS_MAX_K,
		  scbf_rows_k(5e-324), scbf_rows_k(nextafter(1.0, 0.0)));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(scbf_rows_k(bad[i]) == SCBF_FILTER_EINVAL,
			  "rows_k(%g) = %d, expected EINVAL", bad[i], scbf_rows_k(bad[i]));
	CHECK(scbf_rows_k(nan("")) == SCBF_FILTER_EINVAL, "rows_k(NaN) accepted");

	CHECK(scbf_rows_fill(0.25, 2) == 0.5 && scbf_rows_fill(0.25, 0) == 0.25,
		  "rows_fill: %g %g", scbf_rows_fill(0.25, 2), scbf_rows_fill(0.25, 0));
	CHECK(scbf_rows_m(0, 0.2) == 1 && scbf_rows_m(-5, 0.2) == 1 &&
		  scbf_rows_m(100, 0.0) == 1 && scbf_rows_m(100, 1.0) == 1 &&
		  scbf_rows_m(nan(""), 0.2) == 1 && scbf_rows_m(1e-9, 0.5) == 1,
		  "degenerate rows_m is not 1");
	CHECK(scbf_rows_m(1e12, 0.01) == UINT32_MAX &&
		  scbf_rows_m(HUGE_VAL, 0.5) == UINT32_MAX,
		  "rows_m does not clamp to UINT32_MAX: %u",
		  scbf_rows_m(1e12, 0.01));
	CHECK(scbf_rows_capacity(1, 0.0) == 1 && scbf_rows_capacity(1, 1.0) == 1 &&
		  scbf_rows_capacity(0, 0.5) == 1 && scbf_rows_capacity(1, 0.01) == 1,
		  "degenerate capacity is not 1");
	CHECK(scbf_rows_capacity(UINT32_MAX, nextafter(1.0, 0.0)) == UINT32_MAX,
		  "capacity does not clamp to UINT32_MAX: %u",
		  scbf_rows_capacity(UINT32_MAX, nextafter(1.0, 0.0)));
	CHECK(scbf_rows_capacity(1000, 0.5) == 693 &&
		  scbf_rows_m(693, 0.5) == 1000,
		  "m and capacity at half fill: %u %u",
		  scbf_rows_capacity(1000, 0.5), scbf_rows_m(693, 0.5));

	CHECK(scbf_rows_per_page(8000, 64) == 1000 &&
		  scbf_rows_per_page(8000, 4096) == 15 &&
		  scbf_rows_per_page(8000, 64008) == 0 &&
		  scbf_rows_per_page(8000, 0) == 0,
		  "rows per page: %u %u %u %u", scbf_rows_per_page(8000, 64),
		  scbf_rows_per_page(8000, 4096), scbf_rows_per_page(8000, 64008),
		  scbf_rows_per_page(8000, 0));
	GroupDone("sizing: k, fill, m, capacity and rows per page of the filters, "
			  "clamps and EINVAL");
}

/* --------------------------------------------------------------- hashing */

static void
TestPinnedHashes(void)
{
	/*
	 * Computed once with this module and, independently, with a Python
	 * transcription of XXH3_len_4to8_64b and of the mix scheme.  A change
	 * here changes every index on disk.  A slice's position does not
	 * depend on k, so the positions of slices beyond SCBF_ROWS_MAX_K
	 * are checked one at a time.
	 */
	static const struct
	{
		uint32_t	value_hash;
		uint64_t	seed;
		uint64_t	key;
	}			keys[] = {
		{0, 0, UINT64_C(0x48B2C92616FC193D)},
		{1, 0, UINT64_C(0xDB02334E96D65708)},
		{0x5CBF, UINT64_C(0x5CBF5EED), UINT64_C(0x44935F67E652B5E0)},
		{0xDEADBEEF, 42, UINT64_C(0xC8B11E4C8A6C4367)},
		{0xFFFFFFFF, UINT64_MAX, UINT64_C(0x5957E93862E6F3CE)},
		{12345, UINT64_C(0x0123456789ABCDEF), UINT64_C(0x6C274D52BEFB5682)},
	};
	static const uint32_t pos_7_2233[7] = {646, 230, 2001, 1839, 1355, 1717,
	344};
	static const uint32_t pos_10_1563[10] = {131, 1303, 290, 994, 7, 126,
	1129, 837, 1523, 235};
	static const uint32_t pos_16_65535[16] = {58584, 59807, 14383, 27933,
		46239, 54044, 61774, 16477, 50429, 798, 946, 52852, 457, 56720, 13644,
	44269};
	scbf_filter_geometry g;
	uint32_t	pos[SCBF_ROWS_MAX_K];
	uint32_t	p;
	uint64_t	key;
	size_t		i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
	{
		key = scbf_filter_key(keys[i].value_hash, keys[i].seed);
		CHECK(key == keys[i].key,
			  "key(0x%X, 0x%llX): expected 0x%016llX, got 0x%016llX",
			  keys[i].value_hash, (unsigned long long) keys[i].seed,
			  (unsigned long long) keys[i].key, (unsigned long long) key);
	}

	g.k = 7;
	g.m = 2233;
	scbf_filter_positions(UINT64_C(0x44935F67E652B5E0), &g, pos);
	for (i = 0; i < 7; i++)
		CHECK(pos[i] == pos_7_2233[i],
			  "k=7 m=2233 pos[%zu]: expected %u, got %u", i, pos_7_2233[i],
			  pos[i]);
	g.k = SCBF_ROWS_MAX_K;
	g.m = 1563;
	scbf_filter_positions(UINT64_C(0x0123456789ABCDEF), &g, pos);
	for (i = 0; i < SCBF_ROWS_MAX_K; i++)
		CHECK(pos[i] == pos_10_1563[i],
			  "k=%d m=1563 pos[%zu]: expected %u, got %u", SCBF_ROWS_MAX_K,
			  i, pos_10_1563[i], pos[i]);
	for (i = 0; i < 10; i++)
	{
		p = scbf_filter_position(UINT64_C(0x0123456789ABCDEF), &g, i);
		CHECK(p == pos_10_1563[i],
			  "m=1563 position(%zu): expected %u, got %u", i, pos_10_1563[i],
			  p);
	}
	g.m = 65535;
	for (i = 0; i < 16; i++)
	{
		p = scbf_filter_position(UINT64_MAX, &g, i);
		CHECK(p == pos_16_65535[i],
			  "m=65535 position(%zu): expected %u, got %u", i, pos_16_65535[i],
			  p);
	}

	/*
	 * A key whose slice 9 position needs the full 64-bit fastrange: taking
	 * only the mix's high 32 bits would give 55.
	 */
	g.m = 2233;
	p = scbf_filter_position(50389, &g, 9);
	CHECK(p == 56, "key 50389, m=2233, position(9): expected 56, got %u", p);
	GroupDone("hashing: pinned keys and positions");
}

static int
CompareU64(const void *a, const void *b)
{
	uint64_t	x = *(const uint64_t *) a;
	uint64_t	y = *(const uint64_t *) b;

	return (x > y) - (x < y);
}

static void
TestSeeds(void)
{
	static const uint64_t seeds[] = {0, 1, TEST_SEED, UINT64_MAX};
	enum
	{
		NVALUES = 20000, NSEEDS = 4
	};
	uint64_t   *keys = malloc(sizeof(uint64_t) * NVALUES * NSEEDS);
	int			ndup = 0;
	int			nsame = 0;
	uint32_t	v;
	int			s;
	int			i;

	for (v = 0; v < NVALUES; v++)
	{
		for (s = 0; s < NSEEDS; s++)
			keys[v * NSEEDS + s] = scbf_filter_key(v * 2654435761u, seeds[s]);
		if (scbf_filter_key(v, seeds[2]) != scbf_filter_key(v, seeds[2]))
			nsame++;
	}
	qsort(keys, NVALUES * NSEEDS, sizeof(uint64_t), CompareU64);
	for (i = 1; i < NVALUES * NSEEDS; i++)
		if (keys[i] == keys[i - 1])
			ndup++;
	CHECK(ndup == 0, "%d equal keys among %d (value, seed) pairs, expected 0",
		  ndup, NVALUES * NSEEDS);
	CHECK(nsame == 0, "key() not deterministic for %d values", nsame);
	free(keys);
	GroupDone("hashing: %d values x %d seeds give %d distinct keys",
			  NVALUES, NSEEDS, NVALUES * NSEEDS);
}

/*
 * Pearson's chi-square statistic of counts against a uniform expectation.
 */
static double
ChiSquare(const uint32_t *counts, uint32_t ncells, uint32_t total)
{
	double		expected = (double) total / ncells;
	double		chi2 = 0.0;
	uint32_t	i;

	for (i = 0; i < ncells; i++)
		chi2 += (counts[i] - expected) * (counts[i] - expected) / expected;
	return chi2;
}

/*
 * The research simulation's position of a key in slice i (sim/scbf_sim.c,
 * scheme "mix"), with a 128-bit product where the compiler has one.
 */
#ifdef __SIZEOF_INT128__
static uint32_t
SimPosition(uint64_t key, uint32_t i, uint32_t m)
{
	uint64_t	z = key + (uint64_t) (i + 1) * UINT64_C(0x9e3779b97f4a7c15);

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	z ^= z >> 31;
	return (uint32_t) (((unsigned __int128) z * m) >> 64);
}
#endif

static void
TestPositions(void)
{
	static const uint32_t ms[] = {1, 2, 3, 7, 2233, 65535, 1000003,
	UINT32_MAX};
	scbf_filter_geometry g;
	uint32_t	pos[SCBF_ROWS_MAX_K];
	uint32_t	pos2[SCBF_ROWS_MAX_K];
	uint32_t	hist[SCBF_ROWS_MAX_K][10];
	uint32_t	pair[64];
	uint32_t	i;
	uint32_t	j;
	size_t		mi;
	int			nout = 0;
	int			nchanged = 0;
	int			nsim = 0;
	double		chi2;
	double		worst = 0.0;
	double		worst_pair = 0.0;

	/* range, determinism, and positions() = position() slice by slice */
	g.k = SCBF_ROWS_MAX_K;
	for (mi = 0; mi < sizeof(ms) / sizeof(ms[0]); mi++)
	{
		g.m = ms[mi];
		for (i = 0; i < 20000; i++)
		{
			uint64_t	key = scbf_filter_key(i, 11);

			scbf_filter_positions(key, &g, pos);
			for (j = 0; j < g.k; j++)
				pos2[j] = scbf_filter_position(key, &g, j);
			for (j = 0; j < g.k; j++)
			{
				if (pos[j] >= g.m)
					nout++;
				if (pos[j] != pos2[j])
					nchanged++;
			}
		}
	}
	CHECK(nout == 0, "%d positions out of range", nout);
	CHECK(nchanged == 0, "%d positions differ between positions() and "
		  "position()", nchanged);

	/* the research simulation's scheme, bit for bit, any m */
#ifdef __SIZEOF_INT128__
	for (i = 0; i < 200000; i++)
	{
		uint64_t	key = Rand64();

		g.m = (i % 2) ? 1 + RandBelow(65535) : 1 + RandBelow(UINT32_MAX);
		scbf_filter_positions(key, &g, pos);
		for (j = 0; j < g.k; j++)
		{
			uint32_t	expected = SimPosition(key, j, g.m);

			if (pos[j] != expected)
			{
				CHECK(pos[j] == expected,
					  "key 0x%016llX m=%u pos[%u]: simulation %u, got %u",
					  (unsigned long long) key, g.m, j, expected, pos[j]);
				nsim++;
			}
		}
	}
#endif

	/* each slice uniform over m = 10 (9 dof: P(chi2 > 40) < 1e-5) */
	memset(hist, 0, sizeof(hist));
	g.m = 10;
	for (i = 0; i < 100000; i++)
	{
		scbf_filter_positions(scbf_filter_key(i, 13), &g, pos);
		for (j = 0; j < g.k; j++)
			hist[j][pos[j]]++;
	}
	for (j = 0; j < g.k; j++)
	{
		chi2 = ChiSquare(hist[j], 10, 100000);
		if (chi2 > worst)
			worst = chi2;
		CHECK(chi2 < 40.0, "slice %u over m=10: chi-square %.1f, at most 40",
			  j, chi2);
	}

	/*
	 * Slices independent of each other: joint counts of (pos[j - 1],
	 * pos[j]) over 8 x 8 cells (63 dof: P(chi2 > 120) < 1e-5).
	 */
	g.m = 8;
	for (j = 1; j < g.k; j++)
	{
		memset(pair, 0, sizeof(pair));
		for (i = 0; i < 256000; i++)
		{
			scbf_filter_positions(scbf_filter_key(i, 17), &g, pos);
			pair[pos[j - 1] * 8 + pos[j]]++;
		}
		chi2 = ChiSquare(pair, 64, 256000);
		if (chi2 > worst_pair)
			worst_pair = chi2;
		CHECK(chi2 < 120.0, "(pos[%u], pos[%u]) over 8x8: chi-square %.1f, "
			  "at most 120", j - 1, j, chi2);
	}

#ifdef __SIZEOF_INT128__
	GroupDone("positions: in range, deterministic, equal to the simulation's "
			  "128-bit fastrange (%d differ), uniform and independent "
			  "(worst chi-square %.1f per slice, %.1f per pair)", nsim, worst,
			  worst_pair);
#else
	GroupDone("positions: in range, deterministic, uniform and independent "
			  "(worst chi-square %.1f per slice, %.1f per pair; no 128-bit "
			  "type, simulation cross-check skipped)", worst, worst_pair);
#endif
}

/* ------------------------------------------------------------- row bits */

/*
 * Bit operations on a row space of rows `width` bits wide: set/test/clear,
 * AND and the scan of set bits agree with a plain model.
 */
static void
TestRowsBitsOfWidth(uint32_t WIDTH)
{
	enum
	{
		MAXWIDTH = 192, ROWS = 40
	};
	uint8_t		space[MAXWIDTH * ROWS / 8];
	bool		model[ROWS][MAXWIDTH];
	uint8_t		acc[MAXWIDTH / 8];

	memset(space, 0, sizeof(space));
	memset(model, 0, sizeof(model));
	rng_state = UINT64_C(0x853c49e6748fea9b);
	for (int i = 0; i < 5000; i++)
	{
		uint32_t	r = (uint32_t) (Rand64() % ROWS);
		uint32_t	c = (uint32_t) (Rand64() % WIDTH);

		if (Rand64() % 4 == 0)
		{
			scbf_rows_clear(space, r, WIDTH, c);
			model[r][c] = false;
		}
		else
		{
			bool		was = scbf_rows_set(space, r, WIDTH, c);

			CHECK(was == !model[r][c], "set(%u, %u) said %d", r, c, was);
			model[r][c] = true;
		}
	}
	for (uint32_t r = 0; r < ROWS; r++)
		for (uint32_t c = 0; c < WIDTH; c++)
			CHECK(scbf_rows_test(space, r, WIDTH, c) == model[r][c],
				  "test(%u, %u)", r, c);

	for (int t = 0; t < 200; t++)
	{
		uint32_t	rows[3];
		uint32_t	c;
		uint32_t	expect = 0;
		uint32_t	got = 0;

		memset(acc, 0xFF, WIDTH / 8);
		for (int j = 0; j < 3; j++)
		{
			rows[j] = (uint32_t) (Rand64() % ROWS);
			scbf_rows_and(acc, space, rows[j], WIDTH);
		}
		for (c = 0; c < WIDTH; c++)
			expect += model[rows[0]][c] && model[rows[1]][c] && model[rows[2]][c];
		for (c = scbf_rows_next(acc, WIDTH, 0); c < WIDTH;
			 c = scbf_rows_next(acc, WIDTH, c + 1))
		{
			CHECK(model[rows[0]][c] && model[rows[1]][c] && model[rows[2]][c],
				  "next found column %u not in all three rows", c);
			got++;
		}
		CHECK(got == expect, "AND of three rows: %u columns, expected %u",
			  got, expect);
	}
}

/*
 * The row operations at a width of whole 64-bit words and at one that
 * ends in a partial word (row widths are multiples of 8).
 */
static void
TestRowsBits(void)
{
	TestRowsBitsOfWidth(192);
	TestRowsBitsOfWidth(72);
	GroupDone("rows: set, clear, test, AND and next agree with a model (widths 192, 72)");
}

/*
 * A band of F filters at the default rate (P = 1e-4, k = 5): each
 * filter takes its capacity of distinct keys, absent keys are probed the
 * way a scan does (AND of k rows), and the share of filters that say
 * "maybe" must be P; every filter must say "maybe" for its own keys.
 */
static void
TestRowsBand(void)
{
	enum
	{
		F = 64, PROBES = 40000
	};
	double		fpr = 1e-4;
	scbf_filter_geometry geom;
	double		fill;
	uint32_t	cap;
	uint8_t    *band;
	uint8_t		acc[F / 8];
	uint32_t	pos[SCBF_ROWS_MAX_K];
	uint64_t	maybe = 0;
	int			misses = 0;
	double		measured;
	double		sigma;

	geom.k = (uint32_t) scbf_rows_k(fpr);
	fill = scbf_rows_fill(fpr, geom.k);
	geom.m = scbf_rows_m(2000, fill);
	cap = scbf_rows_capacity(geom.m, fill);
	band = calloc((size_t) geom.k * geom.m, F / 8);

	/* filter c holds the value hashes c * 1e6 + 0 .. cap - 1 */
	for (uint32_t c = 0; c < F; c++)
		for (uint32_t i = 0; i < cap; i++)
		{
			scbf_filter_positions(scbf_filter_key(c * 1000000u + i, 7),
								  &geom, pos);
			for (uint32_t s = 0; s < geom.k; s++)
				(void) scbf_rows_set(band, s * geom.m + pos[s], F, c);
		}

	/* present keys: their filter is always a candidate */
	for (uint32_t c = 0; c < F; c++)
		for (uint32_t i = 0; i < cap; i += 97)
		{
			memset(acc, 0xFF, sizeof(acc));
			scbf_filter_positions(scbf_filter_key(c * 1000000u + i, 7),
								  &geom, pos);
			for (uint32_t s = 0; s < geom.k; s++)
				scbf_rows_and(acc, band, s * geom.m + pos[s], F);
			misses += !scbf_rows_test(acc, 0, F, c);
		}
	CHECK(misses == 0, "%d present keys not found in their filter", misses);

	/* absent keys: hashes no filter holds */
	for (uint32_t t = 0; t < PROBES; t++)
	{
		memset(acc, 0xFF, sizeof(acc));
		scbf_filter_positions(scbf_filter_key(900000000u + t, 7), &geom, pos);
		for (uint32_t s = 0; s < geom.k; s++)
			scbf_rows_and(acc, band, s * geom.m + pos[s], F);
		for (uint32_t c = scbf_rows_next(acc, F, 0); c < F;
			 c = scbf_rows_next(acc, F, c + 1))
			maybe++;
	}
	measured = (double) maybe / ((double) PROBES * F);
	sigma = sqrt(fpr / ((double) PROBES * F));
	CHECK(fabs(measured - fpr) < 4 * sigma + 0.1 * fpr,
		  "measured per-filter rate %.6f, target %g", measured, fpr);
	free(band);
	GroupDone("rows: a band of %d filters, k=%u m=%u, %u keys each: "
			  "per-filter rate %.2e for target %g, no present key missed",
			  F, geom.k, geom.m, cap, measured, fpr);
}

/*
 * Rows of any width (a group of bands' summary): set, clear and test touch
 * bit row * width + col and no other, as a model says.
 */
static void
TestRowsOddWidths(void)
{
	for (uint32_t width = 1; width <= 13; width += 2)
	{
		enum
		{
			ROWS = 97
		};
		uint8_t		space[(ROWS * 13 + 7) / 8];
		uint8_t		model[ROWS * 13];
		int			bad = 0;

		memset(space, 0, sizeof(space));
		memset(model, 0, sizeof(model));
		for (uint32_t i = 0; i < 400; i++)
		{
			uint32_t	r = (i * 7919u) % ROWS;
			uint32_t	c = (i * 31u) % width;
			bool		was_clear = scbf_rows_set(space, r, width, c);

			bad += was_clear != !model[r * width + c];
			model[r * width + c] = 1;
			if (i % 3 == 0)
			{
				scbf_rows_clear(space, (r + 5) % ROWS, width, (c + 1) % width);
				model[((r + 5) % ROWS) * width + (c + 1) % width] = 0;
			}
		}
		for (uint32_t r = 0; r < ROWS; r++)
			for (uint32_t c = 0; c < width; c++)
				bad += scbf_rows_test(space, r, width, c) != model[r * width + c];
		CHECK(bad == 0, "width %u: %d bits disagree with the model", width, bad);
	}
	GroupDone("rows of odd widths (1 .. 13): set, clear and test agree with a model");
}

/*
 * A band's summary (scbf_summary_rows): a key's rows lie in one block of
 * the summary; a summary of n keys at SCBF_SUMMARY_KEY_BITS bits a key
 * finds every key it holds, and says "maybe" for absent keys at the rate
 * of a blocked Bloom filter: the mean over the Poisson-spread number j of
 * keys in a block of (1 - (1 - 1/512)^(9j))^9.
 */
static void
TestSummary(void)
{
	enum
	{
		N = 200000, PROBES = 400000
	};
	uint32_t	nblocks = (uint32_t) ((uint64_t) N * SCBF_SUMMARY_KEY_BITS /
									  SCBF_SUMMARY_BLOCK_BITS);
	uint8_t    *bits = calloc((size_t) nblocks * SCBF_SUMMARY_BLOCK_BITS / 8, 1);
	uint64_t	rows[SCBF_SUMMARY_K];
	int			outside = 0;
	int			misses = 0;
	uint64_t	maybe = 0;
	double		lambda = (double) N / nblocks;
	double		expected = 0;
	double		pj = exp(-lambda);
	double		measured;
	double		sigma;

	for (uint32_t i = 0; i < N; i++)
	{
		scbf_summary_rows(scbf_filter_key(i, 11), nblocks, rows);
		for (int b = 0; b < SCBF_SUMMARY_K; b++)
		{
			outside += rows[b] / SCBF_SUMMARY_BLOCK_BITS !=
				rows[0] / SCBF_SUMMARY_BLOCK_BITS ||
				rows[b] >= (uint64_t) nblocks * SCBF_SUMMARY_BLOCK_BITS;
			(void) scbf_rows_set(bits, (uint32_t) rows[b], 1, 0);
		}
	}
	CHECK(outside == 0, "%d rows outside their key's block or the summary", outside);
	for (uint32_t i = 0; i < N; i += 13)
	{
		scbf_summary_rows(scbf_filter_key(i, 11), nblocks, rows);
		for (int b = 0; b < SCBF_SUMMARY_K; b++)
			if (!scbf_rows_test(bits, (uint32_t) rows[b], 1, 0))
			{
				misses++;
				break;
			}
	}
	CHECK(misses == 0, "%d present keys not found in the summary", misses);
	for (uint32_t t = 0; t < PROBES; t++)
	{
		int			b;

		scbf_summary_rows(scbf_filter_key(800000000u + t, 11), nblocks, rows);
		for (b = 0; b < SCBF_SUMMARY_K; b++)
			if (!scbf_rows_test(bits, (uint32_t) rows[b], 1, 0))
				break;
		maybe += b == SCBF_SUMMARY_K;
	}
	for (int j = 0; j < 200; j++)
	{
		expected += pj * pow(1 - pow(1 - 1.0 / SCBF_SUMMARY_BLOCK_BITS,
									 (double) SCBF_SUMMARY_K * j),
							 SCBF_SUMMARY_K);
		pj *= lambda / (j + 1);
	}
	measured = (double) maybe / PROBES;
	sigma = sqrt(expected / PROBES);
	CHECK(fabs(measured - expected) < 4 * sigma + 0.1 * expected,
		  "summary rate %.2e, a blocked Bloom filter's %.2e", measured, expected);
	free(bits);
	GroupDone("summary: %u keys in %u blocks, every key found, rate %.2e "
			  "(blocked Bloom filter: %.2e)", (uint32_t) N, nblocks, measured,
			  expected);
}

/*
 * A summary past 2^32 rows (a top over groups, whose column holds a whole
 * group's keys): a key's rows lie in one block below the summary's end,
 * and the blocks past 2^32 rows are reached.
 */
static void
TestSummaryWide(void)
{
	uint32_t	nblocks = 0xF0000000u;
	uint64_t	end = (uint64_t) nblocks * SCBF_SUMMARY_BLOCK_BITS;
	uint64_t	rows[SCBF_SUMMARY_K];
	int			outside = 0;
	int			high = 0;

	for (uint32_t i = 0; i < 10000; i++)
	{
		scbf_summary_rows(scbf_filter_key(i, 11), nblocks, rows);
		for (int b = 0; b < SCBF_SUMMARY_K; b++)
			outside += rows[b] / SCBF_SUMMARY_BLOCK_BITS !=
				rows[0] / SCBF_SUMMARY_BLOCK_BITS || rows[b] >= end;
		high += rows[0] >= ((uint64_t) 1 << 32);
	}
	CHECK(outside == 0, "%d rows outside their key's block or the summary", outside);
	CHECK(high > 9000, "only %d of 10000 keys past 2^32 rows", high);
	GroupDone("summary of %u blocks: rows past 2^32 (%d of 10000 keys)",
			  nblocks, high);
}

int
main(void)
{
	TestRowsSizing();
	TestPinnedHashes();
	TestSeeds();
	TestPositions();
	TestRowsBits();
	TestRowsBand();
	TestRowsOddWidths();
	TestSummary();
	TestSummaryWide();

	if (nfail_total)
	{
		printf("not ok - test_filter: %d checks failed\n", nfail_total);
		return 1;
	}
	printf("ok - test_filter: all checks passed\n");
	return 0;
}
