#!/usr/bin/env bash
# cuzk-daemon with a bellperson key: a development circuit (`cuzk circuit
# gen`, porep-32g shape at about 2^10 rows) and its INSECURE key (`cuzk
# setup`), registered in [[circuits]] with path and pce, and found in
# param_dir as <id>.params beside <id>.pce.  Jobs of two partitions go
# through `cuzk submit` with the witnesses as bytes and as files in the
# daemon's witness directory ([srs] witness_dir: `--witness-by file`
# hard-links a witness from elsewhere there and removes the link once the
# daemon has it); `cuzk await --proof-out` gets the 384 bytes, which `cuzk
# verify` checks against the .vk and the PUBLIC.json of a local `cuzk
# prove --pce` of the same witnesses; `cuzk await JOB PROOF.bin PUBLIC.json`
# and `cuzk prove --circuit` write the proof bytes and that PUBLIC.json;
# the daemon's proof bytes verify with the @noble/curves verifier too.  Proofs swapped between partitions
# must not verify.  A name outside the witness directory is refused.
# Usage: tests/daemon/bellperson.sh [BUILD_DIR]
# Prints "N passed, N failed, N skipped" last; exit status 0 when none failed.
set -uo pipefail
. "$(dirname "$0")/common.sh"

need_daemon bellperson
client_built || { skip bellperson "cuzk is built without the gRPC client"; finish; }
scratch bellperson

g=$tmp/gen
mkdir -p "$g" "$tmp/w" "$tmp/params"
if ! "$CUZK" circuit gen --shape porep-32g --scale-lg 10 --partitions 2 --seed 3 --out "$g" >"$tmp/gen.log" 2>&1 ||
   ! "$CUZK" setup --quiet --seed 5 "$g/pce-porep-32g.bin" "$tmp/params/porep.params" "$tmp/porep.vk" >>"$tmp/gen.log" 2>&1 ||
   ! "$CUZK" prove --device cpu --pce "$g/pce-porep-32g.bin" "$tmp/params/porep.params" \
       "$g/witness-0.wtns" "$g/witness-1.wtns" "$tmp/local.bin" "$tmp/public.json" >>"$tmp/gen.log" 2>&1; then
  fail bellperson_setup "$(cat "$tmp/gen.log")"
  finish
fi
cp "$g/pce-porep-32g.bin" "$tmp/params/porep.pce"
cp "$g/witness-1.wtns" "$tmp/w/in-dir.wtns"

cat >"$tmp/d.toml" <<EOF
[daemon]
listen = "unix://$tmp/d.sock"
[gpus]
device = "cpu"
[cpu]
threads = 2
[srs]
param_dir = "$tmp/params"
witness_dir = "$tmp/w"
[[circuits]]
id = "porep-reg"
path = "$tmp/params/porep.params"
pce = "$tmp/params/porep.pce"
EOF
if ! start_daemon "$tmp/d.log" --config "$tmp/d.toml"; then
  fail bellperson_daemon_start "exit $rc" "$(tail -n 20 "$tmp/d.log")"
  finish
fi
A=(--addr "unix://$tmp/d.sock")

# prove_job NAME CIRCUIT BY W0 W1: submit, await, verify the 384 bytes.
prove_job() {
  local name=$1 circuit=$2 by=$3
  local job
  if ! job=$("$CUZK" submit "${A[@]}" --witness-by "$by" "$circuit" "$4" "$5" 2>"$tmp/$name.err"); then
    fail "$name" "submit: $(cat "$tmp/$name.err")"; return
  fi
  if ! "$CUZK" await "${A[@]}" --proof-out "$tmp/$name.bin" "$job" 2>"$tmp/$name.err"; then
    fail "$name" "await: $(cat "$tmp/$name.err")"; return
  fi
  local size; size=$(stat -c %s "$tmp/$name.bin")
  local out; out=$("$CUZK" verify "$tmp/porep.vk" "$tmp/public.json" "$tmp/$name.bin" 2>&1)
  if [ "$size" != 384 ] || [ "$out" != OK ]; then
    fail "$name" "$size bytes; verify: $out"; return
  fi
  # await's PROOF.bin and PUBLIC.json: the same bytes and inputs as above and as
  # `cuzk prove --pce` of the same witnesses
  if ! "$CUZK" await "${A[@]}" "$job" "$tmp/$name.p.bin" "$tmp/$name.pub.json" 2>"$tmp/$name.err" ||
     ! cmp -s "$tmp/$name.p.bin" "$tmp/$name.bin" || ! cmp -s "$tmp/$name.pub.json" "$tmp/public.json"; then
    fail "$name" "await PROOF.bin PUBLIC.json: $(cat "$tmp/$name.err")" \
      "$(diff "$tmp/$name.pub.json" "$tmp/public.json" 2>&1 | head -5)"; return
  fi
  # the partitions in order: swapped, neither verifies
  { tail -c 192 "$tmp/$name.bin"; head -c 192 "$tmp/$name.bin"; } >"$tmp/$name.swapped"
  out=$("$CUZK" verify "$tmp/porep.vk" "$tmp/public.json" "$tmp/$name.swapped" 2>&1)
  if ! grep -q "INVALID: partition 0" <<<"$out" || ! grep -q "INVALID: partition 1" <<<"$out"; then
    fail "$name" "swapped partitions: $out"; return
  fi
  pass "$name"
}

prove_job bp_registered_bytes porep-reg bytes "$g/witness-0.wtns" "$g/witness-1.wtns"
# the daemon's proof bytes through the independent @noble/curves verifier
if [ -f "$repo/tests/oracle/node_modules/@noble/curves/bls12-381.js" ] && command -v node >/dev/null; then
  if out=$(node "$repo/tests/oracle/bp_verify.mjs" "$tmp/porep.vk" "$tmp/public.json" "$tmp/bp_registered_bytes.bin" 2>&1) &&
     grep -q "^OK" <<<"$out"; then
    pass bp_daemon_proof_noble
  else
    fail bp_daemon_proof_noble "$out"
  fi
else
  skip bp_daemon_proof_noble "node or tests/oracle/node_modules (@noble/curves) missing"
fi
prove_job bp_param_dir_files porep file "$g/witness-0.wtns" "$tmp/w/in-dir.wtns"
# prove --circuit: one partition, PROOF.bin and PUBLIC.json as a local prove of it
"$CUZK" prove --quiet --device cpu --pce "$g/pce-porep-32g.bin" "$tmp/params/porep.params" \
  "$g/witness-0.wtns" "$tmp/l1.bin" "$tmp/l1.json" >/dev/null 2>&1
if out=$("$CUZK" prove "${A[@]}" --circuit porep-reg "$g/witness-0.wtns" "$tmp/r1.bin" "$tmp/r1.json" 2>&1) &&
   cmp -s "$tmp/r1.json" "$tmp/l1.json" &&
   [ "$("$CUZK" verify "$tmp/porep.vk" "$tmp/r1.json" "$tmp/r1.bin" 2>&1)" = OK ]; then
  pass bp_prove_circuit
else
  fail bp_prove_circuit "$out" "$(diff "$tmp/r1.json" "$tmp/l1.json" 2>&1 | head -4)"
fi
# the link made for witness 0 is gone; the file already there stays
left=$(ls -A "$tmp/w")
if [ "$left" = in-dir.wtns ]; then pass bp_witness_links_removed; else fail bp_witness_links_removed "$left"; fi

# the local proof verifies too (another r, s: other bytes, same inputs)
if [ "$("$CUZK" verify "$tmp/porep.vk" "$tmp/public.json" "$tmp/local.bin" 2>&1)" = OK ]; then
  pass bp_local_proof
else
  fail bp_local_proof
fi

# a witness of another circuit is refused at submit, naming the count
"$CUZK" circuit gen --shape winning-32g --scale-lg 10 --out "$tmp/other" >/dev/null 2>&1
if out=$("$CUZK" submit "${A[@]}" --witness-by file porep "$tmp/other/witness-0.wtns" 2>&1); then
  fail bp_other_witness "accepted: $out"
elif grep -q "a witness of another circuit" <<<"$out" && [ -z "$(ls -A "$tmp/w" | grep -v in-dir)" ]; then
  pass bp_other_witness
else
  fail bp_other_witness "$out"
fi

kill -TERM "$pid"
wait_for 30 exited "$pid" || fail bellperson_stop "the daemon did not stop"
finish
