/*-------------------------------------------------------------------------
 *
 * scbfscan.c
 *	  Bitmap scans of an scbf index: the AM callbacks.
 *
 * NOTES
 *	  amrescan turns the scan keys into conditions (ScbfKeyToCond, in
 *	  scbfprobe.c), once per rescan; amgetbitmap hands them to the probe
 *	  (ScbfProbeBitmap), which adds the matching TIDs to the bitmap, with
 *	  recheck.
 *
 * Portions Copyright (c) 2026, scbf developers
 *
 * IDENTIFICATION
 *	  src/scbfscan.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/relscan.h"
#include "nodes/tidbitmap.h"
#include "pgstat.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "scbf.h"

typedef struct ScbfScanOpaqueData
{
	MemoryContext keycxt;		/* conditions, reset at each rescan */
	bool		unsatisfiable;	/* some key can match nothing */
	int			nconds;
	ScbfCond   *conds;
} ScbfScanOpaqueData;

typedef ScbfScanOpaqueData *ScbfScanOpaque;

/*
 * ambeginscan: a scan of index r; its keys come with amrescan.  Reads the
 * metapage, so that an index this code cannot read fails here.
 */
IndexScanDesc
scbfbeginscan(Relation r, int nkeys, int norderbys)
{
	IndexScanDesc scan = RelationGetIndexScan(r, nkeys, norderbys);
	ScbfScanOpaque so = palloc0(sizeof(ScbfScanOpaqueData));

	(void) ScbfGetState(r);
	so->keycxt = AllocSetContextCreate(CurrentMemoryContext,
									   "scbf scan keys",
									   ALLOCSET_SMALL_SIZES);
	scan->opaque = so;
	return scan;
}

/*
 * amrescan: install new keys and turn them into conditions, in the scan's
 * key context (reset here).  A key that can match nothing makes the scan
 * unsatisfiable.
 */
void
scbfrescan(IndexScanDesc scan, ScanKey scankey, int nscankeys,
		   ScanKey orderbys, int norderbys)
{
	ScbfScanOpaque so = (ScbfScanOpaque) scan->opaque;
	MemoryContext oldcxt;
	int			i;

	if (scankey && scan->numberOfKeys > 0)
		memmove(scan->keyData, scankey,
				scan->numberOfKeys * sizeof(ScanKeyData));

	MemoryContextReset(so->keycxt);
	oldcxt = MemoryContextSwitchTo(so->keycxt);

	so->unsatisfiable = false;
	so->nconds = 0;
	so->conds = palloc(sizeof(ScbfCond) * Max(scan->numberOfKeys, 1));
	for (i = 0; i < scan->numberOfKeys; i++)
	{
		ScbfCond   *cond = &so->conds[so->nconds];

		if (!ScbfKeyToCond(scan->indexRelation, &scan->keyData[i], cond,
						   so->keycxt))
		{
			so->unsatisfiable = true;
			break;
		}
		so->nconds++;
	}

	MemoryContextSwitchTo(oldcxt);
}

/*
 * amgetbitmap: every TID whose entry satisfies the conditions, with
 * recheck, this backend's entries not written yet included (the probe reads
 * them in memory: a scan writes nothing).  Returns the number of TIDs added.
 */
int64
scbfgetbitmap(IndexScanDesc scan, TIDBitmap *tbm)
{
	Relation	index = scan->indexRelation;
	ScbfScanOpaque so = (ScbfScanOpaque) scan->opaque;

	pgstat_count_index_scan(index);
	ScbfCountIndexSearch(scan);
	if (so->unsatisfiable)
		return 0;

	return ScbfProbeBitmap(index, so->conds, so->nconds, tbm, NULL);
}

/*
 * amendscan: free the scan's conditions and opaque state.
 */
void
scbfendscan(IndexScanDesc scan)
{
	ScbfScanOpaque so = (ScbfScanOpaque) scan->opaque;

	MemoryContextDelete(so->keycxt);
	pfree(so);
}
