#!/usr/bin/env bash
# Usage: tests/oracle/make_fixtures.sh OUTDIR [--big] [--example]
#
# Builds snarkjs reference fixtures for cuzk (BLS12-381 Groth16):
#   - compiles the circuits in tests/oracle/circuits with circom2
#     (--r1cs --wasm --sym --prime bls12381)
#   - powers of tau: snarkjs `powersoftau new bls12381 10`, one contribution
#     with fixed entropy, `prepare phase2`; with --big also a power-17 ptau
#     from fast_ptau.mjs (test-only, public tau; byte-compatible with snarkjs,
#     self-checked against snarkjs's prepare phase2 at power 8) -- or set
#     BIG_PTAU=snarkjs to use the snarkjs ceremony there too (hours)
#   - per circuit: witness (snarkjs wtns calculate), groth16 setup,
#     one zkey contribution (so delta != 1), verification key,
#     a snarkjs proof + public.json, a proof with fixed r/s (prove_fixed.mjs),
#     tampered proofs / public signals, and for mul an unsatisfied witness
#   - checks: every proof verifies, every tampered one is rejected
#   --big      also the chain_16k (domain 2^14) and chain_64k (domain 2^16) circuits
#   --example  copy OUTDIR/mul/* into examples/mul (the committed example)
#
# Idempotent: a step whose output already exists is skipped (outputs are
# written to a temporary name and renamed when the step succeeded).
# Needs `npm ci` in tests/oracle first; downloads nothing.
# Note: snarkjs mixes OS randomness into every contribution and into r/s of
# `groth16 prove`, so the keys/proofs differ between fresh runs even though
# the -e entropy strings are fixed.  proof_fixed.json is deterministic given
# the zkey and witness.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)

OUT=""
BIG=0
EXAMPLE=0
for a in "$@"; do
    case "$a" in
        --big) BIG=1 ;;
        --example) EXAMPLE=1 ;;
        -h|--help) sed -n '2,31p' "$0"; exit 0 ;;
        -*) echo "unknown option $a" >&2; exit 2 ;;
        *) [ -z "$OUT" ] || { echo "only one OUTDIR" >&2; exit 2; }; OUT=$a ;;
    esac
done
[ -n "$OUT" ] || { echo "usage: $0 OUTDIR [--big] [--example]" >&2; exit 2; }

BIN="$HERE/node_modules/.bin"
if [ ! -x "$BIN/snarkjs" ] || [ ! -x "$BIN/circom2" ]; then
    echo "missing node_modules: run (cd $HERE && npm ci) first" >&2
    exit 1
fi
SNARKJS="$BIN/snarkjs"
CIRCOM="$BIN/circom2"

# small circuits: snarkjs ceremony at 2^10 (prepare phase2 alone takes ~35 s
# at 10, ~3 min at 12; chain_1k has domain 2^10 = the ptau power, so its H
# points come from the last, truncated Lagrange block of the ptau)
SMALL_PTAU_POWER=${SMALL_PTAU_POWER:-10}
# big circuits: fast_ptau.mjs (test-only tau) unless BIG_PTAU=snarkjs
# (snarkjs prepare phase2 at 17 would take hours here)
BIG_PTAU_POWER=${BIG_PTAU_POWER:-17}
BIG_PTAU=${BIG_PTAU:-fast}
# fixed blinding scalars for proof_fixed.json (big-endian hex)
FIXED_R=0x1c0ffee0ddba11ca5cadef00d15ea5ebadc0ffee0123456789abcdef0fedcba9
FIXED_S=0x2bad5eedfacefeed0badcafedeadbeef00112233445566778899aabbccddeeff

mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
LOG="$OUT/log"
mkdir -p "$LOG"
TIMINGS="$OUT/timings.txt"
T_START=$(date +%s.%N)
NFAIL=0

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN{printf "%.1f", b-a}'; }
logname() { echo "$LOG/$(echo "$1" | tr -c 'A-Za-z0-9_.-' '_').log"; }

# run LABEL cmd... : run a command, log its output, print and record its time
run() {
    local label=$1; shift
    local t0 lf; t0=$(now); lf=$(logname "$label")
    printf '  %-44s ' "$label"
    if ! "$@" >"$lf" 2>&1; then
        echo "FAILED (log: $lf)"; tail -n 30 "$lf" >&2; exit 1
    fi
    local dt; dt=$(elapsed "$t0")
    echo "${dt}s"
    echo "$label ${dt}" >>"$TIMINGS"
}

# step LABEL TARGET cmd... : like run, unless TARGET exists; every argument
# equal to @OUT@ is replaced by a temporary file that is renamed to TARGET
# after success.
step() {
    local label=$1 target=$2; shift 2
    if [ -e "$target" ]; then printf '  %-44s skip (exists)\n' "$label"; return 0; fi
    local tmp; tmp="$(dirname "$target")/.tmp.$(basename "$target")"
    rm -f "$tmp"
    local args=() x
    for x in "$@"; do if [ "$x" = "@OUT@" ]; then args+=("$tmp"); else args+=("$x"); fi; done
    run "$label" "${args[@]}"
    mv -f "$tmp" "$target"
}

# expect_verify LABEL yes|no VK PUBLIC PROOF
expect_verify() {
    local label=$1 want=$2 vk=$3 pub=$4 proof=$5 lf rc=0
    lf=$(logname "verify $label")
    "$SNARKJS" groth16 verify "$vk" "$pub" "$proof" >"$lf" 2>&1 || rc=$?
    local got=no
    [ $rc -eq 0 ] && grep -q "OK!" "$lf" && got=yes
    if [ "$got" = "$want" ]; then
        printf '  %-44s ok (verifies=%s)\n' "verify $label" "$got"
    else
        printf '  %-44s MISMATCH: expected verifies=%s, got %s (log: %s)\n' "verify $label" "$want" "$got" "$lf"
        NFAIL=$((NFAIL + 1))
    fi
}

# ---------------------------------------------------------------- ptau
# snarkjs ceremony: new, one contribution (fixed -e entropy), prepare phase2
make_ptau() {
    local k=$1 P="$OUT/ptau"
    mkdir -p "$P"
    local final="$P/pot${k}_final.ptau"
    echo "== powers of tau bls12381 2^$k (snarkjs)"
    if [ -e "$final" ]; then printf '  %-44s skip (exists)\n' "ptau $k"; return 0; fi
    step "ptau $k new" "$P/pot${k}_0000.ptau" \
        "$SNARKJS" powersoftau new bls12381 "$k" @OUT@
    step "ptau $k contribute" "$P/pot${k}_0001.ptau" \
        "$SNARKJS" powersoftau contribute "$P/pot${k}_0000.ptau" @OUT@ \
        --name="cuzk oracle" -e="cuzk fixed ptau entropy $k"
    step "ptau $k prepare phase2" "$final" \
        "$SNARKJS" powersoftau prepare phase2 "$P/pot${k}_0001.ptau" @OUT@
    rm -f "$P/pot${k}_0000.ptau" "$P/pot${k}_0001.ptau"
}

# test-only ptau with public tau (fast_ptau.mjs): snarkjs's prepare phase2 is
# far too slow for power 16-17 on 2 cores.  First check once, at a small
# power, that fast_ptau's prepared output is byte-identical to snarkjs's own
# prepare phase2 of fast_ptau's unprepared output.
make_fast_ptau() {
    local k=$1 P="$OUT/ptau"
    mkdir -p "$P"
    echo "== powers of tau bls12381 2^$k (fast_ptau.mjs, test-only tau)"
    if [ ! -e "$P/fast_selfcheck.ok" ]; then
        run "fast_ptau selfcheck: unprepared 2^8" node "$HERE/fast_ptau.mjs" 8 "$P/.chk_u8.ptau" selfcheck --unprepared
        run "fast_ptau selfcheck: prepared 2^8" node "$HERE/fast_ptau.mjs" 8 "$P/.chk_f8.ptau" selfcheck
        run "fast_ptau selfcheck: snarkjs prepare 2^8" "$SNARKJS" powersoftau prepare phase2 "$P/.chk_u8.ptau" "$P/.chk_s8.ptau"
        if cmp -s "$P/.chk_f8.ptau" "$P/.chk_s8.ptau"; then
            echo "  fast_ptau output == snarkjs prepare phase2 output (byte-identical)"
            touch "$P/fast_selfcheck.ok"
            rm -f "$P/.chk_u8.ptau" "$P/.chk_f8.ptau" "$P/.chk_s8.ptau"
        else
            echo "  fast_ptau selfcheck FAILED: $P/.chk_f8.ptau differs from $P/.chk_s8.ptau" >&2
            exit 1
        fi
    else
        printf '  %-44s skip (done)\n' "fast_ptau selfcheck"
    fi
    # fast_ptau writes OUT.part and renames it itself
    step "fast_ptau $k" "$P/fast${k}_final.ptau" node "$HERE/fast_ptau.mjs" "$k" @OUT@ cuzk
}

# ---------------------------------------------------------------- circuits
compile() {
    local c=$1 D="$OUT/$1"
    mkdir -p "$D"
    if [ -e "$D/$c.r1cs" ] && [ -e "$D/${c}_js/$c.wasm" ]; then
        printf '  %-44s skip (exists)\n' "compile $c"; return 0
    fi
    rm -rf "$D/.tmp.compile"; mkdir -p "$D/.tmp.compile"
    # circom resolves includes relative to the main file; chain_*.circom include chain.circom
    run "compile $c" "$CIRCOM" "$HERE/circuits/$c.circom" \
        --r1cs --wasm --sym --prime bls12381 -o "$D/.tmp.compile"
    rm -rf "$D/${c}_js"
    mv -f "$D/.tmp.compile/${c}_js" "$D/${c}_js"
    mv -f "$D/.tmp.compile/$c.sym" "$D/$c.sym"
    mv -f "$D/.tmp.compile/$c.r1cs" "$D/$c.r1cs"
    rm -rf "$D/.tmp.compile"
}

circuit() {
    local c=$1 ptau=$2 D="$OUT/$1"
    echo "== circuit $c (ptau $(basename "$ptau"))"
    compile "$c"
    cp -f "$HERE/circuits/$c.circom" "$D/circuit.circom"
    cp -f "$HERE/circuits/$c.input.json" "$D/input.json"
    step "$c wtns calculate" "$D/witness.wtns" \
        "$SNARKJS" wtns calculate "$D/${c}_js/$c.wasm" "$D/input.json" @OUT@
    step "$c groth16 setup" "$D/circuit_0000.zkey" \
        "$SNARKJS" groth16 setup "$D/$c.r1cs" "$ptau" @OUT@
    step "$c zkey contribute" "$D/circuit.zkey" \
        "$SNARKJS" zkey contribute "$D/circuit_0000.zkey" @OUT@ \
        --name="cuzk oracle" -e="cuzk fixed zkey entropy $c"
    step "$c export verificationkey" "$D/verification_key.json" \
        "$SNARKJS" zkey export verificationkey "$D/circuit.zkey" @OUT@
    if [ ! -e "$D/proof.json" ] || [ ! -e "$D/public.json" ]; then
        run "$c groth16 prove" "$SNARKJS" groth16 prove "$D/circuit.zkey" "$D/witness.wtns" \
            "$D/.tmp.proof.json" "$D/.tmp.public.json"
        mv -f "$D/.tmp.public.json" "$D/public.json"; mv -f "$D/.tmp.proof.json" "$D/proof.json"
    else
        printf '  %-44s skip (exists)\n' "$c groth16 prove"
    fi
    if [ ! -e "$D/proof_fixed.json" ]; then
        printf 'r = %s\ns = %s\n' "${FIXED_R#0x}" "${FIXED_S#0x}" >"$D/fixed_rs.txt"
        run "$c prove (fixed r,s)" node "$HERE/prove_fixed.mjs" "$D/circuit.zkey" "$D/witness.wtns" \
            "$FIXED_R" "$FIXED_S" "$D/.tmp.proof_fixed.json" "$D/.tmp.public_fixed.json"
        mv -f "$D/.tmp.public_fixed.json" "$D/public_fixed.json"
        mv -f "$D/.tmp.proof_fixed.json" "$D/proof_fixed.json"
    else
        printf '  %-44s skip (exists)\n' "$c prove (fixed r,s)"
    fi
    # negative-test variants (cheap, always regenerated)
    node "$HERE/tamper_proof.js" a_is_c "$D/proof.json" "$D/proof_tampered_a_is_c.json"
    node "$HERE/tamper_proof.js" offcurve "$D/proof.json" "$D/proof_tampered_offcurve.json"
    rm -f "$D/public_tampered.json"
    node "$HERE/tamper_proof.js" public "$D/public.json" "$D/public_tampered.json" 2>/dev/null || true
    if [ "$c" = mul ]; then
        step "$c unsatisfied witness" "$D/witness_bad.wtns" \
            node "$HERE/tamper_wtns.js" "$D/witness.wtns" @OUT@
        if [ ! -e "$D/proof_bad.json" ]; then
            run "$c groth16 prove (bad witness)" "$SNARKJS" groth16 prove "$D/circuit.zkey" \
                "$D/witness_bad.wtns" "$D/.tmp.proof_bad.json" "$D/.tmp.public_bad.json"
            mv -f "$D/.tmp.public_bad.json" "$D/public_bad.json"
            mv -f "$D/.tmp.proof_bad.json" "$D/proof_bad.json"
        fi
    fi
    node "$HERE/zkey_info.mjs" "$D/$c.r1cs" "$D/circuit.zkey" >"$D/info.txt"
    echo "  info: $(cat "$D/info.txt")"
}

check() {
    local c=$1 D="$OUT/$1"
    echo "== checks $c"
    expect_verify "$c proof" yes "$D/verification_key.json" "$D/public.json" "$D/proof.json"
    expect_verify "$c proof_fixed" yes "$D/verification_key.json" "$D/public_fixed.json" "$D/proof_fixed.json"
    expect_verify "$c tampered a_is_c" no "$D/verification_key.json" "$D/public.json" "$D/proof_tampered_a_is_c.json"
    expect_verify "$c tampered offcurve" no "$D/verification_key.json" "$D/public.json" "$D/proof_tampered_offcurve.json"
    if [ -e "$D/public_tampered.json" ]; then
        expect_verify "$c tampered public" no "$D/verification_key.json" "$D/public_tampered.json" "$D/proof.json"
    fi
    if [ "$c" = mul ]; then
        expect_verify "$c proof from bad witness" no "$D/verification_key.json" "$D/public_bad.json" "$D/proof_bad.json"
        local rc=0
        "$SNARKJS" wtns check "$D/$c.r1cs" "$D/witness.wtns" >"$(logname "wtns check good")" 2>&1 || rc=$?
        if [ $rc -eq 0 ]; then echo "  wtns check good witness                      ok (satisfied)";
        else echo "  wtns check good witness                      MISMATCH (not satisfied)"; NFAIL=$((NFAIL + 1)); fi
        rc=0
        "$SNARKJS" wtns check "$D/$c.r1cs" "$D/witness_bad.wtns" >"$(logname "wtns check bad")" 2>&1 || rc=$?
        if [ $rc -ne 0 ]; then echo "  wtns check bad witness                       ok (not satisfied)";
        else echo "  wtns check bad witness                       MISMATCH (satisfied)"; NFAIL=$((NFAIL + 1)); fi
    fi
}

echo "cuzk oracle fixtures -> $OUT (big=$BIG)"
echo "# run $(date -u +%FT%TZ) big=$BIG" >>"$TIMINGS"

SMALL="mul nopub manypub chain_1k"
BIGC="chain_16k chain_64k"

make_ptau "$SMALL_PTAU_POWER"
for c in $SMALL; do circuit "$c" "$OUT/ptau/pot${SMALL_PTAU_POWER}_final.ptau"; done
if [ $BIG = 1 ]; then
    if [ "$BIG_PTAU" = snarkjs ]; then
        make_ptau "$BIG_PTAU_POWER"
        BIGPTAU="$OUT/ptau/pot${BIG_PTAU_POWER}_final.ptau"
    else
        make_fast_ptau "$BIG_PTAU_POWER"
        BIGPTAU="$OUT/ptau/fast${BIG_PTAU_POWER}_final.ptau"
    fi
    for c in $BIGC; do circuit "$c" "$BIGPTAU"; done
fi

ALL=$SMALL
[ $BIG = 1 ] && ALL="$SMALL $BIGC"
for c in $ALL; do check "$c"; done

if [ $EXAMPLE = 1 ]; then
    E="$REPO/examples/mul"
    mkdir -p "$E"
    cp -f "$OUT/mul/circuit.circom" "$E/circuit.circom"
    cp -f "$OUT/mul/circuit.zkey" "$E/circuit.zkey"
    cp -f "$OUT/mul/witness.wtns" "$E/witness.wtns"
    cp -f "$OUT/mul/verification_key.json" "$E/verification_key.json"
    cp -f "$OUT/mul/input.json" "$E/input.json"
    cp -f "$OUT/mul/proof.json" "$E/proof.json"
    cp -f "$OUT/mul/public.json" "$E/public.json"
    echo "== example written to $E"
fi

TOTAL=$(elapsed "$T_START")
echo "total $TOTAL" >>"$TIMINGS"
{
    for c in $ALL; do echo "$c: $(cat "$OUT/$c/info.txt")"; done
} >"$OUT/SUMMARY.txt"
echo "== summary"
cat "$OUT/SUMMARY.txt"
if [ $NFAIL -ne 0 ]; then
    echo "FAILED: $NFAIL check(s) did not match (total ${TOTAL}s)"
    exit 1
fi
echo "all checks passed (total ${TOTAL}s)"
