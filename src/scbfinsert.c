/*-------------------------------------------------------------------------
 *
 * scbfinsert.c
 *	  Insertion into scbf: aminsert, and the writing of a backend's batch.
 *
 * NOTES
 *	  aminsert only hashes the row and appends its entry to the backend's
 *	  batch (scbfbatch.c); the batch comes back here, in the order the
 *	  rows were inserted, to be written many entries per WAL record:
 *	  handed to a fold helper, folded straight into the filters, or
 *	  appended to the pending area (src/README, D1 and D2).
 *
 * Portions Copyright (c) 2026, scbf developers
 *
 * IDENTIFICATION
 *	  src/scbfinsert.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/memutils.h"
#include "utils/rel.h"

#include "scbf.h"

/*
 * ScbfApplyBatch
 *		Write a batch of entries to the index (ScbfBatchApplyFn).  A
 *		full batch of a load that goes on is handed to a fold helper
 *		(scbffoldhelper.c) if one can start.  A large batch (a bulk load's,
 *		and the last entries of one without a helper, so that the load
 *		leaves no pending entries for every probe to read) is folded
 *		straight into the filters if no other backend is folding;
 *		otherwise the entries go to the pending area, which is folded when
 *		a partition has grown long, again unless another backend is
 *		folding already.  A full batch that comes while the helper still
 *		folds the one before (a merge of the delta takes longer than a
 *		batch takes to fill) goes to the pending area, so that the load
 *		need not wait: the helper's next fold, or the fold after the
 *		commit, takes it from there.  So does a load's last batch when it
 *		has a helper (defer and not full; see ScbfHelperFoldsAfter): its
 *		commit does not wait for a fold.
 */
void
ScbfApplyBatch(Relation index, ItemPointer tids, const uint32 *hashes, int n,
				bool bulk, bool full, bool defer)
{
	if (defer)
	{
		/* the helper holds or wants the fold lock, or folds after commit */
		if (full)
			elog(DEBUG1, "index \"%s\": %d entries to the pending area, its fold helper still folding the batch before",
				 RelationGetRelationName(index), n);
		else
			elog(DEBUG1, "index \"%s\": %d entries to the pending area, for its fold helper to fold after the commit",
				 RelationGetRelationName(index), n);
		(void) ScbfPendingAppend(index, ScbfGetState(index), tids, hashes,
								  n);
		return;
	}
	if (full && n >= SCBF_FOLD_DIRECT &&
		ScbfHelperSubmit(index, tids, hashes, n))
		return;
	if ((n >= SCBF_FOLD_DIRECT || bulk) &&
		ScbfFoldBatch(index, tids, hashes, n))
		return;
	if (ScbfPendingAppend(index, ScbfGetState(index), tids, hashes, n))
		ScbfFold(index, false);
}

/*
 * aminsert: hash the heap tuple's values and append its entry to this
 * backend's batch of the index (scbfbatch.c), which writes it, with the
 * other entries of the transaction, before the transaction commits or this
 * backend reads the index.  Always inserts, whatever the indexUnchanged hint
 * says: a non-HOT update puts the new version at a new TID, possibly in
 * another segment, and the old entry goes away at VACUUM.
 */
bool
scbfinsert(Relation index, Datum *values, bool *isnull,
		   ItemPointer ht_ctid, Relation heapRel,
		   IndexUniqueCheck checkUnique,
		   bool indexUnchanged,
		   IndexInfo *indexInfo)
{
	MemoryContext tmpcxt;
	MemoryContext oldcxt;
	uint32		hashes[INDEX_MAX_KEYS];
	int			col;
	int			ncols = IndexRelationGetNumberOfKeyAttributes(index);

	/*
	 * Once per statement: a version-1 index (or a broken metapage) fails
	 * here, clearly, and a temporary context is made, reset after each tuple
	 */
	if (indexInfo->ii_AmCache == NULL)
	{
		(void) ScbfGetState(index);
		indexInfo->ii_AmCache =
			AllocSetContextCreate(indexInfo->ii_Context,
								  "scbf insert temporary context",
								  ALLOCSET_DEFAULT_SIZES);
	}
	tmpcxt = (MemoryContext) indexInfo->ii_AmCache;
	oldcxt = MemoryContextSwitchTo(tmpcxt);

	for (col = 0; col < ncols; col++)
		hashes[col] = isnull[col] ? SCBF_NULL_HASH :
			ScbfHashDatum(index, col, values[col]);

	MemoryContextSwitchTo(oldcxt);
	MemoryContextReset(tmpcxt);

	ScbfBatchAdd(index, ht_ctid, hashes, ncols, ScbfApplyBatch);
	return false;
}
