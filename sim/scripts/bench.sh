#!/usr/bin/env bash
# bench.sh BIN_DIR - `make bench`: how fast the C model simulates on this host.
#
# Prints, for the tiny and v5e presets, simulated cycles and multiply-adds
# per host second of a tiled matmul (programs/matmul.s) and the peak memory,
# plus the speed of tpu_ref_row_tile (the MXU model's inner loop) alone, on
# one host thread; then 16 v5e cores on one thread and on one per CPU (the
# collective matmul, the sharded MLP of tpu-gen ffn-shard, the sharded block of
# tpu-gen block-shard); GPT-2 small's transformer block on one v5e core
# (tpu-gen block).
# Numbers only: nothing here asserts on speed.  The MXU kernel is the
# fastest this host runs unless TPU_REF_KERNEL names another (soft, sse2,
# avx2, avx2-fma, avx512-fma: docs/numerics.md section 8); tpu-bench prints
# the one in use.
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
case ${BENCH_RTL_RUNS:-3} in
  '' | *[!0-9]* | 0) echo "bench.sh: BENCH_RTL_RUNS must be a positive number of runs, not '${BENCH_RTL_RUNS}'" >&2
                     exit 2 ;;
esac

echo "== tpu_ref_row_tile alone (MXU model inner loop)"
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

# ---- several cores on host threads (cmodel/parallel.c) ------------------------------
# The collective matmul (programs/matmul_collective.s) on a ring of 16 v5e
# cores: simulated cycles (of the system: every core steps each one) and
# multiply-adds per host second of the whole tpu-sim command: the plain
# loop (--threads 0), windows on one thread, and on one per CPU; the
# reports must be the same.
coll_sizes=${BENCH_COLLECTIVE:--D K=16 -D B=512 -D D=4096 -D F=65536 -D DATA=0}
echo "== programs/matmul_collective.s on 16 v5e cores ($coll_sizes)"
obj=$out/collective-v5e.bin
# shellcheck disable=SC2086
"$bin/tpu-as" --config v5e $coll_sizes -o "$obj" programs/matmul_collective.s
ncpu=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
for th in 0 1 "$ncpu"; do
  t0=$(date +%s.%N)
  "$bin/tpu-sim" --config v5e --cores 16 --threads "$th" --json "$obj" >"$out/collective-$th.json"
  t1=$(date +%s.%N)
  cyc=$(grep -o '"cycles": [0-9]*' "$out/collective-$th.json" | head -n 1 | grep -o '[0-9]*$')
  macs=$(grep -o '"macs": [0-9]*' "$out/collective-$th.json" | head -n 1 | grep -o '[0-9]*$')
  awk -v th="$th" -v c="$cyc" -v m="$macs" -v a="$t0" -v b="$t1" 'BEGIN { t = b - a;
    printf "tpu-sim --threads %d: %d cycles x 16 cores in %.2f s: %.3g cycles/s, %.3g core-cycles/s, %.3g MACs/s\n",
           th, c, t, c / t, 16 * c / t, m / t }'
  [ "$th" = "$ncpu" ] && break
done
if cmp -s "$out/collective-0.json" "$out/collective-1.json" &&
   cmp -s "$out/collective-0.json" "$out/collective-$ncpu.json"; then
  echo "the reports of the plain loop, 1 and $ncpu threads are the same, byte for byte"
else
  echo "the reports of the plain loop, 1 and $ncpu threads DIFFER (a bug: see tests/test_parallel.c)"
fi

# ---- the sharded MLP on 16 cores (tpu-gen ffn-shard, docs/transformers.md) -------------
# GPT-2 small's MLP (D 768, F 3072) on a 4x4 v5e torus, X[B_X, D], W_in[D, F_Y],
# W_out[F_Y, D]: 1,024 tokens and 768 hidden units a core, the partials summed
# over Y (--reduce ring), with data, every core checked: the plain loop, 1
# and one thread per CPU; the reports and core 0's result must be the same.
shard_sizes=${BENCH_SHARD:--T 4096 -D 768 -F 3072}
echo "== tpu-gen ffn-shard $shard_sizes on 16 v5e cores (4x4 torus, B_X,F_Y)"
# shellcheck disable=SC2086
"$bin/tpu-gen" ffn-shard --config v5e $shard_sizes --mesh 4x4 --shard B_X,F_Y --reduce ring --quiet \
  -o "$out/shard.s"
"$bin/tpu-as" --config v5e -I programs -o "$out/shard.bin" "$out/shard.s"
for th in 0 1 "$ncpu"; do
  t0=$(date +%s.%N)
  rc=0
  "$bin/tpu-sim" --config v5e --cores 16 --topology torus2d --grid 4x4 --threads "$th" --json \
    --dump O0="$out/shard-o0-$th.npy" "$out/shard.bin" >"$out/shard-$th.json" || rc=$?
  t1=$(date +%s.%N)
  cyc=$(grep -o '"cycles": [0-9]*' "$out/shard-$th.json" | head -n 1 | grep -o '[0-9]*$')
  awk -v th="$th" -v c="$cyc" -v a="$t0" -v b="$t1" -v rc="$rc" 'BEGIN { t = b - a;
    printf "tpu-sim --threads %d: %d cycles x 16 cores in %.2f s: %.3g core-cycles/s%s\n",
           th, c, t, 16 * c / t, rc == 0 ? ", every core bit-exact" : " (NOT bit-exact: exit " rc ")" }'
  [ "$th" = "$ncpu" ] && break
done
if cmp -s "$out/shard-0.json" "$out/shard-1.json" && cmp -s "$out/shard-0.json" "$out/shard-$ncpu.json" &&
   cmp -s "$out/shard-o0-0.npy" "$out/shard-o0-1.npy" && cmp -s "$out/shard-o0-0.npy" "$out/shard-o0-$ncpu.npy"; then
  echo "the reports and core 0's O of the plain loop, 1 and $ncpu threads are the same, byte for byte"
else
  echo "the reports or core 0's O of the plain loop, 1 and $ncpu threads DIFFER (a bug)"
fi

# ---- the block sharded on 16 cores (tpu-gen block-shard, docs/transformers.md) --------
# GPT-2 small's block (D 768, F 3072, 12 heads, T 1024 a sequence) on a 4x4 v5e
# torus: 4 sequences over X, 3 heads and 768 hidden units a core over Y, Wo's
# and W_out's partials AllReduced over Y; --timing-only (the weights as literal
# values would make a 200 MB source): the plain loop, 1 and one thread per CPU,
# whose reports must be the same byte for byte.
bshard_sizes=${BENCH_BSHARD:--B 4 -T 1024 -D 768 -F 3072 --heads 12 --causal}
echo "== tpu-gen block-shard $bshard_sizes on 16 v5e cores (4x4 torus, B_X,F_Y), --timing-only"
# shellcheck disable=SC2086
"$bin/tpu-gen" block-shard --config v5e $bshard_sizes --mesh 4x4 --shard B_X,F_Y --timing-only --quiet \
  -o "$out/bshard.s"
"$bin/tpu-as" --config v5e -I programs -o "$out/bshard.bin" "$out/bshard.s"
for th in 0 1 "$ncpu"; do
  t0=$(date +%s.%N)
  rc=0
  "$bin/tpu-sim" --config v5e --cores 16 --topology torus2d --grid 4x4 --threads "$th" --json \
    "$out/bshard.bin" >"$out/bshard-$th.json" || rc=$?
  t1=$(date +%s.%N)
  cyc=$(grep -o '"cycles": [0-9]*' "$out/bshard-$th.json" | head -n 1 | grep -o '[0-9]*$')
  awk -v th="$th" -v c="$cyc" -v a="$t0" -v b="$t1" -v rc="$rc" 'BEGIN { t = b - a;
    printf "tpu-sim --threads %d: %d cycles x 16 cores in %.2f s: %.3g core-cycles/s%s\n",
           th, c, t, 16 * c / t, rc == 0 ? "" : " (exit " rc ")" }'
  [ "$th" = "$ncpu" ] && break
done
if cmp -s "$out/bshard-0.json" "$out/bshard-1.json" && cmp -s "$out/bshard-0.json" "$out/bshard-$ncpu.json"; then
  echo "the block-shard reports of the plain loop, 1 and $ncpu threads are the same, byte for byte"
else
  echo "the block-shard reports of the plain loop, 1 and $ncpu threads DIFFER (a bug)"
fi

# ---- a transformer block on one core (tpu-gen block, docs/transformers.md) -------------
# GPT-2 small's block (D 768, F 3072, 12 heads, T 1024, causal) prefill on one
# v5e core with data, every stage checked bit for bit (aim: under 60 s).
block_sizes=${BENCH_BLOCK:--T 1024 -D 768 -F 3072 --heads 12 --causal}
echo "== tpu-gen block $block_sizes on one v5e core"
# shellcheck disable=SC2086
"$bin/tpu-gen" block --config v5e $block_sizes --quiet -o "$out/block.s"
"$bin/tpu-as" --config v5e -o "$out/block.bin" "$out/block.s"
t0=$(date +%s.%N)
rc=0
"$bin/tpu-sim" --config v5e "$out/block.bin" >"$out/block.txt" || rc=$?
t1=$(date +%s.%N)
cyc=$(sed -n 's/^cycles *\([0-9]*\).*/\1/p' "$out/block.txt")
awk -v c="$cyc" -v a="$t0" -v b="$t1" -v r="$(grep -m1 '^result' "$out/block.txt")" -v rc="$rc" 'BEGIN {
  printf "block: %d cycles in %.2f s wall (%.3g cycles/s), %s%s\n", c, b - a, c / (b - a), r,
         rc == 0 ? "" : " (exit " rc ")" }'

# ---- whole networks (tpu-net, docs/workloads.md "Networks") ----------------------
# Wall time of the whole command on every CPU (-j the CPUs): ResNet-50 at
# batch 1 on v5e with data, every layer checked bit for bit (aim: under 30 s
# on 2 CPUs), and GPT-2 small's prefill of 1024 tokens, timing only (aim:
# under 60 s).
for spec in "resnet50:" "gpt2_small:--timing-only"; do
  n=${spec%%:*} extra=${spec#*:}
  t0=$(date +%s.%N)
  # shellcheck disable=SC2086
  if "$bin/tpu-net" "programs/networks/$n.csv" --config v5e $extra --out "$out/net-$n" \
       --no-plot --quiet; then
    t1=$(date +%s.%N)
    awk -v n="$n" -v x="${extra:-with data, bit-exact}" -v a="$t0" -v b="$t1" \
      -v c="$(sed -n 's/^total: \([0-9,]*\) cycles.*/\1/p' "$out/net-$n/summary.txt")" \
      'BEGIN { printf "tpu-net %s on v5e (%s): %s cycles in %.2f s wall\n", n, x, c, b - a }'
  else
    echo "tpu-net $n on v5e: FAILED"
  fi
done

# ---- the RTL under Verilator, and the co-simulations -----------------------------
# rtl-bench runs the Verilated core (and the C model beside it, ~100x faster,
# to compare the end state); --lockstep compares every cycle's records too.
# tpu-sc-lockstep is the same comparison under SystemC.  Rates are simulated
# cycles per CPU second (user + system; the smallest of BENCH_RTL_RUNS runs,
# mincpusecs below) of the whole command (loading
# included): on a host shared with other builds the wall time says more
# about the neighbours than about the model.  For the
# benches, "start and end" is the time of the same command with
# --max-cycles 1 (constructing the model, loading the program through the
# backdoor, comparing every byte of VMEM and HBM at the end), and "running"
# the rate of the cycles alone, without that.
cpusecs() {  # cpusecs COMMAND...: user + system CPU seconds of COMMAND (empty if it failed)
  local TIMEFORMAT='%3U %3S' t
  t=$( { time "$@" >/dev/null 2>&1; } 2>&1 ) || return 1
  awk -v t="$t" 'BEGIN { split(t, a, " "); printf "%.3f\n", a[1] + a[2] }'
}
rate() {  # rate LABEL CYCLES COMMAND...: run COMMAND, print cycles per CPU second
  local label=$1 cycles=$2 t; shift 2
  t=$(cpusecs "$@") || { echo "$label: FAILED"; return; }
  awk -v l="$label" -v c="$cycles" -v t="$t" \
    'BEGIN { printf "%s: %d cycles in %.2f s: %.3g cycles per CPU second\n", l, c, t, c / t }'
}
# The smallest of BENCH_RTL_RUNS runs (default 3): on a shared host single
# runs of the same binary vary by 10 to 20%.
mincpusecs() {  # mincpusecs COMMAND...: the smallest cpusecs of BENCH_RTL_RUNS runs
  local best="" t i
  for ((i = 0; i < ${BENCH_RTL_RUNS:-3}; i++)); do
    t=$(cpusecs "$@") || return 1
    best=$(awk -v a="$best" -v b="$t" 'BEGIN { print (a == "" || b < a) ? b : a }')
  done
  echo "$best"
}
rate_bench() {  # rate_bench LABEL CYCLES BENCH [--lockstep] OBJ: also without start and end
  local label=$1 cycles=$2 t t1; shift 2
  t=$(mincpusecs "$@") || { echo "$label: FAILED"; return; }
  t1=$(mincpusecs "$1" --max-cycles 1 "${@:2}") || { echo "$label: FAILED (--max-cycles 1)"; return; }
  awk -v l="$label" -v c="$cycles" -v t="$t" -v s="$t1" \
    'BEGIN { r = t > s ? c / (t - s) : 0;
             printf "%s: %d cycles in %.2f s: %.3g cycles per CPU second; start and end %.2f s, running %.3g cycles/s\n", l, c, t, c / t, s, r }'
  running_rate=$(awk -v c="$cycles" -v t="$t" -v s="$t1" 'BEGIN { printf "%.0f", (t > s ? c / (t - s) : 0) }')
}
# The program of docs/cosim.md, "Where the RTL's time goes" (BENCH_RTL sets
# other sizes).
rtl_sizes=${BENCH_RTL:--D B=1024 -D D=64 -D F=64}
rtlbench=build/rtl/tiny/rtl-bench
midbench=build/rtl/mid/rtl-bench
scbench=$(dirname "$bin")/systemc/tpu-sc-lockstep
obj=$out/rtl-matmul-tiny.bin
# shellcheck disable=SC2086
"$bin/tpu-as" --config tiny $rtl_sizes -o "$obj" "$prog"
cycles=$("$bin/tpu-sim" --config tiny --json "$obj" | grep -o '"cycles": [0-9]*' | grep -o '[0-9]*$')
echo "== RTL and co-simulation: $prog on tiny ($rtl_sizes), $cycles cycles"
rate "C model alone (tpu-sim)" "$cycles" "$bin/tpu-sim" --config tiny --quiet "$obj"
rate_bench "RTL, tiny (rtl-bench)" "$cycles" "$rtlbench" "$obj"
rate_bench "lockstep, tiny (rtl-bench --lockstep)" "$cycles" "$rtlbench" --lockstep "$obj"
[ -x "$scbench" ] && SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 \
  rate "SystemC lockstep, tiny (tpu-sc-lockstep)" "$cycles" "$scbench" "$obj"
rate_tiny=${running_rate:-0}
# An idle loop (the sequencer alone, 200,002 cycles): the cost of a cycle in
# which no unit but the sequencer works (docs/cosim.md, 2026-11-26).
idle_src=$out/rtl-idle.s
idle_obj=$out/rtl-idle-tiny.bin
printf '%s\n' '        addi s1, s0, 100000' 'loop:   addi s1, s1, -1' \
  '        bne s1, s0, loop' '        halt' > "$idle_src"
"$bin/tpu-as" --config tiny -o "$idle_obj" "$idle_src"
echo "== an idle loop (addi/bne) on tiny, 200002 cycles"
rate_bench "RTL, tiny idle (rtl-bench)" 200002 "$rtlbench" "$idle_obj"
rate_bench "lockstep, tiny idle (rtl-bench --lockstep)" 200002 "$rtlbench" --lockstep "$idle_obj"
objm=$out/rtl-matmul-mid.bin
# shellcheck disable=SC2086
"$bin/tpu-as" --config mid $rtl_sizes -o "$objm" "$prog"
cyclesm=$("$bin/tpu-sim" --config mid --json "$objm" | grep -o '"cycles": [0-9]*' | grep -o '[0-9]*$')
echo "== the same on mid (16x16, 2 MXUs), $cyclesm cycles"
rate_bench "RTL, mid (rtl-bench)" "$cyclesm" "$midbench" "$objm"
rate_bench "lockstep, mid (rtl-bench --lockstep)" "$cyclesm" "$midbench" --lockstep "$objm"
rate_mid=${running_rate:-0}
idle_objm=$out/rtl-idle-mid.bin
"$bin/tpu-as" --config mid -o "$idle_objm" "$idle_src"
rate_bench "lockstep, mid idle loop (rtl-bench --lockstep)" 200002 "$midbench" --lockstep "$idle_objm"

# The bare reference: a 32 x 32 integer MAC array alone, Verilated and
# compiled the same way (sim/rtl/bare/), on this machine now.
bare=build/rtl/bare/mac-array-bench
if [ -x "$bare" ]; then
  echo "== the bare reference (sim/rtl/bare/mac_array.v, 32x32 MACs, no memories)"
  bare_t=$(mincpusecs "$bare" 2000000) || bare_t=""
  bare_rate=$(awk -v t="$bare_t" 'BEGIN { if (t > 0) printf "%.0f", 2000000 / t }')
  if [ -z "$bare_rate" ]; then
    echo "mac-array-bench: FAILED"
  else
    echo "mac-array-bench: 2000000 cycles in $bare_t s: $bare_rate cycles per CPU second"
    awk -v b="$bare_rate" -v t="$rate_tiny" -v m="$rate_mid" 'BEGIN {
      printf "lockstep running rate against the bare array: tiny %.3g (%.2fx), mid %.3g (%.3fx)\n", t, t / b, m, m / b }'
  fi
fi

# ---- the Verilator build -----------------------------------------------------------
# A bench's build from scratch (Verilator's C++ generated and compiled with
# JOBS compiles at once, ccache bypassed but refreshed: CCACHE_RECACHE),
# then the same again from ccache, as a second clone or a new build
# directory gets it.  tiny's core always; mid's core (about five times
# the C++) with BENCH_BUILD_TIME=1.
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
build_time() {  # build_time CONFIG [BENCH OBJ_DIR WHAT]: time two builds of build/rtl/CONFIG/BENCH
  local cfg=$1 bench=${2:-rtl-bench} objdir=${3:-obj} what=${4:-core} t0 t1 c
  for how in "from scratch" "from ccache"; do
    rm -rf "build/rtl/$cfg/$objdir" "build/rtl/$cfg/$bench"
    t0=$(date +%s.%N)
    if [ "$how" = "from scratch" ]; then
      c=$(cpusecs env CCACHE_RECACHE=1 make -s --no-print-directory -j"$jobs" "build/rtl/$cfg/$bench")
    else
      c=$(cpusecs make -s --no-print-directory -j"$jobs" "build/rtl/$cfg/$bench")
    fi || { echo "verilator build ($cfg $what, $how): FAILED"; return; }
    t1=$(date +%s.%N)
    awk -v c="$cfg" -v w="$what" -v h="$how" -v j="$jobs" -v a="$t0" -v b="$t1" -v u="$c" \
      'BEGIN { printf "verilator build (%s %s, %s, %d jobs): %.1f s, %.1f CPU s\n", c, w, h, j, b - a, u }'
  done
}
echo "== Verilator build of the bench (ccache: $(command -v ccache || echo none))"
build_time tiny
# BENCH_BUILD_TIME=1: also mid's core and tiny's system of four cores (the
# build make test pays most for; docs/cosim.md "Build time": 323 -> 203 CPU
# s when the transcendental pipeline became one function, rtl/fp32_tr_pkg.vh).
if [ -n "${BENCH_BUILD_TIME:-}" ]; then   # make bench BENCH_BUILD_TIME=1
  build_time mid
  build_time tiny rtl-bench4 obj4 "4-core system"
fi

# ---- host instructions per simulated cycle (BENCH_INSTR=1) --------------------------
# Exact and repeatable where CPU seconds on a shared host vary by 10-20%:
# callgrind's count of the running part of the lockstep runs above
# (sim/scripts/rtl_instr.sh; docs/cosim.md, "Where the RTL's time goes").
# About a minute under valgrind, so only when asked.
if [ -n "${BENCH_INSTR:-}" ]; then
  echo "== host instructions per lockstep cycle (callgrind, sim/scripts/rtl_instr.sh)"
  if ! command -v valgrind >/dev/null; then
    echo "instructions per cycle: skipped (valgrind not found: apt-get install -y valgrind)"
  else
    for run in "tiny matmul|$obj|$cycles" "tiny idle loop|$idle_obj|200002"; do
      IFS='|' read -r what o c <<<"$run"
      r=$(bash sim/scripts/rtl_instr.sh "$rtlbench" "$o" "$c" 2>&1) || r="FAILED: $r"
      echo "lockstep, $what ($c cycles): $r"
    done
  fi
fi

# ---- large arrays (make bench BENCH_BIG=1) -----------------------------------------
# One MXU of 32, 64, 128 and 256 cells a side (hierarchical; 32 and 64 flat
# too) and the v5e preset's core, each built from scratch and run in lockstep
# (sim/rtl/big_bench.sh; docs/rtl.md, "Large arrays"): about 1.5
# CPU-hours, so only when asked.
if [ -n "${BENCH_BIG:-}" ]; then
  bash sim/rtl/big_bench.sh "$bin"
fi
