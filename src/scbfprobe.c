/*-------------------------------------------------------------------------
 *
 * scbfprobe.c
 *	  The probe: scan keys as conditions, and the index entries that
 *	  satisfy them.
 *
 * NOTES
 *	  A key is hashed once, with the opfamily's hash function for the
 *	  key's own type and the key's collation (ScbfKeyHashProc); an
 *	  = ANY(array) key becomes one condition with a set of hashes (one
 *	  index pass), IS NULL a condition on SCBF_NULL_HASH, IS NOT NULL a
 *	  condition checked in the ledger only (ScbfKeyToCond).  Conditions
 *	  are ANDed.  ScbfProbeBitmap runs them, as of one metapage copy:
 *
 *	  1. the rows: for each = / = ANY / IS NULL condition, the OR over its
 *		 hashes of the AND of each hash's k rows, and of the filters the
 *		 delta names for the hash (read first, scbfdelta.c); the
 *		 conditions' results are ANDed.  The set bits are the filters that
 *		 may hold a match;
 *	  2. per such filter, its table entry and, per condition, a lookup in
 *		 the ledger of the condition's column (root, then the leaf or two
 *		 whose fences bracket each hash); the items that satisfy every
 *		 condition go into the bitmap, with recheck.  A condition of a few
 *		 hashes (an IN list) keeps each hash's filters apart when it reads
 *		 the rows, so that a filter looks up only the hashes whose rows
 *		 name it: one leaf per hash and candidate, not one per hash of the
 *		 list;
 *	  3. the pending area: in the partitions that the hashes of an
 *		 equality condition on the first column name (all partitions
 *		 without one), the entries past the cuts that satisfy every
 *		 condition go into the bitmap too.
 *
 *	  IS NOT NULL and keys the filters cannot test (SCBF_COND_ANY) select
 *	  no rows by themselves: they read whole ledgers of the filters the
 *	  other conditions leave, or of all filters when there are none.
 *
 *	  The scan (scbfscan.c) calls the probe silently.  scbf_probe
 *	  (scbfinspect.c) makes its condition with the same ScbfKeyToCond and
 *	  calls the same function with a trace, which records a step per
 *	  source of entries the probe read: each filter whose rows said
 *	  "maybe", each pending partition with entries past its cut, with the
 *	  TIDs that matched there and their heap pages.  Without a trace the
 *	  probe pays a test per filter and per matching pending entry for it.
 *
 * Portions Copyright (c) 2026, scbf developers
 *
 * IDENTIFICATION
 *	  src/scbfprobe.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/xlog.h"
#include "miscadmin.h"
#include "nodes/tidbitmap.h"
#include "storage/lmgr.h"
#include "utils/array.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/typcache.h"

#include "scbf.h"

/*
 * How often a probe starts over when folds keep recycling pages before it
 * takes the fold lock (primary) or gives up (standby)
 */
#define SCBF_SCAN_RETRIES		3
#define SCBF_STANDBY_RETRIES	20

/*
 * Conditions of at most this many hashes keep each hash's candidate
 * filters (a bit per filter each), to look up only those hashes per filter
 */
#define SCBF_SCAN_MASKED_HASHES	64

/* One attempt of a probe: what its steps read and where they put TIDs */
typedef struct ScbfProbeRun
{
	Relation	index;
	ScbfState  *state;
	ScbfCond   *conds;
	int			nconds;
	ScbfMeta   *meta;			/* this attempt's metapage copy */
	uint64		fold_serial;	/* its fold serial */
	BlockNumber nblocks;		/* the index's size, as ScanFilters found it */
	TIDBitmap  *tbm;
	int64		ntuples;		/* TIDs this attempt added to tbm */
	ScbfProbeTrace *trace;		/* NULL: the probe is silent */
	BlockNumber *heapblocks;	/* trace: heap blocks of a partition's
								 * matches */
	int			nheapblocks;
	int			maxheapblocks;
} ScbfProbeRun;

/* The candidate filters, and per condition those of each of its hashes */
typedef struct ScbfHashMasks
{
	uint8	   *acc;			/* the filters that may hold a match */
	uint8	  **masks;			/* per condition: NULL, or one mask per hash */
	int			nsubset;		/* hashes that have a mask */
	ScbfHash   *subset;			/* scratch: the hashes of one filter */
	ScbfCond   *conds;			/* scratch: the conditions for one filter
								 * (the probe's own if no hash has a mask) */
} ScbfHashMasks;

/* Items of a whole ledger, collected by CollectAll */
typedef struct ScbfCollect
{
	bool		notnull;		/* leave out the NULL hash */
	uint16	   *items;
	int			nitems;
	int			maxitems;
} ScbfCollect;

/*
 * The extended hash function (support function 2 of a hash opclass) for
 * values of type typid whose standard hash in the scbf opfamily is
 * hashproc: the one of the type's default hash opclass, if that opclass's
 * function 1 is hashproc too, so that the two agree on which values are
 * equal; else NULL.  The type cache keeps it.
 */
static FmgrInfo *
ColumnExtendedProc(Oid typid, Oid hashproc)
{
	TypeCacheEntry *tc;

	if (!OidIsValid(hashproc))
		return NULL;
	tc = lookup_type_cache(typid, TYPECACHE_HASH_PROC |
						   TYPECACHE_HASH_EXTENDED_PROC_FINFO);
	if (tc->hash_proc != hashproc ||
		!OidIsValid(tc->hash_extended_proc_finfo.fn_oid))
		return NULL;
	return &tc->hash_extended_proc_finfo;
}

/*
 * ScbfExtendedColumns
 *		The columns of index whose hashes can be wider than 32 bits (bit c
 *		for column c): those whose type has an extended hash that agrees
 *		with the scbf opclass's (ColumnExtendedProc).  A build of wider hashes
 *		freezes them in the metapage; the other columns keep 32 bits.
 */
uint32
ScbfExtendedColumns(Relation index)
{
	uint32		cols = 0;

	for (int col = 0; col < IndexRelationGetNumberOfKeyAttributes(index); col++)
		if (ColumnExtendedProc(index->rd_opcintype[col],
							   index_getprocid(index, col + 1,
											   SCBF_HASH_PROC)) != NULL)
			cols |= 1U << col;
	return cols;
}

/*
 * The hash of key value value under collation, by hash function proc
 * (the extended one at seed 0, masked to bits, or the standard one), as
 * the ledger stores it (ScbfCanonicalHash)
 */
static ScbfHash
KeyHash(FmgrInfo *proc, bool extended, int bits, Oid collation, Datum value)
{
	ScbfHash	hash;

	if (extended)
		hash = DatumGetUInt64(FunctionCall2Coll(proc, collation, value,
												Int64GetDatum(0))) &
			ScbfHashMask(bits);
	else
		hash = DatumGetUInt32(FunctionCall1Coll(proc, collation, value));
	return ScbfCanonicalHash(hash);
}

/*
 * ScbfHashDatum
 *		Column col's (non-null) value as the index keeps it: its opclass's
 *		hash under the column's collation, or in a column of bits > 32
 *		(ScbfColumnHashBits) the extended hash at seed 0, masked to them;
 *		canonicalized (SCBF_NULL_HASH is NULL's).  An index whose column
 *		was built with wider hashes that its type no longer offers cannot
 *		be written or read: ERRCODE_INDEX_CORRUPTED, to REINDEX it.
 */
ScbfHash
ScbfHashDatum(Relation index, int col, int bits, Datum value)
{
	FmgrInfo   *proc;

	if (bits <= 32)
		return KeyHash(index_getprocinfo(index, col + 1, SCBF_HASH_PROC),
					   false, bits, index->rd_indcollation[col], value);
	proc = ColumnExtendedProc(index->rd_opcintype[col],
							  index_getprocid(index, col + 1, SCBF_HASH_PROC));
	if (proc == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" has %d-bit hashes in column %d, whose type has no extended hash function now",
						RelationGetRelationName(index), bits, col + 1),
				 errhint("REINDEX it.")));
	return KeyHash(proc, true, bits, index->rd_indcollation[col], value);
}

/*
 * ScbfKeyHashProc
 *		The hash function for keys of type subtype and collation collation
 *		on column col: the opclass's own for its input type (subtype
 *		InvalidOid means that type too), else the opfamily's for subtype;
 *		in a column of wider hashes, the extended hash that agrees with it.
 *		*extended says which.  Returns NULL if there is none, or if the one
 *		there is need not agree with equality: across types under a
 *		nondeterministic collation (hashname ignores the collation that
 *		nameeqtext honours).  A key without one cannot be tested by the
 *		index.  A function other than the opclass's own is looked up into
 *		cxt.
 */
FmgrInfo *
ScbfKeyHashProc(Relation index, int col, Oid subtype, Oid collation,
				MemoryContext cxt, bool *extended)
{
	Oid			procid;
	FmgrInfo   *proc;
	FmgrInfo   *ext;

	*extended = ScbfColumnHashBits(index, col) > 32;
	if (!OidIsValid(subtype) || subtype == index->rd_opcintype[col])
	{
		if (!*extended)
			return index_getprocinfo(index, col + 1, SCBF_HASH_PROC);
		subtype = index->rd_opcintype[col];
		procid = index_getprocid(index, col + 1, SCBF_HASH_PROC);
	}
	else
	{
		if (OidIsValid(collation) && !get_collation_isdeterministic(collation))
			return NULL;
		procid = get_opfamily_proc(index->rd_opfamily[col], subtype, subtype,
								   SCBF_HASH_PROC);
		if (!OidIsValid(procid))
			return NULL;
	}
	if (*extended)
	{
		if ((ext = ColumnExtendedProc(subtype, procid)) == NULL)
			return NULL;
		procid = ext->fn_oid;
	}
	proc = MemoryContextAlloc(cxt, sizeof(FmgrInfo));
	fmgr_info_cxt(procid, proc, cxt);
	return proc;
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
	bool		extended;
	int			bits;
	int			i;
	int			n;

	memset(cond, 0, sizeof(ScbfCond));
	cond->col = col;
	cond->kind = SCBF_COND_EQ;
	cond->bits = ScbfColumnHashBits(index, col);

	if (sk->sk_flags & SK_ISNULL)
	{
		if (sk->sk_flags & SK_SEARCHNULL)
		{
			cond->nhashes = 1;
			cond->hashes = palloc(sizeof(ScbfHash));
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
							   sk->sk_collation, cxt, &extended);
		bits = cond->bits;
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
			cond->hashes = palloc(sizeof(ScbfHash) * Max(nelems, 1));
			for (i = 0; i < nelems; i++)
			{
				if (nulls[i])
					continue;
				cond->hashes[cond->nhashes++] =
					KeyHash(proc, extended, bits, sk->sk_collation, elems[i]);
			}
			if (cond->nhashes == 0)
				return false;
		}
		else
		{
			cond->nhashes = 1;
			cond->hashes = palloc(sizeof(ScbfHash));
			cond->hashes[0] = KeyHash(proc, extended, bits, sk->sk_collation,
									  sk->sk_argument);
		}
	}

	/* sorted and distinct, for the ledger's binary search */
	qsort(cond->hashes, cond->nhashes, sizeof(ScbfHash), ScbfCmpHash);
	n = 0;
	for (i = 0; i < cond->nhashes; i++)
		if (n == 0 || cond->hashes[i] != cond->hashes[n - 1])
			cond->hashes[n++] = cond->hashes[i];
	cond->nhashes = n;
	return true;
}

/*
 * ScbfLedgerScan callback: collect the items of a posting list.
 */
static void
CollectPosting(ScbfHash hash, const uint16 *items, int nitems, void *arg)
{
	ScbfCollect *c = (ScbfCollect *) arg;

	if (c->notnull && hash == SCBF_NULL_HASH)
		return;
	if (c->nitems + nitems > c->maxitems)
	{
		c->maxitems = Max(c->maxitems * 2, c->nitems + nitems);
		c->items = repalloc(c->items, sizeof(uint16) * c->maxitems);
	}
	memcpy(c->items + c->nitems, items, sizeof(uint16) * nitems);
	c->nitems += nitems;
}

/*
 * The items of column col's whole ledger (without NULLs if notnull),
 * sorted and distinct; -1 if a standby's probe met a recycled leaf.
 */
static int
CollectAll(Relation index, BlockNumber root, int col, uint64 fold_serial,
		   bool notnull, uint16 **items, BlockNumber nblocks)
{
	ScbfCollect c;
	int			n = 0;
	int			i;

	c.notnull = notnull;
	c.maxitems = 256;
	c.nitems = 0;
	c.items = palloc(sizeof(uint16) * c.maxitems);
	if (!ScbfLedgerScan(index, root, col, fold_serial, CollectPosting,
						&c, nblocks))
		return -1;
	qsort(c.items, c.nitems, sizeof(uint16), ScbfCmpU16);
	for (i = 0; i < c.nitems; i++)
		if (n == 0 || c.items[i] != c.items[n - 1])
			c.items[n++] = c.items[i];
	*items = c.items;
	return n;
}

/*
 * a[0 .. na) := the items in both a and b (both sorted, distinct).
 */
static int
Intersect(uint16 *a, int na, const uint16 *b, int nb)
{
	int			i = 0;
	int			j = 0;
	int			n = 0;

	while (i < na && j < nb)
	{
		if (a[i] < b[j])
			i++;
		else if (a[i] > b[j])
			j++;
		else
		{
			a[n++] = a[i];
			i++;
			j++;
		}
	}
	return n;
}

/*
 * The items of one filter that satisfy every condition, sorted and
 * distinct; -1 if a standby's probe met a leaf recycled under it (see
 * LeafBelongs in scbfledger.c).
 */
static int
FilterItems(Relation index, ScbfFilter *f, ScbfCond *conds, int nconds,
			uint64 fold_serial, uint16 **items, BlockNumber nblocks)
{
	int			n = -1;			/* no condition restricted them yet */
	int			c;

	for (c = 0; c < nconds && n != 0; c++)
	{
		ScbfCond   *cond = &conds[c];
		BlockNumber root = ScbfFilterRoot(f, cond->col);
		uint16	   *these;
		int			nthese;

		if (cond->kind == SCBF_COND_ANY)
			continue;
		if (cond->kind == SCBF_COND_EQ)
			nthese = ScbfLedgerLookup(index, root, cond->col, cond->bits,
									  fold_serial, cond->hashes,
									  cond->nhashes, &these, nblocks);
		else
			nthese = CollectAll(index, root, cond->col, fold_serial,
								true, &these, nblocks);
		if (nthese < 0)
			return -1;
		if (n < 0)
		{
			*items = these;
			n = nthese;
		}
		else
			n = Intersect(*items, n, these, nthese);
	}
	if (n < 0)
		n = CollectAll(index, ScbfFilterRoot(f, 0), 0, fold_serial,
					   false, items, nblocks);
	return n;
}

/*
 * Set up *hm for a probe of conds on the metapage copy meta: acc, and a
 * mask per hash for each equality condition of a few hashes, with the
 * scratch that FilterConds needs.  HashMasksFree frees them.
 */
static void
HashMasksInit(ScbfHashMasks *hm, const ScbfMeta *meta, ScbfCond *conds,
			  int nconds)
{
	Size		nbytes = ScbfRowsBytes(meta);
	int			c;

	hm->acc = palloc(nbytes);
	hm->masks = palloc0(sizeof(uint8 *) * nconds);
	hm->nsubset = 0;
	for (c = 0; c < nconds; c++)
		if (conds[c].kind == SCBF_COND_EQ && conds[c].nhashes > 1 &&
			conds[c].nhashes <= SCBF_SCAN_MASKED_HASHES)
		{
			hm->masks[c] = palloc(nbytes * conds[c].nhashes);
			hm->nsubset += conds[c].nhashes;
		}
	hm->subset = palloc(sizeof(ScbfHash) * Max(hm->nsubset, 1));
	hm->conds = hm->nsubset > 0 ? palloc(sizeof(ScbfCond) * nconds) : conds;
}

/*
 * Free what HashMasksInit allocated for a probe of conds.
 */
static void
HashMasksFree(ScbfHashMasks *hm, ScbfCond *conds, int nconds)
{
	int			c;

	for (c = 0; c < nconds; c++)
		if (hm->masks[c] != NULL)
			pfree(hm->masks[c]);
	pfree(hm->masks);
	pfree(hm->subset);
	if (hm->conds != conds)
		pfree(hm->conds);
	pfree(hm->acc);
}

/*
 * The filters that may hold a match, into hm->acc: the AND over the
 * equality conditions of the OR over each one's hashes of their k rows
 * and of the filters the delta names for them; a condition with masks
 * keeps each hash's filters in its own mask too.  False if the band or
 * the delta moved (see ScbfRowsProbe).
 */
static bool
ProbeRows(Relation index, ScbfState *state, const ScbfMeta *meta,
		  ScbfCond *conds, int nconds, ScbfHashMasks *hm,
		  BlockNumber nblocks)
{
	Size		nbytes = ScbfRowsBytes(meta);
	uint8	   *one = palloc(nbytes);
	int			c;

	memset(hm->acc, 0xFF, nbytes);
	for (c = 0; c < nconds; c++)
	{
		ScbfCond   *cond = &conds[c];
		int			nparts = 1;
		int			h;
		Size		b;

		if (cond->kind != SCBF_COND_EQ)
			continue;
		memset(one, 0, nbytes);
		if (hm->masks[c] != NULL)
			nparts = cond->nhashes;
		for (h = 0; h < nparts; h++)
		{
			/* all the hashes at once, or hash h into its own mask */
			const ScbfHash *hashes = nparts == 1 ? cond->hashes :
				&cond->hashes[h];
			int			nhashes = nparts == 1 ? cond->nhashes : 1;
			uint8	   *into = nparts == 1 ? one : hm->masks[c] + h * nbytes;

			if (into != one)
				memset(into, 0, nbytes);
			/* the delta before the rows: see scbfdelta.c */
			if (!ScbfDeltaProbe(index, meta, cond->col, hashes, nhashes,
								into, nblocks) ||
				!ScbfRowsProbe(index, state, meta, cond->col, hashes,
							   nhashes, into, nblocks))
			{
				pfree(one);
				return false;
			}
			if (into != one)
				for (b = 0; b < nbytes; b++)
					one[b] |= into[b];
		}
		for (b = 0; b < nbytes; b++)
			hm->acc[b] &= one[b];
	}
	pfree(one);
	return true;
}

/*
 * The conditions for candidate filter fno, into hm->conds: those whose
 * hashes keep their own masks name only the hashes whose rows hold fno.
 * False if one names none (then no entry of the filter can match).
 */
static bool
FilterConds(const ScbfMeta *meta, ScbfCond *conds, int nconds,
			ScbfHashMasks *hm, uint32 fno)
{
	Size		nbytes = ScbfRowsBytes(meta);
	ScbfHash   *subset = hm->subset;
	int			c;

	memcpy(hm->conds, conds, sizeof(ScbfCond) * nconds);
	for (c = 0; c < nconds; c++)
	{
		ScbfCond   *cond = &hm->conds[c];
		int			n = 0;
		int			h;

		if (hm->masks[c] == NULL)
			continue;
		for (h = 0; h < conds[c].nhashes; h++)
			if (ScbfRowsHas(meta, hm->masks[c] + h * nbytes, fno))
				subset[n++] = conds[c].hashes[h];
		if (n == 0)
			return false;
		cond->hashes = subset;
		cond->nhashes = n;
		subset += n;
	}
	return true;
}

/*
 * A new step at the end of trace, zeroed.  The steps stay in the memory
 * context ScbfProbeBitmap allocated them in.
 */
static ScbfProbeStep *
TraceStep(ScbfProbeTrace *trace)
{
	ScbfProbeStep *step;

	if (trace->nsteps == trace->maxsteps)
	{
		trace->maxsteps *= 2;
		trace->steps = repalloc(trace->steps,
								sizeof(ScbfProbeStep) * trace->maxsteps);
	}
	step = &trace->steps[trace->nsteps++];
	memset(step, 0, sizeof(ScbfProbeStep));
	return step;
}

/*
 * Record filter fno's step: items[0 .. n) are the items of its entries
 * that matched, sorted (so their heap blocks are too).
 */
static void
TraceFilter(ScbfProbeTrace *trace, const ScbfFilter *f, uint32 fno,
			const uint16 *items, int n)
{
	ScbfProbeStep *step = TraceStep(trace);
	int			i;

	step->source = SCBF_PROBE_FILTER;
	step->segno = ScbfFilterSegment(f);
	step->chain_pos = ScbfFilterChainPos(f);
	step->number = fno;
	step->matches = n;
	for (i = 0; i < n; i++)
		if (i == 0 ||
			ScbfTidRelBlock(items[i]) != ScbfTidRelBlock(items[i - 1]))
			step->heappages++;
}

/*
 * Record pending partition part's step: matches entries matched, on the
 * heap blocks run->heapblocks collected (in entry order, with repeats).
 */
static void
TracePending(ScbfProbeRun *run, int part, int64 matches)
{
	ScbfProbeStep *step = TraceStep(run->trace);
	int			i;

	step->source = SCBF_PROBE_PENDING;
	step->number = part;
	step->matches = matches;
	qsort(run->heapblocks, run->nheapblocks, sizeof(BlockNumber), ScbfCmpU32);
	for (i = 0; i < run->nheapblocks; i++)
		if (i == 0 || run->heapblocks[i] != run->heapblocks[i - 1])
			step->heappages++;
}

/*
 * Candidate filter fno of run's metapage copy, under conds (the probe's,
 * or FilterConds' choice of their hashes for fno): the TIDs of its entries
 * that satisfy every condition go into the bitmap and, with a trace, into
 * a step.  A filter not visible at the copy's fold serial (one VACUUM
 * merged into another, which holds its entries) is left out.  What it
 * allocates is the caller's to free.  False if a standby's probe met a
 * leaf recycled under it.
 */
static bool
ScanFilter(ScbfProbeRun *run, uint32 fno, ScbfCond *conds)
{
	ScbfFilter *f;
	uint16	   *items = NULL;
	BlockNumber segstart;
	int			n;
	int			i;

	f = ScbfReadFilter(run->index, run->state, run->meta, fno, run->nblocks);
	if (!ScbfFilterVisible(f, run->fold_serial))
		return true;
	n = FilterItems(run->index, f, conds, run->nconds, run->fold_serial,
					&items, run->nblocks);
	if (n < 0)
		return false;
	segstart = ScbfFilterSegment(f) * run->state->pages_per_segment;
	for (i = 0; i < n; i++)
	{
		ItemPointerData tid;

		ItemPointerSet(&tid, segstart + ScbfTidRelBlock(items[i]),
					   ScbfTidOffset(items[i]));
		tbm_add_tuples(run->tbm, &tid, 1, true);
	}
	run->ntuples += n;
	if (run->trace != NULL)
		TraceFilter(run->trace, f, fno, items, n);
	return true;
}

/*
 * The filters' part of a probe: the rows, then the candidates' ledgers.
 * False if the band or a leaf moved under the probe (on a standby), when
 * the probe starts over.
 */
static bool
ScanFilters(ScbfProbeRun *run)
{
	uint32		nfilters = ScbfMetaFilters(run->meta);
	MemoryContext filtercxt;
	MemoryContext oldcxt;
	ScbfHashMasks hm;
	uint32		fno;
	bool		complete = true;

	if (nfilters == 0)
		return true;
	run->nblocks = RelationGetNumberOfBlocks(run->index);
	HashMasksInit(&hm, run->meta, run->conds, run->nconds);
	if (!ProbeRows(run->index, run->state, run->meta, run->conds,
				   run->nconds, &hm, run->nblocks))
	{
		HashMasksFree(&hm, run->conds, run->nconds);
		return false;
	}

	filtercxt = AllocSetContextCreate(CurrentMemoryContext,
									  "scbf scan filter context",
									  ALLOCSET_DEFAULT_SIZES);
	for (fno = ScbfRowsNext(run->meta, hm.acc, 0);
		 fno < nfilters && complete;
		 fno = ScbfRowsNext(run->meta, hm.acc, fno + 1))
	{
		CHECK_FOR_INTERRUPTS();
		if (hm.nsubset > 0 &&
			!FilterConds(run->meta, run->conds, run->nconds, &hm, fno))
			continue;
		oldcxt = MemoryContextSwitchTo(filtercxt);
		complete = ScanFilter(run, fno, hm.conds);
		MemoryContextSwitchTo(oldcxt);
		MemoryContextReset(filtercxt);
	}
	MemoryContextDelete(filtercxt);
	HashMasksFree(&hm, run->conds, run->nconds);
	return complete;
}

/*
 * ScbfPendingScan callback: a pending entry that satisfies every
 * condition goes into the bitmap (and, with a trace, its heap block into
 * run->heapblocks).
 */
static void
PendingMatch(ItemPointer tid, const ScbfHash *hashes, void *arg)
{
	ScbfProbeRun *run = (ScbfProbeRun *) arg;
	int			c;

	for (c = 0; c < run->nconds; c++)
	{
		ScbfCond   *cond = &run->conds[c];
		ScbfHash	h = hashes[cond->col];

		if (cond->kind == SCBF_COND_EQ &&
			bsearch(&h, cond->hashes, cond->nhashes, sizeof(ScbfHash),
					ScbfCmpHash) == NULL)
			return;
		if (cond->kind == SCBF_COND_NOTNULL && h == SCBF_NULL_HASH)
			return;
	}
	tbm_add_tuples(run->tbm, tid, 1, true);
	run->ntuples++;
	if (run->trace != NULL)
	{
		if (run->nheapblocks == run->maxheapblocks)
		{
			run->maxheapblocks *= 2;
			run->heapblocks = repalloc(run->heapblocks,
									   sizeof(BlockNumber) *
									   run->maxheapblocks);
		}
		run->heapblocks[run->nheapblocks++] = ItemPointerGetBlockNumber(tid);
	}
}

/*
 * The pending partitions a probe must read: those of the hashes of an
 * equality condition on the first column, else all.
 */
static void
PendingParts(ScbfCond *conds, int nconds, bool *parts)
{
	int			c;
	int			i;

	for (c = 0; c < nconds; c++)
	{
		if (conds[c].kind != SCBF_COND_EQ || conds[c].col != 0)
			continue;
		memset(parts, 0, sizeof(bool) * SCBF_NPENDING);
		for (i = 0; i < conds[c].nhashes; i++)
			parts[ScbfPendingPartition(conds[c].hashes[i])] = true;
		return;
	}
	memset(parts, 1, sizeof(bool) * SCBF_NPENDING);
}

/*
 * The pending area's part of a probe: the entries of the partitions parts
 * names, past the cuts of run's metapage copy.  With a trace, a step per
 * partition that has entries past its cut.  False if a fold freed a page
 * of a chain meanwhile, when the probe starts over.
 */
static bool
ScanPending(ScbfProbeRun *run, const bool *parts)
{
	int			part;

	for (part = 0; part < SCBF_NPENDING; part++)
	{
		ScbfPendingCut cut;
		int64		before = run->ntuples;

		if (!parts[part])
			continue;
		run->nheapblocks = 0;
		if (!ScbfPendingScan(run->index, run->state, run->meta, part,
							 PendingMatch, run,
							 run->trace != NULL ? &cut : NULL))
			return false;
		/* the cut's page is Invalid if there was nothing past it to read */
		if (run->trace != NULL && cut.blkno != InvalidBlockNumber)
			TracePending(run, part, run->ntuples - before);
	}
	return true;
}

/*
 * Before attempt `attempt` of a probe: on a primary, from the
 * SCBF_SCAN_RETRIES-th on, take the fold lock in share mode (no fold
 * commits until the caller releases it; *locked says whether it did); on
 * a standby, give up after SCBF_STANDBY_RETRIES.  An attempt that fails
 * while the lock is held means the index is corrupt.
 */
static void
BeginAttempt(Relation index, int attempt, bool *locked)
{
	CHECK_FOR_INTERRUPTS();
	if (*locked)
	{
		if (attempt > SCBF_SCAN_RETRIES)
			ereport(ERROR,
					(errcode(ERRCODE_INDEX_CORRUPTED),
					 errmsg("index \"%s\" changed during a scan that holds its fold lock",
							RelationGetRelationName(index)),
					 errhint("Please REINDEX it.")));
	}
	else if (attempt >= SCBF_SCAN_RETRIES)
	{
		if (!RecoveryInProgress())
		{
			LockPage(index, SCBF_METAPAGE_BLKNO, ShareLock);
			*locked = true;
		}
		else if (attempt >= SCBF_STANDBY_RETRIES)
			ereport(ERROR,
					(errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
					 errmsg("index \"%s\" kept changing during a scan on the standby",
							RelationGetRelationName(index)),
					 errdetail("The primary folded its pending entries %d times during the scan.",
							   attempt),
					 errhint("Retry the query.")));
	}
}

/*
 * ScbfProbeBitmap
 *		Add to tbm, with recheck, the TID of every entry that satisfies
 *		all of conds[0 .. nconds) (as ScbfKeyToCond made them; none of them
 *		unsatisfiable), and return their number.  With trace not NULL,
 *		also fill *trace with the steps of the attempt that completed
 *		(palloc'd in the caller's memory context).
 *
 * The filters and the pending area are read as of one metapage copy.  The
 * pages a fold or VACUUM supersedes (the band, folded pending pages, the
 * leaves of merged ledger runs) are recycled only once no snapshot is
 * older than the serial that superseded them, so on a primary a probe
 * always finds them.  A standby has no such protection: there a probe
 * that meets a recycled page, or ends after VACUUM's census began to
 * recycle (ScbfRecycledSince: a released filter or a tidied run leaves no
 * recycled page to meet), starts over from a new copy (a TID added twice
 * to the bitmap is added once).  On a primary, a probe that had to start
 * over SCBF_SCAN_RETRIES times takes the fold lock in share mode, so that
 * no fold commits until it is done.  No lock is held on return.
 */
int64
ScbfProbeBitmap(Relation index, ScbfCond *conds, int nconds, TIDBitmap *tbm,
				ScbfProbeTrace *trace)
{
	ScbfProbeRun run;
	bool		parts[SCBF_NPENDING];
	bool		locked = false;
	int			attempt;

	memset(&run, 0, sizeof(run));
	run.index = index;
	run.state = ScbfGetState(index);
	run.conds = conds;
	run.nconds = nconds;
	run.tbm = tbm;
	run.trace = trace;
	if (trace != NULL)
	{
		trace->maxsteps = 16;
		trace->steps = palloc(sizeof(ScbfProbeStep) * trace->maxsteps);
		run.maxheapblocks = 64;
		run.heapblocks = palloc(sizeof(BlockNumber) * run.maxheapblocks);
	}
	PendingParts(conds, nconds, parts);
	for (attempt = 0;; attempt++)
	{
		bool		complete;

		BeginAttempt(index, attempt, &locked);
		run.meta = ScbfReadMeta(index);
		run.fold_serial = ScbfMetaFoldSerial(run.meta);
		run.ntuples = 0;
		if (trace != NULL)
			trace->nsteps = 0;
		complete = ScanFilters(&run) && ScanPending(&run, parts);
		if (complete && RecoveryInProgress() &&
			ScbfRecycledSince(index, run.meta))
			complete = false;
		pfree(run.meta);
		if (complete)
			break;
	}
	/* this backend's own entries not written yet (scbfbatch.c) */
	ScbfBatchScan(index, PendingMatch, &run);
	if (locked)
		UnlockPage(index, SCBF_METAPAGE_BLKNO, ShareLock);
	if (trace != NULL)
		pfree(run.heapblocks);
	return run.ntuples;
}
