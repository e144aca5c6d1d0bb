#!/usr/bin/env bash
# cuzk prove against `snarkjs groth16 prove` on the same zkey and witness, on
# this machine, in one command (docs/PERF.md §4.3: CPU peers timed side by side).
# Uses the oracle fixtures (tests/oracle/make_fixtures.sh BUILD/oracle --big).
# Usage: bench/prove_vs_snarkjs.sh [BUILD] [circuit...]   (default chain_16k chain_64k)
# Prints one row per circuit: median of 3 runs each, and the ratio.  cuzk
# runs with --device cpu: the comparison is of the two CPU provers.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$repo/build}; shift || true
circuits=${*:-chain_16k chain_64k}
snarkjs=$repo/tests/oracle/node_modules/.bin/snarkjs
cuzk=$build/cuzk
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
med3() { printf '%s\n' "$@" | sort -g | sed -n 2p; }
t() { local s e; s=$(date +%s.%N); "$@" >/dev/null 2>&1 || { echo "failed: $*" >&2; exit 1; }; e=$(date +%s.%N); echo "$e - $s" | bc; }
printf '%-10s %8s %8s %10s %10s %8s\n' circuit domain threads snarkjs_s cuzk_s ratio
for c in $circuits; do
  d=$build/oracle/$c
  [ -f "$d/circuit.zkey" ] || { echo "$c: no fixture at $d (run make_fixtures.sh $build/oracle --big)"; continue; }
  dom=$(grep -o 'domainSize=[0-9]*' "$d/info.txt" | cut -d= -f2)
  # Interleaved (snarkjs, cuzk, snarkjs, ...) so that both see the same
  # conditions on a shared machine, whose speed drifts by tens of percent.
  ss=() ks=()
  for i in 1 2 3; do
    ss+=("$(t "$snarkjs" groth16 prove "$d/circuit.zkey" "$d/witness.wtns" "$tmp/p.json" "$tmp/q.json")")
    ks+=("$(t "$cuzk" prove --quiet --device cpu "$d/circuit.zkey" "$d/witness.wtns" "$tmp/p.json" "$tmp/q.json")")
  done
  s=$(med3 "${ss[@]}"); k=$(med3 "${ks[@]}")
  printf '%-10s %8s %8s %10.3f %10.3f %7.1fx\n' "$c" "$dom" "$(nproc)" "$s" "$k" "$(echo "$s / $k" | bc -l)"
done
