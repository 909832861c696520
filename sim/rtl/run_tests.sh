#!/usr/bin/env bash
# run_tests.sh BIN_DIR RTL_DIR CONFIG - every program run of CONFIG in the
# manifest (programs/manifest.txt, through sim/cosim/manifest.sh) on the RTL
# against the C model: assembled for CONFIG with the row's -D values
# (whatever the program's first line says), run by RTL_DIR's bench of the
# row's shape (rtl-bench for one core, rtl-bench2 and rtl-bench4 for rings
# of 2 and 4) with --lockstep --program-status, and judged by the row's
# expected end: a run expected to halt must halt, one expected to stop with
# a named run-time error must stop with that one on both sides.  A run
# whose bench is not built, or has no RTL system (a torus), is skipped and
# says why; ONE_CORE=1 skips every run of more than one core.  JOBS
# (default 2) run at once.  Prints one TAP point per run, in the manifest's
# order (tests/checks.sh: "ok N - RUN: how it ended", "not ok N - RUN: why"
# with the log as "#" lines below it, "ok N - RUN # SKIP why"), and
# "rtl-test (CONFIG): N passed, M failed[, K skipped]"; exits 1 if any
# failed, 2 on a bad manifest.  TOPOLOGY_ONLY=T runs only the rows whose
# topology starts with T (make rtl-test-torus3d: torus3d).
set -uo pipefail
bin=${1:?usage: run_tests.sh BIN_DIR RTL_DIR CONFIG}
dir=${2:?usage: run_tests.sh BIN_DIR RTL_DIR CONFIG}
cfg=${3:?usage: run_tests.sh BIN_DIR RTL_DIR CONFIG}
work="$dir/progs"
mkdir -p "$work" || exit 1
here=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=../cosim/manifest.sh
. "$here/../cosim/manifest.sh"
# shellcheck source=../../tests/checks.sh
. "$here/../../tests/checks.sh"    # ok, bad, skip, diag, finish: TAP (tests/README.md)
cfgname=$(basename "$cfg" .cfg)
runs=$(manifest_runs "$cfgname") || exit 2
# TOPOLOGY_ONLY=T (make rtl-test-torus3d): only the rows of topology T
if [ -n "${TOPOLOGY_ONLY:-}" ]; then
  runs=$(awk -F'\t' -v t="$TOPOLOGY_ONLY" 'index($5, t) == 1' <<< "$runs")
fi
# one RUN (a line of manifest_runs): assemble and run it.  Its report is
# read by the loop below: a first line "ok LABEL: how it ended", "FAIL
# LABEL: why" or "skip LABEL<TAB>why not", then the log of a failure.
one() {
  local name src defs cores topo end optv bench obj log st why label
  IFS=$'\t' read -r name src defs cores topo end _ <<< "$1"
  read -r -a optv <<< "$(manifest_asopts "$defs")"
  label="$src${optv[*]:+ ${optv[*]}}"
  [ "$cores" -gt 1 ] && label="$label ($cores cores, $topo)"
  obj="$work/$name.bin" log="$work/$name.log"
  bench=$(manifest_bench "$dir" "$cores" "$topo")
  if [ "$cores" -gt 1 ] && [ "${ONE_CORE:-0}" = 1 ]; then
    printf 'skip %s\t%s\n' "$label" "several cores and ONE_CORE=1"; return
  fi
  if [ -z "$bench" ]; then
    printf 'skip %s\t%s\n' "$label" "the RTL has no system of that shape"; return
  fi
  if [ ! -x "$bench" ]; then
    printf 'skip %s\t%s\n' "$label" "$bench not built (make $bench)"; return
  fi
  if ! "$bin/tpu-as" --config "$cfg" "${optv[@]}" -o "$obj" "$src" >"$log" 2>&1; then
    echo "FAIL $label: tpu-as failed"
    head -n 10 "$log"
    return
  fi
  "$bench" --lockstep --program-status "$obj" >"$log" 2>&1
  st=$?
  if why=$(manifest_bench_verdict "$end" "$st" "$(cat "$log")"); then
    echo "ok $label: $(tail -n 1 "$log" | sed 's/^rtl-bench[0-9]*: [^:]*: //')"
  else
    echo "FAIL $label${why:+: $why}"
    head -n 20 "$log"
  fi
}
export -f one manifest_asopts manifest_bench manifest_verdict manifest_bench_verdict manifest_error_re
export bin dir cfg work

# JOBS (default 2) runs at once; the reports come out in the manifest's order.
mapfile -t lines <<< "$runs"
printf '%s\n' "${lines[@]}" > "$work/runs"
seq 1 "${#lines[@]}" | xargs -P "${JOBS:-2}" -I{} \
  bash -c 'one "$(sed -n "{}p" "$work/runs")" > "$work/report.{}"'
for ((i = 1; i <= ${#lines[@]}; i++)); do
  report="$work/report.$i"
  IFS= read -r first < "$report"
  case "$first" in
    "ok "*) ok "${first#ok }" ;;
    "skip "*) skip "$(cut -f1 <<< "${first#skip }")" "$(cut -f2 <<< "$first")" ;;
    "FAIL "*) bad "${first#FAIL }" ;;
    *) bad "${lines[i-1]%%$'\t'*}: no verdict (${first:-an empty report})" ;;
  esac
  rest=$(tail -n +2 "$report")
  [ -n "$rest" ] && diag "$rest"
  rm -f "$report"
done
finish "rtl-test ($cfg)"
