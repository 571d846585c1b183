/*-------------------------------------------------------------------------
 *
 * scbfrows.c
 *	  Storage format 2: the band of bit-sliced rows over all filters.
 *
 * NOTES
 *	  Every filter of an index has k slices of m positions and keeps one
 *	  bit per position.  The bits are stored transposed: row r = slice * m
 *	  + position holds bit c for filter c (src/README, D4).  A probe ANDs
 *	  the k rows of a key and learns which filters may hold it, reading k
 *	  pages whatever the number of filters.  The rows live in one band of
 *	  contiguous pages, rows_per_page rows of width bits each.
 *
 *	  No bit is ever cleared while a ledger entry needs it (invariant R1 of
 *	  src/README): the build sets every bit before the index is visible.
 *
 * Portions Copyright (c) 2026, scbf developers
 *
 * IDENTIFICATION
 *	  src/scbfrows.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/generic_xlog.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "utils/rel.h"

#include "scbf2.h"
#include "scbf_page.h"

/* What the row pass of a build hands to each key of each filter */
typedef struct Scbf2RowPass
{
	Scbf2State *state;
	Scbf2Band  *band;
	uint8	   *chunk;			/* pages [first, first + npages) */
	uint32		first;
	uint32		npages;
	uint32		filterno;		/* the filter being emitted */
	uint32	   *nset;			/* [filter * k + slice] */
} Scbf2RowPass;

/*
 * Bytes of the accumulator a probe of this band needs.
 */
Size
Scbf2RowsBytes(const Scbf2Meta *meta)
{
	return Max(meta->band_width / 8, 1);
}

/*
 * Scbf2RowsProbe
 *		acc |= the filters that may hold any of hashes[0 .. nhashes) in
 *		column col: per hash the AND of its k rows.
 *
 * acc has Scbf2RowsBytes(meta) bytes.  Returns false if a page of the band
 * is not what meta says (a fold moved the band and its old pages were
 * recycled): the caller starts over from a new metapage copy.
 */
bool
Scbf2RowsProbe(Relation index, Scbf2State *state, const Scbf2Meta *meta,
			   int col, const uint32 *hashes, int nhashes, uint8 *acc,
			   BlockNumber nblocks)
{
	Size		nbytes = Scbf2RowsBytes(meta);
	uint8	   *one = palloc(nbytes);
	uint32		pos[SCBF_FILTER_MAX_K];
	int			h;
	uint32		i;
	Size		b;

	if (meta->nfilters == 0)
		return true;
	for (h = 0; h < nhashes; h++)
	{
		Scbf2KeyPositions(state, col, hashes[h], pos);
		memset(one, 0xFF, nbytes);
		for (i = 0; i < state->geom.k; i++)
		{
			uint64		row = (uint64) i * state->geom.m + pos[i];
			uint32		pageno = (uint32) (row / meta->band_rows_per_page);
			BlockNumber blkno = meta->band_start + pageno;
			Buffer		buf;
			Page		page;

			if (blkno == SCBF_METAPAGE_BLKNO || blkno >= nblocks)
				ScbfReportCorrupt(index, blkno,
								  "The band of rows leaves the index.");
			buf = ReadBuffer(index, blkno);
			LockBuffer(buf, BUFFER_LOCK_SHARE);
			page = BufferGetPage(buf);
			if (!Scbf2PageHasOpaque(page) ||
				Scbf2PageGetOpaque(page)->type != SCBF_PAGE_ROWS ||
				Scbf2PageGetOpaque(page)->owner != meta->band_serial ||
				Scbf2PageGetOpaque(page)->index != pageno)
			{
				UnlockReleaseBuffer(buf);
				pfree(one);
				return false;
			}
			scbf_rows_and(one, Scbf2PageGetRows(page),
						  (uint32) (row % meta->band_rows_per_page),
						  meta->band_width);
			UnlockReleaseBuffer(buf);
		}
		for (b = 0; b < nbytes; b++)
			acc[b] |= one[b];
	}
	pfree(one);
	return true;
}

/*
 * Scbf2RowsNext
 *		The first filter at or after `from` that acc holds, or the number
 *		of filters if none.
 */
uint32
Scbf2RowsNext(const Scbf2Meta *meta, const uint8 *acc, uint32 from)
{
	return scbf_rows_next(acc, meta->nfilters, from);
}

/*
 * Scbf2BandPlan
 *		The band for nfilters filters of k slices of m positions: its width
 *		leaves room for an eighth more filters (at least 8), rounded up to a
 *		whole byte.
 */
void
Scbf2BandPlan(Relation index, uint32 nfilters, uint32 k, uint32 m,
			  Scbf2Band *band)
{
	uint64		width = Max((uint64) nfilters + nfilters / 8, (uint64) nfilters + 8);

	width = TYPEALIGN(SCBF_ROWS_WIDTH_ALIGN, width);
	if (width > (uint64) SCBF2_PAGE_SPACE * 8)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("index \"%s\" would need %u filters, more than one band of rows holds",
						RelationGetRelationName(index), nfilters),
				 errhint("Raise pages_per_segment or false_positive_rate.")));
	band->width = (uint32) width;
	band->rows_per_page = scbf_rows_per_page(SCBF2_PAGE_SPACE, band->width);
	band->pages = (uint32) (((uint64) k * m + band->rows_per_page - 1) /
							band->rows_per_page);
	band->start = InvalidBlockNumber;
	band->serial = 1;
}

/*
 * Set the bits of one key of the filter being emitted, where they fall in
 * the pages of this pass.
 */
static void
Scbf2RowPassKey(int col, uint32 hash, void *arg)
{
	Scbf2RowPass *rp = (Scbf2RowPass *) arg;
	uint32		k = rp->state->geom.k;
	uint32		pos[SCBF_FILTER_MAX_K];
	uint32		i;

	Scbf2KeyPositions(rp->state, col, hash, pos);
	for (i = 0; i < k; i++)
	{
		uint64		row = (uint64) i * rp->state->geom.m + pos[i];
		uint32		pageno = (uint32) (row / rp->band->rows_per_page);

		if (pageno < rp->first || pageno >= rp->first + rp->npages)
			continue;
		if (scbf_rows_set(rp->chunk + (Size) (pageno - rp->first) * BLCKSZ,
						  (uint32) (row % rp->band->rows_per_page),
						  rp->band->width, rp->filterno))
			rp->nset[(Size) rp->filterno * k + i]++;
	}
}

/*
 * Scbf2BandBuild
 *		Write the band of a new index: allocate its pages at the end of the
 *		relation, then fill them in passes of as many pages as
 *		maintenance_work_mem holds, each pass asking `keys` for the keys of
 *		every filter.  nset[filter * k + slice] receives each filter's set
 *		bits per slice.
 *
 * For ambuild: unlogged, the build WAL-logs the whole index at its end.
 */
void
Scbf2BandBuild(Relation index, Scbf2State *state, Scbf2Band *band,
			   uint32 nfilters, Scbf2KeysFn keys, void *arg, uint32 *nset)
{
	Scbf2RowPass rp;
	uint32		chunk_pages;
	uint32		p;

	memset(nset, 0, sizeof(uint32) * nfilters * state->geom.k);

	/* the pages, contiguous: nothing else extends an index being built */
	for (p = 0; p < band->pages; p++)
	{
		Buffer		buf = ScbfNewBuffer(index);
		Page		page = BufferGetPage(buf);

		if (p == 0)
			band->start = BufferGetBlockNumber(buf);
		else if (BufferGetBlockNumber(buf) != band->start + p)
			elog(ERROR, "the row band of index \"%s\" is not contiguous",
				 RelationGetRelationName(index));
		PageInit(page, BLCKSZ, sizeof(Scbf2PageOpaqueData));
		Scbf2PageGetOpaque(page)->owner = band->serial;
		Scbf2PageGetOpaque(page)->index = p;
		Scbf2PageGetOpaque(page)->type = SCBF_PAGE_ROWS;
		Scbf2PageGetOpaque(page)->page_id = SCBF_PAGE_ID;
		((PageHeader) page)->pd_lower = MAXALIGN(SizeOfPageHeaderData) +
			(band->rows_per_page * band->width) / 8;
		MarkBufferDirty(buf);
		UnlockReleaseBuffer(buf);
	}

	chunk_pages = Max((Size) maintenance_work_mem * 1024 / 2 / BLCKSZ, 1);
	rp.state = state;
	rp.band = band;
	rp.nset = nset;
	rp.chunk = palloc(Min(chunk_pages, Max(band->pages, 1)) * (Size) BLCKSZ);
	for (rp.first = 0; rp.first < band->pages; rp.first += chunk_pages)
	{
		rp.npages = Min(chunk_pages, band->pages - rp.first);
		memset(rp.chunk, 0, (Size) rp.npages * BLCKSZ);
		for (rp.filterno = 0; rp.filterno < nfilters; rp.filterno++)
		{
			CHECK_FOR_INTERRUPTS();
			keys(rp.filterno, Scbf2RowPassKey, &rp, arg);
		}
		for (p = 0; p < rp.npages; p++)
		{
			Buffer		buf = ReadBuffer(index, band->start + rp.first + p);

			LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
			memcpy(Scbf2PageGetRows(BufferGetPage(buf)),
				   rp.chunk + (Size) p * BLCKSZ,
				   (band->rows_per_page * band->width) / 8);
			MarkBufferDirty(buf);
			UnlockReleaseBuffer(buf);
		}
	}
	pfree(rp.chunk);
}

/*
 * The band a metapage copy describes.
 */
void
Scbf2MetaBand(const Scbf2Meta *meta, Scbf2Band *band)
{
	band->start = meta->band_start;
	band->pages = meta->band_pages;
	band->width = meta->band_width;
	band->rows_per_page = meta->band_rows_per_page;
	band->serial = meta->band_serial;
}

/* One bit to set or clear: row page, row within it, filter, slice */
typedef struct Scbf2BitOp
{
	uint32		pageno;
	uint32		row;
	uint32		filterno;
	uint32		slice;
} Scbf2BitOp;

/*
 * Order bit operations by row page: a counting sort, as there are few
 * pages and many operations (a fold sets k bits per new key).  Returns the
 * sorted copy; ops is freed.
 */
static Scbf2BitOp *
Scbf2SortBitOps(Scbf2BitOp *ops, Size n, uint32 npages)
{
	Size	   *start = palloc0(sizeof(Size) * (npages + 1));
	Scbf2BitOp *sorted = palloc(sizeof(Scbf2BitOp) * Max(n, 1));
	Size		i;
	uint32		p;

	for (i = 0; i < n; i++)
		start[ops[i].pageno + 1]++;
	for (p = 0; p < npages; p++)
		start[p + 1] += start[p];
	for (i = 0; i < n; i++)
		sorted[start[ops[i].pageno]++] = ops[i];
	pfree(start);
	pfree(ops);
	return sorted;
}

/*
 * Apply bit operations to the band, WAL-logged, one record per row page:
 * set them (counting each bit that was clear in its filter's table entry,
 * filters[filterno]) or, with filters NULL, clear them.  Checks that each
 * lies in the band, orders them by page and frees them.
 */
static void
Scbf2ApplyBitOps(Relation index, const Scbf2Band *band, Scbf2BitOp *ops,
				 Size n, Scbf2Filter **filters, BlockNumber nblocks)
{
	Size		i;

	for (i = 0; i < n; i++)
		if (ops[i].pageno >= band->pages || ops[i].filterno >= band->width)
			elog(ERROR, "a row bit of index \"%s\" lies outside its band",
				 RelationGetRelationName(index));
	ops = Scbf2SortBitOps(ops, n, band->pages);

	for (i = 0; i < n;)
	{
		uint32		pageno = ops[i].pageno;
		Buffer		buf;
		GenericXLogState *xlog;
		Page		page;

		CHECK_FOR_INTERRUPTS();
		buf = Scbf2ReadPage(index, band->start + pageno, BUFFER_LOCK_EXCLUSIVE,
							SCBF_PAGE_ROWS, nblocks);
		xlog = GenericXLogStart(index);
		page = GenericXLogRegisterBuffer(xlog, buf, 0);
		for (; i < n && ops[i].pageno == pageno; i++)
		{
			if (filters == NULL)
				scbf_rows_clear(Scbf2PageGetRows(page), ops[i].row,
								band->width, ops[i].filterno);
			else if (scbf_rows_set(Scbf2PageGetRows(page), ops[i].row,
								   band->width, ops[i].filterno))
				Scbf2FilterAddBit(filters[ops[i].filterno], ops[i].slice);
		}
		GenericXLogFinish(xlog);
		UnlockReleaseBuffer(buf);
	}
	pfree(ops);
}

/*
 * Scbf2RowsSet
 *		Set the bits of keys[0 .. n) in the band, WAL-logged, one record per
 *		row page touched; count each bit that was clear in its filter's
 *		table entry (filters[filterno]).
 *
 * Called by the fold, under the fold lock, before it commits: a bit is
 * set before the entry that needs it becomes visible (invariant R1).
 */
void
Scbf2RowsSet(Relation index, Scbf2State *state, const Scbf2Band *band,
			 const Scbf2RowKey *keys, int n, Scbf2Filter **filters,
			 BlockNumber nblocks)
{
	uint32		k = state->geom.k;
	Scbf2BitOp *ops = palloc(sizeof(Scbf2BitOp) * Max((Size) n * k, 1));
	uint32		pos[SCBF_FILTER_MAX_K];
	Size		nops = 0;
	int			j;

	for (j = 0; j < n; j++)
	{
		uint32		s;

		Scbf2KeyPositions(state, keys[j].col, keys[j].hash, pos);
		for (s = 0; s < k; s++)
		{
			uint64		row = (uint64) s * state->geom.m + pos[s];

			ops[nops].pageno = (uint32) (row / band->rows_per_page);
			ops[nops].row = (uint32) (row % band->rows_per_page);
			ops[nops].filterno = keys[j].filterno;
			ops[nops].slice = s;
			nops++;
		}
	}
	Scbf2ApplyBitOps(index, band, ops, nops, filters, nblocks);
}

/*
 * Scbf2RowsClear
 *		Clear bits[0 .. n) in the band, WAL-logged, one record per row page
 *		touched.
 *
 * Invariant R1 (src/README): only VACUUM calls this, under the fold lock,
 * after the commit that took the last ledger entry needing each bit out
 * of its filter's visible runs; a crash before leaves the bits set.
 */
void
Scbf2RowsClear(Relation index, Scbf2State *state, const Scbf2Band *band,
			   const Scbf2RowBit *bits, int n, BlockNumber nblocks)
{
	Scbf2BitOp *ops = palloc(sizeof(Scbf2BitOp) * Max(n, 1));
	int			j;

	for (j = 0; j < n; j++)
	{
		uint64		row = (uint64) bits[j].slice * state->geom.m +
			bits[j].position;

		ops[j].pageno = (uint32) (row / band->rows_per_page);
		ops[j].row = (uint32) (row % band->rows_per_page);
		ops[j].filterno = bits[j].filterno;
		ops[j].slice = bits[j].slice;
	}
	Scbf2ApplyBitOps(index, band, ops, n, NULL, nblocks);
}

/*
 * Scbf2BandRelayout
 *		A new band for nfilters filters (see Scbf2BandPlan), at the end of
 *		the relation, holding the bits of the old band (none if it has no
 *		pages); WAL-logged, the pages as full images.  The old band stays
 *		as it is for the probes that still read it; the fold's metapage
 *		record switches to the new one and hands the old one to the
 *		graveyard.
 */
void
Scbf2BandRelayout(Relation index, Scbf2State *state, const Scbf2Band *old,
				  uint32 nfilters, Scbf2Band *band, BlockNumber nblocks)
{
	uint64		nrows = (uint64) state->geom.k * state->geom.m;
	Page		oldcopy = palloc(BLCKSZ);
	uint32		oldpage = InvalidBlockNumber;
	bool		needLock = !RELATION_IS_LOCAL(index);
	uint32		p;

	Scbf2BandPlan(index, nfilters, state->geom.k, state->geom.m, band);
	band->serial = old->serial + 1;

	if (needLock)
		LockRelationForExtension(index, ExclusiveLock);
	for (p = 0; p < band->pages; p++)
	{
		Buffer		buf = ReadBuffer(index, P_NEW);
		GenericXLogState *xlog;
		Page		page;
		uint64		r;

		CHECK_FOR_INTERRUPTS();
		LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
		if (p == 0)
			band->start = BufferGetBlockNumber(buf);
		else if (BufferGetBlockNumber(buf) != band->start + p)
			elog(ERROR, "the row band of index \"%s\" is not contiguous",
				 RelationGetRelationName(index));
		xlog = GenericXLogStart(index);
		page = GenericXLogRegisterBuffer(xlog, buf, GENERIC_XLOG_FULL_IMAGE);
		PageInit(page, BLCKSZ, sizeof(Scbf2PageOpaqueData));
		Scbf2PageGetOpaque(page)->owner = band->serial;
		Scbf2PageGetOpaque(page)->index = p;
		Scbf2PageGetOpaque(page)->type = SCBF_PAGE_ROWS;
		Scbf2PageGetOpaque(page)->page_id = SCBF_PAGE_ID;
		((PageHeader) page)->pd_lower = MAXALIGN(SizeOfPageHeaderData) +
			(band->rows_per_page * band->width) / 8;

		/* each row's old bits, at the start of its new, wider row */
		for (r = (uint64) p * band->rows_per_page;
			 old->pages > 0 && r < nrows &&
			 r < (uint64) (p + 1) * band->rows_per_page; r++)
		{
			uint32		op = (uint32) (r / old->rows_per_page);

			if (op != oldpage)
			{
				Buffer		obuf = Scbf2ReadPage(index, old->start + op,
												 BUFFER_LOCK_SHARE,
												 SCBF_PAGE_ROWS, nblocks);

				memcpy(oldcopy, BufferGetPage(obuf), BLCKSZ);
				UnlockReleaseBuffer(obuf);
				if (Scbf2PageGetOpaque(oldcopy)->owner != old->serial ||
					Scbf2PageGetOpaque(oldcopy)->index != op)
					ScbfReportCorrupt(index, old->start + op,
									  "A row page is not the one the band has there.");
				oldpage = op;
			}
			memcpy(Scbf2PageGetRows(page) +
				   (Size) (r % band->rows_per_page) * band->width / 8,
				   Scbf2PageGetRows(oldcopy) +
				   (Size) (r % old->rows_per_page) * old->width / 8,
				   old->width / 8);
		}
		GenericXLogFinish(xlog);
		UnlockReleaseBuffer(buf);
	}
	if (needLock)
		UnlockRelationForExtension(index, ExclusiveLock);
	pfree(oldcopy);
}

/*
 * Scbf2BandPageBytes
 *		Bytes of rows on one page of a band.
 */
Size
Scbf2BandPageBytes(const Scbf2Band *band)
{
	return ((Size) band->rows_per_page * band->width) / 8;
}

/*
 * Scbf2BandReadPage
 *		Copy the rows of page pageno of a band into rows
 *		(Scbf2BandPageBytes(band) bytes).  Returns false, copying nothing,
 *		if the block is outside the index or is not that page of that band
 *		(type, band serial, page number): the verifier says why.
 */
bool
Scbf2BandReadPage(Relation index, const Scbf2Band *band, uint32 pageno,
				  uint8 *rows, BlockNumber nblocks)
{
	BlockNumber blkno = band->start + pageno;
	Size		nbytes = Scbf2BandPageBytes(band);
	Buffer		buf;
	Page		page;
	bool		ok;

	if (band->start == InvalidBlockNumber || pageno >= band->pages ||
		blkno < band->start || blkno == SCBF_METAPAGE_BLKNO ||
		blkno >= nblocks || nbytes > SCBF2_PAGE_SPACE)
		return false;
	buf = ReadBuffer(index, blkno);
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buf);
	ok = Scbf2PageHasOpaque(page) &&
		Scbf2PageGetOpaque(page)->type == SCBF_PAGE_ROWS &&
		Scbf2PageGetOpaque(page)->owner == band->serial &&
		Scbf2PageGetOpaque(page)->index == pageno;
	if (ok)
		memcpy(rows, Scbf2PageGetRows(page), nbytes);
	UnlockReleaseBuffer(buf);
	return ok;
}
