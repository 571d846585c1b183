/*-------------------------------------------------------------------------
 *
 * test_postinglist.c
 *	  Server-free unit test of the posting-list codec,
 *	  src/scbfpostinglist.c.
 *
 * NOTES
 *	  Links scbfpostinglist.c only.  Prints one "ok - ..." or
 *	  "not ok - ..." line per group of checks and exits non-zero if any
 *	  failed.  Groups: varints at every length boundary; argument checks of
 *	  append; round trips of random ledgers split over buffers of several
 *	  sizes (the pages of a run), with encoded_size checked against what
 *	  append wrote; the bytes per entry of a clustered and of a distinct
 *	  column against the storage v2 plan (src/README, D5); and decoding of
 *	  every truncation and of random garbage, which must end in
 *	  SCBF_PL_ECORRUPT or a self-consistent answer without reading past
 *	  the buffer (each is copied to the end of a malloc'd block, so
 *	  AddressSanitizer or Valgrind sees any overrun).  Deterministic: fixed
 *	  seeds.
 *
 * Portions Copyright (c) 2026, scbf developers
 *
 * IDENTIFICATION
 *	  test/unit/test_postinglist.c
 *
 *-------------------------------------------------------------------------
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scbfpostinglist.h"
#include "unit.h"

/* A ledger in memory: posting lists in hash order */
typedef struct TestList
{
	uint32_t	hash;
	int			nitems;
	uint16_t   *items;
} TestList;

static uint64_t rng_state;

/*
 * Rand
 *		splitmix64: a fixed-seed generator, so every failure reproduces.
 */
static uint64_t
Rand(void)
{
	uint64_t	z = (rng_state += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

/*
 * MakeLedger
 *		nlists posting lists with distinct random hashes, in order, each
 *		with 1..maxitems strictly increasing items below itemlimit (or,
 *		when adjacent, a run starting at a random item).
 */
static TestList *
MakeLedger(int nlists, int maxitems, uint32_t itemlimit, int adjacent)
{
	TestList   *l = calloc(nlists, sizeof(TestList));
	uint32_t   *hashes = malloc(nlists * sizeof(uint32_t));
	int			n = 0;

	/* below UINT32_MAX - nlists, so making them distinct cannot wrap */
	while (n < nlists)
		hashes[n++] = (uint32_t) (Rand() % (UINT32_MAX - 65536u));
	/* insertion sort is fast enough for the sizes used here */
	for (int i = 1; i < nlists; i++)
	{
		uint32_t	h = hashes[i];
		int			j = i - 1;

		while (j >= 0 && hashes[j] > h)
		{
			hashes[j + 1] = hashes[j];
			j--;
		}
		hashes[j + 1] = h;
	}
	for (int i = 1; i < nlists; i++)
		if (hashes[i] <= hashes[i - 1])
			hashes[i] = hashes[i - 1] + 1;	/* keeps them distinct */

	for (int i = 0; i < nlists; i++)
	{
		int			cnt = 1 + (int) (Rand() % (uint64_t) maxitems);
		uint32_t	it;

		l[i].hash = hashes[i];
		l[i].items = malloc(cnt * sizeof(uint16_t));
		it = (uint32_t) (Rand() % (itemlimit / 2 + 1));
		for (int j = 0; j < cnt; j++)
		{
			if (j > 0)
				it += adjacent ? 1 : 1 + (uint32_t) (Rand() % 64);
			if (it >= itemlimit)
				break;
			l[i].items[l[i].nitems++] = (uint16_t) it;
		}
		if (l[i].nitems == 0)
			l[i].items[l[i].nitems++] = 0;
	}
	free(hashes);
	return l;
}

static void
FreeLedger(TestList *l, int nlists)
{
	for (int i = 0; i < nlists; i++)
		free(l[i].items);
	free(l);
}

/*
 * TestVarints
 *		Hash deltas at every varint length boundary, and item gaps and
 *		first items from 0 to 65535, round-trip.
 */
static void
TestVarints(void)
{
	static const uint32_t deltas[] = {0, 1, 63, 64, 8191, 8192, 1048575,
		1048576, 134217727, 134217728, UINT32_MAX - 1, UINT32_MAX};
	static const uint16_t gaps[] = {0, 1, 127, 128, 16383, 16384, 65534};
	uint8_t		buf[64];
	uint16_t	out[64];
	uint64_t	h;
	int			n;
	scbf_pl_writer w;
	scbf_pl_reader r;

	for (int i = 0; i < (int) (sizeof(deltas) / sizeof(deltas[0])); i++)
	{
		uint16_t	item = (uint16_t) (deltas[i] & 0xFFFF);

		scbf_pl_writer_init(&w, buf, sizeof(buf), 0);
		CHECK(scbf_pl_append(&w, deltas[i], &item, 1) == 1, "append %u",
			  deltas[i]);
		CHECK(w.len == scbf_pl_encoded_size(0, deltas[i], &item, 1),
			  "size of %u: %zu", deltas[i], w.len);
		scbf_pl_reader_init(&r, buf, w.len, 0);
		CHECK(scbf_pl_next(&r, &h, out, &n) == SCBF_PL_OK && h == deltas[i] &&
			  n == 1 && out[0] == item, "decode %u: hash %llu n %d item %u",
			  deltas[i], (unsigned long long) h, n, out[0]);
		CHECK(scbf_pl_next(&r, &h, out, &n) == SCBF_PL_END, "end after %u",
			  deltas[i]);
	}
	for (int i = 0; i < (int) (sizeof(gaps) / sizeof(gaps[0])); i++)
	{
		uint16_t	items[2] = {0, (uint16_t) (gaps[i] + 1)};

		scbf_pl_writer_init(&w, buf, sizeof(buf), 7);
		CHECK(scbf_pl_append(&w, 7, items, 2) == 2, "append gap %u", gaps[i]);
		CHECK(w.len == scbf_pl_encoded_size(7, 7, items, 2), "size of gap %u",
			  gaps[i]);
		scbf_pl_reader_init(&r, buf, w.len, 7);
		CHECK(scbf_pl_next(&r, &h, out, &n) == SCBF_PL_OK && h == 7 &&
			  n == 2 && out[0] == 0 && out[1] == items[1],
			  "decode gap %u", gaps[i]);
	}
	GroupDone("varints at every length boundary round-trip");
}

/*
 * TestArguments
 *		append refuses what would not decode: hashes below base or out of
 *		order, items out of order, empty lists; and writes nothing then.
 */
static void
TestArguments(void)
{
	uint8_t		buf[64];
	uint16_t	up[3] = {1, 2, 3};
	uint16_t	same[2] = {5, 5};
	uint16_t	down[2] = {9, 4};
	scbf_pl_writer w;

	scbf_pl_writer_init(&w, buf, sizeof(buf), 100);
	CHECK(scbf_pl_append(&w, 99, up, 3) == SCBF_PL_EINVAL, "hash below base");
	CHECK(scbf_pl_append(&w, 100, up, 0) == SCBF_PL_EINVAL, "no items");
	CHECK(scbf_pl_append(&w, 100, same, 2) == SCBF_PL_EINVAL, "equal items");
	CHECK(scbf_pl_append(&w, 100, down, 2) == SCBF_PL_EINVAL, "falling items");
	CHECK(w.len == 0 && w.nlists == 0, "nothing written after refusals");
	CHECK(scbf_pl_append(&w, 100, up, 3) == 3, "the base itself is a hash");
	CHECK(scbf_pl_append(&w, 100, up, 3) == SCBF_PL_EINVAL, "same hash twice");
	CHECK(scbf_pl_append(&w, 101, up, 3) == 3, "next hash");
	CHECK(scbf_pl_append(&w, SCBF_PL_HASH_MAX + 1, up, 3) == SCBF_PL_EINVAL,
		  "a hash past SCBF_PL_HASH_MAX");
	CHECK(scbf_pl_append(&w, SCBF_PL_HASH_MAX, up, 3) == 3,
		  "SCBF_PL_HASH_MAX itself");

	/* a buffer too small for even one item takes nothing */
	scbf_pl_writer_init(&w, buf, 3, 0);
	CHECK(scbf_pl_append(&w, 1u << 20, up, 3) == 0 && w.len == 0,
		  "no room: 0 items, nothing written");
	GroupDone("append checks its arguments");
}

/*
 * RoundTrip
 *		Write the ledger into buffers of cap bytes (a full buffer starts the
 *		next one, relative to the hash it stopped in, as run pages do),
 *		decode them all and compare.  Returns total bytes used.
 */
static size_t
RoundTrip(const TestList *l, int nlists, size_t cap, const char *what)
{
	int			maxbufs = 2;
	uint8_t    *bufs;
	size_t	   *lens;
	uint64_t   *bases;
	uint16_t   *out = malloc((cap + 1) * sizeof(uint16_t));
	int			nbufs = 1;
	size_t		total = 0;
	int			li = 0;
	int			lj = 0;
	int			bad = 0;
	scbf_pl_writer w;

	/* every buffer takes at least one item, and every page about cap / 6 */
	for (int i = 0; i < nlists; i++)
		maxbufs += cap < 100 ? l[i].nitems : 1 + l[i].nitems * 6 / (int) cap;
	bufs = malloc((size_t) maxbufs * cap);
	lens = calloc(maxbufs, sizeof(size_t));
	bases = calloc(maxbufs, sizeof(uint64_t));
	scbf_pl_writer_init(&w, bufs, cap, l[0].hash);
	bases[0] = l[0].hash;
	for (int i = 0; i < nlists; i++)
	{
		int			done = 0;

		while (done < l[i].nitems)
		{
			size_t		before = w.len;
			uint64_t	prev = w.prev_hash;
			int			n = scbf_pl_append(&w, l[i].hash, l[i].items + done,
										   l[i].nitems - done);

			CHECK(n >= 0, "%s: append list %d returned %d", what, i, n);
			if (n < 0)
				break;
			if (n > 0)
			{
				CHECK(w.len - before ==
					  scbf_pl_encoded_size(prev, l[i].hash, l[i].items + done, n),
					  "%s: encoded_size of list %d", what, i);
				done += n;
				if (done == l[i].nitems)
					continue;
			}
			/* full: the next buffer starts at this hash, which continues */
			if (nbufs == maxbufs)
			{
				CHECK(0, "%s: more than %d buffers", what, maxbufs);
				break;
			}
			lens[nbufs - 1] = w.len;
			bases[nbufs] = l[i].hash;
			scbf_pl_writer_init(&w, bufs + (size_t) nbufs * cap, cap, l[i].hash);
			nbufs++;
		}
	}
	lens[nbufs - 1] = w.len;

	for (int b = 0; b < nbufs; b++)
	{
		scbf_pl_reader r;
		uint64_t	h;
		int			n;
		int			rc;

		total += lens[b];
		scbf_pl_reader_init(&r, bufs + (size_t) b * cap, lens[b], bases[b]);
		while ((rc = scbf_pl_next(&r, &h, out, &n)) == SCBF_PL_OK)
		{
			for (int j = 0; j < n; j++)
			{
				if (li >= nlists || h != l[li].hash ||
					out[j] != l[li].items[lj])
				{
					if (bad++ < 3)
						CHECK(0, "%s: buffer %d: got (%llu, %u), expected list %d "
							  "item %d", what, b, (unsigned long long) h, out[j],
							  li, lj);
					continue;
				}
				if (++lj == l[li].nitems)
				{
					li++;
					lj = 0;
				}
			}
		}
		CHECK(rc == SCBF_PL_END, "%s: buffer %d ended with %d", what, b, rc);
	}
	CHECK(li == nlists && lj == 0, "%s: decoded %d of %d lists", what, li,
		  nlists);
	free(bufs);
	free(lens);
	free(bases);
	free(out);
	return total;
}

/*
 * TestRoundTrips
 *		Random ledgers through buffers from a few bytes to a page.
 */
static void
TestRoundTrips(void)
{
	static const size_t caps[] = {8, 13, 64, 500, 8000};

	rng_state = 42;
	for (int c = 0; c < (int) (sizeof(caps) / sizeof(caps[0])); c++)
	{
		for (int round = 0; round < 20; round++)
		{
			int			nlists = 1 + (int) (Rand() % 2000);
			int			maxitems = round % 3 == 0 ? 1 : (round % 3 == 1 ? 30 : 3000);
			TestList   *l = MakeLedger(nlists, maxitems,
									   round % 2 ? 65536 : 4096,
									   round % 4 == 1);
			char		what[64];

			snprintf(what, sizeof(what), "cap %zu round %d", caps[c], round);
			RoundTrip(l, nlists, caps[c], what);
			FreeLedger(l, nlists);
		}
	}
	GroupDone("random ledgers round-trip through buffers of 8 to 8000 bytes");
}

/*
 * TestDensity
 *		Bytes per entry of the two columns the storage v2 plan sizes for
 *		(src/README, D5): a clustered int4 column, 950 values per segment in
 *		runs of 20 adjacent rows, about 1.2 bytes; and a column of 18,000
 *		distinct values per segment with random 16-bit TIDs, about 5.
 */
static void
TestDensity(void)
{
	TestList   *l;
	size_t		bytes;
	double		per;
	int			nitems = 0;

	rng_state = 7;
	l = MakeLedger(950, 1, 65536, 1);
	for (int i = 0; i < 950; i++)
	{
		uint32_t	start = (uint32_t) (Rand() % (65536 - 20));

		free(l[i].items);
		l[i].items = malloc(20 * sizeof(uint16_t));
		for (int j = 0; j < 20; j++)
			l[i].items[j] = (uint16_t) (start + (uint32_t) j);
		l[i].nitems = 20;
		nitems += 20;
	}
	bytes = RoundTrip(l, 950, 8000, "clustered");
	per = (double) bytes / nitems;
	CHECK(per < 1.35, "clustered: %.3f bytes per entry, expected < 1.35", per);
	printf("# clustered column: %.3f bytes per entry\n", per);
	FreeLedger(l, 950);

	l = MakeLedger(18000, 1, 65536, 0);
	bytes = RoundTrip(l, 18000, 8000, "distinct");
	per = (double) bytes / 18000;
	CHECK(per < 5.5, "distinct: %.3f bytes per entry, expected < 5.5", per);
	printf("# distinct column: %.3f bytes per entry\n", per);
	FreeLedger(l, 18000);
	GroupDone("bytes per entry as the storage v2 plan assumes");
}

/*
 * Write whole lists of l[0 .. nlists) into buf[0 .. size) through w, as
 * many as fit; starts[i] (if not NULL) gets list i's byte offset.  Returns
 * how many were written.
 */
static int
WriteWholeLists(scbf_pl_writer *w, uint8_t *buf, size_t size,
				const TestList *l, int nlists, size_t *starts, int round)
{
	int			nfit = 0;

	scbf_pl_writer_init(w, buf, size, l[0].hash);
	while (nfit < nlists &&
		   w->len + scbf_pl_encoded_size(w->prev_hash, l[nfit].hash,
										 l[nfit].items,
										 l[nfit].nitems) <= size)
	{
		if (starts)
			starts[nfit] = w->len;
		CHECK(scbf_pl_append(w, l[nfit].hash, l[nfit].items,
							 l[nfit].nitems) == l[nfit].nitems,
			  "round %d: list %d fits", round, nfit);
		nfit++;
	}
	return nfit;
}

/*
 * TestSkip
 *		scbf_pl_skip against the lists written: after the first list,
 *		skipping to a target (a list's hash, one off it, or random) leaves
 *		the reader at the first list at or above the target.
 */
static void
TestSkip(void)
{
	static uint8_t buf[8000];
	static uint16_t out[8000];

	rng_state = 7;
	for (int round = 0; round < 60; round++)
	{
		int			nlists = 1 + (int) (Rand() % 3000);
		TestList   *l = MakeLedger(nlists, round % 3 == 0 ? 1 : 25,
								   round % 2 ? 65536 : 4096, round % 4 == 1);
		scbf_pl_writer w;
		int			nfit = WriteWholeLists(&w, buf, sizeof(buf), l, nlists,
										   NULL, round);
		for (int t = 0; t < 200 && nfit > 1; t++)
		{
			int			i = 1 + (int) (Rand() % (nfit - 1));
			uint32_t	target = t % 4 == 0 ? l[i].hash :
				t % 4 == 1 ? l[i].hash - 1 :
				t % 4 == 2 ? l[i].hash + 1 : (uint32_t) Rand();
			int			want = 1;
			scbf_pl_reader r;
			uint64_t	h;
			int			n;
			int			rc;

			while (want < nfit && l[want].hash < target)
				want++;
			scbf_pl_reader_init(&r, buf, w.len, l[0].hash);
			CHECK(scbf_pl_next(&r, &h, out, &n) == SCBF_PL_OK && h == l[0].hash,
				  "round %d: the first list", round);
			CHECK(scbf_pl_skip(&r, target) == SCBF_PL_OK,
				  "round %d: skip to %u", round, target);
			rc = scbf_pl_next(&r, &h, out, &n);
			if (want == nfit)
				CHECK(rc == SCBF_PL_END, "round %d: skip to %u past the last "
					  "list returned %d", round, target, rc);
			else
				CHECK(rc == SCBF_PL_OK && h == l[want].hash &&
					  n == l[want].nitems &&
					  memcmp(out, l[want].items, sizeof(uint16_t) * n) == 0,
					  "round %d: skip to %u: got %llu, expected list %d (%u)",
					  round, target, (unsigned long long) h, want,
					  l[want].hash);
		}
		FreeLedger(l, nlists);
	}
	GroupDone("skipping to a hash lands on the first list at or above it");
}

/*
 * Decode
 *		Decode len bytes copied to the very end of a malloc'd block (so any
 *		read past them is an overrun a sanitizer reports) and check that
 *		what comes out is self-consistent: hashes increase, counts fit the
 *		bytes, items increase.  Returns the final return code.
 */
static int
Decode(const uint8_t *src, size_t len, uint32_t base)
{
	uint8_t    *copy = malloc(len ? len : 1);
	uint16_t   *out = malloc((len + 1) * sizeof(uint16_t));
	uint8_t    *buf = copy + (len ? 0 : 1);
	scbf_pl_reader r;
	uint64_t	h;
	uint64_t	prev = base;
	int			n;
	int			rc;
	int			lists = 0;

	memcpy(buf, src, len);
	scbf_pl_reader_init(&r, buf, len, base);
	while ((rc = scbf_pl_next(&r, &h, out, &n)) == SCBF_PL_OK)
	{
		CHECK(h >= prev && (lists == 0 || h > prev),
			  "decoded hash %llu after %llu", (unsigned long long) h,
			  (unsigned long long) prev);
		CHECK(n >= 1 && (size_t) n <= len, "decoded count %d of %zu bytes",
			  n, len);
		for (int j = 1; j < n; j++)
			CHECK(out[j] > out[j - 1], "decoded items fall");
		prev = h;
		lists++;
	}
	CHECK(rc == SCBF_PL_END || rc == SCBF_PL_ECORRUPT, "returned %d", rc);
	/* skipping over the same bytes stays inside them too */
	{
		scbf_pl_reader s;
		int			src;

		scbf_pl_reader_init(&s, buf, len, base);
		src = scbf_pl_skip(&s, prev + 1);
		CHECK((src == SCBF_PL_OK || src == SCBF_PL_ECORRUPT) &&
			  s.pos >= buf && s.pos <= buf + len, "skip returned %d", src);
		CHECK(rc != SCBF_PL_END || (src == SCBF_PL_OK && s.pos == buf + len),
			  "skip past a good buffer's last list ends at its end");
	}
	/* a corrupt list leaves the reader where it was */
	if (rc == SCBF_PL_ECORRUPT)
		CHECK(scbf_pl_next(&r, &h, out, &n) == SCBF_PL_ECORRUPT,
			  "ECORRUPT is sticky");
	free(copy);
	free(out);
	return rc;
}

/*
 * TestCorruption
 *		Every truncation of a valid buffer, every single-byte change of a
 *		short one, and random garbage: ECORRUPT or a consistent answer,
 *		never an overrun or a hang.
 */
static void
TestCorruption(void)
{
	uint8_t		buf[8000];
	uint8_t		junk[256];
	TestList   *l;
	int			ncorrupt = 0;
	scbf_pl_writer w;

	rng_state = 99;
	l = MakeLedger(300, 40, 65536, 0);
	scbf_pl_writer_init(&w, buf, sizeof(buf), l[0].hash);
	for (int i = 0; i < 300; i++)
		if (scbf_pl_append(&w, l[i].hash, l[i].items, l[i].nitems) <
			l[i].nitems)
			break;
	CHECK(Decode(buf, w.len, l[0].hash) == SCBF_PL_END, "the whole buffer");
	for (size_t cut = 0; cut < w.len; cut++)
		ncorrupt += Decode(buf, cut, l[0].hash) == SCBF_PL_ECORRUPT;
	CHECK(ncorrupt > 0, "some truncations are caught as corrupt");
	for (size_t at = 0; at < 200 && at < w.len; at++)
		for (int bit = 0; bit < 8; bit++)
		{
			buf[at] ^= (uint8_t) (1 << bit);
			Decode(buf, 200, l[0].hash);
			buf[at] ^= (uint8_t) (1 << bit);
		}
	for (int round = 0; round < 200000; round++)
	{
		size_t		len = (size_t) (Rand() % sizeof(junk));

		for (size_t i = 0; i < len; i++)
			junk[i] = (uint8_t) (round % 3 == 0 ? Rand() | 0x80 : Rand());
		Decode(junk, len, (uint32_t) Rand());
	}
	FreeLedger(l, 300);
	GroupDone("truncated, flipped and random buffers decode safely");
}

/*
 * TestResume
 *		scbf_pl_reader_resume at the start of list i with the hash of list
 *		i - 1 (a leaf's signpost) reads list i and every list after it; at
 *		the first list, whose hash delta from the fence is zero, it finds
 *		corruption (a signpost is never there).
 */
static void
TestResume(void)
{
	static uint8_t buf[8000];
	static uint16_t out[8000];
	static size_t starts[8000];

	rng_state = 11;
	for (int round = 0; round < 40; round++)
	{
		int			nlists = 2 + (int) (Rand() % 2000);
		TestList   *l = MakeLedger(nlists, round % 2 ? 1 : 20, 65536, 0);
		scbf_pl_writer w;
		scbf_pl_reader r;
		uint64_t	h;
		int			n;
		int			nfit = WriteWholeLists(&w, buf, sizeof(buf), l, nlists,
										   starts, round);
		for (int t = 0; t < 50 && nfit > 1; t++)
		{
			int			i = 1 + (int) (Rand() % (nfit - 1));
			int			j;

			scbf_pl_reader_resume(&r, buf, w.len, starts[i], l[i - 1].hash);
			for (j = i; j < nfit; j++)
				if (scbf_pl_next(&r, &h, out, &n) != SCBF_PL_OK ||
					h != l[j].hash || n != l[j].nitems ||
					memcmp(out, l[j].items, sizeof(uint16_t) * n) != 0)
					break;
			CHECK(j == nfit && scbf_pl_next(&r, &h, out, &n) == SCBF_PL_END,
				  "round %d: resumed at list %d, read up to list %d of %d",
				  round, i, j, nfit);
		}
		scbf_pl_reader_resume(&r, buf, w.len, 0, l[0].hash);
		CHECK(scbf_pl_next(&r, &h, out, &n) == SCBF_PL_ECORRUPT,
			  "round %d: resumed at the first list, a zero delta", round);
		FreeLedger(l, nlists);
	}
	GroupDone("resuming at a list's start reads it and the lists after it");
}

int
main(void)
{
	TestVarints();
	TestArguments();
	TestRoundTrips();
	TestDensity();
	TestSkip();
	TestResume();
	TestCorruption();
	if (nfail_total)
	{
		printf("%d checks failed\n", nfail_total);
		return 1;
	}
	printf("all posting-list checks passed\n");
	return 0;
}
