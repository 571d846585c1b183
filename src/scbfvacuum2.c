/*-------------------------------------------------------------------------
 *
 * scbfvacuum2.c
 *	  VACUUM of an scbf index of storage format 2.
 *
 * NOTES
 *	  Both passes fold the pending area (waiting for the fold lock), so an
 *	  insert-only table's VACUUM folds too, as GIN's cleanup does, and
 *	  recycle the pages folds superseded.  Until the removal of dead
 *	  entries lands (src/README, "Steps", 4), ambulkdelete removes nothing.
 *	  That keeps every answer right: a dead tuple's entry only makes a scan
 *	  hand its TID to the bitmap heap scan, which rechecks it (the line
 *	  pointer may be unused or reused by then, as for BRIN's lossy pages);
 *	  it can never hide a live tuple.
 *
 * Portions Copyright (c) 2026, scbf developers
 *
 * IDENTIFICATION
 *	  src/scbfvacuum2.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "postmaster/autovacuum.h"
#include "utils/rel.h"

#include "scbf2.h"

/*
 * The statistics VACUUM reports for a format-2 index.
 */
static void
Scbf2VacuumStats(Relation index, IndexBulkDeleteResult *stats)
{
	Scbf2Meta  *meta = Scbf2ReadMeta(index);
	Scbf2Stats	st;

	Scbf2MetaStats(meta, &st);
	stats->num_pages = RelationGetNumberOfBlocks(index);
	stats->num_index_tuples = (double) st.nentries;
	stats->estimated_count = false;
	pfree(meta);
}

/*
 * scbf2bulkdelete
 *		ambulkdelete of a format-2 index: nothing is removed yet.
 */
IndexBulkDeleteResult *
scbf2bulkdelete(IndexVacuumInfo *info, IndexBulkDeleteResult *stats,
				IndexBulkDeleteCallback callback, void *callback_state)
{
	if (stats == NULL)
		stats = (IndexBulkDeleteResult *) palloc0(sizeof(IndexBulkDeleteResult));
	Scbf2Fold(info->index, true);
	Scbf2VacuumStats(info->index, stats);
	return stats;
}

/*
 * scbf2vacuumcleanup
 *		amvacuumcleanup of a format-2 index: the statistics only.
 */
IndexBulkDeleteResult *
scbf2vacuumcleanup(IndexVacuumInfo *info, IndexBulkDeleteResult *stats)
{
	/* a plain ANALYZE leaves the index alone; autovacuum's folds, as GIN's */
	if (info->analyze_only && !ScbfIsAutoVacuumWorker())
		return stats;
	if (stats == NULL)
		stats = (IndexBulkDeleteResult *) palloc0(sizeof(IndexBulkDeleteResult));
	Scbf2Fold(info->index, true);
	Scbf2VacuumStats(info->index, stats);
	return stats;
}
