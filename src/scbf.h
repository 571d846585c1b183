/*-------------------------------------------------------------------------
 *
 * scbf.h
 *	  Header for scbf, the split counting Bloom filter index access method.
 *
 * NOTES
 *	  The AM's private API: constants, the options struct, the page ids
 *	  and the format version, the in-memory entries of a build, scan
 *	  conditions and the probe's trace, the in-memory views of the
 *	  storage (state, band, delta, commit records, block census) and the
 *	  read-only copies the diagnostics and the verifier take, and the
 *	  prototypes, grouped under one comment per file.  Page layouts are in
 *	  scbf_page.h, which only the page-kind modules include; src/README
 *	  explains the design.
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
#include "access/transam.h"
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
#define SCBF_DEFAULT_FPR				0.0001	/* src/README, "Sizing" */
#define SCBF_MIN_FPR					0.0001
#define SCBF_MAX_FPR					0.25

/*
 * Filters are sized for this many times the distinct keys they are expected
 * to take, so that the spread of keys over blocks does not close a filter
 * before its time.
 */
#define SCBF_SIZING_HEADROOM		1.15

/*
 * Bounds that keep a sample of unrepresentative segments from making
 * filters too small: a filter is sized for at least this many keys (a
 * segment is split into at most SCBF_MAX_SPLIT filters).
 */
#define SCBF_MIN_FILTER_KEYS		64

/*
 * A fold that relays out the band chooses m anew from the keys of this
 * many segments at least (scbffold.c, FoldGeometry)
 */
#define SCBF_REGEOMETRY_SEGMENTS	8

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
 * A column's value hash, as the index keeps it: a ScbfHash of the index's
 * hash_bits bits (a reloption, 32 to 40, frozen in the metapage at build).
 * At 32 it is the 32-bit hash of the opclass (support function 1); wider,
 * the low bits of the extended hash (seed 0) of the type's default hash
 * opclass, in the columns where that opclass's standard hash is the one
 * the scbf opclass names (ScbfHashDatum); the other columns keep 32 bits.
 * Two values with one hash are one key: more bits, fewer such values a
 * probe must read (src/README, "The hash floor").
 */
typedef uint64 ScbfHash;

#define SCBF_MIN_HASH_BITS			32
#define SCBF_MAX_HASH_BITS			40
#define SCBF_DEFAULT_HASH_BITS		32
#define SCBF_HASH_MAX				((((ScbfHash) 1) << SCBF_MAX_HASH_BITS) - 1)
#define ScbfHashMask(bits)			((((ScbfHash) 1) << (bits)) - 1)

/*
 * The ledger stores each column's value hash.  SCBF_NULL_HASH stands
 * for NULL; a real value whose hash happens to be SCBF_NULL_HASH is stored
 * (and probed) as SCBF_NULL_HASH_ALT, so a stored hash tells NULL and
 * not-NULL apart exactly.  The remap only merges two hash values: a false
 * positive at worst, never a false negative.
 */
#define SCBF_NULL_HASH				((ScbfHash) 0)
#define SCBF_NULL_HASH_ALT			((ScbfHash) 1)
#define ScbfCanonicalHash(h)		((h) == SCBF_NULL_HASH ? SCBF_NULL_HASH_ALT : (h))

/*
 * A ledger leaf's fence: the top 32 bits of its first hash (of bits bits),
 * what a lookup compares; its lists are decoded from ScbfFenceBase
 */
static inline uint32
ScbfFenceOf(ScbfHash hash, int bits)
{
	return (uint32) (hash >> (bits - 32));
}

static inline ScbfHash
ScbfFenceBase(uint32 fence, int bits)
{
	return (ScbfHash) fence << (bits - 32);
}

/* Which of nsplit equal ranges of hashes of bits bits holds hash */
#define ScbfHashRange(hash, bits, nsplit) \
	((uint32) (((ScbfHash) (hash) * (nsplit)) >> (bits)))

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

/* page types of the metapage and of free pages (the others: scbf_page.h) */
#define SCBF_PAGE_META				1
#define SCBF_PAGE_FREE				5

#define SCBF_MAGIC_NUMBER			0x5CBF1DE5
#define SCBF_METAPAGE_BLKNO			0

/*
 * The storage format versions this code reads and writes: an index whose
 * hashes are 32 bits is written as format 3, which older code reads too;
 * wider hashes make format 4 (the same pages, with wider hashes where
 * pages hold them: scbf_page.h), which older code refuses.  An index
 * with a top over its groups of bands (scbfsummary.c) is format 5, or 6
 * with wider hashes: older code refuses them, since its folds would not
 * set the top's bits.  An index of any other version gets an error that
 * says to REINDEX it.
 */
#define SCBF_FORMAT_VERSION			3
#define SCBF_FORMAT_VERSION_WIDE	4
#define SCBF_FORMAT_VERSION_TOP		5
#define SCBF_FORMAT_VERSION_TOP_WIDE 6

#define ScbfFormatKnown(v) \
	((v) >= SCBF_FORMAT_VERSION && (v) <= SCBF_FORMAT_VERSION_TOP_WIDE)
#define ScbfFormatWide(v) \
	((v) == SCBF_FORMAT_VERSION_WIDE || (v) == SCBF_FORMAT_VERSION_TOP_WIDE)
#define ScbfFormatTop(v) \
	((v) == SCBF_FORMAT_VERSION_TOP || (v) == SCBF_FORMAT_VERSION_TOP_WIDE)

/* ----------------------------------------------------------------
 *	Entries in memory
 *
 * A build (and a fold) handles an index entry as the segment-relative TID
 * and each column's value hash, packed.
 * ----------------------------------------------------------------
 */
#define ScbfEntrySize(ncols)	(sizeof(uint16) + sizeof(ScbfHash) * (ncols))

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

static inline ScbfHash
ScbfEntryGetHash(const char *entry, int col)
{
	ScbfHash	hash;

	memcpy(&hash, entry + sizeof(uint16) + sizeof(ScbfHash) * col,
		   sizeof(hash));
	return hash;
}

static inline void
ScbfEntrySetHash(char *entry, int col, ScbfHash hash)
{
	memcpy(entry + sizeof(uint16) + sizeof(ScbfHash) * col, &hash,
		   sizeof(hash));
}

/*
 * qsort and bsearch comparators of 16-bit items, 32-bit numbers, 64-bit
 * rows or keys, and value hashes
 */
static inline int
ScbfCmpU16(const void *a, const void *b)
{
	return pg_cmp_u16(*(const uint16 *) a, *(const uint16 *) b);
}

static inline int
ScbfCmpU32(const void *a, const void *b)
{
	return pg_cmp_u32(*(const uint32 *) a, *(const uint32 *) b);
}

static inline int
ScbfCmpU64(const void *a, const void *b)
{
	return pg_cmp_u64(*(const uint64 *) a, *(const uint64 *) b);
}

static inline int
ScbfCmpHash(const void *a, const void *b)
{
	return pg_cmp_u64(*(const ScbfHash *) a, *(const ScbfHash *) b);
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
	int			hash_bits;
} ScbfOptions;

/* Kinds of scan conditions */
#define SCBF_COND_EQ		1	/* column hash in a set: =, = ANY, IS NULL */
#define SCBF_COND_NOTNULL	2	/* IS NOT NULL: checked in the entries */
#define SCBF_COND_ANY		3	/* cannot be evaluated here: matches all */

typedef struct ScbfCond
{
	int			col;
	int			kind;
	int			bits;			/* the column's hash width (SCBF_COND_EQ) */
	int			nhashes;
	ScbfHash   *hashes;			/* sorted, distinct */
} ScbfCond;

/* Sources of entries a probe reads, as its trace names them */
typedef enum ScbfProbeSource
{
	SCBF_PROBE_FILTER,			/* a filter whose rows said "maybe" */
	SCBF_PROBE_PENDING			/* a pending partition with entries past its
								 * cut */
} ScbfProbeSource;

/* What a probe found in one source of entries */
typedef struct ScbfProbeStep
{
	ScbfProbeSource source;
	uint32		segno;			/* filter: its segment */
	uint16		chain_pos;		/* filter: its chain position */
	uint32		number;			/* filter: its number; pending: the partition */
	int64		matches;		/* entries that satisfy every condition */
	int64		heappages;		/* distinct heap pages of their TIDs */
} ScbfProbeStep;

/* A probe's trace (ScbfProbeBitmap): its steps, in the order it read them */
typedef struct ScbfProbeTrace
{
	ScbfProbeStep *steps;
	int			nsteps;
	int			maxsteps;
} ScbfProbeTrace;

/*
 * What a page's special space says the page belongs to, in two 32-bit
 * words whose meaning depends on the page kind (scbf_page.h).  A reader
 * that meets another band serial, delta serial or page serial than it
 * expects has followed a stale link and starts over.
 */
typedef union ScbfPageIdent
{
	struct
	{
		uint32		band_serial;	/* the band's serial */
		uint32		pageno;		/* page within the band */
	}			rows;
	struct
	{
		uint32		band_serial;	/* the band's serial */
		uint32		unused;
	}			map;
	struct
	{
		uint32		unused;
		uint32		pageno;		/* page within the filter table or the band
								 * directory */
	}			table;
	struct
	{
		uint32		filterno;	/* the filter whose ledger it roots */
		uint32		unused;
	}			root;
	struct
	{
		uint32		segno;		/* segment of the filter */
		uint32		run_serial; /* low 32 bits of its run's fold serial */
	}			leaf;
	struct
	{
		uint32		partition;	/* pending partition */
		uint32		serial;		/* one above the previous page's */
	}			pending;
	struct
	{
		uint32		serial;		/* the delta's serial */
		uint32		partition;	/* delta partition, its page within it */
	}			delta;
} ScbfPageIdent;

/* ----------------------------------------------------------------
 *	Storage
 * ----------------------------------------------------------------
 */

/* Pending partitions (src/README, "On-disk format"; scbf_page.h) */
#define SCBF_NPENDING				16

/* A run of contiguous pages of a band: pages start .. start + npages - 1 */
typedef struct ScbfBandRun
{
	BlockNumber start;
	uint32		npages;
} ScbfBandRun;

/* The runs a band map lists at most (src/README, "On-disk format") */
#define SCBF_BAND_MAX_RUNS			256

/*
 * The pages of the filter table or of the band directory: runs of
 * contiguous blocks, page p the p-th block along them, as the metapage
 * lists them.  They grow by a run of half their pages or more at a time
 * (ScbfRunsGrow), so that SCBF_PAGE_RUNS_MAX runs reach past any
 * relation's 2^32 blocks (src/README, "On-disk format").
 */
#define SCBF_PAGE_RUNS_MAX			64

typedef struct ScbfPageRuns
{
	uint32		npages;
	uint32		nruns;
	ScbfBandRun runs[SCBF_PAGE_RUNS_MAX];
} ScbfPageRuns;

/*
 * A band of row pages: the rows of the filters first .. first + width - 1
 * (bit c of a row is filter first + c), its map page, its shape, and once
 * the map is read (ScbfBandLoad) the runs that hold its pages in page
 * order.  An index has bands in filter order, each starting where the one
 * before ends; only the last takes new filters (src/README, "Bands of
 * rows").
 */
typedef struct ScbfBand
{
	uint8		kind;			/* SCBF_BAND_ROWS or SCBF_BAND_SUMMARY */
	scbf_filter_geometry geom;	/* its filters' k slices of m positions */
	uint32		capacity;		/* distinct keys a filter is sized for */
	uint32		first;			/* its first filter, a multiple of 8 */
	BlockNumber map;			/* the band map page; Invalid: no pages */
	uint32		pages;
	uint32		width;			/* filters per row, a multiple of 8 */
	uint32		rows_per_page;
	uint32		serial;			/* above every band's before it */
	uint32		nruns;			/* 0 until the map is read */
	const ScbfBandRun *runs;
	uint64		removed;		/* a group: keys VACUUM took out of its
								 * bands since its summary was written */
} ScbfBand;

/*
 * What an ScbfBand describes: a band of filter rows, or the summary of a
 * group of bands (scbfsummary.c), laid out as a band is, its columns bands
 * rather than filters: first and width count bands, geom is one slice of
 * m = blocks x SCBF_SUMMARY_BLOCK_BITS rows, and capacity is its blocks.
 */
#define SCBF_BAND_ROWS				0
#define SCBF_BAND_SUMMARY			1

/* Groups an index summarizes at most; the bands after them have none */
#define SCBF_MAX_GROUPS				128

/*
 * Groups the top covers at most: a block of SCBF_SUMMARY_BLOCK_BITS rows
 * of 127 columns fills a page.  A group past them is probed directly.
 */
#define SCBF_TOP_GROUPS				127

/*
 * The bands of an index, in filter order, and the groups that summarize
 * them, in band order (ScbfMetaBands)
 */
typedef struct ScbfBands
{
	uint32		nbands;
	ScbfBand   *bands;
	uint32		ngroups;
	ScbfBand   *groups;

	/*
	 * The top over the groups (scbfsummary.c): a summary whose columns
	 * are groups, width 0 if there is none; groups 0 .. covered - 1 have
	 * complete columns.  top.removed counts the keys VACUUM took out of
	 * them since the top was written.
	 */
	ScbfBand	top;
	uint32		covered;
} ScbfBands;

/*
 * Per-relation state of an index, cached in rd_amcache by ScbfGetState:
 * the layout frozen in the metapage, and the band maps last read.
 */
typedef struct ScbfState
{
	int			ncols;
	uint32		pages_per_segment;
	uint32		k;				/* slices of every filter */
	double		target_fpr;
	uint64		seeds[INDEX_MAX_KEYS];	/* filter key seed per column */
	uint32		hash_bits;		/* of the index */
	uint32		extended_cols;	/* bit c: column c's hashes are extended */
	uint8		col_bits[INDEX_MAX_KEYS];	/* each column's hash bits */
	int			stored_hash_bytes;	/* a hash in pending and delta entries */

	/*
	 * The bands the last probe read, each with its runs (allocated when
	 * the band is first read, SCBF_BAND_MAX_RUNS of them), so that a probe
	 * reads the band directory and a band map only when they changed
	 * (ScbfBandsCached); maxcache entries allocated.  NULL in the copies
	 * operations hold (ScbfGetState).
	 */
	ScbfBands	cache;
	ScbfBandRun **cache_runs;
	uint32		maxcache;

	/*
	 * The groups the last probe read, and the top, as cache holds bands:
	 * each one's map runs (SCBF_BAND_MAX_RUNS of them, allocated when first
	 * read), valid while its map and serial are those of gcache.
	 * SCBF_MAX_GROUPS + 1 of each (the last the top's), allocated at the
	 * first probe of a group; NULL in the copies.
	 */
	ScbfBand   *gcache;
	ScbfBandRun **gcache_runs;
} ScbfState;

/*
 * A copy of the metapage's contents, taken under its share lock: what one
 * scan or one build step works from.  Opaque outside scbfutils.c and the
 * page-kind modules.
 */
typedef struct ScbfMetaPageData ScbfMeta;

/*
 * A filter table entry in memory: ScbfFilterEntrySize(ncols) bytes, the roots
 * last.  Opaque outside the modules; read with the accessors below.
 */
typedef struct ScbfFilterEntry ScbfFilter;

/* The delta: where it is, how many partitions (pages), its serial */
typedef struct ScbfDelta
{
	BlockNumber start;
	uint32		pages;			/* 0: the index has no delta */
	uint32		serial;
	int			bits;			/* the index's hash bits: its entries' size */
} ScbfDelta;

/*
 * What a build writes into the metapage: the layout, the band, the filter
 * table and the statistics.
 */
typedef struct ScbfLayout
{
	int			pages_per_segment;
	int			hash_bits;
	uint32		extended_cols;	/* bit c: column c's hashes are extended */
	int			ncols;
	uint32		k;
	uint32		m;
	uint32		capacity;
	double		target_fpr;
	ScbfBands	bands;
	ScbfPageRuns dir;			/* the band directory's pages */
	uint32		nfilters;
	ScbfPageRuns table;
	uint64		nentries;
	uint32		nsegments;
	uint32		nledger_pages;
	double		mean_fpr;
} ScbfLayout;

/* The statistics a metapage keeps, for the planner */
typedef struct ScbfStats
{
	uint32		pages_per_segment;
	uint32		k;
	uint32		nfilters;
	uint32		nsegments;
	uint64		nentries;
	uint32		nledger_pages;
	double		mean_fpr;
	double		target_fpr;
} ScbfStats;

/* A key whose bits a fold sets: its filter, column and hash */
typedef struct ScbfRowKey
{
	uint32		filterno;
	int			col;
	ScbfHash	hash;
} ScbfRowKey;

/* A bit of the rows: filter (column of the band), slice and position */
typedef struct ScbfRowBit
{
	uint32		filterno;
	uint32		slice;
	uint32		position;
} ScbfRowBit;

/* A key of a filter, and the enumeration of a filter's keys (build) */
typedef void (*ScbfKeyFn) (int col, ScbfHash hash, void *arg);
typedef void (*ScbfKeysFn) (uint32 filterno, ScbfKeyFn emit, void *emit_arg,
							 void *arg);

/* Where a fold's reading of a pending partition ended */
typedef struct ScbfPendingCut
{
	BlockNumber blkno;			/* last page read; Invalid: none */
	uint32		serial;			/* its serial */
	uint16		nentries;		/* the entries it had */
} ScbfPendingCut;

/* What a fold did to the delta's entries (SCBF_META_DELTA_EMPTY) */
typedef enum ScbfDeltaFill
{
	SCBF_DELTA_UNCHANGED = 0,
	SCBF_DELTA_EMPTIED,			/* merged: every key's bits are in the rows */
	SCBF_DELTA_FILLED			/* keys put in it */
} ScbfDeltaFill;

/*
 * What the metapage record that commits a serial writes: a fold's, or a
 * VACUUM's (which reads no partition and keeps the band)
 */
typedef struct ScbfCommit
{
	uint64		serial;			/* committed serial + 1 */
	ScbfPendingCut cuts[SCBF_NPENDING];	/* Invalid: partition not read */
	bool		band_changed;
	ScbfBands	bands;			/* the bands, if band_changed: the last
								 * band, if its map changed, goes to the
								 * graveyard */
	ScbfPageRuns dir;			/* the band directory's pages, if
								 * band_changed */
	uint32		m;				/* the geometry of new bands, if chosen
								 * anew; else 0 */
	uint32		capacity;
	bool		delta_changed;
	ScbfDelta	delta;			/* the new delta, if delta_changed */
	ScbfDeltaFill delta_fill;	/* SCBF_META_DELTA_EMPTY set or cleared */
	uint32		nfilters;
	ScbfPageRuns table;		/* the filter table's pages */
	int64		nentries_delta;	/* ledger entries added less removed */
	uint32		nsegments_added;
	int64		nledger_pages_delta;	/* leaves and roots written less freed */
} ScbfCommit;

/* A (hash, item) pair of one column of a filter's ledger */
typedef struct ScbfPair
{
	ScbfHash	hash;
	uint16		item;			/* segment-relative TID */
} ScbfPair;

/* A ledger run encoded by a fold, not yet written; opaque (scbfledger.c) */
typedef struct ScbfEncodedRun ScbfRun;

/* Runs a ledger root takes before the fold starts a new filter */
#define SCBF_MAX_RUNS				8

/*
 * Runs of a filter's ledger from which VACUUM merges them into one.  Each
 * fold adds a run to the filters it reaches, and a probe reads a leaf of
 * each run; but a merge keeps the old runs' leaves until the next VACUUM
 * (a reader may be at the serial before).  Two runs made a text index
 * grown by 10,000-row INSERTs read 9.0 index pages a probe instead of
 * 9.4, but left it 1.36 times its rebuilt size instead of 1.27.
 */
#define SCBF_MERGE_RUNS			4

/*
 * A segment with more distinct keys than a filter takes is split into at
 * most this many filters, by ranges of the first column's hash (build and
 * fold); beyond, its filters answer "maybe" more often.
 */
#define SCBF_MAX_SPLIT				8

/* Pages a partition may reach before a flush asks for a fold */
#define SCBF_FOLD_PAGES			3

/*
 * Entries a flush folds straight into the filters rather than append to
 * the pending area (a bulk load's full batch): about what the pending
 * area holds when a partition reaches SCBF_FOLD_PAGES.
 */
#define SCBF_FOLD_DIRECT			16384

/* Kinds of pages, as ScbfInspectPage classifies them */
typedef enum ScbfPageKind
{
	SCBF_KIND_NEW,				/* never initialized */
	SCBF_KIND_UNKNOWN,			/* no scbf special space, or unknown type */
	SCBF_KIND_META,
	SCBF_KIND_TABLE,
	SCBF_KIND_ROWS,
	SCBF_KIND_BANDMAP,
	SCBF_KIND_BANDDIR,
	SCBF_KIND_SUMMARY,
	SCBF_KIND_SUMMARYMAP,
	SCBF_KIND_ROOT,
	SCBF_KIND_LEAF,
	SCBF_KIND_PENDING,
	SCBF_KIND_DELTA,
	SCBF_KIND_FREE
} ScbfPageKind;

/*
 * A block that a structure names, as the block census (ScbfCensus) hands
 * it to its caller: the kind of page the structure expects there, and
 * which structure names it.  Fields that do not apply are -1 (pageno,
 * serial, segno, filterno, grave, partition) or InvalidBlockNumber.
 */
typedef struct ScbfBlockRef
{
	ScbfPageKind kind;
	int			grave;			/* the metapage's grave that names it */
	int64		pageno;			/* table, rows, delta: page of the table,
								 * band or delta; leaf: leaf of its run */
	int64		serial;			/* rows, band map, delta: the band's or the
								 * delta's serial */
	int64		filterno;		/* root, leaf: the filter */
	int64		segno;			/* root, leaf: the filter's segment */
	int			column;			/* root, leaf: the index column, from 0 */
	int			partition;		/* pending: the chain's partition */
	BlockNumber next;			/* leaf: the next leaf of its run */
	bool		top;			/* summary, summary map: the top's */
} ScbfBlockRef;

/*
 * A census callback: false ends the walk of the structure at blkno (a
 * root's leaves, the rest of a chain or a range are not handed over).
 */
typedef bool (*ScbfCensusFn) (BlockNumber blkno, const ScbfBlockRef *ref,
							  void *arg);

/* One pending entry, handed to ScbfPendingScan's callback */
typedef void (*ScbfPendingFn) (ItemPointer tid, const ScbfHash *hashes,
								void *arg);

/* One decoded posting list, handed to ScbfLedgerScan's callback */
typedef void (*ScbfPostingFn) (ScbfHash hash, const uint16 *items, int nitems,
								void *arg);

/* ----------------------------------------------------------------
 *	Read-only views for the diagnostics (scbfinspect.c) and the verifier
 *	(scbfverify.c), which do not include scbf_page.h: copies of what a
 *	page or the metapage says, unchecked beyond what keeps the copy in
 *	bounds, so that the verifier can judge it.
 * ----------------------------------------------------------------
 */

/* What one page's special space and header say */
typedef struct ScbfPageInfo
{
	ScbfPageKind kind;
	ScbfPageIdent ident;		/* as the special space says */
	int			column;			/* root, leaf */
	int			count;			/* root, band map: runs; leaf: posting
								 * lists; pending, delta: entries; else 0 */
	BlockNumber next;			/* pending: next page; else Invalid */
} ScbfPageInfo;

/* A pending partition's head in the metapage */
typedef struct ScbfPendingHeadInfo
{
	BlockNumber head;
	BlockNumber tail;
	uint32		head_serial;
	uint16		cut;
	bool		mayhave;		/* SCBF_PENDING_MAYHAVE */
	uint16		flags;			/* all of them */
} ScbfPendingHeadInfo;

/* A grave of the metapage */
typedef struct ScbfGraveInfo
{
	bool		band;			/* else a piece of a pending chain */
	uint16		kind;			/* as stored */
	BlockNumber first;
	uint32		n;				/* band: pages */
	BlockNumber stop;			/* pending: where the piece ends */
	FullTransactionId safexid;
} ScbfGraveInfo;

/* Everything a metapage copy says (ScbfMetaInfo) */
typedef struct ScbfMetaInfoData
{
	uint32		pages_per_segment;
	int			ncols;
	uint32		k;
	uint32		m;
	uint32		capacity;
	double		target_fpr;
	uint32		flags;
	ScbfBands	bands;			/* none: ScbfMetaBands reads them */
	ScbfDelta	delta;
	uint32		nfilters;
	uint32		table_generation;
	const ScbfPageRuns *table;	/* points into the metapage copy */
	uint64		fold_serial;
	ScbfPendingHeadInfo pending[SCBF_NPENDING];
	uint64		nentries;
	uint32		nsegments;
	uint32		nledger_pages;
	double		mean_fpr;
	uint32		ngraves;
	uint32		max_graves;
	ScbfGraveInfo *graves;		/* palloc'd, Min(ngraves, max_graves) */
	uint32		nmarks;
	uint64	   *mark_serials;	/* palloc'd, nmarks */
	uint32		entries_per_table_page;
	uint32		pending_entries_per_page;
} ScbfMetaInfoData;

/* A ledger run as its root lists it */
typedef struct ScbfRunInfo
{
	uint64		made;
	uint64		gone;			/* PG_UINT64_MAX while current */
	uint32		nentries;
	int			nleaves;
	uint32	   *fences;			/* each leaf's fence (ScbfFenceOf) */
	BlockNumber *leaves;		/* InvalidBlockNumber: the inline leaf */
	int			inlined;		/* bytes of the inline (last) leaf, or 0 */
	uint8	   *inline_bytes;	/* its posting lists */
} ScbfRunInfo;

/* A ledger root page, as read */
typedef struct ScbfRootInfo
{
	uint32		filterno;
	int			column;
	int			hash_bits;		/* of its hashes, as it says */
	int			nruns;
	ScbfRunInfo *runs;
} ScbfRootInfo;

/* A ledger leaf page, as read */
/* Most signposts a ledger leaf ends with (scbf_page.h) */
#define SCBF_LEAF_SIGNPOSTS			16

typedef struct ScbfLeafInfo
{
	uint32		segno;
	int			column;
	uint32		serial;			/* its run's serial, low 32 bits */
	uint32		fence;			/* ScbfFenceOf its first hash */
	int			nlists;
	int			nbytes;			/* as the page says */
	int			maxbytes;		/* what a leaf holds */
	uint8	   *bytes;			/* palloc'd, Min(nbytes, maxbytes) */
	int			nsignposts;		/* as the page says; -1: pd_upper is wrong */
	ScbfHash	signpost_hash[SCBF_LEAF_SIGNPOSTS];	/* the list's before */
	int			signpost_offset[SCBF_LEAF_SIGNPOSTS];
} ScbfLeafInfo;

/* A pending page, as read */
typedef struct ScbfPendingPageInfo
{
	uint32		partition;		/* owner */
	uint32		serial;
	BlockNumber next;
	int			nentries;		/* as the page says */
	int			maxentries;		/* what a page holds */
	ItemPointerData *tids;		/* palloc'd, Min(nentries, maxentries) */
	ScbfHash   *hashes;			/* [i * ncols + col] */
} ScbfPendingPageInfo;

/* ----------------------------------------------------------------
 *	Prototypes, one group per file: the module, utils, the page-kind
 *	modules, the fold, the batch and the probe, the callbacks, the
 *	diagnostics (the verifier has no caller outside its file)
 * ----------------------------------------------------------------
 */

/* scbf.c */
extern void _PG_init(void);
extern Datum scbfhandler(PG_FUNCTION_ARGS);
extern bytea *scbfoptions(Datum reloptions, bool validate);
extern char *scbfbuildphasename(int64 phasenum);
extern List *ScbfPlanChildren(Plan *plan);

/* scbfutils.c */
extern void ScbfReportCorrupt(Relation index, BlockNumber blkno,
							  const char *what) pg_attribute_noreturn();
extern void ScbfMarkPageFree(Page page);
extern Buffer ScbfFreeBuffer(Relation index);
extern Buffer ScbfNewBuffer(Relation index);

/* Initializes page pageno of a contiguous extension (ScbfExtend) */
typedef void (*ScbfNewPageFn) (Buffer buf, uint32 pageno, void *arg);
extern BlockNumber ScbfExtend(Relation index, uint32 npages,
							  ScbfNewPageFn fn, void *arg);
extern BlockNumber ScbfExtendFrom(Relation index, uint32 npages, uint32 first,
								  ScbfNewPageFn fn, void *arg);
extern BlockNumber ScbfRunsBlock(const ScbfPageRuns *runs, uint32 pageno);
extern void ScbfRunsGrow(Relation index, ScbfPageRuns *runs, uint32 npages,
						 ScbfNewPageFn fn, void *arg);
extern int	ScbfColumnHashBits(Relation index, int col);

extern ScbfState *ScbfGetState(Relation index);
extern ScbfMeta *ScbfReadMetaIfCurrent(Relation index);
extern ScbfMeta *ScbfReadMeta(Relation index);
extern uint64 ScbfFilterKey(const ScbfState *state, int col, ScbfHash hash);
extern void ScbfKeyPositions(const ScbfState *state, const ScbfBand *band,
							 int col, ScbfHash hash, uint32 *pos);
extern Buffer ScbfReadBuffer(Relation index, BlockNumber blkno);
extern Buffer ScbfReadPage(Relation index, BlockNumber blkno, int mode,
							uint8 type, BlockNumber nblocks);
extern int	ScbfMetaHashBits(const ScbfMeta *meta);
extern uint32 ScbfMetaFilters(const ScbfMeta *meta);
extern uint64 ScbfMetaFoldSerial(const ScbfMeta *meta);
extern void ScbfMetaStats(const ScbfMeta *meta, ScbfStats *stats);
extern uint32 ScbfMetaBandCount(const ScbfMeta *meta);
extern uint32 ScbfMetaBandsEnd(const ScbfMeta *meta);
extern void ScbfMetaBands(Relation index, const ScbfMeta *meta,
						  ScbfBands *bands, BlockNumber nblocks);
extern void ScbfBandDirWrite(Relation index, const ScbfMeta *meta,
							 const ScbfBands *bands, ScbfPageRuns *dir);
extern void ScbfBandDirBuild(Relation index, const ScbfBands *bands,
							 ScbfPageRuns *dir);
extern void ScbfMetaGeometry(const ScbfMeta *meta, uint32 *m,
							 uint32 *capacity);
extern bool ScbfBandLoad(Relation index, ScbfBand *band, BlockNumber nblocks);
extern const ScbfBands *ScbfBandsCached(Relation index, const ScbfMeta *meta,
										BlockNumber nblocks);
extern const ScbfBand *ScbfBandMapped(Relation index, const ScbfBand *band,
									 ScbfBand *copy, BlockNumber nblocks);
extern const ScbfBand *ScbfBandOf(const ScbfBands *bands, uint32 filterno);
extern uint32 ScbfBandsEnd(const ScbfBands *bands);
extern uint32 ScbfBandsPages(const ScbfBands *bands);
extern BlockNumber ScbfBandBlock(const ScbfBand *band, uint32 pageno);
extern void ScbfWriteBandMap(Relation index, ScbfBand *band, bool logged);
extern void ScbfMetaDelta(const ScbfMeta *meta, ScbfDelta *delta);
extern uint32 ScbfMetaGraveRoom(const ScbfMeta *meta);
extern bool ScbfMetaGoneReadable(const ScbfMeta *meta, uint64 gone);
extern void ScbfBlockRefInit(ScbfBlockRef *ref, ScbfPageKind kind);
extern void ScbfMetaBlocks(Relation index, const ScbfMeta *meta,
						   ScbfCensusFn fn, void *arg, BlockNumber nblocks);
extern BlockNumber ScbfFreeUnnamed(Relation index, const uint8 *named,
								   BlockNumber nblocks, BlockNumber *nfree);
extern void ScbfFreePage(Relation index, Buffer buf);
extern void ScbfCommitSerial(Relation index, const ScbfCommit *fc);
extern void ScbfSetRecount(Relation index, bool on);
extern bool ScbfMetaRecount(const ScbfMeta *meta);
extern void ScbfSetDeltaEmpty(Relation index);
extern bool ScbfMetaDeltaEmpty(const ScbfMeta *meta);
extern void ScbfBumpRecycleSerial(Relation index);
extern bool ScbfRecycledSince(Relation index, const ScbfMeta *meta);
extern void ScbfRecycleGraves(Relation index);
extern void ScbfInitState(ScbfState *state, const ScbfLayout *layout);
extern void ScbfInitMetaPage(Page page, const ScbfLayout *layout);
extern Relation ScbfOpenIndex(FunctionCallInfo fcinfo, int argno,
							  LOCKMODE lockmode, Relation *heap,
							  bool needselect);
extern void ScbfCloseIndex(Relation index, Relation heap, LOCKMODE lockmode);
extern Datum ScbfTextArray(const char **names, int n);
extern Datum ScbfInt8Array(const uint64 *values, int n);
extern Datum ScbfFloat8Array(const double *values, int n);

extern void ScbfMetaInfo(const ScbfMeta *meta, ScbfMetaInfoData *mi);
extern void ScbfInspectPage(Relation index, BlockNumber blkno,
							 ScbfPageInfo *pi);

/* scbfdir.c */
extern ScbfFilter *ScbfReadFilter(Relation index, ScbfState *state,
									const ScbfMeta *meta, uint32 filterno,
									BlockNumber nblocks);
extern bool ScbfFilterInUse(const ScbfFilter *f);
extern uint32 ScbfFilterSegment(const ScbfFilter *f);
extern BlockNumber ScbfFilterRoot(const ScbfFilter *f, int col);
extern uint16 ScbfFilterChainPos(const ScbfFilter *f);
extern void ScbfFilterSetKeys(ScbfFilter *f, uint32 nkeys);
extern uint32 ScbfFilterKeys(const ScbfFilter *f);
extern void ScbfFilterGetBits(const ScbfFilter *f, uint32 *nset);
extern ScbfFilter *ScbfNewFilter(int ncols, uint32 segno, uint16 chain_pos,
								   uint32 nentries, uint32 nkeys);
extern void ScbfFilterSetRoot(ScbfFilter *f, int col, BlockNumber root);
extern void ScbfFilterSetBits(ScbfFilter *f, uint32 k, const uint32 *nset);
extern double ScbfFilterFpr(const ScbfFilter *f, uint32 k, uint32 m);
extern void ScbfWriteTable(Relation index, int ncols, ScbfFilter **filters,
							uint32 nfilters, ScbfLayout *layout);
extern ScbfFilter **ScbfReadTable(Relation index, ScbfState *state,
									const ScbfMeta *meta, BlockNumber nblocks);
extern void ScbfUpdateTable(Relation index, ScbfState *state,
							 const ScbfMeta *meta, ScbfFilter **filters,
							 const bool *changed, uint32 nold, uint32 nnew,
							 ScbfPageRuns *table, BlockNumber nblocks);

extern uint32 ScbfFilterEntries(const ScbfFilter *f);
extern bool ScbfFilterIsActive(const ScbfFilter *f);
extern void ScbfFilterClose(ScbfFilter *f);
extern void ScbfFilterSetEntries(ScbfFilter *f, uint32 n);
extern bool ScbfFilterVisible(const ScbfFilter *f, uint64 serial);
extern uint64 ScbfFilterGone(const ScbfFilter *f);
extern void ScbfFilterSetGone(ScbfFilter *f, uint64 gone);
extern bool ScbfFilterUndoGone(ScbfFilter *f, uint64 serial);
extern void ScbfFilterActivate(ScbfFilter *f);
extern void ScbfFilterRelease(ScbfFilter *f, int ncols);
extern void ScbfFilterAddEntries(ScbfFilter *f, uint32 n);
extern void ScbfFilterAddBit(ScbfFilter *f, uint32 slice);
extern void ScbfCensus(Relation index, ScbfState *state,
					   const ScbfMeta *meta, ScbfCensusFn fn, void *arg,
					   BlockNumber nblocks);

extern const char *ScbfFilterStateName(const ScbfFilter *f);

/* scbfrows.c */
extern int	scbf_test_band_filters;
extern uint32 ScbfBandLimit(void);
extern Size ScbfRowsBytes(const ScbfMeta *meta);
extern bool ScbfRowsProbe(Relation index, ScbfState *state,
						   const ScbfMeta *meta, int col,
						   const ScbfHash *hashes, int nhashes, uint8 *acc,
						   BlockNumber nblocks);
extern bool ScbfRowsHas(const ScbfMeta *meta, const uint8 *acc,
						uint32 fno);
extern uint32 ScbfRowsNext(const ScbfMeta *meta, const uint8 *acc,
							uint32 from);
/* spare filter columns of a band: 1/spare of its filters (ScbfBandPlan) */
#define SCBF_BAND_SPARE_BUILT	8
#define SCBF_BAND_SPARE_GROWN	4
extern uint32 ScbfBandM(uint32 m, uint32 capacity, uint32 k, uint32 bandno);
extern double ScbfBandTarget(double target, uint32 bandno);
extern void ScbfBandPlan(uint32 first, uint32 nfilters, uint32 spare,
						 uint32 k, uint32 m, uint32 capacity, ScbfBand *band);
extern void ScbfRowsSet(Relation index, ScbfState *state,
						 const ScbfBands *bands, const ScbfRowKey *keys,
						 int n, ScbfFilter **filters, BlockNumber nblocks);
extern void ScbfKeyBits(ScbfState *state, const ScbfRowKey *keys, int n,
						 ScbfFilter **filters);
extern void ScbfRowsClear(Relation index, ScbfState *state,
						   const ScbfBands *bands, const ScbfRowBit *bits,
						   int n, BlockNumber nblocks);
extern void ScbfBandRelayout(Relation index, ScbfState *state,
							  const ScbfBand *old, uint32 nfilters,
							  ScbfBand *band, BlockNumber nblocks);
extern void ScbfBandOpen(Relation index, ScbfState *state, uint32 first,
						 uint32 nfilters, uint32 m, uint32 capacity,
						 uint32 serial, ScbfBand *band, BlockNumber nblocks);
extern void ScbfBandRebuild(Relation index, ScbfState *state,
							const ScbfBand *old, uint32 m, uint32 capacity,
							uint32 nfilters, ScbfKeysFn keys, void *arg,
							ScbfBand *band, uint32 *nset);
extern void ScbfBandBuild(Relation index, ScbfState *state, ScbfBand *band,
						   uint32 nfilters, ScbfKeysFn keys, void *arg,
						   uint32 *nset);

extern void ScbfBandCount(Relation index, ScbfState *state,
						  const ScbfBand *band, uint32 nfilters,
						  uint32 *nset, BlockNumber nblocks);
extern void ScbfBandWrite(Relation index, ScbfState *state, ScbfBand *band,
						  uint32 ncolumns, ScbfKeysFn keys, void *arg,
						  uint32 *nset, bool spill);
extern void ScbfBandAllocate(Relation index, ScbfBand *band,
							 ScbfNewPageFn fn, void *arg);
extern void ScbfBandCopy(Relation index, const ScbfBand *old,
						 ScbfBand *band, BlockNumber nblocks);
extern void ScbfBandSetBits(Relation index, const ScbfBand *band,
							const uint64 *rows, const uint32 *cols, Size n,
							BlockNumber nblocks);
extern void ScbfInitRowPage(Page page, const ScbfBand *band, uint32 pageno);
extern uint8 ScbfBandPageType(const ScbfBand *band);
extern Size ScbfBandPageBytes(const ScbfBand *band);
extern bool ScbfBandReadPage(Relation index, const ScbfBand *band,
							  uint32 pageno, uint8 *rows, BlockNumber nblocks);

/* scbfsummary.c */
extern int	scbf_test_group_bands;
extern uint32 ScbfGroupLimit(void);
extern const ScbfBand *ScbfGroupOf(const ScbfBands *bands, uint32 bandno);
extern bool ScbfSummaryProbe(Relation index, const ScbfBand *group,
							 uint64 fkey, uint8 *mask, BlockNumber nblocks);
extern void ScbfSummarySet(Relation index, const ScbfBands *bands,
						   const uint32 *bandof, const uint64 *fkeys, int n,
						   BlockNumber nblocks);
extern void ScbfGroupsCover(Relation index, ScbfState *state,
							const ScbfBands *committed, ScbfBands *bands,
							uint32 nfilters, ScbfKeysFn keys, void *arg,
							BlockNumber nblocks);
extern void ScbfGroupsBuild(Relation index, ScbfState *state,
							ScbfBands *bands, uint32 nfilters,
							ScbfKeysFn keys, void *arg);
extern uint32 ScbfGroupNextSerial(const ScbfBands *bands);
extern void ScbfGroupRebuild(Relation index, ScbfState *state,
							 const ScbfBands *bands, uint32 g,
							 uint32 nfilters, ScbfKeysFn keys, void *arg,
							 ScbfBand *group);
extern bool ScbfTopNeeded(const ScbfBands *bands, uint64 keys);
extern uint32 ScbfTopWrite(Relation index, ScbfState *state,
						   const ScbfBands *bands, uint32 nfilters,
						   ScbfKeysFn keys, void *arg, bool build,
						   ScbfBand *top);
extern bool ScbfSummaryHas(Relation index, const ScbfBand *group,
						   uint32 bandno, uint64 fkey, BlockNumber nblocks,
						   bool *ok);

/* scbfdelta.c */
extern int	scbf_delta_band_pages;
extern bool ScbfDeltaWanted(const ScbfBands *bands, int bits, int nkeys);
extern uint32 ScbfDeltaPages(const ScbfBands *bands);
extern uint32 ScbfDeltaPartition(ScbfHash hash, int col, uint32 npages);
extern void ScbfDeltaFree(Relation index, const ScbfDelta *delta,
						   BlockNumber nblocks);
extern void ScbfDeltaCreate(Relation index, const ScbfBands *bands,
							 const ScbfDelta *old, ScbfDelta *delta);
extern int	ScbfDeltaAdd(Relation index, const ScbfDelta *delta,
						  ScbfRowKey *keys, int n, BlockNumber nblocks);
extern int	ScbfDeltaMerge(Relation index, ScbfState *state,
							const ScbfDelta *delta, const ScbfBands *bands,
							const ScbfRowKey *extra, int nextra,
							BlockNumber nblocks);
extern bool ScbfDeltaProbe(Relation index, const ScbfMeta *meta, int col,
							const ScbfHash *hashes, int nhashes, uint8 *acc,
							BlockNumber nblocks);

extern int	ScbfReadDeltaPage(Relation index, const ScbfDelta *delta,
							   uint32 part, ScbfRowKey **keys,
							   BlockNumber nblocks);

/* scbfledger.c */
extern int	ScbfLedgerLookup(Relation index, BlockNumber root, int col,
							  int bits, uint64 fold_serial,
							  const ScbfHash *hashes, int nhashes,
							  uint16 **items, BlockNumber nblocks);
extern BlockNumber ScbfLedgerWrite(Relation index, uint32 segno,
									uint32 filterno, int col, int bits,
									uint64 serial, const ScbfHash *hashes,
									const uint16 *items, int n,
									uint32 *npages);
extern ScbfRun *ScbfLedgerEncode(Relation index, uint32 segno, int col,
								   int bits, uint64 serial,
								   const ScbfHash *hashes,
								   const uint16 *items, int n);
extern bool ScbfLedgerHasRoom(Relation index, BlockNumber root, int col,
							   const ScbfRun *run, const ScbfMeta *meta,
							   bool replace, BlockNumber nblocks);
extern BlockNumber ScbfLedgerAppend(Relation index, BlockNumber root,
									 uint32 filterno, int col, ScbfRun *run,
									 const ScbfMeta *meta,
									 BlockNumber nblocks, int64 *npages);
extern int64 ScbfLedgerReplace(Relation index, BlockNumber root,
								uint32 filterno, int col, ScbfRun *run,
								const ScbfMeta *meta, BlockNumber nblocks);
extern bool ScbfLedgerKeys(Relation index, int ncols, const ScbfFilter *f,
						   uint64 fold_serial, ScbfKeyFn emit, void *arg,
						   bool locked, BlockNumber nblocks);
extern bool ScbfLedgerScan(Relation index, BlockNumber root, int col,
							uint64 fold_serial, ScbfPostingFn fn, void *arg,
							BlockNumber nblocks);
extern int	ScbfLedgerPairs(Relation index, BlockNumber root, int col,
							 uint64 fold_serial, ScbfPair **pairs,
							 BlockNumber nblocks);
extern void ScbfSortPairs(ScbfPair *pairs, size_t n);
extern void ScbfSortPairsByItemOrder(ScbfPair *pairs, size_t n, int bits);
extern bool ScbfLedgerTidy(Relation index, BlockNumber root, int col,
							const ScbfMeta *meta, BlockNumber nblocks);
extern void ScbfLedgerBlocks(Relation index, BlockNumber root,
							 const ScbfBlockRef *rootref, ScbfCensusFn fn,
							 void *arg, BlockNumber nblocks);
extern int	ScbfLedgerRuns(Relation index, BlockNumber root, int col,
							uint64 fold_serial, BlockNumber nblocks);

extern void ScbfReadRootInfo(Relation index, BlockNumber root,
							  ScbfRootInfo *ri, BlockNumber nblocks);
extern void ScbfReadLeafInfo(Relation index, BlockNumber blkno,
							  ScbfLeafInfo *li, BlockNumber nblocks);

/* scbfpending.c */
extern int	ScbfPendingPartition(ScbfHash hash0);
extern bool ScbfPendingAppend(Relation index, ScbfState *state,
							   ItemPointer tids, const ScbfHash *hashes, int n);
extern bool ScbfPendingScan(Relation index, ScbfState *state,
							 const ScbfMeta *meta, int part,
							 ScbfPendingFn fn, void *arg,
							 ScbfPendingCut *cut);
extern void ScbfPendingBlocks(Relation index, BlockNumber blkno,
							  BlockNumber stop, const ScbfBlockRef *ref,
							  ScbfCensusFn fn, void *arg,
							  BlockNumber nblocks);

extern void ScbfReadPendingPage(Relation index, BlockNumber blkno, int ncols,
								 int hbytes, ScbfPendingPageInfo *pp,
								 BlockNumber nblocks);

/* scbffold.c */
extern int64 ScbfFold(Relation index, bool wait);
extern bool ScbfFoldBatch(Relation index, ItemPointer tids,
						   const ScbfHash *hashes, int n);

/* scbffoldhelper.c */
/*
 * A batch a fold helper gave back unfolded (ScbfHelperWait): n entries,
 * tids[i] and hashes[i * ncols ..], in the helper's segment, for the index
 * indexoid with the storage rlocator.
 */
typedef struct ScbfHelperBatch
{
	Oid			indexoid;
	ScbfRelFileLocator rlocator;
	ItemPointer tids;
	ScbfHash   *hashes;
	int			n;
} ScbfHelperBatch;

extern bool scbf_fold_helpers;
extern bool ScbfHelperSubmit(Relation index, ItemPointer tids,
							 const ScbfHash *hashes, int n);
extern bool ScbfHelperWait(Oid indexoid, ScbfHelperBatch *unfolded);
extern void ScbfHelperWritten(Oid indexoid);
extern bool ScbfHelperBusy(Oid indexoid);
extern bool ScbfHelperFoldsAfter(Relation index);
extern void ScbfHelperScan(Relation index, ScbfPendingFn fn, void *arg);
extern void ScbfHelperForget(void);

/* scbfbatch.c */
extern void ScbfBatchAdd(Relation index, ItemPointer tid,
						 const ScbfHash *hashes, int ncols);
extern void ScbfBatchFlush(Relation index);
extern bool ScbfBatchHolds(Oid indexoid);
extern void ScbfBatchFlushAll(void);
extern void ScbfBatchScan(Relation index, ScbfPendingFn fn, void *arg);

/* scbfprobe.c */
extern uint32 ScbfExtendedColumns(Relation index);
extern ScbfHash ScbfHashDatum(Relation index, int col, int bits,
							  Datum value);
extern FmgrInfo *ScbfKeyHashProc(Relation index, int col, Oid subtype,
								 Oid collation, MemoryContext cxt,
								 bool *extended);
extern bool ScbfKeyToCond(Relation index, ScanKey sk, ScbfCond *cond,
						  MemoryContext cxt);
extern int64 ScbfProbeBitmap(Relation index, ScbfCond *conds, int nconds,
							 TIDBitmap *tbm, ScbfProbeTrace *trace);

/* scbfbuild.c */
extern IndexBuildResult *scbfbuild(Relation heap, Relation index,
								   IndexInfo *indexInfo);
extern void scbfbuildempty(Relation index);

/* scbfinsert.c */
extern bool scbfinsert(Relation index, Datum *values, bool *isnull,
					   ItemPointer ht_ctid, Relation heapRel,
					   IndexUniqueCheck checkUnique,
					   bool indexUnchanged,
					   struct IndexInfo *indexInfo);

/* scbfroute.c */
struct QueryDesc;
extern bool scbf_route;
extern int	scbf_route_timeout;
extern void ScbfRouteInit(void);
extern void ScbfRouteExecutorStart(struct QueryDesc *queryDesc, int eflags);

/* scbfscan.c */
extern IndexScanDesc scbfbeginscan(Relation r, int nkeys, int norderbys);
extern void scbfrescan(IndexScanDesc scan, ScanKey scankey, int nscankeys,
					   ScanKey orderbys, int norderbys);
extern int64 scbfgetbitmap(IndexScanDesc scan, TIDBitmap *tbm);
extern void scbfendscan(IndexScanDesc scan);

/* scbfvacuum.c */
extern IndexBulkDeleteResult *scbfbulkdelete(IndexVacuumInfo *info,
											 IndexBulkDeleteResult *stats,
											 IndexBulkDeleteCallback callback,
											 void *callback_state);
extern IndexBulkDeleteResult *scbfvacuumcleanup(IndexVacuumInfo *info,
												IndexBulkDeleteResult *stats);

/* scbfcost.c */
extern void scbfcostestimate(PlannerInfo *root, IndexPath *path,
							 double loop_count, Cost *indexStartupCost,
							 Cost *indexTotalCost,
							 Selectivity *indexSelectivity,
							 double *indexCorrelation, double *indexPages);

/* scbfvalidate.c */
extern bool scbfvalidate(Oid opclassoid);
extern void ScbfCheckIndexEquality(Relation index);

/* scbfinspect.c */
extern void ScbfInspectProbe(FunctionCallInfo fcinfo, Relation index, ScanKey key);

#endif							/* SCBF_H */
