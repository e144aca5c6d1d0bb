#!/usr/bin/env bash
# The long fuzz campaign: every harness of tests/fuzz for at least RUNS
# executions (default 10,000,000) on all cores of a machine that need not
# have cuzk's libraries.
#
#   tests/fuzz/campaign.sh pack [BUILD [TARBALL]]
#       here, after `make fuzz`: the harnesses of BUILD/fuzz (default
#       build-fuzz), every shared library they load but glibc's (libcjson,
#       libstdc++, ...), the seed corpora, the dictionaries and this script,
#       into TARBALL (default BUILD/fuzz-pack.tgz).
#   tests/fuzz/campaign.sh run TARBALL OUT [--runs N] [--seconds S] [--targets "a b"]
#       there: unpacks TARBALL under TMPDIR and runs each target in turn with
#       -jobs=W -workers=W (W = the cores), every job -runs=N/W, all of a
#       target's jobs sharing one corpus; S (default 50) caps a target's wall
#       time, so that the run fits a machine lent for minutes; a target
#       that stopped at the cap short of N says so.  Writes OUT/summary.txt
#       (per target: executions, exec/s, corpus size, coverage, findings)
#       and OUT/campaign.tgz (the summary, each target's first job log, every
#       crash, leak, timeout and out-of-memory input): two files.
# Exit status: 1 when a target had a finding.
set -uo pipefail
cmd=${1:-}
if [ "$cmd" = pack ]; then
  here=$(cd "$(dirname "$0")/../.." && pwd)
  b=${2:-build-fuzz} tb=${3:-${2:-build-fuzz}/fuzz-pack.tgz}
  cd "$here"
  st=$(mktemp -d)
  mkdir -p "$st/fuzz/bin" "$st/fuzz/lib"
  for f in "$b"/fuzz/fuzz_*; do
    case "$f" in *.d) continue ;; esac
    cp "$f" "$st/fuzz/bin/" || exit 1
    scripts/copy_libs.sh "$st/fuzz/lib" "$f" || exit 1
  done
  cp -r tests/fuzz/corpus "$st/fuzz/corpus" && cp tests/fuzz/*.dict tests/fuzz/campaign.sh "$st/fuzz/" || exit 1
  tar -C "$st" -czf "$tb" fuzz || exit 1
  rm -rf "$st"
  echo "packed $(ls "$tb") ($(du -h "$tb" | cut -f1)): $(ls "$b"/fuzz/fuzz_* | grep -vc '\.d$') targets"
  exit 0
fi
[ "$cmd" = run ] && [ $# -ge 3 ] || { sed -n '2,23p' "$0"; exit 2; }
tb=$2 out=$3
shift 3
runs=10000000 secs=50 targets=""
while [ $# -gt 0 ]; do
  case "$1" in
  --runs) runs=$2; shift 2 ;;
  --seconds) secs=$2; shift 2 ;;
  --targets) targets=$2; shift 2 ;;
  *) echo "campaign: unknown option $1"; exit 2 ;;
  esac
done
mkdir -p "$out"
out=$(cd "$out" && pwd)
w=$(nproc)
per=$(((runs + w - 1) / w))
root=$(mktemp -d "${TMPDIR:-/tmp}/cuzk-campaign.XXXXXX")
tar -C "$root" -xzf "$tb" || exit 1
fz="$root/fuzz"
export LD_LIBRARY_PATH="$fz/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
res="$root/results"
mkdir -p "$res"
sum="$res/summary.txt"
{
  echo "# cuzk fuzz campaign: $(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -n), $w cores"
  echo "# each target: $w jobs x $per runs (goal $runs), capped at ${secs}s wall"
  printf '%-12s %12s %9s %8s %7s %8s %s\n' target executions exec/s corpus cov findings note
} >"$sum"
found=0
[ -n "$targets" ] || targets=$(cd "$fz/bin" && ls fuzz_* | sed 's/^fuzz_//')
for name in $targets; do
  bin="$fz/bin/fuzz_$name" d="$root/$name"
  [ -x "$bin" ] || { printf '%-12s %s\n' "$name" "not packed" >>"$sum"; continue; }
  mkdir -p "$d/corpus" "$d/art"
  dict=(); [ -f "$fz/$name.dict" ] && dict=(-dict="$fz/$name.dict")
  t0=$(date +%s.%N)
  (cd "$d" && "$bin" -jobs="$w" -workers="$w" -runs="$per" -max_total_time="$secs" \
    -timeout=20 -rss_limit_mb=2048 -max_len=16384 -print_final_stats=1 \
    -artifact_prefix="$d/art/" "${dict[@]}" "$d/corpus" "$fz/corpus/$name" >"$d/main.log" 2>&1)
  t1=$(date +%s.%N)
  execs=$(cat "$d"/fuzz-*.log 2>/dev/null | grep -oE 'stat::number_of_executed_units: *[0-9]+' |
    awk '{s += $2} END {print s + 0}')
  cov=$(cat "$d"/fuzz-*.log 2>/dev/null | grep -oE ' cov: [0-9]+' | awk '$2 > m {m = $2} END {print m + 0}')
  ncorp=$(ls "$d/corpus" | wc -l)
  nfind=$(ls "$d/art" | wc -l)
  rate=$(awk -v e="$execs" -v a="$t0" -v b="$t1" 'BEGIN {printf "%d", e / (b - a)}')
  note=""
  [ "$execs" -ge "$runs" ] || note="stopped at the ${secs}s cap short of $runs"
  [ "$nfind" -eq 0 ] || { note="FINDINGS: $(ls "$d/art" | tr '\n' ' ')"; found=1; }
  printf '%-12s %12s %9s %8s %7s %8s %s\n' "$name" "$execs" "$rate" "$ncorp" "$cov" "$nfind" "$note" >>"$sum"
  mkdir -p "$res/$name"
  cp "$d"/art/* "$res/$name/" 2>/dev/null
  [ -f "$d/fuzz-0.log" ] && tail -n 200 "$d/fuzz-0.log" >"$res/$name/fuzz-0.log"
  tail -n 50 "$d/main.log" >"$res/$name/main.log"
done
cat "$sum"
cp "$sum" "$out/summary.txt"
tar -C "$root" -czf "$out/campaign.tgz" results
rm -rf "$root"
exit $found
