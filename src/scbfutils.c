/*-------------------------------------------------------------------------
 *
 * scbfutils.c
 *	  The per-relation state, the metapage, new and free pages, and page
 *	  checks shared by the page-kind modules.
 *
 * NOTES
 *	  Scbf2GetState() is where every entry point (the AM callbacks, the
 *	  diagnostics, the verifier) meets the metapage first: it checks it
 *	  once per relcache entry and caches the layout in rd_amcache.  An
 *	  index of storage format 1, which this version no longer reads, or of
 *	  an older layout of format 2, gets a clear error telling the user to
 *	  REINDEX it (src/README, D9), as the hash AM does for a wrong hash
 *	  version.  Reading a page of a given kind goes through
 *	  Scbf2ReadPage(), which checks the block against the end of the index
 *	  and the page's kind before anyone looks inside, so a stale or
 *	  corrupted pointer ends in ERRCODE_INDEX_CORRUPTED, never in a read of
 *	  something else.
 *
 * Portions Copyright (c) 2026, scbf developers
 *
 * IDENTIFICATION
 *	  src/scbfutils.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/generic_xlog.h"
#include "access/transam.h"
#include "commands/vacuum.h"
#include "miscadmin.h"
#include "storage/indexfsm.h"
#include "storage/lmgr.h"
#include "utils/snapmgr.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "scbf2.h"
#include "scbf_page.h"

/* The per-column seeds (format 1 derived them so too) */
#define SCBF2_SEED_STRIDE	UINT64CONST(0x9E3779B97F4A7C15)

/*
 * ScbfReportCorrupt
 *		Raise ERRCODE_INDEX_CORRUPTED for a page that cannot be what the
 *		index structure says it is.  "what" says what was expected, for the
 *		DETAIL.
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
 * Scbf2PageHasOpaque
 *		True if the page carries an scbf special space (any format).
 */
bool
Scbf2PageHasOpaque(Page page)
{
	if (PageIsNew(page))
		return false;
	if (((PageHeader) page)->pd_special !=
		BLCKSZ - MAXALIGN(sizeof(Scbf2PageOpaqueData)))
		return false;
	return Scbf2PageGetOpaque(page)->page_id == SCBF_PAGE_ID;
}

/*
 * Check a format-2 metapage; ERRCODE_INDEX_CORRUPTED if it cannot be one.
 */
static void
Scbf2CheckMetaPage(Relation index, Page page)
{
	Scbf2MetaPageData *meta = Scbf2PageGetMeta(page);

	if (!Scbf2PageHasOpaque(page) ||
		Scbf2PageGetOpaque(page)->type != SCBF_PAGE_META ||
		meta->magic != SCBF_MAGIC_NUMBER)
		ScbfReportCorrupt(index, SCBF_METAPAGE_BLKNO,
						  "Block 0 is not an scbf metapage.");

	/*
	 * Format 1 kept the magic, the version and the special space where
	 * format 2 has them: its metapage is recognized, and refused.
	 */
	if (meta->version == SCBF1_FORMAT_VERSION)
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" has storage format version %u",
						RelationGetRelationName(index), meta->version),
				 errdetail("This version of scbf reads storage format version %u only: format %u (per-segment counting filter chains) is no longer supported.",
						   SCBF2_FORMAT_VERSION, SCBF1_FORMAT_VERSION),
				 errhint("REINDEX it.")));
	if (meta->version != SCBF2_FORMAT_VERSION)
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" has storage format version %u",
						RelationGetRelationName(index), meta->version),
				 errdetail("This version of scbf reads storage format version %u only.",
						   SCBF2_FORMAT_VERSION),
				 errhint("REINDEX it.")));
	if ((meta->flags & SCBF2_META_LAYOUT) != SCBF2_META_LAYOUT)
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" has an older layout of storage format 2",
						RelationGetRelationName(index)),
				 errdetail("It was built by a development version of scbf whose %s.",
						   (meta->flags & SCBF2_META_DELTA) == 0 ?
						   "metapage had no delta" :
						   "ledger roots held no inline leaves"),
				 errhint("REINDEX it.")));
	if (meta->pages_per_segment < 1 ||
		meta->pages_per_segment > SCBF_MAX_PAGES_PER_SEGMENT ||
		meta->ncols < 1 || meta->ncols > INDEX_MAX_KEYS ||
		meta->k < 1 || meta->k > SCBF_ROWS_MAX_K || meta->m < 1 ||
		(uint64) meta->k * meta->m > PG_UINT32_MAX ||
		meta->ntablepages > SCBF2_MAX_TABLE_PAGES ||
		meta->nfilters > (uint64) meta->ntablepages *
		Scbf2EntriesPerPage(meta->ncols) ||
		meta->band_width % 8 != 0 ||
		meta->band_width > 2 * (uint64) SCBF2_MAX_TABLE_PAGES *
		Scbf2EntriesPerPage(meta->ncols) + 64 ||
		(meta->nfilters > 0 &&
		 (meta->band_width < meta->nfilters ||
		  meta->band_rows_per_page < 1 ||
		  meta->band_rows_per_page !=
		  scbf_rows_per_page(SCBF2_PAGE_SPACE, meta->band_width) ||
		  (uint64) meta->band_pages * meta->band_rows_per_page <
		  (uint64) meta->k * meta->m)))
		ScbfReportCorrupt(index, SCBF_METAPAGE_BLKNO,
						  "The metapage has impossible layout parameters.");
}

/*
 * Scbf2InitState
 *		Fill in the state of an index of this layout.
 */
void
Scbf2InitState(Scbf2State *state, const Scbf2Layout *layout)
{
	int			col;

	memset(state, 0, sizeof(Scbf2State));
	state->ncols = layout->ncols;
	state->pages_per_segment = layout->pages_per_segment;
	state->geom.k = layout->k;
	state->geom.m = layout->m;
	state->capacity = layout->capacity;
	state->target_fpr = layout->target_fpr;
	for (col = 0; col < layout->ncols; col++)
		state->seeds[col] = (uint64) SCBF_HASH_SEED +
			SCBF2_SEED_STRIDE * (uint64) (col + 1);
}

/*
 * Build the cached state of a format-2 index from its metapage.
 */
static Scbf2State *
Scbf2StateFromMeta(Relation index, Scbf2MetaPageData *meta)
{
	Scbf2State *state;
	Scbf2Layout layout;

	if (meta->ncols != IndexRelationGetNumberOfKeyAttributes(index) ||
		meta->hash_seed != SCBF_HASH_SEED)
		ScbfReportCorrupt(index, SCBF_METAPAGE_BLKNO,
						  "The metapage's column count or seed does not match the index.");
	memset(&layout, 0, sizeof(layout));
	layout.ncols = meta->ncols;
	layout.pages_per_segment = meta->pages_per_segment;
	layout.k = meta->k;
	layout.m = meta->m;
	layout.capacity = meta->capacity;
	layout.target_fpr = meta->target_fpr;
	state = MemoryContextAlloc(index->rd_indexcxt, sizeof(Scbf2State));
	Scbf2InitState(state, &layout);
	return state;
}

/*
 * Scbf2InitMetaPage
 *		A format-2 metapage for this layout, with an empty pending area.
 */
void
Scbf2InitMetaPage(Page page, const Scbf2Layout *layout)
{
	Scbf2MetaPageData *meta;
	int			i;

	PageInit(page, BLCKSZ, sizeof(Scbf2PageOpaqueData));
	Scbf2PageGetOpaque(page)->type = SCBF_PAGE_META;
	Scbf2PageGetOpaque(page)->page_id = SCBF_PAGE_ID;
	meta = Scbf2PageGetMeta(page);
	meta->magic = SCBF_MAGIC_NUMBER;
	meta->version = SCBF2_FORMAT_VERSION;
	meta->pages_per_segment = (uint16) layout->pages_per_segment;
	meta->ncols = (uint16) layout->ncols;
	meta->k = (uint16) layout->k;
	meta->flags = SCBF2_META_LAYOUT;
	meta->m = layout->m;
	meta->capacity = layout->capacity;
	meta->hash_seed = SCBF_HASH_SEED;
	meta->target_fpr = layout->target_fpr;
	meta->band_start = layout->band.start;
	meta->band_pages = layout->band.pages;
	meta->band_width = layout->band.width;
	meta->band_rows_per_page = layout->band.rows_per_page;
	meta->band_serial = layout->band.serial;
	meta->delta_start = InvalidBlockNumber;
	meta->delta_pages = 0;
	meta->delta_serial = 0;
	meta->nfilters = layout->nfilters;
	meta->table_generation = 1;
	meta->ntablepages = layout->ntablepages;
	meta->fold_serial = 0;
	for (i = 0; i < SCBF2_NPENDING; i++)
	{
		meta->pending[i].head = InvalidBlockNumber;
		meta->pending[i].tail = InvalidBlockNumber;
	}
	meta->nentries = layout->nentries;
	meta->nsegments = layout->nsegments;
	meta->nledger_pages = layout->nledger_pages;
	meta->mean_fpr = layout->mean_fpr;
	if (layout->ntablepages > 0)
		memcpy(meta->tablepages, layout->tablepages,
			   sizeof(BlockNumber) * layout->ntablepages);

	/* the whole struct, table list included, stays below pd_lower */
	((PageHeader) page)->pd_lower = MAXALIGN(SizeOfPageHeaderData) +
		offsetof(Scbf2MetaPageData, tablepages) +
		sizeof(BlockNumber) * SCBF2_MAX_TABLE_PAGES;
	Assert(((PageHeader) page)->pd_lower <= ((PageHeader) page)->pd_upper);
}

/*
 * Scbf2GetState
 *		The cached state of the index, made from its metapage on the first
 *		call for this relcache entry.  An index whose metapage is not one
 *		of this version's (storage format 1, an older layout of format 2,
 *		corruption) raises ERRCODE_INDEX_CORRUPTED here, whatever reads it
 *		first: a scan, an insert, VACUUM, a diagnostic or the verifier.
 */
Scbf2State *
Scbf2GetState(Relation index)
{
	Buffer		buf;
	Page		page;

	if (index->rd_amcache != NULL)
		return (Scbf2State *) index->rd_amcache;

	buf = ReadBuffer(index, SCBF_METAPAGE_BLKNO);
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buf);
	Scbf2CheckMetaPage(index, page);	/* an error releases the lock */
	index->rd_amcache = Scbf2StateFromMeta(index, Scbf2PageGetMeta(page));
	UnlockReleaseBuffer(buf);
	return (Scbf2State *) index->rd_amcache;
}

/*
 * Scbf2ReadMetaIfCurrent
 *		A palloc'd copy of the metapage's contents, checked, or NULL if
 *		block 0 is not a metapage of this version's storage format and
 *		layout: for the planner, which must not fail a query that need not
 *		use such an index (Scbf2GetState raises the error when the index is
 *		used).  Nothing is cached.
 */
Scbf2Meta *
Scbf2ReadMetaIfCurrent(Relation index)
{
	Scbf2MetaPageData *copy = NULL;
	Buffer		buf = ReadBuffer(index, SCBF_METAPAGE_BLKNO);
	Page		page;

	LockBuffer(buf, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buf);
	if (Scbf2PageHasOpaque(page) &&
		Scbf2PageGetOpaque(page)->type == SCBF_PAGE_META &&
		Scbf2PageGetMeta(page)->magic == SCBF_MAGIC_NUMBER &&
		Scbf2PageGetMeta(page)->version == SCBF2_FORMAT_VERSION &&
		(Scbf2PageGetMeta(page)->flags & SCBF2_META_LAYOUT) ==
		SCBF2_META_LAYOUT)
	{
		Scbf2CheckMetaPage(index, page);	/* an error releases the lock */
		copy = palloc(SCBF2_PAGE_SPACE);
		memcpy(copy, Scbf2PageGetMeta(page), SCBF2_PAGE_SPACE);
	}
	UnlockReleaseBuffer(buf);
	return copy;
}

/*
 * Scbf2ReadMeta
 *		A palloc'd copy of the metapage's contents, checked.
 */
Scbf2Meta *
Scbf2ReadMeta(Relation index)
{
	Scbf2MetaPageData *copy = palloc(SCBF2_PAGE_SPACE);
	Buffer		buf;
	Page		page;

	buf = ReadBuffer(index, SCBF_METAPAGE_BLKNO);
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buf);
	Scbf2CheckMetaPage(index, page);
	memcpy(copy, Scbf2PageGetMeta(page), SCBF2_PAGE_SPACE);
	UnlockReleaseBuffer(buf);
	return copy;
}

/*
 * Filters in the table of a metapage copy.
 */
uint32
Scbf2MetaFilters(const Scbf2Meta *meta)
{
	return meta->nfilters;
}

/*
 * The last committed fold of a metapage copy.
 */
uint64
Scbf2MetaFoldSerial(const Scbf2Meta *meta)
{
	return meta->fold_serial;
}

/*
 * The planner's statistics of a metapage copy.
 */
void
Scbf2MetaStats(const Scbf2Meta *meta, Scbf2Stats *stats)
{
	stats->pages_per_segment = meta->pages_per_segment;
	stats->k = meta->k;
	stats->nfilters = meta->nfilters;
	stats->nsegments = meta->nsegments;
	stats->nentries = meta->nentries;
	stats->nledger_pages = meta->nledger_pages;
	stats->mean_fpr = meta->mean_fpr;
	stats->target_fpr = meta->target_fpr;
}

/*
 * Scbf2KeyPositions
 *		The k row positions of a column's value hash.
 */
void
Scbf2KeyPositions(Scbf2State *state, int col, uint32 hash, uint32 *pos)
{
	scbf_filter_positions(scbf_filter_key(hash, state->seeds[col]),
						  &state->geom, pos);
}

/*
 * Scbf2ReadPage
 *		Pin and lock block blkno, which must be a page of the given type.
 *
 * nblocks is the size of the index as the caller last measured it: a block
 * at or past it cannot be part of any structure.  Reports
 * ERRCODE_INDEX_CORRUPTED otherwise; callers check the owner fields.
 */
Buffer
Scbf2ReadPage(Relation index, BlockNumber blkno, int mode, uint8 type,
			  BlockNumber nblocks)
{
	Buffer		buf;
	Page		page;

	if (blkno == SCBF_METAPAGE_BLKNO || blkno >= nblocks)
		ScbfReportCorrupt(index, blkno,
						  psprintf("A link points to block %u, outside the index's %u blocks.",
								   blkno, nblocks));
	buf = ReadBuffer(index, blkno);
	LockBuffer(buf, mode);
	page = BufferGetPage(buf);
	if (!Scbf2PageHasOpaque(page) || Scbf2PageGetOpaque(page)->type != type)
	{
		UnlockReleaseBuffer(buf);
		ScbfReportCorrupt(index, blkno,
						  psprintf("Block %u is not the page of type %u that a link says it is.",
								   blkno, type));
	}
	return buf;
}

/*
 * Add a grave to a metapage image; the caller made sure there is room.
 * A folded piece of a pending chain that starts where an earlier one of
 * the same chain stops joins it, under the later safexid: a partition
 * holds one grave however many folds ran while a snapshot was open.
 */
static void
Scbf2AddGrave(Scbf2MetaPageData *meta, uint16 kind, BlockNumber first,
			  uint32 n, BlockNumber stop, FullTransactionId safexid)
{
	Scbf2Grave *g;
	uint32		i;

	if (kind == SCBF2_GRAVE_PENDING)
		for (i = 0; i < meta->ngraves; i++)
		{
			g = &meta->graves[i];
			if (g->kind == SCBF2_GRAVE_PENDING && g->stop == first)
			{
				g->stop = stop;
				g->safexid = safexid;
				return;
			}
		}
	if (meta->ngraves >= SCBF2_GRAVES)
		elog(ERROR, "no room for another superseded page range in an scbf metapage");
	g = &meta->graves[meta->ngraves++];
	g->safexid = safexid;
	g->kind = kind;
	g->first = first;
	g->n = n;
	g->stop = stop;
}

/*
 * Graves a metapage copy has room for.
 */
uint32
Scbf2MetaGraveRoom(const Scbf2Meta *meta)
{
	return SCBF2_GRAVES - meta->ngraves;
}

/*
 * Scbf2MetaGoneReadable
 *		True while a probe may still read a ledger run that fold serial
 *		`gone` superseded: gone has not committed, or it committed after the
 *		oldest snapshot began (see SCBF2_MARKS).
 */
bool
Scbf2MetaGoneReadable(const Scbf2Meta *meta, uint64 gone)
{
	const Scbf2SerialMark *best = NULL;
	int			i;

	if (gone > meta->fold_serial)
		return true;
	for (i = 0; i < SCBF2_MARKS; i++)
	{
		const Scbf2SerialMark *mk = &meta->marks[i];

		if (mk->serial >= gone && mk->serial > 0 &&
			(best == NULL || mk->serial < best->serial))
			best = mk;
	}
	if (best == NULL)
		return true;
	return !GlobalVisCheckRemovableFullXid(NULL, best->nextxid);
}

/*
 * Scbf2CommitSerial
 *		The last record of a fold or of a VACUUM's group of filters, on the
 *		metapage: its serial becomes the committed one (and gets its mark),
 *		each folded partition's head moves to its cut, the new band and
 *		filter table are switched in, and what they superseded goes to the
 *		graveyard.
 */
void
Scbf2CommitSerial(Relation index, const Scbf2Commit *fc)
{
	Buffer		metabuf = ReadBuffer(index, SCBF_METAPAGE_BLKNO);
	FullTransactionId safexid;
	GenericXLogState *xlog;
	Scbf2MetaPageData *meta;
	Buffer		cutbufs[SCBF2_NPENDING];
	bool		mayhave[SCBF2_NPENDING];
	BlockNumber nblocks = RelationGetNumberOfBlocks(index);
	int			part;

	/*
	 * Whether entries came past each cut: read under the cut page's lock,
	 * held until the metapage says so, as appends lock the tail before the
	 * metapage.
	 */
	for (part = 0; part < SCBF2_NPENDING; part++)
	{
		const Scbf2PendingCut *cut = &fc->cuts[part];
		Page		page;

		cutbufs[part] = InvalidBuffer;
		if (cut->blkno == InvalidBlockNumber)
			continue;
		cutbufs[part] = Scbf2ReadPage(index, cut->blkno, BUFFER_LOCK_SHARE,
									  SCBF_PAGE_PENDING, nblocks);
		page = BufferGetPage(cutbufs[part]);
		mayhave[part] = Scbf2PageGetPending(page)->nentries > cut->nentries ||
			Scbf2PageGetPending(page)->next != InvalidBlockNumber;
	}

	/*
	 * A probe takes its snapshot before it copies the metapage, so one that
	 * copies it before this record has a snapshot no newer than safexid,
	 * read under the exclusive lock: what this commit supersedes is freed
	 * only once safexid is older than every snapshot.
	 */
	LockBuffer(metabuf, BUFFER_LOCK_EXCLUSIVE);
	safexid = ReadNextFullTransactionId();
	xlog = GenericXLogStart(index);
	meta = Scbf2PageGetMeta(GenericXLogRegisterBuffer(xlog, metabuf, 0));
	if (meta->fold_serial + 1 != fc->serial)
		elog(ERROR, "fold serial of index \"%s\" moved under the fold lock",
			 RelationGetRelationName(index));
	for (part = 0; part < SCBF2_NPENDING; part++)
	{
		Scbf2PendingHead *ph = &meta->pending[part];
		const Scbf2PendingCut *cut = &fc->cuts[part];

		if (cut->blkno == InvalidBlockNumber)
			continue;
		if (ph->head != cut->blkno)
			Scbf2AddGrave(meta, SCBF2_GRAVE_PENDING, ph->head, 0, cut->blkno,
						  safexid);
		ph->head = cut->blkno;
		ph->head_serial = cut->serial;
		ph->cut = cut->nentries;
		if (mayhave[part])
			ph->flags |= SCBF2_PENDING_MAYHAVE;
		else
			ph->flags &= ~SCBF2_PENDING_MAYHAVE;
	}
	if (fc->band_changed)
	{
		if (meta->band_pages > 0)
			Scbf2AddGrave(meta, SCBF2_GRAVE_BAND, meta->band_start,
						  meta->band_pages, InvalidBlockNumber, safexid);
		meta->band_start = fc->band.start;
		meta->band_pages = fc->band.pages;
		meta->band_width = fc->band.width;
		meta->band_rows_per_page = fc->band.rows_per_page;
		meta->band_serial = fc->band.serial;
	}
	if (fc->delta_changed)
	{
		meta->delta_start = fc->delta.start;
		meta->delta_pages = fc->delta.pages;
		meta->delta_serial = fc->delta.serial;
	}
	if (fc->ntablepages > SCBF2_MAX_TABLE_PAGES)
		elog(ERROR, "filter table of index \"%s\" outgrew its metapage",
			 RelationGetRelationName(index));
	memcpy(meta->tablepages, fc->tablepages,
		   sizeof(BlockNumber) * fc->ntablepages);
	meta->ntablepages = fc->ntablepages;
	meta->nfilters = fc->nfilters;
	meta->table_generation++;
	meta->nentries = (uint64) Max((int64) meta->nentries + fc->nentries_delta, 0);
	meta->nsegments += fc->nsegments_added;
	meta->nledger_pages = (uint32) Max((int64) meta->nledger_pages +
									   fc->nledger_pages_delta, 0);
	meta->fold_serial = fc->serial;
	meta->marks[fc->serial % SCBF2_MARKS].serial = fc->serial;
	meta->marks[fc->serial % SCBF2_MARKS].nextxid = safexid;
	GenericXLogFinish(xlog);
	UnlockReleaseBuffer(metabuf);
	for (part = 0; part < SCBF2_NPENDING; part++)
		if (BufferIsValid(cutbufs[part]))
			UnlockReleaseBuffer(cutbufs[part]);
}

/*
 * Scbf2BumpRecycleSerial
 *		Count one more recycling in the metapage, WAL-logged, before VACUUM's
 *		census frees table entries, runs and pages that a probe holding an
 *		older metapage copy may still read.  On a primary no such probe is
 *		left (the serial marks); a standby's probe has no such protection
 *		and compares the count at its end (Scbf2RecycledSince): replay
 *		applies this record before anything the census frees.
 */
void
Scbf2BumpRecycleSerial(Relation index)
{
	Buffer		metabuf = ReadBuffer(index, SCBF_METAPAGE_BLKNO);
	GenericXLogState *xlog;
	Scbf2MetaPageData *meta;

	LockBuffer(metabuf, BUFFER_LOCK_EXCLUSIVE);
	xlog = GenericXLogStart(index);
	meta = Scbf2PageGetMeta(GenericXLogRegisterBuffer(xlog, metabuf, 0));
	meta->recycle_serial++;
	GenericXLogFinish(xlog);
	UnlockReleaseBuffer(metabuf);
}

/*
 * Scbf2RecycledSince
 *		True if VACUUM's census began to recycle since meta was copied.
 */
bool
Scbf2RecycledSince(Relation index, const Scbf2Meta *meta)
{
	Buffer		buf = ReadBuffer(index, SCBF_METAPAGE_BLKNO);
	uint32		now;

	LockBuffer(buf, BUFFER_LOCK_SHARE);
	now = Scbf2PageGetMeta(BufferGetPage(buf))->recycle_serial;
	UnlockReleaseBuffer(buf);
	return now != meta->recycle_serial;
}

/*
 * Scbf2FreePage
 *		Free one superseded page, locked exclusively by the caller: a free
 *		page, WAL-logged, in the FSM.
 */
void
Scbf2FreePage(Relation index, Buffer buf)
{
	GenericXLogState *xlog = GenericXLogStart(index);

	ScbfMarkPageFree(GenericXLogRegisterBuffer(xlog, buf,
											   GENERIC_XLOG_FULL_IMAGE));
	GenericXLogFinish(xlog);
	RecordFreeIndexPage(index, BufferGetBlockNumber(buf));
}

/*
 * Free the pages of one grave that left the metapage.
 */
static void
Scbf2FreeGrave(Relation index, const Scbf2Grave *g, BlockNumber nblocks)
{
	BlockNumber blkno = g->first;
	uint32		i;

	for (i = 0; i < nblocks; i++)
	{
		Buffer		buf;
		Page		page;
		BlockNumber next;

		if (g->kind == SCBF2_GRAVE_BAND ? i >= g->n : blkno == g->stop)
			return;
		CHECK_FOR_INTERRUPTS();
		if (g->kind == SCBF2_GRAVE_BAND)
			blkno = g->first + i;
		if (blkno == SCBF_METAPAGE_BLKNO || blkno >= nblocks)
			break;
		buf = ReadBuffer(index, blkno);
		LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
		page = BufferGetPage(buf);
		if (!Scbf2PageHasOpaque(page) ||
			Scbf2PageGetOpaque(page)->type !=
			(g->kind == SCBF2_GRAVE_BAND ? SCBF_PAGE_ROWS : SCBF_PAGE_PENDING))
		{
			UnlockReleaseBuffer(buf);
			break;
		}
		next = g->kind == SCBF2_GRAVE_PENDING ?
			Scbf2PageGetPending(page)->next : InvalidBlockNumber;
		Scbf2FreePage(index, buf);
		UnlockReleaseBuffer(buf);
		blkno = next;
	}
	ereport(WARNING,
			(errcode(ERRCODE_INDEX_CORRUPTED),
			 errmsg("index \"%s\": a superseded page range ends early at block %u",
					RelationGetRelationName(index), blkno),
			 errdetail("Its remaining pages are not recycled.")));
}

/*
 * Scbf2RecycleGraves
 *		Recycle the superseded page ranges that no snapshot can still read:
 *		first take them off the metapage (a crash then leaks them, never
 *		frees a page twice), then free their pages.  Under the fold lock.
 */
void
Scbf2RecycleGraves(Relation index)
{
	Buffer		metabuf = ReadBuffer(index, SCBF_METAPAGE_BLKNO);
	Scbf2MetaPageData *meta;
	Scbf2Grave	dead[SCBF2_GRAVES];
	int			ndead = 0;
	GenericXLogState *xlog;
	uint32		i;
	uint32		n = 0;
	BlockNumber nblocks;

	LockBuffer(metabuf, BUFFER_LOCK_SHARE);
	meta = Scbf2PageGetMeta(BufferGetPage(metabuf));
	for (i = 0; i < meta->ngraves; i++)
		if (GlobalVisCheckRemovableFullXid(NULL, meta->graves[i].safexid))
			ndead++;
	LockBuffer(metabuf, BUFFER_LOCK_UNLOCK);
	if (ndead == 0)
	{
		ReleaseBuffer(metabuf);
		return;
	}

	ndead = 0;
	LockBuffer(metabuf, BUFFER_LOCK_EXCLUSIVE);
	xlog = GenericXLogStart(index);
	meta = Scbf2PageGetMeta(GenericXLogRegisterBuffer(xlog, metabuf, 0));
	for (i = 0; i < meta->ngraves; i++)
	{
		if (GlobalVisCheckRemovableFullXid(NULL, meta->graves[i].safexid))
			dead[ndead++] = meta->graves[i];
		else
			meta->graves[n++] = meta->graves[i];
	}
	meta->ngraves = n;
	GenericXLogFinish(xlog);
	UnlockReleaseBuffer(metabuf);

	nblocks = RelationGetNumberOfBlocks(index);
	for (i = 0; i < (uint32) ndead; i++)
		Scbf2FreeGrave(index, &dead[i], nblocks);
}

/*
 * Scbf2MetaDelta
 *		Where a metapage copy says the delta is.
 */
void
Scbf2MetaDelta(const Scbf2Meta *meta, Scbf2Delta *delta)
{
	delta->start = meta->delta_start;
	delta->pages = meta->delta_pages;
	delta->serial = meta->delta_serial;
}

/*
 * Scbf2MetaBlocks
 *		Call fn for every block a metapage copy names itself: the filter
 *		table's pages, the band, the delta, and the bands waiting in the
 *		graveyard.
 *		(Roots and leaves are named by the table and the roots; pending
 *		pages are never freed by the census, see Scbf2Census.)
 */
void
Scbf2MetaBlocks(const Scbf2Meta *meta, Scbf2BlockFn fn, void *arg)
{
	uint32		i;
	uint32		p;

	for (i = 0; i < meta->ntablepages && i < SCBF2_MAX_TABLE_PAGES; i++)
		fn(meta->tablepages[i], arg);
	for (p = 0; p < meta->band_pages; p++)
		fn(meta->band_start + p, arg);
	for (p = 0; p < meta->delta_pages; p++)
		fn(meta->delta_start + p, arg);
	for (i = 0; i < meta->ngraves && i < SCBF2_GRAVES; i++)
		if (meta->graves[i].kind == SCBF2_GRAVE_BAND)
			for (p = 0; p < meta->graves[i].n; p++)
				fn(meta->graves[i].first + p, arg);
}

/*
 * Scbf2Census
 *		amvacuumcleanup's page census, under the fold lock.  named has a bit
 *		per block below nblocks for every block a structure names.  A table,
 *		row, root or leaf page that no structure names was left by a fold or
 *		VACUUM that crashed before its commit (only the fold-lock holder
 *		writes those kinds) and is freed; a free page goes to the FSM again
 *		(the FSM is not WAL-logged).  Pending pages are left alone: an
 *		append links a new one without the fold lock.  New, never
 *		initialized pages too: an extension may be under way.  Returns the
 *		pages freed; *nfree receives the free pages.
 */
BlockNumber
Scbf2Census(Relation index, const uint8 *named, BlockNumber nblocks,
			BlockNumber *nfree)
{
	BlockNumber nfreed = 0;
	BlockNumber blkno;

	*nfree = 0;
	for (blkno = SCBF_METAPAGE_BLKNO + 1; blkno < nblocks; blkno++)
	{
		Buffer		buf;
		Page		page;
		uint8		type;

		ScbfVacuumDelayPoint();
		if (named[blkno / 8] & (1 << (blkno % 8)))
			continue;
		buf = ReadBuffer(index, blkno);
		LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
		page = BufferGetPage(buf);
		type = Scbf2PageHasOpaque(page) ? Scbf2PageGetOpaque(page)->type : 0;
		if (type == SCBF_PAGE_TABLE || type == SCBF_PAGE_ROWS ||
			type == SCBF_PAGE_ROOT || type == SCBF_PAGE_LEAF ||
			type == SCBF_PAGE_DELTA)
		{
			Scbf2FreePage(index, buf);
			nfreed++;
			(*nfree)++;
		}
		else if (type == SCBF_PAGE_FREE)
		{
			RecordFreeIndexPage(index, blkno);
			(*nfree)++;
		}
		UnlockReleaseBuffer(buf);
	}
	return nfreed;
}

/* ----------------------------------------------------------------
 *	Readers for the diagnostics and the verifier (scbf2.h)
 * ----------------------------------------------------------------
 */

/*
 * Scbf2MetaInfo
 *		Everything a metapage copy says, into *mi; the graves and marks are
 *		palloc'd, the table pages point into the copy.  Nothing is checked
 *		beyond the bounds of the arrays.
 */
void
Scbf2MetaInfo(const Scbf2Meta *meta, Scbf2MetaInfoData *mi)
{
	uint32		i;

	memset(mi, 0, sizeof(Scbf2MetaInfoData));
	mi->pages_per_segment = meta->pages_per_segment;
	mi->ncols = meta->ncols;
	mi->k = meta->k;
	mi->m = meta->m;
	mi->capacity = meta->capacity;
	mi->target_fpr = meta->target_fpr;
	mi->flags = meta->flags;
	Scbf2MetaBand(meta, &mi->band);
	Scbf2MetaDelta(meta, &mi->delta);
	mi->nfilters = meta->nfilters;
	mi->table_generation = meta->table_generation;
	mi->ntablepages = meta->ntablepages;
	mi->max_table_pages = SCBF2_MAX_TABLE_PAGES;
	mi->tablepages = meta->tablepages;
	mi->fold_serial = meta->fold_serial;
	for (i = 0; i < SCBF2_NPENDING; i++)
	{
		mi->pending[i].head = meta->pending[i].head;
		mi->pending[i].tail = meta->pending[i].tail;
		mi->pending[i].head_serial = meta->pending[i].head_serial;
		mi->pending[i].cut = meta->pending[i].cut;
		mi->pending[i].flags = meta->pending[i].flags;
		mi->pending[i].mayhave =
			(meta->pending[i].flags & SCBF2_PENDING_MAYHAVE) != 0;
	}
	mi->nentries = meta->nentries;
	mi->nsegments = meta->nsegments;
	mi->nledger_pages = meta->nledger_pages;
	mi->mean_fpr = meta->mean_fpr;
	mi->ngraves = meta->ngraves;
	mi->max_graves = SCBF2_GRAVES;
	mi->graves = palloc0(sizeof(Scbf2GraveInfo) * SCBF2_GRAVES);
	for (i = 0; i < meta->ngraves && i < SCBF2_GRAVES; i++)
	{
		const Scbf2Grave *g = &meta->graves[i];

		mi->graves[i].band = g->kind == SCBF2_GRAVE_BAND;
		mi->graves[i].kind = g->kind;
		mi->graves[i].first = g->first;
		mi->graves[i].n = g->n;
		mi->graves[i].stop = g->stop;
		mi->graves[i].safexid = g->safexid;
	}
	mi->nmarks = SCBF2_MARKS;
	mi->mark_serials = palloc(sizeof(uint64) * SCBF2_MARKS);
	for (i = 0; i < SCBF2_MARKS; i++)
		mi->mark_serials[i] = meta->marks[i].serial;
	mi->entries_per_table_page = Scbf2EntriesPerPage(Max(meta->ncols, 1));
	mi->pending_entries_per_page =
		SCBF2_PENDING_BYTES / Scbf2PendingEntrySize(Max(meta->ncols, 1));
}

/*
 * Scbf2InspectPage
 *		What block blkno says it is, read under a share lock, as pageinspect
 *		reads a page: its kind and the owner fields of its special space,
 *		whatever structure names it or not.
 */
void
Scbf2InspectPage(Relation index, BlockNumber blkno, Scbf2PageInfo *pi)
{
	Buffer		buf = ReadBuffer(index, blkno);
	Page		page;
	Scbf2PageOpaque opaque;

	memset(pi, 0, sizeof(Scbf2PageInfo));
	pi->next = InvalidBlockNumber;
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buf);
	if (PageIsNew(page))
		pi->kind = SCBF2_KIND_NEW;
	else if (!Scbf2PageHasOpaque(page))
		pi->kind = SCBF2_KIND_UNKNOWN;
	else
	{
		opaque = Scbf2PageGetOpaque(page);
		pi->owner = opaque->owner;
		pi->index = opaque->index;
		pi->column = opaque->column;
		switch (opaque->type)
		{
			case SCBF_PAGE_META:
				pi->kind = SCBF2_KIND_META;
				break;
			case SCBF_PAGE_TABLE:
				pi->kind = SCBF2_KIND_TABLE;
				break;
			case SCBF_PAGE_ROWS:
				pi->kind = SCBF2_KIND_ROWS;
				break;
			case SCBF_PAGE_ROOT:
				pi->kind = SCBF2_KIND_ROOT;
				pi->count = Scbf2PageGetRoot(page)->nruns;
				break;
			case SCBF_PAGE_LEAF:
				pi->kind = SCBF2_KIND_LEAF;
				pi->count = Scbf2PageGetLeaf(page)->nlists;
				break;
			case SCBF_PAGE_PENDING:
				pi->kind = SCBF2_KIND_PENDING;
				pi->count = Scbf2PageGetPending(page)->nentries;
				pi->next = Scbf2PageGetPending(page)->next;
				break;
			case SCBF_PAGE_DELTA:
				pi->kind = SCBF2_KIND_DELTA;
				pi->count = Scbf2PageGetDelta(page)->nentries;
				break;
			case SCBF_PAGE_FREE:
				pi->kind = SCBF2_KIND_FREE;
				break;
			default:
				pi->kind = SCBF2_KIND_UNKNOWN;
				break;
		}
	}
	UnlockReleaseBuffer(buf);
}

/*
 * ScbfMarkPageFree
 *		Turn a page into a free page (in a WAL-registered image).
 */
void
ScbfMarkPageFree(Page page)
{
	PageInit(page, BLCKSZ, sizeof(Scbf2PageOpaqueData));
	Scbf2PageGetOpaque(page)->type = SCBF_PAGE_FREE;
	Scbf2PageGetOpaque(page)->page_id = SCBF_PAGE_ID;
}

/*
 * True for a page that may be reused: never initialized, or freed.
 */
static bool
ScbfPageIsFree(Page page)
{
	if (PageIsNew(page))
		return true;
	return Scbf2PageHasOpaque(page) &&
		Scbf2PageGetOpaque(page)->type == SCBF_PAGE_FREE;
}

/*
 * ScbfNewBuffer
 *		An exclusively locked buffer for a new page: a free page recorded in
 *		the FSM if one can be locked at once and really is free, else a new
 *		block at the end of the relation.  The caller initializes it and
 *		registers it with GENERIC_XLOG_FULL_IMAGE.
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
 * ScbfHashDatum
 *		Hash column col's (non-null) value with its opclass's hash function
 *		and the column's collation, canonicalized (SCBF_NULL_HASH is NULL's).
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
