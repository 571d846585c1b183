# test/bench/citus_route.pl: latency of the plain query on a Citus
# distributed table, routed by scbf's filters (scbf.route = on) against the
# plain fan-out to every shard (scbf.route = off), at 8 and at 32 shards on
# two workers.  Not part of the test suite (it times things); needs Citus
# (test/citus/setup) and scbf installed.  As a non-root user, from the top
# of the checkout:
#
#   PATH=/usr/lib/postgresql/15/bin:$PATH \
#   PG_REGRESS=/usr/lib/postgresql/15/lib/pgxs/src/test/regress/pg_regress \
#     prove -v -I /usr/lib/postgresql/15/lib/pgxs/src/test/perl -I test/t \
#     test/bench/citus_route.pl
#
# A coordinator and two workers on loopback.  Two tables of SCBF_BENCH_ROWS
# rows (default 1,000,000), distributed on tenant over 8 and over 32 shards,
# a customer belonging to one tenant (so to one shard), an scbf index on
# customer_id.  The queries run as "app", a role with SELECT only.  One
# pgbench run (one client, a kept session, as an application's) interleaves
# SCBF_BENCH_PROBES (default 500) queries of each of eight kinds: present
# and absent customers, on each table, routed and not; each script's own
# latency average is reported, with the routed/fan-out ratio.  Then, for 200
# present and 200 absent values per table, the routed query's task count
# (EXPLAIN's "Task Count") against the shards that hold the value, and its
# rows against the fan-out's.  Writes a CSV line per table and kind to
# $SCBF_BENCH_CSV if set.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use lib 'test/t';
use ScbfTest;
use ScbfShard;

my $rows = $ENV{SCBF_BENCH_ROWS} // 1000000;
my $probes = $ENV{SCBF_BENCH_PROBES} // 500;
my $conf = "shared_preload_libraries = 'citus'\nshared_buffers = 128MB\nmax_connections = 100\n";
my $coord = shard_node('coordinator', conf => $conf);
my @workers = map { shard_node("worker$_", conf => $conf) } 1 .. 2;
$_->safe_psql('postgres', 'CREATE EXTENSION citus') for ($coord, @workers);
$coord->safe_psql('postgres', "SELECT citus_set_coordinator_host('127.0.0.1', " . $coord->port . ')');
$coord->safe_psql('postgres', "SELECT citus_add_node('127.0.0.1', " . $_->port . ')') for @workers;
$coord->safe_psql('postgres', 'CREATE EXTENSION scbf; CREATE ROLE app LOGIN');
my @shards = (8, 32);
for my $n (@shards)
{
	$coord->safe_psql('postgres', qq{
		CREATE TABLE orders$n (id bigint, tenant int, customer_id int, status int, code text);
		SELECT create_distributed_table('orders$n', 'tenant', shard_count => $n);
		INSERT INTO orders$n SELECT g, g % 256, (g % 256) * 1000 + (g / 256) % 400, g % 7, 'c' || (g % 3001)
		FROM generate_series(1, $rows) g;
		CREATE INDEX orders${n}_cust ON orders$n USING scbf (customer_id);
		VACUUM ANALYZE orders$n;
		GRANT SELECT ON orders$n TO app;
	});
}

my $dir = PostgreSQL::Test::Utils::tempdir;
my %set = (
	present => "\\set t random(0, 255)\n\\set k random(0, 399)\n\\set c :t * 1000 + :k\n",
	absent => "\\set c random(900000, 999999)\n");
my @scripts;
for my $n (@shards)
{
	for my $kind (qw(present absent))
	{
		for my $way (qw(routed fanout))
		{
			my $f = "$dir/${kind}_${way}_$n.sql";
			PostgreSQL::Test::Utils::append_to_file($f, $set{$kind}
				  . 'SET scbf.route = ' . ($way eq 'routed' ? 'on' : 'off') . ";\n"
				  . "SELECT * FROM orders$n WHERE customer_id = :c;\n");
			push @scripts, $f;
		}
	}
}
my @cmd = ('pgbench', '-n', (map { ('-f', "$_\@1") } @scripts),
	'-h', $coord->host, '-p', $coord->port, '-U', 'app', 'postgres');
my ($out, $err) = ('', '');
IPC::Run::run([ @cmd, '-t', 100 ], '>', \$out, '2>', \$err);    # warm-up
($out, $err) = ('', '');
IPC::Run::run([ @cmd, '-t', 8 * $probes ], '>', \$out, '2>', \$err);
note($out);
my %lat;
for my $block (split /^SQL script \d+: /m, $out)
{
	my ($name) = $block =~ m{([a-z]+_[a-z]+_\d+)\.sql} or next;
	my ($ms) = $block =~ /latency average = ([\d.]+) ms/;
	my ($kind, $way, $n) = split /_/, $name;
	$lat{$n}{$kind}{$way} = $ms if defined $ms;
}
is(scalar(map { keys %{ $lat{$_} } } keys %lat), 4, 'pgbench ran all eight scripts') or diag("$out\n$err");

# task counts and answers: the routed query's tasks against the shards
# holding the value, its rows against the fan-out's
my %tasks;
for my $n (@shards)
{
	for my $kind ([ present => '(t % 256) * 1000 + (t * 7) % 400' ], [ absent => '900000 + t * 37' ])
	{
		my $sql = "SET citus.explain_all_tasks = off;\n";
		for my $t (1 .. 200)
		{
			my $v = eval($kind->[1] =~ s/t/$t/gr);
			$sql .= "EXPLAIN (COSTS OFF) SELECT * FROM orders$n WHERE customer_id = $v;\n"
			  . "SELECT '#r ' || (" . rows_hash("SELECT * FROM orders$n WHERE customer_id = $v") . ");\n"
			  . "SET scbf.route = off;\n"
			  . "SELECT '#f ' || (" . rows_hash("SELECT * FROM orders$n WHERE customer_id = $v") . ")"
			  . " || ' ' || (SELECT count(DISTINCT get_shard_id_for_distribution_column('orders$n', x.tenant))"
			  . " FROM orders$n x WHERE x.customer_id = $v);\n"
			  . "SET scbf.route = on;\n";
		}
		my $res = $coord->safe_psql('postgres', $sql, extra_params => [ '-U', 'app' ]);
		my @t = $res =~ /Task Count: (\d+)/g;
		my @r = $res =~ /^#r (\S+)$/mg;
		my @f = $res =~ /^#f (\S+) (\d+)$/mg;
		my ($same, $sumt, $sumh, $maxt, $nrows) = (0, 0, 0, 0, 0);
		for my $i (0 .. 199)
		{
			$same++ if defined $r[$i] && $r[$i] eq $f[2 * $i];
			$sumt += $t[$i];
			$sumh += $f[2 * $i + 1] || 1;
			$maxt = $t[$i] if $t[$i] > $maxt;
			$nrows += (split /:/, $f[2 * $i])[0];
		}
		is($same, 200, "$n shards, $kind->[0]: 200 routed answers equal the fan-out's");
		$tasks{$n}{ $kind->[0] } = sprintf('%.2f / %.2f / %d; %d rows', $sumt / 200, $sumh / 200, $maxt, $nrows);
	}
}

my $report = sprintf("rows %d, 2 workers; pgbench, one client, %d queries of each kind, the eight "
	  . "scripts interleaved; latency average in ms\n", $rows, $probes)
  . sprintf("%-7s %-8s %10s %10s %7s  %s\n", 'shards', 'values', 'routed', 'fan-out', 'ratio',
	'routed tasks: mean / shards holding (min 1) / max; rows of 200 values');
my $csv = '';
for my $n (@shards)
{
	for my $kind (qw(present absent))
	{
		my ($r, $f) = ($lat{$n}{$kind}{routed}, $lat{$n}{$kind}{fanout});
		my $ratio = $f ? $r / $f : 0;
		$report .= sprintf("%-7d %-8s %10.3f %10.3f %7.2f  %s\n", $n, $kind, $r, $f, $ratio, $tasks{$n}{$kind});
		$csv .= sprintf("%s,%d,%d,%s,%.3f,%.3f,%.3f,%s\n", $coord->safe_psql('postgres', 'SHOW server_version_num'),
			$rows, $n, $kind, $r, $f, $ratio, $tasks{$n}{$kind} =~ s/[;,]//gr);
	}
}
note($report);
print STDERR $report;
if ($ENV{SCBF_BENCH_CSV})
{
	PostgreSQL::Test::Utils::append_to_file($ENV{SCBF_BENCH_CSV},
		"server_version_num,rows,shards,values,routed_ms,fanout_ms,ratio,tasks\n" . $csv);
}
done_testing();
