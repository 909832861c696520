#!/usr/bin/env bash
# bench.sh BIN_DIR - `make bench`: how fast the C model simulates on this host.
#
# Prints, for the tiny and v5e presets, simulated cycles and multiply-adds
# per host second of a tiled matmul (programs/matmul.s) and the peak memory,
# plus the speed of tpu_ref_row (the MXU model's inner loop) alone.  One
# host thread.  Numbers only: nothing here asserts on speed.
#
# Sizes (and the program) can be changed from the environment, e.g.
#   BENCH_V5E="-D B=512 -D D=4096 -D F=4096" BENCH_TINY_REPEAT=10 make bench
#   BENCH_PROGRAM=my_matmul.s make bench
set -euo pipefail
bin=${1:?usage: bench.sh BIN_DIR}
out=$(dirname "$bin")/bench
mkdir -p "$out"

# Sizes that take a few seconds each on a current host.  tiny's 4096-word
# IMEM and 256 KiB VMEM keep its matmul small, so it runs several times.
tiny_sizes=${BENCH_TINY:--D B=1024 -D D=64 -D F=256}
tiny_repeat=${BENCH_TINY_REPEAT:-60}
v5e_sizes=${BENCH_V5E:--D B=1024 -D D=4096 -D F=4096}
v5e_repeat=${BENCH_V5E_REPEAT:-1}
prog=${BENCH_PROGRAM:-programs/matmul.s}

echo "== tpu_ref_row alone (MXU model inner loop)"
"$bin/tpu-bench" row --n 8
"$bin/tpu-bench" row --n 128

for preset in tiny v5e; do
  if [ "$preset" = tiny ]; then sizes=$tiny_sizes repeat=$tiny_repeat
  else sizes=$v5e_sizes repeat=$v5e_repeat; fi
  echo "== $prog on $preset ($sizes)"
  obj=$out/matmul-$preset.bin
  # shellcheck disable=SC2086
  "$bin/tpu-as" --config "$preset" $sizes -o "$obj" "$prog"
  "$bin/tpu-bench" run --config "$preset" --repeat "$repeat" "$obj"
  # the whole tpu-sim command (load, run, bit-exact check, report): peak memory
  if [ -x /usr/bin/time ]; then
    /usr/bin/time -f "tpu-sim (run + check + report): %e s, max RSS %M KiB" \
      "$bin/tpu-sim" --config "$preset" --quiet "$obj"
  fi
done
