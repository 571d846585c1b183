# Walks of a storage-format-2 index (src/README, "Storage v2") over pages
# broken on purpose, hit by every caller that walks them: VACUUM
# (ambulkdelete and amvacuumcleanup), autovacuum, an insert, a fold on
# demand (scbf_clean_pending), scans, the diagnostics and the verifier.
# Format 2's one linked list is a pending partition's chain; the ledger
# roots, the filter table and the band are reached through block numbers
# that the metapage and the roots hold.  Broken here, one at a time:
#
#   1. a pending chain that loops (a page whose next is itself);
#   2. a pending chain that leads past the end of the index;
#   3. a ledger root whose first leaf is past the end of the index;
#   4. a ledger root whose first leaf is the root itself (a page of
#      another kind);
#   5. a metapage whose first filter-table page is past the end of the
#      index;
#   6. a ledger root whose inline leaf (a run's last leaf, held in the
#      root) claims more bytes than a leaf holds;
#   7. a delta page (src/scbfdelta.c) that claims more entries than a page
#      holds, and one whose serial is not the delta's (the page of another
#      delta).
#
# Each reader must end with ERRCODE_INDEX_CORRUPTED naming the index and
# the problem, or, for a diagnostic that reports what it can read
# (scbf_segments, scbf_filters, scbf_pages), with an answer, by itself: not
# by the statement_timeout the statement runs under, nor by the test's own
# timeout (a backend that spins, deaf to the cancel, would outlive both).
# A pending page whose next is itself has the wrong serial for its own
# successor, which is how a reader recognizes a page freed under it: it
# starts over, and after a few attempts takes the fold lock, under which
# nothing is freed, and reports the index as changed under that lock.
# Autovacuum's VACUUM fails the same way, round after round.  The server
# survives all of it; after a REINDEX the index verifies and answers as a
# sequential scan does.  020_verify_corruption.pl has the verifier's own
# reports of format-2 pages and format 1's lists that loop.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use lib 'test/t';
use ScbfTest;

my $BLCKSZ = 8192;
my $SPECIAL = $BLCKSZ - 16;

# Format-2 layout (src/scbf_page.h), checked against the server below
# before use: page contents at 24; special space owner u32 +0, index u32
# +4, column u16 +8, type u8 +10; a pending page's next u32 @24; a root's
# first run at 32 (after nruns u16, nbytes u32), its nleaves u16 at +20,
# its inline leaf's bytes u16 at +22, its first fence (hash u32, blkno u32)
# at +24 of the run; the metapage's filter-table pages u32 @2232 and the
# first block of its first run of them u32 @2240; a delta page's nentries u16 @24, its
# serial in the owner field, its partition in the index field.
my $PENDING_NEXT = 24;
my $ROOT_RUN0_NLEAVES = 32 + 20;
my $ROOT_RUN0_INLINED = 32 + 22;
my $ROOT_FENCE0_BLKNO = 32 + 24 + 4;
my $META_NTABLEPAGES = 24 + 2208;
my $META_TABLEPAGES = 24 + 2216;
my $DELTA_NENTRIES = 24;
my $FAR = 999999;

my $node = start_node('format2_walks', conf => "autovacuum = off\n");
is($node->safe_psql('postgres', 'SHOW data_checksums'),
	'off', 'data checksums are off: pages can be edited in place');

sub q1 { return $node->safe_psql('postgres', $_[0]); }

# a page of the index as on disk; overwrite bytes of it (ScbfTest.pm)
sub read_page { my ($idx, $blkno) = @_; return read_index_page($node, $idx, $blkno); }
sub patch { my ($idx, @edits) = @_; patch_index($node, $idx, @edits); }

sub u8 { return unpack('C', substr($_[0], $_[1], 1)); }
sub u16 { return unpack('v', substr($_[0], $_[1], 2)); }
sub u32 { return unpack('V', substr($_[0], $_[1], 4)); }

# the first page of a kind, as scbf_pages lists it
sub page_of
{
	my ($idx, $kind) = @_;
	return q1("SELECT min(blkno) FROM scbf_pages('$idx') WHERE kind = '$kind'");
}

# the first root of lq_a whose first run's first leaf is a page ($inline
# false), or whose first run keeps its last leaf inline ($inline true)
sub root_of
{
	my ($inline) = @_;
	for my $root (split /\n/, q1("SELECT blkno FROM scbf_pages('lq_a') WHERE kind = 'root' ORDER BY blkno"))
	{
		my $page = read_page('lq_a', $root);
		return $root
		  if $inline
		  ? u16($page, $ROOT_RUN0_INLINED) > 0
		  : u16($page, $ROOT_RUN0_NLEAVES) > 1 && u32($page, $ROOT_FENCE0_BLKNO) != 0xFFFFFFFF;
	}
	die "lq_a has no root with " . ($inline ? 'an inline leaf' : 'a leaf page');
}

# Run $sql under a statement_timeout of 60 s (and the test's timeout of
# 150 s); it must end by itself with ERRCODE_INDEX_CORRUPTED naming lq_a,
# and its message or DETAIL must match $re
sub walk_fails
{
	my ($sql, $re, $name) = @_;
	local $Test::Builder::Level = $Test::Builder::Level + 1;
	my $timed_out = 0;
	my ($ret, $out, $err) = $node->psql('postgres',
		"\\set VERBOSITY verbose\nSET statement_timeout = '60s';\n$sql",
		timeout => 150, timed_out => \$timed_out);
	ok(!$timed_out && $ret != 0, "$name: ends with an error");
	like($err, qr/ERROR:  XX002: [^\n]*index "lq_a"/, "$name: ERRCODE_INDEX_CORRUPTED, names the index");
	like($err, qr/$re/, "$name: the error names the problem");
	note("$name: $err");
	is(q1('SELECT 1'), '1', "$name: server alive");
}

# Run $sql (a diagnostic) as walk_fails does: it must end by itself, with
# its answer or with ERRCODE_INDEX_CORRUPTED
sub walk_ends
{
	my ($sql, $name) = @_;
	local $Test::Builder::Level = $Test::Builder::Level + 1;
	my $timed_out = 0;
	my ($ret, $out, $err) = $node->psql('postgres',
		"\\set VERBOSITY verbose\nSET statement_timeout = '60s';\n$sql",
		timeout => 150, timed_out => \$timed_out);
	ok(!$timed_out && ($ret == 0 || $err =~ /ERROR:  XX002: [^\n]*index "lq_a"/),
		"$name: ends with an answer or ERRCODE_INDEX_CORRUPTED")
	  or diag($err);
	note("$name: " . ($ret == 0 ? 'answered' : $err));
	is(q1('SELECT 1'), '1', "$name: server alive");
}

# lq: a format-2 index (the default), lq_a, built on 20000 rows, with
# dead rows for VACUUM to remove and entries in the pending area (inserted
# after the build, too few for a fold)
$node->safe_psql('postgres', q{
	CREATE EXTENSION scbf;
	CREATE TABLE lq (id int, a int) WITH (autovacuum_enabled = off);
});

# (Re)fill lq and build a fresh lq_a, before each break
sub fresh_index
{
	$node->safe_psql('postgres', q{
		DROP INDEX IF EXISTS lq_a;
		TRUNCATE lq;
		INSERT INTO lq SELECT g, g % 500 FROM generate_series(1, 20000) g;
		CREATE INDEX lq_a ON lq USING scbf (a) WITH (pages_per_segment = 16);
		INSERT INTO lq SELECT g, g % 500 FROM generate_series(20001, 20300) g;
		DELETE FROM lq WHERE id % 10 = 0 AND id <= 20000;
		CHECKPOINT;
	});
	my ($ret, $out, $err) = $node->psql('postgres', "SELECT scbf_verify('lq_a', true)");
	ok($ret == 0 && $err eq '', 'fresh lq_a verifies') or diag($err);
	cmp_ok(q1("SELECT entries_pending FROM scbf_index_info('lq_a')"), '>', 0,
		'fresh lq_a has pending entries');
}

fresh_index();
is(q1("SELECT max_count > 0 AND stale_counters = 0 FROM scbf_index_info('lq_a')"), 't',
	'lq_a: the diagnostics count its entries, and every set bit has a count');

# the layout the offsets above assume, on a fresh index
{
	my $meta = read_page('lq_a', 0);
	my $table = page_of('lq_a', 'table');
	is(u32($meta, $META_NTABLEPAGES), q1("SELECT count(*) FROM scbf_pages('lq_a') WHERE kind = 'table'"),
		'layout: the metapage counts the filter-table pages');
	is(u32($meta, $META_TABLEPAGES), $table, 'layout: the metapage lists the first filter-table page');
	my $root = root_of(0);
	is(u8(read_page('lq_a', $root), $SPECIAL + 10), 8, 'layout: a root page where scbf_pages says');
	my $leaf = u32(read_page('lq_a', $root), $ROOT_FENCE0_BLKNO);
	is(q1("SELECT kind FROM scbf_pages('lq_a') WHERE blkno = $leaf"), 'leaf',
		"layout: the root's first fence names a leaf");
	my $iroot = read_page('lq_a', root_of(1));
	my $nleaves = u16($iroot, $ROOT_RUN0_NLEAVES);
	is(u32($iroot, $ROOT_FENCE0_BLKNO + 8 * ($nleaves - 1)), 0xFFFFFFFF,
		"layout: a root's inline leaf is its run's last, and names no block");
	my $pend = page_of('lq_a', 'pending');
	is(u8(read_page('lq_a', $pend), $SPECIAL + 10), 10, 'layout: a pending page where scbf_pages says');
	is(u32(read_page('lq_a', $pend), $PENDING_NEXT), 0xFFFFFFFF,
		'layout: a pending page of a short partition ends its chain');
}

# the diagnostics that report what they read: they end
sub diagnostics_end
{
	my ($what) = @_;
	walk_ends("SELECT count(*) FROM scbf_index_info('lq_a')", "$what: scbf_index_info");
	walk_ends("SELECT count(*) FROM scbf_segments('lq_a')", "$what: scbf_segments");
	walk_ends("SELECT count(*) FROM scbf_filters('lq_a')", "$what: scbf_filters");
	walk_ends("SELECT count(*) FROM scbf_pages('lq_a')", "$what: scbf_pages");
}

# a value whose probe reads pending partition $part (the first column's
# hash, top 4 bits: src/README, D2)
sub value_of_partition
{
	my ($part) = @_;
	return q1("SELECT v FROM generate_series(0, 499) v "
		  . "WHERE (hashint4(v)::bigint & 4294967295) >> 28 = $part LIMIT 1");
}

# ---- 1. a pending chain that loops: its page names itself as the next
{
	my $blk = page_of('lq_a', 'pending');
	my $part = u32(read_page('lq_a', $blk), $SPECIAL);
	my $val = value_of_partition($part);
	patch('lq_a', [ $blk, $PENDING_NEXT, pack('V', $blk) ]);
	# the page's serial is not its successor's: a reader takes it for a
	# page freed under it, starts over a few times, then takes the fold
	# lock, under which the chain cannot change: then it reports corruption
	walk_fails("SET enable_seqscan = off;\nSELECT count(*) FROM lq WHERE a = $val",
		'changed during a scan that holds its fold lock', 'pending loop: a query');
	walk_fails("SELECT count(*) FROM scbf_probe('lq_a', $val)",
		'changed during a scan that holds its fold lock', 'pending loop: scbf_probe');
	walk_fails("SELECT scbf_clean_pending('lq_a')",
		'the pending area of index "lq_a" changed under the fold lock', 'pending loop: scbf_clean_pending');
	walk_fails('VACUUM (INDEX_CLEANUP ON) lq',
		'the pending area of index "lq_a" changed under the fold lock', 'pending loop: VACUUM');
	walk_fails("INSERT INTO lq SELECT 30000 + g, $val FROM generate_series(1, 50) g",
		'DETAIL:  The pending tail the metapage names has a successor',
		'pending loop: an insert into its partition');
	walk_fails("SELECT scbf_verify('lq_a')", "DETAIL:  Block $blk: The pending chain of partition $part names block $blk,",
		'pending loop: scbf_verify');
	diagnostics_end('pending loop');

	# autovacuum: the worker's VACUUM of lq fails the same way, instead of
	# spinning
	my $offset = -s $node->logfile;
	$node->safe_psql('postgres', q{
		ALTER TABLE lq SET (autovacuum_enabled = on, autovacuum_vacuum_threshold = 0,
			autovacuum_vacuum_scale_factor = 0);
		ALTER SYSTEM SET autovacuum = on;
		ALTER SYSTEM SET autovacuum_naptime = '1s';
		SELECT pg_reload_conf();
	});
	$node->wait_for_log(qr/ERROR:  [^\n]*index "lq_a"[^\n]*\n(?:[^\n]*\n)*?[^\n]*CONTEXT:  while vacuuming index "lq_a" of relation "public.lq"\n\s*automatic vacuum of table "postgres.public.lq"/,
		$offset);
	$node->safe_psql('postgres', q{
		ALTER TABLE lq SET (autovacuum_enabled = off);
		ALTER SYSTEM RESET autovacuum;
		ALTER SYSTEM RESET autovacuum_naptime;
		SELECT pg_reload_conf();
	});
	pass('pending loop: autovacuum fails with an error on lq_a');
	is(q1('SELECT 1'), '1', 'pending loop: autovacuum: server alive');
}

# ---- 2. a pending chain that leads past the end of the index
fresh_index();
{
	my $blk = page_of('lq_a', 'pending');
	my $part = u32(read_page('lq_a', $blk), $SPECIAL);
	my $val = value_of_partition($part);
	patch('lq_a', [ $blk, $PENDING_NEXT, pack('V', $FAR) ]);
	my $re = 'DETAIL:  A pending chain leaves the index or loops';
	walk_fails("SET enable_seqscan = off;\nSELECT count(*) FROM lq WHERE a = $val", $re,
		'pending past the end: a query');
	walk_fails("SELECT count(*) FROM scbf_probe('lq_a', $val)", $re, 'pending past the end: scbf_probe');
	walk_fails("SELECT scbf_clean_pending('lq_a')", $re, 'pending past the end: scbf_clean_pending');
	walk_fails('VACUUM (INDEX_CLEANUP ON) lq', $re, 'pending past the end: VACUUM');
	walk_fails("SELECT scbf_verify('lq_a')",
		"DETAIL:  Block $FAR: The pending chain of partition $part names block $FAR, outside the index",
		'pending past the end: scbf_verify');
	diagnostics_end('pending past the end');
}

# ---- 3. and 4. a ledger root whose first leaf is past the end of the
# index, or is the root itself; the probes ask for every value, so that
# some read that leaf
for my $what ('leaf past the end', 'leaf is the root')
{
	fresh_index();
	# the pending entries folded: VACUUM's first step cannot stop it
	q1("SELECT scbf_clean_pending('lq_a'); CHECKPOINT");
	my $root = root_of(0);
	my $target = $what eq 'leaf is the root' ? $root : $FAR;
	patch('lq_a', [ $root, $ROOT_FENCE0_BLKNO, pack('V', $target) ]);
	my $re = $target == $FAR
	  ? "DETAIL:  A link points to block $FAR, outside the index"
	  : "DETAIL:  Block $root is not the page of type 9 that a link says it is";
	walk_fails("SET enable_seqscan = off;\nSELECT count(*) FROM lq WHERE a IN ("
		  . join(',', 0 .. 499) . ')', $re, "$what: a query");
	walk_fails('SELECT count(*) FROM generate_series(0, 499) v, '
		  . "LATERAL scbf_probe('lq_a', v)", $re, "$what: scbf_probe");
	walk_fails('VACUUM (INDEX_CLEANUP ON) lq', $re, "$what: VACUUM");
	walk_fails("SELECT scbf_verify('lq_a')", "DETAIL:  Block $target: Leaf 0 of a run of filter \\d+ names block $target,",
		"$what: scbf_verify");
	diagnostics_end($what);
}

# ---- 5. a metapage whose first filter-table page is past the end
fresh_index();
{
	patch('lq_a', [ 0, $META_TABLEPAGES, pack('V', $FAR) ]);
	my $re = "DETAIL:  A link points to block $FAR, outside the index";
	walk_fails("SET enable_seqscan = off;\nSELECT count(*) FROM lq WHERE a = 7", $re,
		'table past the end: a query');
	walk_fails("SELECT count(*) FROM scbf_probe('lq_a', 7)", $re, 'table past the end: scbf_probe');
	walk_fails("SELECT scbf_clean_pending('lq_a')", $re, 'table past the end: scbf_clean_pending');
	walk_fails('VACUUM (INDEX_CLEANUP ON) lq', $re, 'table past the end: VACUUM');
	walk_fails("SELECT scbf_verify('lq_a')",
		"DETAIL:  Block $FAR: The metapage's filter table page 0 names block $FAR, outside the index",
		'table past the end: scbf_verify');
	diagnostics_end('table past the end');
}

# ---- 6. a root whose inline leaf claims more bytes than a leaf holds
fresh_index();
{
	q1("SELECT scbf_clean_pending('lq_a'); CHECKPOINT");
	my $root = root_of(1);
	patch('lq_a', [ $root, $ROOT_RUN0_INLINED, pack('v', 0xFFFF) ]);
	my $re = 'DETAIL:  A ledger root lists runs that overflow its page';
	walk_fails("SET enable_seqscan = off;\nSELECT count(*) FROM lq WHERE a IN ("
		  . join(',', 0 .. 499) . ')', $re, 'inline leaf too long: a query');
	walk_fails('SELECT count(*) FROM generate_series(0, 499) v, '
		  . "LATERAL scbf_probe('lq_a', v)", $re, 'inline leaf too long: scbf_probe');
	walk_fails('VACUUM (INDEX_CLEANUP ON) lq', $re, 'inline leaf too long: VACUUM');
	walk_fails("SELECT scbf_verify('lq_a')",
		"DETAIL:  Ledger root at block $root lists \\d+ runs, whose run 0 overflows its \\d+ bytes or has an inline leaf that cannot be",
		'inline leaf too long: scbf_verify');
	diagnostics_end('inline leaf too long');
}

# ---- 7. a delta page that claims more entries than a page holds, then
# one whose serial is another delta's.  scbf.delta_band_pages = 0 makes
# even lq_a's small band take a fold's keys in the delta.
for my $what ('delta entry count', 'delta serial')
{
	fresh_index();
	q1("SET scbf.delta_band_pages = 0; SELECT scbf_clean_pending('lq_a'); CHECKPOINT");
	my ($blk, $serial, $part, $entries) = split /\|/,
	  q1("SELECT blkno, serial, block_index, entries FROM scbf_pages('lq_a') "
		  . "WHERE kind = 'delta' AND entries > 0 ORDER BY blkno LIMIT 1");
	ok(defined $entries && $entries > 0, "$what: the fold put keys in the delta");
	my $page = read_page('lq_a', $blk);
	is(u8($page, $SPECIAL + 10), 11, "$what: layout: a delta page where scbf_pages says");
	is(u16($page, $DELTA_NENTRIES), $entries, "$what: layout: the delta page's entry count");
	is(u32($page, $SPECIAL), $serial, "$what: layout: the delta page's serial");
	is(u32($page, $SPECIAL + 4), $part, "$what: layout: the delta page's partition");

	my ($query_re, $probe_re);
	if ($what eq 'delta entry count')
	{
		patch('lq_a', [ $blk, $DELTA_NENTRIES, pack('v', 0xFFFF) ]);
		# a probe that reads it says so
		$query_re = $probe_re =
		  "corrupted page at block $blk\\n[^\\n]*DETAIL:  A delta page has more entries than fit";
	}
	else
	{
		patch('lq_a', [ $blk, $SPECIAL, pack('V', $serial + 1) ]);
		# a probe takes it for the page of a delta that replaced this one:
		# it starts over, and under the fold lock reports the change
		$query_re = $probe_re = 'changed during a scan that holds its fold lock';
	}
	# the probes ask for every value, so that some read that page
	walk_fails("SET enable_seqscan = off;\nSELECT count(*) FROM lq WHERE a IN ("
		  . join(',', 0 .. 499) . ')', $query_re, "$what: a query");
	walk_fails('SELECT count(*) FROM generate_series(0, 499) v, '
		  . "LATERAL scbf_probe('lq_a', v)", $probe_re, "$what: scbf_probe");
	# VACUUM's cleanup and a fold into the delta (of every value) write
	# the page: they check it first
	my $writer_re = "corrupted page at block $blk\\n[^\\n]*DETAIL:  A delta page is not the one the delta has there";
	walk_fails('VACUUM (INDEX_CLEANUP ON) lq', $writer_re, "$what: VACUUM");
	walk_fails("SET scbf.delta_band_pages = 0;\n"
		  . "INSERT INTO lq SELECT 40000 + g, g FROM generate_series(0, 499) g;\n"
		  . "SELECT scbf_clean_pending('lq_a')", $writer_re, "$what: a fold into the delta");
	walk_fails("SELECT scbf_verify('lq_a')",
		"DETAIL:  Block $blk: Block $blk should be partition $part of the delta of serial $serial",
		"$what: scbf_verify");
	diagnostics_end($what);
}

# after all this the index can be rebuilt, verifies, and answers as a
# sequential scan does
q1('REINDEX INDEX lq_a');
verify_clean($node, 'lq_a', 'after REINDEX');
scbf_same($node, 'postgres', [ 'SELECT * FROM lq WHERE a = 7',
	'SELECT * FROM lq WHERE a IN (0, 100, 499)', [ 'SELECT * FROM lq WHERE a = 500', 'empty' ] ],
	name => 'after REINDEX');

$node->stop;
done_testing();
