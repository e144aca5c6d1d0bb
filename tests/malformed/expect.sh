# Sourced by tests/malformed/cli.sh and filecoin.sh: pass and fail counters
# and expect WANT_RC SUBSTRING cmd...: run, compare the exit status and look
# for SUBSTRING in the output; a sanitizer report is always a failure.
pass=0; fail=0
expect() {
  local want=$1 sub=$2; shift 2
  local out rc
  out=$("$@" 2>&1); rc=$?
  if [ "$rc" -eq "$want" ] && [[ "$out" == *"$sub"* ]] && [[ "$out" != *Sanitizer* ]] && [[ "$out" != *"runtime error"* ]]; then
    pass=$((pass+1))
  else
    fail=$((fail+1)); printf 'FAIL: %s\n  exit %s (expected %s), wanted "%s" in:\n%s\n' "$*" "$rc" "$want" "$sub" "$out"
  fi
}
