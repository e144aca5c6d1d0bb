# Waiting on states, for the daemon test scripts (sourced).  A test waits
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
