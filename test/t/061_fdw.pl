# 061_fdw.pl: scbf behind postgres_fdw: a coordinator whose partitioned
# table has foreign tables on two shard servers as its partitions.
#
# CREATE INDEX on the parent skips foreign partitions, so the index is made
# on each shard by the loop the README gives (dblink_exec on each foreign
# partition's server).  For =, = ANY and two-column predicates the test
# shows that postgres_fdw pushes the condition down (EXPLAIN VERBOSE's
# Remote SQL), that each shard plans that remote SQL as a Bitmap Index Scan
# on its scbf index, and that the answers equal sequential scans on the
# shards, also after deletes and VACUUM there.  Routing by filters
# (scbf_route, scbf_lookup, one dblink round trip per shard server) reads
# only the partitions that may hold the value and answers as the sequential
# scan does, also for a row written on a shard directly.  A shard server
# that is down makes the query fail with an error naming it, routed or not.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use lib 'test/t';
use ScbfTest;
use ScbfShard;

my $coord = shard_node('coordinator');
my @shards = map { shard_node("shard$_") } 1 .. 2;

# the shards: two hash partitions of "orders" each, with scbf installed;
# the shards' planners force bitmap scans (the comparison's index side),
# sessions that want a sequential scan say so
for my $i (0 .. 1)
{
	my ($a, $b) = (2 * $i, 2 * $i + 1);
	$shards[$i]->safe_psql('postgres', qq{
		CREATE EXTENSION scbf;
		CREATE TABLE orders_p$a (id bigint, tenant int, customer_id int, status int, code text);
		CREATE TABLE orders_p$b (id bigint, tenant int, customer_id int, status int, code text);
		ALTER DATABASE postgres SET enable_seqscan = off;
		ALTER DATABASE postgres SET enable_indexscan = off;
	});
}
$coord->safe_psql('postgres', 'CREATE EXTENSION scbf; CREATE EXTENSION postgres_fdw; CREATE EXTENSION dblink;');
for my $i (0 .. 1)
{
	my ($n, $port) = ($i + 1, $shards[$i]->port);
	$coord->safe_psql('postgres', qq{
		CREATE SERVER shard$n FOREIGN DATA WRAPPER postgres_fdw
			OPTIONS (host '127.0.0.1', port '$port', dbname 'postgres');
		CREATE USER MAPPING FOR CURRENT_USER SERVER shard$n;
	});
}
$coord->safe_psql('postgres', q{
	CREATE TABLE orders (id bigint, tenant int, customer_id int, status int, code text)
		PARTITION BY HASH (tenant);
	CREATE FOREIGN TABLE orders_p0 PARTITION OF orders FOR VALUES WITH (MODULUS 4, REMAINDER 0) SERVER shard1;
	CREATE FOREIGN TABLE orders_p1 PARTITION OF orders FOR VALUES WITH (MODULUS 4, REMAINDER 1) SERVER shard1;
	CREATE FOREIGN TABLE orders_p2 PARTITION OF orders FOR VALUES WITH (MODULUS 4, REMAINDER 2) SERVER shard2;
	CREATE FOREIGN TABLE orders_p3 PARTITION OF orders FOR VALUES WITH (MODULUS 4, REMAINDER 3) SERVER shard2;
	-- postgres_fdw sends the rows 1000 at a time (one at a time by default)
	ALTER SERVER shard1 OPTIONS (ADD batch_size '1000');
	ALTER SERVER shard2 OPTIONS (ADD batch_size '1000');
	INSERT INTO orders SELECT g, g % 64, (g % 64) * 1000 + (g / 64) % 40, g % 7, 'c' || (g % 3001)
	FROM generate_series(1, 40000) g;
	ALTER SERVER shard1 OPTIONS (DROP batch_size);
	ALTER SERVER shard2 OPTIONS (DROP batch_size);
});

# CREATE INDEX on the parent does nothing for foreign partitions ...
$coord->safe_psql('postgres', 'CREATE INDEX orders_cust ON orders USING scbf (customer_id)');
my $on_shards = sub {
	return join ' ', map { $_->safe_psql('postgres', q{SELECT count(*) FROM pg_index i
		JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam
		WHERE a.amname = 'scbf' AND i.indisvalid}) } @shards;
};
is($on_shards->(), '0 0', 'CREATE INDEX on the parent skips the foreign partitions');
# ... so this loop (README, "Sharding and scale-out") makes it on each shard
my $everywhere = q{
DO $$
DECLARE
	p record;
BEGIN
	FOR p IN
		SELECT s.srvname, c.relname,
			coalesce((SELECT substr(o, 13) FROM unnest(ft.ftoptions) o WHERE o LIKE 'schema\_name=%'), 'public') AS nsp,
			coalesce((SELECT substr(o, 12) FROM unnest(ft.ftoptions) o WHERE o LIKE 'table\_name=%'), c.relname) AS rel
		FROM pg_partition_tree('orders') t
		JOIN pg_class c ON c.oid = t.relid
		JOIN pg_foreign_table ft ON ft.ftrelid = t.relid
		JOIN pg_foreign_server s ON s.oid = ft.ftserver
	LOOP
		PERFORM dblink_exec(p.srvname, format(
			'CREATE INDEX IF NOT EXISTS %I ON %I.%I USING scbf (customer_id)',
			p.rel || '_cust', p.nsp, p.rel));
		PERFORM dblink_exec(p.srvname, format(
			'CREATE INDEX IF NOT EXISTS %I ON %I.%I USING scbf (status, code) WITH (pages_per_segment = 8)',
			p.rel || '_multi', p.nsp, p.rel));
		PERFORM dblink_exec(p.srvname, format('ANALYZE %I.%I', p.nsp, p.rel));
	END LOOP;
END
$$};
$coord->safe_psql('postgres', $everywhere);
is($on_shards->(), '4 4', 'the loop makes both indexes on every foreign partition');
$coord->safe_psql('postgres', $everywhere);
is($on_shards->(), '4 4', 'and running it again changes nothing');

# fdw_same: the remote SQL of every Foreign Scan has the condition; each
# shard plans it with scbf; the coordinator's answer equals the shards'
# sequential scans.  One psql session per node for the whole list: the
# coordinator's plans and answers, then per shard the plans of the remote
# SQL sent to it (at the shard's defaults: bitmap scans only) and, with
# sequential scans, each query on each of its partitions.
my $wrap = \&rows_hash;
my ($nplans, $nrows) = (0, 0);
sub fdw_same
{
	my ($queries, $name) = @_;
	local $Test::Builder::Level = $Test::Builder::Level + 1;
	my @items = map { ref $_ ? [@$_] : [ $_, '>0' ] } @$queries;
	my (@badpush, @badplan, @badrows, @badcount);
	my (@plan, @got, @remote, %rplan, %seq, $cur);
	my $out = $coord->safe_psql('postgres', join '', map {
		"\\echo '#plan $_'\nEXPLAIN (VERBOSE, COSTS OFF) $items[$_][0];\n"
		  . "SELECT '#got $_ ' || (" . $wrap->($items[$_][0]) . ");\n" } 0 .. $#items);
	for my $line (split /\n/, $out)
	{
		if ($line =~ /^#plan (\d+)$/) { $cur = $1; $plan[$cur] = ''; }
		elsif ($line =~ /^#got (\d+) (\S+)$/) { $got[$1] = $2; undef $cur; }
		elsif (defined $cur) { $plan[$cur] .= "$line\n"; }
	}
	for my $i (0 .. $#items)
	{
		my $q = $items[$i][0];
		my $p = $plan[$i] // '';
		$remote[$i] = [ $p =~ /Remote SQL: (.*)$/mg ];
		push @badpush, "$q: no foreign scan\n$p" unless @{ $remote[$i] };
		push @badpush, "$q: condition not pushed down: $_" for grep { !/ WHERE .*(customer_id|code)/ } @{ $remote[$i] };
	}
	for my $s (0 .. 1)
	{
		my @rels = map { "orders_p$_" } (2 * $s, 2 * $s + 1);
		my ($plans, $seqs) = ('', "SET enable_seqscan = on; SET enable_bitmapscan = off;\n");
		for my $i (0 .. $#items)
		{
			for my $k (0 .. $#{ $remote[$i] })
			{
				my ($rel) = $remote[$i][$k] =~ /FROM public\.(orders_p\d)/;
				next unless $rel && grep { $_ eq $rel } @rels;
				$plans .= "\\echo '#rplan $i $k'\nEXPLAIN (COSTS OFF) $remote[$i][$k];\n";
			}
			(my $local = $items[$i][0]) =~ s/\borders\b/%s/;
			$seqs .= "SELECT '#seq $i $_ ' || (" . $wrap->(sprintf($local, $_)) . ");\n" for @rels;
		}
		undef $cur;
		for my $line (split /\n/, $shards[$s]->safe_psql('postgres', $plans . $seqs))
		{
			if ($line =~ /^#rplan (\d+) (\d+)$/) { $cur = \$rplan{"$1 $2"}; $$cur = ''; }
			elsif ($line =~ /^#seq (\d+) (\S+) (\S+)$/) { $seq{$1}{$2} = $3; undef $cur; }
			elsif (defined $cur) { $$cur .= "$line\n"; }
		}
	}
	for my $i (0 .. $#items)
	{
		my ($q, $want) = @{ $items[$i] };
		for my $k (0 .. $#{ $remote[$i] })
		{
			my ($rel) = $remote[$i][$k] =~ /FROM public\.(orders_p\d)/;
			my $sp = $rplan{"$i $k"} // "(no plan)\n";
			my @scans = $sp =~ /Bitmap Index Scan on (\S+)/g;
			push @badplan, "$q on " . ($rel // '?') . ": $sp"
			  if !$rel || !@scans || grep { !/^${rel}_(cust|multi)$/ } @scans;
			$nplans++;
		}
		my ($n, $h) = (0, 0);
		for my $rel (map { "orders_p$_" } 0 .. 3)
		{
			my ($pn, $ph) = split /:/, $seq{$i}{$rel} // '?:?';
			($n, $h) = ($n + $pn, $h + $ph);
		}
		push @badrows, "$q: coordinator " . ($got[$i] // '?') . ", shards' seqscans $n:$h"
		  if !defined $got[$i] || $got[$i] ne "$n:$h" || grep { !defined $seq{$i}{"orders_p$_"} } 0 .. 3;
		$nrows += $n;
		push @badcount, "$q: $n rows, expected " . ($want eq 'empty' ? 'none' : 'some')
		  if ($want eq 'empty') != ($n == 0);
	}
	ok(!@badpush, "$name: conditions pushed down to the shards") or diag(join "\n", @badpush);
	ok(!@badplan, "$name: the shards plan them with scbf") or diag(join "\n", @badplan);
	ok(!@badrows, "$name: answers equal the shards' sequential scans") or diag(join "\n", @badrows);
	ok(!@badcount, "$name: row counts as expected") or diag(join "\n", @badcount);
}

my @queries = (
	'SELECT * FROM orders WHERE customer_id = 5012',
	'SELECT * FROM orders WHERE customer_id = ANY (ARRAY[1001, 33017, 63039])',
	'SELECT * FROM orders WHERE customer_id IN (7003, 7004)',
	q{SELECT * FROM orders WHERE status = 2 AND code = 'c1234'},
	q{SELECT * FROM orders WHERE status = 5 AND code = ANY (ARRAY['c7', 'c2999', 'c1500'])},
	[ 'SELECT * FROM orders WHERE customer_id = 999999', 'empty' ]);
fdw_same(\@queries, 'after the build');

# deletes and VACUUM on the shards, a row written on a shard directly
$coord->safe_psql('postgres', 'DELETE FROM orders WHERE customer_id = 1001');
$_->safe_psql('postgres', 'VACUUM') for @shards;
my $p = $coord->safe_psql('postgres', q{SELECT tableoid::regclass FROM orders WHERE tenant = 5 LIMIT 1});
my ($direct) = $shards[ $p =~ /p[01]/ ? 0 : 1 ];
$direct->safe_psql('postgres', "INSERT INTO $p VALUES (1, 5, 424242, 1, 'direct')");
fdw_same([ @queries, 'SELECT * FROM orders WHERE customer_id = 424242',
	[ 'SELECT * FROM orders WHERE customer_id = 1001', 'empty' ] ], 'after deletes, VACUUM and a direct write');
note("shard plans checked: $nplans; rows compared with the shards' sequential scans: $nrows");

# routing by filters: the partitions that hold the value (the shards'
# sequential scans say which) must be read, the others only as the
# filters' false positives; scbf_lookup's rows equal those sequential scans
my $seq_on_shards = sub {
	my ($col, $val) = @_;
	my ($n, $h, @holders) = (0, 0);
	for my $i (0 .. 1)
	{
		my @rels = map { "orders_p$_" } (2 * $i, 2 * $i + 1);
		my @answers = split /\n/, $shards[$i]->safe_psql('postgres',
			"SET enable_seqscan = on; SET enable_bitmapscan = off;\n"
			  . join('', map { $wrap->("SELECT * FROM $_ WHERE $col = '$val'") . ";\n" } @rels));
		die "seq_on_shards: " . scalar(@answers) . " answers from shard" . ($i + 1) unless @answers == 2;
		for my $rel (@rels)
		{
			my ($pn, $ph) = split /:/, shift @answers;
			($n, $h) = ($n + $pn, $h + $ph);
			push @holders, $rel if $pn > 0;
		}
	}
	return ("$n:$h", @holders);
};
my $route = sub {
	my ($col, $val, $holders_want, $name) = @_;
	my ($total, $maybe) = split /\|/, $coord->safe_psql('postgres', qq{
		SELECT count(*), string_agg(target, ' ' ORDER BY target) FILTER (WHERE may_contain IS NOT false)
		FROM scbf_route('orders', '$col', '$val')});
	my (undef, @h) = $seq_on_shards->($col, $val);
	my %m = map { $_ => 1 } split / /, $maybe // '';
	my @missed = grep { !$m{$_} } @h;
	is(scalar(@h), $holders_want, "$name: $col = $val is in $holders_want of $total partitions");
	is("@missed", '', "$name: route reads every partition that holds it");
	cmp_ok(keys(%m) - @h, '<=', 1, "$name: route reads at most one partition more (a false positive)");
	note("route $col = $val: $total partitions, " . scalar(keys %m) . ' to read, ' . scalar(@h) . ' hold it');
};
$route->('customer_id', '5012', 1, 'a present customer');
$route->('customer_id', '999999', 0, 'an absent customer');
$route->('customer_id', '1001', 0, 'a deleted and vacuumed customer');
$route->('customer_id', '424242', 1, 'a row written on a shard directly');
$route->('code', 'c77', 4, 'a code everywhere');
for my $v ([ 'customer_id', '5012' ], [ 'customer_id', '999999' ], [ 'customer_id', '424242' ], [ 'code', 'c77' ])
{
	my ($col, $val) = @$v;
	my $got = $coord->safe_psql('postgres', $wrap->("SELECT * FROM scbf_lookup(NULL::orders, '$col', '$val')"));
	my ($want) = $seq_on_shards->($col, $val);
	is($got, $want, "scbf_lookup $col = $val equals the shards' sequential scans");
}

# a shard down: an error naming it, never a shorter answer, routed or not
$shards[1]->stop;
for my $q ('SELECT count(*) FROM orders WHERE customer_id = 5012',
	q{SELECT count(*) FROM scbf_lookup(NULL::orders, 'customer_id', '5012')})
{
	my ($ret, $out, $err) = $coord->psql('postgres', $q);
	isnt($ret, 0, "shard2 down: $q fails");
	like($err, qr/could not connect to server "shard2"|shard2/, 'with an error naming the shard server');
	is($out, '', 'and no answer');
}
is($coord->safe_psql('postgres', q{SELECT count(*) FROM scbf_route('orders', 'customer_id', '5012')
	WHERE server = 'shard2' AND may_contain IS NULL}), '2',
	'scbf_route: the partitions of the shard that did not answer are "unknown" (read all the same)');
$shards[1]->start;
is($coord->safe_psql('postgres', 'SELECT count(*) > 0 FROM orders WHERE customer_id = 5012'), 't',
	'shard2 back: the query answers again');

done_testing();
