/*-------------------------------------------------------------------------
 *
 * scbfsummary.c
 *	  The summaries of groups of bands: which bands a probe may skip.
 *
 * NOTES
 *	  Past one band, a probe that ANDed the k rows of every band would
 *	  read k pages a band.  So consecutive bands form groups (at most
 *	  ScbfGroupLimit() bands each), and a group keeps, for each of its
 *	  bands, a summary: a blocked Bloom filter over the keys of all the
 *	  band's filters (scbf_summary_rows).  The summaries of a group are
 *	  stored bit-sliced, as a band's filters are: a group is an ScbfBand of
 *	  kind SCBF_BAND_SUMMARY whose columns are bands, its rows the blocks'
 *	  bits, a whole number of blocks a page.  A probe reads the one page of
 *	  each group that holds its key's block, ANDs the key's rows there, and
 *	  probes only the bands whose bit survives (ScbfRowsProbe).
 *
 *	  A group's blocks are fixed when it opens, from the capacity of its
 *	  first band's filters; it is written anew, wider, as bands open past
 *	  its width, until it is ScbfGroupLimit() bands wide, as the last band
 *	  is (src/README, "Summaries of bands").  The first group opens with
 *	  the second band: a single band needs no summary.  Bits are set with
 *	  the rows' (ScbfRowsSet), before the commit that makes their keys
 *	  visible (invariant I4); they are never cleared, so a key VACUUM
 *	  removed may still send a probe to its band, never the reverse.
 *
 *	  Past two groups, a probe would read a page a group.  So the top
 *	  summarizes the groups as a group summarizes bands: a summary whose
 *	  columns are groups, each over every key of its group's bands, at
 *	  SCBF_TOP_KEY_BITS bits a key (its rows may pass 2^32).  VACUUM or a
 *	  build writes it from the ledgers (ScbfTopWrite), wider than the
 *	  groups it covers; a fold that opens a group within its width starts
 *	  that group's column empty and covers it (ScbfGroupsCover), and folds
 *	  set the top's bits with the groups' (ScbfSummarySet).  A probe reads
 *	  the top's page of its key and the pages of the covered groups whose
 *	  bit survives, and those of the groups it does not cover
 *	  (ScbfRowsProbe).
 *
 * Portions Copyright (c) 2026, scbf developers
 *
 * IDENTIFICATION
 *	  src/scbfsummary.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/rel.h"

#include "scbf.h"
#include "scbf_page.h"

/*
 * The bands a group holds at most: 120 bands of one bit each leave room
 * for one block of rows on a page (SCBF_SUMMARY_BLOCK_BITS rows).
 */
#define SCBF_GROUP_BANDS			120

/*
 * scbf.test_group_bands: the bands a group holds at most, if not 0 (a
 * setting only the tests use, so that they cross groups with few rows);
 * else SCBF_GROUP_BANDS.
 */
int			scbf_test_group_bands = 0;

/* What a group's write asks for: the keys of the bands it summarizes */
typedef struct ScbfGroupKeys
{
	const ScbfBands *bands;
	uint32		nfilters;		/* filters whose keys count */
	ScbfKeysFn	keys;			/* a filter's keys */
	void	   *arg;
} ScbfGroupKeys;

StaticAssertDecl(SCBF_GROUP_BANDS * SCBF_SUMMARY_BLOCK_BITS <=
				 SCBF_PAGE_SPACE * 8,
				 "a page must hold a block of rows of a full group");
StaticAssertDecl(SCBF_TOP_GROUPS * SCBF_SUMMARY_BLOCK_BITS <=
				 SCBF_PAGE_SPACE * 8,
				 "a page must hold a block of rows of a full top");

/*
 * ScbfGroupLimit
 *		The bands a group may hold: SCBF_GROUP_BANDS, or fewer if
 *		scbf.test_group_bands says so.
 */
uint32
ScbfGroupLimit(void)
{
	if (scbf_test_group_bands > 0)
		return Min(SCBF_GROUP_BANDS, (uint32) scbf_test_group_bands);
	return SCBF_GROUP_BANDS;
}

/*
 * The blocks of a group that opens with band: for each key a full band of
 * its filters holds (capacity a filter), SCBF_SUMMARY_KEY_BITS bits, or as
 * many as a filter has a key if fewer (an index built for a high rate:
 * the summary need not exclude a band more surely than its rows would), at
 * most what 32-bit row numbers address (past it, the summary's rate rises).
 */
static uint32
GroupBlocks(const ScbfBand *band)
{
	uint32		capacity = Max(band->capacity, 1);
	uint64		keybits = Min((uint64) SCBF_SUMMARY_KEY_BITS,
							  Max((uint64) band->geom.k * band->geom.m / capacity,
								  1));
	uint64		bits = (uint64) ScbfBandLimit() * capacity * keybits;
	uint64		blocks = (bits + SCBF_SUMMARY_BLOCK_BITS - 1) /
		SCBF_SUMMARY_BLOCK_BITS;

	return (uint32) Max(Min(blocks, PG_UINT32_MAX / SCBF_SUMMARY_BLOCK_BITS),
						1);
}

/*
 * Plan a summary (a group's or the top) of width columns from first on,
 * of blocks blocks: as many rows a page as the width leaves room for, in
 * whole blocks.  Its m is left 0 (ScbfBand's is 32-bit: a top's rows,
 * blocks x SCBF_SUMMARY_BLOCK_BITS, may pass 2^32); its pages count them
 * in 64 bits.
 */
static void
SummaryPlan(uint32 first, uint32 width, uint32 blocks, uint32 serial,
			ScbfBand *band)
{
	memset(band, 0, sizeof(ScbfBand));
	band->kind = SCBF_BAND_SUMMARY;
	band->geom.k = 1;
	band->capacity = blocks;
	band->first = first;
	band->width = width;
	band->rows_per_page =
		TYPEALIGN_DOWN(SCBF_SUMMARY_BLOCK_BITS,
					   (uint32) (((uint64) SCBF_PAGE_SPACE * 8) / width));
	band->pages = (uint32) (((uint64) blocks * SCBF_SUMMARY_BLOCK_BITS +
							 band->rows_per_page - 1) / band->rows_per_page);
	band->map = InvalidBlockNumber;
	band->serial = serial;
}

/*
 * Plan the group from band first on of blocks blocks, for nbands bands in
 * all and half as many more (at least one), up to ScbfGroupLimit() wide:
 * as many rows a page as the width leaves room for, in whole blocks.  A
 * column costs a band's summary whether the band exists yet or not, so
 * the spare is kept small and the width is any number of bits, not whole
 * bytes as a band's.
 */
static void
GroupPlan(uint32 first, uint32 nbands, uint32 blocks, uint32 serial,
		  ScbfBand *group)
{
	uint32		n = nbands > first ? nbands - first : 0;
	uint64		width = (uint64) n + Max(n / 2, 1);

	width = Min(width, ScbfGroupLimit());
	SummaryPlan(first, (uint32) width, blocks, serial, group);
	group->geom.m = blocks * SCBF_SUMMARY_BLOCK_BITS;
}

/*
 * ScbfGroupNextSerial
 *		The serial of a group or top written next: above every group's and
 *		the top's, so that a summary page's serial and page number name one
 *		group's page or the top's.
 */
uint32
ScbfGroupNextSerial(const ScbfBands *bands)
{
	uint32		serial = 0;
	uint32		g;

	for (g = 0; g < bands->ngroups; g++)
		serial = Max(serial, bands->groups[g].serial);
	if (bands->top.width > 0)
		serial = Max(serial, bands->top.serial);
	return serial + 1;
}

/*
 * ScbfGroupOf
 *		The group that summarizes band bandno, or NULL if none does.
 */
const ScbfBand *
ScbfGroupOf(const ScbfBands *bands, uint32 bandno)
{
	uint32		g;

	for (g = 0; g < bands->ngroups; g++)
		if (bandno >= bands->groups[g].first &&
			bandno - bands->groups[g].first < bands->groups[g].width)
			return &bands->groups[g];
	return NULL;
}

/*
 * ScbfSummaryProbe
 *		mask |= the bands of group (bit b for band b) whose summary may
 *		hold the filter key fkey: the AND of its rows, on the one page of
 *		the group that holds its block.  False if that page is not the
 *		group's (a fold wrote the group anew and its old pages were
 *		recycled): the caller starts over from a new metapage copy.
 */
bool
ScbfSummaryProbe(Relation index, const ScbfBand *group, uint64 fkey,
				 uint8 *mask, BlockNumber nblocks)
{
	uint64		rows[SCBF_SUMMARY_K];
	uint32		pageno;
	BlockNumber blkno;
	Buffer		buf;
	Page		page;
	const uint8 *space;
	uint32		c;
	uint32		i;

	scbf_summary_rows(fkey, group->capacity, rows);
	pageno = (uint32) (rows[0] / group->rows_per_page);
	blkno = ScbfBandBlock(group, pageno);
	if (blkno == SCBF_METAPAGE_BLKNO || blkno >= nblocks)
		ScbfReportCorrupt(index, blkno,
						  "The summary of a group of bands leaves the index.");
	buf = ScbfReadBuffer(index, blkno);
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buf);
	if (!ScbfPageHasOpaque(page) ||
		ScbfPageGetOpaque(page)->type != SCBF_PAGE_SUMMARY ||
		ScbfPageGetOpaque(page)->ident.rows.band_serial != group->serial ||
		ScbfPageGetOpaque(page)->ident.rows.pageno != pageno)
	{
		UnlockReleaseBuffer(buf);
		return false;
	}
	/* a band whose bit is set in all the key's rows (few bands: bit by bit) */
	space = ScbfPageGetRows(page);
	for (c = 0; c < group->width; c++)
	{
		for (i = 0; i < SCBF_SUMMARY_K; i++)
			if (!scbf_rows_test(space,
								(uint32) (rows[i] % group->rows_per_page),
								group->width, c))
				break;
		if (i == SCBF_SUMMARY_K)
			mask[(group->first + c) / 8] |= 1 << ((group->first + c) % 8);
	}
	UnlockReleaseBuffer(buf);
	return true;
}

/*
 * ScbfSummaryHas
 *		True if the summary of group has the filter key fkey's bits for
 *		band bandno (the verifier's check of invariant I4).  *ok becomes
 *		false if the page is not the group's.
 */
bool
ScbfSummaryHas(Relation index, const ScbfBand *group, uint32 bandno,
			   uint64 fkey, BlockNumber nblocks, bool *ok)
{
	uint8		mask[SCBF_MAX_GROUPS * SCBF_GROUP_BANDS / 8 + 1];

	memset(mask, 0, sizeof(mask));
	*ok = (group->first + group->width) / 8 < sizeof(mask) &&
		ScbfSummaryProbe(index, group, fkey, mask, nblocks);
	return *ok && (mask[bandno / 8] & (1 << (bandno % 8))) != 0;
}

/*
 * ScbfSummarySet
 *		Set the summary bits of filter keys fkeys[0 .. n), each for its
 *		band bandof[i], in the groups of those bands and in the top's
 *		columns of those groups (maps read as needed), WAL-logged, one
 *		record per summary page touched.  Bands past the last group have
 *		no summary, groups past the top's width no column.  Under the fold
 *		lock, before the commit that makes the keys visible.
 */
void
ScbfSummarySet(Relation index, const ScbfBands *bands, const uint32 *bandof,
			   const uint64 *fkeys, int n, BlockNumber nblocks)
{
	uint64	   *rows;
	uint32	   *cols;
	uint32		g;

	if (bands->ngroups == 0 || n == 0)
		return;
	rows = palloc(sizeof(uint64) * SCBF_SUMMARY_K * n);
	cols = palloc(sizeof(uint32) * SCBF_SUMMARY_K * n);
	for (g = 0; g < bands->ngroups; g++)
	{
		const ScbfBand *group = &bands->groups[g];
		ScbfBand	copy;
		Size		nops = 0;
		int			j;
		int			i;

		for (j = 0; j < n; j++)
		{
			if (bandof[j] < group->first ||
				bandof[j] - group->first >= group->width)
				continue;
			scbf_summary_rows(fkeys[j], group->capacity, rows + nops);
			for (i = 0; i < SCBF_SUMMARY_K; i++)
				cols[nops + i] = bandof[j];
			nops += SCBF_SUMMARY_K;
		}
		if (nops == 0)
			continue;
		group = ScbfBandMapped(index, group, &copy, nblocks);
		ScbfBandSetBits(index, group, rows, cols, nops, nblocks);
	}
	if (bands->top.width > 0)
	{
		/* the top's bits: column g for a key of group g */
		const ScbfBand *top = &bands->top;
		ScbfBand	copy;
		Size		nops = 0;
		int			j;
		int			i;

		for (j = 0; j < n; j++)
		{
			const ScbfBand *group = ScbfGroupOf(bands, bandof[j]);
			uint32		g;

			if (group == NULL)
				continue;
			g = (uint32) (group - bands->groups);
			if (g >= top->width)
				continue;
			scbf_summary_rows(fkeys[j], top->capacity, rows + nops);
			for (i = 0; i < SCBF_SUMMARY_K; i++)
				cols[nops + i] = g;
			nops += SCBF_SUMMARY_K;
		}
		if (nops > 0)
		{
			top = ScbfBandMapped(index, top, &copy, nblocks);
			ScbfBandSetBits(index, top, rows, cols, nops, nblocks);
		}
	}
	pfree(rows);
	pfree(cols);
}

/*
 * What a group's write asks for: the keys of the filters below nfilters of
 * bands, each given by keys.
 */
static void
GroupKeysInit(ScbfGroupKeys *gk, const ScbfBands *bands, uint32 nfilters,
			  ScbfKeysFn keys, void *arg)
{
	gk->bands = bands;
	gk->nfilters = nfilters;
	gk->keys = keys;
	gk->arg = arg;
}

/*
 * ScbfKeysFn of a group's write: the keys of every filter of band bandno
 * (below gk->nfilters).
 */
static void
GroupBandKeys(uint32 bandno, ScbfKeyFn emit, void *emit_arg, void *arg)
{
	ScbfGroupKeys *gk = (ScbfGroupKeys *) arg;
	const ScbfBand *band = &gk->bands->bands[bandno];
	uint32		end = Min(gk->nfilters, band->first + band->width);
	uint32		f;

	for (f = band->first; f < end; f++)
	{
		CHECK_FOR_INTERRUPTS();
		gk->keys(f, emit, emit_arg, gk->arg);
	}
}

/*
 * ScbfGroupsCover
 *		The groups a fold's bands need, into bands->groups (room for
 *		SCBF_MAX_GROUPS): committed's, the last one written anew, wider,
 *		or new ones opened after it, until they summarize every band of
 *		bands (or SCBF_MAX_GROUPS are open).  The first group opens when
 *		there are two bands.  A new group is written with the summaries of
 *		the bands committed holds, from their filters' keys (`keys`, below
 *		nfilters: band 0's, for the first); the summaries of the bands
 *		opened since are empty, and the fold sets their keys' bits
 *		(ScbfRowsSet).  A new group of new bands within the top's width
 *		is covered by the top from its opening.  WAL-logged; the
 *		groups replaced stay for the probes that still read them, and the
 *		fold's commit hands them to the graveyard.
 */
void
ScbfGroupsCover(Relation index, ScbfState *state, const ScbfBands *committed,
				ScbfBands *bands, uint32 nfilters, ScbfKeysFn keys,
				void *arg, BlockNumber nblocks)
{
	uint32		nb = bands->nbands;
	uint32		ng = committed->ngroups;

	ScbfGroupKeys gk;

	memcpy(bands->groups, committed->groups, sizeof(ScbfBand) * ng);
	bands->ngroups = ng;
	bands->top = committed->top;
	bands->covered = committed->covered;
	if (nb < 2)
		return;
	GroupKeysInit(&gk, bands, nfilters, keys, arg);
	for (;;)
	{
		ScbfBand   *last = ng > 0 ? &bands->groups[ng - 1] : NULL;
		uint32		end = last != NULL ? last->first + last->width : 0;
		ScbfBand	next;

		if (end >= nb)
			break;
		if (last == NULL ||
			(last->width >= ScbfGroupLimit() && ng < SCBF_MAX_GROUPS))
		{
			/*
			 * a new group after the last, with the summaries of the
			 * committed bands it holds (the first group's, band 0's)
			 */
			GroupPlan(end, nb, GroupBlocks(&bands->bands[end]),
					  ScbfGroupNextSerial(bands), &next);
			ScbfBandWrite(index, state, &next, committed->nbands,
						  GroupBandKeys, &gk, NULL, false);

			/*
			 * a group of new bands only, holding no key yet, has its top
			 * column complete if it has one: this fold sets its bits
			 */
			if (next.first >= committed->nbands && ng == bands->covered &&
				ng < bands->top.width)
				bands->covered = ng + 1;
			bands->groups[ng++] = next;
			bands->ngroups = ng;
		}
		else if (last->width < ScbfGroupLimit())
		{
			ScbfBand	copy;
			const ScbfBand *old = ScbfBandMapped(index, last, &copy, nblocks);

			/* the last group, wider, its summaries copied */
			GroupPlan(last->first, nb, last->capacity,
					  ScbfGroupNextSerial(bands), &next);
			ScbfBandCopy(index, old, &next, nblocks);
			next.removed = last->removed;
			*last = next;
		}
		else
			break;
	}
}

/*
 * ScbfGroupRebuild
 *		Group g of bands written anew, as wide and as many blocks, with a
 *		new serial, from the keys `keys` gives for the filters of its bands
 *		(below nfilters): what VACUUM does once the group's bands lost
 *		enough keys that its summary sends probes to bands that no longer
 *		hold them.  In free pages first, WAL-logged; the old group stays
 *		for the probes that still read it, until the commit that names the
 *		new one hands it to the graveyard.
 */
void
ScbfGroupRebuild(Relation index, ScbfState *state, const ScbfBands *bands,
				 uint32 g, uint32 nfilters, ScbfKeysFn keys, void *arg,
				 ScbfBand *group)
{
	ScbfGroupKeys gk;

	*group = bands->groups[g];
	group->serial = ScbfGroupNextSerial(bands);
	group->map = InvalidBlockNumber;
	group->nruns = 0;
	group->runs = NULL;
	group->removed = 0;
	GroupKeysInit(&gk, bands, nfilters, keys, arg);
	ScbfBandWrite(index, state, group,
				  Min(bands->nbands, group->first + group->width),
				  GroupBandKeys, &gk, NULL, true);
}

/*
 * ScbfGroupsBuild
 *		The groups of a new index's bands (none for a single band), each
 *		written at the relation's end from the keys of its bands' filters
 *		(`keys`, below nfilters), unlogged: the build WAL-logs the whole
 *		index at its end.
 */
void
ScbfGroupsBuild(Relation index, ScbfState *state, ScbfBands *bands,
				uint32 nfilters, ScbfKeysFn keys, void *arg)
{
	ScbfGroupKeys gk;
	uint32		nb = bands->nbands;
	uint32		first = 0;
	uint32		serial = 1;

	bands->ngroups = 0;
	if (nb < 2)
		return;
	GroupKeysInit(&gk, bands, nfilters, keys, arg);
	while (first < nb && bands->ngroups < SCBF_MAX_GROUPS)
	{
		ScbfBand   *group = &bands->groups[bands->ngroups++];

		GroupPlan(first, nb, GroupBlocks(&bands->bands[first]), serial++,
				  group);
		ScbfBandBuild(index, state, group, nb, GroupBandKeys, &gk, NULL);
		first += group->width;
	}
}

/*
 * Bits a key of the top: each of its columns holds every key of a group,
 * so it costs these bits a key of the whole index (src/README, "Step 5").
 */
#define SCBF_TOP_KEY_BITS			12

/*
 * The blocks of a top: for each key a full group of bands of the largest
 * capacity holds, SCBF_TOP_KEY_BITS bits (or as many as that band's
 * filters have a key, if fewer), at most PG_UINT32_MAX blocks (2^41 bits
 * a column).
 */
static uint32
TopBlocks(const ScbfBands *bands)
{
	const ScbfBand *widest = &bands->bands[0];
	uint64		keybits;
	uint64		bits;
	uint64		blocks;
	uint32		b;

	for (b = 1; b < bands->nbands; b++)
		if (bands->bands[b].capacity > widest->capacity)
			widest = &bands->bands[b];
	keybits = Min((uint64) SCBF_TOP_KEY_BITS,
				  Max((uint64) widest->geom.k * widest->geom.m /
					  Max(widest->capacity, 1), 1));
	bits = (uint64) ScbfGroupLimit() * ScbfBandLimit() *
		Max(widest->capacity, 1) * keybits;
	blocks = (bits + SCBF_SUMMARY_BLOCK_BITS - 1) / SCBF_SUMMARY_BLOCK_BITS;
	return (uint32) Max(Min(blocks, PG_UINT32_MAX), 1);
}

/*
 * ScbfKeysFn of a top's write: the keys of every band of group g (of its
 * filters below gk->nfilters).
 */
static void
TopGroupKeys(uint32 g, ScbfKeyFn emit, void *emit_arg, void *arg)
{
	ScbfGroupKeys *gk = (ScbfGroupKeys *) arg;
	const ScbfBand *group = &gk->bands->groups[g];
	uint32		end = Min(gk->bands->nbands, group->first + group->width);
	uint32		b;

	for (b = group->first; b < end; b++)
		GroupBandKeys(b, emit, emit_arg, arg);
}

/*
 * ScbfTopNeeded
 *		True if VACUUM or a build should write the top of bands anew: there
 *		are two groups or more and no top, or groups the top does not
 *		cover that it could, or it lost a quarter of the keys (keys, the
 *		keys its covered groups' bands hold now) since it was written.
 */
bool
ScbfTopNeeded(const ScbfBands *bands, uint64 keys)
{
	if (bands->ngroups < 2)
		return false;
	if (bands->top.width == 0)
		return true;
	if (bands->covered < Min(bands->ngroups, SCBF_TOP_GROUPS))
		return true;
	return bands->top.removed > 0 && bands->top.removed >= keys / 4;
}

/*
 * ScbfTopWrite
 *		A top over the groups of bands, written anew from the keys `keys`
 *		gives for the filters of their bands (below nfilters), into *top:
 *		covering every group (up to SCBF_TOP_GROUPS), with a spare half
 *		for the groups to come, of the old top's blocks or, for a first
 *		top, TopBlocks'.  Returns the groups it covers.  For VACUUM (build
 *		false): in free pages first, WAL-logged, the keys spilled if it
 *		takes more than one pass; the old top stays for the probes that
 *		still read it until the commit that names the new one hands it to
 *		the graveyard.  For a build: at the relation's end, unlogged.
 */
uint32
ScbfTopWrite(Relation index, ScbfState *state, const ScbfBands *bands,
			 uint32 nfilters, ScbfKeysFn keys, void *arg, bool build,
			 ScbfBand *top)
{
	uint32		covered = Min(bands->ngroups, SCBF_TOP_GROUPS);
	uint32		width = Min(covered + Max(covered / 2, 1), SCBF_TOP_GROUPS);
	ScbfGroupKeys gk;

	Assert(covered >= 1);
	SummaryPlan(0, width,
				bands->top.width > 0 ? bands->top.capacity : TopBlocks(bands),
				ScbfGroupNextSerial(bands), top);
	GroupKeysInit(&gk, bands, nfilters, keys, arg);
	if (build)
		ScbfBandBuild(index, state, top, covered, TopGroupKeys, &gk, NULL);
	else
		ScbfBandWrite(index, state, top, covered, TopGroupKeys, &gk, NULL,
					  true);
	return covered;
}
