#!/usr/bin/env bash
# Every test of cuzk, as CI runs it (.ci/run calls exactly this):
#   1. installs what is missing (apt: gcc, make, libcjson-dev, gRPC and
#      protobuf-c, clang and its libFuzzer, Python grpcio and protobuf, nodejs/npm;
#      npm ci of the pinned oracles: snarkjs, circom2, @noble/curves)
#   2. builds; the oracle suite: circuits compiled by circom, keys and proofs
#      made by snarkjs, cross-checked with cuzk in both directions
#   3. the unit and known-answer tests (some read the oracle's fixtures);
#      the Filecoin path end to end (tests/malformed/filecoin.sh)
#   4. the daemon tests: the gRPC service against real clients (Python
#      grpcio and cuzk's own), a daemon started as a helper process
#   5. the GPU tests report that they are skipped when there is no GPU (a
#      build without CUDA has none, and this says they are skipped)
#   6. rebuilds under AddressSanitizer/UBSan and runs the reader and
#      malformed-input tests there, and the engine's submit-path tests
#   7. builds the libFuzzer harnesses (make fuzz, clang) and runs each for
#      30 s on its seed corpus (tests/fuzz/run.sh)
# Prints one closing line "N passed, N failed, N skipped" over all of it.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
scripts/deps.sh || { echo "0 passed, 1 failed, 0 skipped"; exit 1; }

P=0; F=0; S=0
tally() { # tally LOGFILE: add the last "N passed, N failed[, N skipped]" line
  local line
  line=$(grep -E '[0-9]+ passed, [0-9]+ failed' "$1" | tail -n 1 | sed -E 's/^[^0-9]*//')
  if [ -z "$line" ]; then F=$((F+1)); echo "!! $1: no result line"; return; fi
  local a b c
  a=$(echo "$line" | sed -E 's/^([0-9]+) passed.*/\1/')
  b=$(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')
  c=$(echo "$line" | grep -oE '[0-9]+ skipped' | grep -oE '[0-9]+' || echo 0)
  P=$((P+a)); F=$((F+b)); S=$((S+c))
}
mkdir -p build/logs
jobs=$(nproc)

echo "== build"
if ! make -s -j"$jobs" all >build/logs/build.log 2>&1; then
  cat build/logs/build.log; echo "0 passed, 1 failed, 0 skipped"; exit 1
fi

echo "== oracle: snarkjs and circom against cuzk"
tests/oracle/run.sh build 2>&1 | tee build/logs/oracle.log
tally build/logs/oracle.log

# After the oracle stage, so that the tests reading its fixtures run too.
echo "== unit and known-answer tests"
tests/run_unit.sh build 2>&1 | tee build/logs/unit.log
tally build/logs/unit.log

echo "== Filecoin path: circuit gen, setup, prove --pce, verify (cuzk and @noble/curves), the C API"
tests/malformed/filecoin.sh build 2>&1 | tee build/logs/filecoin.log
tally build/logs/filecoin.log

echo "== daemon: the gRPC service against real clients"
tests/daemon/run.sh build 2>&1 | tee build/logs/daemon.log
tally build/logs/daemon.log
echo "== daemon bench: cuzk bench daemon against a started daemon"
tests/daemon/bench.sh build 2>&1 | tee build/logs/bench-daemon.log
tally build/logs/bench-daemon.log
echo "== daemon lifecycle: start, signals, configs"
tests/daemon/lifecycle.sh build 2>&1 | tee build/logs/lifecycle.log
tally build/logs/lifecycle.log
echo "== daemon with a bellperson key: witnesses as bytes and as files, proofs checked by cuzk verify"
tests/daemon/bellperson.sh build 2>&1 | tee build/logs/bellperson.log
tally build/logs/bellperson.log
echo "== daemon job log: per-job lines at info, none at warn, no witness bytes"
tests/daemon/joblog.sh build 2>&1 | tee build/logs/joblog.log
tally build/logs/joblog.log

echo "== daemon and CLI faults: hostile files, clients, floods and shutdown"
tests/daemon/faults.sh build 2>&1 | tee build/logs/faults.log
tally build/logs/faults.log

echo "== GPU tests (each skips, with the reason, where there is no GPU)"
gpu_tests=0
for t in build/gpu/test_*; do
  [ -x "$t" ] || continue
  gpu_tests=$((gpu_tests + 1))
  "$t" 2>&1 | tee build/logs/gpu-$(basename "$t").log
  tally build/logs/gpu-$(basename "$t").log
done
if [ "$gpu_tests" -eq 0 ]; then # a build without CUDA has none (Makefile)
  echo "GPU tests skipped: this build has no CUDA code (nvcc was not found, or CUDA=0)"
  S=$((S + 1))
fi

echo "== AddressSanitizer: readers and malformed inputs"
if make -s -j"$jobs" asan >build/logs/asan-build.log 2>&1; then
  for t in unit/test_readers unit/test_json unit/test_bp kat/test_encode unit/test_toml unit/test_config; do
    CUZK_SRCDIR=$here build-asan/tests/$t 2>&1 | tee build/logs/asan-$(basename $t).log
    tally build/logs/asan-$(basename $t).log
  done
  # the engine's submit path with hostile requests (empty, malformed and
  # colliding witnesses, repeated ids)
  build-asan/tests/unit/test_engine engine_bad_requests engine_empty_witness_refused \
    engine_request_id_proves_once engine_request_id_colliding_witness_refused 2>&1 | tee build/logs/asan-test_engine.log
  tally build/logs/asan-test_engine.log
  tests/malformed/run.sh build-asan 2>&1 | tee build/logs/asan.log
  tally build/logs/asan.log
  tests/malformed/cli.sh build-asan 2>&1 | tee build/logs/asan-cli.log
  tally build/logs/asan-cli.log
else
  cat build/logs/asan-build.log; F=$((F+1))
fi

# 30 s per target (about 6 minutes for all), one job at a time.
echo "== fuzzing: every reader and the request paths, 30 s each under ASan+UBSan"
if make -s -j"$jobs" fuzz >build/logs/fuzz-build.log 2>&1; then
  tests/fuzz/run.sh build-fuzz 30 2>&1 | tee build/logs/fuzz.log
  tally build/logs/fuzz.log
else
  cat build/logs/fuzz-build.log; F=$((F+1))
fi


echo "$P passed, $F failed, $S skipped"
[ "$F" -eq 0 ]
