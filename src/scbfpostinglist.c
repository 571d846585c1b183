/*-------------------------------------------------------------------------
 *
 * scbfpostinglist.c
 *	  Encode and decode the hash-ordered posting lists of the ledger.
 *
 * NOTES
 *	  scbfpostinglist.h describes the encoding.  The decoder treats its
 *	  input as untrusted (it comes from a page that may be corrupt): every
 *	  byte it reads is bounds-checked, and every value is checked before it
 *	  is used, so a bad buffer gives SCBF_PL_ECORRUPT and never a read past
 *	  its end.  Server-free: see the header.
 *
 * Portions Copyright (c) 2026, scbf developers
 *
 * IDENTIFICATION
 *	  src/scbfpostinglist.c
 *
 *-------------------------------------------------------------------------
 */
#include <stdbool.h>
#include <string.h>

#include "scbfpostinglist.h"

/*
 * VarintSize
 *		Bytes the varint of v takes: 1 to SCBF_PL_MAX_VARINT.
 */
static size_t
VarintSize(uint64_t v)
{
	size_t		n = 1;

	while (v >= 0x80)
	{
		v >>= 7;
		n++;
	}
	return n;
}

/*
 * PutVarint
 *		Write the varint of v at p, which has room for it; returns the byte
 *		after it.
 */
static uint8_t *
PutVarint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80)
	{
		*p++ = (uint8_t) (v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t) v;
	return p;
}

/*
 * GetVarint
 *		Decode the varint at r->pos into *v and advance past it.  Returns
 *		false, leaving r->pos alone, if it runs past the buffer or encodes
 *		a value of more than limit.
 */
static bool
GetVarint(scbf_pl_reader *r, uint64_t limit, uint64_t *v)
{
	const uint8_t *p = r->pos;
	uint64_t	val = 0;
	int			shift = 0;

	for (;;)
	{
		uint8_t		b;

		if (p >= r->end || shift >= 7 * SCBF_PL_MAX_VARINT)
			return false;
		b = *p++;
		val |= (uint64_t) (b & 0x7F) << shift;
		shift += 7;
		if ((b & 0x80) == 0)
			break;
	}
	if (val > limit)
		return false;
	*v = val;
	r->pos = p;
	return true;
}

/*
 * HeadSize
 *		Bytes of a posting list's hash delta, count and first item.
 */
static size_t
HeadSize(uint64_t delta, int nitems)
{
	return VarintSize((delta << 1) | (nitems > 1)) +
		(nitems > 1 ? VarintSize((uint64_t) (nitems - 2)) : 0) +
		sizeof(uint16_t);
}

/*
 * ItemsIncrease
 *		True if items[0 .. n) strictly increase.
 */
static bool
ItemsIncrease(const uint16_t *items, int n)
{
	for (int i = 1; i < n; i++)
		if (items[i] <= items[i - 1])
			return false;
	return true;
}

void
scbf_pl_writer_init(scbf_pl_writer *w, uint8_t *buf, size_t cap, uint64_t base)
{
	w->buf = buf;
	w->cap = cap;
	w->len = 0;
	w->prev_hash = base;
	w->nlists = 0;
}

size_t
scbf_pl_encoded_size(uint64_t prev_hash, uint64_t hash,
					 const uint16_t *items, int nitems)
{
	size_t		size = HeadSize(hash - prev_hash, nitems);

	for (int i = 1; i < nitems; i++)
		size += VarintSize((uint64_t) (items[i] - items[i - 1] - 1));
	return size;
}

int
scbf_pl_append(scbf_pl_writer *w, uint64_t hash,
			   const uint16_t *items, int nitems)
{
	size_t		room = w->cap - w->len;
	uint64_t	delta = hash - w->prev_hash;
	size_t		body = 0;
	int			n;
	uint8_t    *p;

	if (nitems < 1 || hash < w->prev_hash || hash > SCBF_PL_HASH_MAX ||
		(w->nlists > 0 && hash == w->prev_hash) ||
		!ItemsIncrease(items, nitems))
		return SCBF_PL_EINVAL;

	/*
	 * Find how many items fit.  The header of n items is never longer than
	 * that of all of them, so size it for all of them while counting, then
	 * shrink it to the n that fit.
	 */
	if (HeadSize(delta, 1) > room)
		return 0;
	for (n = 1; n < nitems; n++)
	{
		size_t		sz = VarintSize((uint64_t) (items[n] - items[n - 1] - 1));

		if (HeadSize(delta, nitems) + body + sz > room)
			break;
		body += sz;
	}

	p = PutVarint(w->buf + w->len, (delta << 1) | (n > 1));
	if (n > 1)
		p = PutVarint(p, (uint64_t) (n - 2));
	*p++ = (uint8_t) (items[0] & 0xFF);
	*p++ = (uint8_t) (items[0] >> 8);
	for (int i = 1; i < n; i++)
		p = PutVarint(p, (uint64_t) (items[i] - items[i - 1] - 1));

	w->len = (size_t) (p - w->buf);
	w->prev_hash = hash;
	w->nlists++;
	return n;
}

void
scbf_pl_reader_init(scbf_pl_reader *r, const uint8_t *buf, size_t len,
					uint64_t base)
{
	r->pos = buf;
	r->end = buf + len;
	r->prev_hash = base;
	r->nlists = 0;
}

void
scbf_pl_reader_resume(scbf_pl_reader *r, const uint8_t *buf, size_t len,
					  size_t offset, uint64_t prev_hash)
{
	r->pos = buf + (offset < len ? offset : len);
	r->end = buf + len;
	r->prev_hash = prev_hash;
	r->nlists = 1;				/* the list before the offset */
}

int
scbf_pl_next(scbf_pl_reader *r, uint64_t *hash, uint16_t *items, int *nitems)
{
	scbf_pl_reader save = *r;
	uint64_t	word;
	uint64_t	more = 0;
	uint64_t	delta;
	uint32_t	item;

	if (r->pos >= r->end)
		return SCBF_PL_END;

	if (!GetVarint(r, (SCBF_PL_HASH_MAX << 1) | 1, &word))
		goto corrupt;
	delta = word >> 1;
	if (r->prev_hash > SCBF_PL_HASH_MAX ||
		delta > SCBF_PL_HASH_MAX - r->prev_hash ||
		(r->nlists > 0 && delta == 0))
		goto corrupt;
	/* each item after the first takes at least one byte, the first two */
	if ((word & 1) &&
		(!GetVarint(r, UINT32_MAX, &more) ||
		 more + 1 + sizeof(uint16_t) > (uint64_t) (r->end - r->pos)))
		goto corrupt;
	if (r->end - r->pos < (ptrdiff_t) sizeof(uint16_t))
		goto corrupt;
	item = (uint32_t) r->pos[0] | ((uint32_t) r->pos[1] << 8);
	r->pos += sizeof(uint16_t);
	if (items)
		items[0] = (uint16_t) item;
	for (uint64_t i = 1; (word & 1) && i <= more + 1; i++)
	{
		uint64_t	gap;

		if (item >= UINT16_MAX ||
			!GetVarint(r, (uint64_t) (UINT16_MAX - 1 - item), &gap))
			goto corrupt;
		item += (uint32_t) gap + 1;
		if (items)
			items[i] = (uint16_t) item;
	}

	r->prev_hash += delta;
	r->nlists++;
	*hash = r->prev_hash;
	*nitems = (word & 1) ? (int) more + 2 : 1;
	return SCBF_PL_OK;

corrupt:
	*r = save;
	return SCBF_PL_ECORRUPT;
}

/*
 * SkipVarints
 *		Move *p past n varints that end before end; false if they do not (or
 *		one is longer than SCBF_PL_MAX_VARINT bytes).  Eight bytes with no
 *		continuation bit are eight one-byte varints: the items of a list of
 *		nearby TIDs mostly are, and a probe skips many such lists on its way
 *		to its hash.
 */
static inline bool
SkipVarints(const uint8_t **p, const uint8_t *end, uint64_t n)
{
	const uint8_t *q = *p;
	int			run = 0;		/* continuation bytes in a row */

	while (n > 0)
	{
		if (run == 0 && n >= 8 && end - q >= 8)
		{
			uint64_t	w;

			memcpy(&w, q, sizeof(w));
			if ((w & UINT64_C(0x8080808080808080)) == 0)
			{
				q += 8;
				n -= 8;
				continue;
			}
		}
		if (q >= end)
			return false;
		if (*q++ & 0x80)
		{
			if (++run >= SCBF_PL_MAX_VARINT)
				return false;
		}
		else
		{
			run = 0;
			n--;
		}
	}
	*p = q;
	return true;
}

int
scbf_pl_skip(scbf_pl_reader *r, uint64_t target)
{
	while (r->pos < r->end)
	{
		scbf_pl_reader next = *r;
		uint64_t	word;
		uint64_t	delta;
		uint64_t	more;

		if (!GetVarint(&next, (SCBF_PL_HASH_MAX << 1) | 1, &word))
			return SCBF_PL_ECORRUPT;
		delta = word >> 1;
		if (r->prev_hash > SCBF_PL_HASH_MAX ||
			delta > SCBF_PL_HASH_MAX - r->prev_hash ||
			(r->nlists > 0 && delta == 0))
			return SCBF_PL_ECORRUPT;
		if (r->prev_hash + delta >= target)
			return SCBF_PL_OK;	/* scbf_pl_next decodes this one */
		if ((word & 1) &&
			(!GetVarint(&next, UINT32_MAX, &more) ||
			 more + 1 + sizeof(uint16_t) > (uint64_t) (next.end - next.pos)))
			return SCBF_PL_ECORRUPT;
		if (next.end - next.pos < (ptrdiff_t) sizeof(uint16_t))
			return SCBF_PL_ECORRUPT;
		next.pos += sizeof(uint16_t);
		if ((word & 1) && !SkipVarints(&next.pos, next.end, more + 1))
			return SCBF_PL_ECORRUPT;
		next.prev_hash += delta;
		next.nlists++;
		*r = next;
	}
	return SCBF_PL_OK;
}
