#!/usr/bin/env bash
# cuzk-daemon's per-job log lines, with the daemon as a helper process and
# jobs through cuzk's client (submit + await):
#   - at [logging] level info: a proved job's lines (accepted with its
#     circuit, partitions, priority, request id and witness bytes; started
#     on which worker; done with its timings), a job with an unsatisfying
#     witness (failed, the witness blamed), a job on a key with a point off
#     its curve (failed, the key named, and one error line for the key),
#     a refused submission, in that order per job;
#   - no witness value appears in the log (the hex of each value's 32
#     bytes, in either order);
#   - at level warn none of the per-job lines appear, the key's error does.
# Usage: tests/daemon/joblog.sh [BUILD_DIR]   (default build)
# Prints "N passed, N failed, N skipped" last; exit status 0 when none failed.
set -uo pipefail
. "$(dirname "$0")/common.sh"

need_daemon joblog
client_built || { skip joblog "build/cuzk has no gRPC client (submit)"; finish; }

scratch joblog

# The inputs (tests/malformed/corrupt.py): a key with A point 2 off its
# curve, a tampered witness, the witness values as hex.
python3 "$repo/tests/malformed/corrupt.py" "$EX/circuit.zkey" "$EX/witness.wtns" "$tmp" || { fail "inputs"; finish; }

cat >"$tmp/cuzk.toml" <<EOF
[cpu]
workers = 1
threads = 1
[[circuits]]
id = "mul"
path = "$EX/circuit.zkey"
[[circuits]]
id = "bad"
path = "$tmp/off_curve.zkey"
EOF

# start NAME LEVEL: the daemon at log level LEVEL (log in $tmp/NAME.log);
# waits until its gRPC service answers (its "ready" line is at info).
start() {
  local name=$1 level=$2
  : >"$tmp/$name.log"
  "$DAEMON" --config "$tmp/cuzk.toml" --listen "unix://$tmp/$name.sock" --log-level "$level" >>"$tmp/$name.log" 2>&1 &
  pid=$!
  for _ in $(seq 300); do
    [ -S "$tmp/$name.sock" ] && "$CUZK" status --addr "unix://$tmp/$name.sock" >/dev/null 2>&1 && return 0
    kill -0 "$pid" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}

# stop: SIGTERM, then waits (bounded) for the exit.
stop() {
  kill -TERM "$pid" 2>/dev/null
  for _ in $(seq 300); do
    kill -0 "$pid" 2>/dev/null || { wait "$pid"; pid=; return 0; }
    sleep 0.1
  done
  kill -KILL "$pid"; wait "$pid" 2>/dev/null; pid=
  return 1
}

# jobs NAME: a good job, a tampered witness, the corrupt key twice, and a
# submission for an unknown circuit, one after another; $tmp/NAME-*.err
# hold the client's messages.
jobs() {
  local name=$1 A="--addr unix://$tmp/$1.sock" id
  id=$("$CUZK" submit $A --priority high --request-id good-1 mul "$EX/witness.wtns" 2>"$tmp/$name-good.err") &&
    "$CUZK" await $A "$id" --proof-out "$tmp/$name-proof.bin" 2>>"$tmp/$name-good.err"
  echo $? >"$tmp/$name-good.rc"
  id=$("$CUZK" submit $A --request-id unsat-1 mul "$tmp/tampered.wtns" 2>"$tmp/$name-unsat.err") &&
    "$CUZK" await $A "$id" --proof-out "$tmp/$name-x.bin" 2>>"$tmp/$name-unsat.err"
  for i in 1 2; do
    id=$("$CUZK" submit $A --request-id "badkey-$i" bad "$EX/witness.wtns" 2>"$tmp/$name-bad$i.err") &&
      "$CUZK" await $A "$id" --proof-out "$tmp/$name-x.bin" 2>>"$tmp/$name-bad$i.err"
  done
  "$CUZK" submit $A --request-id nope-1 absent "$EX/witness.wtns" >/dev/null 2>"$tmp/$name-nope.err"
}

# has LOG LEVEL TEXT: a line at LEVEL holding TEXT; prints its line number.
has() { grep -nF -- "$3" "$1" | grep -E "^[0-9]+:[^ ]+ $2 " | head -1 | cut -d: -f1; }

# ---- level info -------------------------------------------------------------

if ! start info info; then
  fail "start at level info" "$(tail -5 "$tmp/info.log")"
  finish
fi
jobs info
stop || fail "stop at level info" "the daemon did not exit within 30 s"
L=$tmp/info.log
[ "$(cat "$tmp/info-good.rc")" = 0 ] && [ -s "$tmp/info-proof.bin" ] && pass "the good job is proved" ||
  fail "the good job is proved" "$(cat "$tmp/info-good.err")"

wbytes=$(stat -c %s "$EX/witness.wtns")
order=()
for want in "info|job good-1 accepted: circuit mul, 1 partition, priority high, request id \"good-1\", $wbytes witness bytes" \
            "info|job good-1 partition 0 of 1 started on cpu worker 0 (" \
            "info|job good-1 done: circuit mul, 1 partition; queue " \
            "info|job unsat-1 accepted: circuit mul" \
            "info|job unsat-1 partition 0 of 1 started on cpu worker 0" \
            "info|job unsat-1 failed: circuit mul, 1 partition; unsatisfied: partition 0: witness 0: the proof computed from it fails verification" \
            "info|job badkey-1 accepted: circuit bad" \
            "error|circuit bad: the proving key is corrupt: $tmp/off_curve.zkey: $(cat "$tmp/off_curve.expect")" \
            "info|job badkey-1 failed: circuit bad, 1 partition; format: partition 0: the proving key is corrupt" \
            "info|job badkey-2 failed: circuit bad, 1 partition; format: partition 0: the proving key is corrupt" \
            "info|submission refused: circuit absent, request id \"nope-1\", 1 partition, $wbytes witness bytes: not_found"; do
  n=$(has "$L" "${want%%|*}" "${want#*|}")
  if [ -n "$n" ]; then pass "level info: ${want%%|*} line: ${want#*|}"; order+=("$n")
  else fail "level info: ${want%%|*} line: ${want#*|}" "not in the log:" "$(grep -v '^\[\|^#\|^ *$\|=' "$L" | tail -20)"; order+=(0); fi
done
sorted=1
for ((i = 1; i < ${#order[@]}; i++)); do [ "${order[i]}" -gt "${order[i-1]}" ] || sorted=0; done
[ "$sorted" = 1 ] && pass "level info: the lines come in the order of the events" ||
  fail "level info: the lines come in the order of the events" "line numbers ${order[*]}"
n=$(grep -c "circuit bad: the proving key is corrupt" "$L")
[ "$n" = 1 ] && pass "the corrupt key's points are checked once for its two jobs (one error line)" ||
  fail "the corrupt key's points are checked once for its two jobs (one error line)" "$n lines"
grep -qF "the proving key is corrupt: $tmp/off_curve.zkey: $(cat "$tmp/off_curve.expect")" "$tmp/info-bad1.err" &&
  ! grep -q "does not satisfy" "$tmp/info-bad1.err" && pass "the client is told the key is corrupt, not the witness" ||
  fail "the client is told the key is corrupt, not the witness" "$(cat "$tmp/info-bad1.err")"
grep -q "witness 0: the proof computed from it fails verification.*does not satisfy the circuit" "$tmp/info-unsat.err" &&
  pass "the client is told the witness does not satisfy the circuit" ||
  fail "the client is told the witness does not satisfy the circuit" "$(cat "$tmp/info-unsat.err")"
leak=$(grep -ciFf "$tmp/values.hex" "$L")
[ "$leak" = 0 ] && pass "no witness value in the log" || fail "no witness value in the log" "$leak hits"

# ---- level warn -------------------------------------------------------------

if ! start warn warn; then
  fail "start at level warn" "$(tail -5 "$tmp/warn.log")"
  finish
fi
jobs warn
stop || fail "stop at level warn" "the daemon did not exit within 30 s"
[ "$(cat "$tmp/warn-good.rc")" = 0 ] && pass "level warn: the good job is proved" ||
  fail "level warn: the good job is proved" "$(cat "$tmp/warn-good.err")"
n=$(grep -c ' info  ' "$tmp/warn.log")
m=$(grep -c 'job \|submission refused' "$tmp/warn.log")
[ "$n" = 0 ] && [ "$m" = 0 ] && pass "level warn: no info line, no per-job line" ||
  fail "level warn: no info line, no per-job line" "$n info lines, $m job lines:" "$(grep 'job \|info  ' "$tmp/warn.log" | head -5)"
[ -n "$(has "$tmp/warn.log" error "circuit bad: the proving key is corrupt")" ] &&
  pass "level warn: the corrupt key's error line" || fail "level warn: the corrupt key's error line" "$(tail -5 "$tmp/warn.log")"
finish
