/*-------------------------------------------------------------------------
 *
 * scbfinspect.c
 *	  The diagnostic functions and their SQL entries: scbf_index_info,
 *	  scbf_segments, scbf_filters, scbf_pages and scbf_probe.
 *
 * NOTES
 *	  Each SQL entry opens the index and its table (ScbfOpenIndex, which
 *	  checks the caller's privileges), writes this backend's batch of the
 *	  index so the caller sees its own inserts, and fills its result here
 *	  (README.md, "Reference", says what each column means):
 *
 *	  - a segment's chain is its filters in chain position order; a filter
 *		is known by its number, its column of the row band;
 *	  - a filter has no pages of its own: its bits are one column of the
 *		band; its ledger pages are the roots of its columns and the leaves
 *		of their visible runs;
 *	  - the ledgers are the filters' counting filters: the count at a
 *		position of a slice is the number of visible ledger entries whose
 *		hash maps there, exact and never saturating.  The diagnostics read
 *		every visible run to show them (StatFilter): the largest count,
 *		the positions a 4-bit counter, as the paper keeps them, could not
 *		hold, and the set bits no entry counts at (stale).
 *
 *	  Everything is read as of one metapage copy, through the page-kind
 *	  modules' functions (scbf.h): this file does not include scbf_page.h.
 *	  The pages a fold or VACUUM supersedes are freed only once no snapshot
 *	  is older than the supersession, so on a primary the walk finds them;
 *	  on a standby a page may be recycled under it, and the whole walk
 *	  starts over from a new copy (as scans do, scbfprobe.c).
 *
 *	  scbf_probe runs the steps of a probe (scbfprobe.c) with a record of
 *	  each: the filters whose rows say "maybe" for the value and what their
 *	  ledgers hold, then the pending partitions the probe reads.
 *
 * Portions Copyright (c) 2026, scbf developers
 *
 * IDENTIFICATION
 *	  src/scbfinspect.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/xlog.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "parser/parse_coerce.h"
#include "storage/lmgr.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/tuplestore.h"

#include "scbf.h"

PG_FUNCTION_INFO_V1(scbf_index_info);
PG_FUNCTION_INFO_V1(scbf_segments);
PG_FUNCTION_INFO_V1(scbf_filters);
PG_FUNCTION_INFO_V1(scbf_pages);
PG_FUNCTION_INFO_V1(scbf_probe);
PG_FUNCTION_INFO_V1(scbf_probe_text);

/* Attempts of a walk that pages keep moving under (standby) */
#define SCBF_DIAG_RETRIES		20

/* Attempts before a walk on a primary takes the fold lock in share mode */
#define SCBF_DIAG_UNLOCKED		3

/*
 * The largest count a 4-bit counter holds, as the paper's counting filter
 * keeps them: a position whose count exceeds it would have saturated.
 */
#define SCBF_COUNTER4_MAX		15

/* What the diagnostics know of one filter in use */
typedef struct ScbfFilterStat
{
	uint32		filterno;
	uint32		segno;
	uint16		position;		/* in the segment's chain, from 0 */
	const char *state;			/* "active", "closed" */
	uint32		table_entries;	/* as the filter table counts them */
	uint32		nkeys;			/* distinct keys, from the table */
	double		slice_fill[SCBF_ROWS_MAX_K];
	double		fill;			/* mean over slices */
	double		fpr;			/* product over slices */
	uint64		entries;		/* visible ledger entries of column 1 */
	uint64		nulls[INDEX_MAX_KEYS];	/* per column */
	uint64		roots[INDEX_MAX_KEYS];	/* per column, 0 for none */
	bool		hasroot[INDEX_MAX_KEYS];
	uint32		ledger_pages;	/* roots + leaves of visible runs */
	uint64		max_count;		/* largest count at any position */
	uint64		nonzero;		/* positions whose count is not 0 */
	uint64		saturated;		/* positions whose count exceeds 15 */
	uint64		stale;			/* set bits whose count is 0 */
} ScbfFilterStat;

/* What the walk over the filter table gathers */
typedef struct ScbfDiagCensus
{
	ScbfMeta  *meta;
	ScbfMetaInfoData mi;
	uint32		nfilters;		/* in use */
	ScbfFilterStat *filters;	/* by segment, then chain position */
	uint64		pending;		/* entries past the cuts */
	uint32	   *counts;			/* k * m, one filter's at a time */
	uint8	   *bandpage;		/* one page of band rows */
} ScbfDiagCensus;

/* Counts of a ledger scan */
typedef struct ScbfCountArg
{
	ScbfState  *state;
	int			col;
	uint32	   *counts;			/* row (slice * m + position) -> count */
	uint64		items;
	uint64		nulls;
} ScbfCountArg;

/*
 * ScbfLedgerScan callback: count items, and those of the NULL hash, and
 * add each item to the count of every row (slice and position) its hash
 * maps to.
 */
static void
CountPosting(uint32 hash, const uint16 *items, int nitems, void *arg)
{
	ScbfCountArg *ca = (ScbfCountArg *) arg;
	uint32		pos[SCBF_ROWS_MAX_K];
	uint32		m = ca->state->geom.m;
	uint32		s;

	ca->items += nitems;
	if (hash == SCBF_NULL_HASH)
		ca->nulls += nitems;
	ScbfKeyPositions(ca->state, ca->col, hash, pos);
	for (s = 0; s < ca->state->geom.k; s++)
		ca->counts[(Size) s * m + pos[s]] += nitems;
}

/*
 * ScbfPendingScan callback: count entries.
 */
static void
CountPending(ItemPointer tid, const uint32 *hashes, void *arg)
{
	(*(uint64 *) arg)++;
}

/*
 * qsort comparator of filter statistics: segment, chain position, number.
 */
static int
CmpFilterStat(const void *a, const void *b)
{
	const ScbfFilterStat *x = a;
	const ScbfFilterStat *y = b;

	if (x->segno != y->segno)
		return (x->segno > y->segno) - (x->segno < y->segno);
	if (x->position != y->position)
		return (int) x->position - (int) y->position;
	return (x->filterno > y->filterno) - (x->filterno < y->filterno);
}

/*
 * CountStats
 *		A filter's counts, c->counts[0 .. k * m), summed up into fs: the
 *		largest, the positions whose count is not zero, and those whose
 *		count a 4-bit counter could not hold.  Then its stale bits: the
 *		positions whose bit is set in the band while no visible entry
 *		counts there.  A crashed fold leaves such bits; a fold under way
 *		shows its new bits so until it commits, and a VACUUM the bits it
 *		has yet to clear after its commit.  Reads every page of the band
 *		once.  Returns false if a band page moved under a standby's walk.
 */
static bool
CountStats(Relation index, ScbfState *state, ScbfDiagCensus *c,
		   BlockNumber nblocks, ScbfFilterStat *fs)
{
	const ScbfBand *band = &c->mi.band;
	uint64		nrows = (uint64) state->geom.k * state->geom.m;
	uint64		row;
	uint32		p;

	for (row = 0; row < nrows; row++)
	{
		uint32		n = c->counts[row];

		fs->max_count = Max(fs->max_count, n);
		if (n > 0)
			fs->nonzero++;
		if (n > SCBF_COUNTER4_MAX)
			fs->saturated++;
	}

	/* a filter past the band's width has all its bits in the delta */
	if (band->pages == 0 || fs->filterno >= band->width)
		return true;
	for (p = 0; p < band->pages; p++)
	{
		uint64		first = (uint64) p * band->rows_per_page;
		uint32		r;

		CHECK_FOR_INTERRUPTS();
		if (first >= nrows)
			break;
		if (!ScbfBandReadPage(index, band, p, c->bandpage, nblocks))
			return false;
		for (r = 0; r < band->rows_per_page && first + r < nrows; r++)
			if (c->counts[first + r] == 0 &&
				scbf_rows_test(c->bandpage, r, band->width, fs->filterno))
				fs->stale++;
	}
	return true;
}

/*
 * StatFilter
 *		One filter's statistics: its table entry's, then its ledgers'.
 *
 * The counts of the filter's counting filter are read from its ledgers:
 * the count at a position of a slice is the number of visible ledger
 * entries, of every column, whose hash maps there, exact and never
 * saturating (the columns share the filter's bits).  That costs a full
 * read of the filter's visible runs and of the band, which is fine for a
 * diagnostic.  Returns false if a page was recycled under a standby's
 * walk.
 */
static bool
StatFilter(Relation index, ScbfState *state, ScbfDiagCensus *c,
		   ScbfFilter *f, uint32 filterno, BlockNumber nblocks,
		   ScbfFilterStat *fs)
{
	uint32		nset[SCBF_ROWS_MAX_K];
	uint32		i;
	int			col;

	memset(fs, 0, sizeof(ScbfFilterStat));
	fs->filterno = filterno;
	fs->segno = ScbfFilterSegment(f);
	fs->position = ScbfFilterPosition(f);
	fs->state = ScbfFilterStateName(f);
	fs->table_entries = ScbfFilterEntries(f);
	fs->nkeys = ScbfFilterKeys(f);
	ScbfFilterGetBits(f, nset);
	for (i = 0; i < state->geom.k && i < SCBF_ROWS_MAX_K; i++)
	{
		fs->slice_fill[i] = (double) nset[i] / state->geom.m;
		fs->fill += fs->slice_fill[i] / state->geom.k;
	}
	fs->fpr = ScbfFilterFpr(f, state->geom.k, state->geom.m);

	memset(c->counts, 0,
		   sizeof(uint32) * (Size) state->geom.k * state->geom.m);
	for (col = 0; col < state->ncols; col++)
	{
		BlockNumber root = ScbfFilterRoot(f, col);
		ScbfRootInfo ri;
		ScbfCountArg ca;
		int			r;

		if (root == InvalidBlockNumber)
			continue;
		fs->roots[col] = root;
		fs->hasroot[col] = true;
		ScbfReadRootInfo(index, root, &ri, nblocks);
		fs->ledger_pages++;
		for (r = 0; r < ri.nruns; r++)
			if (ri.runs[r].made <= c->mi.fold_serial &&
				c->mi.fold_serial < ri.runs[r].gone)
				fs->ledger_pages += ri.runs[r].nleaves -
					(ri.runs[r].inlined > 0 ? 1 : 0);
		memset(&ca, 0, sizeof(ca));
		ca.state = state;
		ca.col = col;
		ca.counts = c->counts;
		if (!ScbfLedgerScan(index, root, col, c->mi.fold_serial,
							CountPosting, &ca, nblocks))
			return false;
		if (col == 0)
			fs->entries = ca.items;
		fs->nulls[col] = ca.nulls;
	}
	return CountStats(index, state, c, nblocks, fs);
}

/*
 * One attempt at the census: false if a page moved under a standby's walk.
 */
static bool
TryCensus(Relation index, ScbfState *state, ScbfDiagCensus *c,
			   bool ledgers, bool pending)
{
	BlockNumber nblocks = RelationGetNumberOfBlocks(index);
	ScbfFilter **table;
	uint32		fno;
	int			part;

	c->meta = ScbfReadMeta(index);
	ScbfMetaInfo(c->meta, &c->mi);
	table = ScbfReadTable(index, state, c->meta, nblocks);
	c->filters = palloc(sizeof(ScbfFilterStat) * Max(c->mi.nfilters, 1));
	if (ledgers)
	{
		Size		nrows = (Size) state->geom.k * state->geom.m;

		c->counts = MemoryContextAllocHuge(CurrentMemoryContext,
										   sizeof(uint32) * nrows);
		c->bandpage = palloc(BLCKSZ);
	}
	c->nfilters = 0;
	c->pending = 0;
	for (fno = 0; fno < c->mi.nfilters; fno++)
	{
		CHECK_FOR_INTERRUPTS();

		/*
		 * a filter that VACUUM merged into another is read by no probe that
		 * starts now, and its entries are the other's too: left out until
		 * a VACUUM releases its column
		 */
		if (!ScbfFilterVisible(table[fno], c->mi.fold_serial))
			continue;
		if (ledgers)
		{
			if (!StatFilter(index, state, c, table[fno], fno, nblocks,
								 &c->filters[c->nfilters]))
				return false;
		}
		else
		{
			ScbfFilterStat *fs = &c->filters[c->nfilters];

			memset(fs, 0, sizeof(ScbfFilterStat));
			fs->filterno = fno;
			fs->segno = ScbfFilterSegment(table[fno]);
			fs->position = ScbfFilterPosition(table[fno]);
		}
		c->nfilters++;
	}
	qsort(c->filters, c->nfilters, sizeof(ScbfFilterStat),
		  CmpFilterStat);
	for (part = 0; pending && part < SCBF_NPENDING; part++)
		if (!ScbfPendingScan(index, state, c->meta, part, CountPending,
							  &c->pending, NULL))
			return false;
	return true;
}

/*
 * RetryLock
 *		Before attempt `attempt` of a walk: on a primary, from the
 *		SCBF_DIAG_UNLOCKED-th on, take the fold lock in share mode (no
 *		fold commits until the caller releases it; *locked says whether it
 *		did); on a standby, give up after SCBF_DIAG_RETRIES.
 */
static void
RetryLock(Relation index, int attempt, bool *locked)
{
	CHECK_FOR_INTERRUPTS();
	if (attempt < SCBF_DIAG_UNLOCKED || *locked)
	{
		if (*locked && attempt > SCBF_DIAG_UNLOCKED)
			ereport(ERROR,
					(errcode(ERRCODE_INDEX_CORRUPTED),
					 errmsg("index \"%s\" changed during a walk that holds its fold lock",
							RelationGetRelationName(index)),
					 errhint("Please REINDEX it.")));
		return;
	}
	if (!RecoveryInProgress())
	{
		LockPage(index, SCBF_METAPAGE_BLKNO, ShareLock);
		*locked = true;
	}
	else if (attempt >= SCBF_DIAG_RETRIES)
		ereport(ERROR,
				(errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
				 errmsg("index \"%s\" kept changing during a diagnostic on the standby",
						RelationGetRelationName(index)),
				 errhint("Retry the query.")));
}

/*
 * GetCensus
 *		The filters in use and, with ledgers, their ledgers' counts; with
 *		pending, the entries of the pending area past the cuts: all as of
 *		one metapage copy, read again while pages move under the walk.
 */
static void
GetCensus(Relation index, ScbfState *state, ScbfDiagCensus *c,
			   bool ledgers, bool pending)
{
	bool		locked = false;
	int			attempt;

	for (attempt = 0;; attempt++)
	{
		RetryLock(index, attempt, &locked);
		if (TryCensus(index, state, c, ledgers, pending))
			break;
	}
	if (locked)
		UnlockPage(index, SCBF_METAPAGE_BLKNO, ShareLock);
}

/*
 * The rate at which a segment's chain says "maybe" for an absent value:
 * 1 - prod(1 - fpr) over filters[0 .. n).
 */
static double
ChainFpr(const ScbfFilterStat *filters, int n)
{
	double		pass = 1.0;
	int			i;

	for (i = 0; i < n; i++)
		pass *= 1.0 - filters[i].fpr;
	return 1.0 - pass;
}

/*
 * Segments of the table now: those a scan considers.
 */
static uint32
HeapSegments(Relation heap, ScbfState *state)
{
	BlockNumber nblocks = RelationGetNumberOfBlocks(heap);

	return (nblocks + state->pages_per_segment - 1) / state->pages_per_segment;
}

/* ----------------------------------------------------------------
 *	The page census: what each block is, and who names it
 * ----------------------------------------------------------------
 */

/* What a structure says of a block it names */
typedef struct ScbfPageRef
{
	ScbfPageKind kind;			/* SCBF_KIND_NEW: named by nothing */
	int64		segno;			/* -1: NULL */
	int64		serial;
	int32		block_index;
	bool		has_block_index;
	BlockNumber next;			/* InvalidBlockNumber: NULL */
} ScbfPageRef;

/*
 * Name block blkno as a page of the given kind, unless it lies outside the
 * index or something named it already (the verifier reports both).
 */
static ScbfPageRef *
NameBlock(ScbfPageRef *refs, BlockNumber nblocks, BlockNumber blkno,
		  ScbfPageKind kind)
{
	if (blkno == SCBF_METAPAGE_BLKNO || blkno >= nblocks ||
		refs[blkno].kind != SCBF_KIND_NEW)
		return NULL;
	refs[blkno].kind = kind;
	refs[blkno].segno = -1;
	refs[blkno].serial = -1;
	refs[blkno].next = InvalidBlockNumber;
	return &refs[blkno];
}

/*
 * Name the pages of a pending chain from blkno, up to stop (exclusive) or
 * its end, with the serials its pages carry; guarded against loops and the
 * end of the index (a loop ends where a page is named twice).
 */
static void
NameChain(Relation index, ScbfPageRef *refs, BlockNumber nblocks,
			   BlockNumber blkno, BlockNumber stop, int part)
{
	while (blkno != InvalidBlockNumber && blkno != stop)
	{
		ScbfPageInfo pi;
		ScbfPageRef *ref;

		CHECK_FOR_INTERRUPTS();
		if (blkno == SCBF_METAPAGE_BLKNO || blkno >= nblocks)
			return;
		ScbfInspectPage(index, blkno, &pi);
		if (pi.kind != SCBF_KIND_PENDING)
			return;
		ref = NameBlock(refs, nblocks, blkno, SCBF_KIND_PENDING);
		if (ref == NULL)
			return;
		ref->serial = pi.index;
		ref->block_index = part;
		ref->has_block_index = true;
		ref->next = pi.next;
		blkno = pi.next;
	}
}

/*
 * PageCensus
 *		refs[0 .. nblocks): what the structures of a metapage copy name each
 *		block: the filter table, the band, every root of a filter in use and
 *		every leaf of every run it lists, the pending chains and the
 *		graveyard.  Superseded band pages in a grave are named rows of their
 *		old band serial.
 */
static ScbfPageRef *
PageCensus(Relation index, ScbfState *state, ScbfDiagCensus *c,
				BlockNumber nblocks)
{
	ScbfPageRef *refs = palloc0(sizeof(ScbfPageRef) * Max(nblocks, 1));
	ScbfFilter **table;
	uint32		i;
	int			part;

	for (i = 0; i < c->mi.ntablepages && i < c->mi.max_table_pages; i++)
	{
		ScbfPageRef *ref = NameBlock(refs, nblocks, c->mi.tablepages[i],
									  SCBF_KIND_TABLE);

		if (ref)
		{
			ref->block_index = i;
			ref->has_block_index = true;
		}
	}
	for (i = 0; i < c->mi.band.pages; i++)
	{
		ScbfPageRef *ref = NameBlock(refs, nblocks, c->mi.band.start + i,
									  SCBF_KIND_ROWS);

		if (ref)
		{
			ref->serial = c->mi.band.serial;
			ref->block_index = i;
			ref->has_block_index = true;
		}
	}

	for (i = 0; i < c->mi.delta.pages; i++)
	{
		ScbfPageRef *ref = NameBlock(refs, nblocks, c->mi.delta.start + i,
									  SCBF_KIND_DELTA);

		if (ref)
		{
			ref->serial = c->mi.delta.serial;
			ref->block_index = i;
			ref->has_block_index = true;
		}
	}

	table = ScbfReadTable(index, state, c->meta, nblocks);
	for (i = 0; i < c->mi.nfilters; i++)
	{
		int			col;

		if (!ScbfFilterInUse(table[i]))
			continue;
		for (col = 0; col < state->ncols; col++)
		{
			BlockNumber root = ScbfFilterRoot(table[i], col);
			ScbfPageRef *ref;
			ScbfPageInfo pi;
			ScbfRootInfo ri;
			int			r;

			CHECK_FOR_INTERRUPTS();
			if (root == InvalidBlockNumber || root >= nblocks)
				continue;
			ScbfInspectPage(index, root, &pi);
			if (pi.kind != SCBF_KIND_ROOT)
				continue;
			ref = NameBlock(refs, nblocks, root, SCBF_KIND_ROOT);
			if (ref == NULL)
				continue;
			ref->segno = ScbfFilterSegment(table[i]);
			ref->serial = i;
			ref->block_index = col + 1;
			ref->has_block_index = true;
			ScbfReadRootInfo(index, root, &ri, nblocks);
			for (r = 0; r < ri.nruns; r++)
			{
				int			l;

				for (l = 0; l < ri.runs[r].nleaves; l++)
				{
					ScbfPageRef *lref = NameBlock(refs, nblocks,
												   ri.runs[r].leaves[l],
												   SCBF_KIND_LEAF);

					if (lref == NULL)
						continue;
					lref->segno = ScbfFilterSegment(table[i]);
					lref->serial = i;
					lref->block_index = l;
					lref->has_block_index = true;
					if (l + 1 < ri.runs[r].nleaves)
						lref->next = ri.runs[r].leaves[l + 1];
				}
			}
		}
	}

	for (part = 0; part < SCBF_NPENDING; part++)
		NameChain(index, refs, nblocks, c->mi.pending[part].head,
					   InvalidBlockNumber, part);
	for (i = 0; i < c->mi.ngraves && i < c->mi.max_graves; i++)
	{
		ScbfGraveInfo *g = &c->mi.graves[i];

		if (g->band)
		{
			uint32		p;

			for (p = 0; p < g->n && g->first + p < nblocks; p++)
			{
				ScbfPageInfo pi;
				ScbfPageRef *ref;

				CHECK_FOR_INTERRUPTS();
				ScbfInspectPage(index, g->first + p, &pi);
				if (pi.kind != SCBF_KIND_ROWS)
					continue;
				ref = NameBlock(refs, nblocks, g->first + p, SCBF_KIND_ROWS);
				if (ref)
				{
					ref->serial = pi.owner;
					ref->block_index = p;
					ref->has_block_index = true;
				}
			}
		}
		else
		{
			ScbfPageInfo pi;

			if (g->first == SCBF_METAPAGE_BLKNO || g->first >= nblocks)
				continue;
			ScbfInspectPage(index, g->first, &pi);
			NameChain(index, refs, nblocks, g->first, g->stop,
						   (int) pi.owner);
		}
	}
	return refs;
}

/*
 * The name scbf_pages gives a page kind.
 */
static const char *
KindName(ScbfPageKind kind)
{
	switch (kind)
	{
		case SCBF_KIND_NEW:
			return "new";
		case SCBF_KIND_UNKNOWN:
			return "unknown";
		case SCBF_KIND_META:
			return "meta";
		case SCBF_KIND_TABLE:
			return "table";
		case SCBF_KIND_ROWS:
			return "rows";
		case SCBF_KIND_ROOT:
			return "root";
		case SCBF_KIND_LEAF:
			return "leaf";
		case SCBF_KIND_PENDING:
			return "pending";
		case SCBF_KIND_DELTA:
			return "delta";
		case SCBF_KIND_FREE:
			return "free";
	}
	return "unknown";
}

/*
 * The kind scbf_pages reports for a block: what the page says it is if a
 * structure names it as such (or it is the metapage, a free page, a page
 * never initialized or no scbf page at all), else "unreferenced".
 */
static const char *
PageKindOf(const ScbfPageInfo *pi, const ScbfPageRef *ref,
				BlockNumber blkno)
{
	if (pi->kind == SCBF_KIND_NEW || pi->kind == SCBF_KIND_UNKNOWN ||
		pi->kind == SCBF_KIND_FREE ||
		(pi->kind == SCBF_KIND_META && blkno == SCBF_METAPAGE_BLKNO))
		return KindName(pi->kind);
	if (ref->kind == pi->kind)
		return KindName(pi->kind);
	return "unreferenced";
}

/* ----------------------------------------------------------------
 *	scbf_index_info
 * ----------------------------------------------------------------
 */

/*
 * IndexInfoRow
 *		scbf_index_info's row: the layout, the filters and their chains,
 *		the pages by kind (a census of every block, as scbf_pages
 *		classifies them), the entries of the ledgers and of the pending
 *		area, and the filters' counts summed up: the largest, the
 *		positions a 4-bit counter could not hold, the stale bits.
 */
static Datum
IndexInfoRow(FunctionCallInfo fcinfo, Relation index, Relation heap)
{
	ScbfState *state = ScbfGetState(index);
	TupleDesc	tupdesc;
	ScbfDiagCensus c;
	ScbfPageRef *refs;
	Datum		values[30];
	bool		nulls[30];
	BlockNumber nblocks;
	BlockNumber blkno;
	uint64		pages[SCBF_KIND_FREE + 2];
	uint64		entries = 0;
	uint64		max_count = 0;
	uint64		saturated = 0;
	uint64		stale = 0;
	uint32		nsegments = 0;
	uint32		max_chain = 0;
	uint32	   *hist;
	uint32		heapsegs = HeapSegments(heap, state);
	uint32		empty;
	double		sum_fill = 0;
	double		worst_fill = 0;
	double		sum_fpr = 0;
	int64		worst_segment = -1;
	double		worst_fpr = 0;
	Datum	   *hd;
	int			dims[1];
	int			lbs[1];
	uint32		f;
	uint32		h;
	int			i = 0;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");

	GetCensus(index, state, &c, true, true);
	hist = palloc0(sizeof(uint32) * (c.nfilters + 2));
	for (f = 0; f < c.nfilters;)
	{
		uint32		g = f;
		double		fpr;

		while (g < c.nfilters && c.filters[g].segno == c.filters[f].segno)
		{
			entries += c.filters[g].entries;
			sum_fill += c.filters[g].fill;
			worst_fill = Max(worst_fill, c.filters[g].fill);
			max_count = Max(max_count, c.filters[g].max_count);
			saturated += c.filters[g].saturated;
			stale += c.filters[g].stale;
			g++;
		}
		fpr = ChainFpr(&c.filters[f], g - f);
		nsegments++;
		max_chain = Max(max_chain, g - f);
		hist[g - f]++;
		sum_fpr += fpr;
		if (worst_segment < 0 || fpr > worst_fpr)
		{
			worst_segment = c.filters[f].segno;
			worst_fpr = fpr;
		}
		f = g;
	}
	empty = heapsegs > nsegments ? heapsegs - nsegments : 0;

	/* every block, by the kind scbf_pages gives it */
	nblocks = RelationGetNumberOfBlocks(index);
	refs = PageCensus(index, state, &c, nblocks);
	memset(pages, 0, sizeof(pages));
	for (blkno = 0; blkno < nblocks; blkno++)
	{
		ScbfPageInfo pi;
		const char *kind;

		CHECK_FOR_INTERRUPTS();
		ScbfInspectPage(index, blkno, &pi);
		kind = PageKindOf(&pi, &refs[blkno], blkno);
		if (strcmp(kind, "unreferenced") == 0)
			pages[SCBF_KIND_FREE + 1]++;
		else
			pages[pi.kind]++;
	}

	hd = palloc(sizeof(Datum) * Max(max_chain, 1));
	for (h = 1; h <= max_chain; h++)
		hd[h - 1] = Int32GetDatum(hist[h]);
	dims[0] = max_chain;
	lbs[0] = 1;

	memset(nulls, 0, sizeof(nulls));
	values[i++] = Int32GetDatum(state->pages_per_segment);
	values[i++] = Float8GetDatum(state->target_fpr);
	values[i++] = Int32GetDatum(state->geom.k);
	values[i++] = Int32GetDatum(state->geom.m);
	values[i++] = Int64GetDatum(max_count);
	values[i++] = Int32GetDatum(state->capacity);
	values[i++] = Int32GetDatum(state->ncols);
	values[i++] = Int32GetDatum(nsegments);
	values[i++] = Int32GetDatum(empty);
	values[i++] = Int32GetDatum(c.nfilters);
	values[i++] = Int32GetDatum(max_chain);
	if (max_chain > 0)
		values[i++] = PointerGetDatum(construct_md_array(hd, NULL, 1, dims,
														 lbs, INT4OID, 4,
														 true, TYPALIGN_INT));
	else
		values[i++] = PointerGetDatum(construct_empty_array(INT4OID));
	values[i++] = Int64GetDatum(nblocks);
	values[i++] = Int64GetDatum(pages[SCBF_KIND_META]);
	values[i++] = Int64GetDatum(pages[SCBF_KIND_TABLE]);
	values[i++] = Int64GetDatum(pages[SCBF_KIND_ROWS]);
	values[i++] = Int64GetDatum(pages[SCBF_KIND_DELTA]);
	values[i++] = Int64GetDatum(pages[SCBF_KIND_ROOT] + pages[SCBF_KIND_LEAF]);
	values[i++] = Int64GetDatum(pages[SCBF_KIND_PENDING]);
	values[i++] = Int64GetDatum(pages[SCBF_KIND_FREE] + pages[SCBF_KIND_NEW]);
	values[i++] = Int64GetDatum(entries);
	values[i++] = Int64GetDatum(c.pending);
	values[i++] = Float8GetDatum(c.nfilters ? sum_fill / c.nfilters : 0);
	values[i++] = Float8GetDatum(worst_fill);
	values[i++] = Float8GetDatum(nsegments ? sum_fpr / nsegments : 0);
	if (worst_segment >= 0)
	{
		values[i++] = Int32GetDatum((int32) worst_segment);
		values[i++] = Float8GetDatum(worst_fpr);
	}
	else
	{
		nulls[i++] = true;
		nulls[i++] = true;
	}
	values[i++] = Int64GetDatum(saturated);
	values[i++] = Int64GetDatum(stale);
	if (entries + c.pending > 0)
		values[i++] = Float8GetDatum((double) nblocks * BLCKSZ /
									 (entries + c.pending));
	else
		nulls[i++] = true;
	Assert(i == tupdesc->natts);

	return HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(tupdesc),
											 values, nulls));
}

/*
 * scbf_index_info(index regclass)
 *		One row describing the whole index: the layout in force, the
 *		segments and their chains, the entries, the pages by kind (a walk
 *		over every page, as pgstatindex does) and the counts the ledgers
 *		imply (a full read of the ledgers and the band).
 *
 * Takes AccessShareLock on the table and the index (ScbfOpenIndex) and
 * share locks on one page at a time; on a primary, a walk that pages keep
 * moving under takes the fold lock in share mode (RetryLock).  The caller
 * must be allowed to SELECT from the table.  Returns the row.
 */
Datum
scbf_index_info(PG_FUNCTION_ARGS)
{
	Relation	heap;
	Relation	index;
	Datum		result;

	index = ScbfOpenIndex(fcinfo, 0, AccessShareLock, &heap, true);
	/* what this backend inserted but has not written yet, first */
	ScbfBatchFlush(index);
	result = IndexInfoRow(fcinfo, index, heap);
	ScbfCloseIndex(index, heap, AccessShareLock);
	PG_RETURN_DATUM(result);
}

/* ----------------------------------------------------------------
 *	scbf_segments and scbf_filters
 * ----------------------------------------------------------------
 */

/*
 * SegmentRows
 *		scbf_segments' rows: one per segment of the table (and any segment
 *		past its end that still has filters), those without a filter
 *		flagged "empty" (a probe reads nothing of them but their pending
 *		entries); a segment's largest count is its filters' largest, its
 *		saturated positions the sum of theirs.
 */
static void
SegmentRows(FunctionCallInfo fcinfo, Relation index, Relation heap)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	ScbfState *state = ScbfGetState(index);
	ScbfDiagCensus c;
	uint32		nsegs = HeapSegments(heap, state);
	uint32		segno;
	uint32		f = 0;

	GetCensus(index, state, &c, true, false);
	if (c.nfilters > 0)
		nsegs = Max(nsegs, c.filters[c.nfilters - 1].segno + 1);
	for (segno = 0; segno < nsegs; segno++)
	{
		BlockNumber first = (BlockNumber) segno * state->pages_per_segment;
		uint64		nulls_per_col[INDEX_MAX_KEYS];
		uint64		entries = 0;
		uint64		max_count = 0;
		uint64		saturated = 0;
		uint32		ledger_pages = 0;
		double		fill = 0;
		uint32		g = f;
		const char *flags[1];
		int			nflags = 0;
		Datum		values[12];
		bool		nulls[12];
		int			col;
		int			i = 0;

		CHECK_FOR_INTERRUPTS();
		memset(nulls_per_col, 0, sizeof(nulls_per_col));
		while (g < c.nfilters && c.filters[g].segno == segno)
		{
			entries += c.filters[g].entries;
			ledger_pages += c.filters[g].ledger_pages;
			fill += c.filters[g].fill;
			max_count = Max(max_count, c.filters[g].max_count);
			saturated += c.filters[g].saturated;
			for (col = 0; col < state->ncols; col++)
				nulls_per_col[col] += c.filters[g].nulls[col];
			g++;
		}
		if (g == f)
			flags[nflags++] = "empty";

		memset(nulls, 0, sizeof(nulls));
		values[i++] = Int32GetDatum(segno);
		values[i++] = Int64GetDatum(first);
		values[i++] = Int64GetDatum((int64) first + state->pages_per_segment - 1);
		values[i++] = Int32GetDatum(g - f);
		values[i++] = Int32GetDatum(ledger_pages);
		values[i++] = Int64GetDatum(entries);
		values[i++] = ScbfInt8Array(nulls_per_col, state->ncols);
		values[i++] = Float8GetDatum(ChainFpr(&c.filters[f], g - f));
		values[i++] = Float8GetDatum(g > f ? fill / (g - f) : 0);
		values[i++] = Int64GetDatum(max_count);
		values[i++] = Int64GetDatum(saturated);
		values[i++] = ScbfTextArray(flags, nflags);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values,
							 nulls);
		f = g;
	}
}

/*
 * FilterRows
 *		scbf_filters' rows: one per filter in use, of segment segno (all
 *		segments if segno < 0), by segment and chain position.
 */
static void
FilterRows(FunctionCallInfo fcinfo, Relation index, int64 segno)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	ScbfState *state = ScbfGetState(index);
	ScbfDiagCensus c;
	uint32		f;

	GetCensus(index, state, &c, true, false);
	for (f = 0; f < c.nfilters; f++)
	{
		ScbfFilterStat *fs = &c.filters[f];
		Datum		values[17];
		bool		nulls[17];
		Datum		roots[INDEX_MAX_KEYS];
		bool		rootnulls[INDEX_MAX_KEYS];
		int			dims[1];
		int			lbs[1];
		int			col;
		int			i = 0;

		if (segno >= 0 && fs->segno != (uint64) segno)
			continue;
		memset(nulls, 0, sizeof(nulls));
		values[i++] = Int32GetDatum(fs->segno);
		values[i++] = Int32GetDatum(fs->position + 1);
		values[i++] = Int64GetDatum(fs->filterno);
		values[i++] = CStringGetTextDatum(fs->state ? fs->state : "unknown");
		values[i++] = PointerGetDatum(construct_empty_array(TEXTOID));
		for (col = 0; col < state->ncols; col++)
		{
			roots[col] = Int64GetDatum((int64) fs->roots[col]);
			rootnulls[col] = !fs->hasroot[col];
		}
		dims[0] = state->ncols;
		lbs[0] = 1;
		values[i++] = PointerGetDatum(construct_md_array(roots, rootnulls, 1,
														 dims, lbs, INT8OID, 8,
														 FLOAT8PASSBYVAL,
														 TYPALIGN_DOUBLE));
		values[i++] = Int32GetDatum(fs->ledger_pages);
		values[i++] = Int64GetDatum(fs->entries);
		values[i++] = ScbfInt8Array(fs->nulls, state->ncols);
		values[i++] = Float8GetDatum(fs->fill);
		values[i++] = ScbfFloat8Array(fs->slice_fill,
									   Min(state->geom.k, SCBF_ROWS_MAX_K));
		values[i++] = Float8GetDatum(fs->fpr);
		values[i++] = Int64GetDatum(fs->max_count);
		values[i++] = Int64GetDatum(fs->nonzero);
		values[i++] = Int64GetDatum(fs->saturated);
		values[i++] = Int64GetDatum(fs->stale);
		values[i++] = Float8GetDatum(fs->nkeys);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values,
							 nulls);
	}
}

/*
 * scbf_segments(index regclass)
 *		One row per segment of the table, those without a filter included
 *		(flagged "empty"), with the counts its filters' ledgers imply (a
 *		full read of the ledgers and the band).
 *
 * Takes AccessShareLock on the table and the index (ScbfOpenIndex) and
 * share locks on one page at a time; on a primary, a walk that pages keep
 * moving under takes the fold lock in share mode (RetryLock).  The caller
 * must be allowed to SELECT from the table.  Returns the rows, materialized.
 */
Datum
scbf_segments(PG_FUNCTION_ARGS)
{
	Relation	heap;
	Relation	index;

	InitMaterializedSRF(fcinfo, 0);
	index = ScbfOpenIndex(fcinfo, 0, AccessShareLock, &heap, true);
	/* what this backend inserted but has not written yet, first */
	ScbfBatchFlush(index);
	SegmentRows(fcinfo, index, heap);
	ScbfCloseIndex(index, heap, AccessShareLock);
	return (Datum) 0;
}

/*
 * scbf_filters(index regclass, segno int DEFAULT NULL)
 *		One row per filter of segment segno's chain, in chain order, or of
 *		every segment, with the counts its ledgers imply (a full read of
 *		the ledgers and the band).
 *
 * Takes AccessShareLock on the table and the index (ScbfOpenIndex) and
 * share locks on one page at a time; on a primary, a walk that pages keep
 * moving under takes the fold lock in share mode (RetryLock).  The caller
 * must be allowed to SELECT from the table.  Returns the rows, materialized.
 */
Datum
scbf_filters(PG_FUNCTION_ARGS)
{
	Relation	heap;
	Relation	index;

	InitMaterializedSRF(fcinfo, 0);
	index = ScbfOpenIndex(fcinfo, 0, AccessShareLock, &heap, true);
	/* what this backend inserted but has not written yet, first */
	ScbfBatchFlush(index);
	if (PG_ARGISNULL(1))
		FilterRows(fcinfo, index, -1);
	else if (PG_GETARG_INT32(1) >= 0)
		FilterRows(fcinfo, index, PG_GETARG_INT32(1));
	ScbfCloseIndex(index, heap, AccessShareLock);
	return (Datum) 0;
}

/* ----------------------------------------------------------------
 *	scbf_pages
 * ----------------------------------------------------------------
 */

/*
 * PageRows
 *		scbf_pages' rows: one per block, its kind as
 *		PageKindOf says and what the structure that names it says of
 *		it (see README.md for each kind's columns).
 */
static void
PageRows(FunctionCallInfo fcinfo, Relation index)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	ScbfState *state = ScbfGetState(index);
	ScbfDiagCensus c;
	ScbfPageRef *refs;
	BlockNumber nblocks;
	BlockNumber blkno;

	GetCensus(index, state, &c, false, false);
	nblocks = RelationGetNumberOfBlocks(index);
	refs = PageCensus(index, state, &c, nblocks);
	for (blkno = 0; blkno < nblocks; blkno++)
	{
		ScbfPageInfo pi;
		ScbfPageRef *ref = &refs[blkno];
		const char *kind;
		Datum		values[7];
		bool		nulls[7];

		CHECK_FOR_INTERRUPTS();
		ScbfInspectPage(index, blkno, &pi);
		kind = PageKindOf(&pi, ref, blkno);
		memset(nulls, true, sizeof(nulls));
		values[0] = Int64GetDatum(blkno);
		values[1] = CStringGetTextDatum(kind);
		nulls[0] = nulls[1] = false;
		if (strcmp(kind, "unreferenced") == 0)
		{
			values[5] = Int32GetDatum(pi.count);
			nulls[5] = false;
		}
		else if (pi.kind == ref->kind && pi.kind != SCBF_KIND_NEW)
		{
			if (ref->segno >= 0)
			{
				values[2] = Int64GetDatum(ref->segno);
				nulls[2] = false;
			}
			if (ref->serial >= 0)
			{
				values[3] = Int64GetDatum(ref->serial);
				nulls[3] = false;
			}
			if (ref->has_block_index)
			{
				values[4] = Int32GetDatum(ref->block_index);
				nulls[4] = false;
			}
			if (pi.kind == SCBF_KIND_TABLE)
			{
				int64		first = (int64) ref->block_index *
					c.mi.entries_per_table_page;

				values[5] = Int32GetDatum((int32) Max(Min((int64) c.mi.nfilters - first,
														  (int64) c.mi.entries_per_table_page),
													  0));
				nulls[5] = false;
			}
			else if (pi.kind == SCBF_KIND_ROOT || pi.kind == SCBF_KIND_LEAF ||
					 pi.kind == SCBF_KIND_PENDING || pi.kind == SCBF_KIND_DELTA)
			{
				values[5] = Int32GetDatum(pi.count);
				nulls[5] = false;
			}
			if (ref->next != InvalidBlockNumber)
			{
				values[6] = Int64GetDatum(ref->next);
				nulls[6] = false;
			}
		}
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values,
							 nulls);
	}
}

/*
 * scbf_pages(index regclass)
 *		One row per page of the index: its kind, owner, entries and link
 *		(README.md, "Reference").  Like pageinspect, it reads each page on
 *		its own.
 *
 * Takes AccessShareLock on the table and the index (ScbfOpenIndex) and
 * share locks on one page at a time; on a primary, a walk that pages keep
 * moving under takes the fold lock in share mode (RetryLock).  The caller
 * must be allowed to SELECT from the table.  Returns the rows, materialized.
 */
Datum
scbf_pages(PG_FUNCTION_ARGS)
{
	Relation	heap;
	Relation	index;

	InitMaterializedSRF(fcinfo, 0);
	index = ScbfOpenIndex(fcinfo, 0, AccessShareLock, &heap, true);
	/* what this backend inserted but has not written yet, first */
	ScbfBatchFlush(index);
	PageRows(fcinfo, index);
	ScbfCloseIndex(index, heap, AccessShareLock);
	return (Datum) 0;
}

/* ----------------------------------------------------------------
 *	scbf_probe
 * ----------------------------------------------------------------
 */

/* One row of scbf_probe, kept until the attempt completes */
typedef struct ScbfProbeRow
{
	bool		pending;		/* a pending partition, else a filter */
	uint32		segno;
	uint32		position;
	uint32		filterno;		/* pending: the partition */
	int64		matches;
	int64		heappages;
} ScbfProbeRow;

/* What the pending part of a probe collects */
typedef struct ScbfProbePending
{
	int			col;
	const uint32 *hashes;
	int			nhashes;
	int64		matches;
	BlockNumber *blocks;
	int			nblocks;
	int			maxblocks;
} ScbfProbePending;

/*
 * qsort/bsearch comparator of uint32s.
 */
static int
CmpU32(const void *a, const void *b)
{
	uint32		x = *(const uint32 *) a;
	uint32		y = *(const uint32 *) b;

	return (x > y) - (x < y);
}

/*
 * Distinct values among sorted v[0 .. n).
 */
static int64
Distinct(uint32 *v, int n)
{
	int64		d = 0;
	int			i;

	qsort(v, n, sizeof(uint32), CmpU32);
	for (i = 0; i < n; i++)
		if (i == 0 || v[i] != v[i - 1])
			d++;
	return d;
}

/*
 * ScbfPendingScan callback of scbf_probe: a pending entry whose column
 * hash is one of the value's.
 */
static void
ProbePendingEntry(ItemPointer tid, const uint32 *hashes, void *arg)
{
	ScbfProbePending *pp = (ScbfProbePending *) arg;
	uint32		h = hashes[pp->col];

	if (bsearch(&h, pp->hashes, pp->nhashes, sizeof(uint32),
				CmpU32) == NULL)
		return;
	pp->matches++;
	if (pp->nblocks == pp->maxblocks)
	{
		pp->maxblocks = Max(pp->maxblocks * 2, 16);
		pp->blocks = pp->blocks ?
			repalloc(pp->blocks, sizeof(BlockNumber) * pp->maxblocks) :
			palloc(sizeof(BlockNumber) * pp->maxblocks);
	}
	pp->blocks[pp->nblocks++] = ItemPointerGetBlockNumber(tid);
}

/*
 * One attempt at a probe of cond: its rows into *rows / *nrows.  False if
 * a page moved under a standby's probe.
 */
static bool
TryProbe(Relation index, ScbfState *state, ScbfCond *cond,
			  ScbfProbeRow **rows, int *nrows)
{
	ScbfMeta  *meta = ScbfReadMeta(index);
	ScbfMetaInfoData mi;
	BlockNumber nblocks = RelationGetNumberOfBlocks(index);
	uint64		fold_serial = ScbfMetaFoldSerial(meta);
	uint32		nfilters = ScbfMetaFilters(meta);
	int			maxrows = 16;
	bool		parts[SCBF_NPENDING];
	int			part;
	int			i;

	ScbfMetaInfo(meta, &mi);
	*nrows = 0;
	*rows = palloc(sizeof(ScbfProbeRow) * maxrows);
	if (nfilters > 0)
	{
		uint8	   *acc = palloc0(ScbfRowsBytes(meta));
		uint32		fno;

		/* the delta before the rows, as a probe reads them (scbfdelta.c) */
		if (!ScbfDeltaProbe(index, meta, cond->col, cond->hashes,
							 cond->nhashes, acc, nblocks) ||
			!ScbfRowsProbe(index, state, meta, cond->col, cond->hashes,
							cond->nhashes, acc, nblocks))
			return false;
		for (fno = ScbfRowsNext(meta, acc, 0); fno < nfilters;
			 fno = ScbfRowsNext(meta, acc, fno + 1))
		{
			ScbfFilter *f;
			ScbfProbeRow *row;
			uint16	   *items;
			uint32	   *blocks;
			int			n;

			CHECK_FOR_INTERRUPTS();
			f = ScbfReadFilter(index, state, meta, fno, nblocks);
			/* as the scan: not a filter merged into another (its target's) */
			if (!ScbfFilterVisible(f, fold_serial))
				continue;
			n = ScbfLedgerLookup(index, ScbfFilterRoot(f, cond->col),
								  cond->col, fold_serial, cond->hashes,
								  cond->nhashes, &items, nblocks);
			if (n < 0)
				return false;
			if (*nrows == maxrows)
			{
				maxrows *= 2;
				*rows = repalloc(*rows, sizeof(ScbfProbeRow) * maxrows);
			}
			row = &(*rows)[(*nrows)++];
			row->pending = false;
			row->segno = ScbfFilterSegment(f);
			row->position = ScbfFilterPosition(f);
			row->filterno = fno;
			row->matches = n;
			blocks = palloc(sizeof(uint32) * Max(n, 1));
			for (i = 0; i < n; i++)
				blocks[i] = ScbfTidRelBlock(items[i]);
			row->heappages = Distinct(blocks, n);
		}
	}

	/* the partitions a probe of this column reads (scbfprobe.c) */
	memset(parts, cond->col != 0, sizeof(parts));
	for (i = 0; cond->col == 0 && i < cond->nhashes; i++)
		parts[ScbfPendingPartition(cond->hashes[i])] = true;
	for (part = 0; part < SCBF_NPENDING; part++)
	{
		ScbfProbePending pp;
		ScbfProbeRow *row;

		if (!parts[part] || !mi.pending[part].mayhave)
			continue;
		memset(&pp, 0, sizeof(pp));
		pp.col = cond->col;
		pp.hashes = cond->hashes;
		pp.nhashes = cond->nhashes;
		if (!ScbfPendingScan(index, state, meta, part,
							  ProbePendingEntry, &pp, NULL))
			return false;
		if (*nrows == maxrows)
		{
			maxrows *= 2;
			*rows = repalloc(*rows, sizeof(ScbfProbeRow) * maxrows);
		}
		row = &(*rows)[(*nrows)++];
		row->pending = true;
		row->filterno = part;
		row->matches = pp.matches;
		row->heappages = Distinct(pp.blocks, pp.nblocks);
	}
	return true;
}

/*
 * ScbfInspectProbe
 *		scbf_probe's rows for a format-2 index and a scan key on one
 *		column: a row per filter whose rows say "maybe" for the value
 *		(verdict "maybe", the matches its ledger holds), then a row per
 *		pending partition the probe reads (verdict "pending", the matching
 *		entries past the cut); see README.md for the columns.
 */
void
ScbfInspectProbe(FunctionCallInfo fcinfo, Relation index, ScanKey key)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	ScbfState *state = ScbfGetState(index);
	ScbfProbeRow *rows = NULL;
	ScbfCond	cond;
	bool		locked = false;
	int			nrows = 0;
	int			attempt;
	int			r;

	if (!ScbfKeyToCond(index, key, &cond, CurrentMemoryContext))
		return;					/* matches no row */
	if (cond.kind != SCBF_COND_EQ)
	{
		Datum		values[8];
		bool		nulls[8];

		/* the scan cannot test it: it reads every ledger */
		memset(nulls, true, sizeof(nulls));
		values[5] = CStringGetTextDatum("whole index: the value cannot be tested");
		nulls[5] = false;
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values,
							 nulls);
		return;
	}

	for (attempt = 0;; attempt++)
	{
		RetryLock(index, attempt, &locked);
		if (TryProbe(index, state, &cond, &rows, &nrows))
			break;
	}
	if (locked)
		UnlockPage(index, SCBF_METAPAGE_BLKNO, ShareLock);

	for (r = 0; r < nrows; r++)
	{
		ScbfProbeRow *row = &rows[r];
		Datum		values[8];
		bool		nulls[8];

		memset(nulls, 0, sizeof(nulls));
		if (row->pending)
		{
			nulls[0] = nulls[1] = nulls[2] = nulls[3] = true;
			values[4] = Int32GetDatum(row->filterno);
			values[5] = CStringGetTextDatum("pending");
		}
		else
		{
			values[0] = Int32GetDatum(row->segno);
			values[1] = Int64GetDatum((int64) row->segno *
									  state->pages_per_segment);
			values[2] = Int32GetDatum(row->position + 1);
			values[3] = Int64GetDatum(row->filterno);
			nulls[4] = true;
			values[5] = CStringGetTextDatum("maybe");
		}
		values[6] = Int64GetDatum(row->matches);
		values[7] = Int64GetDatum(row->heappages);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values,
							 nulls);
	}
}

/*
 * Fill *key with the scan key of "column col = value" for a value of type
 * subtype (the opclass's input type, or another type of the opfamily), as
 * the planner builds it: the opfamily's equality operator for the two
 * types and the column's collation.  With isnull, "column col IS NULL".
 */
static void
ProbeKey(Relation index, int col, Oid subtype, Datum value, bool isnull,
			 ScanKey key)
{
	FmgrInfo	finfo;
	Oid			oper;

	if (isnull)
	{
		ScanKeyEntryInitialize(key, SK_ISNULL | SK_SEARCHNULL, col + 1,
							   InvalidStrategy, InvalidOid, InvalidOid,
							   InvalidOid, (Datum) 0);
		return;
	}

	/*
	 * The scan hashes the value and never calls the operator: a family
	 * that has a hash function for the type but no "=" still gets a key.
	 */
	memset(&finfo, 0, sizeof(finfo));
	finfo.fn_oid = InvalidOid;
	oper = get_opfamily_member(index->rd_opfamily[col],
							   index->rd_opcintype[col], subtype,
							   SCBF_EQUAL_STRATEGY);
	if (OidIsValid(oper))
		fmgr_info(get_opcode(oper), &finfo);
	ScanKeyEntryInitializeWithInfo(key, 0, col + 1, SCBF_EQUAL_STRATEGY,
								   subtype, index->rd_indcollation[col],
								   &finfo, value);
}

/*
 * Check the column number argument (1-based; NULL means 1) and return it
 * 0-based.
 */
static int
ProbeColumn(FunctionCallInfo fcinfo, Relation index, int argno)
{
	int			ncols = IndexRelationGetNumberOfKeyAttributes(index);
	int			col = PG_ARGISNULL(argno) ? 1 : PG_GETARG_INT32(argno);

	if (col < 1 || col > ncols)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("column %d does not exist in index \"%s\"", col,
						RelationGetRelationName(index)),
				 errhint("Index \"%s\" has %d column(s), numbered from 1.",
						 RelationGetRelationName(index), ncols)));
	return col - 1;
}

/*
 * scbf_probe(index regclass, value anyelement, col int DEFAULT 1): which
 * segments and filters may hold the value, and how many ledger entries
 * match it.  The value is a key of its own type, as in a query: the scan
 * hashes it with the opclass's own hash function if its type is the
 * opclass's input type (or binary-coercible to it, or a domain over it),
 * else with the opfamily's hash function for its type, which must exist,
 * and the column's collation must be deterministic (see ScbfKeyToCond in
 * scbfscan.c).  NULL probes IS NULL.
 */
Datum
scbf_probe(PG_FUNCTION_ARGS)
{
	Relation	heap;
	Relation	index;
	int			col;
	ScanKeyData key;

	InitMaterializedSRF(fcinfo, 0);
	index = ScbfOpenIndex(fcinfo, 0, AccessShareLock, &heap, true);
	/* what this backend inserted but has not written yet, first */
	ScbfBatchFlush(index);
	col = ProbeColumn(fcinfo, index, 2);

	if (PG_ARGISNULL(1))
		ProbeKey(index, col, InvalidOid, (Datum) 0, true, &key);
	else
	{
		Oid			valtype = get_fn_expr_argtype(fcinfo->flinfo, 1);
		Oid			basetype;
		Oid			opcintype = index->rd_opcintype[col];
		Oid			collation = index->rd_indcollation[col];
		Oid			procid = InvalidOid;
		Oid			subtype = InvalidOid;

		if (!OidIsValid(valtype))
			elog(ERROR, "could not determine the type of the value to probe");
		basetype = getBaseType(valtype);

		/* the hash function the scan will use, as ScbfScanHashProc finds it */
		if (basetype == opcintype || IsBinaryCoercible(basetype, opcintype))
		{
			procid = index_getprocid(index, col + 1, SCBF_HASH_PROC);
			subtype = opcintype;
		}
		else if (!OidIsValid(collation) ||
				 get_collation_isdeterministic(collation))
		{
			procid = get_opfamily_proc(index->rd_opfamily[col], basetype,
									   basetype, SCBF_HASH_PROC);
			subtype = basetype;
		}
		if (!OidIsValid(procid))
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("cannot probe column %d of index \"%s\" (type %s) with a value of type %s",
							col + 1, RelationGetRelationName(index),
							format_type_be(opcintype),
							format_type_be(valtype)),
					 errhint("Pass the value as text to have it converted to the column's type.")));
		ProbeKey(index, col, subtype, PG_GETARG_DATUM(1), false, &key);
	}

	ScbfInspectProbe(fcinfo, index, &key);
	ScbfCloseIndex(index, heap, AccessShareLock);
	return (Datum) 0;
}

/*
 * scbf_probe(index regclass, value text, col int DEFAULT 1): as above, the
 * text being converted to the column's type with that type's input
 * function, then probed as a key of the opclass's input type, which the
 * scan hashes as an insert hashes it.
 */
Datum
scbf_probe_text(PG_FUNCTION_ARGS)
{
	Relation	heap;
	Relation	index;
	int			col;
	ScanKeyData key;

	InitMaterializedSRF(fcinfo, 0);
	index = ScbfOpenIndex(fcinfo, 0, AccessShareLock, &heap, true);
	/* what this backend inserted but has not written yet, first */
	ScbfBatchFlush(index);
	col = ProbeColumn(fcinfo, index, 2);

	if (PG_ARGISNULL(1))
		ProbeKey(index, col, InvalidOid, (Datum) 0, true, &key);
	else
	{
		Form_pg_attribute att = TupleDescAttr(RelationGetDescr(index), col);
		Oid			typinput;
		Oid			typioparam;
		Datum		value;

		getTypeInputInfo(att->atttypid, &typinput, &typioparam);
		value = OidInputFunctionCall(typinput,
									 text_to_cstring(PG_GETARG_TEXT_PP(1)),
									 typioparam, att->atttypmod);
		ProbeKey(index, col, index->rd_opcintype[col], value, false,
					 &key);
	}

	ScbfInspectProbe(fcinfo, index, &key);
	ScbfCloseIndex(index, heap, AccessShareLock);
	return (Datum) 0;
}
