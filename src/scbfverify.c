/*-------------------------------------------------------------------------
 *
 * scbfverify.c
 *	  scbf_verify(): an amcheck-style verifier for scbf indexes.
 *
 * NOTES
 *	  The light mode reads only the index and checks every structure:
 *
 *	  - the metapage (magic, version, a layout consistent with itself, with
 *		the index definition and with the cached copy) and the directory map
 *		(every directory page once, of the right kind and index);
 *	  - every directory entry (an empty entry is all zeros but the EMPTY
 *		flag; a chain's entry has sane blocks, serials and filter count);
 *	  - every segment's chain: serials increase, the entry's filter count
 *		and tail match the chain, only the first filter may be DROPPING,
 *		only the tail may be ACTIVE and it is the tail (or GROWING);
 *	  - every filter: its head fields, its blocks (owner, block index,
 *		pd_lower above the counters, nonzero[] and nsaturated equal to a
 *		census of the counters), its ledger (owner, no page twice, page
 *		count, tail, tombstone counts, live entries on sealed pages, the
 *		room list, pd_lower above the entries, TIDs within the segment and
 *		the table), a GROWING filter holds no entry (scans skip it);
 *	  - the invariant that matters most: every counter is at least what the
 *		ledger implies, min(15, number of entries whose keys land on it).
 *		A counter below that could hide a row: a potential false negative,
 *		corruption.  A counter above it (saturated counters left by deletes,
 *		or the leftovers of a crash between the records of a multi-column
 *		insert) only costs false positives and is reported as a NOTICE,
 *		except in a closed filter, whose counters a consolidation leaves
 *		as they are while it moves the entries out (no NOTICE there).  A
 *		filter flagged RECOUNT is not trusted by scans (they read its
 *		segment whole), so its low counters are a NOTICE too;
 *	  - no page is reachable twice; pages reachable from nowhere that are
 *		not free are leaks, a NOTICE.
 *
 *	  With heapallindexed, it also reads the heap, as amcheck's
 *	  bt_index_check(heapallindexed) does: under an MVCC snapshot registered
 *	  before the index is read, every tuple that CREATE INDEX would index
 *	  (table_index_build_scan with ii_Concurrent, as verify_nbtree.c does)
 *	  must have its ledger entry, same TID and same hashes, in its segment.
 *	  That entry then tests positive in its filter: the counter check above
 *	  shows that each of its counters is at least 1.
 *
 *	  Locks: AccessShareLock on the table, then the index, like any reader;
 *	  each filter is checked with its head share-locked, which freezes its
 *	  counters and ledger against inserts, VACUUM and recounts (they hold it
 *	  exclusively).  A segment whose chain changes under the check (a
 *	  concurrent chaining or consolidation) is checked again, up to
 *	  SCBF_VERIFY_RETRIES times; a problem is reported when it persists.  A
 *	  heap tuple whose entry is missing from the copy of its segment is
 *	  looked up again in a fresh copy, read the way the scan reads it.
 *	  Nothing is written, so the verifier runs on a hot standby.
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
#include "scbf2.h"

PG_FUNCTION_INFO_V1(scbf_verify);

/* How often a segment is checked when problems come and go under us */
#define SCBF_VERIFY_RETRIES		5

/* Known filter flags */
#define SCBF_FILTER_KNOWN_FLAGS \
	(SCBF_FILTER_FULL | SCBF_FILTER_STALE | SCBF_FILTER_RECOUNT)

/* owner[] marks of the pages that belong to no segment */
#define SCBF_OWNER_NONE			0
#define SCBF_OWNER_FIXED		PG_UINT32_MAX	/* metapage, directory */

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
 * Remember a ledger page of the filter being checked.
 */
static void
ScbfCheckAddPage(ScbfFilterCheck *fc, BlockNumber blkno)
{
	if (fc->npages_seen % 64 == 0)
		fc->pages_seen = fc->pages_seen ?
			repalloc(fc->pages_seen,
					 sizeof(BlockNumber) * (fc->npages_seen + 64)) :
			palloc(sizeof(BlockNumber) * 64);
	fc->pages_seen[fc->npages_seen++] = blkno;
}

/*
 * Does block blkno exist in the index?  *nindex is the number of blocks as
 * last measured; it is measured again before saying no, since concurrent
 * inserts extend the index while the verifier runs, and a link is written
 * only after the page it leads to exists.
 */
static bool
ScbfBlockExists(Relation index, BlockNumber blkno, BlockNumber *nindex)
{
	if (blkno >= *nindex)
		*nindex = RelationGetNumberOfBlocks(index);
	return blkno < *nindex;
}

/*
 * The pages of a DROPPING filter (head share-locked by the caller): the
 * blocks that are still its own (ScbfDropHeadFilter frees them first,
 * without touching the head's list) and the ledger pages still linked
 * (freed front to back, each in one record with the head).  They are not
 * leaks; nothing else about the filter matters, since scans skip it.
 */
static void
ScbfCheckDropping(Relation index, ScbfState *state, uint32 segno,
				  uint32 serial, BlockNumber headblk,
				  ScbfFilterPageData *head, BlockNumber *nindex,
				  ScbfFilterCheck *fc)
{
	Bitmapset  *visited = NULL;
	BlockNumber lblk;
	int			b;

	fc->blocks[0] = headblk;
	fc->nblocks = 1;
	for (b = 1; b < head->nlinked; b++)
	{
		BlockNumber blkno = head->blocks[b];
		Buffer		buf;

		if (blkno == SCBF_METAPAGE_BLKNO ||
			!ScbfBlockExists(index, blkno, nindex))
			continue;
		buf = ReadBuffer(index, blkno);
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		if (ScbfPageIsFilter(BufferGetPage(buf), segno, serial, (uint16) b))
			fc->blocks[fc->nblocks++] = blkno;
		UnlockReleaseBuffer(buf);
	}

	for (lblk = head->ledger_head; lblk != 0;)
	{
		Buffer		buf;

		CHECK_FOR_INTERRUPTS();
		if (!ScbfBlockExists(index, lblk, nindex) ||
			bms_is_member(lblk, visited))
		{
			ScbfCheckProblem(fc, lblk,
							 "The ledger of dropping filter %u of segment %u leads to block %u, past the end of the index or a second time.",
							 serial, segno, lblk);
			break;
		}
		visited = bms_add_member(visited, lblk);
		buf = ReadBuffer(index, lblk);
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		if (!ScbfPageIsLedger(BufferGetPage(buf), segno, serial,
							  state->ledger_capacity))
		{
			UnlockReleaseBuffer(buf);
			ScbfCheckProblem(fc, lblk,
							 "Block %u is not a ledger page of dropping filter %u of segment %u.",
							 lblk, serial, segno);
			break;
		}
		ScbfCheckAddPage(fc, lblk);
		lblk = ScbfPageGetLedger(BufferGetPage(buf))->next;
		UnlockReleaseBuffer(buf);
	}
	bms_free(visited);
}

/*
 * Check filter (segno, serial) whose head is headblk, as described in the
 * file header, with the head share-locked throughout.  Fills *fc; the first
 * problem, if any, is in fc->problem (fc->changed if the head is not, or no
 * longer, this filter's: the caller re-reads the chain before it reports).
 * With collect, the filter's live entries are returned in
 * fc->ecopy/fc->necopy (palloc'd).  fc->low counts counters below what the
 * ledger implies; it is a problem unless the filter is flagged RECOUNT.
 * Also used by the diagnostics in scbffuncs.c, which ignore the problems.
 */
void
ScbfCheckFilter(Relation index, ScbfState *state, uint32 segno,
				BlockNumber headblk, uint32 serial, bool collect,
				ScbfFilterCheck *fc)
{
	Size		nbytes = scbf_filter_bytes(&state->geom);
	Size		esz = state->entry_size;
	int			ncols = state->ncols;
	BlockNumber nindex = RelationGetNumberOfBlocks(index);
	Size		counters_end = MAXALIGN(SizeOfPageHeaderData) +
		MAXALIGN(sizeof(ScbfFilterPageData)) + nbytes;
	Buffer		headbuf;
	Page		headpage;
	ScbfFilterPageData *head;
	Bitmapset  *visited = NULL;
	uint8	   *actual;
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

	if (headblk == SCBF_METAPAGE_BLKNO ||
		!ScbfBlockExists(index, headblk, &nindex))
	{
		ScbfCheckProblem(fc, headblk,
						 "Filter %u of segment %u is said to start at block %u, which the index does not have.",
						 serial, segno, headblk);
		fc->changed = true;
		return;
	}
	headbuf = ScbfTryLockHead(index, headblk, segno, serial,
							  BUFFER_LOCK_SHARE);
	if (!BufferIsValid(headbuf))
	{
		ScbfCheckProblem(fc, headblk,
						 "Block %u is not the head of filter %u of segment %u.",
						 headblk, serial, segno);
		fc->changed = true;
		return;
	}
	headpage = BufferGetPage(headbuf);
	head = ScbfPageGetFilter(headpage);
	fc->state = head->state;
	fc->next = head->next;
	fc->next_serial = head->next_serial;
	fc->nblocks = head->nlinked;
	fc->blocks = palloc(sizeof(BlockNumber) * head->nlinked);
	memcpy(fc->blocks, head->blocks, sizeof(BlockNumber) * head->nlinked);

	if (head->state == SCBF_FILTER_DROPPING)
	{
		ScbfCheckDropping(index, state, segno, serial, headblk, head, &nindex,
						  fc);
		UnlockReleaseBuffer(headbuf);
		if (collect)
		{
			fc->ecopy = palloc(esz);
			fc->necopy = 0;
		}
		return;
	}

	/* the head's own fields */
	if (head->blocks[0] != headblk)
		ScbfCheckProblem(fc, headblk,
						 "The head of filter %u of segment %u, at block %u, lists block %u as its first block.",
						 serial, segno, headblk, head->blocks[0]);
	if (head->state != SCBF_FILTER_GROWING && head->nlinked != head->nblocks)
		ScbfCheckProblem(fc, headblk,
						 "Filter %u of segment %u is no longer growing but has %u of its %u blocks.",
						 serial, segno, head->nlinked, head->nblocks);
	if (head->flags & ~SCBF_FILTER_KNOWN_FLAGS)
		ScbfCheckProblem(fc, headblk,
						 "Filter %u of segment %u has unknown flags 0x%04X.",
						 serial, segno, head->flags);
	if (head->ledger_head == 0 || head->ledger_tail == 0)
		ScbfCheckProblem(fc, headblk,
						 "Filter %u of segment %u has no ledger.",
						 serial, segno);
	if (((PageHeader) headpage)->pd_lower < counters_end)
		ScbfCheckProblem(fc, headblk,
						 "The head of filter %u of segment %u ends below its counters (pd_lower %u): WAL replay would lose them.",
						 serial, segno, ((PageHeader) headpage)->pd_lower);
	nblocks = head->nlinked;

	/* the blocks: owner, index, and bookkeeping against a census */
	actual = palloc0(nbytes * nblocks);
	for (b = 0; b < nblocks; b++)
	{
		BlockNumber blkno = head->blocks[b];
		Buffer		buf = headbuf;
		Page		page;
		ScbfFilterPageData *filter;
		uint16		nonzero[SCBF_FILTER_MAX_K];
		uint32		nsat;
		uint32		s;

		if (b != 0)
		{
			if (blkno == SCBF_METAPAGE_BLKNO ||
				!ScbfBlockExists(index, blkno, &nindex))
			{
				ScbfCheckProblem(fc, headblk,
								 "Filter %u of segment %u says its block %d is block %u, which the index does not have.",
								 serial, segno, b, blkno);
				continue;
			}
			buf = ReadBuffer(index, blkno);
			LockBuffer(buf, BUFFER_LOCK_SHARE);
		}
		page = BufferGetPage(buf);
		if (!ScbfPageIsFilter(page, segno, serial, (uint16) b))
		{
			ScbfCheckProblem(fc, blkno,
							 "Block %u is not block %d of filter %u of segment %u.",
							 blkno, b, serial, segno);
			if (b != 0)
				UnlockReleaseBuffer(buf);
			continue;
		}
		if (b != 0 && ((PageHeader) page)->pd_lower < counters_end)
			ScbfCheckProblem(fc, blkno,
							 "Block %d of filter %u of segment %u ends below its counters (pd_lower %u): WAL replay would lose them.",
							 b, serial, segno, ((PageHeader) page)->pd_lower);
		filter = ScbfPageGetFilter(page);
		memcpy(actual + nbytes * b, ScbfPageGetCounters(page), nbytes);
		scbf_filter_census(ScbfPageGetCounters(page), &state->geom, nonzero,
						   &nsat, NULL);
		for (s = 0; s < state->geom.k; s++)
		{
			if (nonzero[s] != filter->nonzero[s])
				ScbfCheckProblem(fc, blkno,
								 "Block %d of filter %u of segment %u says slice %u has %u non-zero counters, it has %u.",
								 b, serial, segno, s, filter->nonzero[s],
								 nonzero[s]);
			fc->slice_fill[s] += (double) nonzero[s] / state->geom.m / nblocks;
		}
		if (nsat != filter->nsaturated)
			ScbfCheckProblem(fc, blkno,
							 "Block %d of filter %u of segment %u says %u counters are saturated, %u are.",
							 b, serial, segno, filter->nsaturated, nsat);
		fc->saturated += nsat;
		fc->worst_fill = Max(fc->worst_fill,
							 scbf_filter_fill(nonzero, &state->geom));
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
		uint32		tombstones = 0;

		CHECK_FOR_INTERRUPTS();
		if (!ScbfBlockExists(index, lblk, &nindex))
		{
			ScbfCheckProblem(fc, last,
							 "The ledger of filter %u of segment %u leads to block %u, which the index does not have.",
							 serial, segno, lblk);
			break;
		}
		if (bms_is_member(lblk, visited))
		{
			ScbfCheckProblem(fc, lblk,
							 "The ledger of filter %u of segment %u reaches block %u twice.",
							 serial, segno, lblk);
			break;
		}
		visited = bms_add_member(visited, lblk);
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
		ScbfCheckAddPage(fc, lblk);
		ledger = ScbfPageGetLedger(page);
		if (((PageHeader) page)->pd_lower <
			MAXALIGN(SizeOfPageHeaderData) +
			MAXALIGN(sizeof(ScbfLedgerPageData)) + esz * ledger->nentries)
			ScbfCheckProblem(fc, lblk,
							 "Ledger page %u of filter %u of segment %u keeps entries above pd_lower (%u): WAL replay would lose them.",
							 lblk, serial, segno, ((PageHeader) page)->pd_lower);
		for (i = 0; i < ledger->nentries; i++)
		{
			const char *e = ScbfPageGetEntries(page) + esz * i;
			uint16		tid = ScbfEntryGetTid(e);
			int			c;

			if (tid == SCBF_TID_TOMBSTONE)
			{
				tombstones++;
				continue;
			}
			if (ScbfTidRelBlock(tid) >= state->pages_per_segment ||
				ScbfTidOffset(tid) < FirstOffsetNumber ||
				ScbfTidOffset(tid) > MaxHeapTuplesPerPage)
				ScbfCheckProblem(fc, lblk,
								 "Entry %d of ledger page %u of filter %u of segment %u has an impossible TID (%u,%u) (block relative to the segment).",
								 i, lblk, serial, segno, ScbfTidRelBlock(tid),
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
		fc->tombstones += tombstones;
		if (tombstones != ledger->ntombstones)
			ScbfCheckProblem(fc, lblk,
							 "Ledger page %u of filter %u of segment %u says %u of its entries are removed, %u are.",
							 lblk, serial, segno, ledger->ntombstones,
							 tombstones);
		if (ledger->flags & SCBF_LEDGER_ROOM)
			nroom++;
		else if (ledger->next != 0)
			sealed += live;
		npages++;
		last = lblk;
		lblk = ledger->next;
		UnlockReleaseBuffer(buf);
	}
	bms_free(visited);
	fc->entries = nentries;
	if (fc->problem == NULL)
	{
		if (last != head->ledger_tail)
			ScbfCheckProblem(fc, headblk,
							 "Filter %u of segment %u says its ledger ends at block %u, it ends at block %u.",
							 serial, segno, head->ledger_tail, last);
		else if (npages != head->nledger_pages)
			ScbfCheckProblem(fc, headblk,
							 "Filter %u of segment %u says its ledger has %u pages, it has %u.",
							 serial, segno, head->nledger_pages, npages);
		/*
		 * A consolidation moves a closed filter's entries out page by page
		 * in records that cannot also change its head (one record holds
		 * four pages), so until the filter is dropped its head may still
		 * count moved entries, also after a crash cut the consolidation
		 * short.  The count is a statistic (sizing, estimates): too high
		 * is harmless there, too low is not what any change leaves.
		 */
		else if (head->state == SCBF_FILTER_CLOSED ?
				 sealed > head->nsealed : sealed != head->nsealed)
			ScbfCheckProblem(fc, headblk,
							 "Filter %u of segment %u counts %u live entries on its sealed ledger pages, there are %llu.",
							 serial, segno, head->nsealed,
							 (unsigned long long) sealed);
		else if (head->state == SCBF_FILTER_GROWING && nentries > 0)
			ScbfCheckProblem(fc, headblk,
							 "Filter %u of segment %u is growing, which scans skip, yet its ledger holds %d entries.",
							 serial, segno, nentries);
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
								 "The room list of filter %u of segment %u reaches block %u, which is not one of its ledger pages with room, or reaches it twice.",
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

	/*
	 * Counters against what the ledger implies: recount the filter in memory
	 * as ScbfRecountFilter would, then compare counter by counter.
	 */
	if (fc->problem == NULL && head->state != SCBF_FILTER_GROWING)
	{
		uint8	   *expect = palloc0(nbytes * nblocks);
		uint16	   *enonzero = palloc0(sizeof(uint16) * SCBF_FILTER_MAX_K * nblocks);
		uint32	   *esat = palloc0(sizeof(uint32) * nblocks);
		bool		trusted = !(head->flags & SCBF_FILTER_RECOUNT);
		ScbfKeyPos *kp;
		uint16	   *kblk;
		int		   *order;
		uint32		idx;

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
					if (trusted)
						ScbfCheckProblem(fc, head->blocks[b],
										 "Counter %u of slice %u of block %d of filter %u of segment %u is %u, its ledger implies at least %u: a row could be missed.",
										 idx % state->geom.m,
										 idx / state->geom.m, b, serial,
										 segno, a, x);
				}
				/*
				 * Counters above the ledger: saturated counters left by
				 * deletes.  Not counted in a CLOSED filter: a consolidation
				 * empties it page by page and leaves its counters alone
				 * until it drops the filter, so there they are only the
				 * trace of a move under way (or cut short by a crash).
				 */
				else if (a > x && head->state != SCBF_FILTER_CLOSED)
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

	/* light pass */
	bool		accounting;		/* claim pages and count */
	uint32	   *owner;			/* per block: segno + 1 of the segment that
								 * reaches it, or SCBF_OWNER_* */
	BlockNumber nowner;
	uint64		stale;			/* counters above the ledger */
	uint64		recount;		/* filters awaiting a recount, counters low */
	uint64		entries;

	/* the segment just checked */
	Bitmapset  *segpages;		/* pages it reaches */
	char	   *segentries;		/* its live entries, sorted by TID when
								 * collected for heapallindexed */
	int			nsegentries;
	MemoryContext segcxt;

	/* heapallindexed */
	int64		cursegno;
	MemoryContext tmpcxt;
	uint64		heaptuples;
} ScbfVerifyState;

/*
 * Report corruption of the index's structure (first problem found).
 */
static void
ScbfVerifyCorrupt(ScbfVerifyState *vs, BlockNumber blkno, const char *fmt,...)
pg_attribute_printf(3, 4);

static void
ScbfVerifyCorrupt(ScbfVerifyState *vs, BlockNumber blkno, const char *fmt,...)
{
	va_list		ap;
	char		buf[1024];

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	ereport(ERROR,
			(errcode(ERRCODE_INDEX_CORRUPTED),
			 errmsg("index \"%s\" is corrupted at block %u",
					RelationGetRelationName(vs->index), blkno),
			 errdetail("%s", buf),
			 errhint("REINDEX the index.")));
}

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
			 errhint("Rebuild the segment with scbf_rebuild(index, %u, 'heap'), or REINDEX the index.",
					 segno)));
}

/*
 * Mark block blkno as owned by owner (SCBF_OWNER_FIXED or segno + 1),
 * growing the map if the index grew.  Returns the previous owner.
 */
static uint32
ScbfVerifyClaim(ScbfVerifyState *vs, BlockNumber blkno, uint32 owner)
{
	uint32		prev;

	if (blkno >= vs->nowner)
	{
		BlockNumber newsize = Max(blkno + 1, vs->nowner * 2);

		vs->owner = repalloc_huge(vs->owner, sizeof(uint32) * newsize);
		memset(vs->owner + vs->nowner, 0,
			   sizeof(uint32) * (newsize - vs->nowner));
		vs->nowner = newsize;
	}
	prev = vs->owner[blkno];
	vs->owner[blkno] = owner;
	return prev;
}

/*
 * Check the metapage against itself, the index definition and the cached
 * state, then the directory map and every directory entry.  Raises
 * ERRCODE_INDEX_CORRUPTED on the first problem.  Directory entries are
 * read under a share lock of their page, so each is seen whole.
 */
static void
ScbfVerifyMeta(ScbfVerifyState *vs)
{
	Relation	index = vs->index;
	ScbfState  *state = vs->state;
	BlockNumber nindex = RelationGetNumberOfBlocks(index);
	Buffer		buf;
	Page		page;
	ScbfMetaPageData *meta;
	scbf_filter_geometry geom;
	BlockNumber *dirpages;
	uint32		ndirpages;
	uint32		d;

	buf = ReadBuffer(index, SCBF_METAPAGE_BLKNO);
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buf);
	ScbfCheckMetaPage(index, page);
	meta = ScbfPageGetMeta(page);
	geom.k = meta->k;
	geom.m = meta->slice_counters;

	if (meta->pages_per_segment < SCBF_MIN_PAGES_PER_SEGMENT)
		ScbfVerifyCorrupt(vs, SCBF_METAPAGE_BLKNO,
						  "The metapage says segments have %u pages, fewer than %d.",
						  meta->pages_per_segment, SCBF_MIN_PAGES_PER_SEGMENT);
	if (!(meta->target_fpr >= SCBF_MIN_FPR && meta->target_fpr <= SCBF_MAX_FPR))
		ScbfVerifyCorrupt(vs, SCBF_METAPAGE_BLKNO,
						  "The metapage's false-positive rate %g is out of range.",
						  meta->target_fpr);
	if (meta->counter_bits != SCBF_FILTER_COUNTER_BITS)
		ScbfVerifyCorrupt(vs, SCBF_METAPAGE_BLKNO,
						  "The metapage says counters have %u bits, not %d.",
						  meta->counter_bits, SCBF_FILTER_COUNTER_BITS);
	if (meta->k != scbf_filter_optimal_k(meta->target_fpr))
		ScbfVerifyCorrupt(vs, SCBF_METAPAGE_BLKNO,
						  "The metapage says filters have %u slices, the false-positive rate %g implies %d.",
						  meta->k, meta->target_fpr,
						  scbf_filter_optimal_k(meta->target_fpr));
	if (meta->block_capacity != scbf_filter_block_capacity(&geom, meta->target_fpr))
		ScbfVerifyCorrupt(vs, SCBF_METAPAGE_BLKNO,
						  "The metapage says a block holds %u keys, its geometry implies %u.",
						  meta->block_capacity,
						  scbf_filter_block_capacity(&geom, meta->target_fpr));
	if (meta->ncols != IndexRelationGetNumberOfKeyAttributes(index))
		ScbfVerifyCorrupt(vs, SCBF_METAPAGE_BLKNO,
						  "The metapage says the index has %u columns, its definition %d.",
						  meta->ncols, IndexRelationGetNumberOfKeyAttributes(index));
	if (meta->pages_per_segment != state->pages_per_segment ||
		meta->ncols != state->ncols || meta->k != state->geom.k ||
		meta->slice_counters != state->geom.m ||
		meta->block_capacity != state->block_capacity ||
		meta->target_fpr != state->target_fpr ||
		meta->hash_seed != state->hash_seed)
		ScbfVerifyCorrupt(vs, SCBF_METAPAGE_BLKNO,
						  "The metapage's layout changed since this session first read it.");
	if (((PageHeader) page)->pd_lower <
		MAXALIGN(SizeOfPageHeaderData) + offsetof(ScbfMetaPageData, dirpages) +
		sizeof(BlockNumber) * meta->ndirpages)
		ScbfVerifyCorrupt(vs, SCBF_METAPAGE_BLKNO,
						  "The metapage's directory map lies above pd_lower (%u): WAL replay would lose it.",
						  ((PageHeader) page)->pd_lower);

	ndirpages = meta->ndirpages;
	dirpages = palloc(sizeof(BlockNumber) * Max(ndirpages, 1));
	memcpy(dirpages, meta->dirpages, sizeof(BlockNumber) * ndirpages);
	UnlockReleaseBuffer(buf);

	(void) ScbfVerifyClaim(vs, SCBF_METAPAGE_BLKNO, SCBF_OWNER_FIXED);
	for (d = 0; d < ndirpages; d++)
	{
		ScbfSegEntry *dir;
		uint32		slot;

		CHECK_FOR_INTERRUPTS();
		if (dirpages[d] == SCBF_METAPAGE_BLKNO ||
			!ScbfBlockExists(index, dirpages[d], &nindex))
			ScbfVerifyCorrupt(vs, SCBF_METAPAGE_BLKNO,
							  "The metapage maps directory page %u to block %u, which the index does not have.",
							  d, dirpages[d]);
		if (ScbfVerifyClaim(vs, dirpages[d], SCBF_OWNER_FIXED) != SCBF_OWNER_NONE)
			ScbfVerifyCorrupt(vs, dirpages[d],
							  "The metapage maps two directory pages to block %u.",
							  dirpages[d]);
		buf = ReadBuffer(index, dirpages[d]);
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		if (PageIsNew(page) ||
			((PageHeader) page)->pd_special !=
			BLCKSZ - MAXALIGN(sizeof(ScbfPageOpaqueData)) ||
			ScbfPageGetOpaque(page)->page_id != SCBF_PAGE_ID ||
			ScbfPageGetType(page) != SCBF_PAGE_DIRECTORY ||
			ScbfPageGetOpaque(page)->blkidx != (uint16) d)
			ScbfVerifyCorrupt(vs, dirpages[d],
							  "Block %u is not directory page %u.",
							  dirpages[d], d);
		if (((PageHeader) page)->pd_lower <
			MAXALIGN(SizeOfPageHeaderData) +
			sizeof(ScbfSegEntry) * SCBF_DIR_ENTRIES_PER_PAGE)
			ScbfVerifyCorrupt(vs, dirpages[d],
							  "Directory page %u keeps entries above pd_lower (%u): WAL replay would lose them.",
							  d, ((PageHeader) page)->pd_lower);

		dir = ScbfPageGetDir(page);
		for (slot = 0; slot < SCBF_DIR_ENTRIES_PER_PAGE; slot++)
		{
			ScbfSegEntry *e = &dir[slot];
			uint32		segno = d * SCBF_DIR_ENTRIES_PER_PAGE + slot;
			const char *bad = NULL;

			if (ScbfSegEntryIsEmpty(e))
			{
				if (e->tail != 0 || e->nfilters != 0 || e->head_serial != 0 ||
					e->tail_serial != 0 || e->next_serial != 0 ||
					(e->flags & ~SCBF_SEG_EMPTY) != 0)
					bad = "it has no first filter, yet its other fields are not zero";
			}
			else if (e->flags != 0)
				bad = "it has a chain, yet it has flags";
			else if (!ScbfBlockExists(index, e->head, &nindex) ||
					 e->tail == 0 || !ScbfBlockExists(index, e->tail, &nindex))
				bad = "its first or last filter is a block the index does not have";
			else if (e->nfilters < 1 || e->head_serial < 1 ||
					 e->head_serial > e->tail_serial ||
					 e->tail_serial >= e->next_serial)
				bad = "its filter count or serials are impossible";
			else if ((e->nfilters == 1) !=
					 (e->head == e->tail && e->head_serial == e->tail_serial))
				bad = "its filter count disagrees with its first and last filters";
			else if (e->nfilters > (uint32) (e->tail_serial - e->head_serial) + 1)
				bad = "it counts more filters than serials between its first and last";
			if (bad != NULL)
				ScbfVerifyCorrupt(vs, dirpages[d],
								  "The directory entry of segment %u (slot %u of directory page %u) is impossible: %s (first filter %u at block %u, last filter %u at block %u, %u filters, next serial %u, flags 0x%04X).",
								  segno, slot, d, bad, e->head_serial, e->head,
								  e->tail_serial, e->tail, e->nfilters,
								  e->next_serial, e->flags);
		}
		UnlockReleaseBuffer(buf);
	}
	pfree(dirpages);
}

/*
 * Check one segment's chain once, from directory entry seg.  Collects the
 * pages it reaches in vs->segpages and its live entries in
 * vs->segentries.  Returns NULL if all is well, else the first problem
 * (in *fc): the caller decides whether it is corruption or a change under
 * the check.
 */
static ScbfFilterCheck *
ScbfVerifySegmentOnce(ScbfVerifyState *vs, uint32 segno,
					  const ScbfSegEntry *seg, ScbfFilterCheck *fc)
{
	ScbfState  *state = vs->state;
	BlockNumber segstart = segno * state->pages_per_segment;
	BlockNumber blk = seg->head;
	uint32		serial = seg->head_serial;
	uint32		last_serial = 0;
	uint32		nfilters = 0;
	BlockNumber tailblk = InvalidBlockNumber;
	uint32		tailserial = 0;
	uint16		tailstate = 0;
	uint16		maxrel = 0;
	bool		anyentry = false;
	char	   *all = NULL;
	int			nall = 0;
	int			i;

	vs->segpages = NULL;
	vs->segentries = NULL;
	vs->nsegentries = 0;

	while (blk != 0)
	{
		int			b;

		if (nfilters > 0 && serial <= last_serial)
		{
			memset(fc, 0, sizeof(ScbfFilterCheck));
			ScbfCheckProblem(fc, blk,
							 "Segment %u's chain goes from filter %u to filter %u: serials must increase.",
							 segno, last_serial, serial);
			return fc;
		}
		ScbfCheckFilter(vs->index, state, segno, blk, serial, true, fc);
		if (fc->problem != NULL)
			return fc;
		if (nfilters > 0 && fc->state == SCBF_FILTER_DROPPING)
		{
			ScbfCheckProblem(fc, blk,
							 "Filter %u of segment %u is being dropped, yet it is not the first of its chain.",
							 serial, segno);
			return fc;
		}
		if (nfilters > 0 && tailstate == SCBF_FILTER_ACTIVE)
		{
			ScbfCheckProblem(fc, tailblk,
							 "Filter %u of segment %u is active, yet a newer filter follows it.",
							 tailserial, segno);
			return fc;
		}

		/* pages reachable twice within the segment */
		for (b = 0; b < fc->nblocks + fc->npages_seen; b++)
		{
			BlockNumber p = (b < fc->nblocks) ? fc->blocks[b] :
				fc->pages_seen[b - fc->nblocks];

			if (bms_is_member(p, vs->segpages))
			{
				ScbfCheckProblem(fc, p,
								 "Block %u is reached twice in segment %u (the second time from filter %u).",
								 p, segno, serial);
				return fc;
			}
			vs->segpages = bms_add_member(vs->segpages, p);
		}

		if (fc->low > 0)
			vs->recount++;
		vs->stale += fc->stale;
		vs->entries += fc->entries;
		if (fc->necopy > 0)
		{
			all = all ? repalloc_huge(all, state->entry_size * (nall + fc->necopy)) :
				palloc(state->entry_size * fc->necopy);
			memcpy(all + state->entry_size * nall, fc->ecopy,
				   state->entry_size * fc->necopy);
			nall += fc->necopy;
		}
		nfilters++;
		last_serial = serial;
		tailblk = blk;
		tailserial = serial;
		tailstate = fc->state;
		blk = fc->next;
		serial = fc->next_serial;
	}

	memset(fc, 0, sizeof(ScbfFilterCheck));
	if (nfilters != seg->nfilters)
		ScbfCheckProblem(fc, seg->head,
						 "Segment %u's directory entry counts %u filters, its chain has %u.",
						 segno, seg->nfilters, nfilters);
	else if (tailblk != seg->tail || tailserial != seg->tail_serial)
		ScbfCheckProblem(fc, seg->tail,
						 "Segment %u's directory entry names filter %u at block %u as its last, the chain ends at filter %u at block %u.",
						 segno, seg->tail_serial, seg->tail, tailserial, tailblk);
	else if (tailstate != SCBF_FILTER_ACTIVE && tailstate != SCBF_FILTER_GROWING)
		ScbfCheckProblem(fc, seg->tail,
						 "The last filter %u of segment %u is neither active nor growing: inserts have nowhere to go.",
						 tailserial, segno);
	if (fc->problem != NULL)
		return fc;

	/* every entry's TID lies within the table, which cannot shrink now */
	for (i = 0; i < nall; i++)
	{
		uint16		rel = ScbfTidRelBlock(ScbfEntryGetTid(all + state->entry_size * i));

		if (rel >= maxrel)
		{
			maxrel = rel;
			anyentry = true;
		}
	}
	if (anyentry && segstart + maxrel >= RelationGetNumberOfBlocks(vs->heap))
	{
		ScbfCheckProblem(fc, seg->head,
						 "Segment %u has a ledger entry for heap block %u, past the end of table \"%s\".",
						 segno, segstart + maxrel,
						 RelationGetRelationName(vs->heap));
		return fc;
	}

	vs->segentries = all;
	vs->nsegentries = nall;
	return NULL;
}

/*
 * In the light pass, claim the pages segment segno reaches (vs->segpages).
 * A page another segment claimed earlier may have been freed and reused
 * since (a concurrent consolidation): that segment is then checked again,
 * and only if it still reaches the page is the page reached twice.
 */
static void ScbfVerifySegment(ScbfVerifyState *vs, uint32 segno, bool sort);

static void
ScbfVerifyClaimSegment(ScbfVerifyState *vs, uint32 segno)
{
	Bitmapset  *mine = bms_copy(vs->segpages);
	int			p = -1;

	while ((p = bms_next_member(mine, p)) >= 0)
	{
		uint32		prev = ScbfVerifyClaim(vs, (BlockNumber) p, segno + 1);

		if (prev == SCBF_OWNER_NONE || prev == segno + 1)
			continue;
		if (prev != SCBF_OWNER_FIXED)
		{
			bool		accounting = vs->accounting;
			bool		still;

			/* check the other segment again, without counting it twice */
			vs->accounting = false;
			ScbfVerifySegment(vs, prev - 1, false);
			vs->accounting = accounting;
			still = bms_is_member(p, vs->segpages);
			if (!still)
				continue;
		}
		ScbfVerifyCorrupt(vs, (BlockNumber) p,
						  "Block %u is reached from segment %u and from %s.",
						  (BlockNumber) p, segno,
						  prev == SCBF_OWNER_FIXED ? "the metapage's directory map" :
						  psprintf("segment %u", prev - 1));
	}
	bms_free(mine);
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
 * Check segment segno, again while problems come and go under us (a
 * concurrent chaining or consolidation changes its chain), and report a
 * problem that persists: seen on the last attempt, or twice in a row with
 * the same directory entry.  Leaves the pages the segment reaches in
 * vs->segpages and its entries in vs->segentries (sorted by TID if sort).
 * With vs->accounting, counts its entries and stale counters.
 */
static void
ScbfVerifySegment(ScbfVerifyState *vs, uint32 segno, bool sort)
{
	ScbfSegEntry prevseg;
	char	   *prevproblem = NULL;
	int			attempt;

	memset(&prevseg, 0, sizeof(prevseg));
	for (attempt = 0; attempt < SCBF_VERIFY_RETRIES; attempt++)
	{
		ScbfSegEntry seg;
		ScbfFilterCheck fc;
		ScbfFilterCheck *problem;
		uint64		stale = vs->stale;
		uint64		recount = vs->recount;
		uint64		entries = vs->entries;

		CHECK_FOR_INTERRUPTS();
		vs->segpages = NULL;
		vs->segentries = NULL;
		vs->nsegentries = 0;
		if (!ScbfGetSegEntry(vs->index, vs->state, segno, &seg))
			return;
		problem = ScbfVerifySegmentOnce(vs, segno, &seg, &fc);
		if (!vs->accounting)
		{
			vs->stale = stale;
			vs->recount = recount;
			vs->entries = entries;
		}
		if (problem == NULL)
		{
			if (sort && vs->nsegentries > 1)
				qsort(vs->segentries, vs->nsegentries, vs->state->entry_size,
					  ScbfCmpEntryTid);
			return;
		}
		vs->stale = stale;
		vs->recount = recount;
		vs->entries = entries;
		if (attempt == SCBF_VERIFY_RETRIES - 1 ||
			(prevproblem != NULL && strcmp(prevproblem, problem->problem) == 0 &&
			 memcmp(&prevseg, &seg, sizeof(ScbfSegEntry)) == 0))
			ScbfVerifyReport(vs, segno, problem);
		prevproblem = problem->problem;
		prevseg = seg;
	}
}

/*
 * ScbfForEachSegment callback of the light pass.
 */
static void
ScbfVerifySegmentCb(Relation index, ScbfState *state, uint32 segno,
					ScbfSegEntry *entry, void *arg)
{
	ScbfVerifyState *vs = (ScbfVerifyState *) arg;
	MemoryContext oldcxt = MemoryContextSwitchTo(vs->segcxt);

	ScbfVerifySegment(vs, segno, false);
	ScbfVerifyClaimSegment(vs, segno);
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

	if (vs->nsegentries == 0)
		return false;
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
 * Read segment segno again into vs->segentries, sorted, in the segment
 * context (heapallindexed).
 */
static void
ScbfVerifyLoadSegment(ScbfVerifyState *vs, uint32 segno)
{
	MemoryContext oldcxt;

	MemoryContextReset(vs->segcxt);
	oldcxt = MemoryContextSwitchTo(vs->segcxt);
	ScbfVerifySegment(vs, segno, true);
	MemoryContextSwitchTo(oldcxt);
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
	OffsetNumber off = ItemPointerGetOffsetNumber(tid);
	uint32		segno = blkno / state->pages_per_segment;
	char		entry[ScbfEntrySize(INDEX_MAX_KEYS)];
	MemoryContext oldcxt;
	ScbfSegEntry seg;
	StringInfoData hashes;
	int			c;

	vs->heaptuples++;
	if (segno >= SCBF_MAX_SEGMENTS)
		return;					/* unindexed by design: scans read it whole */

	oldcxt = MemoryContextSwitchTo(vs->tmpcxt);
	ScbfEntrySetTid(entry, ScbfTidMake(blkno % state->pages_per_segment, off));
	for (c = 0; c < state->ncols; c++)
		ScbfEntrySetHash(entry, c, isnull[c] ? SCBF_NULL_HASH :
						 ScbfHashDatum(index, c, values[c]));
	MemoryContextSwitchTo(oldcxt);
	MemoryContextReset(vs->tmpcxt);

	if (segno != vs->cursegno)
	{
		ScbfVerifyLoadSegment(vs, segno);
		vs->cursegno = segno;
	}
	if (ScbfVerifyHasEntry(vs, entry))
		return;

	/*
	 * Not in the copy we read: the entry may have moved to a filter we had
	 * passed (a consolidation), or our copy may predate it.  Read the
	 * segment again, the way the scan does (chain link after the ledger).
	 */
	ScbfVerifyLoadSegment(vs, segno);
	if (ScbfVerifyHasEntry(vs, entry))
		return;

	if (!ScbfGetSegEntry(index, state, segno, &seg) &&
		!(seg.flags & SCBF_SEG_EMPTY))
		return;					/* no directory entry: scans read it whole */

	initStringInfo(&hashes);
	for (c = 0; c < state->ncols; c++)
		appendStringInfo(&hashes, "%s%08X", c > 0 ? ", " : "",
						 ScbfEntryGetHash(entry, c));
	ereport(ERROR,
			(errcode(ERRCODE_INDEX_CORRUPTED),
			 errmsg("index \"%s\" lacks an entry for heap tuple (%u,%u) of table \"%s\"",
					RelationGetRelationName(index), blkno, off,
					RelationGetRelationName(vs->heap)),
			 (seg.flags & SCBF_SEG_EMPTY) ?
			 errdetail("Segment %u is flagged empty, so scans skip it, but the tuple (hash %s) lives there.",
					   segno, hashes.data) :
			 errdetail("No ledger of segment %u (filters %u to %u, first at block %u) has an entry with TID (%u,%u) and hash %s.",
					   segno, seg.head_serial, seg.tail_serial, seg.head,
					   blkno, off, hashes.data),
			 errhint("Rebuild the segment with scbf_rebuild(index, %u, 'heap'), or REINDEX the index.",
					 segno)));
}

/*
 * Is block blkno, which the light pass did not reach, reachable now?  The
 * index may have changed since its segment was checked (a new ledger page,
 * a new filter, a consolidation moving pages around, a new directory
 * page): check the segment the page names again, and claim what it reaches
 * now, or re-read the directory map.
 */
static bool
ScbfVerifyReachableNow(ScbfVerifyState *vs, BlockNumber blkno, Page page)
{
	ScbfPageOpaque opaque = ScbfPageGetOpaque(page);

	if (((PageHeader) page)->pd_special !=
		BLCKSZ - MAXALIGN(sizeof(ScbfPageOpaqueData)) ||
		opaque->page_id != SCBF_PAGE_ID)
		return false;

	if (opaque->type == SCBF_PAGE_DIRECTORY)
	{
		uint32		d;

		ScbfRefreshDirMap(vs->index, vs->state);
		for (d = 0; d < vs->state->ndirpages; d++)
			if (vs->state->dirpages[d] == blkno)
			{
				(void) ScbfVerifyClaim(vs, blkno, SCBF_OWNER_FIXED);
				return true;
			}
		return false;
	}

	if ((opaque->type == SCBF_PAGE_FILTER || opaque->type == SCBF_PAGE_LEDGER) &&
		opaque->segno < SCBF_MAX_SEGMENTS)
	{
		uint32		segno = opaque->segno;
		MemoryContext oldcxt = MemoryContextSwitchTo(vs->segcxt);
		int			p = -1;
		bool		reached;

		ScbfVerifySegment(vs, segno, false);
		while ((p = bms_next_member(vs->segpages, p)) >= 0)
			(void) ScbfVerifyClaim(vs, (BlockNumber) p, segno + 1);
		reached = bms_is_member(blkno, vs->segpages);
		MemoryContextSwitchTo(oldcxt);
		MemoryContextReset(vs->segcxt);
		return reached;
	}
	return false;
}

/*
 * Report the pages that nothing reaches and that are not free.  A page
 * the structure reaches now (it changed during the check) is not a leak.
 */
static void
ScbfVerifyLeaks(ScbfVerifyState *vs)
{
	BlockNumber nblocks = RelationGetNumberOfBlocks(vs->index);
	BlockNumber blkno;
	BlockNumber nleaked = 0;
	BlockNumber first = InvalidBlockNumber;

	for (blkno = SCBF_METAPAGE_BLKNO + 1; blkno < nblocks; blkno++)
	{
		Buffer		buf;
		Page		copy;

		if (blkno < vs->nowner && vs->owner[blkno] != SCBF_OWNER_NONE)
			continue;
		CHECK_FOR_INTERRUPTS();
		buf = ReadBuffer(vs->index, blkno);
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		if (ScbfPageIsFree(BufferGetPage(buf)))
		{
			UnlockReleaseBuffer(buf);
			continue;
		}
		copy = palloc(BLCKSZ);
		memcpy(copy, BufferGetPage(buf), BLCKSZ);
		UnlockReleaseBuffer(buf);
		if (!ScbfVerifyReachableNow(vs, blkno, copy) && nleaked++ == 0)
			first = blkno;
		pfree(copy);
	}
	if (nleaked > 0)
		ereport(NOTICE,
				(errmsg("index \"%s\" has %u page(s) that nothing links to, the first at block %u",
						RelationGetRelationName(vs->index), nleaked, first),
				 errdetail("Such pages waste space but cannot cause a wrong answer; they are left by a crash in the middle of a multi-page change."),
				 errhint("REINDEX reclaims them.")));
}

/*
 * scbf_verify(index regclass, heapallindexed boolean DEFAULT false): check
 * the index as described in the file header.  Returns nothing; raises
 * ERRCODE_INDEX_CORRUPTED on the first corruption found, NOTICEs for what
 * is harmless.
 */
Datum
scbf_verify(PG_FUNCTION_ARGS)
{
	bool		heapallindexed = !PG_ARGISNULL(1) && PG_GETARG_BOOL(1);
	ScbfVerifyState vs;
	Snapshot	snapshot = InvalidSnapshot;

	memset(&vs, 0, sizeof(vs));
	vs.index = ScbfOpenIndex(fcinfo, 0, AccessShareLock, &vs.heap, true);
	if (Scbf2PeekFormat(vs.index) == SCBF2_FORMAT_VERSION)
	{
		Scbf2Verify(vs.index, vs.heap, heapallindexed);
		ScbfCloseIndex(vs.index, vs.heap, AccessShareLock);
		PG_RETURN_VOID();
	}
	vs.heapallindexed = heapallindexed;
	vs.segcxt = AllocSetContextCreate(CurrentMemoryContext,
									  "scbf verify segment context",
									  ALLOCSET_DEFAULT_SIZES);
	vs.tmpcxt = AllocSetContextCreate(CurrentMemoryContext,
									  "scbf verify temporary context",
									  ALLOCSET_DEFAULT_SIZES);

	/*
	 * An MVCC snapshot taken before the index is read (amcheck's rule):
	 * every tuple it sees was fully indexed before we look (invariant I3).
	 */
	if (heapallindexed)
		snapshot = RegisterSnapshot(GetTransactionSnapshot());

	/* the light pass: metapage, directory, every segment, leaks */
	vs.state = ScbfGetState(vs.index);
	vs.nowner = Max(RelationGetNumberOfBlocks(vs.index), 1);
	vs.owner = MemoryContextAllocExtended(CurrentMemoryContext,
										  sizeof(uint32) * vs.nowner,
										  MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	ScbfVerifyMeta(&vs);
	vs.accounting = true;
	ScbfForEachSegment(vs.index, vs.state, ScbfVerifySegmentCb, &vs);
	vs.accounting = false;
	ScbfVerifyLeaks(&vs);

	if (vs.stale > 0)
		ereport(NOTICE,
				(errmsg("index \"%s\" has %llu counter(s) above what its ledgers imply",
						RelationGetRelationName(vs.index),
						(unsigned long long) vs.stale),
				 errdetail("Such counters cost false positives, never a wrong answer: saturated counters left by deletes, or the leftovers of an interrupted multi-column change."),
				 errhint("VACUUM recounts filters with saturated counters; scbf_rebuild() recounts any segment.")));
	if (vs.recount > 0)
		ereport(NOTICE,
				(errmsg("index \"%s\" has %llu filter(s) awaiting a recount with counters below what their ledgers imply",
						RelationGetRelationName(vs.index),
						(unsigned long long) vs.recount),
				 errdetail("Scans do not trust such filters and read their segments whole, so no row is missed."),
				 errhint("VACUUM recounts them; so does scbf_rebuild().")));

	if (heapallindexed)
	{
		IndexInfo  *indexInfo = BuildIndexInfo(vs.index);
		TableScanDesc scan;

		/* as verify_nbtree.c: an MVCC scan, no syncscan (block order) */
		indexInfo->ii_Concurrent = true;
		vs.cursegno = -1;
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
