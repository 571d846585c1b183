# WAL replay of scbf, after contrib/bloom/t/001_wal.pl: a primary and a
# streaming standby, wal_consistency_checking = 'generic' (set on the
# primary: in PostgreSQL 15 it makes the records carry full images that the
# standby compares with its own replay of every generic WAL record).  Rounds
# of CREATE INDEX (filled and empty), inserts that grow filter chains,
# deletes, VACUUM (removals, recounts, consolidation), updates, TRUNCATE and
# REINDEX, and a storage-format-2 index with pending inserts, folds and
# VACUUM's removals and merges; after each,
# the standby's index answers (forced) must equal the primary's sequential
# scan for every probe.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use lib 'test/t';
use ScbfTest;

my $primary = new_node('primary', allows_streaming => 1);
$primary->append_conf('postgresql.conf',
	"wal_consistency_checking = 'generic'\nautovacuum = off\n"
	  . "wal_keep_size = '4GB'\nmax_wal_size = '1GB'\nshared_buffers = '32MB'\n");
$primary->start;
$primary->backup('bkp');

my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'bkp', has_streaming => 1);
if (my $d = $ENV{SCBF_EXTENSION_DESTDIR})
{
	# as new_node() does: the server's library directory under $d
	my $pkglibdir = $standby->config_data('--pkglibdir');
	$standby->append_conf('postgresql.conf',
		"extension_destdir = '$d'\n"
		  . "dynamic_library_path = '$d$pkglibdir:\$libdir'\n");
}
$standby->start;

# the probes: equalities, IN lists, IS NULL and ANDs on both indexes (tst_ab
# is partial: only a query that implies id > 0 can use it).  Each
# must find rows, but where a round names it empty: a = -5 never exists (an
# absent value must not come back), and check_round's caller lists the
# probes that the data of that round leaves empty on purpose (a deleted
# value, NULLs not inserted yet, a truncated table).
my @probes = (
	'a = 1', 'a = 77', 'a = 499', 'a = -5', 'a IS NULL',
	'a IN (2, 3, 250, 4999)', "b = 'b7' AND id > 0", "b = 'b7' AND a = 7",
	"b IS NULL AND a = 13", "a = ANY(ARRAY[100, 101, NULL])");

# the standby's index (forced) against the primary's sequential scan
my $round = 0;
sub check_round
{
	my ($what, @empty) = @_;
	my %empty = map { $_ => 1 } 'a = -5', @empty;
	$round++;
	$primary->wait_for_catchup($standby);
	scbf_same($standby, 'postgres',
		[ map { [ "SELECT * FROM tst WHERE $_", $empty{$_} ? 'empty' : '>0' ] } @probes ],
		reference => $primary,
		name => "round $round ($what): standby index = primary seqscan");
}

$primary->safe_psql('postgres', q{
	CREATE EXTENSION scbf;
	CREATE TABLE tst (id int, a int, b text);
	INSERT INTO tst SELECT g, g % 500, 'b' || (g % 97) FROM generate_series(1, 8000) g;
	-- built on a filled table (WAL-logged at the end of the build)
	CREATE INDEX tst_a ON tst USING scbf (a) WITH (pages_per_segment = 8);
	-- built empty, grown by WAL-logged inserts
	CREATE TABLE dummy (x int);
});
$primary->safe_psql('postgres',
	'CREATE INDEX tst_ab ON tst USING scbf (b, a) WITH (pages_per_segment = 16, false_positive_rate = 0.001) WHERE id > 0');
check_round('build', 'a IS NULL', 'b IS NULL AND a = 13');

for my $i (1 .. 3)
{
	my $lo = 10000 + $i * 4000;
	my $hi = $lo + 3999;
	$primary->safe_psql('postgres',
		"INSERT INTO tst SELECT g, CASE WHEN g % 50 = 0 THEN NULL ELSE g % 500 END, "
		  . "CASE WHEN g % 31 = 0 THEN NULL ELSE 'b' || (g % 97) END "
		  . "FROM generate_series($lo, $hi) g");
	# the only row with b NULL and a = 13 comes with the third insert
	my @b13 = $i < 3 ? ('b IS NULL AND a = 13') : ();
	check_round("insert $i", @b13);
	$primary->safe_psql('postgres', "DELETE FROM tst WHERE id % 7 = $i OR a = $i");
	$primary->safe_psql('postgres', 'VACUUM tst');
	# the first delete removes every a = 1 (the update brings some back)
	check_round("delete + vacuum $i", @b13, $i == 1 ? ('a = 1') : ());
	$primary->safe_psql('postgres',
		"UPDATE tst SET a = a + 1 WHERE id % 13 = $i; INSERT INTO tst SELECT g, 77, 'b7' FROM generate_series(1, 300) g");
	check_round("update + insert $i", @b13);
}

# a fresh empty index grown only by inserts (chains), then consolidated:
# format 1's chains and their consolidation by VACUUM, until format 1 is
# removed (format 2's consolidation: tst4 below)
$primary->safe_psql('postgres', q{
	SET scbf.build_format = 1;
	CREATE TABLE tst2 (k text);
	CREATE INDEX tst2_k ON tst2 USING scbf (k) WITH (pages_per_segment = 128, false_positive_rate = 0.001);
	INSERT INTO tst2 SELECT md5(g::text) FROM generate_series(1, 30000) g;
});
$primary->wait_for_catchup($standby);
my $q2 = "SELECT * FROM tst2 WHERE k IN (md5('1'), md5('15000'), md5('29999'), md5('x'))";
cmp_ok($primary->safe_psql('postgres', "SELECT max_chain FROM scbf_index_info('tst2_k')"), '>', 1,
	'tst2: inserts chained filters');
scbf_same($standby, 'postgres', $q2, reference => $primary, rows => 3,
	name => 'chained index on the standby');
$primary->safe_psql('postgres', "DELETE FROM tst2 WHERE k < '8'; VACUUM tst2;");
$primary->wait_for_catchup($standby);
is($standby->safe_psql('postgres', "SELECT max_chain FROM scbf_index_info('tst2_k')"), '1',
	'tst2: chains consolidated on the standby');
scbf_same($standby, 'postgres', $q2, reference => $primary,
	name => 'consolidated index on the standby');

# TRUNCATE and REINDEX
$primary->safe_psql('postgres', 'REINDEX TABLE tst');
check_round('reindex');
$primary->safe_psql('postgres', 'TRUNCATE tst');
check_round('truncate', @probes);
$primary->safe_psql('postgres',
	"INSERT INTO tst SELECT g, g % 500, 'b' || (g % 97) FROM generate_series(1, 5000) g");
check_round('insert after truncate', 'a IS NULL', 'b IS NULL AND a = 13');

# storage format 2 (being built: src/README, "Storage v2"): its build,
# inserts appended to the pending area, one row and many per transaction,
# folds into existing and new filters and a wider band, VACUUM's fold
$primary->safe_psql('postgres', q{
	CREATE TABLE tst3 (id int, a int, b text);
	INSERT INTO tst3 SELECT g, g / 20, md5(g::text) FROM generate_series(1, 30000) g;
	SET scbf.build_format = 2;
	CREATE INDEX tst3_a ON tst3 USING scbf (a) WITH (pages_per_segment = 8);
	CREATE INDEX tst3_ba ON tst3 USING scbf (b, a);
});
# a bulk insert's flush is folded straight into the filters; a smaller one
# goes to the pending area, folded here on demand
$primary->safe_psql('postgres',
	'INSERT INTO tst3 SELECT g, g / 20, md5(g::text) FROM generate_series(30001, 50000) g');
is($primary->safe_psql('postgres',
		"SELECT scbf_clean_pending('tst3_a') + scbf_clean_pending('tst3_ba')"),
	'0', 'format 2: a bulk insert folded at once');
$primary->safe_psql('postgres',
	'INSERT INTO tst3 SELECT g, g / 20, md5(g::text) FROM generate_series(60001, 66000) g');
cmp_ok($primary->safe_psql('postgres',
		"SELECT scbf_clean_pending('tst3_a') + scbf_clean_pending('tst3_ba')"),
	'>', 0, 'format 2: pending entries folded');
$primary->safe_psql('postgres', 'INSERT INTO tst3 VALUES (0, 7, NULL)');
$primary->wait_for_catchup($standby);
scbf_same($standby, 'postgres',
	[
		[ 'SELECT * FROM tst3 WHERE a = 7', '>0' ],
		[ 'SELECT * FROM tst3 WHERE a = 2400', '>0' ],
		[ 'SELECT * FROM tst3 WHERE a = 3200', '>0' ],
		[ 'SELECT * FROM tst3 WHERE a IN (1, 1499, 1500, 2499, 3299)', '>0' ],
		[ "SELECT * FROM tst3 WHERE b = md5('44444') AND a = 2222", '>0' ],
		[ 'SELECT * FROM tst3 WHERE b IS NULL', '>0' ],
		[ 'SELECT * FROM tst3 WHERE a = -1', 'empty' ],
	],
	reference => $primary,
	name => 'format 2: built, folded and pending entries on the standby');
$primary->safe_psql('postgres', q{
	INSERT INTO tst3 SELECT g, 7, 'v' || g FROM generate_series(50001, 50100) g;
	VACUUM tst3;
});
is($primary->safe_psql('postgres', "SELECT scbf_clean_pending('tst3_ba')"), '0',
	'format 2: VACUUM folded');
$primary->wait_for_catchup($standby);
scbf_same($standby, 'postgres',
	[
		[ 'SELECT * FROM tst3 WHERE a = 7', '>0' ],
		[ "SELECT * FROM tst3 WHERE b = 'v50050'", '>0' ],
		[ "SELECT * FROM tst3 WHERE b = 'v50050' AND a = 7", '>0' ],
		[ 'SELECT * FROM tst3 WHERE b IS NULL', '>0' ],
	],
	reference => $primary,
	name => 'format 2: after VACUUM folded on the standby');

# format 2's removals: VACUUM drops the dead rows' entries from every
# column's runs (a merged run in place of the old ones), clears the bits no
# entry needs, and merges the runs of a filter that took many folds; a
# second VACUUM drops the superseded runs from their roots and frees their
# leaves, and the freed pages take new rows
$primary->safe_psql('postgres', q{
	DELETE FROM tst3 WHERE a BETWEEN 100 AND 300 OR id % 7 = 0;
	VACUUM tst3;
});
for my $i (1 .. 4)
{
	$primary->safe_psql('postgres',
		"INSERT INTO tst3 VALUES (-$i, 5, 'm$i'); SELECT scbf_clean_pending('tst3_a')");
}
$primary->safe_psql('postgres', q{
	VACUUM tst3;
	DELETE FROM tst3 WHERE a = 5 AND id > 0;
	VACUUM tst3;
	INSERT INTO tst3 SELECT -g, 90000 + g % 11, 'r' || g FROM generate_series(10, 3000) g;
	VACUUM tst3;
});
$primary->wait_for_catchup($standby);
scbf_same($standby, 'postgres',
	[
		[ 'SELECT * FROM tst3 WHERE a = 200', 'empty' ],
		[ 'SELECT * FROM tst3 WHERE a IN (99, 200, 301)', '>0' ],
		[ 'SELECT * FROM tst3 WHERE a = 5', 4 ],
		[ "SELECT * FROM tst3 WHERE b = 'm3' AND a = 5", 1 ],
		[ 'SELECT * FROM tst3 WHERE a = 90004', '>0' ],
		[ "SELECT * FROM tst3 WHERE b = md5('4004')", 'empty' ],
		[ "SELECT * FROM tst3 WHERE b = md5('4005') AND a = 200", 'empty' ],
		[ "SELECT * FROM tst3 WHERE b = md5('1002')", 1 ],
	],
	reference => $primary,
	name => 'format 2: after VACUUM removed entries and merged runs, on the standby');

# format 2's consolidation: segments split into many filters lose most
# rows, VACUUM merges their filters, a later VACUUM releases the merged-away
# columns (entries, bits, pages), and new rows take them
$primary->safe_psql('postgres', q{
	CREATE TABLE tst4 (id int, v int);
	INSERT INTO tst4 SELECT g, CASE WHEN g <= 20000 THEN g / 5000 ELSE g END
	FROM generate_series(1, 60000) g;
	SET scbf.build_format = 2;
	CREATE INDEX tst4_v ON tst4 USING scbf (v) WITH (pages_per_segment = 8);
	DELETE FROM tst4 WHERE v > 20000 AND v % 20 <> 0;
	VACUUM tst4;
	INSERT INTO tst4 VALUES (-1, -1);
	VACUUM tst4;
	INSERT INTO tst4 SELECT -g, 100000 + g FROM generate_series(2, 30000) g;
	VACUUM tst4;
});
$primary->wait_for_catchup($standby);
scbf_same($standby, 'postgres',
	[
		[ 'SELECT * FROM tst4 WHERE v IN (-1, 3, 30000, 59980)', 5003 ],
		[ 'SELECT * FROM tst4 WHERE v = 115000', 1 ],
		[ 'SELECT * FROM tst4 WHERE v IN (30001, 59999)', 'empty' ],
	],
	reference => $primary,
	name => 'format 2: after chains were consolidated and their columns reused, on the standby');

# the standby replayed every record without a consistency failure
my $log = slurp_file($standby->logfile);
unlike($log, qr/inconsistent page found/, 'no inconsistent page on the standby');

$standby->stop;
$primary->stop;
done_testing();
