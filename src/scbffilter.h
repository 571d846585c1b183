/*-------------------------------------------------------------------------
 *
 * scbffilter.h
 *	  The filters of an index as bit-sliced rows: sizing, hashing, slice
 *	  positions and row-bit operations.
 *
 * This module is server-free: it includes only C99 headers (and the
 * system's xxhash.h, in scbffilter.c), allocates nothing, and reports
 * failures as return codes.  The caller owns the memory, so the same calls
 * work on a page image inside PostgreSQL and on a plain array in the unit
 * tests under test/unit.
 *
 * Every filter of an index has one geometry, k slices of m positions, and
 * keeps one bit per position.  The bits of all filters are stored
 * transposed, as rows: row r = i * m + p (slice i, position p) holds bit c
 * for filter c.  A probe ANDs the k rows of its key and learns at once
 * which filters may hold it.  k is kept small (a probe reads k rows) and
 * the fill low, so that the false-positive rate P = fill^k is reached with
 * few slices.  Bit c of a row is bit c % 8 of its byte c / 8, so rows mean
 * the same on every host.  See scbffilter.c for the hashing scheme and
 * the sizing formulas.
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

#define SCBF_ROWS_MAX_K				8	/* most slices a filter has */
#define SCBF_ROWS_K_DIVISOR			2.7	/* k = ceil(log2(1/P) / this) */
#define SCBF_ROWS_WIDTH_ALIGN		8	/* row widths are multiples of this */

/* Return code of scbf_rows_k for an argument out of range */
#define SCBF_FILTER_EINVAL			(-1)

/*
 * Geometry of the filters of an index: k slices of m positions each.
 */
typedef struct scbf_filter_geometry
{
	uint32_t	k;				/* slices (= hash functions), 1..MAX_K */
	uint32_t	m;				/* positions per slice, at least 1 */
} scbf_filter_geometry;

/* ---- sizing ---- */

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

/* ---- hashing and slice positions ---- */

/*
 * Expand a 32-bit value hash into the 64-bit filter key: XXH3-64 of the four
 * bytes of value_hash (in little-endian order, so the result does not depend
 * on the host's byte order) with the given seed.  Callers use a different
 * seed per indexed column.
 */
extern uint64_t scbf_filter_key(uint32_t value_hash, uint64_t seed);
extern uint64_t scbf_filter_key_wide(uint64_t value_hash, uint64_t seed);

/*
 * The key's position in each slice: pos[i] in [0, m) for i in [0, k).  Each
 * slice gets its own mix of the key (splitmix64 finalizer of
 * key + (i + 1) * golden ratio, then 64-bit fastrange: the high word of
 * mix * m), which avoids the double-hashing floor of h1 + i * h2.  pos has
 * room for k entries (k <= SCBF_ROWS_MAX_K).
 */
extern void scbf_filter_positions(uint64_t key, const scbf_filter_geometry *geom,
								  uint32_t *pos);

/* The key's position in slice i alone: pos[i] of scbf_filter_positions. */
extern uint32_t scbf_filter_position(uint64_t key,
									 const scbf_filter_geometry *geom,
									 uint32_t i);

/* ---- the summary of a group of bands ---- */

/*
 * A band's summary is a blocked Bloom filter over the keys of all its
 * filters: blocks of SCBF_SUMMARY_BLOCK_BITS bits, a key's block chosen by
 * one mix of its filter key and SCBF_SUMMARY_K bits within the block by
 * others, sized at SCBF_SUMMARY_KEY_BITS bits a key.  Stored bit-sliced
 * over the bands of a group, as the filters' rows are: summary row r =
 * block * SCBF_SUMMARY_BLOCK_BITS + bit holds bit c for band c.
 */
#define SCBF_SUMMARY_K				9
#define SCBF_SUMMARY_BLOCK_BITS		512
#define SCBF_SUMMARY_KEY_BITS		22	/* a rate of 1.2e-4 (src/README) */

/*
 * The key's SCBF_SUMMARY_K summary rows in a summary of nblocks blocks:
 * rows[i] = block * SCBF_SUMMARY_BLOCK_BITS + bit, all in one block.
 */
extern void scbf_summary_rows(uint64_t key, uint32_t nblocks, uint64_t *rows);

/* ---- row bits ---- */

/* Set bit col of row number row_in_page of a page's row space, rows of
 * width bits packed one after the other (bit row_in_page * width + col,
 * any width); returns true if it was clear. */
extern bool scbf_rows_set(uint8_t *space, uint32_t row_in_page,
						  uint32_t width, uint32_t col);

/* Clear bit col of that row. */
extern void scbf_rows_clear(uint8_t *space, uint32_t row_in_page,
							uint32_t width, uint32_t col);

/* True if bit col of that row is set. */
extern bool scbf_rows_test(const uint8_t *space, uint32_t row_in_page,
						   uint32_t width, uint32_t col);

/* acc[0 .. width/8) &= that row (width a multiple of 8). */
extern void scbf_rows_and(uint8_t *acc, const uint8_t *space,
						  uint32_t row_in_page, uint32_t width);

/* The first set bit of acc at or after from, or width if none. */
extern uint32_t scbf_rows_next(const uint8_t *acc, uint32_t width,
							   uint32_t from);

#endif							/* SCBFFILTER_H */
