#!/usr/bin/env bash
# Every reference to a document resolves inside the repository.
#
#   tests/lint/doc_refs.sh [ROOT]    exit 0: every reference resolves; 1: some do not
#
# Scans the text files of src/ tests/ bench/ include/ scripts/ tools/ proto/
# examples/ docs/, the top-level *.md and the Makefile for references to a
# .md file ("docs/FORMATS.md", "[x](PERF.md#anchor)") and to the background
# documents by name ("STYLE habit 7", "DESIGN section 3").  A reference
# resolves when the file exists, relative to the referring file's directory
# or to ROOT, inside ROOT (so "../shared/docs/DESIGN.md" does not); when it
# names sections ("FORMATS.md 3.6", "§3.2", "sections 3-4", also on the next
# comment line), each one is the number of a heading of that file ("## 3.",
# "### 3.6 ..."); an anchor ("#the-daemon") is the slug of one of its
# headings.  In a .md file, a bare "§N" refers to the file's own headings.
# Each failure prints FILE:LINE, the reference and why; the last line is
# "doc_refs: N passed, N failed" (one per reference).
set -uo pipefail
root=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$root" || exit 2

files() {
  local d
  for d in src tests bench include scripts tools proto examples docs; do
    [ -d "$d" ] && find "$d" \( -name node_modules -o -name '.git' \) -prune -o -type f -print
  done
  find . -maxdepth 1 -type f \( -name '*.md' -o -name Makefile \) -print | sed 's|^\./||'
}

# Files whose references are examples of the syntax, not references.
SKIP="tests/lint/doc_refs.sh tests/unit/test_doc_refs.c"

files | LC_ALL=C sort | SKIP="$SKIP" perl -e '
use strict;
use warnings;

my ($pass, $fail) = (0, 0);
my %skip = map { $_ => 1 } split " ", $ENV{SKIP};
my %heads;    # file -> { nums => {n => 1}, slugs => {s => 1}, list => "0, 1, 3.2" }

sub norm {    # lexical normalization; undef when it climbs above ROOT
  my @out;
  for my $p (split m{/+}, $_[0]) {
    next if $p eq "" || $p eq ".";
    if ($p eq "..") { return undef unless @out; pop @out; next; }
    push @out, $p;
  }
  return join "/", @out;
}

sub headings {
  my $f = shift;
  return $heads{$f} if $heads{$f};
  my (%nums, %slugs, @list);
  if (open my $h, "<", $f) {
    local $/ = "\n";
    my $fence = 0;
    while (my $l = <$h>) {
      if ($l =~ /^\s*(```|~~~)/) { $fence = !$fence; next; }
      next if $fence;
      next unless $l =~ /^#{1,6}\s+(.*?)\s*#*\s*$/;
      my $t = $1;
      if ($t =~ /^(\d+(?:\.\d+)*)\.?(?:\s|$)/) { $nums{$1} = 1; push @list, $1; }
      my $s = lc $t;       # the slug GitHub gives the heading
      $s =~ s/[^a-z0-9 _\x80-\xff-]//g;
      $s =~ s/ /-/g;
      $slugs{$s} = 1;
    }
    close $h;
  }
  return $heads{$f} = { nums => \%nums, slugs => \%slugs, list => join(", ", @list) };
}

sub report {
  my ($file, $line, $ref, $why) = @_;
  if (defined $why) {
    $fail++;
    print "$file:$line: $ref: $why\n";
  } else {
    $pass++;
  }
}

my $N = qr/\d+(?:\.\d+)*/;
my $SEP = qr/\s*(?:-|\xe2\x80\x93|,|&|and|or)\s*/;    # -, en dash, comma, and, or
my $CONT = qr/(?:[ \t]|\n[ \t]*(?:\*|\/\/|\#|--|;)?[ \t]*)+/;    # spaces, or a comment line break

while (my $file = <STDIN>) {
  chomp $file;
  next if $skip{$file};
  open my $fh, "<", $file or next;
  local $/;
  my $text = <$fh>;
  close $fh;
  next if $text =~ /\x00/;    # binary
  my $dir = $file =~ m{^(.*)/} ? $1 : ".";
  my $is_md = $file =~ /\.md$/;
  my @starts = (0);    # line starts, for line numbers
  push @starts, $-[0] + 1 while $text =~ /\n/g;
  my $lineof = sub {
    my $off = shift;
    my ($lo, $hi) = (0, $#starts);
    while ($lo < $hi) { my $m = int(($lo + $hi + 1) / 2); if ($starts[$m] <= $off) { $lo = $m } else { $hi = $m - 1 } }
    return $lo + 1;
  };

  my @refs;    # [offset, path or undef (this file), display, sections [], anchor]
  # "X.md", then optionally "#anchor" or a section spec
  while ($text =~ m{(?<![A-Za-z0-9_./-])([A-Za-z0-9_./-]*[A-Za-z0-9_-]\.md)(?![A-Za-z0-9_])}g) {
    my ($tok, $off, $end) = ($1, $-[1], $+[1]);
    next if substr($text, $off > 3 ? $off - 3 : 0, $off > 3 ? 3 : $off) =~ m{:$|://$};    # a URL
    next if $off > 0 && substr($text, $off - 1, 1) =~ /[\$}%]/;    # "$dir/x.md", "${d}/x.md", "%s/x.md": a path in code
    my $rest = substr($text, $end, 300);
    my (@secs, $anchor, $disp) = ();
    $disp = $tok;
    if ($rest =~ /\A#([A-Za-z0-9_\x80-\xff-]+)/) {
      $anchor = $1;
      $disp .= "#$1";
    } elsif ($rest =~ /\A$CONT(?:\xc2\xa7(?:\xc2\xa7)?|[Ss]ections?\b)[ \t]*($N(?:$SEP$N)*)/) {
      my $spec = $1;
      @secs = $spec =~ /($N)/g;
      $disp .= " $spec";
    } elsif ($rest =~ /\A[ \t]+(\d++(?:\.\d++)*+)(?!\.?\w)/) {
      @secs = ($1);
      $disp .= " $1";
    }
    push @refs, [$off, $tok, $disp, \@secs, $anchor];
  }
  # the background documents by name, without ".md"
  while ($text =~ /\b(DESIGN|FORMATS|PERF|STYLE|CUZK-REFERENCE|USERS)$CONT((?:habit|[Ss]ections?|\xc2\xa7)[ \t]*(?:$N)?)/g) {
    push @refs, [$-[0], "$1.md", "$1 $2", [], undef];
  }
  if ($is_md) {    # bare "§N" and "(#anchor)" in a document: its own headings
    while ($text =~ /(?<![A-Za-z0-9_-]\.md )\xc2\xa7(?:\xc2\xa7)?[ \t]*($N(?:$SEP$N)*)/g) {
      my ($spec, $off) = ($1, $-[0]);
      my $from = $off > 200 ? $off - 200 : 0;
      next if substr($text, $from, $off - $from) =~ /[A-Za-z0-9_-]\.md$CONT?\z/;    # part of an X.md reference
      push @refs, [$off, undef, "\xc2\xa7$spec", [$spec =~ /($N)/g], undef];
    }
    while ($text =~ /\]\(#([A-Za-z0-9_\x80-\xff-]+)\)/g) {
      push @refs, [$-[0], undef, "(#$1)", [], $1];
    }
  }

  for my $r (@refs) {
    my ($off, $path, $disp, $secs, $anchor) = @$r;
    my $line = $lineof->($off);
    my $target;
    if (!defined $path) {
      $target = $file;
    } elsif ($path =~ m{^/}) {
      report($file, $line, $disp, "an absolute path, not a file of the repository");
      next;
    } else {
      for my $cand ("$dir/$path", $path) {
        my $n = norm($cand);
        if (defined $n && -f $n) { $target = $n; last; }
      }
      if (!defined $target) {
        my $in = grep { defined norm($_) } ("$dir/$path", $path);
        report($file, $line, $disp,
               $in ? "no such file in the repository (relative to $dir/ or to the top)"
                   : "outside the repository");
        next;
      }
    }
    my $h = headings($target);
    my @bad = grep { !$h->{nums}{$_} } @$secs;
    if (@bad) {
      report($file, $line, $disp, "no heading numbered " . join(", ", @bad) . " in $target"
             . ($h->{list} ne "" ? " (its numbered headings: $h->{list})" : " (it has no numbered headings)"));
      next;
    }
    if (defined $anchor && !$h->{slugs}{lc $anchor}) {
      report($file, $line, $disp, "no heading of $target has the anchor #$anchor");
      next;
    }
    report($file, $line, $disp, undef);
  }
}
print "doc_refs: $pass passed, $fail failed\n";
exit($fail ? 1 : 0);
'
