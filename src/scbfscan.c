/*-------------------------------------------------------------------------
 *
 * scbfscan.c
 *	  Bitmap scans of an scbf index: the scan keys and the AM callbacks.
 *
 * NOTES
 *	  Keys are hashed once, at amrescan, with the opfamily's hash function
 *	  for the key's own type and the key's collation (ScbfKeyHashProc); an
 *	  = ANY(array) key becomes one condition with a set of hashes (one
 *	  index pass), IS NULL a condition on SCBF_NULL_HASH, IS NOT NULL a
 *	  condition checked in the ledger only.  Conditions are ANDed.
 *	  amgetbitmap hands them to the probe (ScbfProbeBitmap, scbfprobe.c).
 *	  scbf_probe turns its key into a condition with the same ScbfKeyToCond
 *	  and traces the same probe.
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
#include "utils/array.h"
#include "utils/lsyscache.h"
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
 * ScbfKeyHashProc
 *		The hash function for keys of type subtype and collation collation
 *		on column col: the opclass's own for its input type (subtype
 *		InvalidOid means that type too), else the opfamily's for subtype.
 *		Returns NULL if the family has none, or if the one it has need not
 *		agree with equality: across types under a nondeterministic
 *		collation (hashname ignores the collation that nameeqtext honours).
 *		A key without one cannot be tested by the index.  A function other
 *		than the opclass's own is looked up into cxt.
 */
FmgrInfo *
ScbfKeyHashProc(Relation index, int col, Oid subtype, Oid collation,
				MemoryContext cxt)
{
	Oid			procid;
	FmgrInfo   *proc;

	if (!OidIsValid(subtype) || subtype == index->rd_opcintype[col])
		return index_getprocinfo(index, col + 1, SCBF_HASH_PROC);

	if (OidIsValid(collation) && !get_collation_isdeterministic(collation))
		return NULL;
	procid = get_opfamily_proc(index->rd_opfamily[col], subtype, subtype,
							   SCBF_HASH_PROC);
	if (!OidIsValid(procid))
		return NULL;
	proc = MemoryContextAlloc(cxt, sizeof(FmgrInfo));
	fmgr_info_cxt(procid, proc, cxt);
	return proc;
}

/*
 * qsort comparator for uint32 hashes.
 */
static int
CmpUint32(const void *a, const void *b)
{
	uint32		x = *(const uint32 *) a;
	uint32		y = *(const uint32 *) b;

	return (x > y) - (x < y);
}

/*
 * ScbfKeyToCond
 *		Turn scan key sk on index into *cond: its hashes (palloc'd in the
 *		current memory context, sorted and distinct), or a condition the
 *		ledger checks (IS NOT NULL), or one the index cannot test.  A hash
 *		function other than the opclass's own is looked up into cxt.
 *		Returns false if the key can match no row at all (col = NULL, or an
 *		array with only NULLs).
 */
bool
ScbfKeyToCond(Relation index, ScanKey sk, ScbfCond *cond, MemoryContext cxt)
{
	int			col = sk->sk_attno - 1;
	FmgrInfo   *proc;
	int			i;
	int			n;

	memset(cond, 0, sizeof(ScbfCond));
	cond->col = col;
	cond->kind = SCBF_COND_EQ;

	if (sk->sk_flags & SK_ISNULL)
	{
		if (sk->sk_flags & SK_SEARCHNULL)
		{
			cond->nhashes = 1;
			cond->hashes = palloc(sizeof(uint32));
			cond->hashes[0] = SCBF_NULL_HASH;
		}
		else if (sk->sk_flags & SK_SEARCHNOTNULL)
		{
			cond->kind = SCBF_COND_NOTNULL;
			return true;
		}
		else
			return false;		/* col = NULL, or a NULL array */
	}
	else
	{
		proc = ScbfKeyHashProc(index, col, sk->sk_subtype,
							   sk->sk_collation, cxt);
		if (proc == NULL)
		{
			cond->kind = SCBF_COND_ANY;
			return true;
		}

		if (sk->sk_flags & SK_SEARCHARRAY)
		{
			ArrayType  *arr = DatumGetArrayTypeP(sk->sk_argument);
			int16		elmlen;
			bool		elmbyval;
			char		elmalign;
			Datum	   *elems;
			bool	   *nulls;
			int			nelems;

			get_typlenbyvalalign(ARR_ELEMTYPE(arr), &elmlen, &elmbyval,
								 &elmalign);
			deconstruct_array(arr, ARR_ELEMTYPE(arr), elmlen, elmbyval,
							  elmalign, &elems, &nulls, &nelems);
			cond->hashes = palloc(sizeof(uint32) * Max(nelems, 1));
			for (i = 0; i < nelems; i++)
			{
				if (nulls[i])
					continue;
				cond->hashes[cond->nhashes++] =
					ScbfCanonicalHash(DatumGetUInt32(FunctionCall1Coll(proc,
																	   sk->sk_collation,
																	   elems[i])));
			}
			if (cond->nhashes == 0)
				return false;
		}
		else
		{
			cond->nhashes = 1;
			cond->hashes = palloc(sizeof(uint32));
			cond->hashes[0] =
				ScbfCanonicalHash(DatumGetUInt32(FunctionCall1Coll(proc,
																   sk->sk_collation,
																   sk->sk_argument)));
		}
	}

	/* sorted and distinct, for the ledger's binary search */
	qsort(cond->hashes, cond->nhashes, sizeof(uint32), CmpUint32);
	n = 0;
	for (i = 0; i < cond->nhashes; i++)
		if (n == 0 || cond->hashes[i] != cond->hashes[n - 1])
			cond->hashes[n++] = cond->hashes[i];
	cond->nhashes = n;
	return true;
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
 * recheck.  Returns the number of TIDs added.
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

	/* this backend's own unwritten entries first (scbfbatch.c) */
	ScbfBatchFlush(index);

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
