# Measured false-positive rate against the target, for indexes built on a
# filled table (integer and text keys), an index grown by inserts (chains of
# filters) and the same after DELETE and VACUUM.  Many absent
# values are probed with scbf_probe(), which lists, per value, the filters
# that say "maybe"; from one pass:
#
#   per filter   maybe answers over (probes x filters).  For a built index
#                it must stay within the target (at most 20% above: a
#                sample) and agree with the state estimate the index reports
#                (scbf_index_info.est_fpr, the product over slices of the
#                non-zero fraction), which must itself be within the target;
#   per segment  (segment, value) pairs that some filter of the segment let
#                through, over (probes x segments): below twice the target
#                for a built index; for a grown one, below its longest
#                chain's length times the target (each filter of a chain
#                closes at the target), and its per-filter rate within the
#                target;
#   cost         a false positive costs no heap page (the ledger has no
#                matching entry).
#
# The data, the probes and the hash seed are fixed: the rates are the same
# on every run.  Scans must still return nothing for absent values and every
# row of present ones.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use lib 'test/t';
use ScbfTest;

my $node = start_node('fpr', conf => "autovacuum = off\nshared_buffers = '128MB'\n");

$node->safe_psql('postgres', q{
	CREATE EXTENSION scbf;
	CREATE TABLE ints (k int);
	INSERT INTO ints SELECT g FROM generate_series(1, 300000) g;
	CREATE TABLE texts (k text);
	INSERT INTO texts SELECT md5(g::text) FROM generate_series(1, 150000) g;
	VACUUM ANALYZE ints, texts;
});

my $nprobes = 4000;

# absent values: -1 .. -nprobes, or 'absent1' ...
sub measure
{
	my ($idx, $target, $what, $texts, $built) = @_;
	my $max_chain = $node->safe_psql('postgres', "SELECT max_chain FROM scbf_index_info('$idx')");
	my $value = $texts ? "'absent' || v" : '-v';
	my ($maybe, $pairs, $heap, $other, $filters, $segments, $est) = split /\|/, $node->safe_psql('postgres', qq{
		WITH p AS (SELECT v, x.* FROM generate_series(1, $nprobes) v, LATERAL scbf_probe('$idx', $value) x)
		SELECT (SELECT count(*) FROM p WHERE verdict = 'maybe'),
			   (SELECT count(DISTINCT (v, segno)) FROM p WHERE verdict = 'maybe'),
			   (SELECT coalesce(sum(heap_pages), 0) || ' ' || coalesce(sum(ledger_matches), 0) FROM p),
			   (SELECT count(*) FROM p WHERE verdict <> 'maybe'),
			   filters, segments, est_fpr
		FROM scbf_index_info('$idx')});
	my $per_filter = $maybe / ($nprobes * $filters);
	my $per_segment = $pairs / ($nprobes * $segments);
	note(sprintf('%s: target %s, %d segments, %d filters: per filter %.5f (state estimate %.5f), per segment %.5f',
		$what, $target, $segments, $filters, $per_filter, $est, $per_segment));
	is("$heap, $other", '0 0, 0', "$what: false positives read no heap page and no ledger entry; no segment is read whole");
	if (!$built)
	{
		cmp_ok($per_filter, '<=', $target * 1.2, "$what: per-filter FPR within the target");
		cmp_ok($per_segment, '<=', $max_chain * $target * 1.2,
			"$what: per-segment FPR within $max_chain (the longest chain) times the target");
		return;
	}
	cmp_ok($per_segment, '<', 2 * $target, "$what: per-segment FPR below twice the target");
	my $sigma = sqrt($est / ($nprobes * $filters));
	cmp_ok($est, '<=', $target, "$what: state FPR within the target");
	cmp_ok($per_filter, '<=', $target * 1.2, "$what: per-filter FPR within the target");
	cmp_ok(abs($per_filter - $est), '<=', 4 * $sigma + 0.1 * $est,
		"$what: per-filter FPR agrees with the state estimate");
}

for my $target ('0.01', '0.001')
{
	# built on a filled table: filters sized from each segment's keys
	# (about 11,000 per 128-page segment: filters of several blocks)
	$node->safe_psql('postgres',
		"CREATE INDEX ints_built ON ints USING scbf (k) WITH (false_positive_rate = $target)");
	measure('ints_built', $target, "ints, built, P=$target", 0, 1);
	scbf_same($node, 'postgres',
		'SELECT * FROM ints WHERE k = ANY(ARRAY(SELECT -g FROM generate_series(1, 500) g) || ARRAY[1, 4000, 299999])',
		rows => 3, name => "ints, built, P=$target: 3 present values among 500 absent ones");
	$node->safe_psql('postgres', 'DROP INDEX ints_built');

	# text keys
	$node->safe_psql('postgres',
		"CREATE INDEX texts_built ON texts USING scbf (k) WITH (pages_per_segment = 64, false_positive_rate = $target)");
	measure('texts_built', $target, "texts, built, P=$target", 1, 1);
	scbf_same($node, 'postgres', "SELECT * FROM texts WHERE k IN (md5('1'), md5('150000'), 'absent1')", rows => 2);
	$node->safe_psql('postgres', 'DROP INDEX texts_built');

	# built empty and grown by inserts: a fold keeps a segment's active
	# filter while its rate with the new keys stays within P, else starts
	# new filters (a chain); VACUUM merges filters of a chain that fit in
	# three quarters of one.  (Format 1 budgeted a chain P, P/2, P/4, ...
	# and consolidated every chain into one filter.)
	$node->safe_psql('postgres', qq{
		CREATE TABLE grown (k int);
		CREATE INDEX grown_k ON grown USING scbf (k) WITH (pages_per_segment = 32, false_positive_rate = $target);
		INSERT INTO grown SELECT g FROM generate_series(1, 300000) g;
	});
	cmp_ok($node->safe_psql('postgres', "SELECT max_chain FROM scbf_index_info('grown_k')"),
		'>', 1, "P=$target: inserts chained filters");
	measure('grown_k', $target, "ints, grown by inserts, P=$target");
	$node->safe_psql('postgres', 'DELETE FROM grown WHERE k % 10 = 0; VACUUM grown;');
	measure('grown_k', $target, "ints, grown, then DELETE and VACUUM, P=$target");
	scbf_same($node, 'postgres', 'SELECT * FROM grown WHERE k IN (-1, -2, 5, 10, 299999)', rows => 2);
	$node->safe_psql('postgres', 'DROP TABLE grown');
}

$node->stop;
done_testing();
