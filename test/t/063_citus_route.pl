# 063_citus_route.pl: the plain query routed by scbf's filters on Citus.
#
# A coordinator and two workers; "orders" distributed on tenant over 8
# shards, an scbf index on customer_id (a customer lives on one shard) and
# one on code (a code is on every shard).  The queries run as "reader", a
# role that may only read the tables (granted on the coordinator only),
# through the plain query: WHERE customer_id = v, IN, = ANY, with other
# conditions, joins with a reference and a colocated table, LIMIT, ORDER
# BY, aggregates, prepared statements.  Each query's task count (the
# distributed EXPLAIN's "Task Count") must be the number of shards whose
# sequential scan finds a row (at least 1), every task must scan the
# shard's scbf index, and the rows must equal those of the unrouted query
# with sequential scans on every shard.
#
# "app" owns the table (its writes and DDL), "reader" may only read it:
# neither is a superuser, and nothing was granted on the workers.
#
# Then: rows written through the coordinator, directly on a shard, after a
# shard move, a rebalance and a split are found; the transaction's own
# uncommitted rows are found; a REPEATABLE READ transaction keeps its
# snapshot; DDL and LOCK TABLE earlier in the transaction, and a worker
# that does not answer, make the query run on every shard, at once, not
# after a timeout; a worker that is down is an error, at once; a condition
# on the distribution column is left to Citus's own pruning; scbf.route =
# off turns routing off.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time);
use lib 'test/t';
use ScbfTest;
use ScbfShard;

my $probe = PostgreSQL::Test::Cluster->new('probe');
my $pkglibdir = $probe->config_data('--pkglibdir');
plan skip_all => "Citus is not installed in $pkglibdir (test/run-tests builds it with "
  . 'test/citus/setup from $SCBF_CITUS_DIR, default ../shared/vendor/citus)'
  unless -e "$pkglibdir/citus.so";

my $conf = "shared_preload_libraries = 'citus'\nmax_worker_processes = 20\n"
  . "citus.max_background_task_executors_per_node = 1\n";
my $coord = shard_node('coordinator', allows_streaming => 'logical', conf => $conf);
my @workers = map { shard_node("worker$_", allows_streaming => 'logical', conf => $conf) } 1 .. 2;
$_->safe_psql('postgres', 'CREATE EXTENSION citus') for ($coord, @workers);
$coord->safe_psql('postgres', "SELECT citus_set_coordinator_host('127.0.0.1', " . $coord->port . ')');
$coord->safe_psql('postgres', "SELECT citus_add_node('127.0.0.1', " . $_->port . ')') for @workers;
$coord->safe_psql('postgres', 'CREATE EXTENSION scbf');

$coord->safe_psql('postgres', q{
	CREATE TABLE orders (id bigint, tenant int, customer_id int, status int, code text);
	SELECT create_distributed_table('orders', 'tenant', shard_count => 8);
	INSERT INTO orders SELECT g, g % 64, (g % 64) * 1000 + (g / 64) % 40, g % 7, 'c' || (g % 3001)
	FROM generate_series(1, 60000) g;
	CREATE INDEX orders_cust ON orders USING scbf (customer_id);
	CREATE INDEX orders_code ON orders USING scbf (code);
	CREATE TABLE statuses (id int PRIMARY KEY, name text);
	SELECT create_reference_table('statuses');
	INSERT INTO statuses SELECT g, 's' || g FROM generate_series(0, 6) g;
	CREATE TABLE tenants (tenant int, region int);
	SELECT create_distributed_table('tenants', 'tenant', colocate_with => 'orders');
	INSERT INTO tenants SELECT g, g % 3 FROM generate_series(0, 63) g;
	ANALYZE orders, statuses, tenants;
	CREATE ROLE app LOGIN;
	CREATE ROLE reader LOGIN;
	CREATE ROLE stranger LOGIN;
	ALTER TABLE orders OWNER TO app;
	GRANT CREATE ON SCHEMA public TO app;
	GRANT SELECT ON orders, statuses, tenants TO reader;
});
is($coord->safe_psql('postgres', q{SELECT string_agg(rolname || ':' || rolsuper, ' ' ORDER BY rolname)
	FROM pg_roles WHERE rolname IN ('app', 'reader')}), 'app:false reader:false',
	'the roles of the test are not superusers');

# psql as reader (or $role); returns stdout, dies on error
my $as = sub {
	my ($sql, $role) = @_;
	return $coord->safe_psql('postgres', $sql, extra_params => [ '-U', $role // 'reader' ]);
};

# the number of shards of orders whose sequential scan finds a row of cond
my $holding = sub {
	my ($cond) = @_;
	return $coord->safe_psql('postgres', qq{
		SELECT count(*) FILTER (WHERE result::int > 0) FROM run_command_on_shards('orders',
			\$\$SELECT count(*) FROM (SELECT * FROM %s OFFSET 0) orders WHERE $cond\$\$)});
};

# routed($query, $name): the query as reader, routed, against the unrouted
# query with sequential scans on every shard; the routed plan's every task
# scans an scbf index.  Returns (task count, rows).
my $forced = "SET citus.explain_all_tasks = on; SET citus.propagate_set_commands = 'local';\n";
sub routed
{
	my ($q, $name) = @_;
	local $Test::Builder::Level = $Test::Builder::Level + 1;
	my $out = $as->($forced . qq{BEGIN; SET LOCAL enable_seqscan = off; SET LOCAL enable_indexscan = off;
		EXPLAIN (COSTS OFF) $q; SELECT '#rows ' || (@{[ rows_hash($q) ]}); COMMIT;});
	my ($tasks) = $out =~ /Task Count: (\d+)/;
	my @chunks = split /^.*Node: host=.*$/m, $out;
	shift @chunks;
	my @bad = grep { !/Bitmap Index Scan on orders_(cust|code)_\d+/ } @chunks;
	my ($rows) = $out =~ /^#rows (\S+)$/m;
	my $seq = $as->(qq{SET scbf.route = off; SET citus.propagate_set_commands = 'local';
		BEGIN; SET LOCAL enable_bitmapscan = off; SET LOCAL enable_indexscan = off;
		EXPLAIN (COSTS OFF) $q; SELECT '#rows ' || (@{[ rows_hash($q) ]}); COMMIT;});
	my ($seqrows) = $seq =~ /^#rows (\S+)$/m;
	ok(@chunks && !@bad, "$name: every task scans an scbf index") or diag($out);
	unlike($seq, qr/Index Scan/, "$name: the unrouted run scans sequentially");
	is($rows, $seqrows, "$name: routed rows equal the unrouted sequential scans");
	return ($tasks, (split /:/, $rows // '')[0]);
}

# the routed query's task count must be the shards that hold a row (>= 1)
sub check
{
	my ($q, $cond, $name, %opt) = @_;
	local $Test::Builder::Level = $Test::Builder::Level + 1;
	my $want = $opt{tasks} // $holding->($cond);
	$want = 1 if $want == 0;
	my ($tasks, $rows) = routed($q, $name);
	is($tasks, $want, "$name: $want task(s)");
	if ($opt{present}) { cmp_ok($rows, '>', 0, "$name: rows found"); }
	elsif ($opt{absent}) { is($rows, 0, "$name: no rows"); }
	return $rows;
}

check('SELECT * FROM orders WHERE customer_id = 5012', 'customer_id = 5012', '=', present => 1);
check('SELECT * FROM orders WHERE customer_id IN (5012, 33017, 63039)', 'customer_id IN (5012, 33017, 63039)',
	'IN', present => 1);
check('SELECT * FROM orders WHERE customer_id = ANY (ARRAY[1001, 7003])', 'customer_id = ANY (ARRAY[1001, 7003])',
	'= ANY', present => 1);
check('SELECT * FROM orders WHERE customer_id = 999999', 'customer_id = 999999', 'absent', absent => 1);
check('SELECT * FROM orders WHERE customer_id = ANY (ARRAY[999998, 999999])', 'false', 'absent ANY', absent => 1);
check('SELECT id, code FROM orders WHERE customer_id = 7003 AND status = 3 ORDER BY id LIMIT 5',
	'customer_id = 7003 AND status = 3', 'other predicates, ORDER BY, LIMIT', present => 1);
check('SELECT status, count(*), sum(id) FROM orders WHERE customer_id IN (7003, 12001) GROUP BY status',
	'customer_id IN (7003, 12001)', 'aggregates', present => 1);
check('SELECT o.id, s.name FROM orders o JOIN statuses s ON s.id = o.status WHERE o.customer_id = 12001',
	'customer_id = 12001', 'join with a reference table', present => 1);
check('SELECT o.id, t.region FROM orders o JOIN tenants t USING (tenant) WHERE o.customer_id = 12001',
	'customer_id = 12001', 'join with a colocated table', present => 1);
check(q{SELECT * FROM orders WHERE code = 'c1234'}, q{code = 'c1234'}, 'a code on every shard', present => 1);
check('SELECT count(*) FROM orders WHERE customer_id = 999999', 'false', 'count of an absent value');
check('SELECT * FROM orders WHERE customer_id = 5012::bigint', 'customer_id = 5012', 'cross-type =', present => 1);
check('SELECT * FROM orders WHERE customer_id = ANY (ARRAY[5012, 7003]::bigint[])', 'customer_id IN (5012, 7003)',
	'cross-type = ANY', present => 1);
is($as->('SELECT count(*) FROM orders WHERE customer_id = 999999'), '0', 'count(*) of an absent value is 0');
is($as->('SELECT 1 FROM orders WHERE customer_id = 999999 HAVING count(*) = 0'), '1',
	'HAVING over an absent value: one row');

# a condition on a CTE's intermediate result whose columns are the table's:
# not the table's condition, so the query runs on every shard (the CTE,
# which Citus runs first as a query of its own, is routed by its own)
{
	my $q = q{WITH c AS (SELECT * FROM orders WHERE customer_id IN (5012, 7003) ORDER BY id LIMIT 20)
		SELECT o.id, c.id FROM orders o JOIN c ON o.status = c.status WHERE c.customer_id = 5012};
	my $out = $as->("EXPLAIN (COSTS OFF) $q");
	my @tasks = $out =~ /Task Count: (\d+)/g;
	is("@tasks", '2 8', 'a condition on a CTE of the same columns: the CTE on 2 shards, the query on every shard');
	my ($routed, $plain) = map { $as->("SET scbf.route = $_; " . rows_hash($q)) } qw(on off);
	is($routed, $plain, 'a condition on a CTE of the same columns: the rows of the unrouted query');
	cmp_ok((split /:/, $routed)[0], '>', 8, 'and rows from more than one shard');
}

# a role that may not read the table: the usual error, nothing routed
{
	my ($ret, $out, $err) = $coord->psql('postgres', 'SELECT * FROM orders WHERE customer_id = 5012',
		extra_params => [ '-U', 'stranger' ]);
	like($err, qr/permission denied for table orders/, 'a role without SELECT: permission denied');
}

# prepared statements: generic plans ask again at each execution
{
	my $out = $as->(q{
		PREPARE p(int) AS SELECT count(*) FROM orders WHERE customer_id = $1;
		EXECUTE p(5012); EXECUTE p(5012); EXECUTE p(5012); EXECUTE p(5012); EXECUTE p(5012);
		EXECUTE p(5012); EXECUTE p(999999); EXECUTE p(33017); EXECUTE p(5013);
		EXPLAIN (COSTS OFF) EXECUTE p(5012);
		PREPARE c AS SELECT count(*) FROM orders WHERE customer_id = 5012;
		EXECUTE c; EXECUTE c; EXECUTE c; EXECUTE c; EXECUTE c; EXECUTE c;
		EXPLAIN (COSTS OFF) EXECUTE c;});
	my $want = $coord->safe_psql('postgres', q{SET scbf.route = off;
		SELECT count(*) FROM orders WHERE customer_id = 5012; SELECT count(*) FROM orders WHERE customer_id = 33017;
		SELECT count(*) FROM orders WHERE customer_id = 5013});
	my ($a, $b, $c) = split /\n/, $want;
	my @counts = $out =~ /^(\d+)$/mg;
	is("@counts", "$a $a $a $a $a $a 0 $b $c $a $a $a $a $a $a",
		'prepared statements, also as generic plans: the rows of the unrouted query');
	my @tasks = $out =~ /Task Count: (\d+)/g;
	is("@tasks", '1 1', 'prepared statements: routed at every execution');
}

# a session whose first distributed plans have no tasks yet (a prepared
# router query, which Citus prunes at each execution): the next query is
# routed all the same
like($as->(q{SELECT scbf_optimal_k(0.01);
	PREPARE r(int) AS SELECT count(*) FROM orders WHERE tenant = $1;
	EXECUTE r(5); EXECUTE r(5); EXECUTE r(5); EXECUTE r(5); EXECUTE r(5); EXECUTE r(5); EXECUTE r(5);
	EXPLAIN (COSTS OFF) SELECT * FROM orders WHERE customer_id = 5012;}),
	qr/Task Count: 1$/m, 'routed after plans whose tasks Citus chooses at execution');

# in PL/pgSQL, the value a parameter of another type
$as->(q{CREATE FUNCTION orders_of(c bigint) RETURNS bigint LANGUAGE plpgsql AS $$
	DECLARE n bigint;
	BEGIN
		SELECT count(*) INTO n FROM orders WHERE customer_id = c;
		RETURN n;
	END $$}, 'app');
{
	my ($ret, $out, $err) = $coord->psql('postgres',
		'SET client_min_messages = debug1; SELECT orders_of(5012); SELECT orders_of(999999)',
		extra_params => [ '-U', 'reader' ]);
	my $want = $coord->safe_psql('postgres', 'SET scbf.route = off; SELECT count(*) FROM orders WHERE customer_id = 5012');
	is($out, "$want\n0", 'PL/pgSQL: the rows of the unrouted query');
	my @kept = $err =~ /keeps (\d+) of 8 tasks/g;
	is("@kept", '1 1', 'PL/pgSQL: routed, one task each') or diag($err);
}

# routing off
like($as->('SET scbf.route = off; EXPLAIN (COSTS OFF) SELECT * FROM orders WHERE customer_id = 5012'),
	qr/Task Count: 8/, 'scbf.route = off: every shard');

# routing reads the tasks' shards and placements by their fields, not
# from the whole output of each task (which holds its query)
{
	my ($ret, $out, $err) = $coord->psql('postgres',
		'SET client_min_messages = debug2; EXPLAIN (COSTS OFF) SELECT * FROM orders WHERE customer_id = 5012',
		extra_params => [ '-U', 'reader' ]);
	like($err, qr/keeps 1 of 8 tasks/, 'routed');
	unlike($err, qr/whole output/, "the tasks' shards and placements read by their fields");
}

# the distribution column: Citus prunes, routing steps aside
like($as->('SET client_min_messages = debug2; EXPLAIN (COSTS OFF) SELECT * FROM orders WHERE tenant = 5 AND customer_id = 5012'),
	qr/Task Count: 1/, 'a tenant: Citus\'s router plan, one task');
{
	my $cond = 'tenant IN (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12) AND customer_id = 5012';
	my ($ret, $out, $err) = $coord->psql('postgres',
		"SET client_min_messages = debug2; EXPLAIN (COSTS OFF) SELECT * FROM orders WHERE $cond",
		extra_params => [ '-U', 'reader' ]);
	my ($tasks) = $out =~ /Task Count: (\d+)/;
	my $plain = $coord->safe_psql('postgres', "SET scbf.route = off; EXPLAIN (COSTS OFF) SELECT * FROM orders WHERE $cond");
	my ($ptasks) = $plain =~ /Task Count: (\d+)/;
	ok($ptasks > 1 && $ptasks < 8 && $tasks == $ptasks,
		"tenants pruned by Citus: the same $ptasks tasks with routing ($tasks)");
	like($err, qr/steps aside: Citus pruned/, 'routing says it steps aside');
}

# writes through the coordinator (autocommit), then as the same session's
# uncommitted rows
$as->('INSERT INTO orders VALUES (900001, 17, 424201, 1, \'new\')', 'app');
check('SELECT * FROM orders WHERE customer_id = 424201', 'customer_id = 424201',
	'a row inserted through the coordinator', present => 1);
{
	my $out = $as->(q{BEGIN;
		INSERT INTO orders VALUES (900002, 18, 424202, 1, 'mine'), (900003, 40, 424202, 1, 'mine');
		SELECT count(*) FROM orders WHERE customer_id = 424202;
		EXPLAIN (COSTS OFF) SELECT count(*) FROM orders WHERE customer_id = 424202;
		SELECT count(*) FROM orders WHERE customer_id = 424201;
		ROLLBACK;}, 'app');
	my @counts = $out =~ /^(\d+)$/mg;
	is("@counts", '2 1', "the transaction's own uncommitted rows are found, and committed ones");
}

# a REPEATABLE READ transaction keeps its snapshot while another session
# deletes the rows and VACUUM runs on the shard
{
	my $s = $coord->background_psql('postgres', extra_params => [ '-U', 'reader' ]);
	$s->query_safe('BEGIN ISOLATION LEVEL REPEATABLE READ');
	my $before = $s->query_safe('SELECT count(*) FROM orders WHERE customer_id = 424201');
	$as->('DELETE FROM orders WHERE customer_id = 424201', 'app');
	$as->('VACUUM orders', 'app');
	my $after = $s->query_safe('SELECT count(*) FROM orders WHERE customer_id = 424201');
	$s->query_safe('COMMIT');
	is("$before $after", '1 1', 'REPEATABLE READ: the snapshot still sees the deleted row');
	is($as->('SELECT count(*) FROM orders WHERE customer_id = 424201'), '0', 'and a new one does not');
	$s->quit;
}

# DDL and LOCK TABLE earlier in the transaction: no wait, the answer
for my $pre ('ALTER TABLE orders ADD COLUMN extra int', 'LOCK TABLE orders IN ACCESS EXCLUSIVE MODE',
	'CREATE INDEX orders_status ON orders (status)')
{
	my $t0 = time;
	my $out = $as->(qq{SET statement_timeout = '60s'; BEGIN; $pre;
		SELECT count(*) FROM orders WHERE customer_id = 5012; ROLLBACK;}, 'app');
	my $took = time - $t0;
	my $want = $coord->safe_psql('postgres', 'SET scbf.route = off; SELECT count(*) FROM orders WHERE customer_id = 5012');
	is($out, $want, "after $pre in the transaction: the rows");
	cmp_ok($took, '<', 15, "after $pre in the transaction: no wait (${took}s)");
}

# the routing functions, which use connections of their own: DDL earlier
# in the transaction is an error after 5 s, not a wait
{
	my $t0 = time;
	my ($ret, $out, $err) = $coord->psql('postgres', q{SET statement_timeout = '60s'; BEGIN;
		ALTER TABLE orders ADD COLUMN extra2 int;
		SELECT count(*) FROM scbf_lookup(NULL::orders, 'customer_id', '5012'); ROLLBACK;});
	my $took = time - $t0;
	like($err, qr/lock timeout/, 'scbf_lookup after DDL in the transaction: an error');
	cmp_ok($took, '<', 20, "scbf_lookup after DDL in the transaction: no wait for statement_timeout (${took}s)");
}

# a direct write on a shard
my ($shard, $sport) = split /\|/, $coord->safe_psql('postgres', q{
	SELECT shard_name('orders'::regclass, s.shardid), p.nodeport FROM pg_dist_shard s
	JOIN pg_dist_shard_placement p USING (shardid)
	WHERE s.logicalrelid = 'orders'::regclass ORDER BY s.shardid LIMIT 1});
my ($direct) = grep { $_->port == $sport } @workers;
$direct->safe_psql('postgres', "INSERT INTO $shard VALUES (900010, 1, 424210, 1, 'direct')");
check('SELECT * FROM orders WHERE customer_id = 424210', 'customer_id = 424210',
	'a row written on a shard directly', present => 1);

# a shard move, a rebalance, a split
my ($moved, $from) = split /\|/, $coord->safe_psql('postgres', q{
	SELECT s.shardid, p.nodeport FROM pg_dist_shard s JOIN pg_dist_shard_placement p USING (shardid)
	WHERE s.logicalrelid = 'orders'::regclass ORDER BY s.shardid LIMIT 1});
my ($to) = grep { $_ != $from } map { $_->port } @workers;
$coord->safe_psql('postgres', "SELECT citus_move_shard_placement($moved, '127.0.0.1', $from, '127.0.0.1', $to, shard_transfer_mode => 'block_writes')");
check('SELECT * FROM orders WHERE customer_id = 424210', 'customer_id = 424210', 'after a shard move', present => 1);
check('SELECT * FROM orders WHERE customer_id IN (5012, 1001)', 'customer_id IN (5012, 1001)', 'after a shard move, IN',
	present => 1);
$coord->safe_psql('postgres', "SELECT rebalance_table_shards('orders', shard_transfer_mode => 'block_writes')");
check('SELECT * FROM orders WHERE customer_id = 424210', 'customer_id = 424210', 'after a rebalance', present => 1);
split_last_shard($coord, 'orders');
$as->("INSERT INTO orders SELECT 900100 + g, g, 424300, 1, 'split' FROM generate_series(0, 63) g", 'app');
check('SELECT * FROM orders WHERE customer_id = 424300', 'customer_id = 424300', 'after a split, a value on every shard',
	present => 1);
check('SELECT * FROM orders WHERE customer_id = 63039', 'customer_id = 63039', 'after a split', present => 1);

# a worker that does not answer: its kept routing connection is stopped;
# the query runs on every shard after scbf.route_timeout
{
	my $w = $workers[1];
	my $s = $coord->background_psql('postgres', extra_params => [ '-U', 'reader' ]);
	$s->query_safe('SELECT count(*) FROM orders WHERE customer_id = 5012');
	my $pid = $w->safe_psql('postgres', "SELECT pid FROM pg_stat_activity WHERE application_name = 'scbf_route' AND usename = 'reader'");
	ok($pid =~ /^\d+$/, "the kept routing connection on worker2 ($pid)");
	kill 'STOP', $pid;
	my $t0 = time;
	my $out = $s->query_safe(q{SET scbf.route_timeout = '500ms';
		EXPLAIN (COSTS OFF) SELECT count(*) FROM orders WHERE customer_id = 5012;
		SELECT count(*) FROM orders WHERE customer_id = 5012});
	my $took = time - $t0;
	kill 'CONT', $pid;
	my ($tasks) = $out =~ /Task Count: (\d+)/;
	my $shards = $coord->safe_psql('postgres', q{SELECT count(*) FROM pg_dist_shard WHERE logicalrelid = 'orders'::regclass});
	my $want = $coord->safe_psql('postgres', 'SET scbf.route = off; SELECT count(*) FROM orders WHERE customer_id = 5012');
	ok($tasks > 1 && $out =~ /^$want$/m, "a worker that does not answer: its shards are read ($tasks tasks), the rows");
	cmp_ok($took, '<', 10, "a worker that does not answer: no wait beyond the timeout (${took}s)");
	$s->quit;
}

# a worker that is down: an error, at once
{
	$workers[1]->stop('fast');
	my $t0 = time;
	my ($ret, $out, $err) = $coord->psql('postgres', 'SELECT count(*) FROM orders WHERE customer_id = 5012',
		extra_params => [ '-U', 'reader' ]);
	my $took = time - $t0;
	isnt($ret, 0, 'a worker that is down: an error');
	cmp_ok($took, '<', 15, "a worker that is down: no wait (${took}s)");
	$workers[1]->start;
	check('SELECT * FROM orders WHERE customer_id = 5012', 'customer_id = 5012', 'the worker back', present => 1);
}

done_testing();
