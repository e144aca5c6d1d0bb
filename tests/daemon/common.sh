# Shared by the shell tests of cuzk-daemon (lifecycle.sh, joblog.sh), which
# source it first thing, their BUILD_DIR argument in $1: the paths, result
# lines and counts, and the check that the daemon was built.  Leaves the
# shell in the repository root.
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
