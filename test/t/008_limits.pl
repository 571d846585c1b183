# Resource limits:
#
#   1. a probe whose result exceeds work_mem: the TID bitmap the scan fills
#      degrades to lossy pages, as for any bitmap scan, instead of failing;
#      the rows still equal a sequential scan;
#   2. pg_cancel_backend and statement_timeout end a long build, scan,
#      VACUUM and diagnostic call with the cancel error, and leave the index
#      usable.  Where a wait can be placed inside the operation, the test
#      places it and asserts where it was: VACUUM in its index pass (it
#      sleeps in the cost delay between ledger pages, and the error's
#      context names the index); a build and scbf_verify (heapallindexed)
#      at a row of the table (their index expression waits for an advisory
#      lock the test holds); a scan at the hashing of
#      its key (the index's operator class has a hash support function that
#      waits for the same lock).  Each wait is indefinite, so no assertion
#      depends on how fast the machine is.
#
# A full disk is not tested: it needs a file system of limited size (a
# loop device or tmpfs mounted for the test), which the unprivileged user
# that runs the TAP tests cannot make.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use lib 'test/t';
use ScbfTest;

my $node = start_node('limits', conf => "autovacuum = off\n");

sub q1 { return $node->safe_psql('postgres', $_[0]); }

create_gate($node);
$node->safe_psql('postgres', q{
	CREATE EXTENSION scbf;
	-- an operator class whose hash function waits like gate(): a scan
	-- through it waits while it hashes its key
	CREATE FUNCTION gatehash(id int) RETURNS int LANGUAGE plpgsql IMMUTABLE AS $$
	BEGIN
		PERFORM public.gate_wait(id);
		RETURN hashint4(id);
	END $$;
	CREATE OPERATOR CLASS gated_ops FOR TYPE int4 USING scbf AS
		OPERATOR 1 =(int4, int4), FUNCTION 1 gatehash(int4);
	CREATE TABLE t (id int, a int, b text);
	INSERT INTO t SELECT g, g % 10, 'b' || (g % 5000) FROM generate_series(1, 200000) g;
	CREATE INDEX t_a ON t USING scbf (a) WITH (pages_per_segment = 8);
	CREATE INDEX t_b ON t USING scbf (b) WITH (pages_per_segment = 8);
	CREATE INDEX t_g ON t USING scbf (gate(id, a)) WITH (pages_per_segment = 8);
	CREATE INDEX t_h ON t USING scbf (id gated_ops) WITH (pages_per_segment = 8);
	VACUUM t;
});

# ---- 1. a probe that exceeds work_mem: 20,000 rows on every heap page
{
	my $plan = q1("SET work_mem = '64kB'; SET enable_seqscan = off;\n"
		  . 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT count(*) FROM t WHERE a = 3');
	like($plan, qr/Bitmap Index Scan on t_a/, 'work_mem: the plan scans the scbf index');
	my ($lossy) = $plan =~ /Heap Blocks:.*lossy=(\d+)/;
	ok(defined $lossy && $lossy > 0, 'work_mem: the bitmap went lossy (' . ($lossy // 'none') . ' lossy heap blocks)')
	  or diag($plan);
	$node->safe_psql('postgres', "ALTER DATABASE postgres SET work_mem = '64kB'");
	scbf_same($node, 'postgres', [ [ 'SELECT * FROM t WHERE a = 3', 20000 ],
		[ 'SELECT * FROM t WHERE a IN (1, 2, 7)', 60000 ] ],
		name => 'work_mem 64kB: lossy bitmap');
	$node->safe_psql('postgres', 'ALTER DATABASE postgres RESET work_mem');
}

# Run $sql in a session whose crash.gate is $row, with the test holding
# advisory lock $row; once the session waits for it (and, with $phase, is
# in that CREATE INDEX phase), cancel it with pg_cancel_backend.  Returns
# the session's stderr.
sub cancel_at_gate
{
	my ($sql, $row, $phase, $what) = @_;
	my $gate = hold_gate($node, $row);
	my ($s, $pid) = gated_session($node, $sql, $row);
	wait_gated($node, $pid, $row, $phase, $what);
	is(q1("SELECT pg_cancel_backend($pid)"), 't', "$what: pg_cancel_backend");
	$s->query_until(qr/done/, '');
	my $err = $s->{stderr};
	$s->quit;
	$gate->quit;
	like($err, qr/ERROR:  canceling statement due to user request/, "$what: canceled");
	return $err;
}

# Run $sql under statement_timeout $timeout; it must end with the timeout
sub times_out
{
	my ($sql, $timeout, $what, $pre) = @_;
	my ($ret, $out, $err) = $node->psql('postgres',
		($pre // '') . "SET statement_timeout = '$timeout';\n$sql", timeout => 300);
	like($err, qr/ERROR:  canceling statement due to statement timeout/, "$what: statement_timeout ends it");
	return $err;
}

my $row = q1("SELECT id FROM t WHERE ctid = '(500,1)'");

# ---- 2. builds
cancel_at_gate('CREATE INDEX t_g2 ON t USING scbf (gate(id, a))', $row,
	'building index: scanning table and writing segments', 'CREATE INDEX');
{
	my $gate = hold_gate($node, $row);
	times_out('CREATE INDEX t_g2 ON t USING scbf (gate(id, a))', '2s', 'CREATE INDEX',
		"SET crash.gate = '$row';\n");
	$gate->quit;
}
is(q1("SELECT count(*) FROM pg_class WHERE relname = 't_g2'"), '0', 'CREATE INDEX: no index is left');

# ---- 3. the verifier (heapallindexed) evaluates the index expression for
# every row
cancel_at_gate("SELECT scbf_verify('t_g', true)", $row, undef, 'scbf_verify');
{
	my $gate = hold_gate($node, $row);
	times_out("SELECT scbf_verify('t_g', true)", '2s', 'scbf_verify', "SET crash.gate = '$row';\n");
	$gate->quit;
}

# ---- 4. a scan through t_h, waiting while it hashes its key
{
	my $scan = "SET enable_seqscan = off;\nSELECT count(*) FROM t WHERE id = $row";
	like(q1("$scan;\nEXPLAIN (COSTS OFF) SELECT count(*) FROM t WHERE id = $row"),
		qr/Bitmap Index Scan on t_h/, 'scan: the plan scans t_h');
	cancel_at_gate($scan, $row, undef, 'scan');
	my $gate = hold_gate($node, $row);
	times_out($scan, '2s', 'scan', "SET crash.gate = '$row';\n");
	$gate->quit;
}

# ---- 5. VACUUM, asleep in the cost delay of its index pass: rows deleted
# on the first two heap pages (the rest, all-visible, is one run that the
# heap pass skips, so it sleeps only a few times).  The index pass sleeps
# at least vacuum_cost_delay per index page it reads, so with far more
# index pages than the timeout has tenths of a second, the timeout can
# only end it there, however slow the machine: in one of the indexes t_a,
# t_b, t_g and t_h.
{
	q1("DELETE FROM t WHERE ctid < '(2,0)'");
	my $index_pages = q1("SELECT sum(pg_relation_size(i) / current_setting('block_size')::int) FROM unnest('{t_a,t_b,t_g,t_h}'::regclass[]) i");
	cmp_ok($index_pages, '>', 200, "VACUUM: the index pass has $index_pages pages to read");
	my $s = $node->background_psql('postgres', on_error_stop => 0);
	my $pid = $s->query_safe('SELECT pg_backend_pid()');
	$s->query_until(qr/running/, "SET vacuum_cost_delay = 100;\nSET vacuum_cost_limit = 1;\n"
		  . "\\echo running\nVACUUM (PARALLEL 0, INDEX_CLEANUP ON) t;\n\\echo done\n");
	ok($node->poll_query_until('postgres',
		"SELECT count(*) = 1 FROM pg_stat_progress_vacuum WHERE pid = $pid AND phase = 'vacuuming indexes'"),
		'VACUUM: in its index pass');
	is(q1("SELECT pg_cancel_backend($pid)"), 't', 'VACUUM: pg_cancel_backend');
	$s->query_until(qr/done/, '');
	like($s->{stderr}, qr/ERROR:  canceling statement due to user request\nCONTEXT:  while vacuuming index "t_[abgh]" of relation "public.t"/,
		'VACUUM: canceled in the index pass of an scbf index');
	$s->quit;

	my $err = times_out('VACUUM (PARALLEL 0, INDEX_CLEANUP ON) t', '5s', 'VACUUM',
		"SET vacuum_cost_delay = 100;\nSET vacuum_cost_limit = 1;\n");
	like($err, qr/CONTEXT:  while vacuuming index "t_[abgh]" of relation "public.t"/,
		'VACUUM: statement_timeout ends it in the index pass of an scbf index');
}

# the indexes are whole after all of it
$node->safe_psql('postgres', 'VACUUM t');
verify_clean($node, $_, 'after the cancels') for ('t_a', 't_b', 't_g', 't_h');
scbf_same($node, 'postgres', [ 'SELECT * FROM t WHERE a = 3', "SELECT * FROM t WHERE b = 'b77'",
	'SELECT * FROM t WHERE gate(id, a) = 5', "SELECT * FROM t WHERE id = $row" ], name => 'after the cancels');

$node->stop;
done_testing();
