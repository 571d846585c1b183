/*-------------------------------------------------------------------------
 *
 * scbf_page.h
 *	  Page layouts of storage format 2: the metapage, the filter table, the
 *	  row band, ledger roots and leaves, pending pages and delta pages.
 *
 * NOTES
 *	  Included only by the page-kind modules (scbfutils.c, scbfdir.c,
 *	  scbfrows.c, scbfdelta.c, scbfledger.c, scbfpending.c); everything else goes
 *	  through their functions (scbf2.h).  src/README, "Storage v2", says
 *	  why the pages look like this.
 *
 *	  Every page has a standard header and a 16-byte special space ending
 *	  in the 2-byte SCBF_PAGE_ID, laid out so that its type byte sits where
 *	  format 1's did: a free page and the metapage read the same in both
 *	  formats, and the version in the metapage tells them apart (an index
 *	  of format 1 gets the REINDEX error, Scbf2GetState).
 *
 * Portions Copyright (c) 2026, scbf developers
 *
 * IDENTIFICATION
 *	  src/scbf_page.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SCBF_PAGE_H
#define SCBF_PAGE_H

#include "access/transam.h"

#include "scbf2.h"

/* Page types of format 2 (META and FREE are format 1's numbers) */
#define SCBF_PAGE_TABLE				6
#define SCBF_PAGE_ROWS				7
#define SCBF_PAGE_ROOT				8
#define SCBF_PAGE_LEAF				9
#define SCBF_PAGE_PENDING			10
#define SCBF_PAGE_DELTA				11

typedef struct Scbf2PageOpaqueData
{
	uint32		owner;			/* rows: band serial; root: filter number;
								 * leaf: segment; pending: partition; delta:
								 * delta serial */
	uint32		index;			/* rows: page within the band; table: page
								 * within the table; leaf: fold serial of its
								 * run (low 32 bits); delta: partition */
	uint16		column;			/* root, leaf: index column */
	uint8		type;			/* SCBF_PAGE_* */
	uint8		unused1;
	uint16		unused2;
	uint16		page_id;		/* SCBF_PAGE_ID, always last */
} Scbf2PageOpaqueData;

typedef Scbf2PageOpaqueData *Scbf2PageOpaque;

#define Scbf2PageGetOpaque(page) ((Scbf2PageOpaque) PageGetSpecialPointer(page))

/* scbfutils.c */
extern bool Scbf2PageHasOpaque(Page page);

/* Bytes of a page between the header and the special space */
#define SCBF2_PAGE_SPACE \
	(BLCKSZ - MAXALIGN(SizeOfPageHeaderData) \
	 - MAXALIGN(sizeof(Scbf2PageOpaqueData)))

/* ----------------------------------------------------------------
 *	Metapage (block 0)
 *
 * The layout (k, m, seed, target rate) is frozen at build.  The band of
 * row pages is contiguous: row r = slice * m + position lives on page
 * band_start + r / band_rows_per_page at bit (r % band_rows_per_page) *
 * band_width, and bit c of a row is filter c.  The filter table's pages
 * are listed at the end.  fold_serial is the serial of the last fold that
 * committed: runs made by a later one are not visible yet (src/README, D5).
 * ----------------------------------------------------------------
 */
typedef struct Scbf2PendingHead
{
	BlockNumber head;			/* first page; InvalidBlockNumber = none */
	BlockNumber tail;			/* last page, which takes appends */
	uint32		head_serial;	/* page serial of the head page */
	uint16		cut;			/* entries of the head page already folded */
	uint16		flags;			/* SCBF2_PENDING_* */
} Scbf2PendingHead;

/*
 * Entries past the cut may exist.  Set by the append that finds its
 * partition empty, in the same record; cleared only by a fold's commit
 * that saw nothing past its cut while it held the cut page's lock.  A
 * probe reads no page of a partition without it.
 */
#define SCBF2_PENDING_MAYHAVE		0x0001

/*
 * Pages a fold superseded (an old band, a folded piece of a pending
 * chain) wait here until no probe can still read them: recycled once
 * safexid, the next transaction id when they were superseded, is older
 * than every snapshot (GlobalVisCheckRemovableFullXid), as btree recycles
 * deleted pages.
 */
#define SCBF2_GRAVES				48
#define SCBF2_GRAVE_BAND			1	/* blocks first .. first + n - 1 */
#define SCBF2_GRAVE_PENDING			2	/* the chain from first up to, not
										 * including, stop */

typedef struct Scbf2Grave
{
	FullTransactionId safexid;
	uint16		kind;			/* SCBF2_GRAVE_* */
	uint16		unused;
	BlockNumber first;
	uint32		n;				/* band: pages */
	BlockNumber stop;			/* pending: where the piece ends */
} Scbf2Grave;

/*
 * The next transaction id at the commit of each of the last SCBF2_MARKS
 * fold serials, in slot serial % SCBF2_MARKS.  A ledger run superseded by
 * serial G (its "gone") may still be read by a probe that copied the
 * metapage before G committed; once G's mark is older than every snapshot,
 * no probe can, and the run leaves its root and its leaves are freed.  A
 * serial older than every mark takes the oldest mark, which is later.
 */
#define SCBF2_MARKS					8

typedef struct Scbf2SerialMark
{
	uint64		serial;
	FullTransactionId nextxid;
} Scbf2SerialMark;

typedef struct Scbf2MetaPageData
{
	uint32		magic;			/* SCBF_MAGIC_NUMBER */
	uint32		version;		/* SCBF2_FORMAT_VERSION */

	/* layout, frozen at build */
	uint16		pages_per_segment;
	uint16		ncols;
	uint16		k;				/* slices */
	uint16		flags;
	uint32		m;				/* positions per slice */
	uint32		capacity;		/* distinct keys per filter at target_fpr */
	uint32		hash_seed;
	uint32		unused;
	float8		target_fpr;

	/* the band of row pages */
	BlockNumber band_start;
	uint32		band_pages;
	uint32		band_width;		/* filters (bits) per row, a multiple of 8 */
	uint32		band_rows_per_page;
	uint32		band_serial;

	/* the delta: keys whose row bits are not set yet (scbfdelta.c) */
	BlockNumber delta_start;	/* first of delta_pages contiguous pages */
	uint32		delta_pages;	/* 0: no delta */
	uint32		delta_serial;
	uint32		recycle_serial; /* bumped before VACUUM's census recycles
								 * (Scbf2BumpRecycleSerial) */

	/* the filter table */
	uint32		nfilters;		/* table entries in use (FREE included) */
	uint32		table_generation;	/* bumped by every table change */
	uint32		ntablepages;

	/* folds and the pending area */
	uint64		fold_serial;
	Scbf2PendingHead pending[SCBF2_NPENDING];

	/* statistics, refreshed by build and vacuum */
	uint64		nentries;		/* ledger entries */
	uint32		nsegments;		/* segments with a filter */
	uint32		nledger_pages;
	float8		mean_fpr;		/* mean over filters of the state rate */

	/* superseded pages, until they can be recycled */
	uint32		ngraves;
	uint32		unused2;
	Scbf2Grave	graves[SCBF2_GRAVES];

	/* when the last serials committed */
	Scbf2SerialMark marks[SCBF2_MARKS];

	BlockNumber tablepages[FLEXIBLE_ARRAY_MEMBER];
} Scbf2MetaPageData;

/*
 * Metapage flags, each a layout change made while format 2 was in
 * development: SCBF2_META_DELTA, the metapage has the delta's fields;
 * SCBF2_META_INLINE, ledger runs have a count of inline leaf bytes where
 * they had an unused field (whose bytes an older build left as they
 * were).  A metapage without all of SCBF2_META_LAYOUT has an older layout,
 * and the index must be rebuilt.
 */
#define SCBF2_META_DELTA			0x0001
#define SCBF2_META_INLINE			0x0002
#define SCBF2_META_LAYOUT			(SCBF2_META_DELTA | SCBF2_META_INLINE)

#define Scbf2PageGetMeta(page)	((Scbf2MetaPageData *) PageGetContents(page))

#define SCBF2_MAX_TABLE_PAGES \
	((SCBF2_PAGE_SPACE - MAXALIGN(offsetof(Scbf2MetaPageData, tablepages))) \
	 / sizeof(BlockNumber))

/* ----------------------------------------------------------------
 *	Filter table pages
 *
 * A dense array of entries of Scbf2EntrySize(ncols) bytes; entry c is
 * filter c, column c of the rows, on table page c / entries-per-page.
 * ----------------------------------------------------------------
 */
#define SCBF2_FILTER_FREE			0	/* unused column: a new filter may
										 * take it */
#define SCBF2_FILTER_ACTIVE			1	/* its segment's newest: takes folds */
#define SCBF2_FILTER_CLOSED			2	/* full; a newer one took over */

typedef struct Scbf2FilterEntry
{
	uint32		segno;
	uint16		state;			/* SCBF2_FILTER_* */
	uint16		position;		/* in its segment's chain, from 0 */
	uint32		nentries;		/* ledger entries (one per heap tuple) */
	uint32		nkeys;			/* distinct keys, summed over columns */
	uint64		gone;			/* serial that merged it into another
								 * filter of its segment; PG_UINT64_MAX
								 * while current.  Probes at an older serial
								 * still read it. */
	uint32		nset[SCBF_ROWS_MAX_K];	/* its set bits per slice */
	BlockNumber roots[FLEXIBLE_ARRAY_MEMBER];	/* ledger root per column */
} Scbf2FilterEntry;

#define Scbf2EntrySize(ncols) \
	(offsetof(Scbf2FilterEntry, roots) + sizeof(BlockNumber) * (ncols))
#define Scbf2EntriesPerPage(ncols)	(SCBF2_PAGE_SPACE / Scbf2EntrySize(ncols))

/* ----------------------------------------------------------------
 *	Row pages
 *
 * The whole page space is rows; pd_lower covers the rows in use, since
 * generic WAL zeroes the hole between pd_lower and pd_upper.
 * ----------------------------------------------------------------
 */
#define Scbf2PageGetRows(page)		((uint8 *) PageGetContents(page))

/* ----------------------------------------------------------------
 *	Ledger of one filter and column: a root page listing runs, each run a
 *	sequence of leaf pages of posting lists in hash order
 *	(scbfpostinglist.h).  The root holds each leaf's fence: the hash its
 *	first posting list has, which is also the base its deltas start from.
 *	A hash's posting list that does not fit a leaf goes on at the start of
 *	the next leaf, whose fence is then that same hash.
 *
 *	A run's last leaf may sit in the root itself ("inline"): its posting
 *	lists follow the run's fences, and its fence names InvalidBlockNumber.
 *	A writer inlines it only when the root keeps SCBF2_ROOT_RESERVE bytes
 *	free after it, room for the fences of the runs later folds and VACUUMs
 *	add.  A small filter's ledger is then its root alone, and a fold's
 *	small run costs no page of its own.
 * ----------------------------------------------------------------
 */
typedef struct Scbf2RootPageData
{
	uint16		nruns;
	uint16		unused;
	uint32		nbytes;			/* bytes of runs that follow */
} Scbf2RootPageData;

typedef struct Scbf2Fence
{
	uint32		hash;			/* first hash of the leaf */
	BlockNumber blkno;
} Scbf2Fence;

/* A run as it sits in the root, fences following */
typedef struct Scbf2RunData
{
	uint64		made;			/* fold serial that wrote it */
	uint64		gone;			/* fold serial that superseded it;
								 * PG_UINT64_MAX while current */
	uint32		nentries;		/* items in all its posting lists */
	uint16		nleaves;
	uint16		inlined;		/* bytes of the last leaf's posting lists,
								 * held after the fences; 0: every leaf is
								 * a page */
	Scbf2Fence	fences[FLEXIBLE_ARRAY_MEMBER];
} Scbf2RunData;

#define Scbf2RunSize(nleaves) \
	(offsetof(Scbf2RunData, fences) + sizeof(Scbf2Fence) * (nleaves))
/* the bytes of a run in its root, inline leaf included */
#define Scbf2RunBytes(run) \
	(Scbf2RunSize((run)->nleaves) + (run)->inlined)
#define Scbf2RunInline(run) \
	((uint8 *) &(run)->fences[(run)->nleaves])
/* what a root keeps free when it takes an inline leaf */
#define SCBF2_ROOT_RESERVE			1024
#define Scbf2PageGetRoot(page)	((Scbf2RootPageData *) PageGetContents(page))
#define Scbf2RootRuns(page) \
	((char *) PageGetContents(page) + MAXALIGN(sizeof(Scbf2RootPageData)))
#define SCBF2_ROOT_BYTES \
	(SCBF2_PAGE_SPACE - MAXALIGN(sizeof(Scbf2RootPageData)))

typedef struct Scbf2LeafPageData
{
	uint32		fence;			/* hash of the first posting list */
	uint16		nbytes;			/* bytes of posting lists that follow */
	uint16		nlists;
} Scbf2LeafPageData;

#define Scbf2PageGetLeaf(page)	((Scbf2LeafPageData *) PageGetContents(page))
#define Scbf2LeafBytes(page) \
	((uint8 *) PageGetContents(page) + MAXALIGN(sizeof(Scbf2LeafPageData)))
#define SCBF2_LEAF_BYTES \
	(SCBF2_PAGE_SPACE - MAXALIGN(sizeof(Scbf2LeafPageData)))

/* ----------------------------------------------------------------
 *	Pending pages
 *
 * One partition's chain, from the metapage's head to its tail.  Entries
 * (the heap TID, then a 4-byte hash per column, packed) are appended below
 * pd_lower, so generic WAL logs only the new bytes.  Each page of a
 * partition has a serial one above its predecessor's: a reader that meets
 * another serial than the one it expects has followed a link to a page
 * that was freed, and starts over (src/README, "Storage v2").
 * ----------------------------------------------------------------
 */
typedef struct Scbf2PendingPageData
{
	BlockNumber next;			/* next page; InvalidBlockNumber at the tail */
	uint16		nentries;
	uint16		unused;
} Scbf2PendingPageData;

#define Scbf2PageGetPending(page) \
	((Scbf2PendingPageData *) PageGetContents(page))
#define Scbf2PendingEntries(page) \
	((char *) PageGetContents(page) + MAXALIGN(sizeof(Scbf2PendingPageData)))
#define Scbf2PendingEntrySize(ncols) \
	(sizeof(ItemPointerData) + sizeof(uint32) * (ncols))
#define SCBF2_PENDING_BYTES \
	(SCBF2_PAGE_SPACE - MAXALIGN(sizeof(Scbf2PendingPageData)))

/* ----------------------------------------------------------------
 *	Delta pages
 *
 * Partition p of the delta is page delta_start + p; an entry names a key
 * (column, hash) of a filter whose row bits a fold left unset.  Entries
 * sit below pd_lower, appended as pending entries are; a merge sets their
 * bits in the band and then empties the page (scbfdelta.c).
 * ----------------------------------------------------------------
 */
typedef struct Scbf2DeltaPageData
{
	uint16		nentries;
	uint16		unused;
} Scbf2DeltaPageData;

typedef struct Scbf2DeltaEntry
{
	uint32		hash;
	uint32		tag;			/* filter << SCBF2_DELTA_COL_BITS | column */
} Scbf2DeltaEntry;

#define SCBF2_DELTA_COL_BITS		5	/* INDEX_MAX_KEYS columns at most */
#define Scbf2DeltaTag(filterno, col) \
	(((uint32) (filterno) << SCBF2_DELTA_COL_BITS) | (uint32) (col))
#define Scbf2DeltaTagFilter(tag)	((tag) >> SCBF2_DELTA_COL_BITS)
#define Scbf2DeltaTagColumn(tag) \
	((int) ((tag) & ((1 << SCBF2_DELTA_COL_BITS) - 1)))

#define Scbf2PageGetDelta(page) \
	((Scbf2DeltaPageData *) PageGetContents(page))
#define Scbf2DeltaEntries(page) \
	((Scbf2DeltaEntry *) ((char *) PageGetContents(page) + \
						  MAXALIGN(sizeof(Scbf2DeltaPageData))))
#define SCBF2_DELTA_PER_PAGE \
	((SCBF2_PAGE_SPACE - MAXALIGN(sizeof(Scbf2DeltaPageData))) / \
	 sizeof(Scbf2DeltaEntry))

#endif							/* SCBF_PAGE_H */
