# Measured false-positive rate against the target: probe many absent values
# and count the filters that say "maybe" (scbf_probe).  The rate must stay
# below the target and agree with the state FPR the index reports
# (scbf_index_info.est_fpr, the product over slices of the non-zero
# fraction), and no such false positive may cost a heap page.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use lib 'test/t';
use ScbfTest;

my $node = new_node('fpr');
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION scbf;
	CREATE TABLE f (k int, pad text);
	-- about 11,000 distinct values per 128-page segment, even numbers only
	INSERT INTO f SELECT g * 2, 'x' FROM generate_series(1, 300000) g;
	VACUUM ANALYZE f;
});

for my $target ('0.01', '0.001')
{
	$node->safe_psql('postgres', qq{
		DROP INDEX IF EXISTS f_k;
		CREATE INDEX f_k ON f USING scbf (k) WITH (false_positive_rate = $target);
	});
	my ($filters, $est) = split /\|/, $node->safe_psql('postgres',
		"SELECT filters, est_fpr FROM scbf_index_info('f_k')");

	# absent values: odd numbers
	my $probes = 4000;
	my ($maybe, $heap) = split /\|/, $node->safe_psql('postgres', qq{
		SELECT count(*), coalesce(sum(heap_pages), 0)
		FROM generate_series(1, $probes) g, scbf_probe('f_k', g * 2 * 37 + 1)
	});
	my $tests = $probes * $filters;
	my $measured = $maybe / $tests;
	my $sigma = sqrt($est / $tests);
	note sprintf("target %s: %d filters, %d probes: measured %.5f, state estimate %.5f",
		$target, $filters, $probes, $measured, $est);

	cmp_ok($est, '<=', $target, "target $target: state FPR within target");
	cmp_ok($measured, '<=', $target * 1.2,
		"target $target: measured FPR within target");
	cmp_ok(abs($measured - $est), '<=', 4 * $sigma + 0.1 * $est,
		"target $target: measured FPR agrees with the state estimate");
	is($heap, '0', "target $target: false positives read no heap page");

	# and the index still finds every present value it is asked for
	check_query($node, 'postgres', "SELECT * FROM f WHERE k IN (2, 4000, 599998, 3)");
}

$node->stop;
done_testing();
