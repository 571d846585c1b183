/*-------------------------------------------------------------------------
 *
 * scbffuncs.c
 *	  SQL-callable diagnostic and maintenance functions of scbf.
 *
 * NOTES
 *	  scbf_index_info, scbf_segments, scbf_filters and scbf_pages show what
 *	  an index holds; scbf_probe shows which segments and filters may hold a
 *	  value and how many ledger entries match it, so that a user can see why
 *	  a query read what it read; scbf_rebuild rebuilds segments from their
 *	  ledgers or from the heap, like brin_summarize_range.  The verifier is
 *	  in scbfverify.c, the mathematics in scbfmathfuncs.c.
 *
 *	  Every function takes the locks a reader takes (AccessShareLock on the
 *	  table, then on the index, as amcheck does) and reads pages with share
 *	  locks one filter at a time, so it works on a hot standby and blocks
 *	  writers only for as long as a scan would.  The functions that reveal
 *	  values or their presence are not executable by PUBLIC (see the
 *	  install script) and check that the caller may SELECT from the table.
 *
 * Portions Copyright (c) 2026, scbf developers
 *
 * IDENTIFICATION
 *	  src/scbffuncs.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "access/table.h"
#include "access/xlog.h"
#include "catalog/index.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "funcapi.h"
#include "miscadmin.h"
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

PG_FUNCTION_INFO_V1(scbf_index_info);
PG_FUNCTION_INFO_V1(scbf_segments);
PG_FUNCTION_INFO_V1(scbf_filters);
PG_FUNCTION_INFO_V1(scbf_pages);
PG_FUNCTION_INFO_V1(scbf_probe);
PG_FUNCTION_INFO_V1(scbf_probe_text);
PG_FUNCTION_INFO_V1(scbf_rebuild);

/*
 * Open the scbf index given as argument argno of a diagnostic function,
 * and its table: the table first with heaplock, then the index with the
 * same lock, as amcheck does (a reader's order, so no deadlock with DDL).
 * Raises a clear error for NULL, a dropped OID, or something that is not an
 * scbf index; with needselect, also unless the caller may SELECT from the
 * table.  Returns the index; *heap gets the table.
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

	*heap = table_open(heapoid, lockmode);
	index = try_relation_open(indexoid, lockmode);
	if (index == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("relation with OID %u does not exist", indexoid)));

	/* the index may have been dropped and its OID reused meanwhile */
	if (index->rd_rel->relkind != RELKIND_INDEX ||
		IndexGetRelation(indexoid, true) != heapoid ||
		index->rd_rel->relam != get_index_am_oid("scbf", false))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not an scbf index",
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
	return index;
}

/*
 * Close what ScbfOpenIndex opened.
 */
void
ScbfCloseIndex(Relation index, Relation heap, LOCKMODE lockmode)
{
	index_close(index, lockmode);
	table_close(heap, lockmode);
}

/*
 * Text array of the names of a filter's state and flags (and of a
 * segment's flags).
 */
static Datum
ScbfFlagsArray(uint16 state, uint16 flags, uint16 segflags)
{
	Datum		elems[8];
	int			n = 0;

	if (segflags & SCBF_SEG_EMPTY)
		elems[n++] = CStringGetTextDatum("empty");
	if (state == SCBF_FILTER_GROWING)
		elems[n++] = CStringGetTextDatum("growing");
	if (state == SCBF_FILTER_DROPPING)
		elems[n++] = CStringGetTextDatum("dropping");
	if (flags & SCBF_FILTER_STALE)
		elems[n++] = CStringGetTextDatum("stale");
	if (flags & SCBF_FILTER_RECOUNT)
		elems[n++] = CStringGetTextDatum("recount");
	return PointerGetDatum(construct_array(elems, n, TEXTOID, -1, false,
										   TYPALIGN_INT));
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
 * int8 array of n values.
 */
static Datum
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
 * float8 array of n values.
 */
static Datum
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
 *	scbf_index_info
 * ----------------------------------------------------------------
 */

/* What the walk over the segments gathers for scbf_index_info */
typedef struct ScbfInfoArgs
{
	uint32		segments;
	uint32		filters;
	uint32		max_chain;
	uint32		chain_hist[SCBF_MAX_BLOCKS + 1];	/* last slot: longer */
	double		sum_fill;
	uint64		nblocks;
	double		worst_fill;
	double		sum_fpr;
	int64		worst_segment;
	double		worst_fpr;
	uint64		saturated;
	uint64		stale;
} ScbfInfoArgs;

/*
 * ScbfForEachSegment callback of scbf_index_info.
 */
static void
ScbfInfoSegment(Relation index, ScbfState *state, uint32 segno,
				ScbfSegEntry *entry, void *arg)
{
	ScbfInfoArgs *a = (ScbfInfoArgs *) arg;
	BlockNumber blk = entry->head;
	uint32		serial = entry->head_serial;
	double		pass = 1.0;
	uint32		chain = 0;

	while (blk != 0)
	{
		ScbfFilterSummaryData fs;
		ScbfFilterCheck fc;

		CHECK_FOR_INTERRUPTS();
		ScbfFilterSummary(index, state, segno, blk, serial, &fs);
		ScbfCheckFilter(index, state, segno, blk, serial, false, &fc);
		chain++;
		a->filters++;
		a->sum_fill += fs.fill * fs.nblocks;
		a->nblocks += fs.nblocks;
		a->worst_fill = Max(a->worst_fill, fc.worst_fill);
		if (fs.state != SCBF_FILTER_GROWING && fs.state != SCBF_FILTER_DROPPING)
			pass *= 1.0 - fs.fpr;
		a->saturated += fs.nsaturated;
		a->stale += fc.stale;
		blk = fs.next;
		serial = fs.next_serial;
	}
	a->segments++;
	a->max_chain = Max(a->max_chain, chain);
	a->chain_hist[Min(chain, SCBF_MAX_BLOCKS)]++;
	a->sum_fpr += 1.0 - pass;
	if (a->worst_segment < 0 || 1.0 - pass > a->worst_fpr)
	{
		a->worst_segment = segno;
		a->worst_fpr = 1.0 - pass;
	}
}

/*
 * scbf_index_info(index regclass): one row describing the whole index.
 */
Datum
scbf_index_info(PG_FUNCTION_ARGS)
{
	Relation	heap;
	Relation	index = ScbfOpenIndex(fcinfo, 0, AccessShareLock, &heap, true);
	ScbfState  *state = ScbfGetState(index);
	ScbfInfoArgs a;
	TupleDesc	tupdesc;
	Datum		values[28];
	bool		nulls[28];
	BlockNumber nblocks;
	BlockNumber blkno;
	uint64		pages[SCBF_PAGE_FREE + 2];	/* by type; last: new pages */
	uint64		live = 0;
	uint64		pending = 0;
	uint32		empty_segments = 0;
	Datum		hist[SCBF_MAX_BLOCKS + 1];
	int			nhist = 0;
	int			i = 0;
	int			h;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");

	memset(&a, 0, sizeof(a));
	a.worst_segment = -1;
	ScbfForEachSegment(index, state, ScbfInfoSegment, &a);

	/* every page, by kind */
	memset(pages, 0, sizeof(pages));
	nblocks = RelationGetNumberOfBlocks(index);
	for (blkno = 0; blkno < nblocks; blkno++)
	{
		Buffer		buf = ReadBuffer(index, blkno);
		Page		page;

		CHECK_FOR_INTERRUPTS();
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		if (PageIsNew(page))
			pages[SCBF_PAGE_FREE + 1]++;
		else if (ScbfPageGetType(page) >= SCBF_PAGE_META &&
				 ScbfPageGetType(page) <= SCBF_PAGE_FREE)
		{
			pages[ScbfPageGetType(page)]++;
			if (ScbfPageGetType(page) == SCBF_PAGE_LEDGER)
			{
				ScbfLedgerPageData *ledger = ScbfPageGetLedger(page);

				live += ledger->nentries - ledger->ntombstones;
				pending += ledger->ntombstones;
			}
			else if (ScbfPageGetType(page) == SCBF_PAGE_DIRECTORY)
			{
				ScbfSegEntry *dir = ScbfPageGetDir(page);
				uint32		s;

				for (s = 0; s < SCBF_DIR_ENTRIES_PER_PAGE; s++)
					if (dir[s].flags & SCBF_SEG_EMPTY)
						empty_segments++;
			}
		}
		UnlockReleaseBuffer(buf);
	}

	/* chain length distribution: element i = segments with i filters */
	for (h = SCBF_MAX_BLOCKS; h > 0 && a.chain_hist[h] == 0; h--)
		;
	for (nhist = 0; nhist <= h; nhist++)
		hist[nhist] = Int32GetDatum(a.chain_hist[nhist]);

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
	values[i++] = PointerGetDatum(construct_array(hist, nhist, INT4OID, 4,
												  true, TYPALIGN_INT));
	values[i++] = Int64GetDatum(nblocks);
	values[i++] = Int64GetDatum(pages[SCBF_PAGE_META]);
	values[i++] = Int64GetDatum(pages[SCBF_PAGE_DIRECTORY]);
	values[i++] = Int64GetDatum(pages[SCBF_PAGE_FILTER]);
	values[i++] = Int64GetDatum(pages[SCBF_PAGE_LEDGER]);
	values[i++] = Int64GetDatum(pages[SCBF_PAGE_FREE] + pages[SCBF_PAGE_FREE + 1]);
	values[i++] = Int64GetDatum(live);
	values[i++] = Int64GetDatum(pending);
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
	if (live > 0)
		values[i++] = Float8GetDatum((double) nblocks * BLCKSZ / live);
	else
		nulls[i++] = true;
	Assert(i == tupdesc->natts);

	ScbfCloseIndex(index, heap, AccessShareLock);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

/* ----------------------------------------------------------------
 *	scbf_segments and scbf_filters
 * ----------------------------------------------------------------
 */

typedef struct ScbfRowsArgs
{
	ReturnSetInfo *rsinfo;
	bool		filters;		/* one row per filter, not per segment */
	int64		only_segno;		/* -1: all */
	BlockNumber nheapblocks;
} ScbfRowsArgs;

/*
 * ScbfForEachSegment callback of scbf_segments and scbf_filters.
 */
static void
ScbfRowsSegment(Relation index, ScbfState *state, uint32 segno,
				ScbfSegEntry *entry, void *arg)
{
	ScbfRowsArgs *a = (ScbfRowsArgs *) arg;
	BlockNumber blk = entry->head;
	uint32		serial = entry->head_serial;
	int			ncols = state->ncols;
	uint64		segnulls[INDEX_MAX_KEYS];
	uint64		entries = 0;
	uint64		saturated = 0;
	uint32		blocks = 0;
	uint32		ledger_pages = 0;
	double		fill = 0;
	double		pass = 1.0;
	uint16		states = 0;
	uint16		flags = 0;
	int			position = 0;
	int			c;

	if (a->only_segno >= 0 && segno != a->only_segno)
		return;
	memset(segnulls, 0, sizeof(segnulls));

	while (blk != 0)
	{
		ScbfFilterSummaryData fs;
		ScbfFilterCheck fc;

		CHECK_FOR_INTERRUPTS();
		ScbfFilterSummary(index, state, segno, blk, serial, &fs);
		ScbfCheckFilter(index, state, segno, blk, serial, false, &fc);
		position++;

		if (a->filters)
		{
			Datum		values[15];
			bool		nulls[15];
			int			i = 0;

			memset(nulls, 0, sizeof(nulls));
			values[i++] = Int32GetDatum(segno);
			values[i++] = Int32GetDatum(position);
			values[i++] = Int64GetDatum(serial);
			values[i++] = CStringGetTextDatum(ScbfStateName(fs.state));
			values[i++] = ScbfFlagsArray(0, fs.flags, 0);
			values[i++] = Int64GetDatum(blk);
			values[i++] = Int32GetDatum(fs.nblocks);
			values[i++] = Int32GetDatum(fs.nledger_pages);
			values[i++] = Int64GetDatum(fc.entries);
			values[i++] = ScbfInt8Array(fc.nulls, ncols);
			values[i++] = Float8GetDatum(fs.fill);
			values[i++] = ScbfFloat8Array(fc.slice_fill, state->geom.k);
			values[i++] = Float8GetDatum(fs.fpr);
			values[i++] = Int64GetDatum(fs.nsaturated);
			values[i++] = Float8GetDatum(fs.keys);
			tuplestore_putvalues(a->rsinfo->setResult, a->rsinfo->setDesc,
								 values, nulls);
		}

		entries += fc.entries;
		for (c = 0; c < ncols; c++)
			segnulls[c] += fc.nulls[c];
		saturated += fs.nsaturated;
		blocks += fs.nblocks;
		ledger_pages += fs.nledger_pages;
		fill += fs.fill * fs.nblocks;
		if (fs.state != SCBF_FILTER_GROWING && fs.state != SCBF_FILTER_DROPPING)
			pass *= 1.0 - fs.fpr;
		else
			states = fs.state;
		flags |= fs.flags;
		blk = fs.next;
		serial = fs.next_serial;
	}

	if (!a->filters)
	{
		Datum		values[12];
		bool		nulls[12];
		BlockNumber first = segno * state->pages_per_segment;
		int			i = 0;

		memset(nulls, 0, sizeof(nulls));
		values[i++] = Int32GetDatum(segno);
		values[i++] = Int64GetDatum(first);
		values[i++] = Int64GetDatum(first + state->pages_per_segment - 1);
		values[i++] = Int32GetDatum(position);
		values[i++] = Int32GetDatum(blocks);
		values[i++] = Int32GetDatum(ledger_pages);
		values[i++] = Int64GetDatum(entries);
		values[i++] = ScbfInt8Array(segnulls, ncols);
		values[i++] = Float8GetDatum(1.0 - pass);
		values[i++] = Float8GetDatum(blocks ? fill / blocks : 0);
		values[i++] = Int64GetDatum(saturated);
		values[i++] = ScbfFlagsArray(states, flags, entry->flags);
		tuplestore_putvalues(a->rsinfo->setResult, a->rsinfo->setDesc,
							 values, nulls);
	}
}

/*
 * Shared body of scbf_segments and scbf_filters.
 */
static Datum
ScbfRows(FunctionCallInfo fcinfo, bool filters)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Relation	heap;
	Relation	index;
	ScbfState  *state;
	ScbfRowsArgs a;

	InitMaterializedSRF(fcinfo, 0);
	index = ScbfOpenIndex(fcinfo, 0, AccessShareLock, &heap, true);
	state = ScbfGetState(index);

	memset(&a, 0, sizeof(a));
	a.rsinfo = rsinfo;
	a.filters = filters;
	a.only_segno = (filters && !PG_ARGISNULL(1)) ? PG_GETARG_INT32(1) : -1;
	a.nheapblocks = RelationGetNumberOfBlocks(heap);
	ScbfForEachSegment(index, state, ScbfRowsSegment, &a);

	ScbfCloseIndex(index, heap, AccessShareLock);
	return (Datum) 0;
}

/*
 * scbf_segments(index regclass): one row per segment.
 */
Datum
scbf_segments(PG_FUNCTION_ARGS)
{
	return ScbfRows(fcinfo, false);
}

/*
 * scbf_filters(index regclass, segno int DEFAULT NULL): one row per filter.
 */
Datum
scbf_filters(PG_FUNCTION_ARGS)
{
	return ScbfRows(fcinfo, true);
}

/* ----------------------------------------------------------------
 *	scbf_pages
 * ----------------------------------------------------------------
 */

/*
 * scbf_pages(index regclass): one row per page: its kind, owner and links.
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

		if (PageIsNew(page))
			kind = "new";
		else if (((PageHeader) page)->pd_special !=
				 BLCKSZ - MAXALIGN(sizeof(ScbfPageOpaqueData)) ||
				 ScbfPageGetOpaque(page)->page_id != SCBF_PAGE_ID)
			kind = "unknown";
		else
		{
			opaque = ScbfPageGetOpaque(page);
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
					kind = "ledger";
					values[2] = Int64GetDatum(opaque->segno);
					values[3] = Int64GetDatum(opaque->serial);
					values[5] = Int32GetDatum(ScbfPageGetLedger(page)->nentries -
											  ScbfPageGetLedger(page)->ntombstones);
					values[6] = Int64GetDatum(ScbfPageGetLedger(page)->next);
					nulls[2] = nulls[3] = nulls[5] = nulls[6] = false;
					break;
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
 * ----------------------------------------------------------------
 */

/*
 * Walk segment segno's chain as a scan does for one hash of column col, and
 * emit a row for every filter that may hold it (and one for a segment that
 * a scan would return whole).
 */
static void
ScbfProbeSegment(Relation index, ScbfState *state, ReturnSetInfo *rsinfo,
				 uint32 segno, const ScbfSegEntry *seg, int col, uint32 hash,
				 BlockNumber nheapblocks)
{
	BlockNumber first = segno * state->pages_per_segment;
	BlockNumber blk = seg->head;
	uint32		serial = seg->head_serial;
	ScbfKeyPos	kp;
	int			position = 0;

	ScbfComputeKey(state, col, hash, &kp);
	while (blk != 0)
	{
		Buffer		buf;
		Page		page;
		ScbfFilterPageData *filter;
		BlockNumber next;
		uint32		next_serial;
		int			b;
		bool		maybe;
		const char *verdict = NULL;
		int64		matches = 0;
		int64		heappages = 0;
		Datum		values[8];
		bool		nulls[8];

		CHECK_FOR_INTERRUPTS();
		position++;
		buf = ScbfLockHead(index, blk, segno, serial, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		filter = ScbfPageGetFilter(page);
		next = filter->next;
		next_serial = filter->next_serial;
		b = scbf_filter_block_of(kp.key, filter->nblocks);

		if (filter->state == SCBF_FILTER_GROWING ||
			filter->state == SCBF_FILTER_DROPPING)
			maybe = false;		/* no entries */
		else if (filter->flags & SCBF_FILTER_RECOUNT)
		{
			maybe = true;
			verdict = "whole segment: counters await a recount";
		}
		else if (b == 0)
			maybe = scbf_filter_test(ScbfPageGetCounters(page), &state->geom,
									 kp.pos);
		else
		{
			Buffer		bbuf = ScbfLockFilterBlock(index, page, b,
												   BUFFER_LOCK_SHARE);

			maybe = scbf_filter_test(ScbfPageGetCounters(BufferGetPage(bbuf)),
									 &state->geom, kp.pos);
			UnlockReleaseBuffer(bbuf);
		}

		if (maybe && verdict == NULL)
		{
			/* count the ledger entries that match, coupled like a scan */
			BlockNumber lblk = filter->ledger_head;
			Buffer		lbuf = ReadBuffer(index, lblk);
			int			prevrel = -1;

			LockBuffer(lbuf, BUFFER_LOCK_SHARE);
			UnlockReleaseBuffer(buf);
			buf = InvalidBuffer;
			for (;;)
			{
				Page		lpage = BufferGetPage(lbuf);
				ScbfLedgerPageData *ledger;
				int			i;

				if (!ScbfPageIsLedger(lpage, segno, serial,
									  state->ledger_capacity))
					ScbfReportCorrupt(index, lblk,
									  psprintf("Expected a ledger page of filter %u of segment %u.",
											   serial, segno));
				ledger = ScbfPageGetLedger(lpage);
				for (i = 0; i < ledger->nentries; i++)
				{
					const char *e = ScbfPageGetEntries(lpage) +
						state->entry_size * i;
					uint16		tid = ScbfEntryGetTid(e);

					if (tid == SCBF_TID_TOMBSTONE ||
						ScbfEntryGetHash(e, col) != hash)
						continue;
					matches++;
					/* entries are mostly in TID order: count page changes */
					if ((int) ScbfTidRelBlock(tid) != prevrel)
					{
						heappages++;
						prevrel = ScbfTidRelBlock(tid);
					}
				}
				lblk = ledger->next;
				if (lblk == 0)
					break;
				{
					Buffer		nbuf = ReadBuffer(index, lblk);

					LockBuffer(nbuf, BUFFER_LOCK_SHARE);
					UnlockReleaseBuffer(lbuf);
					lbuf = nbuf;
				}
			}
			UnlockReleaseBuffer(lbuf);
			verdict = "maybe";
		}
		if (BufferIsValid(buf))
			UnlockReleaseBuffer(buf);

		if (maybe)
		{
			memset(nulls, 0, sizeof(nulls));
			values[0] = Int32GetDatum(segno);
			values[1] = Int64GetDatum(first);
			values[2] = Int32GetDatum(position);
			values[3] = Int64GetDatum(serial);
			values[4] = Int32GetDatum(b);
			values[5] = CStringGetTextDatum(verdict);
			values[6] = Int64GetDatum(matches);
			values[7] = Int64GetDatum(heappages);
			if (strcmp(verdict, "maybe") != 0)
			{
				nulls[6] = true;
				values[7] = Int64GetDatum(Min(first + state->pages_per_segment,
											  nheapblocks) - first);
			}
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc,
								 values, nulls);
		}
		blk = next;
		serial = next_serial;
	}
}

/*
 * Shared body of the two scbf_probe variants: the value's hash is given.
 */
static void
ScbfProbe(FunctionCallInfo fcinfo, Relation heap, Relation index, int col,
		  uint32 hash)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	ScbfState  *state = ScbfGetState(index);
	BlockNumber nheapblocks = RelationGetNumberOfBlocks(heap);
	uint32		nsegs = (nheapblocks + state->pages_per_segment - 1) /
		state->pages_per_segment;
	uint32		segno;

	for (segno = 0; segno < nsegs; segno++)
	{
		ScbfSegEntry seg;

		if (!ScbfGetSegEntry(index, state, segno, &seg))
		{
			Datum		values[8];
			bool		nulls[8];
			BlockNumber first = segno * state->pages_per_segment;

			if (seg.flags & SCBF_SEG_EMPTY)
				continue;
			memset(nulls, true, sizeof(nulls));
			values[0] = Int32GetDatum(segno);
			values[1] = Int64GetDatum(first);
			values[5] = CStringGetTextDatum("whole segment: no directory entry");
			values[7] = Int64GetDatum(Min(first + state->pages_per_segment,
										  nheapblocks) - first);
			nulls[0] = nulls[1] = nulls[5] = nulls[7] = false;
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc,
								 values, nulls);
			continue;
		}
		ScbfProbeSegment(index, state, rsinfo, segno, &seg, col, hash,
						 nheapblocks);
	}
}

/*
 * Check the column number argument (1-based) and return it 0-based.
 */
static int
ScbfProbeColumn(FunctionCallInfo fcinfo, Relation index, int argno)
{
	int			col = PG_ARGISNULL(argno) ? 1 : PG_GETARG_INT32(argno);

	if (col < 1 || col > IndexRelationGetNumberOfKeyAttributes(index))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("column %d does not exist in index \"%s\"", col,
						RelationGetRelationName(index)),
				 errhint("Index \"%s\" has %d column(s), numbered from 1.",
						 RelationGetRelationName(index),
						 IndexRelationGetNumberOfKeyAttributes(index))));
	return col - 1;
}

/*
 * scbf_probe(index regclass, value anyelement, col int DEFAULT 1): which
 * segments and filters may hold the value, and how many ledger entries match.
 * The value is hashed with the opfamily's hash function for its own type,
 * as a scan hashes a key; NULL probes IS NULL.
 */
Datum
scbf_probe(PG_FUNCTION_ARGS)
{
	Relation	heap;
	Relation	index;
	int			col;
	uint32		hash;

	InitMaterializedSRF(fcinfo, 0);
	index = ScbfOpenIndex(fcinfo, 0, AccessShareLock, &heap, true);
	col = ScbfProbeColumn(fcinfo, index, 2);

	if (PG_ARGISNULL(1))
		hash = SCBF_NULL_HASH;
	else
	{
		Oid			valtype = get_fn_expr_argtype(fcinfo->flinfo, 1);
		Oid			opcintype = index->rd_opcintype[col];
		FmgrInfo	proc;
		Oid			procid;

		if (valtype == opcintype)
			procid = index_getprocid(index, col + 1, SCBF_HASH_PROC);
		else
			procid = get_opfamily_proc(index->rd_opfamily[col], valtype,
									   valtype, SCBF_HASH_PROC);
		if (!OidIsValid(procid))
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("cannot probe column %d of index \"%s\" (type %s) with a value of type %s",
							col + 1, RelationGetRelationName(index),
							format_type_be(opcintype),
							format_type_be(valtype)),
					 errhint("Pass the value as text to have it converted to the column's type.")));
		fmgr_info(procid, &proc);
		hash = ScbfCanonicalHash(DatumGetUInt32(FunctionCall1Coll(&proc,
																  index->rd_indcollation[col],
																  PG_GETARG_DATUM(1))));
	}

	ScbfProbe(fcinfo, heap, index, col, hash);
	ScbfCloseIndex(index, heap, AccessShareLock);
	return (Datum) 0;
}

/*
 * scbf_probe(index regclass, value text, col int DEFAULT 1): as above, the
 * text being converted to the column's type with its input function.
 */
Datum
scbf_probe_text(PG_FUNCTION_ARGS)
{
	Relation	heap;
	Relation	index;
	int			col;
	uint32		hash;

	InitMaterializedSRF(fcinfo, 0);
	index = ScbfOpenIndex(fcinfo, 0, AccessShareLock, &heap, true);
	col = ScbfProbeColumn(fcinfo, index, 2);

	if (PG_ARGISNULL(1))
		hash = SCBF_NULL_HASH;
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
		hash = ScbfHashDatum(index, col, value);
	}

	ScbfProbe(fcinfo, heap, index, col, hash);
	ScbfCloseIndex(index, heap, AccessShareLock);
	return (Datum) 0;
}

/* ----------------------------------------------------------------
 *	scbf_rebuild
 * ----------------------------------------------------------------
 */

/*
 * scbf_rebuild(index regclass, segno int DEFAULT NULL, source text DEFAULT
 * 'ledger'): rebuild one segment, or all, and return how many were rebuilt.
 * From the ledger: recount flagged filters and rewrite the chain as one
 * filter sized for its live keys; under ShareUpdateExclusiveLock, like
 * VACUUM (readers and writers go on).  From the heap: re-create the
 * segment's entries as CREATE INDEX would, under ShareLock (writers wait).
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
	BlockNumber nheapblocks;
	uint32		nsegs;
	uint32		segno;
	int32		count = 0;

	if (RecoveryInProgress())
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("recovery is in progress"),
				 errhint("scbf_rebuild() cannot be executed during recovery.")));

	source = PG_ARGISNULL(2) ? "ledger" : text_to_cstring(PG_GETARG_TEXT_PP(2));
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

	index = ScbfOpenIndex(fcinfo, 0, lockmode, &heap, false);
	if (!pg_class_ownercheck(RelationGetRelid(heap), GetUserId()))
		aclcheck_error(ACLCHECK_NOT_OWNER, OBJECT_TABLE,
					   RelationGetRelationName(heap));
	state = ScbfGetState(index);
	nheapblocks = RelationGetNumberOfBlocks(heap);
	nsegs = (nheapblocks + state->pages_per_segment - 1) /
		state->pages_per_segment;

	if (!PG_ARGISNULL(1) &&
		(PG_GETARG_INT32(1) < 0 || (uint32) PG_GETARG_INT32(1) >= Max(nsegs, 1)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("segment %d is out of range", PG_GETARG_INT32(1)),
				 errdetail("Table \"%s\" has %u segment(s) of %u pages, numbered from 0.",
						   RelationGetRelationName(heap), nsegs,
						   state->pages_per_segment)));

	for (segno = 0; segno < nsegs; segno++)
	{
		ScbfSegEntry seg;

		if (!PG_ARGISNULL(1) && segno != (uint32) PG_GETARG_INT32(1))
			continue;
		CHECK_FOR_INTERRUPTS();
		if (from_heap)
		{
			if (ScbfRebuildSegmentFromHeap(index, heap, state, segno))
				count++;
			continue;
		}
		if (!ScbfGetSegEntry(index, state, segno, &seg))
			continue;
		{
			BlockNumber blk = seg.head;
			uint32		serial = seg.head_serial;

			while (blk != 0)
			{
				ScbfFilterSummaryData fs;

				ScbfFilterSummary(index, state, segno, blk, serial, &fs);
				if (fs.state != SCBF_FILTER_GROWING &&
					fs.state != SCBF_FILTER_DROPPING &&
					(fs.flags & (SCBF_FILTER_STALE | SCBF_FILTER_RECOUNT)))
					ScbfRecountFilter(index, state, segno, blk, serial);
				blk = fs.next;
				serial = fs.next_serial;
			}
		}
		if (ScbfConsolidateSegment(index, state, segno, true))
			count++;
		IndexFreeSpaceMapVacuum(index);
	}

	ScbfCloseIndex(index, heap, lockmode);
	PG_RETURN_INT32(count);
}
