/*-------------------------------------------------------------------------
 *
 * unit.h
 *	  The check harness shared by the server-free unit test drivers:
 *	  CHECK(cond, fmt, ...) counts and prints a failed check (at most
 *	  MAX_FAIL_LINES lines per group), GroupDone() prints a group's
 *	  "ok" / "not ok" line.  Each driver is one translation unit that
 *	  includes this once.
 *
 * Portions Copyright (c) 2026, scbf developers
 *
 * IDENTIFICATION
 *	  test/unit/unit.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SCBF_UNIT_H
#define SCBF_UNIT_H

#include <stdarg.h>
#include <stdio.h>

#if defined(__GNUC__) || defined(__clang__)
#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#else
#define PRINTF_LIKE(f, a)
#endif

/* At most this many FAIL lines per group; the rest are only counted */
#define MAX_FAIL_LINES	25

static int	nfail_total = 0;	/* failed checks, all groups */
static int	nfail_group = 0;	/* failed checks, current group */

#define CHECK(cond, ...) \
	do { \
		if (!(cond)) \
			Fail(__FILE__, __LINE__, __VA_ARGS__); \
	} while (0)

/*
 * Fail
 *		Count a failed check and print where and why (the format names the
 *		expected and the actual value).
 */
static void Fail(const char *file, int line, const char *fmt,...) PRINTF_LIKE(3, 4);

static void
Fail(const char *file, int line, const char *fmt,...)
{
	va_list		ap;

	nfail_total++;
	if (++nfail_group > MAX_FAIL_LINES)
		return;
	printf("FAIL %s:%d: ", file, line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/*
 * GroupDone
 *		Print the group's result line and start the next group.
 */
static void GroupDone(const char *fmt,...) PRINTF_LIKE(1, 2);

static void
GroupDone(const char *fmt,...)
{
	va_list		ap;

	printf("%s - ", nfail_group ? "not ok" : "ok");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	if (nfail_group)
		printf(" (%d checks failed)", nfail_group);
	printf("\n");
	fflush(stdout);
	nfail_group = 0;
}

#endif							/* SCBF_UNIT_H */
