/*-------------------------------------------------------------------------
 *
 * scbfinsert.c
 *	  Insertion into scbf: aminsert.
 *
 * NOTES
 *	  aminsert only hashes the row and appends its entry to the backend's
 *	  batch; scbfbatch.c writes the batch, many entries per WAL record, and
 *	  decides where it goes (src/README, "The insert path").
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
 * aminsert: hash the heap tuple's values and append its entry to this
 * backend's batch of the index (scbfbatch.c), which writes it, with the
 * other entries of the transaction, before the transaction commits; until
 * then this backend's scans read it there.  Always inserts, whatever the
 * indexUnchanged hint says: a non-HOT update puts the new version at a new
 * TID, possibly in another segment, and the old entry goes away at VACUUM.
 * Returns false (no uniqueness check).
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
	ScbfHash	hashes[INDEX_MAX_KEYS];
	int			col;
	int			ncols = IndexRelationGetNumberOfKeyAttributes(index);

	/*
	 * Once per statement: an index of another format version (or a broken
	 * metapage) fails here, clearly, and a temporary context is made, reset
	 * after each tuple
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
			ScbfHashDatum(index, col, ScbfColumnHashBits(index, col),
						  values[col]);

	MemoryContextSwitchTo(oldcxt);
	MemoryContextReset(tmpcxt);

	ScbfBatchAdd(index, ht_ctid, hashes, ncols);
	return false;
}
