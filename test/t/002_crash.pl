# Crash recovery of scbf: the server is stopped with 'immediate' (no
# shutdown checkpoint, like a crash) in the middle of and after inserts,
# DELETE + VACUUM, and the consolidation of filter chains by VACUUM; after
# each restart (WAL replay) every probe must equal a sequential scan, and
# the index must keep working (inserts, VACUUM, probes).  An unlogged
# table's index comes back empty (from its init fork) and usable.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use Time::HiRes qw(usleep);
use lib 'test/t';
use ScbfTest;

my $node = new_node('crash');
$node->append_conf('postgresql.conf',
	"autovacuum = off\ncheckpoint_timeout = '1h'\nmax_wal_size = '4GB'\nshared_buffers = '64MB'\n"
	  . "restart_after_crash = on\n");
$node->start;

$node->safe_psql('postgres', q{
	CREATE EXTENSION scbf;
	CREATE TABLE t (id int, a int, b text);
	INSERT INTO t SELECT g, g % 1000, 'b' || (g % 313) FROM generate_series(1, 50000) g;
	CREATE INDEX t_a ON t USING scbf (a) WITH (pages_per_segment = 8);
	CREATE INDEX t_ab ON t USING scbf (a, b);
	-- built empty: inserts grow chains of filters, VACUUM consolidates them
	CREATE TABLE c (id int, k text);
	CREATE INDEX c_k ON c USING scbf (k) WITH (pages_per_segment = 128, false_positive_rate = 0.001);
	CREATE UNLOGGED TABLE u (a int, b text);
	CREATE INDEX u_a ON u USING scbf (a);
	INSERT INTO u SELECT g % 100, md5(g::text) FROM generate_series(1, 10000) g;
	CHECKPOINT;
});

my @probes_t = ('a = 1', 'a = 500', 'a = 999', 'a = -1', 'a IS NULL',
	'a IN (3, 4, 5)', "a = 7 AND b = 'b7'", "a = 8 AND b = 'b8'", "b = 'b100' AND a = 100");
my @probes_c = ("k = md5('1')", "k = md5('77777')", "k = md5('123456')",
	"k IN (md5('2'), md5('99999'), md5('x'))", "k IS NULL");

sub check_all
{
	my ($what) = @_;
	foreach my $p (@probes_t)
	{
		check_query($node, 'postgres', "SELECT * FROM t WHERE $p", "$what: t where $p");
	}
	foreach my $p (@probes_c)
	{
		check_query($node, 'postgres', "SELECT * FROM c WHERE $p", "$what: c where $p");
	}
}

# run $sql in a background psql, wait until $ready returns true (or
# $delay_ms passed), then crash the server and restart it
sub crash_during
{
	my ($sqls, $ready, $what) = @_;
	my ($stdout, $stderr) = ('', '');
	my $h = IPC::Run::start(
		[ 'psql', '-X', '-q', '-d', $node->connstr('postgres'), map { ('-c', $_) } @$sqls ],
		'>', \$stdout, '2>', \$stderr);
	my $tries = 0;
	while ($tries++ < 1000)
	{
		last if $node->safe_psql('postgres', $ready) eq 't';
		usleep(20_000);
	}
	ok($tries < 1000, "$what: reached the crash point") or diag($stderr);
	$node->stop('immediate');
	$h->finish;
	$node->start;
}

check_all('before any crash');

# 1. crash after committed inserts (no checkpoint since)
$node->safe_psql('postgres', q{
	INSERT INTO t SELECT g, g % 1000, 'b' || (g % 313) FROM generate_series(50001, 70000) g;
	INSERT INTO c SELECT g, md5(g::text) FROM generate_series(1, 150000) g;
});
$node->stop('immediate');
$node->start;
check_all('after inserts and a crash');
ok($node->safe_psql('postgres', 'SELECT max_chain > 1 FROM scbf_index_info(\'c_k\')') eq 't',
	'chains survived the crash');

# 2. crash in the middle of a large insert (the transaction is lost; its
# index entries stay until VACUUM removes them)
crash_during(
	[ "INSERT INTO t SELECT g, g % 1000, 'b' || (g % 313) FROM generate_series(100001, 3000000) g" ],
	"SELECT pg_relation_size('t') > 10000000",
	'insert');
check_all('after a crash during an insert');
$node->safe_psql('postgres', 'VACUUM t');
check_all('after a crash during an insert and VACUUM');

# 3. crash after DELETE + VACUUM, then during a slowed-down VACUUM
$node->safe_psql('postgres', 'DELETE FROM t WHERE id % 3 = 0; VACUUM t;');
$node->stop('immediate');
$node->start;
check_all('after delete, vacuum and a crash');
$node->safe_psql('postgres', 'DELETE FROM t WHERE id % 5 = 0 OR a = 500');
crash_during(
	[ 'SET vacuum_cost_delay = 2', 'SET vacuum_cost_limit = 20', 'VACUUM t' ],
	"SELECT count(*) > 0 FROM pg_stat_progress_vacuum WHERE phase = 'vacuuming indexes'",
	'vacuum');
check_all('after a crash during VACUUM');
$node->safe_psql('postgres', 'VACUUM t');
check_all('after a crash during VACUUM and a new VACUUM');

# 4. consolidation: VACUUM of the chained index, crashed in the middle
# (it consolidates segment after segment), then after it finished
$node->safe_psql('postgres', "DELETE FROM c WHERE id % 4 = 0");
crash_during(
	[ 'SET vacuum_cost_delay = 2', 'SET vacuum_cost_limit = 10', 'VACUUM c' ],
	"SELECT count(*) > 0 FROM pg_stat_progress_vacuum WHERE phase = 'cleaning up indexes'",
	'consolidation');
check_all('after a crash during consolidation');
$node->safe_psql('postgres', 'VACUUM c');
check_all('after a crash during consolidation and a new VACUUM');
# (a VACUUM has no transaction id, so nothing flushes its last WAL records
# before the crash unless we do: without pg_switch_wal() the crash may undo
# the end of the consolidation, which is consistent, and the next VACUUM
# finishes it; here the test wants the finished state to survive)
$node->safe_psql('postgres',
	"INSERT INTO c SELECT g, md5(g::text) FROM generate_series(150001, 170000) g; DELETE FROM c WHERE id % 7 = 0; VACUUM c;");
$node->safe_psql('postgres', 'SELECT pg_switch_wal()');
$node->stop('immediate');
$node->start;
check_all('after consolidation and a crash');
is($node->safe_psql('postgres', 'SELECT max_chain FROM scbf_index_info(\'c_k\')'), '1',
	'chains consolidated by VACUUM survive the crash')
  or diag($node->safe_psql('postgres', q{
	SELECT string_agg(format('segment %s filter %s (serial %s) %s %s: %s entries, %s ledger pages',
							 segno, filter, serial, state, flags, entries, ledger_pages), E'\n')
	FROM scbf_filters('c_k')
	WHERE segno IN (SELECT segno FROM scbf_segments('c_k') WHERE chain_length > 1)}));
$node->safe_psql('postgres', 'VACUUM c');
is($node->safe_psql('postgres', 'SELECT max_chain FROM scbf_index_info(\'c_k\')'), '1',
	'chains consolidated after a second VACUUM');
check_all('after the second VACUUM');

# the indexes agree with the heap entry by entry
foreach my $idx ('t_a', 't_ab', 'c_k')
{
	my ($ret, $out, $err) = $node->psql('postgres', "SELECT scbf_verify('$idx', true)");
	is($ret, 0, "scbf_verify($idx) after the crashes");
	diag($err) if $ret;
}

# 5. unlogged: after a crash the table and its index are empty, and usable
is($node->safe_psql('postgres', 'SELECT count(*) FROM u'), '0', 'unlogged table empty after crash');
check_query($node, 'postgres', 'SELECT * FROM u WHERE a = 7', 'unlogged index empty after crash');
$node->safe_psql('postgres', "INSERT INTO u SELECT g % 100, md5(g::text) FROM generate_series(1, 5000) g");
is(check_query($node, 'postgres', 'SELECT * FROM u WHERE a = 7', 'unlogged index usable after crash'),
	'50', 'unlogged index finds the new rows');
check_query($node, 'postgres', "SELECT * FROM u WHERE b = md5('4242')");
$node->safe_psql('postgres', 'DELETE FROM u WHERE a < 50; VACUUM u; TRUNCATE u;');
$node->safe_psql('postgres', "INSERT INTO u VALUES (7, 'x')");
is(check_query($node, 'postgres', 'SELECT * FROM u WHERE a = 7'), '1', 'unlogged index after TRUNCATE');
$node->stop('immediate');
$node->start;
is(check_query($node, 'postgres', 'SELECT * FROM u WHERE a = 7'), '0',
	'unlogged index empty after a second crash');

$node->stop;
done_testing();
