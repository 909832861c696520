#!/usr/bin/env bash
# run_tests.sh BIN_DIR RTL_DIR CONFIG - every program on the RTL against the
# C model: programs/*.s and the RTL's directed tests sim/rtl/progs/*.s,
# assembled for CONFIG, run by RTL_DIR/rtl-bench --lockstep (programs whose
# object has a dma.ici, their own or an .include's, by RTL_DIR/rtl-bench2,
# two cores in a ring, when it exists, with -D K=2 when they take a ring
# size K; programs/torus3d.s by RTL_DIR/rtl-bench8, eight cores as a 2x2x2
# torus3d, and RTL_DIR/rtl-bench2z, two as 1x1x2, as AllGather,
# ReduceScatter and AllReduce, when those are built (make rtl-test-torus3d);
# with ONE_CORE=1 they are skipped).
# programs/pointwise.s runs once per operation (-D OP=0, 1, 2).
# The programs are assembled with --config CONFIG whatever their first line
# says (every one fits tiny and mid).  JOBS (default 2) run at once.  Prints
# one line per program, in order, and
# "rtl-test (CONFIG): N passed, M failed, K skipped"; exits 1 if any failed.
set -uo pipefail
bin=${1:?usage: run_tests.sh BIN_DIR RTL_DIR CONFIG}
dir=${2:?usage: run_tests.sh BIN_DIR RTL_DIR CONFIG}
cfg=${3:?usage: run_tests.sh BIN_DIR RTL_DIR CONFIG}
work="$dir/progs"
mkdir -p "$work" || exit 1
pass=0; fail=0; skip=0
shopt -s nullglob
# Each line: a source and the tpu-as options of one run.
runs=()
for src in programs/*.s sim/rtl/progs/*.s; do
  if [ "$(basename "$src")" = pointwise.s ]; then
    runs+=("$src -D OP=0" "$src -D OP=1" "$src -D OP=2")
  elif [ "$(basename "$src")" = torus3d.s ]; then
    :                                   # eight cores only: below
  else
    runs+=("$src")
  fi
done
# The collectives on four cores in a ring (RTL_DIR/rtl-bench4: those runs
# name it with -D K=4).
if [ "${ONE_CORE:-0}" != 1 ]; then
  runs+=("programs/allgather.s -D K=4" "programs/allreduce.s -D K=4"
         "programs/reducescatter.s -D K=4" "programs/alltoall.s -D K=4"
         "programs/matmul_collective.s -D K=4")
  # AllGather, ReduceScatter, AllReduce over the three axes of a 2x2x2
  # torus3d (RTL_DIR/rtl-bench8: all six ports of every core wired)
  runs+=("programs/torus3d.s -D OP=0" "programs/torus3d.s -D OP=1"
         "programs/torus3d.s -D OP=2")
  # the same on two cores as a 1x1x2 torus3d (RTL_DIR/rtl-bench2z)
  runs+=("programs/torus3d.s -D X=1 -D Y=1 -D Z=2 -D OP=0" "programs/torus3d.s -D X=1 -D Y=1 -D Z=2 -D OP=1"
         "programs/torus3d.s -D X=1 -D Y=1 -D Z=2 -D OP=2")
fi
# TORUS3D_ONLY=1 (make rtl-test-torus3d): those three runs only
if [ "${TORUS3D_ONLY:-0}" = 1 ]; then
  runs=("programs/torus3d.s -D OP=0" "programs/torus3d.s -D OP=1" "programs/torus3d.s -D OP=2"
        "programs/torus3d.s -D X=1 -D Y=1 -D Z=2 -D OP=0" "programs/torus3d.s -D X=1 -D Y=1 -D Z=2 -D OP=1"
        "programs/torus3d.s -D X=1 -D Y=1 -D Z=2 -D OP=2")
fi
# one RUN: assemble and run it; the first line of its report starts with
# ok, FAIL or skip (the lines below it are the log).
one() {
  local run=$1 src opts optv name bench obj log
  read -r src opts <<< "$run"
  read -r -a optv <<< "${opts:-}"
  name=$(basename "$src" .s)$(echo "${opts:-}" | tr -d ' =-' | sed 's/^D/_/')
  bench="$dir/rtl-bench"
  obj="$work/$name.bin" log="$work/$name.log"
  # several cores when the object sends over ICI (its own dma.ici or an
  # .include's): the two-core bench, and a ring of two when it takes K
  # (grep reads all of tpu-dis's output: with pipefail, grep -q's early exit
  # would fail the pipeline on tpu-dis's SIGPIPE and run a long one on one core)
  if "$bin/tpu-as" --config "$cfg" "${optv[@]}" -o "$obj" "$src" >"$log" 2>&1 &&
     "$bin/tpu-dis" "$obj" 2>/dev/null | grep 'dma\.ici' >/dev/null; then
    bench="$dir/rtl-bench2"
    case "$src ${opts:-} " in
      *"/torus3d.s -D X=1 -D Y=1 -D Z=2 "*) bench="$dir/rtl-bench2z" ;;  # a 1x1x2 torus3d
      */torus3d.s*) bench="$dir/rtl-bench8" ;;        # a 2x2x2 torus3d
    esac
    [ "$bench" = "$dir/rtl-bench8" ] || [ "$bench" = "$dir/rtl-bench2z" ] ||
    case " ${opts:-} " in
      *" K=4 "*) bench="$dir/rtl-bench4" ;;           # a ring of four
      *) grep -q '^ *\.equ *K,' "$src" && optv+=(-D K=2) ;;
    esac
    if [ "${ONE_CORE:-0}" = 1 ]; then
      echo "skip  $run (two cores: ONE_CORE=1)"
      return
    fi
    if [ ! -x "$bench" ]; then
      echo "skip  $run (several cores: $bench not built)"
      return
    fi
  fi
  if ! "$bin/tpu-as" --config "$cfg" "${optv[@]}" -o "$obj" "$src" >"$log" 2>&1; then
    echo "FAIL  $run: tpu-as failed"
    sed 's/^/      /' "$log" | head -n 10
    return
  fi
  if "$bench" --lockstep "$obj" >"$log" 2>&1; then
    echo "ok    $run: $(tail -n 1 "$log" | sed 's/^rtl-bench[0-9]*: [^:]*: //')"
  else
    echo "FAIL  $run"
    sed 's/^/      /' "$log" | head -n 20
  fi
}
export -f one
export bin dir cfg work

# JOBS (default 2) runs at once; the reports come out in the order of runs.
for i in "${!runs[@]}"; do
  printf '%s\0' "$i ${runs[$i]}"
done | xargs -0 -P "${JOBS:-2}" -I{} bash -c 'set -- {}; i=$1; shift; one "$*" > "$work/report.$i"'
for i in "${!runs[@]}"; do
  report="$work/report.$i"
  cat "$report"
  case "$(head -c 4 "$report")" in
    "ok  ") pass=$((pass + 1)) ;;
    skip) skip=$((skip + 1)) ;;
    *) fail=$((fail + 1)) ;;
  esac
  rm -f "$report"
done
echo "rtl-test ($cfg): $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
