/*-------------------------------------------------------------------------
 *
 * scbfcost.c
 *	  Cost estimation for scbf index scans.
 *
 * NOTES
 *	  A probe reads the metapage, k row pages per hash (and a delta page),
 *	  and for every candidate filter (one per segment with a true match,
 *	  plus the false positives of all filters) its table page, its ledger
 *	  root and the leaves that may hold the hash; then the pending
 *	  partitions that may hold entries.  The heap is read only at the TIDs
 *	  the ledgers give, so the selectivity handed to the planner is the
 *	  plain selectivity of the quals, as for a btree bitmap scan: filter
 *	  false positives cost index pages, not heap pages.
 *
 *	  The share of segments that hold a true match is interpolated, with the
 *	  square of the column's correlation as btree's cost_index does, between
 *	  matches spread at random (1 - (1 - s)^T per segment of T tuples) and
 *	  matches packed together (M / T segments plus one boundary segment per
 *	  probed value).  The false positives come from the filters' mean
 *	  false-positive rate, kept in the metapage by build, folds and VACUUM.
 *
 * Portions Copyright (c) 2026, scbf developers
 *
 * IDENTIFICATION
 *	  src/scbfcost.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/relation.h"
#include "catalog/pg_statistic.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "parser/parsetree.h"
#include "utils/lsyscache.h"
#include "utils/selfuncs.h"
#include "utils/spccache.h"
#include "utils/syscache.h"

#include "scbf.h"

/* The cost of an index this version cannot read (as core's disable_cost) */
#define SCBF_UNREADABLE_COST	1.0e10

/* What the cost model needs from the metapage */
typedef struct ScbfCostStats
{
	uint32		pages_per_segment;
	int			k;
	double		nsegments;
	double		nfilters;
	double		nledger_pages;
	double		nentries;
	double		mean_fpr;
	int			pending_parts;	/* partitions that may hold entries */
	bool		has_delta;		/* probes read a delta page */
	bool		unreadable;		/* an index to REINDEX: never pick it */
} ScbfCostStats;

/*
 * Read the statistics of an existing index from its metapage (those of an
 * empty index are zeros).  Returns false for a hypothetical index.  An
 * index this version cannot read (another storage format version) gets
 * cs->unreadable instead of an error: a query need not use it.
 */
static bool
ScbfGetCostStats(IndexOptInfo *index, ScbfCostStats *cs)
{
	Relation	indexRel;
	ScbfMeta  *meta;
	ScbfStats	st;
	ScbfMetaInfoData mi;
	int			part;

	if (index->hypothetical)
		return false;

	indexRel = index_open(index->indexoid, NoLock);
	meta = ScbfReadMetaIfCurrent(indexRel);
	if (meta == NULL)
	{
		cs->unreadable = true;
		index_close(indexRel, NoLock);
		return true;
	}
	ScbfMetaStats(meta, &st);
	ScbfMetaInfo(meta, &mi);
	cs->pending_parts = 0;
	for (part = 0; part < SCBF_NPENDING; part++)
		if (mi.pending[part].mayhave)
			cs->pending_parts++;
	cs->has_delta = mi.delta.pages > 0;
	cs->pages_per_segment = st.pages_per_segment;
	cs->k = st.k;
	cs->nsegments = st.nsegments;
	cs->nfilters = st.nfilters;
	cs->nledger_pages = st.nledger_pages;
	cs->nentries = (double) st.nentries;
	cs->mean_fpr = st.mean_fpr;
	pfree(meta);
	index_close(indexRel, NoLock);
	return true;
}

/*
 * Absolute correlation of the heap column behind index column col, from
 * pg_statistic, or 0 when unknown (expression columns, no statistics).
 */
static double
ScbfColumnCorrelation(PlannerInfo *root, IndexOptInfo *index, int col)
{
	RangeTblEntry *rte = planner_rt_fetch(index->rel->relid, root);
	AttrNumber	attnum = index->indexkeys[col];
	VariableStatData vardata;
	double		corr = 0;

	if (attnum == 0 || rte->rtekind != RTE_RELATION)
		return 0;

	memset(&vardata, 0, sizeof(vardata));
	if (get_relation_stats_hook &&
		(*get_relation_stats_hook) (root, rte, attnum, &vardata))
	{
		if (HeapTupleIsValid(vardata.statsTuple) && !vardata.freefunc)
			elog(ERROR, "no function provided to release variable stats with");
	}
	else
		vardata.statsTuple = SearchSysCache3(STATRELATTINH,
											 ObjectIdGetDatum(rte->relid),
											 Int16GetDatum(attnum),
											 BoolGetDatum(false));
	vardata.freefunc = vardata.freefunc ? vardata.freefunc : ReleaseSysCache;

	if (HeapTupleIsValid(vardata.statsTuple))
	{
		AttStatsSlot sslot;

		if (get_attstatsslot(&sslot, vardata.statsTuple,
							 STATISTIC_KIND_CORRELATION, InvalidOid,
							 ATTSTATSSLOT_NUMBERS))
		{
			if (sslot.nnumbers > 0)
				corr = fabs(sslot.numbers[0]);
			free_attstatsslot(&sslot);
		}
	}
	ReleaseVariableStats(vardata);
	return corr;
}

/*
 * Number of hash values an index clause probes: the array length of an
 * "= ANY", else 1.
 */
static double
ScbfClauseHashes(RestrictInfo *rinfo)
{
	Node	   *clause = (Node *) rinfo->clause;

	if (IsA(clause, ScalarArrayOpExpr))
		return Max(1, ScbfEstimateArrayLength(lsecond(((ScalarArrayOpExpr *) clause)->args)));
	return 1;
}

/*
 * amcostestimate
 */
void
scbfcostestimate(PlannerInfo *root, IndexPath *path, double loop_count,
				 Cost *indexStartupCost, Cost *indexTotalCost,
				 Selectivity *indexSelectivity, double *indexCorrelation,
				 double *indexPages)
{
	IndexOptInfo *index = path->indexinfo;
	RelOptInfo *baserel = index->rel;
	List	   *indexQuals = get_quals_from_indexclauses(path->indexclauses);
	ScbfCostStats cs;
	GenericCosts costs;
	double		spc_seq_page_cost;
	double		spc_random_page_cost;
	double		heappages = Max(baserel->pages, 1);
	double		tuples = Max(baserel->tuples, 1);
	double		nseg;
	double		tuples_per_seg;
	double		s;
	double		hashes = 0;
	double		corr = 0;
	double		p_rand;
	double		p_clust;
	double		p_true;
	double		candidates;
	double		leaf_entries;
	double		pending;
	double		leaves;
	double		pages;
	bool		first_col_eq = false;
	ListCell   *lc;

	/* selectivity and qual evaluation costs, as for any index */
	MemSet(&costs, 0, sizeof(costs));
	genericcostestimate(root, path, loop_count, &costs);
	s = costs.indexSelectivity;

	get_tablespace_page_costs(index->reltablespace, &spc_random_page_cost,
							  &spc_seq_page_cost);

	memset(&cs, 0, sizeof(cs));
	if (!ScbfGetCostStats(index, &cs))
	{
		/*
		 * A hypothetical index: the defaults' geometry, a filter per
		 * segment, about 5 bytes of ledger per entry and column (src/README,
		 * "Sizing"), nothing pending.
		 */
		cs.pages_per_segment = SCBF_DEFAULT_PAGES_PER_SEGMENT;
		cs.k = scbf_rows_k(SCBF_DEFAULT_FPR);
		cs.nsegments = Max(1, ceil(heappages / cs.pages_per_segment));
		cs.nfilters = cs.nsegments;
		cs.nledger_pages = Max(cs.nsegments,
							   tuples * 5.0 * index->nkeycolumns / BLCKSZ);
		cs.nentries = tuples;
		cs.mean_fpr = SCBF_DEFAULT_FPR;
		cs.pending_parts = 0;
		cs.has_delta = false;
	}

	if (cs.unreadable)
	{
		/* as disabled: used only if forced, where the scan gives the error */
		*indexStartupCost = *indexTotalCost = SCBF_UNREADABLE_COST;
		*indexSelectivity = s;
		*indexCorrelation = 0;
		*indexPages = 1;
		return;
	}

	nseg = Max(1, ceil(heappages / cs.pages_per_segment));
	tuples_per_seg = tuples / nseg;

	foreach(lc, path->indexclauses)
	{
		IndexClause *iclause = lfirst_node(IndexClause, lc);
		ListCell   *lc2;

		corr = Max(corr, ScbfColumnCorrelation(root, index, iclause->indexcol));
		foreach(lc2, iclause->indexquals)
		{
			RestrictInfo *rinfo = lfirst_node(RestrictInfo, lc2);

			hashes += ScbfClauseHashes(rinfo);
			if (iclause->indexcol == 0 &&
				!(IsA(rinfo->clause, NullTest) &&
				  ((NullTest *) rinfo->clause)->nulltesttype == IS_NOT_NULL))
				first_col_eq = true;
		}
	}
	hashes = Max(hashes, 1);

	/* share of segments with a true match */
	p_rand = 1.0 - pow(1.0 - Min(s, 1.0), tuples_per_seg);
	p_clust = Min(1.0, (s * tuples / Max(tuples_per_seg, 1) + hashes) / nseg);
	p_true = p_rand + corr * corr * (p_clust - p_rand);
	p_true = Max(0.0, Min(1.0, p_true));

	/*
	 * The metapage, k row pages (and a delta page) per hash, and per
	 * candidate filter (one per segment with a match, plus the false
	 * positives of all filters) its table page, its ledger root and a leaf
	 * or two per hash, or the leaves that the matching posting lists fill if
	 * that is more (a value in many rows); about a leaf's entries decoded
	 * per leaf read.  A probe reads the runs of one column, so a leaf's
	 * entries are those of one column's ledger: the ledger pages of a
	 * multi-column index are shared by its columns.  Then the pending
	 * partitions that may hold entries: those of the hashes with an
	 * equality on the first column, else all of them.
	 */
	candidates = p_true * nseg + cs.nfilters * Min(cs.mean_fpr * hashes, 1.0);
	candidates = Min(candidates, Max(cs.nfilters, 1));
	leaf_entries = cs.nentries * index->nkeycolumns / Max(cs.nledger_pages, 1);
	pending = first_col_eq ? Min(hashes, cs.pending_parts) : cs.pending_parts;
	leaves = Max(candidates * 1.2 * hashes, s * tuples / Max(leaf_entries, 1));
	pages = 1 + hashes * (cs.k + (cs.has_delta ? 1 : 0)) +
		candidates * 2 + leaves + pending;
	*indexStartupCost = index_other_operands_eval_cost(root, indexQuals);
	*indexTotalCost = *indexStartupCost +
		loop_count * (pages * spc_random_page_cost +
					  cpu_operator_cost * hashes * cs.k +
					  cpu_operator_cost * leaves * leaf_entries +
					  cpu_index_tuple_cost * s * tuples);
	*indexSelectivity = s;
	*indexCorrelation = corr;
	*indexPages = pages;
}
