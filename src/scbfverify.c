/*-------------------------------------------------------------------------
 *
 * scbfverify.c
 *	  scbf_verify(): an amcheck-style verifier for scbf indexes.
 *
 * NOTES
 *	  The light mode reads only the index and checks every structure: the
 *	  metapage and directory, each segment's chain (length, serials, states,
 *	  the tail), each filter's blocks (owner, block index, bookkeeping
 *	  against a census of the counters) and ledger (owner, page count, tail,
 *	  entry counts, TIDs in range), and the invariant that matters most:
 *	  every counter is at least what the ledger implies (min(15, number of
 *	  entries whose keys land on it)).  A counter below that could hide a
 *	  row: corruption.  A counter above it (a saturated counter left by
 *	  deletes, or the leftovers of a crash between the records of a
 *	  multi-column insert) only costs false positives and is reported as a
 *	  NOTICE.  Pages reachable twice are corruption; pages reachable from
 *	  nowhere are leaks, a NOTICE.
 *
 *	  With heapallindexed, it also reads the heap, as amcheck's
 *	  bt_index_check(heapallindexed) does: under an MVCC snapshot taken
 *	  before the index is read, every tuple CREATE INDEX would index must
 *	  have its ledger entry, with the right hashes, in its segment (and,
 *	  by the counter check, test positive in its filter).
 *
 *	  Each filter is checked with its head share-locked, which freezes its
 *	  counters and ledger against inserts, VACUUM and recounts; a segment
 *	  whose chain changes under the check (a concurrent chaining or
 *	  consolidation) is checked again before anything is reported.
 *
 * Portions Copyright (c) 2026, scbf developers
 *
 * IDENTIFICATION
 *	  src/scbfverify.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/tableam.h"
#include "catalog/index.h"
#include "miscadmin.h"
#include "nodes/bitmapset.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "scbf.h"

PG_FUNCTION_INFO_V1(scbf_verify);

/* How often a segment is checked again when it changes under the check */
#define SCBF_VERIFY_RETRIES		3

/*
 * Record the first problem found, for the error report.
 */
static void
ScbfCheckProblem(ScbfFilterCheck *fc, BlockNumber blkno, const char *fmt,...)
pg_attribute_printf(3, 4);

static void
ScbfCheckProblem(ScbfFilterCheck *fc, BlockNumber blkno, const char *fmt,...)
{
	va_list		ap;
	char		buf[1024];

	if (fc->problem != NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fc->problem = pstrdup(buf);
	fc->problem_blk = blkno;
}

/*
 * Check filter (segno, serial) whose head is headblk, as described in the
 * file header, with the head share-locked throughout.  Fills *fc; the first
 * problem, if any, is in fc->problem.  With collect, the filter's live
 * entries are returned in fc->ecopy/fc->necopy (palloc'd).
 */
void
ScbfCheckFilter(Relation index, ScbfState *state, uint32 segno,
				BlockNumber headblk, uint32 serial, bool collect,
				ScbfFilterCheck *fc)
{
	Size		nbytes = scbf_filter_bytes(&state->geom);
	Size		esz = state->entry_size;
	int			ncols = state->ncols;
	Buffer		headbuf;
	Page		headpage;
	ScbfFilterPageData *head;
	uint8	   *actual;
	uint8	   *expect;
	uint16	   *enonzero;
	uint32	   *esat;
	char	   *entries;
	int			nentries = 0;
	int			maxentries = 1024;
	uint64		sealed = 0;
	uint32		npages = 0;
	uint32		nroom = 0;
	BlockNumber lblk;
	BlockNumber last = InvalidBlockNumber;
	int			nblocks;
	int			b;
	int			i;

	memset(fc, 0, sizeof(ScbfFilterCheck));
	fc->problem_blk = InvalidBlockNumber;

	headbuf = ReadBuffer(index, headblk);
	LockBuffer(headbuf, BUFFER_LOCK_SHARE);
	headpage = BufferGetPage(headbuf);
	if (!ScbfPageIsFilter(headpage, segno, serial, 0))
	{
		UnlockReleaseBuffer(headbuf);
		ScbfCheckProblem(fc, headblk,
						 "Block %u is not the head of filter %u of segment %u.",
						 headblk, serial, segno);
		fc->changed = true;
		return;
	}
	head = ScbfPageGetFilter(headpage);
	fc->state = head->state;
	fc->next = head->next;
	fc->next_serial = head->next_serial;
	fc->nblocks = head->nlinked;
	fc->blocks = palloc(sizeof(BlockNumber) * head->nlinked);
	memcpy(fc->blocks, head->blocks, sizeof(BlockNumber) * head->nlinked);

	if (head->state == SCBF_FILTER_DROPPING)
	{
		/* its blocks may be freed already, its ledger holds nothing live */
		fc->nblocks = 1;
		UnlockReleaseBuffer(headbuf);
		return;
	}
	nblocks = head->nlinked;

	/* the blocks: owner, index, and bookkeeping against a census */
	actual = palloc0(nbytes * nblocks);
	for (b = 0; b < nblocks; b++)
	{
		Buffer		buf = (b == 0) ? headbuf : ReadBuffer(index, head->blocks[b]);
		Page		page;
		ScbfFilterPageData *filter;
		uint16		nonzero[SCBF_FILTER_MAX_K];
		uint32		nsat;
		uint32		s;
		double		bfill;

		if (b != 0)
			LockBuffer(buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		if (!ScbfPageIsFilter(page, segno, serial, (uint16) b))
		{
			ScbfCheckProblem(fc, head->blocks[b],
							 "Block %u is not block %d of filter %u of segment %u.",
							 head->blocks[b], b, serial, segno);
			if (b != 0)
				UnlockReleaseBuffer(buf);
			continue;
		}
		filter = ScbfPageGetFilter(page);
		memcpy(actual + nbytes * b, ScbfPageGetCounters(page), nbytes);
		scbf_filter_census(ScbfPageGetCounters(page), &state->geom, nonzero,
						   &nsat, NULL);
		for (s = 0; s < state->geom.k; s++)
		{
			if (nonzero[s] != filter->nonzero[s])
				ScbfCheckProblem(fc, head->blocks[b],
								 "Block %d of filter %u of segment %u says slice %u has %u non-zero counters, it has %u.",
								 b, serial, segno, s, filter->nonzero[s],
								 nonzero[s]);
			fc->slice_fill[s] += (double) nonzero[s] / state->geom.m / nblocks;
		}
		if (nsat != filter->nsaturated)
			ScbfCheckProblem(fc, head->blocks[b],
							 "Block %d of filter %u of segment %u says %u counters are saturated, %u are.",
							 b, serial, segno, filter->nsaturated, nsat);
		fc->saturated += nsat;
		bfill = scbf_filter_fill(nonzero, &state->geom);
		fc->worst_fill = Max(fc->worst_fill, bfill);
		if (b != 0)
			UnlockReleaseBuffer(buf);
	}

	/* the ledger, page by page (the head keeps it still) */
	entries = palloc(esz * maxentries);
	lblk = head->ledger_head;
	while (lblk != 0)
	{
		Buffer		buf;
		Page		page;
		ScbfLedgerPageData *ledger;
		uint32		live = 0;

		CHECK_FOR_INTERRUPTS();
		if (lblk >= RelationGetNumberOfBlocks(index) || npages > MaxBlockNumber / 2)
		{
			ScbfCheckProblem(fc, lblk, "Filter %u of segment %u links to block %u, past the end of the index.",
							 serial, segno, lblk);
			break;
		}
		buf = ReadBuffer(index, lblk);
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		if (!ScbfPageIsLedger(page, segno, serial, state->ledger_capacity))
		{
			ScbfCheckProblem(fc, lblk,
							 "Block %u is not a ledger page of filter %u of segment %u.",
							 lblk, serial, segno);
			UnlockReleaseBuffer(buf);
			break;
		}
		if (fc->npages_seen % 64 == 0)
			fc->pages_seen = fc->pages_seen ?
				repalloc(fc->pages_seen, sizeof(BlockNumber) * (fc->npages_seen + 64)) :
				palloc(sizeof(BlockNumber) * 64);
		fc->pages_seen[fc->npages_seen++] = lblk;
		ledger = ScbfPageGetLedger(page);
		for (i = 0; i < ledger->nentries; i++)
		{
			const char *e = ScbfPageGetEntries(page) + esz * i;
			uint16		tid = ScbfEntryGetTid(e);
			int			c;

			if (tid == SCBF_TID_TOMBSTONE)
			{
				fc->tombstones++;
				continue;
			}
			if (ScbfTidRelBlock(tid) >= state->pages_per_segment ||
				ScbfTidOffset(tid) < FirstOffsetNumber ||
				ScbfTidOffset(tid) > MaxHeapTuplesPerPage)
				ScbfCheckProblem(fc, lblk,
								 "Ledger entry %d of filter %u of segment %u has an impossible TID (%u,%u).",
								 i, serial, segno, ScbfTidRelBlock(tid),
								 ScbfTidOffset(tid));
			live++;
			for (c = 0; c < ncols; c++)
				if (ScbfEntryGetHash(e, c) == SCBF_NULL_HASH)
					fc->nulls[c]++;
			if (nentries >= maxentries)
			{
				maxentries *= 2;
				entries = repalloc_huge(entries, esz * maxentries);
			}
			memcpy(entries + esz * nentries++, e, esz);
		}
		if (ledger->flags & SCBF_LEDGER_ROOM)
			nroom++;
		else if (ledger->next != 0)
			sealed += live;
		npages++;
		last = lblk;
		lblk = ledger->next;
		UnlockReleaseBuffer(buf);
	}
	fc->entries = nentries;
	if (fc->problem == NULL)
	{
		if (last != head->ledger_tail)
			ScbfCheckProblem(fc, headblk,
							 "Filter %u of segment %u says its ledger ends at block %u, it ends at %u.",
							 serial, segno, head->ledger_tail, last);
		if (npages != head->nledger_pages)
			ScbfCheckProblem(fc, headblk,
							 "Filter %u of segment %u says its ledger has %u pages, it has %u.",
							 serial, segno, head->nledger_pages, npages);
		if (sealed != head->nsealed)
			ScbfCheckProblem(fc, headblk,
							 "Filter %u of segment %u counts %u entries on its sealed ledger pages, there are %llu.",
							 serial, segno, head->nsealed,
							 (unsigned long long) sealed);
	}

	/* the room list: ledger pages of this filter, flagged, each once */
	if (fc->problem == NULL)
	{
		BlockNumber rblk = head->ledger_room;
		uint32		n = 0;

		while (rblk != 0 && fc->problem == NULL)
		{
			Buffer		buf;
			ScbfLedgerPageData *ledger;
			bool		member = false;

			for (i = 0; i < fc->npages_seen; i++)
				if (fc->pages_seen[i] == rblk)
					member = true;
			if (!member || ++n > nroom)
			{
				ScbfCheckProblem(fc, rblk,
								 "The room list of filter %u of segment %u reaches block %u, which is not one of its ledger pages with room (or is reached twice).",
								 serial, segno, rblk);
				break;
			}
			buf = ReadBuffer(index, rblk);
			LockBuffer(buf, BUFFER_LOCK_SHARE);
			ledger = ScbfPageGetLedger(BufferGetPage(buf));
			if (!(ledger->flags & SCBF_LEDGER_ROOM) ||
				ledger->nentries >= state->ledger_capacity)
				ScbfCheckProblem(fc, rblk,
								 "Ledger page %u is on the room list of filter %u of segment %u without room.",
								 rblk, serial, segno);
			rblk = ledger->next_room;
			UnlockReleaseBuffer(buf);
		}
		if (fc->problem == NULL && n != nroom)
			ScbfCheckProblem(fc, headblk,
							 "Filter %u of segment %u has %u ledger pages flagged as having room, its room list has %u.",
							 serial, segno, nroom, n);
	}

	/* counters against what the ledger implies */
	if (fc->problem == NULL && head->state != SCBF_FILTER_GROWING)
	{
		ScbfKeyPos *kp;
		uint16	   *kblk;
		int		   *order;
		uint32		idx;

		expect = palloc0(nbytes * nblocks);
		enonzero = palloc0(sizeof(uint16) * SCBF_FILTER_MAX_K * nblocks);
		esat = palloc0(sizeof(uint32) * nblocks);
		ScbfPlaceEntries(state, entries, nentries, nblocks, &kp, &kblk,
						 &order);
		for (i = 0; i < nentries * ncols; i++)
			(void) scbf_filter_add(expect + nbytes * kblk[i],
								   enonzero + SCBF_FILTER_MAX_K * kblk[i],
								   &esat[kblk[i]], &state->geom, kp[i].pos);
		for (b = 0; b < nblocks; b++)
			for (idx = 0; idx < state->geom.k * state->geom.m; idx++)
			{
				unsigned	a = scbf_filter_get(actual + nbytes * b, idx);
				unsigned	x = scbf_filter_get(expect + nbytes * b, idx);

				if (a < x)
				{
					fc->low++;
					ScbfCheckProblem(fc, head->blocks[b],
									 "Counter %u of slice %u of block %d of filter %u of segment %u is %u, its ledger implies at least %u.",
									 idx % state->geom.m, idx / state->geom.m,
									 b, serial, segno, a, x);
				}
				else if (a > x)
					fc->stale++;
			}
		pfree(kp);
		pfree(kblk);
		pfree(order);
		pfree(expect);
		pfree(enonzero);
		pfree(esat);
	}
	UnlockReleaseBuffer(headbuf);
	pfree(actual);

	if (collect)
	{
		fc->ecopy = entries;
		fc->necopy = nentries;
	}
	else
		pfree(entries);
}

/* State of a verification */
typedef struct ScbfVerifyState
{
	Relation	index;
	Relation	heap;
	ScbfState  *state;
	bool		heapallindexed;
	bool		accounting;		/* light pass: account for every page */
	Bitmapset  *seen;			/* blocks reached through the structure */
	MemoryContext cxt;			/* where "seen" lives */
	uint64		stale;
	uint64		entries;

	/* heapallindexed: the entries of the segment being compared */
	int64		cursegno;
	char	   *segentries;		/* sorted by TID */
	int			nsegentries;
	MemoryContext segcxt;
	MemoryContext tmpcxt;
	uint64		heaptuples;
} ScbfVerifyState;

/*
 * Report corruption found in segment segno.
 */
static void
ScbfVerifyReport(ScbfVerifyState *vs, uint32 segno, ScbfFilterCheck *fc)
{
	ereport(ERROR,
			(errcode(ERRCODE_INDEX_CORRUPTED),
			 errmsg("index \"%s\" is corrupted in segment %u at block %u",
					RelationGetRelationName(vs->index), segno,
					fc->problem_blk),
			 errdetail("%s", fc->problem),
			 errhint("Rebuild the segment with scbf_rebuild(), or REINDEX the index.")));
}

/*
 * Check one segment's chain; with collect, gather its live entries into
 * vs->segentries.  Returns false (without reporting) if the chain changed
 * under the check, true otherwise; corruption is reported.
 */
static bool
ScbfVerifySegmentOnce(ScbfVerifyState *vs, uint32 segno,
					  const ScbfSegEntry *seg, bool collect, bool final)
{
	ScbfState  *state = vs->state;
	BlockNumber blk = seg->head;
	uint32		serial = seg->head_serial;
	uint32		last_serial = 0;
	uint32		nfilters = 0;
	BlockNumber tailblk = InvalidBlockNumber;
	uint32		tailserial = 0;
	uint16		tailstate = 0;
	Bitmapset  *seen = NULL;
	char	   *all = NULL;
	int			nall = 0;
	ScbfFilterCheck fc;

	while (blk != 0)
	{
		int			b;

		if (nfilters > 0 && serial <= last_serial)
		{
			memset(&fc, 0, sizeof(fc));
			ScbfCheckProblem(&fc, blk,
							 "Segment %u's chain goes from filter %u to filter %u: serials must increase.",
							 segno, last_serial, serial);
			if (!final)
				return false;
			ScbfVerifyReport(vs, segno, &fc);
		}
		ScbfCheckFilter(vs->index, state, segno, blk, serial, collect, &fc);
		if (fc.problem != NULL)
		{
			if (!final)
				return false;
			ScbfVerifyReport(vs, segno, &fc);
		}
		if (nfilters > 0 && tailstate != SCBF_FILTER_CLOSED &&
			tailstate != SCBF_FILTER_DROPPING && tailstate != SCBF_FILTER_GROWING)
		{
			ScbfCheckProblem(&fc, tailblk,
							 "Filter %u of segment %u is %s, yet a newer filter follows it.",
							 tailserial, segno,
							 tailstate == SCBF_FILTER_ACTIVE ? "active" : "in an unknown state");
			if (!final)
				return false;
			ScbfVerifyReport(vs, segno, &fc);
		}

		/* pages reachable twice */
		for (b = 0; b < fc.nblocks; b++)
		{
			if (bms_is_member(fc.blocks[b], seen) ||
				(vs->accounting && bms_is_member(fc.blocks[b], vs->seen)))
			{
				ScbfCheckProblem(&fc, fc.blocks[b],
								 "Block %u is reached twice (block %d of filter %u of segment %u).",
								 fc.blocks[b], b, serial, segno);
				if (!final)
					return false;
				ScbfVerifyReport(vs, segno, &fc);
			}
			seen = bms_add_member(seen, fc.blocks[b]);
		}
		for (b = 0; b < fc.npages_seen; b++)
		{
			if (bms_is_member(fc.pages_seen[b], seen) ||
				(vs->accounting && bms_is_member(fc.pages_seen[b], vs->seen)))
			{
				ScbfCheckProblem(&fc, fc.pages_seen[b],
								 "Block %u is reached twice (ledger of filter %u of segment %u).",
								 fc.pages_seen[b], serial, segno);
				if (!final)
					return false;
				ScbfVerifyReport(vs, segno, &fc);
			}
			seen = bms_add_member(seen, fc.pages_seen[b]);
		}

		vs->stale += fc.stale;
		vs->entries += fc.entries;
		if (collect && fc.necopy > 0)
		{
			all = all ? repalloc_huge(all, state->entry_size * (nall + fc.necopy)) :
				palloc(state->entry_size * fc.necopy);
			memcpy(all + state->entry_size * nall, fc.ecopy,
				   state->entry_size * fc.necopy);
			nall += fc.necopy;
		}
		nfilters++;
		last_serial = serial;
		tailblk = blk;
		tailserial = serial;
		tailstate = fc.state;
		blk = fc.next;
		serial = fc.next_serial;
	}

	memset(&fc, 0, sizeof(fc));
	if (nfilters != seg->nfilters)
		ScbfCheckProblem(&fc, seg->head,
						 "Segment %u's directory entry counts %u filters, its chain has %u.",
						 segno, seg->nfilters, nfilters);
	else if (tailblk != seg->tail || tailserial != seg->tail_serial)
		ScbfCheckProblem(&fc, seg->tail,
						 "Segment %u's directory entry names filter %u at block %u as its tail, the chain ends at filter %u at block %u.",
						 segno, seg->tail_serial, seg->tail, tailserial, tailblk);
	else if (tailserial >= seg->next_serial)
		ScbfCheckProblem(&fc, seg->tail,
						 "Segment %u hands out serial %u next, but already has filter %u.",
						 segno, seg->next_serial, tailserial);
	else if (tailstate != SCBF_FILTER_ACTIVE && tailstate != SCBF_FILTER_GROWING)
		ScbfCheckProblem(&fc, seg->tail,
						 "The tail filter %u of segment %u is not active.",
						 tailserial, segno);
	if (fc.problem != NULL)
	{
		if (!final)
			return false;
		ScbfVerifyReport(vs, segno, &fc);
	}

	if (vs->accounting)
	{
		MemoryContext oldcxt = MemoryContextSwitchTo(vs->cxt);

		vs->seen = bms_add_members(vs->seen, seen);
		MemoryContextSwitchTo(oldcxt);
	}
	if (collect)
	{
		vs->segentries = all;
		vs->nsegentries = nall;
	}
	return true;
}

/*
 * qsort comparator: ledger entries by TID.
 */
static int
ScbfCmpEntryTid(const void *a, const void *b)
{
	uint16		x = ScbfEntryGetTid((const char *) a);
	uint16		y = ScbfEntryGetTid((const char *) b);

	return (x > y) - (x < y);
}

/*
 * Check one segment, again and again while its chain changes under the
 * check (a concurrent chaining or consolidation), and report corruption
 * that persists.  With collect, leave its entries, sorted by TID, in
 * vs->segentries.
 */
static void
ScbfVerifySegment(ScbfVerifyState *vs, uint32 segno, bool collect)
{
	int			attempt;

	for (attempt = 0; attempt < SCBF_VERIFY_RETRIES; attempt++)
	{
		ScbfSegEntry seg;
		bool		final = (attempt == SCBF_VERIFY_RETRIES - 1);
		uint64		stale = vs->stale;
		uint64		entries = vs->entries;

		vs->segentries = NULL;
		vs->nsegentries = 0;
		if (!ScbfGetSegEntry(vs->index, vs->state, segno, &seg))
			return;
		if (ScbfVerifySegmentOnce(vs, segno, &seg, collect, final))
		{
			if (collect && vs->nsegentries > 1)
				qsort(vs->segentries, vs->nsegentries, vs->state->entry_size,
					  ScbfCmpEntryTid);
			return;
		}
		vs->stale = stale;
		vs->entries = entries;
	}
}

/*
 * ScbfForEachSegment callback of the light check.
 */
static void
ScbfVerifySegmentCb(Relation index, ScbfState *state, uint32 segno,
					ScbfSegEntry *entry, void *arg)
{
	ScbfVerifyState *vs = (ScbfVerifyState *) arg;
	MemoryContext oldcxt = MemoryContextSwitchTo(vs->segcxt);

	ScbfVerifySegment(vs, segno, false);
	MemoryContextSwitchTo(oldcxt);
	MemoryContextReset(vs->segcxt);
}

/*
 * True if the sorted entries of the current segment hold an entry equal to
 * the given one (TID and every hash).
 */
static bool
ScbfVerifyHasEntry(ScbfVerifyState *vs, const char *entry)
{
	Size		esz = vs->state->entry_size;
	char	   *found;

	found = bsearch(entry, vs->segentries, vs->nsegentries, esz,
					ScbfCmpEntryTid);
	if (found == NULL)
		return false;
	/* equal TIDs may repeat: back up to the first, then compare each */
	while (found > vs->segentries &&
		   ScbfEntryGetTid(found - esz) == ScbfEntryGetTid(entry))
		found -= esz;
	for (; found < vs->segentries + esz * vs->nsegentries &&
		 ScbfEntryGetTid(found) == ScbfEntryGetTid(entry); found += esz)
		if (memcmp(found, entry, esz) == 0)
			return true;
	return false;
}

/*
 * Heap scan callback of heapallindexed: the tuple must have its entry.
 */
static void
ScbfVerifyHeapCallback(Relation index, ItemPointer tid, Datum *values,
					   bool *isnull, bool tupleIsAlive, void *arg)
{
	ScbfVerifyState *vs = (ScbfVerifyState *) arg;
	ScbfState  *state = vs->state;
	BlockNumber blkno = ItemPointerGetBlockNumber(tid);
	uint32		segno = blkno / state->pages_per_segment;
	char		entry[ScbfEntrySize(INDEX_MAX_KEYS)];
	MemoryContext oldcxt;
	ScbfSegEntry seg;
	int			c;

	vs->heaptuples++;
	if (segno >= SCBF_MAX_SEGMENTS)
		return;					/* unindexed by design */

	oldcxt = MemoryContextSwitchTo(vs->tmpcxt);
	ScbfEntrySetTid(entry,
					ScbfTidMake(blkno % state->pages_per_segment,
								ItemPointerGetOffsetNumber(tid)));
	for (c = 0; c < state->ncols; c++)
		ScbfEntrySetHash(entry, c, isnull[c] ? SCBF_NULL_HASH :
						 ScbfHashDatum(index, c, values[c]));
	MemoryContextSwitchTo(oldcxt);
	MemoryContextReset(vs->tmpcxt);

	if (segno != vs->cursegno)
	{
		MemoryContextReset(vs->segcxt);
		oldcxt = MemoryContextSwitchTo(vs->segcxt);
		ScbfVerifySegment(vs, segno, true);
		MemoryContextSwitchTo(oldcxt);
		vs->cursegno = segno;
	}
	if (ScbfVerifyHasEntry(vs, entry))
		return;

	/*
	 * Not in what we read: the entry may have moved (a consolidation) or the
	 * tuple may be newer than our copy.  Read the segment again.
	 */
	MemoryContextReset(vs->segcxt);
	oldcxt = MemoryContextSwitchTo(vs->segcxt);
	ScbfVerifySegment(vs, segno, true);
	MemoryContextSwitchTo(oldcxt);
	if (ScbfVerifyHasEntry(vs, entry))
		return;

	if (!ScbfGetSegEntry(index, state, segno, &seg) &&
		!(seg.flags & SCBF_SEG_EMPTY))
		return;					/* no directory entry: scans read it whole */

	ereport(ERROR,
			(errcode(ERRCODE_INDEX_CORRUPTED),
			 errmsg("heap tuple (%u,%u) from table \"%s\" lacks a matching index entry in index \"%s\"",
					blkno, ItemPointerGetOffsetNumber(tid),
					RelationGetRelationName(vs->heap),
					RelationGetRelationName(index)),
			 errdetail("Segment %u has no ledger entry with this TID and the tuple's hash(es) (first column %08X).",
					   segno, ScbfEntryGetHash(entry, 0)),
			 errhint("Rebuild the segment with scbf_rebuild(source => 'heap'), or REINDEX the index.")));
}

/*
 * Report pages that the structure does not reach and that are not free.
 */
static void
ScbfVerifyLeaks(ScbfVerifyState *vs)
{
	BlockNumber nblocks = RelationGetNumberOfBlocks(vs->index);
	BlockNumber blkno;
	BlockNumber nleaked = 0;
	BlockNumber first = InvalidBlockNumber;
	uint32		d;

	for (d = 0; d < vs->state->ndirpages; d++)
		vs->seen = bms_add_member(vs->seen, vs->state->dirpages[d]);

	for (blkno = SCBF_METAPAGE_BLKNO + 1; blkno < nblocks; blkno++)
	{
		Buffer		buf;

		if (bms_is_member(blkno, vs->seen))
			continue;
		CHECK_FOR_INTERRUPTS();
		buf = ReadBuffer(vs->index, blkno);
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		if (!ScbfPageIsFree(BufferGetPage(buf)))
		{
			if (nleaked++ == 0)
				first = blkno;
		}
		UnlockReleaseBuffer(buf);
	}
	if (nleaked > 0)
		ereport(NOTICE,
				(errmsg("index \"%s\" has %u page(s) that nothing links to, the first at block %u",
						RelationGetRelationName(vs->index), nleaked, first),
				 errdetail("Such pages waste space but cannot cause a wrong answer; they are left by a crash in the middle of a multi-page change, or by concurrent changes during the check."),
				 errhint("REINDEX reclaims them.")));
}

/*
 * scbf_verify(index regclass, heapallindexed boolean DEFAULT false)
 */
Datum
scbf_verify(PG_FUNCTION_ARGS)
{
	bool		heapallindexed = !PG_ARGISNULL(1) && PG_GETARG_BOOL(1);
	ScbfVerifyState vs;
	Snapshot	snapshot = InvalidSnapshot;

	memset(&vs, 0, sizeof(vs));
	vs.index = ScbfOpenIndex(fcinfo, 0, AccessShareLock, &vs.heap, true);
	vs.heapallindexed = heapallindexed;
	vs.segcxt = AllocSetContextCreate(CurrentMemoryContext,
									  "scbf verify segment context",
									  ALLOCSET_DEFAULT_SIZES);
	vs.tmpcxt = AllocSetContextCreate(CurrentMemoryContext,
									  "scbf verify temporary context",
									  ALLOCSET_DEFAULT_SIZES);

	/* an MVCC snapshot taken before the index is read (amcheck's rule) */
	if (heapallindexed)
		snapshot = RegisterSnapshot(GetTransactionSnapshot());

	/* the metapage and the directory are checked on the way */
	vs.cxt = CurrentMemoryContext;
	vs.state = ScbfGetState(vs.index);
	ScbfRefreshDirMap(vs.index, vs.state);
	vs.accounting = true;
	ScbfForEachSegment(vs.index, vs.state, ScbfVerifySegmentCb, &vs);
	ScbfVerifyLeaks(&vs);
	vs.accounting = false;

	if (vs.stale > 0)
		ereport(NOTICE,
				(errmsg("index \"%s\" has %llu counter(s) above what its ledger implies",
						RelationGetRelationName(vs.index),
						(unsigned long long) vs.stale),
				 errdetail("Such counters cost false positives, never a wrong answer: saturated counters left by deletes, or the leftovers of an interrupted multi-column change."),
				 errhint("VACUUM recounts filters with saturated counters; scbf_rebuild() recounts any segment.")));

	if (heapallindexed)
	{
		IndexInfo  *indexInfo = BuildIndexInfo(vs.index);
		TableScanDesc scan;

		indexInfo->ii_Concurrent = true;
		vs.cursegno = -1;
		/* block order (no syncscan), so segments come one at a time */
		scan = table_beginscan_strat(vs.heap, snapshot, 0, NULL, true, false);
		table_index_build_scan(vs.heap, vs.index, indexInfo, true, false,
							   ScbfVerifyHeapCallback, &vs, scan);
		UnregisterSnapshot(snapshot);
	}

	MemoryContextDelete(vs.segcxt);
	MemoryContextDelete(vs.tmpcxt);
	ScbfCloseIndex(vs.index, vs.heap, AccessShareLock);
	PG_RETURN_VOID();
}
