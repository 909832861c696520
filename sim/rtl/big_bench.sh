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
#   BENCH_BIG_SIZES  the N to build (default "32 64 128 256 v5e"), and "v5e": the v5e
#                    preset's core (four 128 x 128 MXUs, 8 x 128 VPU, 128 MiB
#                    VMEM, 16 GiB sparse HBM), hierarchical only, running
#                    programs/matmul.s with BENCH_BIG_V5E_MM (default
#                    "1024 4096 4096": B D F)
#   BENCH_BIG_KINDS  "flat hier", or one of them; by default both up to
#                    N = 64 and hier above (a flat 128 x 128 takes tens of
#                    CPU minutes and several GB; docs/rtl.md, "Build cost")
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
for n in ${BENCH_BIG_SIZES:-32 64 128 256 v5e}; do
  if [ "$n" = v5e ]; then
    # the v5e preset (cmodel/configs/v5e.cfg), hierarchical: build/rtl/v5e-hier/
    cfg=v5e base=v5e kinds=hier
    read -r mb md mf <<<"${BENCH_BIG_V5E_MM:-1024 4096 4096}"
    what="matmul B=$mb D=$md F=$mf"
  else
    kinds="flat hier"; [ "$n" -gt 64 ] 2>/dev/null && kinds=hier
    cfg=sim/rtl/mxu$n.cfg base=mxu$n kinds=${BENCH_BIG_KINDS:-$kinds}
    mb=512 md=$n mf=$n what="matmul B=512 D=F=N"
    [ -f "$cfg" ] || { echo "mxu$n: no $cfg"; continue; }
  fi
  obj=$out/matmul-$base.bin
  "$bin/tpu-as" --config "$cfg" -D B="$mb" -D D="$md" -D F="$mf" -o "$obj" programs/matmul.s \
    || { echo "$base: assembling the matmul FAILED"; continue; }
  for kind in $kinds; do
    name=$base; [ "$kind" = hier ] && name=$base-hier
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
    w0=$(date +%s.%N)
    res=$( { /usr/bin/time -f '%U %S' "build/rtl/$name/rtl-bench" --lockstep "$obj"; } 2>&1 )
    w1=$(date +%s.%N)
    res1=$( { /usr/bin/time -f '%U %S' "build/rtl/$name/rtl-bench" --lockstep --max-cycles 1 "$obj"; } 2>&1 )
    cycles=$(sed -n 's/.* halt after \([0-9]*\) cycles: .*match.*/\1/p' <<<"$res")
    t=$(tail -n 1 <<<"$res" | awk '{ printf "%.2f", $1 + $2 }')
    ts=$(tail -n 1 <<<"$res1" | awk '{ printf "%.2f", $1 + $2 }')
    if [ -z "$cycles" ]; then
      echo "lockstep, $name: FAILED"; echo "$res" | tail -n 3
    else
      awk -v n="$name" -v c="$cycles" -v t="$t" -v s="$ts" -v w="$what" -v a="$w0" -v b="$w1" \
        'BEGIN { r = t > s ? c / (t - s) : 0
                 printf "lockstep, %s (%s): %d cycles matched in %.2f CPU s (%.0f s wall), start and end %.2f s, running %.3g cycles per CPU second\n",
                   n, w, c, t, b - a, s, r }'
    fi
    [ "${BENCH_BIG_KEEP:-0}" = 1 ] || rm -rf "build/rtl/$name"
  done
done
