/*-------------------------------------------------------------------------
 *
 * scbfpostinglist.h
 *	  The posting-list codec of the ledger: hash-ordered posting
 *	  lists of segment-relative item numbers, packed as varints.
 *
 * This module is server-free, like scbffilter.c: C99 headers only, no
 * allocation, failures as return codes.  The caller owns the buffers, so
 * the same calls work on a page image inside PostgreSQL, in the unit test
 * test/unit/test_postinglist.c and in a fuzzer.
 *
 * A posting list is one value hash of SCBF_PL_HASH_BITS bits and the
 * strictly increasing
 * 16-bit items (segment-relative TIDs) of the ledger entries that have
 * it.  A buffer holds posting lists in strictly increasing hash order,
 * each encoded as
 *
 *		varint	(hash - previous hash) * 2 + (nitems > 1)
 *		varint	nitems - 2					(only if nitems > 1)
 *		uint16	first item, little-endian
 *		varint	item - previous item - 1	(nitems - 1 times)
 *
 * where a varint stores 7 bits per byte, low group first, the high bit
 * set on every byte but the last (the varbyte code of ginpostinglist.c).
 * The first hash is relative to "base", the hash the buffer's owner knows
 * already (a ledger page's fence), so its delta is small too.  A clustered
 * column whose value repeats in runs of adjacent rows costs about one byte
 * per row and a few bytes per distinct value; a column of distinct values
 * costs the hash gap (about 33 - log2(entries) bits, in whole 7-bit
 * groups) and two bytes of item: about 5 bytes at 18,000 entries.
 *
 * Portions Copyright (c) 2026, scbf developers
 *
 * IDENTIFICATION
 *	  src/scbfpostinglist.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SCBFPOSTINGLIST_H
#define SCBFPOSTINGLIST_H

#include <stddef.h>
#include <stdint.h>

/* Return codes */
#define SCBF_PL_OK				0
#define SCBF_PL_END				1	/* next: no posting list left */
#define SCBF_PL_EINVAL			(-1)	/* append: hash or items out of order */
#define SCBF_PL_ECORRUPT		(-2)	/* next: bytes that are no posting
										 * list */

/* Most bits of a hash (scbf.h's SCBF_MAX_HASH_BITS), and the largest one */
#define SCBF_PL_HASH_BITS		40
#define SCBF_PL_HASH_MAX		((UINT64_C(1) << SCBF_PL_HASH_BITS) - 1)

/* Most bytes one varint takes: a hash delta and the flag, in 7-bit groups */
#define SCBF_PL_MAX_VARINT		((SCBF_PL_HASH_BITS + 1 + 6) / 7)

typedef struct scbf_pl_writer
{
	uint8_t    *buf;			/* caller's buffer */
	size_t		cap;			/* its size in bytes */
	size_t		len;			/* bytes written so far */
	uint64_t	prev_hash;		/* hash of the last posting list, or base */
	int			nlists;			/* posting lists written */
} scbf_pl_writer;

typedef struct scbf_pl_reader
{
	const uint8_t *pos;			/* next byte to decode */
	const uint8_t *end;			/* one past the buffer */
	uint64_t	prev_hash;		/* hash of the last posting list, or base */
	int			nlists;			/* posting lists decoded */
} scbf_pl_reader;

/* Start writing posting lists into buf[0 .. cap), relative to base. */
extern void scbf_pl_writer_init(scbf_pl_writer *w, uint8_t *buf, size_t cap,
								uint64_t base);

/*
 * Append a posting list of hash and the first of items[0 .. nitems) that
 * fit.  Returns how many items it wrote (0: not even one fit, nothing
 * written; the caller starts a new buffer), or SCBF_PL_EINVAL when hash is
 * below base or above SCBF_PL_HASH_MAX, not above the previous posting
 * list's, or the items do not strictly increase, or nitems < 1.
 */
extern int	scbf_pl_append(scbf_pl_writer *w, uint64_t hash,
						   const uint16_t *items, int nitems);

/* Bytes the whole posting list (hash, items) takes after prev_hash. */
extern size_t scbf_pl_encoded_size(uint64_t prev_hash, uint64_t hash,
								   const uint16_t *items, int nitems);

/* Start reading the posting lists of buf[0 .. len), relative to base. */
extern void scbf_pl_reader_init(scbf_pl_reader *r, const uint8_t *buf,
								size_t len, uint64_t base);

/*
 * Start reading the posting lists of buf[0 .. len) at byte offset, where a
 * list starts after one of hash prev_hash (a leaf's signpost): the lists
 * read are the ones after it, and a zero hash delta is corrupt there.
 */
extern void scbf_pl_reader_resume(scbf_pl_reader *r, const uint8_t *buf,
								  size_t len, size_t offset,
								  uint64_t prev_hash);

/*
 * Decode the next posting list: its hash into *hash, its item count into
 * *nitems and, unless items is NULL (skip them), its items into items[],
 * which must have room for as many items as the buffer has bytes left
 * (each item takes at least one byte; scbf_pl_max_items tells).  Returns
 * SCBF_PL_OK, SCBF_PL_END after the last one, or SCBF_PL_ECORRUPT when the
 * bytes cannot be a posting list: a varint that runs past the buffer or
 * beyond SCBF_PL_HASH_BITS + 1 bits, a hash past SCBF_PL_HASH_MAX or not
 * above the previous one, an item beyond 16 bits, more items than bytes.
 * Never reads outside the buffer, whatever its contents; after ECORRUPT
 * the reader stays where it was.
 */
extern int	scbf_pl_next(scbf_pl_reader *r, uint64_t *hash, uint16_t *items,
						 int *nitems);

/*
 * Move past the posting lists whose hash is below target without decoding
 * their items: the next scbf_pl_next returns the first list at or above
 * target, or SCBF_PL_END.  A lookup calls it after the first list (whose
 * hash the caller checks against the buffer's base).  Returns SCBF_PL_OK,
 * or SCBF_PL_ECORRUPT, the reader after the last list it could decode,
 * for the same bytes scbf_pl_next rejects, except that the items of a
 * skipped list are only counted, not checked against 16 bits.  Never
 * reads outside the buffer.
 */
extern int	scbf_pl_skip(scbf_pl_reader *r, uint64_t target);

/* Room for items that scbf_pl_next needs for a buffer of len bytes. */
#define scbf_pl_max_items(len)	((int) (len))

#endif							/* SCBFPOSTINGLIST_H */
