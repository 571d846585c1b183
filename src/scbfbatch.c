/*-------------------------------------------------------------------------
 *
 * scbfbatch.c
 *	  The backend-local insert batch: aminsert keeps its entries here, and
 *	  they are written to the index many at a time.
 *
 * NOTES
 *	  An insert hashes its row and appends (TID, hashes) to the batch of its
 *	  index, in TopTransactionContext; it touches no page.  The batch is
 *	  written out ("flushed") by the index's apply function:
 *
 *		- before the transaction commits or prepares (XACT_EVENT_PRE_COMMIT,
 *		  XACT_EVENT_PRE_PREPARE), so every entry is on disk, WAL-logged,
 *		  before its transaction's commit record (invariant I3);
 *		- before this backend reads the index: a scan, a diagnostic
 *		  function, the verifier (ScbfBatchFlush);
 *		- when it holds SCBF_BATCH_MAX_BYTES.
 *
 *	  Other backends cannot see an uncommitted tuple through any snapshot
 *	  a bitmap scan uses (scbf has no amgettuple: no unique, exclusion or
 *	  dirty-snapshot scan reaches it), so what they miss is invisible to
 *	  them anyway.  CREATE INDEX CONCURRENTLY's validation takes its
 *	  snapshot before it collects the index's TIDs, and a transaction that
 *	  committed before that snapshot flushed before its commit.
 *
 *	  The batch is dropped at abort with its memory context.  At the abort
 *	  of a subtransaction, the entries appended since it began are cut off:
 *	  they are the batch's suffix whose subtransaction id is at least the
 *	  aborted one's (ids grow, and every subtransaction begun inside it is
 *	  its child), so no entry of an aborted tuple is written after VACUUM
 *	  could have freed its line pointer for another tuple.  (Entries
 *	  flushed before the abort are like any index entry of an aborted
 *	  tuple: VACUUM removes them.)
 *
 *	  A flush reopens the index and compares its relfilenumber with the
 *	  batch's: a DROP INDEX, REINDEX, TRUNCATE, CLUSTER or rewriting ALTER
 *	  TABLE in this transaction made the entries moot (the new storage was
 *	  built from the heap), and they are dropped.  An error during a flush
 *	  aborts the transaction, as a deferred constraint does.
 *
 * Portions Copyright (c) 2026, scbf developers
 *
 * IDENTIFICATION
 *	  src/scbfbatch.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "access/xact.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "scbf.h"

/*
 * A batch holds at most this many bytes of entries before it is flushed;
 * it starts with room for SCBF_BATCH_FIRST entries and doubles, so a
 * one-row transaction does not pay for a megabyte.
 */
#define SCBF_BATCH_MAX_BYTES		(1024 * 1024)
#define SCBF_BATCH_FIRST			16

/*
 * The bytes an entry of ncols hashes counts for against
 * SCBF_BATCH_MAX_BYTES: its subtransaction, TID and hashes, MAXALIGNed.
 */
#define BatchEntrySize(ncols) \
	MAXALIGN(sizeof(SubTransactionId) + sizeof(ItemPointerData) + \
			 sizeof(uint32) * (ncols))

/*
 * The batch of one index.  Its entries are kept as three arrays: entry i is
 * the subtransaction that appended it (subids[i]), its heap TID (tids[i])
 * and one 32-bit hash per column (hashes[i * ncols ..]), the two arrays
 * the apply function takes.
 */
typedef struct ScbfBatch
{
	Oid			indexoid;
	ScbfRelFileLocator rlocator;	/* the storage the entries are for */
	int			ncols;
	ScbfBatchApplyFn apply;		/* writes entries to the index */
	SubTransactionId *subids;
	ItemPointerData *tids;
	uint32	   *hashes;
	int			nentries;
	int			allocated;		/* entries the arrays have room for */
	int			maxentries;		/* entries at which it is flushed */
	bool		filled;			/* it has reached maxentries before */
	struct ScbfBatch *next;
} ScbfBatch;

/* The batches of this transaction, in TopTransactionContext; NULL if none */
static ScbfBatch *batches = NULL;

static bool callbacks_registered = false;

/*
 * Write batch b's entries to index (whose storage is b's) and empty it.
 * They go in the order they were appended: the fold sorts what it folds by
 * segment and item, and the pending area's readers need no order.
 */
static void
BatchWrite(Relation index, ScbfBatch *b, bool full, bool defer)
{
	int			n = b->nentries;

	if (n == 0)
		return;
	/* empty first: an error below must not leave entries to write twice */
	b->nentries = 0;
	b->apply(index, b->tids, b->hashes, n, b->filled, full, defer);
}

/*
 * Flush batch b before its transaction commits or prepares, opening its
 * index by OID; the entries are dropped if the index is gone or has new
 * storage (see the file header).  The batch goes to the pending area if
 * the index's fold helper will fold that after the transaction
 * (ScbfHelperFoldsAfter), so that the commit does not wait for a fold.
 */
static void
BatchFlushByOid(ScbfBatch *b)
{
	Relation	index;

	if (b->nentries == 0)
		return;
	/* this transaction already holds RowExclusiveLock on it, if it exists */
	index = try_relation_open(b->indexoid, RowExclusiveLock);
	if (index == NULL)
	{
		b->nentries = 0;
		return;
	}
	if (!ScbfLocatorEquals(ScbfRelationLocator(index), b->rlocator))
		b->nentries = 0;
	else
		BatchWrite(index, b, false, ScbfHelperFoldsAfter(index));
	relation_close(index, RowExclusiveLock);
}

/*
 * Transaction callback: flush every batch before commit or prepare; forget
 * them when the transaction ends (their memory goes with it).
 */
static void
BatchXactCallback(XactEvent event, void *arg)
{
	switch (event)
	{
		case XACT_EVENT_PRE_COMMIT:
		case XACT_EVENT_PRE_PREPARE:
			/* an index's helper first: its batch came before */
			for (ScbfBatch *b = batches; b != NULL; b = b->next)
			{
				ScbfHelperWait(b->indexoid);
				BatchFlushByOid(b);
			}
			ScbfHelperWait(InvalidOid);
			break;
		case XACT_EVENT_COMMIT:
		case XACT_EVENT_ABORT:
		case XACT_EVENT_PREPARE:
		case XACT_EVENT_PARALLEL_COMMIT:
		case XACT_EVENT_PARALLEL_ABORT:
			batches = NULL;
			ScbfHelperForget();
			break;
		default:
			break;
	}
}

/*
 * Subtransaction callback: at the abort of subtransaction mySubid, cut off
 * the entries appended since it began (the suffix of each batch whose
 * subtransaction id is mySubid or later; see the file header).
 */
static void
BatchSubXactCallback(SubXactEvent event, SubTransactionId mySubid,
					 SubTransactionId parentSubid, void *arg)
{
	if (event != SUBXACT_EVENT_ABORT_SUB)
		return;
	for (ScbfBatch *b = batches; b != NULL; b = b->next)
		while (b->nentries > 0 && b->subids[b->nentries - 1] >= mySubid)
			b->nentries--;
}

/*
 * The batch of index in this transaction, made if it has none yet.
 */
static ScbfBatch *
BatchFor(Relation index, int ncols, ScbfBatchApplyFn apply)
{
	Oid			indexoid = RelationGetRelid(index);
	ScbfBatch  *b;

	for (b = batches; b != NULL; b = b->next)
		if (b->indexoid == indexoid &&
			ScbfLocatorEquals(ScbfRelationLocator(index), b->rlocator))
			return b;

	if (!callbacks_registered)
	{
		RegisterXactCallback(BatchXactCallback, NULL);
		RegisterSubXactCallback(BatchSubXactCallback, NULL);
		callbacks_registered = true;
	}

	b = MemoryContextAllocZero(TopTransactionContext, sizeof(ScbfBatch));
	b->indexoid = indexoid;
	b->rlocator = ScbfRelationLocator(index);
	b->ncols = ncols;
	b->apply = apply;
	b->maxentries = SCBF_BATCH_MAX_BYTES / BatchEntrySize(ncols);
	b->allocated = SCBF_BATCH_FIRST;
	b->subids = MemoryContextAlloc(TopTransactionContext,
								   sizeof(SubTransactionId) * b->allocated);
	b->tids = MemoryContextAlloc(TopTransactionContext,
								 sizeof(ItemPointerData) * b->allocated);
	b->hashes = MemoryContextAlloc(TopTransactionContext,
								   sizeof(uint32) * ncols * b->allocated);
	b->next = batches;
	batches = b;
	return b;
}

/*
 * Append one entry (heap TID tid, hashes[0 .. ncols)) to index's batch;
 * apply is the function that writes a batch to this index.  Flushes the
 * batch first when it is full.  The caller holds RowExclusiveLock on the
 * index, as aminsert's caller does.
 */
void
ScbfBatchAdd(Relation index, ItemPointer tid, const uint32 *hashes, int ncols,
			 ScbfBatchApplyFn apply)
{
	ScbfBatch  *b = BatchFor(index, ncols, apply);
	int			i;

	if (b->nentries >= b->maxentries)
	{
		/*
		 * One helper per index at a time (scbffoldhelper.c): while it still
		 * folds the batch before, this one waits in the pending area
		 * instead of the load waiting for the helper.
		 */
		bool		defer = ScbfHelperBusy(b->indexoid);

		if (!defer)
			ScbfHelperWait(b->indexoid);
		BatchWrite(index, b, true, defer);
		b->filled = true;
	}
	else if (b->nentries >= b->allocated)
	{
		b->allocated = Min(b->allocated * 2, b->maxentries);
		b->subids = repalloc(b->subids,
							 sizeof(SubTransactionId) * b->allocated);
		b->tids = repalloc(b->tids, sizeof(ItemPointerData) * b->allocated);
		b->hashes = repalloc(b->hashes,
							 sizeof(uint32) * ncols * b->allocated);
	}
	i = b->nentries;
	b->subids[i] = GetCurrentSubTransactionId();
	b->tids[i] = *tid;
	for (int col = 0; col < ncols; col++)
		b->hashes[(Size) i * ncols + col] = hashes[col];
	b->nentries++;
}

/*
 * Write this backend's batch of index, if it has one, before the backend
 * reads the index.  The caller has the index open and locked.
 */
void
ScbfBatchFlush(Relation index)
{
	Oid			indexoid = RelationGetRelid(index);

	ScbfHelperWait(indexoid);
	for (ScbfBatch *b = batches; b != NULL; b = b->next)
		if (b->indexoid == indexoid && b->nentries > 0 &&
			ScbfLocatorEquals(ScbfRelationLocator(index), b->rlocator))
			BatchWrite(index, b, false, false);
}
