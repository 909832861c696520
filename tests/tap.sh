#!/usr/bin/env bash
# tap.sh WORK_DIR - the test dialect's own machinery (tests/README.md):
# tests/checks.sh's helpers (relay of numbered and unnumbered points and
# skips, finish's line and status), tests/tap-wrap.sh (one numbering, the
# exit status as a point, every other line a comment, the old "ok    NAME"
# and "FAIL  NAME" reports no longer points), and the fuzz runner's
# bookkeeping (tests/fuzz/run.sh fails when it finds no target;
# tests/fuzz/report.sh sums tests/fuzz/log.tsv per target).  No build
# needed; a few seconds.
set -uo pipefail
work=${1:?usage: tap.sh WORK_DIR}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work" && work=$(cd "$work" && pwd) || exit 1
source "$here/checks.sh"   # ok, bad, run_check, check, finish: TAP (tests/README.md)

# ---- checks.sh: relay and finish, in a child shell --------------------------------
cat >"$work/child.sh" <<EOF
source "$here/checks.sh"
relay <<'IN'
ok 7 - numbered
not ok 8 - numbered failure
ok - unnumbered
not ok - unnumbered failure
ok 9 - skipped # SKIP no tool here
ok    the old report line
FAIL  the old failure line
# a comment
IN
finish child
EOF
bash "$work/child.sh" >"$work/child.out" 2>&1
st=$?
check 'a == 1' "finish: exit 1 after a failed point" "$st"
n=$(grep -cE '^(not )?ok [0-9]+ - ' "$work/child.out")
check 'a == 5' "relay: 5 points from numbered and unnumbered TAP (not the old lines)" "$n"
check 'a == 1' "relay: the numbers are the relaying script's (1-5)" \
  "$(grep -E '^(not )?ok [0-9]+ ' "$work/child.out" | awk '{ n++; if ($0 !~ "^(not )?ok " n " ") bad = 1 } END { print !bad && n == 5 }')"
run_check "relay: an unnumbered failure stays a failure" 0 '^not ok 4 - unnumbered failure$' -- cat "$work/child.out"
run_check "relay: a skip keeps its reason" 0 '^ok 5 - skipped # SKIP no tool here$' -- cat "$work/child.out"
run_check "relay: the old lines are passed on as text" 0 '^FAIL  the old failure line$' -- cat "$work/child.out"
run_check "finish: the summary line" 0 '^child: 2 passed, 2 failed, 1 skipped$' -- cat "$work/child.out"

# ---- tap-wrap.sh ----------------------------------------------------------------------
cat >"$work/wrapped.sh" <<'EOF'
echo "ok 1 - first"
echo "1..1"
echo "ok 1 - second, numbered again by its own script"
echo "ok    an old report line"
echo "FAIL  an old failure"
echo "skip  an old skip"
echo "not ok 2 - third"
exit 3
EOF
bash "$here/tap-wrap.sh" wrapped bash "$work/wrapped.sh" >"$work/wrapped.tap" 2>&1
st=$?
check 'a == 0' "tap-wrap: exits 0 (prove reads the points)" "$st"
run_check "tap-wrap: one numbering" 0 '^ok 2 - second' -- cat "$work/wrapped.tap"
run_check "tap-wrap: a failure renumbered" 0 '^not ok 3 - third$' -- cat "$work/wrapped.tap"
run_check "tap-wrap: the exit status is the last point" 0 '^not ok 4 - wrapped \(exit 3\)$' -- cat "$work/wrapped.tap"
run_check "tap-wrap: the plan" 0 '^1\.\.4$' -- tail -n 1 "$work/wrapped.tap"
run_check "tap-wrap: the old report lines are comments" 0 '^# FAIL  an old failure$' -- cat "$work/wrapped.tap"
check 'a == 4' "tap-wrap: 4 points in all" "$(grep -cE '^(not )?ok [0-9]+' "$work/wrapped.tap")"

# ---- the fuzz runner and its log --------------------------------------------------------
mkdir -p "$work/nofuzz"
run_check "fuzz/run.sh: no target is a failure" 1 'not ok 1 - fuzz: no fuzz target in .*nofuzz' -- \
  bash "$here/fuzz/run.sh" "$work/nofuzz" 1
run_check "fuzz/run.sh: FUZZ_ONLY naming no target is a failure" 1 "no fuzz target in .* named 'bogus'" -- \
  env FUZZ_ONLY=bogus bash "$here/fuzz/run.sh" "$work/nofuzz" 1
printf 'date\tcommit\ttarget\tseconds\tcpu_s\texecs\tcov\tft\tcorpus\tcrashes\n' >"$work/log.tsv"
printf '2026-11-27T18:00:00Z\tabc\tasm\t900\t800.5\t1000\t10\t20\t30\t0\n' >>"$work/log.tsv"
printf '2026-11-27T18:15:00Z\tabc\tnpy\t900\t850\t5000\t5\t6\t7\t0\n' >>"$work/log.tsv"
printf '2026-11-28T10:00:00Z\tdef\tasm\t900\t899.5\t2000\t12\t25\t40\t1\n' >>"$work/log.tsv"
run_check "fuzz/report.sh: asm's two runs summed (1700 CPU s, 3000 execs, 1900 to the hour)" 0 \
  '^asm +2 +1700 +3000 +12 +25 +40 +1 +1900  2026-11-28 def$' -- bash "$here/fuzz/report.sh" "$work/log.tsv"
run_check "fuzz/report.sh: npy's one run" 0 '^npy +1 +850 +5000 +5 +6 +7 +0 +2750 ' -- \
  bash "$here/fuzz/report.sh" "$work/log.tsv"
run_check "fuzz/report.sh: a goal of 1000 s reached is 0 to go" 0 '^asm +2 +1700 .* 0  2026' -- \
  bash "$here/fuzz/report.sh" "$work/log.tsv" 1000
printf 'x\ty\n' >>"$work/log.tsv"
run_check "fuzz/report.sh: a short line is an error with its line" 2 'log.tsv:5: error: 2 fields, want 10' -- \
  bash "$here/fuzz/report.sh" "$work/log.tsv"
run_check "fuzz/report.sh: no log is an error" 2 'error: no fuzz log' -- \
  bash "$here/fuzz/report.sh" "$work/nosuch.tsv"
run_check "fuzz/report.sh: a bad goal is an error" 2 "error: GOAL 'x' is not a number" -- \
  bash "$here/fuzz/report.sh" "$work/log.tsv" x
finish tap
