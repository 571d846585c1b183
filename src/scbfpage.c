/*-------------------------------------------------------------------------
 *
 * scbfpage.c
 *	  Page initialization, buffer allocation, the metapage cache and the
 *	  segment directory of scbf.
 *
 * NOTES
 *	  Lock order, everywhere in scbf: metapage -> directory page -> filter
 *	  heads in chain order -> other blocks of one filter -> that filter's
 *	  ledger pages in list order -> a ledger page of an older filter (only
 *	  when entries are moved).  A backend never waits for a lock earlier in
 *	  this order while holding a later one.
 *
 *	  The directory is found by arithmetic: segment s lives on directory page
 *	  s / SCBF_DIR_ENTRIES_PER_PAGE of the metapage's map, in slot
 *	  s % SCBF_DIR_ENTRIES_PER_PAGE.  Directory pages are added on demand
 *	  (one WAL record with the metapage) and never freed, so a backend's
 *	  cached copy of the map only ever lacks new pages.
 *
 * Portions Copyright (c) 2026, scbf developers
 *
 * IDENTIFICATION
 *	  src/scbfpage.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "miscadmin.h"
#include "storage/indexfsm.h"
#include "storage/lmgr.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "scbf.h"

/* Seed mixing constant for the per-column filter key seeds */
#define SCBF_SEED_STRIDE	UINT64CONST(0x9E3779B97F4A7C15)

/*
 * Raise ERRCODE_INDEX_CORRUPTED for a page that cannot be what the index
 * structure says it is.  "what" says what was expected, for the DETAIL.
 */
void
ScbfReportCorrupt(Relation index, BlockNumber blkno, const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_INDEX_CORRUPTED),
			 errmsg("index \"%s\" contains a corrupted page at block %u",
					RelationGetRelationName(index), blkno),
			 errdetail("%s", what),
			 errhint("Please REINDEX it.")));
}

/*
 * True if the page carries scbf's special space (right size, right page id).
 * Checked before any other field of the special space is trusted.
 */
static bool
ScbfPageHasOpaque(Page page)
{
	if (PageIsNew(page))
		return false;
	if (((PageHeader) page)->pd_special !=
		BLCKSZ - MAXALIGN(sizeof(ScbfPageOpaqueData)))
		return false;
	return ScbfPageGetOpaque(page)->page_id == SCBF_PAGE_ID;
}

/*
 * Report that an operation of format 1 met an index of format 2, which
 * does not support it yet (src/README, "Storage v2", Steps).
 */
static void
ScbfReportFormat2(Relation index)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("index \"%s\" has storage format 2, which this operation does not support yet",
					RelationGetRelationName(index)),
			 errhint("Build it in format 1 (scbf.build_format = 1).")));
}

/*
 * Check the metapage: magic, version, and sane layout parameters.  Raises
 * ERRCODE_INDEX_CORRUPTED on any mismatch.  Caller holds a lock on it.
 */
void
ScbfCheckMetaPage(Relation index, Page page)
{
	ScbfMetaPageData *meta;

	if (!ScbfPageHasOpaque(page) || ScbfPageGetType(page) != SCBF_PAGE_META)
		ScbfReportCorrupt(index, SCBF_METAPAGE_BLKNO,
						  "Block 0 is not an scbf metapage.");
	meta = ScbfPageGetMeta(page);
	if (meta->magic != SCBF_MAGIC_NUMBER)
		ScbfReportCorrupt(index, SCBF_METAPAGE_BLKNO,
						  "The metapage has a wrong magic number.");
	if (meta->version == SCBF2_FORMAT_VERSION)
		ScbfReportFormat2(index);
	if (meta->version != SCBF_FORMAT_VERSION)
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" has format version %u, this scbf expects %u",
						RelationGetRelationName(index), meta->version,
						SCBF_FORMAT_VERSION),
				 errhint("REINDEX the index.")));
	if (meta->pages_per_segment < 1 ||
		meta->pages_per_segment > SCBF_MAX_PAGES_PER_SEGMENT ||
		meta->ncols < 1 || meta->ncols > INDEX_MAX_KEYS ||
		meta->k < 1 || meta->k > SCBF_FILTER_MAX_K ||
		meta->slice_counters < 1 ||
		(uint64) meta->k * meta->slice_counters > 2 * (uint64) SCBF_FILTER_COUNTER_BYTES ||
		meta->ndirpages > SCBF_MAX_DIR_PAGES)
		ScbfReportCorrupt(index, SCBF_METAPAGE_BLKNO,
						  "The metapage has impossible layout parameters.");
}

/*
 * Copy the directory map and the sizing hint from a (locked) metapage into
 * the cached state.
 */
static void
ScbfCopyDirMap(ScbfState *state, ScbfMetaPageData *meta)
{
	state->ndirpages = meta->ndirpages;
	memcpy(state->dirpages, meta->dirpages,
		   sizeof(BlockNumber) * meta->ndirpages);
	state->keys_hint = meta->keys_hint;
}

/*
 * Fill an ScbfState from a metapage's frozen layout.  Used by the relcache
 * cache below and by the build before the metapage is on disk.
 */
void
ScbfStateFromMeta(ScbfState *state, ScbfMetaPageData *meta)
{
	int			col;

	state->format = SCBF_FORMAT_VERSION;
	state->pages_per_segment = meta->pages_per_segment;
	state->ncols = meta->ncols;
	state->geom.k = meta->k;
	state->geom.m = meta->slice_counters;
	state->block_capacity = meta->block_capacity;
	state->target_fpr = meta->target_fpr;
	state->hash_seed = meta->hash_seed;
	state->entry_size = ScbfEntrySize(meta->ncols);
	state->ledger_capacity = SCBF_LEDGER_BYTES / state->entry_size;
	for (col = 0; col < meta->ncols; col++)
		state->seeds[col] = (uint64) meta->hash_seed +
			SCBF_SEED_STRIDE * (uint64) (col + 1);
	ScbfCopyDirMap(state, meta);
}

/*
 * Allocate an empty ScbfState in the given context.
 */
ScbfState *
ScbfAllocState(MemoryContext cxt)
{
	return (ScbfState *)
		MemoryContextAllocZero(cxt, offsetof(ScbfState, dirpages) +
							   sizeof(BlockNumber) * SCBF_MAX_DIR_PAGES);
}

/*
 * Return the index's cached state, reading the metapage on first use.  The
 * cache lives in rd_amcache, which the relcache frees on invalidation (for
 * instance when REINDEX or TRUNCATE gives the index a new relfilenode).
 */
ScbfState *
ScbfGetState(Relation index)
{
	if (index->rd_amcache != NULL &&
		*(uint32 *) index->rd_amcache != SCBF_FORMAT_VERSION)
		ScbfReportFormat2(index);
	if (index->rd_amcache == NULL)
	{
		ScbfState  *state = ScbfAllocState(index->rd_indexcxt);
		Buffer		buf;
		Page		page;

		buf = ReadBuffer(index, SCBF_METAPAGE_BLKNO);
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		ScbfCheckMetaPage(index, page);
		ScbfStateFromMeta(state, ScbfPageGetMeta(page));
		UnlockReleaseBuffer(buf);

		if (state->ncols != IndexRelationGetNumberOfKeyAttributes(index))
			ScbfReportCorrupt(index, SCBF_METAPAGE_BLKNO,
							  "The metapage's column count does not match the index definition.");
		index->rd_amcache = state;
	}
	return (ScbfState *) index->rd_amcache;
}

/*
 * Re-read the directory map (and sizing hint) from the metapage, after a
 * segment fell past the end of the cached map.
 */
void
ScbfRefreshDirMap(Relation index, ScbfState *state)
{
	Buffer		buf;
	Page		page;

	buf = ReadBuffer(index, SCBF_METAPAGE_BLKNO);
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buf);
	ScbfCheckMetaPage(index, page);
	ScbfCopyDirMap(state, ScbfPageGetMeta(page));
	UnlockReleaseBuffer(buf);
}

/*
 * Initialize a page of any scbf type with an empty body.
 */
void
ScbfInitPage(Page page, uint8 type, uint32 segno, uint32 serial,
			 uint16 blkidx)
{
	ScbfPageOpaque opaque;

	PageInit(page, BLCKSZ, sizeof(ScbfPageOpaqueData));
	opaque = ScbfPageGetOpaque(page);
	opaque->segno = segno;
	opaque->serial = serial;
	opaque->blkidx = blkidx;
	opaque->type = type;
	opaque->page_id = SCBF_PAGE_ID;
}

/*
 * Initialize the metapage from the options in force (defaults when the
 * index has none): freeze the layout and start with an empty directory.
 */
void
ScbfInitMetaPage(Page page, Relation index, int pages_per_segment, double fpr)
{
	ScbfMetaPageData *meta;
	scbf_filter_geometry geom;

	if (scbf_filter_geometry_for_bytes(fpr, SCBF_FILTER_COUNTER_BYTES,
									   &geom) != SCBF_FILTER_OK)
		elog(ERROR, "could not size scbf filter for false_positive_rate %g",
			 fpr);

	ScbfInitPage(page, SCBF_PAGE_META, 0, 0, 0);
	meta = ScbfPageGetMeta(page);
	meta->magic = SCBF_MAGIC_NUMBER;
	meta->version = SCBF_FORMAT_VERSION;
	meta->pages_per_segment = pages_per_segment;
	meta->ncols = IndexRelationGetNumberOfKeyAttributes(index);
	meta->k = geom.k;
	meta->counter_bits = SCBF_FILTER_COUNTER_BITS;
	meta->slice_counters = geom.m;
	meta->block_capacity = scbf_filter_block_capacity(&geom, fpr);
	meta->hash_seed = SCBF_HASH_SEED;
	meta->target_fpr = fpr;
	meta->ndirpages = 0;

	/* the whole struct, map included, must stay below pd_lower */
	((PageHeader) page)->pd_lower = MAXALIGN(SizeOfPageHeaderData) +
		offsetof(ScbfMetaPageData, dirpages) +
		sizeof(BlockNumber) * SCBF_MAX_DIR_PAGES;
	Assert(((PageHeader) page)->pd_lower <= ((PageHeader) page)->pd_upper);
}

/*
 * Initialize a segment directory page: all entries empty.
 */
void
ScbfInitDirPage(Page page, uint32 dirno)
{
	ScbfInitPage(page, SCBF_PAGE_DIRECTORY, 0, 0, (uint16) dirno);
	((PageHeader) page)->pd_lower = MAXALIGN(SizeOfPageHeaderData) +
		sizeof(ScbfSegEntry) * SCBF_DIR_ENTRIES_PER_PAGE;
}

/*
 * Initialize block blkidx of filter (segno, serial): zero counters.  The
 * head fields are the caller's business.
 */
void
ScbfInitFilterPage(Page page, ScbfState *state, uint32 segno, uint32 serial,
				   uint16 blkidx)
{
	ScbfInitPage(page, SCBF_PAGE_FILTER, segno, serial, blkidx);
	((PageHeader) page)->pd_lower = MAXALIGN(SizeOfPageHeaderData) +
		MAXALIGN(sizeof(ScbfFilterPageData)) +
		scbf_filter_bytes(&state->geom);
	Assert(((PageHeader) page)->pd_lower <= ((PageHeader) page)->pd_upper);
}

/*
 * Initialize an empty ledger page of filter (segno, serial).
 */
void
ScbfInitLedgerPage(Page page, uint32 segno, uint32 serial)
{
	ScbfInitPage(page, SCBF_PAGE_LEDGER, segno, serial, 0);
	((PageHeader) page)->pd_lower = MAXALIGN(SizeOfPageHeaderData) +
		MAXALIGN(sizeof(ScbfLedgerPageData));
}

/*
 * Set pd_lower of a ledger page to the end of its entries, so that generic
 * WAL keeps them (it zeroes the hole above pd_lower).
 */
void
ScbfLedgerSetLower(Page page, ScbfState *state)
{
	ScbfLedgerPageData *ledger = ScbfPageGetLedger(page);

	((PageHeader) page)->pd_lower = MAXALIGN(SizeOfPageHeaderData) +
		MAXALIGN(sizeof(ScbfLedgerPageData)) +
		state->entry_size * ledger->nentries;
	Assert(((PageHeader) page)->pd_lower <= ((PageHeader) page)->pd_upper);
}

/*
 * True for a page that may be reused: never initialized, or freed.
 */
bool
ScbfPageIsFree(Page page)
{
	if (PageIsNew(page))
		return true;
	return ScbfPageHasOpaque(page) && ScbfPageGetType(page) == SCBF_PAGE_FREE;
}

/*
 * Turn a page into a free page (in a WAL-registered image).
 */
void
ScbfMarkPageFree(Page page)
{
	ScbfInitPage(page, SCBF_PAGE_FREE, 0, 0, 0);
}

/*
 * True if the page is block blkidx of filter (segno, serial) and its head
 * fields are sane.  A false answer means the pointer that led here is stale
 * (the filter was dropped and the page reused) or the page is corrupted;
 * callers tell the two apart by re-reading the pointer.
 */
bool
ScbfPageIsFilter(Page page, uint32 segno, uint32 serial, uint16 blkidx)
{
	ScbfPageOpaque opaque;
	ScbfFilterPageData *filter;

	if (!ScbfPageHasOpaque(page))
		return false;
	opaque = ScbfPageGetOpaque(page);
	if (opaque->type != SCBF_PAGE_FILTER || opaque->segno != segno ||
		opaque->serial != serial || opaque->blkidx != blkidx)
		return false;
	if (blkidx != 0)
		return true;
	filter = ScbfPageGetFilter(page);
	return filter->nblocks >= 1 && filter->nblocks <= SCBF_MAX_BLOCKS &&
		filter->nlinked >= 1 && filter->nlinked <= filter->nblocks &&
		filter->state >= SCBF_FILTER_GROWING &&
		filter->state <= SCBF_FILTER_DROPPING;
}

/*
 * True if the page is a sane ledger page of filter (segno, serial) for an
 * index whose ledger pages hold "capacity" entries.
 */
bool
ScbfPageIsLedger(Page page, uint32 segno, uint32 serial, uint32 capacity)
{
	ScbfPageOpaque opaque;
	ScbfLedgerPageData *ledger;

	if (!ScbfPageHasOpaque(page))
		return false;
	opaque = ScbfPageGetOpaque(page);
	if (opaque->type != SCBF_PAGE_LEDGER || opaque->segno != segno ||
		opaque->serial != serial)
		return false;
	ledger = ScbfPageGetLedger(page);
	return ledger->nentries <= capacity &&
		ledger->ntombstones <= ledger->nentries;
}

/*
 * Get an exclusively locked buffer for a new page: a free page recorded in
 * the FSM if one can be locked at once and really is free, else a new block
 * at the end of the relation.  The caller initializes it and registers it
 * with GENERIC_XLOG_FULL_IMAGE.
 */
Buffer
ScbfNewBuffer(Relation index)
{
	Buffer		buffer;
	bool		needLock;

	for (;;)
	{
		BlockNumber blkno = GetFreeIndexPage(index);

		if (blkno == InvalidBlockNumber)
			break;

		buffer = ReadBuffer(index, blkno);

		/*
		 * Never wait for the page: another backend may hold it (it may even
		 * be ours, locked earlier in this operation).
		 */
		if (ConditionalLockBuffer(buffer))
		{
			if (ScbfPageIsFree(BufferGetPage(buffer)))
				return buffer;
			LockBuffer(buffer, BUFFER_LOCK_UNLOCK);
		}
		ReleaseBuffer(buffer);
	}

	needLock = !RELATION_IS_LOCAL(index);
	if (needLock)
		LockRelationForExtension(index, ExclusiveLock);
	buffer = ReadBuffer(index, P_NEW);
	LockBuffer(buffer, BUFFER_LOCK_EXCLUSIVE);
	if (needLock)
		UnlockRelationForExtension(index, ExclusiveLock);

	return buffer;
}

/*
 * Tell the FSM about pages that were just freed (after their WAL record is
 * written and their locks released).
 */
void
ScbfRecordFreePages(Relation index, BlockNumber *blocks, int n)
{
	int			i;

	for (i = 0; i < n; i++)
		RecordFreeIndexPage(index, blocks[i]);
}

/*
 * Pointer to segment segno's entry on its (locked) directory page.
 */
ScbfSegEntry *
ScbfDirEntry(Page page, uint32 segno)
{
	return ScbfPageGetDir(page) + (segno % SCBF_DIR_ENTRIES_PER_PAGE);
}

/*
 * Lock and return the directory page that holds segment segno, in the given
 * buffer lock mode.  Returns InvalidBuffer if the segment is past the
 * directory's capacity, or if its directory page does not exist and create
 * is false.  With create, missing directory pages are added, each in one WAL
 * record with the metapage (metapage locked exclusively meanwhile, released
 * before the directory page is locked).
 */
Buffer
ScbfReadDirPage(Relation index, ScbfState *state, uint32 segno, int mode,
				bool create)
{
	uint32		dirno = segno / SCBF_DIR_ENTRIES_PER_PAGE;
	Buffer		buf;
	Page		page;

	if (dirno >= SCBF_MAX_DIR_PAGES)
		return InvalidBuffer;

	if (dirno >= state->ndirpages)
		ScbfRefreshDirMap(index, state);

	if (dirno >= state->ndirpages)
	{
		Buffer		metabuf;
		ScbfMetaPageData *meta;

		if (!create)
			return InvalidBuffer;

		metabuf = ReadBuffer(index, SCBF_METAPAGE_BLKNO);
		LockBuffer(metabuf, BUFFER_LOCK_EXCLUSIVE);
		ScbfCheckMetaPage(index, BufferGetPage(metabuf));
		meta = ScbfPageGetMeta(BufferGetPage(metabuf));

		while (meta->ndirpages <= dirno)
		{
			GenericXLogState *xlog;
			Buffer		newbuf = ScbfNewBuffer(index);
			Page		metapage;
			Page		newpage;
			ScbfMetaPageData *xmeta;

			xlog = GenericXLogStart(index);
			metapage = GenericXLogRegisterBuffer(xlog, metabuf, 0);
			newpage = GenericXLogRegisterBuffer(xlog, newbuf,
												GENERIC_XLOG_FULL_IMAGE);
			xmeta = ScbfPageGetMeta(metapage);
			ScbfInitDirPage(newpage, xmeta->ndirpages);
			xmeta->dirpages[xmeta->ndirpages] = BufferGetBlockNumber(newbuf);
			xmeta->ndirpages++;
			GenericXLogFinish(xlog);
			UnlockReleaseBuffer(newbuf);
		}
		ScbfCopyDirMap(state, meta);
		UnlockReleaseBuffer(metabuf);
	}

	buf = ReadBuffer(index, state->dirpages[dirno]);
	LockBuffer(buf, mode);
	page = BufferGetPage(buf);
	if (!ScbfPageHasOpaque(page) ||
		ScbfPageGetType(page) != SCBF_PAGE_DIRECTORY ||
		ScbfPageGetOpaque(page)->blkidx != (uint16) dirno)
		ScbfReportCorrupt(index, BufferGetBlockNumber(buf),
						  psprintf("Expected segment directory page %u.", dirno));
	return buf;
}

/*
 * Copy segment segno's directory entry.  Returns false if the segment has
 * no entry (no directory page yet, past capacity, or never created).
 */
bool
ScbfGetSegEntry(Relation index, ScbfState *state, uint32 segno,
				ScbfSegEntry *entry)
{
	Buffer		buf;

	buf = ScbfReadDirPage(index, state, segno, BUFFER_LOCK_SHARE, false);
	if (!BufferIsValid(buf))
	{
		memset(entry, 0, sizeof(ScbfSegEntry));
		return false;
	}
	*entry = *ScbfDirEntry(BufferGetPage(buf), segno);
	UnlockReleaseBuffer(buf);
	return !ScbfSegEntryIsEmpty(entry);
}

/*
 * Hash column col's (non-null) value with its opclass's hash function and
 * the column's collation, and canonicalize it for the ledger.
 */
uint32
ScbfHashDatum(Relation index, int col, Datum value)
{
	FmgrInfo   *proc = index_getprocinfo(index, col + 1, SCBF_HASH_PROC);
	uint32		hash;

	hash = DatumGetUInt32(FunctionCall1Coll(proc,
											index->rd_indcollation[col],
											value));
	return ScbfCanonicalHash(hash);
}

/*
 * Compute a key's filter key and slice positions from column col's stored
 * 32-bit hash.
 */
void
ScbfComputeKey(ScbfState *state, int col, uint32 hash, ScbfKeyPos *kp)
{
	kp->key = scbf_filter_key(hash, state->seeds[col]);
	scbf_filter_positions(kp->key, &state->geom, kp->pos);
}

/*
 * Number of blocks for a new filter expected to take nkeys distinct keys,
 * with SCBF_SIZING_HEADROOM so that the usual spread of keys over blocks
 * does not close the filter early.
 */
int
ScbfFilterBlocksFor(ScbfState *state, uint64 nkeys)
{
	uint64		want = (uint64) ceil((double) nkeys * SCBF_SIZING_HEADROOM);

	return (int) scbf_filter_blocks_for(want, state->block_capacity,
										SCBF_MAX_BLOCKS);
}

/*
 * Read block blkno and lock it in the given mode if it is still the head of
 * filter (segno, serial); else release it and return InvalidBuffer.  For
 * readers that followed a pointer without a lock on its source: the chain
 * may have changed under them, and they retry.
 */
Buffer
ScbfTryLockHead(Relation index, BlockNumber blkno, uint32 segno,
				uint32 serial, int mode)
{
	Buffer		buf = ReadBuffer(index, blkno);

	LockBuffer(buf, mode);
	if (!ScbfPageIsFilter(BufferGetPage(buf), segno, serial, 0))
	{
		UnlockReleaseBuffer(buf);
		return InvalidBuffer;
	}
	return buf;
}

/*
 * Read and lock filter (segno, serial)'s head in the given mode.  The
 * callers reached it through a pointer that only they could have changed,
 * so a mismatch is corruption.
 */
Buffer
ScbfLockHead(Relation index, BlockNumber blkno, uint32 segno, uint32 serial,
			 int mode)
{
	Buffer		buf = ScbfTryLockHead(index, blkno, segno, serial, mode);

	if (!BufferIsValid(buf))
		ScbfReportCorrupt(index, blkno,
						  psprintf("Expected the head of filter %u of segment %u.",
								   serial, segno));
	return buf;
}

/*
 * Start a guarded walk of the given kind over segment segno's chain (serial
 * unused), or over the ledger or room list of filter (segno, serial).  See
 * ScbfWalk in scbf.h.
 */
void
ScbfWalkStart(ScbfWalk *walk, Relation index, ScbfWalkKind kind,
			  uint32 segno, uint32 serial)
{
	walk->index = index;
	walk->kind = kind;
	walk->segno = segno;
	walk->serial = serial;
	walk->nindex = RelationGetNumberOfBlocks(index);
	walk->nsteps = 0;
	walk->last = InvalidBlockNumber;
}

/*
 * What a walk walks along, for its error messages.
 */
static char *
ScbfWalkName(ScbfWalk *walk)
{
	switch (walk->kind)
	{
		case SCBF_WALK_CHAIN:
			return psprintf("Segment %u's chain", walk->segno);
		case SCBF_WALK_LEDGER:
			return psprintf("The ledger of filter %u of segment %u",
							walk->serial, walk->segno);
		case SCBF_WALK_ROOM:
			return psprintf("The room list of filter %u of segment %u",
							walk->serial, walk->segno);
	}
	return pstrdup("A list");
}

/*
 * The walk is about to read block blkno, its next page.  Answers
 * interrupts (a no-op while the caller holds a buffer lock: the lock holds
 * them off, and the bound below then ends the walk), and raises
 * ERRCODE_INDEX_CORRUPTED if blkno is the metapage or past the end of the
 * index (measured again before saying so: the index may have grown since),
 * or if the walk has reached more pages than the index has, which only a
 * list that loops can do.
 */
void
ScbfWalkStep(ScbfWalk *walk, BlockNumber blkno)
{
	BlockNumber from = BlockNumberIsValid(walk->last) ? walk->last : blkno;

	CHECK_FOR_INTERRUPTS();

	if (blkno != SCBF_METAPAGE_BLKNO && blkno >= walk->nindex)
		walk->nindex = RelationGetNumberOfBlocks(walk->index);
	if (blkno == SCBF_METAPAGE_BLKNO || blkno >= walk->nindex)
		ScbfReportCorrupt(walk->index, from,
						  psprintf("%s leads to block %u, which is not a page it can hold.",
								   ScbfWalkName(walk), blkno));
	if (++walk->nsteps > walk->nindex)
		ScbfReportCorrupt(walk->index, blkno,
						  psprintf("%s loops.", ScbfWalkName(walk)));
	walk->last = blkno;
}

/*
 * The chain walk is about to read the head of filter serial at blkno:
 * ScbfWalkStep, and serials must increase along a chain (the directory
 * hands them out in order), so a filter whose serial does not is a loop.
 */
void
ScbfWalkFilter(ScbfWalk *walk, BlockNumber blkno, uint32 serial)
{
	Assert(walk->kind == SCBF_WALK_CHAIN);
	if (walk->nsteps > 0 && serial <= walk->serial)
		ScbfReportCorrupt(walk->index, blkno,
						  psprintf("Segment %u's chain goes from filter %u back to filter %u.",
								   walk->segno, walk->serial, serial));
	ScbfWalkStep(walk, blkno);
	walk->serial = serial;
}
