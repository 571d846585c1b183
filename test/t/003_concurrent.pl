# Concurrency: pgbench clients insert into the same segments (the table's
# free space, after a delete, is spread over every segment) while VACUUM
# runs again and again (removals, recounts, chain consolidation) and while
# other clients probe rows that exist all along (a probe that misses one
# fails its transaction: division by zero).  Then many probes are compared
# with a sequential scan.  Last, CREATE INDEX CONCURRENTLY while clients
# insert: every inserted value must be found (no false negatives), which
# relies on the bulk-delete callback being called once per ledger entry.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use lib 'test/t';
use ScbfTest;

my $node = new_node('concurrent');
$node->append_conf('postgresql.conf',
	"autovacuum = off\nmax_connections = 40\nshared_buffers = '64MB'\n");
$node->start;

$node->safe_psql('postgres', q{
	CREATE EXTENSION scbf;
	CREATE TABLE t (id bigserial, a int, b text, c int8);
	-- anchors: rows that no client deletes; every probe must find them
	INSERT INTO t (a, b, c) SELECT -g, 'anchor' || g, g FROM generate_series(1, 500) g;
	INSERT INTO t (a, b, c) SELECT g % 5000, md5(g::text), g % 97 FROM generate_series(1, 60000) g;
	CREATE INDEX t_a ON t USING scbf (a) WITH (pages_per_segment = 8);
	CREATE INDEX t_abc ON t USING scbf (a, b, c) WITH (pages_per_segment = 16);
	-- free space in every segment: the inserts below land there
	DELETE FROM t WHERE a >= 0 AND id % 3 = 0;
	VACUUM t;
	-- index vs seqscan for a = lo, lo + step, ... hi; returns the mismatches
	CREATE FUNCTION mismatches(lo int, hi int, step int) RETURNS int LANGUAGE plpgsql AS $$
	DECLARE bad int := 0; v int; x text; y text;
	BEGIN
		FOR v IN SELECT generate_series(lo, hi, step) LOOP
			SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = on;
			SELECT count(*) || ':' || coalesce(sum(hashtext(t::text)::int8), 0) INTO x FROM t WHERE a = v;
			SET LOCAL enable_seqscan = on; SET LOCAL enable_bitmapscan = off;
			SELECT count(*) || ':' || coalesce(sum(hashtext(t::text)::int8), 0) INTO y FROM t WHERE a = v;
			IF x <> y THEN
				bad := bad + 1;
				RAISE WARNING 'a = %: index %, seqscan %', v, x, y;
			END IF;
		END LOOP;
		RETURN bad;
	END $$;
});

$node->pgbench(
	'--no-vacuum --client=6 --jobs=2 --transactions=300',
	0,
	[qr{processed: 1800/1800}],
	[qr{^$}],
	'inserts, deletes, probes and VACUUM together',
	{
		'001_insert@8' => q{
			\set r random(0, 4999)
			INSERT INTO t (a, b, c) SELECT (:r + g) % 5000, md5((:r * 7 + g)::text), g FROM generate_series(1, 20) g;
		},
		'002_delete@2' => q{
			\set r random(0, 4990)
			DELETE FROM t WHERE a BETWEEN :r AND :r + 3;
		},
		'003_probe@6' => q{
			\set m random(1, 500)
			SET enable_seqscan = off;
			SELECT 1 / count(*) FROM t WHERE a = -:m;
			SELECT 1 / count(*) FROM t WHERE a = -:m AND b = 'anchor' || :m AND c = :m;
			SELECT 1 / count(*) FROM t WHERE a IN (-:m, -1, 123456);
		},
		'004_vacuum@1' => q{
			VACUUM t;
		}
	});

is($node->safe_psql('postgres', 'SELECT mismatches(-500, 5000, 7)'), '0',
	'index equals seqscan for every probed value after the run');
$node->safe_psql('postgres', 'VACUUM t');
is($node->safe_psql('postgres', 'SELECT mismatches(-500, 5000, 7)'), '0',
	'index equals seqscan after a final VACUUM');
check_query($node, 'postgres', 'SELECT * FROM t WHERE a = 42 AND c = 42');
check_query($node, 'postgres', "SELECT * FROM t WHERE b = md5('4242')");
foreach my $idx ('t_a', 't_abc')
{
	my ($ret, $out, $err) = $node->psql('postgres', "SELECT scbf_verify('$idx', true)");
	is($ret, 0, "scbf_verify($idx) after the run");
	diag($err) if $ret;
}

# CREATE INDEX CONCURRENTLY while clients insert: each client inserts rows
# with its own marker; afterwards every row must be found through the new
# index (validate_index inserts the rows the build's snapshot missed, using
# the TIDs that the bulk-delete callback collected)
$node->safe_psql('postgres', 'DROP INDEX t_a; DROP INDEX t_abc; CREATE TABLE cic_done (ok bool)');
$node->pgbench(
	'--no-vacuum --client=5 --jobs=2 --transactions=2000',
	0,
	[qr{processed: 10000/10000}],
	[qr{^$}],
	'inserts during CREATE INDEX CONCURRENTLY',
	{
		'101_insert@20' => q{
			INSERT INTO t (a, b, c) VALUES (100000 + :client_id * 100000 + (random() * 99999)::int,
				'cic', :client_id);
		},
		'102_cic@1' => q{
			\set go random(1, 30)
			\if :go = 1
			SELECT count(*) = 0 AS first FROM cic_done \gset
			\if :first
			INSERT INTO cic_done VALUES (true);
			CREATE INDEX CONCURRENTLY t_cic_a ON t USING scbf (a) WITH (pages_per_segment = 8);
			CREATE INDEX CONCURRENTLY t_cic_bc ON t USING scbf (b, c);
			\endif
			\endif
		}
	});
$node->safe_psql('postgres', q{
	CREATE INDEX CONCURRENTLY IF NOT EXISTS t_cic_a ON t USING scbf (a) WITH (pages_per_segment = 8);
	CREATE INDEX CONCURRENTLY IF NOT EXISTS t_cic_bc ON t USING scbf (b, c);
});
is($node->safe_psql('postgres',
	"SELECT bool_and(indisvalid) FROM pg_index WHERE indexrelid IN ('t_cic_a'::regclass, 't_cic_bc'::regclass)"),
	't', 'the concurrently built indexes are valid');

# every inserted row, probed one by one through each new index
my $missing = $node->safe_psql('postgres', q{
	SET enable_seqscan = off;
	SELECT count(*) FROM t o WHERE o.b = 'cic'
	  AND NOT EXISTS (SELECT 1 FROM t i WHERE i.a = o.a AND i.id = o.id)
});
is($missing, '0', 'CIC: no inserted row is missing from the index on a');
my $plan = $node->safe_psql('postgres', q{
	SET enable_seqscan = off; SET enable_hashjoin = off; SET enable_mergejoin = off;
	EXPLAIN (COSTS OFF) SELECT count(*) FROM t o WHERE o.b = 'cic'
	  AND NOT EXISTS (SELECT 1 FROM t i WHERE i.a = o.a AND i.id = o.id)
});
like($plan, qr/t_cic_a/, 'the probe used the new index');
for my $client (0 .. 4)
{
	check_query($node, 'postgres', "SELECT * FROM t WHERE b = 'cic' AND c = $client",
		"CIC: rows of client $client through the index on (b, c)");
}
is($node->safe_psql('postgres', 'SELECT mismatches(100000, 600000, 997)'), '0',
	'CIC: index equals seqscan over the inserted range');
foreach my $idx ('t_cic_a', 't_cic_bc')
{
	my ($ret, $out, $err) = $node->psql('postgres', "SELECT scbf_verify('$idx', true)");
	is($ret, 0, "scbf_verify($idx) after CIC");
	diag($err) if $ret;
}

$node->stop;
done_testing();
