#!/usr/bin/env bash
# lockstep.sh BIN SC_BUILD - the SystemC lockstep top on the program
# regression: every run of tiny (the config the RTL was built for) in
# programs/manifest.txt (sim/cosim/manifest.sh), assembled with its -D
# values and run by tpu-sc-lockstep (RTL and C model on one sc_clock,
# records compared every cycle) on its cores (--cores K: one, or a ring),
# as sim/rtl/run_tests.sh runs them; each must end as its row says (halt,
# or the named run-time error: the top says that both stopped with an
# error, tpu-sim which one).  Then the checker's
# own tests: a byte flipped in the C model's memory after loading must be
# reported (an input the program reads: at the first differing record; a
# byte nobody touches: by the final memory comparison).
# Prints a TAP point per run and check (tests/checks.sh: a failure's log
# as "#" lines below it) and "systemc lockstep: P passed, F failed[, S
# skipped]"; exits 1 if anything failed, 2 on a bad manifest.
set -uo pipefail
bin=${1:?usage: lockstep.sh BIN SC_BUILD}
scb=${2:?usage: lockstep.sh BIN SC_BUILD}
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
top=$scb/tpu-sc-lockstep
cfg=tiny
work=$scb/lockstep
mkdir -p "$work" || exit 1
here=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=../../cosim/manifest.sh
. "$here/../../cosim/manifest.sh"
# shellcheck source=../../../tests/checks.sh
. "$here/../../../tests/checks.sh"   # ok, bad, skip, diag, finish: TAP (tests/README.md)
runs=$(manifest_runs "$cfg") || exit 2
while IFS=$'\t' read -r name src defs cores topo end _; do
  read -r -a optv <<< "$(manifest_asopts "$defs")"
  run="$src${optv[*]:+ ${optv[*]}}"
  [ "$cores" -gt 1 ] && run="$run (cores $cores, $topo)"
  # the lockstep top wires its cores as rtl/system.v: one, or a ring
  case "$topo" in
    single|ring) ;;
    *) skip "$run" "tpu-sc-lockstep wires a ring only"; continue ;;
  esac
  obj="$work/$name.bin" log="$work/$name.log"
  if ! "$bin/tpu-as" --config "$cfg" "${optv[@]}" -o "$obj" "$src" >"$log" 2>&1; then
    bad "$run: tpu-as failed"; diag "$(head -n 10 "$log")"
    continue
  fi
  if ! "$top" --cores "$cores" "$obj" >"$log" 2>&1; then
    bad "$run: $(tail -n 1 "$log")"; diag "$(head -n 20 "$log")"
    continue
  fi
  # both sides agree; did the run end as the manifest says?  The top names
  # how it ended (halt, error, cycle limit), tpu-sim the C model's error.
  how=$(sed -n 's/^tpu-sc-lockstep: [^:]*: \(halt\|error\|cycle limit\) after [0-9]* cycles: .*/\1/p' "$log" | tail -n 1)
  msg=
  if [ "$how" = error ]; then
    msg=$("$bin/tpu-sim" --config "$cfg" --cores "$cores" --quiet "$obj" 2>&1 >/dev/null | head -n 1)
  fi
  [ "$how" = "cycle limit" ] && how=limit
  if why=$(manifest_verdict "$end" "${how:-unknown}" "$msg"); then
    ok "$run: $(tail -n 1 "$log" | sed 's/^tpu-sc-lockstep: [^:]*: //')${msg:+ ($end)}"
  else
    bad "$run: $why"; diag "$(head -n 20 "$log")"
  fi
done <<< "$runs"

# The checker must object: FAULT, the message it must print.
fault() {
  local prog=$1 flt=$2 pat=$3 log="$work/fault.log"
  if "$top" --fault "$flt" "$work/$prog.bin" >"$log" 2>&1; then
    bad "fault $flt in $prog: not detected"
  elif ! grep -q -- "$pat" "$log"; then
    bad "fault $flt in $prog: no '$pat' in its output"; diag "$(head -n 5 "$log")"
  else
    ok "fault $flt in $prog: $(grep -m1 -- "$pat" "$log")"
  fi
}
fault matmul_tile vmem:0x2 "cycle 24: core 0: records differ"
fault matmul_tile vmem:0x30000 "VMEM differs at 0x30000: RTL 0x00, C model 0xff"
fault matmul hbm:0xfffff0 "HBM differs at 0xfffff0: RTL 0x00, C model 0xff"
# two cores: core 0's flipped input travels to core 1 (records), and a byte
# nobody touches shows in core 0's memory at the end
fault2() {
  local prog=$1 flt=$2 pat=$3 log="$work/fault.log"
  if "$top" --cores 2 --fault "$flt" "$work/$prog.bin" >"$log" 2>&1; then
    bad "fault $flt in $prog (2 cores): not detected"
  elif ! grep -q -- "$pat" "$log"; then
    bad "fault $flt in $prog (2 cores): no '$pat' in its output"; diag "$(head -n 5 "$log")"
  else
    ok "fault $flt in $prog (2 cores): $(grep -m1 -- "$pat" "$log")"
  fi
}
fault2 ici_exchange vmem:0x0 "core 1: records differ"
fault2 ici_exchange hbm:0x7ffff0 "core 0: HBM differs at 0x7ffff0"

# Bad command lines: exit 2 and a message.
usage() {
  local pat=$1; shift
  local err rc
  err=$("$top" "$@" 2>&1 >/dev/null); rc=$?
  local args="${*#"$work/"}"
  if [ $rc -eq 2 ] && grep -q -- "$pat" <<<"$err"; then ok "tpu-sc-lockstep${args:+ $args}: exit 2, '$pat'"
  else bad "tpu-sc-lockstep${args:+ $args}: exit $rc, want 2 and '$pat': $err"; fi
}
usage "no program given"
usage "unknown option '--bogus'" --bogus "$work/matmul.bin"
usage "bad --max-cycles 'x'" --max-cycles x "$work/matmul.bin"
usage "bad --fault 'rom:1'" --fault rom:1 "$work/matmul.bin"
usage "bad --cores '0' (1 to 16)" --cores 0 "$work/matmul.bin"
usage "bad --cores '17' (1 to 16)" --cores 17 "$work/matmul.bin"
usage "error: $work/nosuch.bin: No such file" "$work/nosuch.bin"
if "$top" --help | grep -q '^usage: tpu-sc-lockstep'; then ok "tpu-sc-lockstep --help: the usage"
else bad "tpu-sc-lockstep --help: no 'usage: tpu-sc-lockstep'"; fi

finish "systemc lockstep"
