# ScbfTest.pm: shared helpers of scbf's TAP tests.
#
# new_node() wraps PostgreSQL::Test::Cluster->new and init: every cluster
# gets UTF8 and the C.UTF-8 locale whatever the caller's environment (LANG
# unset, or any other locale), and when SCBF_EXTENSION_DESTDIR is set (a
# private "make install DESTDIR=..."), the node loads scbf from there instead
# of the server's library directory.
#
# scbf_same() is the one comparison of index answers with a sequential scan
# (the TAP twin of sql/include/scbf_same.sql): every TAP test that compares
# uses it.
package ScbfTest;

use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use Test::More;
use Exporter 'import';

our @EXPORT = qw(new_node scbf_same);

# Create and initialize a node; extra arguments go to init().  initdb gets a
# fixed encoding and locale; an "extra" argument of the caller comes after
# them (and so wins).
sub new_node
{
	my ($name, %params) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);
	$params{extra} = [ '--encoding=UTF8', '--locale=C.UTF-8', @{ $params{extra} // [] } ];
	# initdb enables data checksums by default from 18; the tests that edit
	# index pages in place (020) need them off, as on 15 and 17
	push @{ $params{extra} }, '--no-data-checksums'
	  if $node->pg_version >= 18;
	$node->init(%params);
	if (my $d = $ENV{SCBF_EXTENSION_DESTDIR})
	{
		# the server's library directory (/usr/lib/postgresql/N/lib) under $d
		my $pkglibdir = $node->config_data('--pkglibdir');
		$node->append_conf('postgresql.conf',
			"extension_destdir = '$d'\n"
			  . "dynamic_library_path = '$d$pkglibdir:\$libdir'\n");
	}
	return $node;
}

# scbf_same($node, $dbname, $queries, %opt): run each query with the index
# forced (bitmap scans only) and with a sequential scan, in one psql session
# per side, and assert for the whole list, three times:
#
#   plan   the EXPLAIN of the forced run has a Bitmap Index Scan, and every
#          Bitmap Index Scan of it is on an scbf index (plan => 'seqscan'
#          records a deliberate case where no scbf index can serve the query:
#          then the plan must have none);
#   rows   the index and the sequential scan return the same rows (count and
#          a sum of row hashes);
#   count  each query returns the rows the test expects:
#            rows => N         exactly N rows
#            rows => '>0'      at least one (a present key: the default)
#            rows => 'empty'   none: a comparison that can only come out
#                              empty, for where emptiness is the point (a
#                              deleted or absent value); the name says so
#            rows => 'any'     depends on the run (concurrent tests): then
#                              nonempty => M says how many of these queries
#                              at least must return rows, so that the
#                              comparison cannot pass on empty answers alone
#
# $queries is one query, or a reference to a list whose items are queries
# or [query, rows] pairs (the pair's rows overrides the option).  With
# reference => $other_node, the sequential scan runs on that node (a
# standby's index against its primary's heap).  Returns the row count (a
# list of counts for a list).
sub scbf_same
{
	my ($node, $dbname, $queries, %opt) = @_;
	local $Test::Builder::Level = $Test::Builder::Level + 1;
	my @items = map { ref $_ ? [@$_] : [ $_, undef ] } (ref $queries ? @$queries : ($queries));
	my $default = $opt{rows} // '>0';
	$_->[1] //= $default for @items;
	$_->[0] =~ s/;\s*$// for @items;
	my @any = grep { $_->[1] eq 'any' } @items;
	die "scbf_same: rows => 'any' needs nonempty => M" if @any && !defined $opt{nonempty};
	for (@items)
	{
		die "scbf_same: rows must be N, '>0', 'empty' or 'any', not '$_->[1]'"
		  unless $_->[1] =~ /^(\d+|>0|empty|any)$/;
	}
	my $seqscan_plan = ($opt{plan} // 'index') eq 'seqscan';
	my $nempty = grep { $_->[1] eq 'empty' || $_->[1] eq '0' } @items;
	my $name = $opt{name}
	  // (@items == 1 ? $items[0][0] : scalar(@items) . ' queries from ' . $items[0][0]);
	$name .= " ($nempty expected empty)" if $nempty;

	my $wrap = sub {
		"SELECT count(*) || ':' || coalesce(sum(hashtext(s::text)::int8), 0) FROM ($_[0]) s";
	};
	my $forced = "SET enable_seqscan = off; SET enable_indexscan = off; SET enable_bitmapscan = on;\n"
	  . "SELECT '#scbf ' || coalesce(string_agg(quote_ident(c.relname), ' '), '') "
	  . "FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE a.amname = 'scbf';\n";
	my $seq = "SET enable_seqscan = on; SET enable_indexscan = off; SET enable_bitmapscan = off;\n";
	for my $i (0 .. $#items)
	{
		my $q = $items[$i][0];
		$forced .= "\\echo '#plan $i'\nEXPLAIN (COSTS OFF) $q;\n"
		  . "SELECT '#index $i ' || (" . $wrap->($q) . ");\n";
		$seq .= "SELECT '#seq $i ' || (" . $wrap->($q) . ");\n";
	}
	my (%scbf, @plan, @idx, @seq);
	my $cur;
	my $ref = $opt{reference};
	my $out = $node->safe_psql($dbname, $ref ? $forced : $forced . $seq);
	$out .= "\n" . $ref->safe_psql($dbname, $seq) if $ref;
	for my $line (split /\n/, $out)
	{
		if ($line =~ /^#scbf (.*)$/) { $scbf{$_} = 1 for split / /, $1; }
		elsif ($line =~ /^#plan (\d+)$/) { $cur = $1; $plan[$cur] = ''; }
		elsif ($line =~ /^#index (\d+) (\S+)$/) { $idx[$1] = $2; undef $cur; }
		elsif ($line =~ /^#seq (\d+) (\S+)$/) { $seq[$1] = $2; }
		elsif (defined $cur) { $plan[$cur] .= "$line\n"; }
	}

	my (@badplan, @badrows, @badcount);
	my $nonempty_any = 0;
	my @counts;
	for my $i (0 .. $#items)
	{
		my ($q, $want) = @{ $items[$i] };
		my @scans = ($plan[$i] // '') =~ /Bitmap Index Scan on (\S+)/g;
		my $uses = @scans && !grep { !$scbf{$_} } @scans;
		my $noscbf = !grep { $scbf{$_} } @scans;
		push @badplan, "$q\n" . ($plan[$i] // "(no plan)\n")
		  if $seqscan_plan ? !$noscbf : !$uses;
		my ($n) = split /:/, $seq[$i] // '';
		push @counts, $n;
		if (!defined $idx[$i] || !defined $seq[$i] || $idx[$i] ne $seq[$i])
		{
			push @badrows, sprintf('%s: index %s, seqscan %s (rows:hash)', $q,
				$idx[$i] // '?', $seq[$i] // '?');
		}
		if (!defined $n) { push @badcount, "$q: no answer"; next; }
		if ($want eq 'any') { $nonempty_any++ if $n > 0; }
		elsif ($want eq '>0') { push @badcount, "$q: $n rows, expected some" if $n == 0; }
		elsif ($want eq 'empty') { push @badcount, "$q: $n rows, expected none" if $n != 0; }
		elsif ($n != $want) { push @badcount, "$q: $n rows, expected $want"; }
	}
	if (@any && $nonempty_any < $opt{nonempty})
	{
		push @badcount, sprintf('only %d of the %d queries whose counts depend on the run returned rows, expected at least %d',
			$nonempty_any, scalar(@any), $opt{nonempty});
	}

	my $more = sub { my @l = @_; return @l > 5 ? (@l[0 .. 4], sprintf('... and %d more', @l - 5)) : @l; };
	ok(!@badplan, "$name: " . ($seqscan_plan ? 'no scbf index in the plan, as intended' : 'plan uses the scbf index'))
	  or diag(join("\n", $more->(@badplan)));
	ok(!@badrows, "$name: index equals seqscan") or diag(join("\n", $more->(@badrows)));
	ok(!@badcount, "$name: row counts as expected") or diag(join("\n", $more->(@badcount)));
	return wantarray ? @counts : $counts[0];
}

1;
