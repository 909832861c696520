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
source "$(dirname "$0")/checks.sh"   # ok, bad, skip, finish: TAP (tests/README.md)

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
reference 9 $S/09-network-codesign.cfg
reference 10 $S/10-shard-mlp.cfg

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
wrong 9 programs/labs/09-network-codesign.cfg best
wrong 9 $T/09-over-budget.cfg         area
wrong 9 $T/09-wrong-answer.cfg        answer
wrong 9 $T/09-names-a-file.cfg        config
wrong 10 programs/labs/10-shard-mlp.cfg faster
wrong 10 $T/10-overlap-a2a.cfg        config
wrong 10 $T/10-data-parallel.cfg      config

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
expect_usage "no lab '11'" grade 11 $S/01-answers.txt
expect_usage "no lab 'x'" grade x $S/01-answers.txt
expect_usage "cannot open $work/nosuch.s" grade 2 "$work/nosuch.s"
expect_usage "no command given" 
expect_usage "unknown command 'mark'" mark 1 x
expect_usage "unknown option '--fast'" grade 1 x --fast
expect_usage "'grade' wants a lab number and a file" grade 1
expect_usage "$work/nosuch is not a folder" grade-class 1 "$work/nosuch"
"$bin/tpu-lab" list > "$work/list.txt" 2>&1 && [ "$(grep -Ec '^[1-9][0-9]? ' "$work/list.txt")" -eq 10 ] \
  && ok "list: 10 labs" || bad "list"
"$bin/tpu-lab" --help | grep -q '^usage: tpu-lab list' && ok "--help" || bad "--help"
"$bin/tpu-lab" grade --quiet 1 $S/01-answers.txt | grep -qx 'score: 10/10' \
  && ok "--quiet prints the score line" || bad "--quiet"

# ---- per-student variants of the answer labs 1, 5, 6 and 8 (sim/lab/lab_variant.h):
# tpu-lab variant prints a student's questions (never the answers); the right
# answers of a student's variant, written by the unit test's --write (no
# tpu-lab command prints answers), score 10/10 for that student and below
# for another, for the handout's variant and in grade-class under another
# name; different students get different answers.
vt="$bin/../tests/test_labs_variant"
vdir="$work/variants"
rm -rf "$vdir" && mkdir -p "$vdir"
vscore() {  # vscore LAB FILE [--student NAME]: prints "SCORE EXIT"
  local out rc
  out=$("$bin/tpu-lab" grade --quiet "$@" 2>&1); rc=$?
  echo "$(echo "$out" | sed -n 's/^score: \([0-9]*\)\/10$/\1/p') $rc"
}
if [ ! -x "$vt" ]; then
  bad "variants: $vt is not built (make $vt)"
elif ! "$vt" --write "$vdir" alice bob >"$vdir/write.err" 2>&1; then
  bad "variants: $vt --write failed: $(head -n 1 "$vdir/write.err")"
else
  for n in 1 5 6 8; do
    sa="$vdir/sheet-$n-alice.txt" sb="$vdir/sheet-$n-bob.txt"
    a="$vdir/0$n-alice.txt" b="$vdir/0$n-bob.txt"
    "$bin/tpu-lab" variant $n alice >"$sa" 2>&1; rca=$?
    "$bin/tpu-lab" variant $n Bob >"$sb" 2>&1; rcb=$?
    if [ $rca -eq 0 ] && [ $rcb -eq 0 ] && grep -q -- "--student alice\$" "$sa" \
       && grep -q '^#  *tpu-as --config' "$sa" && ! cmp -s "$sa" "$sb" \
       && ! grep -Eq '^[a-z0-9_]+ *= *[^ ]' "$sa" \
       && [ "$(grep -c '^[a-z0-9_]* =$' "$sa")" -eq "$(grep -c '^[a-z0-9_]* = ' "$a")" ]; then
      ok "lab $n: tpu-lab variant prints alice's questions and commands, no answers, not bob's"
    else
      bad "lab $n: tpu-lab variant (exit $rca, $rcb)"; sed 's/^/      /' "$sa"
    fi
    nd=$(diff <(grep -v '^#' "$a" | grep .) <(grep -v '^#' "$b" | grep .) | grep -c '^<')
    [ "$nd" -ge 1 ] && ok "lab $n: alice and bob differ in $nd answers" \
                    || bad "lab $n: alice and bob have the same answers"
    r_aa=$(vscore $n "$a" --student alice) r_ab=$(vscore $n "$a" --student bob)
    r_a0=$(vscore $n "$a") r_ra=$(vscore $n "$S/0$n-answers.txt" --student alice)
    r_bb=$(vscore $n "$b" --student BOB)
    r_00=$(vscore $n "$S/0$n-answers.txt")
    if [ "$r_aa" = "10 0" ] && [ "$r_bb" = "10 0" ] && [ "$r_00" = "10 0" ] \
       && [ "${r_ab#* }" = 1 ] && [ "${r_a0#* }" = 1 ] && [ "${r_ra#* }" = 1 ]; then
      ok "lab $n: alice's answers 10/10 as alice, ${r_ab% *} as bob, ${r_a0% *} without --student; the reference ${r_ra% *} as alice"
    else
      bad "lab $n: alice as alice '$r_aa', as bob '$r_ab', without '$r_a0'; bob '$r_bb'; reference '$r_00', as alice '$r_ra'"
    fi
  done
  # grade-class names the students after the files and folders
  vclass="$vdir/class"
  mkdir -p "$vclass/bob"
  cp "$vdir/05-alice.txt" "$vclass/alice.txt"
  cp "$vdir/05-alice.txt" "$vclass/bob/lab5.txt"
  "$bin/tpu-lab" grade-class 5 "$vclass" --csv "$vdir/class.csv" >"$vdir/class.out" 2>"$vdir/class.err"
  rc=$?
  if [ $rc -eq 0 ] && grep -q '^alice,.*,5,10,10,' "$vdir/class.csv" \
     && grep -q '^bob,.*,5,[0-9],10,' "$vdir/class.csv"; then
    ok "grade-class 5: alice's answers 10 for alice.txt, below for bob/"
  else
    bad "grade-class 5 with variants: exit $rc"; sed 's/^/      /' "$vdir/class.csv" "$vdir/class.err"
  fi
  # lab 8: the grader's answers are what the mutant does (only when it is built)
  bench="$(cd "$bin/.." && pwd)/rtl/lab8/rtl-bench" cosim="$(cd "$bin" && pwd)/tpu-cosim"
  if [ -x "$bench" ] && [ -x "$cosim" ]; then
    defs=$(sed -n 's/^#  *tpu-as --config tiny \(.*\) -o bug.bin .*/\1/p' "$vdir/sheet-8-alice.txt")
    # shellcheck disable=SC2086
    "$bin/tpu-as" --config tiny $defs -o "$vdir/bug.bin" programs/labs/08-find-bug.s
    (cd "$vdir" && "$cosim" --bench "$bench" bug.bin >cosim.txt 2>&1)
    want="$(sed -n 's/^cycle = //p' "$vdir/08-alice.txt") $(sed -n 's/^pc = //p' "$vdir/08-alice.txt") $(sed -n 's/^rtl_addr = //p' "$vdir/08-alice.txt")"
    got="$(sed -n 's/.*: cycle \([0-9]*\): core 0: records differ: dma .*in flight: pc \([0-9]*\) .*/\1 \2/p' "$vdir/cosim.txt" | head -n 1) $(sed -n 's/^ *RTL only: *hbm write dma \(0x[0-9a-f]*\) .*/\1/p' "$vdir/cosim.txt" | head -n 1)"
    [ -n "$defs" ] && [ "$got" = "$want" ] \
      && ok "lab 8: alice's variant ($defs) on the mutant: cycle, pc and address $got as graded" \
      || { bad "lab 8: alice's variant on the mutant: '$got', graded '$want'"; sed 's/^/      /' "$vdir/cosim.txt"; }
  else
    skip "lab 8: alice's variant on the mutant" "$bench not built: make lab8-mutant"
  fi
fi
# lab 8's patch applies to rtl/dma.v and changes the line of the reference answers
mkdir -p "$work/lab8-rtl" && cp rtl/dma.v "$work/lab8-rtl/dma.v"
if patch -s -d "$work/lab8-rtl" -p1 <$S/08-mutant.patch >"$work/lab8-rtl/patch.out" 2>&1; then
  pline=$(diff rtl/dma.v "$work/lab8-rtl/dma.v" | sed -n 's/^\([0-9]*\)c[0-9]*$/\1/p')
  [ "$pline" = "$(sed -n 's/^line = //p' $S/08-answers.txt)" ] \
    && ok "lab 8: the mutant's patch applies to rtl/dma.v, at the graded line $pline" \
    || bad "lab 8: the patch changes rtl/dma.v line '$pline', the answers say $(sed -n 's/^line = //p' $S/08-answers.txt) (LAB08_LINE in sim/lab/lab08.c)"
else
  bad "lab 8: programs/labs/solutions/08-mutant.patch does not apply to rtl/dma.v: $(head -n 1 "$work/lab8-rtl/patch.out")"
fi

finish labs
