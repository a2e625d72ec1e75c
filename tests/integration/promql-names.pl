#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# The metric and label names of PromQL expressions, one expression a line on stdin:
# prints "metric NAME" and "label NAME" lines (duplicates included).  Not a parser: it
# relies on promtool having accepted the expressions, and reads what a metric name can
# be (an identifier outside braces, brackets and label lists, not a function, keyword or
# number) and what a label name can be (left of a matcher, or in by/without/on/ignoring/
# group_left/group_right lists).
use strict;
use warnings;

my %keyword = map { $_ => 1 } qw(and or unless bool offset by without on ignoring
	group_left group_right inf nan);
my $lists = qr/\b(?:by|without|on|ignoring|group_left|group_right)\s*\(([^)]*)\)/;

while (my $e = <STDIN>) {
	chomp $e;
	$e =~ s/"(?:[^"\\]|\\.)*"/""/g;
	$e =~ s/'(?:[^'\\]|\\.)*'/''/g;
	$e =~ s/`[^`]*`/``/g;
	for my $m ($e =~ /\{([^}]*)\}/g) {
		print "label $1\n" while $m =~ /([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)/g;
	}
	for my $l ($e =~ /$lists/g) {
		print "label $_\n" for grep { length } map { s/^\s+|\s+$//gr } split /,/, $l;
	}
	$e =~ s/\{[^}]*\}/ /g;
	$e =~ s/\[[^\]]*\]/ /g;
	$e =~ s/$lists/ /g;
	while ($e =~ /(?<![\w.:])([a-zA-Z_:][a-zA-Z0-9_:]*)(\s*\()?/g) {
		next if defined $2 || $keyword{ lc $1 };
		print "metric $1\n";
	}
}
