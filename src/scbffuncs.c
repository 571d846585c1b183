/*-------------------------------------------------------------------------
 *
 * scbffuncs.c
 *	  SQL-callable diagnostic and maintenance functions of scbf.
 *
 * NOTES
 *	  scbf_index_info, scbf_segments, scbf_filters and scbf_pages show what
 *	  an index holds; scbf_probe shows which filters may hold a value and
 *	  how many ledger entries match it; scbf_clean_pending folds the
 *	  pending area now; scbf_verify checks the index as amcheck does.  This
 *	  file checks the arguments, opens the index and its table, and hands
 *	  over to scbfinspect.c (what the functions read), scbfverify.c (the
 *	  verifier) and scbffold.c; the mathematics is in scbfmathfuncs.c.
 *
 *	  The read-only functions take the locks a reader takes (AccessShareLock
 *	  on the table, then on the index, as amcheck does) and read pages with
 *	  share locks, so they work on a hot standby and block writers no longer
 *	  than a scan would.
 *
 *	  The functions that reveal values or their presence are not executable
 *	  by PUBLIC (see the install script) and check that the caller may
 *	  SELECT from the table; scbf_clean_pending checks that the caller owns
 *	  it.
 *
 * Portions Copyright (c) 2026, scbf developers
 *
 * IDENTIFICATION
 *	  src/scbffuncs.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "access/table.h"
#include "access/xlog.h"
#include "catalog/index.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "parser/parse_coerce.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "scbf.h"

PG_FUNCTION_INFO_V1(scbf_index_info);
PG_FUNCTION_INFO_V1(scbf_segments);
PG_FUNCTION_INFO_V1(scbf_filters);
PG_FUNCTION_INFO_V1(scbf_pages);
PG_FUNCTION_INFO_V1(scbf_probe);
PG_FUNCTION_INFO_V1(scbf_probe_text);
PG_FUNCTION_INFO_V1(scbf_verify);
PG_FUNCTION_INFO_V1(scbf_clean_pending);

/*
 * Open the scbf index given as argument argno of a diagnostic function,
 * and its table: the table first, then the index, both with lockmode (a
 * reader's order, as amcheck and brin_summarize_range do, so no deadlock
 * with DDL), then check that the index still belongs to that table (its
 * OID may have been reused meanwhile), and write this backend's batch of
 * the index (scbfbatch.c), so the caller sees its own inserts.  Raises a clear error for NULL, a
 * dropped OID, or something that is not an scbf index; with needselect,
 * also unless the caller may SELECT from the table.  Returns the index;
 * *heap gets the table.  ScbfCloseIndex releases both.
 */
Relation
ScbfOpenIndex(FunctionCallInfo fcinfo, int argno, LOCKMODE lockmode,
			  Relation *heap, bool needselect)
{
	Oid			indexoid;
	Oid			heapoid;
	Relation	index;
	Relation	rel;

	if (PG_ARGISNULL(argno))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("index must not be null")));
	indexoid = PG_GETARG_OID(argno);

	heapoid = IndexGetRelation(indexoid, true);
	if (!OidIsValid(heapoid))
	{
		/* not an index: say what it is, if it is anything */
		rel = try_relation_open(indexoid, AccessShareLock);
		if (rel == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_OBJECT),
					 errmsg("relation with OID %u does not exist", indexoid)));
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not an scbf index",
						RelationGetRelationName(rel))));
	}

	*heap = try_table_open(heapoid, lockmode);
	if (*heap == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("relation with OID %u does not exist", indexoid)));
	index = try_relation_open(indexoid, lockmode);
	if (index == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("relation with OID %u does not exist", indexoid)));

	/* the index may have been dropped and its OID reused meanwhile */
	if (index->rd_rel->relam != get_index_am_oid("scbf", false) ||
		(index->rd_rel->relkind != RELKIND_INDEX &&
		 index->rd_rel->relkind != RELKIND_PARTITIONED_INDEX))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not an scbf index",
						RelationGetRelationName(index))));
	if (index->rd_rel->relkind == RELKIND_PARTITIONED_INDEX)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is a partitioned index",
						RelationGetRelationName(index)),
				 errdetail("A partitioned index has no storage of its own."),
				 errhint("Call the function on the index of each partition.")));
	if (IndexGetRelation(indexoid, true) != heapoid)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("could not open parent table of index \"%s\"",
						RelationGetRelationName(index))));

	if (RELATION_IS_OTHER_TEMP(index))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot access temporary indexes of other sessions")));

	if (needselect)
	{
		AclResult	aclresult = pg_class_aclcheck(heapoid, GetUserId(),
												  ACL_SELECT);

		if (aclresult != ACLCHECK_OK)
			aclcheck_error(aclresult, OBJECT_TABLE,
						   RelationGetRelationName(*heap));
	}

	/* what this backend inserted but has not written yet, first */
	ScbfBatchFlush(index);
	return index;
}

/*
 * Close what ScbfOpenIndex opened, releasing its locks.
 */
void
ScbfCloseIndex(Relation index, Relation heap, LOCKMODE lockmode)
{
	index_close(index, lockmode);
	table_close(heap, lockmode);
}

/*
 * ScbfTextArray
 *		text[] of n C strings.
 */
Datum
ScbfTextArray(const char **names, int n)
{
	Datum	   *elems = palloc(sizeof(Datum) * Max(n, 1));
	int			i;

	for (i = 0; i < n; i++)
		elems[i] = CStringGetTextDatum(names[i]);
	return PointerGetDatum(construct_array(elems, n, TEXTOID, -1, false,
										   TYPALIGN_INT));
}

/*
 * ScbfInt8Array
 *		bigint[] of n values.
 */
Datum
ScbfInt8Array(const uint64 *values, int n)
{
	Datum	   *elems = palloc(sizeof(Datum) * Max(n, 1));
	int			i;

	for (i = 0; i < n; i++)
		elems[i] = Int64GetDatum((int64) values[i]);
	return PointerGetDatum(construct_array(elems, n, INT8OID, 8,
										   FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
}

/*
 * ScbfFloat8Array
 *		float8[] of n values.
 */
Datum
ScbfFloat8Array(const double *values, int n)
{
	Datum	   *elems = palloc(sizeof(Datum) * Max(n, 1));
	int			i;

	for (i = 0; i < n; i++)
		elems[i] = Float8GetDatum(values[i]);
	return PointerGetDatum(construct_array(elems, n, FLOAT8OID, 8,
										   FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
}

/*
 * scbf_index_info(index regclass): one row describing the whole index: the
 * layout in force, the segments and their chains, the entries, and the
 * pages by kind (a walk over every page, as pgstatindex does).
 */
Datum
scbf_index_info(PG_FUNCTION_ARGS)
{
	Relation	heap;
	Relation	index;
	Datum		result;

	index = ScbfOpenIndex(fcinfo, 0, AccessShareLock, &heap, true);
	result = ScbfIndexInfo(fcinfo, index, heap);
	ScbfCloseIndex(index, heap, AccessShareLock);
	PG_RETURN_DATUM(result);
}

/*
 * scbf_segments(index regclass): one row per segment of the table, those
 * without a filter included (flagged "empty").
 */
Datum
scbf_segments(PG_FUNCTION_ARGS)
{
	Relation	heap;
	Relation	index;

	InitMaterializedSRF(fcinfo, 0);
	index = ScbfOpenIndex(fcinfo, 0, AccessShareLock, &heap, true);
	ScbfSegments(fcinfo, index, heap);
	ScbfCloseIndex(index, heap, AccessShareLock);
	return (Datum) 0;
}

/*
 * scbf_filters(index regclass, segno int DEFAULT NULL): one row per filter
 * of segment segno's chain, in chain order, or of every segment.
 */
Datum
scbf_filters(PG_FUNCTION_ARGS)
{
	Relation	heap;
	Relation	index;

	InitMaterializedSRF(fcinfo, 0);
	index = ScbfOpenIndex(fcinfo, 0, AccessShareLock, &heap, true);
	if (PG_ARGISNULL(1))
		ScbfFilters(fcinfo, index, -1);
	else if (PG_GETARG_INT32(1) >= 0)
		ScbfFilters(fcinfo, index, PG_GETARG_INT32(1));
	ScbfCloseIndex(index, heap, AccessShareLock);
	return (Datum) 0;
}

/*
 * scbf_pages(index regclass): one row per page of the index, its kind,
 * owner, entries and link (README.md, "Reference").  Like pageinspect, it
 * reads each page on its own.
 */
Datum
scbf_pages(PG_FUNCTION_ARGS)
{
	Relation	heap;
	Relation	index;

	InitMaterializedSRF(fcinfo, 0);
	index = ScbfOpenIndex(fcinfo, 0, AccessShareLock, &heap, true);
	ScbfPages(fcinfo, index);
	ScbfCloseIndex(index, heap, AccessShareLock);
	return (Datum) 0;
}

/*
 * Fill *key with the scan key of "column col = value" for a value of type
 * subtype (the opclass's input type, or another type of the opfamily), as
 * the planner builds it: the opfamily's equality operator for the two
 * types and the column's collation.  With isnull, "column col IS NULL".
 */
static void
ScbfProbeKey(Relation index, int col, Oid subtype, Datum value, bool isnull,
			 ScanKey key)
{
	FmgrInfo	finfo;
	Oid			oper;

	if (isnull)
	{
		ScanKeyEntryInitialize(key, SK_ISNULL | SK_SEARCHNULL, col + 1,
							   InvalidStrategy, InvalidOid, InvalidOid,
							   InvalidOid, (Datum) 0);
		return;
	}

	/*
	 * The scan hashes the value and never calls the operator: a family
	 * that has a hash function for the type but no "=" still gets a key.
	 */
	memset(&finfo, 0, sizeof(finfo));
	finfo.fn_oid = InvalidOid;
	oper = get_opfamily_member(index->rd_opfamily[col],
							   index->rd_opcintype[col], subtype,
							   SCBF_EQUAL_STRATEGY);
	if (OidIsValid(oper))
		fmgr_info(get_opcode(oper), &finfo);
	ScanKeyEntryInitializeWithInfo(key, 0, col + 1, SCBF_EQUAL_STRATEGY,
								   subtype, index->rd_indcollation[col],
								   &finfo, value);
}

/*
 * Check the column number argument (1-based; NULL means 1) and return it
 * 0-based.
 */
static int
ScbfProbeColumn(FunctionCallInfo fcinfo, Relation index, int argno)
{
	int			ncols = IndexRelationGetNumberOfKeyAttributes(index);
	int			col = PG_ARGISNULL(argno) ? 1 : PG_GETARG_INT32(argno);

	if (col < 1 || col > ncols)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("column %d does not exist in index \"%s\"", col,
						RelationGetRelationName(index)),
				 errhint("Index \"%s\" has %d column(s), numbered from 1.",
						 RelationGetRelationName(index), ncols)));
	return col - 1;
}

/*
 * scbf_probe(index regclass, value anyelement, col int DEFAULT 1): which
 * segments and filters may hold the value, and how many ledger entries
 * match it.  The value is a key of its own type, as in a query: the scan
 * hashes it with the opclass's own hash function if its type is the
 * opclass's input type (or binary-coercible to it, or a domain over it),
 * else with the opfamily's hash function for its type, which must exist,
 * and the column's collation must be deterministic (see ScbfKeyHashProc in
 * scbfprobe.c).  NULL probes IS NULL.
 */
Datum
scbf_probe(PG_FUNCTION_ARGS)
{
	Relation	heap;
	Relation	index;
	int			col;
	ScanKeyData key;

	InitMaterializedSRF(fcinfo, 0);
	index = ScbfOpenIndex(fcinfo, 0, AccessShareLock, &heap, true);
	col = ScbfProbeColumn(fcinfo, index, 2);

	if (PG_ARGISNULL(1))
		ScbfProbeKey(index, col, InvalidOid, (Datum) 0, true, &key);
	else
	{
		Oid			valtype = get_fn_expr_argtype(fcinfo->flinfo, 1);
		Oid			basetype;
		Oid			opcintype = index->rd_opcintype[col];
		Oid			collation = index->rd_indcollation[col];
		Oid			subtype;

		if (!OidIsValid(valtype))
			elog(ERROR, "could not determine the type of the value to probe");
		basetype = getBaseType(valtype);

		/*
		 * A key of the opclass's input type if the value coerces to it
		 * without a function, as the planner makes it; else of the value's
		 * type, which needs a hash function of the scan's choice.
		 */
		if (basetype == opcintype || IsBinaryCoercible(basetype, opcintype))
			subtype = opcintype;
		else
			subtype = basetype;
		if (ScbfKeyHashProc(index, col, subtype, collation,
							CurrentMemoryContext) == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("cannot probe column %d of index \"%s\" (type %s) with a value of type %s",
							col + 1, RelationGetRelationName(index),
							format_type_be(opcintype),
							format_type_be(valtype)),
					 errhint("Pass the value as text to have it converted to the column's type.")));
		ScbfProbeKey(index, col, subtype, PG_GETARG_DATUM(1), false, &key);
	}

	ScbfInspectProbe(fcinfo, index, &key);
	ScbfCloseIndex(index, heap, AccessShareLock);
	return (Datum) 0;
}

/*
 * scbf_probe(index regclass, value text, col int DEFAULT 1): as above, the
 * text being converted to the column's type with that type's input
 * function, then probed as a key of the opclass's input type, which the
 * scan hashes as an insert hashes it.
 */
Datum
scbf_probe_text(PG_FUNCTION_ARGS)
{
	Relation	heap;
	Relation	index;
	int			col;
	ScanKeyData key;

	InitMaterializedSRF(fcinfo, 0);
	index = ScbfOpenIndex(fcinfo, 0, AccessShareLock, &heap, true);
	col = ScbfProbeColumn(fcinfo, index, 2);

	if (PG_ARGISNULL(1))
		ScbfProbeKey(index, col, InvalidOid, (Datum) 0, true, &key);
	else
	{
		Form_pg_attribute att = TupleDescAttr(RelationGetDescr(index), col);
		Oid			typinput;
		Oid			typioparam;
		Datum		value;

		getTypeInputInfo(att->atttypid, &typinput, &typioparam);
		value = OidInputFunctionCall(typinput,
									 text_to_cstring(PG_GETARG_TEXT_PP(1)),
									 typioparam, att->atttypmod);
		ScbfProbeKey(index, col, index->rd_opcintype[col], value, false,
					 &key);
	}

	ScbfInspectProbe(fcinfo, index, &key);
	ScbfCloseIndex(index, heap, AccessShareLock);
	return (Datum) 0;
}

/*
 * scbf_verify(index regclass, heapallindexed boolean DEFAULT false): check
 * the index (scbfverify.c).  Returns nothing; raises
 * ERRCODE_INDEX_CORRUPTED on the first corruption found, NOTICEs for what
 * is harmless.
 */
Datum
scbf_verify(PG_FUNCTION_ARGS)
{
	bool		heapallindexed = !PG_ARGISNULL(1) && PG_GETARG_BOOL(1);
	Relation	heap;
	Relation	index;

	index = ScbfOpenIndex(fcinfo, 0, AccessShareLock, &heap, true);
	ScbfVerify(index, heap, heapallindexed);
	ScbfCloseIndex(index, heap, AccessShareLock);
	PG_RETURN_VOID();
}

/*
 * scbf_clean_pending(index regclass): fold the pending area of the index
 * into its filters now, as VACUUM does, and return the entries folded.
 * Waits for a fold another backend runs.  Like gin_clean_pending_list(),
 * for the table's owner.
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
	if (!pg_class_ownercheck(RelationGetRelid(heap), GetUserId()))
		aclcheck_error(ACLCHECK_NOT_OWNER, OBJECT_TABLE,
					   RelationGetRelationName(heap));
	folded = ScbfFold(index, true);
	ScbfCloseIndex(index, heap, RowExclusiveLock);
	PG_RETURN_INT64(folded);
}
