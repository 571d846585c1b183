# Makefile for scbf, the split counting Bloom filter index access method.
#
#   make && make install          build and install (PGXS, needs pg_config)
#   make installcheck             pg_regress suite against a running server
#   make prove_installcheck       TAP suite (test/t), needs an unprivileged user
#   make unitcheck                server-free unit tests of the filter module
#
# test/run-tests and test/run-demo wrap all of this for a fresh Debian 12
# machine (packages, throwaway cluster, clean-up); see README.md.

# scbf_citext: scbf's operator class for citext (scbf_citext--1.0.sql)
EXTENSION = scbf scbf_citext
MODULE_big = scbf
OBJS = \
	src/scbf.o \
	src/scbfbatch.o \
	src/scbfbuild.o \
	src/scbfcost.o \
	src/scbfdelta.o \
	src/scbfdir.o \
	src/scbffilter.o \
	src/scbffold.o \
	src/scbffoldhelper.o \
	src/scbfinsert.o \
	src/scbfinspect.o \
	src/scbfledger.o \
	src/scbfmath.o \
	src/scbfmathfuncs.o \
	src/scbfpending.o \
	src/scbfpostinglist.o \
	src/scbfroute.o \
	src/scbfrows.o src/scbfsummary.o \
	src/scbfscan.o \
	src/scbfprobe.o \
	src/scbfutils.o \
	src/scbfvacuum.o \
	src/scbfvalidate.o \
	src/scbfverify.o

# as default_version in scbf.control, debian/changelog and META.json
EXTVERSION = 1.0
DATA = scbf--1.0.sql scbf_citext--1.0.sql
PGFILEDESC = "scbf - split counting Bloom filter index access method"

REGRESS = scbf_basic scbf_opclass scbf_semantics scbf_queries scbf_options \
	scbf_maint scbf_planner scbf_diag scbf_perm scbf_math scbf_verify \
	scbf_types scbf_types_more scbf_citext scbf_equality scbf_collision scbf_collation scbf_crosscoll scbf_forms \
	scbf_nulls scbf_churn scbf_reloptions scbf_ddl scbf_costing scbf_edge \
	scbf_rescan scbf_batch scbf_storage scbf_storage_diag scbf_readme scbf_delta \
	scbf_fold_helpers scbf_security scbf_bands scbf_summary scbf_passes scbf_top
# The tests need UTF8 (ICU nondeterministic collations) and C-locale output
# whatever the caller's locale: pg_regress creates its database so.
REGRESS_OPTS = --inputdir=. --outputdir=. --encoding=UTF8 --no-locale

# TAP tests run separately (make prove_installcheck): they start their own
# clusters and initdb refuses to run as root.
PROVE_TESTS = test/t/*.pl
PROVE_FLAGS += -I test/t

SHLIB_LINK += -lm
# routing's questions to Citus worker nodes (src/scbfroute.c)
SHLIB_LINK_INTERNAL += $(libpq)
PG_CPPFLAGS += -I$(libpq_srcdir)
# the version PG_MODULE_MAGIC_EXT reports (18+)
PG_CPPFLAGS += -DSCBF_VERSION=\"$(EXTVERSION)\"

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# PGXS tracks header dependencies only for a server configured with
# --enable-depend: every object depends on the project's headers, so that
# a changed struct never meets an object compiled against the old one.
$(OBJS): $(wildcard src/*.h)

# Debian's server-dev package compiles LLVM bitcode with clang for JIT
# inlining; scbf has no use for it and clang is not always installed.
with_llvm = no

.PHONY: prove_installcheck unitcheck
prove_installcheck:
	$(prove_installcheck)

unitcheck:
	$(MAKE) -C test/unit check
