# pg_upgrade of a cluster that holds scbf indexes (same major: a second
# cluster is initialized and the first upgraded into it, as PostgreSQL's own
# pg_upgrade test does).  pg_upgrade recreates the extension's objects with
# pg_dump --binary-upgrade (the access method, the operator classes, the
# functions) and copies the index files as they are: afterwards every index
# must verify, answer as a sequential scan does, show the same layout and
# contents as before, and take inserts, deletes and VACUUM.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use File::Temp qw(tempdir);
use lib 'test/t';
use ScbfTest;

my $old = start_node('old', conf => "autovacuum = off\n");
$old->safe_psql('postgres', q{
	CREATE EXTENSION scbf;
	CREATE TABLE t (id int, a int, b text, c uuid);
	INSERT INTO t SELECT g, g % 1000, md5(g::text), md5(g::text)::uuid FROM generate_series(1, 30000) g;
	CREATE INDEX t_a ON t USING scbf (a) WITH (pages_per_segment = 8);
	CREATE INDEX t_bc ON t USING scbf (b, c) WITH (false_positive_rate = 0.001);
	-- built empty: inserts chain filters
	CREATE TABLE e (id int, k text);
	CREATE INDEX e_k ON e USING scbf (k) WITH (pages_per_segment = 128, false_positive_rate = 0.001);
	INSERT INTO e SELECT g, md5(g::text) FROM generate_series(1, 30000) g;
	DELETE FROM t WHERE id % 10 = 0;
	VACUUM t;
});

my @probes = ('SELECT * FROM t WHERE a = 7', 'SELECT * FROM t WHERE a IN (1, 2, 999)',
	"SELECT * FROM t WHERE b = md5('11') AND c = md5('11')::uuid",
	"SELECT * FROM e WHERE k = md5('12344')", "SELECT * FROM e WHERE k IN (md5('1'), md5('29999'))",
	[ 'SELECT * FROM t WHERE a = -1', 'empty' ], [ "SELECT * FROM t WHERE b = md5('10')", 'empty' ]);

sub check_all
{
	my ($n, $what) = @_;
	scbf_same($n, 'postgres', \@probes, name => $what);
	verify_clean($n, $_, $what) for ('t_a', 't_bc', 'e_k');
}

# what each index holds, as the diagnostics show it
my $contents = q{
	SELECT string_agg(i::text, E'\n' ORDER BY n) FROM (
		SELECT 't_a' AS n, scbf_index_info('t_a') AS i UNION ALL
		SELECT 't_bc', scbf_index_info('t_bc') UNION ALL
		SELECT 'e_k', scbf_index_info('e_k')) s};

check_all($old, 'before pg_upgrade');
cmp_ok($old->safe_psql('postgres', "SELECT max_chain FROM scbf_index_info('e_k')"), '>', 1,
	'e_k has chains of filters');
my $before = $old->safe_psql('postgres', $contents);
$old->stop;

my $new = new_node('new');
my $bindir = $new->config_data('--bindir');
my $dir = tempdir(CLEANUP => 1, DIR => PostgreSQL::Test::Utils::tempdir());
{
	# pg_upgrade writes its logs into the current directory
	my $cwd = Cwd::getcwd();
	chdir $dir or die "chdir $dir: $!";
	command_ok(
		[
			"$bindir/pg_upgrade", '--no-sync',
			'-d', $old->data_dir, '-D', $new->data_dir,
			'-b', $old->config_data('--bindir'), '-B', $bindir,
			'-s', $new->host, '-p', $old->port, '-P', $new->port
		],
		'pg_upgrade of a cluster with scbf indexes');
	chdir $cwd;
}
$new->append_conf('postgresql.conf', "autovacuum = off\n");
$new->start;

is($new->safe_psql('postgres', "SELECT extversion FROM pg_extension WHERE extname = 'scbf'"),
	'1.0', 'after pg_upgrade: the extension is there');
is($new->safe_psql('postgres', $contents), $before, 'after pg_upgrade: the indexes hold what they held');
is($new->safe_psql('postgres', q{
	SELECT count(*) FROM pg_opclass c JOIN pg_am a ON a.oid = c.opcmethod
	WHERE a.amname = 'scbf' AND NOT amvalidate(c.oid)}), '0', 'after pg_upgrade: every operator class validates');
check_all($new, 'after pg_upgrade');

$new->safe_psql('postgres', q{
	INSERT INTO t SELECT g, g % 1000, md5(g::text), md5(g::text)::uuid FROM generate_series(30001, 40000) g;
	INSERT INTO e SELECT g, md5(g::text) FROM generate_series(30001, 40000) g;
	DELETE FROM e WHERE id % 3 = 0;
	VACUUM t; VACUUM e;
});
check_all($new, 'after pg_upgrade, inserts, deletes and VACUUM');
$new->stop;
done_testing();
