# Concurrency: pgbench clients insert, delete and probe while VACUUM runs
# again and again (decrements, recounts, consolidation under inserts); rows
# inserted before the run must be found by every probe during it.  Then
# CREATE INDEX CONCURRENTLY while clients insert: the bulk-delete callback
# contract (once per real entry) is what keeps CIC from missing rows.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use lib 'test/t';
use ScbfTest;

my $node = new_node('concurrent');
$node->append_conf('postgresql.conf', "autovacuum = off\nmax_connections = 40\n");
$node->start;

$node->safe_psql('postgres', q{
	CREATE EXTENSION scbf;
	CREATE TABLE t (id bigserial, a int, b text);
	-- markers: must be found by every probe, whatever happens around them
	INSERT INTO t (a, b) SELECT -g, 'marker' || g FROM generate_series(1, 300) g;
	CREATE INDEX t_a ON t USING scbf (a) WITH (pages_per_segment = 8);
	CREATE INDEX t_ab ON t USING scbf (a, b);
	-- compare the index with a seqscan for every step-th value of a in
	-- lo..hi; returns the number of mismatches
	CREATE FUNCTION mismatches(lo int, hi int, idx text, step int DEFAULT 3) RETURNS int LANGUAGE plpgsql AS $$
	DECLARE bad int := 0; v int; x bigint; y bigint;
	BEGIN
		FOR v IN lo..hi BY step LOOP
			SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = on;
			EXECUTE format('SELECT count(*) FROM t WHERE a = %s', v) INTO x;
			SET LOCAL enable_seqscan = on; SET LOCAL enable_bitmapscan = off;
			EXECUTE format('SELECT count(*) FROM t WHERE a = %s', v) INTO y;
			IF x <> y THEN
				bad := bad + 1;
				RAISE WARNING 'a = %: index % rows, seqscan % rows (%)', v, x, y, idx;
			END IF;
		END LOOP;
		RETURN bad;
	END $$;
});

# every transaction that probes a marker fails (division by zero) if the
# marker is not found: pgbench then reports failed transactions
$node->pgbench(
	'--no-vacuum --client=5 --transactions=400',
	0,
	[qr{processed: 2000/2000}],
	[qr{^$}],
	'inserts, deletes, probes and vacuums together',
	{
		'001_insert@6' => q{
			\set r random(1, 20000)
			INSERT INTO t (a, b) SELECT :r + g, md5((:r + g)::text) FROM generate_series(1, 10) g;
		},
		'002_delete@2' => q{
			\set r random(1, 20000)
			DELETE FROM t WHERE a BETWEEN :r AND :r + 20;
		},
		'003_probe@4' => q{
			\set m random(1, 300)
			SET enable_seqscan = off;
			SELECT 1 / count(*) FROM t WHERE a = -:m;
			SELECT 1 / count(*) FROM t WHERE a = -:m AND b = 'marker' || :m;
		},
		'004_vacuum@1' => q{
			VACUUM t;
		}
	});

is($node->safe_psql('postgres', 'SELECT mismatches(-300, 20020, \'t_a\')'), '0',
	'index equals seqscan for every value after the run');
$node->safe_psql('postgres', 'VACUUM t');
is($node->safe_psql('postgres', 'SELECT mismatches(-300, 20020, \'t_a\')'), '0',
	'index equals seqscan for every value after a final VACUUM');
check_query($node, 'postgres', "SELECT * FROM t WHERE a = 77 AND b = md5('77')");

# CREATE INDEX CONCURRENTLY while inserts go on
$node->safe_psql('postgres', 'DROP INDEX t_a; DROP INDEX t_ab');
my $bg = $node->background_psql('postgres');
$bg->query_until(qr/start/, q{
	\echo start
	CREATE INDEX CONCURRENTLY t_a_cic ON t USING scbf (a);
});
$node->pgbench(
	'--no-vacuum --client=4 --transactions=300',
	0,
	[qr{processed: 1200/1200}],
	[qr{^$}],
	'inserts during CREATE INDEX CONCURRENTLY',
	{
		'005_cic_insert' => q{
			\set r random(20001, 40000)
			INSERT INTO t (a, b) SELECT :r + g, 'cic' FROM generate_series(1, 5) g;
		}
	});
$bg->quit;
is($node->safe_psql('postgres',
		"SELECT indisvalid FROM pg_index WHERE indexrelid = 't_a_cic'::regclass"),
	't', 'concurrently built index is valid');
is($node->safe_psql('postgres', 'SELECT mismatches(-300, 40010, \'t_a_cic\')'), '0',
	'concurrently built index finds every row');

# REINDEX CONCURRENTLY too
$node->safe_psql('postgres', 'REINDEX INDEX CONCURRENTLY t_a_cic');
is($node->safe_psql('postgres', 'SELECT mismatches(-300, 40010, \'t_a_cic\')'), '0',
	'REINDEX CONCURRENTLY keeps every row');

$node->stop;
done_testing();
