/*-------------------------------------------------------------------------
 *
 * scbfcompat.h
 *	  PostgreSQL version shims for scbf.
 *
 * All PG_VERSION_NUM tests live here, in the AM handler (fields that later
 * majors added to IndexAmRoutine, PG_MODULE_MAGIC_EXT) or next to the one
 * callback whose signature differs.  scbf is tested on PostgreSQL 15 (Debian
 * 12), 17 (Debian 13) and 18 (sid); 16 is expected to build (its changes are
 * shimmed here) but is not tested.  The on-disk format does not depend on
 * the server version.
 *
 * Portions Copyright (c) 2026, scbf developers
 *
 * IDENTIFICATION
 *	  src/scbfcompat.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SCBFCOMPAT_H
#define SCBFCOMPAT_H

#include "pg_config.h"

#if PG_VERSION_NUM < 150000
#error "scbf requires PostgreSQL 15 or later"
#endif

#if PG_VERSION_NUM >= 190000
#error "scbf has not been ported to PostgreSQL 19 or later yet (see README, Upgrading)"
#endif

/*
 * A relation's storage: RelFileNode until 15, RelFileLocator from 16; and
 * the subtransaction that gave it new storage in this transaction.
 */
#if PG_VERSION_NUM >= 160000
#define ScbfRelFileLocator				RelFileLocator
#define ScbfRelationLocator(rel)		((rel)->rd_locator)
#define ScbfLocatorEquals(a, b)			RelFileLocatorEquals(a, b)
#define ScbfRelationNewStorageSubid(rel)	((rel)->rd_firstRelfilelocatorSubid)
#else
#define ScbfRelFileLocator				RelFileNode
#define ScbfRelationLocator(rel)		((rel)->rd_node)
#define ScbfLocatorEquals(a, b)			RelFileNodeEquals(a, b)
#define ScbfRelationNewStorageSubid(rel)	((rel)->rd_firstRelfilenodeSubid)
#endif

/*
 * The storage of an SMgrRelation, for log_newpage(): smgr_rnode.node until
 * 15, smgr_rlocator.locator from 16.
 */
#if PG_VERSION_NUM >= 160000
#define ScbfSmgrLocator(smgr)			(&(smgr)->smgr_rlocator.locator)
#else
#define ScbfSmgrLocator(smgr)			(&(smgr)->smgr_rnode.node)
#endif

/*
 * Ownership checks: pg_class_ownercheck() until 15, the generic
 * object_ownercheck() from 16 (utils/acl.h, RelationRelationId from
 * catalog/pg_class.h, which utils/rel.h includes).
 */
#if PG_VERSION_NUM >= 160000
#define pg_class_ownercheck(relid, roleid) \
	object_ownercheck(RelationRelationId, (relid), (roleid))
#endif

/*
 * Cost-based vacuum delay: vacuum_delay_point() gained an is_analyze
 * argument in 18; scbf calls it only from VACUUM.
 */
#if PG_VERSION_NUM >= 180000
#define ScbfVacuumDelayPoint()			vacuum_delay_point(false)
#else
#define ScbfVacuumDelayPoint()			vacuum_delay_point()
#endif

/*
 * Whether this backend is an autovacuum worker: IsAutoVacuumWorkerProcess()
 * (postmaster/autovacuum.h) until 16, AmAutoVacuumWorkerProcess()
 * (miscadmin.h) from 17.
 */
#if PG_VERSION_NUM >= 170000
#define ScbfIsAutoVacuumWorker()		AmAutoVacuumWorkerProcess()
#else
#define ScbfIsAutoVacuumWorker()		IsAutoVacuumWorkerProcess()
#endif

/*
 * Elements of an "= ANY" array: estimate_array_length() gained a root
 * argument in 17, for statistics of non-constant arrays.  NULL (allowed)
 * keeps 15's estimate: the length of a constant array, else 10.
 */
#if PG_VERSION_NUM >= 170000
#define ScbfEstimateArrayLength(arrayexpr)	estimate_array_length(NULL, (arrayexpr))
#else
#define ScbfEstimateArrayLength(arrayexpr)	estimate_array_length(arrayexpr)
#endif

/*
 * EXPLAIN ANALYZE's "Index Searches" (18): the access method counts each
 * search of the index in the scan's instrumentation, when it has one.
 */
#if PG_VERSION_NUM >= 180000
#define ScbfCountIndexSearch(scan) \
	do { \
		if ((scan)->instrument) \
			(scan)->instrument->nsearches++; \
	} while (0)
#else
#define ScbfCountIndexSearch(scan)		((void) 0)
#endif

/*
 * "Snapshot too old": old_snapshot_threshold and TestForOldSnapshot() were
 * removed in 17, so a scan has nothing to check there.
 */
#if PG_VERSION_NUM >= 170000
#define TestForOldSnapshot(snapshot, relation, page)	((void) 0)
#endif

/*
 * Comparisons of unsigned integers for qsort and bsearch (scbf.h):
 * common/int.h has them from 17.
 */
#if PG_VERSION_NUM >= 170000
#include "common/int.h"
#else
static inline int
pg_cmp_u16(uint16 a, uint16 b)
{
	return (int32) a - (int32) b;
}

static inline int
pg_cmp_u32(uint32 a, uint32 b)
{
	return (a > b) - (a < b);
}

static inline int
pg_cmp_u64(uint64 a, uint64 b)
{
	return (a > b) - (a < b);
}
#endif

/*
 * 18 replaced the trailing pg_attribute_noreturn() by a leading
 * pg_noreturn; scbf.h keeps the trailing form, which GCC and Clang accept.
 */
#ifndef pg_attribute_noreturn
#if defined(__GNUC__) || defined(__clang__)
#define pg_attribute_noreturn()		__attribute__((noreturn))
#else
#define pg_attribute_noreturn()
#endif
#endif

/*
 * Splitting a qualified name (utils/varlena.h): stringToQualifiedNameList()
 * took an error context (soft errors) from 16.
 */
#if PG_VERSION_NUM >= 160000
#define ScbfQualifiedNameList(s)		stringToQualifiedNameList((s), NULL)
#else
#define ScbfQualifiedNameList(s)		stringToQualifiedNameList(s)
#endif

/*
 * A hint to the CPU to fetch the cache line at addr; nothing where the
 * compiler has no such builtin.
 */
#if defined(__GNUC__) || defined(__clang__)
#define ScbfPrefetch(addr)				__builtin_prefetch(addr)
#else
#define ScbfPrefetch(addr)				((void) (addr))
#endif

#endif							/* SCBFCOMPAT_H */
