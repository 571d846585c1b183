# Streaming replication: a standby replaying scbf's generic WAL answers every
# probe like a sequential scan on the primary, through inserts, deletes,
# VACUUM (decrements, recounts, chain consolidation) and a new build.
# wal_consistency_checking = 'generic' makes the standby compare each
# replayed page with the primary's full-page image.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use lib 'test/t';
use ScbfTest;

my $primary = new_node('primary', allows_streaming => 1);
# every record carries full-page images to check: a lot of WAL, keep it all
$primary->append_conf('postgresql.conf',
	"wal_consistency_checking = 'generic'\nwal_keep_size = '4GB'\nmax_wal_size = '4GB'\n");
$primary->start;
$primary->backup('backup');

my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'backup', has_streaming => 1);
if (my $d = $ENV{SCBF_EXTENSION_DESTDIR})
{
	$standby->append_conf('postgresql.conf',
		"extension_destdir = '$d'\n"
		  . "dynamic_library_path = '$d/usr/lib/postgresql/15/lib:\$libdir'\n");
}
$standby->start;

# Compare forced index scans on the standby with seqscans on the primary
sub compare_standby
{
	my ($label) = @_;
	$primary->wait_for_catchup($standby, 'replay');
	for my $q (
		"SELECT * FROM t WHERE a = 17",
		"SELECT * FROM t WHERE a = 123456",
		"SELECT * FROM t WHERE a IN (1, 2, 3, 5000, 99999)",
		"SELECT * FROM t WHERE b = md5('77')",
		"SELECT * FROM t WHERE b = md5('4040') AND c = 0",
		"SELECT * FROM t WHERE c IS NULL",
		"SELECT * FROM t WHERE a = 250001")
	{
		my $wrap = "SELECT count(*) || ':' || coalesce(sum(hashtext(s::text)), 0) FROM ($q) s";
		my $seq = $primary->safe_psql('postgres',
			"SET enable_bitmapscan = off; SET enable_indexscan = off; $wrap");
		my $idx = $standby->safe_psql('postgres',
			"SET enable_seqscan = off; SET enable_indexscan = off; $wrap");
		is($idx, $seq, "$label: $q");
	}
}

$primary->safe_psql('postgres', q{
	CREATE EXTENSION scbf;
	CREATE TABLE t (a int, b text, c int);
	CREATE INDEX t_a ON t USING scbf (a);
	CREATE INDEX t_bc ON t USING scbf (b, c) WITH (pages_per_segment = 16);
	INSERT INTO t SELECT g / 5, md5(g::text), CASE WHEN g % 7 = 0 THEN NULL ELSE g % 3 END
	FROM generate_series(1, 20000) g;
});
compare_standby('inserts into empty index');

$primary->safe_psql('postgres', 'VACUUM t');
compare_standby('after consolidating vacuum');

for my $round (1 .. 3)
{
	$primary->safe_psql('postgres', qq{
		DELETE FROM t WHERE a % 4 = $round;
		VACUUM t;
		INSERT INTO t SELECT 100000 * $round + g / 5, md5((g * $round)::text), g % 3
		FROM generate_series(1, 5000) g;
	});
	compare_standby("churn round $round");
}

# duplicates enough to saturate counters, then delete them (recount)
$primary->safe_psql('postgres', q{
	INSERT INTO t SELECT 250001, 'dup', 1 FROM generate_series(1, 100);
	DELETE FROM t WHERE a = 250001 AND ctid > (SELECT min(ctid) FROM t WHERE a = 250001);
	VACUUM t;
});
compare_standby('after saturated deletes');

# a fresh build, logged with log_newpage_range
$primary->safe_psql('postgres', 'REINDEX TABLE t');
compare_standby('after REINDEX');

$standby->stop;
$primary->stop;
done_testing();
