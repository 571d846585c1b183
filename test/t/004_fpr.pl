# Measured false-positive rate against the target.  Each index holds known
# distinct values; many absent values are probed with scbf_probe(), which
# lists the filters that say "maybe" for a value.  The per-segment FPR is
# the share of (segment, absent value) pairs that some filter of the
# segment let through.  It must stay below twice false_positive_rate, for
# indexes built on a filled table, indexes grown by inserts (chains of
# filters) and after VACUUM consolidated them; and scans must still return
# nothing for the absent values (the ledger filters out every false
# positive: no heap page is read for them).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use lib 'test/t';
use ScbfTest;

my $node = new_node('fpr');
$node->append_conf('postgresql.conf', "autovacuum = off\nshared_buffers = '128MB'\n");
$node->start;

$node->safe_psql('postgres', q{
	CREATE EXTENSION scbf;
	-- (segment, absent value) pairs that passed, over all pairs probed
	CREATE FUNCTION measured_fpr(idx regclass, nprobes int, texts bool DEFAULT false)
	RETURNS float8 LANGUAGE sql AS $$
		SELECT count(DISTINCT (v, p.segno))::float8 /
			   ((SELECT segments FROM scbf_index_info(idx)) * nprobes)
		FROM generate_series(1, nprobes) v,
			 LATERAL (SELECT segno FROM scbf_probe(idx, -v)
					  WHERE NOT texts AND verdict = 'maybe' AND ledger_matches = 0
					  UNION ALL
					  SELECT segno FROM scbf_probe(idx, 'absent' || v)
					  WHERE texts AND verdict = 'maybe' AND ledger_matches = 0) p
	$$;
	CREATE TABLE ints (k int);
	INSERT INTO ints SELECT g FROM generate_series(1, 300000) g;
	CREATE TABLE texts (k text);
	INSERT INTO texts SELECT md5(g::text) FROM generate_series(1, 150000) g;
});

my $nprobes = 3000;

sub check_fpr
{
	my ($idx, $target, $what, $texts) = @_;
	my $m = $node->safe_psql('postgres',
		"SELECT measured_fpr('$idx', $nprobes, " . ($texts ? 'true' : 'false') . ')');
	my $info = $node->safe_psql('postgres',
		"SELECT segments || ' segments, ' || filters || ' filters, max chain ' || max_chain || ', estimated ' || round(est_fpr::numeric, 5) FROM scbf_index_info('$idx')");
	note(sprintf('%s: target %.4f, measured %.5f (%s)', $what, $target, $m, $info));
	diag(sprintf('FPR %s: target %.4f, measured %.5f (%s)', $what, $target, $m, $info))
	  if $ENV{SCBF_FPR_VERBOSE};
	cmp_ok($m, '<', 2 * $target, "$what: measured per-segment FPR below twice the target $target");
	return $m;
}

for my $target (0.01, 0.001)
{
	# built on a filled table: filters sized from each segment's keys
	$node->safe_psql('postgres',
		"CREATE INDEX ints_built ON ints USING scbf (k) WITH (pages_per_segment = 32, false_positive_rate = $target)");
	check_fpr('ints_built', $target, "ints, built, P=$target");
	# the absent values are never returned (the ledger removes the false positives)
	is($node->safe_psql('postgres',
		"SET enable_seqscan = off; SELECT count(*) FROM ints WHERE k = ANY(ARRAY(SELECT -g FROM generate_series(1, 500) g))"),
		'0', "ints, P=$target: absent values are not returned");
	$node->safe_psql('postgres', 'DROP INDEX ints_built');

	# text keys
	$node->safe_psql('postgres',
		"CREATE INDEX texts_built ON texts USING scbf (k) WITH (pages_per_segment = 64, false_positive_rate = $target)");
	check_fpr('texts_built', $target, "texts, built, P=$target", 1);
	$node->safe_psql('postgres', 'DROP INDEX texts_built');

	# built empty and grown by inserts: the first filter closes at P, each
	# filter chained after it at half the budget of the one before, so the
	# chain stays below 2P in all; VACUUM consolidates the chains
	$node->safe_psql('postgres', qq{
		CREATE TABLE grown (k int);
		CREATE INDEX grown_k ON grown USING scbf (k) WITH (pages_per_segment = 32, false_positive_rate = $target);
		INSERT INTO grown SELECT g FROM generate_series(1, 300000) g;
	});
	cmp_ok($node->safe_psql('postgres', "SELECT max_chain FROM scbf_index_info('grown_k')"),
		'>', 1, "P=$target: inserts chained filters");
	check_fpr('grown_k', $target, "ints, grown by inserts, P=$target");
	$node->safe_psql('postgres', 'DELETE FROM grown WHERE k % 10 = 0; VACUUM grown;');
	check_fpr('grown_k', $target, "ints, grown then consolidated by VACUUM, P=$target");
	check_query($node, 'postgres', 'SELECT * FROM grown WHERE k IN (-1, -2, 5, 10, 299999)');
	$node->safe_psql('postgres', 'DROP TABLE grown');
}

$node->stop;
done_testing();
