/*-------------------------------------------------------------------------
 *
 * scbfvalidate.c
 *	  Opclass validator for scbf, and the check of an index's operator
 *	  classes against its columns' types at build.
 *
 * NOTES
 *	  scbfvalidate runs by SELECT amvalidate(opclass_oid), not at CREATE
 *	  OPERATOR CLASS.  Besides the usual shape checks (one strategy, one
 *	  support function, boolean operators, no ORDER BY entries), it checks
 *	  what scbf's correctness rests on: every operator (L, R) of a family
 *	  has a hash function for L and for R, since a scan hashes the key with
 *	  the function of the key's own type and must land where the column's
 *	  values landed; and each hash function is the one the hash access
 *	  method uses for its type (on this major, or before 18).
 *
 *	  ScbfCheckIndexEquality runs at every build of an index.  CREATE INDEX
 *	  takes a class for a type the column's type is binary-coercible to
 *	  when the column's type has none of its own: citext columns would get
 *	  text_ops, whose equality is case-sensitive, and the index could never
 *	  serve citext's own "=".  It refuses such an index.
 *
 * Portions Copyright (c) 2026, scbf developers
 *
 * IDENTIFICATION
 *	  src/scbfvalidate.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/amvalidate.h"
#include "access/hash.h"
#include "access/htup_details.h"
#include "catalog/pg_am.h"
#include "catalog/pg_amop.h"
#include "catalog/pg_amproc.h"
#include "catalog/pg_index.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_opclass.h"
#include "catalog/pg_operator.h"
#include "catalog/pg_opfamily.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/regproc.h"
#include "utils/syscache.h"

#include "scbf.h"

/*
 * The hash functions that the hash access method uses up to PostgreSQL 17
 * for types that 18 gave functions of their own (hashbool, hashbytea,
 * hashdate, timestamptz_hash, hashxid, hashcid, hashxid8).  Each returns the
 * same value for a value of the type as its successor.  scbf--1.0.sql
 * creates these classes with the function of the server it runs on, and a
 * cluster that pg_upgrade brought to 18 from 15 or 17 keeps the older one,
 * as the classes are copied, not created anew: both are right.
 */
static const struct
{
	Oid			typid;
	Oid			funcid;
}			ScbfOlderHashProcs[] =
{
	{BOOLOID, F_HASHCHAR},
	{BYTEAOID, F_HASHVARLENA},
	{DATEOID, F_HASHINT4},
	{TIMESTAMPTZOID, F_TIMESTAMP_HASH},
	{XIDOID, F_HASHINT4},
	{CIDOID, F_HASHINT4},
	{XID8OID, F_HASHINT8},
};

/*
 * True if funcid can serve as the hash function of type typid: an int4
 * function of one argument that the type is binary-coercible to (the
 * polymorphic classes' functions take the pseudo-type itself), the very
 * function the hash access method uses for the type on this server, or the
 * one it used before 18 (ScbfOlderHashProcs).  The last two cover the types
 * that borrow another type's function (hashint4 for date,
 * hashvarlena(internal) for bytea, ...).
 */
static bool
ScbfCheckHashProc(Oid funcid, Oid typid)
{
	Oid			opclass;
	int			i;

	if (check_amproc_signature(funcid, INT4OID, false, 1, 1, typid))
		return true;

	for (i = 0; i < lengthof(ScbfOlderHashProcs); i++)
	{
		if (ScbfOlderHashProcs[i].typid == typid &&
			ScbfOlderHashProcs[i].funcid == funcid)
			return true;
	}

	opclass = GetDefaultOpClass(typid, HASH_AM_OID);
	if (!OidIsValid(opclass))
		return false;
	return get_opfamily_proc(get_opclass_family(opclass), typid, typid,
							 HASHSTANDARD_PROC) == funcid;
}

/*
 * True if the family has a hash function for type typid.
 */
static bool
ScbfFamilyHasHash(CatCList *proclist, Oid typid)
{
	int			i;

	for (i = 0; i < proclist->n_members; i++)
	{
		Form_pg_amproc procform =
		(Form_pg_amproc) GETSTRUCT(&proclist->members[i]->tuple);

		if (procform->amprocnum == SCBF_HASH_PROC &&
			procform->amproclefttype == typid &&
			procform->amprocrighttype == typid)
			return true;
	}
	return false;
}

/*
 * amvalidate: report problems with INFO messages, return false if any.
 */
bool
scbfvalidate(Oid opclassoid)
{
	bool		result = true;
	HeapTuple	classtup;
	Form_pg_opclass classform;
	Oid			opfamilyoid;
	Oid			opcintype;
	char	   *opclassname;
	HeapTuple	familytup;
	Form_pg_opfamily familyform;
	char	   *opfamilyname;
	CatCList   *proclist;
	CatCList   *oprlist;
	List	   *grouplist;
	OpFamilyOpFuncGroup *opclassgroup = NULL;
	ListCell   *lc;
	int			i;

	classtup = SearchSysCache1(CLAOID, ObjectIdGetDatum(opclassoid));
	if (!HeapTupleIsValid(classtup))
		elog(ERROR, "cache lookup failed for operator class %u", opclassoid);
	classform = (Form_pg_opclass) GETSTRUCT(classtup);
	opfamilyoid = classform->opcfamily;
	opcintype = classform->opcintype;
	opclassname = NameStr(classform->opcname);

	familytup = SearchSysCache1(OPFAMILYOID, ObjectIdGetDatum(opfamilyoid));
	if (!HeapTupleIsValid(familytup))
		elog(ERROR, "cache lookup failed for operator family %u", opfamilyoid);
	familyform = (Form_pg_opfamily) GETSTRUCT(familytup);
	opfamilyname = NameStr(familyform->opfname);

	oprlist = SearchSysCacheList1(AMOPSTRATEGY, ObjectIdGetDatum(opfamilyoid));
	proclist = SearchSysCacheList1(AMPROCNUM, ObjectIdGetDatum(opfamilyoid));

	/* support functions */
	for (i = 0; i < proclist->n_members; i++)
	{
		HeapTuple	proctup = &proclist->members[i]->tuple;
		Form_pg_amproc procform = (Form_pg_amproc) GETSTRUCT(proctup);

		if (procform->amproclefttype != procform->amprocrighttype)
		{
			ereport(INFO,
					(errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
					 errmsg("operator family \"%s\" of access method %s contains support function %s with different left and right input types",
							opfamilyname, "scbf",
							format_procedure(procform->amproc))));
			result = false;
			continue;
		}
		if (procform->amprocnum != SCBF_HASH_PROC)
		{
			ereport(INFO,
					(errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
					 errmsg("operator family \"%s\" of access method %s contains function %s with invalid support number %d",
							opfamilyname, "scbf",
							format_procedure(procform->amproc),
							procform->amprocnum)));
			result = false;
			continue;
		}
		if (!ScbfCheckHashProc(procform->amproc, procform->amproclefttype))
		{
			ereport(INFO,
					(errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
					 errmsg("operator family \"%s\" of access method %s contains function %s with wrong signature for support number %d",
							opfamilyname, "scbf",
							format_procedure(procform->amproc),
							procform->amprocnum)));
			result = false;
		}
	}

	/* operators */
	for (i = 0; i < oprlist->n_members; i++)
	{
		HeapTuple	oprtup = &oprlist->members[i]->tuple;
		Form_pg_amop oprform = (Form_pg_amop) GETSTRUCT(oprtup);

		if (oprform->amopstrategy != SCBF_EQUAL_STRATEGY)
		{
			ereport(INFO,
					(errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
					 errmsg("operator family \"%s\" of access method %s contains operator %s with invalid strategy number %d",
							opfamilyname, "scbf",
							format_operator(oprform->amopopr),
							oprform->amopstrategy)));
			result = false;
		}
		if (oprform->amoppurpose != AMOP_SEARCH ||
			OidIsValid(oprform->amopsortfamily))
		{
			ereport(INFO,
					(errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
					 errmsg("operator family \"%s\" of access method %s contains invalid ORDER BY specification for operator %s",
							opfamilyname, "scbf",
							format_operator(oprform->amopopr))));
			result = false;
		}
		if (!check_amop_signature(oprform->amopopr, BOOLOID,
								  oprform->amoplefttype,
								  oprform->amoprighttype))
		{
			ereport(INFO,
					(errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
					 errmsg("operator family \"%s\" of access method %s contains operator %s with wrong signature",
							opfamilyname, "scbf",
							format_operator(oprform->amopopr))));
			result = false;
		}
		if (!ScbfFamilyHasHash(proclist, oprform->amoplefttype) ||
			!ScbfFamilyHasHash(proclist, oprform->amoprighttype))
		{
			ereport(INFO,
					(errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
					 errmsg("operator family \"%s\" of access method %s lacks support function for operator %s",
							opfamilyname, "scbf",
							format_operator(oprform->amopopr))));
			result = false;
		}
	}

	/* the opclass's own group must be complete */
	grouplist = identify_opfamily_groups(oprlist, proclist);
	foreach(lc, grouplist)
	{
		OpFamilyOpFuncGroup *group = (OpFamilyOpFuncGroup *) lfirst(lc);

		if (group->lefttype == opcintype && group->righttype == opcintype)
			opclassgroup = group;
	}
	if (opclassgroup == NULL ||
		(opclassgroup->operatorset & (((uint64) 1) << SCBF_EQUAL_STRATEGY)) == 0)
	{
		ereport(INFO,
				(errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
				 errmsg("operator class \"%s\" of access method %s is missing operator(s)",
						opclassname, "scbf")));
		result = false;
	}
	if (opclassgroup == NULL ||
		(opclassgroup->functionset & (((uint64) 1) << SCBF_HASH_PROC)) == 0)
	{
		ereport(INFO,
				(errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
				 errmsg("operator class \"%s\" of access method %s is missing support function %d",
						opclassname, "scbf", SCBF_HASH_PROC)));
		result = false;
	}

	ReleaseCatCacheList(proclist);
	ReleaseCatCacheList(oprlist);
	ReleaseSysCache(familytup);
	ReleaseSysCache(classtup);

	return result;
}

/*
 * The name of type typid for a message, qualified with its schema unless
 * that is pg_catalog: the same on every major, whatever search_path the
 * build runs with (from PostgreSQL 17 on, an index build runs with only
 * pg_catalog and pg_temp in it).  palloc'd.
 */
static char *
ScbfTypeName(Oid typid)
{
	HeapTuple	tup = SearchSysCache1(TYPEOID, ObjectIdGetDatum(typid));
	bool		incatalog;

	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for type %u", typid);
	incatalog = ((Form_pg_type) GETSTRUCT(tup))->typnamespace ==
		PG_CATALOG_NAMESPACE;
	ReleaseSysCache(tup);
	return incatalog ? format_type_be(typid) : format_type_be_qualified(typid);
}

/*
 * The name of operator oprid with its argument types for a message, as
 * ScbfTypeName names a type.  palloc'd.
 */
static char *
ScbfOperatorName(Oid oprid)
{
	HeapTuple	tup = SearchSysCache1(OPEROID, ObjectIdGetDatum(oprid));
	bool		incatalog;

	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for operator %u", oprid);
	incatalog = ((Form_pg_operator) GETSTRUCT(tup))->oprnamespace ==
		PG_CATALOG_NAMESPACE;
	ReleaseSysCache(tup);
	return incatalog ? format_operator(oprid) : format_operator_qualified(oprid);
}

/*
 * ScbfCheckIndexEquality
 *		Raise an error if a key column of index is hashed by an operator
 *		family that lacks the equality operator of the column's type: the
 *		"=" of the type's default hash operator class (found as CREATE INDEX
 *		finds one, through binary coercion and domains).  The index would
 *		hash the values by another type's notion of equality (text's for a
 *		citext column) and no query on the column's own "=" could use it.
 *		Types without a default hash operator class are not checked.
 *
 * Called at the start of every build (CREATE INDEX, REINDEX, rewrites), with
 * the index open; takes no lock and leaves nothing allocated that matters.
 */
void
ScbfCheckIndexEquality(Relation index)
{
	TupleDesc	tupdesc = RelationGetDescr(index);
	int			ncols = IndexRelationGetNumberOfKeyAttributes(index);
	int			col;

	for (col = 0; col < ncols; col++)
	{
		Oid			typid = TupleDescAttr(tupdesc, col)->atttypid;
		Oid			hashopclass;
		Oid			hashintype;
		Oid			eqop;
		oidvector  *indclass;
		bool		isnull;
		HeapTuple	classtup;
		char	   *opcname;

		hashopclass = GetDefaultOpClass(typid, HASH_AM_OID);
		if (!OidIsValid(hashopclass))
			continue;
		hashintype = get_opclass_input_type(hashopclass);
		eqop = get_opfamily_member(get_opclass_family(hashopclass),
								   hashintype, hashintype,
								   HTEqualStrategyNumber);
		if (!OidIsValid(eqop) || op_in_opfamily(eqop, index->rd_opfamily[col]))
			continue;

		/* the operator class, to name it */
		indclass = (oidvector *)
			DatumGetPointer(SysCacheGetAttr(INDEXRELID, index->rd_indextuple,
											Anum_pg_index_indclass, &isnull));
		Assert(!isnull);
		classtup = SearchSysCache1(CLAOID,
								   ObjectIdGetDatum(indclass->values[col]));
		if (!HeapTupleIsValid(classtup))
			elog(ERROR, "cache lookup failed for operator class %u",
				 indclass->values[col]);
		opcname = pstrdup(NameStr(((Form_pg_opclass) GETSTRUCT(classtup))->opcname));
		ReleaseSysCache(classtup);

		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("operator class \"%s\" of access method %s does not have the equality of type %s",
						opcname, "scbf", ScbfTypeName(typid)),
				 errdetail("Column %d of index \"%s\" would be hashed as type %s, so no query using operator %s could use the index.",
						   col + 1, RelationGetRelationName(index),
						   ScbfTypeName(index->rd_opcintype[col]),
						   ScbfOperatorName(eqop)),
				 errhint("Create an scbf operator class for type %s (CREATE EXTENSION scbf_citext does for citext), or index the column cast to %s.",
						 ScbfTypeName(typid),
						 ScbfTypeName(index->rd_opcintype[col]))));
	}
}
