# A full disk under scbf indexes: their tablespace lies on a small file
# system (a tmpfs that test/run-tests mounts, as root, for this test and
# names in SCBF_SMALL_FS), which a filler file fills until the server
# reports "No space left on device" for a table there; a few hundred kB are
# then freed, so that a build or an insert fails part-way, after the index
# has grown.
# The table itself and the WAL stay on the ordinary disk, so the server goes
# on; only the index files cannot grow.
#
#   1. CREATE INDEX into the full tablespace ends in the error and leaves
#      no index; with space again, the same CREATE INDEX succeeds;
#   2. a large INSERT into a table whose scbf indexes lie in the full
#      tablespace ends in the error; its rows are lost, and every index
#      passes scbf_verify (heapallindexed) and answers as a sequential scan
#      does, still with the disk full; so after VACUUM, whether it
#      succeeds or ends in the same error (it can: recording a freed page
#      may need a new page of the index's free space map);
#   3. with space again, the same INSERT succeeds (it also finishes
#      whatever the failed one left half-made), VACUUM takes out the lost
#      rows' entries, and the indexes are whole;
#   4. an index of 8-page segments (many small filters) goes through 1 to
#      3 too (compared with a sequential scan);
#   5. a row inserted before a savepoint whose INSERT then fails to write
#      the batch they share: the commit fails, or the index finds the row.
# A fold cut short by the full disk leaves pages that no structure names (a
# NOTICE of the verifier, which VACUUM frees once it has space).
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

my $node = start_node('full_disk', conf => "autovacuum = off\n");

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

# Fill the small file system: a file of the size of $gap 1 kB rows in heap
# pages (7 a page), then a filler file that takes every byte left, written
# by the test (a table filled by INSERTs took a minute); an INSERT into a
# table of the tablespace must then fail for want of space.  Then the first
# file goes, so that about $gap kB are free and an index can grow a little
# before it finds no more space.  unfill($name) frees the rest.
sub fill
{
	my ($name, $gap) = @_;
	my $chunk = 'x' x (1024 * 1024);
	my $write = sub {
		my ($path, $bytes) = @_;
		open(my $fh, '>:raw', $path) or die "open $path: $!";
		my $written = 0;
		while (!defined $bytes || $written < $bytes)
		{
			my $n = defined $bytes && $bytes - $written < length($chunk) ? $bytes - $written : length($chunk);
			my $w = syswrite($fh, $chunk, $n);
			if (!$w)
			{
				die "write $path: $!" if defined $bytes || !$!{ENOSPC};
				# the last MB: in pages, down to the last one
				last if length($chunk) == 4096;
				$chunk = 'x' x 4096;
				next;
			}
			$written += $w;
		}
		close($fh);
		return $written;
	};
	q1("CREATE UNLOGGED TABLE $name (x text) TABLESPACE small");
	$write->("$fs/${name}_gap", 8192 * int(($gap + 6) / 7));
	my $filled = $write->("$fs/$name", undef);
	my ($ret, $out, $err) = $node->psql('postgres',
		"INSERT INTO $name SELECT repeat('x', 1000) FROM generate_series(1, 100)");
	like($err, $enospc, "$name: the tablespace is full (" . int($filled / 1024 / 1024) . ' MB of filler)');
	unlink("$fs/${name}_gap") or die "unlink: $!";
}

# unfill($name): the space that fill($name) took is free again
sub unfill
{
	my ($name) = @_;
	unlink("$fs/$name") or die "unlink: $!";
	q1("DROP TABLE $name");
}

# pages of the indexes $list (a comma-separated list)
sub index_pages
{
	return q1("SELECT (sum(pg_relation_size(i)) / current_setting('block_size')::int)::bigint "
		  . "FROM unnest('{$_[0]}'::regclass[]) i");
}

# The probes: values with rows, and values never inserted
sub check_all
{
	my ($what, %opt) = @_;
	verify_clean($node, $_, $what, %opt) for ('t_a', 't_b');
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
fill('fill1', 200);
{
	my ($ret, $out, $err) = $node->psql('postgres',
		'CREATE INDEX t_a ON t USING scbf (a) WITH (pages_per_segment = 8) TABLESPACE small');
	like($err, $enospc, 'CREATE INDEX: ends in the error of the full disk');
	is(q1("SELECT count(*) FROM pg_class WHERE relname = 't_a'"), '0', 'CREATE INDEX: no index is left');
	unfill('fill1');
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
my $pages = index_pages('t_a,t_b');
fill('fill2', 1000);
my $insert = "INSERT INTO t SELECT g, g % 1000, 'b' || (g % 20011) FROM generate_series(100001, 300000) g";
{
	my ($ret, $out, $err) = $node->psql('postgres', $insert);
	like($err, $enospc, 'INSERT: ends in the error of the full disk');
	is(q1('SELECT count(*) FROM t'), $rows, 'INSERT: its rows are lost');
	my $now = index_pages('t_a,t_b');
	cmp_ok($now, '>', $pages, "INSERT: the indexes grew from $pages to $now pages before the disk was full");
	check_all('after an INSERT on a full disk, the disk still full', above => 1, leftovers => ['pages']);

	# VACUUM takes out the lost rows' entries, or fails for want of space:
	# either way the indexes stay whole
	($ret, $out, $err) = $node->psql('postgres', 'VACUUM (INDEX_CLEANUP ON) t');
	ok($ret == 0 || $err =~ $enospc, 'VACUUM on the full disk: succeeds or ends in the error of the full disk')
	  or diag($err);
	note('VACUUM on the full disk: ' . ($ret == 0 ? 'succeeded' : $err));
	note('in the small tablespace: ' . q1("SELECT string_agg(relname || ' ' || relfilenode, ', ') FROM pg_class WHERE reltablespace = (SELECT oid FROM pg_tablespace WHERE spcname = 'small')"));
	check_all('after VACUUM on a full disk', leftovers => ['pages']);
}

# ---- 3. space again
unfill('fill2');
q1($insert);
is(q1('SELECT count(*) FROM t'), $rows + 200000, 'with space again, the INSERT succeeds');
q1('VACUUM (INDEX_CLEANUP ON) t');
is(entries('t_a'), $rows + 200000, 'after VACUUM, t_a holds an entry per row, none of the lost rows');
is(entries('t_b'), $rows + 200000, 'after VACUUM, t_b holds an entry per row, none of the lost rows');
check_all('after the full disk, with space again');

# ---- 4. the same for an index of 8-page segments: a build, inserts into
# its pending area and VACUUM's fold on a full disk, its answers compared
# with a sequential scan.
{
	my $f2 = 'CREATE INDEX t2_a ON t2 USING scbf (a) WITH (pages_per_segment = 8) TABLESPACE small';
	my $check2 = sub {
		my ($what) = @_;
		scbf_same($node, 'postgres', [ 'SELECT * FROM t2 WHERE a = 7', 'SELECT * FROM t2 WHERE a IN (1, 500, 999)' ],
			name => "t2, $what");
		scbf_same($node, 'postgres', 'SELECT * FROM t2 WHERE a = -1', rows => 'empty',
			name => "t2, $what: a value never inserted");
	};
	q1('CREATE TABLE t2 (id int, a int); INSERT INTO t2 SELECT g, g % 1000 FROM generate_series(1, 100000) g');
	fill('fill3', 200);
	my ($ret, $out, $err) = $node->psql('postgres', $f2);
	like($err, $enospc, 't2: CREATE INDEX ends in the error of the full disk');
	is(q1("SELECT count(*) FROM pg_class WHERE relname = 't2_a'"), '0', 't2: CREATE INDEX leaves no index');
	unfill('fill3');
	q1($f2);
	$check2->('built');
	my $rows2 = q1('SELECT count(*) FROM t2');
	my $pages2 = index_pages('t2_a');
	fill('fill4', 1000);
	my $insert2 = 'INSERT INTO t2 SELECT g, g % 1000 FROM generate_series(100001, 300000) g';
	($ret, $out, $err) = $node->psql('postgres', $insert2);
	like($err, $enospc, 't2: INSERT ends in the error of the full disk');
	my $now = index_pages('t2_a');
	cmp_ok($now, '>', $pages2, "t2: INSERT: the index grew from $pages2 to $now pages before the disk was full");
	is(q1('SELECT count(*) FROM t2'), $rows2, 't2: its rows are lost');
	$check2->('after an INSERT on a full disk');
	($ret, $out, $err) = $node->psql('postgres', 'VACUUM (INDEX_CLEANUP ON) t2');
	ok($ret == 0 || $err =~ $enospc, 't2: VACUUM on the full disk succeeds or ends in the error of the full disk')
	  or diag($err);
	note('t2: VACUUM on the full disk: ' . ($ret == 0 ? 'succeeded' : $err));
	$check2->('after VACUUM on a full disk');
	unfill('fill4');
	q1($insert2);
	is(q1('SELECT count(*) FROM t2'), $rows2 + 200000, 't2: with space again, the INSERT succeeds');
	q1('VACUUM (INDEX_CLEANUP ON) t2');
	$check2->('with space again');
}

# ---- 5. a savepoint rolled back after its INSERT's index writes failed:
# the batch held the entries of a row inserted before the savepoint too,
# and they went with the failed write, so the commit fails rather than keep
# a row the indexes cannot find; had the write of that row's entries
# succeeded, the index would find it
fill('fill5', 0);
{
	my ($ret, $out, $err) = $node->psql('postgres', qq{
		SET scbf.fold_helpers = off;
		BEGIN;
		INSERT INTO t VALUES (-7, -7, 'before the savepoint');
		SAVEPOINT s;
		$insert;
		ROLLBACK TO SAVEPOINT s;
		COMMIT;
	}, on_error_stop => 0);
	like($err, $enospc, 'savepoint: the INSERT under it ends in the error of the full disk');
	if (q1('SELECT count(*) FROM t WHERE id = -7') eq '0')
	{
		like($err, qr/ERROR:  entries of index "t_[ab]" written in this transaction were lost/,
			'savepoint: the commit fails, its entries lost with the failed write');
	}
	else
	{
		pass('savepoint: the row before the savepoint is committed');
		scbf_same($node, 'postgres', [ 'SELECT * FROM t WHERE a = -7', "SELECT * FROM t WHERE b = 'before the savepoint'" ],
			name => 'savepoint: the committed row is found');
	}
}
unfill('fill5');
check_all('after a savepoint rolled back on a full disk', leftovers => ['pages']);

$node->safe_psql('postgres', 'DROP TABLE t, t2; DROP TABLESPACE small');
$node->stop;
done_testing();
