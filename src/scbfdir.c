/*-------------------------------------------------------------------------
 *
 * scbfdir.c
 *	  Storage format 2: the filter table, the index's only directory.
 *
 * NOTES
 *	  Entry c of the table describes filter c, which is column c of the
 *	  row band: its segment, state, place in the segment's chain, entry and
 *	  key counts, set bits per slice, and the ledger root of each index
 *	  column (src/README, D7).  The table is a dense array over the pages
 *	  the metapage lists, so entry c is found by arithmetic.
 *
 * Portions Copyright (c) 2026, scbf developers
 *
 * IDENTIFICATION
 *	  src/scbfdir.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/rel.h"

#include "scbf2.h"
#include "scbf_page.h"

/*
 * Scbf2ReadFilter
 *		A palloc'd copy of filter filterno's table entry.
 */
Scbf2Filter *
Scbf2ReadFilter(Relation index, Scbf2State *state, const Scbf2Meta *meta,
				uint32 filterno, BlockNumber nblocks)
{
	Size		esize = Scbf2EntrySize(state->ncols);
	uint32		perpage = Scbf2EntriesPerPage(state->ncols);
	uint32		tpage = filterno / perpage;
	Scbf2FilterEntry *entry = palloc(esize);
	Buffer		buf;
	Page		page;

	if (filterno >= meta->nfilters || tpage >= meta->ntablepages)
		elog(ERROR, "filter %u is beyond the filter table of index \"%s\"",
			 filterno, RelationGetRelationName(index));
	buf = Scbf2ReadPage(index, meta->tablepages[tpage], BUFFER_LOCK_SHARE,
						SCBF_PAGE_TABLE, nblocks);
	page = BufferGetPage(buf);
	if (Scbf2PageGetOpaque(page)->index != tpage)
		ScbfReportCorrupt(index, meta->tablepages[tpage],
						  "A filter table page is not the one the metapage lists there.");
	memcpy(entry, (char *) PageGetContents(page) + esize * (filterno % perpage),
		   esize);
	UnlockReleaseBuffer(buf);

	if (entry->state > SCBF2_FILTER_CLOSED ||
		(entry->state != SCBF2_FILTER_FREE && entry->nentries > 0 &&
		 entry->roots[0] == InvalidBlockNumber))
		ScbfReportCorrupt(index, meta->tablepages[tpage],
						  psprintf("Filter %u has an impossible table entry.",
								   filterno));
	return entry;
}

/*
 * True unless the entry is a free column.
 */
bool
Scbf2FilterInUse(const Scbf2Filter *f)
{
	return f->state != SCBF2_FILTER_FREE;
}

/*
 * The heap segment a filter covers.
 */
uint32
Scbf2FilterSegment(const Scbf2Filter *f)
{
	return f->segno;
}

/*
 * The ledger root of index column col; InvalidBlockNumber if none.
 */
BlockNumber
Scbf2FilterRoot(const Scbf2Filter *f, int col)
{
	return f->roots[col];
}

/*
 * A filter's place in its segment's chain, from 0.
 */
uint16
Scbf2FilterPosition(const Scbf2Filter *f)
{
	return f->position;
}

/*
 * Set the distinct keys a filter holds, summed over the columns.
 */
void
Scbf2FilterSetKeys(Scbf2Filter *f, uint32 nkeys)
{
	f->nkeys = nkeys;
}

/*
 * Scbf2NewFilter
 *		A palloc'd ACTIVE table entry for a new filter, without roots yet.
 */
Scbf2Filter *
Scbf2NewFilter(int ncols, uint32 segno, uint16 position, uint32 nentries,
			   uint32 nkeys)
{
	Scbf2FilterEntry *f = palloc0(Scbf2EntrySize(ncols));
	int			col;

	f->segno = segno;
	f->state = SCBF2_FILTER_ACTIVE;
	f->position = position;
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
Scbf2FilterSetRoot(Scbf2Filter *f, int col, BlockNumber root)
{
	f->roots[col] = root;
}

/*
 * Set the set bits per slice, nset[0 .. k).
 */
void
Scbf2FilterSetBits(Scbf2Filter *f, uint32 k, const uint32 *nset)
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
Scbf2FilterFpr(const Scbf2Filter *f, uint32 k, uint32 m)
{
	double		fpr = 1.0;
	uint32		i;

	for (i = 0; i < k && i < SCBF_ROWS_MAX_K; i++)
		fpr *= (double) f->nset[i] / (double) m;
	return fpr;
}

/*
 * Scbf2WriteTable
 *		Write the table of a new index, filters[0 .. nfilters), into new
 *		pages, and list them in layout.
 *
 * For ambuild: unlogged, the build WAL-logs the whole index at its end.
 */
void
Scbf2WriteTable(Relation index, int ncols, Scbf2Filter **filters,
				uint32 nfilters, Scbf2Layout *layout)
{
	Size		esize = Scbf2EntrySize(ncols);
	uint32		perpage = Scbf2EntriesPerPage(ncols);
	uint32		npages = (nfilters + perpage - 1) / perpage;
	uint32		p;

	if (npages > SCBF2_MAX_TABLE_PAGES)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("index \"%s\" would need %u filters, more than its filter table holds",
						RelationGetRelationName(index), nfilters),
				 errhint("Raise pages_per_segment or false_positive_rate.")));
	layout->ntablepages = npages;
	layout->tablepages = palloc(sizeof(BlockNumber) * Max(npages, 1));
	for (p = 0; p < npages; p++)
	{
		Buffer		buf = ScbfNewBuffer(index);
		Page		page = BufferGetPage(buf);
		uint32		c;

		PageInit(page, BLCKSZ, sizeof(Scbf2PageOpaqueData));
		Scbf2PageGetOpaque(page)->index = p;
		Scbf2PageGetOpaque(page)->type = SCBF_PAGE_TABLE;
		Scbf2PageGetOpaque(page)->page_id = SCBF_PAGE_ID;
		for (c = p * perpage; c < nfilters && c < (p + 1) * perpage; c++)
			memcpy((char *) PageGetContents(page) + esize * (c - p * perpage),
				   filters[c], esize);
		((PageHeader) page)->pd_lower = MAXALIGN(SizeOfPageHeaderData) +
			esize * perpage;
		layout->tablepages[p] = BufferGetBlockNumber(buf);
		MarkBufferDirty(buf);
		UnlockReleaseBuffer(buf);
	}
}
