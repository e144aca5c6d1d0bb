#!/usr/bin/env bash
# The daemon tests: the gRPC service cuzk.v1.ProvingEngine tested through
# real clients against a daemon started as a helper process
# (tests/daemon/rpc_serve: an engine and rpc_server in one process).
#   - an independent client: Python grpcio (Debian python3-grpcio) with the
#     message classes protoc generates here from proto/cuzk/v1/proving.proto
#   - cuzk's own client: the `cuzk` remote subcommands
# See test_daemon.py for the list.  Fixtures come from the oracle stage
# (BUILD/oracle/{mul,chain_1k}: tests/oracle/make_fixtures.sh).
# Usage: tests/daemon/run.sh [BUILD_DIR] [--only TEST[,TEST]]
# $MAKEARGS goes to the make that builds the helper, for a build made with
# other flags, e.g. MAKEARGS='CUDA=0 OPT="-O1 -fsanitize=address,undefined"'.
# Prints "N passed, N failed, N skipped" last.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
build=${1:-build}
shift || true
cd "$repo"

skip() { echo "daemon: skipped: $1"; echo "0 passed, 0 failed, 1 skipped"; exit 0; }

# Debian's python3 (with python3-grpcio and python3-protobuf), not a
# virtualenv's or pyenv's that lacks them.
py=/usr/bin/python3
[ -x "$py" ] || py=$(command -v python3)
if ! "$py" -c 'import grpc, google.protobuf' 2>/dev/null; then
  skip "python3 lacks grpc or protobuf (apt-get install python3-grpcio python3-protobuf)"
fi
command -v protoc >/dev/null || skip "protoc not found (apt-get install protobuf-compiler)"
[ -x "$build/cuzk" ] || { echo "daemon: $build/cuzk missing (make first)"; echo "0 passed, 1 failed, 0 skipped"; exit 1; }
if "$build/cuzk" status --addr unix:///nonexistent 2>&1 | grep -q "built without gRPC"; then
  skip "cuzk was built without gRPC (GRPC=0)"
fi
if ! eval make -s BUILD='"$build"' "${MAKEARGS:-}" '"$build/daemon-test/rpc_serve"' >"$build/daemon-test-build.log" 2>&1; then
  cat "$build/daemon-test-build.log"
  echo "0 passed, 1 failed, 0 skipped"; exit 1
fi
for c in mul chain_1k; do
  [ -f "$build/oracle/$c/circuit.zkey" ] || skip "no fixtures in $build/oracle (run tests/oracle/run.sh $build first)"
done

gen=$(mktemp -d)
trap 'rm -rf "$gen"' EXIT
protoc --python_out="$gen" -Iproto proto/cuzk/v1/proving.proto || {
  echo "0 passed, 1 failed, 0 skipped"; exit 1; }
"$py" "$here/test_daemon.py" --build "$build" --gen "$gen" "$@"
