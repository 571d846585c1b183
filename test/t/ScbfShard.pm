# ScbfShard.pm: shared helpers of scbf's scale-out TAP tests (060 and 063
# Citus, 061 postgres_fdw).
#
# shard_node() starts a node (ScbfTest's start_node) that the other nodes
# can reach over TCP on 127.0.0.1 as well as by its Unix socket, with trust
# authentication on loopback.
#
# split_last_shard() splits a distributed table's last shard in two.
#
# citus_same() is scbf_same() for a Citus coordinator: the settings that
# force the plan must reach the shards' planners, which plain SETs on the
# coordinator do not, so each side runs in a transaction with SET LOCAL
# propagated to the workers (citus.propagate_set_commands = 'local'), and
# the plan is the EXPLAIN of every task (citus.explain_all_tasks).
package ScbfShard;

use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use ScbfTest;
use Exporter 'import';

our @EXPORT = qw(shard_node split_last_shard citus_same);

# shard_node($name, %params): start_node($name, %params) (e.g.
# allows_streaming => 'logical', conf => "lines"), listening on 127.0.0.1
# too, with trust on loopback.
sub shard_node
{
	my ($name, %params) = @_;
	return start_node($name, %params,
		conf => "listen_addresses = '127.0.0.1'\nmax_connections = 60\n" . ($params{conf} // ''),
		hba => "host all all 127.0.0.1/32 trust\nhost replication all 127.0.0.1/32 trust\n");
}

# split_last_shard($coordinator, $table): split $table's shard of the
# highest id at the middle of its hash range, both halves on the node that
# holds it (block_writes).
sub split_last_shard
{
	my ($coord, $table) = @_;
	my ($split, $nodeid) = split /\|/, $coord->safe_psql('postgres', qq{
		SELECT s.shardid, n.nodeid FROM pg_dist_shard s JOIN pg_dist_placement p USING (shardid)
		JOIN pg_dist_node n USING (groupid)
		WHERE s.logicalrelid = '$table'::regclass ORDER BY s.shardid DESC LIMIT 1});
	my $mid = $coord->safe_psql('postgres',
		"SELECT ((shardminvalue::bigint + shardmaxvalue::bigint) / 2)::int FROM pg_dist_shard WHERE shardid = $split");
	$coord->safe_psql('postgres',
		"SELECT citus_split_shard_by_split_points($split, ARRAY['$mid'], ARRAY[$nodeid, $nodeid], 'block_writes')");
	return;
}

# citus_same($coordinator, $dbname, $queries, %opt): for each query (as in
# scbf_same: a query or [query, rows] pairs; rows => N, '>0' or 'empty'),
# assert for the whole list, three times:
#
#   plan   the distributed EXPLAIN of the forced run (bitmap scans only on
#          every shard) has one task or more, and every task's plan has a
#          Bitmap Index Scan, each on a shard of an scbf index of the
#          coordinator (its name plus "_<shardid>");
#   rows   the index run and a run with sequential scans on the shards (whose
#          tasks must show a Seq Scan and no index scan) return the same rows
#          (count and a sum of row hashes);
#   count  the rows the test expects.
#
# Returns the row counts (a list for a list) and, in $opt{tasks} if given a
# reference, the number of tasks each forced plan had.
sub citus_same
{
	my ($node, $dbname, $queries, %opt) = @_;
	local $Test::Builder::Level = $Test::Builder::Level + 1;
	my ($name, @items) = ScbfTest::same_items('citus_same', $queries, %opt);
	die "citus_same: rows => 'any' is not supported" if grep { $_->[1] eq 'any' } @items;
	my $wrap = \&rows_hash;
	my $head = "SET citus.explain_all_tasks = on;\nSET citus.propagate_set_commands = 'local';\n"
	  . "SELECT '#scbf ' || coalesce(string_agg(c.relname, ' '), '') "
	  . "FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE a.amname = 'scbf';\n";
	my $forced = "BEGIN;\nSET LOCAL enable_seqscan = off; SET LOCAL enable_indexscan = off; SET LOCAL enable_bitmapscan = on;\n";
	my $seq = "BEGIN;\nSET LOCAL enable_seqscan = on; SET LOCAL enable_indexscan = off; SET LOCAL enable_bitmapscan = off;\n";
	for my $i (0 .. $#items)
	{
		my $q = $items[$i][0];
		$forced .= "\\echo '#plan $i'\nEXPLAIN (COSTS OFF) $q;\n\\echo '#end'\n"
		  . "SELECT '#index $i ' || (" . $wrap->($q) . ");\n";
		$seq .= "\\echo '#seqplan $i'\nEXPLAIN (COSTS OFF) $q;\n\\echo '#end'\n"
		  . "SELECT '#seq $i ' || (" . $wrap->($q) . ");\n";
	}
	my $out = $node->safe_psql($dbname, "$head$forced\nCOMMIT;\n$seq\nCOMMIT;\n");
	my (%scbf, @plan, @seqplan, @idx, @seq, $cur);
	for my $line (split /\n/, $out)
	{
		if ($line =~ /^#scbf (.*)$/) { $scbf{$_} = 1 for split / /, $1; }
		elsif ($line =~ /^#plan (\d+)$/) { $cur = \$plan[$1]; $$cur = ''; }
		elsif ($line =~ /^#seqplan (\d+)$/) { $cur = \$seqplan[$1]; $$cur = ''; }
		elsif ($line eq '#end') { undef $cur; }
		elsif ($line =~ /^#index (\d+) (\S+)$/) { $idx[$1] = $2; }
		elsif ($line =~ /^#seq (\d+) (\S+)$/) { $seq[$1] = $2; }
		elsif (defined $cur) { $$cur .= "$line\n"; }
	}
	my $is_scbf = sub {
		my ($n) = @_;
		return $n =~ /^(.*)_\d+$/ && $scbf{$1};
	};

	my (@badplan, @badrows, @badcount, @counts, @tasks);
	for my $i (0 .. $#items)
	{
		my ($q, $want) = @{ $items[$i] };
		my $p = $plan[$i] // '';
		my $sp = $seqplan[$i] // '';
		# one chunk per task: what follows each "Node: host=..." line
		my @chunks = split /^.*Node: host=.*$/m, $p;
		shift @chunks;
		push @tasks, scalar @chunks;
		my @bad = grep {
			my @scans = /Bitmap Index Scan on (\S+)/g;
			!@scans || grep { !$is_scbf->($_) } @scans;
		} @chunks;
		push @badplan, "$q: " . (@chunks ? scalar(@bad) . ' of ' . scalar(@chunks) . " tasks without an scbf scan\n" : "no task\n") . $p
		  if !@chunks || @bad;
		my @schunks = split /^.*Node: host=.*$/m, $sp;
		shift @schunks;
		push @badplan, "$q: the sequential run's tasks do not all scan sequentially\n$sp"
		  if !@schunks || grep { !/Seq Scan/ || /Index Scan/ } @schunks;
		my ($n) = split /:/, $seq[$i] // '';
		push @counts, $n;
		push @badrows, sprintf('%s: index %s, seqscan %s (rows:hash)', $q, $idx[$i] // '?', $seq[$i] // '?')
		  if !defined $idx[$i] || !defined $seq[$i] || $idx[$i] ne $seq[$i];
		my $bad = ScbfTest::count_problem($q, $want, $n);
		push @badcount, $bad if defined $bad;
	}
	my $ntasks = 0;
	$ntasks += $_ for @tasks;
	my $nrows = 0;
	$nrows += $_ // 0 for @counts;
	note("$name: " . scalar(@items) . " queries, $ntasks shard task plans with scbf checked, "
		  . "$nrows rows compared with the shards' sequential scans");
	my $more = sub { my @l = @_; return @l > 3 ? (@l[0 .. 2], sprintf('... and %d more', @l - 3)) : @l; };
	ok(!@badplan, "$name: every shard task scans an scbf index") or diag(join("\n", $more->(@badplan)));
	ok(!@badrows, "$name: index equals seqscan on the shards") or diag(join("\n", $more->(@badrows)));
	ok(!@badcount, "$name: row counts as expected") or diag(join("\n", $more->(@badcount)));
	@{ $opt{tasks} } = @tasks if ref $opt{tasks};
	return wantarray ? @counts : $counts[0];
}

1;
