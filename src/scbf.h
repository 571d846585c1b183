/*-------------------------------------------------------------------------
 *
 * scbf.h
 *	  Header for scbf, the split counting Bloom filter index access method.
 *
 * NOTES
 *	  On-disk layout, page macros, constants, the options struct, the
 *	  in-memory state cached in rd_amcache, and the prototypes of every file,
 *	  grouped under one comment per file.  src/README explains the design:
 *	  why the structures look like this and which invariants keep the index
 *	  free of false negatives.
 *
 * Portions Copyright (c) 2026, scbf developers
 *
 * IDENTIFICATION
 *	  src/scbf.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SCBF_H
#define SCBF_H

#include "scbfcompat.h"

#include "access/amapi.h"
#include "access/generic_xlog.h"
#include "access/htup_details.h"
#include "access/itup.h"
#include "access/relscan.h"
#include "fmgr.h"
#include "nodes/execnodes.h"
#include "nodes/pathnodes.h"
#include "storage/block.h"
#include "storage/bufmgr.h"
#include "storage/bufpage.h"
#include "utils/relcache.h"

#include "scbffilter.h"

/* Support procedures and strategies */
#define SCBF_HASH_PROC				1	/* the type's standard 32-bit hash */
#define SCBF_NPROC					1
#define SCBF_EQUAL_STRATEGY			1
#define SCBF_NSTRATEGIES			1

/* Options: defaults and bounds (registered in _PG_init, frozen at build) */
#define SCBF_DEFAULT_PAGES_PER_SEGMENT	128
#define SCBF_MIN_PAGES_PER_SEGMENT		8
#define SCBF_DEFAULT_FPR				0.01
#define SCBF_MIN_FPR					0.0001
#define SCBF_MAX_FPR					0.25

/*
 * Filters are sized for this many times the distinct keys they are expected
 * to take, so that the spread of keys over blocks does not close a filter
 * before its time.
 */
#define SCBF_SIZING_HEADROOM		1.15

/* Seed of the filter keys, frozen in the metapage */
#define SCBF_HASH_SEED				0x5CBF5EED

/* Progress phases of CREATE INDEX (1 is core's "initializing") */
#define PROGRESS_SCBF_PHASE_SCAN		2
#define PROGRESS_SCBF_PHASE_LOG			3

/*
 * Ledger TIDs are 16 bits: the heap block relative to the segment start in
 * the high bits, the line pointer offset in the low SCBF_OFFSET_BITS.  An
 * offset of 0 is never a valid line pointer, so 0 marks a removed entry.
 */
#define SCBF_OFFSET_BITS			9
#define SCBF_MAX_PAGES_PER_SEGMENT	(1 << (16 - SCBF_OFFSET_BITS))
#define SCBF_TID_TOMBSTONE			0
#define ScbfTidMake(relblk, off)	((uint16) (((relblk) << SCBF_OFFSET_BITS) | (off)))
#define ScbfTidRelBlock(t)			((BlockNumber) ((t) >> SCBF_OFFSET_BITS))
#define ScbfTidOffset(t)			((OffsetNumber) ((t) & ((1 << SCBF_OFFSET_BITS) - 1)))

/*
 * The ledger stores each column's 32-bit value hash.  SCBF_NULL_HASH stands
 * for NULL; a real value whose hash happens to be SCBF_NULL_HASH is stored
 * (and probed) as SCBF_NULL_HASH_ALT, so a stored hash tells NULL and
 * not-NULL apart exactly.  The remap only merges two hash values: a false
 * positive at worst, never a false negative.
 */
#define SCBF_NULL_HASH				((uint32) 0)
#define SCBF_NULL_HASH_ALT			((uint32) 1)
#define ScbfCanonicalHash(h)		((h) == SCBF_NULL_HASH ? SCBF_NULL_HASH_ALT : (h))

/* ----------------------------------------------------------------
 *	Pages
 *
 * Every page has a standard header and this special space, which ends with
 * a 2-byte page id as contrib/bloom and pgvector do, so tools such as
 * pg_filedump can tell the page's AM.  Filter and ledger pages name their
 * owner (segment, filter serial) so a reader that followed a stale pointer
 * notices at once.
 * ----------------------------------------------------------------
 */
#define SCBF_PAGE_ID				0xFF5C

#define SCBF_PAGE_META				1
#define SCBF_PAGE_DIRECTORY			2
#define SCBF_PAGE_FILTER			3
#define SCBF_PAGE_LEDGER			4
#define SCBF_PAGE_FREE				5

typedef struct ScbfPageOpaqueData
{
	uint32		segno;			/* filter, ledger: owning segment */
	uint32		serial;			/* filter, ledger: owning filter's serial */
	uint16		blkidx;			/* filter: block index within the filter;
								 * directory: index in the metapage map */
	uint8		type;			/* SCBF_PAGE_* */
	uint8		unused1;
	uint16		unused2;
	uint16		page_id;		/* SCBF_PAGE_ID, always last */
} ScbfPageOpaqueData;

typedef ScbfPageOpaqueData *ScbfPageOpaque;

#define ScbfPageGetOpaque(page) ((ScbfPageOpaque) PageGetSpecialPointer(page))
#define ScbfPageGetType(page)	(ScbfPageGetOpaque(page)->type)

/* ----------------------------------------------------------------
 *	Metapage (block 0)
 *
 * The layout parameters are frozen from the reloptions at build: readers
 * use this copy (cached in rd_amcache), never rd_options.  The statistics
 * are refreshed by build and by VACUUM's cleanup and feed the planner.  The
 * directory map lists the blocks of the segment directory pages in order.
 * ----------------------------------------------------------------
 */
#define SCBF_MAGIC_NUMBER			0x5CBF1DE5
#define SCBF_FORMAT_VERSION			1
#define SCBF2_FORMAT_VERSION		2	/* storage v2, being built (src/README) */
#define SCBF_METAPAGE_BLKNO			0

/* metapage flags */
#define SCBF_META_HAS_NULLS_SEEN	0x01	/* unused, reserved */

typedef struct ScbfMetaPageData
{
	uint32		magic;			/* SCBF_MAGIC_NUMBER */
	uint32		version;		/* SCBF_FORMAT_VERSION */

	/* layout, frozen at build */
	uint16		pages_per_segment;
	uint16		ncols;
	uint16		k;				/* slices per filter block */
	uint16		counter_bits;	/* always SCBF_FILTER_COUNTER_BITS */
	uint32		slice_counters; /* m, counters per slice */
	uint32		block_capacity; /* distinct keys a block takes at target FPR */
	uint32		hash_seed;
	uint32		unused;
	float8		target_fpr;

	/* statistics, refreshed by build and vacuum cleanup */
	uint32		nsegments;		/* segments with a filter chain */
	uint32		nfilters;
	uint32		nfilter_pages;
	uint32		nledger_pages;
	uint64		nentries;		/* live ledger entries */
	float8		mean_fpr;		/* mean over segments of the chain FPR */
	uint32		keys_hint;		/* distinct keys of a typical full segment,
								 * used to size the filters of new segments */
	uint32		flags;

	/* segment directory map */
	uint32		ndirpages;
	BlockNumber dirpages[FLEXIBLE_ARRAY_MEMBER];
} ScbfMetaPageData;

#define ScbfPageGetMeta(page)	((ScbfMetaPageData *) PageGetContents(page))

#define SCBF_MAX_DIR_PAGES \
	((BLCKSZ - MAXALIGN(SizeOfPageHeaderData) \
	  - MAXALIGN(sizeof(ScbfPageOpaqueData)) \
	  - MAXALIGN(offsetof(ScbfMetaPageData, dirpages))) / sizeof(BlockNumber))

/* ----------------------------------------------------------------
 *	Segment directory pages
 *
 * A dense array of entries, one per segment (segno = heap block /
 * pages_per_segment), found by arithmetic like BRIN's revmap: directory page
 * segno / SCBF_DIR_ENTRIES_PER_PAGE of the metapage map, slot segno %
 * SCBF_DIR_ENTRIES_PER_PAGE.  An all-zero entry means "no segment yet"
 * (block 0 is the metapage, never a filter).  Directory pages are never
 * freed or moved.
 * ----------------------------------------------------------------
 */
typedef struct ScbfSegEntry
{
	BlockNumber head;			/* block 0 of the oldest filter; 0 = none */
	uint32		head_serial;
	BlockNumber tail;			/* block 0 of the newest filter, which takes
								 * the inserts */
	uint32		tail_serial;
	uint32		next_serial;	/* next serial to hand out; every change of
								 * the chain's membership bumps it */
	uint16		nfilters;
	uint16		flags;			/* SCBF_SEG_* */
} ScbfSegEntry;

/* directory entry flags */
#define SCBF_SEG_EMPTY				0x0001	/* the build found no tuple here;
											 * scans skip it until an insert
											 * creates the segment */

#define ScbfPageGetDir(page)	((ScbfSegEntry *) PageGetContents(page))
#define ScbfSegEntryIsEmpty(e)	((e)->head == 0)

#define SCBF_DIR_ENTRIES_PER_PAGE \
	((BLCKSZ - MAXALIGN(SizeOfPageHeaderData) \
	  - MAXALIGN(sizeof(ScbfPageOpaqueData))) / sizeof(ScbfSegEntry))

#define SCBF_MAX_SEGMENTS \
	((uint64) SCBF_MAX_DIR_PAGES * SCBF_DIR_ENTRIES_PER_PAGE)

/* ----------------------------------------------------------------
 *	Filter pages
 *
 * A filter is a chain member of one segment: nblocks pages ("blocks"), each
 * a split counting Bloom filter of k slices of m 4-bit counters.  A key goes
 * to block scbf_filter_block_of(key, nblocks), so a probe reads one block.
 * Block 0 is the filter's head: its copy of the fields marked "head" is the
 * authoritative one (other blocks leave them zero), and it owns the filter's
 * ledger.  The counters sit below pd_lower, since generic WAL zeroes the
 * hole between pd_lower and pd_upper.
 * ----------------------------------------------------------------
 */
#define SCBF_MAX_BLOCKS				64

/* filter states (head) */
#define SCBF_FILTER_GROWING			1	/* linked, blocks being added, empty */
#define SCBF_FILTER_ACTIVE			2	/* the tail: takes inserts */
#define SCBF_FILTER_CLOSED			3	/* a newer filter took over */
#define SCBF_FILTER_DROPPING		4	/* emptied, pages being freed */

/* filter flags (head) */
#define SCBF_FILTER_FULL			0x0001	/* unused (format version 1) */
#define SCBF_FILTER_STALE			0x0002	/* a delete left a saturated
											 * counter too high */
#define SCBF_FILTER_RECOUNT			0x0004	/* an underflow was seen: the
											 * counters are not trusted until
											 * recounted from the ledger */

typedef struct ScbfFilterPageData
{
	/* every block */
	uint16		nonzero[SCBF_FILTER_MAX_K]; /* non-zero counters per slice */
	uint32		nsaturated;		/* counters at the maximum */

	/* head only */
	uint16		nblocks;		/* blocks of the filter */
	uint16		nlinked;		/* blocks allocated so far (< nblocks while
								 * growing) */
	uint16		state;			/* SCBF_FILTER_* */
	uint16		flags;			/* SCBF_FILTER_* flags */
	BlockNumber next;			/* head of the next filter; 0 = none */
	uint32		next_serial;
	BlockNumber ledger_head;	/* first ledger page */
	BlockNumber ledger_tail;	/* last ledger page */
	BlockNumber ledger_room;	/* first page of the room list: ledger pages
								 * with room, filled before the tail */
	uint32		nledger_pages;
	uint32		nsealed;		/* live entries on the "sealed" ledger pages:
								 * neither the tail nor on the room list
								 * (those count their own entries, so that
								 * an insert need not touch the head); a
								 * statistic, which a consolidation leaves
								 * too high in the filters it empties */
	BlockNumber blocks[SCBF_MAX_BLOCKS];	/* blocks[0] is the head itself */
} ScbfFilterPageData;

#define ScbfPageGetFilter(page) ((ScbfFilterPageData *) PageGetContents(page))
#define ScbfPageGetCounters(page) \
	((uint8 *) PageGetContents(page) + MAXALIGN(sizeof(ScbfFilterPageData)))

#define SCBF_FILTER_COUNTER_BYTES \
	(BLCKSZ - MAXALIGN(SizeOfPageHeaderData) \
	 - MAXALIGN(sizeof(ScbfFilterPageData)) \
	 - MAXALIGN(sizeof(ScbfPageOpaqueData)))

/* ----------------------------------------------------------------
 *	Ledger pages
 *
 * The entries of one filter, in a singly linked list from the head's
 * ledger_head to ledger_tail; the pages VACUUM left with room also form a
 * second list, the "room list", from the head's ledger_room through
 * next_room.  An entry is the 16-bit segment-relative TID
 * followed by each column's 32-bit hash, packed (entry_size = 2 + 4 * ncols
 * bytes, read with memcpy).  Appends go to the first page of the room list,
 * else to the tail; VACUUM removes entries in place and compacts the page;
 * nothing ever moves an entry to another
 * page of the same list, so a reader that holds the lock of page N while it
 * locks page N + 1 ("lock coupling") sees every entry that was there when it
 * started exactly once.  (Inserts may append to a page the reader passed:
 * their tuples are too new for its snapshot.)
 * ----------------------------------------------------------------
 */
typedef struct ScbfLedgerPageData
{
	BlockNumber next;			/* next ledger page of the filter; 0 = none */
	uint16		nentries;		/* entries on the page, tombstones included */
	uint16		ntombstones;	/* removed entries not yet compacted */
	BlockNumber next_room;		/* next page of the filter's room list */
	uint16		flags;			/* SCBF_LEDGER_* */
	uint16		unused;
} ScbfLedgerPageData;

/* ledger page flags */
#define SCBF_LEDGER_ROOM			0x0001	/* on the filter's room list */

/*
 * A non-tail ledger page that VACUUM left at most this full goes on its
 * filter's room list, and inserts fill it before they extend the tail: the
 * ledger stays dense under churn instead of growing with every cycle.
 */
#define SCBF_ROOM_FILL				0.9

#define ScbfPageGetLedger(page) ((ScbfLedgerPageData *) PageGetContents(page))
#define ScbfPageGetEntries(page) \
	((char *) PageGetContents(page) + MAXALIGN(sizeof(ScbfLedgerPageData)))

#define SCBF_LEDGER_BYTES \
	(BLCKSZ - MAXALIGN(SizeOfPageHeaderData) \
	 - MAXALIGN(sizeof(ScbfLedgerPageData)) \
	 - MAXALIGN(sizeof(ScbfPageOpaqueData)))

#define ScbfEntrySize(ncols)	(sizeof(uint16) + sizeof(uint32) * (ncols))

static inline uint16
ScbfEntryGetTid(const char *entry)
{
	uint16		tid;

	memcpy(&tid, entry, sizeof(tid));
	return tid;
}

static inline void
ScbfEntrySetTid(char *entry, uint16 tid)
{
	memcpy(entry, &tid, sizeof(tid));
}

static inline uint32
ScbfEntryGetHash(const char *entry, int col)
{
	uint32		hash;

	memcpy(&hash, entry + sizeof(uint16) + sizeof(uint32) * col, sizeof(hash));
	return hash;
}

static inline void
ScbfEntrySetHash(char *entry, int col, uint32 hash)
{
	memcpy(entry + sizeof(uint16) + sizeof(uint32) * col, &hash, sizeof(hash));
}

/* ----------------------------------------------------------------
 *	Options and in-memory state
 * ----------------------------------------------------------------
 */
typedef struct ScbfOptions
{
	int32		vl_len_;		/* varlena header (do not touch directly!) */
	int			pages_per_segment;
	double		false_positive_rate;
	bool		false_positive_rate_set;	/* given, not the default */
} ScbfOptions;

/*
 * Per-relation state cached in rd_amcache: the frozen layout read from the
 * metapage plus derived values, and a copy of the directory map (refreshed
 * from the metapage when a segment falls past its end).
 */
typedef struct ScbfState
{
	uint32		format;			/* always 1; first, as in every format's
								 * state (ScbfIndexFormat) */
	uint32		pages_per_segment;
	int			ncols;
	scbf_filter_geometry geom;
	uint32		block_capacity;
	double		target_fpr;
	uint32		hash_seed;
	Size		entry_size;		/* bytes per ledger entry */
	uint32		ledger_capacity;	/* entries per ledger page */
	uint64		seeds[INDEX_MAX_KEYS];	/* filter key seed per column */
	uint32		keys_hint;		/* metapage's sizing hint for new segments */
	uint32		ndirpages;
	BlockNumber dirpages[FLEXIBLE_ARRAY_MEMBER];
} ScbfState;

/*
 * A key's place in a filter: its 64-bit filter key (from the column's value
 * hash) and its position in each slice.  The block depends on the filter's
 * size and is computed per filter with scbf_filter_block_of().
 */
typedef struct ScbfKeyPos
{
	uint64		key;
	uint32		pos[SCBF_FILTER_MAX_K];
} ScbfKeyPos;

/* Kinds of scan conditions */
#define SCBF_COND_EQ		1	/* column hash in a set: =, = ANY, IS NULL */
#define SCBF_COND_NOTNULL	2	/* IS NOT NULL: checked in the ledger */
#define SCBF_COND_ANY		3	/* cannot be evaluated here: matches all */

typedef struct ScbfCond
{
	int			col;
	int			kind;
	int			nhashes;
	uint32	   *hashes;			/* sorted, distinct */
	ScbfKeyPos *kpos;			/* per hash */
	uint16	   *hblk;			/* per hash: block in the filter at hand */
	bool		positive;		/* probe: some hash tested positive */
	int			left;			/* probe: hashes not yet tested */
} ScbfCond;

/* ScbfApplyExtraKeys result bit: a touched block reached the FPR budget */
#define SCBF_FULL_SEEN				0x100

/* the budget of chained filters halves at most this many times */
#define SCBF_CHAIN_TIGHTEN_MAX		6

/* What ScbfFilterSummary reports about one filter */
typedef struct ScbfFilterSummaryData
{
	uint16		state;
	uint16		flags;
	uint32		nblocks;		/* blocks linked */
	uint32		nledger_pages;
	uint32		nentries;
	uint64		nsaturated;
	double		fpr;			/* mean over blocks of the state FPR */
	double		fill;			/* mean fill */
	double		keys;			/* estimated distinct keys */
	BlockNumber next;
	uint32		next_serial;
} ScbfFilterSummaryData;

/* What ScbfCheckFilter finds in one filter (scbfverify.c) */
typedef struct ScbfFilterCheck
{
	/* the head */
	uint16		state;
	BlockNumber next;
	uint32		next_serial;
	int			nblocks;
	BlockNumber *blocks;		/* the filter's blocks */
	BlockNumber *pages_seen;	/* its ledger pages */
	int			npages_seen;

	/* counts */
	uint64		entries;		/* live ledger entries */
	uint64		tombstones;
	uint64		nulls[INDEX_MAX_KEYS];	/* NULL hashes per column */
	uint64		saturated;		/* counters at the maximum */
	uint64		stale;			/* counters above what the ledger implies */
	uint64		low;			/* counters below it: corruption */
	double		worst_fill;		/* fullest block */
	double		slice_fill[SCBF_FILTER_MAX_K];	/* mean over blocks */

	/* the first problem found, or NULL */
	char	   *problem;
	BlockNumber problem_blk;
	bool		changed;		/* the head was not this filter's */

	/* the live entries, when asked for */
	char	   *ecopy;
	int			necopy;
} ScbfFilterCheck;

/*
 * Guard of a walk along a list of pages: a segment's chain of filters, a
 * filter's ledger or its room list (ScbfWalkStart, ScbfWalkStep).  Every
 * such walk, in every caller, goes through one, so that a corrupted link
 * ends it with ERRCODE_INDEX_CORRUPTED instead of leading it in circles or
 * past the end of the index, and so that it answers interrupts.
 */
typedef enum ScbfWalkKind
{
	SCBF_WALK_CHAIN,			/* filter heads, from the directory entry */
	SCBF_WALK_LEDGER,			/* a filter's ledger pages */
	SCBF_WALK_ROOM				/* a filter's room list */
} ScbfWalkKind;

typedef struct ScbfWalk
{
	Relation	index;
	ScbfWalkKind kind;
	uint32		segno;
	uint32		serial;			/* ledger, room list: the filter's serial;
								 * chain: the serial of the last filter */
	BlockNumber nindex;			/* blocks of the index, as last measured */
	BlockNumber nsteps;			/* pages reached so far */
	BlockNumber last;			/* the page reached last (InvalidBlockNumber
								 * before the first) */
} ScbfWalk;

/* Callback of ScbfForEachSegment */
typedef void (*ScbfSegmentFn) (Relation index, struct ScbfState *state,
							   uint32 segno, ScbfSegEntry *entry, void *arg);

/*
 * What a traced scan (ScbfTraceScan, for scbf_probe) reports, in scan
 * order, for each segment it does not skip as empty: an ATTEMPT each time it
 * reads the chain from the head (a retry discards what the attempt before
 * reported), a MAYBE per filter whose ledger it read, then DONE (the TIDs
 * went to the bitmap) or WHOLE (every page of the segment did).
 */
typedef enum ScbfTraceEvent
{
	SCBF_TRACE_ATTEMPT,
	SCBF_TRACE_MAYBE,
	SCBF_TRACE_DONE,
	SCBF_TRACE_WHOLE
} ScbfTraceEvent;

/* Why a scan returns a segment whole */
typedef enum ScbfWholeReason
{
	SCBF_WHOLE_NO_ENTRY,		/* the segment has no directory entry */
	SCBF_WHOLE_RECOUNT,			/* a filter's counters await a recount */
	SCBF_WHOLE_CHANGING			/* its chain kept changing under the scan */
} ScbfWholeReason;

typedef struct ScbfTraceData
{
	ScbfTraceEvent event;
	uint32		segno;
	int			position;		/* MAYBE, WHOLE: the filter's place in the
								 * chain, from 1 (0: no filter) */
	uint32		serial;			/* MAYBE, WHOLE: its serial */
	int			block;			/* MAYBE: the block whose counters said
								 * "maybe" (-1: none tested) */
	const ItemPointerData *tids;	/* MAYBE: the TIDs its ledger gave, valid
									 * during the call only */
	int			ntids;
	ScbfWholeReason reason;		/* WHOLE */
	BlockNumber npages;			/* WHOLE: heap pages added */
} ScbfTraceData;

/* Callback of ScbfTraceScan; called with no buffer pinned */
typedef void (*ScbfTraceFn) (const ScbfTraceData *trace, void *arg);

/* ----------------------------------------------------------------
 *	Prototypes
 * ----------------------------------------------------------------
 */

/* scbf.c */
extern void _PG_init(void);
extern Datum scbfhandler(PG_FUNCTION_ARGS);
extern bytea *scbfoptions(Datum reloptions, bool validate);
extern char *scbfbuildphasename(int64 phasenum);

/* scbf.c */
extern int	scbf_build_format;

/* scbfutils.c (format 2; the rest is in scbf2.h) */
extern int	ScbfIndexFormat(Relation index);

/* scbfpage.c */
extern ScbfState *ScbfAllocState(MemoryContext cxt);
extern void ScbfStateFromMeta(ScbfState *state, ScbfMetaPageData *meta);
extern ScbfState *ScbfGetState(Relation index);
extern void ScbfRefreshDirMap(Relation index, ScbfState *state);
extern void ScbfInitPage(Page page, uint8 type, uint32 segno, uint32 serial,
						 uint16 blkidx);
extern void ScbfInitMetaPage(Page page, Relation index, int pages_per_segment,
							 double fpr);
extern void ScbfInitDirPage(Page page, uint32 dirno);
extern void ScbfInitFilterPage(Page page, ScbfState *state, uint32 segno,
							   uint32 serial, uint16 blkidx);
extern void ScbfInitLedgerPage(Page page, uint32 segno, uint32 serial);
extern void ScbfLedgerSetLower(Page page, ScbfState *state);
extern void ScbfMarkPageFree(Page page);
extern Buffer ScbfNewBuffer(Relation index);
extern void ScbfRecordFreePages(Relation index, BlockNumber *blocks, int n);
extern bool ScbfPageIsFree(Page page);
extern bool ScbfPageIsFilter(Page page, uint32 segno, uint32 serial,
							 uint16 blkidx);
extern bool ScbfPageIsLedger(Page page, uint32 segno, uint32 serial,
							 uint32 capacity);
extern void ScbfCheckMetaPage(Relation index, Page page);
extern Buffer ScbfReadDirPage(Relation index, ScbfState *state, uint32 segno,
							  int mode, bool create);
extern ScbfSegEntry *ScbfDirEntry(Page page, uint32 segno);
extern bool ScbfGetSegEntry(Relation index, ScbfState *state, uint32 segno,
							ScbfSegEntry *entry);
extern uint32 ScbfHashDatum(Relation index, int col, Datum value);
extern void ScbfComputeKey(ScbfState *state, int col, uint32 hash,
						   ScbfKeyPos *kp);
extern int	ScbfFilterBlocksFor(ScbfState *state, uint64 nkeys);
extern void ScbfReportCorrupt(Relation index, BlockNumber blkno,
							  const char *what) pg_attribute_noreturn();
extern Buffer ScbfTryLockHead(Relation index, BlockNumber blkno,
							  uint32 segno, uint32 serial, int mode);
extern Buffer ScbfLockHead(Relation index, BlockNumber blkno, uint32 segno,
						   uint32 serial, int mode);
extern void ScbfWalkStart(ScbfWalk *walk, Relation index, ScbfWalkKind kind,
						  uint32 segno, uint32 serial);
extern void ScbfWalkStep(ScbfWalk *walk, BlockNumber blkno);
extern void ScbfWalkFilter(ScbfWalk *walk, BlockNumber blkno, uint32 serial);

/* scbfbuild.c */
extern IndexBuildResult *scbfbuild(Relation heap, Relation index,
								   IndexInfo *indexInfo);
extern void scbfbuildempty(Relation index);
extern uint64 ScbfCountDistinctKeys(ScbfState *state, const char *entries,
									int n);

/* scbfbatch.c */
/*
 * Writes n batched entries to index: tids[i] and hashes[i * ncols ..], the
 * TIDs in ascending order.  bulk: the batch has filled up before in this
 * transaction (a bulk load, whose last entries these may be); full: it is
 * full now and the load goes on (a format-2 index may hand it to a fold
 * helper, scbffoldhelper.c).
 */
typedef void (*ScbfBatchApplyFn) (Relation index, ItemPointer tids,
								  const uint32 *hashes, int n, bool bulk,
								  bool full);
extern void ScbfBatchAdd(Relation index, ItemPointer tid, const uint32 *hashes,
						 int ncols, ScbfBatchApplyFn apply);
extern void ScbfBatchFlush(Relation index);

/* scbfinsert.c */
extern bool scbfinsert(Relation index, Datum *values, bool *isnull,
					   ItemPointer ht_ctid, Relation heapRel,
					   IndexUniqueCheck checkUnique,
					   bool indexUnchanged,
					   struct IndexInfo *indexInfo);
extern void ScbfInsertEntries(Relation index, ScbfState *state, uint32 segno,
							  const char *entries, int n);
extern void ScbfInsertEntry(Relation index, ScbfState *state, uint32 segno,
							const char *entry);
extern void ScbfGrowFilter(Relation index, ScbfState *state, Buffer headbuf);
extern bool ScbfAppendFilter(Relation index, ScbfState *state, uint32 segno,
							 int nblocks, uint32 expect_tail_serial,
							 BlockNumber *head_out, uint32 *serial_out);
extern Buffer ScbfLockFilterBlock(Relation index, Page headpage, int blkidx,
								  int mode);
extern void ScbfPlaceEntries(ScbfState *state, const char *entries, int n,
							 int nblocks, ScbfKeyPos **kp_out,
							 uint16 **kblk_out, int **order_out);
extern int	ScbfApplyExtraKeys(Relation index, ScbfState *state,
							   Buffer headbuf, const ScbfKeyPos *kp,
							   const uint16 *kblk, const int *order, int n,
							   int p, bool skip0, bool add, double budget);
extern double ScbfChainBudget(ScbfState *state, int nfilters);
extern bool ScbfAddEntries(Relation index, ScbfState *state, Buffer headbuf,
						   const char *entries, int n, BlockNumber srcblk,
						   uint32 srcsegno, uint32 srcserial,
						   const uint16 *srcidx, double budget);
extern void ScbfCompactLedgerPage(Page page, ScbfState *state);

/* scbfscan.c */
extern IndexScanDesc scbfbeginscan(Relation r, int nkeys, int norderbys);
extern void scbfrescan(IndexScanDesc scan, ScanKey scankey, int nscankeys,
					   ScanKey orderbys, int norderbys);
extern int64 scbfgetbitmap(IndexScanDesc scan, TIDBitmap *tbm);
extern void scbfendscan(IndexScanDesc scan);
extern void ScbfTraceScan(Relation index, ScanKey keys, int nkeys,
						  ScbfTraceFn fn, void *arg);
extern bool ScbfKeyToCond(Relation index, ScbfState *state, ScanKey sk,
						  ScbfCond *cond, MemoryContext cxt);

/* scbfvacuum.c */
extern IndexBulkDeleteResult *scbfbulkdelete(IndexVacuumInfo *info,
											 IndexBulkDeleteResult *stats,
											 IndexBulkDeleteCallback callback,
											 void *callback_state);
extern IndexBulkDeleteResult *scbfvacuumcleanup(IndexVacuumInfo *info,
												IndexBulkDeleteResult *stats);
extern void ScbfForEachSegment(Relation index, ScbfState *state,
							   ScbfSegmentFn fn, void *arg);
extern void ScbfFilterSummary(Relation index, ScbfState *state, uint32 segno,
							  BlockNumber headblk, uint32 serial,
							  ScbfFilterSummaryData *fs);
extern void ScbfRecountFilter(Relation index, ScbfState *state, uint32 segno,
							  BlockNumber headblk, uint32 serial);
extern bool ScbfConsolidateSegment(Relation index, ScbfState *state,
								   uint32 segno, bool force);
extern bool ScbfRebuildSegmentFromHeap(Relation index, Relation heap,
									   ScbfState *state, uint32 segno);

/* scbffuncs.c */
extern Datum ScbfTextArray(const char **names, int n);
extern Datum ScbfInt8Array(const uint64 *values, int n);
extern Datum ScbfFloat8Array(const double *values, int n);
extern Relation ScbfOpenIndex(FunctionCallInfo fcinfo, int argno,
							  LOCKMODE lockmode, Relation *heap,
							  bool needselect);
extern void ScbfCloseIndex(Relation index, Relation heap, LOCKMODE lockmode);

/* scbfverify.c */
extern void ScbfCheckFilter(Relation index, ScbfState *state, uint32 segno,
							BlockNumber headblk, uint32 serial, bool collect,
							ScbfFilterCheck *fc);

/* scbfcost.c */
extern void scbfcostestimate(PlannerInfo *root, IndexPath *path,
							 double loop_count, Cost *indexStartupCost,
							 Cost *indexTotalCost,
							 Selectivity *indexSelectivity,
							 double *indexCorrelation, double *indexPages);

/* scbfvalidate.c */
extern bool scbfvalidate(Oid opclassoid);

#endif							/* SCBF_H */
