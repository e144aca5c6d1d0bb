#!/usr/bin/env bash
# The main job on the bundled example: build cuzk, prove examples/mul with
# it, and verify the proof.  Installs the build dependencies if missing.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
scripts/deps.sh --build-only
make -s -j"$(nproc)" build/cuzk
out=${1:-build/example}
mkdir -p "$out"
ex=examples/mul
echo "== cuzk info $ex/circuit.zkey"
build/cuzk info "$ex/circuit.zkey"
echo "== cuzk prove"
time build/cuzk prove "$ex/circuit.zkey" "$ex/witness.wtns" "$out/proof.json" "$out/public.json"
echo "== public signals: $(tr -d ' \n' < "$out/public.json")"
echo "== cuzk verify"
build/cuzk verify "$ex/verification_key.json" "$out/public.json" "$out/proof.json"
echo "proof written to $out/proof.json"
