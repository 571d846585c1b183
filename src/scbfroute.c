/*-------------------------------------------------------------------------
 *
 * scbfroute.c
 *	  Routing a plain query on a Citus distributed table by the shards'
 *	  scbf filters: the coordinator's side, a step of the ExecutorStart hook
 *	  that asks each worker node once which of its shards may hold the
 *	  values of an equality condition and drops the other shards' tasks from
 *	  Citus's plan, and the worker's side, scbf_route_shards().
 *
 * NOTES
 *	  Citus plans a query on a distributed table as a CustomScan ("Citus
 *	  Adaptive") whose custom_private holds a DistributedPlan node: its
 *	  worker Job has the job's query and a list of tasks, one per shard (or
 *	  shard group) to read.  Citus offers no interface to restrict that list:
 *	  its shard pruning takes only conditions on the distribution column,
 *	  and its plan nodes can be written (nodeToString) but not read back.  So
 *	  at ExecutorStart, for each execution, scbf copies the plan, asks the
 *	  workers, and gives the copy's Job the tasks that may find rows; the
 *	  executor (Citus's) runs that copy.  The cached plan is never changed,
 *	  so a prepared statement asks again at each execution.
 *
 *	  scbf includes no Citus header.  It needs five fields of Citus's plan
 *	  nodes: DistributedPlan.workerJob, Job.jobQuery, Job.taskList,
 *	  Task.relationShardList and Task.taskPlacementList.  Their positions
 *	  are found once per backend from Citus's own node output: in a shallow
 *	  copy of the node, the field whose word, set to NULL, makes the output
 *	  say ":taskList <>" (say) is that field (RouteFieldOffset).  Every use
 *	  checks what it finds there (an extensible node of the expected name, a
 *	  Query, a List of them); anything unexpected makes routing step aside,
 *	  never answer differently.  A task's shards and node are read from the
 *	  output of its RelationShards (":relationId N :shardId M") and first
 *	  placement (":nodeName", ":nodePort").
 *
 *	  The question.  For one condition of the job query's WHERE (a conjunct
 *	  col = v, col IN (...) or col = ANY (...) on a column of an scbf index
 *	  of the table, values that are constants or parameters), scbf sends
 *	  each worker node that holds tasks' shards one command,
 *	  scbf_route_shards(shards, column, type, values, strict), over a
 *	  connection of its own kept per node, role and database, and waits
 *	  for all of them at most scbf.route_timeout.  On the worker, each shard
 *	  answers from its scbf index alone (a bitmap scan of the index: a
 *	  "maybe" is an index entry whose hash matches); a committed row always
 *	  has its entry (src/README, I3), so a shard ruled out holds no row the
 *	  task could see.  A node that fails, or does not answer in time, keeps
 *	  all its tasks: the plain fan-out.
 *
 *	  Never a wait, never a missed uncommitted row.  The worker takes every
 *	  lock conditionally: a shard or index it cannot lock at once (DDL of
 *	  the caller's transaction on another connection, a LOCK TABLE) may hold
 *	  the value.  The coordinator tracks whether the transaction wrote or
 *	  ran a utility command (RouteNoteStatement, RouteProcessUtility); if
 *	  so it asks in strict mode, in which a shard that any transaction holds
 *	  a write lock on (RowExclusiveLock or stronger) may hold the value:
 *	  uncommitted rows of the caller's transaction are on Citus's
 *	  connections, which the question does not use.
 *
 * Portions Copyright (c) 2026, scbf developers
 *
 * IDENTIFICATION
 *	  src/scbfroute.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/relscan.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_am.h"
#include "catalog/pg_index.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "commands/dbcommands.h"
#include "executor/executor.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "libpq-fe.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "nodes/extensible.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/params.h"
#include "nodes/plannodes.h"
#include "nodes/tidbitmap.h"
#include "optimizer/optimizer.h"
#include "parser/parse_func.h"
#include "parser/parsetree.h"
#include "pgstat.h"
#include "storage/latch.h"
#include "storage/lmgr.h"
#include "storage/lock.h"
#include "tcop/utility.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "utils/regproc.h"
#include "utils/varlena.h"
#include "utils/wait_event.h"

#include "scbf.h"

/* settings */
bool		scbf_route = true;
int			scbf_route_timeout = 1000;

/* the equality strategy of scbf's operator classes */
#define ROUTE_EQ_STRATEGY	1

/*
 * One condition the shards are asked about: a column of the table relid,
 * and the values (text output of type valtype) one of which a row must have
 * in it.
 */
typedef struct RouteCond
{
	Oid			relid;
	Index		varno;
	char	   *column;
	Oid			valtype;
	List	   *values;			/* of char *, the type's output */
} RouteCond;

/* What a task reads, from its node output */
typedef struct RouteTask
{
	List	   *relids;			/* its RelationShards: tables (Oid) */
	List	   *shardids;		/* ... and shards (uint64 *) */
	uint64		shardid;		/* its shard of the routed table, or 0 */
	int			nshards;		/* RelationShards of the routed table */
	int			nplacements;
	bool		dependent;		/* depends on other tasks */
	char	   *host;			/* its first placement's node */
	int			port;
	bool		keep;
} RouteTask;

/* A worker node asked: its shards (names) and the tasks they belong to */
typedef struct RouteNode
{
	char	   *host;
	int			port;
	List	   *names;			/* of char *, qualified shard names */
	List	   *tasks;			/* of int, index into the task array */
	PGconn	   *conn;
	bool		sent;
	bool		done;
	bool		failed;
} RouteNode;

/* A kept connection to a worker node, for one role and database */
typedef struct RouteConn
{
	char	   *host;
	int			port;
	Oid			userid;
	Oid			dbid;
	PGconn	   *conn;
} RouteConn;

static List *route_conns = NIL;		/* of RouteConn *, in TopMemoryContext */

/*
 * Offsets of Citus's fields (RouteFieldOffset), -1 while unknown: found on
 * a node whose field is set (a plan's task list is empty when Citus prunes
 * at execution), then kept for the backend.
 */
static int	off_worker_job = -1;
static int	off_job_query = -1;
static int	off_task_list = -1;
static int	off_task_shards = -1;	/* Task.relationShardList */
static int	off_task_placements = -1;	/* Task.taskPlacementList */

/* whether this transaction wrote or ran utility commands */
static bool route_xact_wrote = false;

static ProcessUtility_hook_type prev_ProcessUtility = NULL;

/*
 * Transaction callback: a new transaction starts with nothing written.
 */
static void
RouteXactCallback(XactEvent event, void *arg)
{
	switch (event)
	{
		case XACT_EVENT_COMMIT:
		case XACT_EVENT_ABORT:
		case XACT_EVENT_PREPARE:
		case XACT_EVENT_PARALLEL_COMMIT:
		case XACT_EVENT_PARALLEL_ABORT:
			route_xact_wrote = false;
			break;
		default:
			break;
	}
}

/*
 * ProcessUtility hook: any utility command but the few that neither write
 * nor lock marks the transaction as written (strict questions from then on).
 */
static void
RouteProcessUtility(PlannedStmt *pstmt, const char *queryString,
					bool readOnlyTree, ProcessUtilityContext context,
					ParamListInfo params, QueryEnvironment *queryEnv,
					DestReceiver *dest, QueryCompletion *qc)
{
	Node	   *stmt = pstmt->utilityStmt;

	switch (nodeTag(stmt))
	{
		case T_VariableSetStmt:
		case T_VariableShowStmt:
		case T_ExplainStmt:
		case T_TransactionStmt:
		case T_PrepareStmt:
		case T_ExecuteStmt:
		case T_DeallocateStmt:
		case T_DeclareCursorStmt:
		case T_FetchStmt:
		case T_ClosePortalStmt:
		case T_CallStmt:
		case T_DoStmt:
			break;
		default:
			route_xact_wrote = true;
			break;
	}
	if (prev_ProcessUtility)
		prev_ProcessUtility(pstmt, queryString, readOnlyTree, context,
							params, queryEnv, dest, qc);
	else
		standard_ProcessUtility(pstmt, queryString, readOnlyTree, context,
								params, queryEnv, dest, qc);
}

/*
 * Register the settings, the transaction callback and the utility hook
 * (from _PG_init, before MarkGUCPrefixReserved).  A library loaded inside
 * a transaction block did not see its earlier statements: that transaction
 * counts as written.
 */
void
ScbfRouteInit(void)
{
	DefineCustomBoolVariable("scbf.route",
							 "Runs a query on a Citus distributed table only on the "
							 "shards whose scbf filters may hold its values.",
							 "Applies to equality conditions on a column of an scbf "
							 "index that is not the distribution column.",
							 &scbf_route,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);
	DefineCustomIntVariable("scbf.route_timeout",
							"How long routing waits for the worker nodes' answers "
							"before it runs the query on every shard.",
							NULL,
							&scbf_route_timeout,
							1000, 1, 600000,
							PGC_USERSET,
							GUC_UNIT_MS,
							NULL, NULL, NULL);

	RegisterXactCallback(RouteXactCallback, NULL);
	prev_ProcessUtility = ProcessUtility_hook;
	ProcessUtility_hook = RouteProcessUtility;
	if (IsTransactionState() && IsTransactionBlock())
		route_xact_wrote = true;
}

/*
 * Note a statement about to run (every ExecutorStart, nested ones too): a
 * write or a row lock marks the transaction as written.
 */
static void
RouteNoteStatement(PlannedStmt *stmt)
{
	if (stmt->commandType != CMD_SELECT || stmt->hasModifyingCTE ||
		stmt->rowMarks != NIL)
		route_xact_wrote = true;
}

/*
 * Whether node is an extensible node named name (Citus's plan nodes are).
 */
static bool
IsExtensible(Node *node, const char *name)
{
	return node != NULL && IsA(node, ExtensibleNode) &&
		strcmp(((ExtensibleNode *) node)->extnodename, name) == 0;
}

/*
 * The byte offset in the extensible node of its pointer field named field,
 * found from the node's output: in a shallow copy, each pointer-aligned word
 * in turn is set to NULL, until the output writes the field as NULL.  -1 if
 * none does.  Writing a node reads it only, and a NULL pointer or a zero
 * number is something every field may hold, so no word set so can make the
 * output read memory it should not.
 */
static int
RouteFieldOffset(Node *node, const char *field)
{
	const ExtensibleNodeMethods *methods;
	char	   *pattern = psprintf(" :%s <>", field);
	char	   *copy;
	int			off;
	int			found = -1;

	methods = GetExtensibleNodeMethods(((ExtensibleNode *) node)->extnodename,
									   true);
	if (methods == NULL || strstr(nodeToString(node), pattern) != NULL)
		return -1;
	copy = palloc(methods->node_size);
	for (off = MAXALIGN(sizeof(ExtensibleNode));
		 off + sizeof(void *) <= methods->node_size && found < 0;
		 off += sizeof(void *))
	{
		char	   *out;

		memcpy(copy, node, methods->node_size);
		if (*(void **) (copy + off) == NULL)
			continue;
		*(void **) (copy + off) = NULL;
		out = nodeToString(copy);
		if (strstr(out, pattern) != NULL)
			found = off;
		pfree(out);
	}
	pfree(copy);
	return found;
}

/*
 * The pointer field of node at off, or NULL if off is unknown.
 */
static inline Node *
FieldAt(Node *node, int off)
{
	return off >= 0 ? *(Node **) ((char *) node + off) : NULL;
}

/*
 * The worker Job of a DistributedPlan, its query and its task list, checked;
 * false if any is not what it should be.  Finds the offsets on first use
 * (again on later uses while a field is not set).
 */
static bool
RouteJob(Node *dplan, Node **job, Query **query, List **tasks)
{
	ListCell   *lc;

	if (off_worker_job < 0)
		off_worker_job = RouteFieldOffset(dplan, "workerJob");
	*job = FieldAt(dplan, off_worker_job);
	if (!IsExtensible(*job, "Job"))
		return false;
	if (off_job_query < 0)
		off_job_query = RouteFieldOffset(*job, "jobQuery");
	if (off_task_list < 0)
		off_task_list = RouteFieldOffset(*job, "taskList");
	*query = (Query *) FieldAt(*job, off_job_query);
	*tasks = (List *) FieldAt(*job, off_task_list);
	if (*query == NULL || !IsA(*query, Query) ||
		*tasks == NIL || !IsA(*tasks, List))
		return false;
	foreach(lc, *tasks)
		if (!IsExtensible(lfirst(lc), "Task"))
			return false;
	return true;
}

/* A token of a node's output: where it starts in the output, its length */
typedef struct RouteToken
{
	const char *start;
	int			len;
} RouteToken;

/*
 * The next token of a node's output at *p (advanced past it); false at the
 * end.  As PostgreSQL's pg_strtok: parentheses and braces are tokens of
 * their own, else a token ends at unescaped white space or one of those; a
 * backslash escapes the character after it.  Nothing is allocated (the
 * output of a plan's tasks has many thousands of tokens).
 */
static bool
NextToken(const char **p, RouteToken *tok)
{
	const char *s = *p;

	while (*s == ' ' || *s == '\n' || *s == '\t' || *s == '\r')
		s++;
	if (*s == '\0')
		return false;
	tok->start = s;
	if (*s == '(' || *s == ')' || *s == '{' || *s == '}')
		s++;
	else
	{
		while (*s && *s != ' ' && *s != '\n' && *s != '\t' && *s != '\r' &&
			   *s != '(' && *s != ')' && *s != '{' && *s != '}')
		{
			if (*s == '\\' && s[1] != '\0')
				s++;
			s++;
		}
	}
	tok->len = s - tok->start;
	*p = s;
	return true;
}

/*
 * Whether tok is the string str (as written: field names and "<>").
 */
static inline bool
TokenIs(const RouteToken *tok, const char *str)
{
	return tok->start != NULL && (int) strlen(str) == tok->len &&
		memcmp(tok->start, str, tok->len) == 0;
}

/*
 * The value of tok with its backslash escapes removed, palloc'd.
 */
static char *
TokenValue(const RouteToken *tok)
{
	char	   *v = palloc(tok->len + 1);
	int			n = 0;

	for (int i = 0; i < tok->len; i++)
	{
		if (tok->start[i] == '\\' && i + 1 < tok->len)
			i++;
		v[n++] = tok->start[i];
	}
	v[n] = '\0';
	return v;
}

/*
 * Add what the output of node (a Task, or a RelationShard or ShardPlacement
 * of one) says to rt: RelationShards (tables and shards), placements (the
 * first one's node) and dependencies.
 */
static void
RouteReadOutput(Node *node, RouteTask *rt)
{
	char	   *out = nodeToString(node);
	const char *p = out;
	RouteToken	w[4] = {{NULL, 0}, {NULL, 0}, {NULL, 0}, {NULL, 0}};

	/* a window of the last four tokens, w[3] the newest: ":a x :b y" */
	while (NextToken(&p, &w[3]))
	{
		if (TokenIs(&w[0], ":relationId") && TokenIs(&w[2], ":shardId"))
		{
			uint64	   *shardid = palloc(sizeof(uint64));
			char	   *v = TokenValue(&w[3]);
			char	   *r = TokenValue(&w[1]);

			*shardid = strtou64(v, NULL, 10);
			rt->relids = lappend_oid(rt->relids, (Oid) strtoul(r, NULL, 10));
			rt->shardids = lappend(rt->shardids, shardid);
		}
		else if (TokenIs(&w[0], ":nodeName") && TokenIs(&w[2], ":nodePort"))
		{
			if (rt->nplacements++ == 0)
			{
				char	   *v = TokenValue(&w[3]);

				rt->host = TokenValue(&w[1]);
				rt->port = atoi(v);
			}
		}
		else if (TokenIs(&w[2], ":dependentTaskList") && !TokenIs(&w[3], "<>"))
			rt->dependent = true;
		w[0] = w[1];
		w[1] = w[2];
		w[2] = w[3];
	}
	pfree(out);
}

/*
 * Read a task: from its whole output if whole, else from the outputs of
 * its RelationShards and first placement alone, found at the offsets of
 * its relationShardList and taskPlacementList (the whole output holds the
 * task's query too: at 32 tasks, reading it is most of routing's own work
 * on the coordinator).  A task read so has no dependencies: RouteScan
 * reads the first task whole, and the job's dependent jobs.
 */
static void
RouteReadTask(Node *task, RouteTask *rt, bool whole)
{
	memset(rt, 0, sizeof(*rt));
	rt->keep = true;
	if (!whole && off_task_shards >= 0 && off_task_placements >= 0)
	{
		List	   *shards = (List *) FieldAt(task, off_task_shards);
		List	   *placements = (List *) FieldAt(task, off_task_placements);
		ListCell   *lc;
		bool		ok = (shards == NIL || IsA(shards, List)) &&
			(placements == NIL || IsA(placements, List));

		if (ok)
			foreach(lc, shards)
				ok = ok && IsExtensible(lfirst(lc), "RelationShard");
		if (ok && placements != NIL)
			ok = IsExtensible(linitial(placements), "ShardPlacement");
		if (ok)
		{
			foreach(lc, shards)
				RouteReadOutput(lfirst(lc), rt);
			if (placements != NIL)
				RouteReadOutput(linitial(placements), rt);
			rt->nplacements = list_length(placements);
			return;
		}
		memset(rt, 0, sizeof(*rt));
		rt->keep = true;
	}
	RouteReadOutput(task, rt);
}

/*
 * Whether two reads of a task agree (RouteReadTask whole and not).
 */
static bool
RouteSameTask(RouteTask *a, RouteTask *b)
{
	ListCell   *la;
	ListCell   *lb;

	if (list_length(a->shardids) != list_length(b->shardids) ||
		!equal(a->relids, b->relids) || a->nplacements != b->nplacements ||
		a->port != b->port || (a->host == NULL) != (b->host == NULL) ||
		(a->host != NULL && strcmp(a->host, b->host) != 0))
		return false;
	forboth(la, a->shardids, lb, b->shardids)
		if (*(uint64 *) lfirst(la) != *(uint64 *) lfirst(lb))
			return false;
	return true;
}

/*
 * Whether the job has dependent jobs (a repartition join's map jobs): from
 * the output of a shallow copy of it without its tasks.
 */
static bool
RouteJobDepends(Node *job)
{
	const ExtensibleNodeMethods *methods;
	char	   *copy;
	char	   *out;
	bool		depends;

	methods = GetExtensibleNodeMethods(((ExtensibleNode *) job)->extnodename,
									   true);
	if (methods == NULL || off_task_list < 0)
		return true;
	copy = palloc(methods->node_size);
	memcpy(copy, job, methods->node_size);
	*(List **) (copy + off_task_list) = NIL;
	out = nodeToString(copy);
	depends = strstr(out, " :dependentJobList <>") == NULL;
	pfree(out);
	pfree(copy);
	return depends;
}

/*
 * Set the task's shard of the table relid (rt->shardid, rt->nshards).
 */
static void
RouteTaskShard(RouteTask *rt, Oid relid)
{
	ListCell   *lr;
	ListCell   *ls;

	rt->nshards = 0;
	forboth(lr, rt->relids, ls, rt->shardids)
	{
		if (lfirst_oid(lr) == relid)
		{
			rt->shardid = *(uint64 *) lfirst(ls);
			rt->nshards++;
		}
	}
}

/*
 * The value of an expression that is a constant or an external parameter,
 * or false if it is neither or is NULL.
 */
static bool
RouteValue(Node *expr, ParamListInfo params, Oid *type, Datum *value)
{
	if (IsA(expr, Const))
	{
		Const	   *c = (Const *) expr;

		if (c->constisnull)
			return false;
		*type = c->consttype;
		*value = c->constvalue;
		return true;
	}
	if (IsA(expr, Param) && ((Param *) expr)->paramkind == PARAM_EXTERN &&
		params != NULL)
	{
		Param	   *param = (Param *) expr;
		ParamExternData *prm;
		ParamExternData workspace;

		if (param->paramid <= 0 || param->paramid > params->numParams)
			return false;
		if (params->paramFetch != NULL)
			prm = params->paramFetch(params, param->paramid, false, &workspace);
		else
			prm = &params->params[param->paramid - 1];
		if (prm == NULL || prm->isnull || !OidIsValid(prm->ptype) ||
			prm->ptype != param->paramtype)
			return false;
		*type = prm->ptype;
		*value = prm->value;
		return true;
	}
	return false;
}

/*
 * Whether the table relid (on this node) has a valid, complete scbf index
 * with attnum as a key column, whose operator family has opno as its
 * equality and whose collation for it is collid.  The table is locked
 * already (the query's); an index whose lock is not free at once is passed
 * over.
 */
static bool
RouteIndexFits(Oid relid, AttrNumber attnum, Oid opno, Oid collid)
{
	Oid			amoid = get_index_am_oid("scbf", true);
	Relation	rel;
	List	   *indexes;
	ListCell   *lc;
	bool		fits = false;

	if (!OidIsValid(amoid))
		return false;
	rel = table_open(relid, AccessShareLock);
	indexes = RelationGetIndexList(rel);
	foreach(lc, indexes)
	{
		Relation	index;
		Form_pg_index idx;

		/* an index locked by another session's DDL is not waited for */
		if (!ConditionalLockRelationOid(lfirst_oid(lc), AccessShareLock))
			continue;
		index = index_open(lfirst_oid(lc), NoLock);
		idx = index->rd_index;
		if (index->rd_rel->relam == amoid && idx->indisvalid &&
			idx->indisready && idx->indislive &&
			RelationGetIndexPredicate(index) == NIL)
		{
			for (int i = 0; i < idx->indnkeyatts; i++)
			{
				if (idx->indkey.values[i] == attnum &&
					index->rd_indcollation[i] == collid &&
					get_op_opfamily_strategy(opno, index->rd_opfamily[i]) ==
					ROUTE_EQ_STRATEGY)
					fits = true;
			}
		}
		index_close(index, NoLock);
		if (fits)
			break;
	}
	table_close(rel, AccessShareLock);
	return fits;
}

/*
 * Whether the columns of the table relid, dropped ones included (as empty
 * names, as a range table entry lists them), are colnames, in order.
 */
static bool
RouteSameColumns(Oid relid, List *colnames)
{
	HeapTuple	tup;
	int			natts;
	ListCell   *lc;
	AttrNumber	attnum = 0;
	bool		same = true;

	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	if (!HeapTupleIsValid(tup))
		return false;
	natts = ((Form_pg_class) GETSTRUCT(tup))->relnatts;
	ReleaseSysCache(tup);
	if (natts != list_length(colnames))
		return false;
	foreach(lc, colnames)
	{
		const char *want = strVal(lfirst(lc));
		Form_pg_attribute att;

		tup = SearchSysCache2(ATTNUM, ObjectIdGetDatum(relid),
							  Int16GetDatum(++attnum));
		if (!HeapTupleIsValid(tup))
			return false;
		att = (Form_pg_attribute) GETSTRUCT(tup);
		if (want[0] == '\0')
			same = att->attisdropped;
		else
			same = !att->attisdropped && strcmp(NameStr(att->attname), want) == 0;
		ReleaseSysCache(tup);
		if (!same)
			return false;
	}
	return true;
}

/*
 * The table an entry of the job query's range table reads: a plain table,
 * or the function entry Citus puts in its place, a call of
 * citus_extradata_container() whose first argument says it stands for a
 * table (its extra data names the original query's entry, not the table):
 * the one table among relids (the tables the tasks read) whose columns the
 * entry lists.  Not the other function entries Citus makes, such as the
 * intermediate results of CTEs and subqueries, whose columns may be a
 * table's.  InvalidOid if none or several.
 */
static Oid
RouteRteRelation(RangeTblEntry *rte, List *relids)
{
	RangeTblFunction *rtfunc;
	FuncExpr   *call;
	char	   *fname;
	Node	   *kind;
	Oid			found = InvalidOid;
	ListCell   *lc;

	if (rte->rtekind == RTE_RELATION)
		return list_member_oid(relids, rte->relid) ? rte->relid : InvalidOid;
	if (rte->rtekind != RTE_FUNCTION || rte->eref == NULL ||
		list_length(rte->functions) != 1 || rte->funcordinality)
		return InvalidOid;
	rtfunc = linitial(rte->functions);
	if (!IsA(rtfunc->funcexpr, FuncExpr))
		return InvalidOid;
	call = (FuncExpr *) rtfunc->funcexpr;
	fname = get_func_name(call->funcid);
	if (fname == NULL || strcmp(fname, "citus_extradata_container") != 0 ||
		get_func_namespace(call->funcid) != PG_CATALOG_NAMESPACE ||
		list_length(call->args) < 1)
		return InvalidOid;
	kind = linitial(call->args);
	if (!IsA(kind, Const) || ((Const *) kind)->constisnull ||
		((Const *) kind)->consttype != INT4OID ||
		DatumGetInt32(((Const *) kind)->constvalue) != (int32) RTE_RELATION)
		return InvalidOid;
	foreach(lc, relids)
	{
		Oid			relid = lfirst_oid(lc);

		if (relid == found || !RouteSameColumns(relid, rte->eref->colnames))
			continue;
		if (OidIsValid(found))
			return InvalidOid;
		found = relid;
	}
	return found;
}

/*
 * Whether the conjunct clause of the job query is a condition to route by,
 * on one of the tables relids, and if so the condition in *cond.
 */
static bool
RouteClause(Query *query, Node *clause, ParamListInfo params, List *relids,
			RouteCond *cond)
{
	Oid			relid;
	Node	   *left;
	Node	   *right;
	Oid			opno;
	Oid			collid;
	Var		   *var;
	Node	   *other;
	RangeTblEntry *rte;
	Oid			type;
	Datum		value;
	Oid			typoutput;
	bool		isvarlena;

	if (IsA(clause, OpExpr) && list_length(((OpExpr *) clause)->args) == 2)
	{
		OpExpr	   *op = (OpExpr *) clause;

		left = linitial(op->args);
		right = lsecond(op->args);
		opno = op->opno;
		collid = op->inputcollid;
	}
	else if (IsA(clause, ScalarArrayOpExpr) &&
			 ((ScalarArrayOpExpr *) clause)->useOr)
	{
		ScalarArrayOpExpr *op = (ScalarArrayOpExpr *) clause;

		left = linitial(op->args);
		right = lsecond(op->args);
		opno = op->opno;
		collid = op->inputcollid;
	}
	else
		return false;

	while (IsA(left, RelabelType))
		left = (Node *) ((RelabelType *) left)->arg;
	while (IsA(right, RelabelType))
		right = (Node *) ((RelabelType *) right)->arg;
	if (IsA(left, Var))
	{
		var = (Var *) left;
		other = right;
	}
	else if (IsA(right, Var) && IsA(clause, OpExpr))
	{
		var = (Var *) right;
		other = left;
	}
	else
		return false;
	if (var->varlevelsup != 0 || var->varattno <= 0 ||
		var->varno < 1 || var->varno > list_length(query->rtable))
		return false;
	rte = rt_fetch(var->varno, query->rtable);
	relid = RouteRteRelation(rte, relids);
	if (!OidIsValid(relid) || get_rel_relkind(relid) != RELKIND_RELATION)
		return false;
	if (!RouteValue(other, params, &type, &value))
		return false;
	if (!RouteIndexFits(relid, var->varattno, opno, collid))
		return false;

	cond->relid = relid;
	cond->varno = var->varno;
	cond->column = get_attname(relid, var->varattno, false);
	cond->values = NIL;
	if (IsA(clause, OpExpr))
	{
		cond->valtype = type;
		getTypeOutputInfo(type, &typoutput, &isvarlena);
		cond->values = list_make1(OidOutputFunctionCall(typoutput, value));
	}
	else
	{
		ArrayType  *arr = DatumGetArrayTypeP(value);
		int16		typlen;
		bool		typbyval;
		char		typalign;
		Datum	   *elems;
		bool	   *nulls;
		int			n;

		cond->valtype = ARR_ELEMTYPE(arr);
		get_typlenbyvalalign(cond->valtype, &typlen, &typbyval, &typalign);
		deconstruct_array(arr, cond->valtype, typlen, typbyval, typalign,
						  &elems, &nulls, &n);
		getTypeOutputInfo(cond->valtype, &typoutput, &isvarlena);
		for (int i = 0; i < n; i++)
			if (!nulls[i])
				cond->values = lappend(cond->values,
									   OidOutputFunctionCall(typoutput, elems[i]));
	}
	return true;
}

/*
 * The condition of the job query to route by, on one of the tables relids
 * (those its tasks read): the conjunct of its WHERE with the fewest values
 * among those RouteClause takes.  A conjunct of the top-level WHERE holds
 * for every row the query returns (an equality is strict, so also on the
 * nullable side of an outer join), so a shard without the values adds no
 * row.  False if there is none.
 */
static bool
RouteFindCond(Query *query, ParamListInfo params, List *relids,
			  RouteCond *cond)
{
	List	   *conjuncts;
	ListCell   *lc;
	bool		found = false;

	if (query->commandType != CMD_SELECT || query->setOperations != NULL ||
		query->jointree == NULL || query->jointree->quals == NULL)
		return false;
	conjuncts = make_ands_implicit((Expr *) query->jointree->quals);
	foreach(lc, conjuncts)
	{
		RouteCond	c;

		if (!RouteClause(query, lfirst(lc), params, relids, &c))
			continue;
		if (!found || list_length(c.values) < list_length(cond->values))
			*cond = c;
		found = true;
	}
	return found;
}

/*
 * The number of shards of the distributed table relid, from Citus's
 * catalog, or -1 if it cannot be read.
 */
static int
RouteShardCount(Oid relid)
{
	static SPIPlanPtr plan = NULL;
	Datum		arg = ObjectIdGetDatum(relid);
	int			count = -1;

	if (SPI_connect() != SPI_OK_CONNECT)
		return -1;
	if (plan == NULL)
	{
		Oid			argtype = OIDOID;
		SPIPlanPtr	p;

		p = SPI_prepare("SELECT count(*)::int4 FROM pg_catalog.pg_dist_shard "
						"WHERE logicalrelid = $1::pg_catalog.regclass",
						1, &argtype);
		if (p != NULL && SPI_keepplan(p) == 0)
			plan = p;
	}
	if (plan != NULL &&
		SPI_execute_plan(plan, &arg, NULL, true, 1) == SPI_OK_SELECT &&
		SPI_processed == 1)
	{
		bool		isnull;
		Datum		d = SPI_getbinval(SPI_tuptable->vals[0],
									  SPI_tuptable->tupdesc, 1, &isnull);

		if (!isnull)
			count = DatumGetInt32(d);
	}
	SPI_finish();
	return count;
}

/*
 * The qualified name of shard shardid of relid on the workers, from Citus's
 * shard_name() (qualified here when it leaves the schema out).
 */
static char *
RouteShardName(Oid relid, uint64 shardid)
{
	static Oid	fn = InvalidOid;
	static int	nargs = 0;
	char	   *name;
	Datum		d;

	if (!OidIsValid(fn))
	{
		Oid			argtypes[3] = {REGCLASSOID, INT8OID, BOOLOID};
		List	   *fname = list_make2(makeString("pg_catalog"),
									   makeString("shard_name"));

		/* skip_qualify_public, since Citus 12 */
		fn = LookupFuncName(fname, 3, argtypes, true);
		nargs = 3;
		if (!OidIsValid(fn))
		{
			fn = LookupFuncName(fname, 2, argtypes, false);
			nargs = 2;
		}
	}
	if (nargs == 3)
		d = OidFunctionCall3(fn, ObjectIdGetDatum(relid),
							 Int64GetDatum((int64) shardid),
							 BoolGetDatum(false));
	else
		d = OidFunctionCall2(fn, ObjectIdGetDatum(relid),
							 Int64GetDatum((int64) shardid));
	name = text_to_cstring(DatumGetTextPP(d));
	if (list_length(ScbfQualifiedNameList(name)) == 1)
		name = psprintf("%s.%s",
						quote_identifier(get_namespace_name(get_rel_namespace(relid))),
						name);
	return name;
}

/*
 * Milliseconds left until deadline (a GetCurrentTimestamp() time), at
 * least 0.
 */
static long
RouteMsLeft(TimestampTz deadline)
{
	long		ms = TimestampDifferenceMilliseconds(GetCurrentTimestamp(),
													 deadline);

	return ms > 0 ? ms : 0;
}

/*
 * Wait until the socket of conn is readable (or writable) or the deadline
 * passes; false at the deadline.  Interrupts are served.
 */
static bool
RouteWait(PGconn *conn, bool write, TimestampTz deadline)
{
	for (;;)
	{
		long		left = RouteMsLeft(deadline);
		int			rc;

		if (left <= 0)
			return false;
		rc = WaitLatchOrSocket(MyLatch,
							   WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH |
							   (write ? WL_SOCKET_WRITEABLE : WL_SOCKET_READABLE),
							   PQsocket(conn), left, PG_WAIT_EXTENSION);
		if (rc & WL_LATCH_SET)
		{
			ResetLatch(MyLatch);
			CHECK_FOR_INTERRUPTS();
		}
		if (rc & (WL_SOCKET_READABLE | WL_SOCKET_WRITEABLE))
			return true;
	}
}

/*
 * The schema of scbf's functions: its access method handler's.  Citus
 * creates the extension in the same schema on every node.
 */
static char *
RouteSchema(void)
{
	HeapTuple	tup;
	Oid			handler;

	tup = SearchSysCache1(AMNAME, CStringGetDatum("scbf"));
	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for access method \"scbf\"");
	handler = ((Form_pg_am) GETSTRUCT(tup))->amhandler;
	ReleaseSysCache(tup);
	return get_namespace_name(get_func_namespace(handler));
}

/*
 * Prepare the routing question, as the statement "scbf_route", on the new
 * connection conn, waiting until the deadline at most; false if it could
 * not.  The workers then neither parse nor plan it again.
 */
static bool
RoutePrepare(PGconn *conn, TimestampTz deadline)
{
	char	   *sql;
	bool		ok = false;

	sql = psprintf("SELECT %s.scbf_route_shards($1::pg_catalog.text[], "
				   "$2::pg_catalog.name, $3::pg_catalog.regtype, "
				   "$4::pg_catalog.text[], $5::pg_catalog.bool)",
				   quote_identifier(RouteSchema()));
	if (!PQsendPrepare(conn, "scbf_route", sql, 5, NULL))
		return false;
	for (;;)
	{
		int			f = PQflush(conn);

		if (f == 0)
			break;
		if (f < 0 || !RouteWait(conn, true, deadline))
			return false;
	}
	for (;;)
	{
		PGresult   *res;

		if (!PQconsumeInput(conn))
			return false;
		if (PQisBusy(conn))
		{
			if (!RouteWait(conn, false, deadline))
				return false;
			continue;
		}
		res = PQgetResult(conn);
		if (res == NULL)
			break;
		ok = (PQresultStatus(res) == PGRES_COMMAND_OK);
		PQclear(res);
	}
	return ok;
}

/*
 * Forget the kept connection conn, closing it.
 */
static void
RouteDropConn(PGconn *conn)
{
	ListCell   *lc;

	foreach(lc, route_conns)
	{
		RouteConn  *rc = lfirst(lc);

		if (rc->conn == conn)
		{
			route_conns = foreach_delete_current(route_conns, lc);
			pfree(rc->host);
			pfree(rc);
			break;
		}
	}
	PQfinish(conn);
}

/*
 * A connection to host:port as the current role to the current database:
 * the kept one if it is idle, else a new one (kept, with the question
 * prepared: RoutePrepare), made before the deadline; NULL if none could
 * be.  The connection string adds Citus's citus.node_conninfo, as Citus's
 * own connections do.
 */
static PGconn *
RouteConnect(const char *host, int port, TimestampTz deadline)
{
	Oid			userid = GetUserId();
	ListCell   *lc;
	const char *keys[16];
	const char *vals[16];
	int			n = 0;
	char		portstr[16];
	const char *extra;
	PQconninfoOption *opts = NULL;
	PGconn	   *volatile conn;
	PostgresPollingStatusType st;
	RouteConn  *rc;

	foreach(lc, route_conns)
	{
		rc = lfirst(lc);
		if (rc->port == port && rc->userid == userid &&
			rc->dbid == MyDatabaseId && strcmp(rc->host, host) == 0)
		{
			if (PQstatus(rc->conn) == CONNECTION_OK &&
				PQtransactionStatus(rc->conn) == PQTRANS_IDLE)
				return rc->conn;
			RouteDropConn(rc->conn);
			break;
		}
	}

	snprintf(portstr, sizeof(portstr), "%d", port);
	keys[n] = "host";
	vals[n++] = host;
	keys[n] = "port";
	vals[n++] = portstr;
	keys[n] = "dbname";
	vals[n++] = get_database_name(MyDatabaseId);
	keys[n] = "user";
	vals[n++] = GetUserNameFromId(userid, false);
	keys[n] = "application_name";
	vals[n++] = "scbf_route";
	keys[n] = "client_encoding";
	vals[n++] = GetDatabaseEncodingName();
	extra = GetConfigOption("citus.node_conninfo", true, false);
	if (extra != NULL && extra[0] != '\0')
		opts = PQconninfoParse(extra, NULL);
	if (opts != NULL)
	{
		for (PQconninfoOption *o = opts; o->keyword != NULL && n < 15; o++)
			if (o->val != NULL && o->val[0] != '\0')
			{
				keys[n] = o->keyword;
				vals[n++] = o->val;
			}
	}
	keys[n] = NULL;
	vals[n] = NULL;

	conn = PQconnectStartParams(keys, vals, false);
	if (opts != NULL)
		PQconninfoFree(opts);
	if (conn == NULL)
		return NULL;
	/* an interrupt while connecting must not leak the connection */
	PG_TRY();
	{
		st = PGRES_POLLING_WRITING;
		while (PQstatus(conn) != CONNECTION_BAD &&
			   st != PGRES_POLLING_OK && st != PGRES_POLLING_FAILED)
		{
			if (!RouteWait(conn, st == PGRES_POLLING_WRITING, deadline))
				break;
			st = PQconnectPoll(conn);
		}
		if (st != PGRES_POLLING_OK || PQstatus(conn) != CONNECTION_OK)
		{
			ereport(DEBUG1,
					(errmsg("scbf routing could not connect to %s:%d",
							host, port),
					 errdetail("%s", PQerrorMessage(conn))));
			PQfinish(conn);
			conn = NULL;
		}
		else if (PQsetnonblocking(conn, 1) != 0 ||
				 !RoutePrepare(conn, deadline))
		{
			ereport(DEBUG1,
					(errmsg("scbf routing could not prepare its question on %s:%d",
							host, port),
					 errdetail("%s", PQerrorMessage(conn))));
			PQfinish(conn);
			conn = NULL;
		}
	}
	PG_CATCH();
	{
		PQfinish(conn);
		PG_RE_THROW();
	}
	PG_END_TRY();
	if (conn == NULL)
		return NULL;
	rc = MemoryContextAlloc(TopMemoryContext, sizeof(RouteConn));
	rc->host = MemoryContextStrdup(TopMemoryContext, host);
	rc->port = port;
	rc->userid = userid;
	rc->dbid = MyDatabaseId;
	rc->conn = conn;
	{
		MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);

		route_conns = lappend(route_conns, rc);
		MemoryContextSwitchTo(old);
	}
	return conn;
}

/*
 * Append the elements of list (of char *) to buf as a text[] literal.
 */
static void
RouteArrayLiteral(StringInfo buf, List *list)
{
	ListCell   *lc;

	appendStringInfoChar(buf, '{');
	foreach(lc, list)
	{
		const char *s = lfirst(lc);

		if (lc != list_head(list))
			appendStringInfoChar(buf, ',');
		appendStringInfoChar(buf, '"');
		for (; *s; s++)
		{
			if (*s == '"' || *s == '\\')
				appendStringInfoChar(buf, '\\');
			appendStringInfoChar(buf, *s);
		}
		appendStringInfoChar(buf, '"');
	}
	appendStringInfoChar(buf, '}');
}

/*
 * Read node's answer: a bool[] with one element per shard it was asked
 * about; the tasks of the shards ruled out are not kept.  False if the
 * answer is not one.
 */
static bool
RouteReadAnswer(RouteNode *node, PGresult *res, RouteTask *tasks)
{
	const char *s;
	int			i = 0;
	ListCell   *lc;
	bool	   *maybe;
	int			n = list_length(node->tasks);

	if (PQresultStatus(res) != PGRES_TUPLES_OK || PQntuples(res) != 1 ||
		PQnfields(res) != 1 || PQgetisnull(res, 0, 0))
		return false;
	maybe = palloc(sizeof(bool) * (n + 1));
	for (s = PQgetvalue(res, 0, 0); *s; s++)
	{
		if (*s == 't' || *s == 'f')
		{
			if (i >= n)
				return false;
			maybe[i++] = (*s == 't');
		}
		else if (*s != '{' && *s != '}' && *s != ',')
			return false;
	}
	if (i != n)
		return false;
	i = 0;
	foreach(lc, node->tasks)
		tasks[lfirst_int(lc)].keep = maybe[i++];
	return true;
}

/*
 * Ask the nodes, all at once, which of their shards may hold a value of
 * cond, waiting until the deadline; a node that fails or does not answer
 * keeps its tasks.  Connections in use when an error leaves are closed.
 */
static void
RouteAsk(List *nodes, RouteCond *cond, bool strict, RouteTask *tasks)
{
	TimestampTz deadline = TimestampTzPlusMilliseconds(GetCurrentTimestamp(),
													   scbf_route_timeout);
	ListCell   *lc;
	StringInfoData values;
	char	   *type = format_type_be_qualified(cond->valtype);

	initStringInfo(&values);
	RouteArrayLiteral(&values, cond->values);

	PG_TRY();
	{
		foreach(lc, nodes)
		{
			RouteNode  *node = lfirst(lc);
			StringInfoData names;
			const char *params[5];

			node->conn = RouteConnect(node->host, node->port, deadline);
			if (node->conn == NULL)
			{
				node->failed = true;
				continue;
			}
			initStringInfo(&names);
			RouteArrayLiteral(&names, node->names);
			params[0] = names.data;
			params[1] = cond->column;
			params[2] = type;
			params[3] = values.data;
			params[4] = strict ? "true" : "false";
			if (!PQsendQueryPrepared(node->conn, "scbf_route", 5, params,
									 NULL, NULL, 0))
			{
				node->failed = true;
				continue;
			}
			node->sent = true;
		}
		foreach(lc, nodes)
		{
			RouteNode  *node = lfirst(lc);
			bool		ok = false;

			if (!node->sent)
				continue;
			/* flush what is not sent yet, then read to the end */
			for (;;)
			{
				int			f = PQflush(node->conn);

				if (f == 0)
					break;
				if (f < 0 || !RouteWait(node->conn, true, deadline))
					goto failed;
			}
			for (;;)
			{
				PGresult   *res;

				if (!PQconsumeInput(node->conn))
					goto failed;
				if (PQisBusy(node->conn))
				{
					if (!RouteWait(node->conn, false, deadline))
						goto failed;
					continue;
				}
				res = PQgetResult(node->conn);
				if (res == NULL)
					break;
				if (!ok)
				{
					ok = RouteReadAnswer(node, res, tasks);
					if (!ok)
						ereport(DEBUG1,
								(errmsg("scbf routing got no answer from %s:%d",
										node->host, node->port),
								 errdetail("%s", PQresultErrorMessage(res))));
				}
				PQclear(res);
			}
			node->done = true;
			if (ok)
				continue;
	failed:
			if (!node->done)
			{
				ereport(DEBUG1,
						(errmsg("scbf routing got no answer from %s:%d in time",
								node->host, node->port)));
				RouteDropConn(node->conn);
				node->conn = NULL;
			}
			node->failed = true;
			{
				ListCell   *lt;

				foreach(lt, node->tasks)
					tasks[lfirst_int(lt)].keep = true;
			}
		}
	}
	PG_CATCH();
	{
		foreach(lc, nodes)
		{
			RouteNode  *node = lfirst(lc);

			if (node->sent && !node->done && node->conn != NULL)
				RouteDropConn(node->conn);
		}
		PG_RE_THROW();
	}
	PG_END_TRY();
}

/*
 * Collect the CustomScans of plan and below it, in plan order.
 */
static void
RouteCollectScans(Plan *plan, List **scans)
{
	ListCell   *lc;

	if (plan == NULL)
		return;
	check_stack_depth();
	if (IsA(plan, CustomScan))
		*scans = lappend(*scans, plan);
	foreach(lc, ScbfPlanChildren(plan))
		RouteCollectScans((Plan *) lfirst(lc), scans);
}

/*
 * All the CustomScans of stmt, in a fixed order.
 */
static List *
RouteStmtScans(PlannedStmt *stmt)
{
	List	   *scans = NIL;
	ListCell   *lc;

	RouteCollectScans(stmt->planTree, &scans);
	foreach(lc, stmt->subplans)
		RouteCollectScans((Plan *) lfirst(lc), &scans);
	return scans;
}

/*
 * Say at DEBUG2 why routing steps aside from a plan; returns NULL.
 */
static bool *
RouteAside(const char *why)
{
	ereport(DEBUG2, (errmsg("scbf routing steps aside: %s", why)));
	return NULL;
}

/*
 * Route one Citus scan: which of its tasks may find rows.  Returns NULL if
 * routing steps aside (not a Citus plan it can route, one task or a plan
 * Citus pruned, no condition to route by) or keeps every task; else a
 * palloc'd array, one flag per task, at least one set.
 */
static bool *
RouteScan(CustomScan *cs, ParamListInfo params)
{
	Node	   *dplan;
	Node	   *job;
	Query	   *query;
	List	   *tasks;
	RouteCond	cond;
	RouteTask  *rts;
	List	   *nodes = NIL;
	int			ntasks;
	int			nshards = 0;
	int			kept = 0;
	int			i;
	ListCell   *lc;
	bool	   *keep;
	bool		whole;

	if (cs->methods == NULL ||
		strcmp(cs->methods->CustomName, "Citus Adaptive") != 0 ||
		list_length(cs->custom_private) != 1)
		return NULL;
	dplan = linitial(cs->custom_private);
	if (!IsExtensible(dplan, "DistributedPlan") ||
		!RouteJob(dplan, &job, &query, &tasks))
		return RouteAside("the plan is not one routing knows");
	ntasks = list_length(tasks);
	if (ntasks <= 1)
		return RouteAside("the plan has one task");

	if (RouteJobDepends(job))
		return RouteAside("the job depends on other jobs");

	/*
	 * The first task whole; the others by their RelationShards and first
	 * placement, if the offsets are known and a read so of the first task
	 * agrees with the whole one.
	 */
	rts = palloc(sizeof(RouteTask) * ntasks);
	RouteReadTask(linitial(tasks), &rts[0], true);
	if (off_task_shards < 0)
		off_task_shards = RouteFieldOffset(linitial(tasks), "relationShardList");
	if (off_task_placements < 0)
		off_task_placements = RouteFieldOffset(linitial(tasks), "taskPlacementList");
	{
		RouteTask	check;

		RouteReadTask(linitial(tasks), &check, false);
		whole = !RouteSameTask(&rts[0], &check);
		if (whole)
			ereport(DEBUG2,
					(errmsg("scbf routing reads each task's whole output")));
	}
	i = 0;
	foreach(lc, tasks)
	{
		if (i > 0)
			RouteReadTask(lfirst(lc), &rts[i], whole);
		i++;
	}
	if (!RouteFindCond(query, params, rts[0].relids, &cond))
		return RouteAside("no condition to route by");
	for (i = 0; i < ntasks; i++)
	{
		RouteTask  *rt = &rts[i];

		RouteTaskShard(rt, cond.relid);
		if (rt->dependent || rt->nshards > 1 ||
			(rt->nshards == 1 && (rt->nplacements != 1 || rt->host == NULL)))
			return RouteAside("a task depends on others, reads several "
							  "shards of the table or has several placements");
		nshards += rt->nshards;
	}
	if (nshards != RouteShardCount(cond.relid))
		return RouteAside("Citus pruned shards by the distribution column");

	/* one question per node, about its shards */
	for (i = 0; i < ntasks; i++)
	{
		RouteNode  *node = NULL;
		ListCell   *ln;

		if (rts[i].nshards == 0)
			continue;
		foreach(ln, nodes)
		{
			RouteNode  *n = lfirst(ln);

			if (n->port == rts[i].port && strcmp(n->host, rts[i].host) == 0)
				node = n;
		}
		if (node == NULL)
		{
			node = palloc0(sizeof(RouteNode));
			node->host = rts[i].host;
			node->port = rts[i].port;
			nodes = lappend(nodes, node);
		}
		node->names = lappend(node->names,
							  RouteShardName(cond.relid, rts[i].shardid));
		node->tasks = lappend_int(node->tasks, i);
	}
	if (cond.values == NIL)
	{
		/* = ANY of an empty or all-NULL array: no shard holds a row */
		for (i = 0; i < ntasks; i++)
			if (rts[i].nshards == 1)
				rts[i].keep = false;
	}
	else
		RouteAsk(nodes, &cond, route_xact_wrote, rts);

	keep = palloc(sizeof(bool) * ntasks);
	for (i = 0; i < ntasks; i++)
	{
		keep[i] = rts[i].keep;
		kept += keep[i] ? 1 : 0;
	}
	ereport(DEBUG1,
			(errmsg("scbf routing by \"%s\" of \"%s\" keeps %d of %d tasks",
					cond.column, get_rel_name(cond.relid), Max(kept, 1), ntasks)));
	if (kept == ntasks)
		return NULL;
	/*
	 * No shard holds a value: one task still runs, for what it returns.
	 * Citus's executor does not take an empty task list everywhere (a
	 * HAVING without GROUP BY crashed it).
	 */
	if (kept == 0)
		keep[0] = true;
	return keep;
}

/*
 * The ExecutorStart step of routing (called by scbf's ExecutorStart hook
 * before the next hook, so before Citus's executor sees the plan): note
 * the statement, and if it is a SELECT with Citus scans that routing
 * restricts, replace queryDesc->plannedstmt by a copy whose scans have the
 * tasks routing keeps.  The original plan (a cached plan, maybe) is left
 * as it is.
 */
void
ScbfRouteExecutorStart(QueryDesc *queryDesc, int eflags)
{
	PlannedStmt *stmt = queryDesc->plannedstmt;
	MemoryContext cxt;
	MemoryContext old;
	List	   *scans;
	List	   *keeps = NIL;
	bool		any = false;
	ListCell   *lc;

	RouteNoteStatement(stmt);
	if (!scbf_route || stmt->commandType != CMD_SELECT ||
		stmt->hasModifyingCTE || stmt->rowMarks != NIL ||
		stmt->planTree == NULL)
		return;
	scans = RouteStmtScans(stmt);
	if (scans == NIL)
		return;

	cxt = AllocSetContextCreate(CurrentMemoryContext, "scbf routing",
								ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(cxt);
	foreach(lc, scans)
	{
		bool	   *keep = RouteScan(lfirst(lc), queryDesc->params);

		keeps = lappend(keeps, keep);
		any = any || keep != NULL;
	}
	MemoryContextSwitchTo(old);

	if (any)
	{
		PlannedStmt *copy = copyObject(stmt);
		List	   *copies = RouteStmtScans(copy);
		ListCell   *lk;

		forboth(lc, copies, lk, keeps)
		{
			CustomScan *cs = lfirst(lc);
			bool	   *keep = lfirst(lk);
			Node	   *job;
			Query	   *query;
			List	   *tasks;
			List	   *kept = NIL;
			ListCell   *lt;
			int			i = 0;

			if (keep == NULL ||
				!RouteJob(linitial(cs->custom_private), &job, &query, &tasks))
				continue;
			foreach(lt, tasks)
				if (keep[i++])
					kept = lappend(kept, lfirst(lt));
			*(List **) ((char *) job + off_task_list) = kept;
		}
		queryDesc->plannedstmt = copy;
	}
	MemoryContextDelete(cxt);
}

/*
 * Whether a transaction other than this one holds a lock on the relation
 * relid that writing it takes (RowExclusiveLock or stronger): its rows may
 * be in the table uncommitted.  Never waits.
 */
static bool
RouteWritersOn(Oid relid)
{
	LOCKTAG		tag;
	VirtualTransactionId *vxids;

	SET_LOCKTAG_RELATION(tag, MyDatabaseId, relid);
	vxids = GetLockConflicts(&tag, ShareLock, NULL);
	return VirtualTransactionIdIsValid(vxids[0]);
}

/*
 * Whether the shard named name (qualified) may hold a row whose column
 * equals one of the values in valarray (an array of valtype), from its
 * scbf index.  True whenever it cannot tell: no such table, no SELECT
 * privilege, a lock it cannot take at once, no valid, complete scbf index
 * with the column as a key column, and in strict mode a transaction that
 * holds a write lock on it.
 */
static bool
RouteShardMayHold(const char *name, const char *column, Oid valtype,
				  ArrayType *valarray, bool strict)
{
	Oid			amoid = get_index_am_oid("scbf", false);
	RangeVar   *rv = makeRangeVarFromNameList(ScbfQualifiedNameList(name));
	Oid			relid = RangeVarGetRelid(rv, NoLock, true);
	AttrNumber	attnum;
	Relation	rel;
	List	   *indexes;
	ListCell   *lc;
	bool		maybe = true;

	if (!OidIsValid(relid) || get_rel_relkind(relid) != RELKIND_RELATION ||
		pg_class_aclcheck(relid, GetUserId(), ACL_SELECT) != ACLCHECK_OK ||
		!ConditionalLockRelationOid(relid, AccessShareLock))
		return true;
	if (!SearchSysCacheExists1(RELOID, ObjectIdGetDatum(relid)) ||
		(strict && RouteWritersOn(relid)))
		return true;
	attnum = get_attnum(relid, column);
	if (attnum <= 0)
		return true;

	rel = table_open(relid, NoLock);
	indexes = RelationGetIndexList(rel);
	foreach(lc, indexes)
	{
		Oid			indexoid = lfirst_oid(lc);
		HeapTuple	tup;
		Form_pg_index idx;
		int			col = -1;
		Relation	index;
		Oid			opno;
		ScanKeyData sk;
		IndexScanDesc scan;
		TIDBitmap  *tbm;

		tup = SearchSysCache1(INDEXRELID, ObjectIdGetDatum(indexoid));
		if (!HeapTupleIsValid(tup))
			continue;
		idx = (Form_pg_index) GETSTRUCT(tup);
		if (idx->indisvalid && idx->indisready && idx->indislive &&
			heap_attisnull(tup, Anum_pg_index_indpred, NULL))
		{
			for (int i = 0; i < idx->indnkeyatts && col < 0; i++)
				if (idx->indkey.values[i] == attnum)
					col = i;
		}
		ReleaseSysCache(tup);
		if (col < 0)
			continue;
		tup = SearchSysCache1(RELOID, ObjectIdGetDatum(indexoid));
		if (!HeapTupleIsValid(tup))
			continue;
		if (((Form_pg_class) GETSTRUCT(tup))->relam != amoid)
		{
			ReleaseSysCache(tup);
			continue;
		}
		ReleaseSysCache(tup);
		if (!ConditionalLockRelationOid(indexoid, AccessShareLock))
			break;
		index = index_open(indexoid, NoLock);
		opno = get_opfamily_member(index->rd_opfamily[col],
								   index->rd_opcintype[col], valtype,
								   ROUTE_EQ_STRATEGY);
		if (!OidIsValid(opno))
		{
			index_close(index, NoLock);
			continue;
		}
		ScanKeyEntryInitialize(&sk, SK_SEARCHARRAY, col + 1,
							   ROUTE_EQ_STRATEGY, valtype,
							   index->rd_indcollation[col], get_opcode(opno),
							   PointerGetDatum(valarray));
#if PG_VERSION_NUM >= 180000
		scan = index_beginscan_bitmap(index, GetActiveSnapshot(), NULL, 1);
#else
		scan = index_beginscan_bitmap(index, GetActiveSnapshot(), 1);
#endif
		index_rescan(scan, &sk, 1, NULL, 0);
		tbm = tbm_create(work_mem * 1024L, NULL);
		index_getbitmap(scan, tbm);
		maybe = !tbm_is_empty(tbm);
		index_endscan(scan);
		tbm_free(tbm);
		index_close(index, NoLock);
		break;
	}
	table_close(rel, NoLock);
	return maybe;
}

/*
 * scbf_route_shards(shards text[], column_name name, value_type regtype,
 * vals text[], strict boolean) returns boolean[]: a worker node's answer
 * to the coordinator's routing question, per shard (qualified names)
 * whether it may hold a row whose column equals one of the values (text
 * input of value_type).  True whenever the shard cannot tell
 * (RouteShardMayHold); never waits for a lock.  Executable by every role:
 * a shard the caller may not read answers true.
 */
PG_FUNCTION_INFO_V1(scbf_route_shards);

Datum
scbf_route_shards(PG_FUNCTION_ARGS)
{
	ArrayType  *shards = PG_GETARG_ARRAYTYPE_P(0);
	Name		column = PG_GETARG_NAME(1);
	Oid			valtype = PG_GETARG_OID(2);
	ArrayType  *vals = PG_GETARG_ARRAYTYPE_P(3);
	bool		strict = PG_GETARG_BOOL(4);
	Datum	   *names;
	bool	   *nnulls;
	int			nnames;
	Datum	   *texts;
	bool	   *vnulls;
	int			ntexts;
	Datum	   *values;
	int			nvalues = 0;
	Oid			typinput;
	Oid			typioparam;
	int16		typlen;
	bool		typbyval;
	char		typalign;
	ArrayType  *valarray;
	Datum	   *answers;

	deconstruct_array(shards, TEXTOID, -1, false, TYPALIGN_INT,
					  &names, &nnulls, &nnames);
	deconstruct_array(vals, TEXTOID, -1, false, TYPALIGN_INT,
					  &texts, &vnulls, &ntexts);
	getTypeInputInfo(valtype, &typinput, &typioparam);
	get_typlenbyvalalign(valtype, &typlen, &typbyval, &typalign);
	values = palloc(sizeof(Datum) * Max(ntexts, 1));
	for (int i = 0; i < ntexts; i++)
		if (!vnulls[i])
			values[nvalues++] = OidInputFunctionCall(typinput,
													 TextDatumGetCString(texts[i]),
													 typioparam, -1);
	valarray = construct_array(values, nvalues, valtype, typlen, typbyval,
							   typalign);

	answers = palloc(sizeof(Datum) * Max(nnames, 1));
	for (int i = 0; i < nnames; i++)
	{
		bool		maybe = true;

		CHECK_FOR_INTERRUPTS();
		if (!nnulls[i] && nvalues > 0)
			maybe = RouteShardMayHold(TextDatumGetCString(names[i]),
									  NameStr(*column), valtype, valarray,
									  strict);
		else if (!nnulls[i])
			maybe = false;
		answers[i] = BoolGetDatum(maybe);
	}
	PG_RETURN_ARRAYTYPE_P(construct_array(answers, nnames, BOOLOID, 1, true,
										  TYPALIGN_CHAR));
}
