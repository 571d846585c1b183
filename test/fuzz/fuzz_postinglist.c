/*-------------------------------------------------------------------------
 *
 * fuzz_postinglist.c
 *	  libFuzzer harness of the posting-list codec, src/scbfpostinglist.c.
 *
 * NOTES
 *	  An input is a 4-byte base hash and the bytes of a ledger page's
 *	  posting lists.  The decoder must end in SCBF_PL_END or
 *	  SCBF_PL_ECORRUPT after at most one posting list per byte, never read
 *	  outside the buffer (it is a malloc'd copy of exactly its length, so
 *	  AddressSanitizer sees any read past it), and give hashes above the
 *	  base, strictly increasing, with strictly increasing items.  What it
 *	  decoded, encoded again, must fit in as many bytes and decode to the
 *	  same posting lists (the writer's output is canonical, the input need
 *	  not be).  Then the same bytes are read as posting lists to write
 *	  (hash gaps and item gaps) into a small buffer: whatever the writer
 *	  accepts must decode to exactly that.  Any failure aborts.
 *
 * Portions Copyright (c) 2026, scbf developers
 *
 * IDENTIFICATION
 *	  test/fuzz/fuzz_postinglist.c
 *
 *-------------------------------------------------------------------------
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scbfpostinglist.h"

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond) \
	do { \
		if (!(cond)) \
		{ \
			fprintf(stderr, "fuzz_postinglist: check failed at line %d: %s\n", \
					__LINE__, #cond); \
			abort(); \
		} \
	} while (0)

/* Posting lists decoded from one buffer: hashes, item counts, items */
typedef struct Lists
{
	int			n;
	uint64_t   *hash;
	int		   *nitems;
	uint16_t   *items;			/* all of them, list after list */
	int			total;
} Lists;

/*
 * Decode buf[0 .. len) relative to base into *out (arrays sized for the
 * worst case, one list or item per byte).  Returns the last return code of
 * scbf_pl_next: SCBF_PL_END or SCBF_PL_ECORRUPT.
 */
static int
Decode(const uint8_t *buf, size_t len, uint64_t base, Lists *out)
{
	scbf_pl_reader r;
	int			maxitems = scbf_pl_max_items(len) > 0 ? scbf_pl_max_items(len) : 1;
	uint16_t   *items = malloc(sizeof(uint16_t) * maxitems);
	int			rc;

	out->n = 0;
	out->total = 0;
	out->hash = malloc(sizeof(uint64_t) * (len + 1));
	out->nitems = malloc(sizeof(int) * (len + 1));
	out->items = malloc(sizeof(uint16_t) * (len + 1));
	scbf_pl_reader_init(&r, buf, len, base);
	for (;;)
	{
		uint64_t	hash;
		int			nitems;
		const uint8_t *before = r.pos;

		rc = scbf_pl_next(&r, &hash, items, &nitems);
		if (rc == SCBF_PL_ECORRUPT)
		{
			CHECK(r.pos == before);
			break;
		}
		if (rc == SCBF_PL_END)
		{
			CHECK(r.pos == buf + len);
			break;
		}
		CHECK(rc == SCBF_PL_OK);
		/* progress: every posting list takes at least three bytes */
		CHECK(r.pos >= before + 3 && r.pos <= buf + len);
		CHECK(out->n < (int) len);
		CHECK(nitems >= 1 && out->total + nitems <= (int) len);
		CHECK(hash >= base && hash <= SCBF_PL_HASH_MAX);
		CHECK(out->n == 0 || hash > out->hash[out->n - 1]);
		for (int i = 1; i < nitems; i++)
			CHECK(items[i] > items[i - 1]);
		out->hash[out->n] = hash;
		out->nitems[out->n] = nitems;
		memcpy(out->items + out->total, items, sizeof(uint16_t) * nitems);
		out->total += nitems;
		out->n++;
	}
	free(items);
	return rc;
}

static void
FreeLists(Lists *l)
{
	free(l->hash);
	free(l->nitems);
	free(l->items);
}

/*
 * The decoder on arbitrary bytes, and the round trip of what it decoded.
 */
static void
FuzzDecode(const uint8_t *data, size_t size)
{
	uint32_t	base;
	size_t		len;
	uint8_t    *buf;
	uint8_t    *again;
	Lists		l1,
				l2;
	scbf_pl_writer w;
	int			off = 0;

	if (size < 4)
		return;
	memcpy(&base, data, 4);
	len = size - 4;
	buf = malloc(len > 0 ? len : 1);
	memcpy(buf, data + 4, len);

	(void) Decode(buf, len, base, &l1);

	/*
	 * Skipping after the first list to a target past one of the decoded
	 * lists (or past them all) lands where decoding found the next one.
	 */
	if (l1.n > 1)
	{
		scbf_pl_reader r;
		uint64_t	hash;
		int			nitems;
		int			at = 1 + (int) (base % (uint32_t) l1.n);	/* 1 .. n */
		uint64_t	target = at < l1.n ? l1.hash[at] : l1.hash[l1.n - 1] + 1;
		uint16_t   *items = malloc(sizeof(uint16_t) * (len > 0 ? len : 1));
		int			rc;

		scbf_pl_reader_init(&r, buf, len, base);
		CHECK(scbf_pl_next(&r, &hash, items, &nitems) == SCBF_PL_OK);
		rc = scbf_pl_skip(&r, target);
		CHECK(r.pos >= buf && r.pos <= buf + len);
		if (rc == SCBF_PL_OK && at < l1.n)
			CHECK(scbf_pl_next(&r, &hash, items, &nitems) == SCBF_PL_OK &&
				  hash == l1.hash[at]);
		free(items);
	}

	/* encode what was decoded: canonical, so never longer */
	again = malloc(len > 0 ? len : 1);
	scbf_pl_writer_init(&w, again, len, base);
	for (int i = 0; i < l1.n; i++)
	{
		int			rc = scbf_pl_append(&w, l1.hash[i], l1.items + off,
										l1.nitems[i]);

		CHECK(rc == l1.nitems[i]);
		CHECK(scbf_pl_encoded_size(i == 0 ? base : l1.hash[i - 1], l1.hash[i],
									l1.items + off, l1.nitems[i]) <= len);
		off += l1.nitems[i];
	}
	CHECK(w.len <= len);
	CHECK(Decode(again, w.len, base, &l2) == SCBF_PL_END);
	CHECK(l2.n == l1.n && l2.total == l1.total);
	CHECK(memcmp(l2.hash, l1.hash, sizeof(uint64_t) * l1.n) == 0);
	CHECK(memcmp(l2.nitems, l1.nitems, sizeof(int) * l1.n) == 0);
	CHECK(memcmp(l2.items, l1.items, sizeof(uint16_t) * l1.total) == 0);

	FreeLists(&l1);
	FreeLists(&l2);
	free(again);
	free(buf);
}

/*
 * The writer: the bytes give a buffer size, then posting lists (a hash gap,
 * an item count, item gaps); what the writer accepts must decode to
 * exactly what it was given, and what it refuses must have been out of
 * order.
 */
static void
FuzzEncode(const uint8_t *data, size_t size)
{
	const uint8_t *p = data;
	const uint8_t *end = data + size;
	size_t		cap;
	uint8_t    *buf;
	scbf_pl_writer w;
	uint32_t	base;
	uint64_t	hash;
	uint64_t   *whash;
	int		   *wn;
	uint16_t   *witems;
	int			nlists = 0;
	int			total = 0;
	Lists		l;

	if (size < 6)
		return;
	cap = (size_t) p[0] | ((size_t) (p[1] & 0x1F) << 8);	/* < 8 kB */
	memcpy(&base, p + 2, 4);
	p += 6;
	buf = malloc(cap > 0 ? cap : 1);
	whash = malloc(sizeof(uint64_t) * (size + 1));
	wn = malloc(sizeof(int) * (size + 1));
	witems = malloc(sizeof(uint16_t) * 64 * (size / 3 + 1));
	scbf_pl_writer_init(&w, buf, cap, base);
	hash = base;
	while (end - p >= 3)
	{
		uint16_t	items[64];
		int			n = 1 + p[1] % 64;
		int			rc;
		uint32_t	item;
		bool		sorted = true;

		/*
		 * gaps from one byte each: small ones, and 0xFF for a wide one;
		 * past SCBF_PL_HASH_MAX a hash wraps around, below the one before
		 */
		if (p[0] == 0xFF)
			hash = (hash + 0x01000000u * (p[2] & 3) + p[2]) & SCBF_PL_HASH_MAX;
		else
			hash = (hash + p[0]) & SCBF_PL_HASH_MAX;
		item = p[2];
		p += 3;
		for (int i = 0; i < n; i++)
		{
			if (i > 0)
			{
				uint8_t		g = p < end ? *p++ : 1;

				if (g == 0)
					sorted = false; /* a repeated item: out of order */
				item += g;
			}
			if (item > UINT16_MAX)
			{
				n = i;
				break;
			}
			items[i] = (uint16_t) item;
		}
		if (n == 0)
			break;
		rc = scbf_pl_append(&w, hash, items, n);
		if (rc == SCBF_PL_EINVAL)
		{
			CHECK(!sorted || hash < base ||
				  (nlists > 0 && hash == whash[nlists - 1]) ||
				  (w.nlists > 0 && hash < w.prev_hash));
			continue;
		}
		CHECK(sorted);
		CHECK(rc >= 0 && rc <= n);
		if (rc == 0)
			break;
		whash[nlists] = hash;
		wn[nlists] = rc;
		memcpy(witems + total, items, sizeof(uint16_t) * rc);
		total += rc;
		nlists++;
		CHECK(w.len <= cap);
		if (rc < n)
			break;				/* the buffer is full */
	}
	CHECK(Decode(buf, w.len, base, &l) == SCBF_PL_END);
	CHECK(l.n == nlists && l.total == total);
	CHECK(memcmp(l.hash, whash, sizeof(uint64_t) * nlists) == 0);
	CHECK(memcmp(l.nitems, wn, sizeof(int) * nlists) == 0);
	CHECK(memcmp(l.items, witems, sizeof(uint16_t) * total) == 0);
	FreeLists(&l);
	free(buf);
	free(whash);
	free(wn);
	free(witems);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FuzzDecode(data, size);
	FuzzEncode(data, size);
	return 0;
}
