#!/usr/bin/env bash
# Changing key files (issue 14, item 1): a daemon serving a key whose file
# is rewritten in place, truncated in place, replaced by another valid key
# (rename and cp), between jobs and while jobs run.  The daemon owns the
# bytes it proves from (it reads a key into its own memory and checks it
# there), so it stays up and keeps its socket; a job proves with the key as
# some load of it read it - its proof verifies against that key - or fails
# with an error naming the file and what changed; a changed file is read
# again (and checked again) by the next job, so after a replacement a job
# proves with the new key.  Keys: two INSECURE chain keys of the same shape
# (cuzk bench keygen, 2^10 and 2^12), each with its witness; proofs
# checked with `cuzk verify` against each key's exported verification key.
# Counts: about 40 jobs in all, the concurrent rounds 3 x 6 jobs; bounded
# by wait_for's limits.
# Usage: tests/daemon/fault_keyfile.sh [BUILD_DIR]   (default build)
# Prints "N passed, N failed, N skipped" last; exit status 0 when none failed.
set -uo pipefail
. "$(dirname "$0")/common.sh"

need_daemon fault_keyfile
client_built || { skip fault_keyfile "build/cuzk has no gRPC client"; finish; }
scratch keyfile

# ---- inputs -----------------------------------------------------------------

# keys LG: k1, k2 (seeds 1, 2) of 2^LG under $tmp/LG/, their vks.
keys() {
  local lg=$1 s
  for s in 1 2; do
    mkdir -p "$tmp/$lg/k$s"
    "$CUZK" bench keygen --lg "$lg" --seed "$s" --threads 2 --out "$tmp/$lg/k$s" >/dev/null 2>&1 &&
      "$CUZK" export-vk "$tmp/$lg/k$s/circuit.zkey" "$tmp/$lg/vk$s.json" || return 1
  done
}
keys 10 && keys 12 || { fail "inputs" "cuzk bench keygen / export-vk failed"; finish; }
# The files the daemon serves: circuit c (2^10 keys), d (2^12 keys).
cp "$tmp/10/k1/circuit.zkey" "$tmp/c.zkey"
cp "$tmp/12/k1/circuit.zkey" "$tmp/d.zkey"
C=c K=$tmp/c.zkey # the circuit the helpers below prove with, and its file

cat >"$tmp/cuzk.toml" <<EOF
[cpu]
workers = 2
threads = 1
[[circuits]]
id = "c"
path = "$tmp/c.zkey"
[[circuits]]
id = "d"
path = "$tmp/d.zkey"
[[circuits]]
id = "mul"
path = "$EX/circuit.zkey"
EOF

SOCK=$tmp/d.sock
A="--addr unix://$SOCK"
LOG=$tmp/d.log
"$DAEMON" --config "$tmp/cuzk.toml" --listen "unix://$SOCK" --status-listen "" --log-level info >"$LOG" 2>&1 &
pid=$!
if ! wait_for 60 in_log "$LOG" ' ready$'; then
  fail "start" "$(tail -5 "$LOG")"
  finish
fi

# ---- helpers ----------------------------------------------------------------

# alive WHAT: the daemon still runs and its socket is there.
alive() {
  if kill -0 "$pid" 2>/dev/null && [ -S "$SOCK" ]; then pass "daemon up after $1"
  else fail "daemon up after $1" "$(tail -5 "$LOG")"; finish; fi
}

# prove NAME WITNESS: a remote proof on circuit $C (out in $tmp/NAME.{proof,public}.json,
# client messages in $tmp/NAME.err); the client's exit status.
prove() {
  "$CUZK" prove $A --circuit "$C" --quiet "$2" "$tmp/$1.proof.json" "$tmp/$1.public.json" 2>"$tmp/$1.err"
}

# verifies NAME VK: NAME's proof verifies against VK.
verifies() { "$CUZK" verify "$2" "$tmp/$1.public.json" "$tmp/$1.proof.json" >/dev/null 2>&1; }

# proves_with WHAT NAME WITNESS VK: the job proves, and its proof verifies
# against VK (the key the file holds now).
proves_with() {
  if prove "$2" "$3" && verifies "$2" "$4"; then pass "$1"
  else fail "$1" "$(cat "$tmp/$2.err")"; fi
}

# refused WHAT NAME WITNESS TEXT...: the job fails, no proof is written,
# and the client's message holds the served file's path and each TEXT.
refused() {
  local what=$1 name=$2 w=$3 t; shift 3
  if prove "$name" "$w"; then fail "$what" "the job was proved"; return; fi
  [ ! -e "$tmp/$name.proof.json" ] || { fail "$what" "a proof was written"; return; }
  for t in "$K" "$@"; do
    grep -qF -- "$t" "$tmp/$name.err" || { fail "$what" "no '$t' in: $(cat "$tmp/$name.err")"; return; }
  done
  pass "$what"
}

# A change must land after a timestamp tick of the load it follows.
tick() { sleep 0.02; }

# set_row FILE ENTRY VALUE: coefficient ENTRY's row := VALUE, in place.
set_row() {
  python3 - "$@" <<'EOF'
import struct, sys
path, entry, value = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
with open(path, "r+b") as f:  # in place: same inode, same size
    b = f.read()
    off, n = 12, struct.unpack_from("<I", b, 8)[0]
    for _ in range(n):
        t, size = struct.unpack_from("<IQ", b, off)
        if t == 4:  # coefficients: u32 n, then {u32 matrix, u32 row, u32 wire, 32 bytes}
            f.seek(off + 12 + 4 + 44 * entry + 4)
            f.write(struct.pack("<I", value))
            break
        off += 12 + size
EOF
}

W1=$tmp/10/k1/witness.wtns
W2=$tmp/10/k2/witness.wtns
VK1=$tmp/10/vk1.json
VK2=$tmp/10/vk2.json

# ---- between jobs -----------------------------------------------------------

proves_with "first job proves with key 1" a1 "$W1" "$VK1"

tick
set_row "$K" 5 2147483632 # row 0x7ffffff0, domainSize 1024
refused "rewritten in place (row >= domainSize): refused, naming the file, the change and the row" \
  r1 "$W1" "changed since it was loaded" "row 2147483632, expected < domainSize 1024"
alive "a job on a key rewritten in place"
C=mul proves_with "the other circuit still proves" m1 "$EX/witness.wtns" "$EX/verification_key.json"
tick
cp "$tmp/10/k1/circuit.zkey" "$K" # cp writes in place: truncate, then write
proves_with "written back: key 1 read again, proves" a2 "$W1" "$VK1"

tick
truncate -s 5000 "$K"
refused "truncated in place: refused, naming the file and the new size" \
  t1 "$W1" "changed since it was loaded" "-> 5000"
alive "a job on a key truncated in place"
tick
cp "$tmp/10/k1/circuit.zkey" "$K"
proves_with "written back after the truncation: proves" a3 "$W1" "$VK1"

tick
cp "$tmp/10/k2/circuit.zkey" "$tmp/next.zkey" && mv "$tmp/next.zkey" "$K"
proves_with "replaced by rename with key 2: the next job proves with key 2" b1 "$W2" "$VK2"
tick
cp "$tmp/10/k1/circuit.zkey" "$K"
proves_with "replaced in place (cp) with key 1: the next job proves with key 1" a4 "$W1" "$VK1"

tick
rm -f "$K"
refused "removed: refused, naming the file" g1 "$W1" "cannot open"
cp "$tmp/10/k2/circuit.zkey" "$K"
proves_with "put back as key 2: proves with key 2" b2 "$W2" "$VK2"

tick
mkfifo "$tmp/fifo" && mv "$tmp/fifo" "$K"
refused "replaced by a FIFO: refused at once" f1 "$W1" "is a FIFO, expected a regular file"
rm -f "$K"
cp "$tmp/10/k1/circuit.zkey" "$K"
proves_with "a key file again after the FIFO: proves" a5 "$W1" "$VK1"
alive "the changes between jobs"

# ---- while jobs run ---------------------------------------------------------

# Rounds on the 2^12 keys: 6 jobs in flight on 2 workers while the file
# is rewritten with a bad row, truncated, and replaced by the other key
# (in place, then by rename).  Every job ends with a proof that verifies
# against key 1 or key 2 (as the load it proved with read the file), or
# with an error that names the file; none is lost.
K1=$tmp/12/k1/circuit.zkey K2=$tmp/12/k2/circuit.zkey
W=$tmp/12/k1/witness.wtns
C=d K=$tmp/d.zkey
proves_with "2^12: key 1 proves" c0 "$W" "$tmp/12/vk1.json"
for round in 1 2 3; do
  jpids=()
  for j in 1 2 3 4 5 6; do
    prove "r$round-$j" "$W" &
    jpids+=("$!")
  done
  sleep 0.1
  set_row "$K" 7 4000000000
  sleep 0.1
  truncate -s $(( $(stat -c %s "$K1") / 3 )) "$K"
  sleep 0.1
  cp "$K2" "$K"
  sleep 0.1
  cp "$K1" "$tmp/next.zkey" && mv "$tmp/next.zkey" "$K"
  ok=0 proved=0 bad=()
  for j in 1 2 3 4 5 6; do
    if wait "${jpids[$((j - 1))]}"; then
      if verifies "r$round-$j" "$tmp/12/vk1.json" || verifies "r$round-$j" "$tmp/12/vk2.json"; then
        ok=$((ok + 1)) proved=$((proved + 1))
      else
        bad+=("job $j: a proof that verifies against neither key")
      fi
    elif grep -qF "$K" "$tmp/r$round-$j.err" && [ ! -e "$tmp/r$round-$j.proof.json" ]; then
      ok=$((ok + 1))
    else
      bad+=("job $j: $(cat "$tmp/r$round-$j.err")")
    fi
  done
  if [ "$ok" = 6 ]; then pass "round $round: 6 jobs during the changes: each a verified proof ($proved) or an error naming the file ($((6 - proved)))"
  else fail "round $round: 6 jobs during the changes" "${bad[@]}"; fi
  alive "round $round"
  tick
  proves_with "round $round: after the changes, the next job proves with key 1" "n$round" "$W" "$tmp/12/vk1.json"
done

# ---- the log ----------------------------------------------------------------

in_log "$LOG" "warn  *circuit c: the key file $tmp/c.zkey changed since it was loaded" &&
  pass "the log says the key file changed" || fail "the log says the key file changed" "$(tail -5 "$LOG")"
in_log "$LOG" "info  *circuit d: $K read again and checked after it changed" &&
  pass "the log says the key was read again" || fail "the log says the key was read again" "$(tail -5 "$LOG")"

kill -TERM "$pid"
if wait_for 30 exited "$pid"; then
  wait "$pid"; rc=$?; pid=
  [ "$rc" = 0 ] && [ ! -e "$SOCK" ] && pass "stops cleanly (exit 0, socket removed)" ||
    fail "stops cleanly" "exit $rc" "$(tail -5 "$LOG")"
else
  fail "stops cleanly" "still running 30 s after SIGTERM"
fi
finish
