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
 *	  Groups: sizing (k, m, bytes, block capacity against a direct search,
 *	  blocks_for); pinned hash values (the on-disk format depends on them:
 *	  they were computed once, and cross-checked against an independent
 *	  Python implementation of XXH3's 4-byte path and of the mix scheme);
 *	  seeds, block choice and positions (range, determinism, agreement with
 *	  the research simulation's 128-bit fastrange, uniformity); nibble
 *	  packing; clear; sticky saturation; underflow; a random walk of adds
 *	  and removes against a plain model of the counters, with the
 *	  bookkeeping compared to a census after every step; round trips with
 *	  no false negatives; and the measured false-positive rate against
 *	  scbf_filter_state_fpr at the block capacity.  Everything is
 *	  deterministic (fixed seeds), so a failure always reproduces.
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

/*
 * Counter bytes of a filter page in the first page layout (the server's is
 * SCBF_FILTER_COUNTER_BYTES, 7824 now): the tests need a realistic size,
 * and the pinned positions below were computed for this one.
 */
#define PAGE_BYTES		7816

/* Bytes after a block that must never be touched */
#define SENTINEL_BYTES	16
#define SENTINEL		0xA5

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

/*
 * A block under test: counters, sentinel bytes after them, bookkeeping.
 */
typedef struct TestBlock
{
	scbf_filter_geometry geom;
	uint8_t		counters[PAGE_BYTES + SENTINEL_BYTES];
	uint16_t	nonzero[SCBF_FILTER_MAX_K];
	uint32_t	nsaturated;
} TestBlock;

/*
 * BlockInit
 *		Empty block of the given geometry, sentinel after its counters.
 */
static void
BlockInit(TestBlock *b, uint32_t k, uint32_t m)
{
	size_t		nbytes;

	memset(b, 0, sizeof(*b));
	b->geom.k = k;
	b->geom.m = m;
	nbytes = scbf_filter_bytes(&b->geom);
	if (nbytes > PAGE_BYTES)
	{
		printf("FAIL test setup: geometry k=%u m=%u too big\n", k, m);
		exit(2);
	}
	memset(b->counters + nbytes, SENTINEL, SENTINEL_BYTES);
}

/*
 * BlockInitFpr
 *		Empty block with a page's counter space, sized for target fpr.
 */
static void
BlockInitFpr(TestBlock *b, double fpr)
{
	scbf_filter_geometry g;

	if (scbf_filter_geometry_for_bytes(fpr, PAGE_BYTES, &g) != SCBF_FILTER_OK)
	{
		printf("FAIL test setup: no geometry for fpr %g\n", fpr);
		exit(2);
	}
	BlockInit(b, g.k, g.m);
}

/* Positions of value hash h in block b */
static void
KeyPos(const TestBlock *b, uint32_t h, uint32_t *pos)
{
	scbf_filter_positions(scbf_filter_key(h, TEST_SEED), &b->geom, pos);
}

static int
AddHash(TestBlock *b, uint32_t h)
{
	uint32_t	pos[SCBF_FILTER_MAX_K];

	KeyPos(b, h, pos);
	return scbf_filter_add(b->counters, b->nonzero, &b->nsaturated,
						   &b->geom, pos);
}

static int
RemoveHash(TestBlock *b, uint32_t h)
{
	uint32_t	pos[SCBF_FILTER_MAX_K];

	KeyPos(b, h, pos);
	return scbf_filter_remove(b->counters, b->nonzero, &b->nsaturated,
							  &b->geom, pos);
}

static bool
TestHash(const TestBlock *b, uint32_t h)
{
	uint32_t	pos[SCBF_FILTER_MAX_K];

	KeyPos(b, h, pos);
	return scbf_filter_test(b->counters, &b->geom, pos);
}

static int
AddPos(TestBlock *b, const uint32_t *pos)
{
	return scbf_filter_add(b->counters, b->nonzero, &b->nsaturated,
						   &b->geom, pos);
}

static int
RemovePos(TestBlock *b, const uint32_t *pos)
{
	return scbf_filter_remove(b->counters, b->nonzero, &b->nsaturated,
							  &b->geom, pos);
}

/* Counter of slice i at position p */
static unsigned
Counter(const TestBlock *b, uint32_t i, uint32_t p)
{
	return scbf_filter_get(b->counters, i * b->geom.m + p);
}

/*
 * CheckBookkeeping
 *		nonzero[] and nsaturated must equal a census of the counters, and
 *		the bytes after the block must be untouched.  Returns true if so.
 */
static bool
CheckBookkeeping(const TestBlock *b, const char *when)
{
	uint16_t	nz[SCBF_FILTER_MAX_K];
	uint32_t	sat;
	uint32_t	hist[SCBF_FILTER_COUNTER_MAX + 1];
	uint32_t	total = 0;
	size_t		nbytes = scbf_filter_bytes(&b->geom);
	int			before = nfail_group;
	uint32_t	i;

	scbf_filter_census(b->counters, &b->geom, nz, &sat, hist);
	for (i = 0; i < b->geom.k; i++)
		CHECK(nz[i] == b->nonzero[i],
			  "%s: slice %u nonzero: census %u, bookkeeping %u",
			  when, i, nz[i], b->nonzero[i]);
	CHECK(sat == b->nsaturated, "%s: nsaturated: census %u, bookkeeping %u",
		  when, sat, b->nsaturated);
	CHECK(hist[SCBF_FILTER_COUNTER_MAX] == sat,
		  "%s: hist[15] %u, census nsaturated %u", when,
		  hist[SCBF_FILTER_COUNTER_MAX], sat);
	for (i = 0; i <= SCBF_FILTER_COUNTER_MAX; i++)
		total += hist[i];
	CHECK(total == b->geom.k * b->geom.m, "%s: histogram sums to %u, not %u",
		  when, total, b->geom.k * b->geom.m);
	for (i = 0; i < SENTINEL_BYTES; i++)
		CHECK(b->counters[nbytes + i] == SENTINEL,
			  "%s: byte %u after the block changed to 0x%02x", when, i,
			  b->counters[nbytes + i]);
	return nfail_group == before;
}

/* ---------------------------------------------------------------- sizing */

static void
TestOptimalK(void)
{
	static const struct
	{
		double		fpr;
		int			k;
	}			cases[] = {
		{0.9, 1}, {0.5, 1}, {0.4999, 2}, {0.25, 2}, {0.1, 4}, {0.05, 5},
		{0.01, 7}, {0.005, 8}, {0.001, 10}, {1.0 / 1024, 10},
		{0.0009765, 11}, {1e-4, 14}, {3e-5, 16}, {1.0 / 65536, 16},
		{1e-5, SCBF_FILTER_MAX_K},	/* 17, clamped */
		{1e-6, SCBF_FILTER_MAX_K},	/* 20, clamped */
		{1e-9, SCBF_FILTER_MAX_K}, {1e-300, SCBF_FILTER_MAX_K},
		{0.0, SCBF_FILTER_EINVAL}, {1.0, SCBF_FILTER_EINVAL},
		{-0.01, SCBF_FILTER_EINVAL}, {1.5, SCBF_FILTER_EINVAL},
	};
	size_t		i;
	int			k;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		k = scbf_filter_optimal_k(cases[i].fpr);
		CHECK(k == cases[i].k, "optimal_k(%g): expected %d, got %d",
			  cases[i].fpr, cases[i].k, k);
	}
	k = scbf_filter_optimal_k(nan(""));
	CHECK(k == SCBF_FILTER_EINVAL, "optimal_k(NaN): expected EINVAL, got %d",
		  k);

	/*
	 * A rate a rounding error below 2^-k still gives k, not k + 1: the
	 * epsilon of ceil(log2(1/P) - 1e-12), as in research's analysis.py
	 * (log2(1/P) comes out a little above 2 and 7 here).
	 */
	k = scbf_filter_optimal_k(nextafter(0.25, 0.0));
	CHECK(k == 2, "optimal_k(2^-2 - 1 ulp): expected 2, got %d", k);
	k = scbf_filter_optimal_k(nextafter(nextafter(nextafter(1.0 / 128, 0.0),
												  0.0), 0.0));
	CHECK(k == 7, "optimal_k(2^-7 - 3 ulp): expected 7, got %d", k);

	/* for every k below the maximum, 2^-k gives exactly k */
	for (i = 1; i <= SCBF_FILTER_MAX_K; i++)
	{
		k = scbf_filter_optimal_k(ldexp(1.0, -(int) i));
		CHECK(k == (int) i, "optimal_k(2^-%zu): expected %zu, got %d", i, i, k);
	}
	GroupDone("sizing: k = ceil(log2(1/P)) for %zu rates, clamped, EINVAL",
			  sizeof(cases) / sizeof(cases[0]) + 3 + SCBF_FILTER_MAX_K);
}

static void
TestGeometry(void)
{
	static const struct
	{
		double		fpr;
		size_t		nbytes;
		int			rc;
		uint32_t	k;
		uint32_t	m;
	}			cases[] = {
		{0.01, PAGE_BYTES, SCBF_FILTER_OK, 7, 2233},
		{0.001, PAGE_BYTES, SCBF_FILTER_OK, 10, 1563},
		{0.1, PAGE_BYTES, SCBF_FILTER_OK, 4, 3908},
		{0.5, PAGE_BYTES, SCBF_FILTER_OK, 1, 15632},
		{1e-6, PAGE_BYTES, SCBF_FILTER_OK, 16, 977},
		{0.01, 7, SCBF_FILTER_OK, 7, 2},
		{0.01, 4, SCBF_FILTER_OK, 7, 1},
		{0.01, 3, SCBF_FILTER_ETOOSMALL, 0, 0},
		{0.01, 0, SCBF_FILTER_ETOOSMALL, 0, 0},
		{0.5, 1, SCBF_FILTER_OK, 1, 2},
		{0.5, 32767, SCBF_FILTER_OK, 1, 65534},
		{0.5, 32768, SCBF_FILTER_OK, 1, SCBF_FILTER_MAX_M},
		{0.5, 1000000, SCBF_FILTER_OK, 1, SCBF_FILTER_MAX_M},
		{0.01, (size_t) -1, SCBF_FILTER_OK, 7, SCBF_FILTER_MAX_M},
		{0.0, PAGE_BYTES, SCBF_FILTER_EINVAL, 0, 0},
		{1.0, PAGE_BYTES, SCBF_FILTER_EINVAL, 0, 0},
	};
	static const struct
	{
		uint32_t	k;
		uint32_t	m;
		size_t		bytes;
	}			sizes[] = {
		{1, 1, 1}, {1, 2, 1}, {3, 5, 8}, {7, 2233, 7816}, {16, 65535, 524280},
		{1, 65535, 32768}, {15, 65535, 491513},
	};
	scbf_filter_geometry g;
	size_t		i;
	int			rc;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		g.k = g.m = 12345;
		rc = scbf_filter_geometry_for_bytes(cases[i].fpr, cases[i].nbytes, &g);
		CHECK(rc == cases[i].rc, "geometry(%g, %zu): expected rc %d, got %d",
			  cases[i].fpr, cases[i].nbytes, cases[i].rc, rc);
		if (rc == SCBF_FILTER_OK && cases[i].rc == SCBF_FILTER_OK)
		{
			CHECK(g.k == cases[i].k && g.m == cases[i].m,
				  "geometry(%g, %zu): expected k=%u m=%u, got k=%u m=%u",
				  cases[i].fpr, cases[i].nbytes, cases[i].k, cases[i].m,
				  g.k, g.m);
			CHECK(scbf_filter_bytes(&g) <= cases[i].nbytes,
				  "geometry(%g, %zu): uses %zu bytes", cases[i].fpr,
				  cases[i].nbytes, scbf_filter_bytes(&g));
		}
		else
			CHECK(g.k == 12345 && g.m == 12345,
				  "geometry(%g, %zu) failed but changed the geometry",
				  cases[i].fpr, cases[i].nbytes);
	}
	rc = scbf_filter_geometry_for_bytes(0.01, PAGE_BYTES, NULL);
	CHECK(rc == SCBF_FILTER_EINVAL, "geometry(NULL): expected EINVAL, got %d",
		  rc);

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
	{
		g.k = sizes[i].k;
		g.m = sizes[i].m;
		CHECK(scbf_filter_bytes(&g) == sizes[i].bytes,
			  "bytes(k=%u m=%u): expected %zu, got %zu", g.k, g.m,
			  sizes[i].bytes, scbf_filter_bytes(&g));
	}
	GroupDone("sizing: geometry from bytes (m = 2 * bytes / k, capped at %d), "
			  "bytes = ceil(k m / 2)", SCBF_FILTER_MAX_M);
}

/*
 * Expected false-positive rate after n keys, in long double, straight from
 * the definition: (1 - (1 - 1/m)^n)^k.
 */
static long double
DirectFpr(uint32_t k, uint32_t m, uint64_t n)
{
	long double q = powl(1.0L - 1.0L / m, (long double) n);

	return powl(1.0L - q, (long double) k);
}

/*
 * Capacity by direct search: the largest n with DirectFpr(n) <= fpr
 * (binary search; the rate grows with n), at least 1.
 */
static uint64_t
DirectCapacity(uint32_t k, uint32_t m, double fpr)
{
	uint64_t	lo = 0;			/* DirectFpr(lo) <= fpr */
	uint64_t	hi = UINT64_C(1) << 40;	/* DirectFpr(hi) > fpr */

	if (m <= 1)
		return 1;
	while (hi - lo > 1)
	{
		uint64_t	mid = lo + (hi - lo) / 2;

		if (DirectFpr(k, m, mid) <= (long double) fpr)
			lo = mid;
		else
			hi = mid;
	}
	return lo < 1 ? 1 : lo;
}

static void
TestCapacity(void)
{
	static const uint32_t ms[] = {1, 2, 3, 10, 100, 977, 1563, 2233, 3908,
	15632, 65535};
	static const double fprs[] = {0.5, 0.3, 0.1, 0.01, 0.001, 1e-4, 1e-6};
	scbf_filter_geometry g;
	uint32_t	cap;
	uint64_t	direct;
	size_t		mi;
	size_t		fi;
	int			ncases = 0;

	for (g.k = 1; g.k <= SCBF_FILTER_MAX_K; g.k++)
	{
		for (mi = 0; mi < sizeof(ms) / sizeof(ms[0]); mi++)
		{
			g.m = ms[mi];
			for (fi = 0; fi < sizeof(fprs) / sizeof(fprs[0]); fi++)
			{
				cap = scbf_filter_block_capacity(&g, fprs[fi]);
				direct = DirectCapacity(g.k, g.m, fprs[fi]);
				CHECK(cap == direct,
					  "capacity(k=%u m=%u fpr=%g): direct search %llu, got %u",
					  g.k, g.m, fprs[fi], (unsigned long long) direct, cap);
				ncases++;
			}
		}
	}

	/* the page at 1%: 1,6xx keys, near m ln 2 = 1548 scaled by rounding */
	g.k = 7;
	g.m = 2233;
	cap = scbf_filter_block_capacity(&g, 0.01);
	CHECK(DirectFpr(7, 2233, cap) <= 0.01L &&
		  DirectFpr(7, 2233, cap + 1) > 0.01L,
		  "capacity %u of the 1%% page is not the largest n with f^k <= P",
		  cap);

	/* guards: m = 1 (ln 0), k = 0, fpr outside (0, 1): the minimum, 1 */
	g.k = 7;
	g.m = 1;
	CHECK(scbf_filter_block_capacity(&g, 0.01) == 1, "capacity with m=1: %u",
		  scbf_filter_block_capacity(&g, 0.01));
	g.m = 2233;
	CHECK(scbf_filter_block_capacity(&g, 0.0) == 1, "capacity at fpr 0: %u",
		  scbf_filter_block_capacity(&g, 0.0));
	CHECK(scbf_filter_block_capacity(&g, 1.0) == 1, "capacity at fpr 1: %u",
		  scbf_filter_block_capacity(&g, 1.0));
	CHECK(scbf_filter_block_capacity(&g, nan("")) == 1, "capacity at NaN: %u",
		  scbf_filter_block_capacity(&g, nan("")));
	g.k = 0;
	CHECK(scbf_filter_block_capacity(&g, 0.01) == 1, "capacity with k=0: %u",
		  scbf_filter_block_capacity(&g, 0.01));
	GroupDone("sizing: block capacity equals a direct search for the largest "
			  "n with (1-(1-1/m)^n)^k <= P in %d cases; guards", ncases);
}

static void
TestBlocksFor(void)
{
	static const struct
	{
		uint64_t	nkeys;
		uint32_t	capacity;
		uint32_t	maxblocks;
		uint32_t	expected;
	}			cases[] = {
		{0, 1000, 64, 1},
		{1, 1000, 64, 1},
		{999, 1000, 64, 1},
		{1000, 1000, 64, 1},
		{1001, 1000, 64, 2},
		{2000, 1000, 64, 2},
		{2001, 1000, 64, 3},
		{63999, 1000, 64, 64},
		{64000, 1000, 64, 64},
		{64001, 1000, 64, 64},
		{UINT64_C(1) << 40, 1000, 64, 64},
		{5, 0, 64, 5},
		{10, 3, 0, 1},
		{10, 3, 1, 1},
		{UINT64_MAX, 1, UINT32_MAX, UINT32_MAX},
		{UINT64_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX},
		{UINT64_MAX, UINT32_MAX, 1000, 1000},
		{(uint64_t) UINT32_MAX * 3, UINT32_MAX, 64, 3},
		{(uint64_t) UINT32_MAX * 3 + 1, UINT32_MAX, 64, 4},
	};
	size_t		i;
	uint32_t	got;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		got = scbf_filter_blocks_for(cases[i].nkeys, cases[i].capacity,
									 cases[i].maxblocks);
		CHECK(got == cases[i].expected,
			  "blocks_for(%llu, %u, %u): expected %u, got %u",
			  (unsigned long long) cases[i].nkeys, cases[i].capacity,
			  cases[i].maxblocks, cases[i].expected, got);
	}
	GroupDone("sizing: blocks_for = ceil(n / capacity) clamped to "
			  "[1, maxblocks], %zu cases", sizeof(cases) / sizeof(cases[0]));
}

/* --------------------------------------------------------------- hashing */

static void
TestPinnedHashes(void)
{
	/*
	 * Computed once with this module and, independently, with a Python
	 * transcription of XXH3_len_4to8_64b and of the mix scheme.  A change
	 * here changes every index on disk.
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
	uint32_t	pos[SCBF_FILTER_MAX_K];
	uint64_t	key;
	size_t		i;
	uint32_t	b;

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
	g.k = 10;
	g.m = 1563;
	scbf_filter_positions(UINT64_C(0x0123456789ABCDEF), &g, pos);
	for (i = 0; i < 10; i++)
		CHECK(pos[i] == pos_10_1563[i],
			  "k=10 m=1563 pos[%zu]: expected %u, got %u", i, pos_10_1563[i],
			  pos[i]);
	for (i = 0; i < 10; i++)
		CHECK(scbf_filter_position(UINT64_C(0x0123456789ABCDEF), &g, i) ==
			  pos_10_1563[i],
			  "k=10 m=1563 position(%zu): expected %u", i, pos_10_1563[i]);
	g.k = 16;
	g.m = 65535;
	scbf_filter_positions(UINT64_MAX, &g, pos);
	for (i = 0; i < 16; i++)
		CHECK(pos[i] == pos_16_65535[i],
			  "k=16 m=65535 pos[%zu]: expected %u, got %u", i, pos_16_65535[i],
			  pos[i]);

	/*
	 * A key whose slice 9 position needs the full 64-bit fastrange: taking
	 * only the mix's high 32 bits would give 55.
	 */
	g.k = 10;
	g.m = 2233;
	scbf_filter_positions(50389, &g, pos);
	CHECK(pos[9] == 56, "key 50389, k=10 m=2233, pos[9]: expected 56, got %u",
		  pos[9]);

	b = scbf_filter_block_of(UINT64_C(0x44935F67E652B5E0), 64);
	CHECK(b == 17, "block_of(0x44935F67E652B5E0, 64): expected 17, got %u", b);
	b = scbf_filter_block_of(UINT64_C(0x0123456789ABCDEF), 7);
	CHECK(b == 0, "block_of(0x0123456789ABCDEF, 7): expected 0, got %u", b);
	b = scbf_filter_block_of(UINT64_MAX, UINT32_MAX);
	CHECK(b == UINT32_MAX - 1, "block_of(~0, ~0): expected %u, got %u",
		  UINT32_MAX - 1, b);
	GroupDone("hashing: pinned keys, positions and blocks");
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

static void
TestBlockOf(void)
{
	static const uint32_t nblocks[] = {1, 2, 3, 7, 64, 1000, UINT32_MAX};
	uint32_t	hist64[64];
	uint32_t	hist3[3];
	uint32_t	i;
	uint32_t	b;
	size_t		n;
	double		chi2;
	int			nout = 0;

	memset(hist64, 0, sizeof(hist64));
	memset(hist3, 0, sizeof(hist3));
	for (i = 0; i < 640000; i++)
	{
		uint64_t	key = scbf_filter_key(i, 7);

		for (n = 0; n < sizeof(nblocks) / sizeof(nblocks[0]); n++)
			if (scbf_filter_block_of(key, nblocks[n]) >= nblocks[n])
				nout++;
		hist64[scbf_filter_block_of(key, 64)]++;
		hist3[scbf_filter_block_of(key, 3)]++;
	}
	CHECK(nout == 0, "%d blocks out of range", nout);

	/* 63 degrees of freedom: P(chi2 > 120) < 1e-5 */
	chi2 = ChiSquare(hist64, 64, 640000);
	CHECK(chi2 < 120.0, "block_of over 64 blocks: chi-square %.1f, expected "
		  "about 63, at most 120", chi2);
	for (b = 0; b < 3; b++)
		CHECK(fabs(hist3[b] - 640000.0 / 3) < 0.01 * 640000.0 / 3,
			  "block_of over 3 blocks: block %u got %u keys, expected "
			  "213333 +- 1%%", b, hist3[b]);
	GroupDone("hashing: block_of in range for %zu block counts, uniform "
			  "(chi-square %.1f over 64 blocks)",
			  sizeof(nblocks) / sizeof(nblocks[0]), chi2);
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
	static const uint32_t ms[] = {1, 2, 3, 7, 2233, 65535};
	scbf_filter_geometry g;
	uint32_t	pos[SCBF_FILTER_MAX_K];
	uint32_t	pos2[SCBF_FILTER_MAX_K];
	uint32_t	hist[SCBF_FILTER_MAX_K][10];
	uint32_t	pair[64];
	uint32_t	joint[64];
	uint32_t	i;
	uint32_t	j;
	size_t		mi;
	int			nout = 0;
	int			nchanged = 0;
	int			nsim = 0;
	double		chi2;
	double		worst = 0.0;

	/* range and determinism */
	g.k = SCBF_FILTER_MAX_K;
	for (mi = 0; mi < sizeof(ms) / sizeof(ms[0]); mi++)
	{
		g.m = ms[mi];
		for (i = 0; i < 20000; i++)
		{
			uint64_t	key = scbf_filter_key(i, 11);

			scbf_filter_positions(key, &g, pos);
			scbf_filter_positions(key, &g, pos2);
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
	CHECK(nchanged == 0, "%d positions differ between two calls", nchanged);

	/* the research simulation's scheme, bit for bit, any m */
#ifdef __SIZEOF_INT128__
	for (i = 0; i < 200000; i++)
	{
		uint64_t	key = Rand64();

		g.m = 1 + RandBelow(SCBF_FILTER_MAX_M);
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
	 * Slices independent of each other and of the block: joint counts of
	 * (pos[0], pos[1]) and of (block, pos[0]) over 8 x 8 cells (63 dof).
	 */
	memset(pair, 0, sizeof(pair));
	memset(joint, 0, sizeof(joint));
	g.m = 8;
	for (i = 0; i < 256000; i++)
	{
		uint64_t	key = scbf_filter_key(i, 17);

		scbf_filter_positions(key, &g, pos);
		pair[pos[0] * 8 + pos[1]]++;
		joint[scbf_filter_block_of(key, 8) * 8 + pos[0]]++;
	}
	chi2 = ChiSquare(pair, 64, 256000);
	CHECK(chi2 < 120.0, "(pos[0], pos[1]) over 8x8: chi-square %.1f, at "
		  "most 120", chi2);
	chi2 = ChiSquare(joint, 64, 256000);
	CHECK(chi2 < 120.0, "(block, pos[0]) over 8x8: chi-square %.1f, at most "
		  "120", chi2);

#ifdef __SIZEOF_INT128__
	GroupDone("positions: in range, deterministic, equal to the simulation's "
			  "128-bit fastrange (%d differ), uniform and independent "
			  "(worst slice chi-square %.1f)", nsim, worst);
#else
	GroupDone("positions: in range, deterministic, uniform and independent "
			  "(worst slice chi-square %.1f; no 128-bit type, simulation "
			  "cross-check skipped)", worst);
#endif
}

/* -------------------------------------------------------------- counters */

static void
TestNibbles(void)
{
	TestBlock	b;
	uint32_t	pos[SCBF_FILTER_MAX_K];
	unsigned	x;
	unsigned	y;
	unsigned	n;
	int			npairs = 0;

	/* counters 2 (low nibble of byte 1) and 3 (high nibble), all values */
	for (x = 0; x <= SCBF_FILTER_COUNTER_MAX; x++)
	{
		for (y = 0; y <= SCBF_FILTER_COUNTER_MAX; y++)
		{
			BlockInit(&b, 1, 8);
			pos[0] = 2;
			for (n = 0; n < x; n++)
				AddPos(&b, pos);
			pos[0] = 3;
			for (n = 0; n < y; n++)
				AddPos(&b, pos);
			CHECK(scbf_filter_get(b.counters, 2) == x &&
				  scbf_filter_get(b.counters, 3) == y,
				  "counters 2, 3: expected %u, %u, got %u, %u", x, y,
				  scbf_filter_get(b.counters, 2),
				  scbf_filter_get(b.counters, 3));
			CHECK(b.counters[1] == (uint8_t) (x | (y << 4)) &&
				  b.counters[0] == 0 && b.counters[2] == 0 &&
				  b.counters[3] == 0,
				  "bytes after %u adds to counter 2 and %u to counter 3: "
				  "expected 00 %02x 00 00, got %02x %02x %02x %02x", x, y,
				  x | (y << 4), b.counters[0], b.counters[1], b.counters[2],
				  b.counters[3]);

			/* empty the odd one; the even one must not move */
			for (n = 0; n < y && y < SCBF_FILTER_COUNTER_MAX; n++)
				RemovePos(&b, pos);
			if (y < SCBF_FILTER_COUNTER_MAX)
				CHECK(scbf_filter_get(b.counters, 2) == x &&
					  scbf_filter_get(b.counters, 3) == 0,
					  "after emptying counter 3: expected %u, 0, got %u, %u",
					  x, scbf_filter_get(b.counters, 2),
					  scbf_filter_get(b.counters, 3));
			CheckBookkeeping(&b, "nibble pair");
			npairs++;
		}
	}

	/*
	 * An odd m: slice 1 starts in the high nibble of the byte that ends
	 * slice 0.  k = 2, m = 3: counters 0 1 | 2 3 | 4 5 in bytes 0, 1, 2,
	 * slice 0 = counters 0..2, slice 1 = counters 3..5.
	 */
	BlockInit(&b, 2, 3);
	pos[0] = 2;
	pos[1] = 0;
	for (n = 0; n < 3; n++)
		AddPos(&b, pos);
	pos[0] = 1;
	pos[1] = 1;
	AddPos(&b, pos);
	CHECK(b.counters[0] == 0x10 && b.counters[1] == 0x33 &&
		  b.counters[2] == 0x01,
		  "k=2 m=3: expected bytes 10 33 01, got %02x %02x %02x",
		  b.counters[0], b.counters[1], b.counters[2]);
	CHECK(Counter(&b, 0, 2) == 3 && Counter(&b, 1, 0) == 3 &&
		  Counter(&b, 0, 1) == 1 && Counter(&b, 1, 1) == 1,
		  "k=2 m=3: wrong counter values");
	pos[0] = 2;
	pos[1] = 0;
	RemovePos(&b, pos);
	CHECK(b.counters[1] == 0x22, "k=2 m=3 after a remove: byte 1 expected "
		  "22, got %02x", b.counters[1]);
	CheckBookkeeping(&b, "odd m");

	/*
	 * An odd k * m: the high nibble of the last byte belongs to no counter
	 * and must survive adds, removes and clear.
	 */
	BlockInit(&b, 3, 5);
	b.counters[7] = 0xA0;
	for (n = 0; n < 40; n++)
	{
		pos[0] = RandBelow(5);
		pos[1] = RandBelow(5);
		pos[2] = 4;
		AddPos(&b, pos);
		if (n % 3 == 0)
			RemovePos(&b, pos);
	}
	CHECK((b.counters[7] & 0xF0) == 0xA0, "k*m odd: padding nibble changed "
		  "to %x", b.counters[7] >> 4);
	scbf_filter_clear(b.counters, b.nonzero, &b.nsaturated, &b.geom);
	CHECK(b.counters[7] == 0xA0, "clear: last byte expected a0, got %02x",
		  b.counters[7]);
	CheckBookkeeping(&b, "padding");
	GroupDone("counters: nibble packing, %d value pairs of odd/even "
			  "neighbours, a slice boundary inside a byte, padding", npairs);
}

static void
TestClear(void)
{
	TestBlock	b;
	uint16_t	nz[SCBF_FILTER_MAX_K];
	uint32_t	sat;
	uint32_t	hist[SCBF_FILTER_COUNTER_MAX + 1];
	uint32_t	i;
	size_t		nbytes;
	int			nonzero_bytes = 0;

	BlockInitFpr(&b, 0.01);
	for (i = 0; i < 3000; i++)
		AddHash(&b, i);
	for (i = 0; i < 20; i++)
		AddHash(&b, 424242);
	CHECK(b.nsaturated == b.geom.k &&
		  scbf_filter_fill(b.nonzero, &b.geom) > 0.5,
		  "setup: nsaturated %u, fill %.3f", b.nsaturated,
		  scbf_filter_fill(b.nonzero, &b.geom));
	scbf_filter_clear(b.counters, b.nonzero, &b.nsaturated, &b.geom);
	nbytes = scbf_filter_bytes(&b.geom);
	for (i = 0; i < nbytes; i++)
		if (b.counters[i] != 0)
			nonzero_bytes++;
	CHECK(nonzero_bytes == 0, "clear left %d non-zero bytes", nonzero_bytes);
	for (i = 0; i < b.geom.k; i++)
		CHECK(b.nonzero[i] == 0, "clear: nonzero[%u] = %u", i, b.nonzero[i]);
	CHECK(b.nsaturated == 0, "clear: nsaturated = %u", b.nsaturated);
	scbf_filter_census(b.counters, &b.geom, nz, &sat, hist);
	CHECK(hist[0] == b.geom.k * b.geom.m, "clear: hist[0] = %u, expected %u",
		  hist[0], b.geom.k * b.geom.m);
	CHECK(!TestHash(&b, 5), "clear: a key still tests positive");
	CHECK(scbf_filter_state_fpr(b.nonzero, &b.geom) == 0.0 &&
		  scbf_filter_fill(b.nonzero, &b.geom) == 0.0,
		  "clear: state FPR %g, fill %g",
		  scbf_filter_state_fpr(b.nonzero, &b.geom),
		  scbf_filter_fill(b.nonzero, &b.geom));
	CheckBookkeeping(&b, "clear");
	GroupDone("counters: clear zeroes %zu bytes and the bookkeeping, nothing "
			  "beyond", nbytes);
}

static void
TestSaturation(void)
{
	TestBlock	b;
	uint32_t	pos[SCBF_FILTER_MAX_K];
	uint32_t	a[3] = {0, 0, 0};
	uint32_t	c[3] = {0, 1, 2};
	uint32_t	i;
	uint32_t	j;
	int			r;

	BlockInitFpr(&b, 0.01);
	KeyPos(&b, 12345, pos);
	for (i = 1; i <= 20; i++)
	{
		r = AddHash(&b, 12345);
		CHECK(r == (i >= SCBF_FILTER_COUNTER_MAX ? SCBF_FILTER_SATURATED : 0),
			  "add #%u of one key: expected %d, got %d", i,
			  i >= SCBF_FILTER_COUNTER_MAX ? SCBF_FILTER_SATURATED : 0, r);
		for (j = 0; j < b.geom.k; j++)
		{
			unsigned	expected = i < SCBF_FILTER_COUNTER_MAX ? i :
				SCBF_FILTER_COUNTER_MAX;

			CHECK(Counter(&b, j, pos[j]) == expected,
				  "after %u adds slice %u: expected %u, got %u", i, j,
				  expected, Counter(&b, j, pos[j]));
		}
		CHECK(b.nsaturated == (i >= SCBF_FILTER_COUNTER_MAX ? b.geom.k : 0),
			  "after %u adds: nsaturated %u", i, b.nsaturated);
	}
	CheckBookkeeping(&b, "saturated");

	for (i = 1; i <= 20; i++)
	{
		r = RemoveHash(&b, 12345);
		CHECK(r == SCBF_FILTER_STUCK, "remove #%u of a saturated key: "
			  "expected STUCK (%d), got %d", i, SCBF_FILTER_STUCK, r);
		CHECK(TestHash(&b, 12345), "after %u removes the key tests negative",
			  i);
	}
	for (j = 0; j < b.geom.k; j++)
		CHECK(Counter(&b, j, pos[j]) == SCBF_FILTER_COUNTER_MAX,
			  "sticky: slice %u expected 15, got %u", j,
			  Counter(&b, j, pos[j]));
	CHECK(b.nsaturated == b.geom.k, "sticky: nsaturated %u, expected %u",
		  b.nsaturated, b.geom.k);
	CheckBookkeeping(&b, "sticky");

	/* a key that shares one saturated counter: its increment is lost */
	BlockInit(&b, 3, 5);
	for (i = 0; i < SCBF_FILTER_COUNTER_MAX; i++)
		AddPos(&b, a);
	r = AddPos(&b, c);
	CHECK(r == SCBF_FILTER_SATURATED, "add sharing a saturated counter: "
		  "expected SATURATED, got %d", r);
	CHECK(Counter(&b, 0, 0) == 15 && Counter(&b, 1, 1) == 1 &&
		  Counter(&b, 2, 2) == 1 && b.nsaturated == 3,
		  "add sharing a saturated counter: counters %u %u %u, nsaturated %u",
		  Counter(&b, 0, 0), Counter(&b, 1, 1), Counter(&b, 2, 2),
		  b.nsaturated);
	r = RemovePos(&b, c);
	CHECK(r == SCBF_FILTER_STUCK && Counter(&b, 0, 0) == 15 &&
		  Counter(&b, 1, 1) == 0 && Counter(&b, 2, 2) == 0 &&
		  b.nonzero[0] == 1 && b.nonzero[1] == 1 && b.nonzero[2] == 1,
		  "remove sharing a saturated counter: result %d, counters %u %u %u, "
		  "nonzero %u %u %u", r, Counter(&b, 0, 0), Counter(&b, 1, 1),
		  Counter(&b, 2, 2), b.nonzero[0], b.nonzero[1], b.nonzero[2]);
	CHECK(scbf_filter_test(b.counters, &b.geom, a), "the saturated key tests "
		  "negative");
	CheckBookkeeping(&b, "shared saturated counter");
	GroupDone("counters: saturate at 15 (SATURATED from the 15th add), "
			  "sticky on remove (STUCK), key stays positive");
}

static void
TestUnderflow(void)
{
	TestBlock	b;
	uint32_t	a[3] = {0, 0, 0};
	uint32_t	c[3] = {0, 1, 2};
	uint32_t	d[3] = {0, 1, 1};
	size_t		i;
	int			nonzero_bytes = 0;
	int			r;

	/* an absent key from an empty block: nothing moves */
	BlockInitFpr(&b, 0.01);
	r = RemoveHash(&b, 99);
	CHECK(r == SCBF_FILTER_UNDERFLOW, "remove from an empty block: expected "
		  "UNDERFLOW (%d), got %d", SCBF_FILTER_UNDERFLOW, r);
	for (i = 0; i < scbf_filter_bytes(&b.geom); i++)
		if (b.counters[i] != 0)
			nonzero_bytes++;
	CHECK(nonzero_bytes == 0, "underflow changed %d bytes", nonzero_bytes);
	CHECK(!TestHash(&b, 99), "empty block says maybe");
	CheckBookkeeping(&b, "underflow on empty");

	/* partly present: the non-zero counters are still decremented */
	BlockInit(&b, 3, 5);
	AddPos(&b, a);
	r = RemovePos(&b, c);
	CHECK(r == SCBF_FILTER_UNDERFLOW, "remove of a partly present key: "
		  "expected UNDERFLOW, got %d", r);
	CHECK(Counter(&b, 0, 0) == 0 && Counter(&b, 1, 0) == 1 &&
		  Counter(&b, 1, 1) == 0 && Counter(&b, 2, 2) == 0 &&
		  b.nonzero[0] == 0 && b.nonzero[1] == 1 && b.nonzero[2] == 1,
		  "partly present: counters %u %u %u %u, nonzero %u %u %u",
		  Counter(&b, 0, 0), Counter(&b, 1, 0), Counter(&b, 1, 1),
		  Counter(&b, 2, 2), b.nonzero[0], b.nonzero[1], b.nonzero[2]);
	CheckBookkeeping(&b, "partial underflow");

	/* both at once */
	BlockInit(&b, 3, 5);
	for (i = 0; i < 16; i++)
		AddPos(&b, a);
	r = RemovePos(&b, d);
	CHECK(r == (SCBF_FILTER_STUCK | SCBF_FILTER_UNDERFLOW),
		  "remove over a saturated and a zero counter: expected %d, got %d",
		  SCBF_FILTER_STUCK | SCBF_FILTER_UNDERFLOW, r);
	CheckBookkeeping(&b, "stuck and underflow");
	GroupDone("counters: UNDERFLOW reported, zero counters stay 0, the "
			  "others still decremented");
}

/*
 * A random walk of adds and removes of arbitrary position vectors on a
 * tiny block, against a model of what the counters must hold: every
 * result code, every counter, the bookkeeping and a census compared after
 * every step.
 */
static void
TestModel(void)
{
	enum
	{
		K = 3, M = 5, STEPS = 200000
	};
	TestBlock	b;
	int			model[K * M];
	uint32_t	pos[K];
	uint32_t	nsat;
	uint16_t	nz[K];
	int			nbad = 0;
	int			nstuck = 0;
	int			nunder = 0;
	int			nsatur = 0;
	int			step;
	int			i;
	int			j;

	BlockInit(&b, K, M);
	memset(model, 0, sizeof(model));
	for (step = 0; step < STEPS && nbad < 5; step++)
	{
		bool		add = RandBelow(100) < 52;
		int			expected = 0;
		int			r;

		for (i = 0; i < K; i++)
		{
			int		   *v;

			pos[i] = RandBelow(M);
			v = &model[i * M + pos[i]];
			if (add)
			{
				if (*v < SCBF_FILTER_COUNTER_MAX)
					(*v)++;
				if (*v == SCBF_FILTER_COUNTER_MAX)
					expected |= SCBF_FILTER_SATURATED;
			}
			else if (*v == SCBF_FILTER_COUNTER_MAX)
				expected |= SCBF_FILTER_STUCK;
			else if (*v == 0)
				expected |= SCBF_FILTER_UNDERFLOW;
			else
				(*v)--;
		}
		r = add ? AddPos(&b, pos) : RemovePos(&b, pos);
		if (r != expected)
		{
			CHECK(r == expected, "step %d (%s): expected result %d, got %d",
				  step, add ? "add" : "remove", expected, r);
			nbad++;
		}
		nstuck += (r & SCBF_FILTER_STUCK) != 0;
		nunder += (r & SCBF_FILTER_UNDERFLOW) != 0;
		nsatur += (r & SCBF_FILTER_SATURATED) != 0;

		nsat = 0;
		for (i = 0; i < K; i++)
		{
			nz[i] = 0;
			for (j = 0; j < M; j++)
			{
				if (Counter(&b, i, j) != (unsigned) model[i * M + j])
				{
					CHECK(0, "step %d: slice %d counter %d: model %d, got %u",
						  step, i, j, model[i * M + j], Counter(&b, i, j));
					nbad++;
				}
				nz[i] += model[i * M + j] != 0;
				nsat += model[i * M + j] == SCBF_FILTER_COUNTER_MAX;
			}
			if (nz[i] != b.nonzero[i])
			{
				CHECK(0, "step %d: nonzero[%d]: model %u, got %u", step, i,
					  nz[i], b.nonzero[i]);
				nbad++;
			}
		}
		if (nsat != b.nsaturated)
		{
			CHECK(0, "step %d: nsaturated: model %u, got %u", step, nsat,
				  b.nsaturated);
			nbad++;
		}
		if (!CheckBookkeeping(&b, "random walk"))
			nbad++;

		/* now and then start over, so that the walk visits empty blocks */
		if (RandBelow(1000) == 0)
		{
			scbf_filter_clear(b.counters, b.nonzero, &b.nsaturated, &b.geom);
			memset(model, 0, sizeof(model));
		}
	}
	CHECK(nstuck > 0 && nunder > 0 && nsatur > 0,
		  "the walk did not reach every case: %d STUCK, %d UNDERFLOW, "
		  "%d SATURATED", nstuck, nunder, nsatur);
	GroupDone("counters: %d random adds/removes on k=%d m=%d match a model; "
			  "bookkeeping = census after every step (%d STUCK, %d UNDERFLOW, "
			  "%d SATURATED)", step, K, M, nstuck, nunder, nsatur);
}

/* ------------------------------------------------------------ round trips */

/*
 * CountFalseNegatives
 *		Live keys (value hashes) that test negative.
 */
static int
CountFalseNegatives(const TestBlock *b, const uint32_t *live, int nlive)
{
	int			fn = 0;
	int			i;

	for (i = 0; i < nlive; i++)
		if (!TestHash(b, live[i]))
			fn++;
	return fn;
}

static void
TestRoundTrips(void)
{
	enum
	{
		PHASES = 12, ADDS = 1000, REMOVES = 700
	};
	TestBlock	b;
	uint32_t   *live = malloc(sizeof(uint32_t) * PHASES * ADDS);
	int			nlive = 0;
	int			nadds = 0;
	int			nremoves = 0;
	int			flags = 0;
	int			phase;
	int			i;
	int			fn;
	size_t		nbytes;
	int			nonzero_bytes = 0;

	BlockInitFpr(&b, 0.01);
	for (phase = 0; phase < PHASES; phase++)
	{
		/* adds, one in ten a duplicate of a live key */
		for (i = 0; i < ADDS; i++)
		{
			uint32_t	h = (nlive > 0 && RandBelow(10) == 0) ?
				live[RandBelow((uint32_t) nlive)] : (uint32_t) Rand64();

			flags |= AddHash(&b, h);
			live[nlive++] = h;
			nadds++;
		}
		fn = CountFalseNegatives(&b, live, nlive);
		CHECK(fn == 0, "phase %d after adds: %d of %d live keys test "
			  "negative", phase, fn, nlive);
		CheckBookkeeping(&b, "after adds");

		/* removes of random live keys */
		for (i = 0; i < REMOVES; i++)
		{
			int			v = (int) RandBelow((uint32_t) nlive);
			int			r = RemoveHash(&b, live[v]);

			CHECK((r & SCBF_FILTER_UNDERFLOW) == 0,
				  "phase %d: UNDERFLOW removing a live key", phase);
			flags |= r;
			live[v] = live[--nlive];
			nremoves++;
		}
		fn = CountFalseNegatives(&b, live, nlive);
		CHECK(fn == 0, "phase %d after removes: %d of %d live keys test "
			  "negative", phase, fn, nlive);
		CheckBookkeeping(&b, "after removes");
	}

	/* nothing saturated at this load, so removing all must empty it */
	CHECK(flags == 0, "unexpected result bits %d at this load", flags);
	while (nlive > 0)
	{
		RemoveHash(&b, live[--nlive]);
		nremoves++;
	}
	nbytes = scbf_filter_bytes(&b.geom);
	for (i = 0; i < (int) nbytes; i++)
		if (b.counters[i] != 0)
			nonzero_bytes++;
	CHECK(nonzero_bytes == 0, "%d bytes non-zero after removing every key",
		  nonzero_bytes);
	CheckBookkeeping(&b, "emptied");
	free(live);
	GroupDone("round trips: %d adds and %d removes in %d phases, no false "
			  "negatives after any phase, empty at the end",
			  nadds, nremoves, PHASES);
}

/*
 * Hot keys on a small block: counters saturate, and removes that meet
 * them leave stale counts, but a live key never tests negative.
 */
static void
TestStickyRoundTrips(void)
{
	enum
	{
		POOL = 60, STEPS = 100000
	};
	TestBlock	b;
	int			copies[POOL];
	int			fn = 0;
	int			flags = 0;
	int			step;
	int			v;

	BlockInit(&b, 4, 40);
	memset(copies, 0, sizeof(copies));
	for (step = 0; step < STEPS; step++)
	{
		v = (int) RandBelow(POOL);
		if (copies[v] > 0 && RandBelow(100) < 45)
		{
			flags |= RemoveHash(&b, (uint32_t) v);
			copies[v]--;
		}
		else
		{
			flags |= AddHash(&b, (uint32_t) v);
			copies[v]++;
		}
		if (step % 100 == 0)
		{
			for (v = 0; v < POOL; v++)
				if (copies[v] > 0 && !TestHash(&b, (uint32_t) v))
					fn++;
			CheckBookkeeping(&b, "hot keys");
		}
	}
	CHECK(fn == 0, "%d false negatives among hot keys", fn);
	CHECK((flags & SCBF_FILTER_STUCK) && (flags & SCBF_FILTER_SATURATED) &&
		  !(flags & SCBF_FILTER_UNDERFLOW),
		  "hot keys: result bits %d, expected STUCK and SATURATED without "
		  "UNDERFLOW", flags);
	GroupDone("round trips: %d adds/removes of %d hot keys on k=4 m=40, "
			  "counters saturated and stuck, no false negatives",
			  STEPS, POOL);
}

/* ------------------------------------------------------------------- FPR */

static void
TestFpr(double target, int probes)
{
	TestBlock	b;
	uint32_t	cap;
	uint32_t	i;
	int			fp = 0;
	double		state;
	double		measured;
	double		sigma;
	double		fill;
	double		expected_fill;
	double		est;

	BlockInitFpr(&b, target);
	cap = scbf_filter_block_capacity(&b.geom, target);

	/* keys are even value hashes, absent probes odd ones */
	for (i = 0; i < cap; i++)
		AddHash(&b, i * 2);
	CheckBookkeeping(&b, "at capacity");
	state = scbf_filter_state_fpr(b.nonzero, &b.geom);
	for (i = 0; i < (uint32_t) probes; i++)
		if (TestHash(&b, i * 2 + 1))
			fp++;
	measured = (double) fp / probes;
	sigma = sqrt(state * (1.0 - state) / probes);

	CHECK(fabs(measured - state) <= 3.5 * sigma,
		  "target %g: measured FPR %.6f over %d probes, state %.6f: %.1f "
		  "sigma apart, at most 3.5", target, measured, probes, state,
		  fabs(measured - state) / sigma);
	CHECK(state > 0.8 * target && state < 1.2 * target,
		  "target %g: state FPR %.6f at capacity %u, expected within 20%%",
		  target, state, cap);
	est = scbf_filter_estimate_keys(b.nonzero, &b.geom);
	CHECK(fabs(est - cap) < 0.05 * cap,
		  "target %g: %u keys estimated as %.1f from the fill, expected "
		  "within 5%%", target, cap, est);
	fill = scbf_filter_fill(b.nonzero, &b.geom);
	expected_fill = 1.0 - pow(1.0 - 1.0 / b.geom.m, cap);
	CHECK(fabs(fill - expected_fill) < 0.02 * expected_fill,
		  "target %g: fill %.4f, expected %.4f", target, fill, expected_fill);
	GroupDone("fpr: target %g, k=%u m=%u, %u keys: measured %.5f over %d "
			  "absent keys, state %.5f (%+.1f%%)", target, b.geom.k,
			  b.geom.m, cap, measured, probes, state,
			  100.0 * (measured - state) / state);
}

/*
 * A filter of several blocks, keys spread by block_of: the measured rate
 * over all blocks is the mean of the blocks' state rates.
 */
static void
TestFprBlocks(void)
{
	enum
	{
		NKEYS = 5000, PROBES = 200000
	};
	static TestBlock blocks[64];
	uint32_t	pos[SCBF_FILTER_MAX_K];
	uint32_t	perblock[64];
	uint32_t	cap;
	uint32_t	nblocks;
	uint32_t	i;
	double		mean_state = 0.0;
	double		measured;
	double		sigma;
	int			fp = 0;

	BlockInitFpr(&blocks[0], 0.01);
	cap = scbf_filter_block_capacity(&blocks[0].geom, 0.01);
	nblocks = scbf_filter_blocks_for(NKEYS, cap, 64);
	CHECK(nblocks == (NKEYS + cap - 1) / cap, "blocks_for(%d, %u): %u",
		  NKEYS, cap, nblocks);
	for (i = 0; i < nblocks; i++)
		BlockInit(&blocks[i], blocks[0].geom.k, blocks[0].geom.m);
	memset(perblock, 0, sizeof(perblock));

	for (i = 0; i < NKEYS; i++)
	{
		uint64_t	key = scbf_filter_key(i * 2, TEST_SEED);
		TestBlock  *b = &blocks[scbf_filter_block_of(key, nblocks)];

		scbf_filter_positions(key, &b->geom, pos);
		AddPos(b, pos);
		perblock[scbf_filter_block_of(key, nblocks)]++;
	}
	for (i = 0; i < nblocks; i++)
	{
		CHECK(fabs(perblock[i] - (double) NKEYS / nblocks) <
			  0.1 * NKEYS / nblocks, "block %u got %u of %d keys", i,
			  perblock[i], NKEYS);
		CheckBookkeeping(&blocks[i], "blocks");
		mean_state += scbf_filter_state_fpr(blocks[i].nonzero,
											&blocks[i].geom) / nblocks;
	}
	for (i = 0; i < PROBES; i++)
	{
		uint64_t	key = scbf_filter_key(i * 2 + 1, TEST_SEED);
		TestBlock  *b = &blocks[scbf_filter_block_of(key, nblocks)];

		scbf_filter_positions(key, &b->geom, pos);
		if (scbf_filter_test(b->counters, &b->geom, pos))
			fp++;
	}
	measured = (double) fp / PROBES;
	sigma = sqrt(mean_state * (1.0 - mean_state) / PROBES);
	CHECK(fabs(measured - mean_state) <= 3.5 * sigma,
		  "%u blocks: measured %.6f, mean state %.6f: %.1f sigma apart",
		  nblocks, measured, mean_state, fabs(measured - mean_state) / sigma);
	CHECK(mean_state <= 0.01, "%u blocks below capacity: mean state %.6f "
		  "above the target", nblocks, mean_state);
	GroupDone("fpr: %d keys over %u blocks by block_of: measured %.5f, mean "
			  "state %.5f (%+.1f%%)", NKEYS, nblocks, measured, mean_state,
			  100.0 * (measured - mean_state) / mean_state);
}

static void
TestStateFormulas(void)
{
	scbf_filter_geometry g = {3, 10};
	uint16_t	nz[3] = {5, 10, 2};
	uint16_t	full[3] = {10, 10, 10};
	uint16_t	empty[3] = {10, 0, 10};
	double		fpr;
	double		fill;

	fpr = scbf_filter_state_fpr(nz, &g);
	CHECK(fabs(fpr - 0.1) < 1e-15, "state_fpr(5,10,2 of 10): expected 0.1, "
		  "got %.17g", fpr);
	fill = scbf_filter_fill(nz, &g);
	CHECK(fabs(fill - 17.0 / 30.0) < 1e-15, "fill(5,10,2 of 10): expected "
		  "17/30, got %.17g", fill);
	CHECK(scbf_filter_state_fpr(full, &g) == 1.0 &&
		  scbf_filter_fill(full, &g) == 1.0, "full block: state %g fill %g",
		  scbf_filter_state_fpr(full, &g), scbf_filter_fill(full, &g));
	CHECK(scbf_filter_state_fpr(empty, &g) == 0.0,
		  "one empty slice: state %g", scbf_filter_state_fpr(empty, &g));
	/* -10 ln(1/2) for 5 of 10, -10 ln(1/20) for a full slice, 0 for none */
	fill = scbf_filter_estimate_keys(nz, &g);
	CHECK(fabs(fill - (-10.0 * (log(0.5) + log(0.05) + log(0.8))) / 3.0) < 1e-12,
		  "estimate_keys(5,10,2 of 10): got %.17g", fill);
	CHECK(isfinite(scbf_filter_estimate_keys(full, &g)),
		  "estimate_keys of a full block must be finite");
	GroupDone("fpr: state_fpr = prod nonzero/m, fill = sum nonzero / (k m), "
			  "estimate_keys = mean of -m ln(1 - nonzero/m)");
}


/* ------------------------------------------------- storage v2: bit rows */

/*
 * Sizing of the v2 filters: k, fill and m against their definitions.
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
		CHECK(cap >= 10000 && cap < 10000 + 2,
			  "capacity of m for 10000 keys at %g: %u", cases[i].fpr, cap);
	}
	CHECK(scbf_rows_k(0.0) == SCBF_FILTER_EINVAL &&
		  scbf_rows_k(1.0) == SCBF_FILTER_EINVAL, "rows_k rejects 0 and 1");
	CHECK(scbf_rows_m(0, 0.2) == 1 && scbf_rows_capacity(1, 0.0) == 1,
		  "degenerate sizes are 1");
	CHECK(scbf_rows_per_page(8000, 64) == 1000 &&
		  scbf_rows_per_page(8000, 4096) == 15, "rows per page");
	GroupDone("rows: k, fill, m and capacity of the storage v2 filters");
}

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
 * A band of F filters at the storage v2 default (P = 1e-4, k = 5): each
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

int
main(void)
{
	TestOptimalK();
	TestGeometry();
	TestCapacity();
	TestBlocksFor();
	TestPinnedHashes();
	TestSeeds();
	TestBlockOf();
	TestPositions();
	TestNibbles();
	TestClear();
	TestSaturation();
	TestUnderflow();
	TestModel();
	TestRoundTrips();
	TestStickyRoundTrips();
	TestStateFormulas();
	TestFpr(0.1, 200000);
	TestFpr(0.01, 200000);
	TestFpr(0.001, 2000000);
	TestFprBlocks();
	TestRowsSizing();
	TestRowsBits();
	TestRowsBand();

	if (nfail_total)
	{
		printf("not ok - test_filter: %d checks failed\n", nfail_total);
		return 1;
	}
	printf("ok - test_filter: all checks passed\n");
	return 0;
}
