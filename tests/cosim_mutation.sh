#!/usr/bin/env bash
# cosim_mutation.sh BIN_DIR GOOD_BENCH MUTANT_BENCH [+mutant=ID] - the
# mutation test (docs/cosim.md): proves that lockstep catches a rare RTL
# bug, names the right cycle, unit, field, values and instruction in
# flight, and writes the waveform of the cycles before it.
#
# MUTANT_BENCH with the plusarg (make cosim-mutation: tiny's meta-mutant
# bench, build/mutants/tiny/rtl-bench, and +mutant=86 of
# sim/cosim/mutants.def): in every MXU cell the product 1.5 x 3.0 has one
# wrong bit.  sim/cosim/mutation.s makes exactly one such product, in
# result row 2 of an mxu.mm on mxu0.  Checks:
#   1. GOOD_BENCH --lockstep passes the trigger program;
#   2. the cycle in which GOOD_BENCH writes result row 2 (from --verbose)
#      is the cycle T24 gives;
#   3. MUTANT_BENCH --lockstep fails, at that cycle, naming the mxu0 write
#      of that row on both sides, and no other record; the first line
#      names the unit, the word (column 5 of the row), the expected and
#      actual values (18.5, 20.5) and the mxu.mm in flight (pc and word
#      from the listing);
#   4. the waveform: tpu-cosim --bench MUTANT_BENCH writes PROG.fail.fst by
#      default and exits 1; --wave-cycles 10 writes cycles 17..26 only.
#      Checked from the FST header (block type 0, length 329, start and
#      end time: cycle t is at 10t, the file ends at the falling edge
#      after the edge that ends the failing cycle), and read back with
#      fst2vcd (GTKWave's): the mutant's wrong word on tr_mxu_data_o at the
#      failing cycle;
#   5. MUTANT_BENCH passes random programs (the bug is rare: random data
#      never makes that operand pair), so only a directed program finds it.
# Prints a TAP point per check (tests/checks.sh), stopping at the first
# failure, then "cosim mutation: ..." and exits 0 when all hold.
set -uo pipefail
usage="usage: cosim_mutation.sh BIN_DIR GOOD_BENCH MUTANT_BENCH [+mutant=ID]"
bin=${1:?$usage}
good=${2:?$usage}
mutant_bench=${3:?$usage}
plusarg=${4:-}
src=sim/cosim/mutation.s
work=$(mktemp -d "${TMPDIR:-/tmp}/cosim_mutation.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
# The mutant as one command (tpu-cosim --bench and cosim_random.sh run a
# bench by its path): the bench with the plusarg that selects the mutant.
mutant=$work/mutant-bench
printf '#!/bin/sh\nexec "%s" %s "$@"\n' "$(cd "$(dirname "$mutant_bench")" && pwd)/$(basename "$mutant_bench")" \
  "$plusarg" >"$mutant" && chmod +x "$mutant" || exit 2
cp "$(dirname "$mutant_bench")/rtl_config.h" "$work/" 2>/dev/null   # its config, for cosim_random.sh
source "$(dirname "$0")/checks.sh"   # ok, bad, diag, finish: TAP (tests/README.md)
# fail WHAT: a failed point; the checks after it need this one, so stop
fail() { bad "$*"; finish cosim-mutation; }

"$bin/tpu-as" --config tiny -o "$work/m.bin" --list "$src" >"$work/list" \
  || fail "tpu-as failed on $src"
# Y's address and N from the listing and the config: row 2 is at Y + 2*4N.
yaddr=$(awk '/Y:/ && $1 == "vmem" {print $2}' "$work/list")
[ -n "$yaddr" ] || fail "no Y in the listing of $src"
ok "tpu-as $src: Y at $yaddr"
n=8
row2=$(printf '0x%x' $((yaddr + 2 * 4 * n)))

# 1. the unmutated RTL passes
"$good" --lockstep "$work/m.bin" >"$work/good.log" 2>&1 \
  || { diag "$(cat "$work/good.log")"; fail "the unmutated RTL does not pass $src"; }
ok "the unmutated RTL passes $src in lockstep"

# 2. the cycle of result row 2: T24 says s + 2 + 2N; the stream issues in
#    cycle 7 and starts in 8 (T21: it does not wait for its weights, the
#    load wave of T20 stays ahead of it).
"$good" --lockstep --verbose "$work/m.bin" >"$work/verbose.log" 2>&1
cycle=$(awk -v a="$row2" '$5 == "write" && $6 == "mxu0" && $7 == a {sub(":", "", $1); print $1}' \
        "$work/verbose.log")
expect=$((8 + 2 + 2 * n))
[ "$cycle" = "$expect" ] \
  || fail "result row 2 ($row2) written in cycle '${cycle}', T24 says $expect"
ok "result row 2 ($row2) written in cycle $cycle, as T24 says"

# 3. the mutant fails at that cycle, on mxu0's write of row 2
if "$mutant" --lockstep "$work/m.bin" >"$work/mut.log" 2>&1; then
  diag "$(cat "$work/mut.log")"; fail "lockstep did not catch the mutant"
fi
ok "lockstep catches the mutant"
grep -q "cycle $cycle: core 0: records differ" "$work/mut.log" \
  || { diag "$(cat "$work/mut.log")"; fail "the mismatch is not reported at cycle $cycle"; }
ok "the mismatch is reported at cycle $cycle"
grep -q "^  RTL only:     vmem write mxu0 $row2 " "$work/mut.log" \
  || { diag "$(cat "$work/mut.log")"; fail "the RTL side does not name mxu0's write at $row2"; }
grep -q "^  C model only: vmem write mxu0 $row2 " "$work/mut.log" \
  || { diag "$(cat "$work/mut.log")"; fail "the C model side does not name mxu0's write at $row2"; }
[ "$(grep -c '^  ' "$work/mut.log")" -eq 2 ] \
  || { diag "$(cat "$work/mut.log")"; fail "more than the one differing record reported"; }
ok "the report names mxu0's write at $row2 on both sides, and no other record"
# the first line: unit, field, expected and actual, the instruction in flight
mmline=$(awk '$1 == "text" && $4 == "mxu.mm"' "$work/list")
mmpc=$(( $(awk '{print $2}' <<<"$mmline") ))
mmword=$(awk '{print $3}' <<<"$mmline")
[ -n "$mmword" ] || fail "no mxu.mm in the listing of $src"
word5=$(printf '0x%x' $((row2 + 5 * 4)))
want="cycle $cycle: core 0: records differ: mxu0 vmem write $row2: word 5 ($word5):"
want+=" expected 0x41940000 (18.5), actual 0x41a40000 (20.5);"
want+=" in flight: pc $mmpc 0x$mmword mxu.mm 0, s3, s4, s5, s2, s6, 1"
grep -qF "$want" "$work/mut.log" \
  || { diag "$(cat "$work/mut.log")"; fail "the report does not say: $want"; }
ok "the report names the word, both values and the mxu.mm in flight"

# 4. the waveform of the cycles before the mismatch.
# fst_times FILE: "START END" from the FST header block (type 0, 329
# bytes: 8-byte big-endian length, start time, end time, ...).
fst_times() {
  local h
  h=$(od -An -tx1 -N25 "$1" | tr -d ' \n')
  [ "${h:0:18}" = 000000000000000149 ] || { echo "bad"; return; }
  echo "$((16#${h:18:16})) $((16#${h:34:16}))"
}
cp "$work/m.bin" "$work/prog.bin"
"$bin/tpu-cosim" --bench "$mutant" "$work/prog.bin" >"$work/cosim.log" 2>&1
rc=$?
[ "$rc" = 1 ] || { diag "$(cat "$work/cosim.log")"; fail "tpu-cosim on the mutant exited $rc, not 1"; }
[ -s "$work/prog.fail.fst" ] || { diag "$(cat "$work/cosim.log")"; fail "tpu-cosim wrote no prog.fail.fst"; }
grep -q "waveform of cycles 0..$cycle in $work/prog.fail.fst" "$work/cosim.log" \
  || { diag "$(cat "$work/cosim.log")"; fail "tpu-cosim does not name the waveform"; }
ok "tpu-cosim on the mutant: exit 1, prog.fail.fst written and named"
end=$((10 * (cycle + 1) + 5))
times=$(fst_times "$work/prog.fail.fst")
[ "$times" = "0 $end" ] \
  || fail "prog.fail.fst: header times '$times', expected '0 $end' (cycles 0..$cycle)"
ok "prog.fail.fst holds cycles 0..$cycle"
"$mutant" --lockstep --wave-on-fail "$work/w10.fst" --wave-cycles 10 "$work/m.bin" \
  >"$work/w10.log" 2>&1
times=$(fst_times "$work/w10.fst")
from=$((cycle - 9))
[ "$times" = "$((10 * from)) $end" ] \
  || { diag "$(cat "$work/w10.log")"; fail "--wave-cycles 10: header times '$times', expected '$((10 * from)) $end'"; }
ok "--wave-cycles 10: the FST holds cycles $from..$cycle"
# fst2vcd (GTKWave's, installed by make deps) reads it back: the scope,
# and at time 10 x cycle the wrong word on tr_mxu_data_o (column 5 of the
# row: 20.5 = 0x41a40000 where the C model has 18.5).
command -v fst2vcd >/dev/null || fail "fst2vcd not found (Debian package gtkwave: make deps)"
fst2vcd "$work/prog.fail.fst" >"$work/w.vcd" 2>/dev/null \
  || fail "fst2vcd cannot read prog.fail.fst"
grep -q '^\$scope module core ' "$work/w.vcd" && grep -q ' tr_mxu_we_o ' "$work/w.vcd" \
  || fail "prog.fail.fst (fst2vcd): no TOP.core.tr_mxu_we_o"
word=$(awk -v t=$((10 * cycle)) -v w=5 '
  $1 == "$var" && $5 == "tr_mxu_data_o" && !id { id = $4; width = $3 }
  /^#/ { if (substr($0, 2) + 0 > t) exit; next }
  id && $2 == id && substr($1, 1, 1) == "b" { v = substr($1, 2) }
  END {
    if (!id || v == "") { print "none"; exit }
    while (length(v) < width) v = "0" v
    bits = substr(v, width - 32 * (w + 1) + 1, 32); x = 0
    for (i = 1; i <= 32; i++) x = x * 2 + substr(bits, i, 1)
    printf "0x%08x\n", x
  }' "$work/w.vcd")
[ "$word" = 0x41a40000 ] \
  || fail "prog.fail.fst (fst2vcd): tr_mxu_data_o word 5 at time $((10 * cycle)) is '$word', not the mutant's 0x41a40000"
ok "prog.fail.fst read back with fst2vcd: the mutant's word at cycle $cycle"
readback=", read back with fst2vcd (tr_mxu_data_o word 5 = 0x41a40000 at time $((10 * cycle)))"

# 5. random programs do not find it
bash tests/cosim_random.sh "$bin" "$mutant" 4 1 >"$work/rand.log" 2>&1 \
  || { diag "$(cat "$work/rand.log")"; fail "the mutant fails random programs (the bug should be rare)"; }
ok "the mutant passes 4 random programs (the bug is rare)"

echo "cosim mutation: caught at cycle $cycle, unit mxu0 (row $row2, word 5), mxu.mm at pc $mmpc" \
     "in flight; waveform of cycles 0..$cycle$readback; the unmutated RTL and 4 random programs pass"
finish cosim-mutation
