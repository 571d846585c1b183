# test/bench/shard_route.pl: probe latency through a Citus coordinator, with
# and without routing by filters, against the same table unsharded, and the
# shards each routed probe reads.  Not part of the test suite (it times
# things); needs Citus (test/citus/setup) and scbf installed.  As a non-root
# user, from the top of the checkout:
#
#   PATH=/usr/lib/postgresql/15/bin:$PATH \
#   PG_REGRESS=/usr/lib/postgresql/15/lib/pgxs/src/test/regress/pg_regress \
#     prove -v -I /usr/lib/postgresql/15/lib/pgxs/src/test/perl -I test/t \
#     test/bench/shard_route.pl
#
# A coordinator and two workers on loopback; "orders" with SCBF_BENCH_ROWS
# rows (default 400,000) distributed on tenant over 8 shards, a customer
# belonging to one tenant (so to one shard), and the same rows in a plain
# table on the coordinator; scbf on customer_id in both; dblink on the
# coordinator (scbf_lookup's kept connections).  One pgbench run
# interleaves SCBF_BENCH_PROBES (default 400) lookups of each of six kinds:
# random present customers and random absent ones, each three ways: the
# unsharded table, the distributed table (Citus asks all 8 shards) and
# scbf_lookup (routed).  Prints each one's latency average, and for 200
# present and 200 absent values the shards a routed probe reads against
# those that hold the value, with the routed answers compared to the query
# to every shard.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use lib 'test/t';
use ScbfTest;
use ScbfShard;

my $rows = $ENV{SCBF_BENCH_ROWS} // 400000;
my $probes = $ENV{SCBF_BENCH_PROBES} // 400;
my $conf = "shared_preload_libraries = 'citus'\nshared_buffers = 64MB\n";
my $coord = shard_node('coordinator', conf => $conf);
my @workers = map { shard_node("worker$_", conf => $conf) } 1 .. 2;
$_->safe_psql('postgres', 'CREATE EXTENSION citus') for ($coord, @workers);
$coord->safe_psql('postgres', "SELECT citus_set_coordinator_host('127.0.0.1', " . $coord->port . ')');
$coord->safe_psql('postgres', "SELECT citus_add_node('127.0.0.1', " . $_->port . ')') for @workers;
$coord->safe_psql('postgres', qq{
	CREATE EXTENSION scbf;
	CREATE EXTENSION dblink;
	CREATE TABLE orders (id bigint, tenant int, customer_id int, status int, code text);
	SELECT create_distributed_table('orders', 'tenant', shard_count => 8);
	INSERT INTO orders SELECT g, g % 64, (g % 64) * 1000 + (g / 64) % 400, g % 7, 'c' || (g % 3001)
	FROM generate_series(1, $rows) g;
	CREATE INDEX orders_cust ON orders USING scbf (customer_id);
	CREATE TABLE orders_local AS SELECT * FROM orders;
	CREATE INDEX orders_local_cust ON orders_local USING scbf (customer_id);
	VACUUM ANALYZE orders; VACUUM ANALYZE orders_local;
});

# the plans, at default settings: scbf on the unsharded table and in every
# shard task
my $plan = $coord->safe_psql('postgres',
	'EXPLAIN (COSTS OFF) SELECT * FROM orders_local WHERE customer_id = 4242');
like($plan, qr/Bitmap Index Scan on orders_local_cust/, 'unsharded: a Bitmap Index Scan on scbf') or diag($plan);
$plan = $coord->safe_psql('postgres', "SET citus.explain_all_tasks = on;
	EXPLAIN (COSTS OFF) SELECT * FROM orders WHERE customer_id = 4242");
my @scans = $plan =~ /Bitmap Index Scan on orders_cust_\d+/g;
is(scalar(@scans), 8, 'distributed: a Bitmap Index Scan on scbf in each of the 8 tasks') or diag($plan);

my $dir = PostgreSQL::Test::Utils::tempdir;
my %set = (
	present => "\\set t random(0, 63)\n\\set k random(0, 399)\n\\set c :t * 1000 + :k\n",
	absent => "\\set c random(900000, 999999)\n");
my %query = (
	unsharded => 'SELECT * FROM orders_local WHERE customer_id = :c;',
	distributed => 'SELECT * FROM orders WHERE customer_id = :c;',
	routed => q{SELECT * FROM scbf_lookup(NULL::orders, 'customer_id', :c::text);});
my @ways = qw(unsharded distributed routed);

# One pgbench run picks among the six scripts at random for every
# transaction, so that whatever else the machine does weighs on all of
# them alike; each script's own latency average is reported.  A session
# (one client, kept) holds Citus's and dblink's connections, as an
# application's would.
my @scripts;
for my $kind (qw(present absent))
{
	for my $way (@ways)
	{
		my $f = "$dir/${kind}_$way.sql";
		PostgreSQL::Test::Utils::append_to_file($f, $set{$kind} . $query{$way} . "\n");
		push @scripts, [ "${kind}_$way", $f ];
	}
}
my @cmd = ('pgbench', '-n', (map { ('-f', "$_->[1]\@1") } @scripts),
	'-h', $coord->host, '-p', $coord->port, 'postgres');
my ($out, $err) = ('', '');
IPC::Run::run([ @cmd, '-t', 60 ], '>', \$out, '2>', \$err);    # warm-up
($out, $err) = ('', '');
IPC::Run::run([ @cmd, '-t', 6 * $probes ], '>', \$out, '2>', \$err);
my %lat;
for my $block (split /^SQL script \d+: /m, $out)
{
	my ($file) = $block =~ /^(\S+)/ or next;
	my ($name) = $file =~ m{([a-z]+_[a-z]+)\.sql$} or next;
	my ($n) = $block =~ /- (\d+) transactions/;
	my ($ms) = $block =~ /latency average = ([\d.]+) ms/;
	my ($kind, $way) = split /_/, $name;
	$lat{$kind}{$way} = "$ms ($n)" if defined $ms;
}
note($out);
ok(keys(%lat) == 2 && 6 == grep({ defined $lat{ $_->[0] =~ s/_.*//r }{ $_->[0] =~ s/.*_//r } } @scripts),
	'pgbench ran all six scripts') or diag("$out\n$err");

# shards read per routed probe, shards that hold the value, and the routed
# answer against the query to every shard (count and hash of the rows)
my %read;
$coord->safe_psql('postgres', q{
	CREATE FUNCTION bench_route(v int, OUT nread bigint, OUT nhold bigint, OUT same boolean,
		OUT nrows bigint)
	LANGUAGE plpgsql AS $$
	DECLARE
		routed text;
		everywhere text;
	BEGIN
		SELECT count(*) FILTER (WHERE may_contain IS NOT false) INTO nread
		FROM scbf_route('orders', 'customer_id', v::text);
		SELECT count(DISTINCT get_shard_id_for_distribution_column('orders', x.tenant)), count(*),
			count(*) || ':' || coalesce(sum(hashtext(x::text)::int8), 0)
		INTO nhold, nrows, everywhere FROM orders x WHERE x.customer_id = v;
		SELECT count(*) || ':' || coalesce(sum(hashtext(x::text)::int8), 0) INTO routed
		FROM scbf_lookup(NULL::orders, 'customer_id', v::text) x;
		same := routed = everywhere;
	END
	$$});
for my $kind ([ present => '(t % 64) * 1000 + (t * 7) % 400' ], [ absent => '900000 + t * 37' ])
{
	$read{ $kind->[0] } = $coord->safe_psql('postgres', qq{
		SELECT round(avg(b.nread), 2) || ' ' || round(avg(b.nhold), 2) || ' ' || max(b.nread) || ' '
			|| count(*) FILTER (WHERE b.same) || ' ' || sum(b.nrows)
		FROM generate_series(1, 200) t, LATERAL bench_route($kind->[1]) b});
	my (undef, undef, undef, $same) = split / /, $read{ $kind->[0] };
	is($same, 200, "$kind->[0]: 200 routed answers equal the query to every shard");
}
my $tasks = $coord->safe_psql('postgres', 'EXPLAIN SELECT * FROM orders WHERE customer_id = 4242');
my ($ntasks) = $tasks =~ /Task Count: (\d+)/;

my $report = sprintf("rows %d, 8 shards on 2 workers, %d probes of each kind (pgbench, one client, "
	  . "the six scripts interleaved); latency average in ms (transactions)\n", $rows, $probes)
  . sprintf("%-8s %16s %16s %16s %s\n", 'values', 'unsharded', 'distributed', 'routed',
	'routed: shards read / hold / max read; answers equal (rows)')
  . join('', map {
	my ($r, $h, $m, $same, $nrows) = split / /, $read{$_};
	sprintf("%-8s %16s %16s %16s %s / %s / %s; %s of 200 (%s)\n", $_, $lat{$_}{unsharded},
		$lat{$_}{distributed}, $lat{$_}{routed}, $r, $h, $m, $same, $nrows)
  } qw(present absent))
  . "distributed: $ntasks tasks per probe (one per shard); routed: one command per worker node (2)\n";
note($report);
print STDERR $report;
done_testing();
