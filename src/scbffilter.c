/*-------------------------------------------------------------------------
 *
 * scbffilter.c
 *	  The filters of an index as bit-sliced rows: sizing, hashing, slice
 *	  positions and row-bit operations.
 *
 * NOTES
 *	  This file is server-free (see scbffilter.h): it uses C99 headers,
 *	  <math.h> and the system's xxhash.h in inline mode, allocates nothing,
 *	  and reports failures as return codes.
 *
 *	  Layout.  Every filter of an index has k slices of m positions and one
 *	  bit per position.  The bits are stored as rows, one per (slice,
 *	  position): row i * m + p holds bit c for filter c, at bit c % 8 of
 *	  the row's byte c / 8.  A row is width bits wide, width a multiple of
 *	  SCBF_ROWS_WIDTH_ALIGN, and a page's row space holds
 *	  floor(8 * bytes / width) rows, row j at bit j * width.
 *
 *	  Hashing scheme.  The caller gives a 32-bit value hash (the type's own
 *	  hash function, so that values that compare equal hash equal).
 *	  scbf_filter_key() expands it to a 64-bit key: XXH3-64 of its four
 *	  bytes, taken in little-endian order whatever the host, with a
 *	  per-column seed.  From that key:
 *
 *	  ----------
 *		pos[i] = fastrange64(mix(key + (i + 1) * 0x9e3779b97f4a7c15), m)
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
 *	  rate (research/math.md, section 5).  The keys and positions are part
 *	  of the on-disk format: the unit tests pin them.
 *
 *	  Sizing.  After n distinct keys a slice of m positions has fill
 *	  f = 1 - e^(-n/m), the share of its bits that are set, and a random
 *	  absent key passes all k slices with probability f^k.  For a target
 *	  rate P, k is fewer than the optimal log2(1/P), since a probe reads
 *	  one row page per slice, and the rate comes from a lower fill instead:
 *
 *	  ----------
 *		k        = ceil(log2(1/P) / 2.7), in [1, SCBF_ROWS_MAX_K]
 *		fill     = P^(1/k)
 *		m        = ceil(n / -ln(1 - fill))	for n keys
 *		capacity = floor(-m ln(1 - fill))	keys of m positions
 *	  ----------
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
 * scbf_rows_k
 *		Slices of the filters for a target rate fpr.
 *
 * Fewer than the optimal log2(1/fpr): a probe reads one row page per slice,
 * so the rate comes from a lower fill instead (see the file header); at 1e-4
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
 * scbf_filter_key
 *		The 64-bit filter key of a 32-bit value hash: XXH3-64 of its four
 *		bytes in little-endian order, with the column's seed.
 *
 * The byte array is built explicitly, so the key (and with it the on-disk
 * rows) is the same on big- and little-endian hosts.
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
 * scbf_filter_key_wide
 *		The 64-bit filter key of a value hash wider than 32 bits: XXH3-64
 *		of its eight bytes in little-endian order, with the column's seed.
 */
uint64_t
scbf_filter_key_wide(uint64_t value_hash, uint64_t seed)
{
	unsigned char bytes[8];

	for (int i = 0; i < 8; i++)
		bytes[i] = (unsigned char) ((value_hash >> (8 * i)) & 0xff);
	return (uint64_t) XXH3_64bits_withSeed(bytes, sizeof(bytes),
										   (XXH64_hash_t) seed);
}

/*
 * scbf_filter_positions
 *		The key's position in each slice: pos[i] in [0, m) for i in [0, k).
 *
 * pos[i] = fastrange64(mix(key + (i + 1) * golden gamma), m), see the file
 * header.  pos must have room for geom->k entries.  The key's bit of slice
 * i is then in row i * m + pos[i].
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
 *		The key's position in slice i alone: scbf_filter_positions' pos[i].
 */
uint32_t
scbf_filter_position(uint64_t key, const scbf_filter_geometry *geom,
					 uint32_t i)
{
	return FastRange64(Mix64(key + (uint64_t) (i + 1) * SCBF_GOLDEN_GAMMA),
					   geom->m);
}

/*
 * scbf_summary_rows
 *		The key's summary rows: its block by a mix of the key with an
 *		increment no slice uses (slices use 1 .. SCBF_ROWS_MAX_K), its bits
 *		within the block as nine-bit fields of two further mixes.
 */
void
scbf_summary_rows(uint64_t key, uint32_t nblocks, uint64_t *rows)
{
	uint64_t	base = (uint64_t) FastRange64(Mix64(key + 64 * SCBF_GOLDEN_GAMMA),
											  nblocks) * SCBF_SUMMARY_BLOCK_BITS;
	uint64_t	bits = Mix64(key + 65 * SCBF_GOLDEN_GAMMA);
	uint64_t	more = Mix64(key + 66 * SCBF_GOLDEN_GAMMA);
	int			i;

	for (i = 0; i < SCBF_SUMMARY_K; i++)
	{
		uint64_t	field = i < 7 ? bits >> (9 * i) : more >> (9 * (i - 7));

		rows[i] = base + (field & (SCBF_SUMMARY_BLOCK_BITS - 1));
	}
}

/*
 * scbf_rows_set
 *		Set bit col of row row_in_page; true if it was clear.
 */
bool
scbf_rows_set(uint8_t *space, uint32_t row_in_page, uint32_t width,
			  uint32_t col)
{
	size_t		b = (size_t) row_in_page * width + col;
	uint8_t    *byte = space + b / 8;
	uint8_t		bit = (uint8_t) (1u << (b % 8));
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
	size_t		b = (size_t) row_in_page * width + col;

	space[b / 8] &= (uint8_t) ~(1u << (b % 8));
}

/*
 * scbf_rows_test
 *		True if bit col of row row_in_page is set.
 */
bool
scbf_rows_test(const uint8_t *space, uint32_t row_in_page, uint32_t width,
			   uint32_t col)
{
	size_t		b = (size_t) row_in_page * width + col;

	return (space[b / 8] & (1u << (b % 8))) != 0;
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
