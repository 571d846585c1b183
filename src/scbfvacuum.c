/*-------------------------------------------------------------------------
 *
 * scbfvacuum.c
 *	  VACUUM of an scbf index: ambulkdelete and amvacuumcleanup.
 *
 * NOTES
 *	  Both passes take the fold lock (waiting for it) and fold the pending
 *	  area first, so an insert-only table's VACUUM folds too, as GIN's
 *	  cleanup does.  Then, with S the committed serial, per filter in use:
 *
 *	  - ambulkdelete reads the pairs of the first column's visible runs and
 *		asks the callback once per heap TID (every column has the same
 *		TIDs); amvacuumcleanup asks nothing and only merges;
 *	  - a filter that lost entries, or whose ledger has SCBF_MERGE_RUNS
 *		visible runs, gets per column one run of serial S + 1 holding the
 *		surviving pairs of all its runs, in place of them
 *		(ScbfLedgerReplace: readers at S keep the old runs);
 *	  - its positions are recounted from the surviving hashes (the ledger
 *		is the counting filter: src/README, "VACUUM"), which gives its set bits
 *		per slice and the bits no surviving entry needs any more.
 *
 *	  A group of such filters commits with one metapage record (serial
 *	  S + 1), and only then are the unneeded bits cleared (invariant I4:
 *	  a probe at S may still find the old runs' dead entries through them,
 *	  which is harmless, and no probe at S + 1 needs them).  A crash before
 *	  the commit leaves runs of serial S + 1 that the next fold or VACUUM
 *	  of that serial drops, or that the next commit of S + 1 makes visible
 *	  in place of the old ones, holding exactly their surviving entries;
 *	  a crash after it leaves set bits that no entry needs: false
 *	  positives only.
 *
 *	  Entries still pending (a fold that found no room in the graveyard)
 *	  are not removed: their TIDs only reach the rechecking heap scan.
 *
 * Portions Copyright (c) 2026, scbf developers
 *
 * IDENTIFICATION
 *	  src/scbfvacuum.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "commands/vacuum.h"
#include "miscadmin.h"
#include "postmaster/autovacuum.h"
#include "storage/indexfsm.h"
#include "storage/lmgr.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "scbf.h"

/* Filters one commit takes at most */
#define SCBF_VACUUM_GROUP		256

/* Bits to clear one commit takes at most */
#define SCBF_VACUUM_BITS		(1 << 20)

/* One VACUUM pass over the filters */
typedef struct ScbfVacState
{
	Relation	index;
	ScbfState *state;
	IndexBulkDeleteCallback callback;	/* NULL in amvacuumcleanup */
	void	   *callback_state;
	IndexBulkDeleteResult *stats;
	MemoryContext passcxt;		/* lives as long as the pass */
	MemoryContext filtercxt;	/* reset after each filter */

	/* the group the next commit takes */
	ScbfMeta  *meta;
	ScbfBands	bands;			/* its bands (maps not read): geometries */
	uint64		serial;			/* the group's: committed + 1 */
	ScbfFilter **filters;
	bool	   *changed;
	uint32		nfilters;
	int			ngroup;
	ScbfRowBit *bits;			/* to clear after the commit */
	int			nbits;
	int			maxbits;
	int64		nentries_delta;
	int64		npages_delta;

	/* per group of bands, the keys the pass took out of its bands */
	uint64		removed[SCBF_MAX_GROUPS];
} ScbfVacState;

/*
 * Start a group: the metapage and the filter table as of the committed
 * serial, with the merges a crashed VACUUM marked for the group's serial
 * undone (written by the group's commit, if it has one).
 */
static void
VacStart(ScbfVacState *vs)
{
	MemoryContext oldcxt = MemoryContextSwitchTo(vs->passcxt);
	uint32		c;

	vs->meta = ScbfReadMeta(vs->index);
	ScbfMetaBands(vs->index, vs->meta, &vs->bands,
				  RelationGetNumberOfBlocks(vs->index));
	vs->serial = ScbfMetaFoldSerial(vs->meta) + 1;
	vs->nfilters = ScbfMetaFilters(vs->meta);
	vs->filters = ScbfReadTable(vs->index, vs->state, vs->meta,
								 RelationGetNumberOfBlocks(vs->index));
	vs->changed = palloc0(sizeof(bool) * Max(vs->nfilters, 1));
	for (c = 0; c < vs->nfilters; c++)
		if (ScbfFilterUndoGone(vs->filters[c], vs->serial))
			vs->changed[c] = true;
	vs->ngroup = 0;
	vs->nbits = 0;
	vs->nentries_delta = 0;
	vs->npages_delta = 0;
	MemoryContextSwitchTo(oldcxt);
}

/*
 * The band of filter c, whose geometry places its keys.
 */
static const ScbfBand *
VacBand(ScbfVacState *vs, uint32 c)
{
	const ScbfBand *band = ScbfBandOf(&vs->bands, c);

	if (band == NULL)
		ScbfReportCorrupt(vs->index, SCBF_METAPAGE_BLKNO,
						  psprintf("Filter %u lies outside the bands.", c));
	return band;
}

/*
 * Commit the group: the changed table entries, then the metapage record of
 * its serial (naming newbands' groups, if not NULL, and adding the keys
 * the group took out of each group of bands to its count), then the bits
 * no entry needs any more.
 */
static void
VacCommit(ScbfVacState *vs, ScbfBands *newbands)
{
	ScbfCommit	fc;
	ScbfBands	bands;
	ScbfBands	counted;
	int			part;
	uint32		g;
	bool		removed = false;

	for (g = 0; g < vs->bands.ngroups; g++)
		removed |= vs->removed[g] > 0;
	if (newbands == NULL && removed)
	{
		/* the groups as they are, with their counts */
		counted = vs->bands;
		counted.groups = palloc(sizeof(ScbfBand) * SCBF_MAX_GROUPS);
		memcpy(counted.groups, vs->bands.groups,
			   sizeof(ScbfBand) * vs->bands.ngroups);
		newbands = &counted;
	}
	if (newbands != NULL)
	{
		/* the counts of the committed groups: a rebuilt one starts at 0 */
		for (g = 0; g < newbands->ngroups && g < vs->bands.ngroups; g++)
			if (newbands->groups[g].serial == vs->bands.groups[g].serial)
				newbands->groups[g].removed =
					vs->bands.groups[g].removed + vs->removed[g];
		/* the top's, over the groups it covers: a new one starts at 0 */
		if (newbands->top.width > 0 && vs->bands.top.width > 0 &&
			newbands->top.serial == vs->bands.top.serial)
		{
			newbands->top.removed = vs->bands.top.removed;
			for (g = 0; g < vs->bands.covered; g++)
				newbands->top.removed += vs->removed[g];
		}
		memset(vs->removed, 0, sizeof(vs->removed));
	}

	memset(&fc, 0, sizeof(fc));
	fc.serial = vs->serial;
	for (part = 0; part < SCBF_NPENDING; part++)
		fc.cuts[part].blkno = InvalidBlockNumber;
	fc.band_changed = newbands != NULL;
	if (newbands != NULL)
	{
		fc.bands = *newbands;
		ScbfBandDirWrite(vs->index, vs->meta, &fc.bands, &fc.dir);
	}
	fc.delta_changed = false;
	fc.delta_fill = SCBF_DELTA_UNCHANGED;
	fc.nfilters = vs->nfilters;
	ScbfUpdateTable(vs->index, vs->state, vs->meta, vs->filters, vs->changed,
					 vs->nfilters, vs->nfilters, &fc.table,
					 RelationGetNumberOfBlocks(vs->index));
	fc.nentries_delta = vs->nentries_delta;
	fc.nledger_pages_delta = vs->npages_delta;
	ScbfCommitSerial(vs->index, &fc);

	ScbfMetaBands(vs->index, vs->meta, &bands,
				  RelationGetNumberOfBlocks(vs->index));
	ScbfRowsClear(vs->index, vs->state, &bands, vs->bits, vs->nbits,
				   RelationGetNumberOfBlocks(vs->index));
}

/*
 * The rows (slice * m + position) in band of the distinct hashes of
 * pairs[0 .. n) of column col, appended to rows[*nrows ..]; returns the
 * distinct hashes.
 */
static uint32
VacRows(ScbfVacState *vs, const ScbfBand *band, int col,
		const ScbfPair *pairs, int n, uint64 *rows, int *nrows)
{
	uint32		k = vs->state->k;
	uint32		pos[SCBF_ROWS_MAX_K];
	uint32		distinct = 0;
	int			i;

	for (i = 0; i < n; i++)
	{
		uint32		s;

		if (i > 0 && pairs[i].hash == pairs[i - 1].hash)
			continue;
		distinct++;
		ScbfKeyPositions(vs->state, band, col, pairs[i].hash, pos);
		for (s = 0; s < k; s++)
			rows[(*nrows)++] = (uint64) s * band->geom.m + pos[s];
	}
	return distinct;
}

/*
 * Sort rows[0 .. n) and drop repeats; returns the count left.
 */
static int
VacUniqueRows(uint64 *rows, int n)
{
	int			m = 0;
	int			i;

	qsort(rows, n, sizeof(uint64), ScbfCmpU64);
	for (i = 0; i < n; i++)
		if (m == 0 || rows[i] != rows[m - 1])
			rows[m++] = rows[i];
	return m;
}

/*
 * Remember the bits of filter c to clear after the commit: the rows in
 * old[0 .. nold) and not in new[0 .. nnew) (both sorted, distinct).
 */
static void
VacAddBits(ScbfVacState *vs, uint32 c, const uint64 *old, int nold,
				const uint64 *new, int nnew)
{
	uint32		m = VacBand(vs, c)->geom.m;
	int			i;
	int			j = 0;

	for (i = 0; i < nold; i++)
	{
		MemoryContext oldcxt;

		while (j < nnew && new[j] < old[i])
			j++;
		if (j < nnew && new[j] == old[i])
			continue;
		if (vs->nbits == vs->maxbits)
		{
			oldcxt = MemoryContextSwitchTo(vs->passcxt);
			vs->maxbits *= 2;
			vs->bits = repalloc_huge(vs->bits,
									 sizeof(ScbfRowBit) * vs->maxbits);
			MemoryContextSwitchTo(oldcxt);
		}
		vs->bits[vs->nbits].filterno = c;
		vs->bits[vs->nbits].slice = (uint32) (old[i] / m);
		vs->bits[vs->nbits].position = (uint32) (old[i] % m);
		vs->nbits++;
	}
}

/*
 * The heap TIDs among a filter's first-column pairs that the callback
 * calls dead, as a map indexed by item; returns how many there are.
 */
static int
VacDead(ScbfVacState *vs, uint32 segno, const ScbfPair *pairs, int n,
			 bool *dead)
{
	bool	   *asked = palloc0(sizeof(bool) * (PG_UINT16_MAX + 1));
	BlockNumber segstart = segno * vs->state->pages_per_segment;
	int			ndead = 0;
	int			i;

	for (i = 0; i < n; i++)
	{
		uint16		item = pairs[i].item;
		ItemPointerData tid;

		if (asked[item])
			continue;
		asked[item] = true;
		ItemPointerSet(&tid, segstart + ScbfTidRelBlock(item),
					   ScbfTidOffset(item));
		if (vs->callback(&tid, vs->callback_state))
		{
			dead[item] = true;
			ndead++;
		}
	}
	pfree(asked);
	return ndead;
}

/*
 * The entries of filter f's runs visible at serial committed, as its first
 * column's root counts them.
 */
static uint64
VacVisibleEntries(ScbfVacState *vs, ScbfFilter *f, uint64 committed,
				  BlockNumber nblocks)
{
	ScbfRootInfo ri;
	uint64		n = 0;
	int			i;

	if (ScbfFilterRoot(f, 0) == InvalidBlockNumber)
		return 0;
	ScbfReadRootInfo(vs->index, ScbfFilterRoot(f, 0), &ri, nblocks);
	for (i = 0; i < ri.nruns; i++)
		if (ri.runs[i].made <= committed && committed < ri.runs[i].gone)
			n += ri.runs[i].nentries;
	return n;
}

/*
 * VACUUM one filter: set its table entry's count of entries to its visible
 * runs' (a fold stopped by a crash may have written it ahead); remove the
 * entries of dead TIDs and merge the runs of
 * every column into one when it lost entries or has SCBF_MERGE_RUNS runs;
 * recount its bits.  Leaves the filter alone if a root has no room for
 * the merged run beside the runs probes may still read (a later VACUUM,
 * once they are dropped, does it).
 */
static void
VacuumFilter(ScbfVacState *vs, uint32 c, BlockNumber nblocks)
{
	ScbfFilter *f = vs->filters[c];
	const ScbfBand *band = VacBand(vs, c);
	int			ncols = vs->state->ncols;
	uint32		k = vs->state->k;
	uint64		committed = vs->serial - 1;
	uint32		segno = ScbfFilterSegment(f);
	ScbfPair  *pairs[INDEX_MAX_KEYS];
	int			npairs[INDEX_MAX_KEYS];
	ScbfRun   *runs[INDEX_MAX_KEYS];
	bool	   *dead = NULL;
	int			ndead = 0;
	int			nruns;
	int			nkept = 0;
	uint64	   *oldrows;
	uint64	   *newrows;
	int			nold = 0;
	int			nnew = 0;
	int			totalpairs = 0;
	uint32		nkeys = 0;
	uint32		nset[SCBF_ROWS_MAX_K];
	uint64		visible;
	int			col;
	int			i;

	/* the walk's checks of the root first */
	nruns = ScbfLedgerRuns(vs->index, ScbfFilterRoot(f, 0), 0, committed,
							nblocks);
	visible = VacVisibleEntries(vs, f, committed, nblocks);
	if (visible != ScbfFilterEntries(f))
	{
		ScbfFilterSetEntries(f, (uint32) Min(visible, PG_UINT32_MAX));
		vs->changed[c] = true;
		vs->ngroup++;
	}
	if (vs->callback == NULL && nruns < SCBF_MERGE_RUNS)
		return;
	npairs[0] = ScbfLedgerPairs(vs->index, ScbfFilterRoot(f, 0), 0,
								 committed, &pairs[0], nblocks);
	if (vs->callback != NULL)
	{
		dead = palloc0(sizeof(bool) * (PG_UINT16_MAX + 1));
		ndead = VacDead(vs, segno, pairs[0], npairs[0], dead);
	}
	if (ndead == 0 && nruns < SCBF_MERGE_RUNS)
		return;

	/* every column's pairs, the dead ones dropped, encoded as one run */
	for (col = 1; col < ncols; col++)
		npairs[col] = ScbfLedgerPairs(vs->index, ScbfFilterRoot(f, col),
									   col, committed, &pairs[col], nblocks);
	for (col = 0; col < ncols; col++)
		totalpairs += npairs[col];
	oldrows = palloc(sizeof(uint64) * Max((Size) totalpairs * k, 1));
	newrows = palloc(sizeof(uint64) * Max((Size) totalpairs * k, 1));
	for (col = 0; col < ncols; col++)
	{
		ScbfHash   *hashes = palloc(sizeof(ScbfHash) * Max(npairs[col], 1));
		uint16	   *items = palloc(sizeof(uint16) * Max(npairs[col], 1));
		int			n = 0;

		VacRows(vs, band, col, pairs[col], npairs[col], oldrows, &nold);
		for (i = 0; i < npairs[col]; i++)
			if (dead == NULL || !dead[pairs[col][i].item])
				pairs[col][n++] = pairs[col][i];
		nkeys += VacRows(vs, band, col, pairs[col], n, newrows, &nnew);
		if (col == 0)
			nkept = n;
		for (i = 0; i < n; i++)
		{
			hashes[i] = pairs[col][i].hash;
			items[i] = pairs[col][i].item;
		}
		runs[col] = ScbfLedgerEncode(vs->index, segno, col,
									 vs->state->col_bits[col], vs->serial,
									  hashes, items, n);
		if (!ScbfLedgerHasRoom(vs->index, ScbfFilterRoot(f, col), col,
								runs[col], vs->meta, true, nblocks))
			return;
	}

	/* the runs; the table entry; the bits to clear once committed */
	for (col = 0; col < ncols; col++)
		vs->npages_delta += ScbfLedgerReplace(vs->index,
											   ScbfFilterRoot(f, col), c, col,
											   runs[col], vs->meta, nblocks);
	nold = VacUniqueRows(oldrows, nold);
	nnew = VacUniqueRows(newrows, nnew);
	memset(nset, 0, sizeof(nset));
	for (i = 0; i < nnew; i++)
		nset[Min(newrows[i] / band->geom.m, SCBF_ROWS_MAX_K - 1)]++;
	ScbfFilterSetEntries(f, (uint32) nkept);
	if (nkeys < ScbfFilterKeys(f))
	{
		const ScbfBand *group = ScbfGroupOf(&vs->bands,
											(uint32) (band - vs->bands.bands));

		/* keys its band's summary holds, and no entry needs any more */
		if (group != NULL)
			vs->removed[group - vs->bands.groups] +=
				ScbfFilterKeys(f) - nkeys;
	}
	ScbfFilterSetKeys(f, nkeys);
	ScbfFilterSetBits(f, k, nset);
	vs->changed[c] = true;
	vs->ngroup++;
	vs->nentries_delta -= npairs[0] - nkept;
	vs->stats->tuples_removed += npairs[0] - nkept;
	VacAddBits(vs, c, oldrows, nold, newrows, nnew);
}

/*
 * Merge the filters cs[0 .. n) of one segment (current, in chain order)
 * into the first: per column one run of serial S + 1 with the pairs of all
 * of them in place of the first's runs, the first's bits set for every
 * merged key (before the commit: invariant I4), the others marked merged
 * at S + 1 (probes at S still read them; VACUUM releases their columns
 * once no probe can).  Leaves everything as it is if the first's roots
 * have no room for the run.
 */
static void
VacMerge(ScbfVacState *vs, const uint32 *cs, int n, BlockNumber nblocks)
{
	int			ncols = vs->state->ncols;
	uint32		k = vs->state->k;
	uint64		committed = vs->serial - 1;
	uint32		target = cs[0];
	ScbfFilter *tf = vs->filters[target];
	uint32		segno = ScbfFilterSegment(tf);
	ScbfRun   *runs[INDEX_MAX_KEYS];
	ScbfRowKey *keys = NULL;
	int			nkeys = 0;
	uint64	   *rows = NULL;
	int			nrows = 0;
	uint32		distinct = 0;
	uint32		nentries = 0;
	uint32		nset[SCBF_ROWS_MAX_K];
	bool		active = false;
	const ScbfBand *band = VacBand(vs, target);
	ScbfBands	bands;
	int			col;
	int			i;

	for (col = 0; col < ncols; col++)
	{
		ScbfPair  *all = NULL;
		int			nall = 0;
		ScbfHash   *hashes;
		uint16	   *items;
		int			m = 0;

		for (i = 0; i < n; i++)
		{
			ScbfPair  *pairs;
			int			np = ScbfLedgerPairs(vs->index,
											  ScbfFilterRoot(vs->filters[cs[i]], col),
											  col, committed, &pairs, nblocks);

			all = all ? repalloc_huge(all, sizeof(ScbfPair) * (nall + np + 1))
				: palloc(sizeof(ScbfPair) * (np + 1));
			memcpy(all + nall, pairs, sizeof(ScbfPair) * np);
			nall += np;
		}
		ScbfSortPairs(all, nall);
		hashes = palloc(sizeof(ScbfHash) * Max(nall, 1));
		items = palloc(sizeof(uint16) * Max(nall, 1));
		for (i = 0; i < nall; i++)
		{
			if (m > 0 && all[i].hash == hashes[m - 1] && all[i].item == items[m - 1])
				continue;
			hashes[m] = all[i].hash;
			items[m] = all[i].item;
			m++;
		}
		if (col == 0)
			nentries = (uint32) m;
		if (keys == NULL)
		{
			keys = palloc(sizeof(ScbfRowKey) * Max((Size) m * ncols, 1));
			rows = palloc(sizeof(uint64) * Max((Size) m * ncols * k, 1));
		}
		distinct += VacRows(vs, band, col, all, nall, rows, &nrows);
		for (i = 0; i < m; i++)
		{
			if (i > 0 && hashes[i] == hashes[i - 1])
				continue;
			keys[nkeys].filterno = target;
			keys[nkeys].col = col;
			keys[nkeys].hash = hashes[i];
			nkeys++;
		}
		runs[col] = ScbfLedgerEncode(vs->index, segno, col,
									 vs->state->col_bits[col], vs->serial,
									  hashes, items, m);
		if (!ScbfLedgerHasRoom(vs->index, ScbfFilterRoot(tf, col), col,
								runs[col], vs->meta, true, nblocks))
			return;
	}

	/* the bits first, then the runs, then the table entries */
	ScbfMetaBands(vs->index, vs->meta, &bands,
				  RelationGetNumberOfBlocks(vs->index));
	ScbfRowsSet(vs->index, vs->state, &bands, keys, nkeys, vs->filters,
				 RelationGetNumberOfBlocks(vs->index));
	for (col = 0; col < ncols; col++)
		vs->npages_delta += ScbfLedgerReplace(vs->index,
											   ScbfFilterRoot(tf, col), target,
											   col, runs[col], vs->meta,
											   RelationGetNumberOfBlocks(vs->index));
	nrows = VacUniqueRows(rows, nrows);
	memset(nset, 0, sizeof(nset));
	for (i = 0; i < nrows; i++)
		nset[Min(rows[i] / band->geom.m, SCBF_ROWS_MAX_K - 1)]++;
	for (i = 0; i < n; i++)
	{
		active |= ScbfFilterIsActive(vs->filters[cs[i]]);
		if (i > 0)
		{
			ScbfFilterSetGone(vs->filters[cs[i]], vs->serial);
			vs->changed[cs[i]] = true;
		}
	}
	ScbfFilterSetEntries(tf, nentries);
	ScbfFilterSetKeys(tf, distinct);
	ScbfFilterSetBits(tf, k, nset);
	if (active)
		ScbfFilterActivate(tf);
	vs->changed[target] = true;
	vs->ngroup++;
	elog(DEBUG1, "index \"%s\": segment %u: %d filters merged into filter %u",
		 RelationGetRelationName(vs->index), segno, n, target);
}

/*
 * qsort_arg comparator of filter numbers by segment, then chain position;
 * arg is the filter table.
 */
static int
CmpChain(const void *a, const void *b, void *arg)
{
	ScbfFilter **filters = (ScbfFilter **) arg;
	const ScbfFilter *x = filters[*(const uint32 *) a];
	const ScbfFilter *y = filters[*(const uint32 *) b];
	uint32		sx = ScbfFilterSegment(x);
	uint32		sy = ScbfFilterSegment(y);

	if (sx != sy)
		return (sx > sy) - (sx < sy);
	return (int) ScbfFilterChainPos(x) - (int) ScbfFilterChainPos(y);
}

/*
 * Consolidate chains: consecutive filters of a segment's chain that
 * together hold few enough keys for one (three quarters of a filter's
 * capacity, and entries a filter can number) are merged into the first of
 * them (VacMerge).  Filters split at build or by a fold stay apart
 * while they are full; once deletes have thinned them, the segment costs
 * fewer candidates again and their columns go back to new filters.
 */
static void
VacConsolidate(ScbfVacState *vs)
{
	uint32	   *order = palloc(sizeof(uint32) * Max(vs->nfilters, 1));
	uint32		norder = 0;
	uint32		i;
	MemoryContext oldcxt;

	for (i = 0; i < vs->nfilters; i++)
		if (ScbfFilterVisible(vs->filters[i], vs->serial))
			order[norder++] = i;
	qsort_arg(order, norder, sizeof(uint32), CmpChain, vs->filters);
	for (i = 0; i < norder;)
	{
		uint32		segno = ScbfFilterSegment(vs->filters[order[i]]);
		uint32		j = i + 1;
		uint64		keys = ScbfFilterKeys(vs->filters[order[i]]);
		uint64		entries = ScbfFilterEntries(vs->filters[order[i]]);

		/* the longest run of the chain from i that fits in one filter */
		while (j < norder &&
			   ScbfFilterSegment(vs->filters[order[j]]) == segno &&
			   (keys + ScbfFilterKeys(vs->filters[order[j]])) * 4 <=
			   (uint64) VacBand(vs, order[i])->capacity * 3 &&
			   entries + ScbfFilterEntries(vs->filters[order[j]]) <=
			   PG_UINT16_MAX)
		{
			keys += ScbfFilterKeys(vs->filters[order[j]]);
			entries += ScbfFilterEntries(vs->filters[order[j]]);
			j++;
		}
		if (j - i >= 2)
		{
			oldcxt = MemoryContextSwitchTo(vs->filtercxt);
			VacMerge(vs, order + i, (int) (j - i),
						  RelationGetNumberOfBlocks(vs->index));
			MemoryContextSwitchTo(oldcxt);
			MemoryContextReset(vs->filtercxt);
			if (vs->ngroup >= SCBF_VACUUM_GROUP)
			{
				VacCommit(vs, NULL);
				/* the table is read again; its order by chain still holds */
				VacStart(vs);
			}
			ScbfVacuumDelayPoint();
		}
		i = j;
	}
	pfree(order);
}

/*
 * Merge the delta into the band (scbfdelta.c), under the fold lock, before
 * a pass removes entries: a removed key's delta entry would otherwise set
 * bits after the recount, and a column released later would keep them.
 * Then the metapage says the delta is empty, so probes skip it until a
 * fold puts keys in it again.
 */
static void
VacMergeDelta(Relation index)
{
	ScbfState  *state = ScbfGetState(index);
	ScbfMeta   *meta = ScbfReadMeta(index);
	ScbfBands	bands;
	ScbfDelta	delta;

	ScbfMetaBands(index, meta, &bands, RelationGetNumberOfBlocks(index));
	ScbfMetaDelta(meta, &delta);
	ScbfDeltaMerge(index, state, &delta, &bands, NULL, 0,
					RelationGetNumberOfBlocks(index));
	if (delta.pages > 0 && !ScbfMetaDeltaEmpty(meta))
		ScbfSetDeltaEmpty(index);
	pfree(meta);
}

/*
 * ScbfKeysFn of a summary's rebuild: the keys of filter filterno in the
 * ledger runs a reader at the committed serial sees; none for a filter
 * free or merged into another.
 */
static void
VacFilterKeys(uint32 filterno, ScbfKeyFn emit, void *emit_arg, void *arg)
{
	ScbfVacState *vs = (ScbfVacState *) arg;
	ScbfFilter *f = vs->filters[filterno];

	if (!ScbfFilterInUse(f) || !ScbfFilterVisible(f, vs->serial - 1))
		return;
	(void) ScbfLedgerKeys(vs->index, vs->state->ncols, f, vs->serial - 1,
						  emit, emit_arg, true,
						  RelationGetNumberOfBlocks(vs->index));
}

/*
 * After a pass (whose commits added the keys they took out of each group's
 * bands to the group's count): write anew the summary of each group whose
 * count reached a quarter of the keys its bands hold now (a fifth of
 * those they held, fewer the ones since added), from the ledgers at the
 * committed serial; and the top over the groups, if ScbfTopNeeded says
 * so (its opening, its widening over groups it does not cover, or a
 * quarter of its keys removed).  One commit names the new groups and top,
 * whose counts start at 0, and hands the old ones to the graveyard.  A
 * crash before it leaves the old summaries and their counts: the next
 * VACUUM writes them anew.
 */
static void
VacSummaries(ScbfVacState *vs)
{
	ScbfBands	newbands;
	uint64	   *keys;
	bool		any = false;
	bool		rebuilt = false;
	uint64		topkeys = 0;
	uint32		g;
	uint32		f;

	VacStart(vs);
	for (g = 0; g < vs->bands.ngroups; g++)
		any |= vs->bands.groups[g].removed > 0;
	any |= vs->bands.top.removed > 0;
	if (!any && !ScbfTopNeeded(&vs->bands, PG_UINT64_MAX))
		return;
	keys = palloc0(sizeof(uint64) * vs->bands.ngroups);
	for (f = 0; f < vs->nfilters; f++)
	{
		const ScbfBand *band;
		const ScbfBand *group;

		if (!ScbfFilterInUse(vs->filters[f]) ||
			!ScbfFilterVisible(vs->filters[f], vs->serial))
			continue;
		band = VacBand(vs, f);
		group = ScbfGroupOf(&vs->bands, (uint32) (band - vs->bands.bands));
		if (group != NULL)
			keys[group - vs->bands.groups] += ScbfFilterKeys(vs->filters[f]);
	}
	newbands = vs->bands;
	newbands.groups = palloc(sizeof(ScbfBand) * SCBF_MAX_GROUPS);
	memcpy(newbands.groups, vs->bands.groups,
		   sizeof(ScbfBand) * vs->bands.ngroups);
	for (g = 0; g < newbands.ngroups; g++)
	{
		ScbfBand	group;

		if (newbands.groups[g].removed == 0 ||
			newbands.groups[g].removed < keys[g] / 4)
			continue;
		ScbfGroupRebuild(vs->index, vs->state, &newbands, g, vs->nfilters,
						 VacFilterKeys, vs, &group);
		newbands.groups[g] = group;
		rebuilt = true;
	}
	/* the top: opened, widened over new groups, or written anew */
	for (g = 0; g < newbands.covered; g++)
		topkeys += keys[g];
	if (ScbfTopNeeded(&newbands, topkeys))
	{
		ScbfBand	top;

		newbands.covered = ScbfTopWrite(vs->index, vs->state, &newbands,
										vs->nfilters, VacFilterKeys, vs,
										false, &top);
		newbands.top = top;
		rebuilt = true;
	}
	if (rebuilt)
		VacCommit(vs, &newbands);
	pfree(keys);
}

/*
 * One pass of VACUUM over the index (see the file header): with a
 * callback, ambulkdelete's; without, amvacuumcleanup's merges.
 */
static void
VacuumPass(IndexVacuumInfo *info, IndexBulkDeleteResult *stats,
				IndexBulkDeleteCallback callback, void *callback_state)
{
	Relation	index = info->index;
	ScbfVacState vs;
	MemoryContext oldcxt;
	uint32		c;

	LockPage(index, SCBF_METAPAGE_BLKNO, ExclusiveLock);
	ScbfFold(index, true);
	VacMergeDelta(index);

	memset(&vs, 0, sizeof(vs));
	vs.index = index;
	vs.state = ScbfGetState(index);
	vs.callback = callback;
	vs.callback_state = callback_state;
	vs.stats = stats;
	vs.passcxt = AllocSetContextCreate(CurrentMemoryContext, "scbf vacuum",
									   ALLOCSET_DEFAULT_SIZES);
	vs.filtercxt = AllocSetContextCreate(vs.passcxt, "scbf vacuum filter",
										 ALLOCSET_DEFAULT_SIZES);
	vs.maxbits = 1024;
	vs.bits = MemoryContextAlloc(vs.passcxt, sizeof(ScbfRowBit) * vs.maxbits);
	VacStart(&vs);

	for (c = 0; c < vs.nfilters; c++)
	{
		if (!ScbfFilterVisible(vs.filters[c], vs.serial))
			continue;
		oldcxt = MemoryContextSwitchTo(vs.filtercxt);
		VacuumFilter(&vs, c, RelationGetNumberOfBlocks(index));
		MemoryContextSwitchTo(oldcxt);
		MemoryContextReset(vs.filtercxt);
		if (vs.ngroup >= SCBF_VACUUM_GROUP || vs.nbits >= SCBF_VACUUM_BITS)
		{
			VacCommit(&vs, NULL);
			VacStart(&vs);
		}
		/* interrupts; and VACUUM's cost delay, between filters */
		ScbfVacuumDelayPoint();
	}
	if (vs.ngroup > 0)
		VacCommit(&vs, NULL);

	/* then segments whose filters fit in one */
	VacStart(&vs);
	VacConsolidate(&vs);
	if (vs.ngroup > 0)
		VacCommit(&vs, NULL);

	/* then the summaries of groups that lost too many keys */
	VacSummaries(&vs);

	MemoryContextDelete(vs.passcxt);
	UnlockPage(index, SCBF_METAPAGE_BLKNO, ExclusiveLock);
}

/* The blocks structures name, for the census */
typedef struct ScbfNamed
{
	uint8	   *bits;
	BlockNumber nblocks;
} ScbfNamed;

/*
 * ScbfCensus callback: mark a named block, and walk on.
 */
static bool
NameBlock(BlockNumber blkno, const ScbfBlockRef *ref, void *arg)
{
	ScbfNamed *named = (ScbfNamed *) arg;

	if (blkno < named->nblocks)
		named->bits[blkno / 8] |= 1 << (blkno % 8);
	return true;
}

/*
 * Release the columns of filters merged into another by a serial no probe
 * can still read: their table entries become free (a fold may take the
 * column for a new filter), then their bits are cleared; the census that
 * follows frees their roots and leaves, which nothing names any more.  A
 * crash in between leaves set bits in a free column: false positives of
 * the filter that takes it next, never a missing bit.
 */
static void
VacRelease(Relation index, ScbfState *state, const ScbfMeta *meta,
				ScbfFilter **filters, uint32 nfilters, BlockNumber nblocks)
{
	bool	   *changed = palloc0(sizeof(bool) * Max(nfilters, 1));
	ScbfRowBit *bits = NULL;
	int			nbits = 0;
	int			maxbits = 0;
	bool		any = false;
	ScbfBands	bands;
	uint32		c;

	ScbfMetaBands(index, meta, &bands, nblocks);
	for (c = 0; c < nfilters; c++)
	{
		ScbfFilter *f = filters[c];
		uint64		gone = ScbfFilterGone(f);
		int			col;

		if (!ScbfFilterInUse(f) || gone == PG_UINT64_MAX ||
			ScbfMetaGoneReadable(meta, gone))
			continue;
		for (col = 0; col < state->ncols; col++)
		{
			ScbfPair  *pairs;
			int			np = ScbfLedgerPairs(index, ScbfFilterRoot(f, col),
											  col, gone - 1, &pairs, nblocks);
			uint32		pos[SCBF_ROWS_MAX_K];
			int			i;
			uint32		s;

			for (i = 0; i < np; i++)
			{
				if (i > 0 && pairs[i].hash == pairs[i - 1].hash)
					continue;
				ScbfKeyPositions(state, ScbfBandOf(&bands, c), col,
								 pairs[i].hash, pos);
				if (nbits + (int) state->k > maxbits)
				{
					maxbits = Max(maxbits * 2, nbits + (int) state->k + 1024);
					bits = bits ? repalloc_huge(bits, sizeof(ScbfRowBit) * maxbits)
						: palloc(sizeof(ScbfRowBit) * maxbits);
				}
				for (s = 0; s < state->k; s++)
				{
					bits[nbits].filterno = c;
					bits[nbits].slice = s;
					bits[nbits].position = pos[s];
					nbits++;
				}
			}
			pfree(pairs);
		}
		ScbfFilterRelease(f, state->ncols);
		elog(DEBUG1, "index \"%s\": the column of merged filter %u released",
			 RelationGetRelationName(index), c);
		changed[c] = true;
		any = true;
		CHECK_FOR_INTERRUPTS();
	}
	if (any)
	{
		ScbfPageRuns table;

		ScbfUpdateTable(index, state, meta, filters, changed, nfilters,
						 nfilters, &table,
						 RelationGetNumberOfBlocks(index));
		ScbfMetaBands(index, meta, &bands, RelationGetNumberOfBlocks(index));
		ScbfRowsClear(index, state, &bands, bits, nbits,
					   RelationGetNumberOfBlocks(index));
	}
	pfree(changed);
}

/*
 * amvacuumcleanup's page census, under the fold lock: count a recycling
 * in the metapage first (ScbfBumpRecycleSerial, for standby probes),
 * release the columns of merged filters no probe reads (VacRelease),
 * tidy every root (the superseded runs no probe can read any more leave
 * it, their leaves are freed), mark every block a structure names (the
 * block census, ScbfCensus), then free the table, row, root, leaf and
 * delta pages none names (what a crashed fold or VACUUM wrote before its
 * commit) and give free pages back to the FSM (ScbfFreeUnnamed).
 */
static void
VacuumCensus(Relation index, IndexBulkDeleteResult *stats)
{
	ScbfState *state = ScbfGetState(index);
	ScbfNamed	named;
	ScbfMeta  *meta;
	ScbfFilter **filters;
	BlockNumber nfree;
	uint32		nfilters;
	uint32		c;
	int			col;

	LockPage(index, SCBF_METAPAGE_BLKNO, ExclusiveLock);
	ScbfBumpRecycleSerial(index);
	named.nblocks = RelationGetNumberOfBlocks(index);
	named.bits = palloc0(named.nblocks / 8 + 1);
	meta = ScbfReadMeta(index);
	nfilters = ScbfMetaFilters(meta);
	filters = ScbfReadTable(index, state, meta, named.nblocks);
	VacRelease(index, state, meta, filters, nfilters, named.nblocks);
	for (c = 0; c < nfilters; c++)
	{
		if (!ScbfFilterInUse(filters[c]))
			continue;
		for (col = 0; col < state->ncols; col++)
			ScbfLedgerTidy(index, ScbfFilterRoot(filters[c], col), col, meta,
						   named.nblocks);
		CHECK_FOR_INTERRUPTS();
	}
	ScbfCensus(index, state, meta, NameBlock, &named, named.nblocks);
	ScbfFreeUnnamed(index, named.bits, named.nblocks, &nfree);
	if (nfree > 0)
		IndexFreeSpaceMapVacuum(index);
	stats->pages_free = nfree;
	pfree(named.bits);
	pfree(meta);
	UnlockPage(index, SCBF_METAPAGE_BLKNO, ExclusiveLock);
}

/*
 * The statistics VACUUM reports for the index.
 */
static void
VacuumStats(Relation index, IndexBulkDeleteResult *stats)
{
	ScbfMeta   *meta = ScbfReadMeta(index);
	ScbfStats	st;

	ScbfMetaStats(meta, &st);
	stats->num_pages = RelationGetNumberOfBlocks(index);
	stats->num_index_tuples = (double) st.nentries;
	stats->estimated_count = false;
	pfree(meta);
}

/*
 * scbfbulkdelete
 *		ambulkdelete: remove the entries of dead TIDs.
 */
IndexBulkDeleteResult *
scbfbulkdelete(IndexVacuumInfo *info, IndexBulkDeleteResult *stats,
				IndexBulkDeleteCallback callback, void *callback_state)
{
	if (stats == NULL)
		stats = (IndexBulkDeleteResult *) palloc0(sizeof(IndexBulkDeleteResult));
	VacuumPass(info, stats, callback, callback_state);
	VacuumStats(info->index, stats);
	return stats;
}

/*
 * scbfvacuumcleanup
 *		amvacuumcleanup: fold, merge ledgers of many runs, the page census,
 *		statistics.
 */
IndexBulkDeleteResult *
scbfvacuumcleanup(IndexVacuumInfo *info, IndexBulkDeleteResult *stats)
{
	/* a plain ANALYZE leaves the index alone; autovacuum's folds, as GIN's */
	if (info->analyze_only && !ScbfIsAutoVacuumWorker())
		return stats;
	if (stats == NULL)
		stats = (IndexBulkDeleteResult *) palloc0(sizeof(IndexBulkDeleteResult));
	if (info->analyze_only)
		ScbfFold(info->index, true);
	else
	{
		VacuumPass(info, stats, NULL, NULL);
		VacuumCensus(info->index, stats);
	}
	VacuumStats(info->index, stats);
	return stats;
}
