/*-------------------------------------------------------------------------
 *
 * scbfbuild.c
 *	  Build an scbf index: one pass over the heap in
 *	  block order, then the row band from the ledger.
 *
 * NOTES
 *	  The heap is scanned without syncscan, so tuples arrive one segment at
 *	  a time.  The filters' one geometry (k slices of m positions) is
 *	  chosen from the first segments' distinct keys (src/README, "Sizing"): the
 *	  build holds up to SCBF_SIZING_SEGMENTS segments, sizes the filters
 *	  for the 90th percentile of their keys with headroom, and from then on
 *	  writes each segment as it completes.  A segment with more distinct
 *	  keys than a filter takes is split into several filters by ranges of
 *	  its first column's hash, so a value of that column lives in one of
 *	  them.  Each filter's ledger is one run per column.
 *
 *	  Tuples that arrive out of segment order become extra filters of
 *	  their segment at the end.  Then the row band is computed from the
 *	  ledger (scbfrows.c, in passes bounded by maintenance_work_mem), the
 *	  filter table and the metapage are written, and the whole index is
 *	  WAL-logged with log_newpage_range(), as GiST and SP-GiST builds do.
 *
 * Portions Copyright (c) 2026, scbf developers
 *
 * IDENTIFICATION
 *	  src/scbfbuild.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/tableam.h"
#include "access/xloginsert.h"
#include "commands/progress.h"
#include "miscadmin.h"
#include "storage/smgr.h"
#include "utils/backend_progress.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "scbf.h"

/* Segments held to choose the filter geometry from */
#define SCBF_SIZING_SEGMENTS		16

/* Distinct keys a filter is sized for when no segment gives a measure */
#define SCBF_KEYS_PER_PAGE_GUESS	64

/* A segment's entries, held until the geometry is chosen or late */
typedef struct ScbfHeldSegment
{
	uint32		segno;
	int			n;
	char	   *entries;
} ScbfHeldSegment;

typedef struct ScbfBuildState
{
	Relation	index;
	int			ncols;
	Size		esize;			/* bytes per entry: TID, hash per column */
	ScbfState	state;			/* the layout's, for hashing */
	int			pages_per_segment;
	double		fpr;
	uint32		k;
	double		fill;
	uint32		m;				/* 0 until chosen */
	uint32		capacity;

	/* the segment being collected */
	bool		have_segment;
	uint32		segno;
	char	   *entries;
	int			nentries;
	int			maxentries;

	/* segments held for sizing, then entries that came late */
	List	   *held;
	Size		held_bytes;
	List	   *late;

	/* the filters written */
	ScbfFilter **filters;
	uint32		nfilters;
	uint32		maxfilters;

	/* statistics */
	double		indtuples;
	uint64		nentries_total;
	uint32		nsegments;
	uint32		nledger_pages;

	MemoryContext buildcxt;		/* lives as long as the build */
	MemoryContext segcxt;		/* reset after each segment written */
	MemoryContext tuplecxt;		/* reset after each tuple */
} ScbfBuildState;

/*
 * The pairs of column col of n entries, sorted; *distinct gets their
 * number of distinct hashes.
 */
static ScbfPair *
SortColumn(ScbfBuildState *bs, const char *entries, int n, int col,
				uint32 *distinct)
{
	ScbfPair  *pairs = palloc(sizeof(ScbfPair) * Max(n, 1));
	int			i;

	for (i = 0; i < n; i++)
	{
		pairs[i].hash = ScbfEntryGetHash(entries + bs->esize * i, col);
		pairs[i].item = ScbfEntryGetTid(entries + bs->esize * i);
	}
	ScbfSortPairs(pairs, n);
	*distinct = 0;
	for (i = 0; i < n; i++)
		if (i == 0 || pairs[i].hash != pairs[i - 1].hash)
			(*distinct)++;
	return pairs;
}

/*
 * Distinct keys of n entries, summed over the columns.
 */
static uint32
DistinctKeys(ScbfBuildState *bs, const char *entries, int n)
{
	uint32		total = 0;
	int			col;

	for (col = 0; col < bs->ncols; col++)
	{
		uint32		d;

		pfree(SortColumn(bs, entries, n, col, &d));
		total += d;
	}
	return total;
}

/*
 * The next free chain position of a segment (filters of a segment are
 * written together, except those of late entries).
 */
static uint16
NextPosition(ScbfBuildState *bs, uint32 segno)
{
	int64		i;

	for (i = (int64) bs->nfilters - 1; i >= 0; i--)
		if (ScbfFilterSegment(bs->filters[i]) == segno)
			return (uint16) (ScbfFilterChainPos(bs->filters[i]) + 1);
	return 0;
}

/*
 * Write one filter of segment segno holding entries[0 .. n): a run per
 * column, and its table entry in memory.
 */
static void
WriteFilter(ScbfBuildState *bs, uint32 segno, const char *entries,
				 int n)
{
	uint32		filterno = bs->nfilters;
	MemoryContext oldcxt;
	ScbfFilter *f;
	uint32		nkeys = 0;
	ScbfHash   *hashes = palloc(sizeof(ScbfHash) * n);
	uint16	   *items = palloc(sizeof(uint16) * n);
	int			col;
	int			i;

	if (bs->nfilters == bs->maxfilters)
	{
		bs->maxfilters *= 2;
		bs->filters = repalloc_huge(bs->filters,
									sizeof(ScbfFilter *) * bs->maxfilters);
	}
	oldcxt = MemoryContextSwitchTo(bs->buildcxt);
	f = ScbfNewFilter(bs->ncols, segno, NextPosition(bs, segno),
					   (uint32) n, 0);
	MemoryContextSwitchTo(oldcxt);
	for (col = 0; col < bs->ncols; col++)
	{
		uint32		distinct;
		uint32		npages;
		ScbfPair  *pairs = SortColumn(bs, entries, n, col, &distinct);

		for (i = 0; i < n; i++)
		{
			hashes[i] = pairs[i].hash;
			items[i] = pairs[i].item;
		}
		ScbfFilterSetRoot(f, col,
						   ScbfLedgerWrite(bs->index, segno, filterno, col,
											bs->state.col_bits[col], 0,
											hashes, items, n, &npages));
		bs->nledger_pages += npages;
		nkeys += distinct;
		pfree(pairs);
	}
	ScbfFilterSetKeys(f, nkeys);
	bs->filters[bs->nfilters++] = f;
	bs->nentries_total += n;
	pfree(hashes);
	pfree(items);
}

/*
 * Write a segment's entries as one filter, or as several split by ranges
 * of the first column's hash when it has more keys than a filter takes.
 */
static void
WriteSegment(ScbfBuildState *bs, uint32 segno, char *entries, int n)
{
	uint32		keys = DistinctKeys(bs, entries, n);
	uint32		nsplit = Min(Max((keys + bs->capacity - 1) / bs->capacity, 1),
							 SCBF_MAX_SPLIT);
	char	   *part;
	uint32		s;
	int			i;

	if (NextPosition(bs, segno) == 0)
		bs->nsegments++;
	if (nsplit == 1)
	{
		WriteFilter(bs, segno, entries, n);
		return;
	}
	part = palloc(bs->esize * n);
	for (s = 0; s < nsplit; s++)
	{
		int			np = 0;

		for (i = 0; i < n; i++)
		{
			const char *e = entries + bs->esize * i;

			if (ScbfHashRange(ScbfEntryGetHash(e, 0), bs->state.col_bits[0],
							  nsplit) == s)
				memcpy(part + bs->esize * np++, e, bs->esize);
		}
		if (np > 0)
			WriteFilter(bs, segno, part, np);
	}
	pfree(part);
}

/*
 * qsort comparator for doubles.
 */
static int
CmpDouble(const void *a, const void *b)
{
	double		x = *(const double *) a;
	double		y = *(const double *) b;

	return (x > y) - (x < y);
}

/*
 * The distinct keys a held segment would have if its rows filled all its
 * pages: a segment that ends early (the table's last one; the only one of
 * a small table) is scaled up by the pages it lacks, as if its keys grew
 * with its rows.  Sizing filters by a partial segment would make every
 * later, full one split into SCBF_MAX_SPLIT filters past their target.
 */
static double
FullSegmentKeys(ScbfBuildState *bs, ScbfHeldSegment *hs)
{
	BlockNumber used = 0;
	int			i;

	for (i = 0; i < hs->n; i++)
		used = Max(used,
				   ScbfTidRelBlock(ScbfEntryGetTid(hs->entries + bs->esize * i)) + 1);
	return (double) DistinctKeys(bs, hs->entries, hs->n) *
		bs->pages_per_segment / Max(used, 1);
}

/*
 * Choose m and the capacity from the held segments' distinct keys (the
 * 90th percentile, each scaled to a full segment, with headroom), then
 * write the held segments.
 */
static void
ChooseGeometry(ScbfBuildState *bs)
{
	int			nheld = list_length(bs->held);
	double	   *keys = palloc(sizeof(double) * Max(nheld, 1));
	double		target;
	ListCell   *lc;
	int			i = 0;

	foreach(lc, bs->held)
		keys[i++] = FullSegmentKeys(bs, lfirst(lc));
	if (nheld == 0)
		target = (double) bs->pages_per_segment * SCBF_KEYS_PER_PAGE_GUESS;
	else
	{
		qsort(keys, nheld, sizeof(double), CmpDouble);
		target = keys[Min((int) ceil(0.9 * nheld), nheld) - 1];
	}
	target = Max(target * SCBF_SIZING_HEADROOM, SCBF_MIN_FILTER_KEYS);
	bs->m = scbf_rows_m(target, bs->fill);
	bs->capacity = scbf_rows_capacity(bs->m, bs->fill);
	pfree(keys);

	foreach(lc, bs->held)
	{
		ScbfHeldSegment *hs = lfirst(lc);

		WriteSegment(bs, hs->segno, hs->entries, hs->n);
		pfree(hs->entries);
	}
	list_free_deep(bs->held);
	bs->held = NIL;
}

/*
 * The segment being collected is complete: hold it (until the geometry is
 * chosen) or write it.
 */
static void
FinishSegment(ScbfBuildState *bs)
{
	if (!bs->have_segment || bs->nentries == 0)
		return;
	if (bs->m == 0)
	{
		ScbfHeldSegment *hs = palloc(sizeof(ScbfHeldSegment));

		hs->segno = bs->segno;
		hs->n = bs->nentries;
		hs->entries = palloc(bs->esize * bs->nentries);
		memcpy(hs->entries, bs->entries, bs->esize * bs->nentries);
		bs->held = lappend(bs->held, hs);
		bs->held_bytes += bs->esize * bs->nentries;
		if (list_length(bs->held) >= SCBF_SIZING_SEGMENTS ||
			bs->held_bytes > (Size) maintenance_work_mem * 1024 / 4)
			ChooseGeometry(bs);
	}
	else
	{
		MemoryContext oldcxt = MemoryContextSwitchTo(bs->segcxt);

		WriteSegment(bs, bs->segno, bs->entries, bs->nentries);
		MemoryContextSwitchTo(oldcxt);
		MemoryContextReset(bs->segcxt);
	}
	bs->nentries = 0;
}

/*
 * table_index_build_scan callback: one heap tuple.
 */
static void
BuildCallback(Relation index, ItemPointer tid, Datum *values,
				   bool *isnull, bool tupleIsAlive, void *state)
{
	ScbfBuildState *bs = (ScbfBuildState *) state;
	BlockNumber blk = ItemPointerGetBlockNumber(tid);
	uint32		segno = blk / bs->pages_per_segment;
	MemoryContext oldcxt = MemoryContextSwitchTo(bs->buildcxt);
	char	   *e;
	int			col;

	if (bs->have_segment && segno < bs->segno)
	{
		/* out of order: written as an extra filter of its segment */
		ScbfHeldSegment *hs = palloc(sizeof(ScbfHeldSegment));

		hs->segno = segno;
		hs->n = 1;
		hs->entries = e = palloc(bs->esize);
		bs->late = lappend(bs->late, hs);
	}
	else
	{
		if (!bs->have_segment || segno != bs->segno)
		{
			FinishSegment(bs);
			bs->have_segment = true;
			bs->segno = segno;
		}
		if (bs->nentries == bs->maxentries)
		{
			bs->maxentries *= 2;
			bs->entries = repalloc(bs->entries, bs->esize * bs->maxentries);
		}
		e = bs->entries + bs->esize * bs->nentries++;
	}

	/* hashing may detoast: in the per-tuple context */
	MemoryContextSwitchTo(bs->tuplecxt);
	ScbfEntrySetTid(e, ScbfTidMake(blk % bs->pages_per_segment,
								   ItemPointerGetOffsetNumber(tid)));
	for (col = 0; col < bs->ncols; col++)
		ScbfEntrySetHash(e, col, isnull[col] ? SCBF_NULL_HASH :
						 ScbfHashDatum(index, col, bs->state.col_bits[col],
									   values[col]));
	MemoryContextSwitchTo(oldcxt);
	MemoryContextReset(bs->tuplecxt);
	bs->indtuples += 1;

	if (((uint64) bs->indtuples & 1023) == 0)
		pgstat_progress_update_param(PROGRESS_CREATEIDX_TUPLES_DONE,
									 (int64) bs->indtuples);
}

/*
 * qsort comparator of late entries by segment.
 */
static int
CmpLate(const ListCell *a, const ListCell *b)
{
	const ScbfHeldSegment *x = lfirst(a);
	const ScbfHeldSegment *y = lfirst(b);

	return (x->segno > y->segno) - (x->segno < y->segno);
}

/*
 * Write the late entries, one extra filter per segment.
 */
static void
WriteLate(ScbfBuildState *bs)
{
	char	   *entries;
	int			n = 0;
	ListCell   *lc;

	if (bs->late == NIL)
		return;
	list_sort(bs->late, CmpLate);
	entries = palloc(bs->esize * list_length(bs->late));
	foreach(lc, bs->late)
	{
		ScbfHeldSegment *hs = lfirst(lc);

		memcpy(entries + bs->esize * n++, hs->entries, bs->esize);
		if (lnext(bs->late, lc) == NULL ||
			((ScbfHeldSegment *) lfirst(lnext(bs->late, lc)))->segno != hs->segno)
		{
			WriteSegment(bs, hs->segno, entries, n);
			n = 0;
		}
	}
	pfree(entries);
}

/* What the row pass needs to enumerate a filter's keys */
typedef struct ScbfKeysArg
{
	ScbfBuildState *bs;
	BlockNumber nblocks;
} ScbfKeysArg;

/*
 * ScbfKeysFn of the build: a filter's keys, from its ledger.
 */
static void
BuildFilterKeys(uint32 filterno, ScbfKeyFn emit, void *emit_arg, void *arg)
{
	ScbfKeysArg *ka = (ScbfKeysArg *) arg;

	(void) ScbfLedgerKeys(ka->bs->index, ka->bs->ncols,
						  ka->bs->filters[filterno], 0, emit, emit_arg, false,
						  ka->nblocks);
}

/*
 * The options in force: reloptions, else the defaults.
 */
static void
GetOptions(Relation index, int *pages_per_segment, double *fpr,
		   int *hash_bits)
{
	ScbfOptions *opts = (ScbfOptions *) index->rd_options;

	*pages_per_segment = opts ? opts->pages_per_segment :
		SCBF_DEFAULT_PAGES_PER_SEGMENT;
	*fpr = opts ? opts->false_positive_rate : SCBF_DEFAULT_FPR;
	*hash_bits = opts ? opts->hash_bits : SCBF_DEFAULT_HASH_BITS;
}

/*
 * Fill in a layout's frozen part for an index with these options.
 */
static void
InitLayout(Relation index, ScbfLayout *layout)
{
	memset(layout, 0, sizeof(ScbfLayout));
	GetOptions(index, &layout->pages_per_segment, &layout->target_fpr,
			   &layout->hash_bits);
	layout->ncols = IndexRelationGetNumberOfKeyAttributes(index);
	layout->extended_cols = layout->hash_bits > 32 ?
		ScbfExtendedColumns(index) : 0;
	layout->k = (uint32) scbf_rows_k(layout->target_fpr);
	layout->bands.nbands = 0;
	layout->bands.bands = NULL;
}

/*
 * Write the bands, the filter table and the metapage of a built index: as
 * many bands as the filters need (ScbfBandLimit), the last with room for
 * an eighth more.
 */
static void
BuildFinish(ScbfBuildState *bs, ScbfLayout *layout)
{
	ScbfState	state;
	uint32	   *nset;
	Buffer		metabuf;
	double		sum_fpr = 0;
	uint32		f;

	layout->m = bs->m;
	layout->capacity = bs->capacity;
	layout->nfilters = bs->nfilters;
	layout->nentries = bs->nentries_total;
	layout->nsegments = bs->nsegments;
	layout->nledger_pages = bs->nledger_pages;

	ScbfInitState(&state, layout);
	nset = palloc0(sizeof(uint32) * Max(bs->nfilters, 1) * layout->k);
	/* a band holds 8 filters at least */
	layout->bands.bands = palloc(sizeof(ScbfBand) * (bs->nfilters / 8 + 2));
	while (ScbfBandsEnd(&layout->bands) < bs->nfilters)
	{
		uint32		first = ScbfBandsEnd(&layout->bands);
		ScbfBand   *band = &layout->bands.bands[layout->bands.nbands];
		ScbfKeysArg ka;

		ScbfBandPlan(first, bs->nfilters, SCBF_BAND_SPARE_BUILT, layout->k,
					 ScbfBandM(layout->m, layout->capacity, layout->k,
							   layout->bands.nbands),
					 layout->capacity, band);
		band->serial = layout->bands.nbands + 1;
		layout->bands.nbands++;
		ka.bs = bs;
		ka.nblocks = RelationGetNumberOfBlocks(bs->index);
		ScbfBandBuild(bs->index, &state, band, bs->nfilters,
					   BuildFilterKeys, &ka, nset);
	}
	ScbfBandDirBuild(bs->index, &layout->bands, &layout->dir);
	/* the summaries of groups of bands, past one band; past one group, the top */
	{
		ScbfKeysArg ka;
		ScbfBand	top;

		ka.bs = bs;
		ka.nblocks = RelationGetNumberOfBlocks(bs->index);
		layout->bands.groups = palloc(sizeof(ScbfBand) * SCBF_MAX_GROUPS);
		ScbfGroupsBuild(bs->index, &state, &layout->bands, bs->nfilters,
						BuildFilterKeys, &ka);
		if (ScbfTopNeeded(&layout->bands, PG_UINT64_MAX))
		{
			ka.nblocks = RelationGetNumberOfBlocks(bs->index);
			layout->bands.covered =
				ScbfTopWrite(bs->index, &state, &layout->bands,
							 bs->nfilters, BuildFilterKeys, &ka, true, &top);
			layout->bands.top = top;
		}
	}
	for (f = 0; f < bs->nfilters; f++)
	{
		ScbfFilterSetBits(bs->filters[f], layout->k, nset + f * layout->k);
		sum_fpr += ScbfFilterFpr(bs->filters[f], layout->k,
								 ScbfBandOf(&layout->bands, f)->geom.m);
	}
	layout->mean_fpr = bs->nfilters ? sum_fpr / bs->nfilters : 0;
	ScbfWriteTable(bs->index, bs->ncols, bs->filters, bs->nfilters, layout);

	metabuf = ReadBuffer(bs->index, SCBF_METAPAGE_BLKNO);
	LockBuffer(metabuf, BUFFER_LOCK_EXCLUSIVE);
	ScbfInitMetaPage(BufferGetPage(metabuf), layout);
	MarkBufferDirty(metabuf);
	UnlockReleaseBuffer(metabuf);
}

/*
 * scbfbuild
 *		ambuild: the whole index, from one pass over the table.
 */
IndexBuildResult *
scbfbuild(Relation heap, Relation index, IndexInfo *indexInfo)
{
	IndexBuildResult *result;
	ScbfBuildState bs;
	ScbfLayout layout;
	Buffer		metabuf;
	double		reltuples;

	if (RelationGetNumberOfBlocks(index) != 0)
		elog(ERROR, "index \"%s\" already contains data",
			 RelationGetRelationName(index));
	/* no index whose equality is not its columns' (scbfvalidate.c) */
	ScbfCheckIndexEquality(index);

	/* block 0 is the metapage, written last */
	metabuf = ScbfNewBuffer(index);
	Assert(BufferGetBlockNumber(metabuf) == SCBF_METAPAGE_BLKNO);
	UnlockReleaseBuffer(metabuf);

	InitLayout(index, &layout);
	memset(&bs, 0, sizeof(bs));
	bs.index = index;
	ScbfInitState(&bs.state, &layout);
	bs.ncols = layout.ncols;
	bs.esize = ScbfEntrySize(bs.ncols);
	bs.pages_per_segment = layout.pages_per_segment;
	bs.fpr = layout.target_fpr;
	bs.k = layout.k;
	bs.fill = scbf_rows_fill(bs.fpr, bs.k);
	bs.maxentries = 1024;
	bs.entries = palloc(bs.esize * bs.maxentries);
	bs.maxfilters = 64;
	bs.filters = palloc(sizeof(ScbfFilter *) * bs.maxfilters);
	bs.buildcxt = CurrentMemoryContext;
	bs.segcxt = AllocSetContextCreate(CurrentMemoryContext,
									  "scbf build segment context",
									  ALLOCSET_DEFAULT_SIZES);
	bs.tuplecxt = AllocSetContextCreate(CurrentMemoryContext,
										"scbf build tuple context",
										ALLOCSET_DEFAULT_SIZES);

	pgstat_progress_update_param(PROGRESS_CREATEIDX_SUBPHASE,
								 PROGRESS_SCBF_PHASE_SCAN);
	/* no syncscan: we want the heap blocks in physical order */
	reltuples = table_index_build_scan(heap, index, indexInfo, false, true,
									   BuildCallback, (void *) &bs, NULL);
	FinishSegment(&bs);
	if (bs.m == 0)
		ChooseGeometry(&bs);
	WriteLate(&bs);
	BuildFinish(&bs, &layout);

	pgstat_progress_update_param(PROGRESS_CREATEIDX_SUBPHASE,
								 PROGRESS_SCBF_PHASE_LOG);
	if (RelationNeedsWAL(index))
		log_newpage_range(index, MAIN_FORKNUM, 0,
						  RelationGetNumberOfBlocks(index), true);
	MemoryContextDelete(bs.segcxt);
	MemoryContextDelete(bs.tuplecxt);

	result = (IndexBuildResult *) palloc(sizeof(IndexBuildResult));
	result->heap_tuples = reltuples;
	result->index_tuples = bs.indtuples;
	return result;
}

/*
 * scbfbuildempty
 *		ambuildempty: the metapage of an empty index in the init fork,
 *		logged explicitly (generic WAL would skip an unlogged relation), as
 *		contrib/bloom and BRIN do.
 */
void
scbfbuildempty(Relation index)
{
	ScbfLayout layout;
	Page		metapage = (Page) palloc0(BLCKSZ);

	InitLayout(index, &layout);
	layout.m = scbf_rows_m((double) layout.pages_per_segment *
						   SCBF_KEYS_PER_PAGE_GUESS * SCBF_SIZING_HEADROOM,
						   scbf_rows_fill(layout.target_fpr, layout.k));
	layout.capacity = scbf_rows_capacity(layout.m,
										 scbf_rows_fill(layout.target_fpr,
														layout.k));
	ScbfInitMetaPage(metapage, &layout);

	PageSetChecksumInplace(metapage, SCBF_METAPAGE_BLKNO);
	smgrwrite(RelationGetSmgr(index), INIT_FORKNUM, SCBF_METAPAGE_BLKNO,
			  (char *) metapage, true);
	log_newpage(ScbfSmgrLocator(RelationGetSmgr(index)), INIT_FORKNUM,
				SCBF_METAPAGE_BLKNO, metapage, true);
	smgrimmedsync(RelationGetSmgr(index), INIT_FORKNUM);
	pfree(metapage);
}
