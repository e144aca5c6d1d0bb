#!/usr/bin/env bash
# The GPU checks and benchmarks, in one call on the GPU machine.
#
#   bench/gpu.sh --stage [BUILD]   here, on the dev machine: build BUILD/gpu/*
#                                  (make -j CUDA=1 gpu) and stamp them with a
#                                  hash of the sources they were built from
#   bench/gpu.sh [BUILD]           there: run every GPU test (BUILD/gpu/test_*)
#                                  and GPU benchmark (BUILD/gpu/bench_*), full
#                                  logs under $OUT (or BUILD/gpu-logs), a short
#                                  table last.  GPU_ONLY=REGEX runs only the
#                                  tests/benches whose names match ("prove" for
#                                  bench/gpu_prove.sh, "sass" for the SASS mix,
#                                  "bp" for cuzk bench bp: partitions and an
#                                  engine stream at 2^BP_LG, default 24, 27 for
#                                  full scale, of BP_SHAPE (porep-32g; snap-32g,
#                                  wpost-32g), BP_JOBS jobs (3) of BP_PARTITIONS
#                                  (10; snap 16, wpost 1), witnesses under
#                                  BP_WITNESS_DIR, BP_REPS single partitions
#                                  first (2; 0: the stream alone),
#                                  BP_READAHEAD witness read-ahead buffers (1),
#                                  BP_ARGS more options of bench bp
#                                  ("--ntt-pass1-table");
#                                  PROVE_LGS="20 22" picks the synthetic-key sizes;
#                                  ENGINE_ARGS="-l 24 -k 1,2,3" the engine
#                                  benchmark's (bench_gpu_engine: key 2^LG, the
#                                  slot counts K, -n jobs, -s streamed bases,
#                                  -g 1,2 one GPU then two, with the scaling);
#                                  the tests' inputs come from seed 0 unless
#                                  CUZK_TEST_SEED=N (or "random": a fresh seed,
#                                  printed) says otherwise (tests/harness.h)
#
# Why carried binaries: the GPU machine reaches no package registry and has
# no libcjson-dev, so the library does not build there.  The GPU binaries are
# linked with the CUDA runtime static and without libcjson (Makefile), so
# BUILD/gpu alone is enough.  --stage also packs it, debug info stripped,
# into BUILD-pkg/gpu.tar.xz (a few MB, where BUILD/gpu with cuzk's shared
# libraries is over the device call's 64 MiB); the run unpacks it when
# BUILD/gpu is not there.  With the device tool:
#   bench/gpu.sh --stage
#   run  command: bench/gpu.sh   carry: ["build-pkg"]
# The stamp guards against stale binaries: if the sources that travel with
# the call hash differently, the script says so and tries to rebuild there
# (which works only where the headers it needs exist).
#
# Exit status: 0 when every test passed (or skipped) and every benchmark ran
# and checked its results; 1 otherwise.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here" || exit 1

stage=0
if [ "${1:-}" = "--stage" ]; then stage=1; shift; fi
build=${1:-build}

src_hash() { # the sources the GPU binaries are built from (cuda, ff, base; the NTT test's
  # CPU references also poly, backend and what the CPU backend links: msm, ec; the
  # engine test and benchmark: engine, groth16, pairing)
  find include src/base src/ff src/cuda src/poly src/backend src/msm src/ec src/engine src/groth16 src/pairing tests/gpu tests/harness.c tests/harness.h Makefile \
    -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' -o -name Makefile \) \
    -print0 | LC_ALL=C sort -z | xargs -0 cat | sha256sum | cut -c1-16
}

if [ $stage -eq 1 ]; then
  make -s -j"$(nproc)" CUDA=1 BUILD="$build" gpu "$build/cuzk" || exit 1
  bench/gpu_prove.sh --stage "$build" || exit 1
  {
    echo "sources $(src_hash)"
    echo "commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD -- src tests/gpu Makefile 2>/dev/null || echo '+changes')"
    echo "built $(date -u +%Y-%m-%dT%H:%MZ) on $(hostname)"
  } >"$build/gpu/STAMP"
  cat "$build/gpu/STAMP"
  pkg=$build-pkg tmp=$(mktemp -d)
  cp -r "$build/gpu" "$tmp/gpu" && rm -f "$tmp"/gpu/*.d || exit 1
  for f in "$tmp"/gpu/test_* "$tmp"/gpu/bench_* "$tmp"/gpu/cuzk; do
    [ -f "$f" ] && strip --strip-debug "$f"
  done
  mkdir -p "$pkg" && tar cf - -C "$tmp" gpu | xz -T0 -6 >"$pkg/gpu.tar.xz" || exit 1
  rm -rf "$tmp"
  ls -l "$pkg/gpu.tar.xz"
  echo "now: run bench/gpu.sh $build with carry [\"$pkg\"]"
  exit 0
fi

out=${OUT:-$build/gpu-logs}
mkdir -p "$out"
if [ ! -d "$build/gpu" ] && [ -f "$build-pkg/gpu.tar.xz" ]; then # carried packed (--stage)
  mkdir -p "$build" && xz -dc "$build-pkg/gpu.tar.xz" | tar x -C "$build" || exit 1
fi
# The engine test and benchmark link libcjson (the GPU machine has none):
# --stage copies it into BUILD/gpu/lib (bench/gpu_prove.sh).
export LD_LIBRARY_PATH="$build/gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

main() {
echo "== GPU run $(date -u +%Y-%m-%dT%H:%MZ)"
if command -v nvidia-smi >/dev/null; then
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,power.draw \
    --format=csv,noheader 2>&1 | sed 's/^/gpu: /'
fi

# Binaries: carried and current, else build here.
stale=""
if [ ! -f "$build/gpu/STAMP" ]; then
  stale="no $build/gpu/STAMP (not carried, or not staged)"
elif [ "$(sed -n 's/^sources //p' "$build/gpu/STAMP")" != "$(src_hash)" ]; then
  stale="$build/gpu was built from other sources than these"
fi
rows=()
status=0
if [ -n "$stale" ]; then
  echo "binaries: $stale; building here"
  if make -s -j"$(nproc)" CUDA=1 BUILD="$build" gpu >"$out/build.log" 2>&1; then
    echo "binaries: built here"
  elif ls "$build"/gpu/test_* >/dev/null 2>&1; then
    tail -n 5 "$out/build.log"
    echo "binaries: WARNING: the build failed here (build.log); running the carried, STALE ones"
    rows+=("| binaries | STALE: $stale |")
  else
    tail -n 20 "$out/build.log"
    echo "binaries: the build failed here (build.log) and none were carried: stage and carry them"
    echo "| GPU build | FAILED |"
    return 1
  fi
else
  sed 's/^/binaries: /' "$build/gpu/STAMP"
fi

logged() { # logged BIN [ARGS]: run it, its output to the terminal and $out/NAME.log; sets name, rc
  name=$(basename "$1")
  echo "== $name"
  "$@" 2>&1 | tee "$out/$name.log"
  rc=${PIPESTATUS[0]}
  [ "$rc" -eq 0 ] || status=1
}

only() { [ -z "${GPU_ONLY:-}" ] || [[ "$1" =~ $GPU_ONLY ]]; } # GPU_ONLY: a regex of names to run

for t in "$build"/gpu/test_*; do
  [ -x "$t" ] || continue
  only "$(basename "$t")" || continue
  logged "$t"
  line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$out/$name.log" | tail -n 1)
  rows+=("| $name | ${line:-no result line (rc $rc)} |")
done

for b in "$build"/gpu/bench_*; do
  [ -x "$b" ] || continue
  only "$(basename "$b")" || continue
  args=()
  # shellcheck disable=SC2206 # ENGINE_ARGS is a word list on purpose
  [ "$(basename "$b")" = bench_gpu_engine ] && args=(${ENGINE_ARGS:-})
  logged "$b" "${args[@]}"
  [ "$rc" -eq 0 ] || rows+=("| $name | FAILED (rc $rc) |")
  grep -q "^$name: skipped" "$out/$name.log" && rows+=("| $name | $(sed -n "s/^$name: //p" "$out/$name.log") |")
  while IFS= read -r s; do
    rows+=("| ${s%%: *} | ${s#*: } |")
  done < <(sed -n 's/^summary: //p' "$out/$name.log")
done

# Machine code of the Fp multiplication chain (ilp 1): instruction mix per
# kernel, for the cost model (cuobjdump is on the GPU machine, not on dev).
if only sass && command -v cuobjdump >/dev/null && [ -x "$build/gpu/bench_gpu_field" ]; then
  cuobjdump -sass "$build/gpu/bench_gpu_field" >"$out/sass.txt" 2>&1
  # per kernel: full opcode counts (IMAD.WIDE.U32, IADD3.X, ...)
  awk '/Function : /{fn=$3} /^ +\/\*[0-9a-f]+\*\/ /{op=$2; if (op ~ /^@/) op=$3; sub(/;$/, "", op); n[fn" "op]++; tot[fn]++}
       END{for (k in n) print k, n[k]; for (f in tot) print f, "TOTAL", tot[f]}' "$out/sass.txt" |
    sort >"$out/sass_mix.txt"
  k=$(grep -o '_Z18field_chain_kernelI12field_ops_ofI4montI16bls12_381_fp_cfgEES3_Li1ELb0EE[A-Za-z0-9_]*' \
    "$out/sass_mix.txt" | head -n 1)
  if [ -n "$k" ]; then # by base opcode (IMAD.WIDE.U32 counts as IMAD)
    mix=$(grep "^$k " "$out/sass_mix.txt" | awk '{b=$2; sub(/\..*/, "", b); n[b]+=$3} END{for (b in n) print b"="n[b]}' |
      sort -t= -k2 -nr | head -n 8 | tr '\n' ' ')
    rows+=("| fp mul kernel SASS (ilp 1, whole kernel) | $mix|")
  fi
  gzip -f "$out/sass.txt"
fi

# Bellperson partitions and a stream of 10-partition jobs through the
# engine at BP_LG (default 2^24; 27 is full scale, minutes), the key made
# on the GPU, with an express slot for a CRITICAL winning-32g job.
if only bp && [ -x "$build/gpu/cuzk" ]; then
  # shellcheck disable=SC2086 # BP_ARGS is a word list on purpose
  logged "$build/gpu/cuzk" bench bp --shape "${BP_SHAPE:-porep-32g}" --scale-lg "${BP_LG:-24}" \
    --reps "${BP_REPS:-2}" --device gpu --engine --slots 2 --jobs "${BP_JOBS:-3}" \
    --partitions "${BP_PARTITIONS:-10}" --critical 1 --express --readahead "${BP_READAHEAD:-1}" \
    --witness-dir "${BP_WITNESS_DIR:-/dev/shm}" ${BP_ARGS:-}
  [ "$rc" -eq 0 ] || rows+=("| bench bp | FAILED (rc $rc) |")
  while IFS= read -r s; do rows+=("| ${s%%: *} | ${s#*: } |"); done < <(sed -n 's/^summary: //p' "$out/$name.log")
fi

# The whole prove (bench/gpu_prove.sh): GPU against CPU bytes, timings.
if only prove && [ -x "$build/gpu/cuzk" ]; then
  echo "== prove"
  bench/gpu_prove.sh "$build" "$out" 2>&1 | tee "$out/prove.log"
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
  while IFS= read -r s; do rows+=("| ${s%%: *} | ${s#*: } |"); done < <(sed -n 's/^summary: //p' "$out/prove.log")
fi

echo
echo "== summary ($(sed -n 's/^commit //p' "$build/gpu/STAMP" 2>/dev/null || echo 'built here'))"
echo "| what | result |"
echo "|---|---|"
for r in "${rows[@]}"; do echo "$r"; done
return $status
}

main 2>&1 | tee "$out/gpu.log"
exit "${PIPESTATUS[0]}"
