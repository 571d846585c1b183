/*-------------------------------------------------------------------------
 *
 * scbfledger.c
 *	  Storage format 2: the ledger of a filter and index column, as runs of
 *	  posting lists in hash order.
 *
 * NOTES
 *	  A root page lists the runs (the fold serial that made each one, the
 *	  one that superseded it, its leaf fences); leaves hold posting lists
 *	  (scbfpostinglist.c).  A run's last leaf may be inline, held in the
 *	  root after the run's fences, when the root has room to spare
 *	  (Scbf2RunMayInline).  A lookup reads the root and, per run, the one
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
#include "access/xlog.h"
#include "miscadmin.h"
#include "utils/rel.h"

#include "scbf2.h"
#include "scbf_page.h"
#include "scbfpostinglist.h"

/* A root's runs, copied out of the page and checked */
typedef struct Scbf2RootCopy
{
	BlockNumber root;
	int			nruns;
	Scbf2RunData *runs[SCBF2_ROOT_BYTES / sizeof(Scbf2RunData) + 1];
	char		bytes[SCBF2_ROOT_BYTES];
} Scbf2RootCopy;

/* A leaf's posting lists, copied out of its page or its root */
typedef struct Scbf2LeafCopy
{
	const Scbf2RunData *run;	/* leaf `leaf` of this run; NULL: nothing
								 * copied yet */
	int			leaf;
	BlockNumber blkno;			/* its page (the root's, if inline) */
	uint32		fence;
	uint16		nbytes;
	uint8		bytes[SCBF2_LEAF_BYTES];
} Scbf2LeafCopy;

/*
 * True if the run at byte off of a root's nbytes of runs fits in them, and
 * its inline leaf, if any, is its last one, with no block.
 */
static bool
Scbf2RunFits(const Scbf2RunData *run, uint32 off, uint32 nbytes)
{
	if (off + offsetof(Scbf2RunData, fences) > nbytes ||
		off + Scbf2RunBytes(run) > nbytes)
		return false;
	if (run->inlined > 0 &&
		(run->nleaves == 0 || run->inlined > SCBF2_LEAF_BYTES ||
		 run->fences[run->nleaves - 1].blkno != InvalidBlockNumber))
		return false;
	return true;
}

/*
 * Share-lock block blkno, a page of the given type of column col's ledger.
 *
 * On a hot standby replay may have freed or reused a page that a probe's
 * copies still name (no snapshot of the standby holds recycling off): there
 * a block that is not such a page gives InvalidBuffer, and the probe starts
 * over.  Elsewhere, and for a block outside the index, Scbf2ReadPage reports
 * it as corruption; the caller checks the column.
 */
static Buffer
Scbf2ReadLedgerPage(Relation index, BlockNumber blkno, uint8 type, int col,
					BlockNumber nblocks)
{
	Buffer		buf;
	Page		page;

	if (!RecoveryInProgress() || blkno == SCBF_METAPAGE_BLKNO ||
		blkno >= nblocks)
		return Scbf2ReadPage(index, blkno, BUFFER_LOCK_SHARE, type, nblocks);
	buf = ReadBuffer(index, blkno);
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buf);
	if (!Scbf2PageHasOpaque(page) ||
		Scbf2PageGetOpaque(page)->type != type ||
		Scbf2PageGetOpaque(page)->column != col)
	{
		UnlockReleaseBuffer(buf);
		return InvalidBuffer;
	}
	return buf;
}

/*
 * Copy the runs of a root page and check that they fit where they are.
 *
 * VACUUM's census frees the roots of released filters; a standby's probe
 * may meet such a root freed or reused (Scbf2ReadLedgerPage): there this
 * returns false, and the probe starts over.  On a primary a block that is
 * not a root of column col is corruption.
 */
static bool
Scbf2ReadRoot(Relation index, BlockNumber root, int col, BlockNumber nblocks,
			  Scbf2RootCopy *rc)
{
	Buffer		buf;
	Page		page;
	Scbf2RootPageData *rd;
	uint32		off = 0;
	int			i;

	buf = Scbf2ReadLedgerPage(index, root, SCBF_PAGE_ROOT, col, nblocks);
	if (!BufferIsValid(buf))
		return false;
	page = BufferGetPage(buf);
	rd = Scbf2PageGetRoot(page);
	if (Scbf2PageGetOpaque(page)->column != col ||
		rd->nbytes > SCBF2_ROOT_BYTES)
	{
		UnlockReleaseBuffer(buf);
		ScbfReportCorrupt(index, root,
						  "A ledger root is not the one of its column, or overflows its page.");
	}
	rc->root = root;
	rc->nruns = rd->nruns;
	memcpy(rc->bytes, Scbf2RootRuns(page), rd->nbytes);
	UnlockReleaseBuffer(buf);

	for (i = 0; i < rc->nruns; i++)
	{
		Scbf2RunData *run = (Scbf2RunData *) (rc->bytes + off);

		if (i >= lengthof(rc->runs) ||
			!Scbf2RunFits(run, off, rd->nbytes))
			ScbfReportCorrupt(index, root,
							  "A ledger root lists runs that overflow its page.");
		rc->runs[i] = run;
		off += MAXALIGN(Scbf2RunBytes(run));
	}
	return true;
}

/*
 * Scbf2ReadRoot for the callers that do not start over: a root that is
 * not one, met on a standby too, is corruption.
 */
static void
Scbf2ReadRootOrFail(Relation index, BlockNumber root, int col,
					BlockNumber nblocks, Scbf2RootCopy *rc)
{
	if (!Scbf2ReadRoot(index, root, col, nblocks, rc))
		ScbfReportCorrupt(index, root,
						  psprintf("Block %u is not the ledger root of column %d that a filter says it is.",
								   root, col + 1));
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
 * Copy leaf i of a run of the root copy rc into lc, unless lc already
 * holds it; an inline leaf comes from rc itself.
 *
 * VACUUM frees the leaves of a superseded run once no snapshot on the
 * primary is older than the supersession (Scbf2MetaGoneReadable); a
 * standby's probe has no such protection and may meet such a leaf freed
 * or reused: there this returns false, and the probe starts over.  On a
 * primary a leaf that is not the run's is corruption.
 */
static bool
Scbf2ReadLeaf(Relation index, const Scbf2RootCopy *rc,
			  const Scbf2RunData *run, int i, int col, BlockNumber nblocks,
			  Scbf2LeafCopy *lc)
{
	BlockNumber blkno = run->fences[i].blkno;
	Buffer		buf;
	Page		page;
	Scbf2LeafPageData *ld;
	bool		belongs;

	if (lc->run == run && lc->leaf == i)
		return true;
	CHECK_FOR_INTERRUPTS();
	if (run->inlined > 0 && i == run->nleaves - 1)
	{
		/* the inline leaf: in the root's copy already */
		lc->run = run;
		lc->leaf = i;
		lc->blkno = rc->root;
		lc->fence = run->fences[i].hash;
		lc->nbytes = run->inlined;
		memcpy(lc->bytes, Scbf2RunInline(run), run->inlined);
		return true;
	}
	buf = Scbf2ReadLedgerPage(index, blkno, SCBF_PAGE_LEAF, col, nblocks);
	if (!BufferIsValid(buf))
		return false;
	page = BufferGetPage(buf);
	ld = Scbf2PageGetLeaf(page);
	belongs = Scbf2PageGetOpaque(page)->column == col &&
		Scbf2PageGetOpaque(page)->index == (uint32) run->made &&
		ld->fence == run->fences[i].hash;
	if (!belongs && RecoveryInProgress())
	{
		/* another run's leaf now: freed and reused under the probe */
		UnlockReleaseBuffer(buf);
		return false;
	}
	if (!belongs || ld->nbytes > SCBF2_LEAF_BYTES)
	{
		UnlockReleaseBuffer(buf);
		ScbfReportCorrupt(index, blkno,
						  "A ledger leaf does not belong to the run that lists it.");
	}
	lc->run = run;
	lc->leaf = i;
	lc->blkno = blkno;
	lc->fence = ld->fence;
	lc->nbytes = ld->nbytes;
	memcpy(lc->bytes, Scbf2LeafBytes(page), ld->nbytes);
	UnlockReleaseBuffer(buf);
	return true;
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
		{
			/* over the lists below hash, without decoding their items */
			if ((rc = scbf_pl_skip(&r, hash)) != SCBF_PL_OK)
				break;
			continue;
		}
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
 *		*items is palloc'd.  Returns -1 if a standby's probe met a root or
 *		leaf recycled under it (see Scbf2ReadRoot, Scbf2ReadLeaf).
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
	if (!Scbf2ReadRoot(index, root, col, nblocks, rc))
	{
		pfree(rc);
		pfree(lc);
		return -1;
	}
	lc->run = NULL;
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
				if (!Scbf2ReadLeaf(index, rc, run, leaf, col, nblocks, lc))
				{
					pfree(rc);
					pfree(lc);
					return -1;
				}
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
 *		next leaf is reported once per leaf.  Returns false if a standby's
 *		probe met a root or leaf recycled under it (see Scbf2ReadRoot,
 *		Scbf2ReadLeaf): fn may have been called for some lists then.
 */
bool
Scbf2LedgerScan(Relation index, BlockNumber root, int col, uint64 fold_serial,
				Scbf2PostingFn fn, void *arg, BlockNumber nblocks)
{
	Scbf2RootCopy *rc = palloc(sizeof(Scbf2RootCopy));
	Scbf2LeafCopy *lc = palloc(sizeof(Scbf2LeafCopy));
	int			r;
	int			leaf;

	if (!Scbf2ReadRoot(index, root, col, nblocks, rc))
	{
		pfree(rc);
		pfree(lc);
		return false;
	}
	lc->run = NULL;
	for (r = 0; r < rc->nruns; r++)
	{
		Scbf2RunData *run = rc->runs[r];

		if (!Scbf2RunVisible(run, fold_serial))
			continue;
		for (leaf = 0; leaf < run->nleaves; leaf++)
		{
			if (!Scbf2ReadLeaf(index, rc, run, leaf, col, nblocks, lc))
			{
				pfree(rc);
				pfree(lc);
				return false;
			}
			Scbf2DecodeLeaf(index, lc, fn, arg, 0, NULL, NULL, NULL);
		}
	}
	pfree(rc);
	pfree(lc);
	return true;
}

/* The (hash, item) pairs of a ledger, collected by Scbf2LedgerPairs */
typedef struct Scbf2PairCollect
{
	Scbf2Pair  *pairs;
	int			npairs;
	int			maxpairs;
} Scbf2PairCollect;

/*
 * Scbf2LedgerScan callback: keep the pairs of a posting list.
 */
static void
Scbf2CollectPairs(uint32 hash, const uint16 *items, int nitems, void *arg)
{
	Scbf2PairCollect *pc = (Scbf2PairCollect *) arg;
	int			i;

	if (pc->npairs + nitems > pc->maxpairs)
	{
		pc->maxpairs = Max(pc->maxpairs * 2, pc->npairs + nitems);
		pc->pairs = repalloc_huge(pc->pairs, sizeof(Scbf2Pair) * pc->maxpairs);
	}
	for (i = 0; i < nitems; i++)
	{
		pc->pairs[pc->npairs].hash = hash;
		pc->pairs[pc->npairs].item = items[i];
		pc->npairs++;
	}
}

/*
 * The order of pairs: by hash, then item.
 */
static inline int
Scbf2PairCmp(const Scbf2Pair *x, const Scbf2Pair *y)
{
	if (x->hash != y->hash)
		return (x->hash > y->hash) - (x->hash < y->hash);
	return (int) x->item - (int) y->item;
}

/*
 * Scbf2SortPairs
 *		Sort pairs by hash, then item, the comparison inlined
 *		(lib/sort_template.h): a fold sorts every entry it folds.
 */
#define ST_SORT Scbf2SortPairs
#define ST_ELEMENT_TYPE Scbf2Pair
#define ST_COMPARE(a, b) Scbf2PairCmp(a, b)
#define ST_SCOPE
#define ST_DEFINE
#include "lib/sort_template.h"

/*
 * Scbf2SortPairsByItemOrder
 *		Sort pairs that are in item order by hash: a stable radix sort of
 *		the hashes, 11 bits a pass, which keeps equal hashes in item order,
 *		so the result is Scbf2SortPairs' order.  A fold sorts each
 *		segment's entries so, and they come in heap order.
 */
void
Scbf2SortPairsByItemOrder(Scbf2Pair *pairs, size_t n)
{
	Scbf2Pair  *tmp;
	Scbf2Pair  *from = pairs;
	Scbf2Pair  *to;
	size_t		count[1 << 11];
	int			shift;

	if (n < 1024)
	{
		Scbf2SortPairs(pairs, n);
		return;
	}
	tmp = to = palloc(sizeof(Scbf2Pair) * n);
	for (shift = 0; shift < 32; shift += 11)
	{
		Scbf2Pair  *swap;
		size_t		sum = 0;
		size_t		i;

		memset(count, 0, sizeof(count));
		for (i = 0; i < n; i++)
			count[(from[i].hash >> shift) & 0x7FF]++;
		for (i = 0; i < lengthof(count); i++)
		{
			size_t		c = count[i];

			count[i] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			to[count[(from[i].hash >> shift) & 0x7FF]++] = from[i];
		swap = from;
		from = to;
		to = swap;
	}
	/* after three passes the sorted pairs are in tmp */
	memcpy(pairs, from, sizeof(Scbf2Pair) * n);
	pfree(tmp);
}

/*
 * Scbf2LedgerPairs
 *		Every (hash, item) of the runs of a ledger visible at fold_serial,
 *		sorted by hash, then item, and distinct.  Returns their number;
 *		*pairs is palloc'd.  For VACUUM, on a primary under the fold lock.
 */
int
Scbf2LedgerPairs(Relation index, BlockNumber root, int col,
				 uint64 fold_serial, Scbf2Pair **pairs, BlockNumber nblocks)
{
	Scbf2PairCollect pc;
	int			n = 0;
	int			i;

	pc.maxpairs = 256;
	pc.npairs = 0;
	pc.pairs = palloc(sizeof(Scbf2Pair) * pc.maxpairs);
	if (!Scbf2LedgerScan(index, root, col, fold_serial, Scbf2CollectPairs,
						 &pc, nblocks))
		elog(ERROR, "a ledger of index \"%s\" moved under the fold lock",
			 RelationGetRelationName(index));
	Scbf2SortPairs(pc.pairs, pc.npairs);
	for (i = 0; i < pc.npairs; i++)
		if (n == 0 || Scbf2PairCmp(&pc.pairs[i], &pc.pairs[n - 1]) != 0)
			pc.pairs[n++] = pc.pairs[i];
	*pairs = pc.pairs;
	return n;
}

/*
 * Scbf2LedgerBlocks
 *		Call fn for a ledger's root and for every leaf its runs list,
 *		visible or not (the census: what a root lists is not free).
 */
void
Scbf2LedgerBlocks(Relation index, BlockNumber root, int col, Scbf2BlockFn fn,
				  void *arg, BlockNumber nblocks)
{
	Scbf2RootCopy *rc = palloc(sizeof(Scbf2RootCopy));
	int			r;
	int			l;

	Scbf2ReadRootOrFail(index, root, col, nblocks, rc);
	fn(root, arg);
	for (r = 0; r < rc->nruns; r++)
		for (l = 0; l < rc->runs[r]->nleaves; l++)
			if (rc->runs[r]->fences[l].blkno != InvalidBlockNumber)
				fn(rc->runs[r]->fences[l].blkno, arg);
	pfree(rc);
}

/*
 * Scbf2LedgerRuns
 *		The runs of a ledger visible at fold_serial: what a probe reads per
 *		candidate, one leaf or two each.
 */
int
Scbf2LedgerRuns(Relation index, BlockNumber root, int col, uint64 fold_serial,
				BlockNumber nblocks)
{
	Scbf2RootCopy *rc = palloc(sizeof(Scbf2RootCopy));
	int			n = 0;
	int			r;

	Scbf2ReadRootOrFail(index, root, col, nblocks, rc);
	for (r = 0; r < rc->nruns; r++)
		if (Scbf2RunVisible(rc->runs[r], fold_serial))
			n++;
	pfree(rc);
	return n;
}

/* A run encoded into leaf images, before it has blocks (Scbf2Run) */
struct Scbf2EncodedRun
{
	uint64		serial;			/* the fold serial that writes it */
	int			nentries;
	int			nleaves;
	int			maxleaves;
	bool		inline_last;	/* its last leaf goes into the root */
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
	er->inline_last = false;
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
 * Decide whether the last leaf of an encoded run goes into its root, whose
 * runs take rootbytes once tidied: if the root keeps SCBF2_ROOT_RESERVE
 * bytes free after it.
 */
static void
Scbf2RunMayInline(Scbf2Run *er, uint32 rootbytes)
{
	Size		size;

	er->inline_last = false;
	if (er->nleaves == 0)
		return;
	size = MAXALIGN(Scbf2RunSize(er->nleaves) +
					Scbf2PageGetLeaf(er->images[er->nleaves - 1])->nbytes);
	if (rootbytes + size + SCBF2_ROOT_RESERVE <= SCBF2_ROOT_BYTES)
		er->inline_last = true;
}

/*
 * Write the leaves of an encoded run, but an inline one; their blocks go
 * into its fences.  Returns the pages written.
 */
static int
Scbf2WriteLeaves(Relation index, Scbf2Run *er, bool wal)
{
	int			n = er->nleaves - (er->inline_last ? 1 : 0);
	int			i;

	for (i = 0; i < n; i++)
	{
		er->fences[i].blkno = Scbf2WriteImage(index, er->images[i], wal);
		pfree(er->images[i]);
		er->images[i] = NULL;
	}
	return n;
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
	Page		last = NULL;
	uint16		inlined = 0;
	Size		size;

	if (er->inline_last)
	{
		last = er->images[er->nleaves - 1];
		inlined = Scbf2PageGetLeaf(last)->nbytes;
	}
	size = MAXALIGN(Scbf2RunSize(er->nleaves) + inlined);
	if (rd->nbytes + size > SCBF2_ROOT_BYTES)
		return false;
	run = (Scbf2RunData *) (Scbf2RootRuns(page) + rd->nbytes);
	memset(run, 0, size);
	run->made = serial;
	run->gone = PG_UINT64_MAX;
	run->nentries = (uint32) n;
	run->nleaves = (uint16) er->nleaves;
	run->inlined = inlined;
	memcpy(run->fences, er->fences, sizeof(Scbf2Fence) * er->nleaves);
	if (last != NULL)
	{
		run->fences[er->nleaves - 1].blkno = InvalidBlockNumber;
		memcpy(Scbf2RunInline(run), Scbf2LeafBytes(last), inlined);
	}
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
	Scbf2RunMayInline(&er, 0);
	*npages = Scbf2WriteLeaves(index, &er, false) + 1;
	Scbf2InitRoot(root, filterno, col);
	if (!Scbf2RootAddRun(root, serial, n, &er))
		elog(ERROR, "a ledger run of index \"%s\" has too many leaves (%d)",
			 RelationGetRelationName(index), er.nleaves);
	rootblk = Scbf2WriteImage(index, root, false);
	if (er.inline_last)
		pfree(er.images[er.nleaves - 1]);
	pfree(er.images);
	pfree(er.fences);
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

/* Leaves of runs a root dropped, freed once the root's record is written */
typedef struct Scbf2Freed
{
	int			n;
	int			max;
	BlockNumber *blocks;
	uint32	   *made;			/* the low 32 bits of each one's run serial */
} Scbf2Freed;

/*
 * Tidy the runs of a root page (an image, or a page registered for WAL)
 * before a fold or VACUUM of serial `serial` adds one:
 *	- runs a crashed fold or VACUUM wrote with this serial or a newer one
 *	  are dropped: they are invisible until that serial commits, and this
 *	  operation is the one that will commit it;
 *	- a supersession such a crash left (gone >= serial) is undone: the runs
 *	  it marked are current again;
 *	- runs superseded by a committed serial that no probe can still read
 *	  (Scbf2MetaGoneReadable) are dropped.
 * The leaves of dropped runs go to *freed, if not NULL.  Returns the runs
 * left that are current (not superseded).
 */
static int
Scbf2RootTidy(Relation index, BlockNumber root, Page page, uint64 serial,
			  const Scbf2Meta *meta, Scbf2Freed *freed)
{
	Scbf2RootPageData *rd = Scbf2PageGetRoot(page);
	char	   *runs = Scbf2RootRuns(page);
	char	   *kept = palloc(SCBF2_ROOT_BYTES);
	uint32		off = 0;
	uint32		nbytes = 0;
	uint16		nruns = 0;
	int			current = 0;
	uint16		i;

	if (rd->nbytes > SCBF2_ROOT_BYTES)
		ScbfReportCorrupt(index, root,
						  "A ledger root lists runs that overflow its page.");
	for (i = 0; i < rd->nruns; i++)
	{
		Scbf2RunData *run = (Scbf2RunData *) (runs + off);
		Size		size;
		bool		drop;

		if (!Scbf2RunFits(run, off, rd->nbytes))
			ScbfReportCorrupt(index, root,
							  "A ledger root lists runs that overflow its page.");
		size = MAXALIGN(Scbf2RunBytes(run));
		off += size;
		if (run->gone >= serial && run->gone != PG_UINT64_MAX &&
			run->made < serial)
			run->gone = PG_UINT64_MAX;
		drop = run->made >= serial ||
			(run->gone != PG_UINT64_MAX &&
			 !Scbf2MetaGoneReadable(meta, run->gone));
		if (drop)
		{
			int			l;

			if (freed == NULL)
				continue;
			if (freed->n + run->nleaves > freed->max)
			{
				freed->max = Max(freed->max * 2, freed->n + run->nleaves);
				freed->blocks = repalloc(freed->blocks,
										 sizeof(BlockNumber) * freed->max);
				freed->made = repalloc(freed->made, sizeof(uint32) * freed->max);
			}
			for (l = 0; l < run->nleaves; l++)
			{
				if (run->fences[l].blkno == InvalidBlockNumber)
					continue;	/* the inline leaf */
				freed->blocks[freed->n] = run->fences[l].blkno;
				freed->made[freed->n] = (uint32) run->made;
				freed->n++;
			}
			continue;
		}
		if (run->gone == PG_UINT64_MAX)
			current++;
		memcpy(kept + nbytes, run, size);
		nbytes += size;
		nruns++;
	}
	memcpy(runs, kept, nbytes);
	rd->nbytes = nbytes;
	rd->nruns = nruns;
	((PageHeader) page)->pd_lower = (runs + nbytes) - (char *) page;
	pfree(kept);
	return current;
}

/*
 * An empty list of freed leaves.
 */
static void
Scbf2FreedInit(Scbf2Freed *freed)
{
	freed->n = 0;
	freed->max = 16;
	freed->blocks = palloc(sizeof(BlockNumber) * freed->max);
	freed->made = palloc(sizeof(uint32) * freed->max);
}

/*
 * Free the leaves a root dropped, now that its record is written; a block
 * that is no longer that run's leaf column col (a crash between a free and
 * the root's record, replayed) is left alone.  Returns the pages freed.
 */
static int
Scbf2FreeLeaves(Relation index, int col, Scbf2Freed *freed)
{
	BlockNumber nblocks = RelationGetNumberOfBlocks(index);
	int			nfree = 0;
	int			i;

	for (i = 0; i < freed->n; i++)
	{
		BlockNumber blkno = freed->blocks[i];
		Buffer		buf;
		Page		page;

		CHECK_FOR_INTERRUPTS();
		if (blkno == SCBF_METAPAGE_BLKNO || blkno >= nblocks)
			continue;
		buf = ReadBuffer(index, blkno);
		LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
		page = BufferGetPage(buf);
		if (Scbf2PageHasOpaque(page) &&
			Scbf2PageGetOpaque(page)->type == SCBF_PAGE_LEAF &&
			Scbf2PageGetOpaque(page)->column == col &&
			Scbf2PageGetOpaque(page)->index == freed->made[i])
		{
			Scbf2FreePage(index, buf);
			nfree++;
		}
		UnlockReleaseBuffer(buf);
	}
	pfree(freed->blocks);
	pfree(freed->made);
	return nfree;
}

/*
 * A palloc'd copy of the root page of column col, checked to be one.
 */
static Page
Scbf2CopyRoot(Relation index, BlockNumber root, int col, BlockNumber nblocks)
{
	Page		copy = palloc(BLCKSZ);
	Buffer		buf;

	buf = Scbf2ReadPage(index, root, BUFFER_LOCK_SHARE, SCBF_PAGE_ROOT,
						nblocks);
	memcpy(copy, BufferGetPage(buf), BLCKSZ);
	UnlockReleaseBuffer(buf);
	if (Scbf2PageGetOpaque(copy)->column != col)
		ScbfReportCorrupt(index, root,
						  "A ledger root is not the one of its column.");
	return copy;
}

/*
 * Scbf2LedgerHasRoom
 *		True if the root of a filter's column can take run, once tidied
 *		(Scbf2RootTidy) for its serial.  A fold appends a run (replace
 *		false): the root must have fewer than SCBF2_MAX_RUNS current runs.
 *		VACUUM replaces the current runs by one (replace true): only the
 *		fences must fit.  An InvalidBlockNumber root (a new filter) always
 *		can take a run.
 */
bool
Scbf2LedgerHasRoom(Relation index, BlockNumber root, int col,
				   const Scbf2Run *run, const Scbf2Meta *meta, bool replace,
				   BlockNumber nblocks)
{
	Page		copy;
	int			current;
	bool		room;

	if (root == InvalidBlockNumber)
		return true;
	copy = Scbf2CopyRoot(index, root, col, nblocks);
	current = Scbf2RootTidy(index, root, copy, run->serial, meta, NULL);
	room = (replace || current < SCBF2_MAX_RUNS) &&
		Scbf2PageGetRoot(copy)->nbytes + MAXALIGN(Scbf2RunSize(run->nleaves)) <=
		SCBF2_ROOT_BYTES;
	pfree(copy);
	return room;
}

/*
 * Free an encoded run that was written or given up.
 */
static void
Scbf2RunFree(Scbf2Run *run)
{
	int			i;

	for (i = 0; i < run->nleaves; i++)
		if (run->images[i] != NULL)
			pfree(run->images[i]);
	pfree(run->images);
	pfree(run->fences);
	pfree(run);
}

/*
 * Write an encoded run into the ledger root of filter filterno's column
 * col, WAL-logged: its leaves as full images, then one record on the root
 * that tidies it (Scbf2RootTidy), marks the runs visible at the committed
 * serial gone at the run's serial if replace, and appends the run.  A new
 * root if root is InvalidBlockNumber.  Frees the leaves the root dropped.
 * Returns the root's block; *npages receives the pages written less the
 * pages freed.  The caller checked Scbf2LedgerHasRoom under the fold lock.
 */
static BlockNumber
Scbf2RootWrite(Relation index, BlockNumber root, uint32 filterno, int col,
			   Scbf2Run *run, const Scbf2Meta *meta, bool replace,
			   BlockNumber nblocks, int64 *npages)
{
	Buffer		buf;
	GenericXLogState *xlog;
	Page		page;
	Scbf2Freed	freed;

	if (root == InvalidBlockNumber)
		Scbf2RunMayInline(run, 0);
	else
	{
		/* the root as the tidy below leaves it: under the fold lock */
		Page		copy = Scbf2CopyRoot(index, root, col, nblocks);

		Scbf2RootTidy(index, root, copy, run->serial, meta, NULL);
		Scbf2RunMayInline(run, Scbf2PageGetRoot(copy)->nbytes);
		pfree(copy);
	}
	*npages = Scbf2WriteLeaves(index, run, true);
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
		Scbf2RunFree(run);
		return root;
	}

	Scbf2FreedInit(&freed);
	buf = Scbf2ReadPage(index, root, BUFFER_LOCK_EXCLUSIVE, SCBF_PAGE_ROOT,
						nblocks);
	xlog = GenericXLogStart(index);
	page = GenericXLogRegisterBuffer(xlog, buf, 0);
	Scbf2RootTidy(index, root, page, run->serial, meta, &freed);
	if (replace)
	{
		Scbf2RootPageData *rd = Scbf2PageGetRoot(page);
		uint32		off = 0;
		uint16		i;

		for (i = 0; i < rd->nruns; i++)
		{
			Scbf2RunData *r = (Scbf2RunData *) (Scbf2RootRuns(page) + off);

			if (Scbf2RunVisible(r, Scbf2MetaFoldSerial(meta)))
				r->gone = run->serial;
			off += MAXALIGN(Scbf2RunBytes(r));
		}
	}
	if (!Scbf2RootAddRun(page, run->serial, run->nentries, run))
	{
		GenericXLogAbort(xlog);
		UnlockReleaseBuffer(buf);
		elog(ERROR, "the ledger root at block %u of index \"%s\" has no room for a run",
			 root, RelationGetRelationName(index));
	}
	GenericXLogFinish(xlog);
	UnlockReleaseBuffer(buf);
	*npages -= Scbf2FreeLeaves(index, col, &freed);
	Scbf2RunFree(run);
	return root;
}

/*
 * Scbf2LedgerAppend
 *		A fold's run into the ledger of filter filterno's column col (see
 *		Scbf2RootWrite): invisible until the fold commits its serial.
 *		Returns the root's block; *npages: pages written less freed.
 */
BlockNumber
Scbf2LedgerAppend(Relation index, BlockNumber root, uint32 filterno, int col,
				  Scbf2Run *run, const Scbf2Meta *meta, BlockNumber nblocks,
				  int64 *npages)
{
	return Scbf2RootWrite(index, root, filterno, col, run, meta, false,
						  nblocks, npages);
}

/*
 * Scbf2LedgerReplace
 *		VACUUM's run (the surviving entries of every visible run, merged)
 *		in place of the runs of filter filterno's column col visible at the
 *		committed serial (see Scbf2RootWrite).  Until VACUUM commits the
 *		run's serial probes read the old runs, from then on the new one; the
 *		old ones leave the root once no probe can still read them.  Returns
 *		the pages written less the pages freed.
 */
int64
Scbf2LedgerReplace(Relation index, BlockNumber root, uint32 filterno, int col,
				   Scbf2Run *run, const Scbf2Meta *meta, BlockNumber nblocks)
{
	int64		npages;

	Scbf2RootWrite(index, root, filterno, col, run, meta, true, nblocks,
				   &npages);
	return npages;
}

/*
 * Scbf2LedgerTidy
 *		Tidy a ledger root as a write at the next serial would
 *		(Scbf2RootTidy), if that changes anything: superseded runs no probe
 *		can still read leave it and their leaves are freed, and what a
 *		crashed fold or VACUUM left is undone.  Under the fold lock.
 *		Returns true if the root changed.
 */
bool
Scbf2LedgerTidy(Relation index, BlockNumber root, int col,
				const Scbf2Meta *meta, BlockNumber nblocks)
{
	uint64		serial = Scbf2MetaFoldSerial(meta) + 1;
	Page		copy = Scbf2CopyRoot(index, root, col, nblocks);
	Buffer		buf;
	GenericXLogState *xlog;
	Page		page;
	Scbf2Freed	freed;
	bool		same;

	page = palloc(BLCKSZ);
	memcpy(page, copy, BLCKSZ);
	Scbf2RootTidy(index, root, page, serial, meta, NULL);
	same = memcmp(page, copy, BLCKSZ) == 0;
	pfree(page);
	pfree(copy);
	if (same)
		return false;

	Scbf2FreedInit(&freed);
	buf = Scbf2ReadPage(index, root, BUFFER_LOCK_EXCLUSIVE, SCBF_PAGE_ROOT,
						nblocks);
	xlog = GenericXLogStart(index);
	page = GenericXLogRegisterBuffer(xlog, buf, 0);
	Scbf2RootTidy(index, root, page, serial, meta, &freed);
	GenericXLogFinish(xlog);
	UnlockReleaseBuffer(buf);
	(void) Scbf2FreeLeaves(index, col, &freed);
	return true;
}

/*
 * Scbf2ReadRootInfo
 *		The runs a root page lists, into *ri (palloc'd arrays), for the
 *		diagnostics and the verifier.  ERRCODE_INDEX_CORRUPTED if the block
 *		is no root or its runs overflow the page; the owner, the column and
 *		the runs' fields are the caller's to judge.
 */
void
Scbf2ReadRootInfo(Relation index, BlockNumber root, Scbf2RootInfo *ri,
				  BlockNumber nblocks)
{
	Buffer		buf;
	Page		page;
	Scbf2RootPageData *rd;
	char	   *bytes = palloc(SCBF2_ROOT_BYTES);
	uint32		nbytes;
	uint32		off = 0;
	int			i;

	buf = Scbf2ReadPage(index, root, BUFFER_LOCK_SHARE, SCBF_PAGE_ROOT,
						nblocks);
	page = BufferGetPage(buf);
	rd = Scbf2PageGetRoot(page);
	ri->owner = Scbf2PageGetOpaque(page)->owner;
	ri->column = Scbf2PageGetOpaque(page)->column;
	ri->nruns = rd->nruns;
	nbytes = rd->nbytes;
	if (nbytes <= SCBF2_ROOT_BYTES)
		memcpy(bytes, Scbf2RootRuns(page), nbytes);
	UnlockReleaseBuffer(buf);
	if (nbytes > SCBF2_ROOT_BYTES)
		ScbfReportCorrupt(index, root,
						  psprintf("Ledger root at block %u says it lists %u bytes of runs, more than its page holds.",
								   root, nbytes));

	ri->runs = palloc0(sizeof(Scbf2RunInfo) * Max(ri->nruns, 1));
	for (i = 0; i < ri->nruns; i++)
	{
		Scbf2RunData *run = (Scbf2RunData *) (bytes + off);
		Scbf2RunInfo *r = &ri->runs[i];
		int			l;

		if (!Scbf2RunFits(run, off, nbytes))
			ScbfReportCorrupt(index, root,
							  psprintf("Ledger root at block %u lists %d runs, whose run %d overflows its %u bytes or has an inline leaf that cannot be.",
									   root, ri->nruns, i, nbytes));
		r->made = run->made;
		r->gone = run->gone;
		r->nentries = run->nentries;
		r->nleaves = run->nleaves;
		r->fences = palloc(sizeof(uint32) * Max(run->nleaves, 1));
		r->leaves = palloc(sizeof(BlockNumber) * Max(run->nleaves, 1));
		for (l = 0; l < run->nleaves; l++)
		{
			r->fences[l] = run->fences[l].hash;
			r->leaves[l] = run->fences[l].blkno;
		}
		r->inlined = run->inlined;
		r->inline_bytes = NULL;
		if (run->inlined > 0)
		{
			r->inline_bytes = palloc(run->inlined);
			memcpy(r->inline_bytes, Scbf2RunInline(run), run->inlined);
		}
		off += MAXALIGN(Scbf2RunBytes(run));
	}
	pfree(bytes);
}

/*
 * Scbf2ReadLeafInfo
 *		What a leaf page says, into *li (its posting list bytes palloc'd),
 *		for the diagnostics and the verifier.  ERRCODE_INDEX_CORRUPTED if
 *		the block is no leaf; the rest is the caller's to judge.
 */
void
Scbf2ReadLeafInfo(Relation index, BlockNumber blkno, Scbf2LeafInfo *li,
				  BlockNumber nblocks)
{
	Buffer		buf;
	Page		page;
	Scbf2LeafPageData *ld;

	buf = Scbf2ReadPage(index, blkno, BUFFER_LOCK_SHARE, SCBF_PAGE_LEAF,
						nblocks);
	page = BufferGetPage(buf);
	ld = Scbf2PageGetLeaf(page);
	li->segno = Scbf2PageGetOpaque(page)->owner;
	li->column = Scbf2PageGetOpaque(page)->column;
	li->serial = Scbf2PageGetOpaque(page)->index;
	li->fence = ld->fence;
	li->nlists = ld->nlists;
	li->nbytes = ld->nbytes;
	li->maxbytes = SCBF2_LEAF_BYTES;
	li->bytes = palloc(SCBF2_LEAF_BYTES);
	memcpy(li->bytes, Scbf2LeafBytes(page), Min(li->nbytes, li->maxbytes));
	UnlockReleaseBuffer(buf);
}
