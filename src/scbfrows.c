/*-------------------------------------------------------------------------
 *
 * scbfrows.c
 *	  The band of bit-sliced rows over all filters.
 *
 * NOTES
 *	  Every filter of an index has k slices of m positions and keeps one
 *	  bit per position.  The bits are stored transposed: row r = slice * m
 *	  + position holds bit c for filter c (src/README, "On-disk format").
 *	  A probe ANDs the k rows of a key and learns which filters may hold
 *	  it, reading k pages a band whatever the number of filters.  The rows
 *	  of a range of filters live in a band of pages, rows_per_page rows of
 *	  width bits each, which the band map (scbfutils.c) places in runs of
 *	  blocks: free pages first, so a band written anew reuses the pages of
 *	  the bands before it.  A band is at most ScbfBandLimit() filters
 *	  wide; the last one takes new filters, widening until it reaches the
 *	  limit, and then the next band opens after it (src/README, "Bands").
 *
 *	  No bit is ever cleared while a ledger entry needs it (invariant I4 of
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

#include <math.h>

#include "access/generic_xlog.h"
#include "miscadmin.h"
#include "storage/indexfsm.h"
#include "utils/logtape.h"
#include "utils/rel.h"

#include "scbf.h"
#include "scbf_page.h"

/* What the row pass of a build hands to each key of each filter */
typedef struct ScbfRowPass
{
	ScbfState *state;
	ScbfBand  *band;
	uint8	   *chunk;			/* pages [first, first + npages) */
	uint32		first;
	uint32		npages;
	uint32		filterno;		/* the filter being emitted */
	uint32	   *nset;			/* [filter * k + slice] */
} ScbfRowPass;

/*
 * Most rows a key sets in a band or a group's summary.
 */
#define SCBF_KEY_MAX_ROWS	Max(SCBF_ROWS_MAX_K, SCBF_SUMMARY_K)

/*
 * A key of a band's write, spilled to a tape: its hash, index column and
 * the band's column it belongs to (a filter, or a group's band).
 */
typedef struct ScbfSpilledKey
{
	ScbfHash	hash;
	uint32		column;
	int32		col;
} ScbfSpilledKey;

/*
 * Where the passes of a band's write get their keys.  A band written in
 * one pass asks `keys` for every column's keys.  A band of more pages than
 * a pass holds would ask them once per pass, and a column's keys come from
 * the walk of its ledgers: so its keys are read once and spilled, each to
 * the tape of every range of passes its rows fall in, and each pass reads
 * its range's tape (KeySourceFill).  There is at most one tape per
 * SCBF_SPILL_PASS_PAGES_PER_TAPE pages a pass holds (each takes a page of
 * memory while written), so a tape may cover several passes and is then
 * read once for each.
 */
typedef struct ScbfKeySource
{
	Relation	index;
	ScbfKeysFn	keys;
	void	   *arg;
	uint32		end;			/* columns below it have keys */
	uint32		chunk_pages;	/* pages a pass holds */
	LogicalTapeSet *lts;		/* NULL: each pass asks `keys` */
	LogicalTape **tapes;		/* [ntapes], NULL once read for the last time */
	uint64	   *nkeys;			/* [ntapes]: keys on each tape */
	uint32		ntapes;
	uint32		tape_passes;	/* passes a tape covers */
	ScbfRowPass *rp;			/* the band, while spilling */
} ScbfKeySource;

/*
 * Pages a pass holds per tape of a spilled write: the tapes' buffers take
 * at most an eighth of the pass's memory.
 */
#define SCBF_SPILL_PASS_PAGES_PER_TAPE	8

/*
 * The filters a band holds at most: a probe of a band meets SCBF_BAND_FILTERS
 * x P1 false candidates, a few ledger pages each, so a band is kept to a
 * fraction of what a row page could hold; the summary of its group says
 * which bands a probe may skip (src/README, "Bands of rows").
 */
#define SCBF_BAND_FILTERS			8192

/*
 * scbf.test_band_filters: the filters a band holds at most, if not 0 (a
 * setting only the tests use, so that they cross bands with few rows);
 * else SCBF_BAND_FILTERS.
 */
int			scbf_test_band_filters = 0;

/*
 * ScbfBandLimit
 *		The filters a band may hold: SCBF_BAND_FILTERS, or what
 *		scbf.test_band_filters says, rounded down to a multiple of 8.
 */
uint32
ScbfBandLimit(void)
{
	uint32		limit = SCBF_BAND_FILTERS;

	if (scbf_test_band_filters > 0)
		limit = Min(limit, Max(TYPEALIGN_DOWN(SCBF_ROWS_WIDTH_ALIGN,
											  scbf_test_band_filters),
							   SCBF_ROWS_WIDTH_ALIGN));
	return limit;
}

/*
 * Bytes of the accumulator a probe of these bands needs: a bit per filter
 * the bands hold.
 */
Size
ScbfRowsBytes(const ScbfMeta *meta)
{
	return Max(ScbfMetaBandsEnd(meta) / 8, 1);
}

/*
 * Pin page pageno of a band's rows for a probe of its row row_in_page, and
 * ask the CPU for the cache lines the probe will read: the page's header,
 * its special space and the row.  A probe pins its k pages first and reads
 * them after, so that the misses of their first touches, which cost a
 * probe of a cached index more than anything else, overlap.  The page is
 * not locked yet: a prefetch reads nothing the probe relies on.
 */
static Buffer
RowsPin(Relation index, const ScbfBand *band, uint32 pageno,
		uint32 row_in_page, BlockNumber nblocks)
{
	BlockNumber blkno = ScbfBandBlock(band, pageno);
	Buffer		buf;
	const char *page;
	const char *row;
	Size		nbytes = band->width / 8;

	if (blkno == SCBF_METAPAGE_BLKNO || blkno >= nblocks)
		ScbfReportCorrupt(index, blkno, "The band of rows leaves the index.");
	buf = ScbfReadBuffer(index, blkno);
	page = (const char *) BufferGetPage(buf);
	row = (const char *) ScbfPageGetRows((Page) page) +
		(Size) row_in_page * nbytes;
	ScbfPrefetch(page);
	ScbfPrefetch(page + BLCKSZ - sizeof(ScbfPageOpaqueData));
	for (Size off = 0; off < nbytes; off += PG_CACHE_LINE_SIZE)
		ScbfPrefetch(row + off);
	ScbfPrefetch(row + nbytes - 1);
	return buf;
}

/*
 * ScbfRowsProbe
 *		acc |= the filters that may hold any of hashes[0 .. nhashes) in
 *		column col: per hash and band the AND of its k rows, for the bands
 *		whose summary may hold the hash (all, without a summary), in the
 *		groups whose top column may hold it (all, without a top).
 *
 * acc has ScbfRowsBytes(meta) bytes, bit f for filter f.  Returns false if
 * a page of a band is not what meta says (a fold moved the band and its
 * old pages were recycled): the caller starts over from a new metapage
 * copy.
 */
bool
ScbfRowsProbe(Relation index, ScbfState *state, const ScbfMeta *meta,
			   int col, const ScbfHash *hashes, int nhashes, uint8 *acc,
			   BlockNumber nblocks)
{
	const ScbfBands *bands;
	uint8	   *one;
	uint8	   *mask = NULL;
	uint8	   *gmask = NULL;
	uint32		covered = 0;
	uint32		pos[SCBF_ROWS_MAX_K];
	uint32		pagenos[SCBF_ROWS_MAX_K];
	uint32		inpage[SCBF_ROWS_MAX_K];
	Buffer		bufs[SCBF_ROWS_MAX_K];
	int			h;

	if (meta->nfilters == 0)
		return true;
	bands = ScbfBandsCached(index, meta, nblocks);
	if (bands == NULL)
		return false;
	one = palloc(SCBF_PAGE_SPACE);
	if (bands->ngroups > 0)
	{
		const ScbfBand *lastg = &bands->groups[bands->ngroups - 1];

		covered = Min(lastg->first + lastg->width, bands->nbands);
		mask = palloc((lastg->first + lastg->width + 7) / 8 + 1);
	}
	if (bands->top.width > 0)
		gmask = palloc(bands->top.width / 8 + 1);
	for (h = 0; h < nhashes; h++)
	{
		uint32		bi;
		uint32		g;

		/* the bands whose summary may hold the hash */
		if (mask != NULL)
		{
			uint64		fkey = ScbfFilterKey(state, col, hashes[h]);
			const ScbfBand *lastg = &bands->groups[bands->ngroups - 1];
			bool		ok = true;

			memset(mask, 0, (lastg->first + lastg->width + 7) / 8 + 1);
			/* the covered groups whose top column may hold it */
			if (gmask != NULL)
			{
				memset(gmask, 0, bands->top.width / 8 + 1);
				ok = ScbfSummaryProbe(index, &bands->top, fkey, gmask,
									  nblocks);
			}
			for (g = 0; ok && g < bands->ngroups; g++)
				if (gmask == NULL || g >= bands->covered ||
					(gmask[g / 8] & (1 << (g % 8))) != 0)
					ok = ScbfSummaryProbe(index, &bands->groups[g], fkey,
										  mask, nblocks);
			if (!ok)
			{
				pfree(one);
				pfree(mask);
				if (gmask != NULL)
					pfree(gmask);
				return false;
			}
		}
		for (bi = 0; bi < bands->nbands; bi++)
		{
			const ScbfBand *band = &bands->bands[bi];
			Size		nbytes = band->width / 8;
			uint8	   *into = acc + band->first / 8;
			uint32		i;
			Size		b;

			if (band->first >= meta->nfilters)
				break;
			if (bi < covered && (mask[bi / 8] & (1 << (bi % 8))) == 0)
				continue;
			ScbfKeyPositions(state, band, col, hashes[h], pos);
			memset(one, 0xFF, nbytes);
			/* pin the k pages, and start reading their bytes (RowsPin) */
			for (i = 0; i < band->geom.k; i++)
			{
				uint64		row = (uint64) i * band->geom.m + pos[i];

				pagenos[i] = (uint32) (row / band->rows_per_page);
				inpage[i] = (uint32) (row % band->rows_per_page);
				bufs[i] = RowsPin(index, band, pagenos[i], inpage[i],
								  nblocks);
			}
			for (i = 0; i < band->geom.k; i++)
			{
				Page		page = BufferGetPage(bufs[i]);

				LockBuffer(bufs[i], BUFFER_LOCK_SHARE);
				if (!ScbfPageHasOpaque(page) ||
					ScbfPageGetOpaque(page)->type != SCBF_PAGE_ROWS ||
					ScbfPageGetOpaque(page)->ident.rows.band_serial != band->serial ||
					ScbfPageGetOpaque(page)->ident.rows.pageno != pagenos[i])
				{
					UnlockReleaseBuffer(bufs[i]);
					while (++i < band->geom.k)
						ReleaseBuffer(bufs[i]);
					pfree(one);
					if (mask != NULL)
						pfree(mask);
					if (gmask != NULL)
						pfree(gmask);
					return false;
				}
				scbf_rows_and(one, ScbfPageGetRows(page), inpage[i],
							  band->width);
				UnlockReleaseBuffer(bufs[i]);
			}
			for (b = 0; b < nbytes; b++)
				into[b] |= one[b];
		}
	}
	pfree(one);
	if (mask != NULL)
		pfree(mask);
	if (gmask != NULL)
		pfree(gmask);
	return true;
}

/*
 * ScbfRowsNext
 *		The first filter at or after `from` that acc holds, or the number
 *		of filters if none.
 */
uint32
ScbfRowsNext(const ScbfMeta *meta, const uint8 *acc, uint32 from)
{
	return scbf_rows_next(acc, meta->nfilters, from);
}

/*
 * ScbfRowsHas
 *		True if acc (as ScbfRowsProbe fills it) holds filter fno.
 */
bool
ScbfRowsHas(const ScbfMeta *meta, const uint8 *acc, uint32 fno)
{
	return fno < meta->nfilters &&
		(acc[fno / 8] & (1 << (fno % 8))) != 0;
}

/*
 * ScbfBandM
 *		The positions a slice of band bandno gets, for m and capacity the
 *		index's geometry of a new band and k slices: m itself in the first
 *		group of bands, else sized for half the rate at the same capacity
 *		(fill f x 2^(-1/k), about m x 1.16 at k = 5), at most what k slices
 *		of 32-bit row numbers address.
 *
 * A probe reads the rows of every band whose group summary holds its key,
 * and meets F x P false candidates in each, so past the first group, at
 * sizes where the summaries and the top already cost a probe two pages,
 * halving P keeps a present probe within 12 pages to 32 TB of heap
 * (src/README, "What brings 32 TB under 12").  ScbfBandTarget is the rate a
 * fold keeps a filter of such a band to.
 */
uint32
ScbfBandM(uint32 m, uint32 capacity, uint32 k, uint32 bandno)
{
	double		fill;

	if (bandno < ScbfGroupLimit() || m == 0)
		return m;
	fill = -expm1(-(double) capacity / m) * pow(0.5, 1.0 / Max(k, 1));
	return Max(Min(scbf_rows_m(capacity, fill), PG_UINT32_MAX / Max(k, 1)),
			   m);
}

/*
 * ScbfBandTarget
 *		The rate a filter of band bandno is kept to, for the index's target:
 *		half of it past the first group of bands (ScbfBandM).
 */
double
ScbfBandTarget(double target, uint32 bandno)
{
	return bandno < ScbfGroupLimit() ? target : target / 2;
}

/*
 * ScbfBandPlan
 *		The band from filter first on for nfilters filters in all (the
 *		band holds those from first on) of k slices of m positions, each
 *		sized for capacity distinct keys: its width leaves room for 1/spare
 *		more filters (at least 8), rounded up to a whole byte, up to
 *		ScbfBandLimit(); the filters beyond go to later bands.
 *
 * A build leaves an eighth (SCBF_BAND_SPARE_BUILT); a fold that outgrew
 * the band leaves a quarter (SCBF_BAND_SPARE_GROWN): each relayout writes
 * the whole band anew, so a growing table pays for it in proportion to how
 * often it comes, as a dynamic array grows by a factor; and until later
 * pages reuse them, the old band's pages stay free beside the new one, so
 * the factor is kept small (a half left a text index grown by INSERTs
 * 1.47 times its rebuild, a quarter 1.27 times).
 */
void
ScbfBandPlan(uint32 first, uint32 nfilters, uint32 spare, uint32 k,
			 uint32 m, uint32 capacity, ScbfBand *band)
{
	uint32		n = nfilters > first ? nfilters - first : 0;
	uint64		width = (uint64) n + Max(n / spare, 8);

	Assert(first % SCBF_ROWS_WIDTH_ALIGN == 0);
	width = Min(TYPEALIGN(SCBF_ROWS_WIDTH_ALIGN, width), ScbfBandLimit());
	band->geom.k = k;
	band->geom.m = m;
	band->capacity = capacity;
	band->first = first;
	band->width = (uint32) width;
	band->rows_per_page = scbf_rows_per_page(SCBF_PAGE_SPACE, band->width);
	band->pages = (uint32) (((uint64) k * m + band->rows_per_page - 1) /
							band->rows_per_page);
	band->kind = SCBF_BAND_ROWS;
	band->map = InvalidBlockNumber;
	band->serial = 1;
	band->nruns = 0;
	band->runs = NULL;
}

/*
 * ScbfBandAllocate
 *		Allocate the pages of a new band, each handed to fn with its page number
 * to initialize and WAL-log: free pages of the FSM first, while the map has
 * room for their runs, then contiguous pages at the relation's end.  Sets
 * band->runs (palloc'd) and band->nruns; the caller writes the map.
 */
void
ScbfBandAllocate(Relation index, ScbfBand *band, ScbfNewPageFn fn, void *arg)
{
	ScbfBandRun *runs = palloc(sizeof(ScbfBandRun) * SCBF_BAND_MAX_RUNS);
	uint32		nruns = 0;
	uint32		p = 0;

	while (p < band->pages)
	{
		Buffer		buf = ScbfFreeBuffer(index);
		BlockNumber blkno;

		if (!BufferIsValid(buf))
			break;
		blkno = BufferGetBlockNumber(buf);
		if (nruns == 0 ||
			runs[nruns - 1].start + runs[nruns - 1].npages != blkno)
		{
			/* the last run is kept for the relation's end */
			if (nruns == SCBF_BAND_MAX_RUNS - 1)
			{
				UnlockReleaseBuffer(buf);
				RecordFreeIndexPage(index, blkno);
				break;
			}
			runs[nruns].start = blkno;
			runs[nruns].npages = 0;
			nruns++;
		}
		CHECK_FOR_INTERRUPTS();
		fn(buf, p, arg);
		UnlockReleaseBuffer(buf);
		runs[nruns - 1].npages++;
		p++;
	}
	if (p < band->pages)
	{
		BlockNumber start;

		start = ScbfExtendFrom(index, band->pages - p, p, fn, arg);
		if (nruns > 0 &&
			runs[nruns - 1].start + runs[nruns - 1].npages == start)
			runs[nruns - 1].npages += band->pages - p;
		else
		{
			runs[nruns].start = start;
			runs[nruns].npages = band->pages - p;
			nruns++;
		}
	}
	band->runs = runs;
	band->nruns = nruns;
}

/*
 * The rows of band that a key of column col sets, into rows[]: k, one a
 * slice, or a group summary's SCBF_SUMMARY_K in one block.  Returns their
 * number.
 */
static int
KeyRows(const ScbfRowPass *rp, int col, ScbfHash hash, uint64 *rows)
{
	const ScbfBand *band = rp->band;
	int			i;

	if (band->kind == SCBF_BAND_SUMMARY)
	{
		scbf_summary_rows(ScbfFilterKey(rp->state, col, hash),
						  band->capacity, rows);
		return SCBF_SUMMARY_K;
	}
	else
	{
		uint32		pos[SCBF_ROWS_MAX_K];

		ScbfKeyPositions(rp->state, band, col, hash, pos);
		for (i = 0; i < (int) band->geom.k; i++)
			rows[i] = (uint64) i * band->geom.m + pos[i];
		return (int) band->geom.k;
	}
}

/*
 * Set the bits of one key of the filter being emitted, where they fall in
 * the pages of this pass; in a group's summary, of the band being emitted.
 */
static void
RowPassKey(int col, ScbfHash hash, void *arg)
{
	ScbfRowPass *rp = (ScbfRowPass *) arg;
	uint64		rows[SCBF_KEY_MAX_ROWS];
	int			n = KeyRows(rp, col, hash, rows);
	int			i;

	for (i = 0; i < n; i++)
	{
		uint32		pageno = (uint32) (rows[i] / rp->band->rows_per_page);

		if (pageno < rp->first || pageno >= rp->first + rp->npages)
			continue;
		if (scbf_rows_set(rp->chunk + (Size) (pageno - rp->first) * BLCKSZ,
						  (uint32) (rows[i] % rp->band->rows_per_page),
						  rp->band->width, rp->filterno - rp->band->first) &&
			rp->band->kind != SCBF_BAND_SUMMARY)
			rp->nset[(Size) rp->filterno * rp->band->geom.k + i]++;
	}
}

/*
 * ScbfKeyFn of the spill: the key onto the tape of each range of passes
 * its rows fall in, once a tape.
 */
static void
SpillKey(int col, ScbfHash hash, void *arg)
{
	ScbfKeySource *src = (ScbfKeySource *) arg;
	const ScbfRowPass *rp = src->rp;
	uint64		rows[SCBF_KEY_MAX_ROWS];
	uint32		written[SCBF_KEY_MAX_ROWS];
	int			nwritten = 0;
	int			n = KeyRows(rp, col, hash, rows);
	ScbfSpilledKey sk;
	int			i;
	int			j;

	memset(&sk, 0, sizeof(sk));
	sk.hash = hash;
	sk.column = rp->filterno;
	sk.col = col;
	for (i = 0; i < n; i++)
	{
		uint32		pass = (uint32) (rows[i] / rp->band->rows_per_page) /
			src->chunk_pages;
		uint32		t = pass / src->tape_passes;

		for (j = 0; j < nwritten && written[j] != t; j++)
			;
		if (j < nwritten)
			continue;
		if (t >= src->ntapes)
			elog(ERROR, "a row of index \"%s\" lies outside its band",
				 RelationGetRelationName(src->index));
		written[nwritten++] = t;
		LogicalTapeWrite(src->tapes[t], &sk, sizeof(sk));
		src->nkeys[t]++;
	}
}

/*
 * Start the key source of a write of rp->band, the keys of its columns
 * below end given by keys: if the band takes more than one pass and the
 * caller may spill, read every column's keys once and spill them to tapes.
 */
static void
KeySourceStart(ScbfKeySource *src, Relation index, ScbfRowPass *rp,
			   uint32 end, ScbfKeysFn keys, void *arg, bool spill)
{
	uint32		pages = rp->band->pages;
	uint32		npasses;
	uint32		maxtapes;
	uint32		t;

	memset(src, 0, sizeof(ScbfKeySource));
	src->index = index;
	src->keys = keys;
	src->arg = arg;
	src->end = end;
	src->chunk_pages = Max((Size) maintenance_work_mem * 1024 / 2 / BLCKSZ, 1);
	if (!spill || pages <= src->chunk_pages)
		return;

	npasses = (pages + src->chunk_pages - 1) / src->chunk_pages;
	maxtapes = Max(src->chunk_pages / SCBF_SPILL_PASS_PAGES_PER_TAPE, 2);
	src->tape_passes = (npasses + maxtapes - 1) / maxtapes;
	src->ntapes = (npasses + src->tape_passes - 1) / src->tape_passes;
	src->lts = LogicalTapeSetCreate(false, NULL, -1);
	src->tapes = palloc(sizeof(LogicalTape *) * src->ntapes);
	src->nkeys = palloc0(sizeof(uint64) * src->ntapes);
	for (t = 0; t < src->ntapes; t++)
		src->tapes[t] = LogicalTapeCreate(src->lts);
	src->rp = rp;
	for (rp->filterno = rp->band->first; rp->filterno < end; rp->filterno++)
	{
		CHECK_FOR_INTERRUPTS();
		keys(rp->filterno, SpillKey, src, arg);
	}
	src->rp = NULL;
}

/*
 * Fill the pass rp describes (pages [rp->first, rp->first + rp->npages),
 * which starts a pass) with the bits of its keys: asked of `keys`, or read
 * from the tape of its range.
 */
static void
KeySourceFill(ScbfKeySource *src, ScbfRowPass *rp)
{
	uint32		pass;
	uint32		t;
	uint64		i;

	memset(rp->chunk, 0, (Size) rp->npages * BLCKSZ);
	if (src->lts == NULL)
	{
		for (rp->filterno = rp->band->first; rp->filterno < src->end;
			 rp->filterno++)
		{
			CHECK_FOR_INTERRUPTS();
			src->keys(rp->filterno, RowPassKey, rp, src->arg);
		}
		return;
	}

	Assert(rp->first % src->chunk_pages == 0);
	pass = rp->first / src->chunk_pages;
	t = pass / src->tape_passes;
	if (t >= src->ntapes || src->tapes[t] == NULL)
		elog(ERROR, "a pass of index \"%s\" found its keys read already",
			 RelationGetRelationName(src->index));
	if (src->nkeys[t] > 0)
	{
		/* frozen if read more than once, so its first read keeps it */
		if (src->tape_passes == 1)
			LogicalTapeRewindForRead(src->tapes[t], BLCKSZ);
		else if (pass % src->tape_passes == 0)
			LogicalTapeFreeze(src->tapes[t], NULL);
		else
			LogicalTapeRewindForRead(src->tapes[t], BLCKSZ);
		for (i = 0; i < src->nkeys[t]; i++)
		{
			ScbfSpilledKey sk;

			if ((i & 0xFFFF) == 0)
				CHECK_FOR_INTERRUPTS();
			if (LogicalTapeRead(src->tapes[t], &sk, sizeof(sk)) != sizeof(sk))
				elog(ERROR, "could not read a spilled key of index \"%s\"",
					 RelationGetRelationName(src->index));
			rp->filterno = sk.column;
			RowPassKey(sk.col, sk.hash, rp);
		}
	}
	if (pass % src->tape_passes == src->tape_passes - 1 ||
		rp->first + rp->npages >= rp->band->pages)
	{
		LogicalTapeClose(src->tapes[t]);
		src->tapes[t] = NULL;
	}
}

/*
 * Release what KeySourceStart took: the tapes and their temporary file.
 */
static void
KeySourceEnd(ScbfKeySource *src)
{
	uint32		t;

	if (src->lts == NULL)
		return;
	for (t = 0; t < src->ntapes; t++)
		if (src->tapes[t] != NULL)
			LogicalTapeClose(src->tapes[t]);
	LogicalTapeSetClose(src->lts);
	pfree(src->tapes);
	pfree(src->nkeys);
	src->lts = NULL;
}

/*
 * ScbfBandPageType
 *		The page type of a band's pages: rows, or a group's summary.
 */
uint8
ScbfBandPageType(const ScbfBand *band)
{
	return band->kind == SCBF_BAND_SUMMARY ? SCBF_PAGE_SUMMARY :
		SCBF_PAGE_ROWS;
}

/*
 * ScbfInitRowPage
 *		Initialize page pageno of band: no bit set.
 */
void
ScbfInitRowPage(Page page, const ScbfBand *band, uint32 pageno)
{
	ScbfPageOpaque opaque;

	opaque = ScbfInitPage(page, ScbfBandPageType(band),
						  ScbfBandPageBytes(band));
	opaque->ident.rows.band_serial = band->serial;
	opaque->ident.rows.pageno = pageno;
}

/*
 * ScbfExtend callback of a build: page pageno of the band arg, unlogged.
 */
static void
BuildRowPage(Buffer buf, uint32 pageno, void *arg)
{
	ScbfInitRowPage(BufferGetPage(buf), (const ScbfBand *) arg, pageno);
	MarkBufferDirty(buf);
}

/*
 * The filters of band below nfilters: first .. BandEnd(band, nfilters) - 1.
 */
static uint32
BandEnd(const ScbfBand *band, uint32 nfilters)
{
	return Min(nfilters, band->first + band->width);
}

/*
 * ScbfBandBuild
 *		Write a band of a new index: allocate its pages at the end of the
 *		relation and its map, then fill them in passes of as many pages as
 *		half of maintenance_work_mem holds, with the keys of every filter
 *		of the band (of those below nfilters) that `keys` gives: asked once
 *		a pass, or once in all and spilled to tapes if there is more than
 *		one pass (ScbfKeySource).  nset[filter * k + slice] receives each
 *		such filter's set bits per slice, and must be zero for them.
 *
 * For ambuild: unlogged, the build WAL-logs the whole index at its end.
 */
void
ScbfBandBuild(Relation index, ScbfState *state, ScbfBand *band,
			   uint32 nfilters, ScbfKeysFn keys, void *arg, uint32 *nset)
{
	ScbfRowPass rp;
	ScbfKeySource src;
	uint32		p;

	if (band->pages > 0)
	{
		ScbfBandRun *run = palloc(sizeof(ScbfBandRun));

		run->start = ScbfExtend(index, band->pages, BuildRowPage, band);
		run->npages = band->pages;
		band->runs = run;
		band->nruns = 1;
		ScbfWriteBandMap(index, band, false);
	}

	rp.state = state;
	rp.band = band;
	rp.nset = nset;
	KeySourceStart(&src, index, &rp, BandEnd(band, nfilters), keys, arg,
				   true);
	rp.chunk = palloc(Min(src.chunk_pages, Max(band->pages, 1)) *
					  (Size) BLCKSZ);
	for (rp.first = 0; rp.first < band->pages; rp.first += src.chunk_pages)
	{
		rp.npages = Min(src.chunk_pages, band->pages - rp.first);
		KeySourceFill(&src, &rp);
		for (p = 0; p < rp.npages; p++)
		{
			Buffer		buf = ReadBuffer(index,
										 ScbfBandBlock(band, rp.first + p));

			LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
			memcpy(ScbfPageGetRows(BufferGetPage(buf)),
				   rp.chunk + (Size) p * BLCKSZ,
				   ScbfBandPageBytes(band));
			MarkBufferDirty(buf);
			UnlockReleaseBuffer(buf);
		}
	}
	KeySourceEnd(&src);
	pfree(rp.chunk);
}

/* A band written anew from the filters' keys (ScbfBandRebuild) */
typedef struct ScbfRebuild
{
	Relation	index;
	ScbfRowPass rp;				/* the pass under way: its pages' bits */
	ScbfKeySource src;			/* the keys of every pass */
} ScbfRebuild;

/*
 * BandAllocate callback of a rebuild: page pageno of the new band, its
 * bits those of the pass that covers it (computed when the first of its
 * pages comes: pages come in order), WAL-logged as a full image.
 */
static void
RebuildRowPage(Buffer buf, uint32 pageno, void *arg)
{
	ScbfRebuild *rb = (ScbfRebuild *) arg;
	ScbfRowPass *rp = &rb->rp;
	GenericXLogState *xlog;
	Page		page;

	if (pageno >= rp->first + rp->npages)
	{
		Assert(pageno == rp->first + rp->npages);
		rp->first = pageno;
		rp->npages = Min(rb->src.chunk_pages, rp->band->pages - pageno);
		KeySourceFill(&rb->src, rp);
	}
	xlog = GenericXLogStart(rb->index);
	page = GenericXLogRegisterBuffer(xlog, buf, GENERIC_XLOG_FULL_IMAGE);
	ScbfInitRowPage(page, rp->band, pageno);
	memcpy(ScbfPageGetRows(page),
		   rp->chunk + (Size) (pageno - rp->first) * BLCKSZ,
		   ScbfBandPageBytes(rp->band));
	GenericXLogFinish(xlog);
}

/*
 * ScbfBandRebuild
 *		A new band in place of old, for the filters from old's first on of
 *		nfilters in all and a quarter more (ScbfBandPlan), of m
 *		positions a slice and capacity keys a filter (old's m differs), its
 *		bits set from the keys `keys` gives for each of its filters rather
 *		than copied: in free pages first (ScbfBandAllocate), in passes of as
 *		many pages as half of maintenance_work_mem holds, each asking for
 *		every filter's keys (a fold's, so not spilled); WAL-logged, the
 *		pages as full images, and its map.  nset[filter * k + slice]
 *		receives each of its filters' set bits per slice.  The old band
 *		stays for the probes that still read it, as with ScbfBandRelayout.
 */
void
ScbfBandRebuild(Relation index, ScbfState *state, const ScbfBand *old,
				uint32 m, uint32 capacity, uint32 nfilters, ScbfKeysFn keys,
				void *arg, ScbfBand *band, uint32 *nset)
{
	ScbfBandPlan(old->first, nfilters, SCBF_BAND_SPARE_GROWN, old->geom.k, m,
				 capacity, band);
	band->serial = old->serial + 1;
	if (BandEnd(band, nfilters) > band->first)
		memset(nset + (Size) band->first * band->geom.k, 0,
			   sizeof(uint32) * (BandEnd(band, nfilters) - band->first) *
			   band->geom.k);
	ScbfBandWrite(index, state, band, nfilters, keys, arg, nset, false);
}

/*
 * ScbfBandWrite
 *		Write a planned band (or group summary) whose bits are those of the
 *		keys `keys` gives for each of its columns below ncolumns: in free
 *		pages first (ScbfBandAllocate), in passes of as many pages as half
 *		of maintenance_work_mem holds, the keys asked once a pass, or, if
 *		spill and there is more than one pass, once in all and spilled to
 *		tapes (ScbfKeySource); WAL-logged, the pages as full images, and its
 *		map.  For a band, nset[filter * k + slice] counts each filter's set
 *		bits per slice.  A fold does not spill: the temporary file would be
 *		an INSERT's, and its writes are few passes (src/README, "Writing a
 *		band").
 */
void
ScbfBandWrite(Relation index, ScbfState *state, ScbfBand *band,
			  uint32 ncolumns, ScbfKeysFn keys, void *arg, uint32 *nset,
			  bool spill)
{
	ScbfRebuild rb;

	rb.index = index;
	rb.rp.state = state;
	rb.rp.band = band;
	rb.rp.nset = nset;
	rb.rp.first = 0;
	rb.rp.npages = 0;
	KeySourceStart(&rb.src, index, &rb.rp, BandEnd(band, ncolumns), keys,
				   arg, spill);
	rb.rp.chunk = palloc(Min(rb.src.chunk_pages, Max(band->pages, 1)) *
						 (Size) BLCKSZ);
	ScbfBandAllocate(index, band, RebuildRowPage, &rb);
	KeySourceEnd(&rb.src);
	pfree(rb.rp.chunk);
	ScbfWriteBandMap(index, band, true);
}

/* One bit to set or clear: its row in the band and its filter */
typedef struct ScbfBitOp
{
	uint64		row;			/* slice * m + position; a summary's
								 * block * SCBF_SUMMARY_BLOCK_BITS + bit */
	uint32		filterno;
} ScbfBitOp;

/*
 * Bit operations being applied: the operations of one pass, and what
 * ordering them by row page needs.  Allocated once per call of
 * ScbfRowsSet or ScbfRowsClear and reused by each pass: a fold sets k
 * bits for each of up to hundreds of thousands of keys, and building them
 * all at once costs more in fresh memory than in the work itself.
 */
typedef struct ScbfBitOps
{
	ScbfBitOp *ops;
	ScbfBitOp *sorted;
	Size		n;
	Size		max;
	Size	   *start;			/* per row page: where its operations begin;
								 * NULL: too many pages, sorted by qsort */
} ScbfBitOps;

/*
 * Pages per operation of a pass past which its operations are ordered by
 * qsort rather than by a counting sort over the band's pages (a summary
 * may have millions of pages and a fold a few keys)
 */
#define SCBF_BITOPS_COUNT_PAGES		4

/*
 * Room for max operations of a pass over band.
 */
static void
BitOpsInit(ScbfBitOps *bo, const ScbfBand *band, Size max)
{
	bo->max = Max(max, 1);
	bo->ops = palloc(sizeof(ScbfBitOp) * bo->max);
	bo->sorted = palloc(sizeof(ScbfBitOp) * bo->max);
	bo->start = NULL;
	if (band->pages <= SCBF_BITOPS_COUNT_PAGES * bo->max + 1024)
		bo->start = palloc(sizeof(Size) * ((Size) band->pages + 1));
	bo->n = 0;
}

/*
 * Release what BitOpsInit allocated.
 */
static void
BitOpsFree(ScbfBitOps *bo)
{
	pfree(bo->ops);
	pfree(bo->sorted);
	if (bo->start != NULL)
		pfree(bo->start);
}

/*
 * qsort comparator of bit operations: by row.
 */
static int
BitOpCmp(const void *a, const void *b)
{
	uint64		x = ((const ScbfBitOp *) a)->row;
	uint64		y = ((const ScbfBitOp *) b)->row;

	return x < y ? -1 : x > y ? 1 : 0;
}

/*
 * Apply the operations of one pass to the band, WAL-logged, one record per
 * row page: set them (counting each bit that was clear in its filter's
 * table entry, filters[filterno], unless filters is NULL) or clear them.
 * Checks that each lies in the band and orders them by page first (a
 * counting sort, or qsort if the band has many pages for the operations:
 * BitOpsInit).  Empties the pass.
 */
static void
ApplyBitOps(Relation index, ScbfState *state, const ScbfBand *band,
				 ScbfBitOps *bo, bool set, ScbfFilter **filters,
				 BlockNumber nblocks)
{
	uint32		rpp = band->rows_per_page;
	uint32		m = band->geom.m;
	ScbfBitOp *ops = bo->sorted;
	Size		n = bo->n;
	Size		i;
	uint32		p;

	for (i = 0; i < n; i++)
	{
		if (bo->ops[i].row / rpp >= band->pages ||
			bo->ops[i].filterno < band->first ||
			bo->ops[i].filterno - band->first >= band->width)
			elog(ERROR, "a row bit of index \"%s\" lies outside its band",
				 RelationGetRelationName(index));
	}
	if (bo->start == NULL)
	{
		memcpy(ops, bo->ops, sizeof(ScbfBitOp) * n);
		qsort(ops, n, sizeof(ScbfBitOp), BitOpCmp);
	}
	else
	{
		memset(bo->start, 0, sizeof(Size) * ((Size) band->pages + 1));
		for (i = 0; i < n; i++)
			bo->start[bo->ops[i].row / rpp + 1]++;
		for (p = 0; p < band->pages; p++)
			bo->start[p + 1] += bo->start[p];
		for (i = 0; i < n; i++)
			ops[bo->start[bo->ops[i].row / rpp]++] = bo->ops[i];
	}

	for (i = 0; i < n;)
	{
		uint32		pageno = (uint32) (ops[i].row / rpp);
		Buffer		buf;
		GenericXLogState *xlog;
		uint8	   *rows;

		CHECK_FOR_INTERRUPTS();
		buf = ScbfReadPage(index, ScbfBandBlock(band, pageno),
						   BUFFER_LOCK_EXCLUSIVE, ScbfBandPageType(band),
						   nblocks);
		xlog = GenericXLogStart(index);
		rows = ScbfPageGetRows(GenericXLogRegisterBuffer(xlog, buf, 0));
		for (; i < n && ops[i].row / rpp == pageno; i++)
		{
			if (!set)
				scbf_rows_clear(rows, (uint32) (ops[i].row % rpp), band->width,
								ops[i].filterno - band->first);
			else if (scbf_rows_set(rows, (uint32) (ops[i].row % rpp),
								   band->width,
								   ops[i].filterno - band->first) &&
					 filters != NULL)
				ScbfFilterAddBit(filters[ops[i].filterno],
								 (int) (ops[i].row / m));
		}
		GenericXLogFinish(xlog);
		UnlockReleaseBuffer(buf);
	}
	bo->n = 0;
}

/*
 * ScbfBandSetBits
 *		Set bit cols[i] (a column number of the band, counted as its first
 *		is) of row rows[i] for i in [0, n), WAL-logged, one record per page
 *		touched; the band's map read.
 */
void
ScbfBandSetBits(Relation index, const ScbfBand *band, const uint64 *rows,
				const uint32 *cols, Size n, BlockNumber nblocks)
{
	ScbfBitOps	bo;
	Size		i;

	if (n == 0)
		return;
	BitOpsInit(&bo, band, n);
	for (i = 0; i < n; i++)
	{
		bo.ops[i].row = rows[i];
		bo.ops[i].filterno = cols[i];
	}
	bo.n = n;
	ApplyBitOps(index, NULL, band, &bo, true, NULL, nblocks);
	BitOpsFree(&bo);
}

/*
 * The band of each of n filters (filterno(i)), as its index in bands, into
 * bandof[i]; a filter no band holds is an error.  Counts per band into
 * count[] (bands->nbands of them).
 */
static void
BandsOf(Relation index, const ScbfBands *bands, int n,
		uint32 (*filterno) (const void *, int), const void *arg,
		uint32 *bandof, Size *count)
{
	int			j;

	memset(count, 0, sizeof(Size) * Max(bands->nbands, 1));
	for (j = 0; j < n; j++)
	{
		const ScbfBand *b = ScbfBandOf(bands, filterno(arg, j));

		if (b == NULL)
			elog(ERROR, "filter %u of index \"%s\" lies outside its bands",
				 filterno(arg, j), RelationGetRelationName(index));
		bandof[j] = (uint32) (b - bands->bands);
		count[bandof[j]]++;
	}
}

/*
 * The filter of keys[i], for BandsOf.
 */
static uint32
KeyFilter(const void *arg, int i)
{
	return ((const ScbfRowKey *) arg)[i].filterno;
}

/*
 * The filter of bits[i], for BandsOf.
 */
static uint32
BitFilter(const void *arg, int i)
{
	return ((const ScbfRowBit *) arg)[i].filterno;
}

/*
 * ScbfRowsSet
 *		Set the bits of keys[0 .. n) in the bands of their filters (the
 *		maps of those bands read if they are not), WAL-logged, one record per row page touched; count each bit
 *		that was clear in its filter's table entry (filters[filterno]),
 *		unless filters is NULL (the delta's merge: ScbfKeyBits counted
 *		them).
 *
 * Per band, one pass per slice: a slice's rows are contiguous pages of the
 * band, so each pass writes its own pages, and a pass holds one operation
 * per key.
 *
 * Called by the fold, under the fold lock, before it commits: a bit is
 * set before the entry that needs it becomes visible (invariant I4).
 */
void
ScbfRowsSet(Relation index, ScbfState *state, const ScbfBands *bands,
			 const ScbfRowKey *keys, int n, ScbfFilter **filters,
			 BlockNumber nblocks)
{
	uint64	   *fkeys;
	uint32	   *bandof;
	Size	   *count;
	uint32		bi;
	int			j;

	if (n == 0)
		return;
	bandof = palloc(sizeof(uint32) * n);
	count = palloc(sizeof(Size) * Max(bands->nbands, 1));
	BandsOf(index, bands, n, KeyFilter, keys, bandof, count);
	/* each key's filter key, from which each slice's position follows */
	fkeys = palloc(sizeof(uint64) * n);
	for (j = 0; j < n; j++)
		fkeys[j] = ScbfFilterKey(state, keys[j].col, keys[j].hash);
	/* the summaries first: a bit there is never needed before its rows' */
	ScbfSummarySet(index, bands, bandof, fkeys, n, nblocks);
	for (bi = 0; bi < bands->nbands; bi++)
	{
		const ScbfBand *band;
		ScbfBand	copy;
		ScbfBitOps	bo;
		uint32		s;

		if (count[bi] == 0)
			continue;
		band = ScbfBandMapped(index, &bands->bands[bi], &copy, nblocks);
		BitOpsInit(&bo, band, count[bi]);
		for (s = 0; s < band->geom.k; s++)
		{
			for (j = 0; j < n; j++)
			{
				if (bandof[j] != bi)
					continue;
				bo.ops[bo.n].row = (uint64) s * band->geom.m +
					scbf_filter_position(fkeys[j], &band->geom, s);
				bo.ops[bo.n].filterno = keys[j].filterno;
				bo.n++;
			}
			ApplyBitOps(index, state, band, &bo, true, filters, nblocks);
		}
		BitOpsFree(&bo);
	}
	pfree(fkeys);
	pfree(bandof);
	pfree(count);
}

/*
 * ScbfKeyBits
 *		Count in their filters' table entries (filters[filterno]) a set bit
 *		in every slice for each of keys[0 .. n), which go to the delta
 *		instead of the band: an upper bound of the bits they will set, as
 *		some of them are set already (scbfdelta.c).
 */
void
ScbfKeyBits(ScbfState *state, const ScbfRowKey *keys, int n,
			 ScbfFilter **filters)
{
	int			j;
	uint32		s;

	for (j = 0; j < n; j++)
		for (s = 0; s < state->k; s++)
			ScbfFilterAddBit(filters[keys[j].filterno], s);
}

/*
 * ScbfRowsClear
 *		Clear bits[0 .. n) in the bands of their filters (the maps of those
 *		bands read if they are not), WAL-logged, one record per row page touched.
 *
 * Invariant I4 (src/README): only VACUUM calls this, under the fold lock,
 * after the commit that took the last ledger entry needing each bit out
 * of its filter's visible runs; a crash before leaves the bits set.
 */
void
ScbfRowsClear(Relation index, ScbfState *state, const ScbfBands *bands,
			   const ScbfRowBit *bits, int n, BlockNumber nblocks)
{
	uint32	   *bandof;
	Size	   *count;
	uint32		bi;
	int			j;

	if (n == 0)
		return;
	bandof = palloc(sizeof(uint32) * n);
	count = palloc(sizeof(Size) * Max(bands->nbands, 1));
	BandsOf(index, bands, n, BitFilter, bits, bandof, count);
	for (bi = 0; bi < bands->nbands; bi++)
	{
		const ScbfBand *band;
		ScbfBand	copy;
		ScbfBitOps	bo;

		if (count[bi] == 0)
			continue;
		band = ScbfBandMapped(index, &bands->bands[bi], &copy, nblocks);
		BitOpsInit(&bo, band, count[bi]);
		for (j = 0; j < n; j++)
		{
			if (bandof[j] != bi)
				continue;
			bo.ops[bo.n].row = (uint64) bits[j].slice * band->geom.m +
				bits[j].position;
			bo.ops[bo.n].filterno = bits[j].filterno;
			bo.n++;
		}
		ApplyBitOps(index, state, band, &bo, false, NULL, nblocks);
		BitOpsFree(&bo);
	}
	pfree(bandof);
	pfree(count);
}

/* A relayout: the new band, and the old one it copies the bits of */
typedef struct ScbfRelayout
{
	Relation	index;
	const ScbfBand *old;
	const ScbfBand *band;
	uint64		nrows;			/* k * m */
	Page		oldcopy;		/* a copy of page oldpage of the old band */
	uint32		oldpage;
	BlockNumber nblocks;
} ScbfRelayout;

/*
 * ScbfExtend callback of a relayout: page pageno of the new band, with
 * the old band's bits of its rows, WAL-logged as a full image.
 */
static void
RelayoutRowPage(Buffer buf, uint32 pageno, void *arg)
{
	ScbfRelayout *rl = (ScbfRelayout *) arg;
	const ScbfBand *old = rl->old;
	const ScbfBand *band = rl->band;
	GenericXLogState *xlog = GenericXLogStart(rl->index);
	Page		page;
	uint64		r;

	page = GenericXLogRegisterBuffer(xlog, buf, GENERIC_XLOG_FULL_IMAGE);
	ScbfInitRowPage(page, band, pageno);

	/* each row's old bits, at the start of its new, wider row */
	for (r = (uint64) pageno * band->rows_per_page;
		 old->pages > 0 && r < rl->nrows &&
		 r < (uint64) (pageno + 1) * band->rows_per_page; r++)
	{
		uint32		op = (uint32) (r / old->rows_per_page);

		if (op != rl->oldpage)
		{
			BlockNumber oblk = ScbfBandBlock(old, op);
			Buffer		obuf = ScbfReadPage(rl->index, oblk,
											BUFFER_LOCK_SHARE,
											ScbfBandPageType(old),
											rl->nblocks);

			memcpy(rl->oldcopy, BufferGetPage(obuf), BLCKSZ);
			UnlockReleaseBuffer(obuf);
			if (ScbfPageGetOpaque(rl->oldcopy)->ident.rows.band_serial != old->serial ||
				ScbfPageGetOpaque(rl->oldcopy)->ident.rows.pageno != op)
				ScbfReportCorrupt(rl->index, oblk,
								  "A row page is not the one the band has there.");
			rl->oldpage = op;
		}
		if (old->width % 8 == 0 && band->width % 8 == 0)
			memcpy(ScbfPageGetRows(page) +
				   (Size) (r % band->rows_per_page) * band->width / 8,
				   ScbfPageGetRows(rl->oldcopy) +
				   (Size) (r % old->rows_per_page) * old->width / 8,
				   old->width / 8);
		else
		{
			uint32		c;

			/* a group's rows of any width: bit by bit */
			for (c = 0; c < old->width; c++)
				if (scbf_rows_test(ScbfPageGetRows(rl->oldcopy),
								   (uint32) (r % old->rows_per_page),
								   old->width, c))
					scbf_rows_set(ScbfPageGetRows(page),
								  (uint32) (r % band->rows_per_page),
								  band->width, c);
		}
	}
	GenericXLogFinish(xlog);
}

/*
 * ScbfBandRelayout
 *		A new band in place of old, for its filters of nfilters in all and
 *		a quarter more (see ScbfBandPlan), in free pages first
 *		(ScbfBandAllocate), holding the bits of the old band (none if it has no
 *		pages; else its map read), and its map; WAL-logged, the pages as
 *		full images.  The old band stays as it is for the probes that still
 *		read it; the fold's metapage record switches to the new one and
 *		hands the old one to the graveyard.
 */
void
ScbfBandRelayout(Relation index, ScbfState *state, const ScbfBand *old,
				  uint32 nfilters, ScbfBand *band, BlockNumber nblocks)
{
	ScbfBandPlan(old->first, nfilters, SCBF_BAND_SPARE_GROWN, old->geom.k,
				 old->geom.m, old->capacity, band);
	band->serial = old->serial + 1;
	ScbfBandCopy(index, old, band, nblocks);
}

/*
 * ScbfBandCopy
 *		Write band, planned as wide as old or wider with old's rows, in
 *		free pages first (ScbfBandAllocate), each row holding old's bits at
 *		its start (none if old has no pages; else old's map read), and its
 *		map; WAL-logged, the pages as full images.
 */
void
ScbfBandCopy(Relation index, const ScbfBand *old, ScbfBand *band,
			 BlockNumber nblocks)
{
	ScbfRelayout rl;

	Assert(band->kind == old->kind && band->width >= old->width);
	rl.index = index;
	rl.old = old;
	rl.band = band;
	rl.nrows = (uint64) band->geom.k * band->geom.m;
	rl.oldcopy = palloc(BLCKSZ);
	rl.oldpage = InvalidBlockNumber;
	rl.nblocks = nblocks;
	ScbfBandAllocate(index, band, RelayoutRowPage, &rl);
	pfree(rl.oldcopy);
	ScbfWriteBandMap(index, band, true);
}

/*
 * ScbfBandOpen
 *		A new band from filter first on, for nfilters filters in all (see
 *		ScbfBandPlan), of k slices of m positions and capacity keys a
 *		filter, with the page serial serial: no bit set, in free pages
 *		first, and its map; WAL-logged as ScbfBandRelayout's.
 */
void
ScbfBandOpen(Relation index, ScbfState *state, uint32 first,
			 uint32 nfilters, uint32 m, uint32 capacity, uint32 serial,
			 ScbfBand *band, BlockNumber nblocks)
{
	ScbfBand	none;

	memset(&none, 0, sizeof(none));
	none.geom.k = state->k;
	none.geom.m = m;
	none.capacity = capacity;
	none.first = first;
	none.serial = serial - 1;
	ScbfBandRelayout(index, state, &none, nfilters, band, nblocks);
}

/*
 * ScbfBandCount
 *		Count each of its filters' set bits per slice in a band (its map
 *		read): nset[filter * k + slice] for its filters below nfilters.  A
 *		page that is not the band's is corruption.
 */
void
ScbfBandCount(Relation index, ScbfState *state, const ScbfBand *band,
			  uint32 nfilters, uint32 *nset, BlockNumber nblocks)
{
	uint32		k = band->geom.k;
	uint64		nrows = (uint64) k * band->geom.m;
	uint32		nf = BandEnd(band, nfilters) > band->first ?
		BandEnd(band, nfilters) - band->first : 0;
	uint8	   *rows = palloc(BLCKSZ);
	uint32		p;

	if (nf > 0)
		memset(nset + (Size) band->first * k, 0, sizeof(uint32) * nf * k);
	for (p = 0; p < band->pages; p++)
	{
		uint64		first = (uint64) p * band->rows_per_page;
		uint32		r;

		CHECK_FOR_INTERRUPTS();
		if (first >= nrows)
			break;
		if (!ScbfBandReadPage(index, band, p, rows, nblocks))
			ScbfReportCorrupt(index, ScbfBandBlock(band, p),
							  "A row page is not the one the band has there.");
		for (r = 0; r < band->rows_per_page && first + r < nrows; r++)
		{
			uint32		slice = (uint32) ((first + r) / band->geom.m);
			uint32		f = 0;

			while ((f = scbf_rows_next(rows + (Size) r * band->width / 8,
									   nf, f)) < nf)
				nset[(Size) (band->first + f++) * k + slice]++;
		}
	}
	pfree(rows);
}

/*
 * ScbfBandPageBytes
 *		Bytes of rows on one page of a band.
 */
Size
ScbfBandPageBytes(const ScbfBand *band)
{
	return ((Size) band->rows_per_page * band->width + 7) / 8;
}

/*
 * ScbfBandReadPage
 *		Copy the rows of page pageno of a band into rows
 *		(ScbfBandPageBytes(band) bytes).  Returns false, copying nothing,
 *		if the block is outside the index or is not that page of that band
 *		(type, band serial, page number): the verifier says why.
 */
bool
ScbfBandReadPage(Relation index, const ScbfBand *band, uint32 pageno,
				  uint8 *rows, BlockNumber nblocks)
{
	BlockNumber blkno = ScbfBandBlock(band, pageno);
	Size		nbytes = ScbfBandPageBytes(band);
	Buffer		buf;
	Page		page;
	bool		ok;

	if (pageno >= band->pages || blkno == SCBF_METAPAGE_BLKNO ||
		blkno >= nblocks || nbytes > SCBF_PAGE_SPACE)
		return false;
	buf = ScbfReadBuffer(index, blkno);
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buf);
	ok = ScbfPageHasOpaque(page) &&
		ScbfPageGetOpaque(page)->type == ScbfBandPageType(band) &&
		ScbfPageGetOpaque(page)->ident.rows.band_serial == band->serial &&
		ScbfPageGetOpaque(page)->ident.rows.pageno == pageno;
	if (ok)
		memcpy(rows, ScbfPageGetRows(page), nbytes);
	UnlockReleaseBuffer(buf);
	return ok;
}
