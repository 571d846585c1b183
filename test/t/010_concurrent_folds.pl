# Concurrency of storage format 2 (src/README, "Storage v2"): pgbench
# clients insert (transactions of one row and of twenty, so that a flush
# appends to one partition or to several in one record), delete, fold on
# demand and VACUUM (folds, removals, merges, the page census) while other
# clients probe rows that exist all along (a probe that misses one fails
# its transaction: division by zero) and rows their own transaction has
# just inserted (the probe reads the backend's batch in memory).
# Then every value is compared with a sequential scan, before and after a
# final VACUUM.  Last, CREATE INDEX CONCURRENTLY of a format-2 index while
# clients insert: every committed row is found through the new index.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use lib 'test/t';
use ScbfTest;

my $node = new_node('f2concurrent');
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
	CREATE INDEX t_ba ON t USING scbf (b, a) WITH (pages_per_segment = 16);
	-- free space in every segment: the inserts below land there
	DELETE FROM t WHERE a >= 0 AND id % 3 = 0;
	VACUUM t;
});

$node->pgbench(
	'--no-vacuum --client=6 --jobs=2 --transactions=250 --random-seed=1010',
	0,
	[qr{processed: 1500/1500}],
	[qr{^pgbench: setting random seed to 1010\n$}],
	'format 2: inserts, deletes, probes, folds and VACUUM together',
	{
		'001_insert_many@6' => q{
			\set r random(0, 4999)
			INSERT INTO t (a, b, c) SELECT (:r + g) % 5000, md5((:r * 7 + g)::text), g FROM generate_series(1, 20) g;
		},
		'002_insert_one@6' => q{
			\set r random(0, 4999)
			BEGIN;
			INSERT INTO t (a, b, c) VALUES (:r, 'one' || :r, 1);
			SET LOCAL enable_seqscan = off;
			SELECT 1 / count(*) FROM t WHERE a = :r AND b = 'one' || :r;
			SELECT 1 / count(*) FROM t WHERE b = 'one' || :r;
			COMMIT;
		},
		'003_delete@2' => q{
			\set r random(0, 4990)
			DELETE FROM t WHERE a BETWEEN :r AND :r + 3;
		},
		'004_probe@6' => q{
			\set m random(1, 500)
			SET enable_seqscan = off;
			SELECT 1 / count(*) FROM t WHERE a = -:m;
			SELECT 1 / count(*) FROM t WHERE b = 'anchor' || :m AND a = -:m;
			SELECT 1 / count(*) FROM t WHERE a IN (-:m, -1, 123456);
		},
		'005_fold@1' => q{
			SELECT scbf_clean_pending('t_a') + scbf_clean_pending('t_ba');
		},
		'006_vacuum@1' => q{
			VACUUM t;
		}
	});

# every value against a sequential scan (ScbfTest's probe_churned), and
# the second column
sub probe_all
{
	my ($what) = @_;
	probe_churned($node, $what);
	scbf_same($node, 'postgres',
		[ [ "SELECT * FROM t WHERE b = 'anchor77' AND a = -77", 1 ],
		  "SELECT * FROM t WHERE b IN ('anchor1', 'anchor500', md5('2'), md5('59999'))" ],
		name => "$what: second column");
}
probe_all('format 2 after the run');
$node->safe_psql('postgres', 'VACUUM t');
probe_all('format 2 after a final VACUUM');
is($node->safe_psql('postgres', "SELECT scbf_clean_pending('t_a') + scbf_clean_pending('t_ba')"),
	'0', 'format 2: VACUUM folded everything');

# ---- CREATE INDEX CONCURRENTLY of a format-2 index while clients insert
$node->safe_psql('postgres', 'DROP INDEX t_a; DROP INDEX t_ba;');
my $bg = $node->background_psql('postgres');
$bg->query_until(qr/cic/, "\\echo cic\n"
	  . "CREATE INDEX CONCURRENTLY t_cic ON t USING scbf (a, b) WITH (pages_per_segment = 8);\n");
$node->pgbench(
	'--no-vacuum --client=4 --jobs=2 --transactions=200 --random-seed=1011',
	0,
	[qr{processed: 800/800}],
	[qr{^pgbench: setting random seed to 1011\n$}],
	'format 2: inserts during CREATE INDEX CONCURRENTLY',
	{
		'001_insert@1' => q{
			\set r random(0, 4999)
			INSERT INTO t (a, b, c) VALUES (:r, 'cic' || :client_id, 2);
		}
	});
$bg->query_safe('SELECT 1');
$bg->quit;
is($node->safe_psql('postgres',
		"SELECT indisvalid FROM pg_index WHERE indexrelid = 't_cic'::regclass"),
	't', 'format 2: CREATE INDEX CONCURRENTLY finished with a valid index');
is($node->safe_psql('postgres', "SELECT count(*) FROM t WHERE b LIKE 'cic%'"), '800',
	'format 2: every insert during the CIC committed');
scbf_same($node, 'postgres',
	[ map { [ "SELECT * FROM t WHERE b = 'cic$_' AND a >= 0", 200 ] } 0 .. 3 ],
	name => 'format 2: every row inserted during the CIC, through the new index');
probe_all('format 2 after CREATE INDEX CONCURRENTLY');

# ---- bands of at most 16 filters (scbf.test_band_filters for the
# server): clients insert rows of 500 bytes (a segment of 8 heap pages
# holds about 120), so the folds (the fold client's, the inserts' own
# flushes and helpers) add filters and open band after band (src/README,
# "Growth beyond one band") while clients delete, VACUUM, and probe: the
# anchors (a probe that misses one fails its transaction), the row their
# own transaction has just inserted, and random values, each compared with
# a sequential scan in the same snapshot (a difference fails the
# transaction).
$node->append_conf('postgresql.conf', "scbf.test_band_filters = 16\n");
$node->reload;
$node->poll_query_until('postgres', "SELECT current_setting('scbf.test_band_filters') = '16'")
  or die 'scbf.test_band_filters = 16 did not take effect';
# band_run($t, $what): table $t and its index ${t}_a, grown so by the
# clients below; $what names the checks
sub band_run
{
	my ($t, $what) = @_;
	$node->safe_psql('postgres', qq{
		CREATE TABLE $t (id bigserial, a int, pad text);
		INSERT INTO $t (a, pad) SELECT -g, 'anchor' || g FROM generate_series(1, 500) g;
		CREATE INDEX ${t}_a ON $t USING scbf (a) WITH (pages_per_segment = 8);
	});
	my $bands = "SELECT count(DISTINCT serial) FROM scbf_pages('${t}_a') WHERE kind = 'rows'";
	is($node->safe_psql('postgres', $bands), 1, "$what: the index is built with one band");
	my %scripts = (
		'b01_insert_many@6' => q{
			\set r random(0, 4999)
			INSERT INTO tb (a, pad) SELECT (:r + g) % 5000, repeat('x', 500) FROM generate_series(1, 30) g;
		},
		'b02_insert_one@3' => q{
			\set r random(0, 4999)
			BEGIN;
			INSERT INTO tb (a, pad) VALUES (:r, 'one' || :r);
			SET LOCAL enable_seqscan = off;
			SELECT 1 / count(*) FROM tb WHERE a = :r AND pad = 'one' || :r;
			COMMIT;
		},
		'b03_delete@1' => q{
			\set r random(0, 4990)
			DELETE FROM tb WHERE a BETWEEN :r AND :r + 3;
		},
		'b04_probe@4' => q{
			\set m random(1, 500)
			SET enable_seqscan = off;
			SELECT 1 / count(*) FROM tb WHERE a = -:m;
			SELECT 1 / count(*) FROM tb WHERE a IN (-:m, -1, 123456);
		},
		'b05_probe_same@4' => q{
			\set r random(0, 4990)
			BEGIN ISOLATION LEVEL REPEATABLE READ;
			SET LOCAL enable_seqscan = off;
			SET LOCAL enable_indexscan = off;
			SELECT count(*) AS ic, coalesce(sum(id), 0) AS isum FROM tb WHERE a IN (:r, :r + 3, :r + 7, -1 - :r % 500) \gset
			SET LOCAL enable_seqscan = on;
			SET LOCAL enable_bitmapscan = off;
			SELECT count(*) AS sc, coalesce(sum(id), 0) AS ssum FROM tb WHERE a IN (:r, :r + 3, :r + 7, -1 - :r % 500) \gset
			SELECT 1 / (:ic = :sc AND :isum = :ssum AND :ic > 0)::int;
			COMMIT;
		},
		'b06_fold@2' => q{
			SELECT scbf_clean_pending('tb_a');
		},
		'b07_vacuum@1' => q{
			VACUUM tb;
		}
	);
	# the scripts name table tb and its index tb_a; their files, the table
	my %named;
	for my $name (keys %scripts)
	{
		(my $sql = $scripts{$name}) =~ s/\btb_a\b/${t}_a/g;
		$sql =~ s/\btb\b/$t/g;
		$named{"${t}_$name"} = $sql;
	}
	$node->pgbench(
		'--no-vacuum --client=6 --jobs=2 --transactions=250 --random-seed=1012',
		0,
		[qr{processed: 1500/1500}],
		[qr{^pgbench: setting random seed to 1012\n$}],
		"$what: inserts that open bands, deletes, probes, folds and VACUUM together",
		\%named);
	cmp_ok($node->safe_psql('postgres', $bands), '>', 3, "$what: the folds opened band after band");
	probe_churned($node, "$what: after the run", table => $t);
	verify_clean($node, "${t}_a", "$what: after the run");
	$node->safe_psql('postgres', "VACUUM $t");
	probe_churned($node, "$what: after a final VACUUM", table => $t);
	note("$what: " . $node->safe_psql('postgres', "SELECT filters || ' filters, ' || ($bands) || ' bands' FROM scbf_index_info('${t}_a')"));
	verify_clean($node, "${t}_a", "$what: after a final VACUUM");
}

band_run('tb', 'bands');

# ---- the same with a group a band (scbf.test_group_bands): VACUUM opens
# the top over the groups and writes it anew, wider, while folds open
# groups within its width and cover them, and clients probe
$node->append_conf('postgresql.conf', "scbf.test_group_bands = 1\n");
$node->reload;
$node->poll_query_until('postgres', "SELECT current_setting('scbf.test_group_bands') = '1'")
  or die 'scbf.test_group_bands = 1 did not take effect';
band_run('tt', 'top');
is($node->safe_psql('postgres', "SELECT count(*) FROM scbf_pages('tt_a') WHERE kind = 'top map'"), '1',
	'top: the index has a top over its groups');
$node->append_conf('postgresql.conf', "scbf.test_group_bands = 0\n");
$node->append_conf('postgresql.conf', "scbf.test_band_filters = 0\n");
$node->reload;

$node->stop;
done_testing();
