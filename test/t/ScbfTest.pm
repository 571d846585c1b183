# ScbfTest.pm: shared helpers of scbf's TAP tests.
#
# new_node() wraps PostgreSQL::Test::Cluster->new and init: when
# SCBF_EXTENSION_DESTDIR is set (a private "make install DESTDIR=..."), the
# node loads scbf from there instead of the server's library directory.
package ScbfTest;

use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use Test::More;
use Exporter 'import';

our @EXPORT = qw(new_node check_query);

# Create and initialize a node; extra arguments go to init().
sub new_node
{
	my ($name, %params) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init(%params);
	if (my $d = $ENV{SCBF_EXTENSION_DESTDIR})
	{
		$node->append_conf('postgresql.conf',
			"extension_destdir = '$d'\n"
			  . "dynamic_library_path = '$d/usr/lib/postgresql/15/lib:\$libdir'\n");
	}
	return $node;
}

# Run a query with the index forced and with a sequential scan, and check
# that both give the same rows.  Returns the number of rows.
sub check_query
{
	my ($node, $dbname, $query, $name) = @_;
	my $wrap = "SELECT count(*) || ':' || coalesce(sum(hashtext(s::text)), 0) FROM ($query) s";
	my $idx = $node->safe_psql($dbname,
		"SET enable_seqscan = off; SET enable_indexscan = off; SET enable_bitmapscan = on; $wrap");
	my $seq = $node->safe_psql($dbname,
		"SET enable_seqscan = on; SET enable_indexscan = off; SET enable_bitmapscan = off; $wrap");
	is($idx, $seq, $name // "index equals seqscan: $query");
	my ($n) = split /:/, $seq;
	return $n;
}

1;
