#!/usr/bin/env bash
# No device-global CUDA call outside src/cuda/gcall.cu (src/cuda/gcall.h says
# which calls and why: they stall every stream of the device, docs/DESIGN.md
# §3).  Every such call goes through gcall.cuh's counted wrappers, so
# tests can assert that none happens on the job path.
#
#   tests/lint/no_raw_cuda_global.sh [ROOT]    exit 0: clean; 1: direct calls
#
# Comments and string literals are ignored; a call, a function pointer
# (template argument, &name) or a macro use of the name all count.  PENDING
# lists files another change still has to switch: their hits are printed as
# "pending" and do not fail the check (STRICT=1 fails them too).  Remove a
# file from PENDING once it is switched.
set -uo pipefail
lint=$(cd "$(dirname "$0")" && pwd)
root=${1:-$(cd "$lint/../.." && pwd)}
cd "$root" || exit 2

PENDING=" "
ALLOWED=" src/cuda/gcall.cu "
names='cudaMalloc|cudaMallocHost|cudaHostAlloc|cudaMallocAsync|cudaMallocManaged|cudaMallocPitch|cudaMalloc3D|cudaMallocArray|cudaMallocFromPoolAsync|cudaFree|cudaFreeHost|cudaFreeAsync|cudaFreeArray|cudaHostRegister|cudaHostUnregister|cudaDeviceSynchronize|cudaThreadSynchronize|cudaDeviceReset|cudaMemPoolTrimTo|cudaDeviceSetLimit|cudaSetDevice|cudaMemGetInfo|cudaStreamCreate|cudaStreamCreateWithFlags|cudaStreamCreateWithPriority|cudaStreamDestroy|cudaEventCreate|cudaEventCreateWithFlags|cudaEventDestroy'

bad=0
pending=0
while IFS= read -r -d '' f; do
  case "$ALLOWED" in *" $f "*) continue ;; esac
  hits=$(perl "$lint/code_only.pl" "$f" | NAMES="$names" perl -ne '
    print "$.: $1\n" while /\b($ENV{NAMES})\b(?!\w)/g;')
  [ -z "$hits" ] && continue
  case "$PENDING" in
    *" $f "*) pending=$((pending + 1)); echo "$hits" | sed "s|^|pending: $f:|" ;;
    *) bad=$((bad + 1)); echo "$hits" | sed "s|^|$f:|" ;;
  esac
done < <(find src tests bench tools -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' -o -name '*.cc' -o -name '*.cpp' \) -print0 2>/dev/null | LC_ALL=C sort -z)

if [ "$bad" -gt 0 ]; then
  echo "no_raw_cuda_global: $bad file(s) call device-global CUDA functions directly;"
  echo "  use the counted wrappers of src/cuda/gcall.cuh (cuda_gc_malloc, cuda_gc_free, ...)"
  exit 1
fi
if [ "$pending" -gt 0 ] && [ "${STRICT:-0}" = 1 ]; then
  echo "no_raw_cuda_global: $pending pending file(s) not yet switched (STRICT=1)"
  exit 1
fi
echo "no_raw_cuda_global: ok${pending:+ ($pending file(s) pending: $(echo $PENDING))}"
exit 0
