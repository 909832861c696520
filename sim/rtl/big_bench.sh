#!/usr/bin/env bash
# big_bench.sh BIN_DIR - the large arrays of `make bench BENCH_BIG=1`
# (docs/rtl.md, "Large arrays"): for one MXU of N x N cells (sim/rtl/mxuN.cfg),
# the flat build (build/rtl/mxuN/, every cell inlined) and the hierarchical
# one (build/rtl/mxuN-hier/, each row of cells a Verilator hierarchy block),
# each built from scratch (ccache bypassed but refreshed), then
# programs/matmul.s -D B=512 -D D=N -D F=N run in lockstep.  Prints per
# build its wall time, CPU seconds (user + system of the whole make) and
# largest process (max RSS, /usr/bin/time -v), and the lockstep rate in
# simulated cycles per CPU second of the whole run.
#
#   BENCH_BIG_SIZES  the N to build (default "32 64"; 128 takes tens of
#                    minutes and several GB flat)
#   BENCH_BIG_KINDS  "flat hier" (default), or one of them
# One build at a time, with JOBS (default 2) compiles.  Each build is
# removed again after its run unless BENCH_BIG_KEEP=1 (a 64 x 64 build is
# about 0.5 GB of objects).
set -uo pipefail
bin=${1:?usage: big_bench.sh BIN_DIR}
cd "$(dirname "$0")/../.."
jobs=${JOBS:-2}
out=build/big-bench
mkdir -p "$out"
echo "== large arrays (BENCH_BIG=1): one N x N MXU, flat and hierarchical builds"
for n in ${BENCH_BIG_SIZES:-32 64}; do
  cfg=sim/rtl/mxu$n.cfg
  [ -f "$cfg" ] || { echo "mxu$n: no $cfg"; continue; }
  obj=$out/matmul-mxu$n.bin
  "$bin/tpu-as" --config "$cfg" -D B=512 -D D="$n" -D F="$n" -o "$obj" programs/matmul.s \
    || { echo "mxu$n: assembling the matmul FAILED"; continue; }
  for kind in ${BENCH_BIG_KINDS:-flat hier}; do
    name=mxu$n; [ "$kind" = hier ] && name=mxu$n-hier
    rm -rf "build/rtl/$name/obj" "build/rtl/$name/rtl-bench"
    log=$out/build-$name.log
    t0=$(date +%s.%N)
    /usr/bin/time -v env CCACHE_RECACHE=1 nice -n 10 make -s --no-print-directory -j"$jobs" \
      "build/rtl/$name/rtl-bench" >"$log" 2>&1
    st=$?
    t1=$(date +%s.%N)
    if [ "$st" != 0 ]; then
      echo "verilator build ($name, $kind): FAILED (see $log)"
      continue
    fi
    cpu=$(awk '/User time/ { u = $NF } /System time/ { s = $NF } END { printf "%.0f", u + s }' "$log")
    rss=$(awk '/Maximum resident/ { printf "%.2f", $NF / 1048576 }' "$log")
    objmb=$(du -sm "build/rtl/$name/obj" | cut -f1)
    awk -v n="$name" -v k="$kind" -v a="$t0" -v b="$t1" -v c="$cpu" -v r="$rss" -v o="$objmb" \
      'BEGIN { printf "verilator build (%s, %s): %.0f s, %d CPU s, max RSS %.2f GB, obj %d MB\n",
               n, k, b - a, c, r, o }'
    # the run, and its start and end alone (--max-cycles 1: the model's
    # construction, the load, the final comparison of VMEM and HBM)
    res=$( { /usr/bin/time -f '%U %S' "build/rtl/$name/rtl-bench" --lockstep "$obj"; } 2>&1 )
    res1=$( { /usr/bin/time -f '%U %S' "build/rtl/$name/rtl-bench" --lockstep --max-cycles 1 "$obj"; } 2>&1 )
    cycles=$(sed -n 's/.* halt after \([0-9]*\) cycles: .*match.*/\1/p' <<<"$res")
    t=$(tail -n 1 <<<"$res" | awk '{ printf "%.2f", $1 + $2 }')
    ts=$(tail -n 1 <<<"$res1" | awk '{ printf "%.2f", $1 + $2 }')
    if [ -z "$cycles" ]; then
      echo "lockstep, $name: FAILED"; echo "$res" | tail -n 3
    else
      awk -v n="$name" -v c="$cycles" -v t="$t" -v s="$ts" \
        'BEGIN { r = t > s ? c / (t - s) : 0
                 printf "lockstep, %s (matmul B=512 D=F=N): %d cycles matched in %.2f CPU s, start and end %.2f s, running %.3g cycles per CPU second\n",
                   n, c, t, s, r }'
    fi
    [ "${BENCH_BIG_KEEP:-0}" = 1 ] || rm -rf "build/rtl/$name"
  done
done
