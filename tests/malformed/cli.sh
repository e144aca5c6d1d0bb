#!/usr/bin/env bash
# Malformed input through the commands users run (prove, verify, export-vk,
# info), meant for the AddressSanitizer build: each case must exit with its
# status and a message that names the file and the problem, and nothing may
# crash or report a sanitizer error.  Also what a new user tripped on:
# outputs that name an input, verify's options and argument order, info's
# exit status, the remote forms of prove, --version, and the README's
# --device auto threshold against the code's.  Uses the bad files of
# tests/malformed/run.sh (which must run first) and the bundled example.
# Usage: tests/malformed/cli.sh BUILD_DIR
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
build=$(cd "${1:-build}" && pwd)
cuzk=$build/cuzk
bad=$build/malformed
ex=$repo/examples/mul
tmp=$build/malformed-cli
rm -rf "$tmp"; mkdir -p "$tmp"
. "$here/expect.sh"
[ -f "$bad/MANIFEST" ] || { echo "run tests/malformed/run.sh $build first"; echo "malformed-cli: 0 passed, 1 failed"; exit 1; }

# Broken keys and witnesses given to prove; every message names the file.
for z in "$bad"/*.zkey; do
  case $(basename "$z") in valid*.zkey|h_bad_point*.zkey) continue ;; esac
  expect 2 "$(basename "$z")" "$cuzk" prove "$z" "$ex/witness.wtns" "$tmp/p.json" "$tmp/q.json"
  expect 2 "$(basename "$z")" "$cuzk" export-vk "$z" "$tmp/vk.json"
done
for w in "$bad"/*.wtns; do
  case $(basename "$w") in sat.wtns|unsat.wtns|valid.wtns) continue ;; esac
  expect 2 "$(basename "$w")" "$cuzk" prove "$ex/circuit.zkey" "$w" "$tmp/p.json" "$tmp/q.json"
done
# A witness of the wrong length for this key, and a key passed as a witness.
expect 2 "valid.wtns" "$cuzk" prove "$ex/circuit.zkey" "$bad/valid.wtns" "$tmp/p.json" "$tmp/q.json"
expect 2 "not a .zkey file" "$cuzk" prove "$ex/witness.wtns" "$ex/circuit.zkey" "$tmp/p.json" "$tmp/q.json"
expect 2 "missing.zkey" "$cuzk" prove "$tmp/missing.zkey" "$ex/witness.wtns" "$tmp/p.json" "$tmp/q.json"
[ ! -e "$tmp/p.json" ] && pass=$((pass+1)) || { fail=$((fail+1)); echo "FAIL: a failed prove left $tmp/p.json"; }

# The good proof for the checks below.
if "$cuzk" prove --quiet "$ex/circuit.zkey" "$ex/witness.wtns" "$tmp/proof.json" "$tmp/public.json"; then pass=$((pass+1)); else fail=$((fail+1)); echo "FAIL: prove of the example"; fi
expect 0 OK "$cuzk" verify "$ex/verification_key.json" "$tmp/public.json" "$tmp/proof.json"

# A proof that fails verification.  A key with one point off its curve is
# named (the section, the point, its offset), and the witness is not
# blamed; a point replaced by another valid point passes every point check,
# so that key gets the message that names both possibilities; a good key
# with a tampered witness blames the witness.
python3 "$here/corrupt.py" "$ex/circuit.zkey" "$ex/witness.wtns" "$tmp" || { fail=$((fail+1)); echo "FAIL: tests/malformed/corrupt.py"; }
# expect_not SUBSTRING cmd...: the command's output must not contain SUBSTRING.
expect_not() {
  local sub=$1; shift
  local out
  out=$("$@" 2>&1)
  if [[ "$out" != *"$sub"* ]]; then pass=$((pass+1)); else fail=$((fail+1)); printf 'FAIL: %s\n  unwanted "%s" in:\n%s\n' "$*" "$sub" "$out"; fi
}
rm -f "$tmp/p.json" "$tmp/q.json"
expect 2 "off_curve.zkey: $(cat "$tmp/off_curve.expect")" "$cuzk" prove "$tmp/off_curve.zkey" "$ex/witness.wtns" "$tmp/p.json" "$tmp/q.json"
expect 2 "the proving key is corrupt" "$cuzk" prove "$tmp/off_curve.zkey" "$ex/witness.wtns" "$tmp/p.json" "$tmp/q.json"
expect_not "does not satisfy" "$cuzk" prove "$tmp/off_curve.zkey" "$ex/witness.wtns" "$tmp/p.json" "$tmp/q.json"
expect 2 "the witness does not satisfy the circuit, or the key is inconsistent (its points are all valid)" \
  "$cuzk" prove "$tmp/swapped.zkey" "$ex/witness.wtns" "$tmp/p.json" "$tmp/q.json"
expect 2 "tampered.wtns: the proof computed from it fails verification against $ex/circuit.zkey" \
  "$cuzk" prove "$ex/circuit.zkey" "$tmp/tampered.wtns" "$tmp/p.json" "$tmp/q.json"
expect_not "corrupt" "$cuzk" prove "$ex/circuit.zkey" "$tmp/tampered.wtns" "$tmp/p.json" "$tmp/q.json"
[ ! -e "$tmp/p.json" ] && [ ! -e "$tmp/q.json" ] && pass=$((pass+1)) || { fail=$((fail+1)); echo "FAIL: a proof that failed verification was written"; }

# Malformed JSON given to verify: exit 2, file named.
mk() { printf '%s' "$2" > "$tmp/$1"; }
mk trunc.json '{"pi_a": ["1", '
mk notjson.json 'hello'
mk empty.json ''
mk number.json "$(sed 's/"1"/1/' "$tmp/proof.json")"
mk big.json "$(sed '0,/"[0-9]\{20,\}"/s//"99999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999"/' "$tmp/proof.json")"
mk plonk.json "$(sed 's/"groth16"/"plonk"/' "$tmp/proof.json")"
mk bn128.json "$(sed 's/"bls12381"/"bn128"/' "$tmp/proof.json")"
python3 -c 'import json,sys; p=json.load(open(sys.argv[1])); p["pi_b"]=p["pi_b"][0]; json.dump(p,open(sys.argv[2],"w"))' "$tmp/proof.json" "$tmp/short_b.json"
for f in trunc notjson empty number big plonk short_b; do
  expect 2 "$f.json" "$cuzk" verify "$ex/verification_key.json" "$tmp/public.json" "$tmp/$f.json"
done
expect 2 "BN254" "$cuzk" verify "$ex/verification_key.json" "$tmp/public.json" "$tmp/bn128.json"
mk pub_ge_r.json '["52435875175126190479447740508185965837690552500527637822603658699938581184513", "7"]'
mk pub_neg.json '["-1", "7"]'
mk pub_short.json '["33"]'
mk pub_obj.json '{"a": 1}'
for f in pub_ge_r pub_neg pub_short pub_obj; do
  expect 2 "" "$cuzk" verify "$ex/verification_key.json" "$tmp/$f.json" "$tmp/proof.json"
done
expect 2 "trunc.json" "$cuzk" verify "$tmp/trunc.json" "$tmp/public.json" "$tmp/proof.json"
expect 2 "proof.json" "$cuzk" verify "$tmp/proof.json" "$tmp/public.json" "$tmp/proof.json"
# Usage errors.
expect 2 "expected 3" "$cuzk" verify "$tmp/proof.json"
expect 2 "expected 4" "$cuzk" prove "$ex/circuit.zkey"
expect 2 "unknown command" "$cuzk" frobnicate
expect 2 "--threads" "$cuzk" prove --threads zero "$ex/circuit.zkey" "$ex/witness.wtns" "$tmp/p.json" "$tmp/q.json"
# An unknown option is named as such, not counted as a file; arguments in
# the wrong order are named by what each file is.
expect 2 "unknown option '--json'" "$cuzk" verify --json "$ex/verification_key.json" "$tmp/public.json" "$tmp/proof.json"
usage_v="(usage: cuzk verify verification_key.json public.json proof.json)"
expect 2 "argument 1, $tmp/proof.json, is a proof, expected a verification key $usage_v" \
  "$cuzk" verify "$tmp/proof.json" "$tmp/public.json" "$ex/verification_key.json"
expect 2 "argument 2, $tmp/proof.json, is a proof, expected public signals" \
  "$cuzk" verify "$ex/verification_key.json" "$tmp/proof.json" "$tmp/public.json"
expect 2 "argument 1, $tmp/public.json, is public signals, expected a verification key" \
  "$cuzk" verify "$tmp/public.json" "$ex/verification_key.json" "$tmp/proof.json"

# info: a proof with a point off its curve, and a verification key whose
# alphabeta is not e(alpha, beta), are checks that failed: exit 1.
python3 -c 'import json,sys; p=json.load(open(sys.argv[1])); p["pi_a"][0]=str(int(p["pi_a"][0])+1); json.dump(p,open(sys.argv[2],"w"))' \
  "$tmp/proof.json" "$tmp/offcurve.json"
python3 -c 'import json,sys; v=json.load(open(sys.argv[1])); v["vk_alphabeta_12"][0][0][0]=str(int(v["vk_alphabeta_12"][0][0][0])+1); json.dump(v,open(sys.argv[2],"w"))' \
  "$ex/verification_key.json" "$tmp/badab.json"
expect 1 "NOT all on their curves" "$cuzk" info "$tmp/offcurve.json"
expect 1 "DIFFERS from e(alpha, beta)" "$cuzk" info "$tmp/badab.json"
expect 0 "A, B, C on their curves" "$cuzk" info "$tmp/proof.json"
expect 0 "equals e(alpha, beta)" "$cuzk" info "$ex/verification_key.json"

# Outputs that name an input file, or two outputs that are one file, are
# refused before anything is written; the inputs are left as they were.
cp "$ex/circuit.zkey" "$tmp/c.zkey"; cp "$ex/witness.wtns" "$tmp/w.wtns"
ln -sf "$tmp/c.zkey" "$tmp/link.json"; ln -f "$tmp/w.wtns" "$tmp/hard.json"
rm -f "$tmp/p.json" "$tmp/q.json"
expect 2 "the output $tmp/c.zkey is the input $tmp/c.zkey" "$cuzk" prove "$tmp/c.zkey" "$tmp/w.wtns" "$tmp/c.zkey" "$tmp/q.json"
expect 2 "the output $tmp/w.wtns is the input $tmp/w.wtns" "$cuzk" prove "$tmp/c.zkey" "$tmp/w.wtns" "$tmp/p.json" "$tmp/w.wtns"
expect 2 "the outputs $tmp/p.json and $tmp/p.json are the same file" "$cuzk" prove "$tmp/c.zkey" "$tmp/w.wtns" "$tmp/p.json" "$tmp/p.json"
expect 2 "are the same file" "$cuzk" prove "$tmp/c.zkey" "$tmp/w.wtns" "$tmp/p.json" "$tmp/../malformed-cli/./p.json"
expect 2 "is the input $tmp/c.zkey" "$cuzk" prove "$tmp/c.zkey" "$tmp/w.wtns" "$tmp/link.json" "$tmp/q.json"
expect 2 "is the input $tmp/w.wtns" "$cuzk" prove "$tmp/c.zkey" "$tmp/w.wtns" "$tmp/p.json" "$tmp/hard.json"
expect 2 "is the input" "$cuzk" prove --threads 1 "$tmp/c.zkey" "$tmp/w.wtns" "$tmp/p.json" "$tmp/c.zkey"
expect 2 "the output $tmp/c.zkey is the input $tmp/c.zkey" "$cuzk" export-vk "$tmp/c.zkey" "$tmp/c.zkey"
expect 2 "is the input $tmp/c.zkey" "$cuzk" export-vk "$tmp/c.zkey" "$tmp/link.json"
expect 2 "the output $tmp/w.wtns is the input $tmp/w.wtns" "$cuzk" prove --circuit mul "$tmp/w.wtns" "$tmp/w.wtns" "$tmp/q.json"
expect 2 "are the same file" "$cuzk" prove --circuit mul "$tmp/w.wtns" "$tmp/p.json" "$tmp/p.json"
if cmp -s "$tmp/c.zkey" "$ex/circuit.zkey" && cmp -s "$tmp/w.wtns" "$ex/witness.wtns" && [ ! -e "$tmp/p.json" ] && [ ! -e "$tmp/q.json" ]; then
  pass=$((pass+1))
else
  fail=$((fail+1)); echo "FAIL: a refused prove or export-vk changed an input or wrote an output"
fi

# The remote forms (with gRPC): --addr as `cuzk --help` says, and an
# option never taken for --remote's or --addr's value.
# bellperson files: a key, two partitions' proofs and inputs made by
# test_bp (a proof simulated with the key's trapdoor), verified and
# described, tampered and broken; where node and tests/oracle/node_modules
# are there, the @noble/curves verifier must give the same answers.
bp=$tmp/bp
CUZK_BP_FIXTURES=$bp CUZK_SRCDIR=$repo "$build/tests/unit/test_bp" bp_noble_oracle >/dev/null 2>&1
if [ ! -s "$bp/k.vk" ] || [ ! -s "$bp/k.params" ]; then
  fail=$((fail+1)); echo "FAIL: $build/tests/unit/test_bp bp_noble_oracle wrote no bellperson files in $bp"
else
  expect 0 OK "$cuzk" verify "$bp/k.vk" "$bp/public.json" "$bp/proof.bin"
  expect 0 OK "$cuzk" verify "$bp/k.vk" "$bp/public1.json" "$bp/proof1.bin"
  expect 1 "INVALID: partition 1 of 2: the pairing equation does not hold" "$cuzk" verify "$bp/k.vk" "$bp/public.json" "$bp/proof_bad.bin"
  expect 1 "INVALID: partition 1 of 2" "$cuzk" verify "$bp/k.vk" "$bp/public_bad.json" "$bp/proof.bin"
  python3 -c 'import sys; b=bytearray(open(sys.argv[1],"rb").read()); b[48]=0xc0; b[49:144]=bytes(95); open(sys.argv[2],"wb").write(b)' "$bp/proof.bin" "$bp/proof_inf.bin"
  expect 1 "INVALID: $bp/proof_inf.bin: partition 0, B at byte offset 48: point at infinity" "$cuzk" verify "$bp/k.vk" "$bp/public.json" "$bp/proof_inf.bin"
  head -c 200 "$bp/proof.bin" >"$bp/proof_short.bin"
  expect 2 "proof_short.bin: 200 bytes, expected a positive multiple of 192" "$cuzk" verify "$bp/k.vk" "$bp/public.json" "$bp/proof_short.bin"
  expect 2 "public1.json holds the inputs of 1 partition, $bp/proof.bin 2 proofs" "$cuzk" verify "$bp/k.vk" "$bp/public1.json" "$bp/proof.bin"
  echo '[["1","2"],["3","4"]]' >"$bp/public_few.json"
  expect 2 "2 inputs per partition, the key $bp/k.vk expects 3" "$cuzk" verify "$bp/k.vk" "$bp/public_few.json" "$bp/proof.bin"
  echo '[["1","2","3"],["3","x","5"]]' >"$bp/public_nan.json"
  expect 2 "public_nan.json: partition 1: [1]" "$cuzk" verify "$bp/k.vk" "$bp/public_nan.json" "$bp/proof.bin"
  head -c 1000 "$bp/k.vk" >"$bp/short.vk"
  expect 2 "short.vk: vector ic: count 4 at byte offset 864 needs 384 bytes" "$cuzk" verify "$bp/short.vk" "$bp/public.json" "$bp/proof.bin"
  expect 2 "k.params: 2324 trailing bytes at byte offset 1156 after the last vector (ic)" "$cuzk" verify "$bp/k.params" "$bp/public.json" "$bp/proof.bin"
  expect 0 "cuzk verify <KEY.vk> <PUBLIC.json> <PROOF.bin>" "$cuzk" verify --help
  expect 0 "n_ic:           4 (ONE and 3 inputs)" "$cuzk" info "$bp/k.vk"
  expect 0 "domain size:    8 (2^3, from h + 1)" "$cuzk" info "$bp/k.params"
  expect 0 "b_g2:           3 (G2)" "$cuzk" info --skip-checks "$bp/k.params"
  expect 0 "partitions:     2 of 192 bytes" "$cuzk" info "$bp/proof.bin"
  expect 1 "NOT decoded:    $bp/proof_inf.bin: partition 0, B" "$cuzk" info "$bp/proof_inf.bin"
  expect 2 "proof_short.bin: unknown file type (200 bytes)" "$cuzk" info "$bp/proof_short.bin"
  head -c 2000 "$bp/k.params" >"$bp/trunc.params"
  expect 2 "trunc.params: vector l: count 5 at byte offset 1832 needs 480 bytes of 96-byte points, only 164 left" "$cuzk" info "$bp/trunc.params"
  python3 -c 'import sys; b=bytearray(open(sys.argv[1],"rb").read()); b[1252+4+96+95]^=1; open(sys.argv[2],"wb").write(b)' "$bp/k.params" "$bp/offcurve.params"
  expect 2 "offcurve.params: vector h, point 2 at byte offset 1352: uncompressed G1: not on the curve" "$cuzk" info "$bp/offcurve.params"
  expect 0 "not checked (--skip-checks)" "$cuzk" info --skip-checks "$bp/offcurve.params"
  if [ -f "$repo/tests/oracle/node_modules/@noble/curves/bls12-381.js" ] && command -v node >/dev/null; then
    for c in "public.json proof.bin" "public1.json proof1.bin" "public.json proof_bad.bin" "public_bad.json proof.bin" "public.json proof_inf.bin"; do
      set -- $c
      "$cuzk" verify "$bp/k.vk" "$bp/$1" "$bp/$2" >/dev/null 2>&1; rc_c=$?
      node "$repo/tests/oracle/bp_verify.mjs" "$bp/k.vk" "$bp/$1" "$bp/$2" >/dev/null 2>&1; rc_n=$?
      if [ "$rc_c" = "$rc_n" ]; then pass=$((pass+1)); else
        fail=$((fail+1)); echo "FAIL: cuzk verify (exit $rc_c) and bp_verify.mjs (exit $rc_n) disagree on $1 $2"; fi
    done
  else
    echo "skip: the @noble/curves verifier (node or tests/oracle/node_modules missing)"
  fi
fi

nobody="unix://$tmp/nobody.sock"
if "$cuzk" status --addr "$nobody" 2>&1 | grep -q "built without gRPC"; then
  echo "skip: the remote forms (built without gRPC)"
else
  expect 2 "cannot reach the cuzk daemon at $nobody" "$cuzk" prove --addr "$nobody" --circuit mul "$ex/witness.wtns" "$tmp/p.json" "$tmp/q.json"
  expect 2 "cannot reach the cuzk daemon at $nobody" "$cuzk" prove --circuit mul --remote "$nobody" "$ex/witness.wtns" "$tmp/p.json" "$tmp/q.json"
  expect 2 "--remote needs the daemon's address (unix:///path or host:port), found '--circuit'" \
    "$cuzk" prove --remote --circuit mul "$ex/witness.wtns" "$tmp/p.json" "$tmp/q.json"
  expect 2 "--addr needs the daemon's address" "$cuzk" prove --addr --circuit mul "$ex/witness.wtns" "$tmp/p.json" "$tmp/q.json"
  expect 2 "go with --circuit ID" "$cuzk" prove --addr "$nobody" "$ex/witness.wtns" "$tmp/p.json" "$tmp/q.json"
  expect 2 "the outputs $tmp/p.json and $tmp/p.json are the same file" "$cuzk" await --addr "$nobody" job-1 "$tmp/p.json" "$tmp/p.json"
  expect 2 "are the same file" "$cuzk" await --addr "$nobody" --proof-out "$tmp/p.json" job-1 "$tmp/p.json" "$tmp/q.json"
fi
# The help texts say so.
expect 0 "take --addr A" "$cuzk" --help
expect 0 "--addr A" "$cuzk" prove --help

# --version: the version written once, in include/cuzk/version.h.
version=$(sed -n 's/^#define CUZK_VERSION "\(.*\)"$/\1/p' "$repo/include/cuzk/version.h")
expect 0 "cuzk $version" "$cuzk" --version
[ -x "$build/cuzk-daemon" ] && expect 0 "cuzk-daemon $version" "$build/cuzk-daemon" --version

# cuzk circuit gen/check and info of a PCE .bin: generated witnesses
# satisfy, a changed value fails at its row (exit 1), broken PCE files exit 2
# naming the file and the field.
cg=$tmp/circuit
expect 0 "witness-1.wtns" "$cuzk" circuit gen --shape porep-32g --scale-lg 10 --partitions 2 --seed 3 --out "$cg"
expect 0 "satisfies" "$cuzk" circuit check "$cg/pce-porep-32g.bin" "$cg/witness-1.wtns"
expect 0 "domain          2^10" "$cuzk" info "$cg/pce-porep-32g.bin"
expect 0 "b_input density 1 of 3 set" "$cuzk" info "$cg/pce-porep-32g.bin"
# value 5 = aux 2, the first BOOL bit (rows 0, 1 are the input rows): row 2
python3 - "$cg/witness-0.wtns" "$cg/bad.wtns" <<'PY'
import sys
b = bytearray(open(sys.argv[1], 'rb').read()); b[76 + 32 * 5] = 2; open(sys.argv[2], 'wb').write(b)
PY
expect 1 "does not satisfy" "$cuzk" circuit check "$cg/pce-porep-32g.bin" "$cg/bad.wtns"
expect 1 "row 2:" "$cuzk" circuit check "$cg/pce-porep-32g.bin" "$cg/bad.wtns"
expect 2 "expected num_inputs + num_aux" "$cuzk" circuit check "$cg/pce-porep-32g.bin" "$ex/witness.wtns"
head -c 1000 "$cg/pce-porep-32g.bin" >"$cg/trunc.bin"
expect 2 "trunc.bin: A.row_ptrs count at byte 32 is" "$cuzk" info "$cg/trunc.bin"
cp "$cg/pce-porep-32g.bin" "$cg/trail.bin"; printf x >>"$cg/trail.bin"
expect 2 "trail.bin: 1 trailing bytes" "$cuzk" info "$cg/trail.bin"
expect 2 "unknown shape 'nope'" "$cuzk" circuit gen --shape nope --out "$cg"
expect 2 "--shape and --out are required" "$cuzk" circuit gen --shape porep-32g
expect 2 "--scale-lg 7: at least 8" "$cuzk" circuit gen --shape winning-32g --scale-lg 7 --out "$cg"

# The README's --device auto threshold is the one the code uses (prove --help
# prints CLI_AUTO_GPU_LG).
code_lg=$("$cuzk" prove --help | tr '\n' ' ' | grep -oE 'for domains of 2\^[0-9]+' | head -1)
readme_lg=$(tr '\n' ' ' <"$repo/README.md" | grep -oE 'for domains of 2\^[0-9]+' | head -1)
if [ -n "$code_lg" ] && [ "$code_lg" = "$readme_lg" ]; then pass=$((pass+1)); else
  fail=$((fail+1)); echo "FAIL: README says '$readme_lg', cuzk prove --help '$code_lg'"; fi
echo "malformed-cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
