/*-------------------------------------------------------------------------
 *
 * scbfverify.c
 *	  The verifier and its SQL entry, scbf_verify().
 *
 * NOTES
 *	  scbf_verify opens the index and its table (ScbfOpenIndex) and runs
 *	  VerifyIndex.  Everything is checked as of one metapage copy:
 *
 *	  - the metapage: layout (ScbfReadMeta checks it), band, filter table
 *		pages, pending heads, graves and serial marks within the index and
 *		their bounds;
 *	  - the filter table: known states, one chain position per segment and
 *		position, and for each filter in use the root of every column, of
 *		the right type, column and owner;
 *	  - every run of every root: a supersession after its making, fences
 *		in order, leaves of the right type, column, segment and run serial
 *		whose fence is the root's, posting lists that decode in hash order
 *		and continue across leaves, items in order and within the segment's
 *		blocks, as many as the run says;
 *	  - no heap tuple twice among the visible runs of one segment's
 *		filters, those a consolidation merged into another left out
 *		(VACUUM would count it twice);
 *	  - invariant I4 (src/README): for every entry of a visible run,
 *		all k bits of its hash are set in its filter's column of the band,
 *		or the delta names its key; else probes would miss the entry (a
 *		false negative); and the summary of its band's group has its key;
 *	  - the groups of bands: each summary's map and pages, and a group for
 *		every band once there are two (up to SCBF_MAX_GROUPS);
 *	  - the delta: pages of their partition, entries of a known column in
 *		the partition of their key;
 *	  - the pending chains: pages of their partition with consecutive
 *		serials, entries that fit and belong to the partition, no loop, no
 *		link out of the index, the metapage's tail on the chain;
 *	  - the graves: known kinds, superseded band pages and pending pieces
 *		that are still such pages;
 *	  - every block named at most once, and inside the index (the block
 *		census, ScbfCensus, claims each first); blocks named by nothing
 *		that are not free are leaks (NOTICE);
 *	  - with heapallindexed, every heap tuple an MVCC snapshot taken before
 *		the index was read sees has its entry (TID and the hash of every
 *		column) in a visible run of a filter of its segment, or in the
 *		pending area past the cuts.
 *
 *	  Corruption is ERRCODE_INDEX_CORRUPTED, naming the block.  The filter
 *	  table's counts (entries, keys, set bits per slice) are statistics: a
 *	  crash between a fold's records can leave them ahead of the ledger
 *	  (src/README), so a difference is a NOTICE.  The keys are an
 *	  upper bound even without a crash (a fold adds the distinct keys it
 *	  brings, some of which the filter may hold already; VACUUM recounts
 *	  them): only fewer keys than the ledger holds is reported.
 *
 *	  Locks: AccessShareLock on the table and the index, and on a primary
 *	  the fold lock in share mode for the whole check (as a probe takes it
 *	  when it must), so no fold or VACUUM commits or frees pages meanwhile;
 *	  inserts go on appending to the pending area, whose chains are walked
 *	  to their current ends.  Nothing is written.  On a hot standby no lock
 *	  holds off replay, which may apply a fold or VACUUM of the primary
 *	  under the check: a structure the check read before may then lead to
 *	  a page since freed or reused.  So a corruption met while replay moved
 *	  (any record, not only the metapage's: VACUUM frees a root before its
 *	  last record reaches the metapage) is reported as a serialization
 *	  failure to retry, not as corruption (VerifyIndex).
 *
 *	  This file does not include scbf_page.h: it reads pages through the
 *	  readers of the page-kind modules (scbf.h) and decodes posting lists
 *	  with the server-free codec.
 *
 * Portions Copyright (c) 2026, scbf developers
 *
 * IDENTIFICATION
 *	  src/scbfverify.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/tableam.h"
#include "access/xlog.h"
#include "access/xlogrecovery.h"
#include "catalog/index.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "scbf.h"
#include "scbfpostinglist.h"

PG_FUNCTION_INFO_V1(scbf_verify);

/* One entry of one column, for heapallindexed: a heap TID and a hash */
typedef struct ScbfVEntry
{
	BlockNumber blkno;
	OffsetNumber offnum;
	ScbfHash	hash;
} ScbfVEntry;

/* An array of entries of one column */
typedef struct ScbfVEntries
{
	ScbfVEntry *e;
	Size		n;
	Size		max;
} ScbfVEntries;

typedef struct ScbfVerifyState
{
	Relation	index;
	Relation	heap;
	ScbfState *state;
	ScbfMeta  *meta;
	ScbfMetaInfoData mi;
	BlockNumber nblocks;
	uint8	   *named;			/* per block: the ScbfPageKind that named
								 * it, SCBF_KIND_NEW if nothing did */
	ScbfFilter **table;
	uint8	  **rows;			/* per band, its rows, page after page; NULL
								 * if the bands are too large to hold */
	ScbfRowKey *delta;			/* the delta's keys, sorted */
	int			ndelta;
	bool		heapallindexed;
	ScbfVEntries entries[INDEX_MAX_KEYS];

	/* the I4 check of the filter at hand */
	uint32		filterno;
	int			col;
	BlockNumber root;

	/*
	 * The first column's items in the visible runs of the segment at hand's
	 * filters (not those a consolidation merged into another: probes as of
	 * the metapage skip them), each with its filter (item << 32 | filter),
	 * to find a heap tuple that the segment's ledgers hold twice
	 */
	uint64	   *segitems;
	Size		nsegitems;
	Size		maxsegitems;

	/* statistics that differ (NOTICEs), and the first such filter */
	uint64		count_mismatches;
	char	   *count_example;
	uint64		bit_mismatches;
	uint64		unreferenced;
} ScbfVerifyState;

/*
 * Report corruption at block blkno: what is wrong (a lowercase phrase
 * that follows the index's name), and a detail sentence.
 */
static void
pg_attribute_noreturn()
ScbfCorrupt(ScbfVerifyState *vs, BlockNumber blkno, const char *what,
			 const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_INDEX_CORRUPTED),
			 errmsg("index \"%s\" %s", RelationGetRelationName(vs->index),
					what),
			 errdetail("Block %u: %s", blkno, detail),
			 errhint("Please REINDEX it.")));
}

/*
 * What names a block, as the census says (for reports): "Page 3 of the row
 * band", "Leaf 0 of a run of filter 7", ...
 */
static const char *
Namer(const ScbfBlockRef *ref)
{
	if (ref->grave >= 0)
		return psprintf("Grave %d of the metapage", ref->grave);
	switch (ref->kind)
	{
		case SCBF_KIND_TABLE:
			return psprintf("The metapage's filter table page " INT64_FORMAT,
							ref->pageno);
		case SCBF_KIND_ROWS:
			return psprintf("Page " INT64_FORMAT " of the row band of serial " INT64_FORMAT,
							ref->pageno, ref->serial);
		case SCBF_KIND_BANDMAP:
			return psprintf("The map of band " INT64_FORMAT, ref->pageno);
		case SCBF_KIND_BANDDIR:
			return psprintf("Page " INT64_FORMAT " of the band directory",
							ref->pageno);
		case SCBF_KIND_SUMMARY:
			return psprintf("Page " INT64_FORMAT " of the summary of serial " INT64_FORMAT,
							ref->pageno, ref->serial);
		case SCBF_KIND_SUMMARYMAP:
			if (ref->pageno < 0)
				return pstrdup("The map of the top over groups");
			return psprintf("The map of the summary of group " INT64_FORMAT,
							ref->pageno);
		case SCBF_KIND_DELTA:
			return psprintf("Partition " INT64_FORMAT " of the delta",
							ref->pageno);
		case SCBF_KIND_ROOT:
			return psprintf("Filter " INT64_FORMAT "'s column %d",
							ref->filterno, ref->column + 1);
		case SCBF_KIND_LEAF:
			return psprintf("Leaf " INT64_FORMAT " of a run of filter " INT64_FORMAT,
							ref->pageno, ref->filterno);
		case SCBF_KIND_PENDING:
			return psprintf("The pending chain of partition %d",
							ref->partition);
		default:
			return "A structure";
	}
}

/*
 * Name block blkno as the page ref says it is: it must lie inside the index
 * and not be named already.
 */
static void
Claim(ScbfVerifyState *vs, BlockNumber blkno, const ScbfBlockRef *ref)
{
	if (blkno == SCBF_METAPAGE_BLKNO || blkno >= vs->nblocks)
		ScbfCorrupt(vs, blkno, "has a link outside the index",
					psprintf("%s names block %u, outside the index's %u blocks.",
							 Namer(ref), blkno, vs->nblocks));
	if (vs->named[blkno] != SCBF_KIND_NEW)
		ScbfCorrupt(vs, blkno, "has a page that two links name",
					psprintf("%s names block %u, which another structure (page kind %d) names already, or a chain loops.",
							 Namer(ref), blkno, (int) vs->named[blkno]));
	vs->named[blkno] = (uint8) ref->kind;
}

/*
 * Measure the index again: inserts extend it while the check runs (a new
 * pending page).  The blocks added are named by nothing yet.
 */
static void
VerifyRemeasure(ScbfVerifyState *vs)
{
	BlockNumber nblocks = RelationGetNumberOfBlocks(vs->index);

	if (nblocks <= vs->nblocks)
		return;
	vs->named = repalloc(vs->named, nblocks);
	memset(vs->named + vs->nblocks, SCBF_KIND_NEW, nblocks - vs->nblocks);
	vs->nblocks = nblocks;
}

/*
 * ScbfCensus callback: claim block blkno for the structure that names it,
 * measuring the index again first for a pending page past its end (an
 * insert extended it).
 */
static bool
ClaimBlock(BlockNumber blkno, const ScbfBlockRef *ref, void *arg)
{
	ScbfVerifyState *vs = (ScbfVerifyState *) arg;

	if (ref->kind == SCBF_KIND_PENDING && blkno >= vs->nblocks)
		VerifyRemeasure(vs);
	Claim(vs, blkno, ref);
	return true;
}

/*
 * Remember an entry of column col for the heapallindexed check.
 */
static void
KeepEntry(ScbfVerifyState *vs, int col, BlockNumber blkno,
			   OffsetNumber offnum, ScbfHash hash)
{
	ScbfVEntries *ve = &vs->entries[col];

	if (ve->n == ve->max)
	{
		ve->max = Max(ve->max * 2, 1024);
		ve->e = ve->e ?
			repalloc_huge(ve->e, sizeof(ScbfVEntry) * ve->max) :
			MemoryContextAllocHuge(CurrentMemoryContext,
								   sizeof(ScbfVEntry) * ve->max);
	}
	ve->e[ve->n].blkno = blkno;
	ve->e[ve->n].offnum = offnum;
	ve->e[ve->n].hash = hash;
	ve->n++;
}

/* ----------------------------------------------------------------
 *	Metapage, band, graves
 * ----------------------------------------------------------------
 */

/*
 * The metapage's fields beyond the layout that ScbfReadMeta checked: the
 * table pages, the band, the pending heads, the serial marks.
 */
static void
VerifyMeta(ScbfVerifyState *vs)
{
	ScbfMetaInfoData *mi = &vs->mi;
	uint32		perpage = mi->entries_per_table_page;
	uint32		needed;
	uint32		i;

	if (!(mi->target_fpr > 0 && mi->target_fpr < 1) || mi->capacity < 1 ||
		mi->ncols != vs->state->ncols)
		ScbfCorrupt(vs, SCBF_METAPAGE_BLKNO,
					 "has a metapage with impossible layout parameters",
					 psprintf("Target rate %g, capacity %u, %d columns.",
							  mi->target_fpr, mi->capacity, mi->ncols));
	/* a table grows by a half at least (TableGrow): at most that spare */
	needed = (mi->nfilters + perpage - 1) / perpage;
	if (mi->table->npages < needed ||
		mi->table->npages > needed + needed / 2 + 1)
		ScbfCorrupt(vs, SCBF_METAPAGE_BLKNO,
					 "has a filter table of the wrong size",
					 psprintf("The metapage lists %u table pages for %u filters of %u per page.",
							  mi->table->npages, mi->nfilters, perpage));

	for (i = 0; i < mi->bands.nbands; i++)
	{
		ScbfBand   *band = &mi->bands.bands[i];

		if (band->map == SCBF_METAPAGE_BLKNO ||
			band->map >= vs->nblocks ||
			band->pages > vs->nblocks ||
			band->rows_per_page < 1 ||
			(uint64) band->pages * band->rows_per_page <
			(uint64) mi->k * band->geom.m)
			ScbfCorrupt(vs, SCBF_METAPAGE_BLKNO,
						 "has a row band outside the index",
						 psprintf("Band %u has its map at block %u and %u pages of %u rows; the index has %u blocks.",
								  i, band->map, band->pages,
								  band->rows_per_page, vs->nblocks));
		if (i > 0 && band->serial <= mi->bands.bands[i - 1].serial)
			ScbfCorrupt(vs, SCBF_METAPAGE_BLKNO,
						 "has bands out of serial order",
						 psprintf("Band %u has serial %u, band %u serial %u.",
								  i, band->serial, i - 1,
								  mi->bands.bands[i - 1].serial));
	}

	if (mi->delta.pages > 0)
	{
		if (mi->delta.start == SCBF_METAPAGE_BLKNO ||
			mi->delta.start >= vs->nblocks ||
			mi->delta.pages > vs->nblocks - mi->delta.start)
			ScbfCorrupt(vs, SCBF_METAPAGE_BLKNO,
						 "has a delta outside the index",
						 psprintf("The delta starts at block %u with %u pages; the index has %u blocks.",
								  mi->delta.start, mi->delta.pages,
								  vs->nblocks));
	}

	for (i = 0; i < mi->nmarks; i++)
		if (mi->mark_serials[i] > mi->fold_serial)
			ScbfCorrupt(vs, SCBF_METAPAGE_BLKNO,
						 "has a serial mark ahead of its fold serial",
						 psprintf("Mark %u is of serial " UINT64_FORMAT ", the committed serial is " UINT64_FORMAT ".",
								  i, mi->mark_serials[i], mi->fold_serial));

	for (i = 0; i < SCBF_NPENDING; i++)
	{
		ScbfPendingHeadInfo *ph = &mi->pending[i];

		if ((ph->head == InvalidBlockNumber) != (ph->tail == InvalidBlockNumber) ||
			(ph->head != InvalidBlockNumber &&
			 (ph->head == SCBF_METAPAGE_BLKNO || ph->head >= vs->nblocks ||
			  ph->tail == SCBF_METAPAGE_BLKNO || ph->tail >= vs->nblocks)) ||
			ph->cut > mi->pending_entries_per_page ||
			(ph->flags & ~1) != 0)
			ScbfCorrupt(vs, SCBF_METAPAGE_BLKNO,
						 "has an impossible pending partition head",
						 psprintf("Partition %u: head %u, tail %u, cut %u, flags 0x%x; the index has %u blocks and a pending page holds %u entries.",
								  i, ph->head, ph->tail, ph->cut, ph->flags,
								  vs->nblocks, mi->pending_entries_per_page));
	}
	if (mi->ngraves > mi->max_graves)
		ScbfCorrupt(vs, SCBF_METAPAGE_BLKNO,
					 "has more graves than its metapage holds",
					 psprintf("The metapage says %u graves, it holds %u.",
							  mi->ngraves, mi->max_graves));
	for (i = 0; i < mi->ngraves; i++)
	{
		ScbfGraveInfo *g = &mi->graves[i];

		if (g->kind != 1 && g->kind != 2 && g->kind != 3)
			ScbfCorrupt(vs, SCBF_METAPAGE_BLKNO,
						 "has a grave of an unknown kind",
						 psprintf("Grave %u has kind %u.", i, g->kind));
		if (g->band && g->n > vs->nblocks)
			ScbfCorrupt(vs, SCBF_METAPAGE_BLKNO,
						 "has a grave larger than the index",
						 psprintf("Grave %u holds %u pages from block %u.",
								  i, g->n, g->first));
	}
}

static void VerifyBand(ScbfVerifyState *vs, uint32 b);

/*
 * Whether a band of bands has this serial.
 */
static bool
BandOfSerial(const ScbfBands *bands, uint32 serial)
{
	uint32		b;

	for (b = 0; b < bands->nbands; b++)
		if (bands->bands[b].serial == serial)
			return true;
	return false;
}

/*
 * Read the bands into memory (if they fit in maintenance_work_mem) and
 * check that each of their pages is its band's page there.
 */
static void
VerifyBands(ScbfVerifyState *vs)
{
	Size		total = 0;
	uint32		b;

	for (b = 0; b < vs->mi.bands.nbands; b++)
		total += ScbfBandPageBytes(&vs->mi.bands.bands[b]) *
			vs->mi.bands.bands[b].pages;
	vs->rows = NULL;
	if (total <= (Size) maintenance_work_mem * 1024)
		vs->rows = palloc0(sizeof(uint8 *) * Max(vs->mi.bands.nbands, 1));
	for (b = 0; b < vs->mi.bands.nbands; b++)
		VerifyBand(vs, b);
	if (vs->rows == NULL)
		ereport(NOTICE,
				(errmsg("the row bands of index \"%s\" are larger than maintenance_work_mem: invariant I4 is not checked",
						RelationGetRelationName(vs->index)),
				 errhint("Raise maintenance_work_mem to %zu kB or more.",
						 total / 1024 + 1)));
}

/*
 * Band b of VerifyBands: its map, and each of its pages, held in
 * vs->rows[b] if vs->rows is not NULL.
 */
static void
VerifyBand(ScbfVerifyState *vs, uint32 b)
{
	ScbfBand   *band = &vs->mi.bands.bands[b];
	Size		pagebytes = ScbfBandPageBytes(band);
	uint8	   *held = NULL;
	uint8	   *scratch;
	uint32		p;

	if (band->pages == 0)
		return;
	if (!ScbfBandLoad(vs->index, band, vs->nblocks))
		ScbfCorrupt(vs, band->map,
					 "has a band map that is not its band's",
					 psprintf("Block %u should be the map of the band of serial %u and %u pages, its runs inside the index.",
							  band->map, band->serial, band->pages));
	if (vs->rows != NULL)
		held = vs->rows[b] =
			MemoryContextAllocHuge(CurrentMemoryContext,
								   Max(pagebytes * band->pages, 1));
	scratch = palloc(BLCKSZ);
	for (p = 0; p < band->pages; p++)
	{
		CHECK_FOR_INTERRUPTS();
		if (!ScbfBandReadPage(vs->index, band, p,
							   held ? held + pagebytes * p : scratch,
							   vs->nblocks))
			ScbfCorrupt(vs, ScbfBandBlock(band, p),
						 "has a row band page that is not the band's",
						 psprintf("Block %u should be page %u of the band of serial %u.",
								  ScbfBandBlock(band, p), p, band->serial));
	}
	pfree(scratch);
}

/*
 * The map and pages of a group's summary or the top (what names it, and
 * whose, for the reports): the map its own, each page the one it lists
 * there.  Loads the map into band.
 */
static void
VerifySummaryPages(ScbfVerifyState *vs, ScbfBand *band, const char *what,
				   const char *whose)
{
	uint8	   *scratch = palloc(BLCKSZ);
	uint32		p;

	if (!ScbfBandLoad(vs->index, band, vs->nblocks))
		ScbfCorrupt(vs, band->map,
					psprintf("has a %s map that is not %s", what, whose),
					psprintf("Block %u should be the map of the %s of serial %u and %u pages, its runs inside the index.",
							 band->map, what, band->serial, band->pages));
	for (p = 0; p < band->pages; p++)
	{
		CHECK_FOR_INTERRUPTS();
		if (!ScbfBandReadPage(vs->index, band, p, scratch, vs->nblocks))
			ScbfCorrupt(vs, ScbfBandBlock(band, p),
						psprintf("has a %s page that is not %s", what, whose),
						psprintf("Block %u should be page %u of the %s of serial %u.",
								 ScbfBandBlock(band, p), p, what,
								 band->serial));
	}
	pfree(scratch);
}

/*
 * The groups of bands: a group for every band once there are two (until
 * SCBF_MAX_GROUPS are open), each summary's map its own, each page the
 * group's page there; and the top, if any, likewise, over two groups or
 * more.  The metapage's descriptors were checked as they were read
 * (ScbfMetaBands).
 */
static void
VerifyGroups(ScbfVerifyState *vs)
{
	ScbfBands  *bands = &vs->mi.bands;
	uint32		covered = 0;
	uint32		g;

	for (g = 0; g < bands->ngroups; g++)
	{
		covered = bands->groups[g].first + bands->groups[g].width;
		VerifySummaryPages(vs, &bands->groups[g], "summary", "its group's");
	}
	if (bands->nbands >= 2 && covered < bands->nbands &&
		bands->ngroups < SCBF_MAX_GROUPS)
		ScbfCorrupt(vs, SCBF_METAPAGE_BLKNO,
					"has bands that no summary covers",
					psprintf("The index has %u bands; its %u groups summarize %u.",
							 bands->nbands, bands->ngroups, covered));

	/* the top, over two groups or more */
	if (bands->top.width > 0)
	{
		if (bands->ngroups < 2)
			ScbfCorrupt(vs, SCBF_METAPAGE_BLKNO,
						"has a top over fewer than two groups",
						psprintf("The index has %u groups and a top of width %u.",
								 bands->ngroups, bands->top.width));
		VerifySummaryPages(vs, &bands->top, "top", "the top's");
	}
}

/*
 * The band of filter filterno, and its rows held in memory (NULL if they
 * are not held, or no band holds the filter).
 */
static const uint8 *
BandRows(ScbfVerifyState *vs, uint32 filterno, const ScbfBand **band)
{
	*band = ScbfBandOf(&vs->mi.bands, filterno);
	if (*band == NULL || vs->rows == NULL)
		return NULL;
	return vs->rows[*band - vs->mi.bands.bands];
}

/*
 * The order of delta keys: by filter, column, hash.
 */
static int
CmpRowKey(const void *a, const void *b)
{
	const ScbfRowKey *x = a;
	const ScbfRowKey *y = b;

	if (x->filterno != y->filterno)
		return (x->filterno > y->filterno) - (x->filterno < y->filterno);
	if (x->col != y->col)
		return x->col - y->col;
	return (x->hash > y->hash) - (x->hash < y->hash);
}

/*
 * Read the delta's pages: each the delta's page of its partition, its
 * entries of a column the index has and in the partition of their key;
 * keep the keys, sorted, for the I4 check, unless the metapage says the
 * delta is empty (probes skip it then, so its keys need their row bits).
 */
static void
VerifyDelta(ScbfVerifyState *vs)
{
	ScbfDelta *delta = &vs->mi.delta;
	int			max = 0;
	uint32		p;

	vs->delta = NULL;
	vs->ndelta = 0;
	for (p = 0; p < delta->pages; p++)
	{
		ScbfRowKey *keys;
		int			n;
		int			e;

		CHECK_FOR_INTERRUPTS();
		n = ScbfReadDeltaPage(vs->index, delta, p, &keys, vs->nblocks);
		if (n < 0)
			ScbfCorrupt(vs, delta->start + p,
						 "has a delta page that is not the delta's",
						 psprintf("Block %u should be partition %u of the delta of serial %u.",
								  delta->start + p, p, delta->serial));
		for (e = 0; e < n; e++)
		{
			if (keys[e].col >= vs->state->ncols ||
				ScbfDeltaPartition(keys[e].hash, keys[e].col,
									delta->pages) != p)
				ScbfCorrupt(vs, delta->start + p,
							 "has a delta entry in the wrong place",
							 psprintf("Entry %d (filter %u, column %d, hash " UINT64_FORMAT ") does not belong to partition %u.",
									  e, keys[e].filterno, keys[e].col + 1,
									  keys[e].hash, p));
			if (ScbfMetaDeltaEmpty(vs->meta))
				continue;
			if (vs->ndelta == max)
			{
				max = Max(max * 2, 1024);
				vs->delta = vs->delta ?
					repalloc_huge(vs->delta, sizeof(ScbfRowKey) * max) :
					palloc(sizeof(ScbfRowKey) * max);
			}
			vs->delta[vs->ndelta++] = keys[e];
		}
		if (keys)
			pfree(keys);
	}
	if (vs->ndelta > 0)
		qsort(vs->delta, vs->ndelta, sizeof(ScbfRowKey), CmpRowKey);
}

/*
 * The pages of the graves, which the census claimed: those of a superseded
 * band, and of a piece of a pending chain from first up to (not including)
 * stop.
 */
static void
VerifyGraves(ScbfVerifyState *vs)
{
	uint32		i;

	for (i = 0; i < vs->mi.ngraves; i++)
	{
		ScbfGraveInfo *g = &vs->mi.graves[i];

		if (g->band)
		{
			ScbfBand	old;
			ScbfPageInfo pi;
			uint32		p;

			bool		summary = g->kind == 3;		/* SCBF_GRAVE_SUMMARY */

			memset(&old, 0, sizeof(old));
			old.kind = summary ? SCBF_BAND_SUMMARY : SCBF_BAND_ROWS;
			old.map = g->first;
			old.pages = g->n;
			if (g->first != SCBF_METAPAGE_BLKNO && g->first < vs->nblocks)
				ScbfInspectPage(vs->index, g->first, &pi);
			else
				pi.kind = SCBF_KIND_UNKNOWN;
			old.serial = pi.ident.map.band_serial;
			if (pi.kind != (summary ? SCBF_KIND_SUMMARYMAP : SCBF_KIND_BANDMAP) ||
				(!summary && BandOfSerial(&vs->mi.bands, old.serial)) ||
				!ScbfBandLoad(vs->index, &old, vs->nblocks))
				ScbfCorrupt(vs, g->first,
							 "has a superseded band whose map is not one",
							 psprintf("Grave %u names block %u as the map of an old band of %u pages.",
									  i, g->first, g->n));
			for (p = 0; p < g->n; p++)
			{
				BlockNumber blkno = ScbfBandBlock(&old, p);

				CHECK_FOR_INTERRUPTS();
				ScbfInspectPage(vs->index, blkno, &pi);
				if (pi.kind != (summary ? SCBF_KIND_SUMMARY : SCBF_KIND_ROWS) ||
					pi.ident.rows.band_serial != old.serial)
					ScbfCorrupt(vs, blkno,
								 "has a superseded band page that is not one",
								 psprintf("Grave %u names block %u as page %u of an old band.",
										  i, blkno, p));
			}
		}
		else
		{
			BlockNumber blkno = g->first;
			uint32		n = 0;

			while (blkno != g->stop)
			{
				ScbfPageInfo pi;

				CHECK_FOR_INTERRUPTS();
				if (blkno == InvalidBlockNumber || ++n > vs->nblocks)
					ScbfCorrupt(vs, g->first,
								 "has a grave whose pending pages do not reach its end",
								 psprintf("Grave %u runs from block %u to block %u.",
										  i, g->first, g->stop));
				ScbfInspectPage(vs->index, blkno, &pi);
				if (pi.kind != SCBF_KIND_PENDING)
					ScbfCorrupt(vs, blkno,
								 "has a superseded pending page that is not one",
								 psprintf("Grave %u names block %u.", i, blkno));
				blkno = pi.next;
			}
		}
	}
}

/* ----------------------------------------------------------------
 *	Pending chains
 * ----------------------------------------------------------------
 */

/*
 * Partition part's chain, from the head the metapage copy names to its
 * current end.
 */
static void
VerifyPending(ScbfVerifyState *vs, int part)
{
	ScbfPendingHeadInfo *ph = &vs->mi.pending[part];
	BlockNumber blkno = ph->head;
	uint32		serial = ph->head_serial;
	bool		first = true;
	bool		tailseen = false;
	int			ncols = vs->state->ncols;
	uint32		npages = 0;

	while (blkno != InvalidBlockNumber)
	{
		ScbfPendingPageInfo pp;
		int			i;

		CHECK_FOR_INTERRUPTS();
		if (blkno >= vs->nblocks)
			VerifyRemeasure(vs);
		if (++npages > vs->nblocks)
			ScbfCorrupt(vs, blkno, "has a pending chain that loops",
						psprintf("The chain of partition %d has more pages than the index has blocks.",
								 part));
		if (vs->named[blkno] != SCBF_KIND_PENDING)
		{
			/* appended since the census */
			ScbfBlockRef ref;

			ScbfBlockRefInit(&ref, SCBF_KIND_PENDING);
			ref.partition = part;
			Claim(vs, blkno, &ref);
		}
		ScbfReadPendingPage(vs->index, blkno, ncols,
							vs->state->stored_hash_bytes, &pp, vs->nblocks);
		if (pp.partition != (uint32) part || pp.serial != serial)
			ScbfCorrupt(vs, blkno,
						 "has a pending page out of its chain",
						 psprintf("Block %u is pending page of partition %u with serial %u; the chain of partition %d expects serial %u there.",
								  blkno, pp.partition, pp.serial, part,
								  serial));
		if (pp.nentries > pp.maxentries ||
			(first && ph->cut > pp.nentries))
			ScbfCorrupt(vs, blkno,
						 "has a pending page with impossible entry counts",
						 psprintf("Block %u says %d entries (a page holds %d), the cut is at %u.",
								  blkno, pp.nentries, pp.maxentries,
								  first ? ph->cut : 0));
		for (i = first ? ph->cut : 0; ph->mayhave && i < pp.nentries; i++)
		{
			ItemPointer tid = &pp.tids[i];
			ScbfHash   *h = &pp.hashes[i * ncols];
			int			col;

			if (!ItemPointerIsValid(tid) ||
				ItemPointerGetOffsetNumber(tid) > MaxOffsetNumber ||
				ScbfPendingPartition(h[0]) != part)
				ScbfCorrupt(vs, blkno,
							 "has a pending entry that cannot be",
							 psprintf("Entry %d of block %u: TID (%u,%u), first hash " UINT64_FORMAT ", in partition %d.",
									  i, blkno,
									  ItemPointerGetBlockNumberNoCheck(tid),
									  ItemPointerGetOffsetNumberNoCheck(tid),
									  h[0], part));
			for (col = 0; col < ncols; col++)
				if (h[col] > ScbfHashMask(vs->state->col_bits[col]))
					ScbfCorrupt(vs, blkno,
								"has a pending hash wider than its column's",
								psprintf("Entry %d of block %u: hash " UINT64_FORMAT " in column %d, whose hashes have %d bits.",
										 i, blkno, h[col], col + 1,
										 vs->state->col_bits[col]));
			if (vs->heapallindexed)
				for (col = 0; col < ncols; col++)
					KeepEntry(vs, col, ItemPointerGetBlockNumber(tid),
								   ItemPointerGetOffsetNumber(tid), h[col]);
		}
		if (blkno == ph->tail)
			tailseen = true;
		first = false;
		serial++;
		blkno = pp.next;
	}
	if (ph->head != InvalidBlockNumber && !tailseen)
		ScbfCorrupt(vs, ph->tail,
					 "has a pending tail off its chain",
					 psprintf("The metapage names block %u as the tail of partition %d, whose chain from block %u does not reach it.",
							  ph->tail, part, ph->head));
}

/* ----------------------------------------------------------------
 *	Filters and their ledgers
 * ----------------------------------------------------------------
 */

/*
 * One leaf of a run: its page (or, inline, the root's bytes that hold it),
 * its posting lists in hash order after the
 * previous leaf's (*prevhash / *previtem: the last list's hash and item,
 * *any: whether there was one), its items within the segment.  Adds its
 * items to *nitems.
 */
static void
VerifyLeaf(ScbfVerifyState *vs, uint32 segno, int col,
				BlockNumber root, const ScbfRunInfo *run, int l, bool *any,
				ScbfHash *prevhash, int *previtem, uint64 *nitems)
{
	BlockNumber blkno = run->leaves[l];
	ScbfLeafInfo li;
	scbf_pl_reader r;
	uint16	   *items;
	ScbfHash	h;
	int			bits = vs->state->col_bits[col];
	int			n;
	int			rc;
	int			nlists = 0;
	int			sign = 0;		/* signposts met */

	if (run->inlined > 0 && l == run->nleaves - 1)
	{
		/* the inline leaf, in the root: what its page would say */
		blkno = root;
		li.segno = segno;
		li.column = col;
		li.serial = (uint32) run->made;
		li.fence = run->fences[l];
		li.nlists = -1;			/* not kept */
		li.nbytes = run->inlined;
		li.maxbytes = run->inlined;	/* the root checked it fits a leaf */
		li.nsignposts = 0;
		li.bytes = palloc(run->inlined);
		memcpy(li.bytes, run->inline_bytes, run->inlined);
	}
	else
		ScbfReadLeafInfo(vs->index, blkno, &li, vs->nblocks);
	if (li.segno != segno || li.column != col ||
		li.serial != (uint32) run->made || li.fence != run->fences[l])
		ScbfCorrupt(vs, blkno,
					 "has a ledger leaf that is not its run's",
					 psprintf("Leaf %d of a run of serial " UINT64_FORMAT " of filter %u (segment %u, column %d) says segment %u, column %d, serial %u, fence %u; the root says fence %u.",
							  l, run->made, vs->filterno, segno, col + 1,
							  li.segno, li.column + 1, li.serial, li.fence,
							  run->fences[l]));
	if (li.nbytes > li.maxbytes)
		ScbfCorrupt(vs, blkno, "has a ledger leaf that overflows its page",
					 psprintf("It says %d bytes of posting lists; a leaf holds %d.",
							  li.nbytes, li.maxbytes));

	if (li.nsignposts < 0)
		ScbfCorrupt(vs, blkno, "has a ledger leaf whose signposts cannot be",
					psprintf("Its pd_upper says more than %d signposts, or a part of one.",
							 SCBF_LEAF_SIGNPOSTS));

	items = palloc(sizeof(uint16) * Max(scbf_pl_max_items(li.nbytes), 1));
	scbf_pl_reader_init(&r, li.bytes, li.nbytes, ScbfFenceBase(li.fence, bits));
	for (;;)
	{
		int			i;
		int			offset = (int) (r.pos - li.bytes);

		/* the next signpost: at this list's start, naming the hash before */
		if (sign < li.nsignposts && li.signpost_offset[sign] <= offset)
		{
			if (li.signpost_offset[sign] < offset || nlists == 0 ||
				li.signpost_hash[sign] != r.prev_hash)
				ScbfCorrupt(vs, blkno, "has a ledger leaf signpost that is wrong",
							psprintf("Signpost %d names offset %d and hash " UINT64_FORMAT "; posting list %d starts at offset %d after hash " UINT64_FORMAT ".",
									 sign + 1, li.signpost_offset[sign],
									 li.signpost_hash[sign], nlists, offset,
									 r.prev_hash));
			sign++;
		}
		if ((rc = scbf_pl_next(&r, &h, items, &n)) != SCBF_PL_OK)
			break;

		if ((nlists == 0 && ScbfFenceOf(h, bits) != li.fence) ||
			(*any && (h < *prevhash ||
					  (h == *prevhash && (nlists > 0 || items[0] <= *previtem)))))
			ScbfCorrupt(vs, blkno,
						 "has ledger posting lists out of hash order",
						 psprintf("Posting list %d of hash " UINT64_FORMAT " follows hash " UINT64_FORMAT " (fence %u).",
								  nlists, h, *prevhash, li.fence));
		if (h > ScbfHashMask(bits))
			ScbfCorrupt(vs, blkno,
						"has a ledger hash wider than its column's",
						psprintf("Posting list %d has hash " UINT64_FORMAT "; column %d's hashes have %d bits.",
								 nlists, h, col + 1, bits));
		for (i = 0; i < n; i++)
		{
			BlockNumber relblk = ScbfTidRelBlock(items[i]);
			OffsetNumber off = ScbfTidOffset(items[i]);

			if ((i > 0 && items[i] <= items[i - 1]) ||
				relblk >= vs->state->pages_per_segment || off < 1)
				ScbfCorrupt(vs, blkno,
							 "has a ledger item that cannot be",
							 psprintf("Item %d of the list of hash " UINT64_FORMAT ": block %u of the segment, line pointer %u.",
									  i, h, relblk, off));
			if (vs->heapallindexed &&
				run->made <= vs->mi.fold_serial && vs->mi.fold_serial < run->gone)
				KeepEntry(vs, col,
							   segno * vs->state->pages_per_segment + relblk,
							   off, h);
		}
		*any = true;
		*prevhash = h;
		*previtem = n > 0 ? items[n - 1] : -1;
		*nitems += n;
		nlists++;
	}
	if (rc != SCBF_PL_END)
		ScbfCorrupt(vs, blkno,
					 "has a ledger leaf that holds no posting lists",
					 psprintf("After %d posting lists its bytes do not decode.",
							  nlists));
	if (li.nlists >= 0 && nlists != li.nlists)
		ScbfCorrupt(vs, blkno,
					 "has a ledger leaf whose list count is wrong",
					 psprintf("It says %d posting lists and holds %d.",
							  li.nlists, nlists));
	if (sign < li.nsignposts)
		ScbfCorrupt(vs, blkno, "has a ledger leaf signpost that is wrong",
					psprintf("Signpost %d names offset %d, at no posting list of the %d bytes.",
							 sign + 1, li.signpost_offset[sign], li.nbytes));
	pfree(items);
	pfree(li.bytes);
}

/*
 * The root of filter filterno's column col and every run it lists.
 */
static void
VerifyRoot(ScbfVerifyState *vs, ScbfFilter *f, int col,
				BlockNumber root)
{
	uint32		segno = ScbfFilterSegment(f);
	ScbfRootInfo ri;
	int			r;

	ScbfReadRootInfo(vs->index, root, &ri, vs->nblocks);
	if (ri.filterno != vs->filterno || ri.column != col)
		ScbfCorrupt(vs, root, "has a ledger root of another filter",
					 psprintf("Filter %u names block %u as the root of its column %d; the root says filter %u, column %d.",
							  vs->filterno, root, col + 1, ri.filterno,
							  ri.column + 1));
	if (ri.hash_bits != vs->state->col_bits[col])
		ScbfCorrupt(vs, root, "has a ledger root of another hash width",
					psprintf("The root at block %u says %d-bit hashes; column %d's have %d.",
							 root, ri.hash_bits, col + 1,
							 vs->state->col_bits[col]));
	for (r = 0; r < ri.nruns; r++)
	{
		ScbfRunInfo *run = &ri.runs[r];
		bool		any = false;
		ScbfHash	prevhash = 0;
		int			previtem = -1;
		uint64		nitems = 0;
		int			l;

		if (run->gone <= run->made)
			ScbfCorrupt(vs, root, "has a ledger run superseded before it was made",
						 psprintf("Run %d of the root at block %u: made by serial " UINT64_FORMAT ", gone at " UINT64_FORMAT ".",
								  r, root, run->made, run->gone));
		for (l = 0; l < run->nleaves; l++)
		{
			CHECK_FOR_INTERRUPTS();
			if (l > 0 && run->fences[l] < run->fences[l - 1])
				ScbfCorrupt(vs, root, "has ledger fences out of order",
							 psprintf("Run %d: the fence of leaf %d (%u) is below the one of leaf %d (%u).",
									  r, l, run->fences[l], l - 1,
									  run->fences[l - 1]));
			VerifyLeaf(vs, segno, col, root, run, l, &any, &prevhash,
							&previtem, &nitems);
		}
		if (nitems != run->nentries)
			ScbfCorrupt(vs, root, "has a ledger run of the wrong size",
						 psprintf("Run %d says %u entries; its leaves hold " UINT64_FORMAT ".",
								  r, run->nentries, nitems));
	}
}

/* What the I4 callback counts for one filter and column */
typedef struct ScbfR1Arg
{
	ScbfVerifyState *vs;
	uint64		items;
	ScbfHash   *hashes;			/* distinct-hash count, sorted later */
	int			nhashes;
	int			maxhashes;
} ScbfR1Arg;

/*
 * Invariant I4 for the summary: the key of hash in the current column and
 * filter has its bits in the summary of the group of its band (if a group
 * summarizes it), else probes would skip the band; and in the top's column
 * of that group, if the top covers it, else probes would skip the group.
 */
static void
CheckSummaryBits(ScbfVerifyState *vs, const ScbfBand *band, ScbfHash hash)
{
	uint32		bandno = (uint32) (band - vs->mi.bands.bands);
	const ScbfBand *group = ScbfGroupOf(&vs->mi.bands, bandno);
	bool		ok;
	uint32		g;

	if (group == NULL)
		return;
	if (!ScbfSummaryHas(vs->index, group, bandno,
						ScbfFilterKey(vs->state, vs->col, hash),
						vs->nblocks, &ok))
		ScbfCorrupt(vs, group->map,
					ok ? "is missing a summary bit of a ledger entry" :
					"has a summary page that is not its group's",
					psprintf("Invariant I4: filter %u (segment %u), column %d, hash " UINT64_FORMAT ": the summary of band %u does not hold the key; probes would skip the band.",
							 vs->filterno,
							 ScbfFilterSegment(vs->table[vs->filterno]),
							 vs->col + 1, hash, bandno));
	g = (uint32) (group - vs->mi.bands.groups);
	if (g >= vs->mi.bands.covered)
		return;
	if (!ScbfSummaryHas(vs->index, &vs->mi.bands.top, g,
						ScbfFilterKey(vs->state, vs->col, hash),
						vs->nblocks, &ok))
		ScbfCorrupt(vs, vs->mi.bands.top.map,
					ok ? "is missing a top bit of a ledger entry" :
					"has a top page that is not the top's",
					psprintf("Invariant I4: filter %u (segment %u), column %d, hash " UINT64_FORMAT ": the top's column of group %u does not hold the key; probes would skip the group.",
							 vs->filterno,
							 ScbfFilterSegment(vs->table[vs->filterno]),
							 vs->col + 1, hash, g));
}

/*
 * ScbfLedgerScan callback: check invariant I4 for one posting list, and
 * count its items and hash.
 */
static void
CheckRowBits(ScbfHash hash, const uint16 *items, int nitems, void *arg)
{
	ScbfR1Arg *ra = (ScbfR1Arg *) arg;
	ScbfVerifyState *vs = ra->vs;
	const ScbfBand *band;
	const uint8 *rows = BandRows(vs, vs->filterno, &band);
	Size		pagebytes;
	uint32		pos[SCBF_ROWS_MAX_K];
	uint32		i;

	ra->items += nitems;
	/* a filter merged into another is left to probes that began before */
	if (vs->col == 0 &&
		ScbfFilterVisible(vs->table[vs->filterno], vs->mi.fold_serial))
	{
		if (vs->nsegitems + nitems > vs->maxsegitems)
		{
			vs->maxsegitems = Max(vs->maxsegitems * 2,
								  Max(vs->nsegitems + nitems, 1024));
			vs->segitems = vs->segitems ?
				repalloc_huge(vs->segitems,
							  sizeof(uint64) * vs->maxsegitems) :
				MemoryContextAllocHuge(CurrentMemoryContext,
									   sizeof(uint64) * vs->maxsegitems);
		}
		for (i = 0; i < (uint32) nitems; i++)
			vs->segitems[vs->nsegitems++] =
				((uint64) items[i] << 32) | vs->filterno;
	}
	if (ra->nhashes == ra->maxhashes)
	{
		ra->maxhashes = Max(ra->maxhashes * 2, 64);
		ra->hashes = ra->hashes ?
			repalloc_huge(ra->hashes, sizeof(ScbfHash) * ra->maxhashes) :
			palloc(sizeof(ScbfHash) * ra->maxhashes);
	}
	ra->hashes[ra->nhashes++] = hash;
	if (vs->rows == NULL)
		return;
	if (vs->ndelta > 0)
	{
		ScbfRowKey key;

		key.filterno = vs->filterno;
		key.col = vs->col;
		key.hash = hash;
		if (bsearch(&key, vs->delta, vs->ndelta, sizeof(ScbfRowKey),
					CmpRowKey) != NULL)
			return;				/* probes find it in the delta */
	}
	if (band == NULL)
		ScbfCorrupt(vs, SCBF_METAPAGE_BLKNO,
					 "has a filter no band holds",
					 psprintf("Filter %u has ledger entries; the bands hold %u filters.",
							  vs->filterno, ScbfBandsEnd(&vs->mi.bands)));
	pagebytes = ScbfBandPageBytes(band);
	ScbfKeyPositions(vs->state, band, vs->col, hash, pos);
	for (i = 0; i < vs->state->k; i++)
	{
		uint64		row = (uint64) i * band->geom.m + pos[i];
		uint32		pageno = (uint32) (row / band->rows_per_page);

		if (pageno >= band->pages ||
			!scbf_rows_test(rows + pagebytes * pageno,
							(uint32) (row % band->rows_per_page),
							band->width, vs->filterno - band->first))
			ScbfCorrupt(vs, ScbfBandBlock(band, pageno),
						 "is missing a row bit of a ledger entry",
						 psprintf("Invariant I4: filter %u (segment %u), column %d, hash " UINT64_FORMAT ": the bit of slice %u at position %u is clear; probes would miss the entry.",
								  vs->filterno,
								  ScbfFilterSegment(vs->table[vs->filterno]),
								  vs->col + 1, hash, i, pos[i]));
	}

	/*
	 * A group VACUUM wrote anew holds the keys of the filters visible then:
	 * a filter merged into another before it is left out, and only probes
	 * that began before the merge, which read the group they began with,
	 * still reach it.
	 */
	if (ScbfFilterVisible(vs->table[vs->filterno], vs->mi.fold_serial))
		CheckSummaryBits(vs, band, hash);
}

/*
 * The set bits of filter filterno per slice, counted in the band held in
 * memory, into nset[0 .. k).
 */
static void
CountBits(ScbfVerifyState *vs, uint32 filterno, uint32 *nset)
{
	const ScbfBand *band;
	const uint8 *rows = BandRows(vs, filterno, &band);
	Size		pagebytes = ScbfBandPageBytes(band);
	uint32		k = vs->state->k;
	uint32		m = band->geom.m;
	uint32		i;
	uint32		p;

	for (i = 0; i < k; i++)
	{
		nset[i] = 0;
		for (p = 0; p < m; p++)
		{
			uint64		row = (uint64) i * m + p;

			if (scbf_rows_test(rows + pagebytes *
							   (row / band->rows_per_page),
							   (uint32) (row % band->rows_per_page),
							   band->width, filterno - band->first))
				nset[i]++;
		}
	}
}

/*
 * Filter filterno: its table entry, the root of each column, and I4.
 */
static void
VerifyFilter(ScbfVerifyState *vs, uint32 filterno)
{
	ScbfFilter *f = vs->table[filterno];
	BlockNumber tblk = ScbfRunsBlock(vs->mi.table,
									  filterno / vs->mi.entries_per_table_page);
	uint64		entries = 0;
	uint64		keys = 0;
	int			col;

	vs->filterno = filterno;
	if (ScbfFilterStateName(f) == NULL)
		ScbfCorrupt(vs, tblk, "has a filter table entry of unknown state",
					 psprintf("Filter %u.", filterno));
	if (!ScbfFilterInUse(f))
		return;
	if ((uint64) ScbfFilterSegment(f) * vs->state->pages_per_segment >
		MaxBlockNumber)
		ScbfCorrupt(vs, tblk, "has a filter of a segment beyond any table",
					 psprintf("Filter %u covers segment %u.", filterno,
							  ScbfFilterSegment(f)));

	for (col = 0; col < vs->state->ncols; col++)
	{
		BlockNumber root = ScbfFilterRoot(f, col);
		ScbfR1Arg ra;
		int			d = 0;
		int			i;

		CHECK_FOR_INTERRUPTS();
		if (root == InvalidBlockNumber)
		{
			if (ScbfFilterEntries(f) > 0)
				ScbfCorrupt(vs, tblk, "has a filter without a ledger",
							 psprintf("Filter %u counts %u entries and has no root for column %d.",
									  filterno, ScbfFilterEntries(f),
									  col + 1));
			continue;
		}
		VerifyRoot(vs, f, col, root);

		/* I4 and the counts, over the visible runs */
		memset(&ra, 0, sizeof(ra));
		ra.vs = vs;
		vs->col = col;
		vs->root = root;
		if (!ScbfLedgerScan(vs->index, root, col, vs->mi.fold_serial,
							 CheckRowBits, &ra, vs->nblocks))
			ScbfCorrupt(vs, root, "has a ledger leaf that moved",
						 "A leaf of a visible run was recycled during the check.");
		if (ra.nhashes > 0)
			qsort(ra.hashes, ra.nhashes, sizeof(ScbfHash), ScbfCmpHash);
		for (i = 0; i < ra.nhashes; i++)
			if (i == 0 || ra.hashes[i] != ra.hashes[i - 1])
				d++;
		keys += d;
		if (col == 0)
			entries = ra.items;
		if (ra.hashes)
			pfree(ra.hashes);
	}

	/*
	 * statistics: a crashed fold may leave them ahead; the keys are an upper
	 * bound anyway (a fold adds its distinct keys, some of which the filter
	 * may hold already, until VACUUM recounts them)
	 */
	if (entries != ScbfFilterEntries(f) || keys > ScbfFilterKeys(f))
	{
		if (vs->count_mismatches++ == 0)
			vs->count_example =
				psprintf("Filter %u (segment %u) counts %u entries and %u keys; its ledgers hold " UINT64_FORMAT " and " UINT64_FORMAT ".",
						 filterno, ScbfFilterSegment(f),
						 ScbfFilterEntries(f), ScbfFilterKeys(f),
						 entries, keys);
	}
	if (vs->rows != NULL && ScbfBandOf(&vs->mi.bands, filterno) != NULL)
	{
		uint32		nset[SCBF_ROWS_MAX_K];
		uint32		actual[SCBF_ROWS_MAX_K];
		uint32		i;

		ScbfFilterGetBits(f, nset);
		CountBits(vs, filterno, actual);
		/*
		 * with a delta, the counts are an upper bound: a key put there
		 * counted its bits, some of which were set already (scbfdelta.c)
		 */
		for (i = 0; i < vs->state->k && i < SCBF_ROWS_MAX_K; i++)
			if (vs->mi.delta.pages > 0 ? nset[i] < actual[i] :
				nset[i] != actual[i])
			{
				vs->bit_mismatches++;
				break;
			}
	}
}

/*
 * The items of segment segno's visible runs (the first column's), which
 * the I4 check of its filters collected: none may be there twice, else
 * VACUUM would ask about a heap tuple twice and count it twice (invariant
 * I6).  Empties the collection.
 */
static void
VerifySegmentItems(ScbfVerifyState *vs, uint32 segno)
{
	Size		i;

	if (vs->nsegitems > 1)
	{
		qsort(vs->segitems, vs->nsegitems, sizeof(uint64), ScbfCmpU64);
		for (i = 1; i < vs->nsegitems; i++)
		{
			uint16		item = (uint16) (vs->segitems[i] >> 32);
			uint32		f1 = (uint32) vs->segitems[i - 1];
			uint32		f2 = (uint32) vs->segitems[i];

			if (item == (uint16) (vs->segitems[i - 1] >> 32))
				ScbfCorrupt(vs, ScbfFilterRoot(vs->table[f2], 0),
							 "holds a heap tuple twice",
							 psprintf("Segment %u: block %u of the segment, line pointer %u, is in the visible runs of filter %u and of filter %u.",
									  segno, ScbfTidRelBlock(item),
									  ScbfTidOffset(item), f1, f2));
		}
	}
	vs->nsegitems = 0;
}

/*
 * qsort_arg comparator of filter numbers, by the segment of their filter
 * in the table arg (filters not in use first), then by number.
 */
static int
CmpFilterBySegment(const void *a, const void *b, void *arg)
{
	ScbfFilter **table = (ScbfFilter **) arg;
	uint32		x = *(const uint32 *) a;
	uint32		y = *(const uint32 *) b;
	int64		sx = ScbfFilterInUse(table[x]) ?
		(int64) ScbfFilterSegment(table[x]) : -1;
	int64		sy = ScbfFilterInUse(table[y]) ?
		(int64) ScbfFilterSegment(table[y]) : -1;

	if (sx != sy)
		return (sx > sy) - (sx < sy);
	return (x > y) - (x < y);
}

/*
 * The filter table: every entry, one filter per segment and chain
 * position, and no heap tuple twice in one segment's ledgers.  Filters
 * are checked segment by segment, so that one segment's items are held
 * at a time.
 */
static void
VerifyTable(ScbfVerifyState *vs)
{
	uint64	   *seen = palloc(sizeof(uint64) * Max(vs->mi.nfilters, 1));
	uint32	   *order = palloc(sizeof(uint32) * Max(vs->mi.nfilters, 1));
	uint32		nseen = 0;
	uint32		c;
	uint32		i;
	bool		inseg = false;
	uint32		segno = 0;

	vs->table = ScbfReadTable(vs->index, vs->state, vs->meta, vs->nblocks);
	for (c = 0; c < vs->mi.nfilters; c++)
		order[c] = c;
	qsort_arg(order, vs->mi.nfilters, sizeof(uint32), CmpFilterBySegment,
			  vs->table);
	for (i = 0; i < vs->mi.nfilters; i++)
	{
		ScbfFilter *f;

		c = order[i];
		f = vs->table[c];
		if (ScbfFilterInUse(f) && inseg && ScbfFilterSegment(f) != segno)
			VerifySegmentItems(vs, segno);
		VerifyFilter(vs, c);
		if (ScbfFilterInUse(f))
		{
			inseg = true;
			segno = ScbfFilterSegment(f);
			seen[nseen++] = ((uint64) segno << 16) | ScbfFilterChainPos(f);
		}
	}
	if (inseg)
		VerifySegmentItems(vs, segno);
	pfree(order);
	if (nseen > 1)
	{
		qsort(seen, nseen, sizeof(uint64), ScbfCmpU64);
		for (i = 1; i < nseen; i++)
			if (seen[i] == seen[i - 1])
				ScbfCorrupt(vs, ScbfRunsBlock(vs->mi.table, 0),
							 "has two filters in one chain position",
							 psprintf("Segment %u has two filters at chain position %u.",
									  (uint32) (seen[i] >> 16),
									  (uint32) (seen[i] & 0xFFFF) + 1));
	}
	pfree(seen);
}

/* ----------------------------------------------------------------
 *	Heap
 * ----------------------------------------------------------------
 */

/*
 * qsort/bsearch comparator of entries: block, line pointer, hash.
 */
static int
CmpVEntry(const void *a, const void *b)
{
	const ScbfVEntry *x = a;
	const ScbfVEntry *y = b;

	if (x->blkno != y->blkno)
		return (x->blkno > y->blkno) - (x->blkno < y->blkno);
	if (x->offnum != y->offnum)
		return (int) x->offnum - (int) y->offnum;
	return (x->hash > y->hash) - (x->hash < y->hash);
}

/*
 * table_index_build_scan callback of heapallindexed: the tuple's entry,
 * every column's hash, must be in the index.
 */
static void
VerifyHeapTuple(Relation index, ItemPointer tid, Datum *values,
					 bool *isnull, bool tupleIsAlive, void *arg)
{
	ScbfVerifyState *vs = (ScbfVerifyState *) arg;
	int			col;

	for (col = 0; col < vs->state->ncols; col++)
	{
		ScbfVEntry key;

		key.blkno = ItemPointerGetBlockNumber(tid);
		key.offnum = ItemPointerGetOffsetNumber(tid);
		key.hash = isnull[col] ? SCBF_NULL_HASH :
			ScbfHashDatum(index, col, vs->state->col_bits[col], values[col]);
		if (bsearch(&key, vs->entries[col].e, vs->entries[col].n,
					sizeof(ScbfVEntry), CmpVEntry) == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INDEX_CORRUPTED),
					 errmsg("heap tuple (%u,%u) of table \"%s\" has no entry in index \"%s\"",
							key.blkno, key.offnum,
							RelationGetRelationName(vs->heap),
							RelationGetRelationName(index)),
					 errdetail("Column %d, hash " UINT64_FORMAT ": no visible ledger run of segment %u and no pending entry past the cuts holds it.",
							   col + 1, key.hash,
							   key.blkno / vs->state->pages_per_segment),
					 errhint("Please REINDEX it.")));
	}
}

/* ----------------------------------------------------------------
 *	Entry point
 * ----------------------------------------------------------------
 */

/*
 * VerifyCheck
 *		The check of VerifyIndex.
 */
static void
VerifyCheck(Relation index, Relation heap, bool heapallindexed)
{
	ScbfVerifyState vs;
	Snapshot	snapshot = InvalidSnapshot;
	bool		locked = false;
	BlockNumber blkno;
	int			part;
	int			col;

	memset(&vs, 0, sizeof(vs));
	vs.index = index;
	vs.heap = heap;
	vs.heapallindexed = heapallindexed;

	/* as amcheck: the snapshot before the index is read */
	if (heapallindexed)
		snapshot = RegisterSnapshot(GetTransactionSnapshot());
	if (!RecoveryInProgress())
	{
		LockPage(index, SCBF_METAPAGE_BLKNO, ShareLock);
		locked = true;
	}

	vs.state = ScbfGetState(index);
	vs.meta = ScbfReadMeta(index);
	ScbfMetaInfo(vs.meta, &vs.mi);
	vs.nblocks = RelationGetNumberOfBlocks(index);
	ScbfMetaBands(index, vs.meta, &vs.mi.bands, vs.nblocks);
	vs.named = palloc0(Max(vs.nblocks, 1));
	vs.named[SCBF_METAPAGE_BLKNO] = SCBF_KIND_META;

	VerifyMeta(&vs);
	ScbfCensus(index, vs.state, vs.meta, ClaimBlock, &vs, vs.nblocks);
	VerifyBands(&vs);
	VerifyGroups(&vs);
	VerifyDelta(&vs);
	VerifyGraves(&vs);
	VerifyTable(&vs);
	for (part = 0; part < SCBF_NPENDING; part++)
		VerifyPending(&vs, part);

	/* blocks no structure names */
	for (blkno = 1; blkno < vs.nblocks; blkno++)
	{
		ScbfPageInfo pi;

		CHECK_FOR_INTERRUPTS();
		if (vs.named[blkno] != SCBF_KIND_NEW)
			continue;
		ScbfInspectPage(index, blkno, &pi);
		if (pi.kind == SCBF_KIND_META)
			ScbfCorrupt(&vs, blkno, "has a second metapage",
						 psprintf("Block %u is a metapage.", blkno));
		if (pi.kind != SCBF_KIND_NEW && pi.kind != SCBF_KIND_FREE)
			vs.unreferenced++;
	}
	if (locked)
		UnlockPage(index, SCBF_METAPAGE_BLKNO, ShareLock);

	if (vs.count_mismatches > 0)
		ereport(NOTICE,
				(errmsg("index \"%s\" has %llu filter table entries whose counts differ from their ledgers",
						RelationGetRelationName(index),
						(unsigned long long) vs.count_mismatches),
				 errdetail("%s The counts are statistics: a fold interrupted by a crash leaves them ahead of the ledger.",
						   vs.count_example)));
	if (vs.bit_mismatches > 0)
		ereport(NOTICE,
				(errmsg("index \"%s\" has %llu filter table entries whose set bits differ from the row band",
						RelationGetRelationName(index),
						(unsigned long long) vs.bit_mismatches),
				 errdetail("The counts are statistics: a fold interrupted by a crash leaves extra bits, which cost false positives only.")));
	if (vs.unreferenced > 0)
		ereport(NOTICE,
				(errmsg("index \"%s\" has %llu page(s) that no structure names",
						RelationGetRelationName(index),
						(unsigned long long) vs.unreferenced),
				 errdetail("An interrupted fold or VACUUM leaves such pages; they hold nothing a probe reads.")));

	if (heapallindexed)
	{
		IndexInfo  *indexInfo = BuildIndexInfo(index);
		TableScanDesc scan;

		for (col = 0; col < vs.state->ncols; col++)
			if (vs.entries[col].n > 0)
				qsort(vs.entries[col].e, vs.entries[col].n,
					  sizeof(ScbfVEntry), CmpVEntry);
		/* as verify_nbtree.c: an MVCC scan, no syncscan (block order) */
		indexInfo->ii_Concurrent = true;
		scan = table_beginscan_strat(heap, snapshot, 0, NULL, true, false);
		table_index_build_scan(heap, index, indexInfo, true, false,
							   VerifyHeapTuple, &vs, scan);
		UnregisterSnapshot(snapshot);
	}
}

/*
 * VerifyIndex
 *		scbf_verify(index, heapallindexed) on an index opened and locked by
 *		the caller (see the file header).
 *
 * On a hot standby, a corruption met while replay applied WAL (the replay
 * position moved since the check began, or a record is being applied) is
 * raised as a serialization failure: the index may have changed under the
 * check.  The check is not retried here: that would need a subtransaction
 * to release the buffers the error left locked, and on a standby a
 * recovery conflict inside a subtransaction terminates the session.
 */
static void
VerifyIndex(Relation index, Relation heap, bool heapallindexed)
{
	MemoryContext oldcxt = CurrentMemoryContext;
	XLogRecPtr	start;

	if (!RecoveryInProgress())
	{
		VerifyCheck(index, heap, heapallindexed);
		return;
	}
	start = GetXLogReplayRecPtr(NULL);
	PG_TRY();
	{
		VerifyCheck(index, heap, heapallindexed);
	}
	PG_CATCH();
	{
		MemoryContext errcxt = MemoryContextSwitchTo(oldcxt);
		ErrorData  *edata = CopyErrorData();

		/* a record being applied now counts: it may have changed a page */
		if (edata->sqlerrcode != ERRCODE_INDEX_CORRUPTED ||
			GetCurrentReplayRecPtr(NULL) == start)
		{
			MemoryContextSwitchTo(errcxt);
			PG_RE_THROW();
		}
		FlushErrorState();
		ereport(ERROR,
				(errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
				 errmsg("index \"%s\" changed during a check on the standby",
						RelationGetRelationName(index)),
				 errdetail("Replay applied WAL of the primary while the check read the index, which then met this: %s",
						   edata->detail ? edata->detail : edata->message),
				 errhint("Retry the query, or run it on the primary, where the check holds off folds and VACUUM.")));
	}
	PG_END_TRY();
}

/*
 * scbf_verify(index regclass, heapallindexed boolean DEFAULT false)
 *		Check the index (VerifyIndex), and with heapallindexed that every
 *		row of its table has its entry, as amcheck's bt_index_check does.
 *
 * Takes AccessShareLock on the table and the index (ScbfOpenIndex, which
 * requires that the caller may SELECT from the table); on a primary the
 * check holds the fold lock in share mode.  Returns nothing; raises
 * ERRCODE_INDEX_CORRUPTED on the first corruption found, NOTICEs for what
 * is harmless.
 */
Datum
scbf_verify(PG_FUNCTION_ARGS)
{
	bool		heapallindexed = !PG_ARGISNULL(1) && PG_GETARG_BOOL(1);
	Relation	heap;
	Relation	index;

	index = ScbfOpenIndex(fcinfo, 0, AccessShareLock, &heap, true);
	/* what this backend inserted but has not written yet, first */
	ScbfBatchFlush(index);
	VerifyIndex(index, heap, heapallindexed);
	ScbfCloseIndex(index, heap, AccessShareLock);
	PG_RETURN_VOID();
}
