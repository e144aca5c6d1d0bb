#!/usr/bin/env bash
# Nsight Compute profiles of the GPU MSM and NTT kernels, for the cost
# models in src/cuda/msm_gpu.cuh and ntt_gpu.cu.  Runs on the GPU machine
# over binaries staged by `bench/gpu.sh --stage BUILD` (carried).
#
#   bench/gpu_profile.sh [BUILD] [WHAT...]
#     WHAT: msm-xyzz G1 2^24 XYZZ accumulation and reduction
#           g2       G2 2^22 XYZZ accumulation
#           ntt      NTT 2^24 passes
#     (default: all three)
#
# Each profile: a .ncu-rep and its details page as text under $OUT (or
# BUILD/gpu-logs), one line per kernel in profile-summary.txt.  Clocks are
# left alone (--clock-control none: the card is measured as it is).  Only a
# few launches per kernel name are profiled (--launch-count): ncu replays
# each one once per metric pass.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
build=${1:-build}
shift || true
what=("$@")
[ ${#what[@]} -gt 0 ] || what=(msm-xyzz g2 ntt)
out=${OUT:-$build/gpu-logs}
mkdir -p "$out"

if ! command -v ncu >/dev/null; then
  for d in /opt/nvidia/nsight-compute/*/ /usr/local/cuda/bin/; do
    [ -x "$d/ncu" ] && PATH="$d:$PATH" && break
  done
fi
command -v ncu >/dev/null || { echo "gpu_profile: no ncu here"; exit 1; }

sections=(--section SpeedOfLight --section LaunchStats --section Occupancy
  --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis
  --section SchedulerStats --section WarpStateStats --section InstructionStats)

prof() { # prof NAME KERNEL-REGEX COUNT BIN ARGS...
  local name=$1 re=$2 count=$3
  shift 3
  echo "== profile $name"
  ncu --clock-control none --kernel-name-base demangled -k "regex:$re" --launch-count "$count" \
    "${sections[@]}" -f -o "$out/$name" "$@" >"$out/$name.run.log" 2>&1
  echo "ncu exit $?"
  tail -n 3 "$out/$name.run.log"
  ncu -i "$out/$name.ncu-rep" --page details >"$out/$name.txt" 2>&1
  # per kernel: duration, SM throughput, memory throughput, registers, occupancy
  ncu -i "$out/$name.ncu-rep" --page raw --csv \
    --metrics gpu__time_duration.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,dram__bytes.sum \
    >"$out/$name.csv" 2>/dev/null
  sed 's/^/'"$name"': /' "$out/$name.csv" | cut -c1-400 >>"$out/profile-summary.txt"
}

for w in "${what[@]}"; do
  case $w in
  msm-xyzz) prof msm_xyzz 'accumulate_fn|reduce_fn|keys_fn|sum_fn' 8 \
    "$build/gpu/bench_gpu_msm" --g1 24 24 --g2 1 0 --reps 1 --check 0 ;;
  g2) prof msm_g2 'accumulate_fn' 6 \
    "$build/gpu/bench_gpu_msm" --g1 1 0 --g2 22 22 --reps 1 --check 0 ;;
  ntt) prof ntt 'ntt_' 6 "$build/gpu/bench_gpu_ntt" --from 24 --to 24 --reps 1 ;;
  *) echo "gpu_profile: unknown $w" ;;
  esac
done
echo "== profile summary"
cat "$out/profile-summary.txt" 2>/dev/null | head -n 80
