#!/usr/bin/env bash
# The oracle suite: circom compiles the circuits, snarkjs makes the keys,
# witnesses and reference proofs (make_fixtures.sh), and cuzk is checked
# against them in both directions:
#   - cuzk export-vk writes snarkjs's verification_key.json byte for byte
#   - cuzk's proofs (random r, s) pass `snarkjs groth16 verify` and `cuzk verify`
#   - with snarkjs's own r, s fixed, cuzk's proof.json and public.json are
#     byte-identical to snarkjs's (prove_fixed.mjs runs snarkjs's prover)
#   - snarkjs's proofs pass `cuzk verify`
#   - tampered proofs and public signals fail both verifiers
#   - a witness that does not satisfy the circuit makes `cuzk prove` fail
#     with exit 2 and a clear message, writing nothing
# Usage: tests/oracle/run.sh BUILD_DIR [--big]
# Prints "N passed, N failed, N skipped" last.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
build=$(cd "${1:-$repo/build}" && pwd)
big=""
[ "${2:-}" = "--big" ] && big=--big
cuzk=$build/cuzk
bin=$here/node_modules/.bin
fx=$build/oracle
P=0; F=0; S=0
pass() { P=$((P+1)); printf '  ok    %s\n' "$1"; }
fail() { F=$((F+1)); printf '  FAIL  %s\n' "$1"; [ -n "${2:-}" ] && sed 's/^/        /' "$2" | head -n 20; }
# same_json A B: byte-identical up to a trailing newline
same_json() { cmp -s <(sed -e '$a\' "$1") <(sed -e '$a\' "$2"); }

if [ ! -x "$bin/snarkjs" ]; then
  echo "oracle: tests/oracle/node_modules missing (run scripts/deps.sh)"
  echo "0 passed, 1 failed, 0 skipped"; exit 1
fi
echo "== fixtures (snarkjs + circom) in $fx"
if ! "$here/make_fixtures.sh" "$fx" $big >"$build/oracle-fixtures.log" 2>&1; then
  tail -n 40 "$build/oracle-fixtures.log"
  echo "0 passed, 1 failed, 0 skipped"; exit 1
fi
snarkjs_ok() { "$bin/snarkjs" groth16 verify "$@" >"$tmp/sj.log" 2>&1 && grep -q 'OK!' "$tmp/sj.log"; }

circuits="mul nopub manypub chain_1k"
[ -n "$big" ] && circuits="$circuits chain_16k chain_64k"
for c in $circuits; do
  d=$fx/$c
  echo "== $c ($(grep -o 'nConstraints=[0-9]*' "$d/info.txt" 2>/dev/null), $(grep -o 'nPublic=[0-9]*' "$d/info.txt" 2>/dev/null))"
  tmp=$build/oracle-run/$c
  rm -rf "$tmp"; mkdir -p "$tmp"

  "$cuzk" export-vk "$d/circuit.zkey" "$tmp/vk.json" 2>"$tmp/err" \
    && cmp -s "$tmp/vk.json" "$d/verification_key.json" \
    && pass "$c: export-vk equals snarkjs's verification_key.json" \
    || fail "$c: export-vk equals snarkjs's verification_key.json" "$tmp/err"

  if "$cuzk" prove --quiet "$d/circuit.zkey" "$d/witness.wtns" "$tmp/proof.json" "$tmp/public.json" 2>"$tmp/err"; then
    pass "$c: cuzk prove"
    snarkjs_ok "$d/verification_key.json" "$tmp/public.json" "$tmp/proof.json" \
      && pass "$c: snarkjs verifies cuzk's proof" || fail "$c: snarkjs verifies cuzk's proof" "$tmp/sj.log"
    out=$("$cuzk" verify "$d/verification_key.json" "$tmp/public.json" "$tmp/proof.json" 2>&1)
    [ "$out" = "OK" ] && pass "$c: cuzk verifies cuzk's proof" || fail "$c: cuzk verifies cuzk's proof: $out"
    same_json "$tmp/public.json" "$d/public.json" \
      && pass "$c: public.json equals snarkjs's" || fail "$c: public.json equals snarkjs's"
    for mode in a_is_c swap_ac offcurve; do
      node "$here/tamper_proof.js" $mode "$tmp/proof.json" "$tmp/t_$mode.json" >/dev/null 2>&1
      ! snarkjs_ok "$d/verification_key.json" "$tmp/public.json" "$tmp/t_$mode.json" \
        && pass "$c: snarkjs rejects cuzk's proof tampered ($mode)" \
        || fail "$c: snarkjs rejects cuzk's proof tampered ($mode)"
    done
  else
    fail "$c: cuzk prove" "$tmp/err"
  fi

  if [ -f "$d/fixed_rs.txt" ]; then
    r=0x$(sed -n 's/^r = //p' "$d/fixed_rs.txt"); s=0x$(sed -n 's/^s = //p' "$d/fixed_rs.txt")
    "$cuzk" prove --quiet --insecure-fixed-rs "$r,$s" "$d/circuit.zkey" "$d/witness.wtns" \
      "$tmp/proof_fixed.json" "$tmp/public_fixed.json" 2>"$tmp/err" \
      && same_json "$tmp/proof_fixed.json" "$d/proof_fixed.json" \
      && pass "$c: with snarkjs's r, s fixed, the proof is bit-identical to snarkjs's" \
      || fail "$c: with snarkjs's r, s fixed, the proof is bit-identical to snarkjs's" "$tmp/err"
  fi

  for p in proof.json proof_fixed.json; do
    out=$("$cuzk" verify "$d/verification_key.json" "$d/public.json" "$d/$p" 2>&1)
    [ "$out" = "OK" ] && pass "$c: cuzk verifies snarkjs's $p" || fail "$c: cuzk verifies snarkjs's $p: $out"
  done
  for t in "$d"/proof_tampered_*.json; do
    [ -f "$t" ] || continue
    out=$("$cuzk" verify "$d/verification_key.json" "$d/public.json" "$t" 2>&1); rc=$?
    [ $rc -eq 1 ] && [[ "$out" == INVALID* ]] \
      && pass "$c: cuzk rejects $(basename "$t") ($out)" || fail "$c: cuzk rejects $(basename "$t"): rc=$rc $out"
  done
  if [ -f "$d/public_tampered.json" ]; then
    out=$("$cuzk" verify "$d/verification_key.json" "$d/public_tampered.json" "$d/proof.json" 2>&1); rc=$?
    [ $rc -eq 1 ] && pass "$c: cuzk rejects a tampered public signal" || fail "$c: cuzk rejects a tampered public signal: rc=$rc $out"
  fi
  if [ -f "$d/witness_bad.wtns" ]; then
    "$cuzk" prove --quiet "$d/circuit.zkey" "$d/witness_bad.wtns" "$tmp/bad_proof.json" "$tmp/bad_public.json" 2>"$tmp/err"; rc=$?
    [ $rc -eq 2 ] && grep -q 'does not satisfy' "$tmp/err" && [ ! -e "$tmp/bad_proof.json" ] \
      && pass "$c: unsatisfied witness refused: $(head -c 160 "$tmp/err")" \
      || fail "$c: unsatisfied witness refused (rc=$rc)" "$tmp/err"
  fi
  for f in "$d/circuit.zkey" "$d/witness.wtns" "$d"/*.r1cs; do
    [ -f "$f" ] || continue
    "$cuzk" info "$f" >"$tmp/info" 2>&1 && pass "$c: cuzk info $(basename "$f")" || fail "$c: cuzk info $(basename "$f")" "$tmp/info"
  done
done
# cuzk bench keygen: an INSECURE 2^10 key and witness made in C must be a
# valid snarkjs pair: snarkjs proves with it and verifies, and accepts cuzk's
# proof of it; the CLI refuses bad arguments with exit 2.
echo "== keygen (cuzk bench keygen --lg 10)"
tmp=$build/oracle-run/keygen
rm -rf "$tmp"; mkdir -p "$tmp"
kg=$tmp/k10
if "$cuzk" bench keygen --lg 10 --out "$kg" --seed 7 >"$tmp/out" 2>"$tmp/err" \
   && [ -s "$kg/circuit.zkey" ] && [ -s "$kg/witness.wtns" ] && [ -z "$(find "$kg" -maxdepth 1 -name '.*' ! -name .)" ]; then
  pass "keygen: cuzk bench keygen --lg 10 ($(grep -o 'total.*' "$tmp/out" | tr -s ' '))"
  grep -q 'INSECURE' "$tmp/err" && pass "keygen: warns that the key is INSECURE" \
    || fail "keygen: warns that the key is INSECURE" "$tmp/err"
  "$bin/snarkjs" zkey export verificationkey "$kg/circuit.zkey" "$tmp/vk.json" >"$tmp/sj.log" 2>&1 \
    && pass "keygen: snarkjs zkey export verificationkey" || fail "keygen: snarkjs zkey export verificationkey" "$tmp/sj.log"
  "$cuzk" export-vk "$kg/circuit.zkey" "$tmp/vk_cuzk.json" 2>"$tmp/err2" && cmp -s "$tmp/vk.json" "$tmp/vk_cuzk.json" \
    && pass "keygen: cuzk export-vk equals snarkjs's" || fail "keygen: cuzk export-vk equals snarkjs's" "$tmp/err2"
  if "$bin/snarkjs" groth16 prove "$kg/circuit.zkey" "$kg/witness.wtns" "$tmp/sj_proof.json" "$tmp/sj_public.json" >"$tmp/sj.log" 2>&1; then
    pass "keygen: snarkjs groth16 prove"
    snarkjs_ok "$tmp/vk.json" "$tmp/sj_public.json" "$tmp/sj_proof.json" \
      && pass "keygen: snarkjs verifies snarkjs's proof" || fail "keygen: snarkjs verifies snarkjs's proof" "$tmp/sj.log"
    out=$("$cuzk" verify "$tmp/vk.json" "$tmp/sj_public.json" "$tmp/sj_proof.json" 2>&1)
    [ "$out" = "OK" ] && pass "keygen: cuzk verifies snarkjs's proof" || fail "keygen: cuzk verifies snarkjs's proof: $out"
  else
    fail "keygen: snarkjs groth16 prove" "$tmp/sj.log"
  fi
  if "$cuzk" prove --quiet "$kg/circuit.zkey" "$kg/witness.wtns" "$tmp/proof.json" "$tmp/public.json" 2>"$tmp/err2"; then
    pass "keygen: cuzk prove"
    snarkjs_ok "$tmp/vk.json" "$tmp/public.json" "$tmp/proof.json" \
      && pass "keygen: snarkjs verifies cuzk's proof" || fail "keygen: snarkjs verifies cuzk's proof" "$tmp/sj.log"
    [ -f "$tmp/sj_public.json" ] && same_json "$tmp/public.json" "$tmp/sj_public.json" \
      && pass "keygen: public.json equals snarkjs's" || fail "keygen: public.json equals snarkjs's"
  else
    fail "keygen: cuzk prove" "$tmp/err2"
  fi
  node "$here/tamper_wtns.js" "$kg/witness.wtns" "$tmp/bad.wtns" >/dev/null 2>&1
  "$cuzk" prove --quiet "$kg/circuit.zkey" "$tmp/bad.wtns" "$tmp/bad_proof.json" "$tmp/bad_public.json" 2>"$tmp/err2"; rc=$?
  [ $rc -eq 2 ] && grep -q 'does not satisfy' "$tmp/err2" \
    && pass "keygen: a tampered witness is refused" || fail "keygen: a tampered witness is refused (rc=$rc)" "$tmp/err2"
else
  fail "keygen: cuzk bench keygen --lg 10" "$tmp/err"
fi
touch "$tmp/afile"
for args in "--lg 1 --out $tmp/x" "--lg 29 --out $tmp/x" "--lg 4" "--out $tmp/x" "--lg 4 --out $tmp/afile" \
            "--lg 4 --out $tmp/no/such/dir" "--lg x4 --out $tmp/x" "--lg 4 --out $tmp/x --threads 0"; do
  "$cuzk" bench keygen $args >/dev/null 2>"$tmp/err2"; rc=$?
  [ $rc -eq 2 ] && [ -s "$tmp/err2" ] && [ ! -e "$tmp/x/circuit.zkey" ] \
    && pass "keygen: refuses '$args': $(head -n 1 "$tmp/err2")" || fail "keygen: refuses '$args' (rc=$rc)" "$tmp/err2"
done

echo "oracle: $P passed, $F failed, $S skipped"
[ "$F" -eq 0 ]
