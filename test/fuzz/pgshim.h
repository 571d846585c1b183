/*-------------------------------------------------------------------------
 *
 * pgshim.h
 *	  What the fuzz harness sees of its server shim (pgshim.c).
 *
 * Portions Copyright (c) 2026, scbf developers
 *
 * IDENTIFICATION
 *	  test/fuzz/pgshim.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PGSHIM_H
#define PGSHIM_H

#include <setjmp.h>

/* where ereport(ERROR) jumps; the harness sets it around each call */
extern sigjmp_buf *pgshim_catch;
extern int	pgshim_elevel;
extern char pgshim_message[256];

#endif							/* PGSHIM_H */
