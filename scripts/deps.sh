#!/usr/bin/env bash
# Installs what cuzk needs on a Debian machine, only what is missing:
#   build:  gcc, make, libcjson-dev, libssl-dev (libcrypto's SHA-256); for
#           the daemon's gRPC service and the remote commands (make
#           GRPC=1, the default when present):
#           libgrpc-dev, libprotobuf-c-dev, protobuf-c-compiler; for the
#           daemon's HTTP /status and /metrics (make MHD=1): libmicrohttpd-dev
#   tests:  nodejs + npm (the snarkjs/circom/noble oracles, pinned by
#           tests/oracle/package-lock.json), installed with `npm ci`;
#           for `make fuzz`: clang and libclang-rt-dev (libFuzzer's
#           runtime, libclang_rt.fuzzer-x86_64.a, which clang's packages
#           only recommend);
#           the daemon tests' independent client: python3-grpcio,
#           python3-protobuf, protobuf-compiler; openssl (the CLI: the
#           access tests' throwaway CA and certificates)
# Usage: scripts/deps.sh [--build-only]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
pkgs=(gcc make libcjson-dev libssl-dev pkg-config libgrpc-dev libprotobuf-c-dev protobuf-c-compiler libmicrohttpd-dev)
[ "${1:-}" = "--build-only" ] || pkgs+=(python3-grpcio python3-protobuf protobuf-compiler openssl clang libclang-rt-dev)
[ "${1:-}" = "--build-only" ] || command -v node >/dev/null 2>&1 || pkgs+=(nodejs npm)
missing=()
for p in "${pkgs[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  echo "deps: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi
if [ "${1:-}" != "--build-only" ]; then
  cd "$here/tests/oracle"
  if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    echo "deps: npm ci (snarkjs, circom2, @noble/curves from the lockfile)"
    npm ci --no-audit --no-fund --loglevel=error
  fi
fi
