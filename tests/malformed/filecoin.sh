#!/usr/bin/env bash
# The Filecoin path end to end through the commands and the C API, on
# development circuits: `cuzk circuit gen` (a PoRep- and a WinningPoSt-
# shaped circuit at a small scale, with witnesses), `cuzk setup` (INSECURE
# .params/.vk), `cuzk prove --pce` (k partitions), `cuzk verify`, the
# @noble/curves verifier (tests/oracle/bp_verify.mjs, where node and the
# pinned node_modules are), and examples/prove_pce on libcuzk.so; then what
# must be refused: a key of another circuit, a witness that breaks a row,
# a .params without --pce, a truncated key, a tampered proof.
# Usage: tests/malformed/filecoin.sh BUILD_DIR
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
build=$(cd "${1:-build}" && pwd)
cuzk=$build/cuzk
tmp=$build/filecoin-cli
rm -rf "$tmp"; mkdir -p "$tmp"
. "$here/expect.sh"
noble=0
[ -f "$repo/tests/oracle/node_modules/@noble/curves/bls12-381.js" ] && command -v node >/dev/null && noble=1
[ "$noble" = 1 ] || echo "skip: the @noble/curves verifier (node or tests/oracle/node_modules missing)"

for shape in porep-32g:2 winning-32g:1; do
  s=${shape%%:*} k=${shape##*:} d=$tmp/$s
  expect 0 "" "$cuzk" circuit gen --shape "$s" --scale-lg 10 --partitions "$k" --seed 3 --out "$d"
  pce=$d/pce-$s.bin
  expect 0 "" "$cuzk" setup --quiet --seed 5 "$pce" "$d/k.params" "$d/k.vk"
  w=(); for ((i = 0; i < k; i++)); do w+=("$d/witness-$i.wtns"); done
  expect 0 "" "$cuzk" prove --quiet --device cpu --pce "$pce" "$d/k.params" "${w[@]}" "$d/proof.bin" "$d/public.json"
  size=$(stat -c %s "$d/proof.bin" 2>/dev/null || echo 0)
  if [ "$size" -eq $((192 * k)) ]; then pass=$((pass+1)); else
    fail=$((fail+1)); echo "FAIL: $s: proof.bin holds $size bytes, expected $((192 * k))"; fi
  expect 0 "OK" "$cuzk" verify "$d/k.vk" "$d/public.json" "$d/proof.bin"
  if [ "$noble" = 1 ]; then
    expect 0 "OK" node "$repo/tests/oracle/bp_verify.mjs" "$d/k.vk" "$d/public.json" "$d/proof.bin"
  fi
  # the C API: the example program on libcuzk.so
  expect 0 "proof(s) verified" "$build/examples/prove_pce" "$d/k.params" "$pce" "$d/api.bin" "${w[@]}"
  expect 0 "OK" "$cuzk" verify "$d/k.vk" "$d/public.json" "$d/api.bin"
  # a tampered proof: the last partition's C from its first partition's A
  python3 -c 'import sys; b=bytearray(open(sys.argv[1],"rb").read()); k=len(b)//192; b[192*(k-1)+144:192*k]=b[0:48]; open(sys.argv[2],"wb").write(b)' "$d/proof.bin" "$d/bad.bin"
  expect 1 "INVALID: partition $((k - 1))" "$cuzk" verify "$d/k.vk" "$d/public.json" "$d/bad.bin"
  if [ "$noble" = 1 ]; then
    expect 1 "INVALID" node "$repo/tests/oracle/bp_verify.mjs" "$d/k.vk" "$d/public.json" "$d/bad.bin"
  fi
done

p=$tmp/porep-32g w=$tmp/winning-32g
# a key of another circuit, named with the vector that disagrees
expect 2 "is not this circuit's" "$cuzk" prove --quiet --device cpu --pce "$p/pce-porep-32g.bin" "$w/k.params" "$p/witness-0.wtns" "$tmp/x.bin" "$tmp/x.json"
# a witness of another circuit
expect 2 "witness-0.wtns" "$cuzk" prove --quiet --device cpu --pce "$p/pce-porep-32g.bin" "$p/k.params" "$w/witness-0.wtns" "$tmp/x.bin" "$tmp/x.json"
# a witness that breaks a row: the last value changed (an aux variable)
python3 -c 'import sys; b=bytearray(open(sys.argv[1],"rb").read()); b[-32]^=1; open(sys.argv[2],"wb").write(b)' "$p/witness-0.wtns" "$tmp/broken.wtns"
expect 2 "fails verification" "$cuzk" prove --quiet --device cpu --pce "$p/pce-porep-32g.bin" "$p/k.params" "$tmp/broken.wtns" "$tmp/x.bin" "$tmp/x.json"
[ ! -e "$tmp/x.bin" ] && pass=$((pass+1)) || { fail=$((fail+1)); echo "FAIL: a failed prove left $tmp/x.bin"; }
# a .params without --pce
expect 2 "needs --pce CIRCUIT.bin" "$cuzk" prove "$p/k.params" "$p/witness-0.wtns" "$tmp/x.bin" "$tmp/x.json"
# a truncated key
head -c 5000 "$p/k.params" >"$tmp/short.params"
expect 2 "short.params" "$cuzk" prove --quiet --pce "$p/pce-porep-32g.bin" "$tmp/short.params" "$p/witness-0.wtns" "$tmp/x.bin" "$tmp/x.json"
# an output naming an input
expect 2 "" "$cuzk" prove --quiet --pce "$p/pce-porep-32g.bin" "$p/k.params" "$p/witness-0.wtns" "$p/witness-0.wtns" "$tmp/x.json"
# setup's usage and refusals
expect 0 "INSECURE" "$cuzk" setup --help
expect 2 "expected 3 file arguments" "$cuzk" setup "$p/pce-porep-32g.bin" "$tmp/a.params"
expect 2 "--seed needs an unsigned integer" "$cuzk" setup --seed -1 "$p/pce-porep-32g.bin" "$tmp/a.params" "$tmp/a.vk"
expect 2 "k.params" "$cuzk" setup "$p/k.params" "$tmp/a.params" "$tmp/a.vk"

# bench bp: single partitions, then a stream through the engine with a
# CRITICAL job (every proof verified by the prover or the engine)
expect 0 "stream: 2 jobs of 3 partitions" "$cuzk" bench bp --shape porep-32g --scale-lg 10 --reps 1 --device cpu --threads 2 --engine --jobs 2 --partitions 3 --critical 1 --witness-dir "$tmp"
expect 0 "CRITICAL winning-32g job 0" "$cuzk" bench bp --shape porep-32g --scale-lg 10 --reps 0 --device cpu --threads 2 --engine --jobs 1 --partitions 2 --critical 1 --witness-dir "$tmp"
expect 0 "stream: 2 jobs of 1 partitions" "$cuzk" bench bp --shape wpost-32g --scale-lg 10 --reps 0 --device cpu --threads 2 --engine --slots 2 --jobs 2 --partitions 1 --witness-dir "$tmp"
expect 2 "--slots: 1 to 16" "$cuzk" bench bp --shape porep-32g --engine --slots 17
expect 2 "--readahead: 0 to 16" "$cuzk" bench bp --shape porep-32g --engine --readahead 17

echo "filecoin-cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
