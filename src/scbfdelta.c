/*-------------------------------------------------------------------------
 *
 * scbfdelta.c
 *	  The delta, keys whose row bits a fold left unset.
 *
 * NOTES
 *	  A fold sets k bits per new key at random rows of the band, and every
 *	  row page holds one bit of every filter, so a fold of n keys writes
 *	  min(n * k, band pages) pages: once the band is large, every page of it
 *	  for every fold, and the band grows with the table (src/README, step
 *	  9).  From scbf.delta_band_pages band pages on, a fold writes its new
 *	  keys here instead: (column, hash, filter) entries, hash-partitioned
 *	  over delta_pages contiguous pages (a quarter of the band, at least
 *	  SCBF_DELTA_MIN_PAGES), so it writes at most one page per partition
 *	  it touches (a fold of more than half of what the delta holds sets
 *	  its bits at once, in the pass that merges the delta).  A band that
 *	  grew to twice the size its delta was made for gets a new delta
 *	  (merged, replaced, freed after the commit); so does an index whose
 *	  delta was made as an eighth of its band, before deltas were a
 *	  quarter.  When a partition has no room left, the fold merges: it
 *	  sets the bits of every entry in the band, one pass over the band for
 *	  many folds' keys, and then empties the pages.  VACUUM's cleanup merges
 *	  too, so that a column it releases has no entries left here.
 *
 *	  A probe reads the partition of each (column, hash) it looks for
 *	  before the band's rows, and a filter named there is a candidate as if
 *	  its rows said so.  That order is what makes the merge safe without a
 *	  serial: the merge sets the bits before it empties a page, so a probe
 *	  that finds a page emptied reads rows written after the bits were set
 *	  (a standby replays the records in the same order).
 *
 *	  A merge that empties the delta says so in the metapage
 *	  (SCBF_META_DELTA_EMPTY: VACUUM's at once, a fold's at its commit),
 *	  and a fold that puts keys here clears it at its commit; a probe whose
 *	  copy says empty reads no delta page.  Keys a fold puts here before
 *	  its commit are in runs the copy does not see either: the probe finds
 *	  them in the pending area, as it does when it reads the delta before
 *	  they reach it.  So an index VACUUM has merged reads one page less per
 *	  probe until the next fold.
 *
 *	  Only the fold-lock holder writes delta pages.  A fold's entries may
 *	  reach the pages before its commit: a probe that does not see the
 *	  fold's runs yet just gets a false candidate, as it would from bits
 *	  set early (invariant I4 allows extra bits, never a missing one).  A
 *	  crash leaves entries whose fold never committed: false candidates
 *	  again, until the next merge turns them into extra bits.
 *
 *	  Filter table counts: a key written here counts a set bit in each
 *	  slice of its filter (ScbfKeyBits), an upper bound, as the bit may be
 *	  set already; the merge counts nothing again.  VACUUM's recount makes
 *	  the counts exact.
 *
 * Portions Copyright (c) 2026, scbf developers
 *
 * IDENTIFICATION
 *	  src/scbfdelta.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/generic_xlog.h"
#include "miscadmin.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "scbf.h"
#include "scbf_page.h"

StaticAssertDecl(INDEX_MAX_KEYS <= (1 << SCBF_DELTA_COL_BITS),
				 "a delta entry's tag has room for every column number");

/* Partitions of the smallest delta */
#define SCBF_DELTA_MIN_PAGES	16

/*
 * The delta has a page per SCBF_DELTA_BAND_RATIO band pages: a merge
 * writes the whole band for the keys the delta took, so the larger the
 * delta the fewer merges per key (a probe reads one page of it whatever
 * its size); a quarter costs the index a quarter of its band in space,
 * and a table that takes random keys merges once per ~1.4M of them at 10M
 * rows (the bench's md5-text column), half as often as with an eighth.
 */
#define SCBF_DELTA_BAND_RATIO	4

/*
 * scbf.delta_band_pages: the band size, in pages, from which folds put
 * new keys in the delta rather than setting their row bits
 */
int			scbf_delta_band_pages = 2048;

/*
 * ScbfDeltaWanted
 *		Whether a fold of nkeys keys into these bands puts them in the
 *		delta: if the bands are large, and the delta takes at least two such folds
 *		between merges.  A fold into the delta writes at most its P pages
 *		(a quarter of the band's B) and brings the next merge, a pass over
 *		the band, nkeys / capacity closer: at half the capacity that is
 *		B / 4 + B / 2 pages per fold, against B for setting the bits at
 *		once (which then merges the delta in the same pass).
 */
bool
ScbfDeltaWanted(const ScbfBands *bands, int bits, int nkeys)
{
	uint32		pages = ScbfBandsPages(bands);

	return pages > 0 && pages >= (uint32) scbf_delta_band_pages &&
		(uint64) nkeys * 2 <=
		(uint64) ScbfDeltaPages(bands) * ScbfDeltaPerPage(bits);
}

/*
 * ScbfDeltaPages
 *		The partitions (pages) of a delta for bands.
 */
uint32
ScbfDeltaPages(const ScbfBands *bands)
{
	return Max(SCBF_DELTA_MIN_PAGES,
			   ScbfBandsPages(bands) / SCBF_DELTA_BAND_RATIO);
}

/*
 * ScbfDeltaPartition
 *		The partition of key (col, hash) in a delta of npages pages: its own
 *		mix of the hash, so that keys of one band row do not crowd one
 *		partition.
 */
uint32
ScbfDeltaPartition(ScbfHash hash, int col, uint32 npages)
{
	uint32		x = (uint32) hash ^ ((uint32) col * 0x9E3779B9U);

	x ^= x >> 16;
	x *= 0x7FEB352DU;
	x ^= x >> 15;
	x *= 0x846CA68BU;
	x ^= x >> 16;
	return (uint32) (((uint64) x * npages) >> 32);
}

/*
 * Read partition part of delta, locked in mode; ERRCODE_INDEX_CORRUPTED if
 * the block is not that partition's page (only the fold-lock holder,
 * which calls this, moves the delta).
 */
static Buffer
DeltaReadPage(Relation index, const ScbfDelta *delta, uint32 part,
				   int mode, BlockNumber nblocks)
{
	BlockNumber blkno = delta->start + part;
	Buffer		buf = ScbfReadPage(index, blkno, mode, SCBF_PAGE_DELTA,
									nblocks);
	Page		page = BufferGetPage(buf);

	if (ScbfPageGetOpaque(page)->ident.delta.serial != delta->serial ||
		ScbfPageGetOpaque(page)->ident.delta.partition != part ||
		ScbfPageGetDelta(page)->nentries > ScbfDeltaPerPage(delta->bits))
		ScbfReportCorrupt(index, blkno,
						  "A delta page is not the one the delta has there.");
	return buf;
}

/* What InitDeltaPage needs */
typedef struct ScbfDeltaInit
{
	Relation	index;
	const ScbfDelta *delta;
} ScbfDeltaInit;

/*
 * ScbfExtend callback: partition pageno of a new delta, empty, WAL-logged
 * as a full image.
 */
static void
InitDeltaPage(Buffer buf, uint32 pageno, void *arg)
{
	ScbfDeltaInit *di = (ScbfDeltaInit *) arg;
	GenericXLogState *xlog = GenericXLogStart(di->index);
	Page		page;
	ScbfPageOpaque opaque;

	page = GenericXLogRegisterBuffer(xlog, buf, GENERIC_XLOG_FULL_IMAGE);
	opaque = ScbfInitPage(page, SCBF_PAGE_DELTA,
						  MAXALIGN(sizeof(ScbfDeltaPageData)));
	opaque->ident.delta.serial = di->delta->serial;
	opaque->ident.delta.partition = pageno;
	ScbfPageGetDelta(page)->nentries = 0;
	GenericXLogFinish(xlog);
}

/*
 * ScbfDeltaCreate
 *		A new, empty delta sized for bands, at the end of the relation, with
 *		a serial above old's; WAL-logged as full images.  The fold's
 *		metapage record names it; until then nobody reads it (a crash
 *		leaves its pages to VACUUM's census).
 */
void
ScbfDeltaCreate(Relation index, const ScbfBands *bands,
				 const ScbfDelta *old, ScbfDelta *delta)
{
	ScbfDeltaInit di;

	delta->pages = ScbfDeltaPages(bands);
	delta->serial = old->serial + 1;
	delta->bits = old->bits;
	di.index = index;
	di.delta = delta;
	delta->start = ScbfExtend(index, delta->pages, InitDeltaPage, &di);
}

/*
 * ScbfDeltaFree
 *		Free the pages of a delta the metapage no longer names (one a fold
 *		replaced by a larger one, after merging it); WAL-logged.  A probe
 *		that copied the metapage before the replacement finds another page
 *		and starts over.  Pages that are not that delta's are left alone.
 */
void
ScbfDeltaFree(Relation index, const ScbfDelta *delta, BlockNumber nblocks)
{
	uint32		p;

	for (p = 0; p < delta->pages; p++)
	{
		BlockNumber blkno = delta->start + p;
		Buffer		buf;
		Page		page;

		CHECK_FOR_INTERRUPTS();
		if (blkno == SCBF_METAPAGE_BLKNO || blkno >= nblocks)
			break;
		buf = ReadBuffer(index, blkno);
		LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
		page = BufferGetPage(buf);
		if (ScbfPageHasOpaque(page) &&
			ScbfPageGetOpaque(page)->type == SCBF_PAGE_DELTA &&
			ScbfPageGetOpaque(page)->ident.delta.serial == delta->serial)
			ScbfFreePage(index, buf);
		UnlockReleaseBuffer(buf);
	}
}

/*
 * ScbfDeltaAdd
 *		Put keys[0 .. n) in the delta, WAL-logged, one record per partition
 *		page written.  Reorders keys: first those a full partition had no
 *		room for, whose number it returns (the caller merges the delta and
 *		sets their bits itself), then those it took.  Under the fold lock.
 */
int
ScbfDeltaAdd(Relation index, const ScbfDelta *delta, ScbfRowKey *keys,
			  int n, BlockNumber nblocks)
{
	uint32	   *start = palloc0(sizeof(uint32) * (delta->pages + 1));
	ScbfRowKey *sorted = palloc(sizeof(ScbfRowKey) * Max(n, 1));
	int			nleft = 0;
	int			ntaken = 0;
	int			i;
	uint32		p;

	/*
	 * Order the keys by partition: a counting sort, the partition computed
	 * again in the second pass rather than kept (one scratch array, not
	 * three, for the hundred thousand keys of a large fold).
	 */
	for (i = 0; i < n; i++)
		start[ScbfDeltaPartition(keys[i].hash, keys[i].col,
								  delta->pages) + 1]++;
	for (p = 0; p < delta->pages; p++)
		start[p + 1] += start[p];
	for (i = 0; i < n; i++)
		sorted[start[ScbfDeltaPartition(keys[i].hash, keys[i].col,
										 delta->pages)]++] = keys[i];

	/*
	 * start[p] is now where partition p + 1 begins.  Keys a full page has
	 * no room for go to the front of keys; those it takes are packed at the
	 * front of sorted, behind the read position.
	 */
	i = 0;
	for (p = 0; p < delta->pages; p++)
	{
		int			end = (int) start[p];
		Buffer		buf;
		GenericXLogState *xlog;
		Page		page;
		ScbfDeltaPageData *dp;

		if (i == end)
			continue;
		CHECK_FOR_INTERRUPTS();
		buf = DeltaReadPage(index, delta, p, BUFFER_LOCK_EXCLUSIVE,
								 nblocks);
		xlog = GenericXLogStart(index);
		page = GenericXLogRegisterBuffer(xlog, buf, 0);
		dp = ScbfPageGetDelta(page);
		for (; i < end; i++)
		{
			if (dp->nentries >= ScbfDeltaPerPage(delta->bits))
			{
				keys[nleft++] = sorted[i];
				continue;
			}
			ScbfDeltaEntrySet(page, dp->nentries, delta->bits, sorted[i].hash,
							  ScbfDeltaTag(sorted[i].filterno,
										   sorted[i].col));
			dp->nentries++;
			sorted[ntaken++] = sorted[i];
		}
		((PageHeader) page)->pd_lower = (ScbfDeltaEntries(page) +
										 ScbfDeltaEntrySize(delta->bits) *
										 dp->nentries) - (char *) page;
		GenericXLogFinish(xlog);
		UnlockReleaseBuffer(buf);
	}

	/* the keys the delta took follow those it had no room for */
	memcpy(keys + nleft, sorted, sizeof(ScbfRowKey) * ntaken);
	pfree(sorted);
	pfree(start);
	return nleft;
}

/*
 * ScbfDeltaMerge
 *		Set the row bits of every key in the delta, and of extra[0 ..
 *		nextra) (a fold's keys whose bits go straight to the band), then
 *		empty the delta's pages; WAL-logged.  Returns the entries merged.
 *		Under the fold lock.
 *
 * Works through the partitions in groups whose keys fit in
 * maintenance_work_mem, each group's bits set before any of its pages is
 * emptied, so that no probe finds a key in neither place (see the file
 * header).  The extra keys go with the first group: one pass over the
 * band's pages for both, where a merge and then the fold's own keys would
 * write every band page twice.  Counts no bits in the filter table:
 * ScbfKeyBits counted them when the keys came in (the caller counts the
 * extra keys so too).
 */
int
ScbfDeltaMerge(Relation index, ScbfState *state, const ScbfDelta *delta,
				const ScbfBands *bands, const ScbfRowKey *extra,
				int nextra, BlockNumber nblocks)
{
	Size		maxkeys = Max((Size) maintenance_work_mem * 1024L /
							  sizeof(ScbfRowKey),
							  ScbfDeltaPerPage(delta->bits));
	ScbfRowKey *keys;
	int			merged = 0;
	uint32		first = 0;

	if (delta->pages == 0)
	{
		if (nextra > 0)
			ScbfRowsSet(index, state, bands, extra, nextra, NULL, nblocks);
		return 0;
	}
	maxkeys = Min(maxkeys, MaxAllocSize / sizeof(ScbfRowKey));
	keys = palloc_extended(sizeof(ScbfRowKey) * (maxkeys + nextra),
						   MCXT_ALLOC_HUGE);
	if (nextra > 0)
		memcpy(keys, extra, sizeof(ScbfRowKey) * nextra);
	while (first < delta->pages)
	{
		/* the first group begins with the extra keys */
		Size		nkeys = first == 0 ? nextra : 0;
		uint32		last;
		uint32		p;

		/* a group of partitions: read their keys */
		for (last = first; last < delta->pages; last++)
		{
			Buffer		buf;
			Page		page;
			uint16		nentries;
			uint16		e;

			CHECK_FOR_INTERRUPTS();
			buf = DeltaReadPage(index, delta, last, BUFFER_LOCK_SHARE,
									 nblocks);
			page = BufferGetPage(buf);
			nentries = ScbfPageGetDelta(page)->nentries;
			if (nkeys + nentries > maxkeys + (first == 0 ? nextra : 0))
			{
				UnlockReleaseBuffer(buf);
				break;
			}
			for (e = 0; e < nentries; e++)
			{
				uint32		tag;

				ScbfDeltaEntryGet(page, e, delta->bits, &keys[nkeys].hash, &tag);
				keys[nkeys].filterno = ScbfDeltaTagFilter(tag);
				keys[nkeys].col = ScbfDeltaTagColumn(tag);
				if (keys[nkeys].col >= state->ncols)
					ScbfReportCorrupt(index, delta->start + last,
									  "A delta entry names a column the index does not have.");
				/* a filter of a fold that crashed before widening the bands */
				if (keys[nkeys].filterno >= ScbfBandsEnd(bands))
					continue;
				nkeys++;
			}
			UnlockReleaseBuffer(buf);
		}

		/* their bits, then the pages emptied */
		ScbfRowsSet(index, state, bands, keys, (int) nkeys, NULL, nblocks);
		for (p = first; p < last; p++)
		{
			Buffer		buf;
			GenericXLogState *xlog;
			Page		page;

			CHECK_FOR_INTERRUPTS();
			buf = DeltaReadPage(index, delta, p, BUFFER_LOCK_EXCLUSIVE,
									 nblocks);
			if (ScbfPageGetDelta(BufferGetPage(buf))->nentries == 0)
			{
				UnlockReleaseBuffer(buf);
				continue;
			}
			xlog = GenericXLogStart(index);
			page = GenericXLogRegisterBuffer(xlog, buf, 0);
			ScbfPageGetDelta(page)->nentries = 0;
			((PageHeader) page)->pd_lower = (char *) ScbfDeltaEntries(page) -
				(char *) page;
			GenericXLogFinish(xlog);
			UnlockReleaseBuffer(buf);
		}
		merged += (int) nkeys - (first == 0 ? nextra : 0);
		first = last;
	}
	pfree(keys);
	return merged;
}

/*
 * ScbfDeltaProbe
 *		acc |= the filters the delta names for any of hashes[0 .. nhashes)
 *		in column col, as of metapage copy meta.
 *
 * Called before the band's rows are read (see the file header).  Returns
 * false if a page is not the partition meta says (a later fold replaced
 * the delta and its pages were reused): the caller starts over from a new
 * metapage copy.  Filters past meta's table were made by a fold the copy
 * does not see, and are left out.
 */
bool
ScbfDeltaProbe(Relation index, const ScbfMeta *meta, int col,
				const ScbfHash *hashes, int nhashes, uint8 *acc,
				BlockNumber nblocks)
{
	ScbfDelta	delta;
	uint32		nfilters = meta->nfilters;
	int			h;

	ScbfMetaDelta(meta, &delta);
	if (delta.pages == 0 || ScbfMetaDeltaEmpty(meta))
		return true;
	for (h = 0; h < nhashes; h++)
	{
		uint32		part = ScbfDeltaPartition(hashes[h], col, delta.pages);
		BlockNumber blkno = delta.start + part;
		Buffer		buf;
		Page		page;
		uint16		nentries;
		uint16		e;

		if (blkno == SCBF_METAPAGE_BLKNO || blkno >= nblocks)
			ScbfReportCorrupt(index, blkno, "The delta leaves the index.");
		buf = ScbfReadBuffer(index, blkno);
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		if (!ScbfPageHasOpaque(page) ||
			ScbfPageGetOpaque(page)->type != SCBF_PAGE_DELTA ||
			ScbfPageGetOpaque(page)->ident.delta.serial != delta.serial ||
			ScbfPageGetOpaque(page)->ident.delta.partition != part)
		{
			UnlockReleaseBuffer(buf);
			return false;
		}
		nentries = ScbfPageGetDelta(page)->nentries;
		if (nentries > ScbfDeltaPerPage(delta.bits))
			ScbfReportCorrupt(index, blkno,
							  "A delta page has more entries than fit.");
		for (e = 0; e < nentries; e++)
		{
			ScbfHash	hash;
			uint32		tag;
			uint32		filterno;

			ScbfDeltaEntryGet(page, e, delta.bits, &hash, &tag);
			filterno = ScbfDeltaTagFilter(tag);
			if (hash != hashes[h] ||
				ScbfDeltaTagColumn(tag) != col ||
				filterno >= nfilters)
				continue;
			acc[filterno / 8] |= (uint8) (1 << (filterno % 8));
		}
		UnlockReleaseBuffer(buf);
	}
	return true;
}

/*
 * ScbfReadDeltaPage
 *		The keys on partition part of delta, into *keys (palloc'd); -1 if
 *		the block is outside the index or is not that partition's page
 *		(type, serial, partition), or says it holds more than fits: the
 *		verifier and the diagnostics say why.
 */
int
ScbfReadDeltaPage(Relation index, const ScbfDelta *delta, uint32 part,
				   ScbfRowKey **keys, BlockNumber nblocks)
{
	BlockNumber blkno = delta->start + part;
	Buffer		buf;
	Page		page;
	int			n = -1;

	*keys = NULL;
	if (part >= delta->pages || blkno == SCBF_METAPAGE_BLKNO ||
		blkno >= nblocks)
		return -1;
	buf = ScbfReadBuffer(index, blkno);
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buf);
	if (ScbfPageHasOpaque(page) &&
		ScbfPageGetOpaque(page)->type == SCBF_PAGE_DELTA &&
		ScbfPageGetOpaque(page)->ident.delta.serial == delta->serial &&
		ScbfPageGetOpaque(page)->ident.delta.partition == part &&
		ScbfPageGetDelta(page)->nentries <= ScbfDeltaPerPage(delta->bits))
	{
		int			e;

		n = ScbfPageGetDelta(page)->nentries;
		*keys = palloc(sizeof(ScbfRowKey) * Max(n, 1));
		for (e = 0; e < n; e++)
		{
			uint32		tag;

			ScbfDeltaEntryGet(page, e, delta->bits, &(*keys)[e].hash, &tag);
			(*keys)[e].filterno = ScbfDeltaTagFilter(tag);
			(*keys)[e].col = ScbfDeltaTagColumn(tag);
		}
	}
	UnlockReleaseBuffer(buf);
	return n;
}
