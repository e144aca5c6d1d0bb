#!/usr/bin/env bash
# Runs every test binary under BUILD/tests (default build) and prints one
# closing line "N passed, N failed, N skipped" summed over all of them.
set -u
build=${1:-build}
here=$(cd "$(dirname "$0")/.." && pwd)
export CUZK_SRCDIR=$here
p=0; f=0; s=0; bad=()
for t in $(find "$build/tests" -type f -perm -u+x -name 'test_*' | sort); do
  echo "== $t"
  out=$("$t" 2>&1); rc=$?
  echo "$out" | grep -v '^[0-9]* passed, [0-9]* failed' 
  line=$(echo "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -n 1)
  if [ -z "$line" ]; then f=$((f+1)); bad+=("$t (crashed, rc=$rc)"); continue; fi
  read -r a _ b _ c _ <<<"$(echo "$line" | tr -d ',')"
  p=$((p+a)); f=$((f+b)); s=$((s+c))
  [ "$rc" -ne 0 ] && bad+=("$t")
done
[ ${#bad[@]} -gt 0 ] && printf 'failing: %s\n' "${bad[@]}"
echo "unit: $p passed, $f failed, $s skipped"
[ "$f" -eq 0 ]
