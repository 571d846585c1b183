# Crash recovery of scbf.  Every crash lands at a point the test chooses and
# asserts before it crashes, never at a point a poll happened to catch:
#
#   1. after committed inserts (the server is stopped with 'immediate': no
#      shutdown checkpoint, like a crash);
#   2. inside a large INSERT: the row the test picks blocks on an advisory
#      lock the test holds (a function in the INSERT's WHERE), so exactly the
#      rows before it are inserted, and the index entries written so far
#      (aminsert may batch them) are there;
#   3. after DELETE + VACUUM; then inside VACUUM's ambulkdelete, and 4. inside
#      amvacuumcleanup's consolidation of filter chains: the VACUUM runs with
#      a heavy cost delay (the heap pass skips the all-visible pages, the
#      index pass sleeps between ledger pages or segments), the test waits
#      until the index shows part of the work done, freezes the backend with
#      SIGSTOP, asserts that it sleeps in vacuum_delay_point (wait event
#      VacuumDelay: no buffer lock held) in the expected phase with that part
#      done and the rest not, flushes WAL, and kills it with SIGKILL (a real
#      backend crash: the postmaster reinitializes and replays WAL);
#   5. after a finished consolidation;
#   7. (storage format 2) inside VACUUM's fold of the pending area, between
#      two segments, frozen and killed as in 3 and 4;
#   8. (storage format 2) inside VACUUM's removal of dead entries, between
#      the first and the last filter, twice: once redone by the next
#      VACUUM, once made visible by a fold that commits the crashed serial
#      first.
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
	-- built empty: inserts grow chains of filters, VACUUM consolidates them
	CREATE TABLE c (id int, k text);
	CREATE INDEX c_k ON c USING scbf (k) WITH (pages_per_segment = 128, false_positive_rate = 0.001);
	INSERT INTO c SELECT g, md5(g::text) FROM generate_series(1, 100000) g;
	INSERT INTO c VALUES (-1, NULL);
	-- what the Bitmap Index Scan hands out, before the heap recheck
	CREATE FUNCTION index_tids(q text) RETURNS bigint LANGUAGE plpgsql
	SET enable_seqscan = off SET enable_indexscan = off AS $$
	DECLARE
		plan json;
	BEGIN
		EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, FORMAT JSON) ' || q INTO plan;
		RETURN (SELECT (n->>'Actual Rows')::bigint
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

# entries of one segment of an index, and of all
sub entries
{
	my ($idx, $segno) = @_;
	return q1("SELECT sum(entries) FROM scbf_segments('$idx')" . (defined $segno ? " WHERE segno = $segno" : ''));
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
# what was written.
{
	my $rows = q1('SELECT count(*) FROM t');
	my $before = entries('t_a');
	my $gate = hold_gate($node, 200000);
	my ($ins, $pid) = gated_session($node,
		"INSERT INTO t SELECT g, g % 1000, 'b' || (g % 313) FROM generate_series(100001, 300000) g WHERE gate(g, 0) = 0",
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

# ... and inside VACUUM's ambulkdelete of t_a: every heap page is
# all-visible but the first and the last, whose rows are deleted; the crash
# lands after t_a's segment 0 lost its dead entries, before its last
# segment did
{
	my $lastblk = q1('SELECT max((ctid::text::point)[0])::int FROM t');
	my $lastseg = int($lastblk / 8);
	my ($e0, $el) = (entries('t_a', 0), entries('t_a', $lastseg));
	my $d0 = q1("WITH d AS (DELETE FROM t WHERE ctid < '(1,0)' RETURNING 1) SELECT count(*) FROM d");
	my $dl = q1("WITH d AS (DELETE FROM t WHERE ctid >= '($lastblk,0)' RETURNING 1) SELECT count(*) FROM d");
	ok($d0 > 0 && $dl > 0 && $lastseg > 2, "vacuum: $d0 rows deleted in segment 0, $dl in segment $lastseg");
	my $vac = $node->background_psql('postgres');
	my $pid = $vac->query_safe('SELECT pg_backend_pid()');
	$vac->query_until(qr/vacuuming/, "SET vacuum_cost_delay = 100;\nSET vacuum_cost_limit = 1;\n"
		  . "\\echo vacuuming\nVACUUM (PARALLEL 0, INDEX_CLEANUP ON) t;\n");
	my $phase = freeze_vacuum($node, $pid,
		"SELECT entries = $e0 - $d0 FROM scbf_segments('t_a') WHERE segno = 0", 'vacuum');
	is($phase, 'vacuuming indexes', 'vacuum: frozen in the phase vacuuming indexes');
	is(entries('t_a', 0), $e0 - $d0, 'vacuum: at the crash, segment 0 has lost its dead entries');
	is(entries('t_a', $lastseg), $el, "vacuum: at the crash, segment $lastseg still has its dead entries");
	flush_wal($node);
	kill_backend($node, $pid, 'vacuum');
	end_session($vac);
	is(entries('t_a', 0), $e0 - $d0, 'vacuum: after the crash, segment 0 is without its dead entries');
	is(entries('t_a', $lastseg), $el, "vacuum: after the crash, segment $lastseg still has its dead entries");
	check_all('after a crash inside VACUUM');
	$node->safe_psql('postgres', 'VACUUM (INDEX_CLEANUP ON) t');
	is(entries('t_a', $lastseg), $el - $dl, "vacuum: a new VACUUM removes the rest");
	check_all('after a crash inside VACUUM and a new VACUUM');
}

# ---- 4. crash inside the consolidation of c_k's chains by VACUUM's
# cleanup, which consolidates segment after segment.  A VACUUM without
# index cleanup first makes every heap page all-visible (the crashed
# VACUUM's heap pass skips them) and leaves the chains alone.
{
	$node->safe_psql('postgres', 'VACUUM (INDEX_CLEANUP OFF) c');
	my $chained = q1("SELECT count(*) FROM scbf_segments('c_k') WHERE chain_length > 1");
	my $single = q1("SELECT count(*) FROM scbf_segments('c_k') WHERE chain_length = 1");
	cmp_ok($chained, '>=', 3, "consolidation: $chained segments have chains");
	my $vac = $node->background_psql('postgres');
	my $pid = $vac->query_safe('SELECT pg_backend_pid()');
	$vac->query_until(qr/vacuuming/, "SET vacuum_cost_delay = 100;\nSET vacuum_cost_limit = 1;\n"
		  . "\\echo vacuuming\nVACUUM (PARALLEL 0, INDEX_CLEANUP ON) c;\n");
	my $consolidated = "SELECT count(*) - $single FROM scbf_segments('c_k') WHERE chain_length = 1";
	my $phase = freeze_vacuum($node, $pid, "SELECT ($consolidated) > 0", 'consolidation');
	is($phase, 'cleaning up indexes', 'consolidation: frozen in the phase cleaning up indexes');
	my $done = q1($consolidated);
	ok($done >= 1 && $done < $chained,
		"consolidation: at the crash, $done of $chained chained segments are consolidated");
	flush_wal($node);
	kill_backend($node, $pid, 'consolidation');
	end_session($vac);
	is(q1($consolidated), $done, 'consolidation: after the crash, the same segments are consolidated');
	check_all('after a crash inside consolidation');
	$node->safe_psql('postgres', 'VACUUM c');
	is(q1("SELECT max_chain FROM scbf_index_info('c_k')"), '1', 'consolidation: a new VACUUM finishes it');
	check_all('after a crash inside consolidation and a new VACUUM');
}

# ---- 5. crash after a finished consolidation: new chains, deletes, VACUUM
$node->safe_psql('postgres',
	"INSERT INTO c SELECT g, md5(g::text) FROM generate_series(150001, 170000) g; DELETE FROM c WHERE id % 7 = 0;");
cmp_ok(q1("SELECT max_chain FROM scbf_index_info('c_k')"), '>', 1, 'inserts chained filters again');
$node->safe_psql('postgres', 'VACUUM c');
flush_wal($node);
$node->stop('immediate');
$node->start;
check_all('after consolidation and a crash');
is(q1("SELECT max_chain FROM scbf_index_info('c_k')"), '1',
	'chains consolidated by VACUUM survive the crash')
  or diag(q1(q{
	SELECT string_agg(format('segment %s filter %s (serial %s) %s %s: %s entries, %s ledger pages',
							 segno, filter, serial, state, flags, entries, ledger_pages), E'\n')
	FROM scbf_filters('c_k')
	WHERE segno IN (SELECT segno FROM scbf_segments('c_k') WHERE chain_length > 1)}));

# the indexes agree with the heap entry by entry
foreach my $idx ('t_a', 't_ab', 'c_k')
{
	my ($ret, $out, $err) = $node->psql('postgres', "SELECT scbf_verify('$idx', true)");
	is($ret, 0, "scbf_verify($idx) after the crashes") or diag($err);
}

# ---- 6. unlogged: after a crash the table and its index are empty, and usable
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

# ---- 7. storage format 2: a crash inside VACUUM's fold of the pending
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
		SET scbf.build_format = 2;
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

# ---- 8. storage format 2: crashes inside VACUUM's removal (ambulkdelete),
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
		SET scbf.build_format = 2;
		CREATE INDEX r_a ON r USING scbf (a) WITH (pages_per_segment = 8);
		VACUUM r;
		CREATE EXTENSION pageinspect;
	});
	my @probes_r = ('SELECT * FROM r WHERE a = 7', 'SELECT * FROM r WHERE a IN (107, 208)',
		'SELECT * FROM r WHERE a = 209', 'SELECT * FROM r WHERE a = 299',
		[ 'SELECT * FROM r WHERE a = 5000', 'empty' ]);
	my $lastblk = q1('SELECT max((ctid::text::point)[0])::int FROM r');
	my $lastseg = int($lastblk / 8);
	# the leaves of a segment's filters written since WAL position $lsn (a
	# merged run's leaves are new pages; nothing else writes leaves here)
	my $new_leaves = sub {
		my ($segno, $lsn) = @_;
		return "SELECT count(*) FROM scbf_pages('r_a') p WHERE p.kind = 'leaf' AND p.segno = $segno "
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
		my $phase = freeze_vacuum($node, $pid, 'SELECT (' . $new_leaves->(0, $lsn) . ') > 0', "removal ($round)");
		is($phase, 'vacuuming indexes', "removal ($round): frozen between two filters");
		cmp_ok(q1($new_leaves->(0, $lsn)), '>', 0, "removal ($round): at the crash, segment 0's filter has its merged run");
		is(q1($new_leaves->($lastseg, $lsn)), 0, "removal ($round): at the crash, segment ${lastseg}'s filter has not");
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
	# the superseded runs leave their roots and their leaves take new rows
	q1('VACUUM (INDEX_CLEANUP ON) r');
	$node->safe_psql('postgres', "INSERT INTO r SELECT -g, g % 300, 'n' FROM generate_series(2, 2000) g; VACUUM r;");
	scbf_same($node, 'postgres', \@probes_r, name => 'removal: answers after the freed pages took new rows');
	exact_tids('removal: after new rows', 'r', 3, 4, 7, 107, 209);
	# the table entry of segment 0's filter still counts the dead entries
	# that the crashed runs, which the fold made visible, no longer hold:
	# the crashed VACUUM had not written it
	verify_clean($node, 'r_a', 'removal: at the end', leftovers => ['counts']);
}

$node->stop;
done_testing();
