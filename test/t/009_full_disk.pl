# A full disk under scbf indexes: their tablespace lies on a small file
# system (a tmpfs that test/run-tests mounts, as root, for this test and
# names in SCBF_SMALL_FS), which an unlogged filler table fills until the
# server reports "No space left on device".  The table itself and the WAL
# stay on the ordinary disk, so the server goes on; only the index files
# cannot grow.
#
#   1. CREATE INDEX into the full tablespace ends in the error and leaves
#      no index; with space again, the same CREATE INDEX succeeds;
#   2. a large INSERT into a table whose scbf indexes lie in the full
#      tablespace ends in the error; its rows are lost, and every index
#      passes scbf_verify (heapallindexed) and answers as a sequential scan
#      does, still with the disk full; so does VACUUM, whether it succeeds
#      or ends in the same error;
#   3. with space again, the same INSERT succeeds (it also finishes
#      whatever the failed one left half-made), VACUUM takes out the lost
#      rows' entries, and the indexes are whole.
#
# Without SCBF_SMALL_FS (make prove_installcheck run by a user who cannot
# mount) the test is skipped.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use lib 'test/t';
use ScbfTest;

my $fs = $ENV{SCBF_SMALL_FS};
plan skip_all => 'SCBF_SMALL_FS is not set (test/run-tests, run as root, mounts a small file system for this test)'
  unless $fs;
die "SCBF_SMALL_FS=$fs is not a writable directory" unless -d $fs && -w $fs;

my $node = new_node('full_disk');
$node->append_conf('postgresql.conf', "autovacuum = off\n");
$node->start;

sub q1 { return $node->safe_psql('postgres', $_[0]); }

my $ts = "$fs/ts_" . $$;
mkdir $ts or die "mkdir $ts: $!";
$node->safe_psql('postgres', qq{
	CREATE EXTENSION scbf;
	CREATE TABLESPACE small LOCATION '$ts';
	CREATE TABLE t (id int, a int, b text);
	INSERT INTO t SELECT g, g % 1000, 'b' || (g % 20011) FROM generate_series(1, 100000) g;
	CREATE INDEX t_id ON t USING btree (id);
});

my $enospc = qr/ERROR:  could not (?:extend|write to) file .*: No space left on device/;

# Fill the tablespace: an unlogged table (no WAL) of uncompressed 1 kB rows,
# a few MB per statement, until a statement fails for want of space.
# Returns the number of statements that succeeded.
sub fill
{
	my ($name) = @_;
	q1("CREATE UNLOGGED TABLE $name (x text) TABLESPACE small");
	for my $i (0 .. 1000)
	{
		my ($ret, $out, $err) = $node->psql('postgres',
			"INSERT INTO $name SELECT repeat('x', 1000) FROM generate_series(1, 4000)");
		next if $ret == 0;
		like($err, $enospc, "$name: the tablespace is full after $i statements");
		return $i;
	}
	fail("$name: the tablespace never filled up");
	return -1;
}

# scbf_verify with heapallindexed finds nothing wrong.  With $above, it may
# report counters above what the ledgers imply (a NOTICE: false positives,
# never a wrong answer), which an insert of several columns leaves when it
# fails between raising the counters and writing its ledger entry.
sub verify_clean
{
	my ($idx, $what, $above) = @_;
	my ($ret, $out, $err) = $node->psql('postgres', "SELECT scbf_verify('$idx', true)");
	my $notice = qr/^psql:<stdin>:1: NOTICE:  index "$idx" has \d+ counter\(s\) above what its ledgers imply(?:\n(?:DETAIL|HINT):  [^\n]*)*\n?\z/;
	if ($above && $err ne '' && $err =~ $notice)
	{
		pass("$what: scbf_verify('$idx', true) finds nothing wrong");
		note("$what: $err");
		return;
	}
	ok($ret == 0 && $err eq '', "$what: scbf_verify('$idx', true) is clean") or diag($err);
}

# The probes: values with rows, and values never inserted
sub check_all
{
	my ($what, $above) = @_;
	verify_clean($_, $what, $above) for ('t_a', 't_b');
	scbf_same($node, 'postgres',
		[ 'SELECT * FROM t WHERE a = 7', 'SELECT * FROM t WHERE a IN (1, 500, 999)',
		  "SELECT * FROM t WHERE b = 'b17'", "SELECT * FROM t WHERE b = 'b20010'",
		  "SELECT * FROM t WHERE a = 3 AND b = 'b3'" ],
		name => $what);
	scbf_same($node, 'postgres', [ 'SELECT * FROM t WHERE a = -1', "SELECT * FROM t WHERE b = 'none'" ],
		rows => 'empty', name => "$what: values never inserted");
}

# ledger entries of index $idx, one per indexed heap tuple
sub entries
{
	return q1("SELECT entries_live FROM scbf_index_info('$_[0]')");
}

# ---- 1. CREATE INDEX into the full tablespace
fill('fill1');
{
	my ($ret, $out, $err) = $node->psql('postgres',
		'CREATE INDEX t_a ON t USING scbf (a) WITH (pages_per_segment = 8) TABLESPACE small');
	like($err, $enospc, 'CREATE INDEX: ends in the error of the full disk');
	is(q1("SELECT count(*) FROM pg_class WHERE relname = 't_a'"), '0', 'CREATE INDEX: no index is left');
	q1('DROP TABLE fill1');
	q1('CREATE INDEX t_a ON t USING scbf (a) WITH (pages_per_segment = 8) TABLESPACE small');
	q1('CREATE INDEX t_b ON t USING scbf (b, a) TABLESPACE small');
	is(q1("SELECT string_agg(c.relname || ':' || coalesce(s.spcname, 'default'), ',' ORDER BY c.relname) FROM pg_class c "
		  . "LEFT JOIN pg_tablespace s ON s.oid = c.reltablespace WHERE c.relname IN ('t_a', 't_b')"),
		't_a:small,t_b:small', 'with space again, both indexes are built in the small tablespace');
	check_all('after CREATE INDEX on a full disk');
}

# ---- 2. an INSERT whose index entries find no space
my $rows = q1('SELECT count(*) FROM t');
my %entries = map { $_ => entries($_) } ('t_a', 't_b');
is($entries{t_a}, $rows, "before the full disk: t_a holds an entry per row ($rows)");
my $pages = q1("SELECT sum(pg_relation_size(i)) / current_setting('block_size')::int FROM unnest('{t_a,t_b}'::regclass[]) i");
fill('fill2');
my $insert = "INSERT INTO t SELECT g, g % 1000, 'b' || (g % 20011) FROM generate_series(100001, 300000) g";
{
	my ($ret, $out, $err) = $node->psql('postgres', $insert);
	like($err, $enospc, 'INSERT: ends in the error of the full disk');
	is(q1('SELECT count(*) FROM t'), $rows, 'INSERT: its rows are lost');
	my $now = q1("SELECT sum(pg_relation_size(i)) / current_setting('block_size')::int FROM unnest('{t_a,t_b}'::regclass[]) i");
	note("index pages: $pages before the INSERT, $now after");
	check_all('after an INSERT on a full disk, the disk still full', 'counters above');

	# VACUUM takes out the lost rows' entries, or fails for want of space:
	# either way the indexes stay whole
	($ret, $out, $err) = $node->psql('postgres', 'VACUUM (INDEX_CLEANUP ON) t');
	ok($ret == 0 || $err =~ $enospc, 'VACUUM on the full disk: succeeds or ends in the error of the full disk')
	  or diag($err);
	note('VACUUM on the full disk: ' . ($ret == 0 ? 'succeeded' : $err));
	check_all('after VACUUM on a full disk');
}

# ---- 3. space again
q1('DROP TABLE fill2');
q1($insert);
is(q1('SELECT count(*) FROM t'), $rows + 200000, 'with space again, the INSERT succeeds');
q1('VACUUM (INDEX_CLEANUP ON) t');
is(entries('t_a'), $rows + 200000, 'after VACUUM, t_a holds an entry per row, none of the lost rows');
is(entries('t_b'), $rows + 200000, 'after VACUUM, t_b holds an entry per row, none of the lost rows');
check_all('after the full disk, with space again');

$node->safe_psql('postgres', 'DROP TABLE t; DROP TABLESPACE small');
$node->stop;
done_testing();
