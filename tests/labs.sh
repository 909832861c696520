#!/usr/bin/env bash
# labs.sh BIN_DIR WORK_DIR - the labs' grader (tpu-lab, docs/labs/README.md):
#   - every reference solution (programs/labs/solutions/) scores 10/10, exit 0;
#   - every wrong solution in tests/labs/ scores below 10 (exit 1) with the
#     check this script names failing;
#   - grade-class writes a CSV of a folder; bad command lines exit 2 with a
#     gcc-style message; list and --help work.
set -uo pipefail
bin=${1:?usage: labs.sh BIN_DIR WORK_DIR}
work=${2:?usage: labs.sh BIN_DIR WORK_DIR}
mkdir -p "$work"
# many gradings of the answer labs in a row: no slow-down (lab_delay.c)
export TPU_LAB_DELAY=0
pass=0; fail=0
ok()  { echo "ok    $*"; pass=$((pass+1)); }
bad() { echo "FAIL  $*"; fail=$((fail+1)); }

# reference LAB FILE
reference() {
  local out="$work/ref-$1.txt"
  "$bin/tpu-lab" grade "$1" "$2" >"$out" 2>&1
  local rc=$?
  if [ $rc -eq 0 ] && grep -q '^score: 10/10$' "$out"; then
    ok "lab $1 reference $(basename "$2"): 10/10"
  else
    bad "lab $1 reference $(basename "$2"): exit $rc, $(grep '^score' "$out" || head -n 1 "$out")"
    sed 's/^/      /' "$out"
  fi
}

# wrong LAB FILE CHECK: below 10, exit 1, CHECK fails
wrong() {
  local out="$work/wrong-$(basename "$2").txt"
  "$bin/tpu-lab" grade "$1" "$2" >"$out" 2>&1
  local rc=$? score
  score=$(sed -n 's/^score: \([0-9]*\)\/10$/\1/p' "$out")
  if [ $rc -eq 1 ] && [ -n "$score" ] && [ "$score" -lt 10 ] \
     && grep -Eq "^  FAIL +0/[0-9]+ +$3 " "$out"; then
    ok "lab $1 $(basename "$2"): $score/10, $3 fails"
  else
    bad "lab $1 $(basename "$2"): exit $rc, score '$score', expected check $3 to fail"
    sed 's/^/      /' "$out"
  fi
}

S=programs/labs/solutions
reference 1 $S/01-answers.txt
reference 2 $S/02-pointwise.s
reference 3 $S/03-tiling.s
reference 4 $S/04-double-buffer.s
reference 5 $S/05-answers.txt
reference 6 $S/06-answers.txt
reference 7 $S/07-codesign.cfg
reference 8 $S/08-answers.txt

T=tests/labs
wrong 1 programs/labs/01-answers.txt  q1
wrong 1 $T/01-issue-cycle.txt         q1
wrong 1 $T/01-shadow.txt              q9
wrong 2 programs/labs/02-pointwise.s  roofline-tiny
wrong 2 $T/02-wrong-op.s              result-tiny
wrong 2 $T/02-other-data.s            result-mid
wrong 2 $T/02-does-not-assemble.s     assembles
wrong 3 programs/labs/03-tiling.s     result-large
wrong 3 $T/03-no-accumulate.s         result-small
wrong 3 $T/03-deadlock.s              result-large
wrong 4 $T/04-starter.s               overlap
wrong 4 $T/04-wrong-speedup.s         speedup
wrong 5 $T/05-book-ridge.txt          predicted
wrong 5 $T/05-wrong-bound.txt         bound16
wrong 6 $T/06-vmem-ridge.txt          crossover
wrong 6 $T/06-no-cycles.txt           cycles32
wrong 7 programs/labs/07-codesign.cfg best
wrong 7 $T/07-over-budget.cfg         area
wrong 7 $T/07-changes-latency.cfg     config
wrong 8 $T/08-wrong-unit.txt          unit
wrong 8 $T/08-wrong-line.txt          line

# the friendly lines of a student's error
grep -q 'deadlock: sem.wait on sem 4' "$work/wrong-03-deadlock.s.txt" \
  && ok "a deadlock is a failed check naming the wait" || bad "the deadlock's line"
grep -q "unknown instruction 'bogus'" "$work/wrong-02-does-not-assemble.s.txt" \
  && ok "an assembler error is a failed check with its message" || bad "the assembler error's line"

# grade-class: a folder of three submissions (one in a subfolder) and a stray file
class="$work/class"
rm -rf "$class" && mkdir -p "$class/carol"
cp $S/04-double-buffer.s "$class/alice.s"
cp $T/04-starter.s "$class/bob.s"
cp $T/04-wrong-speedup.s "$class/carol/lab4.s"
echo notes > "$class/README.txt"
"$bin/tpu-lab" grade-class 4 "$class" --csv "$work/class.csv" 2>"$work/class.err"
rc=$?
if [ $rc -eq 0 ] && [ "$(wc -l < "$work/class.csv")" -eq 4 ] \
   && head -n 1 "$work/class.csv" | grep -q '^student,file,lab,score,max,result,overlap,speedup,result_cycles,result_pct_of_bound,overlap_cycles,overlap_pct_of_bound,speedup_cycles,speedup_pct_of_bound,first_failure,warning$' \
   && grep -q '^alice,.*,4,10,10,3,4,3,[0-9]*,,[0-9]*,[0-9.]*,,,,$' "$work/class.csv" \
   && grep -q '^bob,.*,4,6,10,3,0,3,[0-9]*,,[0-9]*,[0-9.]*,,,"overlap: .*",$' "$work/class.csv" \
   && grep -q '^carol,.*,4,7,10,3,4,0,[0-9]*,,[0-9]*,[0-9.]*,,,"speedup: .*",$' "$work/class.csv"; then
  ok "grade-class: a CSV of 3 students (alice 10, bob 6, carol 7)"
else
  bad "grade-class: exit $rc"; sed 's/^/      /' "$work/class.csv" "$work/class.err"
fi

# the command line
expect_usage() {  # expect_usage PATTERN ARGS...: exit 2, the message matches
  local pat=$1; shift
  "$bin/tpu-lab" "$@" >"$work/usage.out" 2>"$work/usage.err"
  local rc=$?
  if [ $rc -eq 2 ] && grep -q "^tpu-lab: error: $pat" "$work/usage.err"; then
    ok "tpu-lab $*: exit 2, '$(head -n 1 "$work/usage.err")'"
  else
    bad "tpu-lab $*: exit $rc, $(head -n 1 "$work/usage.err")"
  fi
}
expect_usage "no lab '9'" grade 9 $S/01-answers.txt
expect_usage "no lab 'x'" grade x $S/01-answers.txt
expect_usage "cannot open $work/nosuch.s" grade 2 "$work/nosuch.s"
expect_usage "no command given" 
expect_usage "unknown command 'mark'" mark 1 x
expect_usage "unknown option '--fast'" grade 1 x --fast
expect_usage "'grade' wants a lab number and a file" grade 1
expect_usage "$work/nosuch is not a folder" grade-class 1 "$work/nosuch"
"$bin/tpu-lab" list > "$work/list.txt" 2>&1 && [ "$(grep -c '^[1-8] ' "$work/list.txt")" -eq 8 ] \
  && ok "list: 8 labs" || bad "list"
"$bin/tpu-lab" --help | grep -q '^usage: tpu-lab list' && ok "--help" || bad "--help"
"$bin/tpu-lab" grade --quiet 1 $S/01-answers.txt | grep -qx 'score: 10/10' \
  && ok "--quiet prints the score line" || bad "--quiet"

echo "labs: $pass passed, $fail failed"
[ $fail -eq 0 ]
