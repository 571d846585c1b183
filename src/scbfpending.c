/*-------------------------------------------------------------------------
 *
 * scbfpending.c
 *	  The pending area, where inserted entries wait to
 *	  be folded into the filters (GIN's fast update, ginfast.c, is the
 *	  model).
 *
 * NOTES
 *	  SCBF_NPENDING partitions, chosen by the top bits of the first
 *	  column's hash, each a chain of pages from the metapage's head to its
 *	  tail.  An insert batch (scbfbatch.c) is appended partition by
 *	  partition, as many entries per WAL record as fit on the tail page,
 *	  and a small batch's partitions a few per record; entries sit below
 *	  pd_lower, so generic WAL logs only the appended bytes.  A probe of a
 *	  value reads only its partition.
 *
 *	  Locks: an append locks its partition's tail page (several tails in
 *	  partition order), and when it links a new tail also the new page and
 *	  then the metapage (tails before metapage, always).  The tail named by the metapage is never freed, so
 *	  an appender that locks it finds a pending page; if it has a successor
 *	  by then, another appender extended the chain, and it starts over.
 *	  Readers copy the metapage, then each page under a share lock, and
 *	  check each page's serial: a page that is not the one expected was
 *	  freed behind the reader's back, and ScbfPendingScan says so.
 *
 *	  The metapage flags a partition that may hold entries past its cut
 *	  (SCBF_PENDING_MAYHAVE), so that a probe skips empty partitions
 *	  without reading their head pages: an append that finds the tail
 *	  holding no entry past the cut sets the flag in its own record (under
 *	  the tail's lock, then the metapage's); a fold's commit recomputes it
 *	  under the cut page's lock (scbfutils.c).  An entry a snapshot can
 *	  see was appended before the probe copied the metapage, so the flag
 *	  the probe copied covers it.
 *
 * Portions Copyright (c) 2026, scbf developers
 *
 * IDENTIFICATION
 *	  src/scbfpending.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/generic_xlog.h"
#include "miscadmin.h"
#include "utils/rel.h"

#include "scbf.h"
#include "scbf_page.h"

/*
 * The partition of an entry, from its first column's hash.
 */
int
ScbfPendingPartition(ScbfHash hash0)
{
	return (int) ((uint32) hash0 >> 28);
}

/*
 * Initialize a new pending page of partition part with the given serial.
 */
static void
InitPendingPage(Page page, int part, uint32 serial)
{
	ScbfPageOpaque opaque;

	opaque = ScbfInitPage(page, SCBF_PAGE_PENDING,
						  MAXALIGN(sizeof(ScbfPendingPageData)));
	opaque->ident.pending.partition = (uint32) part;
	opaque->ident.pending.serial = serial;
	ScbfPageGetPending(page)->next = InvalidBlockNumber;
}

/*
 * Append up to n packed entries to a pending page (a WAL-registered
 * image); returns how many fit.
 */
static int
FillPendingPage(Page page, Size esize, const char *entries, int n)
{
	ScbfPendingPageData *pd = ScbfPageGetPending(page);
	int			room = (int) (SCBF_PENDING_BYTES / esize) - pd->nentries;
	int			k = Min(Max(room, 0), n);

	memcpy(ScbfPendingEntries(page) + esize * pd->nentries, entries,
		   esize * k);
	pd->nentries += k;
	((PageHeader) page)->pd_lower =
		(ScbfPendingEntries(page) + esize * pd->nentries) - (char *) page;
	return k;
}

/*
 * Start partition part's chain with a new page holding as many of the n
 * entries as fit.  Returns how many, or -1 if another backend started the
 * chain first.
 */
static int
StartPartition(Relation index, int part, Size esize,
					const char *entries, int n)
{
	Buffer		metabuf = ReadBuffer(index, SCBF_METAPAGE_BLKNO);
	Buffer		newbuf;
	GenericXLogState *xlog;
	Page		metapage;
	Page		newpage;
	ScbfMetaPageData *meta;
	int			k;

	LockBuffer(metabuf, BUFFER_LOCK_EXCLUSIVE);
	if (ScbfPageGetMeta(BufferGetPage(metabuf))->pending[part].tail !=
		InvalidBlockNumber)
	{
		UnlockReleaseBuffer(metabuf);
		return -1;
	}
	newbuf = ScbfNewBuffer(index);

	xlog = GenericXLogStart(index);
	metapage = GenericXLogRegisterBuffer(xlog, metabuf, 0);
	newpage = GenericXLogRegisterBuffer(xlog, newbuf, GENERIC_XLOG_FULL_IMAGE);
	InitPendingPage(newpage, part, 1);
	k = FillPendingPage(newpage, esize, entries, n);
	meta = ScbfPageGetMeta(metapage);
	meta->pending[part].head = BufferGetBlockNumber(newbuf);
	meta->pending[part].tail = BufferGetBlockNumber(newbuf);
	meta->pending[part].head_serial = 1;
	meta->pending[part].cut = 0;
	meta->pending[part].flags |= SCBF_PENDING_MAYHAVE;
	GenericXLogFinish(xlog);

	UnlockReleaseBuffer(newbuf);
	UnlockReleaseBuffer(metabuf);
	return k;
}

/*
 * Append as many of n packed entries as fit to partition part's tail,
 * linking a new tail if it is full.  Returns how many, or -1 if the tail
 * the metapage named has a successor by now (start over).
 */
static int
AppendToTail(Relation index, int part, BlockNumber tailblk, Size esize,
				  const char *entries, int n, BlockNumber nblocks,
				  bool *foldwanted)
{
	Buffer		tailbuf;
	Page		tailpage;
	GenericXLogState *xlog;
	Buffer		newbuf;
	Buffer		metabuf;
	Page		newpage;
	ScbfMetaPageData *meta;
	uint32		serial;
	int			k;

	tailbuf = ScbfReadPage(index, tailblk, BUFFER_LOCK_EXCLUSIVE,
							SCBF_PAGE_PENDING, nblocks);
	tailpage = BufferGetPage(tailbuf);
	if (ScbfPageGetOpaque(tailpage)->ident.pending.partition != (uint32) part)
	{
		UnlockReleaseBuffer(tailbuf);
		ScbfReportCorrupt(index, tailblk,
						  "The metapage names as a pending tail a page of another partition.");
	}
	if (ScbfPageGetPending(tailpage)->next != InvalidBlockNumber)
	{
		bool		stale;

		/*
		 * Another append linked a new tail and named it in the metapage in
		 * the same record; a metapage that still names this page as the
		 * tail means a corrupted chain, where starting over would spin.
		 */
		metabuf = ReadBuffer(index, SCBF_METAPAGE_BLKNO);
		LockBuffer(metabuf, BUFFER_LOCK_SHARE);
		stale = ScbfPageGetMeta(BufferGetPage(metabuf))->pending[part].tail !=
			tailblk;
		UnlockReleaseBuffer(metabuf);
		UnlockReleaseBuffer(tailbuf);
		if (!stale)
			ScbfReportCorrupt(index, tailblk,
							  "The pending tail the metapage names has a successor.");
		return -1;
	}

	if ((Size) (ScbfPageGetPending(tailpage)->nentries + 1) * esize <=
		SCBF_PENDING_BYTES)
	{
		bool		flag = false;

		/* the partition looks empty to probes: flag it in this record */
		metabuf = ReadBuffer(index, SCBF_METAPAGE_BLKNO);
		LockBuffer(metabuf, BUFFER_LOCK_SHARE);
		if (!(ScbfPageGetMeta(BufferGetPage(metabuf))->pending[part].flags &
			  SCBF_PENDING_MAYHAVE))
		{
			LockBuffer(metabuf, BUFFER_LOCK_UNLOCK);
			LockBuffer(metabuf, BUFFER_LOCK_EXCLUSIVE);
			flag = !(ScbfPageGetMeta(BufferGetPage(metabuf))->pending[part].flags &
					 SCBF_PENDING_MAYHAVE);
		}
		xlog = GenericXLogStart(index);
		tailpage = GenericXLogRegisterBuffer(xlog, tailbuf, 0);
		k = FillPendingPage(tailpage, esize, entries, n);
		if (flag)
			ScbfPageGetMeta(GenericXLogRegisterBuffer(xlog, metabuf, 0))->pending[part].flags |=
				SCBF_PENDING_MAYHAVE;
		GenericXLogFinish(xlog);
		UnlockReleaseBuffer(metabuf);
		UnlockReleaseBuffer(tailbuf);
		return k;
	}

	/* full: link a new tail (lock order: tail, new page, metapage) */
	serial = ScbfPageGetOpaque(tailpage)->ident.pending.serial + 1;
	newbuf = ScbfNewBuffer(index);
	metabuf = ReadBuffer(index, SCBF_METAPAGE_BLKNO);
	LockBuffer(metabuf, BUFFER_LOCK_EXCLUSIVE);

	xlog = GenericXLogStart(index);
	tailpage = GenericXLogRegisterBuffer(xlog, tailbuf, 0);
	newpage = GenericXLogRegisterBuffer(xlog, newbuf, GENERIC_XLOG_FULL_IMAGE);
	InitPendingPage(newpage, part, serial);
	k = FillPendingPage(newpage, esize, entries, n);
	ScbfPageGetPending(tailpage)->next = BufferGetBlockNumber(newbuf);
	meta = ScbfPageGetMeta(GenericXLogRegisterBuffer(xlog, metabuf, 0));
	meta->pending[part].tail = BufferGetBlockNumber(newbuf);
	meta->pending[part].flags |= SCBF_PENDING_MAYHAVE;
	if (serial - meta->pending[part].head_serial + 1 >= SCBF_FOLD_PAGES)
		*foldwanted = true;
	GenericXLogFinish(xlog);

	UnlockReleaseBuffer(metabuf);
	UnlockReleaseBuffer(newbuf);
	UnlockReleaseBuffer(tailbuf);
	return k;
}

/*
 * Append n packed entries to partition part.
 */
static void
AppendPartition(Relation index, int part, Size esize,
					 const char *entries, int n, bool *foldwanted)
{
	int			done = 0;

	while (done < n)
	{
		Buffer		metabuf;
		BlockNumber tailblk;
		int			k;

		CHECK_FOR_INTERRUPTS();
		metabuf = ReadBuffer(index, SCBF_METAPAGE_BLKNO);
		LockBuffer(metabuf, BUFFER_LOCK_SHARE);
		tailblk = ScbfPageGetMeta(BufferGetPage(metabuf))->pending[part].tail;
		UnlockReleaseBuffer(metabuf);

		if (tailblk == InvalidBlockNumber)
			k = StartPartition(index, part, esize, entries + esize * done,
									n - done);
		else
			k = AppendToTail(index, part, tailblk, esize,
								  entries + esize * done, n - done,
								  RelationGetNumberOfBlocks(index),
								  foldwanted);
		if (k > 0)
			done += k;
	}
}

/*
 * Append, in one WAL record, the entries of up to MAX_GENERIC_XLOG_PAGES
 * partitions (parts[0 .. nparts), ascending; entries of parts[i] at
 * entries[i], counts[i] of them) whose tails have room for all of them:
 * a flush of a few rows spread over several partitions costs one record
 * instead of one per partition.  Tails are locked in partition order, then
 * the metapage if a partition needs its flag (at most MAX - 1 tails then).
 * Sets done[i] for the partitions appended; the caller appends the others
 * one by one (AppendPartition).
 */
static void
AppendGroup(Relation index, Size esize, const int *parts, int nparts,
				 char *const *entries, const int *counts, bool *done)
{
	Buffer		bufs[MAX_GENERIC_XLOG_PAGES];
	int			which[MAX_GENERIC_XLOG_PAGES];
	BlockNumber tails[MAX_GENERIC_XLOG_PAGES];
	bool		flag[MAX_GENERIC_XLOG_PAGES];	/* of bufs[i] */
	BlockNumber nblocks;
	Buffer		metabuf = ReadBuffer(index, SCBF_METAPAGE_BLKNO);
	ScbfMetaPageData *meta;
	GenericXLogState *xlog;
	bool		needmeta = false;
	int			nlocked = 0;
	int			i;

	LockBuffer(metabuf, BUFFER_LOCK_SHARE);
	meta = ScbfPageGetMeta(BufferGetPage(metabuf));
	for (i = 0; i < nparts; i++)
		tails[i] = meta->pending[parts[i]].tail;
	LockBuffer(metabuf, BUFFER_LOCK_UNLOCK);
	/* after the tails were read: a tail linked since is within it */
	nblocks = RelationGetNumberOfBlocks(index);

	for (i = 0; i < nparts && nlocked < MAX_GENERIC_XLOG_PAGES; i++)
	{
		Buffer		buf;
		Page		page;

		if (tails[i] == InvalidBlockNumber)
			continue;
		buf = ScbfReadPage(index, tails[i], BUFFER_LOCK_EXCLUSIVE,
							SCBF_PAGE_PENDING, nblocks);
		page = BufferGetPage(buf);
		if (ScbfPageGetOpaque(page)->ident.pending.partition != (uint32) parts[i] ||
			ScbfPageGetPending(page)->next != InvalidBlockNumber ||
			(Size) (ScbfPageGetPending(page)->nentries + counts[i]) * esize >
			SCBF_PENDING_BYTES)
		{
			/* moved on, or too full: the caller's slow path sorts it out */
			UnlockReleaseBuffer(buf);
			continue;
		}
		bufs[nlocked] = buf;
		which[nlocked] = i;
		nlocked++;
	}
	if (nlocked == 0)
	{
		ReleaseBuffer(metabuf);
		return;
	}

	/*
	 * The flags, read under the tails' locks: a fold's commit clears a
	 * partition's flag only under its cut page's lock, and the cut page of
	 * a partition without a successor is its tail.
	 */
	LockBuffer(metabuf, BUFFER_LOCK_SHARE);
	meta = ScbfPageGetMeta(BufferGetPage(metabuf));
	for (i = 0; i < nlocked; i++)
	{
		flag[i] = !(meta->pending[parts[which[i]]].flags &
					SCBF_PENDING_MAYHAVE);
		needmeta |= flag[i];
	}
	LockBuffer(metabuf, BUFFER_LOCK_UNLOCK);
	if (needmeta && nlocked == MAX_GENERIC_XLOG_PAGES)
	{
		/* the metapage takes the last slot: that tail waits */
		nlocked--;
		UnlockReleaseBuffer(bufs[nlocked]);
	}

	xlog = GenericXLogStart(index);
	if (needmeta)
	{
		LockBuffer(metabuf, BUFFER_LOCK_EXCLUSIVE);
		meta = ScbfPageGetMeta(GenericXLogRegisterBuffer(xlog, metabuf, 0));
	}
	for (i = 0; i < nlocked; i++)
	{
		int			g = which[i];
		Page		page = GenericXLogRegisterBuffer(xlog, bufs[i], 0);

		if (FillPendingPage(page, esize, entries[g], counts[g]) != counts[g])
			elog(ERROR, "a pending page of index \"%s\" lost room under its lock",
				 RelationGetRelationName(index));
		if (flag[i])
			meta->pending[parts[g]].flags |= SCBF_PENDING_MAYHAVE;
		done[g] = true;
	}
	GenericXLogFinish(xlog);
	for (i = 0; i < nlocked; i++)
		UnlockReleaseBuffer(bufs[i]);
	if (needmeta)
		UnlockReleaseBuffer(metabuf);
	else
		ReleaseBuffer(metabuf);
}

/*
 * ScbfPendingAppend
 *		Append n entries, tids[i] with hashes[i * ncols ..], to the pending
 *		area: WAL-logged, many entries per record (up to a tail page's room
 *		per partition, and the partitions of a small flush together).
 *		Returns true if a partition has grown to SCBF_FOLD_PAGES pages:
 *		time to fold.
 */
bool
ScbfPendingAppend(Relation index, ScbfState *state, ItemPointer tids,
				   const ScbfHash *hashes, int n)
{
	bool		foldwanted = false;
	int			hbytes = state->stored_hash_bytes;
	Size		esize = ScbfPendingEntrySize(state->ncols, hbytes);
	char	   *packed = palloc(esize * Max(n, 1));
	int			counts[SCBF_NPENDING + 1] = {0};
	int			parts[SCBF_NPENDING];
	char	   *starts[SCBF_NPENDING];
	int			lengths[SCBF_NPENDING];
	bool		done[SCBF_NPENDING];
	int			nparts = 0;
	int			part;
	int			i;

	/* a counting sort by partition, keeping the batch's order within each */
	for (i = 0; i < n; i++)
		counts[ScbfPendingPartition(hashes[(Size) i * state->ncols]) + 1]++;
	for (part = 0; part < SCBF_NPENDING; part++)
		counts[part + 1] += counts[part];
	for (i = 0; i < n; i++)
	{
		const ScbfHash *h = hashes + (Size) i * state->ncols;
		char	   *e = packed + esize * counts[ScbfPendingPartition(h[0])]++;

		memcpy(e, &tids[i], sizeof(ItemPointerData));
		for (int col = 0; col < state->ncols; col++)
			ScbfStoreHash(e + sizeof(ItemPointerData) + hbytes * col, h[col],
						  hbytes);
	}

	/* counts[part] is now the end of partition part */
	for (part = 0, i = 0; part < SCBF_NPENDING; part++)
	{
		if (counts[part] > i)
		{
			parts[nparts] = part;
			starts[nparts] = packed + esize * i;
			lengths[nparts] = counts[part] - i;
			done[nparts] = false;
			nparts++;
		}
		i = counts[part];
	}

	/* the partitions whose tails take all their entries, a few per record */
	for (i = 0; i < nparts;)
	{
		int			g = Min(nparts - i, MAX_GENERIC_XLOG_PAGES);

		AppendGroup(index, esize, parts + i, g, starts + i, lengths + i,
						 done + i);
		/* the next group starts after the last partition this one took */
		while (g > 0 && !done[i + g - 1])
			g--;
		i += Max(g, 1);
	}
	/* the others, each alone, linking new tails as needed */
	for (i = 0; i < nparts; i++)
		if (!done[i])
			AppendPartition(index, parts[i], esize, starts[i],
								 lengths[i], &foldwanted);
	pfree(packed);
	return foldwanted;
}

/*
 * Share-lock block blkno, the next page of a chain that a walk has read
 * *npages pages of, after checking for interrupts.  *nblocks is measured
 * again if blkno lies past it (an append may have extended the index).  A
 * block still outside the index, or more pages than the index has blocks
 * (a loop), is corruption.
 */
static Buffer
ReadChainPage(Relation index, BlockNumber blkno, BlockNumber *nblocks,
			  uint32 *npages)
{
	Buffer		buf;

	CHECK_FOR_INTERRUPTS();
	if (blkno >= *nblocks)
		*nblocks = RelationGetNumberOfBlocks(index);
	if (blkno == SCBF_METAPAGE_BLKNO || blkno >= *nblocks ||
		++(*npages) > *nblocks)
		ScbfReportCorrupt(index, blkno,
						  "A pending chain leaves the index or loops.");
	buf = ScbfReadBuffer(index, blkno);
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	return buf;
}

/*
 * ScbfPendingScan
 *		Call fn for every pending entry of partition part that the metapage
 *		copy meta has not folded yet.  Returns false, having called fn for
 *		some entries or none, if a page of the chain was freed meanwhile
 *		(a fold committed): the caller starts over from a new metapage.
 *
 * With cut not NULL, *cut receives where the reading ended: the last page,
 * its serial and the entries it had (the fold's cut); its blkno is
 * InvalidBlockNumber if the metapage copy says the partition is empty.
 */
bool
ScbfPendingScan(Relation index, ScbfState *state, const ScbfMeta *meta,
				 int part, ScbfPendingFn fn, void *arg,
				 ScbfPendingCut *cut)
{
	int			hbytes = state->stored_hash_bytes;
	Size		esize = ScbfPendingEntrySize(state->ncols, hbytes);
	char	   *copy;
	const ScbfPendingHead *ph = &meta->pending[part];
	BlockNumber blkno = ph->head;
	uint32		serial = ph->head_serial;
	int			skip = ph->cut;
	BlockNumber nblocks;
	uint32		npages = 0;
	ScbfHash	tidhashes[INDEX_MAX_KEYS];

	if (cut)
	{
		cut->blkno = ph->head;
		cut->serial = ph->head_serial;
		cut->nentries = ph->cut;
	}
	if (!(ph->flags & SCBF_PENDING_MAYHAVE))
	{
		/* nothing past the cut: no page to read, nothing for a fold */
		if (cut)
			cut->blkno = InvalidBlockNumber;
		return true;
	}

	/* past the empty case, which most probes meet: an lseek per call */
	copy = palloc(SCBF_PENDING_BYTES);
	nblocks = RelationGetNumberOfBlocks(index);

	while (blkno != InvalidBlockNumber)
	{
		Buffer		buf;
		Page		page;
		int			nentries;
		int			i;

		buf = ReadChainPage(index, blkno, &nblocks, &npages);
		page = BufferGetPage(buf);
		if (!ScbfPageHasOpaque(page) ||
			ScbfPageGetOpaque(page)->type != SCBF_PAGE_PENDING ||
			ScbfPageGetOpaque(page)->ident.pending.partition != (uint32) part ||
			ScbfPageGetOpaque(page)->ident.pending.serial != serial)
		{
			UnlockReleaseBuffer(buf);
			pfree(copy);
			return false;
		}
		nentries = ScbfPageGetPending(page)->nentries;
		if ((Size) nentries * esize > SCBF_PENDING_BYTES || skip > nentries)
		{
			UnlockReleaseBuffer(buf);
			ScbfReportCorrupt(index, blkno,
							  "A pending page holds more entries than fit.");
		}
		memcpy(copy, ScbfPendingEntries(page), esize * nentries);
		if (cut)
		{
			cut->blkno = blkno;
			cut->serial = serial;
			cut->nentries = (uint16) nentries;
		}
		blkno = ScbfPageGetPending(page)->next;
		UnlockReleaseBuffer(buf);

		for (i = skip; i < nentries; i++)
		{
			ItemPointerData tid;
			const char *e = copy + esize * i;

			memcpy(&tid, e, sizeof(ItemPointerData));
			for (int col = 0; col < state->ncols; col++)
				tidhashes[col] =
					ScbfLoadHash(e + sizeof(ItemPointerData) + hbytes * col,
								 hbytes);
			fn(&tid, tidhashes, arg);
		}
		skip = 0;
		serial++;
	}
	pfree(copy);
	return true;
}

/*
 * ScbfPendingBlocks
 *		The pending area's part of the block census (ScbfCensus): hand fn
 *		each page of a chain from blkno up to stop (not included) or the
 *		chain's end, with ref (a partition's chain, or a piece of one in a
 *		grave).  Each block goes to fn before it is read; after it, the
 *		walk ends where fn says so, or at a block that is no pending page
 *		(the verifier reports it).  A block outside the index, even measured
 *		again (an append may have extended it), or more pages than the
 *		index has blocks (a loop), is corruption.
 */
void
ScbfPendingBlocks(Relation index, BlockNumber blkno, BlockNumber stop,
				  const ScbfBlockRef *ref, ScbfCensusFn fn, void *arg,
				  BlockNumber nblocks)
{
	uint32		npages = 0;

	while (blkno != InvalidBlockNumber && blkno != stop)
	{
		Buffer		buf;
		Page		page;

		if (!fn(blkno, ref, arg))
			return;
		buf = ReadChainPage(index, blkno, &nblocks, &npages);
		page = BufferGetPage(buf);
		if (!ScbfPageHasOpaque(page) ||
			ScbfPageGetOpaque(page)->type != SCBF_PAGE_PENDING)
		{
			UnlockReleaseBuffer(buf);
			return;
		}
		blkno = ScbfPageGetPending(page)->next;
		UnlockReleaseBuffer(buf);
	}
}

/*
 * ScbfReadPendingPage
 *		What a pending page says, into *pp (its entries palloc'd), for the
 *		diagnostics and the verifier.  ERRCODE_INDEX_CORRUPTED if the block
 *		is outside the index or no pending page; the rest is the caller's
 *		to judge.
 */
void
ScbfReadPendingPage(Relation index, BlockNumber blkno, int ncols,
					 int hbytes, ScbfPendingPageInfo *pp, BlockNumber nblocks)
{
	Size		esize = ScbfPendingEntrySize(ncols, hbytes);
	Buffer		buf;
	Page		page;
	int			n;
	int			i;

	buf = ScbfReadPage(index, blkno, BUFFER_LOCK_SHARE, SCBF_PAGE_PENDING,
						nblocks);
	page = BufferGetPage(buf);
	pp->partition = ScbfPageGetOpaque(page)->ident.pending.partition;
	pp->serial = ScbfPageGetOpaque(page)->ident.pending.serial;
	pp->next = ScbfPageGetPending(page)->next;
	pp->nentries = ScbfPageGetPending(page)->nentries;
	pp->maxentries = (int) (SCBF_PENDING_BYTES / esize);
	n = Min(pp->nentries, pp->maxentries);
	pp->tids = palloc(sizeof(ItemPointerData) * Max(n, 1));
	pp->hashes = palloc(sizeof(ScbfHash) * ncols * Max(n, 1));
	for (i = 0; i < n; i++)
	{
		const char *e = ScbfPendingEntries(page) + esize * i;

		memcpy(&pp->tids[i], e, sizeof(ItemPointerData));
		for (int col = 0; col < ncols; col++)
			pp->hashes[i * ncols + col] =
				ScbfLoadHash(e + sizeof(ItemPointerData) + hbytes * col, hbytes);
	}
	UnlockReleaseBuffer(buf);
}
