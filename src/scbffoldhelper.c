/*-------------------------------------------------------------------------
 *
 * scbffoldhelper.c
 *	  Fold helpers: background workers that fold a bulk load's full insert
 *	  batches into an index while the loading backend goes on.
 *
 * NOTES
 *	  A bulk load (INSERT ... SELECT, COPY) fills its insert batch many
 *	  times; each full batch is folded straight into the filters (the direct
 *	  fold, ScbfFoldBatch), which costs the loading backend as much as a
 *	  tenth to two fifths of its time.  Under scbf.fold_helpers (on by
 *	  default) the backend hands its full batches of an index to a helper
 *	  instead, a dynamic background worker it starts at the first one and
 *	  that lives as long as the loading transaction: the backend copies a
 *	  batch into the helper's dynamic shared memory segment and goes on
 *	  inserting heap rows on another core while the helper folds it.
 *	  RegisterDynamicBackgroundWorker names this library, so no
 *	  shared_preload_libraries is needed.  A helper of its own per load
 *	  keeps its caches warm from one batch to the next (a worker started
 *	  per batch spent three times the fold's time starting cold).  When a
 *	  batch goes to a helper is the batch's write policy (scbfbatch.c);
 *	  this file only starts, feeds, waits for and reads helpers, and calls
 *	  nothing of the batch.
 *
 *	  The segment holds one batch and two counters: batches handed over
 *	  (submitted) and finished (done), each side setting the other's latch
 *	  when it moves its counter.  The backend copies a batch in only when
 *	  the helper is idle (done = submitted): before it hands over the next
 *	  batch of an index, before it writes the index's last batch at commit
 *	  or prepare, and before a diagnostic function reads the index, it
 *	  waits for that.  Waiting at PRE_COMMIT and PRE_PREPARE keeps the
 *	  direct fold's crash argument: the helper's fold commits (one metapage
 *	  record) before the loading transaction's commit record, so a crash
 *	  loses only entries of tuples it also aborts, and a committed tuple is
 *	  never missing from the index (invariant I3).  A scan of the index by
 *	  the backend does not wait: it reads the batch in the segment as well
 *	  as the index (ScbfHelperScan).
 *
 *	  The helper folds each batch in a transaction of its own, taking the
 *	  table and index locks (RowExclusiveLock, as an INSERT) and the fold
 *	  lock only if it gets them without waiting: the backend that waits for
 *	  it may hold a lock it needs (a TRUNCATE or ALTER TABLE later in the
 *	  same transaction), and that wait is a latch wait the deadlock detector
 *	  cannot see; between batches it holds no lock.  A batch the helper did
 *	  not fold (a lock taken, the index dropped or given new storage) the
 *	  wait gives back to the backend, which writes it itself, as it would
 *	  have without helpers; so does it when the helper died (an error
 *	  inside its fold leaves what a crashed fold leaves, which the next
 *	  fold tidies) or no worker slot was free.
 *
 *	  At the end of the transaction, commit or abort, the backend tells its
 *	  helpers to finish and forgets them.  After an abort a helper may be
 *	  folding still: it writes entries of aborted tuples, as a direct fold
 *	  before the abort would have, and VACUUM removes them.  A helper whose
 *	  backend is gone also exits.
 *
 *	  A load's last, partial batch of an index with a helper is not folded
 *	  at commit: the backend appends it to the pending area (WAL-logged
 *	  before the commit record, and read by every probe, like any pending
 *	  entry) and asks the helper to fold the pending area once the
 *	  transaction has ended (ScbfHelperFoldsAfter).  That fold waits for
 *	  its locks, as any inserter's does (the backend waits for nothing of
 *	  the helper any more); if it cannot run, the entries stay pending
 *	  until the next fold, a VACUUM or scbf_clean_pending().
 *
 * Portions Copyright (c) 2026, scbf developers
 *
 * IDENTIFICATION
 *	  src/scbffoldhelper.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <dlfcn.h>

#include "access/relation.h"
#include "access/xact.h"
#include "catalog/index.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "port/atomics.h"
#include "postmaster/bgworker.h"
#include "storage/dsm.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/lmgr.h"
#include "storage/proc.h"
#include "storage/procarray.h"
#include "tcop/tcopprot.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/resowner.h"
#include "utils/snapmgr.h"

#include "scbf.h"

/* scbf.fold_helpers: whether bulk loads hand full batches to helpers */
bool		scbf_fold_helpers = true;

/* A helper idle this long with its backend gone or silent exits */
#define HELPER_IDLE_CHECK_MS	1000

/*
 * The segment of one helper: where its batches go, the protocol's state,
 * and room for one batch (capacity entries): n TIDs, then n * ncols
 * hashes.
 */
typedef struct ScbfHelperShared
{
	Oid			dboid;
	Oid			heapoid;
	Oid			indexoid;
	ScbfRelFileLocator rlocator;	/* the storage the entries are for */
	int			ncols;
	int			capacity;
	pid_t		backend_pid;
	pg_atomic_uint32 helper_pid;	/* 0 until the helper runs */
	pg_atomic_uint32 submitted; /* batches handed over */
	pg_atomic_uint32 done;		/* batches the helper finished */
	pg_atomic_uint32 folded;	/* 1 if the last one finished was folded */
	pg_atomic_uint32 finish;	/* 1: no more batches, exit */
	pg_atomic_uint32 fold_pending;	/* 1: fold the pending area at exit */
	int			n;				/* entries of the batch handed over */
} ScbfHelperShared;

#define HelperTids(sh) \
	((ItemPointer) ((char *) (sh) + MAXALIGN(sizeof(ScbfHelperShared))))
#define HelperHashes(sh) \
	((ScbfHash *) ((char *) HelperTids(sh) + \
				 MAXALIGN(sizeof(ItemPointerData) * (sh)->capacity)))

/* A helper this backend started, in TopTransactionContext */
typedef struct ScbfHelper
{
	Oid			indexoid;
	dsm_segment *seg;
	ScbfHelperShared *sh;
	BackgroundWorkerHandle *handle;
	uint32		handled;		/* batches whose end the backend has seen */
	bool		dead;			/* it exited; no more batches for it */
	struct ScbfHelper *next;
} ScbfHelper;

/* This transaction's helpers; NULL if none */
static ScbfHelper *helpers = NULL;

PGDLLEXPORT void scbf_fold_helper_main(Datum main_arg);

/*
 * The file this library was loaded from, for bgw_library_name: a helper
 * must run the code of the backend that starts it, and "scbf" alone would
 * be looked up in $libdir only (not, for one, in Debian's
 * extension_destdir, from which a test installation loads it).  "scbf" if
 * the path is unknown or too long.
 */
static const char *
HelperLibrary(void)
{
	static char path[BGW_MAXLEN];
	Dl_info		info;

	if (path[0] == '\0')
	{
		if (dladdr((void *) scbf_fold_helper_main, &info) != 0 &&
			info.dli_fname != NULL && strlen(info.dli_fname) < BGW_MAXLEN)
			strlcpy(path, info.dli_fname, BGW_MAXLEN);
		else
			strlcpy(path, "scbf", BGW_MAXLEN);
	}
	return path;
}

/*
 * Set the latch of the process pid, if it still runs.
 */
static void
SetLatchOfPid(pid_t pid)
{
	PGPROC	   *proc;

	if (pid == 0)
		return;
	proc = BackendPidGetProc(pid);
	if (proc != NULL)
		SetLatch(&proc->procLatch);
}

/*
 * Start a helper for index, with room for batches of capacity entries; NULL
 * if no segment or worker slot could be had.
 */
static ScbfHelper *
HelperStart(Relation index, int capacity)
{
	int			ncols = IndexRelationGetNumberOfKeyAttributes(index);
	Size		size;
	dsm_segment *seg;
	ScbfHelperShared *sh;
	BackgroundWorker worker;
	BackgroundWorkerHandle *handle;
	ScbfHelper *h;
	MemoryContext oldcxt;
	ResourceOwner oldowner;

	size = MAXALIGN(sizeof(ScbfHelperShared)) +
		MAXALIGN(sizeof(ItemPointerData) * capacity) +
		sizeof(ScbfHash) * (Size) capacity * ncols;
	/* mapped until the transaction ends, not the statement */
	oldowner = CurrentResourceOwner;
	CurrentResourceOwner = TopTransactionResourceOwner;
	seg = dsm_create(size, DSM_CREATE_NULL_IF_MAXSEGMENTS);
	CurrentResourceOwner = oldowner;
	if (seg == NULL)
		return NULL;
	sh = dsm_segment_address(seg);
	memset(sh, 0, sizeof(ScbfHelperShared));
	sh->dboid = MyDatabaseId;
	sh->heapoid = index->rd_index->indrelid;
	sh->indexoid = RelationGetRelid(index);
	sh->rlocator = ScbfRelationLocator(index);
	sh->ncols = ncols;
	sh->capacity = capacity;
	sh->backend_pid = MyProcPid;
	pg_atomic_init_u32(&sh->helper_pid, 0);
	pg_atomic_init_u32(&sh->submitted, 0);
	pg_atomic_init_u32(&sh->done, 0);
	pg_atomic_init_u32(&sh->folded, 0);
	pg_atomic_init_u32(&sh->finish, 0);
	pg_atomic_init_u32(&sh->fold_pending, 0);

	memset(&worker, 0, sizeof(worker));
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS |
		BGWORKER_BACKEND_DATABASE_CONNECTION;
	worker.bgw_start_time = BgWorkerStart_RecoveryFinished;
	worker.bgw_restart_time = BGW_NEVER_RESTART;
	strlcpy(worker.bgw_library_name, HelperLibrary(), BGW_MAXLEN);
	snprintf(worker.bgw_function_name, BGW_MAXLEN, "scbf_fold_helper_main");
	snprintf(worker.bgw_name, BGW_MAXLEN, "scbf fold helper for index %u",
			 RelationGetRelid(index));
	snprintf(worker.bgw_type, BGW_MAXLEN, "scbf fold helper");
	worker.bgw_main_arg = UInt32GetDatum(dsm_segment_handle(seg));
	worker.bgw_notify_pid = MyProcPid;

	oldcxt = MemoryContextSwitchTo(TopTransactionContext);
	if (!RegisterDynamicBackgroundWorker(&worker, &handle))
	{
		MemoryContextSwitchTo(oldcxt);
		dsm_detach(seg);
		return NULL;
	}
	h = palloc0(sizeof(ScbfHelper));
	h->indexoid = RelationGetRelid(index);
	h->seg = seg;
	h->sh = sh;
	h->handle = handle;
	h->next = helpers;
	helpers = h;
	MemoryContextSwitchTo(oldcxt);
	return h;
}

/*
 * This transaction's helper of index indexoid; NULL if none.
 */
static ScbfHelper *
HelperOf(Oid indexoid)
{
	for (ScbfHelper *h = helpers; h != NULL; h = h->next)
		if (h->indexoid == indexoid)
			return h;
	return NULL;
}

/*
 * Wait until helper h has finished every batch handed to it (or exited).
 * Returns true, with *unfolded describing it, if it did not fold the last
 * one: the caller writes that batch and then calls ScbfHelperWritten, until
 * which every wait gives it back again.  Returns false if the helper folded
 * it, or was idle since the last wait.
 */
static bool
HelperWaitIdle(ScbfHelper *h, ScbfHelperBatch *unfolded)
{
	ScbfHelperShared *sh = h->sh;
	uint32		submitted = pg_atomic_read_u32(&sh->submitted);
	pid_t		pid;

	if (h->handled == submitted)
		return false;			/* idle since the last wait */
	for (;;)
	{
		if (pg_atomic_read_u32(&sh->done) == submitted)
			break;
		if (GetBackgroundWorkerPid(h->handle, &pid) == BGWH_STOPPED)
		{
			/* gone; what it finished before is in "done" */
			pg_memory_barrier();
			h->dead = true;
			break;
		}
		(void) WaitLatch(MyLatch,
						 WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 HELPER_IDLE_CHECK_MS, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
	pg_read_barrier();
	if (pg_atomic_read_u32(&sh->done) == submitted &&
		pg_atomic_read_u32(&sh->folded) == 1)
	{
		elog(DEBUG1, "an scbf fold helper folded %d entries of index \"%s\"",
			 sh->n, get_rel_name(sh->indexoid));
		h->handled = submitted;
		return false;
	}
	unfolded->indexoid = sh->indexoid;
	unfolded->rlocator = sh->rlocator;
	unfolded->tids = HelperTids(sh);
	unfolded->hashes = HelperHashes(sh);
	unfolded->n = sh->n;
	return true;
}

/*
 * ScbfHelperSubmit
 *		Hand a full batch of index (n entries, tids[i] and hashes[i * ncols
 *		..]) to its helper, started at the first batch.
 *		Returns false, having done nothing, if helpers are off or do not
 *		apply, or no helper could be had: the caller writes the batch itself.
 *		The caller has waited for the helper (ScbfHelperWait).
 */
bool
ScbfHelperSubmit(Relation index, ItemPointer tids, const ScbfHash *hashes,
				  int n)
{
	ScbfHelper *h;
	ScbfHelperShared *sh;

	/*
	 * Not for storage only this transaction sees: a temporary index (local
	 * buffers), or one created or given new storage in this transaction
	 * (the helper's snapshot would find no index, or the old storage).
	 */
	if (!scbf_fold_helpers || !IsUnderPostmaster || RecoveryInProgress() ||
		RelationUsesLocalBuffers(index) ||
		index->rd_createSubid != InvalidSubTransactionId ||
		ScbfRelationNewStorageSubid(index) != InvalidSubTransactionId)
		return false;

	h = HelperOf(RelationGetRelid(index));
	if (h != NULL &&
		(h->dead || n > h->sh->capacity ||
		 !ScbfLocatorEquals(ScbfRelationLocator(index), h->sh->rlocator)))
		return false;
	if (h == NULL && (h = HelperStart(index, n)) == NULL)
		return false;

	sh = h->sh;
	Assert(h->handled == pg_atomic_read_u32(&sh->submitted));
	sh->n = n;
	memcpy(HelperTids(sh), tids, sizeof(ItemPointerData) * n);
	memcpy(HelperHashes(sh), hashes, sizeof(ScbfHash) * (Size) n * sh->ncols);
	pg_write_barrier();
	pg_atomic_add_fetch_u32(&sh->submitted, 1);
	SetLatchOfPid((pid_t) pg_atomic_read_u32(&sh->helper_pid));
	return true;
}

/*
 * ScbfHelperWait
 *		Wait until this transaction's helper of index indexoid (with
 *		InvalidOid: every helper, in turn) is idle.  Returns true, with
 *		*unfolded describing it, if a helper did not fold the batch handed to
 *		it last: the caller writes it (the entries are in the helper's
 *		segment) and calls ScbfHelperWritten, then waits again, until this
 *		returns false.
 */
bool
ScbfHelperWait(Oid indexoid, ScbfHelperBatch *unfolded)
{
	for (ScbfHelper *h = helpers; h != NULL; h = h->next)
		if ((!OidIsValid(indexoid) || h->indexoid == indexoid) &&
			HelperWaitIdle(h, unfolded))
			return true;
	return false;
}

/*
 * ScbfHelperWritten
 *		The caller has written the batch ScbfHelperWait gave back for
 *		index indexoid: the helper is idle, ready for the next batch.
 */
void
ScbfHelperWritten(Oid indexoid)
{
	ScbfHelper *h = HelperOf(indexoid);

	if (h != NULL)
		h->handled = pg_atomic_read_u32(&h->sh->submitted);
}

/*
 * ScbfHelperScan
 *		Call fn for each entry of the batch this transaction last handed to
 *		its helper of index (the storage index has now), while the backend
 *		has not seen that batch's end: the helper may be folding it, and its
 *		fold not yet committed.  The entries may be in the index already as
 *		well.  Neither waits nor writes: for a scan of the index by this
 *		backend (ScbfBatchScan).  The helper only reads the segment, so the
 *		batch does not change under the call.
 */
void
ScbfHelperScan(Relation index, ScbfPendingFn fn, void *arg)
{
	ScbfHelper *h = HelperOf(RelationGetRelid(index));
	ScbfHelperShared *sh;

	if (h == NULL)
		return;
	sh = h->sh;
	if (h->handled == pg_atomic_read_u32(&sh->submitted) ||
		!ScbfLocatorEquals(ScbfRelationLocator(index), sh->rlocator))
		return;
	for (int i = 0; i < sh->n; i++)
		fn(&HelperTids(sh)[i], HelperHashes(sh) + (Size) i * sh->ncols, arg);
}

/*
 * ScbfHelperBusy
 *		True if this transaction's helper of index indexoid is alive and
 *		still working on the batch handed to it last.
 */
bool
ScbfHelperBusy(Oid indexoid)
{
	ScbfHelper *h = HelperOf(indexoid);
	uint32		submitted;
	pid_t		pid;

	if (h == NULL || h->dead)
		return false;
	submitted = pg_atomic_read_u32(&h->sh->submitted);
	return h->handled != submitted &&
		pg_atomic_read_u32(&h->sh->done) != submitted &&
		GetBackgroundWorkerPid(h->handle, &pid) != BGWH_STOPPED;
}

/*
 * ScbfHelperFoldsAfter
 *		At PRE_COMMIT or PRE_PREPARE, with the helper of index idle (the
 *		caller has waited for it): true if this transaction has a live
 *		helper of index's storage, which is then asked to fold the pending
 *		area once the transaction has ended.  The caller appends the
 *		index's last batch to the pending area instead of folding it: the
 *		append is WAL-logged before the commit record, so the entries are
 *		in the index, and probes read them, whether or not that fold runs.
 */
bool
ScbfHelperFoldsAfter(Relation index)
{
	ScbfHelper *h;

	h = HelperOf(RelationGetRelid(index));
	if (h == NULL || h->dead ||
		!ScbfLocatorEquals(ScbfRelationLocator(index), h->sh->rlocator))
		return false;
	pg_atomic_write_u32(&h->sh->fold_pending, 1);
	return true;
}

/*
 * ScbfHelperForget
 *		At the end of a transaction: tell its helpers to finish, let go of
 *		their segments and forget them (their memory goes with the
 *		transaction).
 */
void
ScbfHelperForget(void)
{
	for (ScbfHelper *h = helpers; h != NULL; h = h->next)
	{
		pg_atomic_write_u32(&h->sh->finish, 1);
		SetLatchOfPid((pid_t) pg_atomic_read_u32(&h->sh->helper_pid));
		/* the helper keeps its own mapping until it exits */
		dsm_detach(h->seg);
	}
	helpers = NULL;
}

/*
 * Open the index segment sh is for, its locks taken; NULL (and nothing
 * open) if it was dropped, or is no longer that index of that table with
 * that storage.
 */
static Relation
HelperOpenIndex(ScbfHelperShared *sh)
{
	Relation	index = try_relation_open(sh->indexoid, NoLock);

	if (index == NULL)
		return NULL;
	if (index->rd_rel->relkind != RELKIND_INDEX ||
		index->rd_index->indrelid != sh->heapoid ||
		!ScbfLocatorEquals(ScbfRelationLocator(index), sh->rlocator) ||
		IndexRelationGetNumberOfKeyAttributes(index) != sh->ncols)
	{
		relation_close(index, NoLock);
		return NULL;
	}
	return index;
}

/*
 * Fold the batch in segment sh into its index, if the locks and the fold
 * lock are free now; true if it did.  In a transaction of its own.
 */
static bool
HelperFold(ScbfHelperShared *sh)
{
	Relation	index;
	bool		folded = false;

	StartTransactionCommand();
	PushActiveSnapshot(GetTransactionSnapshot());
	if (ConditionalLockRelationOid(sh->heapoid, RowExclusiveLock) &&
		ConditionalLockRelationOid(sh->indexoid, RowExclusiveLock) &&
		(index = HelperOpenIndex(sh)) != NULL)
	{
		folded = ScbfFoldBatch(index, HelperTids(sh), HelperHashes(sh),
								sh->n);
		relation_close(index, NoLock);
	}
	PopActiveSnapshot();
	CommitTransactionCommand();
	return folded;
}

/*
 * Fold the pending area of the index in segment sh, after its loading
 * transaction ended (ScbfHelperFoldsAfter).  The backend no longer waits
 * for this helper, so it waits for its locks and the fold lock like any
 * inserter; an index dropped or given new storage meanwhile is left alone.
 */
static void
HelperFoldPending(ScbfHelperShared *sh)
{
	Relation	index;

	StartTransactionCommand();
	PushActiveSnapshot(GetTransactionSnapshot());
	pgstat_report_activity(STATE_RUNNING, "folding the pending area");
	LockRelationOid(sh->heapoid, RowExclusiveLock);
	LockRelationOid(sh->indexoid, RowExclusiveLock);
	if ((index = HelperOpenIndex(sh)) != NULL)
	{
		(void) ScbfFold(index, true);
		relation_close(index, NoLock);
	}
	PopActiveSnapshot();
	CommitTransactionCommand();
	pgstat_report_activity(STATE_IDLE, NULL);
}

/*
 * scbf_fold_helper_main
 *		A helper's entry point (bgw_function_name): attach the segment named
 *		by main_arg, then fold each batch handed over until told to finish
 *		or its backend is gone.
 */
void
scbf_fold_helper_main(Datum main_arg)
{
	dsm_segment *seg;
	ScbfHelperShared *sh;

	pqsignal(SIGTERM, die);
	BackgroundWorkerUnblockSignals();

	CurrentResourceOwner = ResourceOwnerCreate(NULL, "scbf fold helper");
	seg = dsm_attach(DatumGetUInt32(main_arg));
	if (seg == NULL)
		proc_exit(0);			/* the backend's transaction ended already */
	sh = dsm_segment_address(seg);

	/* as the bootstrap superuser, as autovacuum: it only writes the index */
	BackgroundWorkerInitializeConnectionByOid(sh->dboid, InvalidOid, 0);
	pg_atomic_write_u32(&sh->helper_pid, (uint32) MyProcPid);
	pgstat_report_activity(STATE_IDLE, NULL);

	for (;;)
	{
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
		if (pg_atomic_read_u32(&sh->submitted) != pg_atomic_read_u32(&sh->done))
		{
			bool		folded;

			pg_read_barrier();
			pgstat_report_activity(STATE_RUNNING, "folding an insert batch");
			folded = HelperFold(sh);
			pgstat_report_activity(STATE_IDLE, NULL);
			pg_atomic_write_u32(&sh->folded, folded ? 1 : 0);
			pg_write_barrier();
			pg_atomic_write_u32(&sh->done, pg_atomic_read_u32(&sh->submitted));
			SetLatchOfPid(sh->backend_pid);
			continue;
		}
		if (pg_atomic_read_u32(&sh->finish) == 1 ||
			BackendPidGetProc(sh->backend_pid) == NULL)
		{
			pg_read_barrier();
			if (pg_atomic_read_u32(&sh->fold_pending) == 1)
				HelperFoldPending(sh);
			break;
		}
		(void) WaitLatch(MyLatch,
						 WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 HELPER_IDLE_CHECK_MS, PG_WAIT_EXTENSION);
	}
	dsm_detach(seg);
	proc_exit(0);
}
