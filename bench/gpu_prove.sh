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
  # Every shared library cuzk loads but glibc's: the GPU machine has the C
  # library and the driver, not libcjson, gRPC (the remote commands are
  # linked in) or their dependencies.
  "$(dirname "$0")/../scripts/copy_libs.sh" "$b/gpu/lib" "$b/cuzk" || exit 1
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
# Synthetic keys (cuzk bench keygen) at PROVE_LGS (default 20 22 24): the
# whole prove on the GPU with the key uploaded each time and with it resident,
# and on the host's CPU at the smallest size.  Keys are made here, in /tmp
# (about 10 GB at 2^24), and removed after.
if "$cz" bench keygen --help >/dev/null 2>&1; then
  kd=$(mktemp -d /tmp/cuzk-keys.XXXXXX)
  first=1
  for lg in ${PROVE_LGS:-20 22 24}; do
    d="$kd/k$lg"
    s0=$(date +%s.%N)
    if ! "$cz" bench keygen --lg "$lg" --out "$d" >"$out/keygen-$lg.log" 2>&1; then
      echo "summary: keygen 2^$lg: FAILED: $(tail -n 2 "$out/keygen-$lg.log" | tr '\n' ' ')"; st=1; continue
    fi
    echo "summary: keygen 2^$lg: $(awk -v a="$s0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.3f", b - a}') s, zkey $(du -h "$d/circuit.zkey" | cut -f1)"
    for mode in upload resident; do
      flag=; [ $mode = resident ] && flag=--resident
      "$cz" bench prove --reps 3 --device gpu $flag "$d/circuit.zkey" "$d/witness.wtns" \
        >"$out/bench-k$lg-gpu-$mode.log" 2>&1 || st=1
      tot=$(sed -n 's/^median of [0-9]*: total \([0-9.]*\) s.*/\1/p' "$out/bench-k$lg-gpu-$mode.log")
      # Floor (docs/PERF.md §1.4: cost model at 100 % of IMAD peak, scaled from 2^27 by
      # size): G1 over A (2^K), B1 (2^(K-1) live: half the B column is
      # infinity), C + H (2^(K+1)): 3.5 x 2^K points at 297 ms per 2^26;
      # G2 over 2^(K-1) at 1.43 s per 2^27; 6 NTTs at 29 ms per 2^27.
      fl=$(awk -v k="$lg" 'BEGIN{n=2^k; printf "%.3f", (3.5*n*0.297/2^26 + 0.5*n*1.43/2^27 + 6*n*0.029/2^27)}')
      ratio=$(awk -v t="${tot:-0}" -v f="$fl" 'BEGIN{printf "%.1f", t / f}')
      echo "summary: prove 2^$lg gpu, key $mode: floor $fl s, ${ratio}x floor; $(grep -h 'median\|MSMs:\|first' "$out/bench-k$lg-gpu-$mode.log" | tr '\n' ' ')"
    done
    if [ $first = 1 ]; then
      "$cz" bench prove --reps 1 --device cpu "$d/circuit.zkey" "$d/witness.wtns" \
        >"$out/bench-k$lg-cpu.log" 2>&1 || st=1
      echo "summary: prove 2^$lg cpu ($(nproc) cores): $(grep -h 'median\|MSMs:' "$out/bench-k$lg-cpu.log" | tr '\n' ' ')"
      first=0
    fi
    rm -rf "$d"
  done
  # The --device auto threshold: one `cuzk prove` command each (CUDA start-up
  # included, as a user sees it), median of 3, at AUTO_LGS.
  for lg in ${AUTO_LGS:-10 12 14 16 18}; do
    d="$kd/a$lg"
    "$cz" bench keygen --lg "$lg" --out "$d" >"$out/keygen-a$lg.log" 2>&1 || continue
    row="summary: auto threshold 2^$lg, one prove command (median of 3):"
    for dev in cpu gpu; do
      ts=()
      for i in 1 2 3; do
        s0=$(date +%s.%N)
        "$cz" prove --quiet --device $dev "$d/circuit.zkey" "$d/witness.wtns" "$d/p.json" "$d/q.json" \
          >/dev/null 2>&1 || { st=1; ts+=(999); continue; }
        ts+=("$(awk -v a="$s0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.3f", b - a}')")
      done
      row="$row $dev $(printf '%s\n' "${ts[@]}" | sort -g | sed -n 2p) s"
    done
    echo "$row"
    rm -rf "$d"
  done
  rm -rf "$kd"
else
  echo "summary: synthetic-key proves: this cuzk has no 'bench keygen'"
fi
if CUDA_VISIBLE_DEVICES= "$cz" prove --quiet --device gpu examples/mul/circuit.zkey examples/mul/witness.wtns \
  /tmp/p.json /tmp/q.json >"$out/nogpu.log" 2>&1; then
  echo "summary: --device gpu without a GPU: WRONGLY succeeded"; st=1
else
  echo "summary: --device gpu without a GPU: error, $(head -c 150 "$out/nogpu.log")"
fi
tar czf "$final/prove.tgz" -C "$out" . && rm -rf "$out"
exit $st
