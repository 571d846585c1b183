/*-------------------------------------------------------------------------
 *
 * scbffilter.c
 *	  Split counting Bloom filter blocks: sizing, hashing, add/remove/test.
 *
 * NOTES
 *	  Server-free (see scbffilter.h): C99, <math.h> and the system's
 *	  xxhash.h in inline mode.
 *
 *	  Hashing scheme.  The caller gives a 32-bit value hash (the type's own
 *	  hash function, so that equal values hash equal).  scbf_filter_key()
 *	  expands it to 64 bits with XXH3 and a per-column seed.  The block of a
 *	  multi-block filter comes from the key's high 32 bits by multiply-shift
 *	  ("fastrange"); the position in slice i from a splitmix64 finalizer of
 *	  key + (i + 1) * golden ratio, again by fastrange.  Each slice thus gets
 *	  its own well-mixed 64-bit value: plain double hashing
 *	  (h1 + i * h2) mod m has an FPR floor of n/m^2 and more when m is
 *	  composite (research/math.md, section 5).
 *
 *	  Sizing.  With k = ceil(log2(1/P)) slices of m counters, a block holding
 *	  n distinct keys has fill f = 1 - (1 - 1/m)^n per slice and FPR f^k.
 *	  It stays within the target P for n <= ln(1 - P^(1/k)) / ln(1 - 1/m),
 *	  its capacity.  m is whatever a page holds: k * m counters of 4 bits.
 *
 * Portions Copyright (c) 2026, scbf developers
 *
 * IDENTIFICATION
 *	  src/scbffilter.c
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "scbffilter.h"

#define SCBF_GOLDEN_GAMMA	0x9e3779b97f4a7c15ULL

/*
 * k = ceil(log2(1/fpr)), clamped to [1, SCBF_FILTER_MAX_K].  The small
 * epsilon keeps exact powers of two (fpr = 1/1024 -> 10) from rounding up.
 */
int
scbf_filter_optimal_k(double fpr)
{
	double		k;

	if (!(fpr > 0.0 && fpr < 1.0))
		return SCBF_FILTER_EINVAL;
	k = ceil(log2(1.0 / fpr) - 1e-12);
	if (k < 1)
		k = 1;
	if (k > SCBF_FILTER_MAX_K)
		k = SCBF_FILTER_MAX_K;
	return (int) k;
}

/*
 * Geometry of a block with nbytes of counter space: k from fpr, and as many
 * counters per slice as fit (two per byte).
 */
int
scbf_filter_geometry_for_bytes(double fpr, size_t nbytes,
							   scbf_filter_geometry *geom)
{
	int			k = scbf_filter_optimal_k(fpr);

	if (k < 0)
		return k;
	if (nbytes * 2 / (size_t) k < 1)
		return SCBF_FILTER_ETOOSMALL;
	geom->k = (uint32_t) k;
	geom->m = (uint32_t) (nbytes * 2 / (size_t) k);
	return SCBF_FILTER_OK;
}

/*
 * Bytes of counter space of a block: ceil(k * m / 2).
 */
size_t
scbf_filter_bytes(const scbf_filter_geometry *geom)
{
	return ((size_t) geom->k * geom->m + 1) / 2;
}

/*
 * Distinct keys a block takes before its FPR f^k exceeds fpr.
 */
uint32_t
scbf_filter_block_capacity(const scbf_filter_geometry *geom, double fpr)
{
	double		f;
	double		n;

	if (geom->m <= 1 || !(fpr > 0.0 && fpr < 1.0))
		return 1;
	f = pow(fpr, 1.0 / geom->k);
	n = floor(log(1.0 - f) / log(1.0 - 1.0 / geom->m));
	return (n < 1.0) ? 1 : (uint32_t) n;
}

/*
 * ceil(nkeys / capacity), clamped to [1, maxblocks].
 */
uint32_t
scbf_filter_blocks_for(uint64_t nkeys, uint32_t capacity, uint32_t maxblocks)
{
	uint64_t	blocks;

	if (capacity == 0)
		capacity = 1;
	blocks = (nkeys + capacity - 1) / capacity;
	if (blocks < 1)
		blocks = 1;
	if (blocks > maxblocks)
		blocks = maxblocks;
	return (uint32_t) blocks;
}

/*
 * The 64-bit filter key of a 32-bit value hash: XXH3-64 of its four bytes in
 * little-endian order, with the column's seed.
 */
uint64_t
scbf_filter_key(uint32_t value_hash, uint64_t seed)
{
	unsigned char bytes[4];

	bytes[0] = (unsigned char) (value_hash & 0xff);
	bytes[1] = (unsigned char) ((value_hash >> 8) & 0xff);
	bytes[2] = (unsigned char) ((value_hash >> 16) & 0xff);
	bytes[3] = (unsigned char) ((value_hash >> 24) & 0xff);
	return XXH3_64bits_withSeed(bytes, sizeof(bytes), seed);
}

/*
 * Map a 32-bit value to [0, n) by multiply-shift (Lemire's fastrange).
 */
static inline uint32_t
scbf_fastrange32(uint32_t x, uint32_t n)
{
	return (uint32_t) (((uint64_t) x * n) >> 32);
}

/*
 * Block of a key: from its high 32 bits.
 */
uint32_t
scbf_filter_block_of(uint64_t key, uint32_t nblocks)
{
	return scbf_fastrange32((uint32_t) (key >> 32), nblocks);
}

/*
 * splitmix64's finalizer: a bijective 64-bit mix.
 */
static inline uint64_t
scbf_mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/*
 * Position of the key in each slice (see the file header).
 */
void
scbf_filter_positions(uint64_t key, const scbf_filter_geometry *geom,
					  uint32_t *pos)
{
	uint32_t	i;

	for (i = 0; i < geom->k; i++)
		pos[i] = scbf_fastrange32((uint32_t) (scbf_mix64(key + (uint64_t) (i + 1) * SCBF_GOLDEN_GAMMA) >> 32),
								  geom->m);
}

/*
 * Counter idx: the low nibble of byte idx / 2 for even idx, the high one for
 * odd idx.
 */
unsigned
scbf_filter_get(const uint8_t *counters, uint32_t idx)
{
	uint8_t		byte = counters[idx >> 1];

	return (idx & 1) ? (unsigned) (byte >> 4) : (unsigned) (byte & 0x0f);
}

/*
 * Set counter idx to v (0..15).
 */
static inline void
scbf_filter_set(uint8_t *counters, uint32_t idx, unsigned v)
{
	uint8_t    *byte = &counters[idx >> 1];

	if (idx & 1)
		*byte = (uint8_t) ((*byte & 0x0f) | (v << 4));
	else
		*byte = (uint8_t) ((*byte & 0xf0) | v);
}

/*
 * Zero a block and its bookkeeping.
 */
void
scbf_filter_clear(uint8_t *counters, uint16_t *nonzero, uint32_t *nsaturated,
				  const scbf_filter_geometry *geom)
{
	memset(counters, 0, scbf_filter_bytes(geom));
	memset(nonzero, 0, sizeof(uint16_t) * geom->k);
	*nsaturated = 0;
}

/*
 * Add one key: saturating increments of its k counters.
 */
int
scbf_filter_add(uint8_t *counters, uint16_t *nonzero, uint32_t *nsaturated,
				const scbf_filter_geometry *geom, const uint32_t *pos)
{
	int			result = 0;
	uint32_t	i;

	for (i = 0; i < geom->k; i++)
	{
		uint32_t	idx = i * geom->m + pos[i];
		unsigned	v = scbf_filter_get(counters, idx);

		if (v == SCBF_FILTER_COUNTER_MAX)
			continue;			/* sticky */
		if (v == 0)
			nonzero[i]++;
		v++;
		if (v == SCBF_FILTER_COUNTER_MAX)
		{
			(*nsaturated)++;
			result |= SCBF_FILTER_SATURATED;
		}
		scbf_filter_set(counters, idx, v);
	}
	return result;
}

/*
 * Remove one key: decrement its k counters, leaving saturated and zero
 * counters alone (and saying so).
 */
int
scbf_filter_remove(uint8_t *counters, uint16_t *nonzero,
				   uint32_t *nsaturated, const scbf_filter_geometry *geom,
				   const uint32_t *pos)
{
	int			result = 0;
	uint32_t	i;

	for (i = 0; i < geom->k; i++)
	{
		uint32_t	idx = i * geom->m + pos[i];
		unsigned	v = scbf_filter_get(counters, idx);

		if (v == SCBF_FILTER_COUNTER_MAX)
		{
			result |= SCBF_FILTER_STUCK;
			continue;
		}
		if (v == 0)
		{
			result |= SCBF_FILTER_UNDERFLOW;
			continue;
		}
		v--;
		if (v == 0)
			nonzero[i]--;
		scbf_filter_set(counters, idx, v);
	}
	(void) nsaturated;			/* a saturated counter is never decremented */
	return result;
}

/*
 * True when every counter of the key is non-zero.
 */
bool
scbf_filter_test(const uint8_t *counters, const scbf_filter_geometry *geom,
				 const uint32_t *pos)
{
	uint32_t	i;

	for (i = 0; i < geom->k; i++)
		if (scbf_filter_get(counters, i * geom->m + pos[i]) == 0)
			return false;
	return true;
}

/*
 * Recount the bookkeeping of a block from its counters.
 */
void
scbf_filter_census(const uint8_t *counters, const scbf_filter_geometry *geom,
				   uint16_t *nonzero, uint32_t *nsaturated, uint32_t *hist)
{
	uint32_t	i;
	uint32_t	j;

	*nsaturated = 0;
	if (hist)
		memset(hist, 0, sizeof(uint32_t) * (SCBF_FILTER_COUNTER_MAX + 1));
	for (i = 0; i < geom->k; i++)
	{
		nonzero[i] = 0;
		for (j = 0; j < geom->m; j++)
		{
			unsigned	v = scbf_filter_get(counters, i * geom->m + j);

			if (v != 0)
				nonzero[i]++;
			if (v == SCBF_FILTER_COUNTER_MAX)
				(*nsaturated)++;
			if (hist)
				hist[v]++;
		}
	}
}

/*
 * Product over slices of the non-zero fraction.
 */
double
scbf_filter_state_fpr(const uint16_t *nonzero,
					  const scbf_filter_geometry *geom)
{
	double		fpr = 1.0;
	uint32_t	i;

	for (i = 0; i < geom->k; i++)
		fpr *= (double) nonzero[i] / geom->m;
	return fpr;
}

/*
 * Mean non-zero fraction over the slices.
 */
double
scbf_filter_fill(const uint16_t *nonzero, const scbf_filter_geometry *geom)
{
	double		sum = 0;
	uint32_t	i;

	for (i = 0; i < geom->k; i++)
		sum += nonzero[i];
	return sum / ((double) geom->k * geom->m);
}
