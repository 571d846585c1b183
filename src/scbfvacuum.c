/*-------------------------------------------------------------------------
 *
 * scbfvacuum.c
 *	  VACUUM for scbf: exact decrements through the ledger, recounts,
 *	  consolidation of filter chains, page recycling, statistics.
 *
 * NOTES
 *	  ambulkdelete gets only dead TIDs; the tuples' values are long gone
 *	  (pruned to LP_DEAD stubs).  The ledger remembers, for every entry, its
 *	  TID and its hash per column, so the dead entry's counters can be found
 *	  again.  Each entry is removed (tombstoned, then compacted away) in the
 *	  same WAL record that decrements its counters (invariant I2), with the
 *	  filter head exclusively locked.  The callback is called exactly once
 *	  per ledger entry (I6), which CREATE INDEX CONCURRENTLY relies on.
 *
 *	  Decrements never touch a counter at the maximum (it is sticky: a
 *	  value may still be counted there) and never go below zero.  The first
 *	  case flags the filter STALE, the second RECOUNT (an impossible state,
 *	  so the counters stop being trusted by scans); amvacuumcleanup then
 *	  recounts such filters from their ledgers, exactly.
 *
 *	  amvacuumcleanup also consolidates chains: a segment with more than one
 *	  filter gets a new filter sized for its live keys, appended to the chain
 *	  (so it takes new inserts at once), the entries of the older filters
 *	  are moved into it (each in one record that adds it there and removes
 *	  it here), and the emptied filters are dropped and their pages freed.
 *	  Only VACUUM and scbf_rebuild() change ledgers other than by appending,
 *	  and both hold ShareUpdateExclusiveLock on the table, so they never run
 *	  at the same time.
 *
 * Portions Copyright (c) 2026, scbf developers
 *
 * IDENTIFICATION
 *	  src/scbfvacuum.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/genam.h"
#include "access/tableam.h"
#include "catalog/index.h"
#include "commands/progress.h"
#include "commands/vacuum.h"
#include "miscadmin.h"
#include "storage/indexfsm.h"
#include "storage/lmgr.h"
#include "utils/backend_progress.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "scbf2.h"

/*
 * Read a ledger page of filter (segno, serial) in the given mode, checked.
 */
static Buffer
ScbfLockLedger(Relation index, ScbfState *state, BlockNumber blkno,
			   uint32 segno, uint32 serial, int mode,
			   BufferAccessStrategy strategy)
{
	Buffer		buf = ReadBufferExtended(index, MAIN_FORKNUM, blkno,
										 RBM_NORMAL, strategy);

	LockBuffer(buf, mode);
	if (!ScbfPageIsLedger(BufferGetPage(buf), segno, serial,
						  state->ledger_capacity))
		ScbfReportCorrupt(index, blkno,
						  psprintf("Expected a ledger page of filter %u of segment %u.",
								   serial, segno));
	return buf;
}

/*
 * Turn the result bits of scbf_filter_remove into filter flags.
 */
static uint16
ScbfRemoveFlags(int result)
{
	uint16		flags = 0;

	if (result & SCBF_FILTER_STUCK)
		flags |= SCBF_FILTER_STALE;
	if (result & SCBF_FILTER_UNDERFLOW)
		flags |= SCBF_FILTER_RECOUNT;
	return flags;
}

/*
 * Unlink the empty, non-tail ledger page lblk from the filter whose head
 * the caller holds exclusively; prevblk is the ledger page before it, or
 * InvalidBlockNumber if it is the first.  The page is freed.  Returns false
 * (and changes nothing) if the page is the tail, not empty, or on the room
 * list.
 */
static bool
ScbfUnlinkLedgerPage(Relation index, ScbfState *state, Buffer headbuf,
					 BlockNumber prevblk, BlockNumber lblk)
{
	Page		headpage = BufferGetPage(headbuf);
	ScbfPageOpaque opaque = ScbfPageGetOpaque(headpage);
	ScbfFilterPageData *filter = ScbfPageGetFilter(headpage);
	Buffer		prevbuf = InvalidBuffer;
	Buffer		lbuf;
	GenericXLogState *xlog;
	Page		hpage;
	Page		lpage;
	BlockNumber next;

	if (filter->ledger_tail == lblk)
		return false;

	/* lock order: head (held), previous ledger page, this one */
	if (BlockNumberIsValid(prevblk))
		prevbuf = ScbfLockLedger(index, state, prevblk, opaque->segno,
								 opaque->serial, BUFFER_LOCK_EXCLUSIVE, NULL);
	lbuf = ScbfLockLedger(index, state, lblk, opaque->segno, opaque->serial,
						  BUFFER_LOCK_EXCLUSIVE, NULL);
	/* a page on the room list stays: inserts will fill it again */
	if (ScbfPageGetLedger(BufferGetPage(lbuf))->nentries != 0 ||
		(ScbfPageGetLedger(BufferGetPage(lbuf))->flags & SCBF_LEDGER_ROOM))
	{
		UnlockReleaseBuffer(lbuf);
		if (BufferIsValid(prevbuf))
			UnlockReleaseBuffer(prevbuf);
		return false;
	}
	next = ScbfPageGetLedger(BufferGetPage(lbuf))->next;

	xlog = GenericXLogStart(index);
	hpage = GenericXLogRegisterBuffer(xlog, headbuf, 0);
	if (BufferIsValid(prevbuf))
	{
		Page		ppage = GenericXLogRegisterBuffer(xlog, prevbuf, 0);

		Assert(ScbfPageGetLedger(ppage)->next == lblk);
		ScbfPageGetLedger(ppage)->next = next;
	}
	else
	{
		Assert(ScbfPageGetFilter(hpage)->ledger_head == lblk);
		ScbfPageGetFilter(hpage)->ledger_head = next;
	}
	ScbfPageGetFilter(hpage)->nledger_pages--;
	lpage = GenericXLogRegisterBuffer(xlog, lbuf, 0);
	ScbfMarkPageFree(lpage);
	GenericXLogFinish(xlog);

	UnlockReleaseBuffer(lbuf);
	if (BufferIsValid(prevbuf))
		UnlockReleaseBuffer(prevbuf);
	RecordFreeIndexPage(index, lblk);
	return true;
}

/*
 * Remove the entries deadidx[0..ndead-1] of ledger page lblk (whose copy,
 * taken under a share lock, is "copy") from filter (segno, serial), and
 * decrement their counters: one record per primary block, each removing
 * those entries and decrementing their keys in the head and that block.
 * Then unlink the page if that emptied it.  Returns true if it was unlinked.
 */
static bool
ScbfRemoveEntries(Relation index, ScbfState *state, uint32 segno,
				  uint32 serial, BlockNumber headblk, BlockNumber prevblk,
				  BlockNumber lblk, const char *copy, const uint16 *deadidx,
				  int ndead, BufferAccessStrategy strategy)
{
	int			ncols = state->ncols;
	Size		esz = state->entry_size;
	Buffer		headbuf;
	Page		headpage;
	int			nblocks;
	char	   *dead;
	ScbfKeyPos *kp;
	uint16	   *kblk;
	int		   *order;
	int			gstart;
	int			i;
	bool		unlinked = false;

	headbuf = ScbfLockHead(index, headblk, segno, serial,
						   BUFFER_LOCK_EXCLUSIVE);
	headpage = BufferGetPage(headbuf);
	nblocks = ScbfPageGetFilter(headpage)->nblocks;

	dead = palloc(esz * ndead);
	for (i = 0; i < ndead; i++)
		memcpy(dead + esz * i, copy + esz * deadidx[i], esz);
	ScbfPlaceEntries(state, dead, ndead, nblocks, &kp, &kblk, &order);

	gstart = 0;
	while (gstart < ndead)
	{
		int			p = kblk[order[gstart] * ncols];
		int			gend = gstart;
		Buffer		pbuf = InvalidBuffer;
		Buffer		lbuf;
		GenericXLogState *xlog;
		Page		hpage;
		Page		ppage;
		Page		lpage;
		ScbfFilterPageData *hfilter;
		int			result = 0;
		int			j;

		while (gend < ndead && kblk[order[gend] * ncols] == p)
			gend++;

		if (p != 0)
			pbuf = ScbfLockFilterBlock(index, headpage, p,
									   BUFFER_LOCK_EXCLUSIVE);
		lbuf = ScbfLockLedger(index, state, lblk, segno, serial,
							  BUFFER_LOCK_EXCLUSIVE, strategy);

		xlog = GenericXLogStart(index);
		hpage = GenericXLogRegisterBuffer(xlog, headbuf, 0);
		ppage = (p != 0) ? GenericXLogRegisterBuffer(xlog, pbuf, 0) : hpage;
		lpage = GenericXLogRegisterBuffer(xlog, lbuf, 0);
		hfilter = ScbfPageGetFilter(hpage);

		for (j = gstart; j < gend; j++)
		{
			int			e = order[j];
			char	   *target = ScbfPageGetEntries(lpage) + esz * deadidx[e];
			int			c;

			/* only VACUUM removes entries, so it must still be there */
			if (deadidx[e] >= ScbfPageGetLedger(lpage)->nentries ||
				memcmp(target, dead + esz * e, esz) != 0)
				ScbfReportCorrupt(index, lblk,
								  "A ledger entry moved while VACUUM was removing it.");
			ScbfEntrySetTid(target, SCBF_TID_TOMBSTONE);
			ScbfPageGetLedger(lpage)->ntombstones++;

			for (c = 0; c < ncols; c++)
			{
				int			b = kblk[e * ncols + c];
				Page		bpage;

				if (b != 0 && b != p)
					continue;	/* third blocks: after this record */
				bpage = (b == 0) ? hpage : ppage;
				result |= scbf_filter_remove(ScbfPageGetCounters(bpage),
											 ScbfPageGetFilter(bpage)->nonzero,
											 &ScbfPageGetFilter(bpage)->nsaturated,
											 &state->geom, kp[e * ncols + c].pos);
			}
		}
		/* the head counts the entries of sealed pages only */
		if (lblk != hfilter->ledger_tail &&
			!(ScbfPageGetLedger(lpage)->flags & SCBF_LEDGER_ROOM))
			hfilter->nsealed -= Min(hfilter->nsealed, (uint32) (gend - gstart));
		hfilter->flags |= ScbfRemoveFlags(result);
		if (gend == ndead)
		{
			ScbfLedgerPageData *ledger = ScbfPageGetLedger(lpage);

			ScbfCompactLedgerPage(lpage, state);

			/*
			 * A sealed page left with room goes on the room list, so that
			 * inserts fill it before they grow the ledger.  (An empty one is
			 * unlinked and freed instead, below.)
			 */
			if (lblk != hfilter->ledger_tail &&
				!(ledger->flags & SCBF_LEDGER_ROOM) &&
				ledger->nentries > 0 &&
				ledger->nentries <= state->ledger_capacity * SCBF_ROOM_FILL)
			{
				hfilter->nsealed -= Min(hfilter->nsealed, (uint32) ledger->nentries);
				ledger->next_room = hfilter->ledger_room;
				ledger->flags |= SCBF_LEDGER_ROOM;
				hfilter->ledger_room = lblk;
			}
		}
		GenericXLogFinish(xlog);

		UnlockReleaseBuffer(lbuf);
		if (BufferIsValid(pbuf))
			UnlockReleaseBuffer(pbuf);

		/* multi-column keys in third blocks, after the ledger record */
		result = ScbfApplyExtraKeys(index, state, headbuf, kp, kblk,
									order + gstart, gend - gstart, p, true,
									false, state->target_fpr);
		if (ScbfRemoveFlags(result) &
			~ScbfPageGetFilter(headpage)->flags)
		{
			xlog = GenericXLogStart(index);
			hpage = GenericXLogRegisterBuffer(xlog, headbuf, 0);
			ScbfPageGetFilter(hpage)->flags |= ScbfRemoveFlags(result);
			GenericXLogFinish(xlog);
		}

		gstart = gend;
	}

	/* drop the page from the list if it is now empty (never the tail) */
	{
		Buffer		lbuf = ReadBuffer(index, lblk);
		bool		empty;

		LockBuffer(lbuf, BUFFER_LOCK_SHARE);
		empty = ScbfPageGetLedger(BufferGetPage(lbuf))->nentries == 0;
		UnlockReleaseBuffer(lbuf);
		if (empty)
			unlinked = ScbfUnlinkLedgerPage(index, state, headbuf, prevblk,
											lblk);
	}

	UnlockReleaseBuffer(headbuf);
	pfree(dead);
	pfree(kp);
	pfree(kblk);
	pfree(order);
	return unlinked;
}

/*
 * ambulkdelete work for one filter: read its ledger page by page, ask the
 * callback about every entry once, and remove the dead ones.
 */
static void
ScbfBulkDeleteFilter(IndexVacuumInfo *info, ScbfState *state, uint32 segno,
					 BlockNumber headblk, uint32 serial,
					 IndexBulkDeleteResult *stats,
					 IndexBulkDeleteCallback callback, void *callback_state,
					 char *copy, uint16 *deadidx, int64 *pagesdone)
{
	Relation	index = info->index;
	BlockNumber segstart = segno * state->pages_per_segment;
	BlockNumber lblk;
	BlockNumber prevblk = InvalidBlockNumber;
	Buffer		buf;
	ScbfWalk	walk;

	buf = ScbfLockHead(index, headblk, segno, serial, BUFFER_LOCK_SHARE);
	lblk = ScbfPageGetFilter(BufferGetPage(buf))->ledger_head;
	UnlockReleaseBuffer(buf);

	ScbfWalkStart(&walk, index, SCBF_WALK_LEDGER, segno, serial);
	while (lblk != 0)
	{
		ScbfLedgerPageData *ledger;
		BlockNumber next;
		int			n;
		int			ndead = 0;
		int			i;

		ScbfVacuumDelayPoint();
		ScbfWalkStep(&walk, lblk);

		buf = ScbfLockLedger(index, state, lblk, segno, serial,
							 BUFFER_LOCK_SHARE, info->strategy);
		ledger = ScbfPageGetLedger(BufferGetPage(buf));
		n = ledger->nentries;
		next = ledger->next;
		memcpy(copy, ScbfPageGetEntries(BufferGetPage(buf)),
			   state->entry_size * n);
		UnlockReleaseBuffer(buf);

		for (i = 0; i < n; i++)
		{
			uint16		tid = ScbfEntryGetTid(copy + state->entry_size * i);
			ItemPointerData htid;

			if (tid == SCBF_TID_TOMBSTONE)
				continue;
			ItemPointerSet(&htid, segstart + ScbfTidRelBlock(tid),
						   ScbfTidOffset(tid));
			if (callback(&htid, callback_state))
				deadidx[ndead++] = (uint16) i;
			else
				stats->num_index_tuples += 1;
		}

		if (ndead > 0)
		{
			stats->tuples_removed += ndead;
			if (ScbfRemoveEntries(index, state, segno, serial, headblk,
								  prevblk, lblk, copy, deadidx, ndead,
								  info->strategy))
			{
				stats->pages_newly_deleted++;
				lblk = next;
				continue;		/* prevblk stays */
			}
		}
		prevblk = lblk;
		lblk = next;

		if (info->report_progress)
			pgstat_progress_update_param(PROGRESS_SCAN_BLOCKS_DONE,
										 ++(*pagesdone));
	}
}

/*
 * The next filter after (segno, serial): its head and serial, 0 at the end.
 */
static BlockNumber
ScbfNextFilter(Relation index, uint32 segno, BlockNumber headblk,
			   uint32 serial, uint32 *next_serial)
{
	Buffer		buf = ScbfLockHead(index, headblk, segno, serial,
								   BUFFER_LOCK_SHARE);
	ScbfFilterPageData *filter = ScbfPageGetFilter(BufferGetPage(buf));
	BlockNumber next = filter->next;

	*next_serial = filter->next_serial;
	UnlockReleaseBuffer(buf);
	return next;
}

/*
 * Call fn for every segment that has a directory entry, in segment order.
 * The entry passed is a copy taken under a share lock of its page.
 */
void
ScbfForEachSegment(Relation index, ScbfState *state, ScbfSegmentFn fn,
				   void *arg)
{
	ScbfSegEntry *copy = palloc(sizeof(ScbfSegEntry) * SCBF_DIR_ENTRIES_PER_PAGE);
	uint32		dirno;
	BlockNumber nindex;

	ScbfRefreshDirMap(index, state);
	nindex = RelationGetNumberOfBlocks(index);
	for (dirno = 0; dirno < state->ndirpages; dirno++)
	{
		Buffer		buf;
		uint32		slot;

		CHECK_FOR_INTERRUPTS();
		/* directory pages are added before the map names them */
		if (state->dirpages[dirno] == SCBF_METAPAGE_BLKNO ||
			state->dirpages[dirno] >= nindex)
			ScbfReportCorrupt(index, SCBF_METAPAGE_BLKNO,
							  psprintf("The metapage maps directory page %u to block %u, which is not a page it can hold.",
									   dirno, state->dirpages[dirno]));
		buf = ScbfReadDirPage(index, state, dirno * SCBF_DIR_ENTRIES_PER_PAGE,
							  BUFFER_LOCK_SHARE, false);
		if (!BufferIsValid(buf))
			break;
		memcpy(copy, ScbfPageGetDir(BufferGetPage(buf)),
			   sizeof(ScbfSegEntry) * SCBF_DIR_ENTRIES_PER_PAGE);
		UnlockReleaseBuffer(buf);

		for (slot = 0; slot < SCBF_DIR_ENTRIES_PER_PAGE; slot++)
		{
			if (ScbfSegEntryIsEmpty(&copy[slot]))
				continue;
			fn(index, state, dirno * SCBF_DIR_ENTRIES_PER_PAGE + slot,
			   &copy[slot], arg);
		}
	}
	pfree(copy);
}

typedef struct ScbfBulkDeleteArgs
{
	IndexVacuumInfo *info;
	IndexBulkDeleteResult *stats;
	IndexBulkDeleteCallback callback;
	void	   *callback_state;
	char	   *copy;
	uint16	   *deadidx;
	int64		pagesdone;
} ScbfBulkDeleteArgs;

/*
 * ScbfForEachSegment callback of ambulkdelete: every filter of the chain.
 */
static void
ScbfBulkDeleteSegment(Relation index, ScbfState *state, uint32 segno,
					  ScbfSegEntry *entry, void *arg)
{
	ScbfBulkDeleteArgs *a = (ScbfBulkDeleteArgs *) arg;
	BlockNumber blk = entry->head;
	uint32		serial = entry->head_serial;
	ScbfWalk	walk;

	ScbfWalkStart(&walk, index, SCBF_WALK_CHAIN, segno, 0);
	while (blk != 0)
	{
		ScbfWalkFilter(&walk, blk, serial);
		ScbfBulkDeleteFilter(a->info, state, segno, blk, serial, a->stats,
							 a->callback, a->callback_state, a->copy,
							 a->deadidx, &a->pagesdone);
		blk = ScbfNextFilter(index, segno, blk, serial, &serial);
	}
}

/*
 * ambulkdelete: remove the entries of dead heap tuples and decrement their
 * counters.
 */
IndexBulkDeleteResult *
scbfbulkdelete(IndexVacuumInfo *info, IndexBulkDeleteResult *stats,
			   IndexBulkDeleteCallback callback, void *callback_state)
{
	Relation	index = info->index;
	ScbfState  *state;
	ScbfBulkDeleteArgs args;

	if (ScbfIndexFormat(index) != SCBF_FORMAT_VERSION)
		return scbf2bulkdelete(info, stats, callback, callback_state);
	state = ScbfGetState(index);
	if (stats == NULL)
		stats = (IndexBulkDeleteResult *) palloc0(sizeof(IndexBulkDeleteResult));

	memset(&args, 0, sizeof(args));
	args.info = info;
	args.stats = stats;
	args.callback = callback;
	args.callback_state = callback_state;
	args.copy = palloc(SCBF_LEDGER_BYTES);
	args.deadidx = palloc(sizeof(uint16) * state->ledger_capacity);

	/* every entry is counted again below */
	stats->num_index_tuples = 0;
	if (info->report_progress)
		pgstat_progress_update_param(PROGRESS_SCAN_BLOCKS_TOTAL,
									 RelationGetNumberOfBlocks(index));

	ScbfForEachSegment(index, state, ScbfBulkDeleteSegment, &args);

	stats->num_pages = RelationGetNumberOfBlocks(index);
	stats->estimated_count = false;
	pfree(args.copy);
	pfree(args.deadidx);
	return stats;
}

/*
 * Read every live entry of filter (segno, serial) into a palloc'd array
 * (state->entry_size bytes each); *n gets their number and *nsealed (if not
 * NULL) the number on sealed pages (neither the tail nor on the room list),
 * which the head counts.  The caller holds the head, or otherwise keeps the
 * ledger from changing.
 */
static char *
ScbfReadFilterEntries(Relation index, ScbfState *state, uint32 segno,
					  uint32 serial, BlockNumber ledger_head, int *n,
					  int *nsealed)
{
	int			max = 1024;
	char	   *entries = palloc(state->entry_size * max);
	BlockNumber lblk = ledger_head;
	ScbfWalk	walk;

	*n = 0;
	if (nsealed)
		*nsealed = 0;
	ScbfWalkStart(&walk, index, SCBF_WALK_LEDGER, segno, serial);
	while (lblk != 0)
	{
		Buffer		buf;
		Page		page;
		ScbfLedgerPageData *ledger;
		bool		sealed;
		int			i;

		ScbfWalkStep(&walk, lblk);
		buf = ScbfLockLedger(index, state, lblk, segno, serial,
							 BUFFER_LOCK_SHARE, NULL);
		page = BufferGetPage(buf);
		ledger = ScbfPageGetLedger(page);
		sealed = (ledger->next != 0 && !(ledger->flags & SCBF_LEDGER_ROOM));

		for (i = 0; i < ledger->nentries; i++)
		{
			const char *e = ScbfPageGetEntries(page) + state->entry_size * i;

			if (ScbfEntryGetTid(e) == SCBF_TID_TOMBSTONE)
				continue;
			if (nsealed && sealed)
				(*nsealed)++;
			if (*n >= max)
			{
				max *= 2;
				entries = repalloc_huge(entries, state->entry_size * max);
			}
			memcpy(entries + state->entry_size * (*n), e, state->entry_size);
			(*n)++;
		}
		lblk = ledger->next;
		UnlockReleaseBuffer(buf);
	}
	return entries;
}

/*
 * Recount filter (segno, serial)'s counters from its ledger: every counter
 * becomes exactly min(15, number of keys on it), saturated counters left
 * stale by deletes included, and the STALE and RECOUNT flags are cleared.
 * The head is held exclusively throughout, which freezes the ledger; the
 * other blocks are written first, one record each, and the head last, so a
 * crash part-way leaves the flags set and the recount is simply redone.
 */
void
ScbfRecountFilter(Relation index, ScbfState *state, uint32 segno,
				  BlockNumber headblk, uint32 serial)
{
	Buffer		headbuf;
	Page		headpage;
	ScbfFilterPageData *head;
	int			nblocks;
	Size		nbytes = scbf_filter_bytes(&state->geom);
	uint8	   *counters;
	uint16	   *nonzero;
	uint32	   *nsaturated;
	char	   *entries;
	int			n;
	int			nsealed;
	ScbfKeyPos *kp;
	uint16	   *kblk;
	int		   *order;
	int			b;
	int			i;

	headbuf = ScbfLockHead(index, headblk, segno, serial,
						   BUFFER_LOCK_EXCLUSIVE);
	headpage = BufferGetPage(headbuf);
	head = ScbfPageGetFilter(headpage);
	if (head->state == SCBF_FILTER_GROWING ||
		head->state == SCBF_FILTER_DROPPING)
	{
		UnlockReleaseBuffer(headbuf);
		return;
	}
	nblocks = head->nblocks;

	counters = palloc0(nbytes * nblocks);
	nonzero = palloc0(sizeof(uint16) * SCBF_FILTER_MAX_K * nblocks);
	nsaturated = palloc0(sizeof(uint32) * nblocks);

	entries = ScbfReadFilterEntries(index, state, segno, serial,
									head->ledger_head, &n, &nsealed);
	ScbfPlaceEntries(state, entries, n, nblocks, &kp, &kblk, &order);
	for (i = 0; i < n * state->ncols; i++)
		(void) scbf_filter_add(counters + nbytes * kblk[i],
							   nonzero + SCBF_FILTER_MAX_K * kblk[i],
							   &nsaturated[kblk[i]], &state->geom,
							   kp[i].pos);

	for (b = nblocks - 1; b >= 0; b--)
	{
		Buffer		buf = (b == 0) ? headbuf :
			ScbfLockFilterBlock(index, headpage, b, BUFFER_LOCK_EXCLUSIVE);
		GenericXLogState *xlog = GenericXLogStart(index);
		Page		page = GenericXLogRegisterBuffer(xlog, buf, 0);
		ScbfFilterPageData *filter = ScbfPageGetFilter(page);

		memcpy(ScbfPageGetCounters(page), counters + nbytes * b, nbytes);
		memcpy(filter->nonzero, nonzero + SCBF_FILTER_MAX_K * b,
			   sizeof(filter->nonzero));
		filter->nsaturated = nsaturated[b];
		if (b == 0)
		{
			filter->nsealed = nsealed;
			filter->flags &= ~(SCBF_FILTER_STALE | SCBF_FILTER_RECOUNT);
		}
		GenericXLogFinish(xlog);
		if (b != 0)
			UnlockReleaseBuffer(buf);
	}

	UnlockReleaseBuffer(headbuf);
	pfree(counters);
	pfree(nonzero);
	pfree(nsaturated);
	pfree(entries);
	pfree(kp);
	pfree(kblk);
	pfree(order);
}

/*
 * Move every entry of filter (segno, serial) into the filter whose head is
 * dsthead with serial dstserial, ledger page by ledger page (see
 * ScbfAddEntries), unlinking the emptied pages.  The source filter is
 * CLOSED, so nothing but this function changes its ledger.
 */
static void
ScbfMoveFilter(Relation index, ScbfState *state, uint32 segno,
			   BlockNumber srchead, uint32 serial, BlockNumber dsthead,
			   uint32 dstserial)
{
	char	   *copy = palloc(SCBF_LEDGER_BYTES);
	uint16	   *idx = palloc(sizeof(uint16) * state->ledger_capacity);
	BlockNumber lblk;
	BlockNumber prevblk = InvalidBlockNumber;
	Buffer		buf;
	ScbfWalk	walk;

	buf = ScbfLockHead(index, srchead, segno, serial, BUFFER_LOCK_SHARE);
	lblk = ScbfPageGetFilter(BufferGetPage(buf))->ledger_head;
	UnlockReleaseBuffer(buf);

	ScbfWalkStart(&walk, index, SCBF_WALK_LEDGER, segno, serial);
	while (lblk != 0)
	{
		Page		page;
		ScbfLedgerPageData *ledger;
		BlockNumber next;
		int			n = 0;
		int			i;

		ScbfWalkStep(&walk, lblk);

		buf = ScbfLockLedger(index, state, lblk, segno, serial,
							 BUFFER_LOCK_SHARE, NULL);
		page = BufferGetPage(buf);
		ledger = ScbfPageGetLedger(page);
		next = ledger->next;
		for (i = 0; i < ledger->nentries; i++)
		{
			const char *e = ScbfPageGetEntries(page) + state->entry_size * i;

			if (ScbfEntryGetTid(e) == SCBF_TID_TOMBSTONE)
				continue;
			memcpy(copy + state->entry_size * n, e, state->entry_size);
			idx[n++] = (uint16) i;
		}
		UnlockReleaseBuffer(buf);

		if (n > 0)
		{
			Buffer		dstbuf = ScbfLockHead(index, dsthead, segno, dstserial,
											  BUFFER_LOCK_EXCLUSIVE);

			ScbfAddEntries(index, state, dstbuf, copy, n, lblk, segno, serial,
						   idx, state->target_fpr);
			UnlockReleaseBuffer(dstbuf);
		}

		buf = ScbfLockHead(index, srchead, segno, serial,
						   BUFFER_LOCK_EXCLUSIVE);
		if (ScbfUnlinkLedgerPage(index, state, buf, prevblk, lblk))
			lblk = next;
		else
		{
			prevblk = lblk;
			lblk = next;
		}
		UnlockReleaseBuffer(buf);
	}
	pfree(copy);
	pfree(idx);
}

/*
 * Drop the first filter of segment segno's chain, which must not be the
 * tail: mark it DROPPING, free its other blocks and (when discarding) its
 * ledger pages but the last, then unlink it from the directory and free its
 * head and last ledger page in one record.  Scans skip a DROPPING filter; a
 * crash part-way leaves it DROPPING and the next VACUUM finishes the job.
 *
 * Without discard the filter must hold no entries (they were moved), though
 * empty pages on its room list may remain in its ledger.  With discard its
 * entries are thrown away: only scbf_rebuild(source => 'heap')
 * does that, holding ShareLock on the table, after the segment's entries
 * were re-created from the heap in a newer filter.  Returns false if the
 * filter is not in a state to be dropped.
 */
static bool
ScbfDropHeadFilter(Relation index, ScbfState *state, uint32 segno,
				   bool discard)
{
	ScbfSegEntry seg;
	Buffer		dirbuf;
	Buffer		headbuf;
	Buffer		lbuf;
	Page		headpage;
	ScbfFilterPageData *head;
	BlockNumber *freed;
	int			nfreed = 0;
	GenericXLogState *xlog;
	ScbfSegEntry *entry;
	BlockNumber ledgerblk;
	ScbfWalk	walk;
	int			b;

	if (!ScbfGetSegEntry(index, state, segno, &seg) || seg.nfilters < 2)
		return false;

	/* 1. check it may go, and mark it DROPPING */
	headbuf = ScbfLockHead(index, seg.head, segno, seg.head_serial,
						   BUFFER_LOCK_EXCLUSIVE);
	headpage = BufferGetPage(headbuf);
	head = ScbfPageGetFilter(headpage);
	if (head->state != SCBF_FILTER_DROPPING)
	{
		/* a GROWING filter that is not the tail was left by a crash */
		if (head->state != SCBF_FILTER_CLOSED &&
			head->state != SCBF_FILTER_GROWING)
		{
			UnlockReleaseBuffer(headbuf);
			return false;
		}
		if (!discard)
		{
			/* every ledger page must be empty (pages on the room list stay) */
			BlockNumber lblk = head->ledger_head;

			ScbfWalkStart(&walk, index, SCBF_WALK_LEDGER, segno,
						  seg.head_serial);
			while (lblk != 0)
			{
				Buffer		tbuf;
				ScbfLedgerPageData *ledger;
				bool		empty;

				ScbfWalkStep(&walk, lblk);
				tbuf = ScbfLockLedger(index, state, lblk, segno,
									  seg.head_serial, BUFFER_LOCK_SHARE,
									  NULL);
				ledger = ScbfPageGetLedger(BufferGetPage(tbuf));
				empty = (ledger->nentries == 0);
				lblk = ledger->next;
				UnlockReleaseBuffer(tbuf);
				if (!empty)
				{
					UnlockReleaseBuffer(headbuf);
					return false;
				}
			}
		}
		xlog = GenericXLogStart(index);
		ScbfPageGetFilter(GenericXLogRegisterBuffer(xlog, headbuf, 0))->state =
			SCBF_FILTER_DROPPING;
		GenericXLogFinish(xlog);
	}
	freed = palloc(sizeof(BlockNumber) * (head->nlinked + head->nledger_pages + 2));

	/* 2. free the other blocks (some may be free already after a crash) */
	for (b = 1; b < head->nlinked; b++)
	{
		Buffer		buf = ReadBuffer(index, head->blocks[b]);

		LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
		if (ScbfPageIsFilter(BufferGetPage(buf), segno, seg.head_serial,
							 (uint16) b))
		{
			xlog = GenericXLogStart(index);
			ScbfMarkPageFree(GenericXLogRegisterBuffer(xlog, buf, 0));
			GenericXLogFinish(xlog);
			freed[nfreed++] = head->blocks[b];
		}
		UnlockReleaseBuffer(buf);
	}

	/*
	 * 3. free the ledger pages but the last, front to back (when discarding,
	 * with their entries; else they are empty).  No scan enters the ledger of
	 * a DROPPING filter, and one that entered before is ahead of us (it holds
	 * the page we would need next).
	 */
	ScbfWalkStart(&walk, index, SCBF_WALK_LEDGER, segno, seg.head_serial);
	while (head->ledger_head != head->ledger_tail)
	{
		BlockNumber lblk = head->ledger_head;
		Page		lpage;

		ScbfWalkStep(&walk, lblk);
		lbuf = ScbfLockLedger(index, state, lblk, segno, seg.head_serial,
							  BUFFER_LOCK_EXCLUSIVE, NULL);
		xlog = GenericXLogStart(index);
		head = ScbfPageGetFilter(GenericXLogRegisterBuffer(xlog, headbuf, 0));
		lpage = GenericXLogRegisterBuffer(xlog, lbuf, 0);
		head->ledger_head = ScbfPageGetLedger(lpage)->next;
		head->nledger_pages--;
		ScbfMarkPageFree(lpage);
		GenericXLogFinish(xlog);
		head = ScbfPageGetFilter(headpage);
		UnlockReleaseBuffer(lbuf);
		freed[nfreed++] = lblk;
	}
	ledgerblk = head->ledger_tail;
	UnlockReleaseBuffer(headbuf);

	/* 4. unlink: directory, head, last ledger page (lock order) */
	dirbuf = ScbfReadDirPage(index, state, segno, BUFFER_LOCK_EXCLUSIVE, false);
	entry = ScbfDirEntry(BufferGetPage(dirbuf), segno);
	if (entry->head != seg.head || entry->head_serial != seg.head_serial ||
		entry->tail == seg.head)
		ScbfReportCorrupt(index, BufferGetBlockNumber(dirbuf),
						  psprintf("Segment %u's chain changed while its first filter was being dropped.",
								   segno));
	headbuf = ScbfLockHead(index, seg.head, segno, seg.head_serial,
						   BUFFER_LOCK_EXCLUSIVE);
	head = ScbfPageGetFilter(BufferGetPage(headbuf));
	lbuf = ScbfLockLedger(index, state, ledgerblk, segno, seg.head_serial,
						  BUFFER_LOCK_EXCLUSIVE, NULL);

	xlog = GenericXLogStart(index);
	entry = ScbfDirEntry(GenericXLogRegisterBuffer(xlog, dirbuf, 0), segno);
	entry->head = head->next;
	entry->head_serial = head->next_serial;
	entry->nfilters--;
	entry->next_serial++;		/* tells scans the chain changed */
	ScbfMarkPageFree(GenericXLogRegisterBuffer(xlog, headbuf, 0));
	ScbfMarkPageFree(GenericXLogRegisterBuffer(xlog, lbuf, 0));
	GenericXLogFinish(xlog);
	freed[nfreed++] = seg.head;
	freed[nfreed++] = ledgerblk;

	UnlockReleaseBuffer(lbuf);
	UnlockReleaseBuffer(headbuf);
	UnlockReleaseBuffer(dirbuf);
	ScbfRecordFreePages(index, freed, nfreed);
	pfree(freed);
	return true;
}

/*
 * Consolidate segment segno's chain into one filter sized for its live
 * keys (see the file header); with force, even a chain of one filter is
 * rewritten (scbf_rebuild).  Returns true if the segment now has one
 * filter.  Caller holds ShareUpdateExclusiveLock on the table.
 */
bool
ScbfConsolidateSegment(Relation index, ScbfState *state, uint32 segno,
					   bool force)
{
	ScbfSegEntry seg;
	BlockNumber blk;
	uint32		serial;
	char	   *all;
	int			nall = 0;
	int			maxall = 1024;
	BlockNumber dsthead;
	uint32		dstserial;
	ScbfWalk	walk;

	if (!ScbfGetSegEntry(index, state, segno, &seg) ||
		(seg.nfilters < 2 && !force))
		return false;

	/* size the new filter from the live keys of the whole chain */
	all = palloc(state->entry_size * maxall);
	blk = seg.head;
	serial = seg.head_serial;
	ScbfWalkStart(&walk, index, SCBF_WALK_CHAIN, segno, 0);
	while (blk != 0)
	{
		Buffer		buf;
		ScbfFilterPageData *filter;
		BlockNumber ledger_head;
		bool		skip;
		char	   *entries;
		int			n = 0;

		ScbfWalkFilter(&walk, blk, serial);
		buf = ScbfLockHead(index, blk, segno, serial, BUFFER_LOCK_SHARE);
		filter = ScbfPageGetFilter(BufferGetPage(buf));
		ledger_head = filter->ledger_head;
		skip = (filter->state == SCBF_FILTER_GROWING ||
				filter->state == SCBF_FILTER_DROPPING);
		UnlockReleaseBuffer(buf);
		if (!skip)
		{
			entries = ScbfReadFilterEntries(index, state, segno, serial,
											ledger_head, &n, NULL);
			if (nall + n > maxall)
			{
				maxall = Max(maxall * 2, nall + n);
				all = repalloc_huge(all, state->entry_size * maxall);
			}
			memcpy(all + state->entry_size * nall, entries,
				   state->entry_size * n);
			nall += n;
			pfree(entries);
		}
		blk = ScbfNextFilter(index, segno, blk, serial, &serial);
	}

	if (!ScbfAppendFilter(index, state, segno,
						  ScbfFilterBlocksFor(state,
											  ScbfCountDistinctKeys(state, all, nall)),
						  seg.tail_serial, &dsthead, &dstserial))
	{
		pfree(all);
		return false;
	}
	pfree(all);

	/* move and drop the older filters, always the first of the chain */
	for (;;)
	{
		if (!ScbfGetSegEntry(index, state, segno, &seg) ||
			seg.head_serial == dstserial)
			break;
		ScbfMoveFilter(index, state, segno, seg.head, seg.head_serial,
					   dsthead, dstserial);
		if (!ScbfDropHeadFilter(index, state, segno, false))
			break;
	}
	return seg.nfilters == 1;
}

/*
 * Statistics of one filter, from its head and the non-zero counts of its
 * blocks: the state FPR (mean over blocks of the product over slices of the
 * non-zero fraction) and an estimate of its distinct keys (linear counting
 * per slice: n = -m ln(1 - nonzero/m), averaged over slices).
 */
void
ScbfFilterSummary(Relation index, ScbfState *state, uint32 segno,
				  BlockNumber headblk, uint32 serial, ScbfFilterSummaryData *fs)
{
	Buffer		headbuf;
	Page		headpage;
	ScbfFilterPageData *head;
	int			b;

	memset(fs, 0, sizeof(ScbfFilterSummaryData));
	headbuf = ScbfLockHead(index, headblk, segno, serial, BUFFER_LOCK_SHARE);
	headpage = BufferGetPage(headbuf);
	head = ScbfPageGetFilter(headpage);
	fs->state = head->state;
	fs->flags = head->flags;
	fs->nblocks = head->nlinked;
	fs->nledger_pages = head->nledger_pages;
	fs->nentries = head->nsealed;
	if (head->state != SCBF_FILTER_DROPPING)
	{
		/* the tail and the pages on the room list count their own entries */
		BlockNumber lblk = head->ledger_room;
		Buffer		tbuf;
		ScbfLedgerPageData *ledger;
		ScbfWalk	walk;

		ScbfWalkStart(&walk, index, SCBF_WALK_LEDGER, segno, serial);
		ScbfWalkStep(&walk, head->ledger_tail);
		tbuf = ScbfLockLedger(index, state, head->ledger_tail, segno, serial,
							  BUFFER_LOCK_SHARE, NULL);
		ledger = ScbfPageGetLedger(BufferGetPage(tbuf));
		fs->nentries += ledger->nentries - ledger->ntombstones;
		UnlockReleaseBuffer(tbuf);
		ScbfWalkStart(&walk, index, SCBF_WALK_ROOM, segno, serial);
		while (lblk != 0)
		{
			ScbfWalkStep(&walk, lblk);
			tbuf = ScbfLockLedger(index, state, lblk, segno, serial,
								  BUFFER_LOCK_SHARE, NULL);
			ledger = ScbfPageGetLedger(BufferGetPage(tbuf));
			fs->nentries += ledger->nentries - ledger->ntombstones;
			lblk = ledger->next_room;
			UnlockReleaseBuffer(tbuf);
		}
	}
	fs->next = head->next;
	fs->next_serial = head->next_serial;

	/* a dropping filter's other blocks may be gone already */
	for (b = 0; b < (head->state == SCBF_FILTER_DROPPING ? 0 : head->nlinked); b++)
	{
		Buffer		buf = (b == 0) ? headbuf :
			ScbfLockFilterBlock(index, headpage, b, BUFFER_LOCK_SHARE);
		ScbfFilterPageData *filter = ScbfPageGetFilter(BufferGetPage(buf));

		fs->fpr += scbf_filter_state_fpr(filter->nonzero, &state->geom) /
			head->nlinked;
		fs->fill += scbf_filter_fill(filter->nonzero, &state->geom) /
			head->nlinked;
		fs->nsaturated += filter->nsaturated;
		fs->keys += scbf_filter_estimate_keys(filter->nonzero, &state->geom);
		if (b != 0)
			UnlockReleaseBuffer(buf);
	}
	UnlockReleaseBuffer(headbuf);
}

typedef struct ScbfCleanupArgs
{
	IndexVacuumInfo *info;
	bool		changed;		/* pages were freed or rewritten */

	/* statistics for the metapage */
	uint32		nsegments;
	uint32		nfilters;
	uint32		nfilter_pages;
	uint32		nledger_pages;
	uint64		nentries;
	double		sum_fpr;
	double		sum_keys;		/* keys of all segments but the last */
	double		last_keys;
} ScbfCleanupArgs;

/*
 * ScbfForEachSegment callback of amvacuumcleanup: finish filters left
 * GROWING by a crash, recount STALE or RECOUNT filters, consolidate chains,
 * and gather statistics.
 */
static void
ScbfCleanupSegment(Relation index, ScbfState *state, uint32 segno,
				   ScbfSegEntry *entry, void *arg)
{
	ScbfCleanupArgs *a = (ScbfCleanupArgs *) arg;
	BlockNumber blk;
	uint32		serial;
	double		keys = 0;
	double		passfpr = 1;
	uint64		nkeys_live = 0;
	ScbfWalk	walk;

	/* 1. repairs */
	blk = entry->head;
	serial = entry->head_serial;
	ScbfWalkStart(&walk, index, SCBF_WALK_CHAIN, segno, 0);
	while (blk != 0)
	{
		ScbfFilterSummaryData fs;

		ScbfVacuumDelayPoint();
		ScbfWalkFilter(&walk, blk, serial);
		ScbfFilterSummary(index, state, segno, blk, serial, &fs);
		if (fs.state == SCBF_FILTER_GROWING)
		{
			/* its creator holds the head while it is alive */
			Buffer		buf = ReadBuffer(index, blk);

			if (ConditionalLockBuffer(buf))
			{
				if (ScbfPageIsFilter(BufferGetPage(buf), segno, serial, 0) &&
					ScbfPageGetFilter(BufferGetPage(buf))->state ==
					SCBF_FILTER_GROWING)
				{
					ScbfGrowFilter(index, state, buf);
					a->changed = true;
				}
				LockBuffer(buf, BUFFER_LOCK_UNLOCK);
			}
			ReleaseBuffer(buf);
		}
		else if (fs.state != SCBF_FILTER_DROPPING &&
				 (fs.flags & (SCBF_FILTER_STALE | SCBF_FILTER_RECOUNT)))
		{
			ScbfRecountFilter(index, state, segno, blk, serial);
			a->changed = true;
		}
		nkeys_live += fs.nentries;
		blk = fs.next;
		serial = fs.next_serial;
	}

	/*
	 * 2. consolidation, unless the live keys would overflow even the largest
	 * filter (it would only chain again at once)
	 */
	if (entry->nfilters >= 2 &&
		nkeys_live * state->ncols <= (uint64) SCBF_MAX_BLOCKS *
		state->block_capacity / SCBF_SIZING_HEADROOM)
	{
		(void) ScbfConsolidateSegment(index, state, segno, false);
		a->changed = true;
		(void) ScbfGetSegEntry(index, state, segno, entry);

		/*
		 * Make the pages just freed findable by the next segment's
		 * consolidation: the FSM's upper levels learn of them only here.
		 */
		IndexFreeSpaceMapVacuum(index);
	}

	/* 3. statistics */
	blk = entry->head;
	serial = entry->head_serial;
	ScbfWalkStart(&walk, index, SCBF_WALK_CHAIN, segno, 0);
	while (blk != 0)
	{
		ScbfFilterSummaryData fs;

		ScbfWalkFilter(&walk, blk, serial);
		ScbfFilterSummary(index, state, segno, blk, serial, &fs);
		a->nfilters++;
		a->nfilter_pages += fs.nblocks;
		a->nledger_pages += fs.nledger_pages;
		a->nentries += fs.nentries;
		if (fs.state != SCBF_FILTER_GROWING && fs.state != SCBF_FILTER_DROPPING)
			passfpr *= 1.0 - fs.fpr;
		keys += fs.keys;
		blk = fs.next;
		serial = fs.next_serial;
	}
	a->nsegments++;
	a->sum_fpr += 1.0 - passfpr;
	if (a->nsegments > 1)
		a->sum_keys += a->last_keys;
	a->last_keys = keys;
}

/*
 * Write the statistics gathered by a cleanup pass into the metapage.
 */
static void
ScbfWriteMetaStats(Relation index, ScbfCleanupArgs *a)
{
	Buffer		metabuf = ReadBuffer(index, SCBF_METAPAGE_BLKNO);
	GenericXLogState *xlog;
	ScbfMetaPageData *meta;

	LockBuffer(metabuf, BUFFER_LOCK_EXCLUSIVE);
	ScbfCheckMetaPage(index, BufferGetPage(metabuf));
	xlog = GenericXLogStart(index);
	meta = ScbfPageGetMeta(GenericXLogRegisterBuffer(xlog, metabuf, 0));
	meta->nsegments = a->nsegments;
	meta->nfilters = a->nfilters;
	meta->nfilter_pages = a->nfilter_pages;
	meta->nledger_pages = a->nledger_pages;
	meta->nentries = a->nentries;
	meta->mean_fpr = a->nsegments > 0 ? a->sum_fpr / a->nsegments : 0;
	if (a->nsegments > 1)
		meta->keys_hint = (uint32) (a->sum_keys / (a->nsegments - 1));
	else if (a->nsegments == 1)
		meta->keys_hint = (uint32) a->last_keys;
	GenericXLogFinish(xlog);
	UnlockReleaseBuffer(metabuf);
}

/*
 * Record every free page in the FSM: pages freed earlier (the FSM is not
 * crash-safe) and pages a crash left new.  The relation size is read under
 * the extension lock, so every page below it was already locked by its
 * creator (ScbfNewBuffer locks before it releases the extension lock) and
 * a page that still looks new is really abandoned.  Returns the count.
 */
static BlockNumber
ScbfSweepFreePages(Relation index, BufferAccessStrategy strategy)
{
	BlockNumber nblocks;
	BlockNumber blkno;
	BlockNumber nfree = 0;
	bool		needLock = !RELATION_IS_LOCAL(index);

	if (needLock)
		LockRelationForExtension(index, ExclusiveLock);
	nblocks = RelationGetNumberOfBlocks(index);
	if (needLock)
		UnlockRelationForExtension(index, ExclusiveLock);

	for (blkno = SCBF_METAPAGE_BLKNO + 1; blkno < nblocks; blkno++)
	{
		Buffer		buf;

		ScbfVacuumDelayPoint();
		buf = ReadBufferExtended(index, MAIN_FORKNUM, blkno, RBM_NORMAL,
								 strategy);
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		if (ScbfPageIsFree(BufferGetPage(buf)))
		{
			RecordFreeIndexPage(index, blkno);
			nfree++;
		}
		UnlockReleaseBuffer(buf);
	}
	return nfree;
}

/*
 * amvacuumcleanup: repairs, consolidation, statistics, free space.
 */
IndexBulkDeleteResult *
scbfvacuumcleanup(IndexVacuumInfo *info, IndexBulkDeleteResult *stats)
{
	Relation	index = info->index;
	ScbfState  *state;
	ScbfCleanupArgs args;
	bool		bulkdeleted = (stats != NULL);

	if (info->analyze_only)
		return stats;
	if (ScbfIndexFormat(index) != SCBF_FORMAT_VERSION)
		return scbf2vacuumcleanup(info, stats);
	if (stats == NULL)
		stats = (IndexBulkDeleteResult *) palloc0(sizeof(IndexBulkDeleteResult));

	state = ScbfGetState(index);
	memset(&args, 0, sizeof(args));
	args.info = info;
	ScbfForEachSegment(index, state, ScbfCleanupSegment, &args);
	ScbfWriteMetaStats(index, &args);

	if (bulkdeleted || args.changed)
		stats->pages_free = ScbfSweepFreePages(index, info->strategy);
	IndexFreeSpaceMapVacuum(index);

	stats->num_pages = RelationGetNumberOfBlocks(index);
	stats->num_index_tuples = args.nentries;
	stats->estimated_count = false;
	return stats;
}

typedef struct ScbfRebuildState
{
	ScbfState  *state;
	char	   *entries;
	int			n;
	int			max;
	MemoryContext tmpcxt;
} ScbfRebuildState;

/*
 * table_index_build_range_scan callback of ScbfRebuildSegmentFromHeap:
 * collect the tuple's ledger entry.
 */
static void
ScbfRebuildCallback(Relation index, ItemPointer tid, Datum *values,
					bool *isnull, bool tupleIsAlive, void *arg)
{
	ScbfRebuildState *rs = (ScbfRebuildState *) arg;
	ScbfState  *state = rs->state;
	BlockNumber blkno = ItemPointerGetBlockNumber(tid);
	MemoryContext oldcxt;
	char	   *entry;
	int			col;

	if (rs->n >= rs->max)
	{
		rs->max *= 2;
		rs->entries = repalloc_huge(rs->entries, state->entry_size * rs->max);
	}
	entry = rs->entries + state->entry_size * rs->n;

	oldcxt = MemoryContextSwitchTo(rs->tmpcxt);
	ScbfEntrySetTid(entry,
					ScbfTidMake(blkno % state->pages_per_segment,
								ItemPointerGetOffsetNumber(tid)));
	for (col = 0; col < state->ncols; col++)
		ScbfEntrySetHash(entry, col,
						 isnull[col] ? SCBF_NULL_HASH :
						 ScbfHashDatum(index, col, values[col]));
	MemoryContextSwitchTo(oldcxt);
	MemoryContextReset(rs->tmpcxt);
	rs->n++;
}

/*
 * Rebuild segment segno from the heap, ignoring its current filters and
 * ledgers (scbf_rebuild(source => 'heap'), the cure when a ledger itself is
 * in doubt).  The caller holds ShareLock on the table, so no insert, delete
 * or VACUUM runs meanwhile.  The entries are re-created exactly as CREATE
 * INDEX would, in a new filter appended to the chain; then the older
 * filters are dropped with their ledgers.  Returns false if the segment is
 * past the end of the heap.
 */
bool
ScbfRebuildSegmentFromHeap(Relation index, Relation heap, ScbfState *state,
						   uint32 segno)
{
	IndexInfo  *indexInfo = BuildIndexInfo(index);
	BlockNumber start = segno * state->pages_per_segment;
	BlockNumber nheap = RelationGetNumberOfBlocks(heap);
	ScbfRebuildState rs;
	ScbfSegEntry seg;
	BlockNumber head;
	uint32		serial;
	int			i;

	if (start >= nheap)
		return false;

	memset(&rs, 0, sizeof(rs));
	rs.state = state;
	rs.max = 1024;
	rs.entries = palloc(state->entry_size * rs.max);
	rs.tmpcxt = AllocSetContextCreate(CurrentMemoryContext,
									  "scbf rebuild temporary context",
									  ALLOCSET_DEFAULT_SIZES);
	(void) table_index_build_range_scan(heap, index, indexInfo, false, false,
										false, start,
										Min(state->pages_per_segment,
											nheap - start),
										ScbfRebuildCallback, &rs, NULL);
	MemoryContextDelete(rs.tmpcxt);

	if (!ScbfGetSegEntry(index, state, segno, &seg))
	{
		/* no filter yet: the ordinary insert path creates the segment */
		for (i = 0; i < rs.n; i++)
			ScbfInsertEntry(index, state, segno,
							rs.entries + state->entry_size * i);
		pfree(rs.entries);
		return true;
	}

	if (!ScbfAppendFilter(index, state, segno,
						  ScbfFilterBlocksFor(state,
											  ScbfCountDistinctKeys(state, rs.entries, rs.n)),
						  seg.tail_serial, &head, &serial))
		elog(ERROR, "segment %u of index \"%s\" changed during its rebuild",
			 segno, RelationGetRelationName(index));
	if (rs.n > 0)
	{
		Buffer		headbuf = ScbfLockHead(index, head, segno, serial,
										   BUFFER_LOCK_EXCLUSIVE);

		ScbfAddEntries(index, state, headbuf, rs.entries, rs.n,
					   InvalidBlockNumber, 0, 0, NULL, state->target_fpr);
		UnlockReleaseBuffer(headbuf);
	}

	for (;;)
	{
		CHECK_FOR_INTERRUPTS();
		if (!ScbfGetSegEntry(index, state, segno, &seg) ||
			seg.head_serial == serial)
			break;
		if (!ScbfDropHeadFilter(index, state, segno, true))
			elog(ERROR, "could not drop filter %u of segment %u of index \"%s\"",
				 seg.head_serial, segno, RelationGetRelationName(index));
	}
	pfree(rs.entries);
	return true;
}
