/*-------------------------------------------------------------------------
 *
 * scbf2.h
 *	  Storage format 2, the only one this version reads: the functions of
 *	  its page-kind modules, which the AM callbacks call, and the in-memory
 *	  state they share.
 *
 * NOTES
 *	  Page layouts are in scbf_page.h, which only the modules below
 *	  include:
 *
 *		scbfutils.c		state, metapage, new and free pages, page checks
 *		scbfdir.c		the filter table
 *		scbfrows.c		the band of bit-sliced rows
 *		scbfdelta.c		keys whose row bits are not set yet
 *		scbfledger.c	runs of posting lists
 *		scbfpending.c	the pending area
 *
 *	  The callbacks and readers that use them: scbfbuild2.c (ambuild),
 *	  scbfscan2.c (bitmap scans), scbffold.c, scbfvacuum2.c,
 *	  scbfinspect2.c and scbfverify2.c.
 *
 * Portions Copyright (c) 2026, scbf developers
 *
 * IDENTIFICATION
 *	  src/scbf2.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SCBF2_H
#define SCBF2_H

#include "access/transam.h"

#include "scbf.h"

/* Default target rate of format 2 (src/README, D6) */
#define SCBF2_DEFAULT_FPR			0.0001

/* Pending partitions (src/README, D2); scbf_page.h lays them out */
#define SCBF2_NPENDING				16

/*
 * Per-relation state of an index, cached in rd_amcache by Scbf2GetState:
 * the layout frozen in the metapage.
 */
typedef struct Scbf2State
{
	int			ncols;
	uint32		pages_per_segment;
	scbf_filter_geometry geom;	/* k slices of m positions */
	uint32		capacity;		/* distinct keys per filter */
	double		target_fpr;
	uint64		seeds[INDEX_MAX_KEYS];	/* filter key seed per column */
} Scbf2State;

/*
 * A copy of the metapage's contents, taken under its share lock: what one
 * scan or one build step works from.  Opaque outside scbfutils.c and the
 * page-kind modules.
 */
typedef struct Scbf2MetaPageData Scbf2Meta;

/*
 * A filter table entry in memory: Scbf2EntrySize(ncols) bytes, the roots
 * last.  Opaque outside the modules; read with the accessors below.
 */
typedef struct Scbf2FilterEntry Scbf2Filter;

/* The band of row pages: where it is and its shape */
typedef struct Scbf2Band
{
	BlockNumber start;
	uint32		pages;
	uint32		width;			/* filters per row, a multiple of 8 */
	uint32		rows_per_page;
	uint32		serial;
} Scbf2Band;

/* The delta: where it is, how many partitions (pages), its serial */
typedef struct Scbf2Delta
{
	BlockNumber start;
	uint32		pages;			/* 0: the index has no delta */
	uint32		serial;
} Scbf2Delta;

/*
 * What a build writes into the metapage: the layout, the band, the filter
 * table and the statistics.
 */
typedef struct Scbf2Layout
{
	int			pages_per_segment;
	int			ncols;
	uint32		k;
	uint32		m;
	uint32		capacity;
	double		target_fpr;
	Scbf2Band	band;
	uint32		nfilters;
	uint32		ntablepages;
	BlockNumber *tablepages;
	uint64		nentries;
	uint32		nsegments;
	uint32		nledger_pages;
	double		mean_fpr;
} Scbf2Layout;

/* The statistics a metapage keeps, for the planner */
typedef struct Scbf2Stats
{
	uint32		pages_per_segment;
	uint32		k;
	uint32		nfilters;
	uint32		nsegments;
	uint64		nentries;
	uint32		nledger_pages;
	double		mean_fpr;
	double		target_fpr;
} Scbf2Stats;

/* A key whose bits a fold sets: its filter, column and hash */
typedef struct Scbf2RowKey
{
	uint32		filterno;
	int			col;
	uint32		hash;
} Scbf2RowKey;

/* A bit of the rows: filter (column of the band), slice and position */
typedef struct Scbf2RowBit
{
	uint32		filterno;
	uint32		slice;
	uint32		position;
} Scbf2RowBit;

/* A key of a filter, and the enumeration of a filter's keys (build) */
typedef void (*Scbf2KeyFn) (int col, uint32 hash, void *arg);
typedef void (*Scbf2KeysFn) (uint32 filterno, Scbf2KeyFn emit, void *emit_arg,
							 void *arg);

/* Where a fold's reading of a pending partition ended */
typedef struct Scbf2PendingCut
{
	BlockNumber blkno;			/* last page read; Invalid: none */
	uint32		serial;			/* its serial */
	uint16		nentries;		/* the entries it had */
} Scbf2PendingCut;

/*
 * What the metapage record that commits a serial writes: a fold's, or a
 * VACUUM's (which reads no partition and keeps the band)
 */
typedef struct Scbf2Commit
{
	uint64		serial;			/* committed serial + 1 */
	Scbf2PendingCut cuts[SCBF2_NPENDING];	/* Invalid: partition not read */
	bool		band_changed;
	Scbf2Band	band;			/* the new band, if band_changed */
	bool		delta_changed;
	Scbf2Delta	delta;			/* the new delta, if delta_changed */
	uint32		nfilters;
	BlockNumber *tablepages;
	uint32		ntablepages;
	int64		nentries_delta;	/* ledger entries added less removed */
	uint32		nsegments_added;
	int64		nledger_pages_delta;	/* leaves and roots written less freed */
} Scbf2Commit;

/* A (hash, item) pair of one column of a filter's ledger */
typedef struct Scbf2Pair
{
	uint32		hash;
	uint16		item;			/* segment-relative TID */
} Scbf2Pair;

/* A ledger run encoded by a fold, not yet written; opaque (scbfledger.c) */
typedef struct Scbf2EncodedRun Scbf2Run;

/* Runs a ledger root takes before the fold starts a new filter */
#define SCBF2_MAX_RUNS				8

/* Runs of a filter's ledger from which VACUUM merges them into one */
#define SCBF2_MERGE_RUNS			4

/*
 * A segment with more distinct keys than a filter takes is split into at
 * most this many filters, by ranges of the first column's hash (build and
 * fold); beyond, its filters answer "maybe" more often.
 */
#define SCBF2_MAX_SPLIT				8

/* Pages a partition may reach before a flush asks for a fold */
#define SCBF2_FOLD_PAGES			3

/*
 * Entries a flush folds straight into the filters rather than append to
 * the pending area (a bulk load's full batch): about what the pending
 * area holds when a partition reaches SCBF2_FOLD_PAGES.
 */
#define SCBF2_FOLD_DIRECT			16384

/* A block some structure names, handed to the census's callbacks */
typedef void (*Scbf2BlockFn) (BlockNumber blkno, void *arg);

/* One pending entry, handed to Scbf2PendingScan's callback */
typedef void (*Scbf2PendingFn) (ItemPointer tid, const uint32 *hashes,
								void *arg);

/* One decoded posting list, handed to Scbf2LedgerScan's callback */
typedef void (*Scbf2PostingFn) (uint32 hash, const uint16 *items, int nitems,
								void *arg);

/* scbfutils.c */
extern Scbf2State *Scbf2GetState(Relation index);
extern Scbf2Meta *Scbf2ReadMetaIfCurrent(Relation index);
extern Scbf2Meta *Scbf2ReadMeta(Relation index);
extern void Scbf2KeyPositions(Scbf2State *state, int col, uint32 hash,
							  uint32 *pos);
extern Buffer Scbf2ReadPage(Relation index, BlockNumber blkno, int mode,
							uint8 type, BlockNumber nblocks);
extern uint32 Scbf2MetaFilters(const Scbf2Meta *meta);
extern uint64 Scbf2MetaFoldSerial(const Scbf2Meta *meta);
extern void Scbf2MetaStats(const Scbf2Meta *meta, Scbf2Stats *stats);
extern void Scbf2MetaDelta(const Scbf2Meta *meta, Scbf2Delta *delta);
extern uint32 Scbf2MetaGraveRoom(const Scbf2Meta *meta);
extern bool Scbf2MetaGoneReadable(const Scbf2Meta *meta, uint64 gone);
extern void Scbf2MetaBlocks(const Scbf2Meta *meta, Scbf2BlockFn fn,
							void *arg);
extern BlockNumber Scbf2Census(Relation index, const uint8 *named,
							   BlockNumber nblocks, BlockNumber *nfree);
extern void Scbf2FreePage(Relation index, Buffer buf);
extern void Scbf2CommitSerial(Relation index, const Scbf2Commit *fc);
extern void Scbf2BumpRecycleSerial(Relation index);
extern bool Scbf2RecycledSince(Relation index, const Scbf2Meta *meta);
extern void Scbf2RecycleGraves(Relation index);
extern void Scbf2InitState(Scbf2State *state, const Scbf2Layout *layout);
extern void Scbf2InitMetaPage(Page page, const Scbf2Layout *layout);

/* scbfdir.c */
extern Scbf2Filter *Scbf2ReadFilter(Relation index, Scbf2State *state,
									const Scbf2Meta *meta, uint32 filterno,
									BlockNumber nblocks);
extern bool Scbf2FilterInUse(const Scbf2Filter *f);
extern uint32 Scbf2FilterSegment(const Scbf2Filter *f);
extern BlockNumber Scbf2FilterRoot(const Scbf2Filter *f, int col);
extern uint16 Scbf2FilterPosition(const Scbf2Filter *f);
extern void Scbf2FilterSetKeys(Scbf2Filter *f, uint32 nkeys);
extern uint32 Scbf2FilterKeys(const Scbf2Filter *f);
extern void Scbf2FilterGetBits(const Scbf2Filter *f, uint32 *nset);
extern Scbf2Filter *Scbf2NewFilter(int ncols, uint32 segno, uint16 position,
								   uint32 nentries, uint32 nkeys);
extern void Scbf2FilterSetRoot(Scbf2Filter *f, int col, BlockNumber root);
extern void Scbf2FilterSetBits(Scbf2Filter *f, uint32 k, const uint32 *nset);
extern double Scbf2FilterFpr(const Scbf2Filter *f, uint32 k, uint32 m);
extern void Scbf2WriteTable(Relation index, int ncols, Scbf2Filter **filters,
							uint32 nfilters, Scbf2Layout *layout);
extern Scbf2Filter **Scbf2ReadTable(Relation index, Scbf2State *state,
									const Scbf2Meta *meta, BlockNumber nblocks);
extern void Scbf2UpdateTable(Relation index, Scbf2State *state,
							 const Scbf2Meta *meta, Scbf2Filter **filters,
							 const bool *changed, uint32 nold, uint32 nnew,
							 BlockNumber **tablepages, uint32 *ntablepages,
							 BlockNumber nblocks);
extern uint32 Scbf2FilterEntries(const Scbf2Filter *f);
extern bool Scbf2FilterIsActive(const Scbf2Filter *f);
extern void Scbf2FilterClose(Scbf2Filter *f);
extern void Scbf2FilterSetEntries(Scbf2Filter *f, uint32 n);
extern bool Scbf2FilterVisible(const Scbf2Filter *f, uint64 serial);
extern uint64 Scbf2FilterGone(const Scbf2Filter *f);
extern void Scbf2FilterSetGone(Scbf2Filter *f, uint64 gone);
extern bool Scbf2FilterUndoGone(Scbf2Filter *f, uint64 serial);
extern void Scbf2FilterActivate(Scbf2Filter *f);
extern void Scbf2FilterRelease(Scbf2Filter *f, int ncols);
extern void Scbf2FilterAddEntries(Scbf2Filter *f, uint32 n);
extern void Scbf2FilterAddBit(Scbf2Filter *f, uint32 slice);

/* scbfrows.c */
extern Size Scbf2RowsBytes(const Scbf2Meta *meta);
extern bool Scbf2RowsProbe(Relation index, Scbf2State *state,
						   const Scbf2Meta *meta, int col,
						   const uint32 *hashes, int nhashes, uint8 *acc,
						   BlockNumber nblocks);
extern bool Scbf2RowsHas(const Scbf2Meta *meta, const uint8 *acc,
						uint32 fno);
extern uint32 Scbf2RowsNext(const Scbf2Meta *meta, const uint8 *acc,
							uint32 from);
/* spare filter columns of a band: 1/spare of its filters (Scbf2BandPlan) */
#define SCBF2_BAND_SPARE_BUILT	8
#define SCBF2_BAND_SPARE_GROWN	2
extern void Scbf2BandPlan(Relation index, uint32 nfilters, uint32 spare,
						  uint32 k, uint32 m, Scbf2Band *band);
extern void Scbf2MetaBand(const Scbf2Meta *meta, Scbf2Band *band);
extern void Scbf2RowsSet(Relation index, Scbf2State *state,
						 const Scbf2Band *band, const Scbf2RowKey *keys, int n,
						 Scbf2Filter **filters, BlockNumber nblocks);
extern void Scbf2KeyBits(Scbf2State *state, const Scbf2RowKey *keys, int n,
						 Scbf2Filter **filters);
extern void Scbf2RowsClear(Relation index, Scbf2State *state,
						   const Scbf2Band *band, const Scbf2RowBit *bits,
						   int n, BlockNumber nblocks);
extern void Scbf2BandRelayout(Relation index, Scbf2State *state,
							  const Scbf2Band *old, uint32 nfilters,
							  Scbf2Band *band, BlockNumber nblocks);
extern void Scbf2BandBuild(Relation index, Scbf2State *state, Scbf2Band *band,
						   uint32 nfilters, Scbf2KeysFn keys, void *arg,
						   uint32 *nset);

/* scbfdelta.c */
extern int	scbf_delta_band_pages;
extern bool Scbf2DeltaWanted(const Scbf2Band *band, int nkeys);
extern uint32 Scbf2DeltaPages(const Scbf2Band *band);
extern uint32 Scbf2DeltaPartition(uint32 hash, int col, uint32 npages);
extern void Scbf2DeltaFree(Relation index, const Scbf2Delta *delta,
						   BlockNumber nblocks);
extern void Scbf2DeltaCreate(Relation index, const Scbf2Band *band,
							 const Scbf2Delta *old, Scbf2Delta *delta);
extern int	Scbf2DeltaAdd(Relation index, const Scbf2Delta *delta,
						  Scbf2RowKey *keys, int n, BlockNumber nblocks);
extern int	Scbf2DeltaMerge(Relation index, Scbf2State *state,
							const Scbf2Delta *delta, const Scbf2Band *band,
							const Scbf2RowKey *extra, int nextra,
							BlockNumber nblocks);
extern bool Scbf2DeltaProbe(Relation index, const Scbf2Meta *meta, int col,
							const uint32 *hashes, int nhashes, uint8 *acc,
							BlockNumber nblocks);

/* scbfledger.c */
extern int	Scbf2LedgerLookup(Relation index, BlockNumber root, int col,
							  uint64 fold_serial, const uint32 *hashes,
							  int nhashes, uint16 **items, BlockNumber nblocks);
extern BlockNumber Scbf2LedgerWrite(Relation index, uint32 segno,
									uint32 filterno, int col, uint64 serial,
									const uint32 *hashes, const uint16 *items,
									int n, uint32 *npages);
extern Scbf2Run *Scbf2LedgerEncode(Relation index, uint32 segno, int col,
								   uint64 serial, const uint32 *hashes,
								   const uint16 *items, int n);
extern bool Scbf2LedgerHasRoom(Relation index, BlockNumber root, int col,
							   const Scbf2Run *run, const Scbf2Meta *meta,
							   bool replace, BlockNumber nblocks);
extern BlockNumber Scbf2LedgerAppend(Relation index, BlockNumber root,
									 uint32 filterno, int col, Scbf2Run *run,
									 const Scbf2Meta *meta,
									 BlockNumber nblocks, int64 *npages);
extern int64 Scbf2LedgerReplace(Relation index, BlockNumber root,
								uint32 filterno, int col, Scbf2Run *run,
								const Scbf2Meta *meta, BlockNumber nblocks);
extern bool Scbf2LedgerScan(Relation index, BlockNumber root, int col,
							uint64 fold_serial, Scbf2PostingFn fn, void *arg,
							BlockNumber nblocks);
extern int	Scbf2LedgerPairs(Relation index, BlockNumber root, int col,
							 uint64 fold_serial, Scbf2Pair **pairs,
							 BlockNumber nblocks);
extern void Scbf2SortPairs(Scbf2Pair *pairs, size_t n);
extern void Scbf2SortPairsByItemOrder(Scbf2Pair *pairs, size_t n);
extern bool Scbf2LedgerTidy(Relation index, BlockNumber root, int col,
							const Scbf2Meta *meta, BlockNumber nblocks);
extern void Scbf2LedgerBlocks(Relation index, BlockNumber root, int col,
							  Scbf2BlockFn fn, void *arg, BlockNumber nblocks);
extern int	Scbf2LedgerRuns(Relation index, BlockNumber root, int col,
							uint64 fold_serial, BlockNumber nblocks);

/* scbfpending.c */
extern int	Scbf2PendingPartition(uint32 hash0);
extern bool Scbf2PendingAppend(Relation index, Scbf2State *state,
							   ItemPointer tids, const uint32 *hashes, int n);
extern bool Scbf2PendingScan(Relation index, Scbf2State *state,
							 const Scbf2Meta *meta, int part,
							 Scbf2PendingFn fn, void *arg,
							 Scbf2PendingCut *cut);

/* scbfinsert.c */
extern void Scbf2ApplyBatch(Relation index, ItemPointer tids,
							const uint32 *hashes, int n, bool bulk, bool full,
							bool defer);

/* scbffoldhelper.c */
extern bool scbf_fold_helpers;
extern bool Scbf2HelperSubmit(Relation index, ItemPointer tids,
							  const uint32 *hashes, int n);
extern void Scbf2HelperWait(Oid indexoid);
extern bool Scbf2HelperBusy(Oid indexoid);
extern bool Scbf2HelperFoldsAfter(Relation index);
extern void Scbf2HelperForget(void);

/* scbffold.c */
extern int64 Scbf2Fold(Relation index, bool wait);
extern bool Scbf2FoldBatch(Relation index, ItemPointer tids,
						   const uint32 *hashes, int n);

/* scbfbuild2.c */
extern IndexBuildResult *scbfbuild(Relation heap, Relation index,
								   IndexInfo *indexInfo);
extern void scbfbuildempty(Relation index);

/* scbfvacuum2.c */
extern IndexBulkDeleteResult *scbfbulkdelete(IndexVacuumInfo *info,
											 IndexBulkDeleteResult *stats,
											 IndexBulkDeleteCallback callback,
											 void *callback_state);
extern IndexBulkDeleteResult *scbfvacuumcleanup(IndexVacuumInfo *info,
												IndexBulkDeleteResult *stats);

/* scbfscan2.c */
extern int64 scbf2getbitmap(Relation index, ScbfCond *conds, int nconds,
							TIDBitmap *tbm);

/* ----------------------------------------------------------------
 *	Read-only views for the diagnostics (scbfinspect2.c) and the verifier
 *	(scbfverify2.c), which do not include scbf_page.h: copies of what a
 *	page or the metapage says, unchecked beyond what keeps the copy in
 *	bounds, so that the verifier can judge it.
 * ----------------------------------------------------------------
 */

/* Kinds of pages, as Scbf2InspectPage classifies them */
typedef enum Scbf2PageKind
{
	SCBF2_KIND_NEW,				/* never initialized */
	SCBF2_KIND_UNKNOWN,			/* no scbf special space, or unknown type */
	SCBF2_KIND_META,
	SCBF2_KIND_TABLE,
	SCBF2_KIND_ROWS,
	SCBF2_KIND_ROOT,
	SCBF2_KIND_LEAF,
	SCBF2_KIND_PENDING,
	SCBF2_KIND_DELTA,
	SCBF2_KIND_FREE
} Scbf2PageKind;

/* What one page's special space and header say */
typedef struct Scbf2PageInfo
{
	Scbf2PageKind kind;
	uint32		owner;			/* rows: band serial; root: filter; leaf:
								 * segment; pending: partition; delta: delta
								 * serial */
	uint32		index;			/* rows: page in band; table: page in table;
								 * leaf: run serial (low 32 bits); pending:
								 * page serial; delta: partition */
	int			column;			/* root, leaf */
	int			count;			/* root: runs; leaf: posting lists;
								 * pending, delta: entries; else 0 */
	BlockNumber next;			/* pending: next page; else Invalid */
} Scbf2PageInfo;

/* A pending partition's head in the metapage */
typedef struct Scbf2PendingHeadInfo
{
	BlockNumber head;
	BlockNumber tail;
	uint32		head_serial;
	uint16		cut;
	bool		mayhave;		/* SCBF2_PENDING_MAYHAVE */
	uint16		flags;			/* all of them */
} Scbf2PendingHeadInfo;

/* A grave of the metapage */
typedef struct Scbf2GraveInfo
{
	bool		band;			/* else a piece of a pending chain */
	uint16		kind;			/* as stored */
	BlockNumber first;
	uint32		n;				/* band: pages */
	BlockNumber stop;			/* pending: where the piece ends */
	FullTransactionId safexid;
} Scbf2GraveInfo;

/* Everything a metapage copy says (Scbf2MetaInfo) */
typedef struct Scbf2MetaInfoData
{
	uint32		pages_per_segment;
	int			ncols;
	uint32		k;
	uint32		m;
	uint32		capacity;
	double		target_fpr;
	uint32		flags;
	Scbf2Band	band;
	Scbf2Delta	delta;
	uint32		nfilters;
	uint32		table_generation;
	uint32		ntablepages;
	uint32		max_table_pages;
	const BlockNumber *tablepages;	/* points into the metapage copy */
	uint64		fold_serial;
	Scbf2PendingHeadInfo pending[SCBF2_NPENDING];
	uint64		nentries;
	uint32		nsegments;
	uint32		nledger_pages;
	double		mean_fpr;
	uint32		ngraves;
	uint32		max_graves;
	Scbf2GraveInfo *graves;		/* palloc'd, Min(ngraves, max_graves) */
	uint32		nmarks;
	uint64	   *mark_serials;	/* palloc'd, nmarks */
	uint32		entries_per_table_page;
	uint32		pending_entries_per_page;
} Scbf2MetaInfoData;

/* A ledger run as its root lists it */
typedef struct Scbf2RunInfo
{
	uint64		made;
	uint64		gone;			/* PG_UINT64_MAX while current */
	uint32		nentries;
	int			nleaves;
	uint32	   *fences;			/* first hash of each leaf */
	BlockNumber *leaves;		/* InvalidBlockNumber: the inline leaf */
	int			inlined;		/* bytes of the inline (last) leaf, or 0 */
	uint8	   *inline_bytes;	/* its posting lists */
} Scbf2RunInfo;

/* A ledger root page, as read */
typedef struct Scbf2RootInfo
{
	uint32		owner;			/* filter number */
	int			column;
	int			nruns;
	Scbf2RunInfo *runs;
} Scbf2RootInfo;

/* A ledger leaf page, as read */
typedef struct Scbf2LeafInfo
{
	uint32		segno;			/* owner */
	int			column;
	uint32		serial;			/* its run's serial, low 32 bits */
	uint32		fence;
	int			nlists;
	int			nbytes;			/* as the page says */
	int			maxbytes;		/* what a leaf holds */
	uint8	   *bytes;			/* palloc'd, Min(nbytes, maxbytes) */
} Scbf2LeafInfo;

/* A pending page, as read */
typedef struct Scbf2PendingPageInfo
{
	uint32		partition;		/* owner */
	uint32		serial;
	BlockNumber next;
	int			nentries;		/* as the page says */
	int			maxentries;		/* what a page holds */
	ItemPointerData *tids;		/* palloc'd, Min(nentries, maxentries) */
	uint32	   *hashes;			/* [i * ncols + col] */
} Scbf2PendingPageInfo;

/* scbfutils.c, readers */
extern void Scbf2MetaInfo(const Scbf2Meta *meta, Scbf2MetaInfoData *mi);
extern void Scbf2InspectPage(Relation index, BlockNumber blkno,
							 Scbf2PageInfo *pi);

/* scbfdir.c, readers */
extern const char *Scbf2FilterStateName(const Scbf2Filter *f);

/* scbfrows.c, readers */
extern Size Scbf2BandPageBytes(const Scbf2Band *band);
extern bool Scbf2BandReadPage(Relation index, const Scbf2Band *band,
							  uint32 pageno, uint8 *rows, BlockNumber nblocks);

/* scbfledger.c, readers */
extern void Scbf2ReadRootInfo(Relation index, BlockNumber root,
							  Scbf2RootInfo *ri, BlockNumber nblocks);
extern void Scbf2ReadLeafInfo(Relation index, BlockNumber blkno,
							  Scbf2LeafInfo *li, BlockNumber nblocks);

/* scbfpending.c, readers */
extern void Scbf2ReadPendingPage(Relation index, BlockNumber blkno, int ncols,
								 Scbf2PendingPageInfo *pp,
								 BlockNumber nblocks);

/* scbfdelta.c, readers */
extern int	Scbf2ReadDeltaPage(Relation index, const Scbf2Delta *delta,
							   uint32 part, Scbf2RowKey **keys,
							   BlockNumber nblocks);

/* scbfinspect2.c */
extern Datum Scbf2IndexInfo(FunctionCallInfo fcinfo, Relation index,
							Relation heap);
extern void Scbf2Segments(FunctionCallInfo fcinfo, Relation index,
						  Relation heap);
extern void Scbf2Filters(FunctionCallInfo fcinfo, Relation index,
						 int64 segno);
extern void Scbf2Pages(FunctionCallInfo fcinfo, Relation index);
extern void Scbf2Probe(FunctionCallInfo fcinfo, Relation index, ScanKey key);

/* scbfverify2.c */
extern void Scbf2Verify(Relation index, Relation heap, bool heapallindexed);

#endif							/* SCBF2_H */
