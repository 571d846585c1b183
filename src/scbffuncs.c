/*-------------------------------------------------------------------------
 *
 * scbffuncs.c
 *	  SQL-callable diagnostic and maintenance functions of scbf.
 *
 * Portions Copyright (c) 2026, scbf developers
 *
 * IDENTIFICATION
 *	  src/scbffuncs.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "scbf.h"
