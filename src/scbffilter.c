/*-------------------------------------------------------------------------
 *
 * scbffilter.c
 *	  Split counting Bloom filter blocks: sizing, hashing, add/remove/test.
 *
 * NOTES
 *	  This file is server-free (see scbffilter.h): it uses C99 headers,
 *	  <math.h> and the system's xxhash.h in inline mode, allocates nothing,
 *	  and reports failures as return codes.
 *
 *	  Layout.  A block is k slices of m four-bit counters, k * m counters
 *	  in all, packed two to a byte: counter c lives in byte c / 2, even c in
 *	  the low nibble, odd c in the high one.  Slice i holds counters
 *	  i * m .. i * m + m - 1; when m is odd a slice starts in the high
 *	  nibble of a byte it shares with the previous slice, which is why the
 *	  counters are only ever changed one nibble at a time.
 *
 *	  Hashing scheme.  The caller gives a 32-bit value hash (the type's own
 *	  hash function, so that values that compare equal hash equal).
 *	  scbf_filter_key() expands it to a 64-bit key: XXH3-64 of its four
 *	  bytes, taken in little-endian order whatever the host, with a
 *	  per-column seed.  From that key:
 *
 *	  ----------
 *		block  = fastrange32(key >> 32, nblocks)
 *		pos[i] = fastrange64(mix(key + (i + 1) * 0x9e3779b97f4a7c15), m)
 *		fastrange32(x, n) = (x * n) >> 32		(x < 2^32, Lemire)
 *		fastrange64(x, n) = (x * n) >> 64		(x < 2^64, 128-bit product)
 *	  ----------
 *
 *	  where mix is splitmix64's finalizer (a bijection of 64-bit words) and
 *	  0x9e3779b97f4a7c15 is 2^64 divided by the golden ratio, splitmix64's
 *	  increment.  This is the "mix" scheme of the research simulation
 *	  (research/sim/scbf_sim.c), reproduced bit for bit.  Every slice gets
 *	  its own well-mixed 64-bit word, so the k positions behave as
 *	  independent hashes.  Plain double hashing, pos[i] = (h1 + i * h2) mod
 *	  m, would be cheaper but has a false-positive floor of n / m^2 (two
 *	  keys that agree on h1 and h2 mod m collide in every slice), worse
 *	  when m is composite; at P = 1e-4 that floor alone adds 28% to the
 *	  rate (research/math.md, section 5).
 *
 *	  Sizing.  For a target false-positive rate P, k = ceil(log2(1/P))
 *	  (the optimum k = log2(1/P), rounded up as in the paper), and m is
 *	  whatever the block's bytes hold.  After n distinct keys each slice has
 *	  fill f, the chance that a given counter is non-zero, and a random
 *	  absent key passes all k slices with probability f^k:
 *
 *	  ----------
 *		f(n)     = 1 - (1 - 1/m)^n
 *		FPR(n)   = f(n)^k
 *		capacity = max n with FPR(n) <= P
 *				 = floor(ln(1 - P^(1/k)) / ln(1 - 1/m))
 *	  ----------
 *
 *	  At the unrounded optimum the capacity is m ln 2 (fill 1/2).  Because
 *	  the slices are independent, the rate of a block in a given state is
 *	  exactly prod_i nonzero[i] / m, which scbf_filter_state_fpr() reports;
 *	  that is the number to trust once duplicates and deletions have made a
 *	  key count meaningless.
 *
 *	  Counters.  An increment stops at 15 and a counter at 15 is never
 *	  decremented again ("sticky"): its true count is unknown, and
 *	  decrementing it could make it reach zero while a key still needs it,
 *	  a false negative.  A decrement of a zero counter means the caller
 *	  removed a key that was never added (or the block is corrupt); it is
 *	  reported and the counter stays at zero.  So a counter is never below
 *	  the number of live keys that hash to it, and there are no false
 *	  negatives.  nonzero[i] and *nsaturated are kept exact on every change
 *	  so that the caller never has to rescan a block to know its fill.
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

/* splitmix64's increment: 2^64 / golden ratio, odd */
#define SCBF_GOLDEN_GAMMA	UINT64_C(0x9e3779b97f4a7c15)

/* Counter c is in byte c / 2; odd c in the high nibble */
#define SCBF_NIBBLE_SHIFT(idx)	(((idx) & 1) ? 4 : 0)

/*
 * FastRange32
 *		Map a 32-bit word x uniformly onto [0, n): floor(x * n / 2^32).
 *
 * Lemire's multiply-shift, a division-free replacement for x % n.
 */
static inline uint32_t
FastRange32(uint32_t x, uint32_t n)
{
	return (uint32_t) (((uint64_t) x * n) >> 32);
}

/*
 * FastRange64
 *		Map a 64-bit word x uniformly onto [0, n): floor(x * n / 2^64).
 *
 * The high word of the 96-bit product x * n, formed from two 64-bit
 * products so as not to need a 128-bit type.  With x = hi * 2^32 + lo,
 * x * n = hi * n * 2^32 + lo * n; the low 32 bits of lo * n cannot carry
 * into bit 64, so they can be dropped before the final shift, and
 * hi * n + (lo * n >> 32) < 2^64 cannot overflow.  Equal to the research
 * simulation's ((unsigned __int128) x * n) >> 64 for every x and n.
 */
static inline uint32_t
FastRange64(uint64_t x, uint32_t n)
{
	uint64_t	hi = (x >> 32) * n;
	uint64_t	lo = (x & UINT64_C(0xffffffff)) * n;

	return (uint32_t) ((hi + (lo >> 32)) >> 32);
}

/*
 * Mix64
 *		splitmix64's finalizer: a bijective mix of a 64-bit word in which
 *		every input bit affects every output bit.
 */
static inline uint64_t
Mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/*
 * CounterSet
 *		Set counter idx of a block to v (0 .. SCBF_FILTER_COUNTER_MAX),
 *		leaving the other nibble of its byte alone.
 */
static inline void
CounterSet(uint8_t *counters, uint32_t idx, unsigned v)
{
	uint8_t    *byte = &counters[idx >> 1];
	unsigned	shift = SCBF_NIBBLE_SHIFT(idx);

	*byte = (uint8_t) ((*byte & ~(0x0fu << shift)) | ((v & 0x0fu) << shift));
}

/*
 * scbf_filter_optimal_k
 *		Slices (= hash functions) for a target false-positive rate fpr:
 *		ceil(log2(1/fpr)), clamped to [1, SCBF_FILTER_MAX_K].
 *
 * The epsilon keeps an exact power of two from rounding up through
 * floating-point error (fpr = 2^-10 gives 10, not 11), as research's
 * analysis.py does.  Returns the k, or SCBF_FILTER_EINVAL when fpr is not
 * in (0, 1) (NaN included).
 */
int
scbf_filter_optimal_k(double fpr)
{
	double		k;

	if (!(fpr > 0.0 && fpr < 1.0))
		return SCBF_FILTER_EINVAL;
	k = ceil(log2(1.0 / fpr) - 1e-12);
	if (k < 1.0)
		return 1;
	if (k > SCBF_FILTER_MAX_K)
		return SCBF_FILTER_MAX_K;
	return (int) k;
}

/*
 * scbf_filter_geometry_for_bytes
 *		Geometry of a block with nbytes bytes of counter space, for a
 *		target false-positive rate fpr.
 *
 * k comes from scbf_filter_optimal_k(fpr); m = floor(2 * nbytes / k), the
 * most four-bit counters per slice that fit, capped at SCBF_FILTER_MAX_M
 * because nonzero[i] is a uint16_t.  On success fills *geom and returns
 * SCBF_FILTER_OK; returns SCBF_FILTER_EINVAL for a bad fpr or a NULL geom,
 * and SCBF_FILTER_ETOOSMALL when not even one counter per slice fits.
 * *geom is left alone on failure.
 */
int
scbf_filter_geometry_for_bytes(double fpr, size_t nbytes,
							   scbf_filter_geometry *geom)
{
	int			k = scbf_filter_optimal_k(fpr);
	size_t		m;

	if (k < 0 || geom == NULL)
		return SCBF_FILTER_EINVAL;

	/* compare before doubling so that a huge nbytes cannot overflow */
	if (nbytes >= (size_t) SCBF_FILTER_MAX_M * SCBF_FILTER_MAX_K)
		m = SCBF_FILTER_MAX_M;
	else
		m = nbytes * 2 / (size_t) k;
	if (m > SCBF_FILTER_MAX_M)
		m = SCBF_FILTER_MAX_M;
	if (m < 1)
		return SCBF_FILTER_ETOOSMALL;

	geom->k = (uint32_t) k;
	geom->m = (uint32_t) m;
	return SCBF_FILTER_OK;
}

/*
 * scbf_filter_bytes
 *		Bytes of counter space a block of this geometry uses:
 *		ceil(k * m / 2), two counters to a byte.
 */
size_t
scbf_filter_bytes(const scbf_filter_geometry *geom)
{
	return ((size_t) geom->k * geom->m + 1) / 2;
}

/*
 * scbf_filter_block_capacity
 *		Distinct keys a block holds before its expected false-positive rate
 *		f^k exceeds fpr.
 *
 * floor(ln(1 - fpr^(1/k)) / ln(1 - 1/m)) (see the file header), evaluated
 * with log1p for accuracy, at least 1 and at most UINT32_MAX.  A slice of
 * a single counter (m = 1) is full after one key, so its capacity is the
 * minimum, 1 (the formula would divide by ln 0).  A geometry with k or m
 * of zero, or fpr outside (0, 1), also gives 1: callers validate those
 * first, and 1 is the answer that cannot overfill a block.
 */
uint32_t
scbf_filter_block_capacity(const scbf_filter_geometry *geom, double fpr)
{
	double		per_slice;
	double		n;

	if (geom->k < 1 || geom->m <= 1 || !(fpr > 0.0 && fpr < 1.0))
		return 1;

	/* the fill each slice may reach: f^k = fpr */
	per_slice = pow(fpr, 1.0 / (double) geom->k);
	n = floor(log1p(-per_slice) / log1p(-1.0 / (double) geom->m));
	if (!(n >= 1.0))
		return 1;
	if (n >= (double) UINT32_MAX)
		return UINT32_MAX;
	return (uint32_t) n;
}

/*
 * scbf_filter_blocks_for
 *		Blocks a filter needs for nkeys distinct keys at capacity keys per
 *		block: ceil(nkeys / capacity), clamped to [1, maxblocks].
 *
 * A capacity of 0 counts as 1.  The result is never below 1, even for no
 * keys or a maxblocks of 0: a filter always has a block.
 */
uint32_t
scbf_filter_blocks_for(uint64_t nkeys, uint32_t capacity, uint32_t maxblocks)
{
	uint64_t	blocks;

	if (capacity == 0)
		capacity = 1;
	/* ceil without nkeys + capacity - 1, which could overflow */
	blocks = nkeys / capacity + (nkeys % capacity != 0);
	if (blocks > maxblocks)
		blocks = maxblocks;
	if (blocks < 1)
		blocks = 1;
	return (uint32_t) blocks;
}

/*
 * scbf_filter_key
 *		The 64-bit filter key of a 32-bit value hash: XXH3-64 of its four
 *		bytes in little-endian order, with the column's seed.
 *
 * The byte array is built explicitly, so the key (and with it the on-disk
 * counters) is the same on big- and little-endian hosts.
 */
uint64_t
scbf_filter_key(uint32_t value_hash, uint64_t seed)
{
	unsigned char bytes[4];

	bytes[0] = (unsigned char) (value_hash & 0xff);
	bytes[1] = (unsigned char) ((value_hash >> 8) & 0xff);
	bytes[2] = (unsigned char) ((value_hash >> 16) & 0xff);
	bytes[3] = (unsigned char) ((value_hash >> 24) & 0xff);
	return (uint64_t) XXH3_64bits_withSeed(bytes, sizeof(bytes),
										   (XXH64_hash_t) seed);
}

/*
 * scbf_filter_block_of
 *		The block, 0 .. nblocks - 1, that a key belongs to:
 *		fastrange32(key >> 32, nblocks).
 *
 * Uses the key's high half only; the slice positions mix the whole key,
 * so they are independent of the block.  nblocks must be at least 1 (0
 * gives 0).
 */
uint32_t
scbf_filter_block_of(uint64_t key, uint32_t nblocks)
{
	return FastRange32((uint32_t) (key >> 32), nblocks);
}

/*
 * scbf_filter_positions
 *		The key's counter in each slice: pos[i] in [0, m) for i in [0, k).
 *
 * pos[i] = fastrange64(mix(key + (i + 1) * golden gamma), m), see the file
 * header.  pos must have room for geom->k entries.  The counter of slice i
 * is then number i * m + pos[i] of the block.
 */
void
scbf_filter_positions(uint64_t key, const scbf_filter_geometry *geom,
					  uint32_t *pos)
{
	uint32_t	i;

	for (i = 0; i < geom->k; i++)
		pos[i] = scbf_filter_position(key, geom, i);
}

/*
 * scbf_filter_position
 *		The key's counter in slice i alone: scbf_filter_positions' pos[i].
 */
uint32_t
scbf_filter_position(uint64_t key, const scbf_filter_geometry *geom,
					 uint32_t i)
{
	return FastRange64(Mix64(key + (uint64_t) (i + 1) * SCBF_GOLDEN_GAMMA),
					   geom->m);
}

/*
 * scbf_filter_get
 *		Value (0 .. SCBF_FILTER_COUNTER_MAX) of counter idx of a block,
 *		idx in 0 .. k * m - 1.
 */
unsigned
scbf_filter_get(const uint8_t *counters, uint32_t idx)
{
	return (unsigned) (counters[idx >> 1] >> SCBF_NIBBLE_SHIFT(idx)) & 0x0fu;
}

/*
 * scbf_filter_clear
 *		Zero all counters of a block (scbf_filter_bytes(geom) bytes, none
 *		beyond) and its bookkeeping: nonzero[0 .. k-1] and *nsaturated.
 */
void
scbf_filter_clear(uint8_t *counters, uint16_t *nonzero,
				  uint32_t *nsaturated, const scbf_filter_geometry *geom)
{
	uint32_t	i;

	/*
	 * When k * m is odd the last byte's high nibble is not ours; keep it,
	 * so that a block may share its last byte with whatever follows.
	 */
	memset(counters, 0, ((size_t) geom->k * geom->m) / 2);
	if (((size_t) geom->k * geom->m) & 1)
		CounterSet(counters, geom->k * geom->m - 1, 0);
	for (i = 0; i < geom->k; i++)
		nonzero[i] = 0;
	*nsaturated = 0;
}

/*
 * scbf_filter_add
 *		Add one key to a block: increment its k counters, counter
 *		i * m + pos[i] for slice i.
 *
 * An increment stops at SCBF_FILTER_COUNTER_MAX.  nonzero[i] goes up when
 * slice i's counter leaves 0, *nsaturated when a counter reaches the
 * maximum.  Returns SCBF_FILTER_SATURATED when any of the key's counters
 * is at the maximum afterwards (it just got there, or was there already
 * and this increment was lost), else 0.
 */
int
scbf_filter_add(uint8_t *counters, uint16_t *nonzero,
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
			result |= SCBF_FILTER_SATURATED;	/* sticky: count lost */
			continue;
		}
		if (v == 0)
			nonzero[i]++;		/* m <= SCBF_FILTER_MAX_M: no overflow */
		v++;
		if (v == SCBF_FILTER_COUNTER_MAX)
		{
			(*nsaturated)++;
			result |= SCBF_FILTER_SATURATED;
		}
		CounterSet(counters, idx, v);
	}
	return result;
}

/*
 * scbf_filter_remove
 *		Remove one key from a block: decrement its k counters.
 *
 * A counter at the maximum is left alone (its true count is unknown, and
 * lowering it could produce a false negative later) and reported as
 * SCBF_FILTER_STUCK; *nsaturated therefore never goes down here.  A
 * counter already at 0 is left at 0 and reported as SCBF_FILTER_UNDERFLOW:
 * the key was never added, or the block is corrupt.  The key's other
 * counters are decremented either way.  nonzero[i] goes down when slice
 * i's counter reaches 0.  Returns the OR of the reported bits, or 0.
 */
int
scbf_filter_remove(uint8_t *counters, uint16_t *nonzero,
				   uint32_t *nsaturated, const scbf_filter_geometry *geom,
				   const uint32_t *pos)
{
	int			result = 0;
	uint32_t	i;

	(void) nsaturated;			/* sticky counters are never decremented */

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
		CounterSet(counters, idx, v);
	}
	return result;
}

/*
 * scbf_filter_test
 *		True when all k counters of the key are non-zero: the key may be
 *		in the block.  False means it certainly is not.
 */
bool
scbf_filter_test(const uint8_t *counters, const scbf_filter_geometry *geom,
				 const uint32_t *pos)
{
	uint32_t	i;

	for (i = 0; i < geom->k; i++)
	{
		if (scbf_filter_get(counters, i * geom->m + pos[i]) == 0)
			return false;
	}
	return true;
}

/*
 * scbf_filter_census
 *		Recount a block's bookkeeping from its counters: nonzero[i] for each
 *		slice, *nsaturated, and, if hist is not NULL, hist[v] = number of
 *		counters with value v for v in 0 .. SCBF_FILTER_COUNTER_MAX
 *		(16 entries; they sum to k * m).
 */
void
scbf_filter_census(const uint8_t *counters, const scbf_filter_geometry *geom,
				   uint16_t *nonzero, uint32_t *nsaturated, uint32_t *hist)
{
	uint32_t	i;
	uint32_t	j;

	*nsaturated = 0;
	if (hist != NULL)
	{
		for (j = 0; j <= SCBF_FILTER_COUNTER_MAX; j++)
			hist[j] = 0;
	}
	for (i = 0; i < geom->k; i++)
	{
		uint32_t	nz = 0;

		for (j = 0; j < geom->m; j++)
		{
			unsigned	v = scbf_filter_get(counters, i * geom->m + j);

			if (v != 0)
				nz++;
			if (v == SCBF_FILTER_COUNTER_MAX)
				(*nsaturated)++;
			if (hist != NULL)
				hist[v]++;
		}
		nonzero[i] = (uint16_t) nz;
	}
}

/*
 * scbf_filter_state_fpr
 *		False-positive rate of a block in its current state:
 *		prod_i nonzero[i] / m, a probability in [0, 1].
 *
 * A random absent key passes slice i with probability nonzero[i] / m,
 * independently of the other slices, so this is exact for the state, not
 * an estimate from a key count.
 */
double
scbf_filter_state_fpr(const uint16_t *nonzero,
					  const scbf_filter_geometry *geom)
{
	double		fpr = 1.0;
	uint32_t	i;

	for (i = 0; i < geom->k; i++)
		fpr *= (double) nonzero[i] / (double) geom->m;
	return fpr;
}

/*
 * scbf_filter_fill
 *		Mean fill of a block, the fraction of its counters that are
 *		non-zero: sum(nonzero) / (k * m), in [0, 1].
 */
double
scbf_filter_fill(const uint16_t *nonzero, const scbf_filter_geometry *geom)
{
	double		sum = 0.0;
	uint32_t	i;

	for (i = 0; i < geom->k; i++)
		sum += nonzero[i];
	return sum / ((double) geom->k * (double) geom->m);
}

/*
 * scbf_filter_estimate_keys
 *		Distinct keys in a block, from its fill: linear counting per slice,
 *		n = -m ln(1 - nonzero[i] / m), averaged over the k slices.  A full
 *		slice counts as m - 1/2 non-zero counters, so the estimate stays
 *		finite.
 */
double
scbf_filter_estimate_keys(const uint16_t *nonzero,
						  const scbf_filter_geometry *geom)
{
	double		m = geom->m;
	double		keys = 0.0;
	uint32_t	i;

	for (i = 0; i < geom->k; i++)
	{
		double		nz = nonzero[i] < m ? nonzero[i] : m - 0.5;

		keys += -m * log(1.0 - nz / m);
	}
	return keys / geom->k;
}

/* ---- storage v2: bit-sliced rows (see scbffilter.h) ---- */

/*
 * scbf_rows_k
 *		Slices of the storage v2 filters for a target rate fpr.
 *
 * Fewer than the optimal log2(1/fpr): a probe reads one row page per slice,
 * so the rate comes from a lower fill instead (src/README, D6); at 1e-4
 * this gives 5 slices and 29 bits per key, against 14 slices and 19 bits.
 */
int
scbf_rows_k(double fpr)
{
	double		k;

	if (!(fpr > 0.0 && fpr < 1.0))
		return SCBF_FILTER_EINVAL;
	k = ceil(log2(1.0 / fpr) / SCBF_ROWS_K_DIVISOR - 1e-12);
	if (k < 1.0)
		return 1;
	if (k > SCBF_ROWS_MAX_K)
		return SCBF_ROWS_MAX_K;
	return (int) k;
}

/*
 * scbf_rows_fill
 *		The fill each slice may reach for fpr at k slices: fpr^(1/k).
 */
double
scbf_rows_fill(double fpr, uint32_t k)
{
	return pow(fpr, 1.0 / (double) (k ? k : 1));
}

/*
 * scbf_rows_m
 *		Positions per slice for nkeys distinct keys at the given fill:
 *		ceil(nkeys / -ln(1 - fill)), clamped to [1, UINT32_MAX].
 *
 * From fill = 1 - e^(-n/m), the expected fill of a slice of m positions
 * after n distinct keys (math.md section 1).
 */
uint32_t
scbf_rows_m(double nkeys, double fill)
{
	double		m;

	if (!(fill > 0.0 && fill < 1.0) || !(nkeys > 0.0))
		return 1;
	m = ceil(nkeys / -log1p(-fill));
	if (m >= (double) UINT32_MAX)
		return UINT32_MAX;
	return m < 1.0 ? 1 : (uint32_t) m;
}

/*
 * scbf_rows_capacity
 *		Distinct keys a filter of m positions per slice takes before its
 *		slices reach the fill: floor(-m ln(1 - fill)), at least 1.
 */
uint32_t
scbf_rows_capacity(uint32_t m, double fill)
{
	double		n;

	if (!(fill > 0.0 && fill < 1.0))
		return 1;
	n = floor(-(double) m * log1p(-fill));
	if (n >= (double) UINT32_MAX)
		return UINT32_MAX;
	return n < 1.0 ? 1 : (uint32_t) n;
}

/*
 * scbf_rows_per_page
 *		Rows of width bits that fit in nbytes of row space.
 */
uint32_t
scbf_rows_per_page(size_t nbytes, uint32_t width)
{
	if (width == 0)
		return 0;
	return (uint32_t) (nbytes * 8 / width);
}

/*
 * scbf_rows_set
 *		Set bit col of row row_in_page; true if it was clear.
 */
bool
scbf_rows_set(uint8_t *space, uint32_t row_in_page, uint32_t width,
			  uint32_t col)
{
	uint8_t    *byte = space + ((size_t) row_in_page * width + col) / 8;
	uint8_t		bit = (uint8_t) (1u << (col % 8));
	bool		was_clear = (*byte & bit) == 0;

	*byte |= bit;
	return was_clear;
}

/*
 * scbf_rows_clear
 *		Clear bit col of row row_in_page.
 */
void
scbf_rows_clear(uint8_t *space, uint32_t row_in_page, uint32_t width,
				uint32_t col)
{
	space[((size_t) row_in_page * width + col) / 8] &=
		(uint8_t) ~(1u << (col % 8));
}

/*
 * scbf_rows_test
 *		True if bit col of row row_in_page is set.
 */
bool
scbf_rows_test(const uint8_t *space, uint32_t row_in_page, uint32_t width,
			   uint32_t col)
{
	return (space[((size_t) row_in_page * width + col) / 8] &
			(1u << (col % 8))) != 0;
}

/*
 * scbf_rows_and
 *		acc &= row row_in_page (width is a multiple of 8): eight bytes at a
 *		time, memcpy keeping the loads alignment- and host-neutral, then the
 *		bytes left over.
 */
void
scbf_rows_and(uint8_t *acc, const uint8_t *space, uint32_t row_in_page,
			  uint32_t width)
{
	const uint8_t *row = space + (size_t) row_in_page * width / 8;
	uint32_t	nbytes = width / 8;
	uint32_t	off = 0;

	for (; off + 8 <= nbytes; off += 8)
	{
		uint64_t	a;
		uint64_t	r;

		memcpy(&a, acc + off, sizeof(a));
		memcpy(&r, row + off, sizeof(r));
		a &= r;
		memcpy(acc + off, &a, sizeof(a));
	}
	for (; off < nbytes; off++)
		acc[off] &= row[off];
}

/*
 * scbf_rows_next
 *		The first set bit of acc (width bits) at or after from, or width.
 */
uint32_t
scbf_rows_next(const uint8_t *acc, uint32_t width, uint32_t from)
{
	for (uint32_t c = from; c < width;)
	{
		uint8_t		byte = (uint8_t) (acc[c / 8] >> (c % 8));

		if (byte == 0)
		{
			c = (c / 8 + 1) * 8;
			continue;
		}
		while ((byte & 1) == 0)
		{
			byte >>= 1;
			c++;
		}
		return c;
	}
	return width;
}
