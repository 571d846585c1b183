/*-------------------------------------------------------------------------
 *
 * asan_preload.c
 *	  A library preloaded beside AddressSanitizer's runtime into the
 *	  PostgreSQL server under test/run-tests --sanitize, so that Debian's
 *	  postgres starts at all.
 *
 * NOTES
 *	  AddressSanitizer initializes on the first malloc().  In Debian's
 *	  postgres that call comes from a shared library's constructor
 *	  (libgpg-error's, pulled in through libsystemd and gnutls) inside
 *	  bindtextdomain(), which holds glibc's _nl_state_lock.  Part of the
 *	  initialization looks up "swift_demangle" with dlsym(); when the
 *	  lookup fails, dlerror() translates its message with dcgettext(), which
 *	  takes and releases the same lock and leaves it unusable: the process
 *	  then hangs in the next bindtextdomain() (postgres's own, in
 *	  set_pglocale_pgservice()), as do psql and initdb.  Defining the symbol
 *	  makes the lookup succeed, so no message is translated.
 *
 *	  The sanitizer calls the function only for names in Swift's mangling;
 *	  returning NULL makes it fall back to its C++ demangler, as it would
 *	  without this library.
 *
 * Portions Copyright (c) 2026, scbf developers
 *
 * IDENTIFICATION
 *	  test/asan_preload.c
 *
 *-------------------------------------------------------------------------
 */
#include <stddef.h>
#include <stdint.h>

char	   *swift_demangle(const char *mangled, size_t mangled_len,
						   char *out, size_t *out_len, uint32_t flags);

/*
 * swift_demangle
 *		Demangle nothing: no Swift code runs in PostgreSQL.
 */
char *
swift_demangle(const char *mangled, size_t mangled_len,
			   char *out, size_t *out_len, uint32_t flags)
{
	return NULL;
}
