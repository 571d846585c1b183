# The band as a table grows from empty, on a primary and a streaming
# standby: relayouts into freed pages (the band map) and a regeometry (a
# new m, written from the ledgers), each replayed while sessions that stay
# open on both servers keep probing.  Those sessions cache the map of the
# band they read last (src/README, "The band map"): each probe must notice
# a new band and answer as a sequential scan does in the same snapshot.
# A second table grows so with scbf.test_band_filters = 16 on both servers:
# its folds open band after band (src/README, "Growth beyond one band"),
# and, with scbf.test_group_bands = 8, group after group of their
# summaries (src/README, "Summaries of bands"), each replayed while the
# sessions probe.  A third grows so with hash_bits = 40 and folds into the
# delta (scbf.delta_band_pages = 0): ledgers, pending and delta entries of
# 40-bit hashes, replayed, then a crash with entries in the pending area.
# A fourth grows with a group a band (scbf.test_group_bands = 1) and a
# VACUUM every third round: VACUUM opens the top over the groups (src/README,
# "Step 5, the order to build it in"), folds cover the groups that open
# within its width, VACUUM writes it anew, wider, past it; replayed while
# the sessions probe.
# WAL is checked page by page on replay (wal_consistency_checking).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use lib 'test/t';
use ScbfTest;

my $primary = new_node('primary', allows_streaming => 1);
$primary->append_conf('postgresql.conf',
	"wal_consistency_checking = 'generic'\nautovacuum = off\n");
$primary->start;
$primary->backup('bkp');
my $standby = PostgreSQL::Test::Cluster->new('standby');
# the backup holds the primary's postgresql.conf, new_node()'s settings too
$standby->init_from_backup($primary, 'bkp', has_streaming => 1);
$standby->start;

sub q1 { return $primary->safe_psql('postgres', $_[0]); }

q1('CREATE EXTENSION scbf');

# sessions that stay open: their probes use the band map they cached
my %sess = (primary => $primary->background_psql('postgres'),
	standby => $standby->background_psql('postgres'));

# grow($t, $opts, $vacuum_every): table $t (id, a: 20 rows a value, s:
# unique text), indexes ${t}_a and ${t}_s (more options in $opts) built
# empty, grown by 10 rounds of 10,000 rows, each folded (and vacuumed every
# $vacuum_every rounds, if given), replayed, and probed by the sessions
# kept open on both servers against a sequential scan in the same
# snapshot; returns the indexes' layouts (m, the highest band serial, the
# bands of rows, groups, the top's serial) before and after
sub grow
{
	my ($t, $opts, $vacuum_every) = @_;
	$opts //= '';
	q1(qq{
		CREATE TABLE $t (id int, a int, s text) WITH (autovacuum_enabled = off);
		CREATE INDEX ${t}_a ON $t USING scbf (a) WITH (pages_per_segment = 8$opts);
		CREATE INDEX ${t}_s ON $t USING scbf (s) WITH (pages_per_segment = 8$opts);
	});
	$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));
	my $layout = qq{SELECT string_agg(format('%s m %s serial %s bands %s groups %s top %s', indexrelid::regclass, i.slice_counters,
			(SELECT max(serial) FROM scbf_pages(indexrelid) WHERE kind = 'band map'),
			(SELECT count(DISTINCT serial) FROM scbf_pages(indexrelid) WHERE kind = 'rows'),
			(SELECT format('%s of %s', count(*) FILTER (WHERE kind = 'summary map'), count(*) FILTER (WHERE kind = 'band map'))
			 FROM scbf_pages(indexrelid) WHERE block_index IS NOT NULL),
			(SELECT coalesce(max(serial), 0) FROM scbf_pages(indexrelid) WHERE kind = 'top map')), ', ' ORDER BY 1)
		FROM pg_index, scbf_index_info(indexrelid) i WHERE indrelid = '$t'::regclass};
	$sess{$_}->query_safe("SET enable_seqscan = off; SET enable_indexscan = off; SELECT count(*) FROM $t WHERE a = 1")
	  for keys %sess;

	my $rounds = 10;
	my %ok = (primary => 0, standby => 0);
	my @wrong;
	my $first = q1($layout);
	for my $r (1 .. $rounds)
	{
		q1("INSERT INTO $t SELECT g, g / 20, md5(g::text) FROM generate_series("
			  . (($r - 1) * 10000 + 1) . ", " . ($r * 10000) . ") g");
		q1("SELECT scbf_clean_pending('${t}_a'), scbf_clean_pending('${t}_s')");
		q1("VACUUM $t") if $vacuum_every && $r % $vacuum_every == 0;
		$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));
		my $v = $r * 500 - 7;
		my $q = "SELECT coalesce(string_agg(id::text, ',' ORDER BY id), '') FROM $t "
		  . "WHERE a IN (0, $v, " . ($v + 1) . ") OR s = md5('" . ($r * 9999) . "')";
		for my $side (sort keys %sess)
		{
			my $out = $sess{$side}->query_safe(qq{
				BEGIN ISOLATION LEVEL REPEATABLE READ;
				SET LOCAL enable_seqscan = off;
				SET LOCAL enable_indexscan = off;
				$q;
				SET LOCAL enable_seqscan = on;
				SET LOCAL enable_bitmapscan = off;
				$q;
				COMMIT;
			});
			my ($by_index, $by_seqscan) = grep { /^[\d,]+$/ } split /\n/, $out;
			if (defined $by_seqscan && $by_index eq $by_seqscan && $by_index ne '')
			{
				$ok{$side}++;
			}
			else
			{
				push @wrong, "$side, round $r: $q: index [" . ($by_index // '') . '] seqscan [' . ($by_seqscan // '') . ']';
			}
		}
	}
	is(scalar(@wrong), 0, "$t: probes of sessions kept open, on the primary and the standby, equal a sequential scan each round")
	  or diag(join("\n", @wrong));
	is("$ok{primary} $ok{standby}", "$rounds $rounds", "$t: every round was probed on both servers");
	my $last = q1($layout);
	note("$t: layout at the start: $first; at the end: $last");
	my %m0 = $first =~ /(\w+) m (\d+)/g;
	my %m1 = $last =~ /(\w+) m (\d+)/g;
	my %serial = $last =~ /(\w+) m \d+ serial (\d+)/g;
	my %bands = $last =~ /(\w+) m \d+ serial \d+ bands (\d+)/g;
	# groups, and the live bands they summarize
	my %groups;
	while ($last =~ /(\w+) m \d+ serial \d+ bands \d+ groups (\d+) of (\d+)/g)
	{
		$groups{$1} = [ $2, $3 ];
	}
	my %top = $last =~ /(\w+) m \d+ serial \d+ bands \d+ groups \d+ of \d+ top (\d+)/g;

	# the same answers from fresh sessions, and the verifier, on both servers
	for my $node ($primary, $standby)
	{
		scbf_same($node, 'postgres', [ "SELECT * FROM $t WHERE a IN (1, 2500, 4999)",
			"SELECT * FROM $t WHERE s IN (md5('1'), md5('55555'), md5('99999'))" ],
			name => $node->name . ": $t after the growth");
		verify_clean($node, "${t}_$_", $node->name . ": $t after the growth") for qw(a s);
	}
	return (\%m0, \%m1, \%serial, \%bands, \%groups, \%top);
}

# 1. one band (no band limit): relayouts and regeometries
my ($m0, $m1, $serial) = grow('g');
cmp_ok($m1->{g_a}, '<', $m0->{g_a}, "g_a (20 rows a value): a regeometry chose a smaller m ($m0->{g_a} -> $m1->{g_a})");
cmp_ok($m1->{g_s}, '>', $m0->{g_s}, "g_s (unique text): a regeometry chose a larger m ($m0->{g_s} -> $m1->{g_s})");
cmp_ok($serial->{$_}, '>=', 3, "$_: the band was written anew at least twice (serial $serial->{$_})") for qw(g_a g_s);

# 2. bands of at most 16 filters and groups of at most 8 bands
# (scbf.test_band_filters, scbf.test_group_bands on both servers): the
# folds open band after band, and the groups that summarize them, replayed
# while the sessions probe
for my $node ($primary, $standby)
{
	$node->append_conf('postgresql.conf', "scbf.test_band_filters = 16\nscbf.test_group_bands = 8\n");
	$node->reload;
	$node->poll_query_until('postgres', "SELECT current_setting('scbf.test_band_filters') = '16' "
		  . "AND current_setting('scbf.test_group_bands') = '8'")
	  or die $node->name . ': scbf.test_band_filters = 16 did not take effect';
}
my ($bands, $groups);
(undef, undef, undef, $bands, $groups) = grow('h');
cmp_ok($bands->{$_}, '>', 3, "$_: the growth opened band after band ($bands->{$_} bands of 16 filters)") for qw(h_a h_s);
is($groups->{$_}[0], int(($groups->{$_}[1] + 7) / 8),
	"$_: a group summarizes every 8 bands ($groups->{$_}[0] groups of $groups->{$_}[1] bands)") for qw(h_a h_s);

# 3. the same with hash_bits = 40, the folds' keys going to the delta
for my $node ($primary, $standby)
{
	$node->append_conf('postgresql.conf', "scbf.delta_band_pages = 0\n");
	$node->reload;
	$node->poll_query_until('postgres', "SELECT current_setting('scbf.delta_band_pages') = '0'")
	  or die $node->name . ': scbf.delta_band_pages = 0 did not take effect';
}
(undef, undef, undef, $bands) = grow('w', ', hash_bits = 40');
cmp_ok($bands->{$_}, '>', 3, "$_ (40-bit hashes): the growth opened band after band ($bands->{$_} bands)")
  for qw(w_a w_s);
is(q1(q{SELECT count(*) FROM pg_index, scbf_pages(indexrelid)
	WHERE indrelid = 'w'::regclass AND kind = 'delta' AND entries > 0}) > 0, 1,
	'w: the delta holds entries of 40-bit hashes');
# entries in the pending area when the server crashes
q1("INSERT INTO w SELECT g, g / 20, md5(g::text) FROM generate_series(100001, 103000) g");
is(q1("SELECT entries_pending > 0 FROM scbf_index_info('w_s')"), 't', 'w: entries wait in the pending area');

# 4. a group a band, and a VACUUM every third round: the top over the
# groups, opened, kept by the folds, written anew wider
for my $node ($primary, $standby)
{
	$node->append_conf('postgresql.conf', "scbf.test_group_bands = 1\n");
	$node->reload;
	$node->poll_query_until('postgres', "SELECT current_setting('scbf.test_group_bands') = '1'")
	  or die $node->name . ': scbf.test_group_bands = 1 did not take effect';
}
my $top;
(undef, undef, undef, $bands, $groups, $top) = grow('v', '', 3);
is($groups->{$_}[0], $groups->{$_}[1], "$_: a group a band ($groups->{$_}[0] groups)") for qw(v_a v_s);
cmp_ok($groups->{$_}[0], '>', 3, "$_: several groups") for qw(v_a v_s);
cmp_ok($top->{$_}, '>', 0, "$_: VACUUM opened the top over them (serial $top->{$_})") for qw(v_a v_s);

$sess{$_}->quit for keys %sess;
$primary->stop('immediate');
$primary->start;
$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));
for my $node ($primary, $standby)
{
	scbf_same($node, 'postgres', [ "SELECT * FROM w WHERE a IN (1, 2500, 5000, 5149)",
		"SELECT * FROM w WHERE s IN (md5('1'), md5('55555'), md5('100001'), md5('102999'))" ],
		name => $node->name . ': w (40-bit hashes) after the crash');
	verify_clean($node, "w_$_", $node->name . ': w (40-bit hashes) after the crash') for qw(a s);
}
q1("SELECT scbf_clean_pending('w_a'), scbf_clean_pending('w_s')");
$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));
scbf_same($standby, 'postgres', [ "SELECT * FROM w WHERE s IN (md5('100001'), md5('102999'), md5('103001'))" ],
	name => 'standby: w after the pending area was folded');

$standby->stop;
$primary->stop;
done_testing();
