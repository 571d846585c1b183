/*-------------------------------------------------------------------------
 *
 * scbf.c
 *	  Module entry points of scbf: reloptions, settings, the executor hook
 *	  that routes queries on Citus distributed tables (scbfroute.c) and
 *	  writes this backend's insert batches before a parallel query,
 *	  the AM handler, options parsing and build phase names.
 *
 * Portions Copyright (c) 2026, scbf developers
 *
 * IDENTIFICATION
 *	  src/scbf.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/reloptions.h"
#include "commands/progress.h"
#include "commands/vacuum.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/plannodes.h"
#include "utils/guc.h"

#include "scbf.h"

#ifdef PG_MODULE_MAGIC_EXT
PG_MODULE_MAGIC_EXT(.name = "scbf", .version = SCBF_VERSION);
#else
PG_MODULE_MAGIC;
#endif

/* Kind of relation options for scbf indexes */
static relopt_kind scbf_relopt_kind;

static ExecutorStart_hook_type prev_ExecutorStart = NULL;

/*
 * ScbfPlanChildren
 *		The plans directly below plan: its left and right trees, and the
 *		lists of plans an Append, MergeAppend, BitmapAnd, BitmapOr,
 *		SubqueryScan or CustomScan holds (the plan walks of the executor
 *		hooks share it).
 */
List *
ScbfPlanChildren(Plan *plan)
{
	List	   *children = NIL;

	switch (nodeTag(plan))
	{
		case T_Append:
			children = list_copy(((Append *) plan)->appendplans);
			break;
		case T_MergeAppend:
			children = list_copy(((MergeAppend *) plan)->mergeplans);
			break;
		case T_BitmapAnd:
			children = list_copy(((BitmapAnd *) plan)->bitmapplans);
			break;
		case T_BitmapOr:
			children = list_copy(((BitmapOr *) plan)->bitmapplans);
			break;
		case T_SubqueryScan:
			children = list_make1(((SubqueryScan *) plan)->subplan);
			break;
		case T_CustomScan:
			children = list_copy(((CustomScan *) plan)->custom_plans);
			break;
		default:
			break;
	}
	if (plan->lefttree != NULL)
		children = lappend(children, plan->lefttree);
	if (plan->righttree != NULL)
		children = lappend(children, plan->righttree);
	return children;
}

/*
 * Whether plan, or a plan below it, is a Bitmap Index Scan on an index
 * whose entries this backend has not written yet (ScbfBatchHolds).
 */
static bool
PlanScansBatch(Plan *plan)
{
	ListCell   *lc;

	if (plan == NULL)
		return false;
	check_stack_depth();
	if (IsA(plan, BitmapIndexScan))
		return ScbfBatchHolds(((BitmapIndexScan *) plan)->indexid);
	foreach(lc, ScbfPlanChildren(plan))
		if (PlanScansBatch((Plan *) lfirst(lc)))
			return true;
	return false;
}

/*
 * ExecutorStart hook: first routing (ScbfRouteExecutorStart, which may
 * replace the plan by a copy with fewer Citus tasks); then, before a plan that may run in parallel workers and
 * scans an index whose entries this backend holds unwritten, write them to
 * the pending area.  A scan by this backend finds its own uncommitted
 * inserts in its batch in memory (ScbfBatchScan), but a parallel worker
 * that builds a bitmap has no access to that memory: without the write, a
 * Parallel Bitmap Heap Scan whose bitmap a worker builds would miss rows
 * this transaction inserted.  A parallel plan writes nothing itself, so
 * nothing is added to a batch while it runs.
 */
static void
ScbfExecutorStart(QueryDesc *queryDesc, int eflags)
{
	PlannedStmt *stmt;

	ScbfRouteExecutorStart(queryDesc, eflags);
	stmt = queryDesc->plannedstmt;
	if (stmt->parallelModeNeeded &&
		(eflags & EXEC_FLAG_EXPLAIN_ONLY) == 0 &&
		ScbfBatchHolds(InvalidOid))
	{
		bool		scans = PlanScansBatch(stmt->planTree);
		ListCell   *lc;

		foreach(lc, stmt->subplans)
			scans = scans || PlanScansBatch((Plan *) lfirst(lc));
		if (scans)
			ScbfBatchFlushAll();
	}
	if (prev_ExecutorStart)
		prev_ExecutorStart(queryDesc, eflags);
	else
		standard_ExecutorStart(queryDesc, eflags);
}

/*
 * Module load callback: register the index options with their defaults and
 * bounds.  Changing an option of an existing index (ALTER INDEX ... SET)
 * only takes effect at REINDEX, since the layout is frozen in the metapage
 * at build; hence AccessExclusiveLock, as for BRIN's pages_per_range.
 */
void
_PG_init(void)
{
	scbf_relopt_kind = add_reloption_kind();

	add_int_reloption(scbf_relopt_kind, "pages_per_segment",
					  "Number of heap pages that each segment filter covers",
					  SCBF_DEFAULT_PAGES_PER_SEGMENT,
					  SCBF_MIN_PAGES_PER_SEGMENT,
					  SCBF_MAX_PAGES_PER_SEGMENT,
					  AccessExclusiveLock);
	add_real_reloption(scbf_relopt_kind, "false_positive_rate",
					   "Target false-positive rate of each segment filter",
					   SCBF_DEFAULT_FPR, SCBF_MIN_FPR, SCBF_MAX_FPR,
					   AccessExclusiveLock);
	add_int_reloption(scbf_relopt_kind, "hash_bits",
					  "Bits of the hash by which the index keys each value",
					  SCBF_DEFAULT_HASH_BITS, SCBF_MIN_HASH_BITS,
					  SCBF_MAX_HASH_BITS, AccessExclusiveLock);

	DefineCustomIntVariable("scbf.delta_band_pages",
							"Row band size, in pages, from which folds put new keys "
							"in the delta instead of setting their bits.",
							"A developer setting: the tests lower it to exercise "
							"the delta on small indexes.",
							&scbf_delta_band_pages,
							2048, 0, INT_MAX,
							PGC_SUSET,
							GUC_NOT_IN_SAMPLE,
							NULL, NULL, NULL);

	DefineCustomIntVariable("scbf.test_band_filters",
							"Filters a band of rows holds at most; 0 means as many "
							"as a row page has bits.",
							"A developer setting: the tests lower it to cross band "
							"boundaries with a few thousand rows.",
							&scbf_test_band_filters,
							0, 0, INT_MAX,
							PGC_SUSET,
							GUC_NOT_IN_SAMPLE,
							NULL, NULL, NULL);

	DefineCustomIntVariable("scbf.test_group_bands",
							"Bands a group sharing a summary holds at most; 0 means "
							"120.",
							"A developer setting: the tests lower it to cross group "
							"boundaries with a few thousand rows.",
							&scbf_test_group_bands,
							0, 0, INT_MAX,
							PGC_SUSET,
							GUC_NOT_IN_SAMPLE,
							NULL, NULL, NULL);

	DefineCustomBoolVariable("scbf.fold_helpers",
							 "Lets bulk loads hand full insert batches to background "
							 "workers that fold them.",
							 "Each helper takes a worker slot (max_worker_processes) "
							 "while it folds; without a free slot, or with this "
							 "off, the loading backend folds the batch itself.",
							 &scbf_fold_helpers,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	ScbfRouteInit();

	MarkGUCPrefixReserved("scbf");

	prev_ExecutorStart = ExecutorStart_hook;
	ExecutorStart_hook = ScbfExecutorStart;
}

/*
 * Index access method handler: the one place that lists the callbacks.
 */
PG_FUNCTION_INFO_V1(scbfhandler);
Datum
scbfhandler(PG_FUNCTION_ARGS)
{
	IndexAmRoutine *amroutine = makeNode(IndexAmRoutine);

	amroutine->amstrategies = SCBF_NSTRATEGIES;
	amroutine->amsupport = SCBF_NPROC;
	amroutine->amoptsprocnum = 0;
	amroutine->amcanorder = false;
	amroutine->amcanorderbyop = false;
	amroutine->amcanbackward = false;
	amroutine->amcanunique = false;
	amroutine->amcanmulticol = true;
	amroutine->amoptionalkey = true;
	amroutine->amsearcharray = true;
	amroutine->amsearchnulls = true;
	amroutine->amstorage = false;
	amroutine->amclusterable = false;
	amroutine->ampredlocks = false;
	amroutine->amcanparallel = false;
	amroutine->amcaninclude = false;
	amroutine->amusemaintenanceworkmem = false;
#if PG_VERSION_NUM >= 160000
	/* every indexed column change needs a new index entry */
	amroutine->amsummarizing = false;
#endif
#if PG_VERSION_NUM >= 170000
	/* ambuild is serial */
	amroutine->amcanbuildparallel = false;
#endif
#if PG_VERSION_NUM >= 180000
	/*
	 * No hash support function of the hash AM's kind; no claim that the
	 * equality (or ordering) of the operators in an scbf operator family is
	 * consistent across its types, as GIN, GiST and BRIN make none.
	 */
	amroutine->amcanhash = false;
	amroutine->amconsistentequality = false;
	amroutine->amconsistentordering = false;
#endif
	amroutine->amparallelvacuumoptions =
		VACUUM_OPTION_PARALLEL_BULKDEL | VACUUM_OPTION_PARALLEL_CLEANUP;
	amroutine->amkeytype = InvalidOid;

	amroutine->ambuild = scbfbuild;
	amroutine->ambuildempty = scbfbuildempty;
	amroutine->aminsert = scbfinsert;
#if PG_VERSION_NUM >= 170000
	/*
	 * Nothing to do at the end of an INSERT, COPY or UPDATE: aminsert keeps
	 * its entries in a backend-local batch that deliberately spans the
	 * statements of a transaction and is written before commit or prepare;
	 * this backend's scans read it in memory (scbfbatch.c).  Flushing it at
	 * each statement's end would give up the many entries per WAL record
	 * that a transaction of small INSERTs gets.
	 */
	amroutine->aminsertcleanup = NULL;
#endif
	amroutine->ambulkdelete = scbfbulkdelete;
	amroutine->amvacuumcleanup = scbfvacuumcleanup;
	amroutine->amcanreturn = NULL;
	amroutine->amcostestimate = scbfcostestimate;
#if PG_VERSION_NUM >= 180000
	/* not a tree */
	amroutine->amgettreeheight = NULL;
#endif
	amroutine->amoptions = scbfoptions;
	amroutine->amproperty = NULL;
	amroutine->ambuildphasename = scbfbuildphasename;
	amroutine->amvalidate = scbfvalidate;
	amroutine->amadjustmembers = NULL;
	amroutine->ambeginscan = scbfbeginscan;
	amroutine->amrescan = scbfrescan;
	amroutine->amgettuple = NULL;
	amroutine->amgetbitmap = scbfgetbitmap;
	amroutine->amendscan = scbfendscan;
	amroutine->ammarkpos = NULL;
	amroutine->amrestrpos = NULL;
	amroutine->amestimateparallelscan = NULL;
	amroutine->aminitparallelscan = NULL;
	amroutine->amparallelrescan = NULL;
#if PG_VERSION_NUM >= 180000
	/* strategies are scbf's own, with no CompareType mapping */
	amroutine->amtranslatestrategy = NULL;
	amroutine->amtranslatecmptype = NULL;
#endif

	PG_RETURN_POINTER(amroutine);
}

/*
 * Parse and validate the WITH (...) options of an scbf index.  Unknown
 * options and out-of-range values are rejected by build_reloptions with
 * ERRCODE_INVALID_PARAMETER_VALUE.  Not called when the index has no
 * options: readers then see rd_options == NULL and use the defaults.
 */
bytea *
scbfoptions(Datum reloptions, bool validate)
{
	static const relopt_parse_elt tab[] = {
		{"pages_per_segment", RELOPT_TYPE_INT,
		offsetof(ScbfOptions, pages_per_segment)},
		{"false_positive_rate", RELOPT_TYPE_REAL,
		offsetof(ScbfOptions, false_positive_rate)},
		{"hash_bits", RELOPT_TYPE_INT,
		offsetof(ScbfOptions, hash_bits)},
	};
	ScbfOptions *opts;

	opts = (ScbfOptions *) build_reloptions(reloptions, validate,
											scbf_relopt_kind,
											sizeof(ScbfOptions), tab,
											lengthof(tab));
	return (bytea *) opts;
}

/*
 * Name of a build phase, shown in pg_stat_progress_create_index.phase as
 * "building index: <name>".
 */
char *
scbfbuildphasename(int64 phasenum)
{
	switch (phasenum)
	{
		case PROGRESS_CREATEIDX_SUBPHASE_INITIALIZE:
			return "initializing";
		case PROGRESS_SCBF_PHASE_SCAN:
			return "scanning table and writing segments";
		case PROGRESS_SCBF_PHASE_LOG:
			return "writing WAL";
		default:
			return NULL;
	}
}
