/*-------------------------------------------------------------------------
 *
 * scbffuncs.c
 *	  SQL-callable diagnostic and maintenance functions of scbf.
 *
 * NOTES
 *	  scbf_index_info, scbf_segments, scbf_filters and scbf_pages show what
 *	  an index holds; scbf_probe shows which segments and filters may hold a
 *	  value and how many ledger entries match it, by running the bitmap scan
 *	  itself with a trace (ScbfTraceScan in scbfscan.c), so that a user can
 *	  see why a query read what it read; scbf_rebuild rebuilds segments from
 *	  their ledgers or from the heap, like brin_summarize_range.  The
 *	  verifier is in scbfverify.c, the mathematics in scbfmathfuncs.c.
 *
 *	  The read-only functions take the locks a reader takes (AccessShareLock
 *	  on the table, then on the index, as amcheck does) and read pages with
 *	  share locks, one filter at a time, so they work on a hot standby and
 *	  block writers no longer than a scan would.  A segment whose chain
 *	  changes while it is read (a concurrent chaining, or VACUUM
 *	  consolidating it) is read again; a chain that leads to a page that is
 *	  not what it should be, twice in a row with the directory unchanged, is
 *	  reported as corruption.
 *
 *	  The functions that reveal values or their presence are not executable
 *	  by PUBLIC (see the install script) and check that the caller may
 *	  SELECT from the table; scbf_rebuild checks that the caller owns it.
 *
 * Portions Copyright (c) 2026, scbf developers
 *
 * IDENTIFICATION
 *	  src/scbffuncs.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/relation.h"
#include "access/table.h"
#include "access/xlog.h"
#include "catalog/index.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "parser/parse_coerce.h"
#include "storage/indexfsm.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/tuplestore.h"

#include "scbf.h"
#include "scbf2.h"

PG_FUNCTION_INFO_V1(scbf_index_info);
PG_FUNCTION_INFO_V1(scbf_segments);
PG_FUNCTION_INFO_V1(scbf_filters);
PG_FUNCTION_INFO_V1(scbf_pages);
PG_FUNCTION_INFO_V1(scbf_probe);
PG_FUNCTION_INFO_V1(scbf_probe_text);
PG_FUNCTION_INFO_V1(scbf_rebuild);
PG_FUNCTION_INFO_V1(scbf_clean_pending);

/*
 * How often a diagnostic reads a segment whose chain changes under it
 * before giving up (scbf_probe retries as the scan does: it is the scan).
 */
#define SCBF_DIAG_RETRIES		5

/* What the diagnostics know of one filter */
typedef struct ScbfFilterInfo
{
	BlockNumber head;
	uint32		serial;
	uint16		state;			/* SCBF_FILTER_* */
	uint16		flags;			/* SCBF_FILTER_* flags */
	uint32		nblocks;		/* blocks linked */
	uint32		nledger_pages;	/* ledger pages reached from the head */
	uint64		entries;		/* live ledger entries */
	uint64		tombstones;		/* removed entries not yet compacted */
	uint64		nulls[INDEX_MAX_KEYS];	/* NULLs per column, from the ledger */
	uint64		saturated;		/* counters at the maximum (census) */
	uint64		stale;			/* counters above what the ledger implies */
	double		fill;			/* mean over blocks and slices */
	double		worst_fill;		/* fullest block */
	double		slice_fill[SCBF_FILTER_MAX_K];	/* per slice, mean over blocks */
	double		fpr;			/* mean over blocks of the state FPR */
	double		worst_fpr;		/* the fullest block's state FPR */
	double		keys;			/* estimated distinct keys */
	bool		full;			/* a block reached the FPR budget: an insert
								 * there chains a new filter */
} ScbfFilterInfo;

/* What the diagnostics know of one segment */
typedef struct ScbfSegInfo
{
	uint32		segno;
	bool		has_entry;		/* false: no directory entry (chain) */
	ScbfSegEntry entry;			/* its directory entry, as read */
	int			nfilters;		/* filters read, in chain order */
	ScbfFilterInfo *filters;
} ScbfSegInfo;

/* Callback of ScbfWalkSegments */
typedef void (*ScbfSegInfoFn) (Relation index, ScbfState *state,
							   ScbfSegInfo *si, void *arg);

/*
 * Open the scbf index given as argument argno of a diagnostic function,
 * and its table: the table first, then the index, both with lockmode (a
 * reader's order, as amcheck and brin_summarize_range do, so no deadlock
 * with DDL), then check that the index still belongs to that table (its
 * OID may have been reused meanwhile), and write this backend's batch of
 * the index (scbfbatch.c), so the caller sees its own inserts.  Raises a clear error for NULL, a
 * dropped OID, or something that is not an scbf index; with needselect,
 * also unless the caller may SELECT from the table.  Returns the index;
 * *heap gets the table.  ScbfCloseIndex releases both.
 */
Relation
ScbfOpenIndex(FunctionCallInfo fcinfo, int argno, LOCKMODE lockmode,
			  Relation *heap, bool needselect)
{
	Oid			indexoid;
	Oid			heapoid;
	Relation	index;
	Relation	rel;

	if (PG_ARGISNULL(argno))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("index must not be null")));
	indexoid = PG_GETARG_OID(argno);

	heapoid = IndexGetRelation(indexoid, true);
	if (!OidIsValid(heapoid))
	{
		/* not an index: say what it is, if it is anything */
		rel = try_relation_open(indexoid, AccessShareLock);
		if (rel == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_OBJECT),
					 errmsg("relation with OID %u does not exist", indexoid)));
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not an scbf index",
						RelationGetRelationName(rel))));
	}

	*heap = try_table_open(heapoid, lockmode);
	if (*heap == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("relation with OID %u does not exist", indexoid)));
	index = try_relation_open(indexoid, lockmode);
	if (index == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("relation with OID %u does not exist", indexoid)));

	/* the index may have been dropped and its OID reused meanwhile */
	if (index->rd_rel->relam != get_index_am_oid("scbf", false) ||
		(index->rd_rel->relkind != RELKIND_INDEX &&
		 index->rd_rel->relkind != RELKIND_PARTITIONED_INDEX))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not an scbf index",
						RelationGetRelationName(index))));
	if (index->rd_rel->relkind == RELKIND_PARTITIONED_INDEX)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is a partitioned index",
						RelationGetRelationName(index)),
				 errdetail("A partitioned index has no storage of its own."),
				 errhint("Call the function on the index of each partition.")));
	if (IndexGetRelation(indexoid, true) != heapoid)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("could not open parent table of index \"%s\"",
						RelationGetRelationName(index))));

	if (RELATION_IS_OTHER_TEMP(index))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot access temporary indexes of other sessions")));

	if (needselect)
	{
		AclResult	aclresult = pg_class_aclcheck(heapoid, GetUserId(),
												  ACL_SELECT);

		if (aclresult != ACLCHECK_OK)
			aclcheck_error(aclresult, OBJECT_TABLE,
						   RelationGetRelationName(*heap));
	}

	/* what this backend inserted but has not written yet, first */
	ScbfBatchFlush(index);
	return index;
}

/*
 * Close what ScbfOpenIndex opened, releasing its locks.
 */
void
ScbfCloseIndex(Relation index, Relation heap, LOCKMODE lockmode)
{
	index_close(index, lockmode);
	table_close(heap, lockmode);
}

/*
 * Number of segments the table has now: those a scan considers.
 */
static uint32
ScbfHeapSegments(Relation heap, ScbfState *state)
{
	BlockNumber nblocks = RelationGetNumberOfBlocks(heap);

	return (nblocks + state->pages_per_segment - 1) / state->pages_per_segment;
}

/*
 * Name of a filter state.
 */
static const char *
ScbfStateName(uint16 state)
{
	switch (state)
	{
		case SCBF_FILTER_GROWING:
			return "growing";
		case SCBF_FILTER_ACTIVE:
			return "active";
		case SCBF_FILTER_CLOSED:
			return "closed";
		case SCBF_FILTER_DROPPING:
			return "dropping";
	}
	return "unknown";
}

/*
 * ScbfTextArray
 *		text[] of n C strings (the diagnostics of both formats).
 */
Datum
ScbfTextArray(const char **names, int n)
{
	Datum	   *elems = palloc(sizeof(Datum) * Max(n, 1));
	int			i;

	for (i = 0; i < n; i++)
		elems[i] = CStringGetTextDatum(names[i]);
	return PointerGetDatum(construct_array(elems, n, TEXTOID, -1, false,
										   TYPALIGN_INT));
}

/*
 * ScbfInt8Array
 *		bigint[] of n values.
 */
Datum
ScbfInt8Array(const uint64 *values, int n)
{
	Datum	   *elems = palloc(sizeof(Datum) * Max(n, 1));
	int			i;

	for (i = 0; i < n; i++)
		elems[i] = Int64GetDatum((int64) values[i]);
	return PointerGetDatum(construct_array(elems, n, INT8OID, 8,
										   FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
}

/*
 * ScbfFloat8Array
 *		float8[] of n values.
 */
Datum
ScbfFloat8Array(const double *values, int n)
{
	Datum	   *elems = palloc(sizeof(Datum) * Max(n, 1));
	int			i;

	for (i = 0; i < n; i++)
		elems[i] = Float8GetDatum(values[i]);
	return PointerGetDatum(construct_array(elems, n, FLOAT8OID, 8,
										   FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
}

/* ----------------------------------------------------------------
 *	Reading filters and segments
 * ----------------------------------------------------------------
 */

/*
 * Read the head of filter (segno, serial) at headblk and the non-zero
 * counts of its blocks: state, flags, state FPR (mean and worst block),
 * fill, and an estimate of its distinct keys (linear counting per slice,
 * n = -m ln(1 - nonzero / m), averaged over slices and summed over blocks,
 * as ScbfFilterSummary does).  The head is share-locked throughout, and
 * each other block while it is read (lock order: head, then blocks).
 * Returns false, with failblk set, if a page is not what the head says it
 * is: the filter changed under us, or the index is corrupted (the caller
 * tells the two apart by re-reading the directory).  Unlike
 * ScbfFilterSummary, it never raises an error for that.
 */
static bool
ScbfReadFilterHead(Relation index, ScbfState *state, uint32 segno,
				   BlockNumber headblk, uint32 serial, ScbfFilterInfo *fi,
				   BlockNumber *failblk)
{
	BlockNumber nindex = RelationGetNumberOfBlocks(index);
	Buffer		headbuf;
	Page		headpage;
	ScbfFilterPageData *head;
	int			nblocks;
	int			b;

	if (headblk == SCBF_METAPAGE_BLKNO || headblk >= nindex)
	{
		*failblk = headblk;
		return false;
	}
	headbuf = ScbfTryLockHead(index, headblk, segno, serial,
							  BUFFER_LOCK_SHARE);
	if (!BufferIsValid(headbuf))
	{
		*failblk = headblk;
		return false;
	}
	headpage = BufferGetPage(headbuf);
	head = ScbfPageGetFilter(headpage);
	fi->head = headblk;
	fi->serial = serial;
	fi->state = head->state;
	fi->flags = head->flags;
	fi->nblocks = head->nlinked;

	/* a dropping filter's other blocks may be free already */
	nblocks = (head->state == SCBF_FILTER_DROPPING) ? 0 : head->nlinked;
	for (b = 0; b < nblocks; b++)
	{
		Buffer		buf = headbuf;
		ScbfFilterPageData *filter;
		double		bfpr;

		if (b != 0)
		{
			BlockNumber blkno = head->blocks[b];

			if (blkno == SCBF_METAPAGE_BLKNO || blkno >= nindex)
			{
				UnlockReleaseBuffer(headbuf);
				*failblk = blkno;
				return false;
			}
			buf = ReadBuffer(index, blkno);
			LockBuffer(buf, BUFFER_LOCK_SHARE);
			if (!ScbfPageIsFilter(BufferGetPage(buf), segno, serial,
								  (uint16) b))
			{
				UnlockReleaseBuffer(buf);
				UnlockReleaseBuffer(headbuf);
				*failblk = blkno;
				return false;
			}
		}
		filter = ScbfPageGetFilter(BufferGetPage(buf));
		bfpr = scbf_filter_state_fpr(filter->nonzero, &state->geom);
		fi->fpr += bfpr / nblocks;
		fi->worst_fpr = Max(fi->worst_fpr, bfpr);
		fi->keys += scbf_filter_estimate_keys(filter->nonzero, &state->geom);
		if (b != 0)
			UnlockReleaseBuffer(buf);
	}
	UnlockReleaseBuffer(headbuf);
	return true;
}

/*
 * Read one filter: its head and blocks (ScbfReadFilterHead), then its
 * ledger and counters (ScbfCheckFilter, which holds the head share-locked
 * while it reads the ledger and recounts the counters in memory: entries,
 * NULLs, saturated and stale counters are exact).  Returns false, with
 * failblk set, if the filter changed under us (see ScbfReadFilterHead).
 * Problems that only the verifier reports are ignored here.
 */
static bool
ScbfReadFilter(Relation index, ScbfState *state, uint32 segno,
			   BlockNumber headblk, uint32 serial, ScbfFilterInfo *fi,
			   BlockNumber *next, uint32 *next_serial, BlockNumber *failblk)
{
	ScbfFilterCheck fc;
	int			s;

	memset(fi, 0, sizeof(ScbfFilterInfo));
	if (!ScbfReadFilterHead(index, state, segno, headblk, serial, fi, failblk))
		return false;

	ScbfCheckFilter(index, state, segno, headblk, serial, false, &fc);
	if (fc.changed)
	{
		*failblk = fc.problem_blk;
		return false;
	}
	fi->state = fc.state;
	fi->nledger_pages = fc.npages_seen;
	fi->entries = fc.entries;
	fi->tombstones = fc.tombstones;
	memcpy(fi->nulls, fc.nulls, sizeof(fi->nulls));
	fi->saturated = fc.saturated;
	fi->stale = fc.stale;
	fi->worst_fill = fc.worst_fill;
	for (s = 0; s < state->geom.k; s++)
	{
		fi->slice_fill[s] = fc.slice_fill[s];
		fi->fill += fc.slice_fill[s] / state->geom.k;
	}
	*next = fc.next;
	*next_serial = fc.next_serial;
	return true;
}

/*
 * Read segment segno's chain into si, filter by filter from its head.
 * Reads the directory entry first; a segment without one gets
 * has_entry = false and no filters.  A chain that changes under us is read
 * again; if it keeps leading to a page that is not the filter page it
 * should be while the directory entry stays the same, that is corruption.
 */
static void
ScbfReadSegment(Relation index, ScbfState *state, uint32 segno,
				ScbfSegInfo *si)
{
	BlockNumber lastfail = InvalidBlockNumber;
	ScbfSegEntry last;
	int			maxfilters = 4;
	int			attempt;

	memset(si, 0, sizeof(ScbfSegInfo));
	si->segno = segno;
	si->filters = palloc(sizeof(ScbfFilterInfo) * maxfilters);
	memset(&last, 0, sizeof(last));

	for (attempt = 0;; attempt++)
	{
		BlockNumber blk;
		uint32		serial;
		uint32		last_serial = 0;
		BlockNumber failblk = InvalidBlockNumber;
		bool		ok = true;

		CHECK_FOR_INTERRUPTS();
		si->nfilters = 0;
		si->has_entry = ScbfGetSegEntry(index, state, segno, &si->entry);
		if (!si->has_entry)
			return;

		blk = si->entry.head;
		serial = si->entry.head_serial;
		while (blk != 0)
		{
			BlockNumber next;
			uint32		next_serial;

			/* serials increase along a chain: anything else is a loop */
			if (si->nfilters > 0 && serial <= last_serial)
				ScbfReportCorrupt(index, blk,
								  psprintf("Segment %u's chain goes from filter %u back to filter %u.",
										   segno, last_serial, serial));
			if (si->nfilters >= maxfilters)
			{
				maxfilters *= 2;
				si->filters = repalloc(si->filters,
									   sizeof(ScbfFilterInfo) * maxfilters);
			}
			if (!ScbfReadFilter(index, state, segno, blk, serial,
								&si->filters[si->nfilters], &next,
								&next_serial, &failblk))
			{
				ok = false;
				break;
			}
			/* full: a block reached the budget of its place in the chain */
			si->filters[si->nfilters].full =
				si->filters[si->nfilters].worst_fpr >=
				ScbfChainBudget(state, si->nfilters + 1);
			si->nfilters++;
			last_serial = serial;
			blk = next;
			serial = next_serial;
		}
		if (ok)
			return;

		/* the chain changed under us, or a page is corrupted */
		if (attempt > 0 && failblk == lastfail &&
			memcmp(&si->entry, &last, sizeof(ScbfSegEntry)) == 0)
			ScbfReportCorrupt(index, failblk,
							  psprintf("Page is not the filter page that segment %u's chain leads to.",
									   segno));
		if (attempt + 1 >= SCBF_DIAG_RETRIES)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_IN_USE),
					 errmsg("segment %u of index \"%s\" kept changing while it was read",
							segno, RelationGetRelationName(index)),
					 errhint("Try again.")));
		lastfail = failblk;
		last = si->entry;
	}
}

/* State of ScbfWalkSegments */
typedef struct ScbfWalkArgs
{
	ScbfSegInfoFn fn;
	void	   *arg;
	bool		gaps;			/* also segments without a chain */
	uint32		next;			/* next segment not yet reported */
	MemoryContext cxt;			/* reset after each segment */
} ScbfWalkArgs;

/*
 * Report segment segno through the walk's callback, in a short-lived
 * memory context.
 */
static void
ScbfWalkOne(Relation index, ScbfState *state, ScbfWalkArgs *w, uint32 segno)
{
	MemoryContext oldcxt = MemoryContextSwitchTo(w->cxt);
	ScbfSegInfo si;

	ScbfReadSegment(index, state, segno, &si);
	if (si.has_entry || w->gaps)
		w->fn(index, state, &si, w->arg);
	MemoryContextSwitchTo(oldcxt);
	MemoryContextReset(w->cxt);
}

/*
 * ScbfForEachSegment callback of ScbfWalkSegments: first the segments
 * without a chain that precede this one (with gaps), then this one.
 */
static void
ScbfWalkSegment(Relation index, ScbfState *state, uint32 segno,
				ScbfSegEntry *entry, void *arg)
{
	ScbfWalkArgs *w = (ScbfWalkArgs *) arg;

	if (w->gaps)
		for (; w->next < segno; w->next++)
			ScbfWalkOne(index, state, w, w->next);
	ScbfWalkOne(index, state, w, segno);
	w->next = segno + 1;
}

/*
 * Call fn for every segment that has a filter chain, in segment order;
 * with gaps, also for every other segment of the table (flagged empty at
 * build, or without a directory entry: scans read those whole).
 */
static void
ScbfWalkSegments(Relation index, Relation heap, ScbfState *state, bool gaps,
				 ScbfSegInfoFn fn, void *arg)
{
	ScbfWalkArgs w;

	w.fn = fn;
	w.arg = arg;
	w.gaps = gaps;
	w.next = 0;
	w.cxt = AllocSetContextCreate(CurrentMemoryContext,
								  "scbf diagnostic segment context",
								  ALLOCSET_DEFAULT_SIZES);
	ScbfForEachSegment(index, state, ScbfWalkSegment, &w);
	if (gaps)
	{
		uint32		nsegs = ScbfHeapSegments(heap, state);

		for (; w.next < nsegs; w.next++)
			ScbfWalkOne(index, state, &w, w.next);
	}
	MemoryContextDelete(w.cxt);
}

/*
 * A segment's chain FPR: 1 - prod(1 - fpr) over the filters a scan probes
 * (growing and dropping filters hold no entries).
 */
static double
ScbfChainFpr(const ScbfSegInfo *si)
{
	double		pass = 1.0;
	int			f;

	for (f = 0; f < si->nfilters; f++)
		if (si->filters[f].state != SCBF_FILTER_GROWING &&
			si->filters[f].state != SCBF_FILTER_DROPPING)
			pass *= 1.0 - si->filters[f].fpr;
	return 1.0 - pass;
}

/* ----------------------------------------------------------------
 *	scbf_index_info
 * ----------------------------------------------------------------
 */

/* What the walk over the segments gathers for scbf_index_info */
typedef struct ScbfInfoArgs
{
	uint32		segments;
	uint32		filters;
	uint32		max_chain;
	uint32	   *chain_hist;		/* chain_hist[i]: segments with i filters */
	uint32		chain_hist_size;
	uint64		entries;
	uint64		tombstones;
	double		sum_fill;		/* over blocks */
	uint64		nblocks;
	double		worst_fill;
	double		sum_fpr;		/* over segments */
	int64		worst_segment;
	double		worst_fpr;
	uint64		saturated;
	uint64		stale;
} ScbfInfoArgs;

/*
 * ScbfWalkSegments callback of scbf_index_info.
 */
static void
ScbfInfoSegment(Relation index, ScbfState *state, ScbfSegInfo *si, void *arg)
{
	ScbfInfoArgs *a = (ScbfInfoArgs *) arg;
	double		fpr = ScbfChainFpr(si);
	int			f;

	for (f = 0; f < si->nfilters; f++)
	{
		ScbfFilterInfo *fi = &si->filters[f];

		a->entries += fi->entries;
		a->tombstones += fi->tombstones;
		a->sum_fill += fi->fill * fi->nblocks;
		a->nblocks += fi->nblocks;
		a->worst_fill = Max(a->worst_fill, fi->worst_fill);
		a->saturated += fi->saturated;
		a->stale += fi->stale;
	}
	a->segments++;
	a->filters += si->nfilters;
	a->max_chain = Max(a->max_chain, (uint32) si->nfilters);
	if ((uint32) si->nfilters >= a->chain_hist_size)
	{
		uint32		newsize = Max(a->chain_hist_size * 2, si->nfilters + 1);

		a->chain_hist = repalloc(a->chain_hist, sizeof(uint32) * newsize);
		memset(a->chain_hist + a->chain_hist_size, 0,
			   sizeof(uint32) * (newsize - a->chain_hist_size));
		a->chain_hist_size = newsize;
	}
	a->chain_hist[si->nfilters]++;
	a->sum_fpr += fpr;
	if (a->worst_segment < 0 || fpr > a->worst_fpr)
	{
		a->worst_segment = si->segno;
		a->worst_fpr = fpr;
	}
}

/*
 * scbf_index_info(index regclass): one row describing the whole index: the
 * layout in force, the segments and their chains (walked like a scan, each
 * filter's ledger recounted in memory for the stale counters), and the
 * pages by kind (a walk over every page, as pgstatindex does).
 */
Datum
scbf_index_info(PG_FUNCTION_ARGS)
{
	Relation	heap;
	Relation	index;
	ScbfState  *state;
	ScbfInfoArgs a;
	TupleDesc	tupdesc;
	Datum		values[28];
	bool		nulls[28];
	BlockNumber nblocks;
	BlockNumber blkno;
	uint64		pages[SCBF_PAGE_FREE + 2];	/* by type; last: others */
	uint32		empty_segments = 0;
	Datum	   *hist;
	int			dims[1];
	int			lbs[1];
	int			i = 0;
	uint32		h;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");

	index = ScbfOpenIndex(fcinfo, 0, AccessShareLock, &heap, true);
	if (ScbfIndexFormat(index) == SCBF2_FORMAT_VERSION)
	{
		Datum		result = Scbf2IndexInfo(fcinfo, index, heap);

		ScbfCloseIndex(index, heap, AccessShareLock);
		PG_RETURN_DATUM(result);
	}
	state = ScbfGetState(index);

	memset(&a, 0, sizeof(a));
	a.worst_segment = -1;
	a.chain_hist_size = 8;
	a.chain_hist = palloc0(sizeof(uint32) * a.chain_hist_size);
	ScbfWalkSegments(index, heap, state, false, ScbfInfoSegment, &a);

	/* every page, by kind; segments the build found empty */
	memset(pages, 0, sizeof(pages));
	nblocks = RelationGetNumberOfBlocks(index);
	for (blkno = 0; blkno < nblocks; blkno++)
	{
		Buffer		buf = ReadBuffer(index, blkno);
		Page		page;
		ScbfPageOpaque opaque;

		CHECK_FOR_INTERRUPTS();
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		opaque = ScbfPageGetOpaque(page);
		if (PageIsNew(page))
			pages[SCBF_PAGE_FREE]++;	/* never initialized: reusable */
		else if (((PageHeader) page)->pd_special !=
				 BLCKSZ - MAXALIGN(sizeof(ScbfPageOpaqueData)) ||
				 opaque->page_id != SCBF_PAGE_ID ||
				 opaque->type < SCBF_PAGE_META || opaque->type > SCBF_PAGE_FREE)
			pages[SCBF_PAGE_FREE + 1]++;
		else
		{
			pages[opaque->type]++;
			if (opaque->type == SCBF_PAGE_DIRECTORY)
			{
				ScbfSegEntry *dir = ScbfPageGetDir(page);
				uint32		s;

				for (s = 0; s < SCBF_DIR_ENTRIES_PER_PAGE; s++)
					if (ScbfSegEntryIsEmpty(&dir[s]) &&
						(dir[s].flags & SCBF_SEG_EMPTY))
						empty_segments++;
			}
		}
		UnlockReleaseBuffer(buf);
	}

	/* element i: segments with a chain of i filters, i = 1 .. max_chain */
	hist = palloc(sizeof(Datum) * Max(a.max_chain, 1));
	for (h = 1; h <= a.max_chain; h++)
		hist[h - 1] = Int32GetDatum(a.chain_hist[h]);
	dims[0] = a.max_chain;
	lbs[0] = 1;

	memset(nulls, 0, sizeof(nulls));
	values[i++] = Int32GetDatum(state->pages_per_segment);
	values[i++] = Float8GetDatum(state->target_fpr);
	values[i++] = Int32GetDatum(state->geom.k);
	values[i++] = Int32GetDatum(state->geom.m);
	values[i++] = Int32GetDatum(SCBF_FILTER_COUNTER_BITS);
	values[i++] = Int32GetDatum(state->block_capacity);
	values[i++] = Int32GetDatum(state->ncols);
	values[i++] = Int32GetDatum(a.segments);
	values[i++] = Int32GetDatum(empty_segments);
	values[i++] = Int32GetDatum(a.filters);
	values[i++] = Int32GetDatum(a.max_chain);
	if (a.max_chain > 0)
		values[i++] = PointerGetDatum(construct_md_array(hist, NULL, 1, dims,
														 lbs, INT4OID, 4,
														 true, TYPALIGN_INT));
	else
		values[i++] = PointerGetDatum(construct_empty_array(INT4OID));
	values[i++] = Int64GetDatum(nblocks);
	values[i++] = Int64GetDatum(pages[SCBF_PAGE_META]);
	values[i++] = Int64GetDatum(pages[SCBF_PAGE_DIRECTORY]);
	values[i++] = Int64GetDatum(pages[SCBF_PAGE_FILTER]);
	values[i++] = Int64GetDatum(pages[SCBF_PAGE_LEDGER]);
	values[i++] = Int64GetDatum(pages[SCBF_PAGE_FREE]);
	values[i++] = Int64GetDatum(a.entries);
	values[i++] = Int64GetDatum(a.tombstones);
	values[i++] = Float8GetDatum(a.nblocks ? a.sum_fill / a.nblocks : 0);
	values[i++] = Float8GetDatum(a.worst_fill);
	values[i++] = Float8GetDatum(a.segments ? a.sum_fpr / a.segments : 0);
	if (a.worst_segment >= 0)
	{
		values[i++] = Int32GetDatum((int32) a.worst_segment);
		values[i++] = Float8GetDatum(a.worst_fpr);
	}
	else
	{
		nulls[i++] = true;
		nulls[i++] = true;
	}
	values[i++] = Int64GetDatum(a.saturated);
	values[i++] = Int64GetDatum(a.stale);
	if (a.entries > 0)
		values[i++] = Float8GetDatum((double) nblocks * BLCKSZ / a.entries);
	else
		nulls[i++] = true;
	Assert(i == tupdesc->natts);

	ScbfCloseIndex(index, heap, AccessShareLock);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(tupdesc),
													  values, nulls)));
}

/* ----------------------------------------------------------------
 *	scbf_segments and scbf_filters
 * ----------------------------------------------------------------
 */

/*
 * ScbfWalkSegments callback of scbf_segments: one row per segment.
 */
static void
ScbfSegmentRow(Relation index, ScbfState *state, ScbfSegInfo *si, void *arg)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) arg;
	BlockNumber first = si->segno * state->pages_per_segment;
	uint64		nulls_per_col[INDEX_MAX_KEYS];
	uint64		entries = 0;
	uint64		saturated = 0;
	uint32		blocks = 0;
	uint32		ledger_pages = 0;
	double		fill = 0;
	const char *flags[8];
	int			nflags = 0;
	bool		growing = false;
	bool		dropping = false;
	bool		stale = false;
	bool		recount = false;
	Datum		values[12];
	bool		nulls[12];
	int			f;
	int			c;
	int			i = 0;

	memset(nulls_per_col, 0, sizeof(nulls_per_col));
	for (f = 0; f < si->nfilters; f++)
	{
		ScbfFilterInfo *fi = &si->filters[f];

		entries += fi->entries;
		for (c = 0; c < state->ncols; c++)
			nulls_per_col[c] += fi->nulls[c];
		saturated += fi->saturated;
		blocks += fi->nblocks;
		ledger_pages += fi->nledger_pages;
		fill += fi->fill * fi->nblocks;
		growing |= (fi->state == SCBF_FILTER_GROWING);
		dropping |= (fi->state == SCBF_FILTER_DROPPING);
		stale |= (fi->flags & SCBF_FILTER_STALE) != 0;
		recount |= (fi->flags & SCBF_FILTER_RECOUNT) != 0;
	}

	if (!si->has_entry)
		flags[nflags++] = (si->entry.flags & SCBF_SEG_EMPTY) ?
			"empty" : "unindexed";
	if (si->nfilters > 0 && si->filters[si->nfilters - 1].full)
		flags[nflags++] = "full";
	if (growing)
		flags[nflags++] = "growing";
	if (dropping)
		flags[nflags++] = "dropping";
	if (stale)
		flags[nflags++] = "stale";
	if (recount)
		flags[nflags++] = "recount";

	memset(nulls, 0, sizeof(nulls));
	values[i++] = Int32GetDatum(si->segno);
	values[i++] = Int64GetDatum(first);
	values[i++] = Int64GetDatum(first + state->pages_per_segment - 1);
	values[i++] = Int32GetDatum(si->nfilters);
	values[i++] = Int32GetDatum(blocks);
	values[i++] = Int32GetDatum(ledger_pages);
	values[i++] = Int64GetDatum(entries);
	values[i++] = ScbfInt8Array(nulls_per_col, state->ncols);
	if (si->has_entry)
	{
		values[i++] = Float8GetDatum(ScbfChainFpr(si));
		values[i++] = Float8GetDatum(blocks ? fill / blocks : 0);
	}
	else if (si->entry.flags & SCBF_SEG_EMPTY)
	{
		/* scans skip it */
		values[i++] = Float8GetDatum(0);
		values[i++] = Float8GetDatum(0);
	}
	else
	{
		/* scans read it whole: no filter to speak of */
		nulls[i++] = true;
		nulls[i++] = true;
	}
	values[i++] = Int64GetDatum(saturated);
	values[i++] = ScbfTextArray(flags, nflags);
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

/*
 * ScbfWalkSegments callback of scbf_filters: one row per filter.
 */
static void
ScbfFilterRows(Relation index, ScbfState *state, ScbfSegInfo *si, void *arg)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) arg;
	int			f;

	for (f = 0; f < si->nfilters; f++)
	{
		ScbfFilterInfo *fi = &si->filters[f];
		const char *flags[4];
		int			nflags = 0;
		Datum		values[15];
		bool		nulls[15];
		int			i = 0;

		if (fi->full)
			flags[nflags++] = "full";
		if (fi->flags & SCBF_FILTER_STALE)
			flags[nflags++] = "stale";
		if (fi->flags & SCBF_FILTER_RECOUNT)
			flags[nflags++] = "recount";

		memset(nulls, 0, sizeof(nulls));
		values[i++] = Int32GetDatum(si->segno);
		values[i++] = Int32GetDatum(f + 1);
		values[i++] = Int64GetDatum(fi->serial);
		values[i++] = CStringGetTextDatum(ScbfStateName(fi->state));
		values[i++] = ScbfTextArray(flags, nflags);
		values[i++] = Int64GetDatum(fi->head);
		values[i++] = Int32GetDatum(fi->nblocks);
		values[i++] = Int32GetDatum(fi->nledger_pages);
		values[i++] = Int64GetDatum(fi->entries);
		values[i++] = ScbfInt8Array(fi->nulls, state->ncols);
		values[i++] = Float8GetDatum(fi->fill);
		values[i++] = ScbfFloat8Array(fi->slice_fill, state->geom.k);
		values[i++] = Float8GetDatum(fi->fpr);
		values[i++] = Int64GetDatum(fi->saturated);
		values[i++] = Float8GetDatum(fi->keys);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values,
							 nulls);
	}
}

/*
 * scbf_segments(index regclass): one row per segment of the table, those
 * without a filter chain included (flagged "empty" or "unindexed").
 */
Datum
scbf_segments(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Relation	heap;
	Relation	index;

	InitMaterializedSRF(fcinfo, 0);
	index = ScbfOpenIndex(fcinfo, 0, AccessShareLock, &heap, true);
	if (ScbfIndexFormat(index) == SCBF2_FORMAT_VERSION)
		Scbf2Segments(fcinfo, index, heap);
	else
		ScbfWalkSegments(index, heap, ScbfGetState(index), true,
						 ScbfSegmentRow, rsinfo);
	ScbfCloseIndex(index, heap, AccessShareLock);
	return (Datum) 0;
}

/*
 * scbf_filters(index regclass, segno int DEFAULT NULL): one row per filter
 * of segment segno's chain, in chain order, or of every segment.
 */
Datum
scbf_filters(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Relation	heap;
	Relation	index;
	ScbfState  *state;

	InitMaterializedSRF(fcinfo, 0);
	index = ScbfOpenIndex(fcinfo, 0, AccessShareLock, &heap, true);
	if (ScbfIndexFormat(index) == SCBF2_FORMAT_VERSION)
	{
		if (PG_ARGISNULL(1))
			Scbf2Filters(fcinfo, index, -1);
		else if (PG_GETARG_INT32(1) >= 0)
			Scbf2Filters(fcinfo, index, PG_GETARG_INT32(1));
		ScbfCloseIndex(index, heap, AccessShareLock);
		return (Datum) 0;
	}
	state = ScbfGetState(index);

	if (PG_ARGISNULL(1))
		ScbfWalkSegments(index, heap, state, false, ScbfFilterRows, rsinfo);
	else if (PG_GETARG_INT32(1) >= 0 &&
			 (uint64) PG_GETARG_INT32(1) < SCBF_MAX_SEGMENTS)
	{
		ScbfSegInfo si;

		ScbfReadSegment(index, state, (uint32) PG_GETARG_INT32(1), &si);
		ScbfFilterRows(index, state, &si, rsinfo);
	}

	ScbfCloseIndex(index, heap, AccessShareLock);
	return (Datum) 0;
}

/* ----------------------------------------------------------------
 *	scbf_pages
 * ----------------------------------------------------------------
 */

/*
 * scbf_pages(index regclass): one row per page of the index: its kind
 * (meta, directory, filter, ledger, free, new for a page never
 * initialized, unknown for one that is not an scbf page), its owner
 * (segment, filter serial, block index within the filter; a directory
 * page's index in the metapage's map), the live entries of a ledger page,
 * and the link to the next page (a ledger page's successor, a filter
 * head's next filter).  Like pageinspect, it reads each page on its own.
 */
Datum
scbf_pages(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Relation	heap;
	Relation	index;
	BlockNumber nblocks;
	BlockNumber blkno;

	InitMaterializedSRF(fcinfo, 0);
	index = ScbfOpenIndex(fcinfo, 0, AccessShareLock, &heap, true);
	if (ScbfIndexFormat(index) == SCBF2_FORMAT_VERSION)
	{
		Scbf2Pages(fcinfo, index);
		ScbfCloseIndex(index, heap, AccessShareLock);
		return (Datum) 0;
	}
	nblocks = RelationGetNumberOfBlocks(index);

	for (blkno = 0; blkno < nblocks; blkno++)
	{
		Buffer		buf = ReadBuffer(index, blkno);
		Page		page;
		Datum		values[7];
		bool		nulls[7];
		const char *kind;
		ScbfPageOpaque opaque;

		CHECK_FOR_INTERRUPTS();
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		memset(nulls, true, sizeof(nulls));
		values[0] = Int64GetDatum(blkno);
		nulls[0] = false;

		opaque = ScbfPageGetOpaque(page);
		if (PageIsNew(page))
			kind = "new";
		else if (((PageHeader) page)->pd_special !=
				 BLCKSZ - MAXALIGN(sizeof(ScbfPageOpaqueData)) ||
				 opaque->page_id != SCBF_PAGE_ID)
			kind = "unknown";
		else
		{
			switch (opaque->type)
			{
				case SCBF_PAGE_META:
					kind = "meta";
					break;
				case SCBF_PAGE_DIRECTORY:
					kind = "directory";
					values[4] = Int32GetDatum(opaque->blkidx);
					nulls[4] = false;
					break;
				case SCBF_PAGE_FILTER:
					kind = "filter";
					values[2] = Int64GetDatum(opaque->segno);
					values[3] = Int64GetDatum(opaque->serial);
					values[4] = Int32GetDatum(opaque->blkidx);
					nulls[2] = nulls[3] = nulls[4] = false;
					if (opaque->blkidx == 0)
					{
						values[6] = Int64GetDatum(ScbfPageGetFilter(page)->next);
						nulls[6] = false;
					}
					break;
				case SCBF_PAGE_LEDGER:
					{
						ScbfLedgerPageData *ledger = ScbfPageGetLedger(page);

						kind = "ledger";
						values[2] = Int64GetDatum(opaque->segno);
						values[3] = Int64GetDatum(opaque->serial);
						values[5] = Int32GetDatum((int32) ledger->nentries -
												  ledger->ntombstones);
						values[6] = Int64GetDatum(ledger->next);
						nulls[2] = nulls[3] = nulls[5] = nulls[6] = false;
						break;
					}
				case SCBF_PAGE_FREE:
					kind = "free";
					break;
				default:
					kind = "unknown";
					break;
			}
		}
		values[1] = CStringGetTextDatum(kind);
		nulls[1] = false;
		UnlockReleaseBuffer(buf);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}

	ScbfCloseIndex(index, heap, AccessShareLock);
	return (Datum) 0;
}

/* ----------------------------------------------------------------
 *	scbf_probe
 *
 * The probe runs the bitmap scan itself (ScbfTraceScan) for one condition,
 * column = value or column IS NULL, built as the planner builds it, and
 * turns what the scan reports into rows: one per filter that says "maybe",
 * with the number of TIDs the scan took from its ledger (ledger entries
 * whose hash matches) and of distinct heap pages among them, or one for a
 * segment the scan returns whole, saying why.  There is thus one walk over
 * segments, filters and ledgers, the scan's, and the probe explains the
 * scan that runs.
 * ----------------------------------------------------------------
 */

/* One filter that says "maybe" */
typedef struct ScbfProbeRow
{
	int			position;		/* in the chain, from 1 */
	uint32		serial;
	int			block;			/* block of the filter probed */
	int64		matches;		/* ledger entries whose hash matches */
	int64		heappages;		/* distinct heap pages among them */
} ScbfProbeRow;

/* What scbf_probe collects while the scan runs */
typedef struct ScbfProbeState
{
	ReturnSetInfo *rsinfo;
	BlockNumber pages_per_segment;
	ScbfProbeRow *rows;			/* of the segment's current attempt */
	int			nrows;
	int			maxrows;
} ScbfProbeState;

/*
 * ScbfTraceFn of scbf_probe.  Collects a row per filter that says "maybe"
 * during a segment's attempt (an ATTEMPT, the start of a retry, forgets
 * them) and emits them once the scan is done with the segment; emits one
 * row for a segment returned whole, whose heap_pages is the number of its
 * pages the scan added.  Rows go to arg's tuplestore, in scan order.
 */
static void
ScbfProbeTrace(const ScbfTraceData *td, void *arg)
{
	ScbfProbeState *ps = (ScbfProbeState *) arg;
	ReturnSetInfo *rsinfo = ps->rsinfo;
	BlockNumber first = td->segno * ps->pages_per_segment;
	Datum		values[8];
	bool		nulls[8];
	int			i;

	switch (td->event)
	{
		case SCBF_TRACE_ATTEMPT:
			ps->nrows = 0;
			break;

		case SCBF_TRACE_MAYBE:
			{
				ScbfProbeRow *row;
				bool		pageseen[SCBF_MAX_PAGES_PER_SEGMENT];

				if (ps->nrows >= ps->maxrows)
				{
					ps->maxrows = Max(8, ps->maxrows * 2);
					ps->rows = ps->rows ?
						repalloc(ps->rows, sizeof(ScbfProbeRow) * ps->maxrows) :
						palloc(sizeof(ScbfProbeRow) * ps->maxrows);
				}
				row = &ps->rows[ps->nrows++];
				row->position = td->position;
				row->serial = td->serial;
				row->block = td->block;
				row->matches = td->ntids;
				row->heappages = 0;
				memset(pageseen, 0, sizeof(pageseen));
				for (i = 0; i < td->ntids; i++)
				{
					BlockNumber relblk;

					relblk = ItemPointerGetBlockNumber(&td->tids[i]) - first;
					Assert(relblk < SCBF_MAX_PAGES_PER_SEGMENT);
					if (!pageseen[relblk])
					{
						pageseen[relblk] = true;
						row->heappages++;
					}
				}
				break;
			}

		case SCBF_TRACE_DONE:
			for (i = 0; i < ps->nrows; i++)
			{
				ScbfProbeRow *row = &ps->rows[i];

				memset(nulls, 0, sizeof(nulls));
				values[0] = Int32GetDatum(td->segno);
				values[1] = Int64GetDatum(first);
				values[2] = Int32GetDatum(row->position);
				values[3] = Int64GetDatum(row->serial);
				values[4] = Int32GetDatum(row->block);
				values[5] = CStringGetTextDatum("maybe");
				values[6] = Int64GetDatum(row->matches);
				values[7] = Int64GetDatum(row->heappages);
				tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc,
									 values, nulls);
			}
			break;

		case SCBF_TRACE_WHOLE:
			{
				const char *verdict = NULL;

				switch (td->reason)
				{
					case SCBF_WHOLE_NO_ENTRY:
						verdict = "whole segment: no directory entry";
						break;
					case SCBF_WHOLE_RECOUNT:
						verdict = "whole segment: counters await a recount";
						break;
					case SCBF_WHOLE_CHANGING:
						verdict = "whole segment: its chain kept changing";
						break;
				}
				if (verdict == NULL)
					elog(ERROR, "unexpected scbf scan reason %d",
						 (int) td->reason);

				memset(nulls, true, sizeof(nulls));
				values[0] = Int32GetDatum(td->segno);
				values[1] = Int64GetDatum(first);
				if (td->position > 0)
				{
					values[2] = Int32GetDatum(td->position);
					values[3] = Int64GetDatum(td->serial);
					nulls[2] = nulls[3] = false;
				}
				values[5] = CStringGetTextDatum(verdict);
				values[7] = Int64GetDatum(td->npages);
				nulls[0] = nulls[1] = nulls[5] = nulls[7] = false;
				tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc,
									 values, nulls);
				break;
			}
	}
}

/*
 * Fill *key with the scan key of "column col = value" for a value of type
 * subtype (the opclass's input type, or another type of the opfamily), as
 * the planner builds it: the opfamily's equality operator for the two
 * types and the column's collation.  With isnull, "column col IS NULL".
 */
static void
ScbfProbeKey(Relation index, int col, Oid subtype, Datum value, bool isnull,
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
 * Shared body of the two scbf_probe variants, once the scan key is built:
 * run the scan, traced, and return its rows, every segment of the table in
 * order as scbfgetbitmap visits them.
 */
static void
ScbfProbe(FunctionCallInfo fcinfo, Relation index, ScanKey key)
{
	ScbfProbeState ps;

	if (ScbfIndexFormat(index) == SCBF2_FORMAT_VERSION)
	{
		Scbf2Probe(fcinfo, index, key);
		return;
	}
	memset(&ps, 0, sizeof(ps));
	ps.rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	ps.pages_per_segment = ScbfGetState(index)->pages_per_segment;
	ScbfTraceScan(index, key, 1, ScbfProbeTrace, &ps);
}

/*
 * Check the column number argument (1-based; NULL means 1) and return it
 * 0-based.
 */
static int
ScbfProbeColumn(FunctionCallInfo fcinfo, Relation index, int argno)
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
	col = ScbfProbeColumn(fcinfo, index, 2);

	if (PG_ARGISNULL(1))
		ScbfProbeKey(index, col, InvalidOid, (Datum) 0, true, &key);
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
		ScbfProbeKey(index, col, subtype, PG_GETARG_DATUM(1), false, &key);
	}

	ScbfProbe(fcinfo, index, &key);
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
	col = ScbfProbeColumn(fcinfo, index, 2);

	if (PG_ARGISNULL(1))
		ScbfProbeKey(index, col, InvalidOid, (Datum) 0, true, &key);
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
		ScbfProbeKey(index, col, index->rd_opcintype[col], value, false,
					 &key);
	}

	ScbfProbe(fcinfo, index, &key);
	ScbfCloseIndex(index, heap, AccessShareLock);
	return (Datum) 0;
}

/* ----------------------------------------------------------------
 *	scbf_rebuild
 * ----------------------------------------------------------------
 */

/*
 * Rebuild segment segno from its ledgers: recount its flagged filters
 * (exact counters from the ledger) and rewrite its chain as one filter
 * sized for its live keys.  Returns true if the segment was rewritten.
 * The caller holds ShareUpdateExclusiveLock on the table, which keeps
 * VACUUM and other rebuilds away: only inserts run meanwhile, and they may
 * append a filter but never drop one, so the chain can be walked with
 * ScbfFilterSummary.
 */
static bool
ScbfRebuildFromLedger(Relation index, ScbfState *state, uint32 segno)
{
	ScbfSegEntry seg;
	BlockNumber blk;
	uint32		serial;
	ScbfWalk	walk;

	if (!ScbfGetSegEntry(index, state, segno, &seg))
		return false;
	blk = seg.head;
	serial = seg.head_serial;
	ScbfWalkStart(&walk, index, SCBF_WALK_CHAIN, segno, 0);
	while (blk != 0)
	{
		ScbfFilterSummaryData fs;

		ScbfWalkFilter(&walk, blk, serial);
		ScbfFilterSummary(index, state, segno, blk, serial, &fs);
		if (fs.state != SCBF_FILTER_GROWING &&
			fs.state != SCBF_FILTER_DROPPING &&
			(fs.flags & (SCBF_FILTER_STALE | SCBF_FILTER_RECOUNT)))
			ScbfRecountFilter(index, state, segno, blk, serial);
		blk = fs.next;
		serial = fs.next_serial;
	}
	return ScbfConsolidateSegment(index, state, segno, true);
}

/*
 * scbf_rebuild(index regclass, segno int DEFAULT NULL, source text DEFAULT
 * 'ledger'): rebuild one segment, or every segment, and return how many
 * were rebuilt.  From the ledger ('ledger'): recount flagged filters and
 * rewrite the chain as one filter sized for its live keys, under
 * ShareUpdateExclusiveLock on the table, like VACUUM (readers and writers
 * go on).  From the heap ('heap'): re-create the segment's entries as
 * CREATE INDEX would, under ShareLock (writers wait), the cure when a
 * ledger itself is in doubt.  Like brin_summarize_range, it refuses to run
 * during recovery and requires ownership of the table.
 */
Datum
scbf_rebuild(PG_FUNCTION_ARGS)
{
	Relation	heap;
	Relation	index;
	ScbfState  *state;
	char	   *source;
	bool		from_heap;
	LOCKMODE	lockmode;
	uint32		nsegs;
	uint32		segno;
	int32		count = 0;

	if (RecoveryInProgress())
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("recovery is in progress"),
				 errhint("scbf_rebuild() cannot be executed during recovery.")));

	if (PG_ARGISNULL(2))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("rebuild source must not be null"),
				 errhint("Valid sources are \"ledger\" and \"heap\".")));
	source = text_to_cstring(PG_GETARG_TEXT_PP(2));
	if (strcmp(source, "ledger") == 0)
		from_heap = false;
	else if (strcmp(source, "heap") == 0)
		from_heap = true;
	else
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid rebuild source \"%s\"", source),
				 errhint("Valid sources are \"ledger\" and \"heap\".")));
	lockmode = from_heap ? ShareLock : ShareUpdateExclusiveLock;

	/*
	 * Check ownership before the strong lock, so that a caller who may not
	 * rebuild cannot block the table's writers meanwhile; and again once
	 * locked, in case the OID now names something else.
	 */
	if (!PG_ARGISNULL(0))
	{
		Oid			heapoid = IndexGetRelation(PG_GETARG_OID(0), true);

		if (OidIsValid(heapoid) &&
			!pg_class_ownercheck(heapoid, GetUserId()))
		{
			char	   *relname = get_rel_name(heapoid);

			if (relname != NULL)
				aclcheck_error(ACLCHECK_NOT_OWNER, OBJECT_TABLE, relname);
		}
	}
	index = ScbfOpenIndex(fcinfo, 0, lockmode, &heap, false);
	if (!pg_class_ownercheck(RelationGetRelid(heap), GetUserId()))
		aclcheck_error(ACLCHECK_NOT_OWNER, OBJECT_TABLE,
					   RelationGetRelationName(heap));
	if (ScbfIndexFormat(index) == SCBF2_FORMAT_VERSION)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("scbf_rebuild() does not support index \"%s\" of storage format 2",
						RelationGetRelationName(index)),
				 errdetail("An index of format 2 recounts its filters and merges their chains at VACUUM."),
				 errhint("Run VACUUM on table \"%s\", or REINDEX INDEX CONCURRENTLY to rebuild the index from it.",
						 RelationGetRelationName(heap))));
	state = ScbfGetState(index);
	nsegs = ScbfHeapSegments(heap, state);

	if (!PG_ARGISNULL(1) &&
		(PG_GETARG_INT32(1) < 0 || (uint32) PG_GETARG_INT32(1) >= nsegs))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("segment %d is out of range", PG_GETARG_INT32(1)),
				 nsegs > 0 ?
				 errdetail("Table \"%s\" has %u segment(s) of %u pages, numbered from 0.",
						   RelationGetRelationName(heap), nsegs,
						   state->pages_per_segment) :
				 errdetail("Table \"%s\" is empty.",
						   RelationGetRelationName(heap))));

	for (segno = 0; segno < nsegs; segno++)
	{
		bool		rebuilt;

		if (!PG_ARGISNULL(1) && segno != (uint32) PG_GETARG_INT32(1))
			continue;
		CHECK_FOR_INTERRUPTS();
		if (from_heap)
			rebuilt = ScbfRebuildSegmentFromHeap(index, heap, state, segno);
		else
			rebuilt = ScbfRebuildFromLedger(index, state, segno);
		if (rebuilt)
			count++;
	}

	/* make the pages just freed findable by later inserts */
	if (count > 0)
		IndexFreeSpaceMapVacuum(index);

	ScbfCloseIndex(index, heap, lockmode);
	PG_RETURN_INT32(count);
}

/*
 * scbf_clean_pending(index regclass): fold the pending area of a format-2
 * index into its filters now, as VACUUM does, and return the entries
 * folded (0 for a format-1 index, which has no pending area).  Waits for a
 * fold another backend runs.  Like gin_clean_pending_list(), for the table's
 * owner.
 */
Datum
scbf_clean_pending(PG_FUNCTION_ARGS)
{
	Relation	heap;
	Relation	index;
	int64		folded = 0;

	if (RecoveryInProgress())
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("recovery is in progress"),
				 errhint("scbf_clean_pending() cannot be executed during recovery.")));
	index = ScbfOpenIndex(fcinfo, 0, RowExclusiveLock, &heap, false);
	if (!pg_class_ownercheck(RelationGetRelid(heap), GetUserId()))
		aclcheck_error(ACLCHECK_NOT_OWNER, OBJECT_TABLE,
					   RelationGetRelationName(heap));
	if (ScbfIndexFormat(index) == SCBF2_FORMAT_VERSION)
		folded = Scbf2Fold(index, true);
	ScbfCloseIndex(index, heap, RowExclusiveLock);
	PG_RETURN_INT64(folded);
}
