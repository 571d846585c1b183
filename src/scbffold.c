/*-------------------------------------------------------------------------
 *
 * scbffold.c
 *	  The fold, which moves the pending area's entries into the filters
 *	  (ledger runs, row bits, filter table).
 *
 * NOTES
 *	  The fold runs under the fold lock, a heavyweight lock on the
 *	  metapage's block number, as GIN's pending-list cleanup does; a
 *	  flushing backend takes it only if it is free, VACUUM waits for it.
 *	  With S the committed fold serial, the fold:
 *
 *	  1. recycles the superseded pages no snapshot can still read;
 *	  2. reads every pending partition to its end, recording where it
 *		 stopped (the cut);
 *	  3. per heap segment, picks its ACTIVE filter, or closes it and starts
 *		 new ones when the entries would push its rate past the target or
 *		 its ledger has no room for another run; writes one run of serial
 *		 S + 1 per filter and column (invisible while the metapage says S);
 *	  4. if the filters outgrew the bands, moves the last band to a wider
 *		 one (at a new m, written from the ledgers, if the segments' keys
 *		 call for one: FoldGeometry) or, once it is as wide as a band may
 *		 be, opens new bands after it (FoldBands); sets the new keys' bits,
 *		 or once the bands are large puts the keys in the delta
 *		 (scbfdelta.c) (invariant I4: before the commit);
 *	  5. writes the filter table entries it changed or added;
 *	  6. commits: one metapage record sets the serial to S + 1 and moves
 *		 each partition's head to its cut.
 *
 *	  A crash before 6 leaves runs of serial S + 1, invisible until S + 1
 *	  commits, extra row bits (false positives) and counts of filter table
 *	  entries that run ahead (statistics only); the entries stay pending.
 *	  The next fold, at serial S + 1 again, first drops such runs from
 *	  every ACTIVE filter it folds into or closes, and counts its entries
 *	  again (FoldUndoCrashed): else the runs of a filter it closed
 *	  instead would become visible with its commit, and the entries it
 *	  folds again would be there twice.  A fold that chose a new m wrote
 *	  counts for its band: the metapage's SCBF_META_RECOUNT, set before,
 *	  makes the next fold count them in the committed band (FoldRecount).
 *	  After 6 the fold is complete.  A
 *	  reader sees each entry once: pending before the commit, in a run
 *	  after it (src/README, "Crash safety and visibility").
 *
 * Portions Copyright (c) 2026, scbf developers
 *
 * IDENTIFICATION
 *	  src/scbffold.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/xlog.h"
#include "commands/vacuum.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "scbf.h"

/* Graves a fold may add: one per pending partition and one band */
#define SCBF_FOLD_GRAVES		(SCBF_NPENDING + 2)

/* A pending entry of the fold: its segment, item and hashes */
typedef struct ScbfFoldEntry
{
	uint32		segno;
	uint16		item;			/* segment-relative TID */
	uint32		first;			/* its hashes: hashes[first .. + ncols) */
} ScbfFoldEntry;

/* An in-use filter of the table, for finding a segment's chain */
typedef struct ScbfFoldSeg
{
	uint32		segno;
	uint32		filterno;
} ScbfFoldSeg;

typedef struct ScbfFoldState
{
	Relation	index;
	ScbfState *state;
	ScbfMeta  *meta;
	ScbfBands	bands;			/* the committed bands (maps not read) */
	uint32		m;				/* the geometry of a new band */
	uint32		capacity;
	uint64		serial;			/* the fold's: committed + 1 */
	MemoryContext foldcxt;		/* lives as long as the fold */

	/* the pending entries read */
	ScbfFoldEntry *entries;
	int			nentries;
	int			maxentries;
	ScbfHash   *hashes;

	/* the filter table: nold entries read, then the new ones */
	ScbfFilter **filters;
	bool	   *changed;
	uint32		nold;
	uint32		nfilters;
	uint32		maxfilters;
	ScbfFoldSeg *segs;			/* current filters of nold, by segment */
	uint32		nsegs;
	uint32	   *created;		/* the filters this fold started */
	uint32		ncreated;
	uint32		nextfree;		/* where to look for a free column */

	/* the keys whose row bits to set */
	ScbfRowKey *keys;
	int			nkeys;
	int			maxkeys;

	/* statistics for the metapage */
	uint64		nentries_added;
	uint32		nsegments_added;
	int64		nledger_pages_delta;
} ScbfFoldState;

/*
 * ScbfPendingScan callback: keep an entry for the fold.
 */
static void
FoldCollect(ItemPointer tid, const ScbfHash *hashes, void *arg)
{
	ScbfFoldState *fs = (ScbfFoldState *) arg;
	int			ncols = fs->state->ncols;
	BlockNumber blkno = ItemPointerGetBlockNumber(tid);
	uint32		pps = fs->state->pages_per_segment;
	ScbfFoldEntry *e;

	if (fs->nentries == fs->maxentries)
	{
		fs->maxentries *= 2;
		fs->entries = repalloc_huge(fs->entries,
									sizeof(ScbfFoldEntry) * fs->maxentries);
		fs->hashes = repalloc_huge(fs->hashes,
								   sizeof(ScbfHash) * ncols * fs->maxentries);
	}
	e = &fs->entries[fs->nentries];
	e->segno = blkno / pps;
	e->item = ScbfTidMake(blkno % pps, ItemPointerGetOffsetNumber(tid));
	e->first = (uint32) fs->nentries * ncols;
	memcpy(fs->hashes + e->first, hashes, sizeof(ScbfHash) * ncols);
	fs->nentries++;
}

/*
 * The order of fold entries: by segment, then item.
 */
static inline int
CmpFoldEntry(const ScbfFoldEntry *x, const ScbfFoldEntry *y)
{
	if (x->segno != y->segno)
		return (x->segno > y->segno) - (x->segno < y->segno);
	return (int) x->item - (int) y->item;
}

/* ScbfSortFoldEntries: sorts fold entries, the comparison inlined */
#define ST_SORT ScbfSortFoldEntries
#define ST_ELEMENT_TYPE ScbfFoldEntry
#define ST_COMPARE(a, b) CmpFoldEntry(a, b)
#define ST_SCOPE static
#define ST_DEFINE
#include "lib/sort_template.h"

/*
 * qsort/bsearch comparator of table entries by segment, then filter.
 */
static int
CmpFoldSeg(const void *a, const void *b)
{
	const ScbfFoldSeg *x = a;
	const ScbfFoldSeg *y = b;

	if (x->segno != y->segno)
		return (x->segno > y->segno) - (x->segno < y->segno);
	return (x->filterno > y->filterno) - (x->filterno < y->filterno);
}

/*
 * Read the filter table and index its in-use entries by segment.  A merge
 * a crashed VACUUM marked for this fold's serial is undone first; filters
 * merged into others by a committed serial are no longer current, but
 * keep their chain positions (FoldChain).
 */
static void
FoldReadTable(ScbfFoldState *fs, BlockNumber nblocks)
{
	uint32		c;

	fs->nold = ScbfMetaFilters(fs->meta);
	fs->nfilters = fs->nold;
	fs->maxfilters = Max(fs->nold * 2, 64);
	fs->filters = repalloc_huge(ScbfReadTable(fs->index, fs->state,
											   fs->meta, nblocks),
								sizeof(ScbfFilter *) * fs->maxfilters);
	fs->changed = palloc0(sizeof(bool) * fs->maxfilters);
	fs->segs = palloc(sizeof(ScbfFoldSeg) * Max(fs->nold, 1));
	fs->nsegs = 0;
	fs->created = palloc(sizeof(uint32) * fs->maxfilters);
	fs->ncreated = 0;
	fs->nextfree = 0;
	for (c = 0; c < fs->nold; c++)
	{
		if (ScbfFilterUndoGone(fs->filters[c], fs->serial))
			fs->changed[c] = true;
		/* merged-away filters too: they hold their chain position */
		if (!ScbfFilterInUse(fs->filters[c]))
			continue;
		fs->segs[fs->nsegs].segno = ScbfFilterSegment(fs->filters[c]);
		fs->segs[fs->nsegs].filterno = c;
		fs->nsegs++;
	}
	qsort(fs->segs, fs->nsegs, sizeof(ScbfFoldSeg), CmpFoldSeg);
}

/*
 * A segment's chain: its ACTIVE filter (InvalidBlockNumber-like
 * PG_UINT32_MAX if none), the next free chain position, and whether the
 * segment has any filter.  A filter a VACUUM merged into another keeps its
 * position until cleanup releases its column, so positions are counted
 * over those too; the ACTIVE one and "any" only over the current ones.
 */
static uint32
FoldChain(ScbfFoldState *fs, uint32 segno, uint16 *nextpos, bool *any)
{
	ScbfFoldSeg key = {segno, 0};
	uint32		lo = 0;
	uint32		hi = fs->nsegs;
	uint32		active = PG_UINT32_MAX;
	uint32		c;
	uint32		i;

	/* the first table entry of the segment */
	while (lo < hi)
	{
		uint32		mid = lo + (hi - lo) / 2;

		if (CmpFoldSeg(&fs->segs[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*nextpos = 0;
	*any = false;
	for (; lo < fs->nsegs && fs->segs[lo].segno == segno; lo++)
	{
		ScbfFilter *f = fs->filters[fs->segs[lo].filterno];

		*nextpos = Max(*nextpos, ScbfFilterChainPos(f) + 1);
		if (!ScbfFilterVisible(f, fs->serial))
			continue;
		*any = true;
		if (ScbfFilterIsActive(f))
			active = fs->segs[lo].filterno;
	}
	/* filters this fold started in the segment */
	for (i = 0; i < fs->ncreated; i++)
	{
		c = fs->created[i];
		if (ScbfFilterSegment(fs->filters[c]) == segno)
		{
			*any = true;
			*nextpos = Max(*nextpos, ScbfFilterChainPos(fs->filters[c]) + 1);
			if (ScbfFilterIsActive(fs->filters[c]))
				active = c;
		}
	}
	return active;
}

/*
 * The sorted, distinct (hash, item) pairs of column col of entries
 * e[0 .. n), which are in item order; *distinct receives the number of
 * distinct hashes.
 */
static int
Pairs(ScbfFoldState *fs, ScbfFoldEntry *e, int n, int col,
			   ScbfHash *hashes, uint16 *items, uint32 *distinct)
{
	ScbfPair *pairs = palloc(sizeof(ScbfPair) * Max(n, 1));
	int			np = 0;
	int			i;

	for (i = 0; i < n; i++)
	{
		pairs[i].hash = fs->hashes[e[i].first + col];
		pairs[i].item = e[i].item;
	}
	ScbfSortPairsByItemOrder(pairs, n, fs->state->col_bits[col]);
	*distinct = 0;
	for (i = 0; i < n; i++)
	{
		if (np > 0 && pairs[i].hash == hashes[np - 1] &&
			pairs[i].item == items[np - 1])
			continue;			/* one TID pending twice: keep one */
		if (np == 0 || pairs[i].hash != hashes[np - 1])
			(*distinct)++;
		hashes[np] = pairs[i].hash;
		items[np] = pairs[i].item;
		np++;
	}
	pfree(pairs);
	return np;
}

/*
 * Remember the distinct hashes of a column's run, to set their row bits.
 */
static void
FoldAddKeys(ScbfFoldState *fs, uint32 filterno, int col,
				 const ScbfHash *hashes, int n)
{
	int			i;

	for (i = 0; i < n; i++)
	{
		if (i > 0 && hashes[i] == hashes[i - 1])
			continue;
		if (fs->nkeys == fs->maxkeys)
		{
			fs->maxkeys *= 2;
			fs->keys = repalloc_huge(fs->keys,
									 sizeof(ScbfRowKey) * fs->maxkeys);
		}
		fs->keys[fs->nkeys].filterno = filterno;
		fs->keys[fs->nkeys].col = col;
		fs->keys[fs->nkeys].hash = hashes[i];
		fs->nkeys++;
	}
}

/*
 * A new ACTIVE filter of segment segno: in a free column of the table (one
 * VACUUM released; its bits are clear), else at the end.  A probe at the
 * committed serial may read its entry before the fold commits: it finds
 * runs it does not see yet.
 */
static uint32
FoldNewFilter(ScbfFoldState *fs, uint32 segno, uint16 chain_pos)
{
	uint32		c;
	MemoryContext oldcxt = MemoryContextSwitchTo(fs->foldcxt);

	/* a free column of a band whose filters take as many keys */
	for (c = fs->nextfree; c < fs->nold; c++)
		if (!ScbfFilterInUse(fs->filters[c]) && !fs->changed[c] &&
			ScbfBandOf(&fs->bands, c) != NULL &&
			ScbfBandOf(&fs->bands, c)->capacity >= fs->capacity)
			break;
	fs->nextfree = c + 1;
	if (c >= fs->nold)
	{
		c = fs->nfilters;
		if (c == fs->maxfilters)
		{
			fs->maxfilters *= 2;
			fs->filters = repalloc_huge(fs->filters,
										sizeof(ScbfFilter *) * fs->maxfilters);
			fs->changed = repalloc_huge(fs->changed,
										sizeof(bool) * fs->maxfilters);
			fs->created = repalloc_huge(fs->created,
										sizeof(uint32) * fs->maxfilters);
		}
		fs->nfilters++;
	}
	fs->filters[c] = ScbfNewFilter(fs->state->ncols, segno, chain_pos, 0, 0);
	fs->changed[c] = true;
	fs->created[fs->ncreated++] = c;
	MemoryContextSwitchTo(oldcxt);
	return c;
}

/*
 * The rate filter c would have with `keys` more keys in each slice: an
 * upper bound, as some of their bits are set already.
 */
static double
FoldRate(ScbfFoldState *fs, uint32 c, uint32 keys)
{
	ScbfFilter *f = fs->filters[c];
	const ScbfBand *band = ScbfBandOf(&fs->bands, c);
	uint32		k = fs->state->k;
	uint32		m = band != NULL ? band->geom.m : fs->m;
	uint32		nset[SCBF_ROWS_MAX_K];
	double		rate = 1.0;
	uint32		i;

	ScbfFilterGetBits(f, nset);
	for (i = 0; i < k && i < SCBF_ROWS_MAX_K; i++)
		rate *= Min((double) (nset[i] + keys) / m, 1.0);
	return rate;
}

/*
 * The rate filter c is kept to: its band's (ScbfBandTarget), or the
 * index's for a filter no band holds yet.
 */
static double
FoldTarget(ScbfFoldState *fs, uint32 c)
{
	const ScbfBand *band = ScbfBandOf(&fs->bands, c);

	if (band == NULL)
		return fs->state->target_fpr;
	return ScbfBandTarget(fs->state->target_fpr,
						  (uint32) (band - fs->bands.bands));
}

/* The sorted, distinct (hash, item) pairs of each column of some entries */
typedef struct ScbfFoldCols
{
	ScbfHash   *hashes[INDEX_MAX_KEYS];
	uint16	   *items[INDEX_MAX_KEYS];
	int			np[INDEX_MAX_KEYS];
	uint32		keys;			/* distinct hashes, summed over columns */
} ScbfFoldCols;

/*
 * The pairs of every column of entries e[0 .. n), sorted once for both the
 * fold's choice of filter and the runs it writes.
 */
static void
FoldColumns(ScbfFoldState *fs, ScbfFoldEntry *e, int n,
				 ScbfFoldCols *cols)
{
	int			col;

	cols->keys = 0;
	for (col = 0; col < fs->state->ncols; col++)
	{
		uint32		distinct;

		cols->hashes[col] = palloc(sizeof(ScbfHash) * Max(n, 1));
		cols->items[col] = palloc(sizeof(uint16) * Max(n, 1));
		cols->np[col] = Pairs(fs, e, n, col, cols->hashes[col],
								   cols->items[col], &distinct);
		cols->keys += distinct;
	}
}

/*
 * Fold the entries whose pairs are cols into filter c of segment segno (a
 * new filter at chain position chain_pos if c is PG_UINT32_MAX): a run
 * per column.  Returns false, having written nothing, if c's ledger has no
 * room for the runs.
 */
static bool
FoldInto(ScbfFoldState *fs, uint32 c, uint32 segno, uint16 chain_pos,
			  ScbfFoldCols *cols, BlockNumber nblocks)
{
	int			ncols = fs->state->ncols;
	ScbfRun   *runs[INDEX_MAX_KEYS];
	int			col;

	for (col = 0; col < ncols; col++)
	{
		runs[col] = ScbfLedgerEncode(fs->index, segno, col,
									 fs->state->col_bits[col], fs->serial,
									  cols->hashes[col], cols->items[col],
									  cols->np[col]);
		if (c != PG_UINT32_MAX &&
			!ScbfLedgerHasRoom(fs->index,
								ScbfFilterRoot(fs->filters[c], col), col,
								runs[col], fs->meta, false, nblocks))
			return false;
	}

	if (c == PG_UINT32_MAX)
		c = FoldNewFilter(fs, segno, chain_pos);
	for (col = 0; col < ncols; col++)
	{
		int64		npages;

		ScbfFilterSetRoot(fs->filters[c], col,
						   ScbfLedgerAppend(fs->index,
											 ScbfFilterRoot(fs->filters[c], col),
											 c, col, runs[col], fs->meta,
											 nblocks, &npages));
		fs->nledger_pages_delta += npages;
		FoldAddKeys(fs, c, col, cols->hashes[col], cols->np[col]);
	}
	ScbfFilterAddEntries(fs->filters[c], (uint32) cols->np[0]);
	ScbfFilterSetKeys(fs->filters[c],
					   ScbfFilterKeys(fs->filters[c]) + cols->keys);
	fs->changed[c] = true;
	fs->nentries_added += cols->np[0];
	return true;
}

/*
 * Undo in filter c what a fold of this serial left when a crash stopped it
 * before its commit: runs it appended (this fold would commit them with
 * its own, entries twice over) and the count it wrote ahead of them
 * (counted again from the runs left), before this fold chooses between
 * appending to it and closing it.  An append would drop those runs from
 * the root anyway, but not the count; a close would leave them, for this
 * fold's commit to make visible (the crashed fold's counts may have
 * filled the filter: that is what makes this fold close it).
 */
static void
FoldUndoCrashed(ScbfFoldState *fs, uint32 c, BlockNumber nblocks)
{
	ScbfFilter *f = fs->filters[c];
	ScbfRootInfo ri;
	uint64		nentries = 0;
	bool		tidied = false;
	int			col;
	int			i;

	for (col = 0; col < fs->state->ncols; col++)
		if (ScbfFilterRoot(f, col) != InvalidBlockNumber &&
			ScbfLedgerTidy(fs->index, ScbfFilterRoot(f, col), col,
							fs->meta, nblocks))
			tidied = true;
	if (!tidied || ScbfFilterRoot(f, 0) == InvalidBlockNumber)
		return;
	ScbfReadRootInfo(fs->index, ScbfFilterRoot(f, 0), &ri, nblocks);
	for (i = 0; i < ri.nruns; i++)
		if (ri.runs[i].gone == PG_UINT64_MAX)
			nentries += ri.runs[i].nentries;
	ScbfFilterSetEntries(f, (uint32) Min(nentries, PG_UINT32_MAX));
	fs->changed[c] = true;
}

/*
 * Fold one segment's entries e[0 .. n): into its ACTIVE filter if they
 * fit its target rate and its ledger has room, else into new filters
 * (split by ranges of the first column's hash when there are more keys
 * than a filter is sized for, as the build splits), the last one ACTIVE.
 */
static void
FoldSegment(ScbfFoldState *fs, ScbfFoldEntry *e, int n,
				 BlockNumber nblocks)
{
	uint32		segno = e[0].segno;
	uint16		chain_pos;
	bool		any;
	uint32		active = FoldChain(fs, segno, &chain_pos, &any);
	ScbfFoldCols cols;
	uint32		keys;
	uint32		nsplit;
	ScbfFoldEntry *part;
	uint32		s;

	if (!any)
		fs->nsegments_added++;
	if (active != PG_UINT32_MAX)
		FoldUndoCrashed(fs, active, nblocks);
	FoldColumns(fs, e, n, &cols);
	keys = cols.keys;
	if (active != PG_UINT32_MAX &&
		ScbfFilterEntries(fs->filters[active]) + (uint32) n <= PG_UINT16_MAX &&
		FoldRate(fs, active, keys) <= FoldTarget(fs, active) &&
		FoldInto(fs, active, segno, 0, &cols, nblocks))
		return;
	if (active != PG_UINT32_MAX)
	{
		ScbfFilterClose(fs->filters[active]);
		fs->changed[active] = true;
	}

	nsplit = Min(Max((keys + fs->capacity - 1) / fs->capacity, 1),
				 SCBF_MAX_SPLIT);
	part = palloc(sizeof(ScbfFoldEntry) * n);
	for (s = 0; s < nsplit; s++)
	{
		int			np = 0;
		int			i;

		for (i = 0; i < n; i++)
			if (nsplit == 1 ||
				ScbfHashRange(fs->hashes[e[i].first], fs->state->col_bits[0],
							  nsplit) == s)
				part[np++] = e[i];
		if (np == 0)
			continue;
		if (nsplit > 1)
			FoldColumns(fs, part, np, &cols);
		if (!FoldInto(fs, PG_UINT32_MAX, segno, chain_pos++, &cols,
						   nblocks))
			elog(ERROR, "a new filter of index \"%s\" refused a ledger run",
				 RelationGetRelationName(fs->index));
		if (s + 1 < nsplit)
			ScbfFilterClose(fs->filters[fs->created[fs->ncreated - 1]]);
	}
}

/*
 * Step 4's bits: the new keys' bits set in band, or, once the band is
 * large, the keys put in the delta (scbfdelta.c), made first if the index
 * has none or the band outgrew it (fc names it then; *retired receives the
 * delta it replaced, for the caller to free after the commit).  Keys a
 * full partition of the delta has no room for get their bits set after a
 * merge has emptied it.  Counts set bits in the filters' table entries
 * either way.  fc->delta_fill says whether the delta is left with keys.
 */
static void
FoldBits(ScbfFoldState *fs, const ScbfBands *bands, ScbfCommit *fc,
			  ScbfDelta *retired)
{
	Relation	index = fs->index;
	ScbfDelta	delta;
	int			nleft = fs->nkeys;

	ScbfMetaDelta(fs->meta, &delta);
	if (ScbfDeltaWanted(bands, delta.bits, fs->nkeys))
	{
		if (delta.pages > 0 && ScbfDeltaPages(bands) >= 2 * delta.pages)
		{
			/* the bands outgrew it: merge it, then replace it */
			ScbfDeltaMerge(index, fs->state, &delta, bands, NULL, 0,
							RelationGetNumberOfBlocks(index));
			*retired = delta;
			delta.pages = 0;
		}
		if (delta.pages == 0)
		{
			ScbfDeltaCreate(index, bands, &delta, &fc->delta);
			fc->delta_changed = true;
			delta = fc->delta;
		}
		nleft = ScbfDeltaAdd(index, &delta, fs->keys, fs->nkeys,
							  RelationGetNumberOfBlocks(index));
		ScbfKeyBits(fs->state, fs->keys, fs->nkeys, fs->filters);
		fc->delta_fill = SCBF_DELTA_FILLED;
		/* a full partition: the delta's bits and the left keys' at once */
		if (nleft > 0)
		{
			ScbfDeltaMerge(index, fs->state, &delta, bands, fs->keys, nleft,
							RelationGetNumberOfBlocks(index));
			fc->delta_fill = SCBF_DELTA_EMPTIED;
		}
		return;
	}
	if (delta.pages > 0)
	{
		/*
		 * a fold too large for the delta (or a setting raised since it was
		 * made): its bits go straight to the band, in the pass that merges
		 * the delta's, so that the delta starts empty
		 */
		ScbfKeyBits(fs->state, fs->keys, fs->nkeys, fs->filters);
		ScbfDeltaMerge(index, fs->state, &delta, bands, fs->keys, fs->nkeys,
						RelationGetNumberOfBlocks(index));
		fc->delta_fill = SCBF_DELTA_EMPTIED;
		return;
	}
	ScbfRowsSet(index, fs->state, bands, fs->keys, nleft, fs->filters,
				 RelationGetNumberOfBlocks(index));
}

/* A segment's distinct keys, summed over its current filters */
typedef struct ScbfSegKeys
{
	uint32		segno;
	double		keys;
} ScbfSegKeys;

/*
 * Order segment key counts by segment number.
 */
static int
CmpSegKeysBySegment(const void *a, const void *b)
{
	return pg_cmp_u32(((const ScbfSegKeys *) a)->segno,
					  ((const ScbfSegKeys *) b)->segno);
}

/*
 * Order segment key counts by keys.
 */
static int
CmpSegKeysByKeys(const void *a, const void *b)
{
	double		x = ((const ScbfSegKeys *) a)->keys;
	double		y = ((const ScbfSegKeys *) b)->keys;

	return (x > y) - (x < y);
}

/*
 * FoldGeometry
 *		Whether the band the fold must write should get another m: the
 *		one a build would choose (the 90th percentile of the segments'
 *		distinct keys, with headroom), measured over every segment with a
 *		current filter but the last one, which may still be filling.  True,
 *		with *m and *capacity, if that capacity is more than a quarter above
 *		the current one (more than a tenth of the segments outgrow a filter
 *		and start chains) or below half of it (bits wasted: an index built
 *		empty sizes its filters by a guess); between the two, the band keeps
 *		its m, so that a measure that creeps does not rebuild the band at
 *		every relayout.  At least SCBF_REGEOMETRY_SEGMENTS segments are
 *		needed for a measure.
 */
static bool
FoldGeometry(ScbfFoldState *fs, uint32 *m, uint32 *capacity)
{
	ScbfState  *state = fs->state;
	ScbfSegKeys *seg = palloc(sizeof(ScbfSegKeys) * Max(fs->nfilters, 1));
	double		fill = scbf_rows_fill(state->target_fpr, state->k);
	uint32		n = 0;
	uint32		nseg = 0;
	uint32		f;
	uint32		i;
	double		target;
	uint32		newm;
	uint32		newcap;

	for (f = 0; f < fs->nfilters; f++)
		if (ScbfFilterInUse(fs->filters[f]) &&
			ScbfFilterGone(fs->filters[f]) == PG_UINT64_MAX)
		{
			seg[n].segno = ScbfFilterSegment(fs->filters[f]);
			seg[n].keys = ScbfFilterKeys(fs->filters[f]);
			n++;
		}
	qsort(seg, n, sizeof(ScbfSegKeys), CmpSegKeysBySegment);
	for (i = 0; i < n; i++)
	{
		if (nseg > 0 && seg[nseg - 1].segno == seg[i].segno)
			seg[nseg - 1].keys += seg[i].keys;
		else
			seg[nseg++] = seg[i];
	}
	if (nseg > 0)
		nseg--;					/* the last segment: it may still fill */
	if (nseg < SCBF_REGEOMETRY_SEGMENTS)
	{
		pfree(seg);
		return false;
	}
	qsort(seg, nseg, sizeof(ScbfSegKeys), CmpSegKeysByKeys);
	target = seg[Min((uint32) ceil(0.9 * nseg), nseg) - 1].keys;
	pfree(seg);
	target = Max(target * SCBF_SIZING_HEADROOM, SCBF_MIN_FILTER_KEYS);
	newm = scbf_rows_m(target, fill);
	newcap = scbf_rows_capacity(newm, fill);
	if (newcap <= fs->capacity + fs->capacity / 4 &&
		newcap >= fs->capacity / 2)
		return false;
	*m = newm;
	*capacity = newcap;
	return true;
}

/*
 * ScbfKeysFn of the rebuild: the keys of filter filterno, from the ledger
 * runs a reader at the committed serial sees (a key in several runs comes
 * several times).  A filter that is free, or that VACUUM merged into
 * another, needs no bit; the runs this fold wrote get theirs from its own
 * keys after the rebuild (FoldBits).
 */
static void
FoldFilterKeys(uint32 filterno, ScbfKeyFn emit, void *emit_arg, void *arg)
{
	ScbfFoldState *fs = (ScbfFoldState *) arg;
	ScbfFilter *f = fs->filters[filterno];

	if (!ScbfFilterInUse(f) || !ScbfFilterVisible(f, fs->serial - 1))
		return;
	(void) ScbfLedgerKeys(fs->index, fs->state->ncols, f, fs->serial - 1,
						  emit, emit_arg, true,
						  RelationGetNumberOfBlocks(fs->index));
}

/*
 * Step 4 with a new geometry (fc->m, fc->capacity, from FoldGeometry; m
 * is fc->m as ScbfBandM gives it to old's band): band, in place of the
 * last band old, is written from its filters'
 * ledgers (ScbfBandRebuild), and each of its filters' table entries gets
 * its new set bits per slice.  The fold's own keys get their bits after, in
 * FoldBits, at the new geometry; a key in the delta is in a ledger, so its
 * bits are in the new band already.  Readers of the committed serial keep
 * the old band, and the old m with it, until the fold's commit names both
 * anew.
 */
static void
FoldRebuild(ScbfFoldState *fs, const ScbfBand *old, uint32 m,
			ScbfCommit *fc, ScbfBand *band)
{
	uint32		k = fs->state->k;
	uint32	   *nset = palloc(sizeof(uint32) * Max(fs->nfilters, 1) * k);
	uint32		f;

	/* the new counts go into the table in place, before the commit */
	ScbfSetRecount(fs->index, true);
	ScbfBandRebuild(fs->index, fs->state, old, m, fc->capacity,
					fs->nfilters, FoldFilterKeys, fs, band, nset);
	for (f = band->first; f < Min(fs->nfilters, band->first + band->width);
		 f++)
	{
		ScbfFilterSetBits(fs->filters[f], k, nset + (Size) f * k);
		fs->changed[f] = true;
	}
	pfree(nset);
}

/*
 * Step 4's bands, when the fold's filters outgrew the committed ones
 * (bands, their maps read only as needed): the last band, unless it is as wide as a band may be
 * (ScbfBandLimit), is written anew, wider (FoldRebuild if FoldGeometry
 * chooses another m, else ScbfBandRelayout); then new bands open after it,
 * at that geometry, until the bands hold every filter.  fc receives the
 * bands.  A full band is never written again: only its bits change.
 */
static void
FoldBands(ScbfFoldState *fs, const ScbfBands *bands, ScbfCommit *fc)
{
	Relation	index = fs->index;
	uint32		n = bands->nbands;
	uint32		limit = ScbfBandLimit();
	/* the bands it may open: a band holds 8 filters at least */
	ScbfBand   *nb = palloc(sizeof(ScbfBand) *
							(n + (fs->nfilters - ScbfBandsEnd(bands)) / 8 + 2));
	uint32		m = fs->m;
	uint32		capacity = fs->capacity;

	memcpy(nb, bands->bands, sizeof(ScbfBand) * n);
	fc->m = 0;
	fc->capacity = 0;
	if (n > 0 && FoldGeometry(fs, &fc->m, &fc->capacity))
	{
		m = fc->m;
		capacity = fc->capacity;
	}
	if (n > 0 && nb[n - 1].width < limit)
	{
		ScbfBand	copy;
		const ScbfBand *last = ScbfBandMapped(index, &bands->bands[n - 1],
											  &copy,
											  RelationGetNumberOfBlocks(index));

		/* the last band, wider */
		if (fc->m != 0)
			FoldRebuild(fs, last,
						ScbfBandM(m, capacity, fs->state->k, n - 1), fc,
						&nb[n - 1]);
		else
			ScbfBandRelayout(index, fs->state, last, fs->nfilters,
							 &nb[n - 1], RelationGetNumberOfBlocks(index));
	}
	while (fs->nfilters > (n > 0 ? nb[n - 1].first + nb[n - 1].width : 0))
	{
		uint32		first = n > 0 ? nb[n - 1].first + nb[n - 1].width : 0;

		ScbfBandOpen(index, fs->state, first, fs->nfilters,
					 ScbfBandM(m, capacity, fs->state->k, n), capacity,
					 n > 0 ? nb[n - 1].serial + 1 : 1, &nb[n],
					 RelationGetNumberOfBlocks(index));
		n++;
	}
	fc->bands.nbands = n;
	fc->bands.bands = nb;
	/* the summaries of groups of bands, for the bands opened */
	fc->bands.groups = palloc(sizeof(ScbfBand) * SCBF_MAX_GROUPS);
	ScbfGroupsCover(index, fs->state, bands, &fc->bands, fs->nfilters,
					FoldFilterKeys, fs, RelationGetNumberOfBlocks(index));
	/* the bands that became full, into the directory: read from its commit */
	ScbfBandDirWrite(index, fs->meta, &fc->bands, &fc->dir);
}

/*
 * A fold with a new geometry crashed after it wrote the table's counts of
 * set bits for its band, before its commit (SCBF_META_RECOUNT): count them
 * in the last band the metapage names, write them, then clear the flag.  A
 * crash before that leaves the flag for the next fold.
 */
static void
FoldRecount(ScbfFoldState *fs)
{
	Relation	index = fs->index;
	BlockNumber nblocks = RelationGetNumberOfBlocks(index);
	uint32		k = fs->state->k;
	uint32		nfilters = ScbfMetaFilters(fs->meta);
	ScbfFilter **filters = ScbfReadTable(index, fs->state, fs->meta, nblocks);
	bool	   *changed = palloc0(sizeof(bool) * Max(nfilters, 1));
	uint32	   *nset = palloc(sizeof(uint32) * Max(nfilters, 1) * k);
	ScbfPageRuns table;
	ScbfBands	bands;
	uint32		f;

	ScbfMetaBands(index, fs->meta, &bands, nblocks);
	if (bands.nbands > 0)
	{
		ScbfBand	copy;
		const ScbfBand *last = ScbfBandMapped(index,
											  &bands.bands[bands.nbands - 1],
											  &copy, nblocks);

		ScbfBandCount(index, fs->state, last, nfilters, nset, nblocks);
		for (f = last->first; f < Min(nfilters, last->first + last->width);
			 f++)
		{
			ScbfFilterSetBits(filters[f], k, nset + (Size) f * k);
			changed[f] = true;
		}
	}
	ScbfUpdateTable(index, fs->state, fs->meta, filters, changed, nfilters,
					nfilters, &table, nblocks);
	ScbfSetRecount(index, false);
}

/*
 * Fold the pending area of an index, and the n entries (tids[i],
 * hashes[i * ncols ..]) of a batch if n > 0, into its filters.  With wait
 * false, gives up at once if another fold holds the fold lock.  Returns
 * the entries folded, or -1 if no fold ran (the lock was taken, or the
 * graveyard had no room).
 */
static int64
FoldRun(Relation index, bool wait, ItemPointer tids,
			 const ScbfHash *hashes, int n)
{
	ScbfFoldState fs;
	ScbfCommit fc;
	MemoryContext foldcxt;
	MemoryContext tmpcxt;
	MemoryContext oldcxt;
	BlockNumber nblocks;
	ScbfBands	bands;
	ScbfDelta	retired;
	int			part;
	int			i;

	fc.delta_changed = false;
	fc.delta_fill = SCBF_DELTA_UNCHANGED;
	retired.pages = 0;
	if (wait)
		LockPage(index, SCBF_METAPAGE_BLKNO, ExclusiveLock);
	else if (!ConditionalLockPage(index, SCBF_METAPAGE_BLKNO, ExclusiveLock))
		return -1;

	foldcxt = AllocSetContextCreate(CurrentMemoryContext, "scbf fold",
									ALLOCSET_DEFAULT_SIZES);
	tmpcxt = AllocSetContextCreate(foldcxt, "scbf fold segment",
								   ALLOCSET_DEFAULT_SIZES);
	oldcxt = MemoryContextSwitchTo(foldcxt);

	ScbfRecycleGraves(index);

	memset(&fs, 0, sizeof(fs));
	fs.index = index;
	fs.foldcxt = foldcxt;
	fs.state = ScbfGetState(index);
	fs.meta = ScbfReadMeta(index);
	ScbfMetaBands(index, fs.meta, &fs.bands, RelationGetNumberOfBlocks(index));
	ScbfMetaGeometry(fs.meta, &fs.m, &fs.capacity);
	if (ScbfMetaRecount(fs.meta))
		FoldRecount(&fs);
	if (ScbfMetaGraveRoom(fs.meta) < SCBF_FOLD_GRAVES)
	{
		/* snapshots hold the superseded pages: fold later */
		MemoryContextSwitchTo(oldcxt);
		MemoryContextDelete(foldcxt);
		UnlockPage(index, SCBF_METAPAGE_BLKNO, ExclusiveLock);
		return -1;
	}
	fs.serial = ScbfMetaFoldSerial(fs.meta) + 1;
	fs.maxentries = Max(1024, n);
	fs.entries = palloc(sizeof(ScbfFoldEntry) * fs.maxentries);
	fs.hashes = palloc(sizeof(ScbfHash) * fs.state->ncols * fs.maxentries);
	fs.maxkeys = 1024;
	fs.keys = palloc(sizeof(ScbfRowKey) * fs.maxkeys);

	/* 2: the pending entries, and where each partition was cut */
	for (part = 0; part < SCBF_NPENDING; part++)
		if (!ScbfPendingScan(index, fs.state, fs.meta, part,
							  FoldCollect, &fs, &fc.cuts[part]))
			ereport(ERROR,
					(errcode(ERRCODE_INDEX_CORRUPTED),
					 errmsg("the pending area of index \"%s\" changed under the fold lock",
							RelationGetRelationName(index)),
					 errhint("Please REINDEX it.")));
	for (i = 0; i < n; i++)
		FoldCollect(&tids[i], hashes + (Size) i * fs.state->ncols, &fs);
	if (fs.nentries == 0)
	{
		MemoryContextSwitchTo(oldcxt);
		MemoryContextDelete(foldcxt);
		UnlockPage(index, SCBF_METAPAGE_BLKNO, ExclusiveLock);
		return 0;
	}

	/* 3: per segment, runs in its filters */
	nblocks = RelationGetNumberOfBlocks(index);
	FoldReadTable(&fs, nblocks);
	ScbfSortFoldEntries(fs.entries, fs.nentries);
	for (i = 0; i < fs.nentries;)
	{
		int			j = i;

		while (j < fs.nentries && fs.entries[j].segno == fs.entries[i].segno)
			j++;
		MemoryContextSwitchTo(tmpcxt);
		FoldSegment(&fs, fs.entries + i, j - i,
						 RelationGetNumberOfBlocks(index));
		MemoryContextSwitchTo(foldcxt);
		MemoryContextReset(tmpcxt);
		i = j;

		/* interrupts; and VACUUM's cost delay, between segments */
		ScbfVacuumDelayPoint();
	}

	/* 4: bands wide enough, and the new keys' bits or delta entries */
	bands = fs.bands;
	fc.band_changed = fs.nfilters > ScbfBandsEnd(&bands);
	fc.m = 0;
	fc.capacity = 0;
	if (fc.band_changed)
	{
		FoldBands(&fs, &bands, &fc);
		bands = fc.bands;
	}
	FoldBits(&fs, &bands, &fc, &retired);
	for (i = 0; i < fs.nkeys; i++)
		fs.changed[fs.keys[i].filterno] = true;

	/* 5: the filter table */
	ScbfUpdateTable(index, fs.state, fs.meta, fs.filters, fs.changed,
					 fs.nold, fs.nfilters, &fc.table,
					 RelationGetNumberOfBlocks(index));

	/* 6: commit */
	fc.serial = fs.serial;
	fc.nfilters = fs.nfilters;
	fc.nentries_delta = (int64) fs.nentries_added;
	fc.nsegments_added = fs.nsegments_added;
	fc.nledger_pages_delta = fs.nledger_pages_delta;
	ScbfCommitSerial(index, &fc);
	if (retired.pages > 0)
		ScbfDeltaFree(index, &retired, RelationGetNumberOfBlocks(index));

	MemoryContextSwitchTo(oldcxt);
	MemoryContextDelete(foldcxt);
	UnlockPage(index, SCBF_METAPAGE_BLKNO, ExclusiveLock);
	return (int64) fs.nentries_added;
}

/*
 * ScbfFold
 *		Fold the pending area of an index into its filters.  With
 *		wait false, gives up at once if another fold holds the fold lock.
 *		Returns the entries folded: 0 if none were pending or no fold ran.
 */
int64
ScbfFold(Relation index, bool wait)
{
	int64		folded = FoldRun(index, wait, NULL, NULL, 0);

	return Max(folded, 0);
}

/*
 * ScbfFoldBatch
 *		Fold a large batch of entries straight into the filters, with the
 *		pending area, instead of appending them to it first; false if no
 *		fold could run now (the caller appends them then).
 *
 * The entries become visible with the fold's commit, as pending ones do
 * with their append.  The inserting transaction has not committed yet:
 * a crash before the fold's commit loses only entries of tuples that
 * crash aborts.
 */
bool
ScbfFoldBatch(Relation index, ItemPointer tids, const ScbfHash *hashes, int n)
{
	return FoldRun(index, false, tids, hashes, n) >= 0;
}
