/*-------------------------------------------------------------------------
 *
 * scbfcost.c
 *	  Cost estimation for scbf index scans.
 *
 * NOTES
 *	  A scan reads, for every segment, the head (and for a multi-block
 *	  filter the block) of each filter in the chain, and, for the segments
 *	  whose filters say "maybe", their ledger pages.  The heap is read only
 *	  at the TIDs the ledgers give, so the selectivity handed to the planner
 *	  is the plain selectivity of the quals, as for a btree bitmap scan:
 *	  filter false positives cost index pages, not heap pages.
 *
 *	  The share of segments that hold a true match is interpolated, with the
 *	  square of the column's correlation as btree's cost_index does, between
 *	  matches spread at random (1 - (1 - s)^T per segment of T tuples) and
 *	  matches packed together (M / T segments plus one boundary segment per
 *	  probed value).  Each other segment passes with the chain's measured
 *	  false-positive rate, kept in the metapage by build and VACUUM.
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

#include "scbf2.h"

/* What the cost model needs from the metapage */
typedef struct ScbfCostStats
{
	int			format;			/* storage format */
	uint32		pages_per_segment;
	int			k;
	double		nsegments;
	double		nfilters;
	double		nfilter_pages;
	double		nledger_pages;
	double		nentries;
	double		mean_fpr;
	double		target_fpr;
	int			pending_parts;	/* format 2: partitions that may hold entries */
	bool		has_delta;		/* format 2: probes read a delta page */
} ScbfCostStats;

/*
 * Read the statistics of an existing index from its metapage.  Returns
 * false for a hypothetical index or one without statistics yet.
 */
static bool
ScbfGetCostStats(IndexOptInfo *index, ScbfCostStats *cs)
{
	Relation	indexRel;
	Buffer		buf;
	ScbfMetaPageData *meta;
	bool		ok;

	if (index->hypothetical)
		return false;

	indexRel = index_open(index->indexoid, NoLock);
	if (ScbfIndexFormat(indexRel) != SCBF_FORMAT_VERSION)
	{
		Scbf2Meta  *meta2 = Scbf2ReadMeta(indexRel);
		Scbf2Stats	st;

		Scbf2MetaInfoData mi;
		int			part;

		Scbf2MetaStats(meta2, &st);
		Scbf2MetaInfo(meta2, &mi);
		cs->pending_parts = 0;
		for (part = 0; part < SCBF2_NPENDING; part++)
			if (mi.pending[part].mayhave)
				cs->pending_parts++;
		cs->has_delta = mi.delta.pages > 0;
		cs->format = 2;
		cs->pages_per_segment = st.pages_per_segment;
		cs->k = st.k;
		cs->nsegments = st.nsegments;
		cs->nfilters = st.nfilters;
		cs->nfilter_pages = st.nfilters;
		cs->nledger_pages = st.nledger_pages;
		cs->nentries = (double) st.nentries;
		cs->mean_fpr = st.mean_fpr;
		cs->target_fpr = st.target_fpr;
		pfree(meta2);
		index_close(indexRel, NoLock);
		return st.nfilters > 0;
	}
	cs->format = 1;
	buf = ReadBuffer(indexRel, SCBF_METAPAGE_BLKNO);
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	ScbfCheckMetaPage(indexRel, BufferGetPage(buf));
	meta = ScbfPageGetMeta(BufferGetPage(buf));
	cs->pages_per_segment = meta->pages_per_segment;
	cs->k = meta->k;
	cs->nsegments = meta->nsegments;
	cs->nfilters = meta->nfilters;
	cs->nfilter_pages = meta->nfilter_pages;
	cs->nledger_pages = meta->nledger_pages;
	cs->nentries = (double) meta->nentries;
	cs->mean_fpr = meta->mean_fpr;
	cs->target_fpr = meta->target_fpr;
	ok = meta->nsegments > 0 && meta->nfilters > 0;
	UnlockReleaseBuffer(buf);
	index_close(indexRel, NoLock);
	return ok;
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
	double		filters_per_seg;
	double		blocks_per_filter;
	double		ledger_pages_per_seg;
	double		s;
	double		hashes = 0;
	double		corr = 0;
	double		p_rand;
	double		p_clust;
	double		p_true;
	double		p_seg;
	double		filter_reads;
	double		ledger_reads;
	double		dir_pages;
	bool		first_col_eq = false;
	ListCell   *lc;

	/* selectivity and qual evaluation costs, as for any index */
	MemSet(&costs, 0, sizeof(costs));
	genericcostestimate(root, path, loop_count, &costs);
	s = costs.indexSelectivity;

	get_tablespace_page_costs(index->reltablespace, &spc_random_page_cost,
							  &spc_seq_page_cost);

	cs.format = 1;
	cs.pending_parts = 0;
	cs.has_delta = false;
	if (!ScbfGetCostStats(index, &cs) && cs.format == 1)
	{
		/* a fresh or hypothetical index: assume the defaults' geometry */
		cs.pages_per_segment = SCBF_DEFAULT_PAGES_PER_SEGMENT;
		cs.k = scbf_filter_optimal_k(SCBF_DEFAULT_FPR);
		cs.nsegments = Max(1, ceil(heappages / cs.pages_per_segment));
		cs.nfilters = cs.nsegments;
		cs.nfilter_pages = cs.nfilters;
		cs.nledger_pages = Max(cs.nsegments,
							   tuples * ScbfEntrySize(index->nkeycolumns) /
							   SCBF_LEDGER_BYTES);
		cs.nentries = tuples;
		cs.mean_fpr = SCBF_DEFAULT_FPR;
		cs.target_fpr = SCBF_DEFAULT_FPR;
	}

	nseg = Max(1, ceil(heappages / cs.pages_per_segment));
	tuples_per_seg = tuples / nseg;
	filters_per_seg = Max(1, cs.nfilters / Max(cs.nsegments, 1));
	blocks_per_filter = Max(1, cs.nfilter_pages / Max(cs.nfilters, 1));
	ledger_pages_per_seg = Max(1, cs.nledger_pages / Max(cs.nsegments, 1));

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

	if (cs.format == 2)
	{
		/*
		 * Format 2: the metapage, k row pages (and a delta page) per hash,
		 * and per candidate filter (one per segment with a match, plus the
		 * false positives of all filters) its table page, its ledger root
		 * and a leaf or two per hash, or the leaves that the matching
		 * posting lists fill if that is more (a value in many rows); about
		 * a leaf's entries decoded per leaf read.  A probe reads the runs
		 * of one column, so a leaf's entries are those of one column's
		 * ledger: the ledger pages of a multi-column index are shared by
		 * its columns.  Then the pending partitions that may hold entries:
		 * those of the hashes with an equality on the first column, else
		 * all of them.
		 */
		double		candidates = p_true * nseg +
			cs.nfilters * Min(cs.mean_fpr * hashes, 1.0);
		double		leaf_entries = cs.nentries * index->nkeycolumns /
			Max(cs.nledger_pages, 1);
		double		pending = first_col_eq ?
			Min(hashes, cs.pending_parts) : cs.pending_parts;
		double		leaves;
		double		pages;

		candidates = Min(candidates, Max(cs.nfilters, 1));
		leaves = Max(candidates * 1.2 * hashes,
					 s * tuples / Max(leaf_entries, 1));
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
		return;
	}

	/* plus the others that pass by a filter false positive */
	p_seg = p_true + (1.0 - p_true) *
		(1.0 - pow(1.0 - Min(cs.mean_fpr, 1.0), hashes));

	dir_pages = ceil(nseg / SCBF_DIR_ENTRIES_PER_PAGE);
	filter_reads = nseg * filters_per_seg *
		(1.0 + (blocks_per_filter > 1 ? Min(hashes, blocks_per_filter - 1) : 0));
	ledger_reads = p_seg * nseg * ledger_pages_per_seg;

	/*
	 * CPU: k counter tests per hash per filter; for every ledger entry read,
	 * its processing and the comparison of its hash(es); for every matching
	 * entry, its TID into the bitmap.
	 */
	*indexStartupCost = index_other_operands_eval_cost(root, indexQuals);
	*indexTotalCost = *indexStartupCost +
		loop_count * ((dir_pages + filter_reads) * spc_seq_page_cost +
					  ledger_reads * spc_random_page_cost +
					  cpu_operator_cost * nseg * filters_per_seg * hashes * cs.k +
					  (cpu_index_tuple_cost + cpu_operator_cost) *
					  p_seg * cs.nentries +
					  cpu_index_tuple_cost * s * tuples);
	*indexSelectivity = s;
	*indexCorrelation = corr;
	*indexPages = dir_pages + filter_reads + ledger_reads;
}
