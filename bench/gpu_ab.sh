#!/usr/bin/env bash
# A/B runs of two builds on the GPU machine, in one device call: the GPU
# binaries of a commit against those of another commit or of the working
# tree (before and after a change, on the same machine, interleaved).
#
#   bench/gpu_ab.sh stage NAME [REV]            here: build the GPU binaries
#       of git revision REV (a clean export of it, in build-ab/NAME/src;
#       without REV the working tree, in build-ab/NAME), strip them and pack
#       them into build-pkg/NAME.tgz (build* is git-ignored)
#   bench/gpu_ab.sh run ROUNDS BIN [ARGS...]    there: unpack every
#       build-pkg/*.tgz, then ROUNDS times run build-ab/NAME/gpu/BIN ARGS
#       for each variant in turn (interleaved, so drift hits all alike);
#       the whole output in $OUT/ab.log, its summary: lines tagged with the
#       variant last
#
# Example (the MSM and NTT rows before and after a change):
#   bench/gpu_ab.sh stage before 25affae
#   bench/gpu_ab.sh stage after
#   device run, carry ["build-pkg"]:
#     bench/gpu_ab.sh run 2 bench_gpu_ntt --from 27 --to 27 --reps 5
#     bench/gpu_ab.sh run 2 bench_gpu_msm --g1 1 0 --g2 24 24 --reps 3
#
# Why packed: the device call carries at most 64 MiB, and the GPU binaries
# of one build are ~90 MB unstripped; a variant's stripped, compressed
# binaries are 2-12 MB.  A call returns at most 8 files under $OUT, so
# everything goes to one log.  GPU_AB_TARGETS picks the binaries (default
# below); the shared libraries they load but glibc's (libcjson for the
# engine binaries) go with them (scripts/copy_libs.sh).
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
targets=${GPU_AB_TARGETS:-"bench_gpu_msm bench_gpu_field bench_gpu_ntt test_gpu_field test_gpu_msm"}

case "${1:-}" in
stage)
  name=${2:?"stage NAME [REV]"}
  rev=${3:-}
  [[ "$name" =~ ^[A-Za-z0-9_-]+$ ]] || { echo "gpu_ab: NAME: letters, digits, - and _"; exit 2; }
  b=build-ab/$name
  nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
  if [ -n "$rev" ]; then
    sha=$(git rev-parse --verify --quiet "$rev^{commit}") || { echo "gpu_ab: $rev: no such commit"; exit 2; }
    dir=$b/src build=build
    rm -rf "$dir" && mkdir -p "$dir" || exit 1
    git archive "$sha" | tar x -C "$dir" || exit 1
    what="commit $(git rev-parse --short "$sha")"
  else
    dir=. build=$b
    what="working tree of $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src tests Makefile || echo '+changes')"
  fi
  goals=()
  for t in $targets; do goals+=("$build/gpu/$t"); done
  make -s -C "$dir" -j"$(nproc)" CUDA=1 BUILD="$build" NVCC="$nvcc" "${goals[@]}" || exit 1
  out=$dir/$build/gpu
  rm -rf "$b/pkg" && mkdir -p "$b/pkg/gpu/lib" build-pkg || exit 1
  for t in $targets; do
    cp "$out/$t" "$b/pkg/gpu/" && strip --strip-debug "$b/pkg/gpu/$t"
  done
  scripts/copy_libs.sh "$b/pkg/gpu/lib" "${goals[@]/#/$dir/}" || exit 1
  echo "variant $name: $what" >"$b/pkg/gpu/VARIANT"
  tar czf "build-pkg/$name.tgz" -C "$b/pkg" gpu || exit 1
  ls -l "build-pkg/$name.tgz"
  du -ch build-pkg/*.tgz | tail -n 1 | sed 's/total/in build-pkg (the carry limit is 64 MiB)/'
  ;;
run)
  rounds=${2:?"run ROUNDS BIN [ARGS...]"}
  bin=${3:?"run ROUNDS BIN [ARGS...]"}
  shift 3
  out=${OUT:-build-ab/logs}
  mkdir -p "$out"
  log=$out/ab.log
  names=()
  for p in build-pkg/*.tgz; do
    n=$(basename "$p" .tgz)
    mkdir -p "build-ab/$n" && tar xzf "$p" -C "build-ab/$n" || exit 1
    names+=("$n")
    sed 's/^/== /' "build-ab/$n/gpu/VARIANT" >>"$log"
  done
  status=0
  for ((r = 1; r <= rounds; r++)); do
    for n in "${names[@]}"; do
      echo "== round $r variant $n: $bin $*" >>"$log"
      LD_LIBRARY_PATH="build-ab/$n/gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
        "build-ab/$n/gpu/$bin" "$@" >"$out/ab.tmp" 2>&1 || status=1
      cat "$out/ab.tmp" >>"$log"
      sed -n "s/^summary: /summary: [$n round $r] /p" "$out/ab.tmp" >>"$out/ab.summary"
    done
  done
  rm -f "$out/ab.tmp"
  cat "$out/ab.summary" >>"$log" && rm -f "$out/ab.summary"
  grep '^summary: \[' "$log"
  exit $status
  ;;
*)
  sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
  ;;
esac
