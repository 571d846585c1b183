/*-------------------------------------------------------------------------
 *
 * scbfcompat.h
 *	  PostgreSQL version shims for scbf.
 *
 * All PG_VERSION_NUM tests live here or next to the one callback whose
 * signature differs.  scbf is written for and tested on PostgreSQL 15, the
 * major Debian 12 ships; the on-disk format does not depend on the server
 * version.
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

#if PG_VERSION_NUM >= 160000
#error "scbf has not been ported to PostgreSQL 16 or later yet (see README, Upgrading)"
#endif

/*
 * A relation's storage: RelFileNode until 15, RelFileLocator from 16.
 */
#if PG_VERSION_NUM >= 160000
#define ScbfRelFileLocator				RelFileLocator
#define ScbfRelationLocator(rel)		((rel)->rd_locator)
#define ScbfLocatorEquals(a, b)			RelFileLocatorEquals(a, b)
#else
#define ScbfRelFileLocator				RelFileNode
#define ScbfRelationLocator(rel)		((rel)->rd_node)
#define ScbfLocatorEquals(a, b)			RelFileNodeEquals(a, b)
#endif

#endif							/* SCBFCOMPAT_H */
