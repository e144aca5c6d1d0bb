#!/usr/bin/env bash
# The fault tests of cuzk-daemon and the CLI (issue 14's campaign, each
# bounded in count and time, on loopback and unix sockets only): runs every
# tests/daemon/fault_*.sh with BUILD_DIR and adds up their result lines.
# Each fault_*.sh sources common.sh and ends with its finish line.
# Usage: tests/daemon/faults.sh [BUILD_DIR]   (default build)
# Prints "N passed, N failed, N skipped" last; exit status 0 when none failed.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build}
P=0; F=0; S=0
for t in "$here"/fault_*.sh; do
  [ -f "$t" ] || continue
  echo "-- $(basename "$t")"
  out=$(bash "$t" "$build" 2>&1)
  echo "$out"
  line=$(echo "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -n 1)
  if [ -z "$line" ]; then F=$((F+1)); echo "FAIL    $(basename "$t"): no result line"; continue; fi
  read -r a _ b _ c _ <<<"$(echo "$line" | tr -d ',')"
  P=$((P+a)); F=$((F+b)); S=$((S+${c:-0}))
done
echo "$P passed, $F failed, $S skipped"
[ "$F" -eq 0 ]
