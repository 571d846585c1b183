/*-------------------------------------------------------------------------
 *
 * test_filter.c
 *	  Unit test of scbffilter.c, without a server.
 *
 * NOTES
 *	  Sizing, pinned hash values, add/remove/test round trips with no false
 *	  negatives, sticky saturation, underflow reporting, bookkeeping against
 *	  a census, and the measured false-positive rate against the state
 *	  formula.  Exits non-zero on any failure.
 *
 * Portions Copyright (c) 2026, scbf developers
 *
 * IDENTIFICATION
 *	  test/unit/test_filter.c
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scbffilter.h"

static int	nfail = 0;

#define CHECK(cond, ...) \
	do { \
		if (!(cond)) \
		{ \
			printf("FAIL %s:%d: ", __FILE__, __LINE__); \
			printf(__VA_ARGS__); \
			printf("\n"); \
			nfail++; \
		} \
	} while (0)

/* A page's worth of counter space, as the index uses it */
#define BLOCK_BYTES 7816

/* xorshift64*: deterministic pseudo-random test data */
static uint64_t rng_state = 0x853c49e6748fea9bULL;

static uint32_t
rnd32(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (uint32_t) ((rng_state * 0x2545F4914F6CDD1DULL) >> 32);
}

/* A block under test, with its bookkeeping */
typedef struct Block
{
	scbf_filter_geometry geom;
	uint8_t		counters[BLOCK_BYTES];
	uint16_t	nonzero[SCBF_FILTER_MAX_K];
	uint32_t	nsaturated;
} Block;

static void
block_init(Block *b, double fpr)
{
	memset(b, 0, sizeof(*b));
	if (scbf_filter_geometry_for_bytes(fpr, BLOCK_BYTES, &b->geom) != SCBF_FILTER_OK)
	{
		printf("FAIL geometry for %g\n", fpr);
		exit(1);
	}
}

static void
key_pos(const Block *b, uint32_t hash, uint32_t *pos)
{
	scbf_filter_positions(scbf_filter_key(hash, 42), &b->geom, pos);
}

static void
add(Block *b, uint32_t hash)
{
	uint32_t	pos[SCBF_FILTER_MAX_K];

	key_pos(b, hash, pos);
	scbf_filter_add(b->counters, b->nonzero, &b->nsaturated, &b->geom, pos);
}

static int
rem(Block *b, uint32_t hash)
{
	uint32_t	pos[SCBF_FILTER_MAX_K];

	key_pos(b, hash, pos);
	return scbf_filter_remove(b->counters, b->nonzero, &b->nsaturated, &b->geom, pos);
}

static bool
test(const Block *b, uint32_t hash)
{
	uint32_t	pos[SCBF_FILTER_MAX_K];

	key_pos(b, hash, pos);
	return scbf_filter_test(b->counters, &b->geom, pos);
}

/* The bookkeeping must always equal a census of the counters */
static void
check_bookkeeping(const Block *b, const char *when)
{
	uint16_t	nz[SCBF_FILTER_MAX_K];
	uint32_t	sat;
	uint32_t	i;

	scbf_filter_census(b->counters, &b->geom, nz, &sat, NULL);
	for (i = 0; i < b->geom.k; i++)
		CHECK(nz[i] == b->nonzero[i], "%s: slice %u nonzero %u, census %u",
			  when, i, b->nonzero[i], nz[i]);
	CHECK(sat == b->nsaturated, "%s: nsaturated %u, census %u", when,
		  b->nsaturated, sat);
}

static void
test_sizing(void)
{
	scbf_filter_geometry g;
	uint32_t	cap;
	double		f;

	CHECK(scbf_filter_optimal_k(0.01) == 7, "k(0.01)");
	CHECK(scbf_filter_optimal_k(0.001) == 10, "k(0.001)");
	CHECK(scbf_filter_optimal_k(1.0 / 1024) == 10, "k(2^-10) must not round up");
	CHECK(scbf_filter_optimal_k(0.0001) == 14, "k(0.0001)");
	CHECK(scbf_filter_optimal_k(0.25) == 2, "k(0.25)");
	CHECK(scbf_filter_optimal_k(0.5) == 1, "k(0.5)");
	CHECK(scbf_filter_optimal_k(1e-9) == SCBF_FILTER_MAX_K, "k clamps");
	CHECK(scbf_filter_optimal_k(0) == SCBF_FILTER_EINVAL, "k(0)");
	CHECK(scbf_filter_optimal_k(1) == SCBF_FILTER_EINVAL, "k(1)");
	CHECK(scbf_filter_optimal_k(-0.1) == SCBF_FILTER_EINVAL, "k(<0)");

	CHECK(scbf_filter_geometry_for_bytes(0.01, BLOCK_BYTES, &g) == SCBF_FILTER_OK, "geom");
	CHECK(g.k == 7 && g.m == BLOCK_BYTES * 2 / 7, "geom 0.01: k=%u m=%u", g.k, g.m);
	CHECK(scbf_filter_bytes(&g) <= BLOCK_BYTES, "bytes fit");
	CHECK(scbf_filter_geometry_for_bytes(0.01, 3, &g) == SCBF_FILTER_ETOOSMALL, "too small");

	/* capacity: the largest n with fill^k <= P, fill = 1 - (1-1/m)^n */
	scbf_filter_geometry_for_bytes(0.01, BLOCK_BYTES, &g);
	cap = scbf_filter_block_capacity(&g, 0.01);
	f = 1 - pow(1 - 1.0 / g.m, cap);
	CHECK(pow(f, g.k) <= 0.01, "capacity %u overshoots: %g", cap, pow(f, g.k));
	f = 1 - pow(1 - 1.0 / g.m, cap + 1);
	CHECK(pow(f, g.k) > 0.01, "capacity %u + 1 still fits", cap);
	CHECK(cap > 1500 && cap < 1700, "capacity %u for a page at 1%%", cap);

	CHECK(scbf_filter_blocks_for(0, 1000, 64) == 1, "blocks_for(0)");
	CHECK(scbf_filter_blocks_for(1000, 1000, 64) == 1, "blocks_for(1000)");
	CHECK(scbf_filter_blocks_for(1001, 1000, 64) == 2, "blocks_for(1001)");
	CHECK(scbf_filter_blocks_for(1000000, 1000, 64) == 64, "blocks_for clamps");
	printf("ok - sizing\n");
}

static void
test_hashing(void)
{
	scbf_filter_geometry g = {7, 2233};
	uint32_t	pos[SCBF_FILTER_MAX_K];
	uint32_t	pos2[SCBF_FILTER_MAX_K];
	uint32_t	hist[16];
	uint32_t	i;

	/* pinned values: the on-disk format depends on them */
	CHECK(scbf_filter_key(0, 0) == 0x48B2C92616FC193DULL,
		  "key(0,0) = %016llx", (unsigned long long) scbf_filter_key(0, 0));
	CHECK(scbf_filter_key(0x5CBF, 0x5CBF5EED) == 0x44935F67E652B5E0ULL,
		  "key(0x5CBF, seed) = %016llx",
		  (unsigned long long) scbf_filter_key(0x5CBF, 0x5CBF5EED));
	scbf_filter_positions(0x0123456789ABCDEFULL, &g, pos);
	CHECK(pos[0] == 187 && pos[6] == 1613, "positions %u %u", pos[0], pos[6]);

	CHECK(scbf_filter_key(1, 1) != scbf_filter_key(1, 2), "seeds differ");
	CHECK(scbf_filter_key(1, 1) != scbf_filter_key(2, 1), "hashes differ");

	/* deterministic and in range */
	scbf_filter_positions(scbf_filter_key(7, 3), &g, pos2);
	scbf_filter_positions(scbf_filter_key(7, 3), &g, pos);
	CHECK(memcmp(pos, pos2, sizeof(uint32_t) * g.k) == 0, "deterministic");
	for (i = 0; i < 100000; i++)
	{
		uint32_t	j;

		scbf_filter_positions(scbf_filter_key(i, 9), &g, pos);
		for (j = 0; j < g.k; j++)
			if (pos[j] >= g.m)
			{
				CHECK(0, "position out of range");
				break;
			}
	}

	/* blocks: in range and roughly uniform over 16 blocks */
	memset(hist, 0, sizeof(hist));
	for (i = 0; i < 160000; i++)
	{
		uint32_t	b = scbf_filter_block_of(scbf_filter_key(i, 5), 16);

		CHECK(b < 16, "block out of range");
		hist[b]++;
	}
	for (i = 0; i < 16; i++)
		CHECK(hist[i] > 9400 && hist[i] < 10600, "block %u got %u of 160000", i, hist[i]);
	CHECK(scbf_filter_block_of(~0ULL, 1) == 0, "one block");
	printf("ok - hashing\n");
}

static void
test_round_trips(void)
{
	Block		b;
	uint32_t   *live = malloc(sizeof(uint32_t) * 4000);
	int			nlive = 0;
	int			round;
	int			i;
	int			fn = 0;

	block_init(&b, 0.01);
	for (round = 0; round < 20; round++)
	{
		/* add 200 new keys, remove 100 random live ones */
		for (i = 0; i < 200; i++)
		{
			uint32_t	h = rnd32();

			add(&b, h);
			live[nlive++] = h;
		}
		for (i = 0; i < 100; i++)
		{
			int			v = (int) (rnd32() % (uint32_t) nlive);
			int			r = rem(&b, live[v]);

			CHECK((r & SCBF_FILTER_UNDERFLOW) == 0, "underflow removing a live key");
			live[v] = live[--nlive];
		}
		for (i = 0; i < nlive; i++)
			if (!test(&b, live[i]))
				fn++;
		check_bookkeeping(&b, "round trip");
	}
	CHECK(fn == 0, "%d false negatives", fn);

	/* removing everything empties the block */
	for (i = 0; i < nlive; i++)
		rem(&b, live[i]);
	for (i = 0; i < (int) b.geom.k; i++)
		CHECK(b.nonzero[i] == 0, "slice %d not empty after removing all", i);
	check_bookkeeping(&b, "emptied");
	free(live);
	printf("ok - add/remove/test round trips, no false negatives\n");
}

static void
test_saturation(void)
{
	Block		b;
	uint32_t	pos[SCBF_FILTER_MAX_K];
	uint32_t	i;
	int			r = 0;

	block_init(&b, 0.01);
	for (i = 0; i < 20; i++)
		add(&b, 12345);
	key_pos(&b, 12345, pos);
	for (i = 0; i < b.geom.k; i++)
		CHECK(scbf_filter_get(b.counters, i * b.geom.m + pos[i]) == 15, "saturates at 15");
	CHECK(b.nsaturated == b.geom.k, "nsaturated %u", b.nsaturated);
	check_bookkeeping(&b, "saturated");

	r = 0;
	for (i = 0; i < 20; i++)
		r |= rem(&b, 12345);
	CHECK(r & SCBF_FILTER_STUCK, "remove reports STUCK");
	CHECK((r & SCBF_FILTER_UNDERFLOW) == 0, "no underflow on sticky counters");
	CHECK(test(&b, 12345), "a sticky key still tests positive");
	for (i = 0; i < b.geom.k; i++)
		CHECK(scbf_filter_get(b.counters, i * b.geom.m + pos[i]) == 15, "sticky stays 15");
	check_bookkeeping(&b, "sticky");

	/* exactly 15 adds report SATURATED once per counter */
	block_init(&b, 0.01);
	r = 0;
	for (i = 0; i < 15; i++)
	{
		key_pos(&b, 777, pos);
		r = scbf_filter_add(b.counters, b.nonzero, &b.nsaturated, &b.geom, pos);
	}
	CHECK(r == SCBF_FILTER_SATURATED, "15th add reports SATURATED");

	/* underflow on an absent key, counters left at 0 */
	block_init(&b, 0.01);
	r = rem(&b, 99);
	CHECK(r & SCBF_FILTER_UNDERFLOW, "underflow reported");
	check_bookkeeping(&b, "underflow");
	CHECK(!test(&b, 99), "empty block says absent");
	printf("ok - saturation is sticky, underflow reported\n");
}

static void
test_nibbles(void)
{
	scbf_filter_geometry g = {1, 8};
	uint8_t		c[4];
	uint16_t	nz[1] = {0};
	uint32_t	sat = 0;
	uint32_t	pos[1];
	uint32_t	i;

	memset(c, 0, sizeof(c));
	pos[0] = 3;
	for (i = 0; i < 5; i++)
		scbf_filter_add(c, nz, &sat, &g, pos);
	pos[0] = 2;
	scbf_filter_add(c, nz, &sat, &g, pos);
	CHECK(scbf_filter_get(c, 3) == 5 && scbf_filter_get(c, 2) == 1, "neighbours");
	CHECK(c[1] == 0x51, "packing: byte 1 = %02x", c[1]);
	pos[0] = 3;
	scbf_filter_remove(c, nz, &sat, &g, pos);
	CHECK(scbf_filter_get(c, 3) == 4 && scbf_filter_get(c, 2) == 1, "remove keeps neighbour");
	CHECK(nz[0] == 2, "nonzero %u", nz[0]);
	scbf_filter_clear(c, nz, &sat, &g);
	CHECK(c[0] == 0 && c[1] == 0 && nz[0] == 0 && sat == 0, "clear");
	printf("ok - nibble packing\n");
}

static void
test_fpr(double target)
{
	Block		b;
	uint32_t	cap;
	uint32_t	i;
	int			fp = 0;
	const int	probes = 400000;
	double		state;
	double		measured;

	block_init(&b, target);
	cap = scbf_filter_block_capacity(&b.geom, target);
	/* keys are even numbers, absent probes odd ones */
	for (i = 0; i < cap; i++)
		add(&b, i * 2);
	state = scbf_filter_state_fpr(b.nonzero, &b.geom);
	for (i = 0; i < (uint32_t) probes; i++)
		if (test(&b, i * 2 + 1))
			fp++;
	measured = (double) fp / probes;
	CHECK(state <= target * 1.1 && state >= target * 0.7,
		  "state FPR %g for target %g at capacity", state, target);
	CHECK(fabs(measured - state) <= 4 * sqrt(state / probes) + state * 0.02,
		  "measured FPR %g vs state %g", measured, state);
	CHECK(scbf_filter_fill(b.nonzero, &b.geom) > 0.4 &&
		  scbf_filter_fill(b.nonzero, &b.geom) < 0.6, "fill near 1/2");
	printf("ok - FPR at capacity for target %g: state %.5f, measured %.5f\n",
		   target, state, measured);
}

int
main(void)
{
	test_sizing();
	test_hashing();
	test_round_trips();
	test_saturation();
	test_nibbles();
	test_fpr(0.01);
	test_fpr(0.001);
	test_fpr(0.1);
	if (nfail)
	{
		printf("not ok - %d checks failed\n", nfail);
		return 1;
	}
	printf("ok - all filter checks passed\n");
	return 0;
}
