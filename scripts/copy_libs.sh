#!/usr/bin/env bash
# Copies every shared library that the binaries BIN... load, but glibc's
# own, into DEST: what a machine that has only the C library and the GPU
# driver (the GPU machine: no libcjson, gRPC, protobuf-c or libstdc++ of
# this build) needs beside them, run with LD_LIBRARY_PATH=DEST.
# Usage: scripts/copy_libs.sh DEST BIN...   (exit 1 when a copy fails)
set -uo pipefail
dest=${1:?"copy_libs.sh DEST BIN..."}
shift
mkdir -p "$dest" || exit 1
for bin in "$@"; do
  for l in $(ldd "$bin" | awk '/=> \//{print $3}'); do
    case "$(basename "$l")" in
    libc.so.* | libm.so.* | libpthread.so.* | libdl.so.* | librt.so.* | ld-linux*) ;;
    *) cp -L "$l" "$dest/" || exit 1 ;;
    esac
  done
done
