#!/usr/bin/env bash
# Only the backend layer reaches CUDA (docs/DESIGN.md §2: a layer includes only the
# layers below it; backend/device.h is the one way to a device): no file of
# src/ outside src/cuda and src/backend/cuda includes a CUDA header
# ("cuda/...", "backend/cuda/...", <cuda...>) or names a cuzk_cuda_* or
# backend_cuda_* function, so a build without CUDA, which compiles neither
# directory, needs no stand-ins.  The registry, src/backend/device.c, is
# the one exception: it includes backend/cuda/cuda_backend.h and names its
# provider, under CUZK_CUDA.
#
#   tests/lint/no_cuda_above_backend.sh [ROOT]   exit 0: clean; 1: a file reaches CUDA
#
# Names in comments and string literals do not count (code_only.pl).
set -uo pipefail
lint=$(cd "$(dirname "$0")" && pwd)
root=${1:-$(cd "$lint/../.." && pwd)}
cd "$root" || exit 2

ALLOWED_DIRS="src/cuda/ src/backend/cuda/"
REGISTRY="src/backend/device.c"
include_re='^[[:space:]]*#[[:space:]]*include[[:space:]]*("(backend/)?cuda/|<cuda)'
name_re='\b(cuzk_cuda_\w+|backend_cuda_\w+)'

bad=0
while IFS= read -r -d '' f; do
  skip=0
  for d in $ALLOWED_DIRS; do case "$f" in "$d"*) skip=1 ;; esac; done
  [ "$skip" = 1 ] && continue
  hits=$(grep -nE "$include_re" "$f" | sed 's/^\([0-9]*\):[[:space:]]*/\1: /')
  names=$(perl "$lint/code_only.pl" "$f" | perl -ne 'print "$.: $1\n" while /'"$name_re"'/g;')
  if [ "$f" = "$REGISTRY" ]; then
    hits=$(echo "$hits" | grep -v '"backend/cuda/cuda_backend.h"')
    names=$(echo "$names" | grep -vE ': backend_cuda_devices$')
  fi
  hits=$(printf '%s\n%s\n' "$hits" "$names" | grep -v '^$' | sort -n)
  [ -z "$hits" ] && continue
  bad=$((bad + 1))
  echo "$hits" | sed "s|^|$f:|"
done < <(find src -type f \( -name '*.c' -o -name '*.h' \) -print0 2>/dev/null | LC_ALL=C sort -z)

if [ "$bad" -gt 0 ]; then
  echo "no_cuda_above_backend: $bad file(s) above the backend layer reach CUDA directly;"
  echo "  use the device registry (src/backend/device.h) instead"
  exit 1
fi
echo "no_cuda_above_backend: ok"
exit 0
