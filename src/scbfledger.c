/*-------------------------------------------------------------------------
 *
 * scbfledger.c
 *	  The ledger of a filter and index column, as runs of
 *	  posting lists in hash order.
 *
 * NOTES
 *	  A root page lists the runs (the fold serial that made each one, the
 *	  one that superseded it, its leaf fences); leaves hold posting lists
 *	  (scbfpostinglist.c).  A run's last leaf may be inline, held in the
 *	  root after the run's fences, when the root has room to spare
 *	  (RunMayInline).  A lookup reads the root and, per run, the one
 *	  or two leaves whose fences bracket the hash: its page count does not
 *	  depend on the size of the filter.  A reader holds one ledger page's
 *	  lock at a time, the root's let go of before any leaf's is taken.  A
 *	  lookup (ScbfLedgerLookup) decodes in the pages under their share
 *	  locks, copying neither; a scan (ScbfLedgerScan) copies each page and
 *	  lets go of its lock before decoding it, so no lock is held across
 *	  its callback.
 *
 *	  A run is visible to a reader whose metapage says fold_serial f when
 *	  made <= f < gone (src/README, "Crash safety and visibility").
 *
 * Portions Copyright (c) 2026, scbf developers
 *
 * IDENTIFICATION
 *	  src/scbfledger.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/generic_xlog.h"
#include "access/xlog.h"
#include "miscadmin.h"
#include "utils/rel.h"

#include "scbf.h"
#include "scbf_page.h"
#include "scbfpostinglist.h"

/* Most runs a root's bytes can hold, each at least a run's header */
#define SCBF_ROOT_MAX_RUNS \
	((int) (SCBF_ROOT_BYTES / sizeof(ScbfRunData) + 1))

/* A root's runs, copied out of the page and checked */
typedef struct ScbfRootCopy
{
	BlockNumber root;
	int			bits;			/* its column's hash bits */
	int			nruns;
	ScbfRunData *runs[SCBF_ROOT_MAX_RUNS];
	char		bytes[SCBF_ROOT_BYTES];
} ScbfRootCopy;

/* A leaf's posting lists, copied out of its page or its root */
typedef struct ScbfLeafCopy
{
	const ScbfRunData *run;	/* leaf `leaf` of this run; NULL: nothing
								 * copied yet */
	int			leaf;
	BlockNumber blkno;			/* its page (the root's, if inline) */
	uint32		fence;			/* its first hash's ScbfFenceOf */
	ScbfHash	base;			/* what its lists are decoded from */
	int			bits;
	uint16		nbytes;
	int			nsignposts;
	ScbfSignpost signposts[SCBF_LEAF_SIGNPOSTS];
	uint8		bytes[SCBF_LEAF_BYTES];
} ScbfLeafCopy;

/*
 * True if the run at byte off of a root's nbytes of runs fits in them, and
 * its inline leaf, if any, is its last one, with no block.
 */
static bool
RunFits(const ScbfRunData *run, uint32 off, uint32 nbytes)
{
	if (off + offsetof(ScbfRunData, fences) > nbytes ||
		off + ScbfRunBytes(run) > nbytes)
		return false;
	if (run->inlined > 0 &&
		(run->nleaves == 0 || run->inlined > SCBF_LEAF_BYTES ||
		 run->fences[run->nleaves - 1].blkno != InvalidBlockNumber))
		return false;
	return true;
}

/*
 * Share-lock block blkno, a page of the given type of column col's ledger.
 *
 * On a hot standby replay may have freed or reused a page that a probe
 * still names, from a root it let go of (no snapshot of the standby holds
 * recycling off): there a block that is not such a page gives
 * InvalidBuffer, and the probe starts over.  Elsewhere, and for a block
 * outside the index, ScbfReadPage reports it as corruption; the caller
 * checks the column.
 */
static Buffer
ReadLedgerPage(Relation index, BlockNumber blkno, uint8 type, int col,
					BlockNumber nblocks)
{
	Buffer		buf;
	Page		page;

	if (!RecoveryInProgress() || blkno == SCBF_METAPAGE_BLKNO ||
		blkno >= nblocks)
		return ScbfReadPage(index, blkno, BUFFER_LOCK_SHARE, type, nblocks);
	buf = ScbfReadBuffer(index, blkno);
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buf);
	if (!ScbfPageHasOpaque(page) ||
		ScbfPageGetOpaque(page)->type != type ||
		ScbfPageGetOpaque(page)->column != col)
	{
		UnlockReleaseBuffer(buf);
		return InvalidBuffer;
	}
	return buf;
}

/*
 * Share-lock the ledger root at block root, of column col, and check it:
 * its column, its byte count and hash width, and that its runs fit in its
 * bytes.  Corruption is reported once the page is let go of.
 *
 * VACUUM's census frees the roots of released filters; a standby's probe
 * may meet such a root freed or reused (ReadLedgerPage): there this
 * returns InvalidBuffer, and the probe starts over.  On a primary a block
 * that is not a root of column col is corruption.
 */
static Buffer
LockRoot(Relation index, BlockNumber root, int col, BlockNumber nblocks)
{
	Buffer		buf;
	Page		page;
	ScbfRootPageData *rd;
	uint32		off = 0;
	int			r;

	buf = ReadLedgerPage(index, root, SCBF_PAGE_ROOT, col, nblocks);
	if (!BufferIsValid(buf))
		return InvalidBuffer;
	page = BufferGetPage(buf);
	rd = ScbfPageGetRoot(page);
	if (ScbfPageGetOpaque(page)->column != col ||
		rd->nbytes > SCBF_ROOT_BYTES ||
		(rd->hash_bits != 0 &&
		 (rd->hash_bits < 32 || rd->hash_bits > SCBF_MAX_HASH_BITS)))
	{
		UnlockReleaseBuffer(buf);
		ScbfReportCorrupt(index, root,
						  "A ledger root is not the one of its column, overflows its page or has an impossible hash width.");
	}
	for (r = 0; r < rd->nruns; r++)
	{
		ScbfRunData *run = (ScbfRunData *) (ScbfRootRuns(page) + off);

		if (r >= SCBF_ROOT_MAX_RUNS ||
			!RunFits(run, off, rd->nbytes))
		{
			UnlockReleaseBuffer(buf);
			ScbfReportCorrupt(index, root,
							  "A ledger root lists runs that overflow its page.");
		}
		off += MAXALIGN(ScbfRunBytes(run));
	}
	return buf;
}

/*
 * Copy the runs of a root page, checked (LockRoot).  Returns false if a
 * standby's probe met the root recycled, and the probe starts over.
 */
static bool
ReadRoot(Relation index, BlockNumber root, int col, BlockNumber nblocks,
			  ScbfRootCopy *rc)
{
	Buffer		buf = LockRoot(index, root, col, nblocks);
	ScbfRootPageData *rd;
	uint32		off = 0;
	int			i;

	if (!BufferIsValid(buf))
		return false;
	rd = ScbfPageGetRoot(BufferGetPage(buf));
	rc->root = root;
	rc->bits = rd->hash_bits == 0 ? 32 : rd->hash_bits;
	rc->nruns = rd->nruns;
	memcpy(rc->bytes, ScbfRootRuns(BufferGetPage(buf)), rd->nbytes);
	UnlockReleaseBuffer(buf);

	for (i = 0; i < rc->nruns; i++)
	{
		ScbfRunData *run = (ScbfRunData *) (rc->bytes + off);

		rc->runs[i] = run;
		off += MAXALIGN(ScbfRunBytes(run));
	}
	return true;
}

/*
 * ReadRoot for the callers that do not start over: a root that is
 * not one, met on a standby too, is corruption.
 */
static void
ReadRootOrFail(Relation index, BlockNumber root, int col,
					BlockNumber nblocks, ScbfRootCopy *rc)
{
	if (!ReadRoot(index, root, col, nblocks, rc))
		ScbfReportCorrupt(index, root,
						  psprintf("Block %u is not the ledger root of column %d that a filter says it is.",
								   root, col + 1));
}

/*
 * True if a run is visible at fold serial f.
 */
static inline bool
RunVisible(const ScbfRunData *run, uint64 fold_serial)
{
	return run->made <= fold_serial && fold_serial < run->gone;
}

/*
 * True if a leaf's signposts, nsignposts of them at sp, can be followed
 * in its nbytes of posting lists decoded from base: at most
 * SCBF_LEAF_SIGNPOSTS, inside its bytes and after its first list, in
 * ascending order of offset and of hash, the first hash at least base.
 * (Whether each names a list start and the hash before it, only a decode
 * from the fence can tell: the verifier's.)  sp may be a page's, locked.
 */
static bool
SignpostsInOrder(const ScbfSignpost *sp, int nsignposts, int nbytes,
				 ScbfHash base)
{
	ScbfHash	prev_hash = base;
	int			prev_offset = 0;

	if (nsignposts < 0 || nsignposts > SCBF_LEAF_SIGNPOSTS)
		return false;
	for (int j = 0; j < nsignposts; j++)
	{
		if (sp[j].offset <= prev_offset || sp[j].offset >= nbytes ||
			ScbfSignpostHash(&sp[j]) < prev_hash ||
			(j > 0 && ScbfSignpostHash(&sp[j]) == prev_hash))
			return false;
		prev_offset = sp[j].offset;
		prev_hash = ScbfSignpostHash(&sp[j]);
	}
	return true;
}

/*
 * Check that the leaf page in buf (block blkno, pinned and share-locked)
 * is the leaf with fence `fence` of column col's run made at fold serial
 * `made`, and that its posting lists and signposts can be followed.
 *
 * VACUUM frees the leaves of a superseded run once no snapshot on the
 * primary is older than the supersession (ScbfMetaGoneReadable); a
 * standby's probe has no such protection and may meet such a leaf freed
 * or reused: there this releases buf and returns false, and the probe
 * starts over.  On a primary a leaf that is not the run's is corruption,
 * reported after releasing buf.  True: buf is still locked.
 */
static bool
LeafBelongs(Relation index, Buffer buf, BlockNumber blkno, int col,
			uint64 made, uint32 fence, int bits)
{
	Page		page = BufferGetPage(buf);
	ScbfLeafPageData *ld = ScbfPageGetLeaf(page);
	bool		belongs;

	belongs = ScbfPageGetOpaque(page)->column == col &&
		ScbfPageGetOpaque(page)->ident.leaf.run_serial == (uint32) made &&
		ld->fence == fence;
	if (!belongs && RecoveryInProgress())
	{
		/* another run's leaf now: freed and reused under the probe */
		UnlockReleaseBuffer(buf);
		return false;
	}
	if (!belongs || ld->nbytes > SCBF_LEAF_BYTES)
	{
		UnlockReleaseBuffer(buf);
		ScbfReportCorrupt(index, blkno,
						  "A ledger leaf does not belong to the run that lists it.");
	}
	if (!SignpostsInOrder(ScbfLeafSignposts(page), ScbfLeafNSignposts(page),
						  ld->nbytes, ScbfFenceBase(fence, bits)))
	{
		UnlockReleaseBuffer(buf);
		ScbfReportCorrupt(index, blkno,
						  "A ledger leaf's signposts are out of order.");
	}
	return true;
}

/*
 * Copy leaf i of a run of the root copy rc into lc, unless lc already
 * holds it; an inline leaf comes from rc itself.  Returns false if a
 * standby's probe met the leaf recycled (LeafBelongs), and the probe
 * starts over.
 */
static bool
ReadLeaf(Relation index, const ScbfRootCopy *rc,
			  const ScbfRunData *run, int i, int col, BlockNumber nblocks,
			  ScbfLeafCopy *lc)
{
	BlockNumber blkno = run->fences[i].blkno;
	Buffer		buf;
	Page		page;
	ScbfLeafPageData *ld;

	if (lc->run == run && lc->leaf == i)
		return true;
	CHECK_FOR_INTERRUPTS();
	if (run->inlined > 0 && i == run->nleaves - 1)
	{
		/* the inline leaf: in the root's copy already */
		lc->run = run;
		lc->leaf = i;
		lc->blkno = rc->root;
		lc->fence = run->fences[i].hash;
		lc->bits = rc->bits;
		lc->base = ScbfFenceBase(lc->fence, lc->bits);
		lc->nbytes = run->inlined;
		lc->nsignposts = 0;
		memcpy(lc->bytes, ScbfRunInline(run), run->inlined);
		return true;
	}
	buf = ReadLedgerPage(index, blkno, SCBF_PAGE_LEAF, col, nblocks);
	if (!BufferIsValid(buf) ||
		!LeafBelongs(index, buf, blkno, col, run->made, run->fences[i].hash,
					 rc->bits))
		return false;
	page = BufferGetPage(buf);
	ld = ScbfPageGetLeaf(page);
	lc->run = run;
	lc->leaf = i;
	lc->blkno = blkno;
	lc->fence = ld->fence;
	lc->bits = rc->bits;
	lc->base = ScbfFenceBase(lc->fence, lc->bits);
	lc->nbytes = ld->nbytes;
	lc->nsignposts = ScbfLeafNSignposts(page);
	memcpy(lc->signposts, ScbfLeafSignposts(page),
		   sizeof(ScbfSignpost) * lc->nsignposts);
	memcpy(lc->bytes, ScbfLeafBytes(page), ld->nbytes);
	UnlockReleaseBuffer(buf);
	return true;
}

/*
 * Decode every posting list of the copied leaf, calling fn for each.
 */
static void
DecodeLeaf(Relation index, ScbfLeafCopy *lc, ScbfPostingFn fn, void *arg)
{
	uint16		buf[SCBF_LEAF_BYTES];
	scbf_pl_reader r;
	ScbfHash	h;
	int			n;
	int			rc;

	scbf_pl_reader_init(&r, lc->bytes, lc->nbytes, lc->base);
	while ((rc = scbf_pl_next(&r, &h, buf, &n)) == SCBF_PL_OK)
	{
		if (r.nlists == 1 && ScbfFenceOf(h, lc->bits) != lc->fence)
			break;				/* reported below */
		fn(h, buf, n, arg);
	}
	if (rc != SCBF_PL_END)
		ScbfReportCorrupt(index, lc->blkno,
						  "A ledger leaf holds bytes that are no posting lists.");
}

/*
 * Append the items of hash's posting list, if any, in a leaf's nbytes of
 * posting lists at bytes (the leaf with fence `fence`, of bits-bit
 * hashes, with nsignposts signposts at sp, checked by SignpostsInOrder) to
 * *items / *nitems / *maxitems, repalloc'ing *items as needed.  Decodes
 * from the last signpost below hash, if any, else from the fence, and
 * stops after hash.  bytes and sp may be a locked page's: nothing is read
 * outside them.  Returns false if the bytes are no posting lists, or the
 * first one is not of the fence: corruption, which the caller reports once
 * it has let go of its lock.
 */
static bool
LookupInLeaf(const uint8 *bytes, int nbytes, uint32 fence, int bits,
			 const ScbfSignpost *sp, int nsignposts, ScbfHash hash,
			 uint16 **items, int *nitems, int *maxitems)
{
	uint16		buf[SCBF_LEAF_BYTES];
	scbf_pl_reader r;
	ScbfHash	h;
	int			j = nsignposts;
	int			n;
	int			rc;

	scbf_pl_reader_init(&r, bytes, nbytes, ScbfFenceBase(fence, bits));
	while (j > 0 && ScbfSignpostHash(&sp[j - 1]) >= hash)
		j--;
	if (j > 0)
		scbf_pl_reader_resume(&r, bytes, nbytes, sp[j - 1].offset,
							  ScbfSignpostHash(&sp[j - 1]));
	while ((rc = scbf_pl_next(&r, &h, buf, &n)) == SCBF_PL_OK)
	{
		if (r.nlists == 1 && ScbfFenceOf(h, bits) != fence)
			return false;
		if (h > hash)
			return true;
		if (h < hash)
		{
			/* over the lists below hash, without decoding their items */
			if ((rc = scbf_pl_skip(&r, hash)) != SCBF_PL_OK)
				break;
			continue;
		}
		if (*nitems + n > *maxitems)
		{
			*maxitems = Max(*maxitems * 2, *nitems + n);
			*items = repalloc(*items, sizeof(uint16) * *maxitems);
		}
		memcpy(*items + *nitems, buf, sizeof(uint16) * n);
		*nitems += n;
	}
	return rc == SCBF_PL_END;
}

/* A leaf page a lookup reads once it has let go of the root */
typedef struct ScbfLeafVisit
{
	BlockNumber blkno;
	uint32		fence;			/* its run's fence for it */
	uint64		made;			/* its run's fold serial */
	ScbfHash	hash;			/* to look up in it */
} ScbfLeafVisit;

/* What a lookup gathers: items, and the leaf pages still to read */
typedef struct ScbfLookup
{
	uint16	   *items;			/* palloc'd */
	int			nitems;
	int			maxitems;
	ScbfLeafVisit *visits;		/* visits0, or palloc'd beyond it */
	int			nvisits;
	int			maxvisits;
	ScbfLeafVisit visits0[16];
} ScbfLookup;

/*
 * Look each of hashes[0 .. nhashes) up in the leaves of run, of bits-bit
 * hashes, whose fences bracket it: in its inline leaf, if one, where it
 * is (run may be a locked root's); each other leaf is noted in lk->visits,
 * in hash order.  Returns false if the inline leaf holds bytes that are no
 * posting lists: corruption the caller reports.
 */
static bool
LookupRun(const ScbfRunData *run, int bits, const ScbfHash *hashes,
		  int nhashes, ScbfLookup *lk)
{
	for (int i = 0; i < nhashes; i++)
	{
		ScbfHash	h = hashes[i];
		uint32		hf = ScbfFenceOf(h, bits);
		int			lo = 0;
		int			hi = run->nleaves;
		int			leaf;

		/*
		 * The last leaf whose fence is below h's, else the first, and the
		 * leaves after it whose fence is not above h's: the leaves that may
		 * hold h (fences compare the top 32 bits of wider hashes, so at
		 * worst one leaf more)
		 */
		while (lo < hi)
		{
			int			mid = lo + (hi - lo) / 2;

			if (run->fences[mid].hash < hf)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (leaf = Max(lo - 1, 0);
			 leaf < run->nleaves && run->fences[leaf].hash <= hf; leaf++)
		{
			ScbfLeafVisit *v;

			if (run->inlined > 0 && leaf == run->nleaves - 1)
			{
				/* the inline leaf, looked up where it is */
				if (!LookupInLeaf(ScbfRunInline(run), run->inlined,
								  run->fences[leaf].hash, bits, NULL, 0, h,
								  &lk->items, &lk->nitems, &lk->maxitems))
					return false;
				continue;
			}
			if (lk->nvisits == lk->maxvisits)
			{
				lk->maxvisits *= 2;
				if (lk->visits == lk->visits0)
				{
					lk->visits = palloc(sizeof(ScbfLeafVisit) * lk->maxvisits);
					memcpy(lk->visits, lk->visits0, sizeof(lk->visits0));
				}
				else
					lk->visits = repalloc(lk->visits, sizeof(ScbfLeafVisit) *
										  lk->maxvisits);
			}
			v = &lk->visits[lk->nvisits++];
			v->blkno = run->fences[leaf].blkno;
			v->fence = run->fences[leaf].hash;
			v->made = run->made;
			v->hash = h;
		}
	}
	return true;
}

/*
 * The root part of ScbfLedgerLookup: under the root's share lock, check
 * the root (LockRoot), then look the hashes up in each run visible
 * at fold_serial (LookupRun): in an inline leaf there, in the page, and
 * each other leaf noted in lk->visits, in run, then hash order.  The
 * root is unlocked and unpinned on return.
 * Returns false if a standby's probe met the root recycled (LockRoot).
 */
static bool
LookupRoot(Relation index, BlockNumber root, int col, int bits,
		   uint64 fold_serial, const ScbfHash *hashes, int nhashes,
		   BlockNumber nblocks, ScbfLookup *lk)
{
	Buffer		buf;
	Page		page;
	ScbfRootPageData *rd;
	int			rbits;
	uint32		off = 0;
	int			r;

	CHECK_FOR_INTERRUPTS();
	buf = LockRoot(index, root, col, nblocks);
	if (!BufferIsValid(buf))
		return false;
	page = BufferGetPage(buf);
	rd = ScbfPageGetRoot(page);
	rbits = rd->hash_bits == 0 ? 32 : rd->hash_bits;
	if (rbits != bits)
	{
		UnlockReleaseBuffer(buf);
		ScbfReportCorrupt(index, root,
						  psprintf("The root at block %u says %d-bit hashes; column %d's have %d.",
								   root, rbits, col + 1, bits));
	}

	off = 0;
	for (r = 0; r < rd->nruns; r++)
	{
		ScbfRunData *run = (ScbfRunData *) (ScbfRootRuns(page) + off);

		off += MAXALIGN(ScbfRunBytes(run));
		if (RunVisible(run, fold_serial) &&
			!LookupRun(run, bits, hashes, nhashes, lk))
		{
			UnlockReleaseBuffer(buf);
			ScbfReportCorrupt(index, root,
							  "A ledger leaf holds bytes that are no posting lists.");
		}
	}
	UnlockReleaseBuffer(buf);
	return true;
}

/*
 * The leaf part of ScbfLedgerLookup: read each leaf page LookupRoot noted,
 * one at a time under its share lock, the root's let go of, and look up
 * in it, in the page, the hashes noted for it (consecutive visits).
 * Returns false if a standby's probe met a leaf recycled under it
 * (LeafBelongs).  No page is locked or pinned on return.
 */
static bool
LookupLeaves(Relation index, int col, int bits, BlockNumber nblocks,
			 ScbfLookup *lk)
{
	int			v;
	int			w;

	for (v = 0; v < lk->nvisits; v = w)
	{
		const ScbfLeafVisit *lv = &lk->visits[v];
		Buffer		buf;
		Page		page;

		CHECK_FOR_INTERRUPTS();
		buf = ReadLedgerPage(index, lv->blkno, SCBF_PAGE_LEAF, col, nblocks);
		if (!BufferIsValid(buf) ||
			!LeafBelongs(index, buf, lv->blkno, col, lv->made, lv->fence,
						 bits))
			return false;
		page = BufferGetPage(buf);
		for (w = v; w < lk->nvisits &&
			 lk->visits[w].blkno == lv->blkno &&
			 lk->visits[w].made == lv->made &&
			 lk->visits[w].fence == lv->fence; w++)
		{
			if (!LookupInLeaf(ScbfLeafBytes(page),
							  ScbfPageGetLeaf(page)->nbytes, lv->fence, bits,
							  ScbfLeafSignposts(page),
							  ScbfLeafNSignposts(page), lk->visits[w].hash,
							  &lk->items, &lk->nitems, &lk->maxitems))
			{
				UnlockReleaseBuffer(buf);
				ScbfReportCorrupt(index, lv->blkno,
								  "A ledger leaf holds bytes that are no posting lists.");
			}
		}
		UnlockReleaseBuffer(buf);
	}
	return true;
}

/*
 * ScbfLedgerLookup
 *		The items (segment-relative TIDs) whose hash in column col is one of
 *		hashes[0 .. nhashes), sorted, ascending and distinct, from every run
 *		of the ledger at root visible at fold_serial.  Returns their number;
 *		*items is palloc'd.  Returns -1 if a standby's probe met a root or
 *		leaf recycled under it (see LockRoot, LeafBelongs).
 *
 * hashes must be sorted ascending, and of bits bits, the column's width
 * (ScbfColumnHashBits): a root of another width is corruption, since its
 * leaves' fences and posting lists could not be compared with them.
 *
 * Unlike ScbfLedgerScan, which calls back, this decodes in the pages,
 * under their share locks, and copies neither root nor leaf: the root
 * first (LookupRoot), let go of before any leaf is locked, then each leaf
 * it names (LookupLeaves), one lock at a time.
 */
int
ScbfLedgerLookup(Relation index, BlockNumber root, int col, int bits,
				  uint64 fold_serial, const ScbfHash *hashes, int nhashes,
				  uint16 **items, BlockNumber nblocks)
{
	ScbfLookup	lk;
	bool		ok;
	int			n;
	int			i;

	lk.maxitems = 64;
	lk.nitems = 0;
	lk.items = palloc(sizeof(uint16) * lk.maxitems);
	lk.visits = lk.visits0;
	lk.nvisits = 0;
	lk.maxvisits = lengthof(lk.visits0);
	ok = LookupRoot(index, root, col, bits, fold_serial, hashes, nhashes,
					nblocks, &lk) &&
		LookupLeaves(index, col, bits, nblocks, &lk);
	if (lk.visits != lk.visits0)
		pfree(lk.visits);
	*items = lk.items;
	if (!ok)
		return -1;

	/* sorted and distinct */
	qsort(lk.items, lk.nitems, sizeof(uint16), ScbfCmpU16);
	n = 0;
	for (i = 0; i < lk.nitems; i++)
		if (n == 0 || lk.items[i] != lk.items[n - 1])
			lk.items[n++] = lk.items[i];
	return n;
}

/*
 * ScbfLedgerScan
 *		Call fn for every posting list of every run visible at fold_serial,
 *		in hash order within each run.  A hash whose list goes on to the
 *		next leaf is reported once per leaf.  Returns false if a standby's
 *		probe met a root or leaf recycled under it (see LockRoot,
 *		LeafBelongs): fn may have been called for some lists then.
 */
bool
ScbfLedgerScan(Relation index, BlockNumber root, int col, uint64 fold_serial,
				ScbfPostingFn fn, void *arg, BlockNumber nblocks)
{
	ScbfRootCopy *rc = palloc(sizeof(ScbfRootCopy));
	ScbfLeafCopy *lc = palloc(sizeof(ScbfLeafCopy));
	int			r;
	int			leaf;

	if (!ReadRoot(index, root, col, nblocks, rc))
	{
		pfree(rc);
		pfree(lc);
		return false;
	}
	lc->run = NULL;
	for (r = 0; r < rc->nruns; r++)
	{
		ScbfRunData *run = rc->runs[r];

		if (!RunVisible(run, fold_serial))
			continue;
		for (leaf = 0; leaf < run->nleaves; leaf++)
		{
			if (!ReadLeaf(index, rc, run, leaf, col, nblocks, lc))
			{
				pfree(rc);
				pfree(lc);
				return false;
			}
			DecodeLeaf(index, lc, fn, arg);
		}
	}
	pfree(rc);
	pfree(lc);
	return true;
}

/* What ScbfLedgerKeys hands ScbfLedgerScan: the key callback, the column */
typedef struct ScbfKeyEmit
{
	ScbfKeyFn	emit;
	void	   *arg;
	int			col;
} ScbfKeyEmit;

/*
 * ScbfLedgerScan callback of ScbfLedgerKeys: a posting list's hash is a
 * key of the filter.
 */
static void
EmitKey(ScbfHash hash, const uint16 *items, int nitems, void *arg)
{
	ScbfKeyEmit *ke = (ScbfKeyEmit *) arg;

	ke->emit(ke->col, hash, ke->arg);
}

/*
 * ScbfLedgerKeys
 *		Hand emit each key (column, hash) of filter f: the hashes of its
 *		ledgers' runs a reader at fold_serial sees, in every one of its ncols
 *		columns (a key in several runs comes several times).  What a build,
 *		a band's rebuild and a summary's write set bits from.  Under the fold
 *		lock (locked), a ledger that changed under the walk is corruption;
 *		else returns false then, as ScbfLedgerScan does.
 */
bool
ScbfLedgerKeys(Relation index, int ncols, const ScbfFilter *f,
			   uint64 fold_serial, ScbfKeyFn emit, void *arg, bool locked,
			   BlockNumber nblocks)
{
	ScbfKeyEmit ke;

	ke.emit = emit;
	ke.arg = arg;
	for (ke.col = 0; ke.col < ncols; ke.col++)
		if (!ScbfLedgerScan(index, ScbfFilterRoot(f, ke.col), ke.col,
							fold_serial, EmitKey, &ke, nblocks))
		{
			if (locked)
				ereport(ERROR,
						(errcode(ERRCODE_INDEX_CORRUPTED),
						 errmsg("a ledger of index \"%s\" changed under the fold lock",
								RelationGetRelationName(index)),
						 errhint("Please REINDEX it.")));
			return false;
		}
	return true;
}

/* The (hash, item) pairs of a ledger, collected by ScbfLedgerPairs */
typedef struct ScbfPairCollect
{
	ScbfPair  *pairs;
	int			npairs;
	int			maxpairs;
} ScbfPairCollect;

/*
 * ScbfLedgerScan callback: keep the pairs of a posting list.
 */
static void
CollectPairs(ScbfHash hash, const uint16 *items, int nitems, void *arg)
{
	ScbfPairCollect *pc = (ScbfPairCollect *) arg;
	int			i;

	if (pc->npairs + nitems > pc->maxpairs)
	{
		pc->maxpairs = Max(pc->maxpairs * 2, pc->npairs + nitems);
		pc->pairs = repalloc_huge(pc->pairs, sizeof(ScbfPair) * pc->maxpairs);
	}
	for (i = 0; i < nitems; i++)
	{
		pc->pairs[pc->npairs].hash = hash;
		pc->pairs[pc->npairs].item = items[i];
		pc->npairs++;
	}
}

/*
 * The order of pairs: by hash, then item.
 */
static inline int
PairCmp(const ScbfPair *x, const ScbfPair *y)
{
	if (x->hash != y->hash)
		return (x->hash > y->hash) - (x->hash < y->hash);
	return (int) x->item - (int) y->item;
}

/*
 * ScbfSortPairs
 *		Sort pairs by hash, then item, the comparison inlined
 *		(lib/sort_template.h): a fold sorts every entry it folds.
 */
#define ST_SORT ScbfSortPairs
#define ST_ELEMENT_TYPE ScbfPair
#define ST_COMPARE(a, b) PairCmp(a, b)
#define ST_SCOPE
#define ST_DEFINE
#include "lib/sort_template.h"

/*
 * ScbfSortPairsByItemOrder
 *		Sort pairs that are in item order by hash: a stable radix sort of
 *		the hashes' bits bits, 11 a pass, which keeps equal hashes in item
 *		order,
 *		so the result is ScbfSortPairs' order.  A fold sorts each
 *		segment's entries so, and they come in heap order.
 */
void
ScbfSortPairsByItemOrder(ScbfPair *pairs, size_t n, int bits)
{
	ScbfPair  *tmp;
	ScbfPair  *from = pairs;
	ScbfPair  *to;
	size_t		count[1 << 11];
	int			shift;

	if (n < 1024)
	{
		ScbfSortPairs(pairs, n);
		return;
	}
	tmp = to = palloc(sizeof(ScbfPair) * n);
	for (shift = 0; shift < bits; shift += 11)
	{
		ScbfPair  *swap;
		size_t		sum = 0;
		size_t		i;

		memset(count, 0, sizeof(count));
		for (i = 0; i < n; i++)
			count[(from[i].hash >> shift) & 0x7FF]++;
		for (i = 0; i < lengthof(count); i++)
		{
			size_t		c = count[i];

			count[i] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			to[count[(from[i].hash >> shift) & 0x7FF]++] = from[i];
		swap = from;
		from = to;
		to = swap;
	}
	/* the sorted pairs are where the last pass wrote them */
	if (from != pairs)
		memcpy(pairs, from, sizeof(ScbfPair) * n);
	pfree(tmp);
}

/*
 * ScbfLedgerPairs
 *		Every (hash, item) of the runs of a ledger visible at fold_serial,
 *		sorted by hash, then item, and distinct.  Returns their number;
 *		*pairs is palloc'd.  For VACUUM, on a primary under the fold lock.
 */
int
ScbfLedgerPairs(Relation index, BlockNumber root, int col,
				 uint64 fold_serial, ScbfPair **pairs, BlockNumber nblocks)
{
	ScbfPairCollect pc;
	int			n = 0;
	int			i;

	pc.maxpairs = 256;
	pc.npairs = 0;
	pc.pairs = palloc(sizeof(ScbfPair) * pc.maxpairs);
	if (!ScbfLedgerScan(index, root, col, fold_serial, CollectPairs,
						 &pc, nblocks))
		elog(ERROR, "a ledger of index \"%s\" moved under the fold lock",
			 RelationGetRelationName(index));
	ScbfSortPairs(pc.pairs, pc.npairs);
	for (i = 0; i < pc.npairs; i++)
		if (n == 0 || PairCmp(&pc.pairs[i], &pc.pairs[n - 1]) != 0)
			pc.pairs[n++] = pc.pairs[i];
	*pairs = pc.pairs;
	return n;
}

/*
 * ScbfLedgerBlocks
 *		The ledger's part of the block census (ScbfCensus): hand fn the
 *		root, named by rootref, then, unless fn says no, every leaf page
 *		that its runs list, visible or not (what a root lists is not free).
 *		The root is read as ScbfReadRootInfo reads it: a block outside the
 *		index, no root, or runs that overflow it are corruption.  A leaf
 *		block is not read: fn judges it.
 */
void
ScbfLedgerBlocks(Relation index, BlockNumber root,
				 const ScbfBlockRef *rootref, ScbfCensusFn fn, void *arg,
				 BlockNumber nblocks)
{
	ScbfRootInfo ri;
	ScbfBlockRef ref;
	int			r;
	int			l;

	CHECK_FOR_INTERRUPTS();
	if (!fn(root, rootref, arg))
		return;
	ScbfReadRootInfo(index, root, &ri, nblocks);
	ref = *rootref;
	ref.kind = SCBF_KIND_LEAF;
	for (r = 0; r < ri.nruns; r++)
	{
		ScbfRunInfo *run = &ri.runs[r];

		for (l = 0; l < run->nleaves; l++)
		{
			if (run->leaves[l] == InvalidBlockNumber)
				continue;		/* the inline leaf, in the root */
			ref.pageno = l;
			ref.next = l + 1 < run->nleaves ?
				run->leaves[l + 1] : InvalidBlockNumber;
			if (!fn(run->leaves[l], &ref, arg))
				return;
		}
		pfree(run->fences);
		pfree(run->leaves);
		if (run->inline_bytes)
			pfree(run->inline_bytes);
	}
	pfree(ri.runs);
}

/*
 * ScbfLedgerRuns
 *		The runs of a ledger visible at fold_serial: what a probe reads per
 *		candidate, one leaf or two each.
 */
int
ScbfLedgerRuns(Relation index, BlockNumber root, int col, uint64 fold_serial,
				BlockNumber nblocks)
{
	ScbfRootCopy *rc = palloc(sizeof(ScbfRootCopy));
	int			n = 0;
	int			r;

	ReadRootOrFail(index, root, col, nblocks, rc);
	for (r = 0; r < rc->nruns; r++)
		if (RunVisible(rc->runs[r], fold_serial))
			n++;
	pfree(rc);
	return n;
}

/* A run encoded into leaf images, before it has blocks (ScbfRun) */
struct ScbfEncodedRun
{
	uint64		serial;			/* the fold serial that writes it */
	int			bits;			/* of its hashes */
	int			nentries;
	int			nleaves;
	int			maxleaves;
	bool		inline_last;	/* its last leaf goes into the root */
	Page	   *images;
	ScbfFence *fences;			/* hashes set, blocks once written */
};

/*
 * Start a new leaf image of the run.
 */
static Page
NewLeafImage(ScbfRun *er, uint32 segno, int col, int bits, uint64 serial,
				  ScbfHash first, scbf_pl_writer *w)
{
	uint32		fence = ScbfFenceOf(first, bits);
	Page		page = palloc0(BLCKSZ);
	ScbfPageOpaque opaque;

	if (er->nleaves == er->maxleaves)
	{
		er->maxleaves *= 2;
		er->images = repalloc(er->images, sizeof(Page) * er->maxleaves);
		er->fences = repalloc(er->fences, sizeof(ScbfFence) * er->maxleaves);
	}
	opaque = ScbfInitPage(page, SCBF_PAGE_LEAF, 0);
	opaque->ident.leaf.segno = segno;
	opaque->ident.leaf.run_serial = (uint32) serial;
	opaque->column = (uint16) col;
	ScbfPageGetLeaf(page)->fence = fence;
	er->images[er->nleaves] = page;
	er->fences[er->nleaves].hash = fence;
	er->fences[er->nleaves].blkno = InvalidBlockNumber;
	er->nleaves++;
	scbf_pl_writer_init(w, ScbfLeafBytes(page), SCBF_LEAF_LIST_BYTES,
						ScbfFenceBase(fence, bits));
	return page;
}

/*
 * Close the leaf image being written: its counts, pd_lower and, if it
 * holds enough posting lists, its signposts below the special space (at
 * pd_upper), evenly spaced by list: each is at least SCBF_SIGNPOST_LISTS
 * lists from the one before, and from the fence.
 */
static void
CloseLeafImage(Page page, int bits, scbf_pl_writer *w)
{
	PageHeader	ph = (PageHeader) page;
	int			nlists = w->nlists;
	int			nsignposts;

	ScbfPageGetLeaf(page)->nbytes = (uint16) w->len;
	ScbfPageGetLeaf(page)->nlists = (uint16) nlists;
	ph->pd_lower = (ScbfLeafBytes(page) + w->len) - (uint8 *) page;

	nsignposts = Min(SCBF_LEAF_SIGNPOSTS, nlists / SCBF_SIGNPOST_LISTS - 1);
	if (nsignposts > 0)
	{
		ScbfSignpost *sp;
		scbf_pl_reader r;
		int			next = 1;
		int			list = 0;
		ScbfHash	h;
		int			n;

		ph->pd_upper = ph->pd_special - sizeof(ScbfSignpost) * nsignposts;
		sp = ScbfLeafSignposts(page);
		scbf_pl_reader_init(&r, ScbfLeafBytes(page), w->len,
							ScbfFenceBase(ScbfPageGetLeaf(page)->fence, bits));
		/* signpost j (from 1) at list j * nlists / (nsignposts + 1) */
		while (next <= nsignposts)
		{
			if (list == next * nlists / (nsignposts + 1))
			{
				sp->prev_hash = (uint32) r.prev_hash;
				sp->offset = (uint16) (r.pos - ScbfLeafBytes(page));
				sp->prev_hash_hi = (uint16) (r.prev_hash >> 32);
				sp++;
				next++;
			}
			if (scbf_pl_next(&r, &h, NULL, &n) != SCBF_PL_OK)
				elog(ERROR, "could not read back a ledger leaf just written");
			list++;
		}
	}
}

/*
 * Encode hashes[i] / items[i], i < n, sorted by (hash, item), items
 * distinct within a hash, as the leaf images of one run.
 */
static void
EncodeRun(Relation index, uint32 segno, int col, int bits, uint64 serial,
			   const ScbfHash *hashes, const uint16 *items, int n,
			   ScbfRun *er)
{
	scbf_pl_writer w;
	Page		leaf = NULL;
	bool		full = false;
	int			i = 0;

	er->bits = bits;
	er->nleaves = 0;
	er->maxleaves = 8;
	er->inline_last = false;
	er->images = palloc(sizeof(Page) * er->maxleaves);
	er->fences = palloc(sizeof(ScbfFence) * er->maxleaves);
	while (i < n)
	{
		int			j = i;
		int			off = 0;

		/* the posting list of hashes[i]: items[i .. j) */
		while (j < n && hashes[j] == hashes[i])
			j++;
		while (off < j - i)
		{
			int			wrote = 0;

			if (leaf != NULL && !full)
				wrote = scbf_pl_append(&w, hashes[i], items + i + off,
									   j - i - off);
			if (wrote < 0)
				elog(ERROR, "ledger entries of index \"%s\" are out of order",
					 RelationGetRelationName(index));
			if (wrote == 0)
			{
				if (leaf != NULL)
					CloseLeafImage(leaf, bits, &w);
				leaf = NewLeafImage(er, segno, col, bits, serial, hashes[i],
									&w);
				full = false;
				continue;
			}
			off += wrote;
			/* the list goes on: this leaf is full */
			full = off < j - i;
		}
		i = j;
	}
	if (leaf != NULL)
		CloseLeafImage(leaf, bits, &w);
}

/*
 * Write a page image into a new buffer: WAL-logged as a full image, or,
 * for ambuild, unlogged (the build logs the whole index at its end).
 * Returns the block.
 */
static BlockNumber
WriteImage(Relation index, Page image, bool wal)
{
	Buffer		buf = ScbfNewBuffer(index);
	BlockNumber blkno = BufferGetBlockNumber(buf);

	if (wal)
	{
		GenericXLogState *xlog = GenericXLogStart(index);
		Page		page = GenericXLogRegisterBuffer(xlog, buf,
													 GENERIC_XLOG_FULL_IMAGE);

		memcpy(page, image, BLCKSZ);
		GenericXLogFinish(xlog);
	}
	else
	{
		memcpy(BufferGetPage(buf), image, BLCKSZ);
		MarkBufferDirty(buf);
	}
	UnlockReleaseBuffer(buf);
	return blkno;
}

/*
 * Decide whether the last leaf of an encoded run goes into its root, whose
 * runs take rootbytes once tidied: if the root keeps SCBF_ROOT_RESERVE
 * bytes free after it.
 */
static void
RunMayInline(ScbfRun *er, uint32 rootbytes)
{
	Size		size;

	er->inline_last = false;
	if (er->nleaves == 0)
		return;
	size = MAXALIGN(ScbfRunSize(er->nleaves) +
					ScbfPageGetLeaf(er->images[er->nleaves - 1])->nbytes);
	if (rootbytes + size + SCBF_ROOT_RESERVE <= SCBF_ROOT_BYTES)
		er->inline_last = true;
}

/*
 * Write the leaves of an encoded run, but an inline one; their blocks go
 * into its fences.  Returns the pages written.
 */
static int
WriteLeaves(Relation index, ScbfRun *er, bool wal)
{
	int			n = er->nleaves - (er->inline_last ? 1 : 0);
	int			i;

	for (i = 0; i < n; i++)
	{
		er->fences[i].blkno = WriteImage(index, er->images[i], wal);
		pfree(er->images[i]);
		er->images[i] = NULL;
	}
	return n;
}

/*
 * Put run (made = serial, fences of er) at the end of the runs of a root
 * page image; false if it does not fit.
 */
static bool
RootAddRun(Page page, uint64 serial, int n, ScbfRun *er)
{
	ScbfRootPageData *rd = ScbfPageGetRoot(page);
	ScbfRunData *run;
	Page		last = NULL;
	uint16		inlined = 0;
	Size		size;

	if (er->inline_last)
	{
		last = er->images[er->nleaves - 1];
		inlined = ScbfPageGetLeaf(last)->nbytes;
	}
	size = MAXALIGN(ScbfRunSize(er->nleaves) + inlined);
	if (rd->nbytes + size > SCBF_ROOT_BYTES)
		return false;
	if ((rd->hash_bits == 0 ? 32 : rd->hash_bits) != er->bits)
		elog(ERROR, "a ledger run of %d-bit hashes for a root of %d-bit ones",
			 er->bits, rd->hash_bits == 0 ? 32 : rd->hash_bits);
	run = (ScbfRunData *) (ScbfRootRuns(page) + rd->nbytes);
	memset(run, 0, size);
	run->made = serial;
	run->gone = PG_UINT64_MAX;
	run->nentries = (uint32) n;
	run->nleaves = (uint16) er->nleaves;
	run->inlined = inlined;
	memcpy(run->fences, er->fences, sizeof(ScbfFence) * er->nleaves);
	if (last != NULL)
	{
		run->fences[er->nleaves - 1].blkno = InvalidBlockNumber;
		memcpy(ScbfRunInline(run), ScbfLeafBytes(last), inlined);
	}
	rd->nruns++;
	rd->nbytes += size;
	((PageHeader) page)->pd_lower =
		(ScbfRootRuns(page) + rd->nbytes) - (char *) page;
	return true;
}

/*
 * Initialize an empty root page image of filter filterno, column col.
 */
static void
InitRoot(Page page, uint32 filterno, int col, int bits)
{
	ScbfPageOpaque opaque;

	opaque = ScbfInitPage(page, SCBF_PAGE_ROOT,
						  MAXALIGN(sizeof(ScbfRootPageData)));
	opaque->ident.root.filterno = filterno;
	opaque->column = (uint16) col;
	/* format 3 left the field 0 */
	ScbfPageGetRoot(page)->hash_bits = bits > 32 ? (uint16) bits : 0;
}

/*
 * ScbfLedgerWrite
 *		Write the ledger of one filter and column as a root with one run of
 *		fold serial `serial`: hashes[i] / items[i], i < n, sorted by (hash,
 *		item), items distinct within a hash.  Returns the root's block;
 *		*npages is the pages written.
 *
 * For ambuild: the pages go through shared buffers unlogged, and the build
 * WAL-logs the whole index at its end.
 */
BlockNumber
ScbfLedgerWrite(Relation index, uint32 segno, uint32 filterno, int col,
				 int bits, uint64 serial, const ScbfHash *hashes,
				 const uint16 *items, int n, uint32 *npages)
{
	ScbfRun	er;
	Page		root = palloc(BLCKSZ);
	BlockNumber rootblk;

	EncodeRun(index, segno, col, bits, serial, hashes, items, n, &er);
	RunMayInline(&er, 0);
	*npages = WriteLeaves(index, &er, false) + 1;
	InitRoot(root, filterno, col, bits);
	if (!RootAddRun(root, serial, n, &er))
		elog(ERROR, "a ledger run of index \"%s\" has too many leaves (%d)",
			 RelationGetRelationName(index), er.nleaves);
	rootblk = WriteImage(index, root, false);
	if (er.inline_last)
		pfree(er.images[er.nleaves - 1]);
	pfree(er.images);
	pfree(er.fences);
	pfree(root);
	return rootblk;
}

/*
 * ScbfLedgerEncode
 *		Encode a run of fold serial `serial` of segment segno's column col:
 *		hashes[i] / items[i], i < n, sorted by (hash, item), items distinct
 *		within a hash.  The run has no blocks until ScbfLedgerAppend.
 */
ScbfRun *
ScbfLedgerEncode(Relation index, uint32 segno, int col, int bits,
				 uint64 serial, const ScbfHash *hashes, const uint16 *items,
				 int n)
{
	ScbfRun   *run = palloc(sizeof(ScbfRun));

	EncodeRun(index, segno, col, bits, serial, hashes, items, n, run);
	run->serial = serial;
	run->nentries = n;
	return run;
}

/* Leaves of runs a root dropped, freed once the root's record is written */
typedef struct ScbfFreed
{
	int			n;
	int			max;
	BlockNumber *blocks;
	uint32	   *made;			/* the low 32 bits of each one's run serial */
} ScbfFreed;

/*
 * Tidy the runs of a root page (an image, or a page registered for WAL)
 * before a fold or VACUUM of serial `serial` adds one:
 *	- runs a crashed fold or VACUUM wrote with this serial or a newer one
 *	  are dropped: they are invisible until that serial commits, and this
 *	  operation is the one that will commit it;
 *	- a supersession such a crash left (gone >= serial) is undone: the runs
 *	  it marked are current again;
 *	- runs superseded by a committed serial that no probe can still read
 *	  (ScbfMetaGoneReadable) are dropped.
 * The leaves of dropped runs go to *freed, if not NULL.  Returns the runs
 * left that are current (not superseded).
 */
static int
RootTidy(Relation index, BlockNumber root, Page page, uint64 serial,
			  const ScbfMeta *meta, ScbfFreed *freed)
{
	ScbfRootPageData *rd = ScbfPageGetRoot(page);
	char	   *runs = ScbfRootRuns(page);
	char	   *kept = palloc(SCBF_ROOT_BYTES);
	uint32		off = 0;
	uint32		nbytes = 0;
	uint16		nruns = 0;
	int			current = 0;
	uint16		i;

	if (rd->nbytes > SCBF_ROOT_BYTES)
		ScbfReportCorrupt(index, root,
						  "A ledger root lists runs that overflow its page.");
	for (i = 0; i < rd->nruns; i++)
	{
		ScbfRunData *run = (ScbfRunData *) (runs + off);
		Size		size;
		bool		drop;

		if (!RunFits(run, off, rd->nbytes))
			ScbfReportCorrupt(index, root,
							  "A ledger root lists runs that overflow its page.");
		size = MAXALIGN(ScbfRunBytes(run));
		off += size;
		if (run->gone >= serial && run->gone != PG_UINT64_MAX &&
			run->made < serial)
			run->gone = PG_UINT64_MAX;
		drop = run->made >= serial ||
			(run->gone != PG_UINT64_MAX &&
			 !ScbfMetaGoneReadable(meta, run->gone));
		if (drop)
		{
			int			l;

			if (freed == NULL)
				continue;
			if (freed->n + run->nleaves > freed->max)
			{
				freed->max = Max(freed->max * 2, freed->n + run->nleaves);
				freed->blocks = repalloc(freed->blocks,
										 sizeof(BlockNumber) * freed->max);
				freed->made = repalloc(freed->made, sizeof(uint32) * freed->max);
			}
			for (l = 0; l < run->nleaves; l++)
			{
				if (run->fences[l].blkno == InvalidBlockNumber)
					continue;	/* the inline leaf */
				freed->blocks[freed->n] = run->fences[l].blkno;
				freed->made[freed->n] = (uint32) run->made;
				freed->n++;
			}
			continue;
		}
		if (run->gone == PG_UINT64_MAX)
			current++;
		memcpy(kept + nbytes, run, size);
		nbytes += size;
		nruns++;
	}
	memcpy(runs, kept, nbytes);
	rd->nbytes = nbytes;
	rd->nruns = nruns;
	((PageHeader) page)->pd_lower = (runs + nbytes) - (char *) page;
	pfree(kept);
	return current;
}

/*
 * An empty list of freed leaves.
 */
static void
FreedInit(ScbfFreed *freed)
{
	freed->n = 0;
	freed->max = 16;
	freed->blocks = palloc(sizeof(BlockNumber) * freed->max);
	freed->made = palloc(sizeof(uint32) * freed->max);
}

/*
 * Free the leaves a root dropped, now that its record is written; a block
 * that is no longer that run's leaf column col (a crash between a free and
 * the root's record, replayed) is left alone.  Returns the pages freed.
 */
static int
FreeLeaves(Relation index, int col, ScbfFreed *freed)
{
	BlockNumber nblocks = RelationGetNumberOfBlocks(index);
	int			nfree = 0;
	int			i;

	for (i = 0; i < freed->n; i++)
	{
		BlockNumber blkno = freed->blocks[i];
		Buffer		buf;
		Page		page;

		CHECK_FOR_INTERRUPTS();
		if (blkno == SCBF_METAPAGE_BLKNO || blkno >= nblocks)
			continue;
		buf = ReadBuffer(index, blkno);
		LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
		page = BufferGetPage(buf);
		if (ScbfPageHasOpaque(page) &&
			ScbfPageGetOpaque(page)->type == SCBF_PAGE_LEAF &&
			ScbfPageGetOpaque(page)->column == col &&
			ScbfPageGetOpaque(page)->ident.leaf.run_serial == freed->made[i])
		{
			ScbfFreePage(index, buf);
			nfree++;
		}
		UnlockReleaseBuffer(buf);
	}
	pfree(freed->blocks);
	pfree(freed->made);
	return nfree;
}

/*
 * A palloc'd copy of the root page of column col, checked to be one.
 */
static Page
CopyRoot(Relation index, BlockNumber root, int col, BlockNumber nblocks)
{
	Page		copy = palloc(BLCKSZ);
	Buffer		buf;

	buf = ScbfReadPage(index, root, BUFFER_LOCK_SHARE, SCBF_PAGE_ROOT,
						nblocks);
	memcpy(copy, BufferGetPage(buf), BLCKSZ);
	UnlockReleaseBuffer(buf);
	if (ScbfPageGetOpaque(copy)->column != col)
		ScbfReportCorrupt(index, root,
						  "A ledger root is not the one of its column.");
	return copy;
}

/*
 * ScbfLedgerHasRoom
 *		True if the root of a filter's column can take run, once tidied
 *		(RootTidy) for its serial.  A fold appends a run (replace
 *		false): the root must have fewer than SCBF_MAX_RUNS current runs.
 *		VACUUM replaces the current runs by one (replace true): only the
 *		fences must fit.  An InvalidBlockNumber root (a new filter) always
 *		can take a run.
 */
bool
ScbfLedgerHasRoom(Relation index, BlockNumber root, int col,
				   const ScbfRun *run, const ScbfMeta *meta, bool replace,
				   BlockNumber nblocks)
{
	Page		copy;
	int			current;
	bool		room;

	if (root == InvalidBlockNumber)
		return true;
	copy = CopyRoot(index, root, col, nblocks);
	current = RootTidy(index, root, copy, run->serial, meta, NULL);
	room = (replace || current < SCBF_MAX_RUNS) &&
		ScbfPageGetRoot(copy)->nbytes + MAXALIGN(ScbfRunSize(run->nleaves)) <=
		SCBF_ROOT_BYTES;
	pfree(copy);
	return room;
}

/*
 * Free an encoded run that was written or given up.
 */
static void
RunFree(ScbfRun *run)
{
	int			i;

	for (i = 0; i < run->nleaves; i++)
		if (run->images[i] != NULL)
			pfree(run->images[i]);
	pfree(run->images);
	pfree(run->fences);
	pfree(run);
}

/*
 * Write an encoded run into the ledger root of filter filterno's column
 * col, WAL-logged: its leaves as full images, then one record on the root
 * that tidies it (RootTidy), marks the runs visible at the committed
 * serial gone at the run's serial if replace, and appends the run.  A new
 * root if root is InvalidBlockNumber.  Frees the leaves the root dropped.
 * Returns the root's block; *npages receives the pages written less the
 * pages freed.  The caller checked ScbfLedgerHasRoom under the fold lock.
 */
static BlockNumber
RootWrite(Relation index, BlockNumber root, uint32 filterno, int col,
			   ScbfRun *run, const ScbfMeta *meta, bool replace,
			   BlockNumber nblocks, int64 *npages)
{
	Buffer		buf;
	GenericXLogState *xlog;
	Page		page;
	ScbfFreed	freed;

	if (root == InvalidBlockNumber)
		RunMayInline(run, 0);
	else
	{
		/* the root as the tidy below leaves it: under the fold lock */
		Page		copy = CopyRoot(index, root, col, nblocks);

		RootTidy(index, root, copy, run->serial, meta, NULL);
		RunMayInline(run, ScbfPageGetRoot(copy)->nbytes);
		pfree(copy);
	}
	*npages = WriteLeaves(index, run, true);
	if (root == InvalidBlockNumber)
	{
		Page		image = palloc(BLCKSZ);

		InitRoot(image, filterno, col, run->bits);
		if (!RootAddRun(image, run->serial, run->nentries, run))
			elog(ERROR, "a ledger run of index \"%s\" has too many leaves (%d)",
				 RelationGetRelationName(index), run->nleaves);
		(*npages)++;
		root = WriteImage(index, image, true);
		pfree(image);
		RunFree(run);
		return root;
	}

	FreedInit(&freed);
	buf = ScbfReadPage(index, root, BUFFER_LOCK_EXCLUSIVE, SCBF_PAGE_ROOT,
						nblocks);
	xlog = GenericXLogStart(index);
	page = GenericXLogRegisterBuffer(xlog, buf, 0);
	RootTidy(index, root, page, run->serial, meta, &freed);
	if (replace)
	{
		ScbfRootPageData *rd = ScbfPageGetRoot(page);
		uint32		off = 0;
		uint16		i;

		for (i = 0; i < rd->nruns; i++)
		{
			ScbfRunData *r = (ScbfRunData *) (ScbfRootRuns(page) + off);

			if (RunVisible(r, ScbfMetaFoldSerial(meta)))
				r->gone = run->serial;
			off += MAXALIGN(ScbfRunBytes(r));
		}
	}
	if (!RootAddRun(page, run->serial, run->nentries, run))
	{
		GenericXLogAbort(xlog);
		UnlockReleaseBuffer(buf);
		elog(ERROR, "the ledger root at block %u of index \"%s\" has no room for a run",
			 root, RelationGetRelationName(index));
	}
	GenericXLogFinish(xlog);
	UnlockReleaseBuffer(buf);
	*npages -= FreeLeaves(index, col, &freed);
	RunFree(run);
	return root;
}

/*
 * ScbfLedgerAppend
 *		A fold's run into the ledger of filter filterno's column col (see
 *		RootWrite): invisible until the fold commits its serial.
 *		Returns the root's block; *npages: pages written less freed.
 */
BlockNumber
ScbfLedgerAppend(Relation index, BlockNumber root, uint32 filterno, int col,
				  ScbfRun *run, const ScbfMeta *meta, BlockNumber nblocks,
				  int64 *npages)
{
	return RootWrite(index, root, filterno, col, run, meta, false,
						  nblocks, npages);
}

/*
 * ScbfLedgerReplace
 *		VACUUM's run (the surviving entries of every visible run, merged)
 *		in place of the runs of filter filterno's column col visible at the
 *		committed serial (see RootWrite).  Until VACUUM commits the
 *		run's serial probes read the old runs, from then on the new one; the
 *		old ones leave the root once no probe can still read them.  Returns
 *		the pages written less the pages freed.
 */
int64
ScbfLedgerReplace(Relation index, BlockNumber root, uint32 filterno, int col,
				   ScbfRun *run, const ScbfMeta *meta, BlockNumber nblocks)
{
	int64		npages;

	RootWrite(index, root, filterno, col, run, meta, true, nblocks,
				   &npages);
	return npages;
}

/*
 * ScbfLedgerTidy
 *		Tidy a ledger root as a write at the next serial would
 *		(RootTidy), if that changes anything: superseded runs no probe
 *		can still read leave it and their leaves are freed, and what a
 *		crashed fold or VACUUM left is undone.  Under the fold lock.
 *		Returns true if the root changed.
 */
bool
ScbfLedgerTidy(Relation index, BlockNumber root, int col,
				const ScbfMeta *meta, BlockNumber nblocks)
{
	uint64		serial = ScbfMetaFoldSerial(meta) + 1;
	Page		copy = CopyRoot(index, root, col, nblocks);
	Buffer		buf;
	GenericXLogState *xlog;
	Page		page;
	ScbfFreed	freed;
	bool		same;

	page = palloc(BLCKSZ);
	memcpy(page, copy, BLCKSZ);
	RootTidy(index, root, page, serial, meta, NULL);
	same = memcmp(page, copy, BLCKSZ) == 0;
	pfree(page);
	pfree(copy);
	if (same)
		return false;

	FreedInit(&freed);
	buf = ScbfReadPage(index, root, BUFFER_LOCK_EXCLUSIVE, SCBF_PAGE_ROOT,
						nblocks);
	xlog = GenericXLogStart(index);
	page = GenericXLogRegisterBuffer(xlog, buf, 0);
	RootTidy(index, root, page, serial, meta, &freed);
	GenericXLogFinish(xlog);
	UnlockReleaseBuffer(buf);
	(void) FreeLeaves(index, col, &freed);
	return true;
}

/*
 * ScbfReadRootInfo
 *		The runs a root page lists, into *ri (palloc'd arrays), for the
 *		diagnostics and the verifier.  ERRCODE_INDEX_CORRUPTED if the block
 *		is no root or its runs overflow the page; the owner, the column and
 *		the runs' fields are the caller's to judge.
 */
void
ScbfReadRootInfo(Relation index, BlockNumber root, ScbfRootInfo *ri,
				  BlockNumber nblocks)
{
	Buffer		buf;
	Page		page;
	ScbfRootPageData *rd;
	char	   *bytes = palloc(SCBF_ROOT_BYTES);
	uint32		nbytes;
	uint32		off = 0;
	int			i;

	buf = ScbfReadPage(index, root, BUFFER_LOCK_SHARE, SCBF_PAGE_ROOT,
						nblocks);
	page = BufferGetPage(buf);
	rd = ScbfPageGetRoot(page);
	ri->filterno = ScbfPageGetOpaque(page)->ident.root.filterno;
	ri->column = ScbfPageGetOpaque(page)->column;
	ri->hash_bits = rd->hash_bits == 0 ? 32 : rd->hash_bits;
	ri->nruns = rd->nruns;
	nbytes = rd->nbytes;
	if (nbytes <= SCBF_ROOT_BYTES)
		memcpy(bytes, ScbfRootRuns(page), nbytes);
	UnlockReleaseBuffer(buf);
	if (nbytes > SCBF_ROOT_BYTES)
		ScbfReportCorrupt(index, root,
						  psprintf("Ledger root at block %u says it lists %u bytes of runs, more than its page holds.",
								   root, nbytes));

	ri->runs = palloc0(sizeof(ScbfRunInfo) * Max(ri->nruns, 1));
	for (i = 0; i < ri->nruns; i++)
	{
		ScbfRunData *run = (ScbfRunData *) (bytes + off);
		ScbfRunInfo *r = &ri->runs[i];
		int			l;

		if (!RunFits(run, off, nbytes))
			ScbfReportCorrupt(index, root,
							  psprintf("Ledger root at block %u lists %d runs, whose run %d overflows its %u bytes or has an inline leaf that cannot be.",
									   root, ri->nruns, i, nbytes));
		r->made = run->made;
		r->gone = run->gone;
		r->nentries = run->nentries;
		r->nleaves = run->nleaves;
		r->fences = palloc(sizeof(uint32) * Max(run->nleaves, 1));
		r->leaves = palloc(sizeof(BlockNumber) * Max(run->nleaves, 1));
		for (l = 0; l < run->nleaves; l++)
		{
			r->fences[l] = run->fences[l].hash;
			r->leaves[l] = run->fences[l].blkno;
		}
		r->inlined = run->inlined;
		r->inline_bytes = NULL;
		if (run->inlined > 0)
		{
			r->inline_bytes = palloc(run->inlined);
			memcpy(r->inline_bytes, ScbfRunInline(run), run->inlined);
		}
		off += MAXALIGN(ScbfRunBytes(run));
	}
	pfree(bytes);
}

/*
 * ScbfReadLeafInfo
 *		What a leaf page says, into *li (its posting list bytes palloc'd),
 *		for the diagnostics and the verifier.  ERRCODE_INDEX_CORRUPTED if
 *		the block is no leaf; the rest is the caller's to judge.
 */
void
ScbfReadLeafInfo(Relation index, BlockNumber blkno, ScbfLeafInfo *li,
				  BlockNumber nblocks)
{
	Buffer		buf;
	Page		page;
	ScbfLeafPageData *ld;

	buf = ScbfReadPage(index, blkno, BUFFER_LOCK_SHARE, SCBF_PAGE_LEAF,
						nblocks);
	page = BufferGetPage(buf);
	ld = ScbfPageGetLeaf(page);
	li->segno = ScbfPageGetOpaque(page)->ident.leaf.segno;
	li->column = ScbfPageGetOpaque(page)->column;
	li->serial = ScbfPageGetOpaque(page)->ident.leaf.run_serial;
	li->fence = ld->fence;
	li->nlists = ld->nlists;
	li->nbytes = ld->nbytes;
	li->maxbytes = SCBF_LEAF_BYTES;
	li->bytes = palloc(SCBF_LEAF_BYTES);
	memcpy(li->bytes, ScbfLeafBytes(page), Min(li->nbytes, li->maxbytes));
	li->nsignposts = ScbfLeafNSignposts(page);
	if (li->nsignposts > SCBF_LEAF_SIGNPOSTS)
		li->nsignposts = -1;
	for (int j = 0; j < li->nsignposts; j++)
	{
		li->signpost_hash[j] = ScbfSignpostHash(&ScbfLeafSignposts(page)[j]);
		li->signpost_offset[j] = ScbfLeafSignposts(page)[j].offset;
	}
	UnlockReleaseBuffer(buf);
}
