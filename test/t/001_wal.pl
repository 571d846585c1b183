# WAL replay of scbf, after contrib/bloom/t/001_wal.pl: a primary and a
# streaming standby, wal_consistency_checking = 'generic' (set on the
# primary: in PostgreSQL 15 it makes the records carry full images that the
# standby compares with its own replay of every generic WAL record).  Rounds
# of CREATE INDEX (filled and empty), inserts that grow filter chains,
# deletes, VACUUM (removals, recounts, consolidation), updates, TRUNCATE and
# REINDEX, and a storage-format-2 index with pending inserts, folds and
# VACUUM's removals and merges, and its delta (folds into it, a fold's
# merge, VACUUM's merge); after each,
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

# Wait until the standby has replayed every WAL record the primary has
# inserted.  wait_for_catchup's default target is the primary's write
# position, which can lag the records of a transaction without an xid (a
# fold by scbf_clean_pending(), VACUUM): its commit does not flush them,
# the WAL writer does a moment later.
sub catchup
{
	$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));
}

# the standby's index (forced) against the primary's sequential scan
my $round = 0;
sub check_round
{
	my ($what, @empty) = @_;
	my %empty = map { $_ => 1 } 'a = -5', @empty;
	$round++;
	catchup();
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

# a fresh empty index grown only by inserts (chains of filters), then
# merged by VACUUM (the merges and the reuse of columns in detail: tst4
# below)
$primary->safe_psql('postgres', q{
	CREATE TABLE tst2 (k text);
	CREATE INDEX tst2_k ON tst2 USING scbf (k) WITH (pages_per_segment = 128, false_positive_rate = 0.001);
	INSERT INTO tst2 SELECT md5(g::text) FROM generate_series(1, 30000) g;
});
catchup();
my $q2 = "SELECT * FROM tst2 WHERE k IN (md5('1'), md5('15000'), md5('29999'), md5('x'))";
cmp_ok($primary->safe_psql('postgres', "SELECT max_chain FROM scbf_index_info('tst2_k')"), '>', 1,
	'tst2: inserts chained filters');
scbf_same($standby, 'postgres', $q2, reference => $primary, rows => 3,
	name => 'chained index on the standby');
$primary->safe_psql('postgres', "DELETE FROM tst2 WHERE k < '8'; VACUUM tst2;");
catchup();
is($standby->safe_psql('postgres', "SELECT max_chain, filters, entries_live FROM scbf_index_info('tst2_k')"),
	$primary->safe_psql('postgres', "SELECT max_chain, filters, entries_live FROM scbf_index_info('tst2_k')"),
	'tst2: the standby has the primary\'s chains after VACUUM');
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

# the build, inserts appended to the pending area, one row and many per transaction,
# folds into existing and new filters and a wider band, VACUUM's fold
$primary->safe_psql('postgres', q{
	CREATE TABLE tst3 (id int, a int, b text);
	INSERT INTO tst3 SELECT g, g / 20, md5(g::text) FROM generate_series(1, 30000) g;
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
catchup();
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
catchup();
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
catchup();
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
	CREATE INDEX tst4_v ON tst4 USING scbf (v) WITH (pages_per_segment = 8);
	DELETE FROM tst4 WHERE v > 20000 AND v % 20 <> 0;
	VACUUM tst4;
	INSERT INTO tst4 VALUES (-1, -1);
	VACUUM tst4;
	INSERT INTO tst4 SELECT -g, 100000 + g FROM generate_series(2, 30000) g;
	VACUUM tst4;
});
catchup();
scbf_same($standby, 'postgres',
	[
		[ 'SELECT * FROM tst4 WHERE v IN (-1, 3, 30000, 59980)', 5003 ],
		[ 'SELECT * FROM tst4 WHERE v = 115000', 1 ],
		[ 'SELECT * FROM tst4 WHERE v IN (30001, 59999)', 'empty' ],
	],
	reference => $primary,
	name => 'format 2: after chains were consolidated and their columns reused, on the standby');

# format 2's delta (src/scbfdelta.c): with scbf.delta_band_pages = 0 on
# the primary, every fold puts its new keys in the delta's pages instead of
# setting their row bits.  Three rounds: a fold of pending entries into the
# delta (their keys only there), a direct fold of 30,000 rows, more than
# half of what its partitions (28 and 29 pages, a quarter of each index's
# band, of 1,018 entries) hold, which merges the delta (bits set, then the
# pages emptied) and sets its own bits at once, and VACUUM's merge before
# its removals.  (A fold whose keys overflow a partition merges through the
# same ScbfDeltaMerge: pg_regress scbf_delta and TAP 002, section 11.)
# After each, the standby holds the primary's delta entries and its answers (forced)
# equal the primary's sequential scan, for the values inserted since the
# build (all of them, but every third of the 30,000 and every eleventh
# after VACUUM); the primary's verifier is clean.
$primary->append_conf('postgresql.conf', "scbf.delta_band_pages = 0\n");
$primary->reload;
$primary->poll_query_until('postgres', "SELECT current_setting('scbf.delta_band_pages') = '0'")
  or die 'scbf.delta_band_pages = 0 did not take effect';
$primary->safe_psql('postgres', q{
	CREATE TABLE tst5 (id int, a int, b text);
	INSERT INTO tst5 SELECT g, g / 20, md5(g::text) FROM generate_series(1, 20000) g;
	CREATE INDEX tst5_b ON tst5 USING scbf (b);
	CREATE INDEX tst5_ab ON tst5 USING scbf (a, b);
});
# the delta's pages and entries of both indexes
my $delta5 = "SELECT string_agg(format('%s:%s', i, (SELECT count(*) || '/' || coalesce(sum(entries), 0) "
  . "FROM scbf_pages(i) WHERE kind = 'delta')), ' ' ORDER BY i) FROM unnest(ARRAY['tst5_b', 'tst5_ab']) i";
# every value of b from $lo to $hi in steps of $step, in one query (the
# forced run probes each: a nested loop over parameterized bitmap scans;
# the sequential scan hashes them, where = ANY(ARRAY(...)) would compare
# every row with every value)
sub any_b
{
	my ($lo, $hi, $step) = @_;
	return "SELECT * FROM tst5 WHERE b IN (SELECT md5(g::text) FROM generate_series($lo, $hi, $step) g)";
}
sub check_delta
{
	my ($what, @queries) = @_;
	catchup();
	is($standby->safe_psql('postgres', $delta5), $primary->safe_psql('postgres', $delta5),
		"delta ($what): the standby's delta pages and entries are the primary's");
	scbf_same($standby, 'postgres', \@queries, reference => $primary,
		name => "delta ($what): standby index = primary seqscan");
	verify_clean($primary, $_, "delta ($what)") for 'tst5_b', 'tst5_ab';
}

# 1. 3,000 rows appended to the pending area, folded into the delta
$primary->safe_psql('postgres',
	'INSERT INTO tst5 SELECT g, g / 20, md5(g::text) FROM generate_series(20001, 23000) g');
is($primary->safe_psql('postgres',
		"SELECT scbf_clean_pending('tst5_b') || ' ' || scbf_clean_pending('tst5_ab')"),
	'3000 3000', 'delta (fold): 3,000 pending entries folded');
like($primary->safe_psql('postgres', $delta5), qr/^tst5_ab:29\/(\d+) tst5_b:28\/3000$/,
	'delta (fold): the new keys are in the delta, 28 and 29 pages');
check_delta('fold',
	[ any_b(20001, 23000, 1), 3000 ],
	[ 'SELECT * FROM tst5 WHERE a IN (SELECT generate_series(1001, 1150))', 2981 ],
	[ "SELECT * FROM tst5 WHERE a = 1100 AND b = md5('22010')", 1 ],
	[ "SELECT * FROM tst5 WHERE b IN (md5('5'), md5('20001'), 'nope')", 2 ],
	[ "SELECT * FROM tst5 WHERE b = md5('23001')", 'empty' ]);

# 2. 30,000 rows in one statement: its flush folds them straight (no
# pending entry), too many keys for the delta, so the fold merges the delta
# into the band, empties it and sets its keys' bits
$primary->safe_psql('postgres',
	'INSERT INTO tst5 SELECT g, g / 20, md5(g::text) FROM generate_series(23001, 53000) g');
is($primary->safe_psql('postgres', "SELECT scbf_clean_pending('tst5_b')"), '0',
	'delta (merge): the INSERT\'s flush folded its rows');
is($primary->safe_psql('postgres', $delta5), 'tst5_ab:29/0 tst5_b:28/0',
	'delta (merge): the fold merged and emptied the delta');
check_delta('merge',
	[ any_b(20001, 53000, 3), 11000 ],
	[ 'SELECT * FROM tst5 WHERE a IN (SELECT generate_series(1001, 2650))', 32981 ],
	[ "SELECT * FROM tst5 WHERE a = 2400 AND b = md5('48010')", 1 ],
	[ "SELECT * FROM tst5 WHERE b = md5('53001')", 'empty' ]);

# 3. new keys in the delta again, then deletes: VACUUM merges the delta
# before it removes the dead rows' entries
$primary->safe_psql('postgres',
	'INSERT INTO tst5 SELECT g, g / 20, md5(g::text) FROM generate_series(53001, 55000) g');
is($primary->safe_psql('postgres',
		"SELECT scbf_clean_pending('tst5_b') || ' ' || scbf_clean_pending('tst5_ab')"),
	'2000 2000', 'delta (vacuum): 2,000 pending entries folded');
like($primary->safe_psql('postgres', $delta5), qr/^tst5_ab:29\/\d+ tst5_b:28\/2000$/,
	'delta (vacuum): their keys are in the delta');
$primary->safe_psql('postgres', 'DELETE FROM tst5 WHERE id % 4 = 0; VACUUM tst5;');
is($primary->safe_psql('postgres', $delta5), 'tst5_ab:29/0 tst5_b:28/0',
	'delta (vacuum): VACUUM merged the delta');
my $live11 = grep { $_ % 4 } map { 1 + 11 * $_ } 0 .. int(54999 / 11);
check_delta('vacuum',
	[ any_b(53001, 55000, 1), 1500 ],
	[ any_b(1, 55000, 11), $live11 ],
	[ 'SELECT * FROM tst5 WHERE a = 2700', 15 ],
	[ "SELECT * FROM tst5 WHERE b IN (md5('53004'), md5('20000'))", 'empty' ]);

# the standby replayed every record without a consistency failure
my $log = slurp_file($standby->logfile);
unlike($log, qr/inconsistent page found/, 'no inconsistent page on the standby');

$standby->stop;
$primary->stop;
done_testing();
