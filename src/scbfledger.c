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

#include "access/generic_xlog.h"
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

/* A run encoded into leaf images, before it has blocks (Scbf2Run) */
struct Scbf2EncodedRun
{
	uint64		serial;			/* the fold serial that writes it */
	int			nentries;
	int			nleaves;
	int			maxleaves;
	Page	   *images;
	Scbf2Fence *fences;			/* hashes set, blocks once written */
};

/*
 * Start a new leaf image of the run.
 */
static Page
Scbf2NewLeafImage(Scbf2Run *er, uint32 segno, int col, uint64 serial,
				  uint32 fence, scbf_pl_writer *w)
{
	Page		page = palloc0(BLCKSZ);
	Scbf2PageOpaque opaque;

	if (er->nleaves == er->maxleaves)
	{
		er->maxleaves *= 2;
		er->images = repalloc(er->images, sizeof(Page) * er->maxleaves);
		er->fences = repalloc(er->fences, sizeof(Scbf2Fence) * er->maxleaves);
	}
	PageInit(page, BLCKSZ, sizeof(Scbf2PageOpaqueData));
	opaque = Scbf2PageGetOpaque(page);
	opaque->owner = segno;
	opaque->index = (uint32) serial;
	opaque->column = (uint16) col;
	opaque->type = SCBF_PAGE_LEAF;
	opaque->page_id = SCBF_PAGE_ID;
	Scbf2PageGetLeaf(page)->fence = fence;
	er->images[er->nleaves] = page;
	er->fences[er->nleaves].hash = fence;
	er->fences[er->nleaves].blkno = InvalidBlockNumber;
	er->nleaves++;
	scbf_pl_writer_init(w, Scbf2LeafBytes(page), SCBF2_LEAF_BYTES, fence);
	return page;
}

/*
 * Close the leaf image being written: its counts and pd_lower.
 */
static void
Scbf2CloseLeafImage(Page page, scbf_pl_writer *w)
{
	Scbf2PageGetLeaf(page)->nbytes = (uint16) w->len;
	Scbf2PageGetLeaf(page)->nlists = (uint16) w->nlists;
	((PageHeader) page)->pd_lower =
		(Scbf2LeafBytes(page) + w->len) - (uint8 *) page;
}

/*
 * Encode hashes[i] / items[i], i < n, sorted by (hash, item), items
 * distinct within a hash, as the leaf images of one run.
 */
static void
Scbf2EncodeRun(Relation index, uint32 segno, int col, uint64 serial,
			   const uint32 *hashes, const uint16 *items, int n,
			   Scbf2Run *er)
{
	scbf_pl_writer w;
	Page		leaf = NULL;
	bool		full = false;
	int			i = 0;

	er->nleaves = 0;
	er->maxleaves = 8;
	er->images = palloc(sizeof(Page) * er->maxleaves);
	er->fences = palloc(sizeof(Scbf2Fence) * er->maxleaves);
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

			if (leaf != NULL && !full)
				wrote = scbf_pl_append(&w, hashes[i], items + i + off,
									   j - i - off);
			if (wrote < 0)
				elog(ERROR, "ledger entries of index \"%s\" are out of order",
					 RelationGetRelationName(index));
			if (wrote == 0)
			{
				if (leaf != NULL)
					Scbf2CloseLeafImage(leaf, &w);
				leaf = Scbf2NewLeafImage(er, segno, col, serial, hashes[i], &w);
				full = false;
				continue;
			}
			off += wrote;
			/* the list goes on: this leaf is full */
			full = off < j - i;
		}
		i = j;
	}
	if (leaf != NULL)
		Scbf2CloseLeafImage(leaf, &w);
}

/*
 * Write a page image into a new buffer: WAL-logged as a full image, or,
 * for ambuild, unlogged (the build logs the whole index at its end).
 * Returns the block.
 */
static BlockNumber
Scbf2WriteImage(Relation index, Page image, bool wal)
{
	Buffer		buf = ScbfNewBuffer(index);
	BlockNumber blkno = BufferGetBlockNumber(buf);

	if (wal)
	{
		GenericXLogState *xlog = GenericXLogStart(index);
		Page		page = GenericXLogRegisterBuffer(xlog, buf,
													 GENERIC_XLOG_FULL_IMAGE);

		memcpy(page, image, BLCKSZ);
		GenericXLogFinish(xlog);
	}
	else
	{
		memcpy(BufferGetPage(buf), image, BLCKSZ);
		MarkBufferDirty(buf);
	}
	UnlockReleaseBuffer(buf);
	return blkno;
}

/*
 * Write the leaves of an encoded run; their blocks go into its fences.
 */
static void
Scbf2WriteLeaves(Relation index, Scbf2Run *er, bool wal)
{
	int			i;

	for (i = 0; i < er->nleaves; i++)
	{
		er->fences[i].blkno = Scbf2WriteImage(index, er->images[i], wal);
		pfree(er->images[i]);
	}
}

/*
 * Put run (made = serial, fences of er) at the end of the runs of a root
 * page image; false if it does not fit.
 */
static bool
Scbf2RootAddRun(Page page, uint64 serial, int n, Scbf2Run *er)
{
	Scbf2RootPageData *rd = Scbf2PageGetRoot(page);
	Scbf2RunData *run;
	Size		size = MAXALIGN(Scbf2RunSize(er->nleaves));

	if (rd->nbytes + size > SCBF2_ROOT_BYTES)
		return false;
	run = (Scbf2RunData *) (Scbf2RootRuns(page) + rd->nbytes);
	run->made = serial;
	run->gone = PG_UINT64_MAX;
	run->nentries = (uint32) n;
	run->nleaves = (uint16) er->nleaves;
	memcpy(run->fences, er->fences, sizeof(Scbf2Fence) * er->nleaves);
	rd->nruns++;
	rd->nbytes += size;
	((PageHeader) page)->pd_lower =
		(Scbf2RootRuns(page) + rd->nbytes) - (char *) page;
	return true;
}

/*
 * Initialize an empty root page image of filter filterno, column col.
 */
static void
Scbf2InitRoot(Page page, uint32 filterno, int col)
{
	PageInit(page, BLCKSZ, sizeof(Scbf2PageOpaqueData));
	Scbf2PageGetOpaque(page)->owner = filterno;
	Scbf2PageGetOpaque(page)->column = (uint16) col;
	Scbf2PageGetOpaque(page)->type = SCBF_PAGE_ROOT;
	Scbf2PageGetOpaque(page)->page_id = SCBF_PAGE_ID;
	((PageHeader) page)->pd_lower = Scbf2RootRuns(page) - (char *) page;
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
	Scbf2Run	er;
	Page		root = palloc(BLCKSZ);
	BlockNumber rootblk;

	Scbf2EncodeRun(index, segno, col, serial, hashes, items, n, &er);
	Scbf2WriteLeaves(index, &er, false);
	Scbf2InitRoot(root, filterno, col);
	if (!Scbf2RootAddRun(root, serial, n, &er))
		elog(ERROR, "a ledger run of index \"%s\" has too many leaves (%d)",
			 RelationGetRelationName(index), er.nleaves);
	rootblk = Scbf2WriteImage(index, root, false);
	*npages = er.nleaves + 1;
	pfree(root);
	return rootblk;
}

/*
 * Scbf2LedgerEncode
 *		Encode a run of fold serial `serial` of segment segno's column col:
 *		hashes[i] / items[i], i < n, sorted by (hash, item), items distinct
 *		within a hash.  The run has no blocks until Scbf2LedgerAppend.
 */
Scbf2Run *
Scbf2LedgerEncode(Relation index, uint32 segno, int col, uint64 serial,
				  const uint32 *hashes, const uint16 *items, int n)
{
	Scbf2Run   *run = palloc(sizeof(Scbf2Run));

	Scbf2EncodeRun(index, segno, col, serial, hashes, items, n, run);
	run->serial = serial;
	run->nentries = n;
	return run;
}

/*
 * The bytes and runs of a root page image that stay when runs of fold
 * serial `serial` or newer are left out: those a fold wrote before it
 * crashed, invisible forever, which the next fold with that serial
 * replaces.  Runs are appended in serial order, so they are the last ones.
 */
static void
Scbf2RootKept(Relation index, BlockNumber root, Page page, uint64 serial,
			  uint32 *nbytes, uint16 *nruns)
{
	Scbf2RootPageData *rd = Scbf2PageGetRoot(page);
	uint32		off = 0;
	uint16		i;

	for (i = 0; i < rd->nruns; i++)
	{
		Scbf2RunData *run = (Scbf2RunData *) (Scbf2RootRuns(page) + off);

		if (off + offsetof(Scbf2RunData, fences) > rd->nbytes ||
			off + Scbf2RunSize(run->nleaves) > rd->nbytes ||
			rd->nbytes > SCBF2_ROOT_BYTES)
			ScbfReportCorrupt(index, root,
							  "A ledger root lists runs that overflow its page.");
		if (run->made >= serial)
			break;
		off += MAXALIGN(Scbf2RunSize(run->nleaves));
	}
	*nbytes = off;
	*nruns = i;
}

/*
 * Scbf2LedgerHasRoom
 *		True if the root of a filter's column can take one more run: it has
 *		fewer than SCBF2_MAX_RUNS committed runs and room for the fences.
 *		An InvalidBlockNumber root (a new filter) always can.
 */
bool
Scbf2LedgerHasRoom(Relation index, BlockNumber root, const Scbf2Run *run,
				   BlockNumber nblocks)
{
	Buffer		buf;
	uint32		nbytes;
	uint16		nruns;

	if (root == InvalidBlockNumber)
		return true;
	buf = Scbf2ReadPage(index, root, BUFFER_LOCK_SHARE, SCBF_PAGE_ROOT,
						nblocks);
	Scbf2RootKept(index, root, BufferGetPage(buf), run->serial, &nbytes,
				  &nruns);
	UnlockReleaseBuffer(buf);
	return nruns < SCBF2_MAX_RUNS &&
		nbytes + MAXALIGN(Scbf2RunSize(run->nleaves)) <= SCBF2_ROOT_BYTES;
}

/*
 * Scbf2LedgerAppend
 *		Write an encoded run to the ledger of filter filterno's column col,
 *		WAL-logged: its leaves as full images, then the run at the end of
 *		the root (a new root if root is InvalidBlockNumber).  Returns the
 *		root's block; *npages counts the pages written.  The caller checked
 *		Scbf2LedgerHasRoom under the fold lock; the run is freed.
 *
 * The run is invisible until the fold commits its serial.  Runs a crashed
 * fold left with this serial or a newer one are dropped from the root
 * first (their leaves leak until VACUUM's page census).
 */
BlockNumber
Scbf2LedgerAppend(Relation index, BlockNumber root, uint32 filterno, int col,
				  Scbf2Run *run, BlockNumber nblocks, uint32 *npages)
{
	Buffer		buf;
	GenericXLogState *xlog;
	Page		page;
	Scbf2RootPageData *rd;
	uint32		nbytes;
	uint16		nruns;

	Scbf2WriteLeaves(index, run, true);
	*npages = run->nleaves;
	if (root == InvalidBlockNumber)
	{
		Page		image = palloc(BLCKSZ);

		Scbf2InitRoot(image, filterno, col);
		if (!Scbf2RootAddRun(image, run->serial, run->nentries, run))
			elog(ERROR, "a ledger run of index \"%s\" has too many leaves (%d)",
				 RelationGetRelationName(index), run->nleaves);
		(*npages)++;
		root = Scbf2WriteImage(index, image, true);
		pfree(image);
	}
	else
	{
		buf = Scbf2ReadPage(index, root, BUFFER_LOCK_EXCLUSIVE, SCBF_PAGE_ROOT,
							nblocks);
		xlog = GenericXLogStart(index);
		page = GenericXLogRegisterBuffer(xlog, buf, 0);
		rd = Scbf2PageGetRoot(page);
		Scbf2RootKept(index, root, page, run->serial, &nbytes, &nruns);
		rd->nbytes = nbytes;
		rd->nruns = nruns;
		if (!Scbf2RootAddRun(page, run->serial, run->nentries, run))
		{
			GenericXLogAbort(xlog);
			UnlockReleaseBuffer(buf);
			elog(ERROR, "the ledger root at block %u of index \"%s\" has no room for a run",
				 root, RelationGetRelationName(index));
		}
		GenericXLogFinish(xlog);
		UnlockReleaseBuffer(buf);
	}
	pfree(run->images);
	pfree(run->fences);
	pfree(run);
	return root;
}
