/*-------------------------------------------------------------------------
 *
 * scbffilter.h
 *	  Split counting Bloom filter blocks: sizing, hashing, add/remove/test.
 *
 * This module is server-free: it includes only C99 headers (and the
 * system's xxhash.h, in scbffilter.c), allocates nothing, and reports
 * failures as return codes.  The caller owns the memory, so the same calls
 * work on a page image inside PostgreSQL and on a plain array in the unit
 * tests under test/unit.
 *
 * A filter "block" is k slices of m four-bit counters, packed two to a
 * byte (counter c lives in byte c / 2; even c in the low nibble).  Hash i
 * of a key touches slice i only, at counter i * m + pos[i].  Counters
 * saturate at SCBF_FILTER_COUNTER_MAX and a saturated counter is never
 * decremented again ("sticky"), so a counter can only be too high, never
 * too low: no false negatives.  See src/README and
 * ../shared/research/math.md for the mathematics.
 *
 * Portions Copyright (c) 2026, scbf developers
 *
 * IDENTIFICATION
 *	  src/scbffilter.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SCBFFILTER_H
#define SCBFFILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SCBF_FILTER_MAX_K			16	/* most slices a block may have */
#define SCBF_FILTER_COUNTER_BITS	4
#define SCBF_FILTER_COUNTER_MAX		15	/* 2^bits - 1: sticky maximum */
#define SCBF_FILTER_MAX_M			65535	/* most counters per slice
											 * (nonzero[] is uint16_t) */

/* Return codes of the sizing calls */
#define SCBF_FILTER_OK				0
#define SCBF_FILTER_EINVAL			(-1)	/* argument out of range */
#define SCBF_FILTER_ETOOSMALL		(-2)	/* not even one counter per slice */

/* Bits returned by scbf_filter_add and scbf_filter_remove */
#define SCBF_FILTER_SATURATED		0x01	/* add: a counter reached the max */
#define SCBF_FILTER_STUCK			0x02	/* remove: a counter at the max was
											 * left alone (it may now be stale) */
#define SCBF_FILTER_UNDERFLOW		0x04	/* remove: a counter was already 0
											 * (corruption; left at 0) */

/*
 * Geometry of one block: k slices of m counters each.  Every block of every
 * filter of an index has the same geometry; only the number of blocks of a
 * filter varies.
 */
typedef struct scbf_filter_geometry
{
	uint32_t	k;				/* slices (= hash functions), 1..MAX_K */
	uint32_t	m;				/* counters per slice, 1..MAX_M */
} scbf_filter_geometry;

/* ---- sizing ---- */

/* k = ceil(log2(1/fpr)) clamped to [1, SCBF_FILTER_MAX_K]; EINVAL if fpr
 * is not in (0, 1). */
extern int	scbf_filter_optimal_k(double fpr);

/* Geometry of a block that has nbytes of counter space, for a target
 * false-positive rate: k from fpr, m = floor(2 * nbytes / k), capped at
 * SCBF_FILTER_MAX_M.  EINVAL for a bad fpr, ETOOSMALL when m would be 0. */
extern int	scbf_filter_geometry_for_bytes(double fpr, size_t nbytes,
										   scbf_filter_geometry *geom);

/* Bytes of counter space a block of this geometry uses: ceil(k * m / 2). */
extern size_t scbf_filter_bytes(const scbf_filter_geometry *geom);

/* Distinct keys one block holds before its false-positive rate f^k exceeds
 * fpr: floor(ln(1 - fpr^(1/k)) / ln(1 - 1/m)); at least 1. */
extern uint32_t scbf_filter_block_capacity(const scbf_filter_geometry *geom,
										   double fpr);

/* Blocks needed for nkeys keys at capacity keys per block:
 * ceil(nkeys / capacity), clamped to [1, maxblocks]. */
extern uint32_t scbf_filter_blocks_for(uint64_t nkeys, uint32_t capacity,
									   uint32_t maxblocks);

/* ---- hashing ---- */

/*
 * Expand a 32-bit value hash into the 64-bit filter key: XXH3-64 of the four
 * bytes of value_hash (in little-endian order, so the result does not depend
 * on the host's byte order) with the given seed.  Callers use a different
 * seed per indexed column.
 */
extern uint64_t scbf_filter_key(uint32_t value_hash, uint64_t seed);

/* The block (0 .. nblocks-1) a key belongs to, from the key's high 32 bits
 * by multiply-shift ("fastrange"); nblocks >= 1. */
extern uint32_t scbf_filter_block_of(uint64_t key, uint32_t nblocks);

/*
 * The key's position in each slice: pos[i] in [0, m) for i in [0, k).  Each
 * slice gets its own mix of the key (splitmix64 finalizer of
 * key + (i + 1) * golden ratio, then 64-bit fastrange: the high word of
 * mix * m), independent of the block choice, which avoids the
 * double-hashing floor of h1 + i * h2.
 */
extern void scbf_filter_positions(uint64_t key, const scbf_filter_geometry *geom,
								  uint32_t *pos);

/* The key's position in slice i alone: pos[i] of scbf_filter_positions. */
extern uint32_t scbf_filter_position(uint64_t key,
									 const scbf_filter_geometry *geom,
									 uint32_t i);

/* ---- counters of one block ---- */

/* Value of counter idx (0 .. k*m-1). */
extern unsigned scbf_filter_get(const uint8_t *counters, uint32_t idx);

/* Zero all counters of a block and its nonzero[]/nsaturated bookkeeping. */
extern void scbf_filter_clear(uint8_t *counters, uint16_t *nonzero,
							  uint32_t *nsaturated,
							  const scbf_filter_geometry *geom);

/*
 * Add one key: increment its k counters, saturating at the maximum.
 * nonzero[i] counts the non-zero counters of slice i and *nsaturated the
 * counters at the maximum; both are kept up to date.  Returns 0 or
 * SCBF_FILTER_SATURATED (a counter of the key is at the maximum afterwards:
 * it just got there, or this increment was lost).
 */
extern int	scbf_filter_add(uint8_t *counters, uint16_t *nonzero,
							uint32_t *nsaturated,
							const scbf_filter_geometry *geom,
							const uint32_t *pos);

/*
 * Remove one key: decrement its k counters, except counters at the maximum
 * (sticky: reported as SCBF_FILTER_STUCK) and counters already at zero
 * (reported as SCBF_FILTER_UNDERFLOW).  Returns an OR of those bits, or 0.
 */
extern int	scbf_filter_remove(uint8_t *counters, uint16_t *nonzero,
							   uint32_t *nsaturated,
							   const scbf_filter_geometry *geom,
							   const uint32_t *pos);

/* True when all k counters of the key are non-zero ("maybe present"). */
extern bool scbf_filter_test(const uint8_t *counters,
							 const scbf_filter_geometry *geom,
							 const uint32_t *pos);

/*
 * Recount the bookkeeping from the counters themselves: nonzero[i] per
 * slice, *nsaturated, and (if hist is not NULL) hist[v] = number of
 * counters with value v, v in 0..15.  Used by verification.
 */
extern void scbf_filter_census(const uint8_t *counters,
							   const scbf_filter_geometry *geom,
							   uint16_t *nonzero, uint32_t *nsaturated,
							   uint32_t *hist);

/*
 * False-positive rate of a block in its current state, for a random absent
 * key: the product over slices of nonzero[i] / m.  This is exact for the
 * state (slices are independent), not an estimate from a key count.
 */
extern double scbf_filter_state_fpr(const uint16_t *nonzero,
									const scbf_filter_geometry *geom);

/* Mean fill of a block: sum(nonzero) / (k * m). */
extern double scbf_filter_fill(const uint16_t *nonzero,
							   const scbf_filter_geometry *geom);

/*
 * Distinct keys in a block, estimated from its fill by linear counting per
 * slice, n = -m ln(1 - nonzero[i] / m), averaged over the slices.
 */
extern double scbf_filter_estimate_keys(const uint16_t *nonzero,
										const scbf_filter_geometry *geom);

/* ---- storage v2: the filters of an index as bit-sliced rows ----
 *
 * In storage v2 (src/README, D3, D4, D6) every filter of an index has one
 * geometry, k slices of m positions, and keeps one bit per position; the
 * bits of all filters are stored transposed, as rows: row r = i * m + p
 * (slice i, position p) holds bit c for filter c.  A probe ANDs the k rows
 * of its key and learns at once which filters may hold it.  k is kept small
 * (a probe reads k rows) and the fill low, so that the false-positive rate
 * P = fill^k is reached with few slices.  Bit c of a row is bit c % 8 of
 * its byte c / 8, so rows mean the same on every host.
 */
#define SCBF_ROWS_MAX_K				8
#define SCBF_ROWS_K_DIVISOR			2.7	/* k = ceil(log2(1/P) / this) */
#define SCBF_ROWS_WIDTH_ALIGN		8	/* row widths are multiples of this */

/* k for a target rate: ceil(log2(1/fpr) / SCBF_ROWS_K_DIVISOR), clamped to
 * [1, SCBF_ROWS_MAX_K]; SCBF_FILTER_EINVAL if fpr is not in (0, 1). */
extern int	scbf_rows_k(double fpr);

/* The fill each slice may reach, fpr^(1/k). */
extern double scbf_rows_fill(double fpr, uint32_t k);

/* Positions per slice for nkeys distinct keys at that fill:
 * ceil(nkeys / -ln(1 - fill)), at least 1, at most UINT32_MAX. */
extern uint32_t scbf_rows_m(double nkeys, double fill);

/* Distinct keys a filter of m positions per slice takes at that fill:
 * floor(-m ln(1 - fill)), at least 1. */
extern uint32_t scbf_rows_capacity(uint32_t m, double fill);

/* Rows of width bits (a multiple of SCBF_ROWS_WIDTH_ALIGN) in nbytes. */
extern uint32_t scbf_rows_per_page(size_t nbytes, uint32_t width);

/* Set bit col of row number row_in_page of a page's row space; returns
 * true if it was clear. */
extern bool scbf_rows_set(uint8_t *space, uint32_t row_in_page,
						  uint32_t width, uint32_t col);

/* Clear bit col of that row. */
extern void scbf_rows_clear(uint8_t *space, uint32_t row_in_page,
							uint32_t width, uint32_t col);

/* True if bit col of that row is set. */
extern bool scbf_rows_test(const uint8_t *space, uint32_t row_in_page,
						   uint32_t width, uint32_t col);

/* acc[0 .. width/8) &= that row. */
extern void scbf_rows_and(uint8_t *acc, const uint8_t *space,
						  uint32_t row_in_page, uint32_t width);

/* The first set bit of acc at or after from, or width if none. */
extern uint32_t scbf_rows_next(const uint8_t *acc, uint32_t width,
							   uint32_t from);

#endif							/* SCBFFILTER_H */
