/*-------------------------------------------------------------------------
 *
 * scbfledger.c
 *	  Storage format 2: the ledger of a filter and index column, as runs of
 *	  posting lists in hash order.
 *
 * NOTES
 *	  A root page lists the runs (the fold serial that made each one, the
 *	  one that superseded it, its leaf fences); leaves hold posting lists
 *	  (scbfpostinglist.c).  A lookup reads the root and, per run, the one
 *	  or two leaves whose fences bracket the hash: its page count does not
 *	  depend on the size of the filter.  Readers copy a page and let go of
 *	  its lock before decoding it, so no lock is held across a callback.
 *
 *	  A run is visible to a reader whose metapage says fold_serial f when
 *	  made <= f < gone (src/README, D5).
 *
 * Portions Copyright (c) 2026, scbf developers
 *
 * IDENTIFICATION
 *	  src/scbfledger.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/rel.h"

#include "scbf2.h"
#include "scbf_page.h"
#include "scbfpostinglist.h"

/* A root's runs, copied out of the page and checked */
typedef struct Scbf2RootCopy
{
	int			nruns;
	Scbf2RunData *runs[SCBF2_ROOT_BYTES / sizeof(Scbf2RunData) + 1];
	char		bytes[SCBF2_ROOT_BYTES];
} Scbf2RootCopy;

/* A leaf's posting lists, copied out of the page */
typedef struct Scbf2LeafCopy
{
	BlockNumber blkno;			/* InvalidBlockNumber: nothing copied yet */
	uint32		fence;
	uint16		nbytes;
	uint8		bytes[SCBF2_LEAF_BYTES];
} Scbf2LeafCopy;

/*
 * Copy the runs of a root page and check that they fit where they are.
 */
static void
Scbf2ReadRoot(Relation index, BlockNumber root, int col, BlockNumber nblocks,
			  Scbf2RootCopy *rc)
{
	Buffer		buf;
	Page		page;
	Scbf2RootPageData *rd;
	uint32		off = 0;
	int			i;

	buf = Scbf2ReadPage(index, root, BUFFER_LOCK_SHARE, SCBF_PAGE_ROOT,
						nblocks);
	page = BufferGetPage(buf);
	rd = Scbf2PageGetRoot(page);
	if (Scbf2PageGetOpaque(page)->column != col ||
		rd->nbytes > SCBF2_ROOT_BYTES)
	{
		UnlockReleaseBuffer(buf);
		ScbfReportCorrupt(index, root,
						  "A ledger root is not the one of its column, or overflows its page.");
	}
	rc->nruns = rd->nruns;
	memcpy(rc->bytes, Scbf2RootRuns(page), rd->nbytes);
	UnlockReleaseBuffer(buf);

	for (i = 0; i < rc->nruns; i++)
	{
		Scbf2RunData *run = (Scbf2RunData *) (rc->bytes + off);

		if (i >= lengthof(rc->runs) ||
			off + offsetof(Scbf2RunData, fences) > rd->nbytes ||
			off + Scbf2RunSize(run->nleaves) > rd->nbytes)
			ScbfReportCorrupt(index, root,
							  "A ledger root lists runs that overflow its page.");
		rc->runs[i] = run;
		off += MAXALIGN(Scbf2RunSize(run->nleaves));
	}
}

/*
 * True if a run is visible at fold serial f.
 */
static inline bool
Scbf2RunVisible(const Scbf2RunData *run, uint64 fold_serial)
{
	return run->made <= fold_serial && fold_serial < run->gone;
}

/*
 * Copy leaf i of a run into lc, unless lc already holds it.
 */
static void
Scbf2ReadLeaf(Relation index, const Scbf2RunData *run, int i, int col,
			  BlockNumber nblocks, Scbf2LeafCopy *lc)
{
	BlockNumber blkno = run->fences[i].blkno;
	Buffer		buf;
	Page		page;
	Scbf2LeafPageData *ld;

	if (lc->blkno == blkno)
		return;
	CHECK_FOR_INTERRUPTS();
	buf = Scbf2ReadPage(index, blkno, BUFFER_LOCK_SHARE, SCBF_PAGE_LEAF,
						nblocks);
	page = BufferGetPage(buf);
	ld = Scbf2PageGetLeaf(page);
	if (Scbf2PageGetOpaque(page)->column != col ||
		Scbf2PageGetOpaque(page)->index != (uint32) run->made ||
		ld->fence != run->fences[i].hash || ld->nbytes > SCBF2_LEAF_BYTES)
	{
		UnlockReleaseBuffer(buf);
		ScbfReportCorrupt(index, blkno,
						  "A ledger leaf does not belong to the run that lists it.");
	}
	lc->blkno = blkno;
	lc->fence = ld->fence;
	lc->nbytes = ld->nbytes;
	memcpy(lc->bytes, Scbf2LeafBytes(page), ld->nbytes);
	UnlockReleaseBuffer(buf);
}

/*
 * Decode every posting list of the copied leaf, calling fn for each (or,
 * with fn NULL, for those of hash only, appending their items to
 * *items / *nitems / *maxitems).  Stops after hash when looking one up.
 */
static void
Scbf2DecodeLeaf(Relation index, Scbf2LeafCopy *lc, Scbf2PostingFn fn,
				void *arg, uint32 hash, uint16 **items, int *nitems,
				int *maxitems)
{
	uint16		buf[SCBF2_LEAF_BYTES];
	scbf_pl_reader r;
	uint32		h;
	int			n;
	int			rc;

	scbf_pl_reader_init(&r, lc->bytes, lc->nbytes, lc->fence);
	while ((rc = scbf_pl_next(&r, &h, buf, &n)) == SCBF_PL_OK)
	{
		if (r.nlists == 1 && h != lc->fence)
			break;				/* reported below */
		if (fn)
		{
			fn(h, buf, n, arg);
			continue;
		}
		if (h > hash)
			return;
		if (h < hash)
			continue;
		if (*nitems + n > *maxitems)
		{
			*maxitems = Max(*maxitems * 2, *nitems + n);
			*items = repalloc(*items, sizeof(uint16) * *maxitems);
		}
		memcpy(*items + *nitems, buf, sizeof(uint16) * n);
		*nitems += n;
	}
	if (rc != SCBF_PL_END)
		ScbfReportCorrupt(index, lc->blkno,
						  "A ledger leaf holds bytes that are no posting lists.");
}

/*
 * qsort comparator for 16-bit items.
 */
static int
Scbf2CmpItem(const void *a, const void *b)
{
	return (int) *(const uint16 *) a - (int) *(const uint16 *) b;
}

/*
 * Scbf2LedgerLookup
 *		The items (segment-relative TIDs) whose hash in column col is one of
 *		hashes[0 .. nhashes), sorted, ascending and distinct, from every run
 *		of the ledger at root visible at fold_serial.  Returns their number;
 *		*items is palloc'd.
 *
 * hashes must be sorted ascending.
 */
int
Scbf2LedgerLookup(Relation index, BlockNumber root, int col,
				  uint64 fold_serial, const uint32 *hashes, int nhashes,
				  uint16 **items, BlockNumber nblocks)
{
	Scbf2RootCopy *rc = palloc(sizeof(Scbf2RootCopy));
	Scbf2LeafCopy *lc = palloc(sizeof(Scbf2LeafCopy));
	int			nitems = 0;
	int			maxitems = 64;
	int			r;
	int			i;
	int			n;

	*items = palloc(sizeof(uint16) * maxitems);
	Scbf2ReadRoot(index, root, col, nblocks, rc);
	lc->blkno = InvalidBlockNumber;
	for (r = 0; r < rc->nruns; r++)
	{
		Scbf2RunData *run = rc->runs[r];

		if (!Scbf2RunVisible(run, fold_serial))
			continue;
		for (i = 0; i < nhashes; i++)
		{
			uint32		h = hashes[i];
			int			lo = 0;
			int			hi = run->nleaves;
			int			leaf;

			/* the last leaf whose fence is below h, else the first */
			while (lo < hi)
			{
				int			mid = lo + (hi - lo) / 2;

				if (run->fences[mid].hash < h)
					lo = mid + 1;
				else
					hi = mid;
			}
			for (leaf = Max(lo - 1, 0);
				 leaf < run->nleaves && run->fences[leaf].hash <= h; leaf++)
			{
				Scbf2ReadLeaf(index, run, leaf, col, nblocks, lc);
				Scbf2DecodeLeaf(index, lc, NULL, NULL, h, items, &nitems,
								&maxitems);
			}
		}
	}

	/* sorted and distinct */
	qsort(*items, nitems, sizeof(uint16), Scbf2CmpItem);
	n = 0;
	for (i = 0; i < nitems; i++)
		if (n == 0 || (*items)[i] != (*items)[n - 1])
			(*items)[n++] = (*items)[i];
	pfree(rc);
	pfree(lc);
	return n;
}

/*
 * Scbf2LedgerScan
 *		Call fn for every posting list of every run visible at fold_serial,
 *		in hash order within each run.  A hash whose list goes on to the
 *		next leaf is reported once per leaf.
 */
void
Scbf2LedgerScan(Relation index, BlockNumber root, int col, uint64 fold_serial,
				Scbf2PostingFn fn, void *arg, BlockNumber nblocks)
{
	Scbf2RootCopy *rc = palloc(sizeof(Scbf2RootCopy));
	Scbf2LeafCopy *lc = palloc(sizeof(Scbf2LeafCopy));
	int			r;
	int			leaf;

	Scbf2ReadRoot(index, root, col, nblocks, rc);
	lc->blkno = InvalidBlockNumber;
	for (r = 0; r < rc->nruns; r++)
	{
		Scbf2RunData *run = rc->runs[r];

		if (!Scbf2RunVisible(run, fold_serial))
			continue;
		for (leaf = 0; leaf < run->nleaves; leaf++)
		{
			Scbf2ReadLeaf(index, run, leaf, col, nblocks, lc);
			Scbf2DecodeLeaf(index, lc, fn, arg, 0, NULL, NULL, NULL);
		}
	}
	pfree(rc);
	pfree(lc);
}

/*
 * Finish a leaf being written: its header, pd_lower, dirty, released.
 */
static void
Scbf2FinishLeaf(Buffer buf, uint32 fence, scbf_pl_writer *w)
{
	Page		page = BufferGetPage(buf);
	Scbf2LeafPageData *ld = Scbf2PageGetLeaf(page);

	ld->fence = fence;
	ld->nbytes = (uint16) w->len;
	ld->nlists = (uint16) w->nlists;
	((PageHeader) page)->pd_lower =
		(Scbf2LeafBytes(page) + w->len) - (uint8 *) page;
	MarkBufferDirty(buf);
	UnlockReleaseBuffer(buf);
}

/*
 * Start a new leaf of a run, in a new buffer.
 */
static Buffer
Scbf2StartLeaf(Relation index, uint32 segno, int col, uint64 serial,
			   uint32 fence, scbf_pl_writer *w)
{
	Buffer		buf = ScbfNewBuffer(index);
	Page		page = BufferGetPage(buf);
	Scbf2PageOpaque opaque;

	PageInit(page, BLCKSZ, sizeof(Scbf2PageOpaqueData));
	opaque = Scbf2PageGetOpaque(page);
	opaque->owner = segno;
	opaque->index = (uint32) serial;
	opaque->column = (uint16) col;
	opaque->type = SCBF_PAGE_LEAF;
	opaque->page_id = SCBF_PAGE_ID;
	scbf_pl_writer_init(w, Scbf2LeafBytes(page), SCBF2_LEAF_BYTES, fence);
	return buf;
}

/*
 * Scbf2LedgerWrite
 *		Write the ledger of one filter and column as a root with one run of
 *		fold serial `serial`: hashes[i] / items[i], i < n, sorted by (hash,
 *		item), items distinct within a hash.  Returns the root's block;
 *		*npages is the pages written.
 *
 * For ambuild: the pages go through shared buffers unlogged, and the build
 * WAL-logs the whole index at its end.
 */
BlockNumber
Scbf2LedgerWrite(Relation index, uint32 segno, uint32 filterno, int col,
				 uint64 serial, const uint32 *hashes, const uint16 *items,
				 int n, uint32 *npages)
{
	int			maxfences = n / 64 + 2;
	Scbf2Fence *fences = palloc(sizeof(Scbf2Fence) * maxfences);
	int			nfences = 0;
	scbf_pl_writer w;
	Buffer		leaf = InvalidBuffer;
	Buffer		rootbuf;
	BlockNumber rootblk;
	Page		page;
	Scbf2RootPageData *rd;
	Scbf2RunData *run;
	bool		full = false;
	int			i = 0;

	while (i < n)
	{
		int			j = i;
		int			off = 0;

		/* the posting list of hashes[i]: items[i .. j) */
		while (j < n && hashes[j] == hashes[i])
			j++;
		while (off < j - i)
		{
			int			wrote = 0;

			if (BufferIsValid(leaf) && !full)
				wrote = scbf_pl_append(&w, hashes[i], items + i + off,
									   j - i - off);
			if (wrote < 0)
				elog(ERROR, "ledger entries of index \"%s\" are out of order",
					 RelationGetRelationName(index));
			if (wrote == 0)
			{
				if (BufferIsValid(leaf))
					Scbf2FinishLeaf(leaf, fences[nfences - 1].hash, &w);
				leaf = Scbf2StartLeaf(index, segno, col, serial, hashes[i],
									  &w);
				full = false;
				if (nfences == maxfences)
				{
					maxfences *= 2;
					fences = repalloc(fences, sizeof(Scbf2Fence) * maxfences);
				}
				fences[nfences].hash = hashes[i];
				fences[nfences].blkno = BufferGetBlockNumber(leaf);
				nfences++;
				continue;
			}
			off += wrote;
			/* the list goes on: this leaf is full */
			full = off < j - i;
		}
		i = j;
	}
	if (BufferIsValid(leaf))
		Scbf2FinishLeaf(leaf, fences[nfences - 1].hash, &w);

	if (Scbf2RunSize(nfences) > SCBF2_ROOT_BYTES)
		elog(ERROR, "a ledger run of index \"%s\" has too many leaves (%d)",
			 RelationGetRelationName(index), nfences);
	rootbuf = ScbfNewBuffer(index);
	page = BufferGetPage(rootbuf);
	PageInit(page, BLCKSZ, sizeof(Scbf2PageOpaqueData));
	Scbf2PageGetOpaque(page)->owner = filterno;
	Scbf2PageGetOpaque(page)->column = (uint16) col;
	Scbf2PageGetOpaque(page)->type = SCBF_PAGE_ROOT;
	Scbf2PageGetOpaque(page)->page_id = SCBF_PAGE_ID;
	rd = Scbf2PageGetRoot(page);
	run = (Scbf2RunData *) Scbf2RootRuns(page);
	run->made = serial;
	run->gone = PG_UINT64_MAX;
	run->nentries = (uint32) n;
	run->nleaves = (uint16) nfences;
	memcpy(run->fences, fences, sizeof(Scbf2Fence) * nfences);
	rd->nruns = 1;
	rd->nbytes = MAXALIGN(Scbf2RunSize(nfences));
	((PageHeader) page)->pd_lower =
		(Scbf2RootRuns(page) + rd->nbytes) - (char *) page;
	MarkBufferDirty(rootbuf);
	rootblk = BufferGetBlockNumber(rootbuf);
	UnlockReleaseBuffer(rootbuf);
	*npages = nfences + 1;
	pfree(fences);
	return rootblk;
}
