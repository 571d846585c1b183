/*-------------------------------------------------------------------------
 *
 * scbf_page.h
 *	  Page layouts: the metapage, the filter table, the row band and its
 *	  map, the summaries of groups of bands and their maps, ledger roots
 *	  and leaves, pending pages and delta pages.
 *
 * NOTES
 *	  Included only by the page-kind modules (scbfutils.c, scbfdir.c,
 *	  scbfrows.c, scbfdelta.c, scbfledger.c, scbfpending.c); everything else goes
 *	  through their functions (scbf.h).  src/README, "On-disk format", says
 *	  why the pages look like this.
 *
 *	  Every page has a standard header and a 16-byte special space ending
 *	  in the 2-byte SCBF_PAGE_ID: what the page belongs to, by page kind
 *	  (ScbfPageIdent, scbf.h), its index column, and its type.  The
 *	  metapage's version tells the layout; an index of another version gets
 *	  the REINDEX error (ScbfGetState).
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

#include "scbf.h"

/* Page types besides SCBF_PAGE_META and SCBF_PAGE_FREE (scbf.h) */
#define SCBF_PAGE_TABLE				6
#define SCBF_PAGE_ROWS				7
#define SCBF_PAGE_ROOT				8
#define SCBF_PAGE_LEAF				9
#define SCBF_PAGE_PENDING			10
#define SCBF_PAGE_DELTA				11
#define SCBF_PAGE_BANDMAP			12
#define SCBF_PAGE_BANDDIR			13
#define SCBF_PAGE_SUMMARY			14
#define SCBF_PAGE_SUMMARYMAP		15

/*
 * Value hashes on pages.  Where a page holds a hash, it holds its low 32
 * bits where format 3 held the hash, and the bits above (0 in format 3)
 * where format 3 had room to spare, or in wider entries in an index of
 * wider hashes:
 *	- a leaf's fence, and a root's fences of its leaves: the top 32 bits
 *	  of the leaf's first hash (ScbfFenceOf), the bits a lookup compares;
 *	  the leaf's lists are decoded from ScbfFenceBase;
 *	- a signpost: prev_hash and prev_hash_hi;
 *	- a pending entry: ScbfStoreHash's 4 or 5 bytes a column;
 *	- a delta entry: hash, and hash_hi in the wider entries.
 *
 * ScbfStoredHashBytes: the bytes of a hash in a pending entry, 4 in an
 * index of 32-bit hashes, 5 in a wider one.
 */
#define ScbfStoredHashBytes(bits)	((bits) > 32 ? 5 : 4)

static inline void
ScbfStoreHash(char *dst, ScbfHash hash, int nbytes)
{
	uint32		low = (uint32) hash;

	Assert(hash <= SCBF_HASH_MAX && (nbytes == 5 || hash <= PG_UINT32_MAX));
	memcpy(dst, &low, sizeof(low));
	if (nbytes > 4)
		dst[4] = (char) (uint8) (hash >> 32);
}

static inline ScbfHash
ScbfLoadHash(const char *src, int nbytes)
{
	uint32		low;

	memcpy(&low, src, sizeof(low));
	return nbytes > 4 ? (ScbfHash) low | ((ScbfHash) (uint8) src[4] << 32) :
		(ScbfHash) low;
}

typedef struct ScbfPageOpaqueData
{
	ScbfPageIdent ident;		/* what the page belongs to, by kind */
	uint16		column;			/* root, leaf: index column */
	uint8		type;			/* SCBF_PAGE_* */
	uint8		unused1;
	uint16		unused2;
	uint16		page_id;		/* SCBF_PAGE_ID, always last */
} ScbfPageOpaqueData;

typedef ScbfPageOpaqueData *ScbfPageOpaque;

#define ScbfPageGetOpaque(page) ((ScbfPageOpaque) PageGetSpecialPointer(page))

/* scbfutils.c */
extern bool ScbfPageHasOpaque(Page page);
extern ScbfPageOpaque ScbfInitPage(Page page, uint8 type, Size used);

/* Bytes of a page between the header and the special space */
#define SCBF_PAGE_SPACE \
	(BLCKSZ - MAXALIGN(SizeOfPageHeaderData) \
	 - MAXALIGN(sizeof(ScbfPageOpaqueData)))

/* ----------------------------------------------------------------
 *	Metapage (block 0)
 *
 * The layout (k, seed, target rate) is frozen at build.  Row r = slice *
 * m + position of a band lives on its page r / rows_per_page at bit (r %
 * rows_per_page) * width, and bit c of a row is filter first + c; the
 * band's map page lists the runs of blocks that hold its pages, in page
 * order.  The filter table's pages are listed at the end, as runs of
 * blocks.  fold_serial is the serial of the last fold that
 * committed: runs made by a later one are not visible yet (src/README,
 * "Crash safety and visibility").
 * ----------------------------------------------------------------
 */
typedef struct ScbfPendingHead
{
	BlockNumber head;			/* first page; InvalidBlockNumber = none */
	BlockNumber tail;			/* last page, which takes appends */
	uint32		head_serial;	/* page serial of the head page */
	uint16		cut;			/* entries of the head page already folded */
	uint16		flags;			/* SCBF_PENDING_* */
} ScbfPendingHead;

/*
 * Entries past the cut may exist.  Set by the append that finds its
 * partition empty, in the same record; cleared only by a fold's commit
 * that saw nothing past its cut while it held the cut page's lock.  A
 * probe reads no page of a partition without it.
 */
#define SCBF_PENDING_MAYHAVE		0x0001

/*
 * Pages a fold superseded (an old band, a folded piece of a pending
 * chain) wait here until no probe can still read them: recycled once
 * safexid, the next transaction id when they were superseded, is older
 * than every snapshot (GlobalVisCheckRemovableFullXid), as btree recycles
 * deleted pages.
 */
#define SCBF_GRAVES				48
#define SCBF_GRAVE_BAND			1	/* the band whose map is first, of n
										 * pages */
#define SCBF_GRAVE_PENDING			2	/* the chain from first up to, not
										 * including, stop */
#define SCBF_GRAVE_SUMMARY			3	/* a group's summary whose map is
										 * first, of n pages */

typedef struct ScbfGrave
{
	FullTransactionId safexid;
	uint16		kind;			/* SCBF_GRAVE_* */
	uint16		unused;
	BlockNumber first;
	uint32		n;				/* band: pages */
	BlockNumber stop;			/* pending: where the piece ends */
} ScbfGrave;

/*
 * The next transaction id at the commit of each of the last SCBF_MARKS
 * fold serials, in slot serial % SCBF_MARKS.  A ledger run superseded by
 * serial G (its "gone") may still be read by a probe that copied the
 * metapage before G committed; once G's mark is older than every snapshot,
 * no probe can, and the run leaves its root and its leaves are freed.  A
 * serial older than every mark takes the oldest mark, which is later.
 */
#define SCBF_MARKS					8

typedef struct ScbfSerialMark
{
	uint64		serial;
	FullTransactionId nextxid;
} ScbfSerialMark;

/*
 * The filter table's counts of set bits may not be those of the band: a
 * fold that chose a new geometry (ScbfBandRebuild) sets it before it
 * writes the new counts in place, and its commit clears it; a crash
 * between leaves it, and the next fold counts the band's bits anew.
 */
#define SCBF_META_RECOUNT			0x0001

/*
 * Every key the delta held has its bits in the rows: a merge that emptied
 * the delta sets it (VACUUM's, or a fold's at its commit), and a fold that
 * puts keys in the delta clears it at its commit.  A probe whose metapage
 * copy has it reads no delta page; without it (an index written before the
 * flag existed included) the probe reads the delta.
 */
#define SCBF_META_DELTA_EMPTY		0x0002

/*
 * A band as the metapage lists it: the rows of filters first .. first +
 * width - 1, rows_per_page rows of width bits a page, pages pages that its
 * map page lists, k slices of m positions, and the page serial its row
 * and map pages carry.
 */
typedef struct ScbfBandDesc
{
	BlockNumber map;
	uint32		pages;
	uint32		width;			/* filters (bits) per row, a multiple of 8 */
	uint32		rows_per_page;
	uint32		serial;
	uint32		m;
	uint32		capacity;		/* distinct keys per filter at target_fpr */
	uint32		first;
} ScbfBandDesc;

typedef struct ScbfMetaPageData
{
	uint32		magic;			/* SCBF_MAGIC_NUMBER */
	uint32		version;		/* SCBF_FORMAT_VERSION */

	/* layout, frozen at build */
	uint16		pages_per_segment;
	uint16		ncols;
	uint16		k;				/* slices */
	uint16		flags;			/* SCBF_META_* */
	uint32		m;				/* positions per slice of a new band */
	uint32		capacity;		/* distinct keys per filter of a new band */
	uint32		hash_seed;
	uint16		hash_bits;		/* 32 to 40; 0 (format 3): 32 */
	uint16		unused;
	float8		target_fpr;

	/*
	 * the bands of row pages, in filter order: the last, which takes new
	 * filters, here; the others, full and never written again, in the band
	 * directory's pages
	 */
	uint32		nbands;
	uint32		extended_cols;	/* bit c: column c's hashes come from the
								 * extended hash (ScbfHashDatum) */
	ScbfBandDesc last;
	ScbfPageRuns dir;

	/* the delta: keys whose row bits are not set yet (scbfdelta.c) */
	BlockNumber delta_start;	/* first of delta_pages contiguous pages */
	uint32		delta_pages;	/* 0: no delta */
	uint32		delta_serial;
	uint32		recycle_serial; /* bumped before VACUUM's census recycles
								 * (ScbfBumpRecycleSerial) */

	/* the filter table */
	uint32		nfilters;		/* table entries in use (FREE included) */
	uint32		table_generation;	/* bumped by every table change */
	uint32		unused4;

	/* folds and the pending area */
	uint64		fold_serial;
	ScbfPendingHead pending[SCBF_NPENDING];

	/* statistics, refreshed by build and vacuum */
	uint64		nentries;		/* ledger entries */
	uint32		nsegments;		/* segments with a filter */
	uint32		nledger_pages;
	float8		mean_fpr;		/* mean over filters of the state rate */

	/* superseded pages, until they can be recycled */
	uint32		ngraves;
	uint32		unused2;
	ScbfGrave	graves[SCBF_GRAVES];

	/* when the last serials committed */
	ScbfSerialMark marks[SCBF_MARKS];

	/* the filter table's pages */
	ScbfPageRuns table;

	/*
	 * the groups of bands that share a summary (scbfsummary.c), in band
	 * order; the bands past the last group's have none
	 */
	uint32		ngroups;
	uint32		unused5;
	ScbfBandDesc groups[SCBF_MAX_GROUPS];
	uint64		group_removed[SCBF_MAX_GROUPS]; /* keys VACUUM took out of
												 * each group's bands since
												 * its summary was written */

	/*
	 * formats 5 and 6: the top, a summary over the groups (scbfsummary.c);
	 * its m is 0 (its rows, capacity x SCBF_SUMMARY_BLOCK_BITS, may pass
	 * 2^32), width 0 if there is none.  Groups 0 .. top_covered - 1 have
	 * complete columns.  Formats 3 and 4 end before these fields: a
	 * commit that writes them raises pd_lower over them.
	 */
	ScbfBandDesc top;
	uint32		top_covered;
	uint32		unused6;
	uint64		top_removed;	/* keys VACUUM took out of the covered
								 * groups since the top was written */
} ScbfMetaPageData;

#define ScbfPageGetMeta(page)	((ScbfMetaPageData *) PageGetContents(page))

StaticAssertDecl(sizeof(ScbfMetaPageData) <= SCBF_PAGE_SPACE,
				 "the metapage's contents must fit a page");

/* ----------------------------------------------------------------
 *	Filter table pages
 *
 * A dense array of entries of ScbfFilterEntrySize(ncols) bytes; entry c is
 * filter c, column c of the rows, on table page c / entries-per-page.
 * ----------------------------------------------------------------
 */
#define SCBF_FILTER_FREE			0	/* unused column: a new filter may
										 * take it */
#define SCBF_FILTER_ACTIVE			1	/* its segment's newest: takes folds */
#define SCBF_FILTER_CLOSED			2	/* full; a newer one took over */

typedef struct ScbfFilterEntry
{
	uint32		segno;
	uint16		state;			/* SCBF_FILTER_* */
	uint16		chain_pos;		/* in its segment\'s chain, from 0 */
	uint32		nentries;		/* ledger entries (one per heap tuple) */
	uint32		nkeys;			/* distinct keys, summed over columns */
	uint64		gone;			/* serial that merged it into another
								 * filter of its segment; PG_UINT64_MAX
								 * while current.  Probes at an older serial
								 * still read it. */
	uint32		nset[SCBF_ROWS_MAX_K];	/* its set bits per slice */
	BlockNumber roots[FLEXIBLE_ARRAY_MEMBER];	/* ledger root per column */
} ScbfFilterEntry;

#define ScbfFilterEntrySize(ncols) \
	(offsetof(ScbfFilterEntry, roots) + sizeof(BlockNumber) * (ncols))
#define ScbfFilterEntriesPerPage(ncols)	(SCBF_PAGE_SPACE / ScbfFilterEntrySize(ncols))

/* ----------------------------------------------------------------
 *	Row pages, and summary pages
 *
 * The whole page space is rows; pd_lower covers the rows in use, since
 * generic WAL zeroes the hole between pd_lower and pd_upper.  A summary
 * page (SCBF_PAGE_SUMMARY) holds rows of a group's summary, a bit per band
 * of the group, a multiple of SCBF_SUMMARY_BLOCK_BITS rows a page so that
 * a key's rows share a page; its map is an SCBF_PAGE_SUMMARYMAP page laid
 * out as a band map.
 * ----------------------------------------------------------------
 */
#define ScbfPageGetRows(page)		((uint8 *) PageGetContents(page))

/* ----------------------------------------------------------------
 *	Band directory pages
 *
 * The descriptors of the full bands, band b at entry b % per page of page
 * b / per page.  Append-only: an entry past the metapage's count of bands
 * is written in place before the commit that counts it, and a counted one
 * never changes (a full band is never written again).
 * ----------------------------------------------------------------
 */
#define SCBF_BANDDIR_PER_PAGE	(SCBF_PAGE_SPACE / sizeof(ScbfBandDesc))
#define ScbfPageGetBandDir(page) ((ScbfBandDesc *) PageGetContents(page))

/* ----------------------------------------------------------------
 *	Band map page
 *
 * The runs of blocks that hold a band's pages, in page order: page p of
 * the band is the p-th block counted along the runs.  A band is written
 * once (by a build or a relayout) into pages taken from the free space map
 * first, then at the relation's end, and its map with it; the map and its
 * pages are freed together when the band's grave is recycled.
 * ----------------------------------------------------------------
 */
typedef struct ScbfBandMapPageData
{
	uint32		npages;			/* pages of the band */
	uint32		nruns;
	ScbfBandRun runs[FLEXIBLE_ARRAY_MEMBER];
} ScbfBandMapPageData;

#define ScbfPageGetBandMap(page) \
	((ScbfBandMapPageData *) PageGetContents(page))

StaticAssertDecl(offsetof(ScbfBandMapPageData, runs) +
				 sizeof(ScbfBandRun) * SCBF_BAND_MAX_RUNS <= SCBF_PAGE_SPACE,
				 "a band map must fit a page");

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
 *	A writer inlines it only when the root keeps SCBF_ROOT_RESERVE bytes
 *	free after it, room for the fences of the runs later folds and VACUUMs
 *	add.  A small filter's ledger is then its root alone, and a fold's
 *	small run costs no page of its own.
 * ----------------------------------------------------------------
 */
typedef struct ScbfRootPageData
{
	uint16		nruns;
	uint16		hash_bits;		/* of its column's hashes; 0 (format 3): 32 */
	uint32		nbytes;			/* bytes of runs that follow */
} ScbfRootPageData;

typedef struct ScbfFence
{
	uint32		hash;			/* the leaf's fence (ScbfFenceOf) */
	BlockNumber blkno;
} ScbfFence;

/* A run as it sits in the root, fences following */
typedef struct ScbfRunData
{
	uint64		made;			/* fold serial that wrote it */
	uint64		gone;			/* fold serial that superseded it;
								 * PG_UINT64_MAX while current */
	uint32		nentries;		/* items in all its posting lists */
	uint16		nleaves;
	uint16		inlined;		/* bytes of the last leaf's posting lists,
								 * held after the fences; 0: every leaf is
								 * a page */
	ScbfFence	fences[FLEXIBLE_ARRAY_MEMBER];
} ScbfRunData;

#define ScbfRunSize(nleaves) \
	(offsetof(ScbfRunData, fences) + sizeof(ScbfFence) * (nleaves))
/* the bytes of a run in its root, inline leaf included */
#define ScbfRunBytes(run) \
	(ScbfRunSize((run)->nleaves) + (run)->inlined)
#define ScbfRunInline(run) \
	((uint8 *) &(run)->fences[(run)->nleaves])
/* what a root keeps free when it takes an inline leaf */
#define SCBF_ROOT_RESERVE			1024
#define ScbfPageGetRoot(page)	((ScbfRootPageData *) PageGetContents(page))
#define ScbfRootRuns(page) \
	((char *) PageGetContents(page) + MAXALIGN(sizeof(ScbfRootPageData)))
#define SCBF_ROOT_BYTES \
	(SCBF_PAGE_SPACE - MAXALIGN(sizeof(ScbfRootPageData)))

typedef struct ScbfLeafPageData
{
	uint32		fence;			/* of the first posting list's hash
								 * (ScbfFenceOf) */
	uint16		nbytes;			/* bytes of posting lists that follow */
	uint16		nlists;
} ScbfLeafPageData;

#define ScbfPageGetLeaf(page)	((ScbfLeafPageData *) PageGetContents(page))
#define ScbfLeafBytes(page) \
	((uint8 *) PageGetContents(page) + MAXALIGN(sizeof(ScbfLeafPageData)))
#define SCBF_LEAF_BYTES \
	(SCBF_PAGE_SPACE - MAXALIGN(sizeof(ScbfLeafPageData)))

/*
 * Signposts.  A leaf of many posting lists ends, between pd_upper and the
 * special space, with up to SCBF_LEAF_SIGNPOSTS signposts in byte order:
 * each the offset of a posting list in the leaf's bytes and the hash of
 * the list before it, so that a lookup decodes from the last signpost
 * below its hash instead of from the fence (a unique text column's leaf
 * holds about 1,600 lists).  A leaf written without them (pd_upper at the
 * special space, as every leaf before them) is read from its fence.  A
 * writer keeps their room free of lists: new leaves hold
 * SCBF_LEAF_LIST_BYTES of lists, old ones up to SCBF_LEAF_BYTES.
 */
typedef struct ScbfSignpost
{
	uint32		prev_hash;		/* hash of the posting list before offset */
	uint16		offset;			/* where a posting list starts */
	uint16		prev_hash_hi;	/* its bits above 32 */
} ScbfSignpost;

#define ScbfSignpostHash(sp) \
	((ScbfHash) (sp)->prev_hash | ((ScbfHash) (sp)->prev_hash_hi << 32))

/* fewest posting lists between two signposts */
#define SCBF_SIGNPOST_LISTS			16
#define SCBF_LEAF_LIST_BYTES \
	(SCBF_LEAF_BYTES - SCBF_LEAF_SIGNPOSTS * sizeof(ScbfSignpost))
#define ScbfLeafSignposts(page) \
	((ScbfSignpost *) ((char *) (page) + ((PageHeader) (page))->pd_upper))
/* signposts a leaf says it has: -1 if pd_upper cannot be right */
#define ScbfLeafNSignposts(page) \
	((((PageHeader) (page))->pd_special - ((PageHeader) (page))->pd_upper) % \
	 sizeof(ScbfSignpost) != 0 || \
	 ((PageHeader) (page))->pd_upper > ((PageHeader) (page))->pd_special || \
	 ((PageHeader) (page))->pd_upper < ((PageHeader) (page))->pd_lower ? -1 : \
	 (int) ((((PageHeader) (page))->pd_special - \
			 ((PageHeader) (page))->pd_upper) / sizeof(ScbfSignpost)))

/* ----------------------------------------------------------------
 *	Pending pages
 *
 * One partition's chain, from the metapage's head to its tail.  Entries
 * (the heap TID, then a hash per column, ScbfStoreHash's 4 or 5 bytes,
 * packed) are appended below
 * pd_lower, so generic WAL logs only the new bytes.  Each page of a
 * partition has a serial one above its predecessor's: a reader that meets
 * another serial than the one it expects has followed a link to a page
 * that was freed, and starts over (src/README, "Crash safety and
 * visibility").
 * ----------------------------------------------------------------
 */
typedef struct ScbfPendingPageData
{
	BlockNumber next;			/* next page; InvalidBlockNumber at the tail */
	uint16		nentries;
	uint16		unused;
} ScbfPendingPageData;

#define ScbfPageGetPending(page) \
	((ScbfPendingPageData *) PageGetContents(page))
#define ScbfPendingEntries(page) \
	((char *) PageGetContents(page) + MAXALIGN(sizeof(ScbfPendingPageData)))
#define ScbfPendingEntrySize(ncols, hashbytes) \
	(sizeof(ItemPointerData) + (Size) (hashbytes) * (ncols))
#define SCBF_PENDING_BYTES \
	(SCBF_PAGE_SPACE - MAXALIGN(sizeof(ScbfPendingPageData)))

/* ----------------------------------------------------------------
 *	Delta pages
 *
 * Partition p of the delta is page delta_start + p; an entry names a key
 * (column, hash) of a filter whose row bits a fold left unset.  Entries
 * sit below pd_lower, appended as pending entries are; a merge sets their
 * bits in the band and then empties the page (scbfdelta.c).
 * ----------------------------------------------------------------
 */
typedef struct ScbfDeltaPageData
{
	uint16		nentries;
	uint16		unused;
} ScbfDeltaPageData;

/*
 * A delta entry; an index of 32-bit hashes has no hash_hi: its entries
 * are ScbfDeltaEntrySize(32) bytes
 */
typedef struct ScbfDeltaEntry
{
	uint32		hash;			/* low 32 bits */
	uint32		tag;			/* filter << SCBF_DELTA_COL_BITS | column */
	uint32		hash_hi;		/* the bits above, in wider hashes */
} ScbfDeltaEntry;

#define ScbfDeltaEntrySize(bits) \
	((bits) > 32 ? sizeof(ScbfDeltaEntry) : offsetof(ScbfDeltaEntry, hash_hi))

#define SCBF_DELTA_COL_BITS		5	/* INDEX_MAX_KEYS columns at most */
#define ScbfDeltaTag(filterno, col) \
	(((uint32) (filterno) << SCBF_DELTA_COL_BITS) | (uint32) (col))
#define ScbfDeltaTagFilter(tag)	((tag) >> SCBF_DELTA_COL_BITS)
#define ScbfDeltaTagColumn(tag) \
	((int) ((tag) & ((1 << SCBF_DELTA_COL_BITS) - 1)))

#define ScbfPageGetDelta(page) \
	((ScbfDeltaPageData *) PageGetContents(page))
#define ScbfDeltaEntries(page) \
	((char *) PageGetContents(page) + MAXALIGN(sizeof(ScbfDeltaPageData)))
#define ScbfDeltaPerPage(bits) \
	((int) ((SCBF_PAGE_SPACE - MAXALIGN(sizeof(ScbfDeltaPageData))) / \
			ScbfDeltaEntrySize(bits)))

/* Entry e of a delta page of an index of bits-bit hashes */
static inline void
ScbfDeltaEntryGet(Page page, int e, int bits, ScbfHash *hash, uint32 *tag)
{
	ScbfDeltaEntry entry;

	entry.hash_hi = 0;
	memcpy(&entry, ScbfDeltaEntries(page) + ScbfDeltaEntrySize(bits) * e,
		   ScbfDeltaEntrySize(bits));
	*hash = (ScbfHash) entry.hash | ((ScbfHash) entry.hash_hi << 32);
	*tag = entry.tag;
}

static inline void
ScbfDeltaEntrySet(Page page, int e, int bits, ScbfHash hash, uint32 tag)
{
	ScbfDeltaEntry entry;

	Assert(hash <= SCBF_HASH_MAX && (bits > 32 || hash <= PG_UINT32_MAX));
	entry.hash = (uint32) hash;
	entry.tag = tag;
	entry.hash_hi = (uint32) (hash >> 32);
	memcpy(ScbfDeltaEntries(page) + ScbfDeltaEntrySize(bits) * e, &entry,
		   ScbfDeltaEntrySize(bits));
}

#endif							/* SCBF_PAGE_H */
