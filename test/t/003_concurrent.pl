# Concurrency: pgbench clients insert into the same segments (the table's
# free space, after a delete, is spread over every segment) while VACUUM
# runs again and again (removals, recounts, chain consolidation) and while
# other clients probe rows that exist all along (a probe that misses one
# fails its transaction: division by zero).  Then many probes are compared
# with a sequential scan.
#
# Last, CREATE INDEX CONCURRENTLY, exactly one at a time, in a background
# session, with inserts in each of its phases that decide how a row gets
# into the new index.  Sessions the test controls hold the CIC at three
# phases (each is a wait for another transaction, so it lasts until the
# test lets it go), the test asserts from pg_stat_progress_create_index
# that the CIC waits there, for that session, and inserts meanwhile:
#   - waiting for writers before build: committed rows, found by the build
#     scan; and a transaction left open, whose rows the build's snapshot
#     cannot see, so that validate_index must add them (using the TIDs the
#     bulk-delete callback collected: once per ledger entry);
#   - waiting for writers before validation: the index is ready, not valid:
#     rows go through aminsert, and validate_index must not add them again;
#   - waiting for old snapshots (after validation): aminsert again.
# Every row of every phase must then be found through the new index, with
# the exact count per client.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use lib 'test/t';
use ScbfTest;

my $node = start_node('concurrent', conf => "autovacuum = off\nmax_connections = 40\nshared_buffers = '64MB'\n");

$node->safe_psql('postgres', q{
	CREATE EXTENSION scbf;
	CREATE TABLE t (id bigserial, a int, b text, c int8);
	-- anchors: rows that no client deletes; every probe must find them
	INSERT INTO t (a, b, c) SELECT -g, 'anchor' || g, g FROM generate_series(1, 500) g;
	INSERT INTO t (a, b, c) SELECT g % 5000, md5(g::text), g % 97 FROM generate_series(1, 60000) g;
	CREATE INDEX t_a ON t USING scbf (a) WITH (pages_per_segment = 8);
	CREATE INDEX t_abc ON t USING scbf (a, b, c) WITH (pages_per_segment = 16);
	-- free space in every segment: the inserts below land there
	DELETE FROM t WHERE a >= 0 AND id % 3 = 0;
	VACUUM t;
});

# 100 transactions per client (1000 with SCBF_TEST_LONG)
my $tx = long_tests() ? 1000 : 100;
$node->pgbench(
	"--no-vacuum --client=6 --jobs=2 --transactions=$tx --random-seed=3003",
	0,
	[qr{processed: @{[6 * $tx]}/@{[6 * $tx]}}],
	[qr{^pgbench: setting random seed to 3003\n$}],
	'inserts, deletes, probes and VACUUM together',
	{
		'001_insert@8' => q{
			\set r random(0, 4999)
			INSERT INTO t (a, b, c) SELECT (:r + g) % 5000, md5((:r * 7 + g)::text), g FROM generate_series(1, 20) g;
		},
		'002_delete@2' => q{
			\set r random(0, 4990)
			DELETE FROM t WHERE a BETWEEN :r AND :r + 3;
		},
		'003_probe@6' => q{
			\set m random(1, 500)
			SET enable_seqscan = off;
			SELECT 1 / count(*) FROM t WHERE a = -:m;
			SELECT 1 / count(*) FROM t WHERE a = -:m AND b = 'anchor' || :m AND c = :m;
			SELECT 1 / count(*) FROM t WHERE a IN (-:m, -1, 123456);
		},
		'004_vacuum@1' => q{
			VACUUM t;
		}
	});

probe_churned($node, 'after the run');
$node->safe_psql('postgres', 'VACUUM t');
probe_churned($node, 'after a final VACUUM');
scbf_same($node, 'postgres', 'SELECT * FROM t WHERE a = -42 AND c = 42', rows => 1);
scbf_same($node, 'postgres', "SELECT * FROM t WHERE a = -77 AND b = 'anchor77' AND c = 77", rows => 1);
foreach my $idx ('t_a', 't_abc')
{
	my ($ret, $out, $err) = $node->psql('postgres', "SELECT scbf_verify('$idx', true)");
	is($ret, 0, "scbf_verify($idx) after the run") or diag($err);
}

# ---- CREATE INDEX CONCURRENTLY with inserts in its phases
$node->safe_psql('postgres', 'DROP INDEX t_a; DROP INDEX t_abc;');

my $clients = 4;
my $per_client = 50;
my %expected;    # c marker => rows inserted with it

# $per_client single-row inserts by each of $clients pgbench clients, all
# marked b = 'cic', c = 10 * stage + client, a = stage * 10^6 + client *
# 10^5 + random
sub insert_burst
{
	my ($stage, $what) = @_;
	$node->pgbench(
		"--no-vacuum --client=$clients --jobs=2 --transactions=$per_client --random-seed=$stage --define=stage=$stage",
		0,
		[qr{processed: @{[$clients * $per_client]}/@{[$clients * $per_client]}}],
		[qr{^pgbench: setting random seed to $stage\n$}],
		"stage $stage: inserts $what",
		{
			"cic_insert_$stage" => q{
				\set v random(0, 99999)
				INSERT INTO t (a, b, c) VALUES (:stage * 1000000 + :client_id * 100000 + :v, 'cic', 10 * :stage + :client_id);
			}
		});
	$expected{ 10 * $stage + $_ } = $per_client for 0 .. $clients - 1;
}

# rows of a session that holds the CIC: c = 10 * stage + 9
sub session_insert
{
	my ($s, $stage, $n) = @_;
	$s->query_safe("INSERT INTO t (a, b, c) SELECT $stage * 1000000 + 900000 + g, 'cic', 10 * $stage + 9 FROM generate_series(1, $n) g");
	$expected{ 10 * $stage + 9 } += $n;
}

# wait until the one CIC on t is in $phase, waiting for session $s
sub cic_waits
{
	my ($cicpid, $phase, $s, $name) = @_;
	my $pid = $s->query_safe('SELECT pg_backend_pid()');
	ok($node->poll_query_until('postgres', qq{
		SELECT count(*) = 1 AND bool_and(pid = $cicpid AND phase = '$phase' AND current_locker_pid = $pid)
		FROM pg_stat_progress_create_index WHERE relid = 't'::regclass}),
		"$name: the CIC waits in '$phase' for the session holding it")
	  or diag($node->safe_psql('postgres', 'SELECT * FROM pg_stat_progress_create_index'));
}

# One CREATE INDEX CONCURRENTLY, held at three phases, stages $s0 .. $s0 + 3
sub cic_with_inserts
{
	my ($name, $def, $s0) = @_;
	my ($h1, $h2, $h3, $cic) = map { $node->background_psql('postgres') } 1 .. 4;
	my $cicpid = $cic->query_safe('SELECT pg_backend_pid()');

	# h1 holds a lock on t that the first wait of the CIC waits for
	$h1->query_safe('BEGIN');
	session_insert($h1, $s0, 10);
	$cic->query_until(qr/cic-started/,
		"\\echo cic-started\nCREATE INDEX CONCURRENTLY $name ON t USING scbf $def;\n");
	cic_waits($cicpid, 'waiting for writers before build', $h1, $name);
	insert_burst($s0, "while $name waits for writers before build (rows for the build scan)");
	# h2 starts while the index is not ready; its rows commit after the
	# build's snapshot: validate_index must add them
	$h2->query_safe('BEGIN');
	session_insert($h2, $s0 + 1, 10);
	$h1->query_safe('COMMIT');

	cic_waits($cicpid, 'waiting for writers before validation', $h2, $name);
	is($node->safe_psql('postgres', "SELECT indisready AND NOT indisvalid FROM pg_index WHERE indexrelid = '$name'::regclass"),
		't', "$name: ready, not yet valid");
	insert_burst($s0 + 2, "while $name waits for writers before validation (aminsert, index ready)");
	# h3's snapshot is older than the validation's: the CIC waits for it
	$h3->query_safe('BEGIN ISOLATION LEVEL REPEATABLE READ');
	$h3->query_safe('SELECT 1');
	$h2->query_safe('COMMIT');

	cic_waits($cicpid, 'waiting for old snapshots', $h3, $name);
	insert_burst($s0 + 3, "while $name waits for old snapshots (aminsert, validated)");
	$h3->query_safe('COMMIT');

	# the CIC's own errors, if any, fail here
	$cic->query_safe('SELECT 1');
	is($node->safe_psql('postgres', "SELECT indisvalid FROM pg_index WHERE indexrelid = '$name'::regclass"),
		't', "$name: valid");
	$_->quit for ($h1, $h2, $h3, $cic);
}

cic_with_inserts('t_cic_a', '(a) WITH (pages_per_segment = 8)', 1);
cic_with_inserts('t_cic_bc', '(b, c)', 5);
is($node->safe_psql('postgres', "SELECT count(*) FROM pg_index WHERE indrelid = 't'::regclass"),
	'2', 'exactly the two concurrently built indexes exist');

# every inserted row, probed one by one through the index on a
my $missing = $node->safe_psql('postgres', q{
	SET enable_seqscan = off;
	SELECT count(*) FROM t o WHERE o.b = 'cic'
	  AND NOT EXISTS (SELECT 1 FROM t i WHERE i.a = o.a AND i.id = o.id)
});
is($missing, '0', 'CIC: no inserted row is missing from the index on a');
my $plan = $node->safe_psql('postgres', q{
	SET enable_seqscan = off; SET enable_hashjoin = off; SET enable_mergejoin = off;
	EXPLAIN (COSTS OFF) SELECT count(*) FROM t o WHERE o.b = 'cic'
	  AND NOT EXISTS (SELECT 1 FROM t i WHERE i.a = o.a AND i.id = o.id)
});
like($plan, qr/Bitmap Index Scan on t_cic_a/, 'the probe used the new index');

# index equals seqscan for every inserted value of a at once (no other row
# has a >= 1000000), and every (b, c) marker returns exactly the rows
# inserted with it
my $total = 0;
$total += $_ for values %expected;
is($node->safe_psql('postgres', "SELECT count(*) FROM t WHERE b = 'cic'"), $total,
	"CIC: $total rows inserted during the two builds");
my $values = $node->safe_psql('postgres', "SELECT string_agg(DISTINCT a::text, ',') FROM t WHERE b = 'cic'");
scbf_same($node, 'postgres', "SELECT * FROM t WHERE a = ANY(ARRAY[$values])", rows => $total,
	name => 'CIC: every inserted value of a through t_cic_a');
scbf_same($node, 'postgres',
	[ map { [ "SELECT * FROM t WHERE b = 'cic' AND c = $_", $expected{$_} ] } sort { $a <=> $b } keys %expected ],
	name => 'CIC: the rows of every stage and client through t_cic_bc');
foreach my $idx ('t_cic_a', 't_cic_bc')
{
	my ($ret, $out, $err) = $node->psql('postgres', "SELECT scbf_verify('$idx', true)");
	is($ret, 0, "scbf_verify($idx) after CIC") or diag($err);
}

$node->stop;
done_testing();
