/*-------------------------------------------------------------------------
 *
 * scbfbatch.c
 *	  The backend-local insert batch, its transaction callbacks, the write
 *	  policy (where a batch's entries go when it is written), and
 *	  scbf_clean_pending(), the user's request to write and fold now.
 *
 * NOTES
 *	  An insert hashes its row and appends (TID, hashes) to the batch of its
 *	  index, in TopTransactionContext; it touches no page.  The batch is
 *	  written out ("flushed"):
 *
 *		- before the transaction commits or prepares (XACT_EVENT_PRE_COMMIT,
 *		  XACT_EVENT_PRE_PREPARE), so every entry is on disk, WAL-logged,
 *		  before its transaction's commit record (invariant I3);
 *		- when it holds SCBF_BATCH_MAX_BYTES;
 *		- before a diagnostic function or the verifier reads the index
 *		  (ScbfBatchFlush), and before a query that may run in parallel
 *		  workers starts (ScbfBatchFlushAll), to the pending area only.
 *
 *	  A scan by this backend writes nothing: the probe reads the batch of
 *	  the index in memory (ScbfBatchScan), and the batch last handed to the
 *	  index's fold helper, as it reads the pending area.  Other backends
 *	  cannot see an uncommitted tuple through any snapshot a bitmap scan
 *	  uses (scbf has no amgettuple: no unique, exclusion or dirty-snapshot
 *	  scan reaches it), so what they miss is invisible to them anyway.
 *	  CREATE INDEX CONCURRENTLY's validation takes its snapshot before it
 *	  collects the index's TIDs, and a transaction that committed before
 *	  that snapshot flushed before its commit.
 *
 *	  The write policy (BatchDestination) sends a batch to one of four
 *	  places (src/README, "The insert path"):
 *
 *		- a fold helper (scbffoldhelper.c): a full batch of a load that goes
 *		  on, of at least SCBF_FOLD_DIRECT entries, so that the load goes on
 *		  while the helper folds it;
 *		- a direct fold (ScbfFoldBatch): a batch of at least
 *		  SCBF_FOLD_DIRECT entries, or any batch of a load whose batch has
 *		  filled up before, so that the load leaves no pending entries for
 *		  every probe to read;
 *		- the pending area, folded when a partition has grown long: the
 *		  other batches;
 *		- the pending area alone, never folded here: a full batch while the
 *		  helper still folds the one before (a merge of the delta takes
 *		  longer than a batch takes to fill; the load need not wait), a
 *		  load's last batch when its helper folds the pending area after the
 *		  commit (ScbfHelperFoldsAfter: the commit does not wait for a fold),
 *		  and a diagnostic's flush.
 *
 *	  Each of the first three falls back to the next when it cannot run
 *	  now: no helper could be had, or another backend holds the fold lock.
 *	  A batch a helper gives back unfolded is written as a load's batch,
 *	  before the next batch of its index.
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
 *	  built from the heap), and they are dropped.  A scan reads only the
 *	  batch of the storage it scans.  An error during a flush at commit
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
#include "access/xlog.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "scbf.h"

PG_FUNCTION_INFO_V1(scbf_clean_pending);

/*
 * A batch holds at most this many bytes of entries before it is flushed
 * (65,536 entries of a one-column index); it starts with room for
 * SCBF_BATCH_FIRST entries and doubles, so a one-row transaction does not
 * pay for a megabyte and a half.
 */
#define SCBF_BATCH_MAX_BYTES		(3 * 512 * 1024)
#define SCBF_BATCH_FIRST			16

/*
 * The bytes an entry of ncols hashes counts for against
 * SCBF_BATCH_MAX_BYTES: its subtransaction, TID and hashes, MAXALIGNed.
 */
#define BatchEntrySize(ncols) \
	MAXALIGN(sizeof(SubTransactionId) + sizeof(ItemPointerData) + \
			 sizeof(ScbfHash) * (ncols))

/*
 * The batch of one index.  Its entries are kept as three arrays: entry i is
 * the subtransaction that appended it (subids[i]), its heap TID (tids[i])
 * and one value hash per column (hashes[i * ncols ..]), the two arrays
 * the writers take.
 */
typedef struct ScbfBatch
{
	Oid			indexoid;
	ScbfRelFileLocator rlocator;	/* the storage the entries are for */
	int			ncols;
	SubTransactionId *subids;
	ItemPointerData *tids;
	ScbfHash   *hashes;
	int			nentries;
	int			allocated;		/* entries the arrays have room for */
	int			maxentries;		/* entries at which it is flushed */
	bool		filled;			/* it has reached maxentries before */
	bool		lost;			/* a write failed and lost entries of an
								 * enclosing (sub)transaction (BatchWrite) */
	struct ScbfBatch *next;
} ScbfBatch;

/* Why entries are written now */
typedef enum BatchOccasion
{
	BATCH_FULL,					/* the batch is full; the load goes on */
	BATCH_COMMIT,				/* the transaction commits or prepares */
	BATCH_READ,					/* a diagnostic or parallel workers are about
								 * to read the index */
	BATCH_RETURNED				/* a fold helper gave its batch back */
} BatchOccasion;

/*
 * Where entries go (see the file header).  Each destination falls back to
 * the one below it when it cannot run now, except BATCH_TO_PENDING, which
 * always can.
 */
typedef enum BatchDest
{
	BATCH_TO_HELPER,			/* the index's fold helper */
	BATCH_TO_FOLD,				/* a direct fold, with the pending area */
	BATCH_TO_PENDING_FOLD,		/* the pending area, folded if grown long */
	BATCH_TO_PENDING			/* the pending area, and nothing else */
} BatchDest;

/* The batches of this transaction, in TopTransactionContext; NULL if none */
static ScbfBatch *batches = NULL;

static bool callbacks_registered = false;

static void BatchTakeBack(Oid indexoid, BatchOccasion why);

/*
 * BatchDestination
 *		The write policy: where n entries of index go, written on occasion
 *		why; bulk if the index's batch has filled up before in this
 *		transaction (a bulk load, whose last entries these may be).
 *
 * For BATCH_FULL, unless the index's fold helper is busy, first waits for
 * it and writes any batch it gives back (BatchTakeBack), so that the helper
 * is idle if the entries go to it.  For BATCH_COMMIT, asks the helper to
 * fold the pending area after the commit if the entries go there for it.
 * The caller holds RowExclusiveLock on the index.
 */
static BatchDest
BatchDestination(Relation index, BatchOccasion why, int n, bool bulk)
{
	Oid			indexoid = RelationGetRelid(index);

	switch (why)
	{
		case BATCH_FULL:

			/*
			 * One helper per index at a time: while it still folds the batch
			 * before, this one waits in the pending area instead of the load
			 * waiting for the helper.
			 */
			if (ScbfHelperBusy(indexoid))
			{
				elog(DEBUG1, "index \"%s\": %d entries to the pending area, its fold helper still folding the batch before",
					 RelationGetRelationName(index), n);
				return BATCH_TO_PENDING;
			}
			BatchTakeBack(indexoid, BATCH_RETURNED);
			if (n >= SCBF_FOLD_DIRECT)
				return BATCH_TO_HELPER;
			break;
		case BATCH_COMMIT:
			/* the helper waited for already: its batch came before */
			if (ScbfHelperFoldsAfter(index))
			{
				elog(DEBUG1, "index \"%s\": %d entries to the pending area, for its fold helper to fold after the commit",
					 RelationGetRelationName(index), n);
				return BATCH_TO_PENDING;
			}
			break;
		case BATCH_READ:
			/* a reader only makes its own entries readable: no fold */
			return BATCH_TO_PENDING;
		case BATCH_RETURNED:
			break;
	}
	if (n >= SCBF_FOLD_DIRECT || bulk)
		return BATCH_TO_FOLD;
	return BATCH_TO_PENDING_FOLD;
}

/*
 * Write n entries (tids[i], hashes[i * ncols ..]) to index at dest, or at
 * the first destination after it that can take them now (see BatchDest).
 * The caller holds RowExclusiveLock on the index and, for BATCH_TO_HELPER,
 * has waited for the helper (BatchDestination).
 */
static void
BatchWriteTo(Relation index, BatchDest dest, ItemPointer tids,
			 const ScbfHash *hashes, int n)
{
	switch (dest)
	{
		case BATCH_TO_HELPER:
			if (ScbfHelperSubmit(index, tids, hashes, n))
				return;
			/* no helper could be had */
			/* FALLTHROUGH */
		case BATCH_TO_FOLD:
			if (ScbfFoldBatch(index, tids, hashes, n))
				return;
			/* no fold could run now */
			/* FALLTHROUGH */
		case BATCH_TO_PENDING_FOLD:
			if (ScbfPendingAppend(index, ScbfGetState(index), tids, hashes,
								  n))
				ScbfFold(index, false);
			return;
		case BATCH_TO_PENDING:
			(void) ScbfPendingAppend(index, ScbfGetState(index), tids,
									 hashes, n);
			return;
	}
}

/*
 * Write batch b's entries to index (whose storage is b's), on occasion why,
 * and empty it.  They go in the order they were appended: the fold sorts
 * what it folds by segment and item, and the pending area's readers need no
 * order.
 */
static void
BatchWrite(Relation index, ScbfBatch *b, BatchOccasion why)
{
	int			n = b->nentries;
	BatchDest	dest;

	if (n == 0)
		return;
	dest = BatchDestination(index, why, n, b->filled);

	/*
	 * Empty first: an error below must not leave entries to write twice (a
	 * pending append writes several records, by partition, not in batch
	 * order, so which entries an error left unwritten is not known).  The
	 * error aborts the current subtransaction.  If a savepoint's rollback
	 * then lets the transaction go on, entries appended before that
	 * subtransaction began, of tuples the transaction may still commit,
	 * are lost: the batch says so, and the commit fails (BatchXactCallback)
	 * rather than leave rows the index cannot find.
	 */
	b->nentries = 0;
	PG_TRY();
	{
		BatchWriteTo(index, dest, b->tids, b->hashes, n);
	}
	PG_CATCH();
	{
		SubTransactionId cur = GetCurrentSubTransactionId();

		for (int i = 0; i < n && !b->lost; i++)
			b->lost = b->subids[i] < cur;
		PG_RE_THROW();
	}
	PG_END_TRY();
}

/*
 * Wait until this transaction's fold helper of index indexoid (every
 * helper, with InvalidOid) is idle, and write each batch a helper gives
 * back unfolded, as written on occasion why (BATCH_RETURNED, or BATCH_READ
 * for a diagnostic), unless its index is gone or has new storage (the
 * entries are moot then, as at a flush).
 */
static void
BatchTakeBack(Oid indexoid, BatchOccasion why)
{
	ScbfHelperBatch unfolded;

	while (ScbfHelperWait(indexoid, &unfolded))
	{
		Relation	index = try_relation_open(unfolded.indexoid,
											  RowExclusiveLock);

		elog(DEBUG1, "an scbf fold helper did not fold its %d entries of index \"%s\": %s",
			 unfolded.n, index ? RelationGetRelationName(index) : "(dropped)",
			 why == BATCH_READ ? "appending them to the pending area" :
			 "folding them here");
		if (index != NULL)
		{
			if (ScbfLocatorEquals(ScbfRelationLocator(index),
								  unfolded.rlocator))
				BatchWriteTo(index,
							 BatchDestination(index, why, unfolded.n, true),
							 unfolded.tids, unfolded.hashes, unfolded.n);
			relation_close(index, RowExclusiveLock);
		}
		ScbfHelperWritten(unfolded.indexoid);
	}
}

/*
 * Write batch b on occasion why (its transaction commits or prepares, or a
 * parallel query starts), opening its index by OID; the entries are
 * dropped if the index is gone or has new storage (see the file header).
 * At commit, a batch that lost entries of rows the transaction keeps (see
 * BatchWrite) fails the commit instead.
 */
static void
BatchFlushByOid(ScbfBatch *b, BatchOccasion why)
{
	Relation	index;

	if (b->nentries == 0 && !(b->lost && why == BATCH_COMMIT))
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
	else if (b->lost && why == BATCH_COMMIT)
		ereport(ERROR,
				(errcode(ERRCODE_TRANSACTION_ROLLBACK),
				 errmsg("entries of index \"%s\" written in this transaction were lost",
						RelationGetRelationName(index)),
				 errdetail("Writing them failed in a subtransaction that was rolled back, and entries of rows the transaction keeps went with them."),
				 errhint("Retry the transaction.")));
	else
		BatchWrite(index, b, why);
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
				BatchTakeBack(b->indexoid, BATCH_RETURNED);
				BatchFlushByOid(b, BATCH_COMMIT);
			}
			BatchTakeBack(InvalidOid, BATCH_RETURNED);
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
BatchFor(Relation index, int ncols)
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
	b->maxentries = SCBF_BATCH_MAX_BYTES / BatchEntrySize(ncols);
	b->allocated = SCBF_BATCH_FIRST;
	b->subids = MemoryContextAlloc(TopTransactionContext,
								   sizeof(SubTransactionId) * b->allocated);
	b->tids = MemoryContextAlloc(TopTransactionContext,
								 sizeof(ItemPointerData) * b->allocated);
	b->hashes = MemoryContextAlloc(TopTransactionContext,
								   sizeof(ScbfHash) * ncols * b->allocated);
	b->next = batches;
	batches = b;
	return b;
}

/*
 * ScbfBatchAdd
 *		Append one entry (heap TID tid, hashes[0 .. ncols)) to index's
 *		batch, writing the batch first when it is full.  The caller holds
 *		RowExclusiveLock on the index, as aminsert's caller does.
 */
void
ScbfBatchAdd(Relation index, ItemPointer tid, const ScbfHash *hashes, int ncols)
{
	ScbfBatch  *b = BatchFor(index, ncols);
	int			i;

	if (b->nentries >= b->maxentries)
	{
		BatchWrite(index, b, BATCH_FULL);
		b->filled = true;
	}
	else if (b->nentries >= b->allocated)
	{
		b->allocated = Min(b->allocated * 2, b->maxentries);
		b->subids = repalloc(b->subids,
							 sizeof(SubTransactionId) * b->allocated);
		b->tids = repalloc(b->tids, sizeof(ItemPointerData) * b->allocated);
		b->hashes = repalloc(b->hashes,
							 sizeof(ScbfHash) * ncols * b->allocated);
	}
	i = b->nentries;
	b->subids[i] = GetCurrentSubTransactionId();
	b->tids[i] = *tid;
	for (int col = 0; col < ncols; col++)
		b->hashes[(Size) i * ncols + col] = hashes[col];
	b->nentries++;
}

/*
 * ScbfBatchFlush
 *		Write this backend's unwritten entries of index, if it has any, to
 *		the pending area, before a diagnostic function or the verifier
 *		reads the index: waits for the index's fold helper and appends what
 *		it gives back, then the batch.  Never folds, so that a reader does
 *		not change the filters it reports on.  The caller has the index
 *		open and locked; an entry exists only if this transaction inserted
 *		into the index, so it holds RowExclusiveLock on it too.
 */
void
ScbfBatchFlush(Relation index)
{
	Oid			indexoid = RelationGetRelid(index);

	BatchTakeBack(indexoid, BATCH_READ);
	for (ScbfBatch *b = batches; b != NULL; b = b->next)
		if (b->indexoid == indexoid &&
			ScbfLocatorEquals(ScbfRelationLocator(index), b->rlocator))
			BatchWrite(index, b, BATCH_READ);
}

/*
 * ScbfBatchHolds
 *		Whether this backend holds entries of index indexoid (of any index,
 *		with InvalidOid) that it has not written yet: in a batch, or handed
 *		to a fold helper.
 */
bool
ScbfBatchHolds(Oid indexoid)
{
	for (ScbfBatch *b = batches; b != NULL; b = b->next)
	{
		if (OidIsValid(indexoid) && b->indexoid != indexoid)
			continue;
		if (b->nentries > 0 || ScbfHelperBusy(b->indexoid))
			return true;
	}
	return false;
}

/*
 * ScbfBatchFlushAll
 *		Write every unwritten entry of this backend, of every index, to the
 *		pending area, before a query that may run in parallel workers: they
 *		cannot read this backend's batches or its fold helpers' (see
 *		ScbfExecutorStart in scbf.c).  Waits for the fold helpers and
 *		appends what they give back.  Never folds.  Takes RowExclusiveLock
 *		on each index with entries, which this transaction already holds.
 */
void
ScbfBatchFlushAll(void)
{
	if (batches == NULL)
		return;
	BatchTakeBack(InvalidOid, BATCH_READ);
	for (ScbfBatch *b = batches; b != NULL; b = b->next)
		BatchFlushByOid(b, BATCH_READ);
}

/*
 * ScbfBatchScan
 *		Call fn for each entry of index (the storage it has now) that this
 *		backend has not written yet: those of its batch, and those of the
 *		batch its fold helper was handed last and may not have folded yet
 *		(ScbfHelperScan), which may be in the index as well.  For a scan by
 *		this backend, which must find its own inserts: neither waits nor
 *		writes.  Entries cut off at a subtransaction's abort are not read.
 */
void
ScbfBatchScan(Relation index, ScbfPendingFn fn, void *arg)
{
	Oid			indexoid = RelationGetRelid(index);

	for (ScbfBatch *b = batches; b != NULL; b = b->next)
	{
		if (b->indexoid != indexoid ||
			!ScbfLocatorEquals(ScbfRelationLocator(index), b->rlocator))
			continue;
		for (int i = 0; i < b->nentries; i++)
			fn(&b->tids[i], b->hashes + (Size) i * b->ncols, arg);
	}
	ScbfHelperScan(index, fn, arg);
}

/*
 * scbf_clean_pending(index regclass)
 *		Fold the pending area of the index into its filters now, as VACUUM
 *		does; like gin_clean_pending_list(), for the table's owner.
 *
 * Writes this backend's batch of the index first, so the fold takes the
 * caller's own inserts too.  Takes RowExclusiveLock on the table and the
 * index (ScbfOpenIndex), then the fold lock, waiting for a fold another
 * backend runs.  Not during recovery.  Returns the entries folded.
 */
Datum
scbf_clean_pending(PG_FUNCTION_ARGS)
{
	Relation	heap;
	Relation	index;
	int64		folded;

	if (RecoveryInProgress())
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("recovery is in progress"),
				 errhint("scbf_clean_pending() cannot be executed during recovery.")));
	index = ScbfOpenIndex(fcinfo, 0, RowExclusiveLock, &heap, false);
	/* what this backend inserted but has not written yet, first */
	ScbfBatchFlush(index);
	if (!pg_class_ownercheck(RelationGetRelid(heap), GetUserId()))
		aclcheck_error(ACLCHECK_NOT_OWNER, OBJECT_TABLE,
					   RelationGetRelationName(heap));
	folded = ScbfFold(index, true);
	ScbfCloseIndex(index, heap, RowExclusiveLock);
	PG_RETURN_INT64(folded);
}
