#!/usr/bin/env bash
# Usage: tests/malformed/run.sh [BUILD]   (default BUILD=build)
#
# Generates small valid and malformed .wtns/.r1cs/.zkey files with gen.py
# into BUILD/malformed/ and runs `BUILD/cuzk info` on each: the exit status
# and a substring of the output must match MANIFEST.  With an ASan build
# (make asan; run.sh build-asan) this also checks that every error path is
# memory-safe and leak-free (LeakSanitizer runs when cuzk exits).
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build}
cuzk="$build/cuzk"
[ -x "$cuzk" ] || { echo "no $cuzk: build it first" >&2; exit 2; }
out="$build/malformed"
rm -rf "$out"
python3 "$here/gen.py" "$out" || exit 2
pass=0; fail=0
while IFS='|' read -r file want args sub; do
    # shellcheck disable=SC2086
    got=$(cd "$out" && "$OLDPWD/$cuzk" info $args "$file" 2>&1); rc=$?
    if [ "$rc" -eq "$want" ] && [[ "$got" == *"$sub"* ]] && [[ "$got" != *Sanitizer* ]] \
        && [[ "$got" != *"runtime error"* ]]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        printf 'FAIL %s (exit %s, expected %s; wanted "%s")\n%s\n' "$file" "$rc" "$want" "$sub" "$got"
    fi
done <"$out/MANIFEST"
echo "malformed: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
