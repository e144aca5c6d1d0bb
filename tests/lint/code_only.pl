#!/usr/bin/env perl
# code_only.pl FILE: prints FILE with its comments and string and character
# literals blanked (each of their characters but newlines becomes a space),
# so that line numbers stay and a name in a comment or a message is not
# taken for a use.  For the lint scripts of this directory.
use strict;
use warnings;
local $/;
my $s = <>;
$s = '' unless defined $s;
$s =~ s{(/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*')}{ my $c = $1; $c =~ s/[^\n]/ /g; $c }gse;
print $s;
