# 060_citus.pl: scbf on Citus, a coordinator and two workers on loopback.
#
# A table distributed on "tenant" over 8 shards gets scbf indexes on columns
# that are not the distribution column (customer_id; status and code
# together).  For =, = ANY and two-column predicates the test shows that
# every shard task of the distributed plan is a Bitmap Index Scan on the
# shard's scbf index and that the answers equal sequential scans of the
# shards (ScbfShard's citus_same), after inserts, deletes and VACUUM through
# the coordinator, writes made on a shard directly, a shard move, a
# rebalance and a shard split.  It checks that CREATE INDEX [CONCURRENTLY]
# reaches every shard and the shards made later (a split, a colocated table
# distributed afterwards), that the extension and its operator classes come
# from the extension script on every node, the diagnostics per shard through
# run_command_on_shards, and routing by filters (scbf_route, scbf_lookup):
# only shards whose filters may hold the value are read, and the answer is
# the sequential scan's, through Citus's master_run_on_worker and through
# dblink's kept connections.
#
# Needs Citus installed for the server: test/run-tests builds it with
# test/citus/setup from $SCBF_CITUS_DIR (default ../shared/vendor/citus
# beside the checkout); without it the test skips, saying so.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use lib 'test/t';
use ScbfTest;
use ScbfShard;

my $probe = PostgreSQL::Test::Cluster->new('probe');
my $pkglibdir = $probe->config_data('--pkglibdir');
plan skip_all => "Citus is not installed in $pkglibdir (test/run-tests builds it with "
  . 'test/citus/setup from $SCBF_CITUS_DIR, default ../shared/vendor/citus: see README, '
  . '"Sharding and scale-out")'
  unless -e "$pkglibdir/citus.so";

my $conf = "shared_preload_libraries = 'citus'\nmax_worker_processes = 20\n"
  . "citus.max_background_task_executors_per_node = 1\n";
# the plain query on every shard, whose task plans this test checks:
# routing by filters, which leaves out the shards that cannot hold the
# value, is 063_citus_route.pl's
my $coord = shard_node('coordinator', allows_streaming => 'logical', conf => $conf . "scbf.route = off\n");
my @workers = map { shard_node("worker$_", allows_streaming => 'logical', conf => $conf) } 1 .. 2;
my %port = map { $_->name => $_->port } ($coord, @workers);

$_->safe_psql('postgres', 'CREATE EXTENSION citus') for ($coord, @workers);
$coord->safe_psql('postgres', "SELECT citus_set_coordinator_host('127.0.0.1', $port{coordinator})");
$coord->safe_psql('postgres', "SELECT citus_add_node('127.0.0.1', " . $_->port . ')') for @workers;
# scbf on the coordinator only: Citus creates it on the workers
$coord->safe_psql('postgres', 'CREATE EXTENSION scbf');

# the extension and its operator classes, from the script, on every node
my $opclasses = q{SELECT count(*) FROM pg_opclass o JOIN pg_am a ON a.oid = o.opcmethod
	JOIN pg_depend d ON d.classid = 'pg_opclass'::regclass AND d.objid = o.oid AND d.deptype = 'e'
	JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'scbf' WHERE a.amname = 'scbf'};
my $want_opc = $coord->safe_psql('postgres', $opclasses);
cmp_ok($want_opc, '>=', 20, "coordinator: $want_opc scbf operator classes from the extension script");
for my $w (@workers)
{
	is($w->safe_psql('postgres', "SELECT extversion FROM pg_extension WHERE extname = 'scbf'"),
		'1.0', $w->name . ': CREATE EXTENSION scbf propagated');
	is($w->safe_psql('postgres', $opclasses), $want_opc,
		$w->name . ': the same operator classes, members of the extension');
}

# 8 shards on tenant; a customer belongs to one tenant, so to one shard; a
# code is spread over every shard
$coord->safe_psql('postgres', q{
	CREATE TABLE orders (id bigint, tenant int, customer_id int, status int, code text);
	SELECT create_distributed_table('orders', 'tenant', shard_count => 8);
	INSERT INTO orders SELECT g, g % 64, (g % 64) * 1000 + (g / 64) % 40, g % 7, 'c' || (g % 3001)
	FROM generate_series(1, 60000) g;
	CREATE INDEX orders_cust ON orders USING scbf (customer_id);
});
$coord->safe_psql('postgres',
	'CREATE INDEX CONCURRENTLY orders_multi ON orders USING scbf (status, code) WITH (pages_per_segment = 8)');
$coord->safe_psql('postgres', 'ANALYZE orders');

# every shard has both indexes, valid
my $shard_indexes = sub {
	my ($table) = @_;
	return $coord->safe_psql('postgres', qq{
		SELECT count(*) || ' shards, ' || count(*) FILTER (WHERE result = '2') || ' with 2 valid scbf indexes'
		FROM run_command_on_shards('$table', \$\$SELECT count(*) FROM pg_index i
			WHERE i.indrelid = '%s'::regclass AND i.indisvalid
			AND pg_get_indexdef(i.indexrelid) LIKE '%% USING scbf %%'\$\$)});
};
is($shard_indexes->('orders'), '8 shards, 8 with 2 valid scbf indexes',
	'CREATE INDEX and CREATE INDEX CONCURRENTLY reach every shard');

my @queries = (
	'SELECT * FROM orders WHERE customer_id = 5012',
	'SELECT * FROM orders WHERE customer_id = ANY (ARRAY[1001, 33017, 63039])',
	'SELECT * FROM orders WHERE customer_id IN (7003, 7004) AND status = 3',
	q{SELECT * FROM orders WHERE status = 2 AND code = 'c1234'},
	q{SELECT * FROM orders WHERE status = 5 AND code = ANY (ARRAY['c7', 'c2999', 'c1500'])},
	q{SELECT id, tenant FROM orders WHERE tenant = 12 AND customer_id = 12001},
	[ 'SELECT * FROM orders WHERE customer_id = 999999', 'empty' ],
	[ q{SELECT * FROM orders WHERE status = 1 AND code = 'none'}, 'empty' ]);
my @tasks;
citus_same($coord, 'postgres', \@queries, name => 'after the build', tasks => \@tasks);
is("@tasks", '8 8 8 8 8 1 8 8', 'tasks per query: 8 shards, 1 for a tenant (the router plan)');

# inserts, deletes and VACUUM through the coordinator
$coord->safe_psql('postgres', q{
	INSERT INTO orders SELECT g, g % 64, (g % 64) * 1000 + 50 + g % 3, g % 7, 'n' || (g % 500)
	FROM generate_series(60001, 66000) g;
	DELETE FROM orders WHERE customer_id = 5012 AND id % 2 = 0;
	DELETE FROM orders WHERE customer_id = 1001;
	VACUUM orders;
});
citus_same($coord, 'postgres', [ @queries,
	'SELECT * FROM orders WHERE customer_id = ANY (ARRAY[51, 13052, 63050])',
	q{SELECT * FROM orders WHERE status = 4 AND code = 'n123'},
	[ 'SELECT * FROM orders WHERE customer_id = 1001', 'empty' ] ],
	name => 'after inserts, deletes and VACUUM');

# diagnostics per shard: the indexes hold exactly the shards' rows after
# VACUUM, and verify.  A plain VACUUM may leave index entries behind: it
# skips index vacuuming when few of a table's pages hold dead rows
# (PostgreSQL 14 and later), as on a shard whose deleted rows share one of
# its ~55 pages, and it removes a deleted row only once no snapshot on the
# worker can see it (Citus's background transactions take snapshots).  CI
# once met 24 entries left so: VACUUM (INDEX_CLEANUP ON) until they are
# gone, 30 s at most
my $diag_sql = q{
	SELECT count(*) FILTER (WHERE success) || ' ok, ' || sum(split_part(result, ' ', 1)::int) || ' entries, '
		|| sum(split_part(result, ' ', 2)::int) || ' rows'
	FROM run_command_on_shards('orders', $$SELECT x.entries_live || ' ' || (SELECT count(*) FROM %1$s)
		FROM pg_index i CROSS JOIN LATERAL scbf_index_info(i.indexrelid) x
		WHERE i.indrelid = '%1$s'::regclass AND i.indexrelid::regclass::text LIKE 'orders\_cust\_%%'$$)};
my $rows = $coord->safe_psql('postgres', 'SELECT count(*) FROM orders');
my $diag = $coord->safe_psql('postgres', $diag_sql);
for (my $i = 0; $i < 30 && $diag ne "8 ok, $rows entries, $rows rows"; $i++)
{
	note("after VACUUM: $diag; vacuuming again");
	sleep(1);
	$coord->safe_psql('postgres', 'VACUUM (INDEX_CLEANUP ON) orders');
	$diag = $coord->safe_psql('postgres', $diag_sql);
}
is($diag, "8 ok, $rows entries, $rows rows", 'scbf_index_info per shard: entries = rows on every shard');
is($coord->safe_psql('postgres', q{
	SELECT count(*) FILTER (WHERE success)
	FROM run_command_on_shards('orders', $$SELECT count(scbf_verify(i.indexrelid, true)) FROM pg_index i
		WHERE i.indrelid = '%s'::regclass AND pg_get_indexdef(i.indexrelid) LIKE '%% USING scbf %%'$$)}),
	'8', 'scbf_verify (heapallindexed) passes on every shard');

# routing by filters: customer 5012 lives on one shard; a code on all
my $route = sub {
	my ($col, $val) = @_;
	return $coord->safe_psql('postgres', qq{
		SELECT count(*) || ' shards, ' || count(*) FILTER (WHERE may_contain IS NOT false) || ' to read'
		FROM scbf_route('orders', '$col', '$val')});
};
my $routed_same = sub {
	my ($col, $val, $name) = @_;
	my ($got, $want) = map { $coord->safe_psql('postgres', qq{
		SET citus.propagate_set_commands = 'local'; BEGIN; SET LOCAL enable_bitmapscan = off;
		SET LOCAL enable_indexscan = off;
		@{[ rows_hash($_) ]}; COMMIT;}) }
	  (qq{SELECT * FROM scbf_lookup(NULL::orders, '$col', '$val')},
		qq{SELECT * FROM orders WHERE $col = '$val'});
	is($got, $want, "scbf_lookup $col = $val equals the sequential scan ($name)");
	return (split /:/, $got)[0];
};
is($route->('customer_id', '5012'), '8 shards, 1 to read', 'route: a present customer, one shard');
is($route->('customer_id', '999999'), '8 shards, 0 to read', 'route: an absent customer, no shard');
is($route->('customer_id', '1001'), '8 shards, 0 to read', 'route: a deleted and vacuumed customer, no shard');
is($route->('code', 'c77'), '8 shards, 8 to read', 'route: a code on every shard');
# without dblink, scbf_run_on_nodes uses Citus's master_run_on_worker
cmp_ok($routed_same->('customer_id', '5012', 'one shard'), '>', 0, 'scbf_lookup found rows');
$routed_same->('customer_id', '999999', 'no shard');
$routed_same->('code', 'c77', 'every shard');

# with dblink, kept connections: the same answers, also after the workers
# ended those connections while idle (the command runs again on new ones)
$coord->safe_psql('postgres', 'CREATE EXTENSION dblink');
$routed_same->('customer_id', '5012', 'one shard, through dblink');
$routed_same->('code', 'c77', 'every shard, through dblink');
my @kept = split /\n/, $coord->safe_psql('postgres', q{
	SELECT count(*) FROM scbf_lookup(NULL::orders, 'customer_id', '5012');
	SELECT cardinality(dblink_get_connections());
	SELECT count(*) FROM run_command_on_workers($$SELECT count(pg_terminate_backend(pid))
		FROM pg_stat_activity WHERE backend_type = 'client backend'
		AND pid <> pg_backend_pid() AND query LIKE '%scbf_read_shards%'$$) WHERE result = '1';
	SELECT count(*) FROM scbf_lookup(NULL::orders, 'customer_id', '5012');
	SELECT count(*) FROM orders WHERE customer_id = 5012;});
is("@kept[1, 2]", '2 2', 'one kept connection per worker, both ended by the workers');
is("@kept[0, 3]", "$kept[4] $kept[4]", 'scbf_lookup before and after: the rows of the query to every shard');

# a write made on a shard directly, not through the coordinator
my ($shard, $node) = split /\|/, $coord->safe_psql('postgres', q{
	SELECT shard_name('orders'::regclass, s.shardid), p.nodeport FROM pg_dist_shard s
	JOIN pg_dist_shard_placement p USING (shardid)
	WHERE s.logicalrelid = 'orders'::regclass ORDER BY s.shardid LIMIT 1});
my ($direct) = grep { $_->port == $node } @workers;
$direct->safe_psql('postgres', "INSERT INTO $shard VALUES (1, 1, 424242, 1, 'direct')");
is($route->('customer_id', '424242'), '8 shards, 1 to read', 'route: a row written on a shard directly');
is($routed_same->('customer_id', '424242', 'written on the shard'), 1, 'and scbf_lookup returns it');

# a shard move, then a rebalance, then a split
my ($moved, $from) = split /\|/, $coord->safe_psql('postgres', q{
	SELECT s.shardid, p.nodeport FROM pg_dist_shard s JOIN pg_dist_shard_placement p USING (shardid)
	WHERE s.logicalrelid = 'orders'::regclass ORDER BY s.shardid LIMIT 1});
my ($to) = grep { $_ != $from } map { $_->port } @workers;
$coord->safe_psql('postgres', "SELECT citus_move_shard_placement($moved, '127.0.0.1', $from, '127.0.0.1', $to, shard_transfer_mode => 'block_writes')");
is($coord->safe_psql('postgres', "SELECT nodeport FROM pg_dist_shard_placement WHERE shardid = $moved"),
	$to, 'shard moved');
is($shard_indexes->('orders'), '8 shards, 8 with 2 valid scbf indexes', 'the moved shard has its scbf indexes');
citus_same($coord, 'postgres', \@queries, name => 'after a shard move');
is($route->('customer_id', '424242'), '8 shards, 1 to read', 'route after the move: the direct write is found');

$coord->safe_psql('postgres', "SELECT rebalance_table_shards('orders', shard_transfer_mode => 'block_writes')");
is($coord->safe_psql('postgres', q{SELECT string_agg(n::text, ' ' ORDER BY n) FROM (
	SELECT count(*) n FROM pg_dist_shard s JOIN pg_dist_shard_placement p USING (shardid)
	WHERE s.logicalrelid = 'orders'::regclass GROUP BY p.nodeport) x}), '4 4', 'rebalanced: 4 shards per worker');
citus_same($coord, 'postgres', \@queries, name => 'after a rebalance');

# a split makes two new shards: they get both indexes
split_last_shard($coord, 'orders');
is($shard_indexes->('orders'), '9 shards, 9 with 2 valid scbf indexes', 'a shard split: the new shards have both indexes');
citus_same($coord, 'postgres', \@queries, name => 'after a shard split');
$routed_same->('customer_id', '5012', 'after the split');
is($route->('customer_id', '999999'), '9 shards, 0 to read', 'route after the split: an absent customer, no shard');

# a table distributed later, colocated, with its index made before
$coord->safe_psql('postgres', q{
	CREATE TABLE items (tenant int, sku text, qty int);
	CREATE INDEX items_sku ON items USING scbf (sku);
	INSERT INTO items SELECT g % 64, 'sku' || (g % 2000), g % 5 FROM generate_series(1, 20000) g;
	SELECT create_distributed_table('items', 'tenant', colocate_with => 'orders');
	CREATE INDEX items_qty ON items USING scbf (qty, sku);
	ANALYZE items;
});
is($shard_indexes->('items'), '9 shards, 9 with 2 valid scbf indexes',
	'a colocated table distributed later: every shard has its indexes');
citus_same($coord, 'postgres', [ q{SELECT * FROM items WHERE sku = 'sku42'},
	q{SELECT * FROM items WHERE qty = 3 AND sku IN ('sku8', 'sku1999')},
	[ q{SELECT * FROM items WHERE sku = 'nope'}, 'empty' ] ], name => 'the colocated table');

done_testing();
