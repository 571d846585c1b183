/*-------------------------------------------------------------------------
 *
 * scbf.h
 *	  Header for scbf, the split counting Bloom filter index access method.
 *
 * NOTES
 *	  What every part of scbf shares: constants, the options struct, the
 *	  page ids and format versions, the in-memory entry of a build, scan
 *	  conditions, and the prototypes of the AM callbacks and SQL entry
 *	  points, grouped under one comment per file.  The storage (pages,
 *	  their modules) is in scbf2.h and scbf_page.h; src/README explains the
 *	  design.
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
 * Every page has a standard header and a special space that ends with a
 * 2-byte page id, as contrib/bloom and pgvector do, so tools such as
 * pg_filedump can tell the page's AM (scbf_page.h).  Block 0 is the
 * metapage: magic, format version, and the layout frozen at build.
 * ----------------------------------------------------------------
 */
#define SCBF_PAGE_ID				0xFF5C

/* page types shared by every format (the others: scbf_page.h) */
#define SCBF_PAGE_META				1
#define SCBF_PAGE_FREE				5

#define SCBF_MAGIC_NUMBER			0x5CBF1DE5
#define SCBF_METAPAGE_BLKNO			0

/*
 * Storage format versions.  Format 1 (per-segment chains of counting
 * filters, each with a ledger) is no longer read: its indexes get an error
 * that says to REINDEX them (src/README, D9).
 */
#define SCBF1_FORMAT_VERSION		1
#define SCBF2_FORMAT_VERSION		2

/* ----------------------------------------------------------------
 *	Entries in memory
 *
 * A build (and a fold) handles an index entry as the segment-relative TID
 * and each column's 32-bit value hash, packed.
 * ----------------------------------------------------------------
 */
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
 *	Options and scan conditions
 * ----------------------------------------------------------------
 */
typedef struct ScbfOptions
{
	int32		vl_len_;		/* varlena header (do not touch directly!) */
	int			pages_per_segment;
	double		false_positive_rate;
	bool		false_positive_rate_set;	/* given, not the default */
} ScbfOptions;

/* Kinds of scan conditions */
#define SCBF_COND_EQ		1	/* column hash in a set: =, = ANY, IS NULL */
#define SCBF_COND_NOTNULL	2	/* IS NOT NULL: checked in the entries */
#define SCBF_COND_ANY		3	/* cannot be evaluated here: matches all */

typedef struct ScbfCond
{
	int			col;
	int			kind;
	int			nhashes;
	uint32	   *hashes;			/* sorted, distinct */
} ScbfCond;

/* ----------------------------------------------------------------
 *	Prototypes
 * ----------------------------------------------------------------
 */

/* scbf.c */
extern void _PG_init(void);
extern Datum scbfhandler(PG_FUNCTION_ARGS);
extern bytea *scbfoptions(Datum reloptions, bool validate);
extern char *scbfbuildphasename(int64 phasenum);

/* scbfutils.c (the rest of it: scbf2.h) */
extern void ScbfReportCorrupt(Relation index, BlockNumber blkno,
							  const char *what) pg_attribute_noreturn();
extern void ScbfMarkPageFree(Page page);
extern Buffer ScbfNewBuffer(Relation index);
extern uint32 ScbfHashDatum(Relation index, int col, Datum value);

/* scbfbatch.c */
/*
 * Writes n batched entries to index: tids[i] and hashes[i * ncols ..], in
 * the order they were inserted.  bulk: the batch has filled up before in this
 * transaction (a bulk load, whose last entries these may be); full: it is
 * full now and the load goes on (it may go to a fold helper,
 * scbffoldhelper.c); defer: full, while the helper still folds the batch
 * before (the entries only wait in the pending area).
 */
typedef void (*ScbfBatchApplyFn) (Relation index, ItemPointer tids,
								  const uint32 *hashes, int n, bool bulk,
								  bool full, bool defer);
extern void ScbfBatchAdd(Relation index, ItemPointer tid, const uint32 *hashes,
						 int ncols, ScbfBatchApplyFn apply);
extern void ScbfBatchFlush(Relation index);

/* scbfinsert.c */
extern bool scbfinsert(Relation index, Datum *values, bool *isnull,
					   ItemPointer ht_ctid, Relation heapRel,
					   IndexUniqueCheck checkUnique,
					   bool indexUnchanged,
					   struct IndexInfo *indexInfo);

/* scbfscan.c */
extern IndexScanDesc scbfbeginscan(Relation r, int nkeys, int norderbys);
extern void scbfrescan(IndexScanDesc scan, ScanKey scankey, int nscankeys,
					   ScanKey orderbys, int norderbys);
extern int64 scbfgetbitmap(IndexScanDesc scan, TIDBitmap *tbm);
extern void scbfendscan(IndexScanDesc scan);
extern bool ScbfKeyToCond(Relation index, ScanKey sk, ScbfCond *cond,
						  MemoryContext cxt);

/* scbffuncs.c */
extern Datum ScbfTextArray(const char **names, int n);
extern Datum ScbfInt8Array(const uint64 *values, int n);
extern Datum ScbfFloat8Array(const double *values, int n);
extern Relation ScbfOpenIndex(FunctionCallInfo fcinfo, int argno,
							  LOCKMODE lockmode, Relation *heap,
							  bool needselect);
extern void ScbfCloseIndex(Relation index, Relation heap, LOCKMODE lockmode);

/* scbfcost.c */
extern void scbfcostestimate(PlannerInfo *root, IndexPath *path,
							 double loop_count, Cost *indexStartupCost,
							 Cost *indexTotalCost,
							 Selectivity *indexSelectivity,
							 double *indexCorrelation, double *indexPages);

/* scbfvalidate.c */
extern bool scbfvalidate(Oid opclassoid);

#endif							/* SCBF_H */
