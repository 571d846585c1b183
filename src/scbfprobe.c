/*-------------------------------------------------------------------------
 *
 * scbfprobe.c
 *	  Bitmap scans of an scbf index of storage format 2.
 *
 * NOTES
 *	  scbfscan.c turns the scan keys into conditions (hash sets per
 *	  column) for both formats; this file runs them on format 2:
 *
 *	  1. the metapage: the band, the filter table, the fold serial;
 *	  2. the rows: for each = / = ANY / IS NULL condition, the OR over its
 *		 hashes of the AND of each hash's k rows, and of the filters the
 *		 delta names for the hash (read first, scbfdelta.c); the
 *		 conditions' results are ANDed.  The set bits are the filters that
 *		 may hold a match;
 *	  3. per such filter, its table entry and, per condition, a lookup in
 *		 the ledger of the condition's column (root, then the leaf or two
 *		 whose fences bracket each hash); the items that satisfy every
 *		 condition go into the bitmap, with recheck.  A condition of a few
 *		 hashes (an IN list) keeps each hash's filters apart in step 2, so
 *		 that a filter looks up only the hashes whose rows name it: one
 *		 leaf per hash and candidate, not one per hash of the list.
 *
 *	  IS NOT NULL and keys the filters cannot test (SCBF_COND_ANY) select
 *	  no rows by themselves: they read whole ledgers of the filters the
 *	  other conditions leave, or of all filters when there are none.
 *
 * Portions Copyright (c) 2026, scbf developers
 *
 * IDENTIFICATION
 *	  src/scbfprobe.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xlog.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "nodes/tidbitmap.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "scbf.h"

/*
 * How often a probe starts over when folds keep recycling pages before it
 * takes the fold lock (primary) or gives up (standby)
 */
#define SCBF_SCAN_RETRIES		3
#define SCBF_STANDBY_RETRIES	20

/*
 * Conditions of at most this many hashes keep each hash's candidate
 * filters (a bit per filter each), to look up only those hashes per filter
 */
#define SCBF_SCAN_MASKED_HASHES	64

/* Per condition, the candidate filters of each of its hashes */
typedef struct ScbfHashMasks
{
	uint8	  **masks;			/* per condition: NULL, or one mask per hash */
	uint32	   *subset;			/* scratch: the hashes of one filter */
	ScbfCond   *conds;			/* scratch: the conditions for one filter
								 * (the probe's own if no hash has a mask) */
} ScbfHashMasks;

/* Items of a whole ledger, collected by CollectAll */
typedef struct ScbfCollect
{
	bool		notnull;		/* leave out the NULL hash */
	uint16	   *items;
	int			nitems;
	int			maxitems;
} ScbfCollect;

/*
 * ScbfLedgerScan callback: collect the items of a posting list.
 */
static void
CollectPosting(uint32 hash, const uint16 *items, int nitems, void *arg)
{
	ScbfCollect *c = (ScbfCollect *) arg;

	if (c->notnull && hash == SCBF_NULL_HASH)
		return;
	if (c->nitems + nitems > c->maxitems)
	{
		c->maxitems = Max(c->maxitems * 2, c->nitems + nitems);
		c->items = repalloc(c->items, sizeof(uint16) * c->maxitems);
	}
	memcpy(c->items + c->nitems, items, sizeof(uint16) * nitems);
	c->nitems += nitems;
}

/*
 * The items of column col's whole ledger (without NULLs if notnull),
 * sorted and distinct; -1 if a standby's probe met a recycled leaf.
 */
static int
CollectAll(Relation index, BlockNumber root, int col, uint64 fold_serial,
				bool notnull, uint16 **items, BlockNumber nblocks)
{
	ScbfCollect c;
	int			n = 0;
	int			i;

	c.notnull = notnull;
	c.maxitems = 256;
	c.nitems = 0;
	c.items = palloc(sizeof(uint16) * c.maxitems);
	if (!ScbfLedgerScan(index, root, col, fold_serial, CollectPosting,
						 &c, nblocks))
		return -1;
	qsort(c.items, c.nitems, sizeof(uint16), ScbfCmpU16);
	for (i = 0; i < c.nitems; i++)
		if (n == 0 || c.items[i] != c.items[n - 1])
			c.items[n++] = c.items[i];
	*items = c.items;
	return n;
}

/*
 * a[0 .. na) := the items in both a and b (both sorted, distinct).
 */
static int
Intersect(uint16 *a, int na, const uint16 *b, int nb)
{
	int			i = 0;
	int			j = 0;
	int			n = 0;

	while (i < na && j < nb)
	{
		if (a[i] < b[j])
			i++;
		else if (a[i] > b[j])
			j++;
		else
		{
			a[n++] = a[i];
			i++;
			j++;
		}
	}
	return n;
}

/*
 * The items of one filter that satisfy every condition, sorted and
 * distinct; -1 if a standby's probe met a leaf recycled under it (see
 * ReadLeaf in scbfledger.c).
 */
static int
FilterItems(Relation index, ScbfFilter *f, ScbfCond *conds, int nconds,
				 uint64 fold_serial, uint16 **items, BlockNumber nblocks)
{
	int			n = -1;			/* no condition restricted them yet */
	int			c;

	for (c = 0; c < nconds && n != 0; c++)
	{
		ScbfCond   *cond = &conds[c];
		BlockNumber root = ScbfFilterRoot(f, cond->col);
		uint16	   *these;
		int			nthese;

		if (cond->kind == SCBF_COND_ANY)
			continue;
		if (cond->kind == SCBF_COND_EQ)
			nthese = ScbfLedgerLookup(index, root, cond->col, fold_serial,
									   cond->hashes, cond->nhashes, &these,
									   nblocks);
		else
			nthese = CollectAll(index, root, cond->col, fold_serial,
									 true, &these, nblocks);
		if (nthese < 0)
			return -1;
		if (n < 0)
		{
			*items = these;
			n = nthese;
		}
		else
			n = Intersect(*items, n, these, nthese);
	}
	if (n < 0)
		n = CollectAll(index, ScbfFilterRoot(f, 0), 0, fold_serial,
							false, items, nblocks);
	return n;
}

/* What PendingMatch needs */
typedef struct ScbfPendingArg
{
	ScbfCond   *conds;
	int			nconds;
	TIDBitmap  *tbm;
	int64		ntuples;
} ScbfPendingArg;

/*
 * ScbfPendingScan callback: a pending entry that satisfies every
 * condition goes into the bitmap.
 */
static void
PendingMatch(ItemPointer tid, const uint32 *hashes, void *arg)
{
	ScbfPendingArg *pa = (ScbfPendingArg *) arg;
	int			c;

	for (c = 0; c < pa->nconds; c++)
	{
		ScbfCond   *cond = &pa->conds[c];
		uint32		h = hashes[cond->col];

		if (cond->kind == SCBF_COND_EQ &&
			bsearch(&h, cond->hashes, cond->nhashes, sizeof(uint32),
					ScbfCmpU32) == NULL)
			return;
		if (cond->kind == SCBF_COND_NOTNULL && h == SCBF_NULL_HASH)
			return;
	}
	tbm_add_tuples(pa->tbm, tid, 1, true);
	pa->ntuples++;
}

/*
 * The pending partitions a probe must read: those of the hashes of an
 * equality condition on the first column, else all.
 */
static void
PendingParts(ScbfCond *conds, int nconds, bool *parts)
{
	int			c;
	int			i;

	for (c = 0; c < nconds; c++)
	{
		if (conds[c].kind != SCBF_COND_EQ || conds[c].col != 0)
			continue;
		memset(parts, 0, sizeof(bool) * SCBF_NPENDING);
		for (i = 0; i < conds[c].nhashes; i++)
			parts[ScbfPendingPartition(conds[c].hashes[i])] = true;
		return;
	}
	memset(parts, 1, sizeof(bool) * SCBF_NPENDING);
}

/*
 * The filters that may hold a match, into acc: the AND over the equality
 * conditions of the OR over each one's hashes of their k rows and of the
 * filters the delta names for them.  False if the band or the delta moved
 * (see ScbfRowsProbe).
 */
static bool
ProbeRows(Relation index, ScbfState *state, const ScbfMeta *meta,
			   ScbfCond *conds, int nconds, uint8 *acc, ScbfHashMasks *hm,
			   BlockNumber nblocks)
{
	Size		nbytes = ScbfRowsBytes(meta);
	uint8	   *one = palloc(nbytes);
	int			c;

	memset(acc, 0xFF, nbytes);
	for (c = 0; c < nconds; c++)
	{
		ScbfCond   *cond = &conds[c];
		int			nparts = 1;
		int			h;
		Size		b;

		if (cond->kind != SCBF_COND_EQ)
			continue;
		memset(one, 0, nbytes);
		if (hm->masks[c] != NULL)
			nparts = cond->nhashes;
		for (h = 0; h < nparts; h++)
		{
			/* all the hashes at once, or hash h into its own mask */
			const uint32 *hashes = nparts == 1 ? cond->hashes : &cond->hashes[h];
			int			nhashes = nparts == 1 ? cond->nhashes : 1;
			uint8	   *into = nparts == 1 ? one : hm->masks[c] + h * nbytes;

			if (into != one)
				memset(into, 0, nbytes);
			/* the delta before the rows: see scbfdelta.c */
			if (!ScbfDeltaProbe(index, meta, cond->col, hashes, nhashes,
								 into, nblocks) ||
				!ScbfRowsProbe(index, state, meta, cond->col, hashes,
								nhashes, into, nblocks))
			{
				pfree(one);
				return false;
			}
			if (into != one)
				for (b = 0; b < nbytes; b++)
					one[b] |= into[b];
		}
		for (b = 0; b < nbytes; b++)
			acc[b] &= one[b];
	}
	pfree(one);
	return true;
}

/*
 * Free what ScanFilters allocated for a probe: the per-hash masks and
 * their scratch, and acc.
 */
static void
HashMasksFree(ScbfHashMasks *hm, ScbfCond *conds, int nconds,
				   uint8 *acc)
{
	int			c;

	for (c = 0; c < nconds; c++)
		if (hm->masks[c] != NULL)
			pfree(hm->masks[c]);
	pfree(hm->masks);
	pfree(hm->subset);
	if (hm->conds != conds)
		pfree(hm->conds);
	pfree(acc);
}

/*
 * The conditions for candidate filter fno: those whose hashes keep their
 * own masks name only the hashes whose rows hold fno.  False if one names
 * none (then no entry of the filter can match).
 */
static bool
FilterConds(const ScbfMeta *meta, ScbfCond *conds, int nconds,
				 ScbfHashMasks *hm, uint32 fno)
{
	Size		nbytes = ScbfRowsBytes(meta);
	uint32	   *subset = hm->subset;
	int			c;

	memcpy(hm->conds, conds, sizeof(ScbfCond) * nconds);
	for (c = 0; c < nconds; c++)
	{
		ScbfCond   *cond = &hm->conds[c];
		int			n = 0;
		int			h;

		if (hm->masks[c] == NULL)
			continue;
		for (h = 0; h < conds[c].nhashes; h++)
			if (ScbfRowsHas(meta, hm->masks[c] + h * nbytes, fno))
				subset[n++] = conds[c].hashes[h];
		if (n == 0)
			return false;
		cond->hashes = subset;
		cond->nhashes = n;
		subset += n;
	}
	return true;
}

/*
 * The filters' part of a probe: the candidates' ledgers.  Adds the count
 * of TIDs it found to *ntuples; false if the band or a leaf moved under
 * the probe (on a standby), when the probe starts over.
 */
static bool
ScanFilters(Relation index, ScbfState *state, const ScbfMeta *meta,
				 ScbfCond *conds, int nconds, TIDBitmap *tbm, int64 *ntuples)
{
	uint32		nfilters = ScbfMetaFilters(meta);
	uint64		fold_serial = ScbfMetaFoldSerial(meta);
	BlockNumber nblocks = RelationGetNumberOfBlocks(index);
	MemoryContext filtercxt;
	MemoryContext oldcxt;
	ScbfHashMasks hm;
	uint8	   *acc;
	uint32		fno;
	int			nsubset = 0;
	int			c;

	if (nfilters == 0)
		return true;
	acc = palloc(ScbfRowsBytes(meta));
	hm.masks = palloc0(sizeof(uint8 *) * nconds);
	for (c = 0; c < nconds; c++)
		if (conds[c].kind == SCBF_COND_EQ && conds[c].nhashes > 1 &&
			conds[c].nhashes <= SCBF_SCAN_MASKED_HASHES)
		{
			hm.masks[c] = palloc(ScbfRowsBytes(meta) * conds[c].nhashes);
			nsubset += conds[c].nhashes;
		}
	hm.subset = palloc(sizeof(uint32) * Max(nsubset, 1));
	hm.conds = nsubset > 0 ? palloc(sizeof(ScbfCond) * nconds) : conds;
	if (!ProbeRows(index, state, meta, conds, nconds, acc, &hm, nblocks))
	{
		HashMasksFree(&hm, conds, nconds, acc);
		return false;
	}

	filtercxt = AllocSetContextCreate(CurrentMemoryContext,
									  "scbf scan filter context",
									  ALLOCSET_DEFAULT_SIZES);
	for (fno = ScbfRowsNext(meta, acc, 0); fno < nfilters;
		 fno = ScbfRowsNext(meta, acc, fno + 1))
	{
		ScbfFilter *f;
		uint16	   *items = NULL;
		BlockNumber segstart;
		int			n;
		int			i;

		CHECK_FOR_INTERRUPTS();
		if (nsubset > 0 && !FilterConds(meta, conds, nconds, &hm, fno))
			continue;
		oldcxt = MemoryContextSwitchTo(filtercxt);
		f = ScbfReadFilter(index, state, meta, fno, nblocks);
		if (ScbfFilterVisible(f, fold_serial))
		{
			n = FilterItems(index, f, hm.conds, nconds, fold_serial,
								 &items, nblocks);
			if (n < 0)
			{
				MemoryContextSwitchTo(oldcxt);
				MemoryContextDelete(filtercxt);
				HashMasksFree(&hm, conds, nconds, acc);
				return false;
			}
			segstart = ScbfFilterSegment(f) * state->pages_per_segment;
			for (i = 0; i < n; i++)
			{
				ItemPointerData tid;

				ItemPointerSet(&tid, segstart + ScbfTidRelBlock(items[i]),
							   ScbfTidOffset(items[i]));
				tbm_add_tuples(tbm, &tid, 1, true);
			}
			*ntuples += n;
		}
		MemoryContextSwitchTo(oldcxt);
		MemoryContextReset(filtercxt);
	}
	MemoryContextDelete(filtercxt);
	HashMasksFree(&hm, conds, nconds, acc);
	return true;
}

/*
 * ScbfProbeBitmap
 *		amgetbitmap of a format-2 index, for the conditions scbfrescan made
 *		(none of them unsatisfiable).
 *
 * The filters and the pending area are read as of one metapage copy.  The
 * pages a fold or VACUUM supersedes (the band, folded pending pages, the
 * leaves of merged ledger runs) are recycled only once no snapshot is
 * older than the serial that superseded them, so on a primary a probe
 * always finds them.  A standby has no such protection:
 * there a probe that meets a recycled page, or ends after VACUUM's census
 * began to recycle (ScbfRecycledSince: a released filter or a tidied run
 * leaves no recycled page to meet), starts over from a new copy (a TID
 * added twice to the bitmap is added once).  On a primary, a probe
 * that had to start over SCBF_SCAN_RETRIES times takes the fold lock in
 * share mode, so that no fold commits until it is done.
 */
int64
ScbfProbeBitmap(Relation index, ScbfCond *conds, int nconds, TIDBitmap *tbm)
{
	ScbfState *state = ScbfGetState(index);
	ScbfPendingArg pa;
	bool		parts[SCBF_NPENDING];
	bool		locked = false;
	int			attempt;

	pa.conds = conds;
	pa.nconds = nconds;
	pa.tbm = tbm;
	PendingParts(conds, nconds, parts);
	for (attempt = 0;; attempt++)
	{
		ScbfMeta  *meta;
		bool		complete;
		int			part;

		if (attempt >= SCBF_SCAN_RETRIES && !locked)
		{
			if (!RecoveryInProgress())
			{
				LockPage(index, SCBF_METAPAGE_BLKNO, ShareLock);
				locked = true;
			}
			else if (attempt >= SCBF_STANDBY_RETRIES)
				ereport(ERROR,
						(errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
						 errmsg("index \"%s\" kept changing during a scan on the standby",
								RelationGetRelationName(index)),
						 errdetail("The primary folded its pending entries %d times during the scan.",
								   attempt),
						 errhint("Retry the query.")));
		}
		else if (attempt > SCBF_SCAN_RETRIES)
			ereport(ERROR,
					(errcode(ERRCODE_INDEX_CORRUPTED),
					 errmsg("index \"%s\" changed during a scan that holds its fold lock",
							RelationGetRelationName(index)),
					 errhint("Please REINDEX it.")));
		CHECK_FOR_INTERRUPTS();
		meta = ScbfReadMeta(index);
		pa.ntuples = 0;
		complete = ScanFilters(index, state, meta, conds, nconds, tbm,
									&pa.ntuples);
		for (part = 0; part < SCBF_NPENDING && complete; part++)
			if (parts[part])
				complete = ScbfPendingScan(index, state, meta, part,
											PendingMatch, &pa, NULL);
		if (complete && RecoveryInProgress() &&
			ScbfRecycledSince(index, meta))
			complete = false;
		pfree(meta);
		if (complete)
		{
			if (locked)
				UnlockPage(index, SCBF_METAPAGE_BLKNO, ShareLock);
			return pa.ntuples;
		}
	}
}
