# Fold helpers (src/scbffoldhelper.c): background workers that fold a bulk
# load's full insert batches while the loading backend goes on.
#
#   1. the server stops (immediate, as in a crash) while helpers fold the
#      batches of a load that has not committed: afterwards the table has
#      only the rows committed before, every probe equals a sequential
#      scan, and the verifier finds only what a crashed fold leaves (after
#      VACUUM, only the extra row bits, which stay);
#   2. a load commits and the server stops at once: every row of it is
#      found through the indexes after the restart (the helpers' folds
#      commit before the load does, and its last batch is in the pending
#      area before, which the helpers fold only after the commit);
#   3. three sessions load into one table at once: their helpers meet at
#      the fold lock, and a helper that cannot take it leaves its batch to
#      its backend; every row ends up in the indexes exactly once;
#   4. a full batch that comes while the helper is busy goes to the
#      pending area, and so does the load's last batch at commit; the
#      helper folds them after the commit.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use lib 'test/t';
use ScbfTest;

my $node = start_node('helpers', conf => "autovacuum = off\nshared_buffers = '128MB'\n");
$node->safe_psql('postgres', q{
	CREATE EXTENSION scbf;
	CREATE TABLE h (id int, a int, t text);
	INSERT INTO h SELECT g, g / 20, md5(g::text) FROM generate_series(1, 50000) g;
	CREATE INDEX h_a ON h USING scbf (a);
	CREATE INDEX h_t ON h USING scbf (t);
});
# (the planner's look at the index loads the library, which defines it)
is($node->safe_psql('postgres', "EXPLAIN SELECT * FROM h WHERE a = 1 \\g /dev/null\nSHOW scbf.fold_helpers"),
	'on', 'fold helpers are on by default');

# every index's entries equal the table's rows, none pending once the
# helpers' folds after the loads' commits are done (with $pending, some may
# stay: a crash came before those folds, or concurrent loads' folds met at
# the fold lock)
sub entries_equal_rows
{
	my ($what, $pending) = @_;
	my $query = q{
		SELECT string_agg(format('%s %s', i.entries_live + i.entries_pending = (SELECT count(*) FROM h),
				i.entries_pending = 0), ', ' ORDER BY c.relname)
		FROM pg_class c, scbf_index_info(c.oid) i WHERE c.relname IN ('h_a', 'h_t')};
	if ($pending)
	{
		like($node->safe_psql('postgres', $query), qr/^t [tf], t [tf]$/,
			"$what: every row has one entry in each index");
	}
	else
	{
		$node->poll_query_until('postgres', $query, 't t, t t');
		is($node->safe_psql('postgres', $query), 't t, t t',
			"$what: every row has one entry in each index, none pending");
	}
}

# probes of rows of the first 50,000 ids (present all along) and of ids
# past them (present if a load committed)
sub probes
{
	my ($what, $loaded) = @_;
	my $rows = $loaded ? 'any' : 'empty';
	scbf_same($node, 'postgres', [
		[ 'SELECT * FROM h WHERE a = 700', 'any' ],
		[ "SELECT * FROM h WHERE t = md5('49999')", 'any' ],
		[ 'SELECT * FROM h WHERE a = 9000', $rows ],
		[ "SELECT * FROM h WHERE t IN (md5('180001'), md5('250000'))", $rows ] ],
		nonempty => 2, name => $what);
}

# wait until a helper is folding (its activity says so); false if none
# came within the timeout
sub helper_folding
{
	return $node->poll_query_until('postgres', q{
		SELECT count(*) > 0 FROM pg_stat_activity
		WHERE backend_type = 'scbf fold helper' AND query = 'folding an insert batch'});
}

# ---- 1. a crash while helpers fold an uncommitted load
my $load = $node->background_psql('postgres', on_error_stop => 0);
$load->query_until(qr/loading/, "\\echo loading\n"
	  . "INSERT INTO h SELECT g, g / 20, md5(g::text) FROM generate_series(50001, 1050000) g;\n");
ok(helper_folding(), 'crash during a load: a helper is folding');
crash($node, $load);
is($node->safe_psql('postgres', 'SELECT count(*) FROM h'), '50000',
	'crash during a load: only the rows committed before remain');
probes('crash during a load', 0);
verify_clean($node, $_, 'crash during a load', leftovers => [qw(pages counts bits)])
  for ('h_a', 'h_t');
# Row bits a crashed fold set stay set (src/README step 6: a recount
# clears only positions of entries it removes), and the verifier keeps
# noting their filters' counts from here on: false positives only.
my @after_crash = (leftovers => ['bits']);
$node->safe_psql('postgres', 'VACUUM h');
verify_clean($node, $_, 'crash during a load, then VACUUM', @after_crash) for ('h_a', 'h_t');
entries_equal_rows('crash during a load, then VACUUM');

# ---- 2. a committed load, then a crash
$node->safe_psql('postgres',
	'INSERT INTO h SELECT g, g / 20, md5(g::text) FROM generate_series(50001, 300000) g');
crash($node);
is($node->safe_psql('postgres', 'SELECT count(*) FROM h'), '300000',
	'crash after a load: every committed row is there');
probes('crash after a load', 1);
entries_equal_rows('crash after a load', 1);
# the crash may have stopped a helper's fold after the commit: what a
# crashed fold leaves, until VACUUM
verify_clean($node, $_, 'crash after a load', leftovers => [qw(pages counts bits)])
  for ('h_a', 'h_t');
$node->safe_psql('postgres', "SELECT scbf_clean_pending('h_a'), scbf_clean_pending('h_t')");
entries_equal_rows('crash after a load, then a fold');
$node->safe_psql('postgres', 'VACUUM h');
verify_clean($node, $_, 'crash after a load, then VACUUM', @after_crash) for ('h_a', 'h_t');

# ---- 3. three loads at once
my @loads = map { $node->background_psql('postgres') } 1 .. 3;
for my $i (0 .. 2)
{
	my $from = 300001 + $i * 150000;
	$loads[$i]->query_until(qr/started/, "\\echo started\n"
		  . "INSERT INTO h SELECT g, g / 20, md5(g::text) FROM generate_series($from, "
		  . ($from + 149999) . ") g;\n\\echo done\n");
}
for my $s (@loads)
{
	$s->query_until(qr/done/, '');
	$s->quit;
}
is($node->safe_psql('postgres', 'SELECT count(*) FROM h'), '750000',
	'three loads at once: every row is there');
probes('three loads at once', 1);
entries_equal_rows('three loads at once', 1);
$node->safe_psql('postgres', "SELECT scbf_clean_pending('h_a'), scbf_clean_pending('h_t')");
entries_equal_rows('three loads at once, then a fold');
verify_clean($node, $_, 'three loads at once', @after_crash) for ('h_a', 'h_t');

# ---- 4. a full batch that comes while the helper still folds the one
# before goes to the pending area instead of the load waiting (a merge of
# the delta takes longer than a batch takes to fill); so does the load's
# last batch at its commit, and the helper's fold after the commit takes
# them from there.  gdb makes the load's first check
# (ScbfHelperBusy) say "busy", whatever the helper is doing.
SKIP:
{
	my $s = $node->background_psql('postgres');
	my $pid = $s->query_safe('SELECT pg_backend_pid()');
	my $why = gdb_unusable($pid);
	skip "a deferred batch: $why", 1 if $why;
	$s->query_safe('SET log_min_messages = debug1');
	my $g = gdb_attach($pid);
	my $out = gdb_stop_at($g, ['ScbfHelperBusy'], start => sub {
		$s->query_until(qr/loading/, "\\echo loading\n"
			  . "INSERT INTO h SELECT g, g / 20, md5(g::text) FROM generate_series(750001, 900000) g;\n"
			  . "\\echo done\n");
	});
	like($out // '', qr/\@\@stopped\n#0\s+(?:0x[0-9a-f]+ in )?ScbfHelperBusy\b.*\bScbfBatchAdd\b/s,
		'a deferred batch: the load stopped where its first full batch asks whether the helper is busy');
	gdb_release($g, "return 1\n");
	$s->query_until(qr/done/, '');
	$s->quit;
	is($node->safe_psql('postgres', 'SELECT count(*) FROM h'), '900000',
		'a deferred batch: every row is there');
	like(slurp_file($node->logfile), qr/index "h_[at]": \d+ entries to the pending area, its fold helper still folding the batch before/,
		'a deferred batch: it went to the pending area')
	  or diag("where gdb stopped the load:\n" . ($out // '(nowhere)'));
	like(slurp_file($node->logfile), qr/index "h_[at]": 18928 entries to the pending area, for its fold helper to fold after the commit/,
		'a deferred batch: the last batch went to the pending area at commit');
	probes('a deferred batch', 1);
	# rows of the deferred batch (the first 65,536 of the load) and after it
	scbf_same($node, 'postgres', [
		[ 'SELECT * FROM h WHERE a IN (37500, 39000, 44999)', 'any' ],
		[ "SELECT * FROM h WHERE t IN (md5('750001'), md5('800000'), md5('899999'))", 'any' ] ],
		nonempty => 2, name => 'a deferred batch: its rows and the later ones');
	entries_equal_rows('a deferred batch');
	verify_clean($node, $_, 'a deferred batch', @after_crash) for ('h_a', 'h_t');
}

unlike(slurp_file($node->logfile), qr/scbf fold helper.*exited with exit code [^0]/,
	'no helper ended in an error (a crash aside)');

$node->stop;
done_testing();
