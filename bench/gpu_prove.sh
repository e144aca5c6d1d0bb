#!/usr/bin/env bash
# The whole prove on the GPU, run by bench/gpu.sh on the GPU machine.
#
#   bench/gpu_prove.sh --stage BUILD   here: copy BUILD/cuzk, the libcjson it
#                                      links and the fixtures into BUILD/gpu
#   bench/gpu_prove.sh BUILD OUT       there: for each fixture (BUILD/gpu/fx/*)
#     1. with r, s fixed: `cuzk prove --device gpu` and `--device cpu` give
#        identical proof.json and public.json bytes;
#     2. with random r, s: the GPU proof passes `cuzk verify`, and is copied to
#        <fixture>-gpu-proof.json in OUT/prove.tgz for `snarkjs groth16 verify` back on the
#        dev machine (no node there);
#     3. `cuzk bench prove` on the GPU and on the host's CPU (times per stage);
#     4. --device gpu is an error, not a fallback, when CUDA_VISIBLE_DEVICES
#        hides the GPU.
# Prints "summary: what: result" lines for gpu.sh's table; exit 1 on a failure.
set -uo pipefail
if [ "${1:-}" = "--stage" ]; then
  b=${2:-build}
  mkdir -p "$b/gpu/lib" "$b/gpu/fx"
  cp "$b/cuzk" "$b/gpu/cuzk" || exit 1
  cp -L "$(ldd "$b/cuzk" | awk '/libcjson/{print $3}')" "$b/gpu/lib/" || exit 1
  for f in mul:examples/mul chain_64k:"$b/oracle/chain_64k"; do
    name=${f%%:*} dir=${f#*:}
    [ -f "$dir/circuit.zkey" ] || { echo "no $dir/circuit.zkey: skipped"; continue; }
    mkdir -p "$b/gpu/fx/$name"
    cp "$dir/circuit.zkey" "$b/gpu/fx/$name/"
    if [ -f "$dir/witness.wtns" ]; then
      cp "$dir/witness.wtns" "$b/gpu/fx/$name/"
    else # examples/mul: make its witness with the CLI's own example path
      echo "$dir has no witness.wtns: skipped"; rm -rf "${b:?}/gpu/fx/$name"
    fi
  done
  du -sh "$b/gpu"
  exit 0
fi
b=$1 final=$2
out=$(mktemp -d) # everything goes into final/prove.tgz: the device tool returns few files
cz="$b/gpu/cuzk"
export LD_LIBRARY_PATH="$b/gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
[ -x "$cz" ] || { echo "summary: prove: no $cz staged (bench/gpu_prove.sh --stage)"; exit 0; }
st=0
R=0x1c0ffee0ddba11ca5cadef00d15ea5ebadc0ffee0123456789abcdef0fedcba9
S=0x2bad5eedfacefeed0badcafedeadbeef00112233445566778899aabbccddeeff
for fx in "$b"/gpu/fx/*/; do
  name=$(basename "$fx") z="$fx/circuit.zkey" w="$fx/witness.wtns" t="$out/$name"
  mkdir -p "$t"
  ok=1
  for d in cpu gpu; do
    "$cz" prove --quiet --device $d --insecure-fixed-rs "$R,$S" "$z" "$w" "$t/proof-$d.json" \
      "$t/public-$d.json" >"$t/prove-$d.log" 2>&1 || { ok=0; cat "$t/prove-$d.log"; }
  done
  if [ $ok = 1 ] && cmp -s "$t/proof-cpu.json" "$t/proof-gpu.json" &&
    cmp -s "$t/public-cpu.json" "$t/public-gpu.json"; then
    echo "summary: prove $name, fixed r,s: GPU proof.json == CPU proof.json"
  else
    echo "summary: prove $name, fixed r,s: DIFFERENT or failed"; st=1
  fi
  if "$cz" prove --quiet --device gpu "$z" "$w" "$out/$name-gpu-proof.json" \
    "$out/$name-gpu-public.json" >"$t/prove-rand.log" 2>&1 &&
    "$cz" export-vk "$z" "$t/vk.json" && "$cz" verify "$t/vk.json" "$out/$name-gpu-public.json" \
    "$out/$name-gpu-proof.json" >"$t/verify.log" 2>&1; then
    echo "summary: prove $name, random r,s on GPU: cuzk verify OK"
  else
    echo "summary: prove $name, random r,s on GPU: FAILED"; st=1; cat "$t/prove-rand.log"
  fi
  for d in gpu cpu; do
    "$cz" bench prove --reps 3 --device $d "$z" "$w" >"$t/bench-$d.log" 2>&1
    echo "summary: bench prove $name $d: $(grep -h 'median\|MSMs:' "$t/bench-$d.log" | tr '\n' ' ')"
  done
done
if CUDA_VISIBLE_DEVICES= "$cz" prove --quiet --device gpu examples/mul/circuit.zkey examples/mul/witness.wtns \
  /tmp/p.json /tmp/q.json >"$out/nogpu.log" 2>&1; then
  echo "summary: --device gpu without a GPU: WRONGLY succeeded"; st=1
else
  echo "summary: --device gpu without a GPU: error, $(head -c 150 "$out/nogpu.log")"
fi
tar czf "$final/prove.tgz" -C "$out" . && rm -rf "$out"
exit $st
