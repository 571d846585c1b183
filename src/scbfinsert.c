/*-------------------------------------------------------------------------
 *
 * scbfinsert.c
 *	  Insertion into scbf: new segments, new filters in a chain, and the
 *	  routine that adds ledger entries to a filter.
 *
 * NOTES
 *	  aminsert only hashes the row and appends its entry to the backend's
 *	  batch (scbfbatch.c); the batch comes back here, sorted by heap TID, to
 *	  be written segment by segment, many entries per WAL record.
 *
 *	  An entry goes to the newest ("tail") filter of its segment.  Its k
 *	  counter increments per column and its ledger append are made in ONE
 *	  generic WAL record (invariant I2 of src/README), with the filter head
 *	  locked exclusively throughout: every change to a filter's ledger and
 *	  counters happens under its head lock, which is what lets VACUUM
 *	  recount a filter from its ledger.
 *
 *	  Only multi-column entries can need more blocks than fit in one record
 *	  (at most four buffers): the keys of columns that fall in a third block
 *	  are incremented first, in records of their own.  A crash in between
 *	  leaves counters higher than the ledger implies, which is harmless (a
 *	  false positive, never a false negative).
 *
 *	  New filters are linked in one record while still empty and marked
 *	  GROWING; their other blocks are then added one record each, and the
 *	  last makes the filter ACTIVE.  Nothing is ever allocated without being
 *	  linked in the same record, so a crash never leaks pages; a filter left
 *	  GROWING by a crash is finished by the next backend that needs it.
 *
 * Portions Copyright (c) 2026, scbf developers
 *
 * IDENTIFICATION
 *	  src/scbfinsert.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "miscadmin.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "scbf2.h"

/*
 * Initialize the head page of a new filter that will have nblocks blocks
 * and whose first ledger page is ledgerblk.  A one-block filter is ACTIVE at
 * once; a larger one is GROWING until ScbfGrowFilter has added the rest.
 */
static void
ScbfInitHead(Page page, ScbfState *state, uint32 segno, uint32 serial,
			 int nblocks, BlockNumber headblk, BlockNumber ledgerblk)
{
	ScbfFilterPageData *filter;

	ScbfInitFilterPage(page, state, segno, serial, 0);
	filter = ScbfPageGetFilter(page);
	filter->nblocks = nblocks;
	filter->nlinked = 1;
	filter->state = (nblocks == 1) ? SCBF_FILTER_ACTIVE : SCBF_FILTER_GROWING;
	filter->blocks[0] = headblk;
	filter->ledger_head = ledgerblk;
	filter->ledger_tail = ledgerblk;
	filter->nledger_pages = 1;
}

/*
 * Add the missing blocks of a GROWING filter, one WAL record each, and make
 * it ACTIVE.  The caller holds the head exclusively locked; inserters wait
 * on that lock meanwhile, and scans skip a GROWING filter (it has no entries
 * yet).  Also finishes a filter whose creator crashed mid-way.
 */
void
ScbfGrowFilter(Relation index, ScbfState *state, Buffer headbuf)
{
	Page		headpage = BufferGetPage(headbuf);
	ScbfPageOpaque opaque = ScbfPageGetOpaque(headpage);
	ScbfFilterPageData *filter = ScbfPageGetFilter(headpage);

	while (filter->nlinked < filter->nblocks)
	{
		GenericXLogState *xlog;
		Buffer		newbuf = ScbfNewBuffer(index);
		Page		hpage;
		Page		npage;
		ScbfFilterPageData *hfilter;

		xlog = GenericXLogStart(index);
		hpage = GenericXLogRegisterBuffer(xlog, headbuf, 0);
		npage = GenericXLogRegisterBuffer(xlog, newbuf,
										  GENERIC_XLOG_FULL_IMAGE);
		hfilter = ScbfPageGetFilter(hpage);
		ScbfInitFilterPage(npage, state, opaque->segno, opaque->serial,
						   hfilter->nlinked);
		hfilter->blocks[hfilter->nlinked] = BufferGetBlockNumber(newbuf);
		hfilter->nlinked++;
		if (hfilter->nlinked == hfilter->nblocks)
			hfilter->state = SCBF_FILTER_ACTIVE;
		GenericXLogFinish(xlog);
		UnlockReleaseBuffer(newbuf);
	}

	if (filter->state == SCBF_FILTER_GROWING)
	{
		GenericXLogState *xlog = GenericXLogStart(index);
		Page		hpage = GenericXLogRegisterBuffer(xlog, headbuf, 0);

		ScbfPageGetFilter(hpage)->state = SCBF_FILTER_ACTIVE;
		GenericXLogFinish(xlog);
	}
}

/*
 * Create segment segno's directory entry with a first, empty filter sized
 * from the metapage's hint.  Returns false if the segment is past the
 * directory's capacity (it then stays unindexed and scans return it whole).
 * Does nothing if a concurrent backend created the segment first.
 */
static bool
ScbfCreateSegment(Relation index, ScbfState *state, uint32 segno)
{
	Buffer		dirbuf;
	Buffer		headbuf;
	Buffer		ledgerbuf;
	GenericXLogState *xlog;
	Page		dpage;
	Page		hpage;
	Page		lpage;
	ScbfSegEntry *entry;
	const uint32 serial = 1;

	dirbuf = ScbfReadDirPage(index, state, segno, BUFFER_LOCK_EXCLUSIVE, true);
	if (!BufferIsValid(dirbuf))
		return false;
	if (!ScbfSegEntryIsEmpty(ScbfDirEntry(BufferGetPage(dirbuf), segno)))
	{
		UnlockReleaseBuffer(dirbuf);
		return true;
	}

	headbuf = ScbfNewBuffer(index);
	ledgerbuf = ScbfNewBuffer(index);

	xlog = GenericXLogStart(index);
	dpage = GenericXLogRegisterBuffer(xlog, dirbuf, 0);
	hpage = GenericXLogRegisterBuffer(xlog, headbuf, GENERIC_XLOG_FULL_IMAGE);
	lpage = GenericXLogRegisterBuffer(xlog, ledgerbuf, GENERIC_XLOG_FULL_IMAGE);
	ScbfInitHead(hpage, state, segno, serial,
				 ScbfFilterBlocksFor(state, state->keys_hint),
				 BufferGetBlockNumber(headbuf),
				 BufferGetBlockNumber(ledgerbuf));
	ScbfInitLedgerPage(lpage, segno, serial);
	entry = ScbfDirEntry(dpage, segno);
	entry->head = entry->tail = BufferGetBlockNumber(headbuf);
	entry->head_serial = entry->tail_serial = serial;
	entry->next_serial = serial + 1;
	entry->nfilters = 1;
	entry->flags = 0;
	GenericXLogFinish(xlog);

	UnlockReleaseBuffer(ledgerbuf);
	UnlockReleaseBuffer(dirbuf);
	ScbfGrowFilter(index, state, headbuf);
	UnlockReleaseBuffer(headbuf);
	return true;
}

/*
 * Append a new, empty filter of nblocks blocks to segment segno's chain,
 * provided the chain's tail still has serial expect_tail_serial (else a
 * concurrent backend already did it: return false).  The old tail is
 * CLOSED and the new one takes all further inserts.  On success, returns
 * the new filter's head block and serial through the out parameters (which
 * may be NULL).
 */
bool
ScbfAppendFilter(Relation index, ScbfState *state, uint32 segno, int nblocks,
				 uint32 expect_tail_serial, BlockNumber *head_out,
				 uint32 *serial_out)
{
	Buffer		dirbuf;
	Buffer		tailbuf;
	Buffer		headbuf;
	Buffer		ledgerbuf;
	GenericXLogState *xlog;
	Page		dpage;
	Page		tpage;
	Page		hpage;
	Page		lpage;
	ScbfSegEntry *entry;
	ScbfFilterPageData *tail;
	uint32		serial;

	dirbuf = ScbfReadDirPage(index, state, segno, BUFFER_LOCK_EXCLUSIVE, false);
	if (!BufferIsValid(dirbuf))
		return false;
	entry = ScbfDirEntry(BufferGetPage(dirbuf), segno);
	if (ScbfSegEntryIsEmpty(entry) || entry->tail_serial != expect_tail_serial)
	{
		UnlockReleaseBuffer(dirbuf);
		return false;
	}

	tailbuf = ReadBuffer(index, entry->tail);
	LockBuffer(tailbuf, BUFFER_LOCK_EXCLUSIVE);
	if (!ScbfPageIsFilter(BufferGetPage(tailbuf), segno, entry->tail_serial, 0))
		ScbfReportCorrupt(index, entry->tail,
						  psprintf("Expected the head of filter %u of segment %u.",
								   entry->tail_serial, segno));

	headbuf = ScbfNewBuffer(index);
	ledgerbuf = ScbfNewBuffer(index);

	xlog = GenericXLogStart(index);
	dpage = GenericXLogRegisterBuffer(xlog, dirbuf, 0);
	tpage = GenericXLogRegisterBuffer(xlog, tailbuf, 0);
	hpage = GenericXLogRegisterBuffer(xlog, headbuf, GENERIC_XLOG_FULL_IMAGE);
	lpage = GenericXLogRegisterBuffer(xlog, ledgerbuf, GENERIC_XLOG_FULL_IMAGE);

	entry = ScbfDirEntry(dpage, segno);
	serial = entry->next_serial;
	ScbfInitHead(hpage, state, segno, serial, nblocks,
				 BufferGetBlockNumber(headbuf),
				 BufferGetBlockNumber(ledgerbuf));
	ScbfInitLedgerPage(lpage, segno, serial);

	tail = ScbfPageGetFilter(tpage);
	tail->next = BufferGetBlockNumber(headbuf);
	tail->next_serial = serial;
	if (tail->state == SCBF_FILTER_ACTIVE)
		tail->state = SCBF_FILTER_CLOSED;

	entry->tail = BufferGetBlockNumber(headbuf);
	entry->tail_serial = serial;
	entry->next_serial = serial + 1;
	entry->nfilters++;
	GenericXLogFinish(xlog);

	UnlockReleaseBuffer(ledgerbuf);
	UnlockReleaseBuffer(tailbuf);
	UnlockReleaseBuffer(dirbuf);

	ScbfGrowFilter(index, state, headbuf);
	if (head_out)
		*head_out = BufferGetBlockNumber(headbuf);
	if (serial_out)
		*serial_out = serial;
	UnlockReleaseBuffer(headbuf);
	return true;
}

/*
 * Link a new empty ledger page after the filter's full tail page, in one
 * record with the head, which from now on counts the old tail's entries.  Caller holds the head exclusively; tailbuf is the
 * old tail, exclusively locked, and is released here.  Returns the new
 * tail, exclusively locked.
 */
static Buffer
ScbfExtendLedger(Relation index, Buffer headbuf, Buffer tailbuf)
{
	ScbfPageOpaque opaque = ScbfPageGetOpaque(BufferGetPage(headbuf));
	Buffer		newbuf = ScbfNewBuffer(index);
	GenericXLogState *xlog;
	Page		hpage;
	Page		tpage;
	Page		npage;
	ScbfFilterPageData *filter;

	xlog = GenericXLogStart(index);
	hpage = GenericXLogRegisterBuffer(xlog, headbuf, 0);
	tpage = GenericXLogRegisterBuffer(xlog, tailbuf, 0);
	npage = GenericXLogRegisterBuffer(xlog, newbuf, GENERIC_XLOG_FULL_IMAGE);
	ScbfInitLedgerPage(npage, opaque->segno, opaque->serial);
	ScbfPageGetLedger(tpage)->next = BufferGetBlockNumber(newbuf);
	filter = ScbfPageGetFilter(hpage);
	filter->ledger_tail = BufferGetBlockNumber(newbuf);
	filter->nledger_pages++;
	/* the old tail's entries are now counted by the head */
	filter->nsealed += ScbfPageGetLedger(tpage)->nentries -
		ScbfPageGetLedger(tpage)->ntombstones;
	GenericXLogFinish(xlog);

	UnlockReleaseBuffer(tailbuf);
	return newbuf;
}

/*
 * Lock block blkidx of the filter whose head page is headpage (locked by
 * the caller) exclusively, checking it really is that block.
 */
Buffer
ScbfLockFilterBlock(Relation index, Page headpage, int blkidx, int mode)
{
	ScbfPageOpaque opaque = ScbfPageGetOpaque(headpage);
	ScbfFilterPageData *filter = ScbfPageGetFilter(headpage);
	BlockNumber blkno = filter->blocks[blkidx];
	Buffer		buf;

	buf = ReadBuffer(index, blkno);
	LockBuffer(buf, mode);
	if (!ScbfPageIsFilter(BufferGetPage(buf), opaque->segno, opaque->serial,
						  (uint16) blkidx))
		ScbfReportCorrupt(index, blkno,
						  psprintf("Expected block %d of filter %u of segment %u.",
								   blkidx, opaque->serial, opaque->segno));
	return buf;
}

/*
 * Lock a filter's ledger page exclusively, checking its owner.
 */
static Buffer
ScbfLockLedgerPage(Relation index, ScbfState *state, BlockNumber blkno,
				   uint32 segno, uint32 serial)
{
	Buffer		buf = ReadBuffer(index, blkno);

	LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
	if (!ScbfPageIsLedger(BufferGetPage(buf), segno, serial,
						  state->ledger_capacity))
		ScbfReportCorrupt(index, blkno,
						  psprintf("Expected a ledger page of filter %u of segment %u.",
								   serial, segno));
	return buf;
}

/*
 * Apply +1 (add) or -1 (remove) for every key of the given entries that
 * falls in a block other than the primary block p (and other than block 0
 * when skip0), one WAL record per such block.  Used for multi-column
 * entries only: additions run before, removals after, the record that
 * changes the ledger, so a crash in between leaves counters too high, never
 * too low.  The caller holds the head (block 0) exclusively.  Returns the
 * OR of the scbf_filter_add/remove result bits, plus SCBF_FULL_SEEN when an
 * added-to block's state FPR reached budget.
 */
int
ScbfApplyExtraKeys(Relation index, ScbfState *state, Buffer headbuf,
				   const ScbfKeyPos *kp, const uint16 *kblk,
				   const int *order, int n, int p, bool skip0, bool add,
				   double budget)
{
	Page		headpage = BufferGetPage(headbuf);
	int			ncols = state->ncols;
	int			nblocks = ScbfPageGetFilter(headpage)->nblocks;
	int			result = 0;
	int			b;

	if (ncols == 1 || nblocks == 1)
		return 0;

	for (b = skip0 ? 1 : 0; b < nblocks; b++)
	{
		Buffer		buf = InvalidBuffer;
		GenericXLogState *xlog = NULL;
		ScbfFilterPageData *filter = NULL;
		uint8	   *counters = NULL;
		int			i;

		if (b == p)
			continue;
		for (i = 0; i < n; i++)
		{
			int			e = order[i];
			int			c;

			for (c = 1; c < ncols; c++)
			{
				if (kblk[e * ncols + c] != b)
					continue;
				if (xlog == NULL)
				{
					Page		page;

					buf = (b == 0) ? headbuf :
						ScbfLockFilterBlock(index, headpage, b,
											BUFFER_LOCK_EXCLUSIVE);
					xlog = GenericXLogStart(index);
					page = GenericXLogRegisterBuffer(xlog, buf, 0);
					filter = ScbfPageGetFilter(page);
					counters = ScbfPageGetCounters(page);
				}
				if (add)
					result |= scbf_filter_add(counters, filter->nonzero,
											  &filter->nsaturated,
											  &state->geom,
											  kp[e * ncols + c].pos);
				else
					result |= scbf_filter_remove(counters, filter->nonzero,
												 &filter->nsaturated,
												 &state->geom,
												 kp[e * ncols + c].pos);
			}
		}
		if (xlog != NULL)
		{
			if (add && scbf_filter_state_fpr(filter->nonzero, &state->geom) >=
				budget)
				result |= SCBF_FULL_SEEN;
			GenericXLogFinish(xlog);
			if (b != 0)
				UnlockReleaseBuffer(buf);
		}
	}
	return result;
}

/*
 * Compute the filter keys and blocks of n entries for a filter of nblocks
 * blocks, and an order that groups them by primary block (the block of
 * column 0's key).  The arrays are palloc'd in the current context.
 */
void
ScbfPlaceEntries(ScbfState *state, const char *entries, int n, int nblocks,
				 ScbfKeyPos **kp_out, uint16 **kblk_out, int **order_out)
{
	int			ncols = state->ncols;
	ScbfKeyPos *kp = palloc(sizeof(ScbfKeyPos) * n * ncols);
	uint16	   *kblk = palloc(sizeof(uint16) * n * ncols);
	int		   *order = palloc(sizeof(int) * n);
	int		   *count = palloc0(sizeof(int) * (nblocks + 1));
	int			i;
	int			c;

	for (i = 0; i < n; i++)
	{
		const char *e = entries + state->entry_size * i;

		for (c = 0; c < ncols; c++)
		{
			ScbfKeyPos *k = &kp[i * ncols + c];

			ScbfComputeKey(state, c, ScbfEntryGetHash(e, c), k);
			kblk[i * ncols + c] = (uint16) scbf_filter_block_of(k->key, nblocks);
		}
		count[kblk[i * ncols] + 1]++;
	}

	/* counting sort by primary block, stable */
	for (i = 1; i <= nblocks; i++)
		count[i] += count[i - 1];
	for (i = 0; i < n; i++)
		order[count[kblk[i * ncols]]++] = i;

	pfree(count);
	*kp_out = kp;
	*kblk_out = kblk;
	*order_out = order;
}

/*
 * Add n entries (packed ledger entries, state->entry_size bytes each) to the
 * filter whose head buffer the caller holds exclusively locked.
 *
 * Entries are grouped by primary block p (the block of column 0's key);
 * each group is written in records of {block p, ledger page}, which hold
 * the increments and the appends together.  The ledger page is the first
 * page of the room list, else the tail.  The head is not in those records
 * (unless it is block p, or the page fills and leaves the room list): the
 * tail and the room pages count their own entries.
 * When srcblk is valid the entries are being moved there from a ledger page
 * of an older filter of segment srcsegno with serial srcserial: entry i is
 * source entry srcidx[i], tombstoned in the very record that adds it here,
 * and the source page is compacted in the last record.  (The source
 * filter's counters are left alone; it is dropped afterwards.)
 *
 * Returns true if a block the entries went to reached the false-positive
 * budget (a state FPR of budget): the caller then chains a new filter.
 */
bool
ScbfAddEntries(Relation index, ScbfState *state, Buffer headbuf,
			   const char *entries, int n, BlockNumber srcblk,
			   uint32 srcsegno, uint32 srcserial, const uint16 *srcidx,
			   double budget)
{
	Page		headpage = BufferGetPage(headbuf);
	ScbfPageOpaque opaque = ScbfPageGetOpaque(headpage);
	uint32		segno = opaque->segno;
	uint32		serial = opaque->serial;
	int			nblocks = ScbfPageGetFilter(headpage)->nblocks;
	int			ncols = state->ncols;
	Size		esz = state->entry_size;
	ScbfKeyPos *kp;
	uint16	   *kblk;
	int		   *order;
	int			gstart;
	int			done = 0;
	bool		full = false;

	Assert(ScbfPageGetFilter(headpage)->nlinked == nblocks);
	ScbfPlaceEntries(state, entries, n, nblocks, &kp, &kblk, &order);

	gstart = 0;
	while (gstart < n)
	{
		int			p = kblk[order[gstart] * ncols];
		int			gend = gstart;
		int			pos;

		while (gend < n && kblk[order[gend] * ncols] == p)
			gend++;

		/* multi-column keys in other blocks first (see file header) */
		if (ScbfApplyExtraKeys(index, state, headbuf, kp, kblk,
							   order + gstart, gend - gstart, p, false,
							   true, budget) & SCBF_FULL_SEEN)
			full = true;

		pos = gstart;
		while (pos < gend)
		{
			Buffer		tailbuf;
			Buffer		pbuf = InvalidBuffer;
			Buffer		srcbuf = InvalidBuffer;
			GenericXLogState *xlog;
			Page		ppage;
			Page		hpage;
			Page		tpage;
			Page		spage = NULL;
			ScbfLedgerPageData *tledger;
			BlockNumber roomblk;
			char	   *dst;
			int			room;
			int			chunk;
			bool		pop;
			int			j;

			/*
			 * The page to append to: the first page of the room list, else
			 * the tail (extended when full).  Only we append: we hold the
			 * head.
			 */
			roomblk = ScbfPageGetFilter(headpage)->ledger_room;
			if (roomblk != 0)
			{
				tailbuf = ScbfLockLedgerPage(index, state, roomblk, segno,
											 serial);
				tledger = ScbfPageGetLedger(BufferGetPage(tailbuf));
				if (!(tledger->flags & SCBF_LEDGER_ROOM) ||
					tledger->nentries >= state->ledger_capacity)
					ScbfReportCorrupt(index, roomblk,
									  psprintf("Ledger page on the room list of filter %u of segment %u has no room.",
											   serial, segno));
			}
			else
			{
				tailbuf = ScbfLockLedgerPage(index, state,
											 ScbfPageGetFilter(headpage)->ledger_tail,
											 segno, serial);
				if (ScbfPageGetLedger(BufferGetPage(tailbuf))->nentries >=
					state->ledger_capacity)
					tailbuf = ScbfExtendLedger(index, headbuf, tailbuf);
			}
			room = state->ledger_capacity -
				ScbfPageGetLedger(BufferGetPage(tailbuf))->nentries;
			chunk = Min(room, gend - pos);
			/* a room page that this fills leaves the room list */
			pop = (roomblk != 0 && chunk == room);

			/* lock order: head (held), block p, ledger page, source */
			if (p != 0)
			{
				LockBuffer(tailbuf, BUFFER_LOCK_UNLOCK);
				pbuf = ScbfLockFilterBlock(index, headpage, p,
										   BUFFER_LOCK_EXCLUSIVE);
				LockBuffer(tailbuf, BUFFER_LOCK_EXCLUSIVE);
			}
			if (BlockNumberIsValid(srcblk))
				srcbuf = ScbfLockLedgerPage(index, state, srcblk, srcsegno,
											srcserial);

			xlog = GenericXLogStart(index);
			ppage = GenericXLogRegisterBuffer(xlog, (p != 0) ? pbuf : headbuf,
											  0);
			hpage = (p == 0) ? ppage :
				(pop ? GenericXLogRegisterBuffer(xlog, headbuf, 0) : NULL);
			tpage = GenericXLogRegisterBuffer(xlog, tailbuf, 0);
			if (BufferIsValid(srcbuf))
				spage = GenericXLogRegisterBuffer(xlog, srcbuf, 0);

			tledger = ScbfPageGetLedger(tpage);
			dst = ScbfPageGetEntries(tpage) + esz * tledger->nentries;
			for (j = 0; j < chunk; j++)
			{
				int			e = order[pos + j];
				int			c;

				for (c = 0; c < ncols; c++)
				{
					if (kblk[e * ncols + c] != p)
						continue;	/* done by ScbfApplyExtraKeys */
					(void) scbf_filter_add(ScbfPageGetCounters(ppage),
										   ScbfPageGetFilter(ppage)->nonzero,
										   &ScbfPageGetFilter(ppage)->nsaturated,
										   &state->geom, kp[e * ncols + c].pos);
				}
				memcpy(dst, entries + esz * e, esz);
				dst += esz;
				tledger->nentries++;
				if (spage != NULL)
				{
					ScbfEntrySetTid(ScbfPageGetEntries(spage) + esz * srcidx[e],
									SCBF_TID_TOMBSTONE);
					ScbfPageGetLedger(spage)->ntombstones++;
				}
			}
			ScbfLedgerSetLower(tpage, state);
			if (pop)
			{
				ScbfFilterPageData *hfilter = ScbfPageGetFilter(hpage);

				/* full now: off the room list, counted by the head again */
				hfilter->ledger_room = tledger->next_room;
				hfilter->nsealed += tledger->nentries - tledger->ntombstones;
				tledger->next_room = 0;
				tledger->flags &= ~SCBF_LEDGER_ROOM;
			}
			if (scbf_filter_state_fpr(ScbfPageGetFilter(ppage)->nonzero,
									  &state->geom) >= budget)
				full = true;
			if (spage != NULL && done + chunk == n)
				ScbfCompactLedgerPage(spage, state);

			GenericXLogFinish(xlog);

			if (BufferIsValid(srcbuf))
				UnlockReleaseBuffer(srcbuf);
			UnlockReleaseBuffer(tailbuf);
			if (BufferIsValid(pbuf))
				UnlockReleaseBuffer(pbuf);

			pos += chunk;
			done += chunk;
		}
		gstart = gend;
	}

	pfree(kp);
	pfree(kblk);
	pfree(order);
	return full;
}

/*
 * Squeeze the tombstones out of a (WAL-registered) ledger page image.
 * Entries keep their order and never leave the page, so a concurrent
 * reader under lock coupling still sees every live entry exactly once.
 */
void
ScbfCompactLedgerPage(Page page, ScbfState *state)
{
	ScbfLedgerPageData *ledger = ScbfPageGetLedger(page);
	char	   *base = ScbfPageGetEntries(page);
	Size		esz = state->entry_size;
	int			src;
	int			dst = 0;

	for (src = 0; src < ledger->nentries; src++)
	{
		char	   *e = base + esz * src;

		if (ScbfEntryGetTid(e) == SCBF_TID_TOMBSTONE)
			continue;
		if (dst != src)
			memmove(base + esz * dst, e, esz);
		dst++;
	}
	/* clear the freed tail so stale bytes do not linger below pd_lower */
	memset(base + esz * dst, 0, esz * (ledger->nentries - dst));
	ledger->nentries = dst;
	ledger->ntombstones = 0;
	ScbfLedgerSetLower(page, state);
}

/*
 * The false-positive budget of the newest filter of a chain of nfilters:
 * P for the first, then P/2, P/4, ... (the tightening of scalable Bloom
 * filters), so a chain grown by inserts stays below 2P in all until VACUUM
 * consolidates it into one filter sized for P.  The halving stops after
 * SCBF_CHAIN_TIGHTEN_MAX steps: with k fixed, each step costs a filter
 * about a tenth of its capacity.
 */
double
ScbfChainBudget(ScbfState *state, int nfilters)
{
	int			steps = Min(Max(nfilters - 1, 0), SCBF_CHAIN_TIGHTEN_MAX);

	return ldexp(state->target_fpr, -steps);
}

/*
 * Add n entries (packed, state->entry_size bytes each) to segment segno: to
 * the tail filter of its chain, creating the segment first if needed, many
 * entries per WAL record (ScbfAddEntries), and chaining a new filter when
 * the tail reaches its false-positive budget.  Entries go in chunks of at
 * most half the distinct keys the tail still has room for, so a large batch
 * closes a filter about where one entry at a time would.
 */
void
ScbfInsertEntries(Relation index, ScbfState *state, uint32 segno,
				  const char *entries, int n)
{
	ScbfSegEntry seg;
	ScbfSegEntry last;
	bool		retried = false;
	int			done = 0;

	while (done < n)
	{
		Buffer		headbuf;
		Page		page;

		CHECK_FOR_INTERRUPTS();

		if (!ScbfGetSegEntry(index, state, segno, &seg))
		{
			if (!ScbfCreateSegment(index, state, segno))
				return;			/* past capacity: scans return it whole */
			continue;
		}

		headbuf = ReadBuffer(index, seg.tail);
		LockBuffer(headbuf, BUFFER_LOCK_EXCLUSIVE);
		page = BufferGetPage(headbuf);
		if (ScbfPageIsFilter(page, segno, seg.tail_serial, 0))
		{
			ScbfFilterPageData *filter = ScbfPageGetFilter(page);

			if (filter->state == SCBF_FILTER_GROWING)
				ScbfGrowFilter(index, state, headbuf);
			if (filter->state == SCBF_FILTER_ACTIVE)
			{
				bool		full;
				int			nblocks = filter->nblocks;
				double		budget = ScbfChainBudget(state, seg.nfilters);
				double		room;
				int			chunk;

				/*
				 * Distinct keys the filter still takes before its budget, as
				 * the head block shows it: add half of them at most, so the
				 * chunks shrink as the filter fills and it closes close to
				 * its budget, as one entry at a time would.
				 */
				room = (scbf_filter_block_capacity(&state->geom, budget) -
						scbf_filter_estimate_keys(filter->nonzero,
												  &state->geom)) * nblocks;
				chunk = Min(n - done, Max(4 * nblocks, (int) (room / 2)));
				full = ScbfAddEntries(index, state, headbuf,
									  entries + state->entry_size * done,
									  chunk, InvalidBlockNumber, 0, 0, NULL,
									  budget);
				UnlockReleaseBuffer(headbuf);
				done += chunk;
				retried = false;

				if (full)
				{
					int			next = Max(ScbfFilterBlocksFor(state,
															   state->keys_hint),
										   Min(2 * nblocks, SCBF_MAX_BLOCKS));

					(void) ScbfAppendFilter(index, state, segno, next,
											seg.tail_serial, NULL, NULL);
				}
				continue;
			}
		}
		UnlockReleaseBuffer(headbuf);

		/*
		 * The directory named a tail that is not (or no longer) the active
		 * head of this segment's newest filter.  Chaining changes the
		 * directory and the old tail in one record, so seeing the same entry
		 * twice means the index is corrupted.
		 */
		if (retried && memcmp(&seg, &last, sizeof(ScbfSegEntry)) == 0)
			ScbfReportCorrupt(index, seg.tail,
							  psprintf("Segment %u's directory entry names filter %u as its tail, but that page is not its active head.",
									   segno, seg.tail_serial));
		last = seg;
		retried = true;
	}
}

/*
 * Add one entry to segment segno (see ScbfInsertEntries).
 */
void
ScbfInsertEntry(Relation index, ScbfState *state, uint32 segno,
				const char *entry)
{
	ScbfInsertEntries(index, state, segno, entry, 1);
}

/*
 * Write a batch of entries (ScbfBatchApplyFn; the TIDs ascend) to the
 * index: the entries of each segment together, through ScbfInsertEntries.
 */
static void
ScbfApplyBatch(Relation index, ItemPointer tids, const uint32 *hashes, int n,
			   bool bulk, bool full)
{
	ScbfState  *state = ScbfGetState(index);
	Size		esz = state->entry_size;
	char	   *entries = palloc(esz * n);
	int			start = 0;
	int			i;

	for (i = 0; i < n; i++)
	{
		char	   *e = entries + esz * i;
		BlockNumber blkno = ItemPointerGetBlockNumber(&tids[i]);
		int			col;

		ScbfEntrySetTid(e, ScbfTidMake(blkno % state->pages_per_segment,
									   ItemPointerGetOffsetNumber(&tids[i])));
		for (col = 0; col < state->ncols; col++)
			ScbfEntrySetHash(e, col, hashes[(Size) i * state->ncols + col]);
	}

	for (i = 1; i <= n; i++)
	{
		uint32		segno = ItemPointerGetBlockNumber(&tids[start]) /
			state->pages_per_segment;

		if (i < n && ItemPointerGetBlockNumber(&tids[i]) /
			state->pages_per_segment == segno)
			continue;
		ScbfInsertEntries(index, state, segno, entries + esz * start,
						  i - start);
		start = i;
	}
	pfree(entries);
}

/*
 * Scbf2ApplyBatch
 *		Write a batch of entries to a format-2 index (ScbfBatchApplyFn).  A
 *		full batch of a load that goes on is handed to a fold helper
 *		(scbffoldhelper.c) if one can start.  A large batch (a bulk load's,
 *		and the last entries of one, so that the load leaves no pending
 *		entries for every probe to read) is folded straight into the
 *		filters if no other backend is folding; otherwise the entries go to
 *		the pending area, which is folded when a partition has grown long,
 *		again unless another backend is folding already.
 */
void
Scbf2ApplyBatch(Relation index, ItemPointer tids, const uint32 *hashes, int n,
				bool bulk, bool full)
{
	if (full && n >= SCBF2_FOLD_DIRECT &&
		Scbf2HelperSubmit(index, tids, hashes, n))
		return;
	if ((n >= SCBF2_FOLD_DIRECT || bulk) &&
		Scbf2FoldBatch(index, tids, hashes, n))
		return;
	if (Scbf2PendingAppend(index, Scbf2GetState(index), tids, hashes, n))
		Scbf2Fold(index, false);
}

/*
 * aminsert: hash the heap tuple's values and append its entry to this
 * backend's batch of the index (scbfbatch.c), which writes it, with the
 * other entries of the transaction, before the transaction commits or this
 * backend reads the index.  Always inserts, whatever the indexUnchanged hint
 * says: a non-HOT update puts the new version at a new TID, possibly in
 * another segment, and the old entry goes away at VACUUM.
 */
bool
scbfinsert(Relation index, Datum *values, bool *isnull,
		   ItemPointer ht_ctid, Relation heapRel,
		   IndexUniqueCheck checkUnique,
		   bool indexUnchanged,
		   IndexInfo *indexInfo)
{
	MemoryContext tmpcxt;
	MemoryContext oldcxt;
	uint32		hashes[INDEX_MAX_KEYS];
	int			col;
	int			ncols = IndexRelationGetNumberOfKeyAttributes(index);
	int			format = ScbfIndexFormat(index);

	/* one temporary context per statement, reset after each tuple */
	if (indexInfo->ii_AmCache == NULL)
		indexInfo->ii_AmCache =
			AllocSetContextCreate(indexInfo->ii_Context,
								  "scbf insert temporary context",
								  ALLOCSET_DEFAULT_SIZES);
	tmpcxt = (MemoryContext) indexInfo->ii_AmCache;
	oldcxt = MemoryContextSwitchTo(tmpcxt);

	for (col = 0; col < ncols; col++)
		hashes[col] = isnull[col] ? SCBF_NULL_HASH :
			ScbfHashDatum(index, col, values[col]);

	MemoryContextSwitchTo(oldcxt);
	MemoryContextReset(tmpcxt);

	ScbfBatchAdd(index, ht_ctid, hashes, ncols,
				 format == SCBF_FORMAT_VERSION ? ScbfApplyBatch :
				 Scbf2ApplyBatch);
	return false;
}
