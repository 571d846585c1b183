# scbf_verify() finds each kind of inconsistency it claims to find, in
# pages broken on purpose: the node is stopped, bytes of the index's file
# are overwritten (data checksums are off), and the node is started again,
# as amcheck's own tests do.  For each case: what the verifier must say (an
# ERROR with ERRCODE_INDEX_CORRUPTED naming the problem), and that scans
# over the broken pages end with ERRCODE_INDEX_CORRUPTED or a correct
# answer, never a crash (where no reader can notice, as with a cleared row
# bit, the verifier is the only defence: then the server must merely
# survive).  The walks over loops and links past the end of the index, for
# every reader: 021_walks.pl.
#
# Also: the verifier gives no false alarm while inserts, deletes and VACUUM
# change the index under it, and it runs, with the other diagnostics, on a
# hot standby; and an index whose metapage names another storage format
# version is refused by every entry point, with a hint to REINDEX it, which
# then works.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use lib 'test/t';
use ScbfTest;

my $BLCKSZ = 8192;
my $SPECIAL = $BLCKSZ - 16;

my $node = start_node('verify_corruption', allows_streaming => 1,
	conf => "autovacuum = off\n");
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

# the first page of a kind (of a segment)
sub page_of
{
	my ($idx, $kind, $segno) = @_;
	return q1("SELECT min(blkno) FROM scbf_pages('$idx') WHERE kind = '$kind'"
		  . (defined $segno ? " AND segno = $segno" : ''));
}

# clear_summary_bit($idx, $kind): clear the first set bit of the first page
# scbf_pages calls $kind ('summary' or 'top'), a summary page (type 14)
# whose rows run from byte 24 up to pd_lower, as a row page's do; every bit
# a build sets there is some key's
sub clear_summary_bit
{
	my ($idx, $kind) = @_;
	local $Test::Builder::Level = $Test::Builder::Level + 1;
	my $blk = page_of($idx, $kind);
	my $page = read_page($idx, $blk);
	is(u8($page, $SPECIAL + 10), 14, "$kind: a summary page where scbf_pages says");
	my $lower = u16($page, 12);
	my ($off, $byte);
	for my $o (24 .. $lower - 1)
	{
		$byte = u8($page, $o);
		if ($byte) { $off = $o; last; }
	}
	ok(defined $off, "$kind: the page has a set bit");
	patch($idx, [ $blk, $off, pack('C', $byte & ($byte - 1)) ]);
}

# ---- no false alarm while the index changes under the verifier: inserts
# and folds chain new filters, deletes and VACUUM remove entries, recount
# and merge filters, while other clients verify again and again
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
	'verify while inserts chain filters and VACUUM merges them',
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

# ---- a cleared row bit (an invariant I4 violation: a false negative), a
# ledger leaf of another run serial, a metapage field out of range, a
# pending chain that loops.  Layout (src/scbf_page.h): special space owner u32 +0, index u32
# +4 (leaf: its run's serial), column u16 +8, type u8 +10; the metapage's
# the first band's map u32 @72; row pages hold rows from 24 up to pd_lower (u16 @12);
# a pending page's next u32 @24.
fresh_index('v2_a', '(a)');
is(q1("SELECT max_count > 0 AND stale_counters = 0 FROM scbf_index_info('v2_a')"), 't',
	'v2_a: the diagnostics count its entries, and every set bit has a count');
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
	verify_fails('v2_a', 'false', qr/is missing a row bit of a ledger entry.*\n.*DETAIL:  Block \d+: Invariant I4: filter \d+/,
		'format 2: a cleared row bit');
	scans_survive('a', join(',', 0 .. 499), 'format 2: a cleared row bit', 1);
}

# ---- a cleared summary bit (invariant I4 for the summary of a group of
# bands: a probe would skip the band that holds a key).  Bands of at most
# 8 filters in groups of 2 give the index several bands and groups; a
# summary page holds rows from 24 up to pd_lower, as a row page does, and
# every bit a build sets is some key's.
$node->safe_psql('postgres', q{
	SET scbf.test_band_filters = 8;
	SET scbf.test_group_bands = 2;
	CREATE INDEX v_sum ON v USING scbf (a) WITH (pages_per_segment = 8);
	CHECKPOINT;
});
cmp_ok(q1("SELECT count(*) FROM scbf_pages('v_sum') WHERE kind = 'summary map' AND block_index IS NOT NULL"),
	'>=', 2, 'v_sum: several groups of bands, each with its summary');
{
	my ($ret, $out, $err) = $node->psql('postgres', "SELECT scbf_verify('v_sum', true)");
	ok($ret == 0 && $err eq '', 'v_sum: the fresh index verifies cleanly');
	clear_summary_bit('v_sum', 'summary');
	verify_fails('v_sum', 'false', qr/is missing a summary bit of a ledger entry.*\n.*DETAIL:  Block \d+: Invariant I4: filter \d+ .*the summary of band \d+ does not hold the key/,
		'summary: a cleared summary bit');
	scans_survive('a', join(',', 0 .. 499), 'summary: a cleared summary bit', 1);
	q1('DROP INDEX v_sum');
}

# ---- a cleared top bit (invariant I4 for the top over groups: a probe
# would skip the group that holds a key).  A group a band gives the index
# several groups and a top over them; its pages are summary pages.
$node->safe_psql('postgres', q{
	SET scbf.test_band_filters = 8;
	SET scbf.test_group_bands = 1;
	CREATE INDEX v_top ON v USING scbf (a) WITH (pages_per_segment = 8);
	CHECKPOINT;
});
is(q1("SELECT count(*) FROM scbf_pages('v_top') WHERE kind = 'top map'"), 1,
	'v_top: several groups of bands and a top over them');
{
	my ($ret, $out, $err) = $node->psql('postgres', "SELECT scbf_verify('v_top', true)");
	ok($ret == 0 && $err eq '', 'v_top: the fresh index verifies cleanly');
	clear_summary_bit('v_top', 'top');
	verify_fails('v_top', 'false', qr/is missing a top bit of a ledger entry.*\n.*DETAIL:  Block \d+: Invariant I4: filter \d+ .*the top's column of group \d+ does not hold the key/,
		'top: a cleared top bit');
	scans_survive('a', join(',', 0 .. 499), 'top: a cleared top bit', 1);
	q1('DROP INDEX v_top');
}

fresh_index('v2_a', '(a)');
{
	my $blk = page_of('v2_a', 'leaf');
	my $page = read_page('v2_a', $blk);
	is(u8($page, $SPECIAL + 10), 9, 'format 2: a leaf where scbf_pages says');
	patch('v2_a', [ $blk, $SPECIAL + 4, pack('V', u32($page, $SPECIAL + 4) + 7) ]);
	verify_fails('v2_a', 'false', qr/has a ledger leaf that is not its run's.*\n.*DETAIL:  Block $blk: Leaf/,
		'format 2: a leaf with a wrong run serial');
	scans_survive('a', join(',', 0 .. 499), 'format 2: a leaf with a wrong run serial');
}

# a heap tuple twice in a segment's ledgers: on the column of distinct
# values each posting list holds one item, so the second list's item made
# the first's is still a valid list (src/scbfpostinglist.h: a varint of the
# hash delta times 2, then the item, u16); a leaf's lists start at 32 (page
# header 24, fence u32, nbytes u16, nlists u16)
fresh_index('v2_b', '(b)');
{
	my $blk = page_of('v2_b', 'leaf');
	my $page = read_page('v2_b', $blk);
	is(u8($page, $SPECIAL + 10), 9, 'format 2: a leaf of the text column where scbf_pages says');
	my $pos = 32;
	my $varint = sub {
		my ($v, $shift, $b) = (0, 0);
		do { $b = u8($page, $pos++); $v |= ($b & 0x7f) << $shift; $shift += 7; } while ($b & 0x80);
		return $v;
	};
	my $single1 = !($varint->() & 1);
	my $item1 = substr($page, $pos, 2);
	$pos += 2;
	my $single2 = !($varint->() & 1);
	ok($single1 && $single2, 'format 2: the leaf starts with two one-item lists');
	isnt(substr($page, $pos, 2), $item1, 'format 2: their items differ');
	patch('v2_b', [ $blk, $pos, $item1 ]);
	verify_fails('v2_b', 'false', qr/holds a heap tuple twice.*\n.*DETAIL:  Block \d+: Segment \d+: block \d+ of the segment, line pointer \d+, is in the visible runs of filter (\d+) and of filter \1\./,
		'format 2: a heap tuple twice in a segment\'s ledgers');
	scans_survive('b', q1("SELECT string_agg(quote_literal(b), ',') FROM (SELECT b FROM v_copy LIMIT 20) s"),
		'format 2: a heap tuple twice in a segment\'s ledgers', 1);
}

# a leaf's signposts (src/scbf_page.h: from pd_upper, u16 @14, to the
# special space, 8 bytes each: the hash of the list before, u32, then the
# list's offset in the leaf's bytes, u16).  A signpost's hash off by one
# sends lookups that start there to shifted hashes: the verifier finds it,
# and a probe may miss (as with a cleared bit).  Signposts out of order are
# corruption to a probe too.
fresh_index('v2_b', '(b)');
{
	my $blk = page_of('v2_b', 'leaf');
	my $page = read_page('v2_b', $blk);
	my ($upper, $special) = (u16($page, 14), u16($page, 16));
	cmp_ok($upper, '<', $special, 'signposts: the text column\'s leaf has some');
	patch('v2_b', [ $blk, $upper, pack('V', u32($page, $upper) + 1) ]);
	verify_fails('v2_b', 'false', qr/has a ledger leaf signpost that is wrong.*\n.*DETAIL:  Block $blk: Signpost 1 names offset \d+ and hash \d+; posting list \d+ starts at offset \d+ after hash \d+\./,
		'signposts: a wrong hash');
	scans_survive('b', q1("SELECT string_agg(quote_literal(b), ',') FROM (SELECT b FROM v_copy LIMIT 2000) s"),
		'signposts: a wrong hash', 1);
}
fresh_index('v2_b', '(b)');
{
	my $blk = page_of('v2_b', 'leaf');
	my $page = read_page('v2_b', $blk);
	my $upper = u16($page, 14);
	# the second signpost's offset before the first's
	patch('v2_b', [ $blk, $upper + 12, pack('v', 1) ]);
	verify_fails('v2_b', 'false', qr/has a ledger leaf signpost that is wrong/,
		'signposts: out of order');
	my ($ret, $out, $err) = $node->psql('postgres',
		"\\set VERBOSITY verbose\nSET enable_seqscan = off;\n"
		  . "SELECT count(*) FROM v WHERE b IN ("
		  . q1("SELECT string_agg(quote_literal(b), ',') FROM (SELECT b FROM v_copy LIMIT 2000) s")
		  . ")");
	like($err, qr/XX002.*\n.*DETAIL:  A ledger leaf's signposts are out of order\./,
		'signposts: out of order, a probe that reads the leaf reports the corruption');
	scans_survive('b', q1("SELECT string_agg(quote_literal(b), ',') FROM (SELECT b FROM v_copy LIMIT 2000) s"),
		'signposts: out of order');
}
$node->safe_psql('postgres', 'DROP INDEX v2_b');

# hash widths (src/scbf_page.h): a root's hash_bits (u16 @26) that is not
# its column's, and a metapage whose width does not match its format
# version (version u32 @28, hash_bits u16 @52)
fresh_index('v2_b', '(b)');
{
	my $blk = page_of('v2_b', 'root');
	my $page = read_page('v2_b', $blk);
	is(u16($page, 26), 0, 'hash width: a root of 32-bit hashes says 0, as format 3 did');
	patch('v2_b', [ $blk, 26, pack('v', 40) ]);
	verify_fails('v2_b', 'false', qr/has a ledger root of another hash width.*\n.*DETAIL:  Block $blk: The root at block $blk says 40-bit hashes; column 1's have 32\./,
		'hash width: a root that says another width');
	# a probe that reads the root compares its width with the column's
	my ($ret, $out, $err) = $node->psql('postgres',
		"\\set VERBOSITY verbose\nSET enable_seqscan = off;\n"
		  . "SELECT count(*) FROM v WHERE b IN ("
		  . q1("SELECT string_agg(quote_literal(b), ',') FROM (SELECT b FROM v_copy LIMIT 2000) s")
		  . ")");
	like($err, qr/XX002.*\n.*DETAIL:  The root at block $blk says 40-bit hashes; column 1's have 32\./,
		'hash width: a probe that reads a root of another width reports the corruption');
	scans_survive('b', q1("SELECT string_agg(quote_literal(b), ',') FROM (SELECT b FROM v_copy LIMIT 2000) s"),
		'hash width: a root that says another width');
}
fresh_index('v2_w', '(b) WITH (hash_bits = 40)');
{
	my $page = read_page('v2_w', 0);
	is(u32($page, 28), 4, 'hash width: an index of 40-bit hashes is of format 4');
	is(u16($page, 52), 40, 'hash width: its metapage says 40 bits');
	patch('v2_w', [ 0, 52, pack('v', 48) ]);
	verify_fails('v2_w', 'false', qr/DETAIL:  The metapage's hash width does not match its format version\./,
		'hash width: a metapage that says 48 bits');
	scans_survive('b', q1("SELECT string_agg(quote_literal(b), ',') FROM (SELECT b FROM v_copy LIMIT 20) s"),
		'hash width: a metapage that says 48 bits');
}
$node->safe_psql('postgres', 'DROP INDEX v2_b; DROP INDEX v2_w');

fresh_index('v2_a', '(a)');
{
	patch('v2_a', [ 0, 72, pack('V', 0x7FFFFF00) ]);
	verify_fails('v2_a', 'false', qr/has a row band outside the index.*\n.*DETAIL:  Block 0: Band 0 has its map at block 2147483392/,
		'format 2: a metapage field out of range');
	scans_survive('a', '7, 8', 'format 2: a metapage field out of range');
}

# a band map whose first run leaves the index (the map: npages u32 @24,
# nruns u32 @28, then runs of start u32, npages u32 from @32)
fresh_index('v2_a', '(a)');
{
	my $blk = page_of('v2_a', 'band map');
	my $page = read_page('v2_a', $blk);
	is(u8($page, $SPECIAL + 10), 12, 'band map: a band map page where scbf_pages says');
	cmp_ok(u32($page, 28), '>=', 1, 'band map: it lists a run');
	patch('v2_a', [ $blk, 32, pack('V', 0x7FFFFF00) ]);
	verify_fails('v2_a', 'false', qr/has a band map that is not its band's.*\n.*DETAIL:  Block \d+: Block \d+ should be the map of the band of serial \d+/,
		'band map: a run outside the index');
	scans_survive('a', '7, 8', 'band map: a run outside the index');
}

# pending entries, then a chain that loops (a page whose next is itself);
# the index goes before anything inserts into v again: an insert would
# meet the loop too
fresh_index('v2_a', '(a)');
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

# ---- a hot standby: the verifier and the diagnostics read,
# scbf_clean_pending refuses.  The standby compares entries with rows, so first a VACUUM that
# removes every dead entry: a plain VACUUM may bypass index vacuuming when
# few pages have dead items (PostgreSQL 14 and later), leaving them.
$node->safe_psql('postgres', 'VACUUM (INDEX_CLEANUP ON) w');
is(q1("SELECT (SELECT entries_live + entries_pending FROM scbf_index_info('w_k')) = (SELECT count(*) FROM w)"),
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
		"SELECT scbf_verify('w_k', true), scbf_verify('w_ks', true)");
	ok($ret == 0 && $err eq '', 'standby: verify passes');
	is($standby->safe_psql('postgres', q{
		SELECT (SELECT entries_live + entries_pending FROM scbf_index_info('w_k')) = (SELECT count(*) FROM w)
			AND (SELECT sum(entries) FROM scbf_segments('w_k')) = (SELECT entries_live FROM scbf_index_info('w_k'))
			AND (SELECT count(*) FROM scbf_filters('w_k')) > 0
			AND (SELECT count(*) FROM scbf_pages('w_k')) > 0
			AND (SELECT sum(ledger_matches) FROM scbf_probe('w_k', 4242))
				= (SELECT count(*) FROM w WHERE k = 4242)
	}), 't', 'standby: the diagnostics agree with the table');
	($ret, $out, $err) = $standby->psql('postgres',
		"\\set VERBOSITY verbose\nSELECT scbf_clean_pending('w_k')");
	like($err, qr/55000: recovery is in progress.*\n.*HINT:  scbf_clean_pending\(\) cannot be executed during recovery/,
		'standby: scbf_clean_pending refuses');
}
$standby->stop;

# ---- an index of another storage format version, which this version does
# not read: its metapage's version patched to 2, the version before the
# band map.  Every entry point refuses
# it with ERRCODE_INDEX_CORRUPTED and the REINDEX hint, as the hash AM does
# for an index of a wrong hash version; the planner costs it as disabled,
# so queries that need not use it still run; REINDEX makes it an index of
# the current version that answers as a sequential scan does.
fresh_index('v2_old', '(a)');
is(u32(read_page('v2_old', 0), 28), 3, 'version 2: the metapage version is where the test patches it');
patch('v2_old', [ 0, 28, pack('V', 2) ]);
is(u32(read_page('v2_old', 0), 28), 2, 'version 2: the metapage says version 2');
my $v1re = qr/ERROR:  XX002: index "v2_old" has storage format version 2\n.*DETAIL:  This version of scbf reads storage format versions 3 to 6 only\.\n(?:.*\n)*?HINT:  REINDEX it\./;
for my $case (
	[ 'a query', "SET enable_seqscan = off;\nSELECT count(*) FROM v WHERE a = 7" ],
	[ 'an insert', "INSERT INTO v VALUES (7, 'format 2')" ],
	[ 'VACUUM', 'VACUUM (INDEX_CLEANUP ON) v' ],
	[ 'scbf_index_info', "SELECT * FROM scbf_index_info('v2_old')" ],
	[ 'scbf_pages', "SELECT count(*) FROM scbf_pages('v2_old')" ],
	[ 'scbf_probe', "SELECT count(*) FROM scbf_probe('v2_old', 7)" ],
	[ 'scbf_verify', "SELECT scbf_verify('v2_old', true)" ])
{
	my ($ret, $out, $err) = $node->psql('postgres', "\\set VERBOSITY verbose\n$case->[1]");
	isnt($ret, 0, "version 2: $case->[0] fails");
	like($err, $v1re, "version 2: $case->[0]: ERRCODE_INDEX_CORRUPTED, storage format version 2, REINDEX hint");
}
is(q1('SELECT count(*) FROM v'), q1('SELECT count(*) FROM v_copy'), 'version 2: the refused insert added no row');
# the planner does not pick an index it cannot read unless forced to (the
# query above was): other queries on the table go on
is(q1('SELECT count(*) FROM v WHERE a = 7'), q1('SELECT count(*) FROM v_copy WHERE a = 7'),
	'version 2: with sequential scans allowed, a query on the table is answered without the index');
q1('REINDEX INDEX v2_old');
is(u32(read_page('v2_old', 0), 28), 3, 'version 2: REINDEX wrote storage format version 3');
scbf_same($node, 'postgres', [ 'SELECT * FROM v WHERE a = 7', 'SELECT * FROM v WHERE a IN (1, 250, 499)' ],
	name => 'version 2: after REINDEX');
{
	my ($ret, $out, $err) = $node->psql('postgres', "SELECT scbf_verify('v2_old', true)");
	ok($ret == 0 && $err eq '', 'version 2: after REINDEX, verify is clean') or diag($err);
}
$node->safe_psql('postgres', 'DROP INDEX v2_old');

$node->stop;
done_testing();
