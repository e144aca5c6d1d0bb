#!/usr/bin/env bash
# The main job on the bundled example (examples/mul), in two parts:
#   1. build cuzk, prove the example with it, verify the proof;
#   2. the daemon: start build/cuzk-daemon with examples/cuzk.toml, prove
#      several jobs through cuzk's client (prove --remote; submit + await
#      at several priorities), verify every proof, show the daemon's
#      status, and stop it with SIGTERM.
# Part 2 runs when cuzk is built with gRPC (the default where
# scripts/deps.sh installed it); otherwise it says why it is skipped.
# Installs the build dependencies if missing.  Usage: scripts/example.sh [OUT_DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
scripts/deps.sh --build-only
make -s -j"$(nproc)" build/cuzk
out=${1:-build/example}
mkdir -p "$out"
out=$(cd "$out" && pwd)
ex=examples/mul
echo "== cuzk info $ex/circuit.zkey"
build/cuzk info "$ex/circuit.zkey"
echo "== cuzk prove"
time build/cuzk prove "$ex/circuit.zkey" "$ex/witness.wtns" "$out/proof.json" "$out/public.json"
echo "== public signals: $(tr -d ' \n' < "$out/public.json")"
echo "== cuzk verify"
build/cuzk verify "$ex/verification_key.json" "$out/public.json" "$out/proof.json"
echo "proof written to $out/proof.json"

# ---- 2. the daemon ------------------------------------------------------------
why=
if ! build/cuzk submit --help >/dev/null 2>&1; then
  why="this cuzk has no remote commands (cuzk submit)"
elif build/cuzk status --addr unix:///nonexistent 2>&1 | grep -q "built without gRPC"; then
  why="cuzk was built without gRPC (make GRPC=0)"
fi
if [ -n "$why" ]; then
  echo "== daemon demo skipped: $why"
  exit 0
fi
make -s -j"$(nproc)" build/cuzk-daemon
sock=$out/cuzk.sock
addr=unix://$sock
log=$out/daemon.log
echo "== cuzk-daemon --config examples/cuzk.toml --listen $addr (log: $log)"
build/cuzk-daemon --config examples/cuzk.toml --listen "$addr" --status-listen "unix://$out/status.sock" \
  >"$log" 2>&1 &
daemon=$!
trap 'kill -KILL $daemon 2>/dev/null || true' EXIT
for _ in $(seq 100); do
  grep -q ' ready$' "$log" && break
  kill -0 "$daemon" 2>/dev/null || { cat "$log"; echo "cuzk-daemon did not start"; exit 1; }
  sleep 0.1
done
grep -q ' ready$' "$log" || { cat "$log"; echo "cuzk-daemon did not become ready"; exit 1; }
grep -v '^[#\[]\|^$\|^[a-z_]* = ' "$log" | sed 's/^/   daemon| /'

echo "== cuzk prove --remote: one job, submitted and awaited in one call"
build/cuzk prove --remote "$addr" --circuit mul "$ex/witness.wtns" "$out/remote.proof.json" "$out/remote.public.json"
echo "   verify: $(build/cuzk verify "$ex/verification_key.json" "$out/remote.public.json" "$out/remote.proof.json")"

echo "== cuzk submit: four jobs at four priorities, then cuzk await each"
jobs=()
for p in low normal high critical; do
  jobs+=("$(build/cuzk submit --addr "$addr" --priority "$p" --request-id "example-$p" --json mul "$ex/witness.wtns")")
done
for j in "${jobs[@]}"; do
  build/cuzk await --addr "$addr" "$j" "$out/$j.proof.json" "$out/$j.public.json"
  echo "   $j verify: $(build/cuzk verify "$ex/verification_key.json" "$out/$j.public.json" "$out/$j.proof.json")"
done

echo "== cuzk status"
build/cuzk status --addr "$addr"
echo
echo "== SIGTERM: the daemon stops gracefully"
kill -TERM "$daemon"
rc=0
wait "$daemon" || rc=$?
trap - EXIT
tail -n 2 "$log" | sed 's/^/   daemon| /'
echo "cuzk-daemon exited with status $rc; socket $( [ -e "$sock" ] && echo "still there" || echo "removed")"
[ "$rc" -eq 0 ]
