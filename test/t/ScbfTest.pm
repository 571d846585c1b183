# ScbfTest.pm: shared helpers of scbf's TAP tests.
#
# new_node() wraps PostgreSQL::Test::Cluster->new and init: every cluster
# gets UTF8 and the C.UTF-8 locale whatever the caller's environment (LANG
# unset, or any other locale), and when SCBF_EXTENSION_DESTDIR is set (a
# private "make install DESTDIR=..."), the node loads scbf from there instead
# of the server's library directory; JIT is off.  start_node() adds
# settings (the crash tests' in one place) and starts it.
#
# scbf_same() is the one comparison of index answers with a sequential scan
# (the TAP twin of sql/include/scbf_same.sql): every TAP test that compares
# uses it; rows_hash() is the SQL of its row fingerprint, for the tests that
# compare in other ways (ScbfShard's citus_same, 061, 062).  verify_clean()
# runs scbf_verify with heapallindexed.
#
# The crash gate: a test stops a backend at a row it picks, asserts where
# it stands, then crashes or cancels it.  create_gate() makes the SQL
# function gate(id, a), which returns a but, in a session whose crash.gate
# lists id, first waits for the advisory lock of id; hold_gate() holds
# those locks, gated_session() starts a statement behind the gate and
# wait_gated() waits until it waits there.  freeze_vacuum() freezes a
# VACUUM in its cost-delay sleep instead; kill_backend() then kills the
# backend (the postmaster reinitializes and replays WAL), crash() stops the
# server with 'immediate'.
#
# Breakpoints: where no sleep or lock can stop a backend (a fold that an
# INSERT's flush starts runs without a cost delay; VACUUM's steps between
# two of its records), gdb stops it at the entry of a function the test
# names.  gdb_unusable() says why gdb cannot do that here (not installed,
# ptrace forbidden, the backend under Valgrind), gdb_attach() attaches to a
# backend, gdb_stop_at() sets breakpoints, starts the statement and waits
# until the backend stops at the last one, returning what gdb said (its
# backtrace there included), and gdb_crash() kills the stopped backend with
# SIGKILL and ends gdb; gdb_release() lets it go on instead.
#
# long_tests() is true with SCBF_TEST_LONG=1 (test/run-tests --long): the
# long crash loops and churn runs then run at their full sizes.
package ScbfTest;

use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);
use IPC::Run;
use Exporter 'import';

our @EXPORT = qw(new_node start_node long_tests scbf_same rows_hash verify_clean
  probe_churned
  create_gate hold_gate gated_session wait_gated freeze_vacuum kill_backend
  crash end_session flush_wal
  gdb_unusable gdb_attach gdb_stop_at gdb_release gdb_crash
  read_index_page patch_index);

# The settings of the crash tests (start_node's crash => 1): no autovacuum
# to race the test, no checkpoint the test did not ask for (so that
# recovery replays everything since the test's own), and a cluster that
# restarts after a backend's crash
my $crash_conf = "autovacuum = off\ncheckpoint_timeout = '1h'\nmax_wal_size = '4GB'\n"
  . "shared_buffers = '64MB'\nrestart_after_crash = on\n";

# Create and initialize a node; extra arguments go to init().  initdb gets a
# fixed encoding and locale; an "extra" argument of the caller comes after
# them (and so wins).
sub new_node
{
	my ($name, %params) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);
	$params{extra} = [ '--encoding=UTF8', '--locale=C.UTF-8', @{ $params{extra} // [] } ];
	# initdb enables data checksums by default from 18; the tests that edit
	# index pages in place (020) need them off, as on 15 and 17
	push @{ $params{extra} }, '--no-data-checksums'
	  if $node->pg_version >= 18;
	{
		# initdb through the template (initdb_from_template)
		no warnings 'redefine';
		my $system_or_bail = \&PostgreSQL::Test::Utils::system_or_bail;
		local *PostgreSQL::Test::Utils::system_or_bail = sub {
			return $_[0] eq 'initdb' && ($_[1] // '') eq '-D'
			  ? initdb_from_template($system_or_bail, @_)
			  : $system_or_bail->(@_);
		};
		$node->init(%params);
	}
	# No JIT: the forced runs of scbf_same disable sequential scans, which
	# adds 1e10 to the estimated cost of any plan that still has one (its
	# catalog query, a plan => 'seqscan' case), and so compiles it with
	# LLVM's inlining and optimization: a second or two per query on a busy
	# machine, and nothing scbf does
	$node->append_conf('postgresql.conf', "jit = off\n");
	if (my $d = $ENV{SCBF_EXTENSION_DESTDIR})
	{
		# the server's library directory (/usr/lib/postgresql/N/lib) under $d
		my $pkglibdir = $node->config_data('--pkglibdir');
		$node->append_conf('postgresql.conf',
			"extension_destdir = '$d'\n"
			  . "dynamic_library_path = '$d$pkglibdir:\$libdir'\n");
	}
	return $node;
}

# initdb_from_template($system_or_bail, 'initdb', '-D', $pgdata, @args):
# what Cluster's init asks of initdb, as a copy of a data directory that
# initdb made once per TAP run (in tmp_check) with the same @args, as
# PostgreSQL 16's test framework does with INITDB_TEMPLATE: about twenty
# nodes in a run, each initdb a few seconds on a busy machine.  Only the
# form of the call of 15 and 17 (initdb -D pgdata ...) goes through here;
# any other (18 spells it --pgdata) runs initdb as it is.
sub initdb_from_template
{
	my ($system_or_bail, $initdb, $dflag, $pgdata, @args) = @_;
	my $key = join(' ', @args);
	$key =~ s/[^A-Za-z0-9=.]+/_/g;
	my $dir = "$PostgreSQL::Test::Utils::tmp_check/initdb_template/$key";
	if (!-d $dir)
	{
		mkdir "$PostgreSQL::Test::Utils::tmp_check/initdb_template";
		my $tmp = "$dir.$$";
		$system_or_bail->($initdb, '-D', $tmp, @args);
		rename($tmp, $dir) or die "rename $tmp to $dir: $!";
	}
	$system_or_bail->('cp', '-RPp', $dir, $pgdata);
}

# start_node($name, %params): new_node($name, %params), with the lines of
# conf => "..." added to postgresql.conf (after the crash tests' settings
# with crash => 1) and those of hba => "..." to pg_hba.conf, started.
sub start_node
{
	my ($name, %params) = @_;
	my $conf = delete $params{conf} // '';
	my $hba = delete $params{hba};
	$conf = $crash_conf . $conf if delete $params{crash};
	my $node = new_node($name, %params);
	$node->append_conf('postgresql.conf', $conf) if $conf ne '';
	$node->append_conf('pg_hba.conf', $hba) if defined $hba;
	$node->start;
	return $node;
}

# True when the long variants of the tests are asked for: SCBF_TEST_LONG=1
# (test/run-tests --long).  The default runs prove the same claims on
# fewer rows or fewer rounds.
sub long_tests
{
	return ($ENV{SCBF_TEST_LONG} // '') =~ /^(1|yes|on|true)$/i;
}

# scbf_same($node, $dbname, $queries, %opt): run each query with the index
# forced (bitmap scans only) and with a sequential scan, in one psql session
# per side, and assert for the whole list, three times:
#
#   plan   the EXPLAIN of the forced run has a Bitmap Index Scan, and every
#          Bitmap Index Scan of it is on an scbf index (plan => 'seqscan'
#          records a deliberate case where no scbf index can serve the query:
#          then the plan must have none);
#   rows   the index and the sequential scan return the same rows (count and
#          a sum of row hashes);
#   count  each query returns the rows the test expects:
#            rows => N         exactly N rows
#            rows => '>0'      at least one (a present key: the default)
#            rows => 'empty'   none: a comparison that can only come out
#                              empty, for where emptiness is the point (a
#                              deleted or absent value); the name says so
#            rows => 'any'     depends on the run (concurrent tests): then
#                              nonempty => M says how many of these queries
#                              at least must return rows, so that the
#                              comparison cannot pass on empty answers alone
#
# $queries is one query, or a reference to a list whose items are queries
# or [query, rows] pairs (the pair's rows overrides the option).  With
# reference => $other_node, the sequential scan runs on that node (a
# standby's index against its primary's heap).  Returns the row count (a
# list of counts for a list).
sub scbf_same
{
	my ($node, $dbname, $queries, %opt) = @_;
	local $Test::Builder::Level = $Test::Builder::Level + 1;
	my ($name, @items) = same_items('scbf_same', $queries, %opt);
	my @any = grep { $_->[1] eq 'any' } @items;
	die "scbf_same: rows => 'any' needs nonempty => M" if @any && !defined $opt{nonempty};
	my $seqscan_plan = ($opt{plan} // 'index') eq 'seqscan';

	my $wrap = \&rows_hash;
	my $forced = "SET enable_seqscan = off; SET enable_indexscan = off; SET enable_bitmapscan = on;\n"
	  . "SELECT '#scbf ' || coalesce(string_agg(quote_ident(c.relname), ' '), '') "
	  . "FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE a.amname = 'scbf';\n";
	my $seq = "SET enable_seqscan = on; SET enable_indexscan = off; SET enable_bitmapscan = off;\n";
	for my $i (0 .. $#items)
	{
		my $q = $items[$i][0];
		$forced .= "\\echo '#plan $i'\nEXPLAIN (COSTS OFF) $q;\n"
		  . "SELECT '#index $i ' || (" . $wrap->($q) . ");\n";
		$seq .= "SELECT '#seq $i ' || (" . $wrap->($q) . ");\n";
	}
	my (%scbf, @plan, @idx, @seq);
	my $cur;
	my $ref = $opt{reference};
	my $out = $node->safe_psql($dbname, $ref ? $forced : $forced . $seq);
	$out .= "\n" . $ref->safe_psql($dbname, $seq) if $ref;
	for my $line (split /\n/, $out)
	{
		if ($line =~ /^#scbf (.*)$/) { $scbf{$_} = 1 for split / /, $1; }
		elsif ($line =~ /^#plan (\d+)$/) { $cur = $1; $plan[$cur] = ''; }
		elsif ($line =~ /^#index (\d+) (\S+)$/) { $idx[$1] = $2; undef $cur; }
		elsif ($line =~ /^#seq (\d+) (\S+)$/) { $seq[$1] = $2; }
		elsif (defined $cur) { $plan[$cur] .= "$line\n"; }
	}

	my (@badplan, @badrows, @badcount);
	my $nonempty_any = 0;
	my @counts;
	for my $i (0 .. $#items)
	{
		my ($q, $want) = @{ $items[$i] };
		my @scans = ($plan[$i] // '') =~ /Bitmap Index Scan on (\S+)/g;
		my $uses = @scans && !grep { !$scbf{$_} } @scans;
		my $noscbf = !grep { $scbf{$_} } @scans;
		push @badplan, "$q\n" . ($plan[$i] // "(no plan)\n")
		  if $seqscan_plan ? !$noscbf : !$uses;
		my ($n) = split /:/, $seq[$i] // '';
		push @counts, $n;
		if (!defined $idx[$i] || !defined $seq[$i] || $idx[$i] ne $seq[$i])
		{
			push @badrows, sprintf('%s: index %s, seqscan %s (rows:hash)', $q,
				$idx[$i] // '?', $seq[$i] // '?');
		}
		$nonempty_any++ if $want eq 'any' && ($n // 0) > 0;
		my $bad = count_problem($q, $want, $n);
		push @badcount, $bad if defined $bad;
	}
	if (@any && $nonempty_any < $opt{nonempty})
	{
		push @badcount, sprintf('only %d of the %d queries whose counts depend on the run returned rows, expected at least %d',
			$nonempty_any, scalar(@any), $opt{nonempty});
	}

	my $more = sub { my @l = @_; return @l > 5 ? (@l[0 .. 4], sprintf('... and %d more', @l - 5)) : @l; };
	ok(!@badplan, "$name: " . ($seqscan_plan ? 'no scbf index in the plan, as intended' : 'plan uses the scbf index'))
	  or diag(join("\n", $more->(@badplan)));
	ok(!@badrows, "$name: index equals seqscan") or diag(join("\n", $more->(@badrows)));
	ok(!@badcount, "$name: row counts as expected") or diag(join("\n", $more->(@badcount)));
	return wantarray ? @counts : $counts[0];
}

# same_items($caller, $queries, %opt): the queries of scbf_same or
# citus_same as a test name and a list of [query, rows] pairs, with the
# default rows => ($opt{rows}, or '>0') filled in and a trailing semicolon
# taken off.  The name is $opt{name}, or the query (the first of a list),
# and says how many queries are expected empty.
sub same_items
{
	my ($caller, $queries, %opt) = @_;
	my @items = map { ref $_ ? [@$_] : [ $_, undef ] } (ref $queries ? @$queries : ($queries));
	my $default = $opt{rows} // '>0';
	$_->[1] //= $default for @items;
	$_->[0] =~ s/;\s*$// for @items;
	for (@items)
	{
		die "$caller: rows must be N, '>0', 'empty' or 'any', not '$_->[1]'"
		  unless $_->[1] =~ /^(\d+|>0|empty|any)$/;
	}
	my $nempty = grep { $_->[1] eq 'empty' || $_->[1] eq '0' } @items;
	my $name = $opt{name}
	  // (@items == 1 ? $items[0][0] : scalar(@items) . ' queries from ' . $items[0][0]);
	$name .= " ($nempty expected empty)" if $nempty;
	return ($name, @items);
}

# count_problem($query, $want, $n): what is wrong with $n rows (undef: no
# answer) where the test expects $want (N, '>0', 'empty', or 'any': any
# count), or undef if nothing is
sub count_problem
{
	my ($q, $want, $n) = @_;
	return "$q: no answer" if !defined $n;
	return if $want eq 'any';
	return $n == 0 ? "$q: $n rows, expected some" : undef if $want eq '>0';
	return $n != 0 ? "$q: $n rows, expected none" : undef if $want eq 'empty';
	return $n != $want ? "$q: $n rows, expected $want" : undef;
}

# rows_hash($query): SQL that answers "count:hash" for the rows of $query
# (a sum of row hashes), the fingerprint scbf_same compares
sub rows_hash
{
	return "SELECT count(*) || ':' || coalesce(sum(hashtext(s::text)::int8), 0) FROM ($_[0]) s";
}

# probe_churned($node, $what, %opt): the concurrency tests' comparison of
# table t (or $opt{table}; column a: anchors -1 .. -500 that no client
# deletes, values 0 .. 4999 that clients insert and delete at random) with
# a sequential scan, for a = -500, -493, ... 4997: the anchors (one row
# each) in one = ANY query, the others in = ANY queries of 50 (each holds
# rows), and the first value of each of those alone (a single equality;
# present or not)
sub probe_churned
{
	my ($node, $what, %opt) = @_;
	my $t = $opt{table} // 't';
	my @v = map { -500 + 7 * $_ } 0 .. 785;
	my @anchors = grep { $_ < 0 } @v;
	my @others = grep { $_ >= 0 } @v;
	my @q = ([ "SELECT * FROM $t WHERE a = ANY(ARRAY[" . join(',', @anchors) . '])', scalar(@anchors) ]);
	my @single;
	while (my @chunk = splice(@others, 0, 50))
	{
		push @q, "SELECT * FROM $t WHERE a = ANY(ARRAY[" . join(',', @chunk) . '])';
		push @single, [ "SELECT * FROM $t WHERE a = $chunk[0]", 'any' ];
	}
	scbf_same($node, 'postgres', [ @q, @single ], nonempty => int(@single / 2),
		name => "$what: a = -500, -493, ... 4997");
}

# verify_clean($node, $idx, $what, %opt): scbf_verify($idx, true) succeeds
# without a word.  With above => 1 it may also report, as a NOTICE and
# nothing else, counters above what the ledgers imply (false positives,
# never a wrong answer: what an insert of several columns that fails
# between raising the counters and writing its ledger entry leaves).  With
# leftovers => [kinds], a format-2 index may also report, as NOTICEs and
# nothing else, what an interrupted fold or VACUUM leaves, of the kinds
# listed: 'pages' that no structure names, filter table 'counts' ahead of
# the ledgers, table counts of set 'bits' that differ from the band (extra
# bits: false positives).
my %leftover = (
	pages => qr/has \d+ page\(s\) that no structure names/,
	counts => qr/has \d+ filter table entries whose counts differ from their ledgers/,
	bits => qr/has \d+ filter table entries whose set bits differ from the row band/);

sub verify_clean
{
	my ($node, $idx, $what, %opt) = @_;
	local $Test::Builder::Level = $Test::Builder::Level + 1;
	my ($ret, $out, $err) = $node->psql('postgres', "SELECT scbf_verify('$idx', true)");
	my $notice = qr/^psql:<stdin>:1: NOTICE:  index "$idx" has \d+ counter\(s\) above what its ledgers imply(?:\n(?:DETAIL|HINT):  [^\n]*)*\n?\z/;
	if ($opt{above} && $ret == 0 && $err ne '' && $err =~ $notice)
	{
		pass("$what: scbf_verify('$idx', true) finds nothing wrong");
		note("$what: $err");
		return;
	}
	if ($opt{leftovers} && $ret == 0 && $err ne '')
	{
		my $kinds = join('|', map { $leftover{$_} // die "verify_clean: no leftover kind $_" } @{ $opt{leftovers} });
		if ($err =~ /^(?:psql:<stdin>:1: NOTICE:  index "\Q$idx\E" (?:$kinds)[^\n]*\n(?:(?:DETAIL|HINT):  [^\n]*\n?)*)+\z/)
		{
			pass("$what: scbf_verify('$idx', true) finds nothing wrong but "
				  . join(', ', @{ $opt{leftovers} }) . ' an interruption left');
			note("$what: $err");
			return;
		}
	}
	ok($ret == 0 && $err eq '', "$what: scbf_verify('$idx', true) is clean") or diag($err);
}

# create_gate($node): the SQL function gate(id, a) in database postgres,
# which returns a, after waiting, in a session whose crash.gate lists id
# (comma-separated), for the transaction-level advisory lock of id; and
# gate_wait(id), that wait alone, for other functions to call.  Sessions
# that do not set crash.gate never wait.  Callers name public.gate_wait:
# from 17 on, CREATE INDEX, REINDEX and VACUUM evaluate index expressions
# and support functions with search_path = pg_catalog, pg_temp.
sub create_gate
{
	my ($node) = @_;
	$node->safe_psql('postgres', q{
	CREATE FUNCTION gate_wait(id int) RETURNS void LANGUAGE plpgsql AS $$
	BEGIN
		IF id = ANY (string_to_array(nullif(current_setting('crash.gate', true), ''), ',')::int[]) THEN
			PERFORM pg_advisory_xact_lock(id);
		END IF;
	END $$;
	CREATE FUNCTION gate(id int, a int) RETURNS int LANGUAGE plpgsql IMMUTABLE AS $$
	BEGIN
		PERFORM public.gate_wait(id);
		RETURN a;
	END $$;
	});
}

# hold_gate($node, @ids): a session holding the advisory locks of @ids, so
# that a gated session waits at those rows; unlock one with
# $s->query_safe("SELECT pg_advisory_unlock(id)"), all with $s->quit
sub hold_gate
{
	my ($node, @ids) = @_;
	my $s = $node->background_psql('postgres');
	$s->query_safe("SELECT pg_advisory_lock($_)") for @ids;
	return $s;
}

# gated_session($node, $sql, $gates): start $sql in a new session whose
# crash.gate is $gates (a comma-separated list of ids) and return (session,
# its pid) without waiting for $sql; the session echoes "done" after it,
# which $s->query_until(qr/done/, '') waits for
sub gated_session
{
	my ($node, $sql, $gates) = @_;
	my $s = $node->background_psql('postgres', on_error_stop => 0);
	my $pid = $s->query_safe('SELECT pg_backend_pid()');
	$s->query_until(qr/gated/, "SET crash.gate = '$gates';\n\\echo gated\n$sql;\n\\echo done\n");
	return ($s, $pid);
}

# wait_gated($node, $pid, $id, $phase, $what): wait until backend $pid
# waits for the advisory lock of $id (and, with $phase, is in that phase
# of pg_stat_progress_create_index), and assert it
sub wait_gated
{
	my ($node, $pid, $id, $phase, $what) = @_;
	local $Test::Builder::Level = $Test::Builder::Level + 1;
	my $in_phase = $phase
	  ? " AND pid IN (SELECT pid FROM pg_stat_progress_create_index WHERE phase = '$phase')" : '';
	ok($node->poll_query_until('postgres',
		"SELECT count(*) = 1 FROM pg_locks WHERE pid = $pid AND locktype = 'advisory' "
		  . "AND objid = $id AND NOT granted$in_phase"),
		"$what: waits at row $id" . ($phase ? " in phase '$phase'" : ''))
	  or diag($node->safe_psql('postgres',
		"SELECT string_agg(pid || ' ' || phase, ', ') FROM pg_stat_progress_create_index"));
}

# freeze_vacuum($node, $pid, $ready, $what): freeze the VACUUM backend $pid
# with SIGSTOP while it sleeps in vacuum_delay_point(), once query $ready
# returns true; returns its phase.  A SIGSTOP that lands outside the sleep
# (rare: the index work sleeps between every two pages) is undone with
# SIGCONT and tried again; the state the test asserts is the one read while
# the backend is frozen.
sub freeze_vacuum
{
	my ($node, $pid, $ready, $what) = @_;
	local $Test::Builder::Level = $Test::Builder::Level + 1;
	ok($node->poll_query_until('postgres', $ready), "$what: VACUUM reached the crash point");
	for my $try (1 .. 200)
	{
		kill('STOP', $pid) or die "SIGSTOP $pid: $!";
		my ($ret, $out) = $node->psql('postgres',
			"SET statement_timeout = '5s';\n"
			  . "SELECT p.phase || '|' || coalesce(a.wait_event, '') FROM pg_stat_progress_vacuum p "
			  . "JOIN pg_stat_activity a USING (pid) WHERE p.pid = $pid");
		my ($phase, $wait) = split /\|/, $out // '', -1;
		return $phase if $ret == 0 && defined $wait && $wait eq 'VacuumDelay';
		kill('CONT', $pid);
		usleep(5_000);
	}
	fail("$what: could not freeze the VACUUM in vacuum_delay_point()");
	return '';
}

# kill_backend($node, $pid, $what, %opt): crash by SIGKILL of backend $pid
# (frozen or waiting); the postmaster kills the others, reinitializes and
# replays WAL.  Asserts that it did, once the server accepts connections
# again.  killed => sub runs right after the signal.
sub kill_backend
{
	my ($node, $pid, $what, %opt) = @_;
	local $Test::Builder::Level = $Test::Builder::Level + 1;
	my $offset = -s $node->logfile;
	kill('KILL', $pid) or die "SIGKILL $pid: $!";
	# a traced backend's exit reaches the postmaster once its tracer let go
	$opt{killed}->() if $opt{killed};
	$node->wait_for_log(qr/database system is ready to accept connections/, $offset);
	like(slurp_file($node->logfile, $offset),
		qr/(?:server process|client backend) \(PID $pid\) was terminated by signal 9.*all server processes terminated; reinitializing.*redo starts/s,
		"$what: the backend's death crashed the server, which replayed WAL");
}

# crash($node, @sessions): stop the server with 'immediate' (no shutdown
# checkpoint, as in a crash), end the sessions it cut off, start it again
sub crash
{
	my ($node, @sessions) = @_;
	$node->stop('immediate');
	end_session($_) for @sessions;
	$node->start;
}

# end_session($s): end a session that died in a crash, without caring how
sub end_session { my ($s) = @_; eval { $s->quit }; }

# flush_wal($node): make everything written to WAL so far durable.  A
# VACUUM has no transaction id and an aborted or running INSERT no commit,
# so nothing flushes their records but the commit of a transaction that
# wrote WAL itself (one that only took an xid, like SELECT txid_current(),
# commits asynchronously): an insert into a table of its own.
sub flush_wal
{
	my ($node) = @_;
	$node->safe_psql('postgres',
		"CREATE TABLE IF NOT EXISTS scbf_flush_wal (x int);\nINSERT INTO scbf_flush_wal VALUES (1)");
}

# read_index_page($node, $idx, $blkno): block $blkno of index $idx as on
# disk, after a checkpoint (for the tests that read or break pages)
sub read_index_page
{
	my ($node, $idx, $blkno) = @_;
	my $path = $node->data_dir . '/'
	  . $node->safe_psql('postgres', "SELECT pg_relation_filepath('$idx')");
	my $blcksz = 8192;
	$node->safe_psql('postgres', 'CHECKPOINT');
	open(my $fh, '<:raw', $path) or die "open $path: $!";
	seek($fh, $blkno * $blcksz, 0) or die "seek: $!";
	read($fh, my $page, $blcksz) == $blcksz or die "short read";
	close($fh);
	return $page;
}

# patch_index($node, $idx, [blkno, offset, bytes], ...): overwrite bytes of
# index $idx with the node stopped, then start it again
sub patch_index
{
	my ($node, $idx, @edits) = @_;
	my $path = $node->data_dir . '/'
	  . $node->safe_psql('postgres', "SELECT pg_relation_filepath('$idx')");
	my $blcksz = 8192;
	$node->stop;
	open(my $fh, '+<:raw', $path) or die "open $path: $!";
	for my $e (@edits)
	{
		my ($blkno, $offset, $bytes) = @$e;
		seek($fh, $blkno * $blcksz + $offset, 0) or die "seek: $!";
		print $fh $bytes;
	}
	close($fh);
	$node->start;
}

# gdb_unusable($pid): why gdb cannot stop backend $pid at a breakpoint
# here, or undef if it can: gdb is not installed (test/setup-debian
# installs it), the kernel lets no process trace one it did not start
# (Yama's ptrace_scope above 0: TAP runs unprivileged), or the backend runs
# under Valgrind (test/run-tests --valgrind), whose translated code gdb's
# breakpoints do not reach.
sub gdb_unusable
{
	my ($pid) = @_;
	return 'gdb is not installed (test/setup-debian installs it)'
	  if system('gdb --version >/dev/null 2>&1') != 0;
	if (open(my $fh, '<', '/proc/sys/kernel/yama/ptrace_scope'))
	{
		my $scope = <$fh> // '';
		chomp $scope;
		return "the kernel forbids gdb to attach to a backend (kernel.yama.ptrace_scope = $scope)"
		  if $scope ne '' && $scope > 0;
	}
	my $exe = readlink("/proc/$pid/exe") // '';
	return "the backends run under Valgrind ($exe)" if $exe =~ /valgrind|memcheck/;
	return undef;
}

# gdb_attach($pid): gdb attached to backend $pid, which it stops; signals
# pass to the backend unseen, so only breakpoints stop it.  Dies if gdb
# cannot attach.
sub gdb_attach
{
	my ($pid) = @_;
	my $g = { pid => $pid, in => '', out => '',
		timer => IPC::Run::timeout($PostgreSQL::Test::Utils::timeout_default) };
	local $ENV{DEBUGINFOD_URLS} = '';
	$g->{h} = IPC::Run::start([ 'gdb', '-q', '-nx', '-p', $pid ],
		'<', \$g->{in}, '>&', \$g->{out}, $g->{timer});
	$g->{in} .= "set pagination off\nset confirm off\nset width 0\n"
	  . "set print frame-arguments none\nset breakpoint pending on\n"
	  . "handle all nostop noprint pass\nhandle SIGINT nostop noprint pass\n"
	  . "echo \@\@attached\\n\n";
	gdb_wait($g, qr/\@\@attached/)
	  or die "gdb could not attach to backend $pid:\n$g->{out}";
	die "gdb could not attach to backend $pid:\n$g->{out}"
	  if $g->{out} =~ /ptrace: |Could not attach/;
	return $g;
}

# gdb_wait($g, $re, $from): pump gdb's output until it matches $re (what
# it said from offset $from on, if given); false if it did not within the
# default timeout or gdb ended
sub gdb_wait
{
	my ($g, $re, $from) = @_;
	$from //= 0;
	$g->{timer}->start($PostgreSQL::Test::Utils::timeout_default);
	return eval {
		$g->{h}->pump until substr($g->{out}, $from) =~ $re;
		1;
	};
}

# gdb_stop_at($g, \@functions, %opt): let the backend run until it enters
# the functions in that order (a breakpoint on the next one is set once it
# entered the one before), run $opt{start}->() (the statement that gets
# there) once the backend runs, and wait until it stops in the last one;
# with finish => 1, until that function returned.  Returns what gdb said
# meanwhile, without its prompts: the breakpoints it stopped at, then
# "@@stopped", its backtrace there (frames of scbf by name) and "@@end";
# or undef if the backend did not get there within the default timeout
# (gdb's output is then a diag).  A backend stopped so may be sent on to
# further functions by another call (without start).
sub gdb_stop_at
{
	my ($g, $functions, %opt) = @_;
	my $cmds = '';
	$cmds .= "tbreak $_\ncontinue\n" for @$functions;
	$cmds .= "finish\n" if $opt{finish};
	$cmds .= "echo \@\@stopped\\n\nbacktrace\necho \@\@end\\n\n";
	my $from = length $g->{out};
	$g->{in} .= $cmds;
	# hand gdb the commands: the backend runs once it read a "continue"
	$g->{h}->pump_nb;
	$opt{start}->() if $opt{start};
	my $ok = gdb_wait($g, qr/\@\@stopped\n(?s:.*)\@\@end\n/, $from);
	(my $out = substr($g->{out}, $from)) =~ s/\(gdb\) //g;
	if (!$ok)
	{
		diag('the backend did not stop at ' . join(', ', @$functions) . "; gdb said:\n$out");
		return undef;
	}
	return $out;
}

# gdb_release($g, $cmds): give gdb the commands $cmds (say "return\n", to
# leave the function it stopped in at once), let the backend go on, and
# end gdb
sub gdb_release
{
	my ($g, $cmds) = @_;
	$g->{in} .= $cmds . "detach\nquit\n";
	$g->{timer}->start($PostgreSQL::Test::Utils::timeout_default);
	eval { $g->{h}->finish; 1 } or $g->{h}->kill_kill;
}

# gdb_crash($node, $g, $what): kill the backend gdb holds stopped with
# SIGKILL (kill_backend: the server crashes and replays WAL), and end gdb
sub gdb_crash
{
	my ($node, $g, $what) = @_;
	local $Test::Builder::Level = $Test::Builder::Level + 1;
	kill_backend($node, $g->{pid}, $what, killed => sub {
		$g->{in} .= "quit\n";
		$g->{timer}->start($PostgreSQL::Test::Utils::timeout_default);
		eval { $g->{h}->finish; 1 } or $g->{h}->kill_kill;
	});
}

1;
