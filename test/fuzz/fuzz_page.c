/*-------------------------------------------------------------------------
 *
 * fuzz_page.c
 *	  libFuzzer harness of the page checks and decoders of scbf: the
 *	  metapage, directory, filter and ledger pages (src/scbfpage.c) and
 *	  the filter module's probes on a page's counters (src/scbffilter.c).
 *
 * NOTES
 *	  An input is an 8 kB page image (shorter ones are padded with zeros)
 *	  in a malloc'd buffer of exactly BLCKSZ bytes, so AddressSanitizer
 *	  sees any read outside the page.  The harness does with it what the
 *	  index's readers do:
 *
 *	  - as block 0: ScbfCheckMetaPage, which must accept the page or raise
 *		a clean ERROR (pgshim.c turns ereport into a longjmp); if it
 *		accepts, the layout it yields must be one the readers can use: the
 *		counters of a block fit in a filter page, a ledger page holds at
 *		least one entry, the directory map fits in the metapage;
 *	  - as a directory page: every entry is read;
 *	  - as a filter page that ScbfPageIsFilter accepts: the counters are
 *		read with the layout's geometry (census, probes, false-positive
 *		rate, fill, key estimate, the head's block list), and on a copy of
 *		the counters exactly as large as the block, a key added is found
 *		(no false negative, whatever the counters held), adding and
 *		removing it leaves every probe's answer as it was, and the
 *		bookkeeping scbf_filter_add/remove keep agrees with a census;
 *	  - as a ledger page that ScbfPageIsLedger accepts: every entry, with
 *		its TID and hashes, lies inside the page body.
 *
 *	  The layout is the page's own if it passes the metapage check, else
 *	  one of four built by ScbfInitMetaPage's rules (1 to 4 columns, false
 *	  positive rates 0.01, 0.0001, 0.25, 0.05), chosen by a byte the page
 *	  checks ignore (the special space's unused1), so that the fuzzer need
 *	  not forge a metapage to reach the other decoders.  Any failed check
 *	  aborts.
 *
 * Portions Copyright (c) 2026, scbf developers
 *
 * IDENTIFICATION
 *	  test/fuzz/fuzz_page.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <stdio.h>
#include <stdlib.h>

#include "catalog/pg_class.h"
#include "utils/rel.h"

#include "scbf.h"
#include "pgshim.h"

/* the C library's, not src/port's (port.h renames them; nothing links it) */
#undef fprintf
#undef vsnprintf

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond) \
	do { \
		if (!(cond)) \
		{ \
			fprintf(stderr, "fuzz_page: check failed at line %d: %s\n", \
					__LINE__, #cond); \
			abort(); \
		} \
	} while (0)

static FormData_pg_class fake_class;
static RelationData fake_index;

/*
 * A layout as ScbfInitMetaPage would freeze it for ncols columns at this
 * false-positive rate (it needs an index relation; this needs none).
 */
static void
DefaultState(ScbfState *state, int ncols, double fpr)
{
	PGAlignedBlock meta;
	ScbfMetaPageData *m;
	scbf_filter_geometry geom;

	CHECK(scbf_filter_geometry_for_bytes(fpr, SCBF_FILTER_COUNTER_BYTES,
										 &geom) == SCBF_FILTER_OK);
	memset(meta.data, 0, BLCKSZ);
	m = (ScbfMetaPageData *) meta.data;
	m->magic = SCBF_MAGIC_NUMBER;
	m->version = SCBF_FORMAT_VERSION;
	m->pages_per_segment = SCBF_DEFAULT_PAGES_PER_SEGMENT;
	m->ncols = ncols;
	m->k = geom.k;
	m->counter_bits = SCBF_FILTER_COUNTER_BITS;
	m->slice_counters = geom.m;
	m->block_capacity = scbf_filter_block_capacity(&geom, fpr);
	m->hash_seed = SCBF_HASH_SEED;
	m->target_fpr = fpr;
	ScbfStateFromMeta(state, m);
}

/*
 * The page as block 0.  Returns true (and fills *state) if the metapage
 * check accepted it.
 */
static bool
FuzzMeta(Page page, ScbfState *state)
{
	sigjmp_buf	jb;
	ScbfMetaPageData *meta = ScbfPageGetMeta(page);
	uint64		sum = 0;

	pgshim_catch = &jb;
	if (sigsetjmp(jb, 0) != 0)
	{
		pgshim_catch = NULL;
		CHECK(pgshim_elevel == ERROR);
		return false;
	}
	ScbfCheckMetaPage(&fake_index, page);
	pgshim_catch = NULL;

	ScbfStateFromMeta(state, meta);
	/* what the readers take for granted once the check passed */
	CHECK(scbf_filter_bytes(&state->geom) <= SCBF_FILTER_COUNTER_BYTES);
	CHECK(state->geom.k >= 1 && state->geom.k <= SCBF_FILTER_MAX_K);
	CHECK(state->geom.m >= 1 && state->geom.m <= SCBF_FILTER_MAX_M);
	CHECK(state->ledger_capacity >= 1);
	CHECK(state->ncols >= 1 && state->ncols <= INDEX_MAX_KEYS);
	CHECK((char *) &meta->dirpages[meta->ndirpages] <=
		  (char *) page + ((PageHeader) page)->pd_special);
	for (uint32 i = 0; i < state->ndirpages; i++)
		sum += state->dirpages[i];
	(void) sum;
	for (uint64 n = 0; n < 100000; n = n * 7 + 1)
	{
		int			blocks = ScbfFilterBlocksFor(state, n);

		CHECK(blocks >= 1 && blocks <= SCBF_MAX_BLOCKS);
	}
	return true;
}

/*
 * True if the page carries scbf's special space (as ScbfPageHasOpaque in
 * scbfpage.c, which is static).
 */
static bool
HasOpaque(Page page)
{
	return !PageIsNew(page) &&
		((PageHeader) page)->pd_special ==
		BLCKSZ - MAXALIGN(sizeof(ScbfPageOpaqueData)) &&
		ScbfPageGetOpaque(page)->page_id == SCBF_PAGE_ID;
}

static void
FuzzDirectory(Page page)
{
	uint64		sum = 0;

	for (uint32 segno = 0; segno < SCBF_DIR_ENTRIES_PER_PAGE; segno++)
	{
		ScbfSegEntry *e = ScbfDirEntry(page, segno);

		if (ScbfSegEntryIsEmpty(e))
			continue;
		sum += e->head + e->head_serial + e->tail + e->tail_serial +
			e->next_serial + e->nfilters + e->flags;
	}
	(void) sum;
}

/*
 * A filter block's counters, and (head) its block list.  Probe keys come
 * from the input's bytes.
 */
static void
FuzzFilter(Page page, ScbfState *state, const uint8_t *data, size_t size)
{
	ScbfPageOpaque opaque = ScbfPageGetOpaque(page);
	ScbfFilterPageData *filter = ScbfPageGetFilter(page);
	const uint8_t *counters = ScbfPageGetCounters(page);
	size_t		nbytes = scbf_filter_bytes(&state->geom);
	uint8_t    *copy;
	uint16		nonzero[SCBF_FILTER_MAX_K];
	uint16		nonzero2[SCBF_FILTER_MAX_K];
	uint32		nsat,
				nsat2;
	uint32		hist[16];
	double		v;
	ScbfKeyPos	kp[8];
	bool		before[8];

	CHECK(counters + nbytes <= (uint8_t *) page + ((PageHeader) page)->pd_special);

	scbf_filter_census(counters, &state->geom, nonzero, &nsat, hist);
	v = scbf_filter_state_fpr(filter->nonzero, &state->geom);
	v += scbf_filter_fill(filter->nonzero, &state->geom);
	v += scbf_filter_estimate_keys(filter->nonzero, &state->geom);
	(void) v;

	if (opaque->blkidx == 0)
	{
		uint64		sum = filter->next + filter->ledger_head +
			filter->ledger_tail + filter->ledger_room;

		for (int i = 0; i < filter->nlinked; i++)
			sum += filter->blocks[i];
		(void) sum;
	}

	/* probes: keys from the hashes in the input's first bytes */
	for (int i = 0; i < 8; i++)
	{
		uint32		hash;

		memcpy(&hash, data + (i * 4) % (size > 4 ? size - 4 : 1), 4);
		ScbfComputeKey(state, i % state->ncols, ScbfCanonicalHash(hash),
					   &kp[i]);
		for (uint32 s = 0; s < state->geom.k; s++)
			CHECK(kp[i].pos[s] < state->geom.m);
		before[i] = scbf_filter_test(counters, &state->geom, kp[i].pos);
	}

	/* on a copy exactly the block's size: add, probe, remove */
	copy = malloc(nbytes);
	memcpy(copy, counters, nbytes);
	memcpy(nonzero2, nonzero, sizeof(nonzero));
	nsat2 = nsat;
	for (int i = 0; i < 8; i++)
	{
		int			rc;

		(void) scbf_filter_add(copy, nonzero2, &nsat2, &state->geom, kp[i].pos);
		CHECK(scbf_filter_test(copy, &state->geom, kp[i].pos));
		rc = scbf_filter_remove(copy, nonzero2, &nsat2, &state->geom, kp[i].pos);
		CHECK((rc & SCBF_FILTER_UNDERFLOW) == 0);
		for (int j = 0; j < 8; j++)
			CHECK(scbf_filter_test(copy, &state->geom, kp[j].pos) == before[j]);
	}
	scbf_filter_census(copy, &state->geom, nonzero, &nsat, NULL);
	CHECK(memcmp(nonzero, nonzero2, sizeof(uint16) * state->geom.k) == 0);
	CHECK(nsat == nsat2);
	free(copy);
}

static void
FuzzLedger(Page page, ScbfState *state)
{
	ScbfLedgerPageData *ledger = ScbfPageGetLedger(page);
	char	   *entries = ScbfPageGetEntries(page);
	uint64		sum = 0;

	CHECK(entries + state->entry_size * ledger->nentries <=
		  (char *) page + ((PageHeader) page)->pd_special);
	for (int i = 0; i < ledger->nentries; i++)
	{
		char	   *e = entries + state->entry_size * i;
		uint16		tid = ScbfEntryGetTid(e);

		sum += ScbfTidRelBlock(tid) + ScbfTidOffset(tid);
		for (int col = 0; col < state->ncols; col++)
			sum += ScbfEntryGetHash(e, col);
	}
	(void) sum;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const double fprs[4] = {0.01, 0.0001, 0.25, 0.05};
	Page		page = malloc(BLCKSZ);
	ScbfState  *state = ScbfAllocState(NULL);
	ScbfPageOpaque opaque;

	if (fake_index.rd_rel == NULL)
	{
		strcpy(NameStr(fake_class.relname), "fuzz");
		fake_index.rd_rel = &fake_class;
	}

	memset(page, 0, BLCKSZ);
	memcpy(page, data, Min(size, BLCKSZ));

	if (!FuzzMeta(page, state))
	{
		uint8		pick = ((uint8 *) page)[BLCKSZ -
											MAXALIGN(sizeof(ScbfPageOpaqueData)) +
											offsetof(ScbfPageOpaqueData, unused1)];

		DefaultState(state, 1 + pick % 4, fprs[(pick >> 2) % 4]);
	}

	CHECK(!ScbfPageIsFree(page) || PageIsNew(page) ||
		  ScbfPageGetType(page) == SCBF_PAGE_FREE);
	if (HasOpaque(page))
	{
		opaque = ScbfPageGetOpaque(page);
		if (opaque->type == SCBF_PAGE_DIRECTORY)
			FuzzDirectory(page);
		if (ScbfPageIsFilter(page, opaque->segno, opaque->serial,
							 opaque->blkidx))
			FuzzFilter(page, state, data, size);
		if (ScbfPageIsLedger(page, opaque->segno, opaque->serial,
							 state->ledger_capacity))
			FuzzLedger(page, state);
	}

	pfree(state);
	free(page);
	return 0;
}
