#!/usr/bin/env bash
# run_mutants.sh [--seeds N] [--one-core] [--all-killed] [--quiet] [--cmodel]
#                BIN_DIR MUT_DIR[,MUT_DIR...] [ID...]
#
# Run RTL mutants against the lockstep regression (make mutants;
# docs/cosim.md, "Mutants").  Each MUT_DIR holds the meta-mutant benches of
# one config (rtl-bench, rtl-bench2, rtl-bench4: every mutant of
# sim/cosim/mutants.def compiled in by tpu-mutate, +mutant=ID selects one;
# rtl_config.h names the config).  The regression, on each config in turn, in order:
#   1. every program run of the config in programs/manifest.txt (read by
#      sim/cosim/manifest.sh), as rtl-test runs them: with their -D values,
#      on rtl-bench, rtl-bench2 or rtl-bench4 (rings of 2 and 4) as their
#      row says, and judged by the row's expected end (a run expected to
#      halt must halt; one expected to stop with a named error must stop
#      with it); rows of a shape the RTL has no system for are left out;
#   2. N random programs (seeds 1..N, default 40, made as cosim_random.sh
#      makes them: every 8th with --errors, every 5th on two cores);
#   3. at the end, when rtl-fp-test is built beside the MUT_DIRs, the fp
#      units against the plain reference (cmodel/fp.c, 100000 operand sets
#      per operation: operands no program makes).
# First the regression runs without a mutant (+mutant=0) and must pass;
# then each mutant (all, or the IDs given) runs it until the first failure:
# the mutant is killed by that test, at the cycle its report names.
#
# Prints a table (id, unit, killed by which test at which cycle, or
# SURVIVED, and what the mutant does), then "mutants: K of M killed (P%)";
# --cmodel: the C-model mutants of sim/cosim/cmutants.def instead (make
# cmutants): the MUT_DIRs hold benches of the plain RTL linked with the
# C model built with every CMUTANT compiled in; a mutant is selected with
# TPU_CMUTANT=ID, and step 3 is test_fp and test_ref (the fp code against
# the plain reference) built the same way beside the MUT_DIRs.
# --one-core leaves out the multi-core tests (rtl-bench2 and rtl-bench4
# need not be built);
# --all-killed makes a survivor a failure (make test's handful) and prints
# TAP instead of the table (tests/checks.sh): a point for the regression
# without a mutant, one per mutant ("ok N - mutant ID (UNIT): killed by TEST
# @ CYCLE: what it does", "not ok N - mutant ID (UNIT): SURVIVED: ..."), and
# "mutants: P passed, F failed";
# writes the table to report.txt and report.tsv beside the first MUT_DIR.  JOBS
# (default 2) mutants run at once.  Exit status: 0 every mutant run was
# judged (survivors are reported, not failures: see docs/cosim.md for the
# known ones), 1 the regression fails without a mutant, 2 bad usage,
# 130 interrupted.
set -uo pipefail
seeds=40 quiet=0 one_core=0 all_killed=0 cmodel=0
while [ $# -gt 0 ]; do
  case "$1" in
    --cmodel) cmodel=1; shift ;;
    --seeds) seeds=${2:?--seeds needs a value}; shift 2 ;;
    --quiet) quiet=1; shift ;;
    --one-core) one_core=1; shift ;;
    --all-killed) all_killed=1; shift ;;
    -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "run_mutants.sh: error: unknown option '$1' (try --help)" >&2; exit 2 ;;
    *) break ;;
  esac
done
usage="usage: run_mutants.sh [--seeds N] [--one-core] [--all-killed] [--quiet] [--cmodel] BIN_DIR MUT_DIR[,MUT_DIR...] [ID...]"
bin=${1:?$usage}
IFS=, read -r -a muts <<< "${2:?$usage}"
mut=${muts[0]}
shift 2
jobs=${JOBS:-2}
for v in "$seeds" "$jobs" "$@"; do
  case "$v" in ''|*[!0-9]*) echo "run_mutants.sh: error: '$v' is not a number" >&2; exit 2 ;; esac
done
work=$(mktemp -d "${TMPDIR:-/tmp}/mutants.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
trap 'echo "run_mutants.sh: interrupted" >&2; exit 130' INT TERM
reg=$work/regression
# shellcheck source=manifest.sh
. "$(dirname "${BASH_SOURCE[0]}")/manifest.sh"
# shellcheck source=../../tests/checks.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../tests/checks.sh"   # ok, bad, finish: TAP with --all-killed
: > "$reg"
shopt -s nullglob

# ---- the regression: one line per test, "NAME END COMMAND..." -----------------------
# (END: the manifest's expected end, or - for random programs and the fp tests)
# add_config DIR: the tests of the config whose benches are in DIR (names
# get "/CONFIG" after the first config).
add_config() {
  local dir=$1 suffix=$2 bench=$1/rtl-bench bench2=$1/rtl-bench2 cfg runs name src defs cores topo end b s opt
  local -a optv
  for f in "$bench" "$bench2" "$1/rtl-bench4"; do
    [ "$f" != "$bench" ] && [ "$one_core" = 1 ] && continue
    [ -x "$f" ] || { echo "run_mutants.sh: error: no '$f' (make mutants-build)" >&2; exit 2; }
  done
  cfg=$(sed -n 's/^#define RTL_CONFIG "\(.*\)"$/\1/p' "$dir/rtl_config.h" 2>/dev/null)
  [ -n "$cfg" ] || { echo "run_mutants.sh: error: no config in $dir/rtl_config.h" >&2; exit 2; }
  mkdir -p "$work/$suffix"
  runs=$(manifest_runs "$(basename "$cfg" .cfg)") || exit 2
  while IFS=$'\t' read -r name src defs cores topo end _; do
    [ "$cores" -gt 1 ] && [ "$one_core" = 1 ] && continue
    b=$(manifest_bench "$dir" "$cores" "$topo")
    [ -n "$b" ] || continue         # no RTL system of that shape (a torus)
    # a shape with no mutant bench (torus3d 2x2x2: rtl-bench8 is not built
    # by mutants-build): said once, not a silent pass
    if [ ! -x "$b" ]; then
      echo "run_mutants.sh: note: $name$suffix left out: no $b (not a mutant bench)" >&2
      continue
    fi
    read -r -a optv <<< "$(manifest_asopts "$defs")"
    "$bin/tpu-as" --config "$cfg" "${optv[@]}" -o "$work/$suffix/$name.bin" "$src" >/dev/null 2>&1 \
      || { echo "run_mutants.sh: error: tpu-as --config $cfg failed on $src ${optv[*]}" >&2; exit 2; }
    echo "$name$suffix $end $b --lockstep --program-status --max-cycles 2000000 $work/$suffix/$name.bin" >> "$reg"
  done <<< "$runs"
  for ((s = 1; s <= seeds; s++)); do
    opt="" b=$bench
    [ $((s % 8)) -eq 7 ] && opt=--errors
    if [ $((s % 5)) -eq 4 ]; then
      [ "$one_core" = 1 ] && continue
      opt="$opt --cores 2" b=$bench2
    fi
    # shellcheck disable=SC2086
    "$bin/tpu-randprog" --config "$cfg" --seed "$s" --length 300 $opt -o "$work/$suffix/seed$s.s" \
        >/dev/null 2>&1 \
      && "$bin/tpu-as" --config "$cfg" -o "$work/$suffix/seed$s.bin" "$work/$suffix/seed$s.s" \
        >/dev/null 2>&1 \
      || { echo "run_mutants.sh: error: could not make random program $s for $cfg" >&2; exit 2; }
    echo "seed$s$suffix - $b --lockstep --max-cycles 2000000 $work/$suffix/seed$s.bin" >> "$reg"
  done
}
for f in "$bin/tpu-as" "$bin/tpu-randprog" "$bin/tpu-mutate"; do
  [ -x "$f" ] || { echo "run_mutants.sh: error: no '$f' (make)" >&2; exit 2; }
done
add_config "${muts[0]}" ""
for ((i = 1; i < ${#muts[@]}; i++)); do
  add_config "${muts[i]}" "/$(basename "${muts[i]}")"
done
# the fp units against the plain reference, when the harness is built
if [ "$cmodel" = 1 ]; then
  for t in test_fp test_ref; do
    [ -x "$(dirname "$mut")/$t" ] && echo "$t - $(dirname "$mut")/$t" >> "$reg"
  done
else
  fpt=$(dirname "$mut")/rtl-fp-test
  [ -x "$fpt" ] && echo "rtl-fp - $fpt --count 100000" >> "$reg"
fi
ntests=$(wc -l < "$reg")

# one ID: run the regression with +mutant=ID until the first failure.
# Prints "ID<TAB>killed<TAB>TEST<TAB>CYCLE<TAB>FIRST LINE" or "ID<TAB>survived"
# (CYCLE "end": the end-of-run comparison of memories; "-": rtl-fp).
one() {
  local id=$1 name end cmd out st cyc why
  while read -r name end cmd; do
    # shellcheck disable=SC2086
    if [ "$cmodel" = 1 ]; then
      case "$name" in
        test_*) out=$(TPU_CMUTANT=$id timeout 300 $cmd 2>&1) ;;
        *) out=$(TPU_CMUTANT=$id timeout 300 $cmd "+mutant=0" 2>&1) ;;
      esac
    else
      out=$(timeout 300 $cmd "+mutant=$id" 2>&1)
    fi
    st=$?
    [ "$st" -eq 130 ] && exit 130
    # a program of the manifest: its expected end (halt, or the named
    # error), judged on the --program-status exit
    if [ "$end" != - ] && { [ "$st" -eq 0 ] || [ "$st" -eq 3 ]; }; then
      if why=$(manifest_bench_verdict "$end" "$st" "$out"); then
        st=0
      else
        st=1 out="$why"
      fi
    fi
    if [ "$st" -ne 0 ]; then
      case "$name" in     # a cmocka test: its first failing test's line
        test_*) out=$(grep -m1 -e '\[  FAILED  \]' -e '\[  ERROR   \]' <<<"$out" || head -n 1 <<<"$out") ;;
      esac
      out=$(head -n 1 <<<"$out" | sed "s|$work/||g")
      cyc=$(sed -n 's/.* cycle \([0-9][0-9]*\).*/\1/p; s/.* after \([0-9][0-9]*\) cycles.*/\1/p; s/.*at cycle \([0-9][0-9]*\).*/\1/p' <<<"$out" | head -n 1)
      case "$name" in rtl-fp|test_*) cyc=- ;; esac
      [ "$st" -eq 124 ] && out="timed out after 300 s"
      printf '%s\tkilled\t%s\t%s\t%s\n' "$id" "$name" "${cyc:-end}" "$out"
      return
    fi
  done < "$reg"
  printf '%s\tsurvived\n' "$id"
}
export -f one manifest_verdict manifest_bench_verdict manifest_error_re
export reg work cmodel

[ "$quiet" = 1 ] || echo "mutants: the regression ($ntests tests) without a mutant first"
base=$(one 0)
case "$base" in
  *survived) [ "$all_killed" = 1 ] && ok "the regression ($ntests tests) passes without a mutant" ;;
  *) if [ "$all_killed" = 1 ]; then
       bad "the regression ($ntests tests) fails without a mutant: $base"; finish mutants
     fi
     echo "mutants: the regression fails without a mutant: $base" >&2; exit 1 ;;
esac

# ---- the mutants ------------------------------------------------------------------
if [ "$cmodel" = 1 ]; then
  sed -n 's/^CMUTANT_DEF(\([0-9]*\), *"\([^"]*\)", *"\([^"]*\)", *"\(.*\)")$/\1\t\2\t\3\t\4/p' \
    sim/cosim/cmutants.def > "$work/catalogue"
  # the catalogue and the code agree: each id in its file exactly once, no
  # CMUTANT in the code that the catalogue lacks
  while IFS=$'\t' read -r id _ file _; do
    n=$(grep -o "CMUTANT($id," "cmodel/$file" 2>/dev/null | wc -l)
    [ "$n" -eq 1 ] || { echo "run_mutants.sh: error: CMUTANT($id, ...) is in cmodel/$file $n times, not once (sim/cosim/cmutants.def)" >&2; exit 2; }
  done < "$work/catalogue"
  for id in $(grep -oh 'CMUTANT([0-9]*,' cmodel/*.c cmodel/*.h | tr -dc '0-9\n'); do
    grep -q "^$id	" "$work/catalogue" \
      || { echo "run_mutants.sh: error: CMUTANT($id, ...) in cmodel/ is not in sim/cosim/cmutants.def" >&2; exit 2; }
  done
else
  "$bin/tpu-mutate" --tsv > "$work/catalogue"
fi
if [ $# -gt 0 ]; then
  ids=("$@")
else
  mapfile -t ids < <(cut -f1 "$work/catalogue")
fi
for id in "${ids[@]}"; do
  grep -q "^$id	" "$work/catalogue" || { echo "run_mutants.sh: error: no mutant $id" >&2; exit 2; }
done
[ "$quiet" = 1 ] || echo "mutants: ${#ids[@]} mutants, $jobs at once"
printf '%s\n' "${ids[@]}" | xargs -P "$jobs" -I{} bash -c 'one {}' > "$work/results"
[ -s "$work/results" ] || exit 130
sort -n -o "$work/results" "$work/results"

# ---- the table ----------------------------------------------------------------------
killed=0 total=0
{
  printf '%-4s %-9s %-26s %s\n' id unit result what
  while IFS=$'\t' read -r id res test cyc first; do
    total=$((total + 1))
    IFS=$'\t' read -r _ unit file what < <(grep "^$id	" "$work/catalogue")
    if [ "$res" = killed ]; then
      killed=$((killed + 1))
      printf '%-4s %-9s %-26s %s (%s)\n' "$id" "$unit" "$test @ $cyc" "$what" "$file"
    else
      printf '%-4s %-9s %-26s %s (%s)\n' "$id" "$unit" "SURVIVED" "$what" "$file"
    fi
  done < "$work/results"
  awk -v k="$killed" -v t="$total" -v n="$ntests" \
    'BEGIN { printf "mutants: %d of %d killed (%.0f%%) by a regression of %d tests\n", k, t, t ? 100 * k / t : 0, n }'
} > "$work/report"
cp "$work/report" "$(dirname "$mut")/report.txt"
cp "$work/results" "$(dirname "$mut")/report.tsv"
[ "$all_killed" = 1 ] || { cat "$work/report"; exit 0; }
# --all-killed: a point per mutant, in the table's order
while IFS=$'\t' read -r id res test cyc first; do
  IFS=$'\t' read -r _ unit file what < <(grep "^$id	" "$work/catalogue")
  if [ "$res" = killed ]; then
    ok "mutant $id ($unit): killed by $test @ $cyc: $what ($file)"
  else
    bad "mutant $id ($unit): SURVIVED: $what ($file)"
  fi
done < "$work/results"
finish mutants
