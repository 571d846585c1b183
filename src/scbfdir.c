/*-------------------------------------------------------------------------
 *
 * scbfdir.c
 *	  The filter table, the index's only directory, and the block census.
 *
 * NOTES
 *	  Entry c of the table describes filter c, which is column c of the
 *	  row band: its segment, state, place in the segment's chain, entry and
 *	  key counts, set bits per slice, and the ledger root of each index
 *	  column (src/README, "On-disk format").  The table is a dense array
 *	  over the pages the metapage lists, so entry c is found by arithmetic.
 *
 *	  The block census (ScbfCensus) walks from the metapage through the
 *	  table to every block a structure names, with the walks of the
 *	  page-kind modules that own them; VACUUM frees the pages it does not
 *	  meet, scbf_pages says what names each block, the verifier checks
 *	  that every block is named once.
 *
 * Portions Copyright (c) 2026, scbf developers
 *
 * IDENTIFICATION
 *	  src/scbfdir.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/generic_xlog.h"
#include "miscadmin.h"
#include "utils/rel.h"

#include "scbf.h"
#include "scbf_page.h"

/*
 * ScbfReadFilter
 *		A palloc'd copy of filter filterno's table entry.
 */
ScbfFilter *
ScbfReadFilter(Relation index, ScbfState *state, const ScbfMeta *meta,
				uint32 filterno, BlockNumber nblocks)
{
	Size		esize = ScbfFilterEntrySize(state->ncols);
	uint32		perpage = ScbfFilterEntriesPerPage(state->ncols);
	uint32		tpage = filterno / perpage;
	ScbfFilterEntry *entry = palloc(esize);
	BlockNumber blkno;
	Buffer		buf;
	Page		page;

	if (filterno >= meta->nfilters || tpage >= meta->table.npages)
		elog(ERROR, "filter %u is beyond the filter table of index \"%s\"",
			 filterno, RelationGetRelationName(index));
	blkno = ScbfRunsBlock(&meta->table, tpage);
	buf = ScbfReadPage(index, blkno, BUFFER_LOCK_SHARE, SCBF_PAGE_TABLE,
						nblocks);
	page = BufferGetPage(buf);
	if (ScbfPageGetOpaque(page)->ident.table.pageno != tpage)
		ScbfReportCorrupt(index, blkno,
						  "A filter table page is not the one the metapage lists there.");
	memcpy(entry, (char *) PageGetContents(page) + esize * (filterno % perpage),
		   esize);
	UnlockReleaseBuffer(buf);

	if (entry->state > SCBF_FILTER_CLOSED ||
		(entry->state != SCBF_FILTER_FREE && entry->nentries > 0 &&
		 entry->roots[0] == InvalidBlockNumber))
		ScbfReportCorrupt(index, blkno,
						  psprintf("Filter %u has an impossible table entry.",
								   filterno));
	return entry;
}

/*
 * True unless the entry is a free column.
 */
bool
ScbfFilterInUse(const ScbfFilter *f)
{
	return f->state != SCBF_FILTER_FREE;
}

/*
 * The heap segment a filter covers.
 */
uint32
ScbfFilterSegment(const ScbfFilter *f)
{
	return f->segno;
}

/*
 * The ledger root of index column col; InvalidBlockNumber if none.
 */
BlockNumber
ScbfFilterRoot(const ScbfFilter *f, int col)
{
	return f->roots[col];
}

/*
 * A filter's place in its segment's chain, from 0.
 */
uint16
ScbfFilterChainPos(const ScbfFilter *f)
{
	return f->chain_pos;
}

/*
 * Set the distinct keys a filter holds, summed over the columns.
 */
void
ScbfFilterSetKeys(ScbfFilter *f, uint32 nkeys)
{
	f->nkeys = nkeys;
}

/*
 * The distinct keys a filter holds, summed over the columns.
 */
uint32
ScbfFilterKeys(const ScbfFilter *f)
{
	return f->nkeys;
}

/*
 * Its set bits per slice, into nset[SCBF_ROWS_MAX_K].
 */
void
ScbfFilterGetBits(const ScbfFilter *f, uint32 *nset)
{
	memcpy(nset, f->nset, sizeof(f->nset));
}

/*
 * ScbfNewFilter
 *		A palloc'd ACTIVE table entry for a new filter, without roots yet.
 */
ScbfFilter *
ScbfNewFilter(int ncols, uint32 segno, uint16 chain_pos, uint32 nentries,
			   uint32 nkeys)
{
	ScbfFilterEntry *f = palloc0(ScbfFilterEntrySize(ncols));
	int			col;

	f->segno = segno;
	f->state = SCBF_FILTER_ACTIVE;
	f->gone = PG_UINT64_MAX;
	f->chain_pos = chain_pos;
	f->nentries = nentries;
	f->nkeys = nkeys;
	for (col = 0; col < ncols; col++)
		f->roots[col] = InvalidBlockNumber;
	return f;
}

/*
 * Set the ledger root of column col.
 */
void
ScbfFilterSetRoot(ScbfFilter *f, int col, BlockNumber root)
{
	f->roots[col] = root;
}

/*
 * Set the set bits per slice, nset[0 .. k).
 */
void
ScbfFilterSetBits(ScbfFilter *f, uint32 k, const uint32 *nset)
{
	memset(f->nset, 0, sizeof(f->nset));
	memcpy(f->nset, nset, sizeof(uint32) * Min(k, SCBF_ROWS_MAX_K));
}

/*
 * The false-positive rate of a filter in its state: the product over its
 * slices of their fill (exact for the state, as the slices are
 * independent).
 */
double
ScbfFilterFpr(const ScbfFilter *f, uint32 k, uint32 m)
{
	double		fpr = 1.0;
	uint32		i;

	for (i = 0; i < k && i < SCBF_ROWS_MAX_K; i++)
		fpr *= (double) f->nset[i] / (double) m;
	return fpr;
}

/* What the pages of a new table hold: filters[0 .. nfilters) */
typedef struct ScbfTableFill
{
	Relation	index;
	Size		esize;
	uint32		perpage;
	ScbfFilter **filters;
	uint32		nfilters;
} ScbfTableFill;

/*
 * Initialize page pageno of the table, with those of the filters that
 * fall on it.
 */
static void
InitTablePage(Page page, const ScbfTableFill *tf, uint32 pageno)
{
	uint32		c;

	ScbfInitPage(page, SCBF_PAGE_TABLE,
				 tf->esize * tf->perpage)->ident.table.pageno = pageno;
	for (c = pageno * tf->perpage;
		 c < tf->nfilters && c < (pageno + 1) * tf->perpage; c++)
		memcpy((char *) PageGetContents(page) +
			   tf->esize * (c - pageno * tf->perpage),
			   tf->filters[c], tf->esize);
}

/*
 * ScbfExtend callback of a build: page pageno of the table, unlogged.
 */
static void
BuildTablePage(Buffer buf, uint32 pageno, void *arg)
{
	InitTablePage(BufferGetPage(buf), (const ScbfTableFill *) arg, pageno);
	MarkBufferDirty(buf);
}

/*
 * ScbfRunsGrow callback of a table that grows: page pageno of the table,
 * empty, WAL-logged as a full image.
 */
static void
GrowTablePage(Buffer buf, uint32 pageno, void *arg)
{
	const ScbfTableFill *tf = (const ScbfTableFill *) arg;
	GenericXLogState *xlog = GenericXLogStart(tf->index);
	Page		page = GenericXLogRegisterBuffer(xlog, buf,
												 GENERIC_XLOG_FULL_IMAGE);

	InitTablePage(page, tf, pageno);
	GenericXLogFinish(xlog);
}

/*
 * Add pages to a table, up to npages at least (ScbfRunsGrow).  The pages
 * are empty until ScbfUpdateTable fills them, and invisible until the
 * commit lists them (a crash leaves them to VACUUM's census).
 */
static void
TableGrow(Relation index, ScbfState *state, ScbfPageRuns *table,
		  uint32 npages)
{
	ScbfTableFill tf;

	tf.index = index;
	tf.esize = ScbfFilterEntrySize(state->ncols);
	tf.perpage = ScbfFilterEntriesPerPage(state->ncols);
	tf.filters = NULL;
	tf.nfilters = 0;
	ScbfRunsGrow(index, table, npages, GrowTablePage, &tf);
}

/*
 * ScbfWriteTable
 *		Write the table of a new index, filters[0 .. nfilters), into new
 *		pages at the end of the relation (one run), and list them in
 *		layout.
 *
 * For ambuild: unlogged, the build WAL-logs the whole index at its end.
 */
void
ScbfWriteTable(Relation index, int ncols, ScbfFilter **filters,
				uint32 nfilters, ScbfLayout *layout)
{
	ScbfTableFill tf;
	uint32		npages;

	tf.index = index;
	tf.esize = ScbfFilterEntrySize(ncols);
	tf.perpage = ScbfFilterEntriesPerPage(ncols);
	tf.filters = filters;
	tf.nfilters = nfilters;
	npages = (nfilters + tf.perpage - 1) / tf.perpage;
	memset(&layout->table, 0, sizeof(ScbfPageRuns));
	if (npages > 0)
	{
		layout->table.runs[0].start = ScbfExtend(index, npages,
												 BuildTablePage, &tf);
		layout->table.runs[0].npages = npages;
		layout->table.nruns = 1;
		layout->table.npages = npages;
	}
}

/*
 * ScbfReadTable
 *		Copies of every entry of the filter table of a metapage copy: an
 *		array of ScbfMetaFilters(meta) entries, each palloc'd.
 */
ScbfFilter **
ScbfReadTable(Relation index, ScbfState *state, const ScbfMeta *meta,
			   BlockNumber nblocks)
{
	Size		esize = ScbfFilterEntrySize(state->ncols);
	uint32		perpage = ScbfFilterEntriesPerPage(state->ncols);
	ScbfFilter **filters = palloc(sizeof(ScbfFilter *) *
								   Max(meta->nfilters, 1));
	uint32		p;
	uint32		c = 0;

	for (p = 0; p * perpage < meta->nfilters; p++)
	{
		BlockNumber blkno;
		Buffer		buf;
		Page		page;

		CHECK_FOR_INTERRUPTS();
		blkno = ScbfRunsBlock(&meta->table, p);
		if (p >= meta->table.npages)
			ScbfReportCorrupt(index, SCBF_METAPAGE_BLKNO,
							  "The filter table has more filters than pages.");
		buf = ScbfReadPage(index, blkno, BUFFER_LOCK_SHARE,
							SCBF_PAGE_TABLE, nblocks);
		page = BufferGetPage(buf);
		if (ScbfPageGetOpaque(page)->ident.table.pageno != p)
		{
			UnlockReleaseBuffer(buf);
			ScbfReportCorrupt(index, blkno,
							  "A filter table page is not the one the metapage lists there.");
		}
		for (; c < meta->nfilters && c < (p + 1) * perpage; c++)
		{
			filters[c] = palloc(esize);
			memcpy(filters[c],
				   (char *) PageGetContents(page) + esize * (c - p * perpage),
				   esize);
		}
		UnlockReleaseBuffer(buf);
	}
	return filters;
}

/*
 * ScbfUpdateTable
 *		Write the entries a fold changed, WAL-logged: filters[c] for every
 *		c < nold with changed[c], and all of filters[nold .. nnew), the
 *		table grown as needed (TableGrow).  *table receives the table's
 *		pages, for the fold's metapage record: the new entries and pages
 *		are invisible until it commits.
 */
void
ScbfUpdateTable(Relation index, ScbfState *state, const ScbfMeta *meta,
				 ScbfFilter **filters, const bool *changed, uint32 nold,
				 uint32 nnew, ScbfPageRuns *table, BlockNumber nblocks)
{
	Size		esize = ScbfFilterEntrySize(state->ncols);
	uint32		perpage = ScbfFilterEntriesPerPage(state->ncols);
	uint32		npages = (nnew + perpage - 1) / perpage;
	uint32		p;

	*table = meta->table;
	if (npages > table->npages)
		TableGrow(index, state, table, npages);
	for (p = 0; p < npages; p++)
	{
		uint32		first = p * perpage;
		uint32		last = Min(nnew, first + perpage);
		bool		any = false;
		Buffer		buf;
		GenericXLogState *xlog;
		Page		page;
		uint32		c;

		for (c = first; c < last && !any; c++)
			any = c >= nold || changed[c];
		if (!any)
			continue;
		buf = ScbfReadPage(index, ScbfRunsBlock(table, p),
							BUFFER_LOCK_EXCLUSIVE, SCBF_PAGE_TABLE,
							RelationGetNumberOfBlocks(index));
		xlog = GenericXLogStart(index);
		page = GenericXLogRegisterBuffer(xlog, buf, 0);
		if (ScbfPageGetOpaque(page)->ident.table.pageno != p)
			ScbfReportCorrupt(index, BufferGetBlockNumber(buf),
							  "A filter table page is not the one the metapage lists there.");
		for (c = first; c < last; c++)
			if (c >= nold || changed[c])
				memcpy((char *) PageGetContents(page) + esize * (c - first),
					   filters[c], esize);
		GenericXLogFinish(xlog);
		UnlockReleaseBuffer(buf);
	}
}

/*
 * A filter's entries (one per heap tuple).
 */
uint32
ScbfFilterEntries(const ScbfFilter *f)
{
	return f->nentries;
}

/*
 * True if the filter takes its segment's new entries.
 */
bool
ScbfFilterIsActive(const ScbfFilter *f)
{
	return f->state == SCBF_FILTER_ACTIVE;
}

/*
 * A newer filter takes over its segment's entries.
 */
void
ScbfFilterClose(ScbfFilter *f)
{
	f->state = SCBF_FILTER_CLOSED;
}

/*
 * Set its entries, as VACUUM recounted them.
 */
void
ScbfFilterSetEntries(ScbfFilter *f, uint32 n)
{
	f->nentries = n;
}

/*
 * True if a probe at serial `serial` reads the filter: in use, and not
 * merged into another filter by a serial it sees.
 */
bool
ScbfFilterVisible(const ScbfFilter *f, uint64 serial)
{
	return f->state != SCBF_FILTER_FREE && serial < f->gone;
}

/*
 * The serial that merged the filter into another (PG_UINT64_MAX: none).
 */
uint64
ScbfFilterGone(const ScbfFilter *f)
{
	return f->gone;
}

/*
 * Mark the filter merged into another by serial `gone`.
 */
void
ScbfFilterSetGone(ScbfFilter *f, uint64 gone)
{
	f->gone = gone;
}

/*
 * Undo a merge that a fold or VACUUM of serial `serial` or later marked and
 * never committed (it crashed): true if the entry changed.  Every fold and
 * VACUUM calls this on the whole table before it commits `serial`, so a
 * crashed merge never hides a filter whose entries its target lacks.
 */
bool
ScbfFilterUndoGone(ScbfFilter *f, uint64 serial)
{
	if (f->state == SCBF_FILTER_FREE || f->gone == PG_UINT64_MAX ||
		f->gone < serial)
		return false;
	f->gone = PG_UINT64_MAX;
	return true;
}

/*
 * Make the filter its segment's ACTIVE one.
 */
void
ScbfFilterActivate(ScbfFilter *f)
{
	f->state = SCBF_FILTER_ACTIVE;
}

/*
 * Free the filter's column: no probe reads it any more.  Its roots and
 * leaves are left to the page census, its bits to the caller.
 */
void
ScbfFilterRelease(ScbfFilter *f, int ncols)
{
	int			col;

	f->state = SCBF_FILTER_FREE;
	f->gone = PG_UINT64_MAX;
	f->nentries = 0;
	f->nkeys = 0;
	memset(f->nset, 0, sizeof(f->nset));
	for (col = 0; col < ncols; col++)
		f->roots[col] = InvalidBlockNumber;
}

/*
 * Count n more entries.
 */
void
ScbfFilterAddEntries(ScbfFilter *f, uint32 n)
{
	f->nentries += n;
}

/*
 * One more set bit in slice `slice`.
 */
void
ScbfFilterAddBit(ScbfFilter *f, uint32 slice)
{
	if (slice < SCBF_ROWS_MAX_K)
		f->nset[slice]++;
}

/*
 * ScbfCensus
 *		The block census: hand fn every block that a structure of the
 *		metapage copy meta names, with what names it: the filter table's
 *		pages, the band and the delta, the superseded bands and pieces of
 *		pending chains in the graveyard (ScbfMetaBlocks, ScbfPendingBlocks),
 *		the ledger root of every column of every filter in use and every
 *		leaf its runs list (ScbfLedgerBlocks), and the pending chains.  The
 *		table's pages go to fn before the table is read.  A block may go to
 *		fn more than once (corruption, or a structure changed under a
 *		caller that does not hold the fold lock); fn judges each (VACUUM's
 *		census, the diagnostics' scbf_pages, the verifier).
 *
 * Every walk ends at the end of the index, guards against loops and checks
 * for interrupts; nblocks is the size of the index as the caller measured
 * it.  Reports ERRCODE_INDEX_CORRUPTED for a root or pending page that
 * cannot be read (see the walks).
 */
void
ScbfCensus(Relation index, ScbfState *state, const ScbfMeta *meta,
		   ScbfCensusFn fn, void *arg, BlockNumber nblocks)
{
	ScbfMetaInfoData mi;
	ScbfFilter **table;
	ScbfBlockRef ref;
	uint32		i;
	int			col;
	int			part;

	ScbfMetaInfo(meta, &mi);
	ScbfMetaBlocks(index, meta, fn, arg, nblocks);
	for (i = 0; i < mi.ngraves && i < mi.max_graves; i++)
	{
		if (mi.graves[i].kind != SCBF_GRAVE_PENDING)
			continue;
		ScbfBlockRefInit(&ref, SCBF_KIND_PENDING);
		ref.grave = i;
		ScbfPendingBlocks(index, mi.graves[i].first, mi.graves[i].stop, &ref,
						  fn, arg, nblocks);
	}

	table = ScbfReadTable(index, state, meta, nblocks);
	for (i = 0; i < mi.nfilters; i++)
	{
		if (!ScbfFilterInUse(table[i]))
			continue;
		for (col = 0; col < state->ncols; col++)
		{
			BlockNumber root = ScbfFilterRoot(table[i], col);

			if (root == InvalidBlockNumber)
				continue;
			ScbfBlockRefInit(&ref, SCBF_KIND_ROOT);
			ref.filterno = i;
			ref.segno = ScbfFilterSegment(table[i]);
			ref.column = col;
			ScbfLedgerBlocks(index, root, &ref, fn, arg, nblocks);
		}
	}

	for (part = 0; part < SCBF_NPENDING; part++)
	{
		ScbfBlockRefInit(&ref, SCBF_KIND_PENDING);
		ref.partition = part;
		ScbfPendingBlocks(index, mi.pending[part].head, InvalidBlockNumber,
						  &ref, fn, arg, nblocks);
	}
	for (i = 0; i < mi.nfilters; i++)
		pfree(table[i]);
	pfree(table);
	pfree(mi.graves);
	pfree(mi.mark_serials);
}

/*
 * ScbfFilterStateName
 *		The name of a table entry's state ("free", "active", "closed"), or
 *		NULL if the entry holds no known state.
 */
const char *
ScbfFilterStateName(const ScbfFilter *f)
{
	switch (f->state)
	{
		case SCBF_FILTER_FREE:
			return "free";
		case SCBF_FILTER_ACTIVE:
			return "active";
		case SCBF_FILTER_CLOSED:
			return "closed";
	}
	return NULL;
}
