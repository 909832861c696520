#!/usr/bin/env bash
# cosim_mutation.sh BIN_DIR GOOD_BENCH MUTANT_BENCH - the mutation test
# (docs/cosim.md): proves that lockstep catches a rare RTL bug and names
# the right cycle and unit.
#
# MUTANT_BENCH is the tiny RTL built with +define+TPU_MUTATION (make
# cosim-mutant): in MXU cell (3, 5) the product 1.5 x 3.0 has one wrong
# bit.  sim/cosim/mutation.s makes exactly one such product, in result row
# 2 of an mxu.mm on mxu0.  Checks:
#   1. GOOD_BENCH --lockstep passes the trigger program;
#   2. the cycle in which GOOD_BENCH writes result row 2 (from --verbose)
#      is the cycle T24 gives;
#   3. MUTANT_BENCH --lockstep fails, at that cycle, naming the mxu0 write
#      of that row on both sides, and no other record;
#   4. MUTANT_BENCH passes random programs (the bug is rare: random data
#      never makes that operand pair), so only a directed program finds it.
# Prints "cosim mutation: ..." and exits 0 when all hold.
set -uo pipefail
usage="usage: cosim_mutation.sh BIN_DIR GOOD_BENCH MUTANT_BENCH"
bin=${1:?$usage}
good=${2:?$usage}
mutant=${3:?$usage}
src=sim/cosim/mutation.s
work=$(mktemp -d "${TMPDIR:-/tmp}/cosim_mutation.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
fail() { echo "cosim mutation: FAIL: $*"; exit 1; }

"$bin/tpu-as" --config tiny -o "$work/m.bin" --list "$src" >"$work/list" \
  || fail "tpu-as failed on $src"
# Y's address and N from the listing and the config: row 2 is at Y + 2*4N.
yaddr=$(awk '/Y:/ && $1 == "vmem" {print $2}' "$work/list")
[ -n "$yaddr" ] || fail "no Y in the listing of $src"
n=8
row2=$(printf '0x%x' $((yaddr + 2 * 4 * n)))

# 1. the unmutated RTL passes
"$good" --lockstep "$work/m.bin" >"$work/good.log" 2>&1 \
  || { cat "$work/good.log"; fail "the unmutated RTL does not pass $src"; }

# 2. the cycle of result row 2: T24 says s + 2 + 2N; the stream starts N
#    cycles after the lw (T21), which issues in cycle 2 and starts in 3.
"$good" --lockstep --verbose "$work/m.bin" >"$work/verbose.log" 2>&1
cycle=$(awk -v a="$row2" '$5 == "write" && $6 == "mxu0" && $7 == a {sub(":", "", $1); print $1}' \
        "$work/verbose.log")
expect=$((3 + n + 2 + 2 * n))
[ "$cycle" = "$expect" ] \
  || fail "result row 2 ($row2) written in cycle '${cycle}', T24 says $expect"

# 3. the mutant fails at that cycle, on mxu0's write of row 2
if "$mutant" --lockstep "$work/m.bin" >"$work/mut.log" 2>&1; then
  cat "$work/mut.log"; fail "lockstep did not catch the mutant"
fi
grep -q "cycle $cycle: core 0: records differ" "$work/mut.log" \
  || { cat "$work/mut.log"; fail "the mismatch is not reported at cycle $cycle"; }
grep -q "^  RTL only:     vmem write mxu0 $row2 " "$work/mut.log" \
  || { cat "$work/mut.log"; fail "the RTL side does not name mxu0's write at $row2"; }
grep -q "^  C model only: vmem write mxu0 $row2 " "$work/mut.log" \
  || { cat "$work/mut.log"; fail "the C model side does not name mxu0's write at $row2"; }
[ "$(grep -c '^  ' "$work/mut.log")" -eq 2 ] \
  || { cat "$work/mut.log"; fail "more than the one differing record reported"; }

# 4. random programs do not find it
bash tests/cosim_random.sh "$bin" "$mutant" 4 1 >"$work/rand.log" 2>&1 \
  || { cat "$work/rand.log"; fail "the mutant fails random programs (the bug should be rare)"; }

echo "cosim mutation: caught at cycle $cycle, unit mxu0 (row $row2); the unmutated RTL and 4 random programs pass"
