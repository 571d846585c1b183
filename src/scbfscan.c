/*-------------------------------------------------------------------------
 *
 * scbfscan.c
 *	  Bitmap scans of an scbf index.
 *
 * NOTES
 *	  Keys are hashed once, at amrescan, with the opfamily's hash function
 *	  for the key's own type and the key's collation; an = ANY(array) key
 *	  becomes one condition with a set of hashes (one index pass), IS NULL a
 *	  condition on SCBF_NULL_HASH, IS NOT NULL a condition checked in the
 *	  ledger only.  Conditions are ANDed.
 *
 *	  For each segment the scan walks the filter chain from its head.  A
 *	  filter that may hold a match (every condition has a hash whose k
 *	  counters are non-zero in its block) has its ledger read, and only the
 *	  TIDs whose stored hashes satisfy every condition go into the bitmap,
 *	  with recheck.  A filter false positive thus costs ledger pages, never
 *	  heap pages.
 *
 *	  Anything the scan cannot trust means "match the whole segment"
 *	  (invariant I4): a segment with no directory entry, a filter whose
 *	  counters await a recount, a chain that keeps changing under the scan.
 *	  A page that cannot be what a stable structure says it is raises
 *	  ERRCODE_INDEX_CORRUPTED.
 *
 *	  The next filter of a chain is read from the head AFTER the filter's
 *	  ledger was read: a concurrent consolidation links its new filter
 *	  before it moves any entry into it, so an entry that moved out of a
 *	  ledger behind our back is always found further down the chain.
 *
 *	  scbf_probe() runs this very scan, traced (ScbfTraceScan): the scan
 *	  tells a callback which filters said "maybe", which TIDs their ledgers
 *	  gave and why a segment was returned whole, so that the diagnostic
 *	  explains the scan that runs rather than a copy of it.  An ordinary
 *	  scan has no callback and pays a pointer test per event.
 *
 * Portions Copyright (c) 2026, scbf developers
 *
 * IDENTIFICATION
 *	  src/scbfscan.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/relscan.h"
#include "access/table.h"
#include "catalog/index.h"
#include "miscadmin.h"
#include "nodes/tidbitmap.h"
#include "pgstat.h"
#include "utils/array.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "scbf2.h"

typedef struct ScbfScanOpaqueData
{
	MemoryContext keycxt;		/* conditions, reset at each rescan */
	bool		unsatisfiable;	/* some key can match nothing */
	int			nconds;
	ScbfCond   *conds;
	int			neqconds;		/* conditions the filters can test */

	/* TIDs collected from the ledgers of one segment */
	ItemPointerData *tids;
	int			ntids;
	int			maxtids;

	/* copy of the directory page being walked */
	uint32		dirno;
	bool		dirvalid;
	ScbfSegEntry *dir;

	/* the filter that made ScbfScanSegment return SCBF_SEG_WHOLE */
	int			whole_position;
	uint32		whole_serial;

	/* a traced scan's callback (ScbfTraceScan), else NULL */
	ScbfTraceFn trace;
	void	   *trace_arg;

	/*
	 * Chain, block and ledger links are checked against loops and the end
	 * of the index before they are followed (ScbfIndexBlocks): only
	 * corruption makes a list loop, and a scan on one would never end (nor
	 * could it be cancelled along a ledger, where a buffer lock is always
	 * held).  The checks cost a system call per scan and a compare per page.
	 */
	BlockNumber nindex;			/* index blocks, as last measured */
} ScbfScanOpaqueData;

typedef ScbfScanOpaqueData *ScbfScanOpaque;

/* Results of probing a filter, and of scanning a segment */
#define SCBF_PROBE_ABSENT		0
#define SCBF_PROBE_MAYBE		1
#define SCBF_PROBE_UNDECIDED	2

#define SCBF_SEG_DONE			0	/* TIDs collected */
#define SCBF_SEG_WHOLE			1	/* return every page of the segment */
#define SCBF_SEG_RETRY			2	/* the chain changed under us */

/* How often a segment is re-read when its chain keeps changing */
#define SCBF_SCAN_RETRIES		3

/*
 * ambeginscan
 */
IndexScanDesc
scbfbeginscan(Relation r, int nkeys, int norderbys)
{
	IndexScanDesc scan = RelationGetIndexScan(r, nkeys, norderbys);
	ScbfScanOpaque so = palloc0(sizeof(ScbfScanOpaqueData));

	so->keycxt = AllocSetContextCreate(CurrentMemoryContext,
									   "scbf scan keys",
									   ALLOCSET_SMALL_SIZES);
	so->dir = palloc(sizeof(ScbfSegEntry) * SCBF_DIR_ENTRIES_PER_PAGE);
	scan->opaque = so;
	return scan;
}

/*
 * The hash function for keys of type subtype on column col: the opclass's
 * own for its input type, else the opfamily's for subtype.  NULL if the
 * family has none (the condition then cannot be tested here).
 */
static FmgrInfo *
ScbfScanHashProc(Relation index, int col, Oid subtype, MemoryContext cxt)
{
	Oid			procid;
	FmgrInfo   *proc;

	if (!OidIsValid(subtype) || subtype == index->rd_opcintype[col])
		return index_getprocinfo(index, col + 1, SCBF_HASH_PROC);

	procid = get_opfamily_proc(index->rd_opfamily[col], subtype, subtype,
							   SCBF_HASH_PROC);
	if (!OidIsValid(procid))
		return NULL;
	proc = MemoryContextAlloc(cxt, sizeof(FmgrInfo));
	fmgr_info_cxt(procid, proc, cxt);
	return proc;
}

/*
 * qsort comparator for uint32 hashes.
 */
static int
ScbfCmpUint32(const void *a, const void *b)
{
	uint32		x = *(const uint32 *) a;
	uint32		y = *(const uint32 *) b;

	return (x > y) - (x < y);
}

/*
 * Turn one scan key into a condition.  Returns false if the key can match
 * no row at all (col = NULL, or an array with only NULLs).  With state
 * NULL (a format-2 index) the filter positions of format 1 are left out.
 */
bool
ScbfKeyToCond(Relation index, ScbfState *state, ScanKey sk, ScbfCond *cond,
			  MemoryContext cxt)
{
	int			col = sk->sk_attno - 1;
	FmgrInfo   *proc;
	int			i;
	int			n;

	memset(cond, 0, sizeof(ScbfCond));
	cond->col = col;
	cond->kind = SCBF_COND_EQ;

	if (sk->sk_flags & SK_ISNULL)
	{
		if (sk->sk_flags & SK_SEARCHNULL)
		{
			cond->nhashes = 1;
			cond->hashes = palloc(sizeof(uint32));
			cond->hashes[0] = SCBF_NULL_HASH;
		}
		else if (sk->sk_flags & SK_SEARCHNOTNULL)
		{
			cond->kind = SCBF_COND_NOTNULL;
			return true;
		}
		else
			return false;		/* col = NULL, or a NULL array */
	}
	else
	{
		/*
		 * Across types under a nondeterministic collation the hash functions
		 * need not agree with equality (hashname ignores the collation that
		 * nameeqtext honours): such a key cannot be tested here.
		 */
		if (OidIsValid(sk->sk_subtype) &&
			sk->sk_subtype != index->rd_opcintype[col] &&
			OidIsValid(sk->sk_collation) &&
			!get_collation_isdeterministic(sk->sk_collation))
		{
			cond->kind = SCBF_COND_ANY;
			return true;
		}

		proc = ScbfScanHashProc(index, col, sk->sk_subtype, cxt);
		if (proc == NULL)
		{
			cond->kind = SCBF_COND_ANY;
			return true;
		}

		if (sk->sk_flags & SK_SEARCHARRAY)
		{
			ArrayType  *arr = DatumGetArrayTypeP(sk->sk_argument);
			int16		elmlen;
			bool		elmbyval;
			char		elmalign;
			Datum	   *elems;
			bool	   *nulls;
			int			nelems;

			get_typlenbyvalalign(ARR_ELEMTYPE(arr), &elmlen, &elmbyval,
								 &elmalign);
			deconstruct_array(arr, ARR_ELEMTYPE(arr), elmlen, elmbyval,
							  elmalign, &elems, &nulls, &nelems);
			cond->hashes = palloc(sizeof(uint32) * Max(nelems, 1));
			for (i = 0; i < nelems; i++)
			{
				if (nulls[i])
					continue;
				cond->hashes[cond->nhashes++] =
					ScbfCanonicalHash(DatumGetUInt32(FunctionCall1Coll(proc,
																	   sk->sk_collation,
																	   elems[i])));
			}
			if (cond->nhashes == 0)
				return false;
		}
		else
		{
			cond->nhashes = 1;
			cond->hashes = palloc(sizeof(uint32));
			cond->hashes[0] =
				ScbfCanonicalHash(DatumGetUInt32(FunctionCall1Coll(proc,
																   sk->sk_collation,
																   sk->sk_argument)));
		}
	}

	/* sorted and distinct, for the ledger's binary search */
	qsort(cond->hashes, cond->nhashes, sizeof(uint32), ScbfCmpUint32);
	n = 0;
	for (i = 0; i < cond->nhashes; i++)
		if (n == 0 || cond->hashes[i] != cond->hashes[n - 1])
			cond->hashes[n++] = cond->hashes[i];
	cond->nhashes = n;

	if (state == NULL)
		return true;
	cond->kpos = palloc(sizeof(ScbfKeyPos) * n);
	cond->hblk = palloc(sizeof(uint16) * n);
	for (i = 0; i < n; i++)
		ScbfComputeKey(state, col, cond->hashes[i], &cond->kpos[i]);
	return true;
}

/*
 * amrescan: install new keys and turn them into conditions.
 */
void
scbfrescan(IndexScanDesc scan, ScanKey scankey, int nscankeys,
		   ScanKey orderbys, int norderbys)
{
	ScbfScanOpaque so = (ScbfScanOpaque) scan->opaque;
	ScbfState  *state = NULL;
	MemoryContext oldcxt;
	int			i;

	if (scankey && scan->numberOfKeys > 0)
		memmove(scan->keyData, scankey,
				scan->numberOfKeys * sizeof(ScanKeyData));
	if (ScbfIndexFormat(scan->indexRelation) == SCBF_FORMAT_VERSION)
		state = ScbfGetState(scan->indexRelation);

	MemoryContextReset(so->keycxt);
	/* the TID buffer lived in the context just reset */
	so->tids = NULL;
	so->ntids = 0;
	so->maxtids = 0;
	oldcxt = MemoryContextSwitchTo(so->keycxt);

	so->unsatisfiable = false;
	so->nconds = 0;
	so->neqconds = 0;
	so->conds = palloc(sizeof(ScbfCond) * Max(scan->numberOfKeys, 1));
	for (i = 0; i < scan->numberOfKeys; i++)
	{
		ScbfCond   *cond = &so->conds[so->nconds];

		if (!ScbfKeyToCond(scan->indexRelation, state, &scan->keyData[i],
						   cond, so->keycxt))
		{
			so->unsatisfiable = true;
			break;
		}
		if (cond->kind == SCBF_COND_EQ)
			so->neqconds++;
		so->nconds++;
	}
	so->dirvalid = false;

	MemoryContextSwitchTo(oldcxt);
}

/*
 * Prepare the probe of a filter of nblocks blocks: the block of every hash,
 * and per condition the count of hashes left to test.
 */
static void
ScbfProbeStart(ScbfScanOpaque so, int nblocks)
{
	int			c;
	int			i;

	for (c = 0; c < so->nconds; c++)
	{
		ScbfCond   *cond = &so->conds[c];

		cond->positive = (cond->kind != SCBF_COND_EQ);
		cond->left = cond->nhashes;
		if (cond->kind != SCBF_COND_EQ)
			continue;
		for (i = 0; i < cond->nhashes; i++)
			cond->hblk[i] = (uint16) scbf_filter_block_of(cond->kpos[i].key,
														  nblocks);
	}
}

/*
 * Test every still-open hash that falls in block b against its counters.
 * Returns ABSENT as soon as a condition has no hash left that could match,
 * MAYBE once every condition has a positive hash, else UNDECIDED.
 */
static int
ScbfProbeBlock(ScbfScanOpaque so, ScbfState *state, const uint8 *counters,
			   int b)
{
	bool		allpositive = true;
	int			c;
	int			i;

	for (c = 0; c < so->nconds; c++)
	{
		ScbfCond   *cond = &so->conds[c];

		if (!cond->positive)
		{
			for (i = 0; i < cond->nhashes; i++)
			{
				if (cond->hblk[i] != b)
					continue;
				cond->left--;
				if (scbf_filter_test(counters, &state->geom,
									 cond->kpos[i].pos))
				{
					cond->positive = true;
					break;
				}
			}
			if (!cond->positive && cond->left == 0)
				return SCBF_PROBE_ABSENT;
		}
		if (!cond->positive)
			allpositive = false;
	}
	return allpositive ? SCBF_PROBE_MAYBE : SCBF_PROBE_UNDECIDED;
}

/*
 * The next block after b that an open condition still needs, or -1.
 */
static int
ScbfProbeNextBlock(ScbfScanOpaque so, int b)
{
	int			next = -1;
	int			c;
	int			i;

	for (c = 0; c < so->nconds; c++)
	{
		ScbfCond   *cond = &so->conds[c];

		if (cond->positive)
			continue;
		for (i = 0; i < cond->nhashes; i++)
			if (cond->hblk[i] > b && (next < 0 || cond->hblk[i] < next))
				next = cond->hblk[i];
	}
	return next;
}

/*
 * True if a ledger entry satisfies every condition.
 */
static bool
ScbfEntryMatches(ScbfScanOpaque so, const char *entry)
{
	int			c;

	for (c = 0; c < so->nconds; c++)
	{
		ScbfCond   *cond = &so->conds[c];
		uint32		h = ScbfEntryGetHash(entry, cond->col);

		if (cond->kind == SCBF_COND_NOTNULL)
		{
			if (h == SCBF_NULL_HASH)
				return false;
		}
		else if (cond->kind == SCBF_COND_EQ)
		{
			if (bsearch(&h, cond->hashes, cond->nhashes, sizeof(uint32),
						ScbfCmpUint32) == NULL)
				return false;
		}
	}
	return true;
}

/*
 * Remember one heap TID for the bitmap.
 */
static void
ScbfCollectTid(ScbfScanOpaque so, BlockNumber blkno, OffsetNumber off)
{
	if (so->ntids >= so->maxtids)
	{
		so->maxtids = Max(1024, so->maxtids * 2);
		if (so->tids == NULL)
			so->tids = MemoryContextAlloc(so->keycxt,
										  sizeof(ItemPointerData) * so->maxtids);
		else
			so->tids = repalloc(so->tids,
								sizeof(ItemPointerData) * so->maxtids);
	}
	ItemPointerSet(&so->tids[so->ntids], blkno, off);
	so->ntids++;
}

/*
 * The number of blocks of the index, measured again if "beyond" is not
 * below the last measure (the index may have grown since): no link can lead
 * to a block at or past the result, and no list can be longer.
 */
static BlockNumber
ScbfIndexBlocks(IndexScanDesc scan, BlockNumber beyond)
{
	ScbfScanOpaque so = (ScbfScanOpaque) scan->opaque;

	if (beyond >= so->nindex)
		so->nindex = RelationGetNumberOfBlocks(scan->indexRelation);
	return so->nindex;
}

/*
 * Report an event of segment segno to a traced scan's callback: a new
 * attempt at its chain, or its outcome (DONE, or WHOLE for the given
 * reason with npages heap pages; for SCBF_WHOLE_RECOUNT, the filter is the
 * one ScbfScanSegment left in so->whole_*).  Called with no buffer pinned.
 */
static void
ScbfTraceSegment(ScbfScanOpaque so, ScbfTraceEvent event, uint32 segno,
				 ScbfWholeReason reason, BlockNumber npages)
{
	ScbfTraceData td;

	memset(&td, 0, sizeof(td));
	td.event = event;
	td.segno = segno;
	td.block = -1;
	if (event == SCBF_TRACE_WHOLE)
	{
		td.reason = reason;
		td.npages = npages;
		if (reason == SCBF_WHOLE_RECOUNT)
		{
			td.position = so->whole_position;
			td.serial = so->whole_serial;
		}
	}
	so->trace(&td, so->trace_arg);
}

/*
 * Read the ledger of filter (segno, serial), whose head is headblk, and
 * collect the TIDs of the entries that match.  Lock coupling: the head is
 * held until the first ledger page is locked, and each ledger page until the
 * next one is (see scbf.h).  Returns SCBF_SEG_RETRY if the head is no
 * longer this filter's; *dropping is set if the filter is being dropped
 * (nothing is read: its entries are elsewhere).  A ledger page that is not
 * this filter's raises ERRCODE_INDEX_CORRUPTED; so does a link past the end
 * of the index or a list that loops.
 */
static int
ScbfReadLedger(IndexScanDesc scan, ScbfState *state, uint32 segno,
			   uint32 serial, BlockNumber headblk, BlockNumber nheapblocks,
			   bool *dropping, BlockNumber *failblk)
{
	Relation	index = scan->indexRelation;
	ScbfScanOpaque so = (ScbfScanOpaque) scan->opaque;
	BlockNumber segstart = segno * state->pages_per_segment;
	Buffer		buf;
	Buffer		lbuf;
	Page		page;
	BlockNumber next;
	BlockNumber npages;

	*dropping = false;
	buf = ScbfTryLockHead(index, headblk, segno, serial, BUFFER_LOCK_SHARE);
	if (!BufferIsValid(buf))
	{
		*failblk = headblk;
		return SCBF_SEG_RETRY;
	}
	page = BufferGetPage(buf);
	if (ScbfPageGetFilter(page)->state == SCBF_FILTER_DROPPING)
	{
		/* being dropped since we probed it: its entries are elsewhere */
		UnlockReleaseBuffer(buf);
		*dropping = true;
		return SCBF_SEG_DONE;
	}
	next = ScbfPageGetFilter(page)->ledger_head;
	if (next == SCBF_METAPAGE_BLKNO || next >= ScbfIndexBlocks(scan, next))
		ScbfReportCorrupt(index, headblk,
						  psprintf("Filter %u of segment %u says its ledger starts at block %u.",
								   serial, segno, next));
	lbuf = ReadBuffer(index, next);
	LockBuffer(lbuf, BUFFER_LOCK_SHARE);
	UnlockReleaseBuffer(buf);

	for (npages = 1;; npages++)
	{
		ScbfLedgerPageData *ledger;
		const char *entry;
		int			i;

		page = BufferGetPage(lbuf);
		/* more pages than the index has: the list loops */
		if (npages > ScbfIndexBlocks(scan, npages))
			ScbfReportCorrupt(index, BufferGetBlockNumber(lbuf),
							  psprintf("The ledger of filter %u of segment %u loops.",
									   serial, segno));
		if (!ScbfPageIsLedger(page, segno, serial, state->ledger_capacity))
			ScbfReportCorrupt(index, BufferGetBlockNumber(lbuf),
							  psprintf("Expected a ledger page of filter %u of segment %u.",
									   serial, segno));
		TestForOldSnapshot(scan->xs_snapshot, index, page);

		ledger = ScbfPageGetLedger(page);
		entry = ScbfPageGetEntries(page);
		for (i = 0; i < ledger->nentries; i++, entry += state->entry_size)
		{
			uint16		tid = ScbfEntryGetTid(entry);
			BlockNumber blkno;
			OffsetNumber off;

			if (tid == SCBF_TID_TOMBSTONE || !ScbfEntryMatches(so, entry))
				continue;
			blkno = segstart + ScbfTidRelBlock(tid);
			off = ScbfTidOffset(tid);
			if (blkno < nheapblocks && off >= FirstOffsetNumber &&
				off <= MaxHeapTuplesPerPage)
				ScbfCollectTid(so, blkno, off);
		}

		next = ledger->next;
		if (next == 0)
			break;
		if (next >= ScbfIndexBlocks(scan, next))
			ScbfReportCorrupt(index, BufferGetBlockNumber(lbuf),
							  psprintf("Ledger page of filter %u of segment %u links to block %u, past the end of the index.",
									   serial, segno, next));
		buf = ReadBuffer(index, next);
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		UnlockReleaseBuffer(lbuf);
		lbuf = buf;
	}
	UnlockReleaseBuffer(lbuf);
	return SCBF_SEG_DONE;
}

/*
 * Probe filter (segno, serial) whose head is headblk: true if it may hold a
 * match.  Reads the head and then the other blocks the conditions need, one
 * page at a time; *block is the block whose counters completed a "maybe"
 * (-1 if no counter was tested).  Also returns the chain link as the head
 * shows it now; if the caller goes on to read this filter's ledger, it must
 * read the link again afterwards (see the file header).
 */
static int
ScbfProbeFilter(IndexScanDesc scan, ScbfState *state, uint32 segno,
				uint32 serial, BlockNumber headblk, bool *maybe, int *block,
				BlockNumber *next, uint32 *next_serial, BlockNumber *failblk)
{
	Relation	index = scan->indexRelation;
	ScbfScanOpaque so = (ScbfScanOpaque) scan->opaque;
	Buffer		buf;
	Page		page;
	ScbfFilterPageData *filter;
	BlockNumber blocks[SCBF_MAX_BLOCKS];
	int			nblocks;
	int			verdict;
	int			b;

	buf = ScbfTryLockHead(index, headblk, segno, serial, BUFFER_LOCK_SHARE);
	if (!BufferIsValid(buf))
	{
		*failblk = headblk;
		return SCBF_SEG_RETRY;
	}
	page = BufferGetPage(buf);
	TestForOldSnapshot(scan->xs_snapshot, index, page);
	filter = ScbfPageGetFilter(page);
	*next = filter->next;
	*next_serial = filter->next_serial;
	*block = -1;

	/* growing and dropping filters hold no entries */
	if (filter->state == SCBF_FILTER_GROWING ||
		filter->state == SCBF_FILTER_DROPPING)
	{
		UnlockReleaseBuffer(buf);
		*maybe = false;
		return SCBF_SEG_DONE;
	}
	/* counters awaiting a recount are not trusted */
	if (filter->flags & SCBF_FILTER_RECOUNT)
	{
		UnlockReleaseBuffer(buf);
		return SCBF_SEG_WHOLE;
	}
	if (so->neqconds == 0)
	{
		UnlockReleaseBuffer(buf);
		*maybe = true;
		return SCBF_SEG_DONE;
	}

	nblocks = filter->nblocks;
	memcpy(blocks, filter->blocks, sizeof(BlockNumber) * nblocks);
	ScbfProbeStart(so, nblocks);
	verdict = ScbfProbeBlock(so, state, ScbfPageGetCounters(page), 0);
	UnlockReleaseBuffer(buf);

	b = 0;
	while (verdict == SCBF_PROBE_UNDECIDED)
	{
		b = ScbfProbeNextBlock(so, b);
		if (b < 0)
			elog(ERROR, "scbf probe left a condition undecided");
		if (blocks[b] >= ScbfIndexBlocks(scan, blocks[b]))
		{
			*failblk = blocks[b];
			return SCBF_SEG_RETRY;
		}
		buf = ReadBuffer(index, blocks[b]);
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		if (!ScbfPageIsFilter(page, segno, serial, (uint16) b))
		{
			UnlockReleaseBuffer(buf);
			*failblk = blocks[b];
			return SCBF_SEG_RETRY;
		}
		TestForOldSnapshot(scan->xs_snapshot, index, page);
		verdict = ScbfProbeBlock(so, state, ScbfPageGetCounters(page), b);
		UnlockReleaseBuffer(buf);
	}

	*maybe = (verdict == SCBF_PROBE_MAYBE);
	*block = b;
	return SCBF_SEG_DONE;
}

/*
 * Read the chain link of filter (segno, serial): the head and serial of the
 * next filter, or 0 at the end of the chain.
 */
static int
ScbfReadChainLink(IndexScanDesc scan, uint32 segno, uint32 serial,
				  BlockNumber headblk, BlockNumber *next,
				  uint32 *next_serial, BlockNumber *failblk)
{
	Buffer		buf = ScbfTryLockHead(scan->indexRelation, headblk, segno,
										  serial, BUFFER_LOCK_SHARE);
	Page		page;

	if (!BufferIsValid(buf))
	{
		*failblk = headblk;
		return SCBF_SEG_RETRY;
	}
	page = BufferGetPage(buf);
	*next = ScbfPageGetFilter(page)->next;
	*next_serial = ScbfPageGetFilter(page)->next_serial;
	UnlockReleaseBuffer(buf);
	return SCBF_SEG_DONE;
}

/*
 * Scan one segment's chain, collecting matching TIDs into so->tids.
 * Returns SCBF_SEG_DONE; SCBF_SEG_WHOLE if a filter cannot be trusted (its
 * place in the chain and serial left in so->whole_*); or SCBF_SEG_RETRY if
 * the chain changed under us (*failblk: the page that was not what the
 * chain said).  A traced scan hears of each filter whose ledger was read.
 * A chain that loops raises ERRCODE_INDEX_CORRUPTED; a link past the end of
 * the index is a retry.
 */
static int
ScbfScanSegment(IndexScanDesc scan, ScbfState *state, uint32 segno,
				const ScbfSegEntry *seg, BlockNumber nheapblocks,
				BlockNumber *failblk)
{
	ScbfScanOpaque so = (ScbfScanOpaque) scan->opaque;
	BlockNumber blk = seg->head;
	uint32		serial = seg->head_serial;
	uint32		last_serial = 0;
	int			position = 0;
	int			r;

	while (blk != 0)
	{
		bool		maybe;
		int			block;
		BlockNumber next;
		uint32		next_serial;

		position++;
		/* serials increase along a chain: anything else is a loop */
		if (position > 1 && serial <= last_serial)
			ScbfReportCorrupt(scan->indexRelation, blk,
							  psprintf("Segment %u's chain goes from filter %u back to filter %u.",
									   segno, last_serial, serial));
		last_serial = serial;
		if (blk >= ScbfIndexBlocks(scan, blk))
		{
			*failblk = blk;
			return SCBF_SEG_RETRY;
		}

		r = ScbfProbeFilter(scan, state, segno, serial, blk, &maybe, &block,
							&next, &next_serial, failblk);
		if (r == SCBF_SEG_WHOLE)
		{
			so->whole_position = position;
			so->whole_serial = serial;
		}
		if (r != SCBF_SEG_DONE)
			return r;
		if (maybe)
		{
			int			first = so->ntids;
			bool		dropping;

			r = ScbfReadLedger(scan, state, segno, serial, blk, nheapblocks,
							   &dropping, failblk);
			if (r != SCBF_SEG_DONE)
				return r;
			if (so->trace != NULL && !dropping)
			{
				ScbfTraceData td;

				memset(&td, 0, sizeof(td));
				td.event = SCBF_TRACE_MAYBE;
				td.segno = segno;
				td.position = position;
				td.serial = serial;
				td.block = block;
				td.ntids = so->ntids - first;
				td.tids = td.ntids > 0 ? &so->tids[first] : NULL;
				so->trace(&td, so->trace_arg);
			}

			/*
			 * Entries may have moved out of this ledger during the read: the
			 * filter they moved to was linked before, so it is reachable
			 * from the link as it is now.  (A filter we only probed needs no
			 * such care: the link was read after every ledger read before.)
			 */
			r = ScbfReadChainLink(scan, segno, serial, blk, &next,
								  &next_serial, failblk);
			if (r != SCBF_SEG_DONE)
				return r;
		}
		blk = next;
		serial = next_serial;
	}
	return SCBF_SEG_DONE;
}

/*
 * Segment segno's directory entry, from a copy of its directory page kept
 * while the scan walks the segments in order.  Returns false if the segment
 * has no directory page.
 */
static bool
ScbfScanDirEntry(IndexScanDesc scan, ScbfState *state, uint32 segno,
				 ScbfSegEntry *entry)
{
	ScbfScanOpaque so = (ScbfScanOpaque) scan->opaque;
	uint32		dirno = segno / SCBF_DIR_ENTRIES_PER_PAGE;

	if (!so->dirvalid || so->dirno != dirno)
	{
		Buffer		buf;

		buf = ScbfReadDirPage(scan->indexRelation, state, segno,
							  BUFFER_LOCK_SHARE, false);
		so->dirno = dirno;
		so->dirvalid = true;
		if (BufferIsValid(buf))
		{
			memcpy(so->dir, ScbfPageGetDir(BufferGetPage(buf)),
				   sizeof(ScbfSegEntry) * SCBF_DIR_ENTRIES_PER_PAGE);
			UnlockReleaseBuffer(buf);
		}
		else
			memset(so->dir, 0, sizeof(ScbfSegEntry) * SCBF_DIR_ENTRIES_PER_PAGE);
	}
	*entry = so->dir[segno % SCBF_DIR_ENTRIES_PER_PAGE];
	return true;
}

/*
 * amgetbitmap: add the TIDs of every possibly matching row to the bitmap.
 * Exact TIDs (with recheck) from the ledgers; every page of a segment the
 * scan cannot judge.  Returns the number of TIDs added, counting each page
 * of a whole segment as 10 tuples (as BRIN does).  A traced scan
 * (ScbfTraceScan) reports each segment's attempts and outcome, and is
 * counted as a scan of the index neither in the statistics nor in EXPLAIN
 * ANALYZE's "Index Searches" (18).
 */
int64
scbfgetbitmap(IndexScanDesc scan, TIDBitmap *tbm)
{
	Relation	index = scan->indexRelation;
	ScbfScanOpaque so = (ScbfScanOpaque) scan->opaque;
	ScbfState  *state;
	Relation	heap;
	BlockNumber nheapblocks;
	uint32		nsegs;
	uint32		segno;
	int64		ntuples = 0;

	if (so->trace == NULL)
	{
		pgstat_count_index_scan(index);
		ScbfCountIndexSearch(scan);
	}
	if (so->unsatisfiable)
		return 0;

	/* this backend's own unwritten entries first (scbfbatch.c) */
	ScbfBatchFlush(index);

	if (ScbfIndexFormat(index) != SCBF_FORMAT_VERSION)
		return scbf2getbitmap(index, so->conds, so->nconds, tbm);
	state = ScbfGetState(index);

	/* bitmap scans get no heap relation: look it up, as BRIN does */
	heap = table_open(IndexGetRelation(RelationGetRelid(index), false),
					  AccessShareLock);
	nheapblocks = RelationGetNumberOfBlocks(heap);
	table_close(heap, AccessShareLock);

	nsegs = (nheapblocks + state->pages_per_segment - 1) /
		state->pages_per_segment;
	so->dirvalid = false;

	for (segno = 0; segno < nsegs; segno++)
	{
		ScbfSegEntry seg;
		int			r = SCBF_SEG_WHOLE;
		ScbfWholeReason why = SCBF_WHOLE_NO_ENTRY;
		int			attempt;
		BlockNumber failblk = InvalidBlockNumber;
		BlockNumber lastfail = InvalidBlockNumber;

		CHECK_FOR_INTERRUPTS();

		ScbfScanDirEntry(scan, state, segno, &seg);
		if (seg.flags & SCBF_SEG_EMPTY)
			continue;			/* no tuple here at build, none inserted */

		for (attempt = 0; !ScbfSegEntryIsEmpty(&seg); attempt++)
		{
			ScbfSegEntry fresh;

			so->ntids = 0;
			if (so->trace != NULL)
				ScbfTraceSegment(so, SCBF_TRACE_ATTEMPT, segno, 0, 0);
			r = ScbfScanSegment(scan, state, segno, &seg, nheapblocks,
								&failblk);
			if (r == SCBF_SEG_WHOLE)
				why = SCBF_WHOLE_RECOUNT;
			if (r != SCBF_SEG_RETRY)
				break;

			/*
			 * The chain changed under us (a concurrent consolidation), or a
			 * page is corrupted.  Re-read the directory and try again; a
			 * failure at the same page with an unchanged entry, repeated, is
			 * corruption.
			 */
			(void) ScbfGetSegEntry(index, state, segno, &fresh);
			if (attempt + 1 >= SCBF_SCAN_RETRIES)
			{
				if (memcmp(&fresh, &seg, sizeof(ScbfSegEntry)) == 0 &&
					failblk == lastfail)
					ScbfReportCorrupt(index, failblk,
									  psprintf("Page is not the filter page that segment %u's chain leads to.",
											   segno));
				r = SCBF_SEG_WHOLE;
				why = SCBF_WHOLE_CHANGING;
				break;
			}
			lastfail = failblk;
			seg = fresh;
			so->dirvalid = false;
		}

		if (r == SCBF_SEG_DONE)
		{
			if (so->ntids > 0)
				tbm_add_tuples(tbm, so->tids, so->ntids, true);
			ntuples += so->ntids;
			if (so->trace != NULL)
				ScbfTraceSegment(so, SCBF_TRACE_DONE, segno, 0, 0);
		}
		else
		{
			BlockNumber start = segno * state->pages_per_segment;
			BlockNumber end = Min(start + state->pages_per_segment,
								  nheapblocks);
			BlockNumber blkno;

			for (blkno = start; blkno < end; blkno++)
				tbm_add_page(tbm, blkno);
			ntuples += 10 * (int64) (end - start);
			if (so->trace != NULL)
				ScbfTraceSegment(so, SCBF_TRACE_WHOLE, segno, why,
								 end - start);
		}
	}

	return ntuples;
}

/*
 * Run scbfgetbitmap over index for the nkeys keys, as a query's bitmap
 * index scan does, and tell fn (with arg) what the scan does with each
 * segment (see ScbfTraceData).  It takes no snapshot (a scan uses one only for
 * old_snapshot_threshold, which scbf_probe never applied) and no predicate
 * lock, is not counted in the index's statistics, and throws its bitmap (at
 * most work_mem) away.  The caller holds at least AccessShareLock on the
 * table and on the index.
 */
void
ScbfTraceScan(Relation index, ScanKey keys, int nkeys, ScbfTraceFn fn,
			  void *arg)
{
	IndexScanDesc scan = scbfbeginscan(index, nkeys, 0);
	ScbfScanOpaque so = (ScbfScanOpaque) scan->opaque;
	TIDBitmap  *tbm;

	so->trace = fn;
	so->trace_arg = arg;
	scbfrescan(scan, keys, nkeys, NULL, 0);

	tbm = tbm_create(work_mem * 1024L, NULL);
	(void) scbfgetbitmap(scan, tbm);
	tbm_free(tbm);

	scbfendscan(scan);
	IndexScanEnd(scan);
}

/*
 * amendscan
 */
void
scbfendscan(IndexScanDesc scan)
{
	ScbfScanOpaque so = (ScbfScanOpaque) scan->opaque;

	MemoryContextDelete(so->keycxt);
	pfree(so->dir);
	pfree(so);
}
