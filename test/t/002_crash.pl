# Crash recovery of scbf.  Every crash lands at a point the test chooses and
# asserts before it crashes, never at a point a poll happened to catch:
#
#   1. after committed inserts (the server is stopped with 'immediate': no
#      shutdown checkpoint, like a crash);
#   2. inside a large INSERT: the row the test picks blocks on an advisory
#      lock the test holds (a function in the INSERT's WHERE), so exactly the
#      rows before it are inserted, and the index entries written so far
#      (aminsert may batch them) are there;
#   3. after DELETE + VACUUM;
#   4. after VACUUM of chained filters;
#   7. inside VACUUM's fold of the pending area, between two segments: the
#      VACUUM runs with a heavy cost delay (the heap pass skips the
#      all-visible pages, the fold sleeps between segments), the test waits
#      until the index shows part of the work done, freezes the backend with
#      SIGSTOP, asserts that it sleeps in vacuum_delay_point (wait event
#      VacuumDelay: no buffer lock held) in the expected phase with that part
#      done and the rest not, flushes WAL, and kills it with SIGKILL (a real
#      backend crash: the postmaster reinitializes and replays WAL);
#   8. inside VACUUM's removal of dead entries, between
#      the first and the last filter, twice: once redone by the next
#      VACUUM, once made visible by a fold that commits the crashed serial
#      first;
#   9. inside a fold that an INSERT's flush at commit
#      started, before each of its steps' writes and after its commit
#      record, and in the fold of a bulk flush's own entries;
#  10. between a VACUUM's commit and its clearing of row
#      bits: in ambulkdelete, and in amvacuumcleanup's release of merged
#      filters' columns;
#  11. (the delta) in a fold after it wrote delta
#      entries, inside a fold's merge of the delta after the bits were set
#      and before the pages were emptied, and likewise inside VACUUM's
#      merge;
#  12. a fold that stops right before its commit record, whose filter the
#      next fold closes instead of appending to it (gdb makes the first
#      fold return from its commit without writing it: its pages are what
#      a crash at that point leaves).
#  14. a fold that opens a new band after a full one, and a fold that relays
#      out a last band below the limit (scbf.test_band_filters), each
#      stopped at its commit record.
#
# 9, 10 and 11 stop a backend where neither a lock nor a cost-delay sleep
# can (an inserting backend has no cost delay; VACUUM sleeps only between
# filters or segments): gdb attaches to it and stops it at the entry of a
# function of scbf (a breakpoint), the test asserts where it stands (gdb's
# backtrace, what the diagnostics read), flushes WAL and kills the backend
# with SIGKILL while gdb holds it (ScbfTest.pm, gdb_stop_at and gdb_crash).
# gdb is a Debian package test/setup-debian installs; the sections are
# skipped, saying why, only where it cannot work: gdb missing, a kernel that
# forbids tracing another process (Yama's ptrace_scope above 0), or backends
# under Valgrind (test/run-tests --valgrind).
#
# After each restart the index must hold exactly what the WAL said before the
# crash, every probe must equal a sequential scan, and the index must keep
# working (inserts, VACUUM, probes).  An unlogged table's index comes back
# empty (from its init fork) and usable.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);
use lib 'test/t';
use ScbfTest;

my $node = start_node('crash', crash => 1);

sub q1 { return $node->safe_psql('postgres', $_[0]); }

create_gate($node);
$node->safe_psql('postgres', q{
	CREATE EXTENSION scbf;
	CREATE TABLE t (id int, a int, b text);
	INSERT INTO t SELECT g, g % 1000, 'b' || (g % 313) FROM generate_series(1, 50000) g;
	INSERT INTO t SELECT -g, NULL, 'bnull' FROM generate_series(1, 3) g;
	CREATE INDEX t_a ON t USING scbf (a) WITH (pages_per_segment = 8);
	CREATE INDEX t_ab ON t USING scbf (a, b);
	-- built empty: inserts grow chains of filters, VACUUM merges them
	CREATE TABLE c (id int, k text);
	CREATE INDEX c_k ON c USING scbf (k) WITH (pages_per_segment = 128, false_positive_rate = 0.001);
	INSERT INTO c SELECT g, md5(g::text) FROM generate_series(1, 100000) g;
	INSERT INTO c VALUES (-1, NULL);
	-- what the Bitmap Index Scan hands out, before the heap recheck
	-- (Actual Rows through numeric: 18 prints it with two decimals)
	CREATE FUNCTION index_tids(q text) RETURNS bigint LANGUAGE plpgsql
	SET enable_seqscan = off SET enable_indexscan = off AS $$
	DECLARE
		plan json;
	BEGIN
		EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, FORMAT JSON) ' || q INTO plan;
		RETURN (SELECT (n->>'Actual Rows')::numeric::bigint
				FROM json_array_elements(plan -> 0 -> 'Plan' -> 'Plans') n
				WHERE n->>'Node Type' = 'Bitmap Index Scan');
	END $$;
	CREATE UNLOGGED TABLE u (a int, b text);
	CREATE INDEX u_a ON u USING scbf (a);
	INSERT INTO u SELECT g % 100, md5(g::text) FROM generate_series(1, 10000) g;
	CHECKPOINT;
});

# Probes whose rows no step of this test deletes (ids 1001 and 33337 are
# multiples of neither 3 nor 5 nor 7 and lie in no heap block the test
# empties), one value that was never inserted (emptiness is the point: no
# false positive may come back), and a = 500, which step 3 deletes.
my @probes_t = ('a = 1', 'a = 999', 'a IS NULL', 'a IN (3, 4, 5)',
	"a = 1 AND b = 'b62'", "a = 337 AND b = 'b159'", [ 'a = -1', 'empty' ]);
my @probes_c = ("k = md5('1')", "k = md5('77776')", "k = md5('99999')",
	"k IN (md5('2'), md5('99999'), md5('x'))", 'k IS NULL', [ "k = md5('x')", 'empty' ]);

my $a500 = '>0';    # 'empty' once step 3 deleted it

sub check_all
{
	my ($what) = @_;
	my @t = map { ref $_ ? [ "SELECT * FROM t WHERE $_->[0]", $_->[1] ] : "SELECT * FROM t WHERE $_" }
	  @probes_t, [ 'a = 500', $a500 ];
	scbf_same($node, 'postgres', \@t, name => "$what: t");
	my @c = map { ref $_ ? [ "SELECT * FROM c WHERE $_->[0]", $_->[1] ] : "SELECT * FROM c WHERE $_" } @probes_c;
	scbf_same($node, 'postgres', \@c, name => "$what: c");
}

# entries of an index: in its filters and pending
sub entries
{
	my ($idx) = @_;
	return q1("SELECT entries_live + entries_pending FROM scbf_index_info('$idx')");
}

# exact_tids($what, $table, @values): one check that the index hands out,
# before the heap recheck, as many TIDs for each a = v as live rows hold v
# (no dead entry left behind, none missing)
sub exact_tids
{
	my ($what, $table, @values) = @_;
	local $Test::Builder::Level = $Test::Builder::Level + 1;
	my $vals = join(',', @values);
	is(q1("SELECT string_agg(v || ':' || index_tids(format('SELECT * FROM $table WHERE a = %s', v)), ' ' ORDER BY v) "
		  . "FROM unnest(ARRAY[$vals]) v"),
		q1("SELECT string_agg(v || ':' || (SELECT count(*) FROM $table WHERE a = v), ' ' ORDER BY v) "
		  . "FROM unnest(ARRAY[$vals]) v"),
		"$what: the index hands out exactly the live rows of a = " . join(', ', @values));
}

check_all('before any crash');

# ---- 1. crash after committed inserts (no checkpoint since)
$node->safe_psql('postgres', q{
	INSERT INTO t SELECT g, g % 1000, 'b' || (g % 313) FROM generate_series(50001, 70000) g;
	INSERT INTO c SELECT g, md5(g::text) FROM generate_series(100001, 150000) g;
});
$node->stop('immediate');
$node->start;
check_all('after inserts and a crash');
cmp_ok(q1("SELECT max_chain FROM scbf_index_info('c_k')"), '>', 1, 'chains survived the crash');

# ---- 2. crash inside an INSERT: rows 100001 .. 199999 are in, the row
# 200000 waits for the lock the gate session holds (the transaction is
# lost; the index entries it wrote stay until VACUUM removes them).  aminsert
# may keep entries in a backend-local batch and write them many at a time
# (the batch holds far fewer than 99999 rows): what counts is that some were
# written, none beyond the rows inserted, and that the crash keeps exactly
# what was written.  The INSERT folds its full batches itself (no fold
# helper: a helper's fold could commit between the count and the crash).
{
	my $rows = q1('SELECT count(*) FROM t');
	my $before = entries('t_a');
	my $gate = hold_gate($node, 200000);
	my ($ins, $pid) = gated_session($node,
		"SET scbf.fold_helpers = off;\nINSERT INTO t SELECT g, g % 1000, 'b' || (g % 313) FROM generate_series(100001, 300000) g WHERE gate(g, 0) = 0",
		200000);
	wait_gated($node, $pid, 200000, undef, 'insert: blocked');
	my $written = entries('t_a') - $before;
	ok($written > 0 && $written <= 99999,
		"insert: at the crash, the index holds entries of $written of the 99999 rows inserted");
	flush_wal($node);
	crash($node, $ins, $gate);
	is(q1('SELECT count(*) FROM t'), $rows, 'insert: the transaction is lost');
	is(entries('t_a') - $before, $written, 'insert: the entries it wrote survived the crash');
	check_all('after a crash inside an insert');
	$node->safe_psql('postgres', 'VACUUM (INDEX_CLEANUP ON) t');
	is(entries('t_a'), $rows, 'insert: VACUUM removed the entries of the lost rows');
	check_all('after a crash inside an insert and VACUUM');
}

# ---- 3. crash after DELETE + VACUUM
$node->safe_psql('postgres', 'DELETE FROM t WHERE id % 3 = 0; VACUUM t;');
$node->stop('immediate');
$node->start;
check_all('after delete, vacuum and a crash');
$node->safe_psql('postgres', 'DELETE FROM t WHERE id % 5 = 0 OR a = 500; VACUUM t;');
$a500 = 'empty';
check_all('after a second delete and vacuum');

# ---- 4. crash after VACUUM of chained filters: new chains, deletes,
# VACUUM (crashes inside VACUUM's removals and merges: 8 and 10)
$node->safe_psql('postgres',
	"INSERT INTO c SELECT g, md5(g::text) FROM generate_series(150001, 170000) g;"
	  . ' DELETE FROM c WHERE id % 7 = 0;');
cmp_ok(q1("SELECT max_chain FROM scbf_index_info('c_k')"), '>', 1, 'inserts chained filters again');
$node->safe_psql('postgres', 'VACUUM c');
my $vacuumed = q1("SELECT filters, max_chain, entries_live, entries_pending FROM scbf_index_info('c_k')");
flush_wal($node);
$node->stop('immediate');
$node->start;
check_all('after VACUUM of chained filters and a crash');
is(q1("SELECT filters, max_chain, entries_live, entries_pending FROM scbf_index_info('c_k')"), $vacuumed,
	"the filters VACUUM left survive the crash ($vacuumed)");

# the indexes agree with the heap entry by entry
foreach my $idx ('t_a', 't_ab', 'c_k')
{
	my ($ret, $out, $err) = $node->psql('postgres', "SELECT scbf_verify('$idx', true)");
	is($ret, 0, "scbf_verify($idx) after the crashes") or diag($err);
}

# ---- 5. unlogged: after a crash the table and its index are empty, and usable
is(q1('SELECT count(*) FROM u'), '0', 'unlogged table empty after crash');
scbf_same($node, 'postgres', 'SELECT * FROM u WHERE a = 7', rows => 'empty',
	name => 'unlogged index empty after crash');
$node->safe_psql('postgres', "INSERT INTO u SELECT g % 100, md5(g::text) FROM generate_series(1, 5000) g");
scbf_same($node, 'postgres', 'SELECT * FROM u WHERE a = 7', rows => 50,
	name => 'unlogged index finds the new rows');
$node->safe_psql('postgres', 'DELETE FROM u WHERE a < 50; VACUUM u; TRUNCATE u;');
$node->safe_psql('postgres', "INSERT INTO u VALUES (7, 'x')");
scbf_same($node, 'postgres', 'SELECT * FROM u WHERE a = 7', rows => 1, name => 'unlogged index after TRUNCATE');
$node->stop('immediate');
$node->start;
scbf_same($node, 'postgres', 'SELECT * FROM u WHERE a = 7', rows => 'empty',
	name => 'unlogged index empty after a second crash');

# ---- 7. a crash inside VACUUM's fold of the pending
# area, after it wrote the runs and row bits of some segments and before
# its commit record.  A first VACUUM makes every heap page all-visible and
# leaves free slots in each segment; the (smaller) pending rows go there,
# so the crashed VACUUM's heap pass is short and its fold has many segments
# to sleep between.  After the crash the entries are still pending (the
# runs written are invisible), every answer is right, and the next fold
# folds exactly them.
{
	$node->safe_psql('postgres', q{
		CREATE TABLE f (id int, a int, pad text);
		INSERT INTO f SELECT g, g % 500, repeat('x', 300) FROM generate_series(1, 8000) g;
		CREATE INDEX f_a ON f USING scbf (a) WITH (pages_per_segment = 8);
		DELETE FROM f WHERE id % 200 IN (0, 1);
		VACUUM f;
		INSERT INTO f SELECT -g, 1000 + g, repeat('y', 50) FROM generate_series(1, 40) g;
	});
	my $segs = q1('SELECT count(DISTINCT (ctid::text::point)[0]::int / 8) FROM f WHERE id < 0');
	cmp_ok($segs, '>=', 3, "fold: the pending rows lie in $segs segments");
	my @probes_f = ('SELECT * FROM f WHERE a = 1001', 'SELECT * FROM f WHERE a = 1040',
		'SELECT * FROM f WHERE a IN (7, 1020, 1039)', 'SELECT * FROM f WHERE a = 499',
		[ 'SELECT * FROM f WHERE a = 5000', 'empty' ]);
	my $vac = $node->background_psql('postgres');
	my $pid = $vac->query_safe('SELECT pg_backend_pid()');
	$vac->query_until(qr/vacuuming/, "SET vacuum_cost_delay = 100;\nSET vacuum_cost_limit = 1;\n"
		  . "\\echo vacuuming\nVACUUM (PARALLEL 0, INDEX_CLEANUP ON) f;\n");
	my $phase = freeze_vacuum($node, $pid,
		"SELECT count(*) > 0 FROM pg_stat_progress_vacuum WHERE pid = $pid AND phase = 'cleaning up indexes'",
		'fold');
	# a format-2 VACUUM sleeps in its cleanup only between two segments of the fold
	is($phase, 'cleaning up indexes', 'fold: frozen between two segments of the fold');
	scbf_same($node, 'postgres', \@probes_f, name => 'fold: answers during the fold');
	flush_wal($node);
	kill_backend($node, $pid, 'fold');
	end_session($vac);
	scbf_same($node, 'postgres', \@probes_f, name => 'fold: answers after the crash');
	is(q1("SELECT scbf_clean_pending('f_a')"), '40', 'fold: after the crash, the 40 entries are still pending');
	scbf_same($node, 'postgres', \@probes_f, name => 'fold: answers after the fold');
	$node->safe_psql('postgres', "INSERT INTO f VALUES (-41, 1041, 'y'); VACUUM f;");
	is(q1("SELECT scbf_clean_pending('f_a')"), '0', 'fold: VACUUM folds again');
	scbf_same($node, 'postgres', [ @probes_f, 'SELECT * FROM f WHERE a = 1041' ],
		name => 'fold: answers after a new VACUUM');
}

# ---- 8. crashes inside VACUUM's removal (ambulkdelete),
# after it wrote merged runs (serial S + 1) in place of the old ones for
# some filters and before its commit record.  The dead rows lie in the
# first and the last heap page (every other page is all-visible, so the
# crashed VACUUM's heap pass is short); the crash lands after segment 0's
# filter got its merged run and before the last segment's did.  The old
# runs stay visible, so every answer is right.  Then either a VACUUM redoes
# the removal (dropping the crashed runs and undoing their supersession),
# or a fold commits S + 1 first, which makes the crashed runs visible: they
# hold exactly the surviving entries.  Either way the next VACUUM leaves
# the index handing out exactly the live rows' TIDs.
{
	$node->safe_psql('postgres', q{
		CREATE TABLE r (id int, a int, pad text);
		INSERT INTO r SELECT g, g % 300, repeat('x', 300) FROM generate_series(1, 6000) g;
		CREATE INDEX r_a ON r USING scbf (a) WITH (pages_per_segment = 8);
		VACUUM r;
		CREATE EXTENSION pageinspect;
	});
	my @probes_r = ('SELECT * FROM r WHERE a = 7', 'SELECT * FROM r WHERE a IN (107, 208)',
		'SELECT * FROM r WHERE a = 209', 'SELECT * FROM r WHERE a = 299',
		[ 'SELECT * FROM r WHERE a = 5000', 'empty' ]);
	my $lastblk = q1('SELECT max((ctid::text::point)[0])::int FROM r');
	my $lastseg = int($lastblk / 8);
	# the roots of a segment's filters written since WAL position $lsn (a
	# merged run goes into its root, with its last leaf inline or not;
	# nothing else writes roots here: no entry is pending)
	my $merged_roots = sub {
		my ($segno, $lsn) = @_;
		return "SELECT count(*) FROM scbf_pages('r_a') p WHERE p.kind = 'root' AND p.segno = $segno "
		  . "AND (SELECT lsn FROM page_header(get_raw_page('r_a', p.blkno::int))) > '$lsn'";
	};

	for my $round ('vacuum', 'fold')
	{
		my $mod = $round eq 'vacuum' ? 0 : 1;
		my $d = q1("WITH d AS (DELETE FROM r WHERE (ctid < '(1,0)' OR ctid >= '($lastblk,0)') "
			  . "AND id % 3 = $mod RETURNING 1) SELECT count(*) FROM d");
		cmp_ok($d, '>', 10, "removal ($round): $d rows deleted in heap blocks 0 and $lastblk");
		my $lsn = q1('SELECT pg_current_wal_insert_lsn()');
		my $vac = $node->background_psql('postgres');
		my $pid = $vac->query_safe('SELECT pg_backend_pid()');
		$vac->query_until(qr/vacuuming/, "SET vacuum_cost_delay = 100;\nSET vacuum_cost_limit = 1;\n"
			  . "\\echo vacuuming\nVACUUM (PARALLEL 0, INDEX_CLEANUP ON) r;\n");
		my $phase = freeze_vacuum($node, $pid, 'SELECT (' . $merged_roots->(0, $lsn) . ') > 0', "removal ($round)");
		is($phase, 'vacuuming indexes', "removal ($round): frozen between two filters");
		cmp_ok(q1($merged_roots->(0, $lsn)), '>', 0, "removal ($round): at the crash, segment 0's filter has its merged run");
		is(q1($merged_roots->($lastseg, $lsn)), 0, "removal ($round): at the crash, segment ${lastseg}'s filter has not");
		scbf_same($node, 'postgres', \@probes_r, name => "removal ($round): answers during the removal");
		flush_wal($node);
		kill_backend($node, $pid, "removal ($round)");
		end_session($vac);
		scbf_same($node, 'postgres', \@probes_r, name => "removal ($round): answers after the crash");
		if ($round eq 'fold')
		{
			is(q1("INSERT INTO r VALUES (-1, 1000, 'p'); SELECT scbf_clean_pending('r_a')"), '1',
				'removal (fold): a fold commits the crashed serial');
			scbf_same($node, 'postgres', [ @probes_r, 'SELECT * FROM r WHERE a = 1000' ],
				name => 'removal (fold): answers once the crashed runs are visible');
		}
		# (INDEX_CLEANUP ON: dead rows in 2 of 250 heap pages would not be worth
		# an index pass to VACUUM's bypass of index vacuuming)
		q1('VACUUM (INDEX_CLEANUP ON) r');
		scbf_same($node, 'postgres', \@probes_r, name => "removal ($round): answers after a new VACUUM");
		exact_tids("removal ($round)", 'r', 3, 4, 7, 107, 209);
	}
	# the superseded runs leave their roots and their leaf pages take new rows
	q1('VACUUM (INDEX_CLEANUP ON) r');
	$node->safe_psql('postgres', "INSERT INTO r SELECT -g, g % 300, 'n' FROM generate_series(2, 2000) g; VACUUM r;");
	scbf_same($node, 'postgres', \@probes_r, name => 'removal: answers after the freed pages took new rows');
	exact_tids('removal: after new rows', 'r', 3, 4, 7, 107, 209);
	# the table entry of segment 0's filter still counts the dead entries
	# that the crashed runs, which the fold made visible, no longer hold:
	# the crashed VACUUM had not written it
	verify_clean($node, 'r_a', 'removal: at the end', leftovers => ['counts']);
}

# Sections 9, 10 and 11 stop a backend where no sleep or lock can: gdb,
# attached to it, stops it at the entry of a function the test names
# (ScbfTest.pm, gdb_stop_at); the test asserts where it stands (gdb's
# backtrace, what the diagnostics read), makes the WAL written so far
# durable and kills it.
my $gdb_why;
{
	my $s = $node->background_psql('postgres');
	$gdb_why = gdb_unusable($s->query_safe('SELECT pg_backend_pid()'));
	$s->quit;
}

# scbf.delta_band_pages for the whole server, from the next statement on
sub set_delta_band_pages
{
	my ($pages) = @_;
	$node->append_conf('postgresql.conf', "scbf.delta_band_pages = $pages\n");
	$node->reload;
	$node->poll_query_until('postgres', "SELECT current_setting('scbf.delta_band_pages') = '$pages'")
	  or die "scbf.delta_band_pages = $pages did not take effect";
}

# scbf.test_band_filters (the filters a band holds at most) for the whole
# server, from the next statement on
sub set_band_filters
{
	my ($filters) = @_;
	$node->append_conf('postgresql.conf', "scbf.test_band_filters = $filters\n");
	$node->reload;
	$node->poll_query_until('postgres', "SELECT current_setting('scbf.test_band_filters') = '$filters'")
	  or die "scbf.test_band_filters = $filters did not take effect";
}

# scbf.test_group_bands (the bands a group holds at most), likewise
sub set_group_bands
{
	my ($bands) = @_;
	$node->append_conf('postgresql.conf', "scbf.test_group_bands = $bands\n");
	$node->reload;
	$node->poll_query_until('postgres', "SELECT current_setting('scbf.test_group_bands') = '$bands'")
	  or die "scbf.test_group_bands = $bands did not take effect";
}

# a session to stop with gdb, and its backend's pid; scbf is loaded (the
# breakpoints are in it)
sub gdb_session
{
	my ($idx) = @_;
	my $s = $node->background_psql('postgres');
	my $pid = $s->query_safe('SELECT pg_backend_pid()');
	$s->query_safe("SELECT count(*) FROM scbf_pages('$idx')");
	return ($s, $pid);
}

# ---- 9. crashes inside a fold that an INSERT's flush
# started (the write policy in scbfbatch.c: the flush that links a pending
# partition's third page folds the whole pending area).  Each round first
# folds (every partition then holds one page at most), fills one partition
# with committed rows to exactly two full pages and adds committed rows to
# other partitions; then an INSERT of 20 rows (5 in that partition, 15 of
# values no committed row has) links the third page at its commit's flush,
# and its fold is stopped at the entry of the step the round picks:
#   1. ScbfRowsSet: the runs written, no row bit set;
#   2. ScbfUpdateTable: the bits set, the filter table not written;
#   3. ScbfCommitSerial: the table written, the commit record not;
#   4. its return: the commit record written;
#   5. ScbfCommitSerial again, of an INSERT of 20,000 rows, whose flush
#      folds them straight into the filters with the pending area
#      (ScbfFoldBatch): they never reach a pending page.
# The inserting backend has no cost delay to freeze it in, hence gdb.  At
# the crash and after it every committed row is found through the index
# (a probe of every value equals a sequential scan, with the count of
# committed rows) and none of the crashed INSERT's rows is returned; the
# pending area keeps what the crash found there (1-3: every entry, the
# INSERT's too; 5: the committed ones), which the next fold folds, or
# nothing (4).  Then VACUUM removes the crashed INSERTs' entries and the
# verifier is clean, and an INSERT's fold runs to its end.
SKIP:
{
	skip "crashes inside a flush's fold: $gdb_why", 1 if $gdb_why;
	$node->safe_psql('postgres', q{
		CREATE TABLE g (id int, a int);
		INSERT INTO g SELECT i, i % 200 FROM generate_series(1, 3000) i;
		CREATE INDEX g_a ON g USING scbf (a) WITH (pages_per_segment = 8);
		-- the pending partition of a value, if it may hold entries
		CREATE FUNCTION part_of(v int) RETURNS int LANGUAGE sql AS
			$$ SELECT block FROM scbf_probe('g_a', v) WHERE verdict = 'pending' $$;
		-- the entries a pending page holds: one of a scratch index, full
		CREATE TABLE gcap (a int);
		CREATE INDEX gcap_a ON gcap USING scbf (a);
		INSERT INTO gcap SELECT 1 FROM generate_series(1, 1200);
	});
	my $cap = q1("SELECT max(entries) FROM scbf_pages('gcap_a') WHERE kind = 'pending' AND next_block IS NOT NULL");
	ok($cap > 100 && $cap < 1200, "flush fold: a pending page holds $cap entries");
	q1('DROP TABLE gcap');

	# g_a's entries in visible runs and pending
	my $entries = sub { return q1("SELECT entries_live || ' ' || entries_pending FROM scbf_index_info('g_a')"); };
	# what a fold writes before its commit: runs the roots list, and the
	# roots and leaves of new filters, which no structure names yet
	my $written = sub {
		return q1("SELECT count(*) FILTER (WHERE kind = 'unreferenced') "
			  . "+ coalesce(sum(entries) FILTER (WHERE kind = 'root'), 0) FROM scbf_pages('g_a')");
	};
	# fill the partition of value $v with committed rows of $v to exactly two
	# full pages after a fold; returns the partition and the rows of $v
	my $fill = sub {
		my ($v, $what) = @_;
		# a first row flags the partition (scbf_probe reads only those)
		my ($folded, $part, $tail) = split /\n/, $node->safe_psql('postgres', qq{
			SELECT scbf_clean_pending('g_a');
			INSERT INTO g VALUES (-1, $v);
			SELECT part_of($v);
			SELECT entries FROM scbf_pages('g_a')
			WHERE kind = 'pending' AND block_index = part_of($v) AND next_block IS NULL;
		});
		is($node->safe_psql('postgres', qq{
			INSERT INTO g SELECT -i, $v FROM generate_series(1, 2 * $cap - $tail) i;
			SELECT string_agg(entries::text, ' ' ORDER BY serial) FROM scbf_pages('g_a')
			WHERE kind = 'pending' AND block_index = $part AND serial >=
				(SELECT max(serial) - 1 FROM scbf_pages('g_a') WHERE kind = 'pending' AND block_index = $part);
		}), "$cap $cap", "$what: partition $part holds two full pages");
		return ($part, 2 * $cap - $tail + 1);
	};

	my @crashed;    # the values of the crashed INSERTs' rows
	# the function the fold stops in, where that is, whether after its
	# return, and the rows of the crashing INSERT: 20, or 20,000, whose
	# flush folds them straight with the pending area (ScbfFoldBatch)
	my @points = (
		[ 'ScbfRowsSet',      'at ScbfRowsSet: runs written, no row bit set' ],
		[ 'ScbfUpdateTable',  'at ScbfUpdateTable: bits set, the filter table not written' ],
		[ 'ScbfCommitSerial', 'at ScbfCommitSerial: the table written, no commit record' ],
		[ 'ScbfCommitSerial', 'after ScbfCommitSerial: the commit record written', 1 ],
		[ 'ScbfCommitSerial', 'at ScbfCommitSerial of a bulk flush\'s fold: no commit record', 0, 20000 ]);
	for my $r (1 .. @points)
	{
		my ($func, $where, $finish, $n) = @{ $points[ $r - 1 ] };
		$n //= 20;
		my $what = "flush fold $r";
		my $v = 1000 + $r;
		my ($part, $nv) = $fill->($v, $what);
		# committed rows in other partitions; what g and g_a hold
		my ($live, $pend, $committed, $all) = split /\n/, $node->safe_psql('postgres', qq{
			INSERT INTO g SELECT -i, w
			FROM (SELECT w FROM generate_series(0, 199, 10) w
				  UNION ALL SELECT 2000 + 50 * $r + w FROM generate_series(0, 49) w) ws, generate_series(1, 3) i
			WHERE part_of(w) IS DISTINCT FROM $part;
			SELECT entries_live || E'\n' || entries_pending FROM scbf_index_info('g_a');
			SELECT count(*) FROM g;
			SELECT string_agg(DISTINCT a::text, ',') FROM g;
		});
		push @crashed, map { 5000 + 100 * $r + $_ } 6 .. 20;
		push @crashed, 7000, 7250, 7499 if $n > 20;
		my @probes = ([ "SELECT * FROM g WHERE a = $v", $nv ],
			[ "SELECT * FROM g WHERE a = ANY(ARRAY[$all])", $committed ],
			[ 'SELECT * FROM g WHERE a IN (' . join(',', @crashed) . ')', 'empty' ]);
		my $before = $written->();

		my ($s, $pid) = gdb_session('g_a');
		my $g = gdb_attach($pid);
		# the first 5 rows are of the filled partition: appended (not folded
		# straight), they link its third page
		my $out = gdb_stop_at($g, [$func], finish => $finish, start => sub {
			$s->query_until(qr/inserting/, "\\echo inserting\nINSERT INTO g SELECT 100000 + i, CASE WHEN i <= 5 THEN $v "
				  . "WHEN i <= 20 THEN 5000 + 100 * $r + i ELSE 7000 + i % 500 END FROM generate_series(1, $n) i;\n");
		});
		like($out // '', $finish
			? qr/Run till exit from #0\s+ScbfCommitSerial\b.*\@\@stopped\n#0\s+(?:ScbfFold|FoldRun)\b.*\bScbfFold\b.*\bBatchXactCallback\b/s
			: $n > 20 ? qr/\@\@stopped\n#0\s+$func\b.*\bScbfFoldBatch\b.*\bBatchXactCallback\b/s
			: qr/\@\@stopped\n#0\s+$func\b.*\bScbfFold\b.*\bBatchXactCallback\b/s,
			"$what: the INSERT's flush at commit started a fold, stopped $where");
		# the entries pending at the crash: the INSERT's, unless folded
		# straight
		my $left = $n > 20 ? $pend : $pend + 20;
		if ($finish)
		{
			is($entries->(), ($live + $pend + 20) . ' 0',
				"$what: at the crash, the fold has committed the $pend pending entries and the INSERT's 20");
		}
		else
		{
			is($entries->(), "$live $left",
				"$what: at the crash, the fold has not committed: $left entries are pending, "
				  . ($n > 20 ? "none of the INSERT's $n" : 'the INSERT\'s 20 too'));
			cmp_ok($written->(), '>', $before, "$what: at the crash, the fold has written runs");
		}
		scbf_same($node, 'postgres', \@probes, name => "$what: answers during the fold");
		flush_wal($node);
		gdb_crash($node, $g, $what);
		end_session($s);

		is(q1('SELECT count(*) FROM g'), $committed, "$what: the INSERT is lost");
		scbf_same($node, 'postgres', \@probes, name => "$what: answers after the crash");
		is($entries->(), $finish ? ($live + $pend + 20) . ' 0' : "$live $left",
			"$what: after the crash, the entries are " . ($finish ? 'folded' : 'still pending'));
		verify_clean($node, 'g_a', "$what: after the crash", leftovers => [qw(pages counts bits)]);
		is(q1("SELECT scbf_clean_pending('g_a')"), $finish ? 0 : $left,
			"$what: the next fold folds " . ($finish ? 'nothing' : 'the entries pending at the crash'));
		scbf_same($node, 'postgres', \@probes, name => "$what: answers after the next fold");
	}

	# VACUUM removes the crashed INSERTs' entries and what their folds left
	q1('VACUUM (INDEX_CLEANUP ON) g');
	is($entries->(), q1('SELECT count(*) FROM g') . ' 0', 'flush fold: VACUUM leaves the entries of the live rows');
	verify_clean($node, 'g_a', 'flush fold: after VACUUM');
	# and an INSERT's flush folds to the end
	my ($part, $nv) = $fill->(1009, 'flush fold 6');
	q1("INSERT INTO g VALUES (-2, 1009)");
	is($entries->(), q1('SELECT count(*) FROM g') . ' 0', 'flush fold 6: an INSERT\'s flush folded every entry');
	scbf_same($node, 'postgres', [ [ 'SELECT * FROM g WHERE a = 1009', $nv + 1 ],
		'SELECT * FROM g WHERE a IN (7, 1001, 1004)', [ 'SELECT * FROM g WHERE a IN (' . join(',', @crashed) . ')', 'empty' ] ],
		name => 'flush fold 6: answers after the fold');
	exact_tids('flush fold', 'g', 7, 1001, 1004, 1005, 1009);
	verify_clean($node, 'g_a', 'flush fold: at the end');
}

# ---- 10. crashes between a VACUUM's commit and its
# clearing of row bits (I4: a bit is cleared only after the commit that
# made it unneeded), twice: in ambulkdelete, after the commit of the
# removals (ScbfRowsClear called from VacCommit), and in
# amvacuumcleanup's release of the columns of filters merged into another
# (ScbfRowsClear called from VacRelease, after the columns became
# free).  Segment 0 of h has 9 filters (an index built on 100 rows of 10
# keys, then 1,400 distinct keys folded); deleting all but 14 of those
# leaves bits to clear (a = 777's among them), and the next VACUUM merges
# the thinned filters into the first.  After either crash the bits left set
# are only false positives: a probe of a = 777 reads a filter whose rows
# say "maybe" and gets no TID from it; every probe equals a sequential
# scan, and the verifier reports nothing but the leftovers (set bits the
# table does not count; pages of released columns no structure names,
# which the next VACUUM frees).  New filters take the released columns,
# bits and all, and VACUUM keeps working.
SKIP:
{
	skip "crashes before a VACUUM's bit clearing: $gdb_why", 1 if $gdb_why;
	$node->safe_psql('postgres', q{
		CREATE TABLE h (id int, a int);
		INSERT INTO h SELECT i, i % 10 FROM generate_series(1, 100) i;
		CREATE INDEX h_a ON h USING scbf (a) WITH (pages_per_segment = 8);
		INSERT INTO h SELECT i, i FROM generate_series(101, 1500) i;
	});
	is(q1("SELECT scbf_clean_pending('h_a')"), 1400, 'bit clearing: a fold took 1,400 distinct keys');
	is(q1("SELECT count(*) FROM scbf_filters('h_a') WHERE segno = 0"), 9, 'bit clearing: segment 0 has 9 filters');
	q1("DELETE FROM h WHERE id > 100 AND id % 100 <> 0");
	my $filters = sub { return q1("SELECT filters FROM scbf_index_info('h_a')"); };
	# the filters whose rows say "maybe" for a = 777, and their entries of it
	my $maybe = sub {
		return q1("SELECT count(*) || ' ' || coalesce(sum(ledger_matches), 0) FROM scbf_probe('h_a', 777) "
			  . "WHERE verdict = 'maybe'");
	};
	my @probes_h = ('SELECT * FROM h WHERE a = 3', 'SELECT * FROM h WHERE a IN (200, 1400)',
		[ 'SELECT * FROM h WHERE a IN (777, 1499)', 'empty' ]);
	is($maybe->(), '1 1', 'bit clearing: one filter holds the deleted a = 777');

	# 1. in ambulkdelete, after the commit of its removals
	my ($s, $pid) = gdb_session('h_a');
	my $g = gdb_attach($pid);
	my $out = gdb_stop_at($g, ['ScbfRowsClear'], start => sub {
		$s->query_until(qr/vacuuming/, "\\echo vacuuming\nVACUUM (INDEX_CLEANUP ON) h;\n");
	});
	like($out // '', qr/\@\@stopped\n#0\s+ScbfRowsClear\b.*\bVacCommit\b.*\bscbfbulkdelete\b/s,
		'bit clearing (removal): stopped before ambulkdelete clears bits');
	is(q1("SELECT entries_live FROM scbf_index_info('h_a')"), q1('SELECT count(*) FROM h'),
		'bit clearing (removal): at the crash, the removals have committed');
	is($maybe->(), '1 0', 'bit clearing (removal): at the crash, the bits of a = 777 are set, its entry gone');
	scbf_same($node, 'postgres', \@probes_h, name => 'bit clearing (removal): answers before the clearing');
	flush_wal($node);
	gdb_crash($node, $g, 'bit clearing (removal)');
	end_session($s);
	is($maybe->(), '1 0', 'bit clearing (removal): after the crash, the bits of a = 777 are still set');
	is(q1("SELECT index_tids('SELECT * FROM h WHERE a = 777')"), 0,
		'bit clearing (removal): after the crash, the index hands out no TID for a = 777');
	scbf_same($node, 'postgres', \@probes_h, name => 'bit clearing (removal): answers after the crash');
	verify_clean($node, 'h_a', 'bit clearing (removal): after the crash', leftovers => ['bits']);

	# 2. in amvacuumcleanup's release of merged filters' columns: a VACUUM
	# merges segment 0's thinned filters into the first, and once a
	# transaction id was assigned after that, the next releases the columns.
	# The diagnostics leave a merged filter out at once (no probe that
	# starts reads it); its column and root stay taken until the release.
	my $roots = sub { return q1("SELECT count(*) FROM scbf_pages('h_a') WHERE kind = 'root'"); };
	q1('VACUUM (INDEX_CLEANUP ON) h');
	is($filters->(), 1, 'bit clearing (release): VACUUM merged the filters into one');
	is($roots->(), 9, 'bit clearing (release): the merged filters\' columns stay taken, with their roots');
	is(q1("SELECT entries_live FROM scbf_index_info('h_a')"), q1('SELECT count(*) FROM h'),
		'bit clearing (release): entries counted once after the merge');
	# the merged filters' bits stay set until the release; probes skip them
	is(q1("SELECT count(*) FROM generate_series(0, 1500) v, scbf_probe('h_a', v) p "
		  . "WHERE p.verdict = 'maybe' AND p.serial NOT IN (SELECT serial FROM scbf_filters('h_a'))"),
		0, 'bit clearing (release): scbf_probe, as the scan, reads no merged filter');
	q1("INSERT INTO h VALUES (-1, -1)");
	($s, $pid) = gdb_session('h_a');
	$g = gdb_attach($pid);
	$out = gdb_stop_at($g, [ 'ScbfFilterRelease', 'ScbfRowsClear' ], start => sub {
		$s->query_until(qr/vacuuming/, "\\echo vacuuming\nVACUUM (INDEX_CLEANUP ON) h;\n");
	});
	like($out // '', qr/\@\@stopped\n#0\s+ScbfRowsClear\b.*\bVacRelease\b.*\bscbfvacuumcleanup\b/s,
		'bit clearing (release): stopped before the release of merged filters clears their bits');
	is($roots->(), 1, 'bit clearing (release): at the crash, the 8 merged filters\' columns are free');
	scbf_same($node, 'postgres', \@probes_h, name => 'bit clearing (release): answers before the clearing');
	flush_wal($node);
	gdb_crash($node, $g, 'bit clearing (release)');
	end_session($s);
	is($roots->(), 1, 'bit clearing (release): after the crash, the columns are free');
	scbf_same($node, 'postgres', \@probes_h, name => 'bit clearing (release): answers after the crash');
	verify_clean($node, 'h_a', 'bit clearing (release): after the crash', leftovers => [qw(pages bits)]);

	# new filters take the released columns; VACUUM frees the released
	# filters' pages and removes deleted rows
	q1("INSERT INTO h SELECT -i, 3000 + i FROM generate_series(1, 3000) i");
	is(q1("SELECT scbf_clean_pending('h_a')"), 3000, 'bit clearing: a fold took 3,000 rows');
	is(q1("SELECT count(*) FROM scbf_filters('h_a') WHERE serial BETWEEN 1 AND 8"), 8,
		'bit clearing: new filters took the 8 released columns');
	push @probes_h, 'SELECT * FROM h WHERE a IN (3001, 4500, 6000)', [ 'SELECT * FROM h WHERE a = 6001', 'empty' ];
	scbf_same($node, 'postgres', \@probes_h, name => 'bit clearing: answers once the columns are reused');
	q1('DELETE FROM h WHERE id < 0 AND id % 2 = 0');
	q1('VACUUM (INDEX_CLEANUP ON) h');
	is(q1("SELECT count(*) FROM scbf_pages('h_a') WHERE kind = 'unreferenced'"), 0,
		'bit clearing: VACUUM freed the pages the crash left');
	scbf_same($node, 'postgres', \@probes_h, name => 'bit clearing: answers after a new VACUUM');
	exact_tids('bit clearing', 'h', 3, 777, 3001, 3002, 4500);
	verify_clean($node, 'h_a', 'bit clearing: at the end', leftovers => ['bits']);
}

# ---- 11. the delta (src/scbfdelta.c): crashes in a fold
# that wrote delta entries, inside a merge, and in VACUUM's merge.  With
# scbf.delta_band_pages = 0 (postgresql.conf, from here on) every fold of
# d_a puts its new keys in the delta's 16 partitions of at most 1,018
# entries (a fold of more keys than a quarter of that sets their bits at
# once); a fold that finds a partition full merges: ScbfDeltaMerge sets
# the bits of every entry in the band (ScbfRowsSet) and only then empties
# the pages, and VACUUM merges (VacMergeDelta) before it removes
# entries.  Three crashes, each where gdb stops the backend:
#   a. a fold (scbf_clean_pending, in a transaction that inserted 2,000
#      rows first) at the entry of ScbfUpdateTable: ScbfDeltaAdd has
#      written the entries of the committed pending rows and of that
#      transaction's, the fold has not committed;
#   b. a fold like a's (its transaction inserted 3,500 rows) whose keys
#      overflow a partition of the delta, which committed folds filled to
#      some 14,000 entries: the fold merges, and stops once the merge's
#      ScbfRowsSet returned (gdb's "finish"), the bits set and no page
#      emptied yet.  The breakpoint on ScbfRowsSet is set only once
#      ScbfDeltaMerge was entered (gdb_stop_at sets each breakpoint after
#      the one before was hit), so it is the merge's call, not the fold's
#      own one for the keys left over;
#   c. VACUUM after deletes, in VacMergeDelta, likewise after the
#      merge's ScbfRowsSet returned.
# After each restart the crashed transaction's rows are gone and none is
# returned, every committed row is found through the index (a probe of
# every value folded since the build, of every 13th before, against a
# sequential scan), the delta keeps what the crash found there (a's
# entries of a fold that never committed are false candidates; b's and c's
# entries are both in the delta and in the band), the verifier reports
# nothing but b's extra bits (until VACUUM recounts them), and the next
# fold or VACUUM works: the next fold merges what b left, the next VACUUM
# what c left, and the index then hands out exactly the live rows.  The
# index's false_positive_rate of 0.05 keeps its band (65 pages) small
# enough for the smallest delta, of 16 pages, whose capacity the numbers
# above count on.
SKIP:
{
	skip "crashes inside the delta's folds and merges: $gdb_why", 1 if $gdb_why;
	set_delta_band_pages(0);
	$node->safe_psql('postgres', q{
		CREATE TABLE d (id int, a int);
		INSERT INTO d SELECT g, g FROM generate_series(1, 20000) g;
		CREATE INDEX d_a ON d USING scbf (a) WITH (false_positive_rate = 0.05);
		INSERT INTO d SELECT g, g FROM generate_series(20001, 21000) g;
	});
	is(q1("SELECT scbf_clean_pending('d_a')"), 1000, 'delta: a fold took 1,000 keys');
	# the delta's pages and entries, and d_a's entries pending
	my $delta = sub {
		return q1("SELECT count(*) || ' ' || coalesce(sum(entries), 0) FROM scbf_pages('d_a') WHERE kind = 'delta'");
	};
	my $pending = sub { return q1("SELECT entries_pending FROM scbf_index_info('d_a')"); };
	is($delta->(), '16 1000', 'delta: its keys are in the 16 pages of the delta');

	# the committed rows' values: every 13th of the build's (their bits
	# are in the band), every one folded since (the delta's), the deleted
	# ones too from c on (their probes must come back without them); and
	# every 7th value of the crashed transactions.  In the forced run each
	# value is a probe of its own (a nested loop over parameterized bitmap
	# scans); the sequential scan hashes them.
	my $top = 21000;
	my $deleted = 0;
	my @crashed;
	my $probes_d = sub {
		my $live = grep { !$deleted || $_ % 5 } (map { 1 + 13 * $_ } 0 .. int(19999 / 13)), 20001 .. $top;
		return [ [ "SELECT * FROM d WHERE a IN (SELECT generate_series(1, 20000, 13) "
				  . "UNION ALL SELECT generate_series(20001, $top))", $live ],
			"SELECT * FROM d WHERE a IN (7, 20500, $top)",
			[ 'SELECT * FROM d WHERE a IN ('
				  . join(' UNION ALL ', map { "SELECT generate_series($_->[0], $_->[1], 7)" } @crashed)
				  . ')', 'empty' ] ];
	};

	# a. in a fold, after ScbfDeltaAdd, before the fold's commit
	q1('INSERT INTO d SELECT g, g FROM generate_series(21001, 22000) g');
	$top = 22000;
	push @crashed, [ 30001, 32000 ];
	my ($e0) = $delta->() =~ / (\d+)$/;
	my ($s, $pid) = gdb_session('d_a');
	my $g = gdb_attach($pid);
	my $out = gdb_stop_at($g, ['ScbfUpdateTable'], start => sub {
		$s->query_until(qr/folding/, "\\echo folding\nBEGIN;\n"
			  . "INSERT INTO d SELECT g, g FROM generate_series(30001, 32000) g;\n"
			  . "SELECT scbf_clean_pending('d_a');\n");
	});
	like($out // '', qr/\@\@stopped\n#0\s+ScbfUpdateTable\b.*\bScbfFold\b.*\bscbf_clean_pending\b/s,
		'delta (a): a fold stopped before it writes the filter table');
	is($delta->(), '16 ' . ($e0 + 3000),
		'delta (a): at the crash, the delta holds the keys of the 1,000 committed pending rows and of the 2,000 uncommitted');
	is($pending->(), 3000, 'delta (a): at the crash, the fold has not committed: 3,000 entries are pending');
	scbf_same($node, 'postgres', $probes_d->(), name => 'delta (a): answers during the fold');
	flush_wal($node);
	gdb_crash($node, $g, 'delta (a)');
	end_session($s);
	is(q1('SELECT count(*) FROM d'), $top, 'delta (a): the transaction is lost');
	is($delta->(), '16 ' . ($e0 + 3000), 'delta (a): after the crash, the delta keeps the entries written');
	is($pending->(), 3000, 'delta (a): after the crash, the 3,000 entries are still pending');
	scbf_same($node, 'postgres', $probes_d->(), name => 'delta (a): answers after the crash');
	verify_clean($node, 'd_a', 'delta (a): after the crash');
	is(q1("SELECT scbf_clean_pending('d_a')"), 3000, 'delta (a): the next fold folds the 3,000 entries');
	is($delta->(), '16 ' . ($e0 + 6000), 'delta (a): the next fold put its keys in the delta');
	scbf_same($node, 'postgres', $probes_d->(), name => 'delta (a): answers after the next fold');

	# b. inside the merge of a fold whose keys overflow a partition: the
	# bits set, the pages not emptied.  Two committed folds of 3,500 keys
	# (each at most a quarter of what the delta holds) fill it first.
	for my $lo (22001, 25501)
	{
		q1("INSERT INTO d SELECT g, g FROM generate_series($lo, $lo + 3499) g");
		is(q1("SELECT scbf_clean_pending('d_a')"), 3500, "delta (b): a fold put 3,500 keys in the delta");
	}
	$top = 29000;
	push @crashed, [ 40001, 43500 ];
	my ($e1) = $delta->() =~ / (\d+)$/;
	($s, $pid) = gdb_session('d_a');
	$g = gdb_attach($pid);
	$out = gdb_stop_at($g, [ 'ScbfDeltaMerge', 'ScbfRowsSet' ], finish => 1, start => sub {
		$s->query_until(qr/folding/, "\\echo folding\nBEGIN;\n"
			  . "INSERT INTO d SELECT g, g FROM generate_series(40001, 43500) g;\n"
			  . "SELECT scbf_clean_pending('d_a');\n");
	});
	like($out // '',
		qr/Run till exit from #0\s+ScbfRowsSet\b.*\@\@stopped\n#0\s+(?:0x[0-9a-f]+ in )?ScbfDeltaMerge\b.*\bScbfFold\b.*\bscbf_clean_pending\b/s,
		'delta (b): a fold merged the delta and stopped once the merge set the bits');
	my ($e2) = $delta->() =~ / (\d+)$/;
	cmp_ok($e2, '>', $e1, "delta (b): at the crash, the delta holds $e2 entries (the fold added some), none emptied");
	scbf_same($node, 'postgres', $probes_d->(), name => 'delta (b): answers during the merge');
	flush_wal($node);
	gdb_crash($node, $g, 'delta (b)');
	end_session($s);
	is(q1('SELECT count(*) FROM d'), $top, 'delta (b): the transaction is lost');
	is($delta->(), "16 $e2", 'delta (b): after the crash, the delta keeps its entries');
	is($pending->(), 3500, 'delta (b): after the crash, the 3,500 entries are still pending');
	scbf_same($node, 'postgres', $probes_d->(), name => 'delta (b): answers after the crash');
	# left: the bits the merge set for the crashed fold's own keys, which
	# the filter table does not count, the fold's table never written
	# ('bits': false positives only)
	verify_clean($node, 'd_a', 'delta (b): after the crash', leftovers => ['bits']);
	q1('INSERT INTO d SELECT g, g FROM generate_series(29001, 29500) g');
	$top = 29500;
	is(q1("SELECT scbf_clean_pending('d_a')"), 4000,
		'delta (b): the next fold folds the 3,500 entries pending at the crash and 500 new ones');
	my ($e3) = $delta->() =~ / (\d+)$/;
	cmp_ok($e3, '<', $e2, "delta (b): the next fold merged the full delta ($e3 entries left)");
	scbf_same($node, 'postgres', $probes_d->(), name => 'delta (b): answers after the next fold');
	# (the extra bits stay until VACUUM recounts the filter)
	verify_clean($node, 'd_a', 'delta (b): after the next fold', leftovers => ['bits']);
	q1('VACUUM (INDEX_CLEANUP ON) d');
	exact_tids('delta (b): after VACUUM', 'd', 7, 21999, 22000, 22222, 29500, 30001, 40001, 43499);
	verify_clean($node, 'd_a', 'delta (b): after VACUUM');

	# c. inside VACUUM's merge, after deletes: the bits set, the pages not
	# emptied, no entry removed
	q1('INSERT INTO d SELECT g, g FROM generate_series(29501, 30000) g');
	$top = 30000;
	is(q1("SELECT scbf_clean_pending('d_a')"), 500, 'delta (c): a fold took 500 keys');
	q1('DELETE FROM d WHERE id % 5 = 0');
	$deleted = 1;
	my $e4 = $delta->();
	($s, $pid) = gdb_session('d_a');
	$g = gdb_attach($pid);
	$out = gdb_stop_at($g, [ 'VacMergeDelta', 'ScbfRowsSet' ], finish => 1, start => sub {
		$s->query_until(qr/vacuuming/, "\\echo vacuuming\nVACUUM (INDEX_CLEANUP ON) d;\n");
	});
	like($out // '',
		qr/Run till exit from #0\s+ScbfRowsSet\b.*\@\@stopped\n#0\s+(?:0x[0-9a-f]+ in )?ScbfDeltaMerge\b.*\bVacMergeDelta\b.*\bscbfbulkdelete\b/s,
		'delta (c): VACUUM stopped in its merge once the bits were set');
	is($delta->(), $e4, 'delta (c): at the crash, no delta page is emptied');
	scbf_same($node, 'postgres', $probes_d->(), name => 'delta (c): answers during the merge');
	flush_wal($node);
	gdb_crash($node, $g, 'delta (c)');
	end_session($s);
	is($delta->(), $e4, 'delta (c): after the crash, the delta keeps its entries');
	scbf_same($node, 'postgres', $probes_d->(), name => 'delta (c): answers after the crash');
	verify_clean($node, 'd_a', 'delta (c): after the crash');
	q1('VACUUM (INDEX_CLEANUP ON) d');
	is($delta->(), '16 0', 'delta (c): the next VACUUM merged the delta');
	scbf_same($node, 'postgres', $probes_d->(), name => 'delta (c): answers after the next VACUUM');
	exact_tids('delta', 'd', 7, 10, 20500, 21005, 22222, 29500, 29999, 30000, 30001, 40001);
	verify_clean($node, 'd_a', 'delta: at the end');
}

# ---- 12. a fold stopped right before its commit record leaves runs of
# the serial it would have committed in the filter it appended to, and
# that filter's table entry counting them (written in place).  The next
# fold runs at that serial again and folds the same pending entries; the
# inflated counts make it close the filter and start a new one.  It must
# drop the stopped fold's runs from the filter it closes (its commit would
# make them visible: every entry twice).  The index's false_positive_rate
# of 0.25 (one slice) lets 20,000 keys fit the filter once but not twice.
SKIP:
{
	skip "a fold stopped before its commit: $gdb_why", 1 if $gdb_why;
	set_delta_band_pages(2048);
	q1(q{
		CREATE TABLE sf (a int) WITH (autovacuum_enabled = off);
		INSERT INTO sf SELECT g FROM generate_series(1, 1000) g;
		CREATE INDEX sf_a ON sf USING scbf (a) WITH (false_positive_rate = 0.25);
		SET scbf.fold_helpers = off;
		INSERT INTO sf SELECT g FROM generate_series(1001, 11000) g;
		INSERT INTO sf SELECT g FROM generate_series(11001, 21000) g;
	});
	my $counts = q{SELECT format('%s live, %s pending, %s rows', entries_live, entries_pending,
		(SELECT count(*) FROM sf)) FROM scbf_index_info('sf_a')};
	is(q1($counts), '1000 live, 20000 pending, 21000 rows', 'stopped fold: 20,000 entries pending');
	my ($s, $pid) = gdb_session('sf_a');
	my $g = gdb_attach($pid);
	my $out = gdb_stop_at($g, ['ScbfCommitSerial'], start => sub {
		$s->query_until(qr/folding/, "\\echo folding\nSELECT scbf_clean_pending('sf_a');\n\\echo folded\n");
	});
	like($out // '', qr/\@\@stopped\n#0\s+(?:0x[0-9a-f]+ in )?ScbfCommitSerial\b.*\bFoldRun\b/s,
		'stopped fold: the fold stopped at its commit');
	gdb_release($g, "return\n");
	$s->query_until(qr/folded/, '');
	end_session($s);
	is(q1($counts), '1000 live, 20000 pending, 21000 rows',
		'stopped fold: its runs are invisible and its entries still pending');
	is(q1("SELECT string_agg(format('%s %s', state, entries), ', ' ORDER BY filter) FROM scbf_filters('sf_a')"),
		'active 1000', 'stopped fold: the filter shows its committed entries');
	is(q1("SELECT scbf_clean_pending('sf_a')"), '20000', 'stopped fold: the next fold takes the entries again');
	is(q1("SELECT string_agg(format('%s %s', state, entries), ', ' ORDER BY filter) FROM scbf_filters('sf_a')"),
		'closed 1000, active 20000', 'stopped fold: the next fold closed the filter and left none of the stopped runs in it');
	is(q1($counts), '21000 live, 0 pending, 21000 rows', 'stopped fold: one entry per row');
	scbf_same($node, 'postgres', [
		[ 'SELECT * FROM sf WHERE a IN (5, 999, 1001, 15000, 20999)', 'any' ],
		[ 'SELECT * FROM sf WHERE a = 21001', 'empty' ] ],
		nonempty => 1, name => 'stopped fold: answers');
	verify_clean($node, 'sf_a', 'stopped fold', leftovers => ['counts', 'bits']);
}

# ---- 13. a crash in a fold that chose a new geometry: an index built
# empty guesses m (64 keys a page); a clustered column (20 rows a value)
# has far fewer keys, so the fold whose relayout finds 8 segments to measure
# writes a new band at a smaller m from the ledgers (ScbfBandRebuild) and
# the table's new counts in place, and is stopped before its commit
# record, then the server crashes.  The old band and m stay: answers are
# exact, the entries still pending, the counts (written for the new band)
# a leftover; the next fold counts the band's bits anew
# (SCBF_META_RECOUNT), chooses the geometry again and commits it.
SKIP:
{
	skip "a crash in a regeometry: $gdb_why", 1 if $gdb_why;
	q1(q{
		CREATE TABLE rg (id int, a int) WITH (autovacuum_enabled = off);
		CREATE INDEX rg_a ON rg USING scbf (a) WITH (pages_per_segment = 8);
		INSERT INTO rg SELECT g, g / 20 FROM generate_series(1, 25000) g;
		SELECT scbf_clean_pending('rg_a');
		SET scbf.fold_helpers = off;
		INSERT INTO rg SELECT g, g / 20 FROM generate_series(25001, 35000) g;
		INSERT INTO rg SELECT g, g / 20 FROM generate_series(35001, 45000) g;
	});
	my $info = q{SELECT format('%s live, %s pending, m %s', entries_live, entries_pending, slice_counters)
		FROM scbf_index_info('rg_a')};
	my ($live, $pend, $m0) = q1($info) =~ /^(\d+) live, (\d+) pending, m (\d+)$/;
	is($live + $pend, 45000, "regeometry: every row has an entry ($live live, $pend pending)");
	my @probes = ([ 'SELECT * FROM rg WHERE a IN (0, 700, 1249, 2249)', 'any' ],
		[ 'SELECT * FROM rg WHERE a IN (-1, 2251)', 'empty' ]);
	my ($s, $pid) = gdb_session('rg_a');
	my $g = gdb_attach($pid);
	my $out = gdb_stop_at($g, [ 'ScbfBandRebuild', 'ScbfCommitSerial' ], start => sub {
		$s->query_until(qr/folding/, "\\echo folding\nSELECT scbf_clean_pending('rg_a');\n");
	});
	like($out // '', qr/ScbfBandRebuild.*\@\@stopped\n#0\s+(?:0x[0-9a-f]+ in )?ScbfCommitSerial\b.*\bFoldRun\b/s,
		'regeometry: the fold rebuilt the band and stopped at its commit');
	scbf_same($node, 'postgres', \@probes, nonempty => 1, name => 'regeometry: answers during the fold');
	flush_wal($node);
	gdb_crash($node, $g, 'regeometry');
	end_session($s);
	is(q1($info), "$live live, $pend pending, m $m0",
		'regeometry: after the crash, the old band and m, the entries still pending');
	scbf_same($node, 'postgres', \@probes, nonempty => 1, name => 'regeometry: answers after the crash');
	verify_clean($node, 'rg_a', 'regeometry: after the crash', leftovers => [qw(pages counts bits)]);
	is(q1("SELECT scbf_clean_pending('rg_a')"), $pend, 'regeometry: the next fold folds the pending entries');
	my ($m1) = q1($info) =~ /m (\d+)$/;
	cmp_ok($m1, '<', $m0, "regeometry: the next fold committed a smaller m ($m0 -> $m1)");
	scbf_same($node, 'postgres', \@probes, nonempty => 1, name => 'regeometry: answers after the next fold');
	verify_clean($node, 'rg_a', 'regeometry: after the next fold', leftovers => ['pages']);
	q1('VACUUM rg');
	verify_clean($node, 'rg_a', 'regeometry: after VACUUM');
}

# ---- 14. crashes in a fold that grows the bands (src/README, "Growth
# beyond one band"): with scbf.test_band_filters = 16 (postgresql.conf) a
# band holds at most 16 filters.
#   a. An index built on 16 segments of one filter each has one full band;
#      a fold of rows in a new segment opens a second band after it
#      (ScbfBandOpen: its rows and map in new pages) and is stopped at its
#      commit record, then the server crashes.  The bands stay one: the
#      answers are exact, the entries still pending, the new band's pages
#      a leftover no structure names; the next fold opens the band again
#      and commits it, and VACUUM frees the leftover.
#   b. With scbf.test_band_filters = 32, a band built for 12 filters is 24
#      wide, below the limit; a fold past 24 filters relays it out 32 wide
#      (ScbfBandRelayout called from FoldBands itself, not from
#      ScbfBandOpen) and is stopped at its commit likewise: the old band
#      stays, the next fold writes the band anew and commits it.
#   c. An index of three bands of 16 filters has a group summarizing them
#      (src/README, "Summaries of bands"); deletes take a third of the
#      keys out, and the VACUUM that writes the group's summary anew from
#      the ledgers (ScbfGroupRebuild) is stopped at the commit that names
#      it, then the server crashes.  The old summary stays named, with
#      the count of keys removed, the answers exact; the new summary's
#      pages are a leftover; the next VACUUM writes it anew and commits.
#   d. With scbf.test_group_bands = 1 (a group a band), an index grown by
#      inserts has several groups and no top over them (folds do not open
#      it); the VACUUM that opens the top from the ledgers (ScbfTopWrite)
#      is stopped at the commit that names it, then the server crashes.
#      No top is named, the format stays 3, the answers are exact; the
#      next VACUUM opens the top (format 5).
#   e. Then inserts open groups past the top's width, which probes read
#      directly; the VACUUM that writes the top anew, wider, is stopped at
#      its commit likewise: the old top stays named, the next VACUUM
#      commits the wider one.
SKIP:
{
	skip "crashes in a fold that grows the bands: $gdb_why", 1 if $gdb_why;
	set_band_filters(16);
	# the serials of the bands the metapage names or the graveyard keeps
	my $maps = sub {
		return q1("SELECT string_agg(serial::text, ',' ORDER BY serial) FROM scbf_pages('$_[0]') WHERE kind = 'band map'");
	};
	my $bands = sub {
		return q1("SELECT count(DISTINCT serial) FROM scbf_pages('$_[0]') WHERE kind = 'rows'");
	};
	my $unreferenced = sub {
		return q1("SELECT count(*) FROM scbf_pages('$_[0]') WHERE kind = 'unreferenced'");
	};
	# the summaries of groups of bands the metapage names
	my $summaries = sub {
		return q1("SELECT count(*) FROM scbf_pages('$_[0]') WHERE kind = 'summary map' AND block_index IS NOT NULL");
	};
	my $info = sub {
		return q1("SELECT format('%s filters, %s live, %s pending', filters, entries_live, entries_pending) "
			  . "FROM scbf_index_info('$_[0]')");
	};

	# a. a fold that opens a band
	q1(q{
		CREATE TABLE bo (id int, a int) WITH (autovacuum_enabled = off);
		INSERT INTO bo SELECT g, g % 1000 FROM generate_series(1, 28000) g;
		CREATE INDEX bo_a ON bo USING scbf (a) WITH (pages_per_segment = 8);
		SET scbf.fold_helpers = off;
		INSERT INTO bo SELECT g, 5000 + g % 500 FROM generate_series(28001, 30000) g;
	});
	is($info->('bo_a'), '16 filters, 28000 live, 2000 pending', 'band open: 16 filters, 2,000 entries pending');
	is($maps->('bo_a'), '1', 'band open: one band');
	my @probes = ('SELECT * FROM bo WHERE a IN (0, 500, 999)', 'SELECT * FROM bo WHERE a = 5007',
		'SELECT * FROM bo WHERE a IN (5000, 5499)', [ 'SELECT * FROM bo WHERE a IN (-1, 1000, 5500)', 'empty' ]);
	my ($s, $pid) = gdb_session('bo_a');
	my $g = gdb_attach($pid);
	my $out = gdb_stop_at($g, [ 'ScbfBandOpen', 'ScbfCommitSerial' ], start => sub {
		$s->query_until(qr/folding/, "\\echo folding\nSELECT scbf_clean_pending('bo_a');\n");
	});
	like($out // '', qr/ScbfBandOpen.*\@\@stopped\n#0\s+(?:0x[0-9a-f]+ in )?ScbfCommitSerial\b.*\bFoldRun\b/s,
		'band open: the fold opened a band and stopped at its commit');
	is($maps->('bo_a'), '1', 'band open: at the crash, the metapage names the one band');
	is($summaries->('bo_a'), 0, 'band open: at the crash, no summary of bands is named yet');
	cmp_ok($unreferenced->('bo_a'), '>', 0, 'band open: at the crash, the new band\'s pages are written, named by nothing');
	scbf_same($node, 'postgres', \@probes, name => 'band open: answers during the fold');
	flush_wal($node);
	gdb_crash($node, $g, 'band open');
	end_session($s);
	is($info->('bo_a'), '16 filters, 28000 live, 2000 pending', 'band open: after the crash, the entries are still pending');
	is($bands->('bo_a'), 1, 'band open: after the crash, one band');
	scbf_same($node, 'postgres', \@probes, name => 'band open: answers after the crash');
	verify_clean($node, 'bo_a', 'band open: after the crash', leftovers => ['pages']);
	is(q1("SELECT scbf_clean_pending('bo_a')"), 2000, 'band open: the next fold folds the pending entries');
	like($info->('bo_a'), qr/^(1[7-9]|2\d) filters, 30000 live, 0 pending$/, 'band open: the next fold added filters');
	is($maps->('bo_a'), '1,2', 'band open: the next fold opened the second band');
	is($summaries->('bo_a'), 1, 'band open: the next fold opened the first group of bands, summarizing both');
	is($bands->('bo_a'), 2, 'band open: two bands of rows');
	scbf_same($node, 'postgres', \@probes, name => 'band open: answers after the next fold');
	verify_clean($node, 'bo_a', 'band open: after the next fold', leftovers => ['pages']);
	q1('VACUUM bo');
	is($unreferenced->('bo_a'), 0, 'band open: VACUUM freed the pages the crash left');
	is($maps->('bo_a'), '1,2', 'band open: after VACUUM, the two bands');
	scbf_same($node, 'postgres', \@probes, name => 'band open: answers after VACUUM');
	exact_tids('band open', 'bo', 0, 999, 5000, 5499);
	verify_clean($node, 'bo_a', 'band open: after VACUUM');

	# b. a fold that relays out a last band below the limit
	set_band_filters(32);
	q1(q{
		CREATE TABLE bl (id int, a int) WITH (autovacuum_enabled = off);
		INSERT INTO bl SELECT g, g % 1000 FROM generate_series(1, 20000) g;
		CREATE INDEX bl_a ON bl USING scbf (a) WITH (pages_per_segment = 8);
		SET scbf.fold_helpers = off;
		INSERT INTO bl SELECT g, g % 1000 FROM generate_series(20001, 32000) g;
		SELECT scbf_clean_pending('bl_a');
		INSERT INTO bl SELECT g, 5000 + g % 1000 FROM generate_series(32001, 44000) g;
	});
	my ($f0) = $info->('bl_a') =~ /^(\d+) filters, \d+ live, 12000 pending$/;
	ok(defined $f0 && $f0 > 12 && $f0 <= 24, 'relayout: ' . ($f0 // '?') . ' filters, within the band built 24 wide, 12,000 entries pending');
	is($maps->('bl_a'), '1', 'relayout: one band');
	my $before = $info->('bl_a');
	@probes = ('SELECT * FROM bl WHERE a IN (0, 500, 999)', 'SELECT * FROM bl WHERE a = 5007',
		'SELECT * FROM bl WHERE a IN (5000, 5999)', [ 'SELECT * FROM bl WHERE a IN (-1, 1000, 6000)', 'empty' ]);
	($s, $pid) = gdb_session('bl_a');
	$g = gdb_attach($pid);
	$out = gdb_stop_at($g, ['ScbfBandRelayout'], start => sub {
		$s->query_until(qr/folding/, "\\echo folding\nSELECT scbf_clean_pending('bl_a');\n");
	});
	like($out // '', qr/\@\@stopped\n#0\s+(?:0x[0-9a-f]+ in )?ScbfBandRelayout\b[^\n]*\n#1\s+(?:0x[0-9a-f]+ in )?FoldBands\b/s,
		'relayout: the fold relays out its last band');
	$out = gdb_stop_at($g, ['ScbfCommitSerial']);
	like($out // '', qr/\@\@stopped\n#0\s+(?:0x[0-9a-f]+ in )?ScbfCommitSerial\b.*\bFoldRun\b/s,
		'relayout: the fold stopped at its commit');
	is($maps->('bl_a'), '1', 'relayout: at the crash, the metapage names the old band');
	cmp_ok($unreferenced->('bl_a'), '>', 0, 'relayout: at the crash, the new band\'s pages are written, named by nothing');
	scbf_same($node, 'postgres', \@probes, name => 'relayout: answers during the fold');
	flush_wal($node);
	gdb_crash($node, $g, 'relayout');
	end_session($s);
	is($info->('bl_a'), $before, 'relayout: after the crash, the entries are still pending');
	is($maps->('bl_a'), '1', 'relayout: after the crash, the old band');
	scbf_same($node, 'postgres', \@probes, name => 'relayout: answers after the crash');
	verify_clean($node, 'bl_a', 'relayout: after the crash', leftovers => ['pages']);
	is(q1("SELECT scbf_clean_pending('bl_a')"), 12000, 'relayout: the next fold folds the pending entries');
	my ($f1) = $info->('bl_a') =~ /^(\d+) filters/;
	ok($f1 > 24 && $f1 <= 32, "relayout: the next fold made $f1 filters, past the band's 24 and within the limit");
	is($maps->('bl_a'), '1,2', 'relayout: the next fold wrote the band anew (the old one in the graveyard)');
	scbf_same($node, 'postgres', \@probes, name => 'relayout: answers after the next fold');
	# the old band's grave is freed once a transaction id assigned after
	# the commit is older than every snapshot
	q1('SELECT txid_current()');
	q1('VACUUM bl');
	is($maps->('bl_a'), '2', 'relayout: VACUUM recycled the old band');
	is($unreferenced->('bl_a'), 0, 'relayout: VACUUM freed the pages the crash left');
	scbf_same($node, 'postgres', \@probes, name => 'relayout: answers after VACUUM');
	exact_tids('relayout', 'bl', 0, 999, 5000, 5999);
	verify_clean($node, 'bl_a', 'relayout: after VACUUM');

	# c. a VACUUM that writes a group's summary anew
	set_band_filters(16);
	my $groups = sub {
		return q1("SELECT string_agg(serial::text, ',' ORDER BY serial) FROM scbf_pages('$_[0]') "
			  . "WHERE kind = 'summary map' AND block_index IS NOT NULL");
	};
	q1(q{
		CREATE TABLE bs (id int, a int) WITH (autovacuum_enabled = off);
		INSERT INTO bs SELECT g, g % 1000 FROM generate_series(1, 60000) g;
		CREATE INDEX bs_a ON bs USING scbf (a) WITH (pages_per_segment = 8);
	});
	cmp_ok(q1("SELECT count(*) FROM scbf_pages('bs_a') WHERE kind = 'band map'"), '>=', 2, 'summary rebuild: the index has several bands');
	is($groups->('bs_a'), '1', 'summary rebuild: one group summarizes them');
	q1('DELETE FROM bs WHERE a % 3 = 0');
	@probes = ('SELECT * FROM bs WHERE a IN (1, 500, 998)', 'SELECT * FROM bs WHERE a = 7',
		[ 'SELECT * FROM bs WHERE a IN (0, 3, 999, 1000)', 'empty' ]);
	($s, $pid) = gdb_session('bs_a');
	$g = gdb_attach($pid);
	$out = gdb_stop_at($g, [ 'ScbfGroupRebuild', 'ScbfCommitSerial' ], start => sub {
		$s->query_until(qr/vacuuming/, "\\echo vacuuming\nVACUUM (INDEX_CLEANUP ON) bs;\n");
	});
	like($out // '', qr/\@\@stopped\n#0\s+(?:0x[0-9a-f]+ in )?ScbfCommitSerial\b.*\bVacSummaries\b/s,
		'summary rebuild: VACUUM wrote the summary anew and stopped at its commit');
	is($groups->('bs_a'), '1', 'summary rebuild: at the crash, the metapage names the old summary');
	cmp_ok($unreferenced->('bs_a'), '>', 0, 'summary rebuild: at the crash, the new summary\'s pages are written, named by nothing');
	scbf_same($node, 'postgres', \@probes, name => 'summary rebuild: answers during the VACUUM');
	flush_wal($node);
	gdb_crash($node, $g, 'summary rebuild');
	end_session($s);
	is($groups->('bs_a'), '1', 'summary rebuild: after the crash, the old summary');
	scbf_same($node, 'postgres', \@probes, name => 'summary rebuild: answers after the crash');
	verify_clean($node, 'bs_a', 'summary rebuild: after the crash', leftovers => ['pages']);
	q1('VACUUM bs');
	is($groups->('bs_a'), '2', 'summary rebuild: the next VACUUM wrote the summary anew and committed it');
	scbf_same($node, 'postgres', \@probes, name => 'summary rebuild: answers after the next VACUUM');
	q1('SELECT txid_current()');
	q1('VACUUM bs');
	is($unreferenced->('bs_a'), 0, 'summary rebuild: VACUUM freed the pages the crash left');
	exact_tids('summary rebuild', 'bs', 0, 1, 3, 7, 500, 998, 999);
	verify_clean($node, 'bs_a', 'summary rebuild: after VACUUM');

	# d. a VACUUM that opens the top over the groups
	set_group_bands(1);
	# the top's serial ('' if there is none), and the storage format
	my $top = sub {
		return q1("SELECT coalesce(max(serial)::text, '') FROM scbf_pages('$_[0]') WHERE kind = 'top map'");
	};
	my $version = sub {
		return q1("SELECT get_byte(get_raw_page('$_[0]', 0), 28)");
	};
	q1(q{
		CREATE EXTENSION IF NOT EXISTS pageinspect;
		CREATE TABLE tp (id int, code text) WITH (autovacuum_enabled = off);
		INSERT INTO tp SELECT g, md5(g::text) FROM generate_series(1, 8000) g;
		CREATE INDEX tp_code ON tp USING scbf (code) WITH (pages_per_segment = 8);
		SET scbf.fold_helpers = off;
		INSERT INTO tp SELECT g, md5(g::text) FROM generate_series(8001, 60000) g;
		SELECT scbf_clean_pending('tp_code');
	});
	my $ngroups = $groups->('tp_code') =~ tr/,// + 1;
	cmp_ok($ngroups, '>=', 4, "top open: the index has $ngroups groups");
	is($top->('tp_code'), '', 'top open: and no top');
	is($version->('tp_code'), 3, 'top open: format 3');
	@probes = ("SELECT * FROM tp WHERE code = md5('7')", "SELECT * FROM tp WHERE code = md5('59999')",
		"SELECT * FROM tp WHERE code IN (md5('1'), md5('30000'), md5('44444'))",
		[ "SELECT * FROM tp WHERE code IN (md5('0'), md5('120001'))", 'empty' ]);
	($s, $pid) = gdb_session('tp_code');
	$g = gdb_attach($pid);
	$out = gdb_stop_at($g, [ 'ScbfTopWrite', 'ScbfCommitSerial' ], start => sub {
		$s->query_until(qr/vacuuming/, "\\echo vacuuming\nVACUUM (INDEX_CLEANUP ON) tp;\n");
	});
	like($out // '', qr/ScbfTopWrite.*\@\@stopped\n#0\s+(?:0x[0-9a-f]+ in )?ScbfCommitSerial\b.*\bVacSummaries\b/s,
		'top open: VACUUM wrote the top and stopped at its commit');
	is($top->('tp_code'), '', 'top open: at the crash, no top is named');
	cmp_ok($unreferenced->('tp_code'), '>', 0, 'top open: at the crash, the top\'s pages are written, named by nothing');
	scbf_same($node, 'postgres', \@probes, name => 'top open: answers during the VACUUM');
	flush_wal($node);
	gdb_crash($node, $g, 'top open');
	end_session($s);
	is($top->('tp_code'), '', 'top open: after the crash, no top');
	is($version->('tp_code'), 3, 'top open: after the crash, format 3');
	scbf_same($node, 'postgres', \@probes, name => 'top open: answers after the crash');
	verify_clean($node, 'tp_code', 'top open: after the crash', leftovers => ['pages']);
	q1('VACUUM tp');
	my $top0 = $top->('tp_code');
	isnt($top0, '', 'top open: the next VACUUM opened the top');
	is($version->('tp_code'), 5, 'top open: format 5');
	is($unreferenced->('tp_code'), 0, 'top open: VACUUM freed the pages the crash left');
	scbf_same($node, 'postgres', \@probes, name => 'top open: answers after the next VACUUM');
	verify_clean($node, 'tp_code', 'top open: after VACUUM');

	# e. a VACUUM that writes the top anew, wider
	q1(q{
		SET scbf.fold_helpers = off;
		INSERT INTO tp SELECT g, md5(g::text) FROM generate_series(60001, 120000) g;
		SELECT scbf_clean_pending('tp_code');
	});
	my $ngroups1 = $groups->('tp_code') =~ tr/,// + 1;
	cmp_ok($ngroups1, '>', $ngroups + $ngroups / 2, "top widening: $ngroups1 groups, past the top's width");
	is($top->('tp_code'), $top0, 'top widening: the same top');
	push @probes, "SELECT * FROM tp WHERE code = md5('119999')", "SELECT * FROM tp WHERE code = md5('70000')";
	scbf_same($node, 'postgres', \@probes, name => 'top widening: answers before the VACUUM');
	verify_clean($node, 'tp_code', 'top widening: before the VACUUM');
	($s, $pid) = gdb_session('tp_code');
	$g = gdb_attach($pid);
	$out = gdb_stop_at($g, [ 'ScbfTopWrite', 'ScbfCommitSerial' ], start => sub {
		$s->query_until(qr/vacuuming/, "\\echo vacuuming\nVACUUM (INDEX_CLEANUP ON) tp;\n");
	});
	like($out // '', qr/ScbfTopWrite.*\@\@stopped\n#0\s+(?:0x[0-9a-f]+ in )?ScbfCommitSerial\b.*\bVacSummaries\b/s,
		'top widening: VACUUM wrote the top anew and stopped at its commit');
	is($top->('tp_code'), $top0, 'top widening: at the crash, the old top is named');
	scbf_same($node, 'postgres', \@probes, name => 'top widening: answers during the VACUUM');
	flush_wal($node);
	gdb_crash($node, $g, 'top widening');
	end_session($s);
	is($top->('tp_code'), $top0, 'top widening: after the crash, the old top');
	scbf_same($node, 'postgres', \@probes, name => 'top widening: answers after the crash');
	verify_clean($node, 'tp_code', 'top widening: after the crash', leftovers => ['pages']);
	q1('VACUUM tp');
	cmp_ok($top->('tp_code'), '>', $top0, 'top widening: the next VACUUM wrote the top anew and committed it');
	scbf_same($node, 'postgres', \@probes, name => 'top widening: answers after the next VACUUM');
	q1('SELECT txid_current()');
	q1('VACUUM tp');
	is($unreferenced->('tp_code'), 0, 'top widening: VACUUM freed the pages the crash left');
	verify_clean($node, 'tp_code', 'top widening: after VACUUM');
	set_group_bands(0);
	set_band_filters(0);
}

$node->stop;
done_testing();
