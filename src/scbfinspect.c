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
 *	  scbf_probe runs the scan's own probe (scbfprobe.c) with a trace: the
 *	  filters whose rows say "maybe" for the value and what their ledgers
 *	  hold, then the pending partitions the probe reads.
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
#include "nodes/tidbitmap.h"
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
	uint16		chain_pos;		/* in the segment\'s chain, from 0 */
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
typedef struct ScbfIndexStats
{
	ScbfMeta  *meta;
	ScbfMetaInfoData mi;
	uint32		nfilters;		/* in use */
	ScbfFilterStat *filters;	/* by segment, then chain position */
	uint64		pending;		/* entries past the cuts */
	uint32	   *counts;			/* k * m, one filter's at a time */
	uint8	   *bandpage;		/* one page of band rows */
	uint8	  **counted;		/* per band, its shape: bit (row, filter)
								 * set where the filter counts an entry;
								 * NULL if the bands exceed
								 * maintenance_work_mem */
	bool		stale_known;	/* the filters' stale bits were counted */
} ScbfIndexStats;

/* Counts of a ledger scan */
typedef struct ScbfCountArg
{
	ScbfState  *state;
	const ScbfBand *band;		/* whose geometry places the keys */
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
CountPosting(ScbfHash hash, const uint16 *items, int nitems, void *arg)
{
	ScbfCountArg *ca = (ScbfCountArg *) arg;
	uint32		pos[SCBF_ROWS_MAX_K];
	uint32		m = ca->band->geom.m;
	uint32		s;

	ca->items += nitems;
	if (hash == SCBF_NULL_HASH)
		ca->nulls += nitems;
	ScbfKeyPositions(ca->state, ca->band, ca->col, hash, pos);
	for (s = 0; s < ca->state->k; s++)
		ca->counts[(Size) s * m + pos[s]] += nitems;
}

/*
 * ScbfPendingScan callback: count entries.
 */
static void
CountPending(ItemPointer tid, const ScbfHash *hashes, void *arg)
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
	if (x->chain_pos != y->chain_pos)
		return (int) x->chain_pos - (int) y->chain_pos;
	return (x->filterno > y->filterno) - (x->filterno < y->filterno);
}

/*
 * CountStats
 *		A filter's counts, c->counts[0 .. k * m), summed up into fs: the
 *		largest, the positions whose count is not zero, and those whose
 *		count a 4-bit counter could not hold.  The positions it counts at
 *		are marked in c->counted, from which CountStale finds its stale
 *		bits once every filter is counted.
 */
static void
CountStats(ScbfState *state, ScbfIndexStats *c, ScbfFilterStat *fs)
{
	const ScbfBand *band = ScbfBandOf(&c->mi.bands, fs->filterno);
	uint64		nrows = (uint64) state->k * band->geom.m;
	Size		pagebytes = ScbfBandPageBytes(band);
	uint8	   *counted = c->counted != NULL ?
		c->counted[band - c->mi.bands.bands] : NULL;
	uint64		row;

	for (row = 0; row < nrows; row++)
	{
		uint32		n = c->counts[row];

		fs->max_count = Max(fs->max_count, n);
		if (n > 0)
			fs->nonzero++;
		if (n > SCBF_COUNTER4_MAX)
			fs->saturated++;
		if (n > 0 && counted != NULL)
			(void) scbf_rows_set(counted +
								 (row / band->rows_per_page) * pagebytes,
								 (uint32) (row % band->rows_per_page),
								 band->width, fs->filterno - band->first);
	}
}

/*
 * CountStale
 *		Every counted filter's stale bits: the positions whose bit is set in
 *		the band while no visible entry of the filter counts there.  A
 *		crashed fold leaves such bits; a fold under way shows its new bits
 *		so until it commits, and a VACUUM the bits it has yet to clear
 *		after its commit.  Reads every page of every band once and tests
 *		every bit of it.  Returns false if a band page moved under a
 *		standby's walk.
 */
static bool CountBandStale(Relation index, ScbfState *state,
						   ScbfIndexStats *c, ScbfBand *band,
						   const uint8 *counted_band, BlockNumber nblocks);

static bool
CountStale(Relation index, ScbfState *state, ScbfIndexStats *c,
		   BlockNumber nblocks)
{
	uint32		b;

	for (b = 0; b < c->mi.bands.nbands; b++)
		if (!CountBandStale(index, state, c, &c->mi.bands.bands[b],
							c->counted[b], nblocks))
			return false;
	return true;
}

/*
 * CountBandStale
 *		CountStale for one band, counted_band its shape.
 */
static bool
CountBandStale(Relation index, ScbfState *state, ScbfIndexStats *c,
			   ScbfBand *band, const uint8 *counted_band, BlockNumber nblocks)
{
	uint64		nrows = (uint64) state->k * band->geom.m;
	Size		pagebytes = ScbfBandPageBytes(band);
	uint32		p;

	if (!ScbfBandLoad(index, band, nblocks))
		return false;
	for (p = 0; p < band->pages; p++)
	{
		uint64		first = (uint64) p * band->rows_per_page;
		const uint8 *counted = counted_band + p * pagebytes;
		uint32		r;

		CHECK_FOR_INTERRUPTS();
		if (first >= nrows)
			break;
		if (!ScbfBandReadPage(index, band, p, c->bandpage, nblocks))
			return false;
		for (r = 0; r < band->rows_per_page && first + r < nrows; r++)
		{
			uint32		j;

			for (j = 0; j < c->nfilters; j++)
			{
				uint32		fno = c->filters[j].filterno;

				if (fno >= band->first && fno - band->first < band->width &&
					scbf_rows_test(c->bandpage, r, band->width,
								   fno - band->first) &&
					!scbf_rows_test(counted, r, band->width,
									fno - band->first))
					c->filters[j].stale++;
			}
		}
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
 * read of the filter's visible runs, and CountStale reads the band once
 * for every filter: fine for a diagnostic.  Returns false if a page was recycled under a standby's
 * walk.
 */
static bool
StatFilter(Relation index, ScbfState *state, ScbfIndexStats *c,
		   ScbfFilter *f, uint32 filterno, BlockNumber nblocks,
		   ScbfFilterStat *fs)
{
	const ScbfBand *band = ScbfBandOf(&c->mi.bands, filterno);
	uint32		nset[SCBF_ROWS_MAX_K];
	uint32		i;
	int			col;

	memset(fs, 0, sizeof(ScbfFilterStat));
	fs->filterno = filterno;
	fs->segno = ScbfFilterSegment(f);
	fs->chain_pos = ScbfFilterChainPos(f);
	fs->state = ScbfFilterStateName(f);
	fs->table_entries = ScbfFilterEntries(f);
	fs->nkeys = ScbfFilterKeys(f);
	ScbfFilterGetBits(f, nset);
	for (i = 0; i < state->k && i < SCBF_ROWS_MAX_K; i++)
	{
		fs->slice_fill[i] = (double) nset[i] / band->geom.m;
		fs->fill += fs->slice_fill[i] / state->k;
	}
	fs->fpr = ScbfFilterFpr(f, state->k, band->geom.m);

	memset(c->counts, 0, sizeof(uint32) * (Size) state->k * band->geom.m);
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
		ca.band = band;
		ca.col = col;
		ca.counts = c->counts;
		if (!ScbfLedgerScan(index, root, col, c->mi.fold_serial,
							CountPosting, &ca, nblocks))
			return false;
		if (col == 0)
			fs->entries = ca.items;
		fs->nulls[col] = ca.nulls;
	}
	CountStats(state, c, fs);
	return true;
}

/*
 * One attempt at the statistics walk: false if a page moved under a standby's walk.
 */
static bool
TryIndexStats(Relation index, ScbfState *state, ScbfIndexStats *c,
			   bool ledgers, bool pending)
{
	BlockNumber nblocks = RelationGetNumberOfBlocks(index);
	ScbfFilter **table;
	uint32		fno;
	int			part;

	c->meta = ScbfReadMeta(index);
	ScbfMetaInfo(c->meta, &c->mi);
	ScbfMetaBands(index, c->meta, &c->mi.bands, nblocks);
	table = ScbfReadTable(index, state, c->meta, nblocks);
	c->filters = palloc(sizeof(ScbfFilterStat) * Max(c->mi.nfilters, 1));
	if (ledgers)
	{
		const ScbfBands *bands = &c->mi.bands;
		uint32		maxm = 1;
		Size		bandbytes = 0;
		uint32		b;

		for (b = 0; b < bands->nbands; b++)
		{
			maxm = Max(maxm, bands->bands[b].geom.m);
			bandbytes += (Size) bands->bands[b].pages *
				ScbfBandPageBytes(&bands->bands[b]);
		}
		c->counts = MemoryContextAllocHuge(CurrentMemoryContext,
										   sizeof(uint32) * state->k * maxm);
		c->bandpage = palloc(BLCKSZ);
		c->counted = NULL;
		if (bandbytes <= (Size) maintenance_work_mem * 1024)
		{
			c->counted = palloc(sizeof(uint8 *) * Max(bands->nbands, 1));
			for (b = 0; b < bands->nbands; b++)
				c->counted[b] =
					MemoryContextAllocExtended(CurrentMemoryContext,
											   Max((Size) bands->bands[b].pages *
												   ScbfBandPageBytes(&bands->bands[b]),
												   1),
											   MCXT_ALLOC_HUGE |
											   MCXT_ALLOC_ZERO);
		}
		c->stale_known = c->counted != NULL;
	}
	else
		c->stale_known = false;
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
			fs->chain_pos = ScbfFilterChainPos(table[fno]);
		}
		c->nfilters++;
	}
	if (ledgers && c->counted != NULL &&
		!CountStale(index, state, c, nblocks))
		return false;
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
 * GetIndexStats
 *		The filters in use and, with ledgers, their ledgers' counts; with
 *		pending, the entries of the pending area past the cuts: all as of
 *		one metapage copy, read again while pages move under the walk.
 */
static void
GetIndexStats(Relation index, ScbfState *state, ScbfIndexStats *c,
			   bool ledgers, bool pending)
{
	bool		locked = false;
	int			attempt;

	for (attempt = 0;; attempt++)
	{
		RetryLock(index, attempt, &locked);
		if (TryIndexStats(index, state, c, ledgers, pending))
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
	bool		top;			/* a summary page or map of the top */
} ScbfPageRef;

/* What PageCensus fills in */
typedef struct ScbfPageRefs
{
	Relation	index;
	ScbfPageRef *refs;
	BlockNumber nblocks;
} ScbfPageRefs;

/*
 * ScbfCensus callback of scbf_pages: name block blkno as the page ref says
 * it is, unless it lies outside the index or something named it already
 * (the verifier reports both), and, for a root, a pending page or a page
 * of a superseded band, unless the page is not of that kind.  A root's
 * leaves and a chain's rest are walked only past a block so named, a range
 * up to the end of the index; the rows of superseded bands carry their own
 * band's serial, pending pages their serial, partition and successor.
 */
static bool
RefBlock(BlockNumber blkno, const ScbfBlockRef *ref, void *arg)
{
	ScbfPageRefs *pr = (ScbfPageRefs *) arg;
	ScbfPageRef *out;
	ScbfPageInfo pi;

	if (blkno == SCBF_METAPAGE_BLKNO || blkno >= pr->nblocks)
		return ref->kind == SCBF_KIND_LEAF;
	out = &pr->refs[blkno];
	if (ref->kind == SCBF_KIND_ROOT || ref->kind == SCBF_KIND_PENDING ||
		ref->grave >= 0)
	{
		ScbfInspectPage(pr->index, blkno, &pi);
		if (pi.kind != ref->kind)
			return ref->kind == SCBF_KIND_ROWS ||
				ref->kind == SCBF_KIND_SUMMARY;
	}
	if (out->kind != SCBF_KIND_NEW)
		return ref->kind != SCBF_KIND_ROOT && ref->kind != SCBF_KIND_PENDING;
	out->kind = ref->kind;
	out->segno = ref->segno;
	out->serial = ref->kind == SCBF_KIND_ROOT || ref->kind == SCBF_KIND_LEAF ?
		ref->filterno : ref->serial;
	out->block_index = ref->pageno;
	out->has_block_index = ref->pageno >= 0;
	out->next = ref->next;
	out->top = ref->top;
	switch (ref->kind)
	{
		case SCBF_KIND_ROWS:
		case SCBF_KIND_SUMMARY:
			if (ref->grave >= 0)
				out->serial = pi.ident.rows.band_serial;
			break;
		case SCBF_KIND_BANDMAP:
		case SCBF_KIND_SUMMARYMAP:
			if (ref->grave >= 0)
				out->serial = pi.ident.map.band_serial;
			break;
		case SCBF_KIND_ROOT:
			out->block_index = ref->column + 1;
			out->has_block_index = true;
			break;
		case SCBF_KIND_PENDING:
			out->serial = pi.ident.pending.serial;
			out->block_index = ref->partition >= 0 ? ref->partition :
				(int32) pi.ident.pending.partition;
			out->has_block_index = true;
			out->next = pi.next;
			break;
		default:
			break;
	}
	return true;
}

/*
 * PageCensus
 *		refs[0 .. nblocks): what the structures of a metapage copy name each
 *		block (ScbfCensus), as RefBlock records it.
 */
static ScbfPageRef *
PageCensus(Relation index, ScbfState *state, ScbfIndexStats *c,
		   BlockNumber nblocks)
{
	ScbfPageRefs pr;

	pr.index = index;
	pr.refs = palloc0(sizeof(ScbfPageRef) * Max(nblocks, 1));
	pr.nblocks = nblocks;
	ScbfCensus(index, state, c->meta, RefBlock, &pr, nblocks);
	return pr.refs;
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
		case SCBF_KIND_BANDMAP:
			return "band map";
		case SCBF_KIND_BANDDIR:
			return "band directory";
		case SCBF_KIND_SUMMARY:
			return "summary";
		case SCBF_KIND_SUMMARYMAP:
			return "summary map";
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
 * never initialized or no scbf page at all; "top" and "top map" for the
 * top's summary pages and map), else "unreferenced".
 */
static const char *
PageKindOf(const ScbfPageInfo *pi, const ScbfPageRef *ref,
				BlockNumber blkno)
{
	if (pi->kind == SCBF_KIND_NEW || pi->kind == SCBF_KIND_UNKNOWN ||
		pi->kind == SCBF_KIND_FREE ||
		(pi->kind == SCBF_KIND_META && blkno == SCBF_METAPAGE_BLKNO))
		return KindName(pi->kind);
	if (ref->kind == pi->kind && ref->top)
		return pi->kind == SCBF_KIND_SUMMARY ? "top" : "top map";
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
	ScbfIndexStats c;
	ScbfPageRef *refs;
	Datum		values[31];
	bool		nulls[31];
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

	GetIndexStats(index, state, &c, true, true);
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
	values[i++] = Int32GetDatum((int32) state->hash_bits);
	values[i++] = Int32GetDatum(state->k);
	values[i++] = Int32GetDatum(c.mi.m);
	values[i++] = Int64GetDatum(max_count);
	values[i++] = Int32GetDatum(c.mi.capacity);
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
	values[i++] = Int64GetDatum(pages[SCBF_KIND_ROWS] + pages[SCBF_KIND_BANDMAP] +
								pages[SCBF_KIND_BANDDIR] +
								pages[SCBF_KIND_SUMMARY] +
								pages[SCBF_KIND_SUMMARYMAP]);
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
	if (c.stale_known)
		values[i++] = Int64GetDatum(stale);
	else
		nulls[i++] = true;
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
	ScbfIndexStats c;
	uint32		nsegs = HeapSegments(heap, state);
	uint32		segno;
	uint32		f = 0;

	GetIndexStats(index, state, &c, true, false);
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
	ScbfIndexStats c;
	uint32		f;

	GetIndexStats(index, state, &c, true, false);
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
		values[i++] = Int32GetDatum(fs->chain_pos + 1);
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
									   Min(state->k, SCBF_ROWS_MAX_K));
		values[i++] = Float8GetDatum(fs->fpr);
		values[i++] = Int64GetDatum(fs->max_count);
		values[i++] = Int64GetDatum(fs->nonzero);
		values[i++] = Int64GetDatum(fs->saturated);
		if (c.stale_known)
			values[i++] = Int64GetDatum(fs->stale);
		else
			nulls[i++] = true;
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
	ScbfIndexStats c;
	ScbfPageRef *refs;
	BlockNumber nblocks;
	BlockNumber blkno;

	GetIndexStats(index, state, &c, false, false);
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

/*
 * ScbfInspectProbe
 *		scbf_probe's rows for a scan key on one column of index (= or IS
 *		NULL): the scan's own probe (ScbfProbeBitmap) of the condition
 *		ScbfKeyToCond makes of the key, traced.  A row per filter whose
 *		rows say "maybe" for the value (verdict "maybe", the matches its
 *		ledger holds), then a row per pending partition the probe reads
 *		(verdict "pending", the matching entries past the cut); see
 *		README.md for the columns.  Takes and releases what the probe
 *		takes.
 */
void
ScbfInspectProbe(FunctionCallInfo fcinfo, Relation index, ScanKey key)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	ScbfState *state = ScbfGetState(index);
	ScbfProbeTrace trace;
	ScbfCond	cond;
	TIDBitmap  *tbm;
	int			i;

	if (!ScbfKeyToCond(index, key, &cond, CurrentMemoryContext))
		return;					/* matches no row */
	tbm = tbm_create(work_mem * (Size) 1024, NULL);
	(void) ScbfProbeBitmap(index, &cond, 1, tbm, &trace);
	tbm_free(tbm);

	for (i = 0; i < trace.nsteps; i++)
	{
		ScbfProbeStep *step = &trace.steps[i];
		Datum		values[8];
		bool		nulls[8];

		memset(nulls, 0, sizeof(nulls));
		if (step->source == SCBF_PROBE_PENDING)
		{
			nulls[0] = nulls[1] = nulls[2] = nulls[3] = true;
			values[4] = Int32GetDatum(step->number);
			values[5] = CStringGetTextDatum("pending");
		}
		else
		{
			values[0] = Int32GetDatum(step->segno);
			values[1] = Int64GetDatum((int64) step->segno *
									  state->pages_per_segment);
			values[2] = Int32GetDatum(step->chain_pos + 1);
			values[3] = Int64GetDatum(step->number);
			nulls[4] = true;
			values[5] = CStringGetTextDatum("maybe");
		}
		values[6] = Int64GetDatum(step->matches);
		values[7] = Int64GetDatum(step->heappages);
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
 * and the column's collation must be deterministic (see ScbfKeyHashProc in
 * scbfprobe.c).  NULL probes IS NULL.
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
		Oid			subtype;
		bool		extended;

		if (!OidIsValid(valtype))
			elog(ERROR, "could not determine the type of the value to probe");
		basetype = getBaseType(valtype);

		/*
		 * A key of the opclass's input type if the value coerces to it
		 * without a function, as the planner makes it; else of the value's
		 * type, which needs a hash function of the scan's choice.
		 */
		if (basetype == opcintype || IsBinaryCoercible(basetype, opcintype))
			subtype = opcintype;
		else
			subtype = basetype;
		if (ScbfKeyHashProc(index, col, subtype, collation,
							CurrentMemoryContext, &extended) == NULL)
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
