# scbf_verify finds each kind of inconsistency it claims to detect, in pages
# broken on purpose (the node is stopped and bytes of the index's file are
# overwritten, as amcheck's own tests do), and scans over broken pages end
# with ERRCODE_INDEX_CORRUPTED or a correct answer, never a crash.
#
# Page layout used below (src/scbf.h): page header 24 bytes; a filter page's
# ScbfFilterPageData at 24 (nonzero[16] uint16 at 24, nsaturated at 56), its
# counters at 24 + MAXALIGN(328) = 352; a ledger page's header at 24 (next,
# nentries, ntombstones, next_room, flags: 16 bytes), its 6-byte entries
# (uint16 TID, uint32 hash) at 40; the 16-byte special space last (segno,
# serial, blkidx, type, ..., page id).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use lib 'test/t';
use ScbfTest;

my $node = new_node('verify');
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION scbf;
	CREATE TABLE v (a int, b text);
	INSERT INTO v SELECT g % 500, md5(g::text) FROM generate_series(1, 20000) g;
});

my $BLCKSZ = 8192;
my $COUNTERS = 352;
my $ENTRIES = 40;

# A fresh index for each case
sub fresh_index
{
	$node->safe_psql('postgres', q{
		DROP INDEX IF EXISTS v_a;
		CREATE INDEX v_a ON v USING scbf (a) WITH (pages_per_segment = 8);
		CHECKPOINT;
	});
	is($node->psql('postgres', "SELECT scbf_verify('v_a', true)"), 0,
		'fresh index verifies');
}

# Read a page of the index (node running: after a CHECKPOINT)
sub index_path
{
	return $node->data_dir . '/'
	  . $node->safe_psql('postgres', "SELECT pg_relation_filepath('v_a')");
}

sub read_page
{
	my ($blkno) = @_;
	my $path = index_path();
	$node->safe_psql('postgres', 'CHECKPOINT');
	open(my $fh, '<:raw', $path) or die "open $path: $!";
	seek($fh, $blkno * $BLCKSZ, 0);
	read($fh, my $page, $BLCKSZ);
	close($fh);
	return $page;
}

# Overwrite bytes of a page, with the node stopped
sub overwrite
{
	my ($blkno, $offset, $bytes) = @_;
	my $path = index_path();
	$node->stop;
	open(my $fh, '+<:raw', $path) or die "open $path: $!";
	seek($fh, $blkno * $BLCKSZ + $offset, 0);
	print $fh $bytes;
	close($fh);
	$node->start;
}

# scbf_verify must fail with SQLSTATE XX002 and a message matching $re
sub verify_fails
{
	my ($heapall, $re, $name) = @_;
	my ($ret, $out, $err) = $node->psql('postgres',
		"\\set VERBOSITY verbose\nSELECT scbf_verify('v_a', $heapall)");
	isnt($ret, 0, "$name: verify fails");
	like($err, qr/XX002/, "$name: ERRCODE_INDEX_CORRUPTED");
	like($err, $re, "$name: the report names the problem");
}

# Scans must not crash: an answer equal to a seqscan's, or XX002
sub scans_survive
{
	my ($name) = @_;
	my ($ret, $out, $err) = $node->psql('postgres', q{
		\set VERBOSITY verbose
		SET enable_seqscan = off;
		SELECT count(*) FROM v WHERE a IN (1, 77, 250, 499);
	});
	ok($ret == 0 || $err =~ /XX002/, "$name: scans end cleanly");
	is($node->safe_psql('postgres', 'SELECT 1'), '1', "$name: server alive");
}

sub first_block
{
	my ($kind) = @_;
	return $node->safe_psql('postgres',
		"SELECT min(blkno) FROM scbf_pages('v_a') WHERE kind = '$kind'"
		  . ($kind eq 'filter' ? " AND block_index = 0" : ''));
}

# 1. counters below what the ledger implies: a filter zeroed, bookkeeping too
fresh_index();
my $head = first_block('filter');
overwrite($head, 24, "\0" x 36);    # nonzero[] and nsaturated
overwrite($head, $COUNTERS, "\0" x ($BLCKSZ - 16 - $COUNTERS));
verify_fails('false', qr/its ledger implies at least/, 'zeroed counters');
scans_survive('zeroed counters');

# 2. bookkeeping that does not match the counters
fresh_index();
$head = first_block('filter');
overwrite($head, 24, pack('v', 1));    # nonzero[0] = 1
verify_fails('false', qr/non-zero counters/, 'wrong non-zero count');

# 3. a ledger page that is not what its filter says (owner's serial)
fresh_index();
my $ledger = first_block('ledger');
overwrite($ledger, $BLCKSZ - 16 + 4, pack('V', 999));
verify_fails('false', qr/is not a ledger page/, 'foreign ledger page');
scans_survive('foreign ledger page');

# 4. a page whose special space is garbage
fresh_index();
$ledger = first_block('ledger');
overwrite($ledger, $BLCKSZ - 16, "\xff" x 16);
verify_fails('false', qr/is not a ledger page/, 'garbage special space');
scans_survive('garbage special space');

# 5. a ledger entry pointing at another TID: only the heap check sees it
fresh_index();
$ledger = first_block('ledger');
my $page = read_page($ledger);
my $tid = unpack('v', substr($page, $ENTRIES, 2));
my $other = ($tid & ~0x1ff) | 250;    # offset 250: unused on these pages
overwrite($ledger, $ENTRIES, pack('v', $other));
is($node->psql('postgres', "SELECT scbf_verify('v_a', false)"), 0,
	'moved ledger entry: the index alone looks consistent');
verify_fails('true', qr/lacks a matching index entry/, 'moved ledger entry');

# 6. a counter above what the ledger implies: harmless, a NOTICE only
fresh_index();
$head = first_block('filter');
$page = read_page($head);
my $pos;
for my $i (0 .. 6999)
{
	my $byte = ord(substr($page, $COUNTERS + $i, 1));
	my $low = $byte & 0x0f;
	if ($low >= 1 && $low <= 13)
	{
		$pos = $i;
		overwrite($head, $COUNTERS + $i, chr(($byte & 0xf0) | ($low + 1)));
		last;
	}
}
ok(defined $pos, 'found a counter to raise');
my ($ret, $out, $err) = $node->psql('postgres', "SELECT scbf_verify('v_a', true)");
is($ret, 0, 'stale counter: verify passes');
like($err, qr/counter\(s\) above what its ledger implies/, 'stale counter: reported as a NOTICE');
check_query($node, 'postgres', 'SELECT * FROM v WHERE a = 77', 'stale counter: answers right');

# after all this the index can be rebuilt and verifies again
$node->safe_psql('postgres', 'REINDEX INDEX v_a');
is($node->psql('postgres', "SELECT scbf_verify('v_a', true)"), 0, 'rebuilt index verifies');

$node->stop;
done_testing();
