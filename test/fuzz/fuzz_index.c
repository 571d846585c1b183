/*-------------------------------------------------------------------------
 *
 * fuzz_index.c
 *	  libFuzzer harness of the page readers of storage format 2: the
 *	  metapage, the filter table, the band of rows, the delta, ledger roots
 *	  and leaves with their posting lists, and the pending chains, read
 *	  through the functions the scan, the fold and the diagnostics call
 *	  (src/scbf.h).
 *
 * NOTES
 *	  An input is a whole small index: its bytes cut into 8 kB pages (the
 *	  last one padded with zeros), block 0 the metapage, at most
 *	  FUZZ_MAX_BLOCKS blocks.  pgshim.c serves them as local buffers, each
 *	  page in a malloc'd buffer of exactly BLCKSZ bytes, so that
 *	  AddressSanitizer sees a read outside any page; a read of a block past
 *	  the end of the index aborts (it would mean a walk without its guard).
 *	  The harness then does what a scan does, each step under a catch of
 *	  ereport(ERROR), which is a clean end:
 *
 *	  - ScbfGetState and ScbfReadMeta: the metapage check accepts the
 *		page or raises an error;
 *	  - ScbfReadTable, and ScbfReadFilter of every filter: when both
 *		succeed, the entries they copy are the same;
 *	  - ScbfRowsProbe of some hashes in each column: the filters it
 *		selects are the ones the harness finds itself in the pages' bytes
 *		(per hash, the AND of its k rows, read as the metapage's comment in
 *		src/scbf_page.h lays the band out), for a set of hashes the union
 *		of those for each (unless the band moved under it, which it
 *		reports), and ScbfRowsNext walks them in order, below the filter
 *		count;
 *	  - for the filters in use, in each column, ScbfLedgerScan of the
 *		ledger (every posting list visible at the fold serial) and
 *		ScbfLedgerLookup of some of the hashes it met and of others: the
 *		lookup's items are sorted and distinct, and each was in a posting
 *		list of that hash in the scan (unless a leaf's signposts lie: a
 *		lookup follows them, only the verifier checks them);
 *	  - ScbfPendingScan of every partition: the cut it reports lies in the
 *		index;
 *	  - the delta, if the metapage names one: ScbfReadDeltaPage (the
 *		diagnostics' reader) of every partition, and ScbfDeltaProbe (the
 *		scan's) of the hashes found there and of some from the input, in
 *		each column, each alone and all together: the filters a probe that
 *		succeeded names are those of the entries of the hash and column on
 *		its partition's page, as ScbfReadDeltaPage read them (below the
 *		filter count), all together the union of each;
 *	  - last, on a copy of the pages, ScbfDeltaMerge (the fold's and
 *		VACUUM's; its reading loop checks each page with
 *		DeltaReadPage, the check ScbfDeltaAdd uses too), with two
 *		extra keys from the input: it sets bits in the band and empties the
 *		delta's pages, so pgshim_writable lets it lock pages exclusively
 *		and change them in place (no WAL).  If it succeeds, it merged as
 *		many entries as the pages held (those of filters inside the band),
 *		every partition is empty afterwards, and a probe of the rows finds
 *		each key's filter, the extra ones' too.  maintenance_work_mem is
 *		set to its minimum so that the merge works in several groups of
 *		partitions.
 *
 *	  Every buffer pinned and locked is released by the end of a step that
 *	  succeeded, and no reader writes to a page: both are checked.  Any
 *	  failed check aborts.
 *
 *	  The corpus keeps the inputs of bugs found here, fixed since:
 *	  rows-pd-special and pending-pd-special (ScbfRowsProbe and
 *	  ScbfPendingScan read a row or pending page's special space at a
 *	  corrupt pd_special, up to 56 kB past the page); band-width-oom (a
 *	  metapage of no filters but a band hundreds of megabytes wide, which
 *	  the metapage check let through: a probe allocated its width per
 *	  hash).
 *
 * Portions Copyright (c) 2026, scbf developers
 *
 * IDENTIFICATION
 *	  test/fuzz/fuzz_index.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <stdio.h>
#include <stdlib.h>

#include "catalog/pg_class.h"
#include "catalog/pg_index.h"
#include "miscadmin.h"
#include "utils/rel.h"

#include "scbf.h"
#include "scbf_page.h"
#include "scbfpostinglist.h"
#include "pgshim.h"

/* the C library's, not src/port's (port.h renames them; nothing links it) */
#undef fprintf
#undef qsort

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_MAX_BLOCKS		48
#define FUZZ_MAX_FILTERS	64	/* table entries looked at */
#define FUZZ_HASHES			8	/* hashes probed per column */

#define CHECK(cond) \
	do { \
		if (!(cond)) \
		{ \
			fprintf(stderr, "fuzz_index: check failed at line %d: %s\n", \
					__LINE__, #cond); \
			abort(); \
		} \
	} while (0)

/*
 * TRY(stmt): run stmt; true if it ended without an error.  An error must be
 * an ERROR (not a FATAL or PANIC), and it releases every buffer as
 * transaction abort would.
 */
#define TRY(stmt) \
	({ \
		sigjmp_buf	jb_; \
		bool		ok_; \
		pgshim_catch = &jb_; \
		if (sigsetjmp(jb_, 0) == 0) \
		{ \
			stmt; \
			ok_ = true; \
			CHECK(pgshim_pins == 0 && pgshim_locks == 0); \
		} \
		else \
		{ \
			CHECK(pgshim_elevel == ERROR); \
			NOTE("  error at line %d: %s\n", __LINE__, pgshim_message); \
			pgshim_release_all(); \
			ok_ = false; \
		} \
		pgshim_catch = NULL; \
		ok_; \
	})

/* FUZZ_VERBOSE set: say what each input reached (to check the seeds) */
static bool verbose;

#define NOTE(...) \
	do { \
		if (verbose) \
			fprintf(stderr, __VA_ARGS__); \
	} while (0)

/* the pages of the input being read */
static Page *cur_pages;

static FormData_pg_class fake_class;
static FormData_pg_index fake_form_index;
static RelationData fake_index;

/* The items of one hash, as the ledger scan met them */
typedef struct SeenList
{
	ScbfHash	hash;
	uint16		items[512];
	int			nitems;
} SeenList;

/* What ScbfLedgerScan handed over */
typedef struct Seen
{
	int			nlists;
	SeenList	lists[16];		/* the first 16 distinct hashes */
	int			calls;
} Seen;

static void
SeenPosting(ScbfHash hash, const uint16 *items, int nitems, void *arg)
{
	Seen	   *seen = (Seen *) arg;
	SeenList   *l = NULL;

	seen->calls++;
	CHECK(nitems >= 1);
	for (int i = 0; i < seen->nlists; i++)
		if (seen->lists[i].hash == hash)
			l = &seen->lists[i];
	if (l == NULL && seen->nlists < lengthof(seen->lists))
	{
		l = &seen->lists[seen->nlists++];
		l->hash = hash;
		l->nitems = 0;
	}
	if (l == NULL)
		return;
	for (int i = 0; i < nitems && l->nitems < lengthof(l->items); i++)
		l->items[l->nitems++] = items[i];
}

/* True if the scan met item in a posting list of hash */
static bool
SeenHas(const Seen *seen, ScbfHash hash, uint16 item)
{
	for (int i = 0; i < seen->nlists; i++)
		if (seen->lists[i].hash == hash)
			for (int j = 0; j < seen->lists[i].nitems; j++)
				if (seen->lists[i].items[j] == item)
					return true;
	return false;
}

/* True if the scan met a posting list of hash, with all its items kept */
static bool
SeenAll(const Seen *seen, ScbfHash hash)
{
	for (int i = 0; i < seen->nlists; i++)
		if (seen->lists[i].hash == hash)
			return seen->lists[i].nitems < lengthof(seen->lists[i].items);
	return false;
}

/* ScbfPendingScan callback: count the entries */
static void
CountPending(ItemPointer tid, const ScbfHash *hashes, void *arg)
{
	(*(int *) arg)++;
}

/*
 * True if every signpost of every leaf page of the input names a posting
 * list's start and the hash of the list before it, as a decode from the
 * leaf's fence finds them, for hashes of bits bits (a leaf's root says
 * how many).  A lookup follows a signpost without that check (only the
 * verifier makes it), so with one that lies it may find items under
 * another hash than the scan's.
 */
static bool
SignpostsTrue(BlockNumber nblocks, int bits)
{
	for (BlockNumber b = 1; b < nblocks; b++)
	{
		Page		page = cur_pages[b];
		ScbfLeafPageData *ld = ScbfPageGetLeaf(page);
		int			nsign;
		int			sign = 0;
		scbf_pl_reader r;
		ScbfHash	h;
		int			n;

		if (!ScbfPageHasOpaque(page) ||
			ScbfPageGetOpaque(page)->type != SCBF_PAGE_LEAF)
			continue;
		nsign = ScbfLeafNSignposts(page);
		if (nsign == 0)
			continue;
		if (nsign < 0 || ld->nbytes > SCBF_LEAF_BYTES)
			return false;
		scbf_pl_reader_init(&r, ScbfLeafBytes(page), ld->nbytes,
							ScbfFenceBase(ld->fence, bits));
		for (;;)
		{
			const ScbfSignpost *sp = &ScbfLeafSignposts(page)[sign];
			int			offset = (int) (r.pos - ScbfLeafBytes(page));

			if (sign < nsign && sp->offset <= offset)
			{
				if (sp->offset < offset || r.nlists == 0 ||
					ScbfSignpostHash(sp) != r.prev_hash)
					return false;
				sign++;
			}
			if (scbf_pl_next(&r, &h, NULL, &n) != SCBF_PL_OK)
				break;
		}
		if (sign < nsign)
			return false;
	}
	return true;
}

/* The hash bits a root says its runs have, as the ledger reads them */
static int
RootBits(BlockNumber root, BlockNumber nblocks)
{
	uint16		bits;

	if (root >= nblocks)
		return 32;
	bits = ScbfPageGetRoot(cur_pages[root])->hash_bits;
	return bits >= 32 && bits <= SCBF_MAX_HASH_BITS ? bits : 32;
}

/*
 * The ledger at root, column col: a scan, then lookups of the hashes it met
 * and of some from the input.
 */
static void
FuzzLedger(BlockNumber root, int col, uint64 fold_serial,
		   const ScbfHash *extra, BlockNumber nblocks)
{
	Seen	   *seen = calloc(1, sizeof(Seen));
	ScbfHash	hashes[lengthof(seen->lists) + FUZZ_HASHES];
	int			nhashes = 0;
	uint16	   *items;
	int			n;

	if (!TRY(ScbfLedgerScan(&fake_index, root, col, fold_serial,
							 SeenPosting, seen, nblocks)))
	{
		/* a lookup may still succeed: it reads fewer leaves */
		seen->nlists = 0;
	}
	NOTE("  ledger root %u col %d: %d posting lists\n", root, col, seen->calls);
	for (int i = 0; i < seen->nlists; i++)
		hashes[nhashes++] = seen->lists[i].hash;
	for (int i = 0; i < FUZZ_HASHES; i++)
		hashes[nhashes++] = extra[i];
	qsort(hashes, nhashes, sizeof(ScbfHash), ScbfCmpHash);

	/* each hash alone, then all together */
	for (int i = 0; i <= nhashes; i++)
	{
		const ScbfHash *h = i < nhashes ? &hashes[i] : hashes;
		int			nh = i < nhashes ? 1 : nhashes;

		if (i > 0 && i < nhashes && hashes[i] == hashes[i - 1])
			continue;
		if (!TRY(n = ScbfLedgerLookup(&fake_index, root, col,
									   RootBits(root, nblocks), fold_serial,
									   h, nh, &items, nblocks)))
			continue;
		CHECK(n >= 0);
		if (nh == 1 && n > 0)
			NOTE("  lookup %08llx: %d items\n", (unsigned long long) h[0], n);
		for (int j = 1; j < n; j++)
			CHECK(items[j - 1] < items[j]);
		/*
		 * a single hash's items were all in the scan's lists of it, unless a
		 * signpost lies
		 */
		if (nh == 1 && SeenAll(seen, h[0]) &&
			SignpostsTrue(nblocks, RootBits(root, nblocks)))
			for (int j = 0; j < n; j++)
				CHECK(SeenHas(seen, h[0], items[j]));
	}
	free(seen);
}

/*
 * The block of page pageno of band, from its map's runs.
 */
static BlockNumber
BandBlock(const ScbfBand *band, uint32 pageno)
{
	ScbfBandMapPageData *map = ScbfPageGetBandMap(cur_pages[band->map]);

	for (uint32 r = 0; r < map->nruns; r++)
	{
		if (pageno < map->runs[r].npages)
			return map->runs[r].start + pageno;
		pageno -= map->runs[r].npages;
	}
	CHECK(false);
	return 0;
}

/*
 * Whether a probe of filter key fkey reads band b: no group summarizes
 * it, or every one of the key's rows of its group's summary has the
 * band's bit (row r on page r / rows_per_page of the group at bit
 * (r % rows_per_page) * width + b - first).
 */
static bool
ExpectedBand(const ScbfBands *bands, uint32 b, uint64 fkey)
{
	uint64		rows[SCBF_SUMMARY_K];

	for (uint32 g = 0; g < bands->ngroups; g++)
	{
		const ScbfBand *group = &bands->groups[g];
		uint32		rpp = group->rows_per_page;
		Page		page;

		if (b < group->first || b - group->first >= group->width)
			continue;
		scbf_summary_rows(fkey, group->capacity, rows);
		page = cur_pages[BandBlock(group, (uint32) (rows[0] / rpp))];
		for (int i = 0; i < SCBF_SUMMARY_K; i++)
			if (!scbf_rows_test(ScbfPageGetRows(page), (uint32) (rows[i] % rpp),
								group->width, b - group->first))
				return false;
		return true;
	}
	return true;
}

/*
 * The filters that may hold any of hashes[0 .. n) in column col, read from
 * the band's bytes directly: per hash and band its summary may hold it in,
 * the AND of row slice * m + position of each slice, row r on page r /
 * rows_per_page of the band (the block its map's runs give) at byte
 * (r % rows_per_page) * width / 8.  Only after ScbfRowsProbe succeeded on
 * the same bands, so the maps and every page they read are theirs.
 */
static void
ExpectedRows(ScbfState *state, ScbfMeta *meta, int col,
			 const ScbfHash *hashes, int n, uint8 *expected, BlockNumber nblocks)
{
	ScbfBands	bands;

	ScbfMetaBands(&fake_index, meta, &bands, nblocks);
	for (uint32 b = 0; b < bands.nbands; b++)
	{
		ScbfBand   *band = &bands.bands[b];
		uint32		width = band->width;
		uint32		rpp = band->rows_per_page;
		Size		nbytes = width / 8;
		uint8	   *one = malloc(Max(nbytes, 1));
		uint32		pos[SCBF_ROWS_MAX_K];

		if (band->first >= meta->nfilters)
		{
			free(one);
			break;
		}
		for (int h = 0; h < n; h++)
		{
			if (!ExpectedBand(&bands, b,
							  ScbfFilterKey(state, col, hashes[h])))
				continue;
			ScbfKeyPositions(state, band, col, hashes[h], pos);
			memset(one, 0xFF, nbytes);
			for (uint32 i = 0; i < band->geom.k; i++)
			{
				uint64		row = (uint64) i * band->geom.m + pos[i];
				Page		page = cur_pages[BandBlock(band, row / rpp)];
				const uint8 *bytes = ScbfPageGetRows(page) +
					(Size) (row % rpp) * width / 8;

				for (Size x = 0; x < nbytes; x++)
					one[x] &= bytes[x];
			}
			for (Size x = 0; x < nbytes; x++)
				expected[band->first / 8 + x] |= one[x];
		}
		free(one);
	}
}

/*
 * The rows: probes of some hashes in column col.
 */
static void
FuzzRows(ScbfState *state, ScbfMeta *meta, int col, const ScbfHash *hashes,
		 BlockNumber nblocks)
{
	Size		nbytes = ScbfRowsBytes(meta);
	uint32		nfilters = ScbfMetaFilters(meta);
	uint8	   *all = calloc(1, nbytes);
	uint8	   *each = calloc(1, nbytes);
	bool		ok_all;
	bool		ok_each = true;
	bool		moved = false;

	if (!TRY(ok_all = ScbfRowsProbe(&fake_index, state, meta, col, hashes,
									 FUZZ_HASHES, all, nblocks)))
		goto done;
	for (int i = 0; i < FUZZ_HASHES; i++)
	{
		bool		ok;

		if (!TRY(ok = ScbfRowsProbe(&fake_index, state, meta, col,
									 &hashes[i], 1, each, nblocks)))
			ok_each = false;
		else if (!ok)
			moved = true;
	}
	if (ok_all && ok_each && !moved)
		CHECK(memcmp(all, each, nbytes) == 0);
	if (ok_all && nfilters > 0)
	{
		uint8	   *expected = calloc(1, nbytes);

		ExpectedRows(state, meta, col, hashes, FUZZ_HASHES, expected, nblocks);
		CHECK(memcmp(all, expected, nbytes) == 0);
		free(expected);
	}
	NOTE("  rows col %d: %s\n", col, ok_all ? "probed" : "moved");
	if (ok_all)
	{
		uint32		prev = 0;
		bool		first = true;

		for (uint32 c = ScbfRowsNext(meta, all, 0); c < nfilters;
			 c = ScbfRowsNext(meta, all, c + 1))
		{
			CHECK(first || c > prev);
			CHECK(all[c / 8] & (1 << (c % 8)));
			prev = c;
			first = false;
		}
	}
done:
	free(all);
	free(each);
}

/* The delta's keys, as ScbfReadDeltaPage read each partition */
typedef struct DeltaKeys
{
	ScbfDelta	delta;
	uint32		nparts;			/* partitions read: Min(pages, blocks) */
	int		   *nkeys;			/* per partition; -1: not the delta's */
	ScbfRowKey **keys;
	bool		complete;		/* every partition read */
} DeltaKeys;

/*
 * Read the delta's partitions with ScbfReadDeltaPage (the diagnostics').
 */
static void
ReadDelta(const ScbfMeta *meta, DeltaKeys *dk, BlockNumber nblocks)
{
	ScbfMetaDelta(meta, &dk->delta);
	dk->nparts = Min(dk->delta.pages, nblocks);
	dk->complete = dk->nparts == dk->delta.pages;
	dk->nkeys = calloc(Max(dk->nparts, 1), sizeof(int));
	dk->keys = calloc(Max(dk->nparts, 1), sizeof(ScbfRowKey *));
	for (uint32 p = 0; p < dk->nparts; p++)
	{
		int			n = -1;

		if (!TRY(n = ScbfReadDeltaPage(&fake_index, &dk->delta, p,
										&dk->keys[p], nblocks)))
			n = -1;
		CHECK(n >= -1 && n <= ScbfDeltaPerPage(dk->delta.bits));
		CHECK(n == -1 || dk->keys[p] != NULL);
		dk->nkeys[p] = n;
		if (n < 0)
			dk->complete = false;
		else if (n > 0)
			NOTE("  delta partition %u: %d entries\n", p, n);
	}
}

static void
FreeDelta(DeltaKeys *dk)
{
	free(dk->nkeys);
	free(dk->keys);
}

/*
 * The filters the delta names for hash in column col, read from its
 * partition's page with ScbfReadDeltaPage, into expected; false if that
 * is not the delta's page.  None if the metapage says the delta is empty.
 */
static bool
ExpectedDelta(const ScbfMeta *meta, const ScbfDelta *delta, int col,
			  ScbfHash hash, uint8 *expected, BlockNumber nblocks)
{
	uint32		part = ScbfDeltaPartition(hash, col, delta->pages);
	ScbfRowKey *keys;
	int			n = -1;

	CHECK(part < delta->pages);
	if (ScbfMetaDeltaEmpty(meta))
		return true;
	if (!TRY(n = ScbfReadDeltaPage(&fake_index, delta, part, &keys,
									nblocks)) || n < 0)
		return false;
	for (int e = 0; e < n; e++)
	{
		if (keys[e].hash == hash && keys[e].col == col &&
			keys[e].filterno < meta->nfilters)
			expected[keys[e].filterno / 8] |= (uint8) (1 << (keys[e].filterno % 8));
	}
	return true;
}

/*
 * The delta: probes of the hashes its pages hold and of extra[], in each
 * column, checked against what ScbfReadDeltaPage read.
 */
static void
FuzzDelta(ScbfState *state, ScbfMeta *meta, const ScbfHash *extra,
		  BlockNumber nblocks)
{
	DeltaKeys	dk;
	Size		nbytes = Max((meta->nfilters + 7) / 8, ScbfRowsBytes(meta));
	ScbfHash	hashes[16 + FUZZ_HASHES];
	int			nhashes = 0;
	uint8	   *all = calloc(1, nbytes);
	uint8	   *each = calloc(1, nbytes);
	uint8	   *one = calloc(1, nbytes);
	uint8	   *expected = calloc(1, nbytes);

	ReadDelta(meta, &dk, nblocks);
	if (dk.delta.pages == 0)
		goto done;
	NOTE("  delta: %u pages at %u, serial %u\n", dk.delta.pages,
		 dk.delta.start, dk.delta.serial);
	for (uint32 p = 0; p < dk.nparts && nhashes < 16; p++)
		for (int e = 0; e < dk.nkeys[p] && nhashes < 16; e += 7)
			hashes[nhashes++] = dk.keys[p][e].hash;
	for (int i = 0; i < FUZZ_HASHES; i++)
		hashes[nhashes++] = extra[i];

	for (int col = 0; col < state->ncols && col < 4; col++)
	{
		bool		ok_all = false;
		bool		ok_each = true;
		int			found = 0;

		memset(all, 0, nbytes);
		memset(each, 0, nbytes);
		if (!TRY(ok_all = ScbfDeltaProbe(&fake_index, meta, col, hashes,
										  nhashes, all, nblocks)))
			ok_all = false;
		for (int i = 0; i < nhashes; i++)
		{
			bool		ok = false;

			memset(one, 0, nbytes);
			memset(expected, 0, nbytes);
			if (!TRY(ok = ScbfDeltaProbe(&fake_index, meta, col,
										  &hashes[i], 1, one, nblocks)) ||
				!ok)
			{
				ok_each = false;
				continue;
			}
			/* a probe that succeeded read the partition's own page */
			CHECK(ExpectedDelta(meta, &dk.delta, col, hashes[i], expected,
								nblocks));
			CHECK(memcmp(one, expected, nbytes) == 0);
			for (Size b = 0; b < nbytes; b++)
			{
				each[b] |= one[b];
				found += one[b] != 0;
			}
		}
		if (ok_all && ok_each)
			CHECK(memcmp(all, each, nbytes) == 0);
		NOTE("  delta col %d: %s, %d bytes of filters named\n", col,
			 ok_all ? "probed" : "moved or corrupt", found);
	}
done:
	FreeDelta(&dk);
	free(all);
	free(each);
	free(one);
	free(expected);
}

/*
 * The delta's merge, on the pages of the index being read (the caller's
 * copies), with two extra keys of the input's hashes.
 */
static void
FuzzMerge(ScbfState *state, ScbfMeta *meta, const ScbfHash *extra,
		  BlockNumber nblocks)
{
	DeltaKeys	dk;
	ScbfBands	bands;
	uint32		width;
	bool		loaded = true;
	ScbfRowKey xkeys[2];
	int			nextra = 0;
	int			expect = 0;
	int			merged = -1;
	Size		nbytes = ScbfRowsBytes(meta);
	uint8	   *acc = calloc(1, nbytes);

	ReadDelta(meta, &dk, nblocks);
	if (!TRY(ScbfMetaBands(&fake_index, meta, &bands, nblocks)))
		goto done;
	for (uint32 b = 0; b < bands.nbands; b++)
		loaded = loaded && ScbfBandLoad(&fake_index, &bands.bands[b], nblocks);
	width = ScbfBandsEnd(&bands);
	if (dk.delta.pages == 0 || !loaded)
		goto done;
	for (int i = 0; i < 2 && width > 0; i++)
	{
		xkeys[nextra].hash = extra[i];
		xkeys[nextra].col = i % state->ncols;
		xkeys[nextra].filterno = extra[i] % Min(width, meta->nfilters + 1);
		nextra++;
	}
	for (uint32 p = 0; p < dk.nparts; p++)
		for (int e = 0; e < dk.nkeys[p]; e++)
			expect += dk.keys[p][e].filterno < width;

	pgshim_writable = true;
	if (!TRY(merged = ScbfDeltaMerge(&fake_index, state, &dk.delta, &bands,
									  xkeys, nextra, nblocks)))
		merged = -1;
	pgshim_writable = false;
	NOTE("  merge: %d entries merged (%d expected, %s)\n", merged, expect,
		 dk.complete ? "every partition read" : "some not read");
	if (merged < 0)
		goto done;

	/* every partition was the delta's, and is empty now */
	CHECK(dk.complete);
	CHECK(merged == expect);
	for (uint32 p = 0; p < dk.nparts; p++)
	{
		ScbfRowKey *keys;
		int			n = -1;

		CHECK(TRY(n = ScbfReadDeltaPage(&fake_index, &dk.delta, p, &keys,
										 nblocks)));
		CHECK(n == 0);
	}

	/* the rows name each key's filter */
	for (uint32 p = 0; p <= dk.nparts; p++)
	{
		const ScbfRowKey *keys = p < dk.nparts ? dk.keys[p] : xkeys;
		int			n = p < dk.nparts ? dk.nkeys[p] : nextra;

		for (int e = 0; e < n; e++)
		{
			bool		ok = false;

			if (keys[e].filterno >= width ||
				keys[e].filterno >= meta->nfilters)
				continue;
			memset(acc, 0, nbytes);
			if (!TRY(ok = ScbfRowsProbe(&fake_index, state, meta,
										 keys[e].col, &keys[e].hash, 1, acc,
										 nblocks)) || !ok)
				continue;
			CHECK(ScbfRowsHas(meta, acc, keys[e].filterno));
		}
	}
done:
	FreeDelta(&dk);
	free(acc);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	BlockNumber nblocks = Max((size + BLCKSZ - 1) / BLCKSZ, 1);
	Page		pages[FUZZ_MAX_BLOCKS];
	ScbfHash	hashes[FUZZ_HASHES];
	ScbfState *state;
	ScbfMeta  *meta;
	ScbfFilter **table = NULL;
	uint32		nfilters;
	uint64		fold_serial;

	if (nblocks > FUZZ_MAX_BLOCKS)
		return -1;				/* not added to the corpus */
	if (fake_index.rd_rel == NULL)
	{
		verbose = getenv("FUZZ_VERBOSE") != NULL;
		/* the server's minimum: the delta's merge works in groups */
		maintenance_work_mem = 64;
		strcpy(NameStr(fake_class.relname), "fuzz");
		fake_index.rd_rel = &fake_class;
		fake_index.rd_index = &fake_form_index;
	}
	fake_index.rd_amcache = NULL;

	for (BlockNumber b = 0; b < nblocks; b++)
	{
		size_t		off = (size_t) b * BLCKSZ;

		pages[b] = malloc(BLCKSZ);
		memset(pages[b], 0, BLCKSZ);
		memcpy(pages[b], data + off, Min(size - off, BLCKSZ));
	}
	pgshim_set_blocks(pages, nblocks);
	cur_pages = pages;

	/* probe hashes: the input's last bytes */
	for (int i = 0; i < FUZZ_HASHES; i++)
	{
		uint32		h = 0;

		if (size >= 4)
			memcpy(&h, data + size - 4 - (i * 4) % (size - 3), 4);
		hashes[i] = h;
	}

	/* the column count the metapage claims is the index's */
	fake_form_index.indnkeyatts = ScbfPageGetMeta(pages[0])->ncols;

	if (!TRY(state = ScbfGetState(&fake_index)))
		goto done;
	CHECK(state->ncols >= 1 && state->ncols <= INDEX_MAX_KEYS);
	CHECK(state->k >= 1 && state->k <= SCBF_ROWS_MAX_K);
	if (!TRY(meta = ScbfReadMeta(&fake_index)))
		goto done;
	CHECK(ScbfPageGetMeta(pages[0])->m >= 1);
	nfilters = ScbfMetaFilters(meta);
	fold_serial = ScbfMetaFoldSerial(meta);
	NOTE("%u blocks, %d columns, %u filters, fold serial %llu\n", nblocks,
		 state->ncols, nfilters, (unsigned long long) fold_serial);

	/* the filter table, whole and entry by entry */
	if (!TRY(table = ScbfReadTable(&fake_index, state, meta, nblocks)))
		table = NULL;
	for (uint32 c = 0; c < Min(nfilters, FUZZ_MAX_FILTERS); c++)
	{
		ScbfFilter *f;

		if (!TRY(f = ScbfReadFilter(&fake_index, state, meta, c, nblocks)))
			continue;
		if (table)
			CHECK(ScbfFilterSegment(f) == ScbfFilterSegment(table[c]) &&
				  ScbfFilterEntries(f) == ScbfFilterEntries(table[c]) &&
				  ScbfFilterKeys(f) == ScbfFilterKeys(table[c]));
		if (!ScbfFilterInUse(f))
			continue;
		(void) ScbfFilterFpr(f, state->k, ScbfPageGetMeta(pages[0])->m);
		for (int col = 0; col < state->ncols && col < 4; col++)
		{
			BlockNumber root = ScbfFilterRoot(f, col);

			if (root != InvalidBlockNumber)
				FuzzLedger(root, col, fold_serial, hashes, nblocks);
		}
	}

	/* the delta, then the rows, as a scan reads them */
	FuzzDelta(state, meta, hashes, nblocks);
	for (int col = 0; col < state->ncols && col < 4; col++)
		FuzzRows(state, meta, col, hashes, nblocks);

	/* the pending partitions */
	for (int part = 0; part < SCBF_NPENDING; part++)
	{
		ScbfPendingCut cut;
		int			calls = 0;
		bool		ok = false;

		if (!TRY(ok = ScbfPendingScan(&fake_index, state, meta, part,
									   CountPending, &calls, &cut)) || !ok)
			continue;
		if (calls > 0)
			NOTE("  pending %d: %d entries\n", part, calls);
		CHECK(cut.blkno == InvalidBlockNumber ||
			  (cut.blkno > 0 && cut.blkno < nblocks));
	}

	/* no reader wrote to a page */
	for (BlockNumber b = 0; b < nblocks; b++)
	{
		size_t		off = (size_t) b * BLCKSZ;

		CHECK(memcmp(pages[b], data + off, Min(size - off, BLCKSZ)) == 0);
	}

	/* the delta's merge, a writer, last: it changes the pages */
	FuzzMerge(state, meta, hashes, nblocks);
	goto freed;

done:
	/* no reader wrote to a page */
	for (BlockNumber b = 0; b < nblocks; b++)
	{
		size_t		off = (size_t) b * BLCKSZ;
		size_t		len = Min(size - off, BLCKSZ);

		CHECK(memcmp(pages[b], data + off, len) == 0);
	}
freed:
	for (BlockNumber b = 0; b < nblocks; b++)
		free(pages[b]);
	pgshim_set_blocks(NULL, 0);
	pgshim_free_all();
	fake_index.rd_amcache = NULL;
	return 0;
}
