#!/usr/bin/env bash
# lockstep.sh BIN SC_BUILD - the SystemC lockstep top on the program
# regression: programs/*.s and the RTL's directed tests sim/rtl/progs/*.s,
# assembled for the config the RTL was built for (tiny), each run by
# tpu-sc-lockstep (RTL and C model on one sc_clock, records compared every
# cycle).  programs/pointwise.s runs once per operation.  Programs whose
# object sends over ICI (their own dma.ici or an .include's) run on two
# cores in a ring (--cores 2, with -D K=2 when they take a K), as
# sim/rtl/run_tests.sh runs them on rtl-bench2, and the collectives on a
# ring of four (--cores 4, -D K=4) as on rtl-bench4.  Then the checker's
# own tests: a byte flipped in the C model's memory after loading must be
# reported (an input the program reads: at the first differing record; a
# byte nobody touches: by the final memory comparison).
# Prints one line per program and a summary; exits 1 if anything failed.
set -uo pipefail
bin=${1:?usage: lockstep.sh BIN SC_BUILD}
scb=${2:?usage: lockstep.sh BIN SC_BUILD}
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
top=$scb/tpu-sc-lockstep
cfg=tiny
work=$scb/lockstep
mkdir -p "$work" || exit 1
pass=0; fail=0; skip=0
shopt -s nullglob
runs=()
for src in programs/*.s sim/rtl/progs/*.s; do
  if [ "$(basename "$src")" = pointwise.s ]; then
    runs+=("$src -D OP=0" "$src -D OP=1" "$src -D OP=2")
  else
    runs+=("$src")
  fi
done
runs+=("programs/allgather.s -D K=4" "programs/allreduce.s -D K=4"
       "programs/reducescatter.s -D K=4" "programs/alltoall.s -D K=4"
       "programs/matmul_collective.s -D K=4")
for run in "${runs[@]}"; do
  read -r src opts <<< "$run"
  read -r -a optv <<< "${opts:-}"
  name=$(basename "$src" .s)$(echo "${opts:-}" | tr -d ' =-' | sed 's/^D/_/')
  obj="$work/$name.bin" log="$work/$name.log"
  if ! "$bin/tpu-as" --config "$cfg" "${optv[@]}" -o "$obj" "$src" >"$log" 2>&1; then
    echo "FAIL  $run: tpu-as failed"
    sed 's/^/      /' "$log" | head -n 10
    fail=$((fail + 1))
    continue
  fi
  cores=1
  # (grep reads all of tpu-dis's output: with pipefail, grep -q's early exit
  # would fail the pipeline on tpu-dis's SIGPIPE and run a long one on one core)
  if "$bin/tpu-dis" "$obj" 2>/dev/null | grep 'dma\.ici' >/dev/null; then
    cores=2
    case " ${opts:-} " in
      *" K=4 "*) cores=4 ;;
      *) if grep -q '^ *\.equ *K,' "$src"; then
           optv+=(-D K=2)
           "$bin/tpu-as" --config "$cfg" "${optv[@]}" -o "$obj" "$src" >"$log" 2>&1
         fi ;;
    esac
    run="$run (cores $cores)"
  fi
  if "$top" --cores "$cores" "$obj" >"$log" 2>&1; then
    echo "ok    $run: $(tail -n 1 "$log" | sed 's/^tpu-sc-lockstep: [^:]*: //')"
    pass=$((pass + 1))
  else
    echo "FAIL  $run"
    sed 's/^/      /' "$log" | head -n 20
    fail=$((fail + 1))
  fi
done

# The checker must object: FAULT, the message it must print.
fault() {
  local prog=$1 flt=$2 pat=$3 log="$work/fault.log"
  if "$top" --fault "$flt" "$work/$prog.bin" >"$log" 2>&1; then
    echo "FAIL  fault $flt in $prog: not detected"; fail=$((fail + 1))
  elif ! grep -q -- "$pat" "$log"; then
    echo "FAIL  fault $flt in $prog: no '$pat' in:"; sed 's/^/      /' "$log" | head -n 5
    fail=$((fail + 1))
  else
    echo "ok    fault $flt in $prog: $(grep -m1 -- "$pat" "$log")"; pass=$((pass + 1))
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
    echo "FAIL  fault $flt in $prog (2 cores): not detected"; fail=$((fail + 1))
  elif ! grep -q -- "$pat" "$log"; then
    echo "FAIL  fault $flt in $prog (2 cores): no '$pat' in:"; sed 's/^/      /' "$log" | head -n 5
    fail=$((fail + 1))
  else
    echo "ok    fault $flt in $prog (2 cores): $(grep -m1 -- "$pat" "$log")"; pass=$((pass + 1))
  fi
}
fault2 ici_exchange vmem:0x0 "core 1: records differ"
fault2 ici_exchange hbm:0x7ffff0 "core 0: HBM differs at 0x7ffff0"

# Bad command lines: exit 2 and a message.
usage() {
  local pat=$1; shift
  local err rc
  err=$("$top" "$@" 2>&1 >/dev/null); rc=$?
  if [ $rc -eq 2 ] && grep -q -- "$pat" <<<"$err"; then pass=$((pass + 1))
  else echo "FAIL  tpu-sc-lockstep $*: exit $rc: $err"; fail=$((fail + 1)); fi
}
usage "no program given"
usage "unknown option '--bogus'" --bogus "$work/matmul.bin"
usage "bad --max-cycles 'x'" --max-cycles x "$work/matmul.bin"
usage "bad --fault 'rom:1'" --fault rom:1 "$work/matmul.bin"
usage "bad --cores '0' (1 to 16)" --cores 0 "$work/matmul.bin"
usage "bad --cores '17' (1 to 16)" --cores 17 "$work/matmul.bin"
usage "error: $work/nosuch.bin: No such file" "$work/nosuch.bin"
if "$top" --help | grep -q '^usage: tpu-sc-lockstep'; then pass=$((pass + 1))
else echo "FAIL  tpu-sc-lockstep --help"; fail=$((fail + 1)); fi

echo "systemc lockstep: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
