#!/usr/bin/env bash
# demo.sh BIN_DIR - the main job: assemble the example programs, run them on
# the C model with the tiny and v5e presets, and print each report.  The
# matmul runs twice on v5e: with a small batch it is memory-bound, with a
# large one compute-bound; the pointwise ops are memory-bound everywhere.
# Last, the matmul runs on the RTL in lockstep with the C model.
set -euo pipefail
bin=${1:?usage: demo.sh BIN_DIR}
out=$(dirname "$bin")/demo
mkdir -p "$out"

# run TITLE CONFIG PROGRAM "tpu-as options" ["tpu-sim options"]
run() {
  local title=$1 config=$2 prog=$3 asopts=$4 simopts=${5:-}
  local obj="$out/$(basename "$prog" .s)-$config-${title// /_}.bin"
  echo
  echo "=================================================================="
  echo "== $title: $prog on $config"
  echo "==   tpu-as --config $config $asopts $prog"
  echo "==   tpu-sim --config $config $simopts"
  echo "=================================================================="
  # shellcheck disable=SC2086
  "$bin/tpu-as" --config "$config" $asopts -o "$obj" "$prog"
  # shellcheck disable=SC2086
  "$bin/tpu-sim" --config "$config" $simopts "$obj"
}

echo "The first lines of the matmul program, as the disassembler prints them:"
"$bin/tpu-as" --config tiny -o "$out/matmul_tile.bin" programs/matmul_tile.s
"$bin/tpu-dis" "$out/matmul_tile.bin" | sed -n '1,20p'

run "one weight tile"        tiny programs/matmul_tile.s ""
run "tiled matmul"           tiny programs/matmul.s      "-D B=32 -D D=64 -D F=64"
run "pointwise add"          tiny programs/pointwise.s   "-D OP=0"
run "pointwise mul"          tiny programs/pointwise.s   "-D OP=1"
run "relu"                   tiny programs/pointwise.s   "-D OP=2"
run "two cores over ICI"     tiny programs/ici_exchange.s "" "--cores 2"

run "matmul, batch 64"       v5e programs/matmul.s    "-D B=64 -D D=4096 -D F=4096"
run "matmul, batch 1024"     v5e programs/matmul.s    "-D B=1024 -D D=4096 -D F=4096"
run "pointwise add"          v5e programs/pointwise.s "-D OP=0 -D NCHUNK=16"
run "pointwise mul"          v5e programs/pointwise.s "-D OP=1 -D NCHUNK=16"
run "relu"                   v5e programs/pointwise.s "-D OP=2 -D NCHUNK=16"

echo
echo "=================================================================="
echo "== the RTL: the tiled matmul on tiny, C model and Verilated RTL in lockstep"
echo "==   tpu-cosim --config tiny (builds the Verilated core the first time: about a minute)"
echo "=================================================================="
"$bin/tpu-as" --config tiny -D B=32 -D D=64 -D F=64 -o "$out/matmul-cosim.bin" programs/matmul.s
"$bin/tpu-cosim" --config tiny "$out/matmul-cosim.bin"
