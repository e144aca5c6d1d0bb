#!/usr/bin/env bash
# Runs every fuzz harness of BUILD/fuzz/ (make fuzz) for SECONDS each on its
# seed corpus (tests/fuzz/corpus/NAME, with tests/fuzz/NAME.dict when
# present), one job at a time, and fails a target on any crash, leak,
# timeout (-timeout) or memory blow-up (-rss_limit_mb).  New inputs go to a
# scratch corpus under BUILD/fuzz-run/, never into the tree; a failing
# target's input and log are kept there.  A harness of tests/fuzz that was
# not built (fuzz_rpc without gRPC) is skipped.
# Usage: tests/fuzz/run.sh [BUILD [SECONDS [TARGET...]]]  (default build-fuzz 30, all)
# Prints "N passed, N failed, N skipped" (one per target).
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
b=${1:-build-fuzz} secs=${2:-30}
shift 2 2>/dev/null
only=" $* "
cd "$here"
P=0 F=0 S=0
work="$b/fuzz-run"
rm -rf "$work" && mkdir -p "$work"
for src in tests/fuzz/fuzz_*.c; do
  t=$(basename "$src" .c) name=${t#fuzz_}
  [ "$only" = "  " ] || [[ "$only" == *" $name "* ]] || continue
  bin="$b/fuzz/$t"
  if [ ! -x "$bin" ]; then
    echo "skip: $name: $bin was not built (make fuzz; fuzz_rpc needs gRPC)"; S=$((S+1)); continue
  fi
  mkdir -p "$work/$name/corpus" "$work/$name/art"
  dict=(); [ -f "tests/fuzz/$name.dict" ] && dict=(-dict="tests/fuzz/$name.dict")
  log="$work/$name/log"
  nice "$bin" -max_total_time="$secs" -timeout=20 -rss_limit_mb=2048 -max_len=16384 \
    -print_final_stats=1 -artifact_prefix="$work/$name/art/" "${dict[@]}" \
    "$work/$name/corpus" "tests/fuzz/corpus/$name" >"$log" 2>&1
  rc=$?
  runs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$')
  if [ $rc -eq 0 ] && ! ls "$work/$name/art/" | grep -q .; then
    cov=$(grep -oE ' cov: [0-9]+' "$log" | tail -n 1 | grep -oE '[0-9]+')
    echo "pass: $name: ${runs:-?} executions in ${secs}s ($(( ${runs:-0} / secs ))/s), cov ${cov:-?}," \
      "corpus $(ls "$work/$name/corpus" | wc -l)"; P=$((P+1))
  else
    echo "FAIL: $name (exit $rc): input and log under $work/$name/"
    grep -E 'ERROR|SUMMARY|invariant failed|runtime error' "$log" | head -n 5
    F=$((F+1))
  fi
done
echo "$P passed, $F failed, $S skipped"
[ "$F" -eq 0 ]
