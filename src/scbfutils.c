/*-------------------------------------------------------------------------
 *
 * scbfutils.c
 *	  The per-relation state, the metapage and its graveyard, the band
 *	  map, page initialization, new, contiguous and free pages, the
 *	  metapage's part
 *	  of the block census and VACUUM's sweep after it, page reads through
 *	  the backend's recent buffers, page checks and corruption reports
 *	  shared by the page-kind modules, and hashing; and
 *	  what the SQL-callable functions share: opening an index by regclass
 *	  with its checks, and their array results.
 *
 * NOTES
 *	  ScbfGetState() is where every entry point (the AM callbacks, the
 *	  diagnostics, the verifier) meets the metapage first: it checks it
 *	  once per relcache entry and caches the layout in rd_amcache.  An
 *	  index of another storage format version gets a clear error telling
 *	  the user to REINDEX it, as the hash AM does for a wrong hash
 *	  version.  Reading a page of a given kind goes through ScbfReadPage(),
 *	  which checks the block against the end of the index and the page's
 *	  kind before anyone looks inside, so a stale or corrupted pointer ends
 *	  in ERRCODE_INDEX_CORRUPTED, never in a read of something else.
 *
 *	  The block census (ScbfCensus, scbfdir.c) hands every block a
 *	  structure names to its caller; ScbfMetaBlocks is its part for what
 *	  the metapage names itself.
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
#include "access/relation.h"
#include "access/table.h"
#include "access/transam.h"
#include "catalog/index.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "commands/vacuum.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/indexfsm.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/snapmgr.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "scbf.h"
#include "scbf_page.h"

/* The stride between the filter key seeds of consecutive columns */
#define SCBF_SEED_STRIDE	UINT64CONST(0x9E3779B97F4A7C15)

static uint8 BandMapType(const ScbfBand *band);
static bool ReadBandMap(Relation index, ScbfBand *band, bool check,
						BlockNumber nblocks, ScbfBandRun *runs);
static void SetMetaBands(ScbfMetaPageData *meta, const ScbfBands *bands);
static void MetaTop(Relation index, const ScbfMeta *meta, ScbfBands *bands);
static void CheckBand(Relation index, const ScbfMetaPageData *meta,
					  const ScbfBandDesc *d, uint32 b, BlockNumber blkno);
static void ReadBandDir(Relation index, const ScbfMeta *meta, uint32 from,
						ScbfBands *bands, BlockNumber nblocks);

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
 * ScbfPageHasOpaque
 *		True if the page carries an scbf special space.
 */
bool
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
 * ScbfInitPage
 *		Initialize a page of the given type: empty but for the first `used`
 *		bytes of its contents, which pd_lower covers (generic WAL zeroes
 *		the hole above pd_lower), and an scbf special space whose other
 *		fields are zero.  Returns the special space, for the fields of the
 *		page's kind.
 */
ScbfPageOpaque
ScbfInitPage(Page page, uint8 type, Size used)
{
	ScbfPageOpaque opaque;

	PageInit(page, BLCKSZ, sizeof(ScbfPageOpaqueData));
	((PageHeader) page)->pd_lower = MAXALIGN(SizeOfPageHeaderData) + used;
	Assert(((PageHeader) page)->pd_lower <= ((PageHeader) page)->pd_upper);
	opaque = ScbfPageGetOpaque(page);
	opaque->type = type;
	opaque->page_id = SCBF_PAGE_ID;
	return opaque;
}

/*
 * Check a metapage; ERRCODE_INDEX_CORRUPTED if it cannot be one.
 */
static void
CheckMetaPage(Relation index, Page page)
{
	ScbfMetaPageData *meta = ScbfPageGetMeta(page);
	uint64		end = 0;
	uint64		tablepages = 0;
	uint64		dirpages = 0;
	uint32		i;

	if (!ScbfPageHasOpaque(page) ||
		ScbfPageGetOpaque(page)->type != SCBF_PAGE_META ||
		meta->magic != SCBF_MAGIC_NUMBER)
		ScbfReportCorrupt(index, SCBF_METAPAGE_BLKNO,
						  "Block 0 is not an scbf metapage.");

	if (!ScbfFormatKnown(meta->version))
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" has storage format version %u",
						RelationGetRelationName(index), meta->version),
				 errdetail("This version of scbf reads storage format versions %u to %u only.",
						   SCBF_FORMAT_VERSION, SCBF_FORMAT_VERSION_TOP_WIDE),
				 errhint("REINDEX it.")));
	/* formats 3 and 5: 32-bit hashes, 0 in the fields format 3 left unused */
	if ((!ScbfFormatWide(meta->version) ?
		 (meta->hash_bits != 0 && meta->hash_bits != 32) ||
		 meta->extended_cols != 0 :
		 meta->hash_bits <= 32 || meta->hash_bits > SCBF_MAX_HASH_BITS) ||
		(meta->ncols < INDEX_MAX_KEYS &&
		 (meta->extended_cols >> meta->ncols) != 0))
		ScbfReportCorrupt(index, SCBF_METAPAGE_BLKNO,
						  "The metapage's hash width does not match its format version.");
	if (meta->pages_per_segment < 1 ||
		meta->pages_per_segment > SCBF_MAX_PAGES_PER_SEGMENT ||
		meta->ncols < 1 || meta->ncols > INDEX_MAX_KEYS ||
		meta->k < 1 || meta->k > SCBF_ROWS_MAX_K || meta->m < 1 ||
		(uint64) meta->k * meta->m > PG_UINT32_MAX ||
		meta->table.nruns > SCBF_PAGE_RUNS_MAX ||
		meta->nfilters > (uint64) meta->table.npages *
		ScbfFilterEntriesPerPage(meta->ncols) ||
		meta->dir.nruns > SCBF_PAGE_RUNS_MAX ||
		(meta->nbands > 0 &&
		 (uint64) meta->dir.npages * SCBF_BANDDIR_PER_PAGE <
		 meta->nbands - 1) ||
		(meta->nfilters > 0 && meta->nbands == 0))
		ScbfReportCorrupt(index, SCBF_METAPAGE_BLKNO,
						  "The metapage has impossible layout parameters.");
	for (i = 0; i < meta->table.nruns; i++)
		tablepages += meta->table.runs[i].npages;
	if (tablepages != meta->table.npages)
		ScbfReportCorrupt(index, SCBF_METAPAGE_BLKNO,
						  "The metapage's filter table runs do not add up to its pages.");
	for (i = 0; i < meta->dir.nruns; i++)
		dirpages += meta->dir.runs[i].npages;
	if (dirpages != meta->dir.npages)
		ScbfReportCorrupt(index, SCBF_METAPAGE_BLKNO,
						  "The metapage's band directory runs do not add up to its pages.");
	if (meta->nbands > 0)
	{
		CheckBand(index, meta, &meta->last, meta->nbands - 1, SCBF_METAPAGE_BLKNO);
		end = (uint64) meta->last.first + meta->last.width;
		/* a band opens for a filter that needs it */
		if (meta->last.first > meta->nfilters)
			ScbfReportCorrupt(index, SCBF_METAPAGE_BLKNO,
							  "The last band starts past the metapage's filters.");
	}
	if (meta->nfilters > end)
		ScbfReportCorrupt(index, SCBF_METAPAGE_BLKNO,
						  "The metapage has more filters than its bands hold.");
	if (ScbfFormatTop(meta->version) != (meta->top.width > 0) ||
		(ScbfFormatTop(meta->version) &&
		 ((PageHeader) page)->pd_lower <
		 MAXALIGN(SizeOfPageHeaderData) + sizeof(ScbfMetaPageData)))
		ScbfReportCorrupt(index, SCBF_METAPAGE_BLKNO,
						  "The metapage's top over groups does not match its format version.");
}

/*
 * Check the descriptor of band b, as the metapage or a band directory
 * page at blkno holds it; ERRCODE_INDEX_CORRUPTED if it cannot be one.
 */
static void
CheckBand(Relation index, const ScbfMetaPageData *meta, const ScbfBandDesc *d,
		  uint32 b, BlockNumber blkno)
{
	if (d->first % SCBF_ROWS_WIDTH_ALIGN != 0 || d->width < 8 ||
		d->width % 8 != 0 || d->width > SCBF_PAGE_SPACE * 8 || d->m < 1 ||
		(uint64) meta->k * d->m > PG_UINT32_MAX ||
		d->rows_per_page != scbf_rows_per_page(SCBF_PAGE_SPACE, d->width) ||
		(uint64) d->pages * d->rows_per_page < (uint64) meta->k * d->m ||
		(uint64) d->first + d->width > PG_UINT32_MAX)
		ScbfReportCorrupt(index, blkno,
						  psprintf("Band %u has impossible parameters.", b));
}

/*
 * ScbfInitState
 *		Fill in the state of an index of this layout.
 */
void
ScbfInitState(ScbfState *state, const ScbfLayout *layout)
{
	int			col;

	memset(state, 0, sizeof(ScbfState));
	state->ncols = layout->ncols;
	state->pages_per_segment = layout->pages_per_segment;
	state->k = layout->k;
	state->target_fpr = layout->target_fpr;
	state->hash_bits = (uint32) layout->hash_bits;
	state->extended_cols = layout->extended_cols;
	state->stored_hash_bytes = ScbfStoredHashBytes(layout->hash_bits);
	for (col = 0; col < layout->ncols; col++)
	{
		state->seeds[col] = (uint64) SCBF_HASH_SEED +
			SCBF_SEED_STRIDE * (uint64) (col + 1);
		state->col_bits[col] = (uint8) ((layout->extended_cols & (1U << col)) ?
										layout->hash_bits : 32);
	}
}

/*
 * Build the cached state of an index from its metapage.
 */
static ScbfState *
StateFromMeta(Relation index, ScbfMetaPageData *meta)
{
	ScbfState *state;
	ScbfLayout layout;

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
	layout.hash_bits = ScbfMetaHashBits(meta);
	layout.extended_cols = meta->extended_cols;
	state = MemoryContextAlloc(index->rd_indexcxt, sizeof(ScbfState));
	ScbfInitState(state, &layout);
	state->cache.nbands = 0;
	state->cache.bands = NULL;
	state->cache_runs = NULL;
	state->maxcache = 0;
	state->cache.ngroups = 0;
	state->cache.groups = NULL;
	state->gcache = NULL;
	state->gcache_runs = NULL;
	return state;
}

/*
 * ScbfInitMetaPage
 *		A metapage for this layout, with an empty pending area.
 */
void
ScbfInitMetaPage(Page page, const ScbfLayout *layout)
{
	ScbfMetaPageData *meta;
	int			i;

	/* the whole struct, table list included, stays below pd_lower */
	ScbfInitPage(page, SCBF_PAGE_META,
				 sizeof(ScbfMetaPageData));
	meta = ScbfPageGetMeta(page);
	meta->magic = SCBF_MAGIC_NUMBER;
	meta->version = layout->hash_bits > 32 ? SCBF_FORMAT_VERSION_WIDE :
		SCBF_FORMAT_VERSION;
	/* format 3 left the field 0 */
	meta->hash_bits = layout->hash_bits > 32 ? (uint16) layout->hash_bits : 0;
	meta->extended_cols = layout->extended_cols;
	meta->pages_per_segment = (uint16) layout->pages_per_segment;
	meta->ncols = (uint16) layout->ncols;
	meta->k = (uint16) layout->k;
	meta->flags = 0;
	meta->m = layout->m;
	meta->capacity = layout->capacity;
	meta->hash_seed = SCBF_HASH_SEED;
	meta->target_fpr = layout->target_fpr;
	SetMetaBands(meta, &layout->bands);
	meta->dir = layout->dir;
	meta->delta_start = InvalidBlockNumber;
	meta->delta_pages = 0;
	meta->delta_serial = 0;
	meta->nfilters = layout->nfilters;
	meta->table_generation = 1;
	meta->table = layout->table;
	meta->fold_serial = 0;
	for (i = 0; i < SCBF_NPENDING; i++)
	{
		meta->pending[i].head = InvalidBlockNumber;
		meta->pending[i].tail = InvalidBlockNumber;
	}
	meta->nentries = layout->nentries;
	meta->nsegments = layout->nsegments;
	meta->nledger_pages = layout->nledger_pages;
	meta->mean_fpr = layout->mean_fpr;

}

/*
 * The state cached in rd_amcache, made from the metapage on the first call
 * for this relcache entry.  The relcache frees it whenever it rebuilds the
 * entry (an invalidation, which any lock acquisition may process): use
 * the pointer only until the next such point.
 */
static ScbfState *
CachedState(Relation index)
{
	Buffer		buf;
	Page		page;

	if (index->rd_amcache != NULL)
		return (ScbfState *) index->rd_amcache;

	buf = ReadBuffer(index, SCBF_METAPAGE_BLKNO);
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buf);
	CheckMetaPage(index, page);	/* an error releases the lock */
	index->rd_amcache = StateFromMeta(index, ScbfPageGetMeta(page));
	UnlockReleaseBuffer(buf);
	return (ScbfState *) index->rd_amcache;
}

/*
 * ScbfColumnHashBits
 *		The bits of column col's hashes in index (32, or the index's
 *		hash_bits where the build could extend them).
 */
int
ScbfColumnHashBits(Relation index, int col)
{
	return CachedState(index)->col_bits[col];
}

/*
 * ScbfGetState
 *		A palloc'd copy of the index's state (CachedState), without the
 *		band map cache: an operation keeps it across lock acquisitions,
 *		which may free the cached one.  Its m and capacity are those of
 *		the metapage when the cache was made: an operation sets them from
 *		its metapage copy (ScbfReadMeta) before it uses them.  An index
 *		whose metapage is not one of this version's (another storage
 *		format version, another layout, corruption) raises
 *		ERRCODE_INDEX_CORRUPTED here, whatever reads it first: a scan, an
 *		insert, VACUUM, a diagnostic or the verifier.
 */
ScbfState *
ScbfGetState(Relation index)
{
	ScbfState  *copy = palloc(sizeof(ScbfState));

	memcpy(copy, CachedState(index), sizeof(ScbfState));
	copy->cache.nbands = 0;
	copy->cache.bands = NULL;
	copy->cache_runs = NULL;
	copy->maxcache = 0;
	copy->cache.ngroups = 0;
	copy->cache.groups = NULL;
	copy->gcache = NULL;
	copy->gcache_runs = NULL;
	return copy;
}

/*
 * ScbfReadMetaIfCurrent
 *		A palloc'd copy of the metapage's contents, checked, or NULL if
 *		block 0 is not a metapage of this version's storage format and
 *		layout: for the planner, which must not fail a query that need not
 *		use such an index (ScbfGetState raises the error when the index is
 *		used).  Nothing is cached.
 */
ScbfMeta *
ScbfReadMetaIfCurrent(Relation index)
{
	ScbfMetaPageData *copy = NULL;
	Buffer		buf = ScbfReadBuffer(index, SCBF_METAPAGE_BLKNO);
	Page		page;

	LockBuffer(buf, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buf);
	if (ScbfPageHasOpaque(page) &&
		ScbfPageGetOpaque(page)->type == SCBF_PAGE_META &&
		ScbfPageGetMeta(page)->magic == SCBF_MAGIC_NUMBER &&
		ScbfFormatKnown(ScbfPageGetMeta(page)->version))
	{
		CheckMetaPage(index, page);	/* an error releases the lock */
		copy = palloc(SCBF_PAGE_SPACE);
		memcpy(copy, ScbfPageGetMeta(page), SCBF_PAGE_SPACE);
	}
	UnlockReleaseBuffer(buf);
	return copy;
}

/*
 * ScbfReadMeta
 *		A palloc'd copy of the metapage's contents, checked.
 */
ScbfMeta *
ScbfReadMeta(Relation index)
{
	ScbfMetaPageData *copy = palloc(SCBF_PAGE_SPACE);
	Buffer		buf;
	Page		page;

	buf = ScbfReadBuffer(index, SCBF_METAPAGE_BLKNO);
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buf);
	CheckMetaPage(index, page);
	memcpy(copy, ScbfPageGetMeta(page), SCBF_PAGE_SPACE);
	UnlockReleaseBuffer(buf);
	return copy;
}

/*
 * The hash bits of the index of a metapage copy (format 3 left the field
 * 0: 32).
 */
int
ScbfMetaHashBits(const ScbfMeta *meta)
{
	return meta->hash_bits == 0 ? 32 : meta->hash_bits;
}

/*
 * Filters in the table of a metapage copy.
 */
uint32
ScbfMetaFilters(const ScbfMeta *meta)
{
	return meta->nfilters;
}

/*
 * The last committed fold of a metapage copy.
 */
uint64
ScbfMetaFoldSerial(const ScbfMeta *meta)
{
	return meta->fold_serial;
}

/*
 * The planner's statistics of a metapage copy.
 */
void
ScbfMetaStats(const ScbfMeta *meta, ScbfStats *stats)
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
 * ScbfFilterKey
 *		The filter key of a column's value hash: what the rows' and the
 *		summaries' positions of the value follow from.  Of the hash's four
 *		bytes in a column of 32-bit hashes, of eight in a wider one.
 */
uint64
ScbfFilterKey(const ScbfState *state, int col, ScbfHash hash)
{
	Assert(hash <= ScbfHashMask(state->col_bits[col]));
	if (state->col_bits[col] > 32)
		return scbf_filter_key_wide(hash, state->seeds[col]);
	return scbf_filter_key((uint32) hash, state->seeds[col]);
}

/*
 * ScbfKeyPositions
 *		The k row positions of a column's value hash in the filters of a
 *		band.
 */
void
ScbfKeyPositions(const ScbfState *state, const ScbfBand *band, int col,
				 ScbfHash hash, uint32 *pos)
{
	scbf_filter_positions(ScbfFilterKey(state, col, hash),
						  &band->geom, pos);
}

/*
 * The buffers a backend last found blocks of scbf indexes in: a
 * direct-mapped table of SCBF_RECENT_BUFFERS entries by index and block.
 * ScbfReadBuffer pins the one remembered with ReadRecentBuffer(), which
 * checks the buffer's tag under its header lock, so an entry that has gone
 * stale (the buffer evicted and reused, the index given new storage) is
 * only a miss; a probe's pages are found again without the buffer mapping
 * table, its partition lock and its cache misses, which cost more than
 * anything else in a probe of a cached index.
 */
#define SCBF_RECENT_BUFFERS		4096

typedef struct ScbfRecentBuffer
{
	Oid			relid;
	BlockNumber blkno;
	Buffer		buf;
} ScbfRecentBuffer;

static ScbfRecentBuffer recent_buffers[SCBF_RECENT_BUFFERS];

/*
 * ScbfReadBuffer
 *		ReadBuffer(index, blkno) for a block of the index, through the
 *		backend's table of recent buffers.  Counts the read and the hit in
 *		the index's statistics as ReadBuffer does.
 */
Buffer
ScbfReadBuffer(Relation index, BlockNumber blkno)
{
	Oid			relid = RelationGetRelid(index);
	ScbfRecentBuffer *rb;
	Buffer		buf;

	rb = &recent_buffers[(((uint32) relid * 0x9E3779B1) ^ blkno) %
						 SCBF_RECENT_BUFFERS];
	if (rb->relid == relid && rb->blkno == blkno &&
		BufferIsValid(rb->buf) &&
		ReadRecentBuffer(ScbfRelationLocator(index), MAIN_FORKNUM, blkno,
						 rb->buf))
	{
		pgstat_count_buffer_read(index);
		pgstat_count_buffer_hit(index);
		return rb->buf;
	}
	buf = ReadBuffer(index, blkno);
	rb->relid = relid;
	rb->blkno = blkno;
	rb->buf = buf;
	return buf;
}

/*
 * ScbfReadPage
 *		Pin and lock block blkno, which must be a page of the given type.
 *
 * nblocks is the size of the index as the caller last measured it: a block
 * at or past it cannot be part of any structure.  Reports
 * ERRCODE_INDEX_CORRUPTED otherwise; callers check the owner fields.
 */
Buffer
ScbfReadPage(Relation index, BlockNumber blkno, int mode, uint8 type,
			  BlockNumber nblocks)
{
	Buffer		buf;
	Page		page;

	if (blkno == SCBF_METAPAGE_BLKNO || blkno >= nblocks)
		ScbfReportCorrupt(index, blkno,
						  psprintf("A link points to block %u, outside the index's %u blocks.",
								   blkno, nblocks));
	buf = ScbfReadBuffer(index, blkno);
	LockBuffer(buf, mode);
	page = BufferGetPage(buf);
	if (!ScbfPageHasOpaque(page) || ScbfPageGetOpaque(page)->type != type)
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
AddGrave(ScbfMetaPageData *meta, uint16 kind, BlockNumber first,
			  uint32 n, BlockNumber stop, FullTransactionId safexid)
{
	ScbfGrave *g;
	uint32		i;

	if (kind == SCBF_GRAVE_PENDING)
		for (i = 0; i < meta->ngraves; i++)
		{
			g = &meta->graves[i];
			if (g->kind == SCBF_GRAVE_PENDING && g->stop == first)
			{
				g->stop = stop;
				g->safexid = safexid;
				return;
			}
		}
	if (meta->ngraves >= SCBF_GRAVES)
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
ScbfMetaGraveRoom(const ScbfMeta *meta)
{
	return SCBF_GRAVES - meta->ngraves;
}

/*
 * ScbfMetaGoneReadable
 *		True while a probe may still read a ledger run that fold serial
 *		`gone` superseded: gone has not committed, or it committed after the
 *		oldest snapshot began (see SCBF_MARKS).
 */
bool
ScbfMetaGoneReadable(const ScbfMeta *meta, uint64 gone)
{
	const ScbfSerialMark *best = NULL;
	int			i;

	if (gone > meta->fold_serial)
		return true;
	for (i = 0; i < SCBF_MARKS; i++)
	{
		const ScbfSerialMark *mk = &meta->marks[i];

		if (mk->serial >= gone && mk->serial > 0 &&
			(best == NULL || mk->serial < best->serial))
			best = mk;
	}
	if (best == NULL)
		return true;
	return !GlobalVisCheckRemovableFullXid(NULL, best->nextxid);
}

/*
 * ScbfCommitSerial
 *		The last record of a fold or of a VACUUM's group of filters, on the
 *		metapage: its serial becomes the committed one (and gets its mark),
 *		each folded partition's head moves to its cut, the new band and
 *		filter table are switched in, and what they superseded goes to the
 *		graveyard.
 */
void
ScbfCommitSerial(Relation index, const ScbfCommit *fc)
{
	Buffer		metabuf = ReadBuffer(index, SCBF_METAPAGE_BLKNO);
	FullTransactionId safexid;
	GenericXLogState *xlog;
	Page		metapage;
	ScbfMetaPageData *meta;
	Buffer		cutbufs[SCBF_NPENDING];
	bool		mayhave[SCBF_NPENDING];
	BlockNumber nblocks = RelationGetNumberOfBlocks(index);
	int			part;

	/*
	 * Whether entries came past each cut: read under the cut page's lock,
	 * held until the metapage says so, as appends lock the tail before the
	 * metapage.
	 */
	for (part = 0; part < SCBF_NPENDING; part++)
	{
		const ScbfPendingCut *cut = &fc->cuts[part];
		Page		page;

		cutbufs[part] = InvalidBuffer;
		if (cut->blkno == InvalidBlockNumber)
			continue;
		cutbufs[part] = ScbfReadPage(index, cut->blkno, BUFFER_LOCK_SHARE,
									  SCBF_PAGE_PENDING, nblocks);
		page = BufferGetPage(cutbufs[part]);
		mayhave[part] = ScbfPageGetPending(page)->nentries > cut->nentries ||
			ScbfPageGetPending(page)->next != InvalidBlockNumber;
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
	metapage = GenericXLogRegisterBuffer(xlog, metabuf, 0);
	meta = ScbfPageGetMeta(metapage);
	if (meta->fold_serial + 1 != fc->serial)
		elog(ERROR, "fold serial of index \"%s\" moved under the fold lock",
			 RelationGetRelationName(index));
	for (part = 0; part < SCBF_NPENDING; part++)
	{
		ScbfPendingHead *ph = &meta->pending[part];
		const ScbfPendingCut *cut = &fc->cuts[part];

		if (cut->blkno == InvalidBlockNumber)
			continue;
		if (ph->head != cut->blkno)
			AddGrave(meta, SCBF_GRAVE_PENDING, ph->head, 0, cut->blkno,
						  safexid);
		ph->head = cut->blkno;
		ph->head_serial = cut->serial;
		ph->cut = cut->nentries;
		if (mayhave[part])
			ph->flags |= SCBF_PENDING_MAYHAVE;
		else
			ph->flags &= ~SCBF_PENDING_MAYHAVE;
	}
	if (fc->band_changed && fc->m != 0)
	{
		meta->m = fc->m;
		meta->capacity = fc->capacity;
		meta->flags &= ~SCBF_META_RECOUNT;
	}
	if (fc->band_changed)
	{
		uint32		b = meta->nbands - 1;

		/* the last band written anew: the old one waits in the graveyard */
		if (meta->nbands > 0 && meta->last.pages > 0 &&
			(b >= fc->bands.nbands ||
			 meta->last.map != fc->bands.bands[b].map))
			AddGrave(meta, SCBF_GRAVE_BAND, meta->last.map, meta->last.pages,
					 InvalidBlockNumber, safexid);
		/* a group's summary written anew: likewise */
		for (b = 0; b < meta->ngroups; b++)
			if (meta->groups[b].pages > 0 &&
				(b >= fc->bands.ngroups ||
				 meta->groups[b].map != fc->bands.groups[b].map))
				AddGrave(meta, SCBF_GRAVE_SUMMARY, meta->groups[b].map,
						 meta->groups[b].pages, InvalidBlockNumber, safexid);
		/* and the top's */
		if (meta->top.width > 0 && meta->top.pages > 0 &&
			meta->top.map != fc->bands.top.map)
			AddGrave(meta, SCBF_GRAVE_SUMMARY, meta->top.map,
					 meta->top.pages, InvalidBlockNumber, safexid);
		/* a format 3 or 4 metapage ends before the top's fields */
		((PageHeader) metapage)->pd_lower =
			Max(((PageHeader) metapage)->pd_lower,
				MAXALIGN(SizeOfPageHeaderData) + sizeof(ScbfMetaPageData));
		SetMetaBands(meta, &fc->bands);
		meta->dir = fc->dir;
	}
	if (fc->delta_changed)
	{
		meta->delta_start = fc->delta.start;
		meta->delta_pages = fc->delta.pages;
		meta->delta_serial = fc->delta.serial;
	}
	if (fc->delta_fill == SCBF_DELTA_EMPTIED)
		meta->flags |= SCBF_META_DELTA_EMPTY;
	else if (fc->delta_fill == SCBF_DELTA_FILLED)
		meta->flags &= ~SCBF_META_DELTA_EMPTY;
	meta->table = fc->table;
	meta->nfilters = fc->nfilters;
	meta->table_generation++;
	meta->nentries = (uint64) Max((int64) meta->nentries + fc->nentries_delta, 0);
	meta->nsegments += fc->nsegments_added;
	meta->nledger_pages = (uint32) Max((int64) meta->nledger_pages +
									   fc->nledger_pages_delta, 0);
	meta->fold_serial = fc->serial;
	meta->marks[fc->serial % SCBF_MARKS].serial = fc->serial;
	meta->marks[fc->serial % SCBF_MARKS].nextxid = safexid;
	GenericXLogFinish(xlog);
	UnlockReleaseBuffer(metabuf);
	for (part = 0; part < SCBF_NPENDING; part++)
		if (BufferIsValid(cutbufs[part]))
			UnlockReleaseBuffer(cutbufs[part]);
}

/*
 * Start a WAL-logged change of the metapage's fields: the metapage locked
 * exclusively, registered in *xlog; MetaFinish ends it.
 */
static ScbfMetaPageData *
MetaStart(Relation index, Buffer *metabuf, GenericXLogState **xlog)
{
	*metabuf = ReadBuffer(index, SCBF_METAPAGE_BLKNO);
	LockBuffer(*metabuf, BUFFER_LOCK_EXCLUSIVE);
	*xlog = GenericXLogStart(index);
	return ScbfPageGetMeta(GenericXLogRegisterBuffer(*xlog, *metabuf, 0));
}

/*
 * End what MetaStart began: write the record, release the metapage.
 */
static void
MetaFinish(Buffer metabuf, GenericXLogState *xlog)
{
	GenericXLogFinish(xlog);
	UnlockReleaseBuffer(metabuf);
}

/*
 * ScbfSetRecount
 *		Set or clear SCBF_META_RECOUNT, WAL-logged.  Under the fold lock.
 */
void
ScbfSetRecount(Relation index, bool on)
{
	Buffer		metabuf;
	GenericXLogState *xlog;
	ScbfMetaPageData *meta = MetaStart(index, &metabuf, &xlog);

	if (on)
		meta->flags |= SCBF_META_RECOUNT;
	else
		meta->flags &= ~SCBF_META_RECOUNT;
	MetaFinish(metabuf, xlog);
}

/*
 * ScbfMetaRecount
 *		True if a metapage copy says the table's set-bit counts may not be
 *		the band's (SCBF_META_RECOUNT).
 */
bool
ScbfMetaRecount(const ScbfMeta *meta)
{
	return (meta->flags & SCBF_META_RECOUNT) != 0;
}

/*
 * ScbfSetDeltaEmpty
 *		Set SCBF_META_DELTA_EMPTY, WAL-logged, after a merge emptied the
 *		delta (its bits first, then its pages).  Under the fold lock, which
 *		every writer of delta entries holds.
 */
void
ScbfSetDeltaEmpty(Relation index)
{
	Buffer		metabuf;
	GenericXLogState *xlog;
	ScbfMetaPageData *meta = MetaStart(index, &metabuf, &xlog);

	meta->flags |= SCBF_META_DELTA_EMPTY;
	MetaFinish(metabuf, xlog);
}

/*
 * ScbfMetaDeltaEmpty
 *		True if a metapage copy says the delta holds no key whose bits the
 *		rows lack (SCBF_META_DELTA_EMPTY): probes and the verifier skip it.
 */
bool
ScbfMetaDeltaEmpty(const ScbfMeta *meta)
{
	return (meta->flags & SCBF_META_DELTA_EMPTY) != 0;
}

/*
 * ScbfBumpRecycleSerial
 *		Count one more recycling in the metapage, WAL-logged, before VACUUM's
 *		census frees table entries, runs and pages that a probe holding an
 *		older metapage copy may still read.  On a primary no such probe is
 *		left (the serial marks); a standby's probe has no such protection
 *		and compares the count at its end (ScbfRecycledSince): replay
 *		applies this record before anything the census frees.
 */
void
ScbfBumpRecycleSerial(Relation index)
{
	Buffer		metabuf;
	GenericXLogState *xlog;
	ScbfMetaPageData *meta = MetaStart(index, &metabuf, &xlog);

	meta->recycle_serial++;
	MetaFinish(metabuf, xlog);
}

/*
 * ScbfRecycledSince
 *		True if VACUUM's census began to recycle since meta was copied.
 */
bool
ScbfRecycledSince(Relation index, const ScbfMeta *meta)
{
	Buffer		buf = ReadBuffer(index, SCBF_METAPAGE_BLKNO);
	uint32		now;

	LockBuffer(buf, BUFFER_LOCK_SHARE);
	now = ScbfPageGetMeta(BufferGetPage(buf))->recycle_serial;
	UnlockReleaseBuffer(buf);
	return now != meta->recycle_serial;
}

/*
 * ScbfFreePage
 *		Free one superseded page, locked exclusively by the caller: a free
 *		page, WAL-logged, in the FSM.
 */
void
ScbfFreePage(Relation index, Buffer buf)
{
	GenericXLogState *xlog = GenericXLogStart(index);

	ScbfMarkPageFree(GenericXLogRegisterBuffer(xlog, buf,
											   GENERIC_XLOG_FULL_IMAGE));
	GenericXLogFinish(xlog);
	RecordFreeIndexPage(index, BufferGetBlockNumber(buf));
}

/*
 * Free one page of a grave, if it is of the given type.  False if it is
 * not (or lies outside the index): the grave ends early there.
 */
static bool
FreeGravePage(Relation index, BlockNumber blkno, uint8 type,
			  BlockNumber *next, BlockNumber nblocks)
{
	Buffer		buf;
	Page		page;

	CHECK_FOR_INTERRUPTS();
	if (blkno == SCBF_METAPAGE_BLKNO || blkno >= nblocks)
		return false;
	buf = ReadBuffer(index, blkno);
	LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
	page = BufferGetPage(buf);
	if (!ScbfPageHasOpaque(page) || ScbfPageGetOpaque(page)->type != type)
	{
		UnlockReleaseBuffer(buf);
		return false;
	}
	if (next != NULL)
		*next = ScbfPageGetPending(page)->next;
	ScbfFreePage(index, buf);
	UnlockReleaseBuffer(buf);
	return true;
}

/*
 * Free the pages of one grave that left the metapage: a band's pages, then
 * its map; or a piece of a pending chain.
 */
static void
FreeGrave(Relation index, const ScbfGrave *g, BlockNumber nblocks)
{
	BlockNumber blkno = g->first;

	if (g->kind == SCBF_GRAVE_BAND || g->kind == SCBF_GRAVE_SUMMARY)
	{
		ScbfBand	band;
		uint32		r;
		uint32		p;

		memset(&band, 0, sizeof(band));
		band.kind = g->kind == SCBF_GRAVE_BAND ? SCBF_BAND_ROWS :
			SCBF_BAND_SUMMARY;
		band.map = g->first;
		band.pages = g->n;
		if (ReadBandMap(index, &band, false, nblocks, NULL))
		{
			for (r = 0; r < band.nruns; r++)
				for (p = 0; p < band.runs[r].npages; p++)
					if (!FreeGravePage(index, band.runs[r].start + p,
									   ScbfBandPageType(&band), NULL,
									   nblocks))
					{
						blkno = band.runs[r].start + p;
						goto early;
					}
			if (FreeGravePage(index, band.map, BandMapType(&band), NULL,
							  nblocks))
				return;
		}
	}
	else
	{
		BlockNumber i;

		/* a chain longer than the index has a loop */
		for (i = 0; blkno != g->stop; i++)
			if (i >= nblocks ||
				!FreeGravePage(index, blkno, SCBF_PAGE_PENDING, &blkno,
							   nblocks))
				goto early;
		return;
	}
early:
	ereport(WARNING,
			(errcode(ERRCODE_INDEX_CORRUPTED),
			 errmsg("index \"%s\": a superseded page range ends early at block %u",
					RelationGetRelationName(index), blkno),
			 errdetail("Its remaining pages are not recycled.")));
}

/*
 * ScbfRecycleGraves
 *		Recycle the superseded page ranges that no snapshot can still read:
 *		first take them off the metapage (a crash then leaks them, never
 *		frees a page twice), then free their pages to the FSM, where the
 *		next band, delta or ledger finds them.  Under the fold lock.
 */
void
ScbfRecycleGraves(Relation index)
{
	Buffer		metabuf = ReadBuffer(index, SCBF_METAPAGE_BLKNO);
	ScbfMetaPageData *meta;
	ScbfGrave	dead[SCBF_GRAVES];
	int			ndead = 0;
	GenericXLogState *xlog;
	uint32		i;
	uint32		n = 0;
	BlockNumber nblocks;

	LockBuffer(metabuf, BUFFER_LOCK_SHARE);
	meta = ScbfPageGetMeta(BufferGetPage(metabuf));
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
	meta = ScbfPageGetMeta(GenericXLogRegisterBuffer(xlog, metabuf, 0));
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
		FreeGrave(index, &dead[i], nblocks);

	/* the FSM's upper levels, so that the next new pages find them */
	IndexFreeSpaceMapVacuum(index);
}

/*
 * The page type of a band's map: a band map, or a summary's.
 */
static uint8
BandMapType(const ScbfBand *band)
{
	return band->kind == SCBF_BAND_SUMMARY ? SCBF_PAGE_SUMMARYMAP :
		SCBF_PAGE_BANDMAP;
}

/*
 * The descriptor of a band.
 */
static void
BandDesc(const ScbfBand *b, ScbfBandDesc *d)
{
	memset(d, 0, sizeof(ScbfBandDesc));
	d->map = b->map;
	d->pages = b->pages;
	d->width = b->width;
	d->rows_per_page = b->rows_per_page;
	d->serial = b->serial;
	d->m = b->geom.m;
	d->capacity = b->capacity;
	d->first = b->first;
}

/*
 * The band a descriptor describes, its map not read.
 */
static void
DescBand(const ScbfMeta *meta, const ScbfBandDesc *d, ScbfBand *band)
{
	band->kind = SCBF_BAND_ROWS;
	band->geom.k = meta->k;
	band->geom.m = d->m;
	band->capacity = d->capacity;
	band->first = d->first;
	band->map = d->map;
	band->pages = d->pages;
	band->width = d->width;
	band->rows_per_page = d->rows_per_page;
	band->serial = d->serial;
	band->nruns = 0;
	band->runs = NULL;
}

/*
 * The group a metapage's descriptor describes, its map not read.
 */
static void
DescGroup(const ScbfBandDesc *d, ScbfBand *group)
{
	group->kind = SCBF_BAND_SUMMARY;
	group->geom.k = 1;
	group->geom.m = d->m;
	group->capacity = d->capacity;
	group->first = d->first;
	group->map = d->map;
	group->pages = d->pages;
	group->width = d->width;
	group->rows_per_page = d->rows_per_page;
	group->serial = d->serial;
	group->nruns = 0;
	group->runs = NULL;
	group->removed = 0;
}

/*
 * Describe bands in a metapage: their number and the last one (the others
 * are in the band directory, ScbfBandDirWrite), and their groups.
 */
static void
SetMetaBands(ScbfMetaPageData *meta, const ScbfBands *bands)
{
	uint32		g;

	meta->nbands = bands->nbands;
	memset(&meta->last, 0, sizeof(meta->last));
	if (bands->nbands > 0)
	{
		Assert(bands->bands[bands->nbands - 1].geom.k == meta->k);
		BandDesc(&bands->bands[bands->nbands - 1], &meta->last);
	}
	Assert(bands->ngroups <= SCBF_MAX_GROUPS);
	meta->ngroups = bands->ngroups;
	memset(meta->groups, 0, sizeof(meta->groups));
	memset(meta->group_removed, 0, sizeof(meta->group_removed));
	for (g = 0; g < bands->ngroups; g++)
	{
		BandDesc(&bands->groups[g], &meta->groups[g]);
		meta->group_removed[g] = bands->groups[g].removed;
	}
	memset(&meta->top, 0, sizeof(meta->top));
	meta->top_covered = 0;
	meta->top_removed = 0;
	if (bands->top.width > 0)
	{
		BandDesc(&bands->top, &meta->top);
		meta->top.m = 0;
		meta->top_covered = bands->covered;
		meta->top_removed = bands->top.removed;
	}
	/* the format says whether there is a top, so that older code refuses it */
	if (ScbfFormatWide(meta->version))
		meta->version = bands->top.width > 0 ?
			SCBF_FORMAT_VERSION_TOP_WIDE : SCBF_FORMAT_VERSION_WIDE;
	else
		meta->version = bands->top.width > 0 ?
			SCBF_FORMAT_VERSION_TOP : SCBF_FORMAT_VERSION;
}

/*
 * The top a metapage copy describes into bands->top and bands->covered,
 * its map not read (width 0: none).  A top whose shape is impossible, or
 * that covers groups the metapage does not have, is corruption.
 */
static void
MetaTop(Relation index, const ScbfMeta *meta, ScbfBands *bands)
{
	const ScbfBandDesc *d = &meta->top;

	memset(&bands->top, 0, sizeof(ScbfBand));
	bands->top.map = InvalidBlockNumber;
	bands->covered = 0;
	if (d->width == 0)
		return;
	if (d->width > SCBF_TOP_GROUPS || d->rows_per_page == 0 ||
		d->rows_per_page % SCBF_SUMMARY_BLOCK_BITS != 0 ||
		(uint64) d->rows_per_page * d->width > (uint64) SCBF_PAGE_SPACE * 8 ||
		d->m != 0 || d->capacity == 0 || d->first != 0 ||
		d->pages != ((uint64) d->capacity * SCBF_SUMMARY_BLOCK_BITS +
					 d->rows_per_page - 1) / d->rows_per_page ||
		meta->top_covered > d->width || meta->top_covered > meta->ngroups)
		ScbfReportCorrupt(index, SCBF_METAPAGE_BLKNO,
						  "The metapage's top over groups is impossible.");
	DescGroup(d, &bands->top);
	bands->top.removed = meta->top_removed;
	bands->covered = meta->top_covered;
}

/*
 * The groups a metapage copy counts, into groups (room for
 * SCBF_MAX_GROUPS), their maps not read; returns how many.  A group that
 * does not continue the one before it, or that holds no band, is
 * corruption.
 */
static uint32
MetaGroups(Relation index, const ScbfMeta *meta, ScbfBand *groups)
{
	uint32		g;

	if (meta->ngroups > SCBF_MAX_GROUPS)
		ScbfReportCorrupt(index, SCBF_METAPAGE_BLKNO,
						  "The metapage has more groups of bands than it holds.");
	for (g = 0; g < meta->ngroups; g++)
	{
		const ScbfBandDesc *d = &meta->groups[g];

		if (d->width == 0 || d->rows_per_page == 0 ||
			d->rows_per_page % SCBF_SUMMARY_BLOCK_BITS != 0 ||
			(uint64) d->rows_per_page * d->width > (uint64) SCBF_PAGE_SPACE * 8 ||
			d->m != d->capacity * SCBF_SUMMARY_BLOCK_BITS || d->m == 0 ||
			d->pages != (d->m + d->rows_per_page - 1) / d->rows_per_page ||
			d->first != (g == 0 ? 0 :
						 meta->groups[g - 1].first + meta->groups[g - 1].width) ||
			d->first >= meta->nbands)
			ScbfReportCorrupt(index, SCBF_METAPAGE_BLKNO,
							  psprintf("The metapage's group %u of bands is impossible.",
									   g));
		DescGroup(d, &groups[g]);
		groups[g].removed = meta->group_removed[g];
	}
	return meta->ngroups;
}

/*
 * ScbfMetaBandCount
 *		The bands a metapage copy counts.
 */
uint32
ScbfMetaBandCount(const ScbfMeta *meta)
{
	return meta->nbands;
}

/*
 * ScbfMetaBandsEnd
 *		The first filter number no band of a metapage copy holds.
 */
uint32
ScbfMetaBandsEnd(const ScbfMeta *meta)
{
	return meta->nbands == 0 ? 0 : meta->last.first + meta->last.width;
}

/*
 * ScbfMetaBands
 *		The bands a metapage copy counts, palloc'd (with room for one more),
 *		their maps not read: the last from the metapage, the others from
 *		the band directory's pages.  A directory page that is not one, or an
 *		entry that does not continue the bands before it, is corruption:
 *		the entries a copy counts never change.
 */
void
ScbfMetaBands(Relation index, const ScbfMeta *meta, ScbfBands *bands,
			  BlockNumber nblocks)
{
	bands->bands = palloc(sizeof(ScbfBand) * (meta->nbands + 1));
	ReadBandDir(index, meta, 0, bands, nblocks);
	bands->groups = palloc(sizeof(ScbfBand) * SCBF_MAX_GROUPS);
	bands->ngroups = MetaGroups(index, meta, bands->groups);
	MetaTop(index, meta, bands);
}

/*
 * ScbfMetaBands into bands->bands, which has room for meta->nbands, for
 * a caller that holds bands[0 .. from) of the same index's full bands
 * already (a cache): reads the directory from band from on.
 */
static void
ReadBandDir(Relation index, const ScbfMeta *meta, uint32 from,
			ScbfBands *bands, BlockNumber nblocks)
{
	uint32		n = meta->nbands;
	uint32		b = from;

	bands->nbands = n;
	while (b + 1 < n)
	{
		uint32		pageno = (uint32) (b / SCBF_BANDDIR_PER_PAGE);
		BlockNumber blkno = ScbfRunsBlock(&meta->dir, pageno);
		Buffer		buf;
		Page		page;

		CHECK_FOR_INTERRUPTS();
		buf = ScbfReadPage(index, blkno, BUFFER_LOCK_SHARE,
							SCBF_PAGE_BANDDIR, nblocks);
		page = BufferGetPage(buf);
		if (ScbfPageGetOpaque(page)->ident.table.pageno != pageno)
		{
			UnlockReleaseBuffer(buf);
			ScbfReportCorrupt(index, blkno,
							  "A band directory page is not the one the metapage lists there.");
		}
		for (; b + 1 < n && b / SCBF_BANDDIR_PER_PAGE == pageno; b++)
		{
			const ScbfBandDesc *d =
				&ScbfPageGetBandDir(page)[b % SCBF_BANDDIR_PER_PAGE];

			CheckBand(index, meta, d, b, blkno);
			DescBand(meta, d, &bands->bands[b]);
		}
		UnlockReleaseBuffer(buf);
	}
	if (n > 0)
		DescBand(meta, &meta->last, &bands->bands[n - 1]);
	for (b = Max(from, 1); b < n; b++)
		if (bands->bands[b].first !=
			bands->bands[b - 1].first + bands->bands[b - 1].width ||
			bands->bands[b].serial <= bands->bands[b - 1].serial)
			ScbfReportCorrupt(index, SCBF_METAPAGE_BLKNO,
							  psprintf("Band %u does not continue band %u.",
									   b, b - 1));
	if (n > 0 && bands->bands[0].first != 0)
		ScbfReportCorrupt(index, SCBF_METAPAGE_BLKNO,
						  "The first band does not start at filter 0.");
}

/* A band directory page's entries: bands[first .. first + n) of bands */
typedef struct ScbfDirFill
{
	Relation	index;
	const ScbfBands *bands;
	uint32		nfull;			/* bands the directory holds */
} ScbfDirFill;

/*
 * Fill page pageno of a band directory with the entries of df's bands
 * that fall on it.
 */
static void
InitDirPage(Page page, const ScbfDirFill *df, uint32 pageno)
{
	uint32		b;

	ScbfInitPage(page, SCBF_PAGE_BANDDIR,
				 sizeof(ScbfBandDesc) * SCBF_BANDDIR_PER_PAGE)->ident.table.pageno = pageno;
	for (b = pageno * SCBF_BANDDIR_PER_PAGE;
		 b < df->nfull && b < (pageno + 1) * SCBF_BANDDIR_PER_PAGE; b++)
		BandDesc(&df->bands->bands[b],
				 &ScbfPageGetBandDir(page)[b % SCBF_BANDDIR_PER_PAGE]);
}

/*
 * ScbfExtend callback of a build: page pageno of the band directory,
 * unlogged.
 */
static void
BuildDirPage(Buffer buf, uint32 pageno, void *arg)
{
	InitDirPage(BufferGetPage(buf), (const ScbfDirFill *) arg, pageno);
	MarkBufferDirty(buf);
}

/*
 * ScbfRunsGrow callback of a fold: page pageno of the band directory,
 * empty, WAL-logged as a full image.
 */
static void
GrowDirPage(Buffer buf, uint32 pageno, void *arg)
{
	const ScbfDirFill *df = (const ScbfDirFill *) arg;
	GenericXLogState *xlog = GenericXLogStart(df->index);
	ScbfDirFill none = *df;

	none.nfull = 0;
	InitDirPage(GenericXLogRegisterBuffer(xlog, buf, GENERIC_XLOG_FULL_IMAGE),
				&none, pageno);
	GenericXLogFinish(xlog);
}

/*
 * ScbfBandDirBuild
 *		The band directory of a new index, holding every band of bands but
 *		the last: one run at the relation's end, unlogged (the build
 *		WAL-logs the whole index at its end).
 */
void
ScbfBandDirBuild(Relation index, const ScbfBands *bands, ScbfPageRuns *dir)
{
	ScbfDirFill df;
	uint32		npages;

	memset(dir, 0, sizeof(ScbfPageRuns));
	df.index = index;
	df.bands = bands;
	df.nfull = bands->nbands > 0 ? bands->nbands - 1 : 0;
	npages = (uint32) ((df.nfull + SCBF_BANDDIR_PER_PAGE - 1) /
					   SCBF_BANDDIR_PER_PAGE);
	if (npages == 0)
		return;
	dir->runs[0].start = ScbfExtend(index, npages, BuildDirPage, &df);
	dir->runs[0].npages = npages;
	dir->nruns = 1;
	dir->npages = npages;
}

/*
 * ScbfBandDirWrite
 *		Write into the band directory, WAL-logged, the bands of bands that
 *		are full and that the metapage copy does not count as such yet: its
 *		last band's place on (the last band of bands stays in the
 *		metapage).  The entries are written in place past the ones meta
 *		counts, which no reader reads; the directory grows as needed.  *dir
 *		receives its pages, for the fold's metapage record.
 */
void
ScbfBandDirWrite(Relation index, const ScbfMeta *meta, const ScbfBands *bands,
				 ScbfPageRuns *dir)
{
	ScbfDirFill df;
	uint32		from = meta->nbands > 0 ? meta->nbands - 1 : 0;
	uint32		nfull = bands->nbands > 0 ? bands->nbands - 1 : 0;
	uint32		need;
	uint32		b = from;

	*dir = meta->dir;
	if (nfull <= from)
		return;
	df.index = index;
	df.bands = bands;
	df.nfull = nfull;
	need = (uint32) ((nfull + SCBF_BANDDIR_PER_PAGE - 1) /
					 SCBF_BANDDIR_PER_PAGE);
	if (need > dir->npages)
		ScbfRunsGrow(index, dir, need, GrowDirPage, &df);
	while (b < nfull)
	{
		uint32		pageno = (uint32) (b / SCBF_BANDDIR_PER_PAGE);
		Buffer		buf;
		GenericXLogState *xlog;
		Page		page;

		buf = ScbfReadPage(index, ScbfRunsBlock(dir, pageno),
							BUFFER_LOCK_EXCLUSIVE, SCBF_PAGE_BANDDIR,
							RelationGetNumberOfBlocks(index));
		xlog = GenericXLogStart(index);
		page = GenericXLogRegisterBuffer(xlog, buf, 0);
		if (ScbfPageGetOpaque(page)->ident.table.pageno != pageno)
			ScbfReportCorrupt(index, BufferGetBlockNumber(buf),
							  "A band directory page is not the one the metapage lists there.");
		for (; b < nfull && b / SCBF_BANDDIR_PER_PAGE == pageno; b++)
			BandDesc(&bands->bands[b],
					 &ScbfPageGetBandDir(page)[b % SCBF_BANDDIR_PER_PAGE]);
		GenericXLogFinish(xlog);
		UnlockReleaseBuffer(buf);
	}
}

/*
 * ScbfMetaGeometry
 *		The m and capacity a new band of a metapage copy takes: the last
 *		band's, or before the first band what the build chose.
 */
void
ScbfMetaGeometry(const ScbfMeta *meta, uint32 *m, uint32 *capacity)
{
	*m = meta->m;
	*capacity = meta->capacity;
}

/*
 * ScbfBandOf
 *		The band that holds filter filterno, or NULL if none does.
 */
const ScbfBand *
ScbfBandOf(const ScbfBands *bands, uint32 filterno)
{
	uint32		lo = 0;
	uint32		hi = bands->nbands;

	while (lo < hi)
	{
		uint32		mid = lo + (hi - lo) / 2;
		const ScbfBand *b = &bands->bands[mid];

		if (filterno < b->first)
			hi = mid;
		else if (filterno - b->first >= b->width)
			lo = mid + 1;
		else
			return b;
	}
	return NULL;
}

/*
 * ScbfBandsEnd
 *		The first filter number no band holds: the filters the bands have
 *		room for.
 */
uint32
ScbfBandsEnd(const ScbfBands *bands)
{
	const ScbfBand *last;

	if (bands->nbands == 0)
		return 0;
	last = &bands->bands[bands->nbands - 1];
	return last->first + last->width;
}

/*
 * ScbfBandsPages
 *		The row pages of all bands.
 */
uint32
ScbfBandsPages(const ScbfBands *bands)
{
	uint64		pages = 0;
	uint32		i;

	for (i = 0; i < bands->nbands; i++)
		pages += bands->bands[i].pages;
	return (uint32) Min(pages, PG_UINT32_MAX);
}

/*
 * Read the map of band (its map block and page count set) into
 * band->runs, palloc'd, or into runs if not NULL (SCBF_BAND_MAX_RUNS of
 * them).  With check, the map must be of band->serial.  False if the block
 * is not such a map, or its runs are not band->pages blocks inside the
 * index.
 */
static bool
ReadBandMap(Relation index, ScbfBand *band, bool check, BlockNumber nblocks,
			ScbfBandRun *runs)
{
	Buffer		buf;
	Page		page;
	ScbfBandMapPageData *map;
	uint64		total = 0;
	uint32		r;
	bool		ok;

	band->nruns = 0;
	band->runs = NULL;
	if (band->map == SCBF_METAPAGE_BLKNO || band->map >= nblocks)
		return false;
	buf = ReadBuffer(index, band->map);
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buf);
	map = ScbfPageGetBandMap(page);
	ok = ScbfPageHasOpaque(page) &&
		ScbfPageGetOpaque(page)->type == BandMapType(band) &&
		(!check ||
		 ScbfPageGetOpaque(page)->ident.map.band_serial == band->serial) &&
		map->npages == band->pages &&
		map->nruns >= 1 && map->nruns <= SCBF_BAND_MAX_RUNS;
	for (r = 0; ok && r < map->nruns; r++)
	{
		ok = map->runs[r].start != SCBF_METAPAGE_BLKNO &&
			map->runs[r].start < nblocks &&
			map->runs[r].npages <= nblocks - map->runs[r].start;
		total += map->runs[r].npages;
	}
	if (ok && total == band->pages)
	{
		if (runs == NULL)
			runs = palloc(sizeof(ScbfBandRun) * map->nruns);
		memcpy(runs, map->runs, sizeof(ScbfBandRun) * map->nruns);
		band->nruns = map->nruns;
		band->runs = runs;
	}
	UnlockReleaseBuffer(buf);
	return band->nruns > 0;
}

/*
 * ScbfBandLoad
 *		Read the map of a band that ScbfMetaBand described: its runs,
 *		palloc'd.  A band without pages has none.  False if its map block
 *		is not that band's map (a probe's band was superseded and its map
 *		recycled: the caller starts over) or is inconsistent.
 */
bool
ScbfBandLoad(Relation index, ScbfBand *band, BlockNumber nblocks)
{
	if (band->pages == 0)
	{
		band->nruns = 0;
		band->runs = NULL;
		return true;
	}
	return ReadBandMap(index, band, true, nblocks, NULL);
}

/*
 * The groups a metapage copy counts, and its top, into state->cache, their
 * maps read: from state->gcache_runs for a group (the top in slot
 * SCBF_MAX_GROUPS) whose map, serial and pages are those gcache holds,
 * else read and kept there.  False if a map is not its group's (see
 * ScbfBandLoad).
 */
static bool
CachedGroups(Relation index, ScbfState *state, const ScbfMeta *meta,
			 BlockNumber nblocks)
{
	uint32		n;
	uint32		g;

	state->cache.top.width = 0;
	state->cache.covered = 0;
	if (meta->ngroups == 0)
		return true;
	if (state->gcache == NULL)
	{
		state->gcache = MemoryContextAllocZero(index->rd_indexcxt,
											   sizeof(ScbfBand) * (SCBF_MAX_GROUPS + 1));
		state->gcache_runs =
			MemoryContextAllocZero(index->rd_indexcxt,
								   sizeof(ScbfBandRun *) * (SCBF_MAX_GROUPS + 1));
		state->cache.groups =
			MemoryContextAllocZero(index->rd_indexcxt,
								   sizeof(ScbfBand) * SCBF_MAX_GROUPS);
	}
	n = MetaGroups(index, meta, state->cache.groups);
	MetaTop(index, meta, &state->cache);
	for (g = 0; g <= SCBF_MAX_GROUPS; g++)
	{
		ScbfBand   *group;
		ScbfBand   *had = &state->gcache[g];

		if (g >= n && g < SCBF_MAX_GROUPS)
			continue;
		group = g < n ? &state->cache.groups[g] : &state->cache.top;
		if (group->width == 0)
			continue;

		if (had->nruns > 0 && had->map == group->map &&
			had->serial == group->serial && had->pages == group->pages)
		{
			group->nruns = had->nruns;
			group->runs = had->runs;
			continue;
		}
		had->nruns = 0;
		if (state->gcache_runs[g] == NULL)
			state->gcache_runs[g] =
				MemoryContextAlloc(index->rd_indexcxt,
								   sizeof(ScbfBandRun) * SCBF_BAND_MAX_RUNS);
		if (!ReadBandMap(index, group, true, nblocks, state->gcache_runs[g]))
			return false;
		*had = *group;
	}
	state->cache.ngroups = n;
	return true;
}

/*
 * ScbfBandsCached
 *		The bands a metapage copy counts, their maps read: from the cached
 *		state's band cache (CachedState) for the bands it holds (the full
 *		ones never change; the last one while its map and serial stay), the
 *		others read and cached there.  NULL if a map is not its band's (see
 *		ScbfBandLoad).  The result lives in the relcache entry: use it
 *		before the next lock acquisition.
 */
const ScbfBands *
ScbfBandsCached(Relation index, const ScbfMeta *meta, BlockNumber nblocks)
{
	ScbfState  *state = CachedState(index);
	uint32		n = meta->nbands;
	uint32		have;
	ScbfBand	oldlast;
	uint32		i;

	if (n + 1 > state->maxcache)
	{
		uint32		max = Max(n + 1, state->maxcache * 2);

		/* in the relcache entry's context; repalloc keeps a chunk's */
		if (state->cache.bands == NULL)
		{
			state->cache.bands =
				MemoryContextAllocZero(index->rd_indexcxt,
									   sizeof(ScbfBand) * max);
			state->cache_runs =
				MemoryContextAllocZero(index->rd_indexcxt,
									   sizeof(ScbfBandRun *) * max);
		}
		else
		{
			state->cache.bands = repalloc(state->cache.bands,
										  sizeof(ScbfBand) * max);
			state->cache_runs = repalloc(state->cache_runs,
										 sizeof(ScbfBandRun *) * max);
			memset(state->cache_runs + state->maxcache, 0,
				   sizeof(ScbfBandRun *) * (max - state->maxcache));
		}
		state->maxcache = max;
	}

	/* the full bands the cache holds, and the last one it held */
	have = state->cache.nbands > 0 ? state->cache.nbands - 1 : 0;
	have = Min(have, n > 0 ? n - 1 : 0);
	memset(&oldlast, 0, sizeof(oldlast));
	if (state->cache.nbands > 0)
		oldlast = state->cache.bands[state->cache.nbands - 1];
	state->cache.nbands = 0;
	state->cache.ngroups = 0;
	state->cache.top.width = 0;
	state->cache.covered = 0;
	if (n == 0)
		return &state->cache;
	ReadBandDir(index, meta, have, &state->cache, nblocks);
	if (!CachedGroups(index, state, meta, nblocks))
	{
		state->cache.nbands = 0;
		return NULL;
	}

	for (i = have; i < n; i++)
	{
		ScbfBand   *band = &state->cache.bands[i];

		if (band->pages == 0)
			continue;
		if (oldlast.nruns > 0 && oldlast.map == band->map &&
			oldlast.serial == band->serial && oldlast.pages == band->pages &&
			oldlast.first == band->first)
		{
			band->nruns = oldlast.nruns;
			band->runs = oldlast.runs;
			oldlast.nruns = 0;
			continue;
		}
		if (state->cache_runs[i] == NULL)
			state->cache_runs[i] =
				MemoryContextAlloc(index->rd_indexcxt,
								   sizeof(ScbfBandRun) * SCBF_BAND_MAX_RUNS);
		/* the old last band's runs, if here, are overwritten: forget them */
		if (oldlast.runs == state->cache_runs[i])
			oldlast.nruns = 0;
		if (!ReadBandMap(index, band, true, nblocks, state->cache_runs[i]))
		{
			state->cache.nbands = 0;
			return NULL;
		}
	}
	return &state->cache;
}

/*
 * ScbfBandMapped
 *		band with its map read: band itself if it has no pages or its map
 *		is read, else a copy in *copy with its runs (palloc'd).  A map that
 *		is not the band's is corruption: for the fold-lock holder, under
 *		which the bands cannot change, which reads only the maps of the
 *		bands it writes (of thousands, a fold writes a few).
 */
const ScbfBand *
ScbfBandMapped(Relation index, const ScbfBand *band, ScbfBand *copy,
			   BlockNumber nblocks)
{
	if (band->pages == 0 || band->nruns > 0)
		return band;
	*copy = *band;
	if (!ScbfBandLoad(index, copy, nblocks))
		ScbfReportCorrupt(index, band->map,
						  psprintf("The band map is not the one of the band of serial %u.",
								   band->serial));
	return copy;
}

/*
 * ScbfBandBlock
 *		The block of page pageno of a band whose map was read;
 *		InvalidBlockNumber past its end.
 */
BlockNumber
ScbfBandBlock(const ScbfBand *band, uint32 pageno)
{
	uint32		r;

	for (r = 0; r < band->nruns; r++)
	{
		if (pageno < band->runs[r].npages)
			return band->runs[r].start + pageno;
		pageno -= band->runs[r].npages;
	}
	return InvalidBlockNumber;
}

/*
 * ScbfWriteBandMap
 *		Write the map of a band whose runs are set, on a new page; sets
 *		band->map.  logged: WAL-logged as a full image; else (ambuild)
 *		only marked dirty.
 */
void
ScbfWriteBandMap(Relation index, ScbfBand *band, bool logged)
{
	Buffer		buf = ScbfNewBuffer(index);
	GenericXLogState *xlog = NULL;
	Page		page;
	ScbfPageOpaque opaque;
	ScbfBandMapPageData *map;

	Assert(band->nruns >= 1 && band->nruns <= SCBF_BAND_MAX_RUNS);
	if (logged)
	{
		xlog = GenericXLogStart(index);
		page = GenericXLogRegisterBuffer(xlog, buf, GENERIC_XLOG_FULL_IMAGE);
	}
	else
		page = BufferGetPage(buf);
	opaque = ScbfInitPage(page, BandMapType(band),
						  offsetof(ScbfBandMapPageData, runs) +
						  sizeof(ScbfBandRun) * band->nruns);
	opaque->ident.map.band_serial = band->serial;
	map = ScbfPageGetBandMap(page);
	map->npages = band->pages;
	map->nruns = band->nruns;
	memcpy(map->runs, band->runs, sizeof(ScbfBandRun) * band->nruns);
	if (logged)
		GenericXLogFinish(xlog);
	else
		MarkBufferDirty(buf);
	band->map = BufferGetBlockNumber(buf);
	UnlockReleaseBuffer(buf);
}

/*
 * ScbfMetaDelta
 *		Where a metapage copy says the delta is.
 */
void
ScbfMetaDelta(const ScbfMeta *meta, ScbfDelta *delta)
{
	delta->start = meta->delta_start;
	delta->pages = meta->delta_pages;
	delta->serial = meta->delta_serial;
	delta->bits = ScbfMetaHashBits(meta);
}

/*
 * ScbfBlockRefInit
 *		A census reference to a page of the given kind, its other fields
 *		unset (-1, InvalidBlockNumber).
 */
void
ScbfBlockRefInit(ScbfBlockRef *ref, ScbfPageKind kind)
{
	ref->kind = kind;
	ref->grave = -1;
	ref->pageno = -1;
	ref->serial = -1;
	ref->filterno = -1;
	ref->segno = -1;
	ref->column = -1;
	ref->partition = -1;
	ref->next = InvalidBlockNumber;
	ref->top = false;
}

/*
 * Hand fn the n blocks of a contiguous range from first, the ref's pageno
 * counting from 0; the range ends early where fn says so or at the first
 * block outside the index (handed over, so that fn can report it).
 */
static void
NameRange(BlockNumber first, uint32 n, ScbfBlockRef *ref, ScbfCensusFn fn,
		  void *arg, BlockNumber nblocks)
{
	uint32		p;

	for (p = 0; p < n; p++)
	{
		CHECK_FOR_INTERRUPTS();
		ref->pageno = p;
		if (!fn(first + p, ref, arg) || first + p >= nblocks ||
			first + p < first)
			break;
	}
}

/*
 * Hand fn a band's map at map, its ref's pageno the band's number (bandno,
 * or -1 for a superseded band or the top; top says which), and the pages its runs list, the ref's
 * pageno counting from 0 (grave: the metapage's grave that names it, or
 * -1).  A map that cannot be read names no pages.
 */
static void
NameBand(Relation index, uint8 kind, BlockNumber map, uint32 pages,
		 uint32 serial, int bandno, int grave, bool top, ScbfCensusFn fn,
		 void *arg, BlockNumber nblocks)
{
	ScbfBlockRef ref;
	ScbfBand	band;
	uint32		r;
	uint32		p;
	int64		pageno = 0;

	if (pages == 0)
		return;
	ScbfBlockRefInit(&ref, kind == SCBF_BAND_SUMMARY ? SCBF_KIND_SUMMARYMAP :
					 SCBF_KIND_BANDMAP);
	ref.grave = grave;
	ref.serial = grave < 0 ? serial : -1;
	ref.pageno = bandno;
	ref.top = top;
	if (!fn(map, &ref, arg))
		return;
	memset(&band, 0, sizeof(band));
	band.kind = kind;
	band.map = map;
	band.pages = pages;
	band.serial = serial;
	if (!ReadBandMap(index, &band, grave < 0, nblocks, NULL))
		return;
	ScbfBlockRefInit(&ref, kind == SCBF_BAND_SUMMARY ? SCBF_KIND_SUMMARY :
					 SCBF_KIND_ROWS);
	ref.grave = grave;
	ref.serial = grave < 0 ? serial : -1;
	ref.top = top;
	for (r = 0; r < band.nruns; r++)
		for (p = 0; p < band.runs[r].npages; p++)
		{
			CHECK_FOR_INTERRUPTS();
			ref.pageno = pageno++;
			if (!fn(band.runs[r].start + p, &ref, arg))
				break;
		}
	pfree((void *) band.runs);
}

/*
 * ScbfMetaBlocks
 *		The part of the block census (ScbfCensus) that a metapage copy
 *		names itself: hand fn the filter table's pages, the band
 *		directory's, each band's, group's and the top's (its map, then its
 *		pages), the delta and the bands waiting in the graveyard.
 *		Each range ends at the first block outside the index (below
 *		nblocks) or where fn says so.
 */
void
ScbfMetaBlocks(Relation index, const ScbfMeta *meta, ScbfCensusFn fn,
			   void *arg, BlockNumber nblocks)
{
	ScbfBlockRef ref;
	ScbfBands	bands;
	uint32		i;

	ScbfBlockRefInit(&ref, SCBF_KIND_TABLE);
	for (i = 0; i < meta->table.npages; i++)
	{
		ref.pageno = i;
		if (!fn(ScbfRunsBlock(&meta->table, i), &ref, arg))
			break;
	}
	ScbfBlockRefInit(&ref, SCBF_KIND_BANDDIR);
	for (i = 0; i < meta->dir.npages; i++)
	{
		ref.pageno = i;
		if (!fn(ScbfRunsBlock(&meta->dir, i), &ref, arg))
			break;
	}
	ScbfMetaBands(index, meta, &bands, nblocks);
	for (i = 0; i < bands.nbands; i++)
		NameBand(index, SCBF_BAND_ROWS, bands.bands[i].map,
				 bands.bands[i].pages, bands.bands[i].serial, (int) i, -1,
				 false, fn, arg, nblocks);
	for (i = 0; i < bands.ngroups; i++)
		NameBand(index, SCBF_BAND_SUMMARY, bands.groups[i].map,
				 bands.groups[i].pages, bands.groups[i].serial, (int) i, -1,
				 false, fn, arg, nblocks);
	/* the top: a summary whose map has no group number */
	if (bands.top.width > 0)
		NameBand(index, SCBF_BAND_SUMMARY, bands.top.map, bands.top.pages,
				 bands.top.serial, -1, -1, true, fn, arg, nblocks);
	ScbfBlockRefInit(&ref, SCBF_KIND_DELTA);
	ref.serial = meta->delta_serial;
	NameRange(meta->delta_start, meta->delta_pages, &ref, fn, arg, nblocks);
	for (i = 0; i < meta->ngraves && i < SCBF_GRAVES; i++)
		if (meta->graves[i].kind == SCBF_GRAVE_BAND ||
			meta->graves[i].kind == SCBF_GRAVE_SUMMARY)
			NameBand(index, meta->graves[i].kind == SCBF_GRAVE_BAND ?
					 SCBF_BAND_ROWS : SCBF_BAND_SUMMARY,
					 meta->graves[i].first, meta->graves[i].n, 0, -1,
					 (int) i, false, fn, arg, nblocks);
}

/*
 * ScbfFreeUnnamed
 *		amvacuumcleanup's sweep after the block census, under the fold
 *		lock.  named has a bit per block below nblocks for every block a
 *		structure names.  A table, row, root, leaf or delta page that no
 *		structure names was left by a fold or VACUUM that crashed before its
 *		commit (only the fold-lock holder writes those kinds) and is freed;
 *		a free page goes to the FSM again (the FSM is not WAL-logged).
 *		Pending pages are left alone: an append links a new one without the
 *		fold lock.  New, never initialized pages too: an extension may be
 *		under way.  Returns the pages freed; *nfree receives the free
 *		pages.
 */
BlockNumber
ScbfFreeUnnamed(Relation index, const uint8 *named, BlockNumber nblocks,
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
		type = ScbfPageHasOpaque(page) ? ScbfPageGetOpaque(page)->type : 0;
		if (type == SCBF_PAGE_TABLE || type == SCBF_PAGE_ROWS ||
			type == SCBF_PAGE_BANDMAP || type == SCBF_PAGE_BANDDIR ||
			type == SCBF_PAGE_SUMMARY || type == SCBF_PAGE_SUMMARYMAP ||
			type == SCBF_PAGE_ROOT || type == SCBF_PAGE_LEAF ||
			type == SCBF_PAGE_DELTA)
		{
			ScbfFreePage(index, buf);
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
 *	Readers for the diagnostics and the verifier (scbf.h)
 * ----------------------------------------------------------------
 */

/*
 * ScbfMetaInfo
 *		Everything a metapage copy says, into *mi; the graves and marks are
 *		palloc'd, the table pages point into the copy.  Nothing is checked
 *		beyond the bounds of the arrays.
 */
void
ScbfMetaInfo(const ScbfMeta *meta, ScbfMetaInfoData *mi)
{
	uint32		i;

	memset(mi, 0, sizeof(ScbfMetaInfoData));
	mi->pages_per_segment = meta->pages_per_segment;
	mi->ncols = meta->ncols;
	mi->k = meta->k;
	mi->m = meta->m;
	mi->capacity = meta->capacity;
	mi->target_fpr = meta->target_fpr;
	mi->flags = meta->flags;
	mi->bands.nbands = 0;		/* ScbfMetaBands reads them */
	mi->bands.bands = NULL;
	ScbfMetaDelta(meta, &mi->delta);
	mi->nfilters = meta->nfilters;
	mi->table_generation = meta->table_generation;
	mi->table = &meta->table;
	mi->fold_serial = meta->fold_serial;
	for (i = 0; i < SCBF_NPENDING; i++)
	{
		mi->pending[i].head = meta->pending[i].head;
		mi->pending[i].tail = meta->pending[i].tail;
		mi->pending[i].head_serial = meta->pending[i].head_serial;
		mi->pending[i].cut = meta->pending[i].cut;
		mi->pending[i].flags = meta->pending[i].flags;
		mi->pending[i].mayhave =
			(meta->pending[i].flags & SCBF_PENDING_MAYHAVE) != 0;
	}
	mi->nentries = meta->nentries;
	mi->nsegments = meta->nsegments;
	mi->nledger_pages = meta->nledger_pages;
	mi->mean_fpr = meta->mean_fpr;
	mi->ngraves = meta->ngraves;
	mi->max_graves = SCBF_GRAVES;
	mi->graves = palloc0(sizeof(ScbfGraveInfo) * SCBF_GRAVES);
	for (i = 0; i < meta->ngraves && i < SCBF_GRAVES; i++)
	{
		const ScbfGrave *g = &meta->graves[i];

		mi->graves[i].band = g->kind == SCBF_GRAVE_BAND ||
			g->kind == SCBF_GRAVE_SUMMARY;
		mi->graves[i].kind = g->kind;
		mi->graves[i].first = g->first;
		mi->graves[i].n = g->n;
		mi->graves[i].stop = g->stop;
		mi->graves[i].safexid = g->safexid;
	}
	mi->nmarks = SCBF_MARKS;
	mi->mark_serials = palloc(sizeof(uint64) * SCBF_MARKS);
	for (i = 0; i < SCBF_MARKS; i++)
		mi->mark_serials[i] = meta->marks[i].serial;
	mi->entries_per_table_page = ScbfFilterEntriesPerPage(Max(meta->ncols, 1));
	mi->pending_entries_per_page =
		SCBF_PENDING_BYTES /
		ScbfPendingEntrySize(Max(meta->ncols, 1),
							 ScbfStoredHashBytes(ScbfMetaHashBits(meta)));
}

/*
 * ScbfInspectPage
 *		What block blkno says it is, read under a share lock, as pageinspect
 *		reads a page: its kind and the owner fields of its special space,
 *		whatever structure names it or not.
 */
void
ScbfInspectPage(Relation index, BlockNumber blkno, ScbfPageInfo *pi)
{
	Buffer		buf = ReadBuffer(index, blkno);
	Page		page;
	ScbfPageOpaque opaque;

	memset(pi, 0, sizeof(ScbfPageInfo));
	pi->next = InvalidBlockNumber;
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buf);
	if (PageIsNew(page))
		pi->kind = SCBF_KIND_NEW;
	else if (!ScbfPageHasOpaque(page))
		pi->kind = SCBF_KIND_UNKNOWN;
	else
	{
		opaque = ScbfPageGetOpaque(page);
		pi->ident = opaque->ident;
		pi->column = opaque->column;
		switch (opaque->type)
		{
			case SCBF_PAGE_META:
				pi->kind = SCBF_KIND_META;
				break;
			case SCBF_PAGE_TABLE:
				pi->kind = SCBF_KIND_TABLE;
				break;
			case SCBF_PAGE_ROWS:
				pi->kind = SCBF_KIND_ROWS;
				break;
			case SCBF_PAGE_BANDMAP:
				pi->kind = SCBF_KIND_BANDMAP;
				pi->count = ScbfPageGetBandMap(page)->nruns;
				break;
			case SCBF_PAGE_SUMMARY:
				pi->kind = SCBF_KIND_SUMMARY;
				break;
			case SCBF_PAGE_SUMMARYMAP:
				pi->kind = SCBF_KIND_SUMMARYMAP;
				pi->count = ScbfPageGetBandMap(page)->nruns;
				break;
			case SCBF_PAGE_BANDDIR:
				pi->kind = SCBF_KIND_BANDDIR;
				break;
			case SCBF_PAGE_ROOT:
				pi->kind = SCBF_KIND_ROOT;
				pi->count = ScbfPageGetRoot(page)->nruns;
				break;
			case SCBF_PAGE_LEAF:
				pi->kind = SCBF_KIND_LEAF;
				pi->count = ScbfPageGetLeaf(page)->nlists;
				break;
			case SCBF_PAGE_PENDING:
				pi->kind = SCBF_KIND_PENDING;
				pi->count = ScbfPageGetPending(page)->nentries;
				pi->next = ScbfPageGetPending(page)->next;
				break;
			case SCBF_PAGE_DELTA:
				pi->kind = SCBF_KIND_DELTA;
				pi->count = ScbfPageGetDelta(page)->nentries;
				break;
			case SCBF_PAGE_FREE:
				pi->kind = SCBF_KIND_FREE;
				break;
			default:
				pi->kind = SCBF_KIND_UNKNOWN;
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
	ScbfInitPage(page, SCBF_PAGE_FREE, 0);
}

/*
 * True for a page that may be reused: never initialized, or freed.
 */
static bool
ScbfPageIsFree(Page page)
{
	if (PageIsNew(page))
		return true;
	return ScbfPageHasOpaque(page) &&
		ScbfPageGetOpaque(page)->type == SCBF_PAGE_FREE;
}

/*
 * ScbfFreeBuffer
 *		An exclusively locked buffer of a free page recorded in the FSM that
 *		can be locked at once and really is free, or InvalidBuffer.  The
 *		caller initializes it and registers it with GENERIC_XLOG_FULL_IMAGE,
 *		or gives it back to the FSM.
 */
Buffer
ScbfFreeBuffer(Relation index)
{
	Buffer		buffer;

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
	return InvalidBuffer;
}

/*
 * ScbfNewBuffer
 *		An exclusively locked buffer for a new page: a free page recorded in
 *		the FSM (ScbfFreeBuffer), else a new block at the end of the
 *		relation.  The caller initializes it and registers it with
 *		GENERIC_XLOG_FULL_IMAGE.
 */
Buffer
ScbfNewBuffer(Relation index)
{
	Buffer		buffer = ScbfFreeBuffer(index);
	bool		needLock;

	if (BufferIsValid(buffer))
		return buffer;
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
 * ScbfRunsBlock
 *		The block of page pageno of the pages runs lists; InvalidBlockNumber
 *		past their end.
 */
BlockNumber
ScbfRunsBlock(const ScbfPageRuns *runs, uint32 pageno)
{
	uint32		r;

	for (r = 0; r < runs->nruns && r < SCBF_PAGE_RUNS_MAX; r++)
	{
		if (pageno < runs->runs[r].npages)
			return runs->runs[r].start + pageno;
		pageno -= runs->runs[r].npages;
	}
	return InvalidBlockNumber;
}

/* Pages added at the relation's end to a structure: their first page */
typedef struct ScbfTail
{
	ScbfNewPageFn fn;
	void	   *arg;
	uint32		first;
} ScbfTail;

/*
 * ScbfExtend callback of ScbfExtendFrom: page pageno of the new pages is
 * page first + pageno of the structure.
 */
static void
TailPage(Buffer buf, uint32 pageno, void *arg)
{
	ScbfTail   *t = (ScbfTail *) arg;

	t->fn(buf, t->first + pageno, t->arg);
}

/*
 * ScbfExtendFrom
 *		ScbfExtend for pages first .. first + npages - 1 of a structure: fn
 *		gets each page's number in the structure.
 */
BlockNumber
ScbfExtendFrom(Relation index, uint32 npages, uint32 first,
			   ScbfNewPageFn fn, void *arg)
{
	ScbfTail	t;

	t.fn = fn;
	t.arg = arg;
	t.first = first;
	return ScbfExtend(index, npages, TailPage, &t);
}

/*
 * ScbfRunsGrow
 *		Add pages to those runs lists, up to npages at least: a run at the
 *		relation's end (ScbfExtend, each page handed to fn with its page
 *		number among all of them) of half their pages or more, so that
 *		pages that grow cost a run per factor of 1.5 and
 *		SCBF_PAGE_RUNS_MAX runs reach past 2^32 pages.
 */
void
ScbfRunsGrow(Relation index, ScbfPageRuns *runs, uint32 npages,
			 ScbfNewPageFn fn, void *arg)
{
	uint32		grow = Max(npages - runs->npages, runs->npages / 2);
	BlockNumber start;

	Assert(npages > runs->npages);
	grow = Max(grow, 1);
	start = ScbfExtendFrom(index, grow, runs->npages, fn, arg);
	if (runs->nruns > 0 &&
		runs->runs[runs->nruns - 1].start +
		runs->runs[runs->nruns - 1].npages == start)
		runs->runs[runs->nruns - 1].npages += grow;
	else
	{
		if (runs->nruns == SCBF_PAGE_RUNS_MAX)
			elog(ERROR, "index \"%s\" has %u runs of pages of one structure, as many as its metapage lists",
				 RelationGetRelationName(index), runs->nruns);
		runs->runs[runs->nruns].start = start;
		runs->runs[runs->nruns].npages = grow;
		runs->nruns++;
	}
	runs->npages += grow;
}

/*
 * ScbfExtend
 *		npages new pages at the end of the relation, contiguous (a delta,
 *		the part of a band the FSM had no pages for): under the relation extension lock, each new block is locked
 *		exclusively and handed to fn with its page number from 0, which
 *		initializes it and WAL-logs it (or, in ambuild, marks it dirty);
 *		then it is released.  Free pages in the FSM are not used: they are
 *		scattered.  Returns the first block, InvalidBlockNumber if npages
 *		is 0.
 */
BlockNumber
ScbfExtend(Relation index, uint32 npages, ScbfNewPageFn fn, void *arg)
{
	bool		needLock = !RELATION_IS_LOCAL(index);
	BlockNumber start = InvalidBlockNumber;
	uint32		p;

	if (needLock)
		LockRelationForExtension(index, ExclusiveLock);
	for (p = 0; p < npages; p++)
	{
		Buffer		buf = ReadBuffer(index, P_NEW);

		CHECK_FOR_INTERRUPTS();
		LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
		if (p == 0)
			start = BufferGetBlockNumber(buf);
		else if (BufferGetBlockNumber(buf) != start + p)
			elog(ERROR, "new pages of index \"%s\" are not contiguous",
				 RelationGetRelationName(index));
		fn(buf, p, arg);
		UnlockReleaseBuffer(buf);
	}
	if (needLock)
		UnlockRelationForExtension(index, ExclusiveLock);
	return start;
}

/* ----------------------------------------------------------------
 *	SQL-callable functions' arguments and results
 * ----------------------------------------------------------------
 */

/*
 * ScbfOpenIndex
 *		Open the scbf index given as argument argno of an SQL-callable
 *		function, and its table.
 *
 * The table is opened first, then the index, both with lockmode (a
 * reader's order, as amcheck and brin_summarize_range do, so no deadlock
 * with DDL); then the index must still belong to that table (its OID may
 * have been reused meanwhile).  Raises a clean error for NULL, a dropped
 * OID, something that is not an scbf index (ERRCODE_WRONG_OBJECT_TYPE), a
 * partitioned index or another session's temporary index; with
 * needselect, also unless the caller may SELECT from the table.  Returns
 * the index; *heap gets the table.  ScbfCloseIndex releases both.
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

	return index;
}

/*
 * ScbfCloseIndex
 *		Close what ScbfOpenIndex opened, releasing its locks.
 */
void
ScbfCloseIndex(Relation index, Relation heap, LOCKMODE lockmode)
{
	index_close(index, lockmode);
	table_close(heap, lockmode);
}

/*
 * ScbfTextArray
 *		A text[] of n C strings, palloc'd, for a function's result.
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
 *		A bigint[] of n values, palloc'd, for a function's result.
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
 *		A float8[] of n values, palloc'd, for a function's result.
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
