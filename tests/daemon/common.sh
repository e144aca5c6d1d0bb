# Shared by the shell tests of cuzk-daemon (lifecycle.sh, joblog.sh,
# bench.sh), which source it first thing, their BUILD_DIR argument in $1:
# the paths, result lines and counts, the check that the daemon was built,
# a scratch directory, and waits on states.  Leaves the shell in the
# repository root.
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${1:-build}
case $build in /*) ;; *) build=$repo/$build ;; esac
cd "$repo"
DAEMON=$build/cuzk-daemon
CUZK=$build/cuzk
EX=$repo/examples/mul

# pass NAME; fail NAME [DETAIL...]; skip NAME WHY; finish: prints
# "N passed, N failed, N skipped" and exits 0 when none failed.
P=0; F=0; S=0
pass() { P=$((P+1)); echo "ok      $1"; }
fail() { F=$((F+1)); echo "FAIL    $1"; shift; for l in "$@"; do echo "  $l"; done; }
skip() { S=$((S+1)); echo "skip    $1: $2"; }
finish() { echo "$P passed, $F failed, $S skipped"; [ "$F" -eq 0 ]; exit; }

# need_daemon NAME: finishes at once unless $DAEMON exists: skipped for a
# GRPC=0 build (which has no daemon), failed otherwise.
need_daemon() {
  [ -x "$DAEMON" ] && return 0
  if ls "$build"/.grpc-0* >/dev/null 2>&1; then # the Makefile's stamp of a GRPC=0 build
    skip "$1" "cuzk-daemon is not built without gRPC (GRPC=0)"
  else
    fail "$1" "$DAEMON missing (make first)"
  fi
  finish
}

# client_built: whether $CUZK has the gRPC client (submit, await, status).
client_built() {
  "$CUZK" submit --help >/dev/null 2>&1 &&
    ! "$CUZK" status --addr unix:///nonexistent 2>&1 | grep -q "built without gRPC"
}

# scratch NAME: $tmp, a fresh directory, removed at exit, when the daemons
# the test started (their pids in $pid or the array pids) are killed too.
scratch() {
  tmp=$(mktemp -d "/tmp/cuzk-$1-XXXXXX")
  pid=
  pids=()
  trap 'for p in ${pid:-} "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done; rm -rf "$tmp"' EXIT
}

# Waiting on states.  A test waits
# for what it needs (a log line, a status field, a process gone) under a
# generous bound, never for a fixed time: the bound only ends a real hang.

# wait_for SECS CMD...: runs CMD every 20 ms until it succeeds (status 0)
# or SECS seconds have passed (status 1).
wait_for() {
  local secs=$1; shift
  local end=$((SECONDS + secs))
  until "$@"; do
    [ "$SECONDS" -lt "$end" ] || return 1
    sleep 0.02
  done
}

# in_log FILE REGEX: a line of FILE matches REGEX (grep's basic syntax).
in_log() { grep -q -- "$2" "$1" 2>/dev/null; }

# exited PID: the process is gone.
exited() { ! kill -0 "$1" 2>/dev/null; }

# start_daemon LOG ARGS...: starts $DAEMON with ARGS (output in LOG), adds
# its pid to pids and sets $pid; waits until it logs "ready" (0) or exits
# (1; $rc its status; 124 when neither happened within 60 s).
start_daemon() {
  local log=$1; shift
  : >"$log"
  "$DAEMON" "$@" >>"$log" 2>&1 &
  pid=$!
  pids+=("$pid")
  ready_or_exited() { in_log "$1" ' ready$' || exited "$2"; }
  wait_for 60 ready_or_exited "$log" "$pid"
  in_log "$log" ' ready$' && return 0
  if exited "$pid"; then wait "$pid"; rc=$?; else rc=124; fi
  return 1
}

# logged_port LOG WHAT: the port the daemon logged for WHAT ("gRPC" or
# "HTTP") as "... (port N)".
logged_port() { grep "$2" "$1" | grep -o '(port [0-9]*' | head -n 1 | tr -dc '0-9'; }
