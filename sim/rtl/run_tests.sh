#!/usr/bin/env bash
# run_tests.sh BIN_DIR RTL_DIR CONFIG - every program on the RTL against the
# C model: programs/*.s and the RTL's directed tests sim/rtl/progs/*.s,
# assembled for CONFIG, run by RTL_DIR/rtl-bench --lockstep (two-core
# programs, those that use dma.ici, by RTL_DIR/rtl-bench2 when it exists).
# programs/pointwise.s runs once per operation (-D OP=0, 1, 2).
# Prints one line per program and "rtl-test: N passed, M failed, K skipped";
# exits 1 if any failed.
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
  else
    runs+=("$src")
  fi
done
for run in "${runs[@]}"; do
  read -r src opts <<< "$run"
  read -r -a optv <<< "${opts:-}"
  name=$(basename "$src" .s)$(echo "${opts:-}" | tr -d ' =-' | sed 's/^D/_/')
  bench="$dir/rtl-bench"
  if grep -q '^[^#]*dma\.ici' "$src"; then
    bench="$dir/rtl-bench2"
    if [ ! -x "$bench" ]; then
      echo "skip  $run (two cores: $bench not built)"
      skip=$((skip + 1))
      continue
    fi
  fi
  obj="$work/$name.bin" log="$work/$name.log"
  if ! "$bin/tpu-as" --config "$cfg" "${optv[@]}" -o "$obj" "$src" >"$log" 2>&1; then
    echo "FAIL  $run: tpu-as failed"
    sed 's/^/      /' "$log" | head -n 10
    fail=$((fail + 1))
    continue
  fi
  if "$bench" --lockstep "$obj" >"$log" 2>&1; then
    echo "ok    $run: $(tail -n 1 "$log" | sed 's/^rtl-bench[0-9]*: [^:]*: //')"
    pass=$((pass + 1))
  else
    echo "FAIL  $run"
    sed 's/^/      /' "$log" | head -n 20
    fail=$((fail + 1))
  fi
done
echo "rtl-test: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
