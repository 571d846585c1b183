/*-------------------------------------------------------------------------
 *
 * pgshim.c
 *	  The few server functions the page readers need, so that the fuzz
 *	  harnesses link them without a server.
 *
 * NOTES
 *	  ereport(ERROR) and elog(ERROR) end in errfinish(), which jumps back
 *	  to the harness (pgshim_catch) instead of the server's error handler:
 *	  a clean error.  Lower levels are dropped.
 *
 *	  The buffer manager serves the pages a harness hands to
 *	  pgshim_set_blocks() as local buffers (buffer -1 is block 0), each
 *	  page its own malloc'd buffer, and counts pins and locks; a read of a
 *	  block past the end, or any buffer call while no pages are set,
 *	  aborts.  palloc and friends keep
 *	  every chunk on a list that pgshim_free_all() frees, as a memory
 *	  context reset would after an error.  WAL, the FSM, relation
 *	  extension, fmgr and what scbfutils.c's helpers of the SQL functions
 *	  call (opening a relation, privileges, arrays) are never reached by
 *	  the readers: each aborts, so a
 *	  harness that reached one would fail loudly.  The exception is a
 *	  harness that sets pgshim_writable to call a writer (fuzz_index, the
 *	  delta's merge): then an exclusive lock is allowed, and a generic WAL
 *	  record changes the registered pages in place (no WAL is written; the
 *	  harness hands over copies of its pages).  psprintf formats into a
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
#include "access/genam.h"
#include "access/relation.h"
#include "access/table.h"
#include "access/transam.h"
#include "catalog/index.h"
#include "commands/defrem.h"
#include "commands/vacuum.h"
#include "fmgr.h"
#include "pgstat.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/bufpage.h"
#include "storage/indexfsm.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/logtape.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "pgshim.h"
#include "scbfcompat.h"

/* the C library's, not src/port's (port.h renames them; nothing links it) */
#undef fprintf
#undef vsnprintf

/* where errfinish() jumps, set by the harness; NULL: abort instead */
sigjmp_buf *pgshim_catch = NULL;

/* the last error's level and message, for the harness */
int			pgshim_elevel;
char		pgshim_message[256];

/* BufferGetPage() reads local buffers from LocalBufferBlockPointers */
char	   *BufferBlocks;
Block	   *LocalBufferBlockPointers;
int			NLocBuffer;

/* the pages of the index a harness set, their count, pins and locks */
static BlockNumber shim_nblocks;
static int *shim_pinned;
static int *shim_locked;
int			pgshim_pins;
int			pgshim_locks;
bool		pgshim_writable = false;

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

/* ---- memory: every chunk on one list, freed by pgshim_free_all ---- */

typedef struct ShimChunk
{
	struct ShimChunk *prev;
	struct ShimChunk *next;
} ShimChunk;

static ShimChunk shim_chunks = {&shim_chunks, &shim_chunks};

static void *
ShimAlloc(Size size, bool zero)
{
	ShimChunk  *c = zero ? calloc(1, sizeof(ShimChunk) + size) :
		malloc(sizeof(ShimChunk) + size);

	if (c == NULL)
		abort();
	c->next = shim_chunks.next;
	c->prev = &shim_chunks;
	c->next->prev = c;
	shim_chunks.next = c;
	return c + 1;
}

void *
palloc(Size size)
{
	return ShimAlloc(size, false);
}

void *
palloc0(Size size)
{
	return ShimAlloc(size, true);
}

void *
palloc_extended(Size size, int flags)
{
	return ShimAlloc(size, (flags & MCXT_ALLOC_ZERO) != 0);
}

void *
MemoryContextAlloc(MemoryContext context, Size size)
{
	return ShimAlloc(size, false);
}

void *
MemoryContextAllocZero(MemoryContext context, Size size)
{
	return ShimAlloc(size, true);
}

void
pfree(void *pointer)
{
	ShimChunk  *c = (ShimChunk *) pointer - 1;

	c->prev->next = c->next;
	c->next->prev = c->prev;
	free(c);
}

void *
repalloc(void *pointer, Size size)
{
	ShimChunk  *c = (ShimChunk *) pointer - 1;
	ShimChunk  *n = realloc(c, sizeof(ShimChunk) + size);

	if (n == NULL)
		abort();
	n->prev->next = n;
	n->next->prev = n;
	return n + 1;
}

void *
repalloc_huge(void *pointer, Size size)
{
	return repalloc(pointer, size);
}

/*
 * Free every chunk palloc'd since the last call (the end of an input).
 */
void
pgshim_free_all(void)
{
	while (shim_chunks.next != &shim_chunks)
		pfree(shim_chunks.next + 1);
}

/* PostgreSQL's qsort is pg_qsort (port.h); the C library's will do */
#undef qsort
void
pg_qsort(void *base, size_t nel, size_t elsize,
		 int (*cmp) (const void *, const void *))
{
	qsort(base, nel, elsize, cmp);
}

/* ---- the buffer manager, over the pages the harness set ---- */

#define UNREACHED(name) \
	do { fprintf(stderr, "pgshim: %s called\n", name); abort(); } while (0)

/*
 * Serve pages[0 .. nblocks) as the index's blocks (NULL, 0: none).
 */
void
pgshim_set_blocks(Page *pages, BlockNumber nblocks)
{
	free(shim_pinned);
	free(shim_locked);
	shim_pinned = nblocks ? calloc(nblocks, sizeof(int)) : NULL;
	shim_locked = nblocks ? calloc(nblocks, sizeof(int)) : NULL;
	LocalBufferBlockPointers = (Block *) pages;
	NLocBuffer = nblocks;
	shim_nblocks = nblocks;
	pgshim_pins = pgshim_locks = 0;
}

/*
 * Drop every pin and lock, as transaction abort does after an error.
 */
void
pgshim_release_all(void)
{
	for (BlockNumber b = 0; b < shim_nblocks; b++)
		shim_pinned[b] = shim_locked[b] = 0;
	pgshim_pins = pgshim_locks = 0;
}

/* The block of a buffer, which must be pinned */
static BlockNumber
ShimBlock(Buffer buffer, const char *caller)
{
	BlockNumber b = (BlockNumber) (-buffer - 1);

	if (shim_nblocks == 0)
		UNREACHED(caller);
	if (buffer >= 0 || b >= shim_nblocks || shim_pinned[b] == 0)
	{
		fprintf(stderr, "pgshim: %s of buffer %d, not pinned\n", caller, buffer);
		abort();
	}
	return b;
}

BlockNumber
RelationGetNumberOfBlocksInFork(Relation relation, ForkNumber forkNum)
{
	if (shim_nblocks == 0)
		UNREACHED("RelationGetNumberOfBlocksInFork");
	return shim_nblocks;
}

Buffer
ReadBuffer(Relation reln, BlockNumber blockNum)
{
	if (shim_nblocks == 0)
		UNREACHED("ReadBuffer");
	if (blockNum >= shim_nblocks)
	{
		fprintf(stderr, "pgshim: ReadBuffer of block %u, past the index's %u blocks: a walk without its guard\n",
				blockNum, shim_nblocks);
		abort();
	}
	shim_pinned[blockNum]++;
	pgshim_pins++;
	return -(Buffer) blockNum - 1;
}

/*
 * The shim keeps no buffers between reads, so a buffer remembered from an
 * earlier read is never still there: ScbfReadBuffer reads again.
 */
bool
ReadRecentBuffer(ScbfRelFileLocator rlocator, ForkNumber forkNum,
				 BlockNumber blockNum, Buffer recent_buffer)
{
	return false;
}

/* Statistics are never counted: ReadRecentBuffer never finds a buffer */
void
pgstat_assoc_relation(Relation rel)
{
	UNREACHED("pgstat_assoc_relation");
}

void
LockBuffer(Buffer buffer, int mode)
{
	BlockNumber b = ShimBlock(buffer, "LockBuffer");

	if (mode == BUFFER_LOCK_UNLOCK)
	{
		if (shim_locked[b] == 0)
		{
			fprintf(stderr, "pgshim: unlock of block %u, not locked\n", b);
			abort();
		}
		shim_locked[b]--;
		pgshim_locks--;
		return;
	}
	if (mode != BUFFER_LOCK_SHARE && !pgshim_writable)
		UNREACHED("LockBuffer (exclusive)");
	shim_locked[b]++;
	pgshim_locks++;
}


void
ReleaseBuffer(Buffer buffer)
{
	BlockNumber b = ShimBlock(buffer, "ReleaseBuffer");

	shim_pinned[b]--;
	pgshim_pins--;
}

void
UnlockReleaseBuffer(Buffer buffer)
{
	LockBuffer(buffer, BUFFER_LOCK_UNLOCK);
	ReleaseBuffer(buffer);
}

BlockNumber
BufferGetBlockNumber(Buffer buffer)
{
	return ShimBlock(buffer, "BufferGetBlockNumber");
}

/* ---- never reached: each aborts ---- */

void
ProcessInterrupts(void)
{
	UNREACHED("ProcessInterrupts");
}




bool
ConditionalLockBuffer(Buffer buffer)
{
	UNREACHED("ConditionalLockBuffer");
}




/*
 * Generic WAL records, only while pgshim_writable: the registered page is
 * the buffer's own, changed in place; nothing is logged.
 */
static int	shim_xlog_state;

GenericXLogState *
GenericXLogStart(Relation relation)
{
	if (!pgshim_writable)
		UNREACHED("GenericXLogStart");
	return (GenericXLogState *) &shim_xlog_state;
}

Page
GenericXLogRegisterBuffer(GenericXLogState *state, Buffer buffer, int flags)
{
	BlockNumber b = ShimBlock(buffer, "GenericXLogRegisterBuffer");

	if (!pgshim_writable)
		UNREACHED("GenericXLogRegisterBuffer");
	if (shim_locked[b] == 0)
	{
		fprintf(stderr, "pgshim: a WAL record of block %u, not locked\n", b);
		abort();
	}
	return BufferGetPage(buffer);
}

XLogRecPtr
GenericXLogFinish(GenericXLogState *state)
{
	if (!pgshim_writable)
		UNREACHED("GenericXLogFinish");
	return InvalidXLogRecPtr;
}

/*
 * The tapes of a band written in several passes (scbfrows.c): the
 * harness's bands take one pass.
 */
LogicalTapeSet *
LogicalTapeSetCreate(bool preallocate, SharedFileSet *fileset, int worker)
{
	UNREACHED("LogicalTapeSetCreate");
}

LogicalTape *
LogicalTapeCreate(LogicalTapeSet *lts)
{
	UNREACHED("LogicalTapeCreate");
}

void
LogicalTapeWrite(LogicalTape *lt, void *ptr, size_t size)
{
	UNREACHED("LogicalTapeWrite");
}

void
LogicalTapeRewindForRead(LogicalTape *lt, size_t buffer_size)
{
	UNREACHED("LogicalTapeRewindForRead");
}

void
LogicalTapeFreeze(LogicalTape *lt, TapeShare *share)
{
	UNREACHED("LogicalTapeFreeze");
}

size_t
LogicalTapeRead(LogicalTape *lt, void *ptr, size_t size)
{
	UNREACHED("LogicalTapeRead");
}

void
LogicalTapeClose(LogicalTape *lt)
{
	UNREACHED("LogicalTapeClose");
}

void
LogicalTapeSetClose(LogicalTapeSet *lts)
{
	UNREACHED("LogicalTapeSetClose");
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
IndexFreeSpaceMapVacuum(Relation rel)
{
	UNREACHED("IndexFreeSpaceMapVacuum");
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

/* ---- what scbfutils.c's helpers of the SQL functions call ---- */

Oid
IndexGetRelation(Oid indexId, bool missing_ok)
{
	UNREACHED("IndexGetRelation");
}

Relation
try_relation_open(Oid relationId, LOCKMODE lockmode)
{
	UNREACHED("try_relation_open");
}

Relation
try_table_open(Oid relationId, LOCKMODE lockmode)
{
	UNREACHED("try_table_open");
}

void
index_close(Relation relation, LOCKMODE lockmode)
{
	UNREACHED("index_close");
}

void
table_close(Relation relation, LOCKMODE lockmode)
{
	UNREACHED("table_close");
}

Oid
get_index_am_oid(const char *amname, bool missing_ok)
{
	UNREACHED("get_index_am_oid");
}

Oid
GetUserId(void)
{
	UNREACHED("GetUserId");
}

AclResult
pg_class_aclcheck(Oid table_oid, Oid roleid, AclMode mode)
{
	UNREACHED("pg_class_aclcheck");
}

void
aclcheck_error(AclResult aclerr, ObjectType objtype, const char *objectname)
{
	UNREACHED("aclcheck_error");
}

text *
cstring_to_text(const char *s)
{
	UNREACHED("cstring_to_text");
}

ArrayType *
construct_array(Datum *elems, int nelems, Oid elmtype, int elmlen,
				bool elmbyval, char elmalign)
{
	UNREACHED("construct_array");
}

void
GenericXLogAbort(GenericXLogState *state)
{
	if (!pgshim_writable)
		UNREACHED("GenericXLogAbort");
}

void
MarkBufferDirty(Buffer buffer)
{
	UNREACHED("MarkBufferDirty");
}

FullTransactionId
ReadNextFullTransactionId(void)
{
	UNREACHED("ReadNextFullTransactionId");
}

bool
GlobalVisCheckRemovableFullXid(Relation rel, FullTransactionId fxid)
{
	UNREACHED("GlobalVisCheckRemovableFullXid");
}

/* 18 gave it an is_analyze argument (see ScbfVacuumDelayPoint) */
#if PG_VERSION_NUM >= 180000
void
vacuum_delay_point(bool is_analyze)
#else
void
vacuum_delay_point(void)
#endif
{
	UNREACHED("vacuum_delay_point");
}

/* the harnesses read an index as a primary does */
bool
RecoveryInProgress(void)
{
	return false;
}

/*
 * read by the build's row pass (scbfrows.c), never reached, and by the
 * delta's merge (scbfdelta.c), whose groups of partitions fit in it
 */
int			maintenance_work_mem = 65536;
