# The band as a table grows from empty, on a primary and a streaming
# standby: relayouts into freed pages (the band map) and a regeometry (a
# new m, written from the ledgers), each replayed while sessions that stay
# open on both servers keep probing.  Those sessions cache the map of the
# band they read last (src/README, "The band map"): each probe must notice
# a new band and answer as a sequential scan does in the same snapshot.
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

q1(q{
	CREATE EXTENSION scbf;
	CREATE TABLE g (id int, a int, s text) WITH (autovacuum_enabled = off);
	CREATE INDEX g_a ON g USING scbf (a) WITH (pages_per_segment = 8);
	CREATE INDEX g_s ON g USING scbf (s) WITH (pages_per_segment = 8);
});
my $layout = q{SELECT string_agg(format('%s m %s serial %s', indexrelid::regclass, i.slice_counters,
		(SELECT max(serial) FROM scbf_pages(indexrelid) WHERE kind = 'band map')), ', ' ORDER BY 1)
	FROM pg_index, scbf_index_info(indexrelid) i WHERE indrelid = 'g'::regclass};

# sessions that stay open: their probes use the band map they cached
my %sess = (primary => $primary->background_psql('postgres'),
	standby => $standby->background_psql('postgres'));
$sess{$_}->query_safe("SET enable_seqscan = off; SET enable_indexscan = off; SELECT count(*) FROM g WHERE a = 1")
  for keys %sess;

my $rounds = 10;
my %ok = (primary => 0, standby => 0);
my @wrong;
my $first = q1($layout);
for my $r (1 .. $rounds)
{
	q1("INSERT INTO g SELECT g, g / 20, md5(g::text) FROM generate_series("
		  . (($r - 1) * 10000 + 1) . ", " . ($r * 10000) . ") g");
	q1("SELECT scbf_clean_pending('g_a'), scbf_clean_pending('g_s')");
	$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));
	my $v = $r * 500 - 7;
	my $q = "SELECT coalesce(string_agg(id::text, ',' ORDER BY id), '') FROM g "
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
is(scalar(@wrong), 0, 'probes of sessions kept open, on the primary and the standby, equal a sequential scan each round')
  or diag(join("\n", @wrong));
is("$ok{primary} $ok{standby}", "$rounds $rounds", 'every round was probed on both servers');
my $last = q1($layout);
note("layout at the start: $first; at the end: $last");
my %m0 = $first =~ /(g_\w+) m (\d+)/g;
my %m1 = $last =~ /(g_\w+) m (\d+)/g;
my %serial = $last =~ /(g_\w+) m \d+ serial (\d+)/g;
cmp_ok($m1{g_a}, '<', $m0{g_a}, "g_a (20 rows a value): a regeometry chose a smaller m ($m0{g_a} -> $m1{g_a})");
cmp_ok($m1{g_s}, '>', $m0{g_s}, "g_s (unique text): a regeometry chose a larger m ($m0{g_s} -> $m1{g_s})");
cmp_ok($serial{$_}, '>=', 3, "$_: the band was written anew at least twice (serial $serial{$_})") for qw(g_a g_s);

# the same answers on the standby from fresh sessions, and the verifier
# on both servers
for my $node ($primary, $standby)
{
	scbf_same($node, 'postgres', [ 'SELECT * FROM g WHERE a IN (1, 2500, 4999)',
		"SELECT * FROM g WHERE s IN (md5('1'), md5('55555'), md5('99999'))" ],
		name => $node->name . ': after the growth');
	for my $idx (qw(g_a g_s))
	{
		my ($ret, $out, $err) = $node->psql('postgres', "SELECT scbf_verify('$idx', true)");
		ok($ret == 0 && $err eq '', $node->name . ": scbf_verify('$idx', true) is clean") or diag($err);
	}
}

$sess{$_}->quit for keys %sess;
$standby->stop;
$primary->stop;
done_testing();
