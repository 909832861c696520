#!/usr/bin/env bash
# run.sh [--keep] BUILD_DIR SECONDS - replay the kept regression inputs of
# every fuzz target, then fuzz each for SECONDS (wall time) from its seeds
# (tests/fuzz/seeds/TARGET/, in git, plus the example programs and
# configs).  A crash is saved under tests/fuzz/regress/TARGET/ (commit it
# with the fix: it becomes a regression input) and fails the run; so does
# finding no target at all.  A TAP point per target (tests/checks.sh), then
# a table of the figures: CPU seconds, execs, execs per CPU second,
# libFuzzer's coverage (cov, ft), corpus size, crashes.
#
# --keep (make fuzz; not fuzz-smoke, which must leave the tree as it is):
# append a line per target to tests/fuzz/log.tsv (tests/fuzz/report.sh
# sums them: make fuzz-report) and merge the inputs that add coverage into
# tests/fuzz/seeds/TARGET/ (libFuzzer's -merge=1, against the seeds and the
# example inputs, so only what is new is added; -use_counters=0: an input
# is kept for a new edge, not for a new hit count, which keeps the seeds
# few; the corpus in BUILD_DIR/corpus/ keeps them all).  FUZZ_ONLY="asm
# obj" runs only those targets (the ones furthest from their CPU-hour).
set -uo pipefail
keep=0
[ "${1:-}" = --keep ] && { keep=1; shift; }
build=${1:?usage: run.sh [--keep] BUILD_DIR SECONDS}
secs=${2:?usage: run.sh [--keep] BUILD_DIR SECONDS}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
source "$root/tests/checks.sh"   # ok, bad, finish: TAP (tests/README.md)
mkdir -p "$build" && build=$(cd "$build" && pwd)
logtsv=$here/log.tsv
commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
[ -n "$(git -C "$root" status --porcelain -- cmodel sim 'tests/fuzz/*.c' 2>/dev/null)" ] && commit=$commit+
# -timeout (a hang) and -report_slow_units in wall seconds: generous, as
# make fuzz runs at nice 19 on a shared machine, where an example program
# that takes 1 s can take 10 (a "slow unit" is not a finding)
flags=(-timeout=60 -report_slow_units=600 -rss_limit_mb=2048 -max_len=65536)
table=()

# example_inputs NAME DIR: the inputs a target starts from besides its
# seeds: for the assembler every example program, for the config reader
# the presets' files, for the object reader the programs assembled
example_inputs() {
  local name=$1 dir=$2 p opts
  case $name in
    asm) cp -n "$root"/programs/*.s "$root"/sim/rtl/progs/*.s "$dir"/ 2>/dev/null ;;
    config) cp -n "$root"/cmodel/configs/*.cfg "$dir"/ 2>/dev/null ;;
    obj)
      [ -x "$root/build/bin/tpu-as" ] || return 0
      for p in "$root"/programs/*.s; do
        opts=$(sed -n '1s/^# *tpu-as: *//p' "$p")
        # shellcheck disable=SC2086
        "$root/build/bin/tpu-as" $opts -o "$dir/$(basename "$p" .s).o" "$p" >/dev/null 2>&1 || true
      done ;;
  esac
  return 0
}

# final_stat NAME LOG: a number of libFuzzer's final statistics
final_stat() { sed -n "s/^stat::$1: *\([0-9]*\).*/\1/p" "$2" | tail -n 1; }

for bin in "$build"/fuzz_*; do
  [ -x "$bin" ] || continue
  name=$(basename "$bin"); name=${name#fuzz_}
  [ -z "${FUZZ_ONLY:-}" ] || [[ " $FUZZ_ONLY " == *" $name "* ]] || continue
  regress="$here/regress/$name"
  seeds="$here/seeds/$name"
  corpus="$build/corpus/$name"
  mkdir -p "$regress" "$seeds" "$corpus"
  cp -n "$seeds"/* "$corpus"/ 2>/dev/null
  example_inputs "$name" "$corpus"
  kept=$(find "$regress" -type f ! -name .gitkeep | sort)
  if [ -n "$kept" ]; then
    # shellcheck disable=SC2086
    if ! "$bin" -runs=0 "${flags[@]}" $kept >"$build/$name.regress.log" 2>&1; then
      bad "fuzz $name: a kept regression input fails again (see $build/$name.regress.log)"
      table+=("$(printf '%-7s %8s %10s %9s %6s %7s %7s %7s' "$name" - - - - - - regress)")
      continue
    fi
  fi
  nkept=$(printf '%s' "$kept" | grep -c .)
  log="$build/$name.log"
  # findings: libFuzzer's crash-, timeout-, oom- and leak- files
  findings() { find "$regress" -type f \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' -o -name 'leak-*' \) | wc -l; }
  before=$(findings)
  TIMEFORMAT='%3U %3S'
  { time "$bin" -max_total_time="$secs" "${flags[@]}" -artifact_prefix="$regress/" \
      -print_final_stats=1 "$corpus" >"$log" 2>&1; } 2>"$build/$name.time"
  status=$?
  cpu=$(awk '{ printf "%.1f", $1 + $2 }' "$build/$name.time")
  execs=$(final_stat number_of_executed_units "$log")
  last=$(grep -E '^#[0-9]+.*cov: ' "$log" | tail -n 1)
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
  corp=$(sed -n 's/.* corp: \([0-9]*\).*/\1/p' <<<"$last")
  crashes=$(( $(findings) - before ))
  [ "$status" != 0 ] && [ "$crashes" -eq 0 ] && crashes=1
  rate=$(awk -v e="${execs:-0}" -v c="$cpu" 'BEGIN { printf "%d", (c > 0 ? e / c : 0) }')
  table+=("$(printf '%-7s %8s %10s %9s %6s %7s %7s %7s' "$name" "$cpu" "${execs:--}" "$rate" \
      "${cov:--}" "${ft:--}" "${corp:--}" "$crashes")")
  if [ "$status" = 0 ] && [ -n "$execs" ]; then
    ok "fuzz $name: $nkept kept inputs replayed, ${secs}s (${cpu} CPU s), $execs inputs, no crash"
  elif [ "$status" = 0 ]; then
    bad "fuzz $name: libFuzzer printed no final statistics (log: $log)"
    diag "$(tail -n 10 "$log")"
  else
    bad "fuzz $name: CRASH - input saved in $regress/ ; log: $log"
    diag "$(tail -n 30 "$log")"
  fi
  [ "$keep" = 1 ] || continue
  [ -s "$logtsv" ] || printf 'date\tcommit\ttarget\tseconds\tcpu_s\texecs\tcov\tft\tcorpus\tcrashes\n' >"$logtsv"
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$commit" \
    "$name" "$secs" "$cpu" "${execs:-0}" "${cov:-0}" "${ft:-0}" "${corp:-0}" "$crashes" >>"$logtsv"
  # the new inputs that add coverage to the seeds and the examples go to seeds/
  base="$build/merge/$name"
  rm -rf "$base"; mkdir -p "$base"
  cp "$seeds"/* "$base"/ 2>/dev/null
  example_inputs "$name" "$base"
  ls "$base" | sort >"$build/$name.base"
  if "$bin" -merge=1 -use_counters=0 "${flags[@]}" "$base" "$corpus" >"$build/$name.merge.log" 2>&1; then
    added=0
    while IFS= read -r f; do cp "$base/$f" "$seeds/$f" && added=$((added+1)); done \
      < <(ls "$base" | sort | comm -13 "$build/$name.base" -)
    diag "fuzz $name: $added new inputs added to tests/fuzz/seeds/$name/ (commit them)"
  else
    bad "fuzz $name: merging the corpus into the seeds failed (log: $build/$name.merge.log)"
  fi
done
if [ $((pass + fail)) -eq 0 ]; then
  bad "fuzz: no fuzz target in $build${FUZZ_ONLY:+ named '$FUZZ_ONLY'} (build them: make fuzz-smoke)"
else
  echo "# target  CPU s      execs  execs/s    cov      ft  corpus crashes"
  for row in "${table[@]}"; do echo "# $row"; done
  echo "# (execs/s per CPU second; cov and ft are libFuzzer's last; corpus in inputs)"
fi
finish fuzz
