#!/usr/bin/env bash
# rtl_instr.sh - host instructions per simulated cycle of a lockstep run:
# exact and repeatable where CPU times on a shared host vary by 10-20%
# (docs/cosim.md, "Where the RTL's time goes", used it to steer the RTL's
# speed work).  Runs BENCH --lockstep OBJ under valgrind's callgrind twice,
# whole and with --max-cycles 1 (construction, backdoor load, final memory
# comparison), and prints the difference: the running part.
#
#   sim/scripts/rtl_instr.sh BENCH OBJ CYCLES
#   e.g. sim/scripts/rtl_instr.sh build/rtl/tiny/rtl-bench build/bench/rtl-matmul-tiny.bin 75862
#
# CYCLES is the run's cycle count (rtl-bench prints it).  For a per-line
# profile add --dump-instr=yes to a -g build and read it with
# callgrind_annotate; for mispredicted branches use
# `valgrind --tool=cachegrind --cache-sim=no --branch-sim=yes`.
set -euo pipefail
if [ "${1:-}" = --help ] || [ "${1:-}" = -h ]; then
  sed -n '2,/^set /p' "$0" | sed '$d; s/^# \{0,1\}//'
  exit 0
fi
if [ $# -ne 3 ]; then
  echo "usage: rtl_instr.sh BENCH OBJ CYCLES (--help for more)" >&2
  exit 2
fi
bench=$1 obj=$2 cycles=$3
command -v valgrind >/dev/null || { echo "rtl_instr.sh: valgrind not found (apt-get install -y valgrind)" >&2; exit 2; }
[ -x "$bench" ] || { echo "rtl_instr.sh: $bench: not an executable bench" >&2; exit 2; }
[ -r "$obj" ] || { echo "rtl_instr.sh: $obj: cannot read the object file" >&2; exit 2; }
case $cycles in '' | *[!0-9]* | 0) echo "rtl_instr.sh: CYCLES must be a positive number, not '$cycles'" >&2; exit 2 ;; esac
instr() {  # instr ARGS...: instructions callgrind counted for the bench with ARGS
  local out
  out=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bench" --lockstep "$@" 2>&1) ||
    { echo "rtl_instr.sh: $bench --lockstep $*: failed:" >&2; echo "$out" | tail -3 >&2; exit 1; }
  echo "$out" | awk '/Collected :/ { print $4 }'
}
full=$(instr "$obj")
once=$(instr --max-cycles 1 "$obj")
awk -v f="$full" -v o="$once" -v c="$cycles" 'BEGIN {
  printf "running: %.0f instructions, %.0f per cycle (whole run %.0f, start and end %.0f)\n", f - o, (f - o) / c, f, o }'
