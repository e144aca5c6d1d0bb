#!/usr/bin/env bash
# Fault tests of the files cuzk and cuzk-daemon are given (issue 14, items
# 4 and 8; base/fileio.h says what each case must do):
#   outputs: a symbolic link planted at the guessable OUT.tmp does not
#     redirect the write; an output that is a symbolic link is followed (the
#     link stays, the file it names gets the proof; a dangling one names
#     the file to create); a FIFO output is written into, not replaced; a
#     link to /dev/null writes into /dev/null, which stays a character
#     device; a directory is refused before the work; an old file's mode
#     is kept; no temporary is left behind;
#   inputs: a FIFO (no writer) as each input of info, prove, verify,
#     export-vk, remote prove, the daemon's --config, a [[circuits]] key
#     and a param_dir key is refused within a second with "is a FIFO,
#     expected a regular file" (each under `timeout 5`, so that a
#     regression fails instead of hanging).
# About 40 commands of the example circuit (2^3), one daemon; ~10 s.
# Usage: tests/daemon/fault_files.sh [BUILD_DIR]
set -uo pipefail
source "$(dirname "$0")/common.sh"
[ -x "$CUZK" ] || { fail "files" "$CUZK missing (make first)"; finish; }
scratch files
out=$tmp/out
mkdir -p "$out"
ZK=$EX/circuit.zkey WT=$EX/witness.wtns

# quick NAME WANT CMD...: CMD exits 2 within a second with WANT on stderr.
quick() {
  local name=$1 want=$2; shift 2
  local t0 msg rc ms
  t0=$(date +%s%N)
  msg=$(timeout 5 "$@" 2>&1 >/dev/null); rc=$?
  ms=$((($(date +%s%N) - t0) / 1000000))
  if [ "$rc" -eq 2 ] && [ "$ms" -lt 1000 ] && grep -qF -- "$want" <<<"$msg"; then pass "$name (${ms} ms)"
  else fail "$name" "expected exit 2 within 1 s with: $want" "got exit $rc after $ms ms: $(head -c 400 <<<"$msg")"; fi
}

# no_temporaries NAME DIR: DIR holds no hidden leftover (".NAME.XXXX").
no_temporaries() {
  local left
  left=$(find "$2" -maxdepth 1 -name '.*' ! -name . | head -3)
  [ -z "$left" ] && pass "$1: no temporary left" || fail "$1: no temporary left" "$left"
}

# proof_ok FILE: FILE is a snarkjs proof of the example that verifies.
proof_ok() { "$CUZK" verify "$EX/verification_key.json" "$2" "$1" >/dev/null 2>&1; }

# ---- outputs -------------------------------------------------------------------

# A link planted at OUT.tmp (the name a writer that appends ".tmp" would
# open) must not redirect the write into its target.
d=$out/planted; mkdir -p "$d"
printf 'victim\n' >"$d/victim"
ln -s "$d/victim" "$d/p.json.tmp"; ln -s "$d/victim" "$d/q.json.tmp"
"$CUZK" prove --quiet "$ZK" "$WT" "$d/p.json" "$d/q.json" 2>"$d/err"; rc=$?
if [ "$rc" -eq 0 ] && [ "$(cat "$d/victim")" = victim ] && proof_ok "$d/p.json" "$d/q.json" &&
   [ -L "$d/p.json.tmp" ] && [ ! -L "$d/p.json" ]; then pass "prove: a link planted at OUT.tmp does not redirect the write"
else fail "prove: a link planted at OUT.tmp does not redirect the write" "exit $rc: $(cat "$d/err")" "victim: $(head -c 80 "$d/victim")"; fi
printf 'victim\n' >"$d/victim"
ln -s "$d/victim" "$d/vk.json.tmp"
"$CUZK" export-vk "$ZK" "$d/vk.json" 2>"$d/err"; rc=$?
if [ "$rc" -eq 0 ] && [ "$(cat "$d/victim")" = victim ] && cmp -s "$d/vk.json" "$EX/verification_key.json"; then
  pass "export-vk: a link planted at OUT.tmp does not redirect the write"
else fail "export-vk: a link planted at OUT.tmp does not redirect the write" "exit $rc: $(cat "$d/err")" "victim: $(head -c 80 "$d/victim")"; fi

# An output that is a link: the link stays, the file it names is written
# (relative links resolved against the link's directory; a dangling link
# names the file to create).
d=$out/links; mkdir -p "$d/real"
printf 'old\n' >"$d/real/p.json"
ln -s real/p.json "$d/p.json"               # relative, to an existing file
ln -s "$d/real/q.json" "$d/q.json"           # absolute, dangling
"$CUZK" prove --quiet "$ZK" "$WT" "$d/p.json" "$d/q.json" 2>"$d/err"; rc=$?
if [ "$rc" -eq 0 ] && [ -L "$d/p.json" ] && [ -L "$d/q.json" ] && [ "$(readlink "$d/p.json")" = real/p.json ] &&
   proof_ok "$d/real/p.json" "$d/real/q.json"; then pass "prove: output links followed, not replaced"
else fail "prove: output links followed, not replaced" "exit $rc: $(cat "$d/err")" "$(ls -l "$d" "$d/real")"; fi
no_temporaries "prove through links" "$d/real"
no_temporaries "prove through links (link directory)" "$d"

# A FIFO output (a reader waiting) is written into; it stays a FIFO.
d=$out/fifo; mkdir -p "$d"
mkfifo "$d/p.fifo"
timeout 10 cat "$d/p.fifo" >"$d/got" &
reader=$!
timeout 10 "$CUZK" prove --quiet "$ZK" "$WT" "$d/p.fifo" "$d/q.json" 2>"$d/err"; rc=$?
wait "$reader"
if [ "$rc" -eq 0 ] && [ -p "$d/p.fifo" ] && proof_ok "$d/got" "$d/q.json"; then pass "prove: a FIFO output is written into, not replaced"
else fail "prove: a FIFO output is written into, not replaced" "exit $rc: $(cat "$d/err")" "$(ls -l "$d")"; fi
no_temporaries "prove into a FIFO" "$d"

# A link to /dev/null (not /dev/null itself: a writer that replaces its
# output would replace that link, never the device): /dev/null is written
# through it, and stays the character device 1:3; the link stays.
d=$out/null; mkdir -p "$d"
ln -s /dev/null "$d/p.json"
"$CUZK" prove --quiet "$ZK" "$WT" "$d/p.json" "$d/q.json" 2>"$d/err"; rc=$?
if [ "$rc" -eq 0 ] && [ -L "$d/p.json" ] && [ -c /dev/null ] && [ "$(stat -c %t:%T /dev/null)" = 1:3 ] &&
   [ "$(readlink "$d/p.json")" = /dev/null ]; then pass "prove: an output linked to /dev/null writes into the device"
else fail "prove: an output linked to /dev/null writes into the device" "exit $rc: $(cat "$d/err")" "$(ls -l "$d" /dev/null)"; fi
# Two outputs may be the one character device (writing it replaces nothing).
ln -s /dev/null "$d/q2.json"
"$CUZK" prove --quiet "$ZK" "$WT" "$d/p.json" "$d/q2.json" 2>"$d/err"; rc=$?
if [ "$rc" -eq 0 ] && [ -L "$d/p.json" ] && [ -L "$d/q2.json" ]; then pass "prove: both outputs the one character device"
else fail "prove: both outputs the one character device" "exit $rc: $(cat "$d/err")"; fi
no_temporaries "prove into /dev/null" "$d"
# stdout as a path (/proc/self/fd/1, a pipe here), through a link.
ln -s /proc/self/fd/1 "$d/stdout.json"
"$CUZK" prove --quiet "$ZK" "$WT" "$d/stdout.json" "$d/pub.json" 2>"$d/err" | cat >"$d/got"; rc=${PIPESTATUS[0]}
if [ "$rc" -eq 0 ] && [ -L "$d/stdout.json" ] && proof_ok "$d/got" "$d/pub.json"; then pass "prove: an output that is stdout (a pipe) is written into"
else fail "prove: an output that is stdout (a pipe) is written into" "exit $rc: $(cat "$d/err")"; fi

# A directory output is refused before the proof is made.
d=$out/dir; mkdir -p "$d/p.json"
quick "prove: a directory output refused" "$d/p.json: is a directory" "$CUZK" prove --quiet "$ZK" "$WT" "$d/p.json" "$d/q.json"
[ ! -e "$d/q.json" ] && pass "prove: nothing written when an output is refused" || fail "prove: nothing written when an output is refused"
no_temporaries "refused output" "$d"

# The old file's permission bits are kept; a new file gets 0644 less the umask.
d=$out/mode; mkdir -p "$d"
printf 'old\n' >"$d/p.json"; chmod 600 "$d/p.json"
(umask 077 && "$CUZK" prove --quiet "$ZK" "$WT" "$d/p.json" "$d/q.json") 2>"$d/err"; rc=$?
m1=$(stat -c %a "$d/p.json"); m2=$(stat -c %a "$d/q.json")
if [ "$rc" -eq 0 ] && [ "$m1" = 600 ] && [ "$m2" = 600 ]; then pass "prove: an old output's mode kept (600), a new one's from the umask (600)"
else fail "prove: an old output's mode kept (600), a new one's from the umask (600)" "exit $rc: $(cat "$d/err")" "modes $m1 $m2"; fi
chmod 640 "$d/p.json"; rm -f "$d/q.json"
(umask 022 && "$CUZK" prove --quiet "$ZK" "$WT" "$d/p.json" "$d/q.json") 2>"$d/err"; rc=$?
m1=$(stat -c %a "$d/p.json"); m2=$(stat -c %a "$d/q.json")
if [ "$rc" -eq 0 ] && [ "$m1" = 640 ] && [ "$m2" = 644 ]; then pass "prove: an old output's mode kept (640), a new one's 0644 under umask 022"
else fail "prove: an old output's mode kept (640), a new one's 0644 under umask 022" "exit $rc: $(cat "$d/err")" "modes $m1 $m2"; fi

# ---- inputs: a FIFO with no writer ---------------------------------------------

d=$out/in; mkdir -p "$d"
mkfifo "$d/in.fifo"
fifo=$d/in.fifo
want="$fifo: is a FIFO, expected a regular file"
quick "info: FIFO input" "$want" "$CUZK" info "$fifo"
quick "prove: FIFO key" "$want" "$CUZK" prove "$fifo" "$WT" "$d/p.json" "$d/q.json"
quick "prove: FIFO witness" "$want" "$CUZK" prove "$ZK" "$fifo" "$d/p.json" "$d/q.json"
quick "verify: FIFO verification key" "$want" "$CUZK" verify "$fifo" "$EX/public.json" "$EX/proof.json"
quick "verify: FIFO public signals" "$want" "$CUZK" verify "$EX/verification_key.json" "$fifo" "$EX/proof.json"
quick "verify: FIFO proof" "$want" "$CUZK" verify "$EX/verification_key.json" "$EX/public.json" "$fifo"
quick "export-vk: FIFO key" "$want" "$CUZK" export-vk "$fifo" "$d/vk.json"
quick "bench prove: FIFO key" "$want" "$CUZK" bench prove "$fifo" "$WT"
[ ! -e "$d/p.json" ] && [ ! -e "$d/vk.json" ] && pass "refused inputs: no output written" || fail "refused inputs: no output written" "$(ls "$d")"

# ---- the daemon -----------------------------------------------------------------

if [ ! -x "$DAEMON" ]; then
  skip "daemon: FIFO config, key, param_dir key" "cuzk-daemon not built (GRPC=0)"
  finish
fi
quick "daemon: FIFO --config" "config file: $want" "$DAEMON" --config "$fifo" --listen "unix://$tmp/c.sock"
printf '[[circuits]]\nid = "k"\npath = "%s"\n' "$fifo" >"$tmp/key.toml"
quick "daemon --check: FIFO [[circuits]] key" "circuit k: $want" "$DAEMON" --check --config "$tmp/key.toml"
quick "daemon: FIFO [[circuits]] key" "circuit k: $want" "$DAEMON" --config "$tmp/key.toml" --listen "unix://$tmp/k.sock" --status-listen ""

if ! client_built; then
  skip "daemon: FIFO param_dir key, remote prove" "cuzk built without the gRPC client"
  finish
fi
mkdir -p "$tmp/params"
cp "$ZK" "$tmp/params/mul.zkey"
mkfifo "$tmp/params/x.zkey"
printf '[srs]\nparam_dir = "%s"\n[cpu]\nworkers = 1\nthreads = 1\n' "$tmp/params" >"$tmp/pd.toml"
sock=$tmp/d.sock
"$DAEMON" --config "$tmp/pd.toml" --listen "unix://$sock" --status-listen "" >"$tmp/d.log" 2>&1 &
pid=$!
if ! wait_for 30 in_log "$tmp/d.log" ' ready$'; then
  fail "daemon start" "$(tail -5 "$tmp/d.log")"
  finish
fi
quick "daemon: FIFO param_dir key (submit)" "unknown circuit 'x' (not registered; $tmp/params/x.zkey: is a FIFO, expected a regular file)" \
  "$CUZK" submit --addr "unix://$sock" x "$WT"
quick "remote prove: FIFO witness" "$want" "$CUZK" prove --addr "unix://$sock" --circuit mul "$fifo" "$d/p.json" "$d/q.json"
# Remote prove's outputs go through the same writer: a planted OUT.tmp
# link is not followed, an output link is.
d=$out/remote; mkdir -p "$d/real"
printf 'victim\n' >"$d/victim"
ln -s "$d/victim" "$d/p.json.tmp"
ln -s real/q.json "$d/q.json"
timeout 60 "$CUZK" prove --quiet --addr "unix://$sock" --circuit mul "$WT" "$d/p.json" "$d/q.json" 2>"$d/err"; rc=$?
if [ "$rc" -eq 0 ] && [ "$(cat "$d/victim")" = victim ] && [ -L "$d/q.json" ] && proof_ok "$d/p.json" "$d/real/q.json"; then
  pass "remote prove: planted OUT.tmp not followed, output link followed"
else fail "remote prove: planted OUT.tmp not followed, output link followed" "exit $rc: $(cat "$d/err")" "$(ls -l "$d")"; fi
no_temporaries "remote prove" "$d"
no_temporaries "remote prove (link target)" "$d/real"
# await's outputs too: --proof-out into a FIFO with a reader (192 bytes,
# the FIFO stays), the JSON files past planted OUT.tmp links.
d=$out/await; mkdir -p "$d"
printf 'victim\n' >"$d/victim"
ln -s "$d/victim" "$d/p.json.tmp"; ln -s "$d/victim" "$d/q.json.tmp"
mkfifo "$d/raw"
timeout 60 cat "$d/raw" >"$d/raw.got" &
reader=$!
job=$(timeout 30 "$CUZK" submit --addr "unix://$sock" mul "$WT" 2>"$d/err")
timeout 60 "$CUZK" await --addr "unix://$sock" --proof-out "$d/raw" "$job" "$d/p.json" "$d/q.json" 2>>"$d/err"; rc=$?
wait "$reader"
if [ "$rc" -eq 0 ] && [ "$(cat "$d/victim")" = victim ] && [ -p "$d/raw" ] && [ "$(stat -c %s "$d/raw.got")" = 192 ] &&
   proof_ok "$d/p.json" "$d/q.json"; then pass "await: planted OUT.tmp links not followed, a FIFO --proof-out written into"
else fail "await: planted OUT.tmp links not followed, a FIFO --proof-out written into" "job '$job', exit $rc: $(cat "$d/err")" "$(ls -l "$d")"; fi
no_temporaries "await" "$d"
kill -TERM "$pid" 2>/dev/null
wait_for 30 exited "$pid" || fail "daemon stop" "still running after SIGTERM"
finish
