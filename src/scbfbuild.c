/*-------------------------------------------------------------------------
 *
 * scbfbuild.c
 *	  Build an scbf index: one pass over the heap in block order.
 *
 * NOTES
 *	  The heap is scanned without syncscan, so tuples arrive one segment at
 *	  a time.  The entries of the current segment are buffered; when the
 *	  scan moves on, the segment's filter is sized from its real number of
 *	  distinct keys (so duplicates cost nothing), filled, and written with
 *	  its ledger.  Pages are written through shared buffers without WAL and
 *	  logged once at the end with log_newpage_range(), as GiST and SP-GiST
 *	  builds do; the index is invisible until the build commits.
 *
 *	  Tuples that arrive out of segment order, or for segments past the
 *	  directory pages allocated at the start (the heap can grow during
 *	  CREATE INDEX CONCURRENTLY), are kept aside and inserted through the
 *	  ordinary WAL-logged insert path once the index is complete.
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

#include "scbf2.h"

/* An entry that could not be written in segment order */
typedef struct ScbfLateEntry
{
	uint32		segno;
	char		entry[FLEXIBLE_ARRAY_MEMBER];
} ScbfLateEntry;

typedef struct ScbfBuildState
{
	Relation	index;
	ScbfState  *state;

	/* the segment being collected */
	bool		have_segment;
	uint32		segno;
	char	   *entries;
	int			nentries;
	int			maxentries;

	/* the directory, written at the end */
	ScbfSegEntry *dir;
	uint32		ndirslots;

	/* entries to insert after the build */
	List	   *late;

	/* statistics for the metapage */
	double		indtuples;
	uint32		nsegments;
	uint32		nfilters;
	uint32		nfilter_pages;
	uint32		nledger_pages;
	double		sum_fpr;
	uint64		sum_keys;		/* distinct keys of all but the last segment */
	uint32		last_keys;

	MemoryContext segcxt;		/* reset after each segment */
	MemoryContext tmpcxt;		/* reset after each tuple */
} ScbfBuildState;

/*
 * The options in force for an index: its reloptions, or the defaults when
 * it has none (amoptions is not called then and rd_options stays NULL).
 */
static void
ScbfGetOptions(Relation index, int *pages_per_segment, double *fpr)
{
	ScbfOptions *opts = (ScbfOptions *) index->rd_options;

	*pages_per_segment = opts ? opts->pages_per_segment :
		SCBF_DEFAULT_PAGES_PER_SEGMENT;
	*fpr = opts ? opts->false_positive_rate : SCBF_DEFAULT_FPR;
}

/*
 * qsort comparator for 64-bit keys.
 */
static int
ScbfCmpUint64(const void *a, const void *b)
{
	uint64		x = *(const uint64 *) a;
	uint64		y = *(const uint64 *) b;

	return (x > y) - (x < y);
}

/*
 * Number of distinct (column, hash) keys among n packed entries.
 */
uint64
ScbfCountDistinctKeys(ScbfState *state, const char *entries, int n)
{
	int			ncols = state->ncols;
	uint64	   *keys;
	uint64		distinct = 0;
	int			i;
	int			c;

	if (n == 0)
		return 0;
	keys = palloc(sizeof(uint64) * n * ncols);
	for (i = 0; i < n; i++)
		for (c = 0; c < ncols; c++)
			keys[i * ncols + c] = ((uint64) c << 32) |
				ScbfEntryGetHash(entries + state->entry_size * i, c);
	qsort(keys, (size_t) n * ncols, sizeof(uint64), ScbfCmpUint64);
	for (i = 0; i < n * ncols; i++)
		if (i == 0 || keys[i] != keys[i - 1])
			distinct++;
	pfree(keys);
	return distinct;
}

/*
 * Write the buffered segment: a filter sized for its distinct keys and its
 * ledger, unlogged (see file header), and its directory entry in memory.
 */
static void
ScbfBuildFlushSegment(ScbfBuildState *bs)
{
	ScbfState  *state = bs->state;
	MemoryContext oldcxt;
	uint64		nkeys;
	int			nblocks;
	int			nledger;
	int			npages;
	Buffer	   *bufs;
	ScbfKeyPos *kp;
	uint16	   *kblk;
	int		   *order;
	ScbfFilterPageData *head;
	ScbfSegEntry *entry;
	double		fpr = 0;
	int			i;
	int			b;
	const uint32 serial = 1;

	if (!bs->have_segment || bs->nentries == 0)
		return;

	oldcxt = MemoryContextSwitchTo(bs->segcxt);

	nkeys = ScbfCountDistinctKeys(state, bs->entries, bs->nentries);
	nblocks = ScbfFilterBlocksFor(state, nkeys);
	nledger = Max(1, (bs->nentries + state->ledger_capacity - 1) /
				  state->ledger_capacity);
	npages = nblocks + nledger;

	bufs = palloc(sizeof(Buffer) * npages);
	for (i = 0; i < npages; i++)
		bufs[i] = ScbfNewBuffer(bs->index);

	/* filter blocks */
	for (b = 0; b < nblocks; b++)
		ScbfInitFilterPage(BufferGetPage(bufs[b]), state, bs->segno, serial,
						   (uint16) b);
	head = ScbfPageGetFilter(BufferGetPage(bufs[0]));
	head->nblocks = nblocks;
	head->nlinked = nblocks;
	head->state = SCBF_FILTER_ACTIVE;
	for (b = 0; b < nblocks; b++)
		head->blocks[b] = BufferGetBlockNumber(bufs[b]);
	head->ledger_head = BufferGetBlockNumber(bufs[nblocks]);
	head->ledger_tail = BufferGetBlockNumber(bufs[npages - 1]);
	head->nledger_pages = nledger;
	/* the last ledger page counts its own entries */
	head->nsealed = (nledger - 1) * state->ledger_capacity;

	ScbfPlaceEntries(state, bs->entries, bs->nentries, nblocks,
					 &kp, &kblk, &order);
	for (i = 0; i < bs->nentries * state->ncols; i++)
	{
		Page		page = BufferGetPage(bufs[kblk[i]]);

		(void) scbf_filter_add(ScbfPageGetCounters(page),
							   ScbfPageGetFilter(page)->nonzero,
							   &ScbfPageGetFilter(page)->nsaturated,
							   &state->geom, kp[i].pos);
	}
	for (b = 0; b < nblocks; b++)
	{
		double		bfpr;

		bfpr = scbf_filter_state_fpr(ScbfPageGetFilter(BufferGetPage(bufs[b]))->nonzero,
									 &state->geom);
		fpr += bfpr / nblocks;
	}

	/* ledger pages, entries in TID order */
	for (i = 0; i < nledger; i++)
	{
		Page		page = BufferGetPage(bufs[nblocks + i]);
		ScbfLedgerPageData *ledger;
		int			first = i * state->ledger_capacity;
		int			cnt = Min((int) state->ledger_capacity,
							  bs->nentries - first);

		ScbfInitLedgerPage(page, bs->segno, serial);
		ledger = ScbfPageGetLedger(page);
		memcpy(ScbfPageGetEntries(page),
			   bs->entries + state->entry_size * first,
			   state->entry_size * cnt);
		ledger->nentries = cnt;
		if (i + 1 < nledger)
			ledger->next = BufferGetBlockNumber(bufs[nblocks + i + 1]);
		ScbfLedgerSetLower(page, state);
	}

	for (i = 0; i < npages; i++)
	{
		MarkBufferDirty(bufs[i]);
		UnlockReleaseBuffer(bufs[i]);
	}

	entry = &bs->dir[bs->segno];
	entry->head = entry->tail = head->blocks[0];
	entry->head_serial = entry->tail_serial = serial;
	entry->next_serial = serial + 1;
	entry->nfilters = 1;

	bs->nsegments++;
	bs->nfilters++;
	bs->nfilter_pages += nblocks;
	bs->nledger_pages += nledger;
	bs->sum_fpr += fpr;
	if (bs->nsegments > 1)
		bs->sum_keys += bs->last_keys;
	bs->last_keys = (uint32) Min(nkeys, PG_UINT32_MAX);

	MemoryContextSwitchTo(oldcxt);
	MemoryContextReset(bs->segcxt);
	bs->nentries = 0;
}

/*
 * Build callback: hash the tuple's columns and buffer its entry with its
 * segment, flushing the previous segment when the scan moves past it.
 */
static void
ScbfBuildCallback(Relation index, ItemPointer tid, Datum *values,
				  bool *isnull, bool tupleIsAlive, void *arg)
{
	ScbfBuildState *bs = (ScbfBuildState *) arg;
	ScbfState  *state = bs->state;
	BlockNumber blkno = ItemPointerGetBlockNumber(tid);
	uint32		segno = blkno / state->pages_per_segment;
	MemoryContext oldcxt;
	char		entry[ScbfEntrySize(INDEX_MAX_KEYS)];
	int			col;

	oldcxt = MemoryContextSwitchTo(bs->tmpcxt);
	ScbfEntrySetTid(entry,
					ScbfTidMake(blkno % state->pages_per_segment,
								ItemPointerGetOffsetNumber(tid)));
	for (col = 0; col < state->ncols; col++)
		ScbfEntrySetHash(entry, col,
						 isnull[col] ? SCBF_NULL_HASH :
						 ScbfHashDatum(index, col, values[col]));
	MemoryContextSwitchTo(oldcxt);
	MemoryContextReset(bs->tmpcxt);

	bs->indtuples += 1;

	if (segno >= SCBF_MAX_SEGMENTS)
		return;					/* unindexed: scans return it whole */

	if (segno >= bs->ndirslots ||
		(bs->have_segment && segno < bs->segno))
	{
		ScbfLateEntry *late = palloc(offsetof(ScbfLateEntry, entry) +
									 state->entry_size);

		late->segno = segno;
		memcpy(late->entry, entry, state->entry_size);
		bs->late = lappend(bs->late, late);
		return;
	}

	if (!bs->have_segment || segno != bs->segno)
	{
		ScbfBuildFlushSegment(bs);
		bs->have_segment = true;
		bs->segno = segno;
	}

	if (bs->nentries >= bs->maxentries)
	{
		bs->maxentries *= 2;
		bs->entries = repalloc(bs->entries,
							   state->entry_size * bs->maxentries);
	}
	memcpy(bs->entries + state->entry_size * bs->nentries, entry,
		   state->entry_size);
	bs->nentries++;

	if (((uint64) bs->indtuples & 1023) == 0)
		pgstat_progress_update_param(PROGRESS_CREATEIDX_TUPLES_DONE,
									 (int64) bs->indtuples);
}

/*
 * Write the directory pages (allocated right after the metapage) and the
 * metapage with its map and statistics, unlogged like the rest of the build.
 */
static void
ScbfBuildWriteDirectory(ScbfBuildState *bs, Buffer metabuf,
						BlockNumber *dirblocks, uint32 ndirpages)
{
	ScbfMetaPageData *meta = ScbfPageGetMeta(BufferGetPage(metabuf));
	uint32		d;

	for (d = 0; d < ndirpages; d++)
	{
		Buffer		buf = ReadBuffer(bs->index, dirblocks[d]);
		Page		page;

		LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
		page = BufferGetPage(buf);
		ScbfInitDirPage(page, d);
		memcpy(ScbfPageGetDir(page), bs->dir + (uint64) d * SCBF_DIR_ENTRIES_PER_PAGE,
			   sizeof(ScbfSegEntry) * SCBF_DIR_ENTRIES_PER_PAGE);
		MarkBufferDirty(buf);
		UnlockReleaseBuffer(buf);
		meta->dirpages[d] = dirblocks[d];
	}
	meta->ndirpages = ndirpages;

	meta->nsegments = bs->nsegments;
	meta->nfilters = bs->nfilters;
	meta->nfilter_pages = bs->nfilter_pages;
	meta->nledger_pages = bs->nledger_pages;
	meta->nentries = (uint64) bs->indtuples;
	meta->mean_fpr = bs->nsegments > 0 ? bs->sum_fpr / bs->nsegments : 0;
	if (bs->nsegments > 1)
		meta->keys_hint = (uint32) (bs->sum_keys / (bs->nsegments - 1));
	else
		meta->keys_hint = bs->last_keys;
	MarkBufferDirty(metabuf);
}

/*
 * ambuild: build a new scbf index over the heap.
 */
IndexBuildResult *
scbfbuild(Relation heap, Relation index, IndexInfo *indexInfo)
{
	IndexBuildResult *result;
	ScbfBuildState bs;
	int			pages_per_segment;
	double		fpr;
	Buffer		metabuf;
	BlockNumber heapblocks;
	uint64		nsegs;
	uint32		ndirpages;
	BlockNumber *dirblocks;
	double		reltuples;
	uint32		d;
	ListCell   *lc;

	if (scbf_build_format == SCBF2_FORMAT_VERSION)
		return scbf2build(heap, index, indexInfo);

	if (RelationGetNumberOfBlocks(index) != 0)
		elog(ERROR, "index \"%s\" already contains data",
			 RelationGetRelationName(index));

	ScbfGetOptions(index, &pages_per_segment, &fpr);

	/* metapage first, so that block 0 is the metapage */
	metabuf = ScbfNewBuffer(index);
	Assert(BufferGetBlockNumber(metabuf) == SCBF_METAPAGE_BLKNO);
	ScbfInitMetaPage(BufferGetPage(metabuf), index, pages_per_segment, fpr);

	memset(&bs, 0, sizeof(bs));
	bs.index = index;
	bs.state = ScbfAllocState(CurrentMemoryContext);
	ScbfStateFromMeta(bs.state, ScbfPageGetMeta(BufferGetPage(metabuf)));
	MarkBufferDirty(metabuf);
	UnlockReleaseBuffer(metabuf);	/* never hold a page lock across the scan */

	/* directory pages for every segment the heap has now */
	heapblocks = RelationGetNumberOfBlocks(heap);
	nsegs = (heapblocks + pages_per_segment - 1) / pages_per_segment;
	if (nsegs > SCBF_MAX_SEGMENTS)
		ereport(WARNING,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("index \"%s\" covers only the first %llu of the %u blocks of table \"%s\"",
						RelationGetRelationName(index),
						(unsigned long long) SCBF_MAX_SEGMENTS * pages_per_segment,
						heapblocks, RelationGetRelationName(heap)),
				 errdetail("An scbf index has at most %llu segments; scans read the rest of the table whole.",
						   (unsigned long long) SCBF_MAX_SEGMENTS),
				 errhint("Use a larger pages_per_segment, or partition the table.")));
	ndirpages = (uint32) Min((nsegs + SCBF_DIR_ENTRIES_PER_PAGE - 1) /
							 SCBF_DIR_ENTRIES_PER_PAGE,
							 (uint64) SCBF_MAX_DIR_PAGES);
	dirblocks = palloc(sizeof(BlockNumber) * Max(ndirpages, 1));
	for (d = 0; d < ndirpages; d++)
	{
		Buffer		buf = ScbfNewBuffer(index);

		dirblocks[d] = BufferGetBlockNumber(buf);
		ScbfInitDirPage(BufferGetPage(buf), d);
		MarkBufferDirty(buf);
		UnlockReleaseBuffer(buf);
	}
	bs.ndirslots = ndirpages * SCBF_DIR_ENTRIES_PER_PAGE;
	bs.dir = MemoryContextAllocExtended(CurrentMemoryContext,
										sizeof(ScbfSegEntry) * Max(bs.ndirslots, 1),
										MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);

	bs.maxentries = 1024;
	bs.entries = palloc(bs.state->entry_size * bs.maxentries);
	bs.segcxt = AllocSetContextCreate(CurrentMemoryContext,
									  "scbf build segment context",
									  ALLOCSET_DEFAULT_SIZES);
	bs.tmpcxt = AllocSetContextCreate(CurrentMemoryContext,
									  "scbf build temporary context",
									  ALLOCSET_DEFAULT_SIZES);

	pgstat_progress_update_param(PROGRESS_CREATEIDX_SUBPHASE,
								 PROGRESS_SCBF_PHASE_SCAN);
	/* no syncscan: we want the heap blocks in physical order */
	reltuples = table_index_build_scan(heap, index, indexInfo, false, true,
									   ScbfBuildCallback, (void *) &bs, NULL);
	ScbfBuildFlushSegment(&bs);

	/* segments of the heap in which the build found no tuple */
	for (d = 0; d < Min(nsegs, bs.ndirslots); d++)
		if (ScbfSegEntryIsEmpty(&bs.dir[d]))
			bs.dir[d].flags |= SCBF_SEG_EMPTY;

	metabuf = ReadBuffer(index, SCBF_METAPAGE_BLKNO);
	LockBuffer(metabuf, BUFFER_LOCK_EXCLUSIVE);
	ScbfBuildWriteDirectory(&bs, metabuf, dirblocks, ndirpages);
	UnlockReleaseBuffer(metabuf);

	pgstat_progress_update_param(PROGRESS_CREATEIDX_SUBPHASE,
								 PROGRESS_SCBF_PHASE_LOG);
	if (RelationNeedsWAL(index))
		log_newpage_range(index, MAIN_FORKNUM, 0,
						  RelationGetNumberOfBlocks(index), true);

	/* stragglers go through the ordinary, WAL-logged insert path */
	if (bs.late != NIL)
	{
		ScbfState  *state;

		index->rd_amcache = NULL;	/* read the finished metapage */
		state = ScbfGetState(index);
		foreach(lc, bs.late)
		{
			ScbfLateEntry *late = (ScbfLateEntry *) lfirst(lc);

			ScbfInsertEntry(index, state, late->segno, late->entry);
		}
	}

	MemoryContextDelete(bs.segcxt);
	MemoryContextDelete(bs.tmpcxt);

	result = (IndexBuildResult *) palloc(sizeof(IndexBuildResult));
	result->heap_tuples = reltuples;
	result->index_tuples = bs.indtuples;
	return result;
}

/*
 * ambuildempty: write the metapage of an empty index into the init fork
 * (unlogged tables).  Generic WAL would skip an unlogged relation, so the
 * page is logged explicitly, as contrib/bloom and BRIN do.
 */
void
scbfbuildempty(Relation index)
{
	Page		metapage;
	int			pages_per_segment;
	double		fpr;

	if (scbf_build_format == SCBF2_FORMAT_VERSION)
	{
		scbf2buildempty(index);
		return;
	}

	ScbfGetOptions(index, &pages_per_segment, &fpr);
	metapage = (Page) palloc0(BLCKSZ);
	ScbfInitMetaPage(metapage, index, pages_per_segment, fpr);

	PageSetChecksumInplace(metapage, SCBF_METAPAGE_BLKNO);
	smgrwrite(RelationGetSmgr(index), INIT_FORKNUM, SCBF_METAPAGE_BLKNO,
			  (char *) metapage, true);
	log_newpage(ScbfSmgrLocator(RelationGetSmgr(index)), INIT_FORKNUM,
				SCBF_METAPAGE_BLKNO, metapage, true);
	smgrimmedsync(RelationGetSmgr(index), INIT_FORKNUM);
	pfree(metapage);
}
