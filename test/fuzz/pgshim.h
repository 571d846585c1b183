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

#include "storage/block.h"
#include "storage/bufpage.h"

/* where ereport(ERROR) jumps; the harness sets it around each call */
extern sigjmp_buf *pgshim_catch;
extern int	pgshim_elevel;
extern char pgshim_message[256];

/* the buffer manager and memory of the format-2 harness */
extern int	pgshim_pins;
extern int	pgshim_locks;
extern bool pgshim_writable;	/* allow exclusive locks and WAL records */
extern void pgshim_set_blocks(Page *pages, BlockNumber nblocks);
extern void pgshim_release_all(void);
extern void pgshim_free_all(void);

#endif							/* PGSHIM_H */
