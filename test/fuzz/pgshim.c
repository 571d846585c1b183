/*-------------------------------------------------------------------------
 *
 * pgshim.c
 *	  The few server functions src/scbfpage.c needs, so that the fuzz
 *	  harness links it without a server.
 *
 * NOTES
 *	  ereport(ERROR) and elog(ERROR) end in errfinish(), which jumps back
 *	  to the harness (pgshim_catch) instead of the server's error handler:
 *	  a clean error.  Lower levels are dropped.  The buffer manager, WAL,
 *	  FSM and fmgr calls are never reached by the functions the harness
 *	  calls (they take a page image, not a buffer): each aborts, so a
 *	  harness that reached one would fail loudly.  psprintf formats into a
 *	  static ring, since nothing frees what it returns.
 *
 * Portions Copyright (c) 2026, scbf developers
 *
 * IDENTIFICATION
 *	  test/fuzz/pgshim.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

#include "access/generic_xlog.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/bufpage.h"
#include "storage/indexfsm.h"
#include "storage/lmgr.h"
#include "utils/rel.h"

#include "pgshim.h"

/* the C library's, not src/port's (port.h renames them; nothing links it) */
#undef fprintf
#undef vsnprintf

/* where errfinish() jumps, set by the harness; NULL: abort instead */
sigjmp_buf *pgshim_catch = NULL;

/* the last error's level and message, for the harness */
int			pgshim_elevel;
char		pgshim_message[256];

/* never read: BufferGetPage() refers to them */
char	   *BufferBlocks;
Block	   *LocalBufferBlockPointers;

/* CHECK_FOR_INTERRUPTS() reads it; nothing sets it here */
volatile sig_atomic_t InterruptPending = false;

static int	cur_elevel;

bool
errstart(int elevel, const char *domain)
{
	cur_elevel = elevel;
	return elevel >= ERROR;
}

bool
errstart_cold(int elevel, const char *domain)
{
	return errstart(elevel, domain);
}

int
errcode(int sqlerrcode)
{
	return 0;
}

int
errmsg(const char *fmt,...)
{
	va_list		ap;

	va_start(ap, fmt);
	vsnprintf(pgshim_message, sizeof(pgshim_message), fmt, ap);
	va_end(ap);
	return 0;
}

int
errmsg_internal(const char *fmt,...)
{
	va_list		ap;

	va_start(ap, fmt);
	vsnprintf(pgshim_message, sizeof(pgshim_message), fmt, ap);
	va_end(ap);
	return 0;
}

int
errdetail(const char *fmt,...)
{
	return 0;
}

int
errhint(const char *fmt,...)
{
	return 0;
}

void
errfinish(const char *filename, int lineno, const char *funcname)
{
	pgshim_elevel = cur_elevel;
	if (pgshim_catch == NULL)
	{
		fprintf(stderr, "pgshim: uncaught error at %s:%d: %s\n",
				filename, lineno, pgshim_message);
		abort();
	}
	siglongjmp(*pgshim_catch, 1);
}

char *
psprintf(const char *fmt,...)
{
	static char ring[4][256];
	static int	next;
	char	   *buf = ring[next++ % 4];
	va_list		ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(ring[0]), fmt, ap);
	va_end(ap);
	return buf;
}

char *
pstrdup(const char *in)
{
	return psprintf("%s", in);
}

/*
 * PageInit, as the server's (src/backend/storage/page/bufpage.c): the
 * harness builds its seed pages with it.
 */
void
PageInit(Page page, Size pageSize, Size specialSize)
{
	PageHeader	p = (PageHeader) page;

	specialSize = MAXALIGN(specialSize);
	memset(p, 0, pageSize);
	p->pd_flags = 0;
	p->pd_lower = SizeOfPageHeaderData;
	p->pd_upper = pageSize - specialSize;
	p->pd_special = pageSize - specialSize;
	PageSetPageSizeAndVersion(page, pageSize, PG_PAGE_LAYOUT_VERSION);
}

void *
MemoryContextAllocZero(MemoryContext context, Size size)
{
	return calloc(1, size);
}

/* ---- never reached: each aborts ---- */

#define UNREACHED(name) \
	do { fprintf(stderr, "pgshim: %s called\n", name); abort(); } while (0)

void
ProcessInterrupts(void)
{
	UNREACHED("ProcessInterrupts");
}

BlockNumber
RelationGetNumberOfBlocksInFork(Relation relation, ForkNumber forkNum)
{
	UNREACHED("RelationGetNumberOfBlocksInFork");
}

Buffer
ReadBuffer(Relation reln, BlockNumber blockNum)
{
	UNREACHED("ReadBuffer");
}

void
LockBuffer(Buffer buffer, int mode)
{
	UNREACHED("LockBuffer");
}

bool
ConditionalLockBuffer(Buffer buffer)
{
	UNREACHED("ConditionalLockBuffer");
}

void
ReleaseBuffer(Buffer buffer)
{
	UNREACHED("ReleaseBuffer");
}

void
UnlockReleaseBuffer(Buffer buffer)
{
	UNREACHED("UnlockReleaseBuffer");
}

BlockNumber
BufferGetBlockNumber(Buffer buffer)
{
	UNREACHED("BufferGetBlockNumber");
}

GenericXLogState *
GenericXLogStart(Relation relation)
{
	UNREACHED("GenericXLogStart");
}

Page
GenericXLogRegisterBuffer(GenericXLogState *state, Buffer buffer, int flags)
{
	UNREACHED("GenericXLogRegisterBuffer");
}

XLogRecPtr
GenericXLogFinish(GenericXLogState *state)
{
	UNREACHED("GenericXLogFinish");
}

BlockNumber
GetFreeIndexPage(Relation rel)
{
	UNREACHED("GetFreeIndexPage");
}

void
RecordFreeIndexPage(Relation rel, BlockNumber freeBlock)
{
	UNREACHED("RecordFreeIndexPage");
}

void
LockRelationForExtension(Relation relation, LOCKMODE lockmode)
{
	UNREACHED("LockRelationForExtension");
}

void
UnlockRelationForExtension(Relation relation, LOCKMODE lockmode)
{
	UNREACHED("UnlockRelationForExtension");
}

FmgrInfo *
index_getprocinfo(Relation irel, AttrNumber attnum, uint16 procnum)
{
	UNREACHED("index_getprocinfo");
}

Datum
FunctionCall1Coll(FmgrInfo *flinfo, Oid collation, Datum arg1)
{
	UNREACHED("FunctionCall1Coll");
}
