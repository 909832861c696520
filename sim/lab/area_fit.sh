#!/usr/bin/env bash
# area_fit.sh OUT_DIR [mxu N...] [dma B...] - the Yosys cell counts behind
# lab 7's area model (docs/labs/07-codesign.md, sim/lab/lab_area.c).
#
# Synthesises single units of rtl/ with the flow of sim/rtl/synth.sh (synth
# -run begin:fine, memory_map, techmap, abc -fast) at a few parameter
# values and prints one line per run: "UNIT PARAM=VALUE CELLS".  The whole
# core takes about 10 minutes (make synth); one unit at a few sizes takes a
# few minutes, which is what fitting needs.
#   sim/lab/area_fit.sh build/area mxu 2 4 8 dma 8 16 32
set -euo pipefail
out=${1:?usage: area_fit.sh OUT_DIR [mxu N...] [dma B...]}
shift
yosys=${YOSYS:-yosys}
cd "$(dirname "$0")/../.."
mkdir -p "$out"
srcs=$(ls rtl/*.v | grep -v -e "^rtl/system\.v$" -e "^rtl/core\.v$" | tr "\n" " ")
unit=""
for a in "$@"; do
  case $a in
    mxu|dma) unit=$a; continue ;;
  esac
  # The parameter's default is changed in a copy of the unit's file
  # (Yosys 0.23 fails an assertion on hierarchy -chparam for a top whose
  # submodules are parametrised too).
  case $unit in
    mxu) sed -e "s/parameter integer N   = 8,/parameter integer N   = $a,/" \
             -e "s/parameter integer VAW = 18/parameter integer VAW = 12/" rtl/mxu.v > "$out/mxu.v" ;;
    dma) sed -e "s/parameter integer      MaxB    = 16,/parameter integer      MaxB    = $a,/" \
             -e "s/parameter integer      VAW     = 18,/parameter integer      VAW     = 12,/" \
             -e "s/parameter integer      HAW     = 24,/parameter integer      HAW     = 12,/" rtl/dma.v > "$out/dma.v" ;;
    *) echo "area_fit.sh: give a unit (mxu or dma) before '$a'" >&2; exit 2 ;;
  esac
  grep -q -e "integer N   = $a," -e "integer      MaxB    = $a," "$out/$unit.v" \
    || { echo "area_fit.sh: could not set the parameter in a copy of rtl/$unit.v" >&2; exit 1; }
  files=$(echo "$srcs" | sed "s#rtl/$unit.v#$out/$unit.v#")
  log="$out/$unit-$a.log"
  "$yosys" -q -w "Replacing memory" -l "$log" -p "
read_verilog -sv -DSYNTHESIS -Irtl $files
synth -top $unit -run begin:fine
opt -fast -full
memory_map
opt -full
techmap
opt -fast
abc -fast
opt -fast
tee -q -o $out/$unit-$a.stat stat -top $unit
" >/dev/null
  cells=$(awk '/=== design hierarchy ===/ { h = 1 } h && /Number of cells:/ { print $4; exit }' "$out/$unit-$a.stat")
  [ -n "$cells" ] || cells=$(awk '/Number of cells:/ { c = $4 } END { print c }' "$out/$unit-$a.stat")
  echo "$unit $a $cells"
done
