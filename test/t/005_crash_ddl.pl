# Crashes in the middle of building an scbf index, and of the functions
# and commands that rewrite one: CREATE INDEX; CREATE INDEX CONCURRENTLY and
# REINDEX INDEX CONCURRENTLY under write load, each in its build and in its
# validation; and one backend killed with SIGKILL in the middle of an
# insert.
#
# Every crash lands at a point the test chooses and asserts before it
# crashes.  The index under test is on an expression, gate(id, a), which
# returns a; a session that set crash.gate to a list of ids waits, when it
# evaluates the expression for a row with one of those ids, for the
# advisory lock of that id, which the test holds.  So a build stops at the
# row the test picks (in the build's heap scan, or in the validation's heap
# scan of CREATE INDEX CONCURRENTLY, which evaluates the expression for the
# rows the build did not see); the test asserts the phase
# (pg_stat_progress_create_index) and the wait, then stops the server with
# 'immediate' (a crash: no shutdown checkpoint).  Other sessions never set
# crash.gate: their inserts and the sequential scans that check the answers
# go through.
#
# Afterwards: an index whose build was cut short is reported invalid by
# PostgreSQL (pg_index.indisvalid), never used by a query, and REINDEX or
# DROP and CREATE make it valid; every valid index passes scbf_verify with
# heapallindexed and answers as a sequential scan does.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use lib 'test/t';
use ScbfTest;

my $node = start_node('crash_ddl', crash => 1);

sub q1 { return $node->safe_psql('postgres', $_[0]); }

create_gate($node);
$node->safe_psql('postgres', q{
	CREATE EXTENSION scbf;
	CREATE SEQUENCE ids START 1000001;
	CREATE TABLE t (id int, a int, b text);
	INSERT INTO t SELECT g, g % 1000, 'b' || (g % 313) FROM generate_series(1, 60000) g;
	CREATE INDEX t_id ON t USING btree (id);
	CREATE INDEX t_b ON t USING scbf (b);
	CHECKPOINT;
});

# rows in the middle of the table: the build stops there
my $mid = q1("SELECT id FROM t WHERE ctid = '(150,1)'");
my $tuples = q1('SELECT count(*) FROM t');

# The probes of the index under test (on gate(id, a)) and of t_b; the write
# load changes rows at random, so their counts depend on the run, but most
# values have rows in any run.
my @probes = map { "SELECT * FROM t WHERE gate(id, a) = $_" } (1, 77, 500, 999);
push @probes, "SELECT * FROM t WHERE gate(id, a) IN (3, 4, 5)", "SELECT * FROM t WHERE b = 'b17'";

sub check_all
{
	my ($what) = @_;
	scbf_same($node, 'postgres', [ map { [ $_, 'any' ] } @probes ],
		nonempty => 5, name => $what);
	scbf_same($node, 'postgres', 'SELECT * FROM t WHERE gate(id, a) = -5', rows => 'empty',
		name => "$what: a value never inserted");
}

sub index_state
{
	my ($idx) = @_;
	return q1("SELECT coalesce((SELECT indisvalid::text || ' ' || indisready::text FROM pg_index "
		  . "WHERE indexrelid = to_regclass('$idx')), 'absent')");
}

# Write load: two sessions that insert and delete rows, one small
# transaction every 20 ms each, until the crash ends them.  The deletes
# spare row $mid, where the builds wait: a build whose snapshot no longer
# sees it would never reach the gate.
sub start_load
{
	my @s;
	for my $sql (
		"INSERT INTO t SELECT nextval('ids'), (random() * 999)::int, 'b' || (random() * 312)::int FROM generate_series(1, 20)",
		"DELETE FROM t WHERE id = (SELECT (random() * 60000)::int) AND id <> $mid")
	{
		my $s = $node->background_psql('postgres', on_error_stop => 0);
		$s->query_until(qr/loading/, "\\echo loading\n$sql \\watch 0.02\n");
		push @s, $s;
	}
	# the load is running: rows come in
	my $n = q1("SELECT last_value FROM ids");
	ok($node->poll_query_until('postgres', "SELECT last_value > $n + 100 FROM ids"),
		'write load running');
	return @s;
}

# Start $ddl in a session whose crash.gate is $gates, with the test holding
# the advisory locks of $hold (a list of ids); wait until it waits for lock
# $wait in progress phase $phase.  Returns (gate session, ddl session, pid).
sub start_gated
{
	my ($ddl, $gates, $hold, $wait, $phase, $what) = @_;
	my $gate = hold_gate($node, @$hold);
	my ($s, $pid) = gated_session($node, $ddl, $gates);
	wait_gated($node, $pid, $wait, $phase, $what);
	return ($gate, $s, $pid);
}

# ---- 1. CREATE INDEX, stopped half-way through the heap scan
{
	my ($gate, $s, $pid) = start_gated('CREATE INDEX t_g ON t USING scbf (gate(id, a)) WITH (pages_per_segment = 8)',
		$mid, [$mid], $mid, 'building index: scanning table and writing segments', 'CREATE INDEX');
	my $done = q1("SELECT tuples_done FROM pg_stat_progress_create_index WHERE pid = $pid");
	ok($done > 0 && $done < $tuples, "CREATE INDEX: at the crash, $done of $tuples tuples were read");
	crash($node, $gate, $s);
	is(index_state('t_g'), 'absent', 'CREATE INDEX: after the crash, the index does not exist');
	$node->safe_psql('postgres', 'CREATE INDEX t_g ON t USING scbf (gate(id, a)) WITH (pages_per_segment = 8)');
	verify_clean($node, 't_g', 'CREATE INDEX again');
	check_all('after a crash inside CREATE INDEX');
	$node->safe_psql('postgres', 'DROP INDEX t_g');
}

# ---- 2. CREATE INDEX CONCURRENTLY under write load, in its build
{
	my @load = start_load();
	my ($gate, $s) = start_gated('CREATE INDEX CONCURRENTLY t_g ON t USING scbf (gate(id, a)) WITH (pages_per_segment = 8)',
		$mid, [$mid], $mid, 'building index: scanning table and writing segments', 'CIC build');
	crash($node, $gate, $s, @load);
	is(index_state('t_g'), 'false false', 'CIC build: after the crash, PostgreSQL reports the index invalid (not ready)');
	scbf_same($node, 'postgres', $probes[0], plan => 'seqscan', rows => 'any', nonempty => 1,
		name => 'CIC build: queries do not use the invalid index');
	$node->safe_psql('postgres', 'REINDEX INDEX t_g');
	is(index_state('t_g'), 'true true', 'CIC build: REINDEX makes it valid');
	verify_clean($node, 't_g', 'CIC build: REINDEX');
	check_all('after a crash inside the build of CREATE INDEX CONCURRENTLY');
	$node->safe_psql('postgres', 'DROP INDEX t_g');
}

# ---- 3. CREATE INDEX CONCURRENTLY under write load, in its validation:
# row 900001, inserted while the build waits at row $mid, is not in the
# build; the validation's heap scan stops at it.  Meanwhile the writers
# insert into the ready index.
{
	my @load = start_load();
	my ($gate, $s, $pid) = start_gated('CREATE INDEX CONCURRENTLY t_g ON t USING scbf (gate(id, a)) WITH (pages_per_segment = 8)',
		"$mid,900001", [ $mid, 900001 ], $mid, 'building index: scanning table and writing segments', 'CIC validation');
	q1("INSERT INTO t VALUES (900001, 7, 'b7')");
	$gate->query_safe("SELECT pg_advisory_unlock($mid)");
	wait_gated($node, $pid, 900001, 'index validation: scanning table', 'CIC validation');
	is(index_state('t_g'), 'false true', 'CIC validation: at the crash, the index is ready, not valid');
	crash($node, $gate, $s, @load);
	is(index_state('t_g'), 'false true', 'CIC validation: after the crash, PostgreSQL reports the index invalid');
	# the writers' entries since the build are in it, WAL-logged: its pages
	# are consistent, though it may lack the rows the validation did not add
	my ($ret, $out, $err) = $node->psql('postgres', "SELECT scbf_verify('t_g', false)");
	ok($ret == 0 && $err eq '', 'CIC validation: the invalid index is consistent') or diag($err);
	$node->safe_psql('postgres', 'DROP INDEX t_g');
	$node->safe_psql('postgres', 'CREATE INDEX CONCURRENTLY t_g ON t USING scbf (gate(id, a)) WITH (pages_per_segment = 8)');
	is(index_state('t_g'), 'true true', 'CIC validation: DROP and CREATE INDEX CONCURRENTLY make it valid');
	verify_clean($node, 't_g', 'CIC validation: CREATE again');
	check_all('after a crash inside the validation of CREATE INDEX CONCURRENTLY');
}

# ---- 4. and 5. REINDEX INDEX CONCURRENTLY under write load, in the build
# of the new index, then in its validation: the old index stays valid and
# right; the new one, t_g_ccnew, is reported invalid and can be dropped
for my $step ('build', 'validation')
{
	my @load = start_load();
	my $row = 900001 + ($step eq 'build' ? 1 : 2);
	my ($gate, $s, $pid) = start_gated('REINDEX INDEX CONCURRENTLY t_g', "$mid,$row", [ $mid, $row ], $mid,
		'building index: scanning table and writing segments', "RIC $step");
	if ($step eq 'validation')
	{
		q1("INSERT INTO t VALUES ($row, 7, 'b7')");
		$gate->query_safe("SELECT pg_advisory_unlock($mid)");
		wait_gated($node, $pid, $row, 'index validation: scanning table', "RIC $step");
	}
	crash($node, $gate, $s, @load);
	is(index_state('t_g'), 'true true', "RIC $step: after the crash, the old index is valid");
	is(index_state('t_g_ccnew'), $step eq 'build' ? 'false false' : 'false true',
		"RIC $step: PostgreSQL reports the new index invalid");
	verify_clean($node, 't_g', "RIC $step: the old index");
	check_all("after a crash inside the $step of REINDEX CONCURRENTLY");
	$node->safe_psql('postgres', 'DROP INDEX t_g_ccnew');
	$node->safe_psql('postgres', 'REINDEX INDEX CONCURRENTLY t_g');
	verify_clean($node, 't_g', "RIC $step: REINDEX CONCURRENTLY again");
}
check_all('after REINDEX CONCURRENTLY');

# ---- 6. one backend killed with SIGKILL in the middle of an INSERT: the
# rows before the gate row are in the heap (of a transaction that never
# commits) and some of their entries in the index; the postmaster ends every
# backend, reinitializes and replays WAL
{
	$node->safe_psql('postgres', 'REINDEX INDEX t_g');
	my $rows = q1('SELECT count(*) FROM t');
	my $entries = q1("SELECT sum(entries) FROM scbf_segments('t_g')");
	my $gate = hold_gate($node, 950000);
	my ($s, $pid) = gated_session($node,
		"INSERT INTO t SELECT g, g % 1000, 'x' FROM generate_series(800000, 1000000) g", 950000);
	wait_gated($node, $pid, 950000, undef, 'SIGKILL insert');
	my $written = q1("SELECT sum(entries) FROM scbf_segments('t_g')") - $entries;
	ok($written > 0 && $written < 150000,
		"SIGKILL insert: at the crash, the index holds entries of $written of the 150000 rows inserted");
	flush_wal($node);
	kill_backend($node, $pid, 'SIGKILL insert');
	end_session($_) for ($s, $gate);
	is(q1('SELECT count(*) FROM t'), $rows, 'SIGKILL insert: the transaction is lost');
	check_all('after SIGKILL inside an insert');
	$node->safe_psql('postgres', 'VACUUM (INDEX_CLEANUP ON) t');
	is(q1("SELECT sum(entries) FROM scbf_segments('t_g')"), $rows,
		'SIGKILL insert: VACUUM removed the entries of the lost rows');
	verify_clean($node, 't_g', 'SIGKILL insert');
	verify_clean($node, 't_b', 'SIGKILL insert');
	check_all('after SIGKILL inside an insert and VACUUM');
}

$node->stop;
done_testing();
