# Crash recovery: after an immediate shutdown at any stage (inserts into a
# growing chain, deletes + VACUUM with its decrements, recounts and
# consolidation, a fresh build) every probe equals a sequential scan.  An
# unlogged table's index comes back empty and usable.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use lib 'test/t';
use ScbfTest;

my $node = new_node('crash');
$node->start;

# Probe values covering present, deleted and absent values of every index
my @probes = (
	"SELECT * FROM t WHERE a = 12",
	"SELECT * FROM t WHERE a = 1013",
	"SELECT * FROM t WHERE a = 777777",
	"SELECT * FROM t WHERE a = ANY('{3,4,5,2001,2002}')",
	"SELECT * FROM t WHERE b = md5('300')",
	"SELECT * FROM t WHERE b = md5('301') AND c = 1",
	"SELECT * FROM t WHERE c IS NULL",
	"SELECT * FROM u WHERE a = 5",
	"SELECT * FROM u WHERE a = 99999");

sub crash_and_check
{
	my ($label) = @_;
	$node->stop('immediate');
	$node->start;
	check_query($node, 'postgres', $_, "$label: $_") for @probes;
}

$node->safe_psql('postgres', q{
	CREATE EXTENSION scbf;
	CREATE TABLE t (a int, b text, c int);
	CREATE INDEX t_a ON t USING scbf (a);
	CREATE INDEX t_bc ON t USING scbf (b, c);
	CREATE UNLOGGED TABLE u (a int);
	CREATE INDEX u_a ON u USING scbf (a);
	INSERT INTO u SELECT g FROM generate_series(1, 10000) g;
	CHECKPOINT;
});

# inserts into an index created empty: chains grow (no checkpoint since)
$node->safe_psql('postgres', q{
	INSERT INTO t SELECT g / 10, md5(g::text), CASE WHEN g % 11 = 0 THEN NULL ELSE g % 3 END
	FROM generate_series(1, 40000) g;
});
crash_and_check('after inserts');
is($node->safe_psql('postgres', 'SELECT count(*) FROM u'), '0',
	'unlogged table is empty after a crash');
$node->safe_psql('postgres', 'INSERT INTO u SELECT g FROM generate_series(1, 10000) g');
check_query($node, 'postgres', 'SELECT * FROM u WHERE a = 4242', 'unlogged index usable after a crash');

# VACUUM: removals, decrements, consolidation of the chains
$node->safe_psql('postgres', q{
	DELETE FROM t WHERE a % 3 = 0;
	VACUUM t;
});
crash_and_check('after delete + vacuum');

# saturated counters: deletes leave them stale, VACUUM recounts
$node->safe_psql('postgres', q{
	INSERT INTO t SELECT 1013, 'x', 2 FROM generate_series(1, 200);
	DELETE FROM t WHERE a = 1013 AND b = 'x' AND ctid > (SELECT min(ctid) FROM t WHERE b = 'x');
	VACUUM t;
	INSERT INTO t SELECT 2001 + g % 2, md5(g::text), g % 3 FROM generate_series(1, 3000) g;
});
crash_and_check('after recount and more inserts');

# a crash in the middle of a long VACUUM: run it in the background and kill
my $bg = $node->background_psql('postgres');
$bg->query_safe('DELETE FROM t WHERE a % 5 = 1');
$bg->query_safe("SET vacuum_cost_delay = '2ms'");
$bg->query_safe('SET vacuum_cost_limit = 20');
$bg->query_until(qr/start/, q{
	\echo start
	VACUUM t;
});
# let it get into the index pass (heap and index are read slowly), then crash
sleep(2);
$node->stop('immediate');
$bg->{run}->finish;
$node->start;
check_query($node, 'postgres', $_, "crash during vacuum: $_") for @probes;
$node->safe_psql('postgres', 'VACUUM t');
check_query($node, 'postgres', $_, "vacuum after the crash: $_") for @probes;

# a fresh build, then a crash
$node->safe_psql('postgres', 'REINDEX TABLE t');
crash_and_check('after REINDEX');

$node->stop;
done_testing();
