# scbf_verify() finds each kind of inconsistency it claims to find, in
# pages broken on purpose: the node is stopped, bytes of the index's file
# are overwritten (data checksums are off), and the node is started again,
# as amcheck's own tests do.  For each case: what the verifier must say (an
# ERROR with ERRCODE_INDEX_CORRUPTED naming the problem, or only a NOTICE
# for what cannot cause a wrong answer), and that scans over the broken
# pages end with ERRCODE_INDEX_CORRUPTED or a correct answer, never a crash
# (where no reader can notice, as with a zeroed counter, the verifier is
# the only defence: then the server must merely survive).
#
# Then: the verifier gives no false alarm while inserts chain filters and
# VACUUM consolidates them under it, and it runs, with the other
# diagnostics, on a hot standby, where scbf_rebuild() refuses to.
#
# Page layout (src/scbf.h; checked against the server below before use):
#   page header 24 bytes, contents at 24, special space the last 16 bytes:
#     segno u32 +0, serial u32 +4, blkidx u16 +8, type u8 +10, page id +14
#   metapage at 24: magic u32, version u32, pages_per_segment u16 @32,
#     ncols @34, k @36, counter_bits @38, slice_counters u32 @40
#   directory entries from 24, 24 bytes each: head u32 +0, head_serial +4,
#     tail +8, tail_serial +12, next_serial +16, nfilters u16 +20, flags +22
#   filter page at 24: nonzero[16] u16 @24, nsaturated u32 @56, head only:
#     nblocks u16 @60, nlinked @62, state @64, flags @66, next u32 @68,
#     next_serial @72, ledger_head @76, ledger_tail @80, ledger_room @84,
#     nledger_pages @88, nsealed @92, blocks[64] u32 @96;
#     4-bit counters from 352 (counter c in byte c/2, even c low nibble)
#   ledger page at 24: next u32 @24, nentries u16 @28, ntombstones @30,
#     next_room u32 @32, flags u16 @36; entries from 40, each a u16 TID
#     (block in segment << 9 | offset) and a u32 hash per column
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use lib 'test/t';
use ScbfTest;

my $BLCKSZ = 8192;
my $SPECIAL = $BLCKSZ - 16;
my $COUNTERS = 352;
my $ENTRIES = 40;

# Format 1's pages, broken byte by byte (and its verifier under concurrent
# change, on a standby), until format 1 is removed: the node builds format
# 1 unless a session sets scbf.build_format = 2, as the format-2 cases
# below do.
my $node = start_node('verify_corruption', allows_streaming => 1,
	conf => "autovacuum = off\nscbf.build_format = 1\n");
is($node->safe_psql('postgres', 'SHOW data_checksums'),
	'off', 'data checksums are off: pages can be edited in place');

$node->safe_psql('postgres', q{
	CREATE EXTENSION scbf;
	CREATE TABLE v (a int, b text) WITH (autovacuum_enabled = off);
	INSERT INTO v SELECT g % 500, md5(g::text) FROM generate_series(1, 20000) g;
	-- the right answers, from a copy without an index (with a broken
	-- metapage, even the planning of a sequential scan on v fails)
	CREATE TABLE v_copy AS SELECT * FROM v;
});
my $relpages = $node->safe_psql('postgres',
	"SELECT pg_relation_size('v') / 8192");

# ---- helpers ----

sub q1 { return $node->safe_psql('postgres', $_[0]); }

# (Re)create an index and check that it verifies cleanly, without a NOTICE
sub fresh_index
{
	my ($name, $def) = @_;
	$node->safe_psql('postgres', "DROP INDEX IF EXISTS $name; CREATE INDEX $name ON v USING scbf $def; CHECKPOINT;");
	my ($ret, $out, $err) = $node->psql('postgres', "SELECT scbf_verify('$name', true)");
	is($ret, 0, "$name: fresh index verifies");
	is($err, '', "$name: fresh index verifies without a notice");
}

# a page of the index as on disk; overwrite bytes of it (ScbfTest.pm)
sub read_page { my ($idx, $blkno) = @_; return read_index_page($node, $idx, $blkno); }
sub patch { my ($idx, @edits) = @_; patch_index($node, $idx, @edits); }

sub u8 { return unpack('C', substr($_[0], $_[1], 1)); }
sub u16 { return unpack('v', substr($_[0], $_[1], 2)); }
sub u32 { return unpack('V', substr($_[0], $_[1], 4)); }

# scbf_verify must fail with ERRCODE_INDEX_CORRUPTED and a report matching $re
sub verify_fails
{
	my ($idx, $heapall, $re, $name) = @_;
	my ($ret, $out, $err) = $node->psql('postgres',
		"\\set VERBOSITY verbose\nSELECT scbf_verify('$idx', $heapall)");
	isnt($ret, 0, "$name: verify fails");
	like($err, qr/ERROR:  XX002: index "$idx"/, "$name: ERRCODE_INDEX_CORRUPTED, names the index");
	like($err, $re, "$name: the report names the problem");
	return $err;
}

# scbf_verify must pass, with a NOTICE matching $re
sub verify_notice
{
	my ($idx, $heapall, $re, $name) = @_;
	my ($ret, $out, $err) = $node->psql('postgres',
		"SELECT scbf_verify('$idx', $heapall)");
	is($ret, 0, "$name: verify passes");
	like($err, $re, "$name: reported as a NOTICE");
	unlike($err, qr/ERROR/, "$name: no error");
}

# A scan must end with a correct answer or ERRCODE_INDEX_CORRUPTED; with
# $may_miss (a break no reader can notice), merely without a crash
sub scans_survive
{
	my ($col, $values, $name, $may_miss) = @_;
	my $query = "SELECT count(*) FROM v WHERE $col IN ($values)";
	my $want = q1("SELECT count(*) FROM v_copy WHERE $col IN ($values)");
	my ($ret, $out, $err) = $node->psql('postgres',
		"\\set VERBOSITY verbose\nSET enable_seqscan = off;\n$query");
	if ($may_miss)
	{
		ok($ret == 0 || $err =~ /XX002/, "$name: scan ends cleanly ($out of $want rows)");
	}
	else
	{
		ok($ret == 0 && $out eq $want || $ret != 0 && $err =~ /XX002/,
			"$name: scan gives the right answer or ERRCODE_INDEX_CORRUPTED");
	}
	is(q1('SELECT 1'), '1', "$name: server alive");
}

# the first page of a kind (filter heads: block_index 0) of a segment
sub page_of
{
	my ($idx, $kind, $segno) = @_;
	return q1("SELECT min(blkno) FROM scbf_pages('$idx') WHERE kind = '$kind'"
		  . ($kind eq 'filter' ? ' AND block_index = 0' : '')
		  . (defined $segno ? " AND segno = $segno" : ''));
}

# the geometry of v_a's filter blocks, read below
my ($k, $m);

# Census of a filter block image: non-zero counters per slice
sub census
{
	my ($page, $k, $m) = @_;
	my @nz = (0) x $k;
	for my $i (0 .. $k * $m - 1)
	{
		my $byte = u8($page, $COUNTERS + int($i / 2));
		my $c = ($i % 2) ? ($byte >> 4) : ($byte & 0x0f);
		$nz[int($i / $m)]++ if $c;
	}
	return @nz;
}

# The first counter of a block image whose value is in [lo, hi]: (index, value)
sub find_counter
{
	my ($page, $k, $m, $lo, $hi) = @_;
	for my $i (0 .. $k * $m - 1)
	{
		my $byte = u8($page, $COUNTERS + int($i / 2));
		my $c = ($i % 2) ? ($byte >> 4) : ($byte & 0x0f);
		return ($i, $c) if $c >= $lo && $c <= $hi;
	}
	return;
}

# The byte of a block image with counter i set to value c
sub counter_byte
{
	my ($page, $i, $c) = @_;
	my $byte = u8($page, $COUNTERS + int($i / 2));
	$byte = ($i % 2) ? (($byte & 0x0f) | ($c << 4)) : (($byte & 0xf0) | $c);
	return [ $COUNTERS + int($i / 2), chr($byte) ];
}

# ---- the layout, checked against the server ----

fresh_index('v_a', '(a) WITH (pages_per_segment = 8)');
($k, $m) = split /\|/, q1("SELECT k, slice_counters FROM scbf_index_info('v_a')");
{
	my $meta = read_page('v_a', 0);
	is(u32($meta, 24), 0x5CBF1DE5, 'layout: metapage magic');
	is(u16($meta, 36), $k, 'layout: metapage k');
	is(u32($meta, 40), $m, 'layout: metapage slice_counters');
	is(u16($meta, $SPECIAL + 14), 0xFF5C, 'layout: page id');

	my ($head, $blocks, $lpages) = split /\|/,
	  q1("SELECT head_block, blocks, ledger_pages FROM scbf_filters('v_a', 0)");
	my $page = read_page('v_a', $head);
	is(u8($page, $SPECIAL + 10), 3, 'layout: filter page type');
	is(u16($page, 60), $blocks, 'layout: nblocks');
	is(u16($page, 64), 2, 'layout: state active');
	is(u32($page, 96), $head, 'layout: blocks[0] is the head');
	is(join(',', census($page, $k, $m)),
		join(',', map { u16($page, 24 + 2 * $_) } 0 .. $k - 1),
		'layout: counters and nonzero[] agree');
	my $lhead = u32($page, 76);
	is(q1("SELECT kind || ' ' || segno FROM scbf_pages('v_a') WHERE blkno = $lhead"),
		'ledger 0', 'layout: ledger_head');
	my $ledger = read_page('v_a', $lhead);
	is(u16($ledger, 28),
		q1("SELECT entries FROM scbf_pages('v_a') WHERE blkno = $lhead"),
		'layout: ledger nentries');
	my $tid = u16($ledger, $ENTRIES);
	ok(($tid >> 9) < 8 && ($tid & 0x1ff) >= 1, 'layout: first ledger entry is a TID');
}

# ---- 1. a counter below what the ledger implies: a potential false
# negative.  The bookkeeping is fixed too, so only the recount sees it.
{
	my $head = page_of('v_a', 'filter', 0);
	my $page = read_page('v_a', $head);
	my ($i, $c) = find_counter($page, $k, $m, 1, 14);
	my $slice = int($i / $m);
	patch('v_a', [ $head, @{ counter_byte($page, $i, 0) } ],
		[ $head, 24 + 2 * $slice, pack('v', u16($page, 24 + 2 * $slice) - 1) ]);
	verify_fails('v_a', 'false',
		qr/DETAIL:  Counter \d+ of slice $slice of block 0 of filter 1 of segment 0 is 0, its ledger implies at least $c: a row could be missed/,
		'counter zeroed');
	scans_survive('a', '1, 77, 250, 499', 'counter zeroed', 1);
}

# ---- 2. a whole block zeroed, bookkeeping included
fresh_index('v_a', '(a) WITH (pages_per_segment = 8)');
{
	my $head = page_of('v_a', 'filter', 1);
	patch('v_a', [ $head, 24, "\0" x 36 ],
		[ $head, $COUNTERS, "\0" x ($SPECIAL - $COUNTERS) ]);
	verify_fails('v_a', 'false', qr/segment 1 is 0, its ledger implies at least/,
		'block zeroed');
	scans_survive('a', '1, 77, 250, 499', 'block zeroed', 1);
}

# ---- 3. bookkeeping that does not match the counters
fresh_index('v_a', '(a) WITH (pages_per_segment = 8)');
{
	my $head = page_of('v_a', 'filter', 2);
	my $page = read_page('v_a', $head);
	patch('v_a', [ $head, 24 + 2 * 3, pack('v', u16($page, 24 + 2 * 3) + 1) ]);
	verify_fails('v_a', 'false',
		qr/Block 0 of filter 1 of segment 2 says slice 3 has \d+ non-zero counters, it has \d+/,
		'wrong nonzero[]');
	scans_survive('a', '1, 77, 250, 499', 'wrong nonzero[]');

	fresh_index('v_a', '(a) WITH (pages_per_segment = 8)');
	$head = page_of('v_a', 'filter', 2);
	$page = read_page('v_a', $head);
	patch('v_a', [ $head, 56, pack('V', u32($page, 56) + 7) ]);
	verify_fails('v_a', 'false', qr/counters are saturated/, 'wrong nsaturated');
}

# ---- 4. a ledger entry removed: the index alone looks consistent (its
# counters are merely above what the ledger implies), the heap check finds
# the row without its entry
fresh_index('v_a', '(a) WITH (pages_per_segment = 8)');
{
	my $lblk = page_of('v_a', 'ledger', 3);
	my $ledger = read_page('v_a', $lblk);
	my $n = u16($ledger, 28);
	my $entry = substr($ledger, $ENTRIES + 6 * ($n - 1), 6);
	my ($tid, $hash) = unpack('vV', $entry);
	my $heapblk = 3 * 8 + ($tid >> 9);
	my $off = $tid & 0x1ff;
	is(q1("SELECT ledger_pages FROM scbf_filters('v_a', 3)"), '1',
		'entry removed: the ledger is one page (its tail counts its own entries)');
	patch('v_a', [ $lblk, 28, pack('v', $n - 1) ]);
	verify_notice('v_a', 'false', qr/counter\(s\) above what its ledgers imply/,
		'entry removed, index only');
	verify_fails('v_a', 'true',
		qr/lacks an entry for heap tuple \($heapblk,$off\) of table "v".*\n.*DETAIL:  No ledger of segment 3/,
		'entry removed, heapallindexed');
	scans_survive('a', q1("SELECT a FROM v_copy WHERE ctid = '($heapblk,$off)'"),
		'entry removed', 1);
}

# ---- 5. a ledger entry whose TID points elsewhere in the segment
fresh_index('v_a', '(a) WITH (pages_per_segment = 8)');
{
	my $lblk = page_of('v_a', 'ledger', 4);
	my $ledger = read_page('v_a', $lblk);
	my $tid = u16($ledger, $ENTRIES);
	patch('v_a', [ $lblk, $ENTRIES, pack('v', ($tid & ~0x1ff) | 250) ]);
	is($node->psql('postgres', "SELECT scbf_verify('v_a', false)"), 0,
		'moved entry: the index alone looks consistent');
	verify_fails('v_a', 'true', qr/lacks an entry for heap tuple/, 'moved entry');
	scans_survive('a', '1, 77, 250, 499', 'moved entry', 1);

	# an impossible TID (line pointer 0 is the tombstone; 511 > MaxHeapTuplesPerPage)
	fresh_index('v_a', '(a) WITH (pages_per_segment = 8)');
	$lblk = page_of('v_a', 'ledger', 4);
	$ledger = read_page('v_a', $lblk);
	$tid = u16($ledger, $ENTRIES);
	patch('v_a', [ $lblk, $ENTRIES, pack('v', ($tid & ~0x1ff) | 511) ]);
	verify_fails('v_a', 'false', qr/has an impossible TID/, 'impossible TID');
	scans_survive('a', '1, 77, 250, 499', 'impossible TID', 1);
}

# ---- 6. an entry for a heap block past the end of the table (the last
# segment is partial)
SKIP:
{
	my $lastseg = int(($relpages - 1) / 8);
	skip 'the last segment is full', 5 if $relpages % 8 == 0;
	fresh_index('v_a', '(a) WITH (pages_per_segment = 8)');
	my $lblk = page_of('v_a', 'ledger', $lastseg);
	my $ledger = read_page('v_a', $lblk);
	my $tid = u16($ledger, $ENTRIES);
	patch('v_a', [ $lblk, $ENTRIES, pack('v', (7 << 9) | ($tid & 0x1ff)) ]);
	verify_fails('v_a', 'false', qr/ledger entry for heap block \d+, past the end of table "v"/,
		'entry past the end of the table');
}

# ---- 7. pages that are not what their owner says: type, owner, garbage
fresh_index('v_a', '(a) WITH (pages_per_segment = 8)');
{
	my $lblk = page_of('v_a', 'ledger', 5);
	patch('v_a', [ $lblk, $SPECIAL + 10, chr(3) ]);    # a "filter" page
	verify_fails('v_a', 'false',
		qr/Block $lblk is not a ledger page of filter 1 of segment 5/, 'wrong page type');
	scans_survive('a', '1, 77, 250, 499', 'wrong page type');

	fresh_index('v_a', '(a) WITH (pages_per_segment = 8)');
	$lblk = page_of('v_a', 'ledger', 5);
	patch('v_a', [ $lblk, $SPECIAL + 4, pack('V', 999) ]);    # serial
	verify_fails('v_a', 'false', qr/is not a ledger page of filter 1 of segment 5/,
		'foreign ledger page');
	scans_survive('a', '1, 77, 250, 499', 'foreign ledger page');

	fresh_index('v_a', '(a) WITH (pages_per_segment = 8)');
	$lblk = page_of('v_a', 'ledger', 5);
	patch('v_a', [ $lblk, $SPECIAL, "\xff" x 16 ]);
	verify_fails('v_a', 'false', qr/is not a ledger page/, 'garbage special space');
	scans_survive('a', '1, 77, 250, 499', 'garbage special space');
	is(q1("SELECT kind FROM scbf_pages('v_a') WHERE blkno = $lblk"),
		'unknown', 'scbf_pages shows a page it cannot read as unknown');

	# a filter head that belongs to another segment
	fresh_index('v_a', '(a) WITH (pages_per_segment = 8)');
	my $head = page_of('v_a', 'filter', 6);
	patch('v_a', [ $head, $SPECIAL, pack('V', 7) ]);
	verify_fails('v_a', 'false', qr/Block $head is not the head of filter 1 of segment 6/,
		'foreign filter head');
	scans_survive('a', '1, 77, 250, 499', 'foreign filter head');
}

# ---- 8. a block of a multi-block filter that is not that filter's
fresh_index('v_b', '(b) WITH (pages_per_segment = 32)');
{
	my ($head, $blocks) = split /\|/,
	  q1("SELECT head_block, blocks FROM scbf_filters('v_b', 0)");
	cmp_ok($blocks, '>', 1, 'v_b: a filter of several blocks');
	my $blk1 = q1("SELECT blkno FROM scbf_pages('v_b') WHERE kind = 'filter' AND segno = 0 AND block_index = 1");
	patch('v_b', [ $blk1, $SPECIAL + 8, pack('v', 5) ]);
	verify_fails('v_b', 'false', qr/Block $blk1 is not block 1 of filter 1 of segment 0/,
		'wrong block index');
	scans_survive('b', q1("SELECT string_agg(quote_literal(b), ',') FROM (SELECT b FROM v_copy LIMIT 200) s"),
		'wrong block index');
	$node->safe_psql('postgres', 'DROP INDEX v_b');
}

# ---- 9. a ledger that loops; a ledger page whose entries lie above
# pd_lower (WAL replay would lose them); removed entries miscounted
fresh_index('v_a', '(a) WITH (pages_per_segment = 8)');
{
	my $lblk = page_of('v_a', 'ledger', 0);
	patch('v_a', [ $lblk, 24, pack('V', $lblk) ]);
	verify_fails('v_a', 'false', qr/reaches block $lblk twice/, 'ledger loop');
	my ($ret, $out, $err) = $node->psql('postgres',
		"\\set VERBOSITY verbose\nSET statement_timeout = '20s';\nSELECT count(*) FROM scbf_probe('v_a', 77)");
	like($err, qr/XX002.*\n.*The ledger of filter 1 of segment 0 loops/, 'ledger loop: scbf_probe reports it');
	# a query's scan too (it used to loop forever, deaf to cancels)
	($ret, $out, $err) = $node->psql('postgres',
		"\\set VERBOSITY verbose\nSET statement_timeout = '20s';\nSET enable_seqscan = off;\nSELECT count(*) FROM v WHERE a = 77");
	like($err, qr/XX002.*\n.*The ledger of filter 1 of segment 0 loops/, 'ledger loop: a query reports it');

	fresh_index('v_a', '(a) WITH (pages_per_segment = 8)');
	$lblk = page_of('v_a', 'ledger', 0);
	patch('v_a', [ $lblk, 12, pack('v', 64) ]);    # pd_lower
	verify_fails('v_a', 'false', qr/keeps entries above pd_lower/, 'entries above pd_lower');

	fresh_index('v_a', '(a) WITH (pages_per_segment = 8)');
	$lblk = page_of('v_a', 'ledger', 0);
	patch('v_a', [ $lblk, 30, pack('v', 2) ]);     # ntombstones
	verify_fails('v_a', 'false', qr/says 2 of its entries are removed, 0 are/,
		'tombstones miscounted');
}

# ---- 10. the filter head: a growing filter that holds entries (scans
# skip it), the ledger's tail and page count, unknown flags
fresh_index('v_a', '(a) WITH (pages_per_segment = 8)');
{
	my $head = page_of('v_a', 'filter', 1);
	patch('v_a', [ $head, 64, pack('v', 1) ]);
	verify_fails('v_a', 'false', qr/Filter 1 of segment 1 is growing, which scans skip, yet its ledger holds \d+ entries/,
		'growing filter with entries');
	scans_survive('a', '1, 77, 250, 499', 'growing filter with entries', 1);

	fresh_index('v_a', '(a) WITH (pages_per_segment = 8)');
	$head = page_of('v_a', 'filter', 1);
	patch('v_a', [ $head, 88, pack('V', 3) ]);
	verify_fails('v_a', 'false', qr/says its ledger has 3 pages, it has 1/, 'ledger page count');

	# the head's count of entries on sealed pages (a statistic, but one that
	# no change leaves wrong in a filter that takes inserts)
	fresh_index('v_a', '(a) WITH (pages_per_segment = 8)');
	$head = page_of('v_a', 'filter', 1);
	patch('v_a', [ $head, 92, pack('V', 5) ]);
	verify_fails('v_a', 'false', qr/Filter 1 of segment 1 counts 5 live entries on its sealed ledger pages, there are 0/,
		'sealed entry count');

	fresh_index('v_a', '(a) WITH (pages_per_segment = 8)');
	$head = page_of('v_a', 'filter', 1);
	patch('v_a', [ $head, 66, pack('v', 0x40) ]);
	verify_fails('v_a', 'false', qr/has unknown flags 0x0040/, 'unknown flags');
}

# ---- 11. the metapage and the directory
fresh_index('v_a', '(a) WITH (pages_per_segment = 8)');
{
	patch('v_a', [ 0, 24, pack('V', 0xDEADBEEF) ]);
	verify_fails('v_a', 'false', qr/contains a corrupted page at block 0.*\n.*wrong magic number/,
		'metapage magic');
	scans_survive('a', '1, 77, 250, 499', 'metapage magic');

	fresh_index('v_a', '(a) WITH (pages_per_segment = 8)');
	my $cap = u32(read_page('v_a', 0), 44);
	patch('v_a', [ 0, 44, pack('V', $cap + 1) ]);
	my $cap1 = $cap + 1;
	verify_fails('v_a', 'false', qr/The metapage says a block holds $cap1 keys, its geometry implies $cap/,
		'metapage block capacity');

	fresh_index('v_a', '(a) WITH (pages_per_segment = 8)');
	my $dir = page_of('v_a', 'directory');
	patch('v_a', [ $dir, 24 + 24 * 2 + 20, pack('v', 2) ]);    # segment 2: nfilters
	verify_fails('v_a', 'false',
		qr/directory entry of segment 2 .* is impossible: its filter count disagrees with its first and last filters/,
		'directory entry');
	scans_survive('a', '1, 77, 250, 499', 'directory entry');
}

# ---- 12. a counter above what the ledger implies: harmless, a NOTICE
fresh_index('v_a', '(a) WITH (pages_per_segment = 8)');
{
	my $head = page_of('v_a', 'filter', 0);
	my $page = read_page('v_a', $head);
	my ($i, $c) = find_counter($page, $k, $m, 1, 13);
	patch('v_a', [ $head, @{ counter_byte($page, $i, $c + 1) } ]);
	verify_notice('v_a', 'true', qr/has 1 counter\(s\) above what its ledgers imply/,
		'stale counter');
	is(q1("SELECT stale_counters FROM scbf_index_info('v_a')"), '1',
		'stale counter: scbf_index_info counts it');
	scbf_same($node, 'postgres', 'SELECT * FROM v WHERE a IN (1, 77, 250, 499)',
		name => 'stale counter: scans answer right');
}

# ---- 13. a filter awaiting a recount, with a counter too low: scans do
# not trust it (they read the segment whole), so a NOTICE; VACUUM recounts
fresh_index('v_a', '(a) WITH (pages_per_segment = 8)');
{
	my $head = page_of('v_a', 'filter', 2);
	my $page = read_page('v_a', $head);
	my ($i, $c) = find_counter($page, $k, $m, 1, 14);
	my $slice = int($i / $m);
	patch('v_a', [ $head, @{ counter_byte($page, $i, 0) } ],
		[ $head, 24 + 2 * $slice, pack('v', u16($page, 24 + 2 * $slice) - 1) ],
		[ $head, 66, pack('v', 0x0004) ]);
	verify_notice('v_a', 'true', qr/1 filter\(s\) awaiting a recount/, 'recount pending');
	is(q1("SELECT flags FROM scbf_segments('v_a') WHERE segno = 2"), '{recount}',
		'recount pending: scbf_segments flags it');
	is(q1("SELECT verdict || ' ' || heap_pages FROM scbf_probe('v_a', -1) WHERE segno = 2"),
		'whole segment: counters await a recount 8',
		'recount pending: scbf_probe says the scan reads the segment whole');
	scbf_same($node, 'postgres', 'SELECT * FROM v WHERE a IN (1, 77, 250, 499)',
		name => 'recount pending: scans answer right');
	q1('VACUUM v');
	my ($ret, $out, $err) = $node->psql('postgres', "SELECT scbf_verify('v_a', true)");
	ok($ret == 0 && $err eq '', 'recount pending: VACUUM recounts, verify is clean');
}

# ---- 14. a segment without a directory entry: scans read it whole, its
# pages are leaked (a NOTICE), the heap check accepts it
fresh_index('v_a', '(a) WITH (pages_per_segment = 8)');
{
	my $dir = page_of('v_a', 'directory');
	patch('v_a', [ $dir, 24 + 24 * 4, "\0" x 24 ]);
	verify_notice('v_a', 'true', qr/has 2 page\(s\) that nothing links to/, 'leaked pages');
	is(q1("SELECT flags FROM scbf_segments('v_a') WHERE segno = 4"), '{unindexed}',
		'unindexed segment: scbf_segments flags it');
	is(q1("SELECT verdict FROM scbf_probe('v_a', -1) WHERE segno = 4"),
		'whole segment: no directory entry', 'unindexed segment: scbf_probe says why');
	scbf_same($node, 'postgres', 'SELECT * FROM v WHERE a IN (1, 77, 250, 499)',
		name => 'unindexed segment: scans answer right');
}

# ---- 15. lists that loop or lead past the end of the index, hit by every
# caller that walks them: VACUUM (ambulkdelete and amvacuumcleanup),
# autovacuum, an insert, scans, the diagnostics and scbf_rebuild.  Each
# must end with ERRCODE_INDEX_CORRUPTED naming the list, by itself: not by
# the statement_timeout the statement runs under, nor by the test's own
# timeout (a backend deaf to the cancel would outlive both).
sub loop_fails
{
	my ($sql, $re, $name) = @_;
	my $timed_out = 0;
	my ($ret, $out, $err) = $node->psql('postgres',
		"\\set VERBOSITY verbose\nSET statement_timeout = '60s';\n$sql",
		timeout => 150, timed_out => \$timed_out);
	ok(!$timed_out && $ret != 0, "$name: ends with an error");
	like($err, qr/ERROR:  XX002: index "\w+" (?:contains a corrupted page|is corrupted).*\n.*DETAIL:  $re/,
		"$name: ERRCODE_INDEX_CORRUPTED, names the list");
	is(q1('SELECT 1'), '1', "$name: server alive");
}

# the first and second pages of segment 0's ledger, from the filter head
sub ledger_pages_of
{
	my ($idx) = @_;
	my $head = page_of($idx, 'filter', 0);
	my $l1 = u32(read_page($idx, $head), 76);
	my $l2 = q1("SELECT next_block FROM scbf_pages('$idx') WHERE blkno = $l1");
	return ($head, $l1, $l2);
}

$node->safe_psql('postgres', q{
	CREATE TABLE lp (id int, a int, s text) WITH (autovacuum_enabled = off);
	INSERT INTO lp SELECT g, g % 500, md5(g::text) FROM generate_series(1, 20000) g;
	CREATE INDEX lp_a ON lp USING scbf (a) WITH (pages_per_segment = 128);
	-- built empty: inserts chain filters
	CREATE TABLE ch (id int, k text) WITH (autovacuum_enabled = off);
	CREATE INDEX ch_k ON ch USING scbf (k) WITH (pages_per_segment = 128, false_positive_rate = 0.001);
	INSERT INTO ch SELECT g, md5(g::text) FROM generate_series(1, 30000) g;
	CHECKPOINT;
});

# a ledger that loops (its second page leads back to its first), in a
# segment with dead rows
{
	my ($head, $l1, $l2) = ledger_pages_of('lp_a');
	cmp_ok($l2, '>', 0, 'ledger loop: segment 0 has a ledger of several pages');
	q1('DELETE FROM lp WHERE id % 10 = 0');
	patch('lp_a', [ $l2, 24, pack('V', $l1) ]);
	my $re = 'The ledger of filter 1 of segment 0 loops';
	loop_fails('VACUUM (INDEX_CLEANUP ON) lp', $re, 'ledger loop: VACUUM');
	loop_fails("SELECT scbf_rebuild('lp_a', 0)", $re, 'ledger loop: scbf_rebuild');
	loop_fails("SET enable_seqscan = off;\nSELECT count(*) FROM lp WHERE a = 7", $re,
		'ledger loop: a query');
	loop_fails("SELECT count(*) FROM scbf_probe('lp_a', 7)", $re, 'ledger loop: scbf_probe');
	loop_fails("SELECT scbf_verify('lp_a')", 'The ledger of filter 1 of segment 0 reaches block \d+ twice',
		'ledger loop: scbf_verify');
	# the other diagnostics report what they can read (the verifier is the
	# one that reports corruption), and end
	my ($ret, $out, $err) = $node->psql('postgres',
		"SET statement_timeout = '60s';\nSELECT count(*) FROM scbf_segments('lp_a'), scbf_index_info('lp_a')",
		timeout => 150);
	is($ret, 0, 'ledger loop: scbf_segments and scbf_index_info end');

	# autovacuum: the worker's VACUUM of lp fails the same way, and again at
	# its next round, instead of spinning
	my $offset = -s $node->logfile;
	$node->safe_psql('postgres', q{
		ALTER TABLE lp SET (autovacuum_enabled = on, autovacuum_vacuum_threshold = 0,
			autovacuum_vacuum_scale_factor = 0);
		ALTER SYSTEM SET autovacuum = on;
		ALTER SYSTEM SET autovacuum_naptime = '1s';
		SELECT pg_reload_conf();
	});
	$node->wait_for_log(qr/ERROR:  index "lp_a" contains a corrupted page[^\n]*\n[^\n]*DETAIL:  $re/, $offset);
	$node->safe_psql('postgres', q{
		ALTER TABLE lp SET (autovacuum_enabled = off);
		ALTER SYSTEM RESET autovacuum;
		ALTER SYSTEM RESET autovacuum_naptime;
		SELECT pg_reload_conf();
	});
	like(slurp_file($node->logfile, $offset),
		qr/ERROR:  index "lp_a" contains a corrupted page[^\n]*\n[^\n]*DETAIL:  $re[^\n]*\n(?:[^\n]*HINT:[^\n]*\n)?[^\n]*CONTEXT:  while vacuuming index "lp_a" of relation "public.lp"\n\s*automatic vacuum of table "postgres.public.lp"/,
		'ledger loop: autovacuum fails with ERRCODE_INDEX_CORRUPTED');
	is(q1('SELECT 1'), '1', 'ledger loop: autovacuum: server alive');
}

# a ledger link past the end of the index
$node->safe_psql('postgres', 'REINDEX INDEX lp_a; CHECKPOINT');
{
	my ($head, $l1, $l2) = ledger_pages_of('lp_a');
	patch('lp_a', [ $l1, 24, pack('V', 999999) ]);
	loop_fails('VACUUM (INDEX_CLEANUP ON) lp',
		'The ledger of filter 1 of segment 0 leads to block 999999, which is not a page it can hold',
		'ledger past the end: VACUUM');
	loop_fails("SELECT scbf_rebuild('lp_a', 0)",
		'The ledger of filter 1 of segment 0 leads to block 999999',
		'ledger past the end: scbf_rebuild');
}

# a chain that loops: segment 0's last filter leads back to its first
{
	my $n = q1("SELECT chain_length FROM scbf_segments('ch_k') WHERE segno = 0");
	cmp_ok($n, '>', 1, "chain loop: segment 0 has a chain of $n filters");
	my ($first, $last, $lastserial) = split /\|/, q1(q{
		SELECT min(head_block) FILTER (WHERE filter = 1), min(head_block) FILTER (WHERE filter = max_f),
			max(serial)
		FROM (SELECT *, max(filter) OVER () AS max_f FROM scbf_filters('ch_k', 0)) f});
	patch('ch_k', [ $last, 68, pack('V', $first) ], [ $last, 72, pack('V', 1) ]);
	my $re = "Segment 0's chain goes from filter $lastserial back to filter 1";
	loop_fails('VACUUM ch', $re, 'chain loop: VACUUM');
	loop_fails("SELECT scbf_rebuild('ch_k', 0)", $re, 'chain loop: scbf_rebuild');
	loop_fails("SET enable_seqscan = off;\nSELECT count(*) FROM ch WHERE k = md5('7')", $re,
		'chain loop: a query');
	loop_fails("SELECT count(*) FROM scbf_segments('ch_k')", $re, 'chain loop: scbf_segments');
	loop_fails("SELECT count(*) FROM scbf_index_info('ch_k')", $re, 'chain loop: scbf_index_info');
	loop_fails("SELECT scbf_verify('ch_k')",
		"Segment 0's chain goes from filter $lastserial to filter 1: serials must increase",
		'chain loop: scbf_verify');
}

# a room list that loops (the ledger pages VACUUM left with room, which
# inserts fill first): an insert that fills them, VACUUM's statistics
$node->safe_psql('postgres', 'TRUNCATE lp; INSERT INTO lp SELECT g, g % 500, md5(g::text) FROM generate_series(1, 20000) g;'
	  . 'REINDEX INDEX lp_a; DELETE FROM lp WHERE id % 2 = 0; VACUUM (INDEX_CLEANUP ON) lp; CHECKPOINT');
{
	my $head = page_of('lp_a', 'filter', 0);
	my $r1 = u32(read_page('lp_a', $head), 84);
	cmp_ok($r1, '>', 0, 'room loop: segment 0 has a room list');
	my $r2 = u32(read_page('lp_a', $r1), 32);
	# the last page of the list leads back to the first
	patch('lp_a', [ $r2 ? $r2 : $r1, 32, pack('V', $r1) ]);
	loop_fails('VACUUM lp', 'The room list of filter 1 of segment 0 loops', 'room loop: VACUUM');
	loop_fails("SELECT scbf_verify('lp_a')", 'The room list of filter 1 of segment 0 reaches block',
		'room loop: scbf_verify');
	loop_fails('INSERT INTO lp SELECT g, g % 500, md5(g::text) FROM generate_series(20001, 40000) g',
		'Ledger page on the room list of filter 1 of segment 0 has no room', 'room loop: an insert');
}
$node->safe_psql('postgres', 'DROP TABLE lp, ch');

# after all this the index can be rebuilt and verifies again
q1('REINDEX INDEX v_a');
{
	my ($ret, $out, $err) = $node->psql('postgres', "SELECT scbf_verify('v_a', true)");
	ok($ret == 0 && $err eq '', 'rebuilt index verifies');
}

# ---- no false alarm while the index changes under the verifier: inserts
# chain new filters, deletes and VACUUM remove entries, recount and
# consolidate chains, while other clients verify again and again
$node->safe_psql('postgres', q{
	CREATE TABLE w (id bigserial, k int, s text) WITH (autovacuum_enabled = off);
	INSERT INTO w (k, s) SELECT g, md5(g::text) FROM generate_series(1, 30000) g;
	CREATE INDEX w_k ON w USING scbf (k) WITH (pages_per_segment = 16);
	CREATE INDEX w_ks ON w USING scbf (k, s) WITH (pages_per_segment = 8);
});
# 20 transactions per client (200 with SCBF_TEST_LONG)
my $tx = long_tests() ? 200 : 20;
$node->pgbench(
	"--no-vacuum --client=5 --jobs=5 --transactions=$tx",
	0,
	[qr{processed: @{[5 * $tx]}/@{[5 * $tx]}}],
	[qr{^$}],
	'verify while inserts chain filters and VACUUM consolidates them',
	{
		'020_insert@4' => q{
			\set r random(1, 1000000)
			INSERT INTO w (k, s) SELECT :r + g, md5((:r + g)::text) FROM generate_series(1, 300) g;
		},
		'020_delete@2' => q{
			\set r random(1, 30000)
			DELETE FROM w WHERE id BETWEEN :r AND :r + 200;
		},
		'020_vacuum@1' => q{
			VACUUM w;
		},
		'020_verify@3' => q{
			SELECT scbf_verify('w_k', true), scbf_verify('w_ks', true);
			SELECT count(*) FROM scbf_segments('w_k');
			SELECT count(*) FROM scbf_probe('w_k', 77);
		},
	});
cmp_ok(q1("SELECT max(serial) FROM scbf_filters('w_k')"), '>', 1,
	'during the run, chains changed (filters were appended or consolidated)');
{
	my ($ret, $out, $err) = $node->psql('postgres',
		"VACUUM w; SELECT scbf_verify('w_k', true), scbf_verify('w_ks', true)");
	ok($ret == 0 && $err eq '', 'after the run: verify is clean');
}

# ---- storage format 2 (src/README, "Storage v2"): a cleared row bit (an
# invariant R1 violation: a false negative), a ledger leaf of another run
# serial, a metapage field out of range, a pending chain that loops.
# Format-2 layout (src/scbf_page.h): special space owner u32 +0, index u32
# +4 (leaf: its run's serial), column u16 +8, type u8 +10; the metapage's
# band_start u32 @64; row pages hold rows from 24 up to pd_lower (u16 @12);
# a pending page's next u32 @24.
sub fresh_index2
{
	my ($name, $def) = @_;
	$node->safe_psql('postgres', "SET scbf.build_format = 2; DROP INDEX IF EXISTS $name; CREATE INDEX $name ON v USING scbf $def; CHECKPOINT;");
	my ($ret, $out, $err) = $node->psql('postgres', "SELECT scbf_verify('$name', true)");
	is($ret, 0, "$name: fresh format-2 index verifies");
	is($err, '', "$name: fresh format-2 index verifies without a notice");
}

fresh_index2('v2_a', '(a)');
is(q1("SELECT counter_bits FROM scbf_index_info('v2_a')"), '1', 'v2_a has storage format 2');
{
	# the first set bit of the first row page: the build sets only bits
	# that entries need
	my $blk = page_of('v2_a', 'rows');
	my $page = read_page('v2_a', $blk);
	is(u8($page, $SPECIAL + 10), 7, 'format 2: a row page where scbf_pages says');
	my $lower = u16($page, 12);
	my ($off, $byte);
	for my $o (24 .. $lower - 1)
	{
		$byte = u8($page, $o);
		if ($byte) { $off = $o; last; }
	}
	ok(defined $off, 'format 2: the row page has a set bit');
	patch('v2_a', [ $blk, $off, pack('C', $byte & ($byte - 1)) ]);
	verify_fails('v2_a', 'false', qr/is missing a row bit of a ledger entry.*\n.*DETAIL:  Block \d+: Invariant R1: filter \d+/,
		'format 2: a cleared row bit');
	scans_survive('a', join(',', 0 .. 499), 'format 2: a cleared row bit', 1);
}

fresh_index2('v2_a', '(a)');
{
	my $blk = page_of('v2_a', 'leaf');
	my $page = read_page('v2_a', $blk);
	is(u8($page, $SPECIAL + 10), 9, 'format 2: a leaf where scbf_pages says');
	patch('v2_a', [ $blk, $SPECIAL + 4, pack('V', u32($page, $SPECIAL + 4) + 7) ]);
	verify_fails('v2_a', 'false', qr/has a ledger leaf that is not its run's.*\n.*DETAIL:  Block $blk: Leaf/,
		'format 2: a leaf with a wrong run serial');
	scans_survive('a', join(',', 0 .. 499), 'format 2: a leaf with a wrong run serial');
}

fresh_index2('v2_a', '(a)');
{
	patch('v2_a', [ 0, 64, pack('V', 0x7FFFFF00) ]);
	verify_fails('v2_a', 'false', qr/has a row band outside the index.*\n.*DETAIL:  Block 0: The band starts at block 2147483392/,
		'format 2: a metapage field out of range');
	scans_survive('a', '7, 8', 'format 2: a metapage field out of range');
}

# a metapage without the delta's flag (the layout before the delta's
# fields), or with it but without the inline leaves' (runs whose inline
# byte count was an unused field): a clear REINDEX error, for the verifier
# and for scans
for my $old ([ 0, 'metapage had no delta' ], [ 1, 'ledger roots held no inline leaves' ])
{
	fresh_index2('v2_a', '(a)');
	patch('v2_a', [ 0, 38, pack('v', $old->[0]) ]);    # metapage flags
	verify_fails('v2_a', 'false', qr/has an older layout of storage format 2\n.*DETAIL:  It was built by a development version of scbf whose $old->[1]\.\n(?:.*\n)*?HINT:  REINDEX it/,
		"format 2: a metapage of an older layout (flags $old->[0])");
	scans_survive('a', '7, 8', "format 2: a metapage of an older layout (flags $old->[0])");
}

# pending entries, then a chain that loops (a page whose next is itself);
# the index goes before anything inserts into v again: an insert would
# meet the loop too
fresh_index2('v2_a', '(a)');
$node->safe_psql('postgres', q{
	INSERT INTO v SELECT g % 500, 'pending ' || g FROM generate_series(1, 300) g;
	INSERT INTO v_copy SELECT g % 500, 'pending ' || g FROM generate_series(1, 300) g;
});
{
	my ($ret, $out, $err) = $node->psql('postgres', "SELECT scbf_verify('v2_a', true)");
	ok($ret == 0 && $err eq '', 'format 2: verify passes with pending entries');
	my $blk = page_of('v2_a', 'pending');
	my $page = read_page('v2_a', $blk);
	is(u8($page, $SPECIAL + 10), 10, 'format 2: a pending page where scbf_pages says');
	patch('v2_a', [ $blk, 24, pack('V', $blk) ]);
	verify_fails('v2_a', 'false', qr/has a page that two links name.*\n.*DETAIL:  Block $blk: The pending chain of partition \d+ names block $blk/,
		'format 2: a pending chain that loops');
	my $part = u32($page, $SPECIAL);
	# a value of that partition: one whose probe reads that chain
	my $val = q1("SELECT v FROM generate_series(0, 499) v WHERE (hashint4(v)::bigint & 4294967295) >> 28 = $part LIMIT 1");
	scans_survive('a', $val, 'format 2: a pending chain that loops');
}
$node->safe_psql('postgres', 'DROP INDEX v2_a');

# ---- a hot standby: the verifier and the diagnostics read, scbf_rebuild
# refuses.  The standby compares entries with rows, so first a VACUUM that
# removes every dead entry: a plain VACUUM may bypass index vacuuming when
# few pages have dead items (PostgreSQL 14 and later), leaving them.
$node->safe_psql('postgres', 'VACUUM (INDEX_CLEANUP ON) w');
is(q1("SELECT (SELECT entries_live FROM scbf_index_info('w_k')) = (SELECT count(*) FROM w)"),
	't', 'VACUUM (INDEX_CLEANUP ON) leaves no dead entry');
$node->safe_psql('postgres', 'CHECKPOINT');
$node->backup('bk');
my $standby = PostgreSQL::Test::Cluster->new('verify_standby');
# (the backup's postgresql.conf loads scbf from where the primary does)
$standby->init_from_backup($node, 'bk', has_streaming => 1);
$standby->start;
$node->safe_psql('postgres', 'INSERT INTO w (k, s) SELECT g, md5(g::text) FROM generate_series(1, 5000) g');
$node->wait_for_catchup($standby, 'replay', $node->lsn('insert'));
is($standby->safe_psql('postgres', 'SELECT pg_is_in_recovery()'), 't', 'standby in recovery');
{
	my ($ret, $out, $err) = $standby->psql('postgres',
		"SELECT scbf_verify('w_k', true), scbf_verify('w_ks', true), scbf_verify('v_a', true)");
	ok($ret == 0 && $err eq '', 'standby: verify passes');
	is($standby->safe_psql('postgres', q{
		SELECT (SELECT entries_live FROM scbf_index_info('w_k')) = (SELECT count(*) FROM w)
			AND (SELECT sum(entries) FROM scbf_segments('w_k')) = (SELECT count(*) FROM w)
			AND (SELECT count(*) FROM scbf_filters('w_k')) > 0
			AND (SELECT count(*) FROM scbf_pages('w_k')) > 0
			AND (SELECT sum(ledger_matches) FROM scbf_probe('w_k', 4242))
				= (SELECT count(*) FROM w WHERE k = 4242)
	}), 't', 'standby: the diagnostics agree with the table');
	($ret, $out, $err) = $standby->psql('postgres',
		"\\set VERBOSITY verbose\nSELECT scbf_rebuild('w_k')");
	like($err, qr/55000: recovery is in progress.*\n.*HINT:  scbf_rebuild\(\) cannot be executed during recovery/,
		'standby: scbf_rebuild refuses');
}
$standby->stop;
$node->stop;
done_testing();
