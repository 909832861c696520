#!/usr/bin/env bash
# run.sh BIN SC_BUILD - the SystemC tests (make systemc-test):
#   1. test_tlm: TLM responses, registers, DMI, debug transport, runs (cmocka);
#   2. tpu-vp on the example programs' one-core runs of tiny that halt
#      (programs/manifest.txt, through sim/cosim/manifest.sh), assembled for
#      tiny: results bit-exact over TLM, and the run takes exactly the
#      cycles tpu-sim reports, one clock period each;
#   3. tpu-vp's errors: bad command lines, objects that do not fit, runs that
#      do not halt;
#   4. the SystemC lockstep top (RTL and C model on one sc_clock) on the
#      program regression, when it was built (SC_LOCKSTEP=0 skips it).
#   Prints a TAP point per check (tests/checks.sh) and "systemc tests: P
#   passed, F failed[, S skipped]"; exits 1 if anything failed.
set -uo pipefail
bin=${1:?usage: run.sh BIN SC_BUILD}
scb=${2:?usage: run.sh BIN SC_BUILD}
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
out=$scb/programs
mkdir -p "$out"
here=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=../../../tests/checks.sh
. "$here/../../../tests/checks.sh"   # ok, bad, skip, relay, finish: TAP (tests/README.md)

# sub NAME STATUS FILE: the TAP points of a child (FILE) as points of this
# script, and one failed point more when it exited non-zero without one
sub() {
  local name=$1 st=$2 file=$3 before=$fail
  relay < <(grep -v '^1\.\.[0-9]*$' "$file") || bad "$name: no test ran"
  if [ "$st" -ne 0 ] && [ "$fail" -eq "$before" ]; then
    bad "$name: exit $st"; diag "$(tail -n 5 "$file")"
  fi
}

# ---- 1. the TLM unit tests ----------------------------------------------------------
CMOCKA_MESSAGE_OUTPUT=TAP "$scb/test_tlm" > "$out/test_tlm.tap" 2>&1
st=$?
sed -i -E 's/^((not )?ok [0-9]+) - /\1 - test_tlm: /' "$out/test_tlm.tap"
sub test_tlm "$st" "$out/test_tlm.tap"

# ---- 2. the virtual platform on the example programs --------------------------------
# the one-core runs of tiny in programs/manifest.txt that halt, of the
# example programs (programs/: every one has .expect records)
. sim/cosim/manifest.sh
runs=$(manifest_runs tiny) || exit 2
while IFS=$'\t' read -r name src defs cores topo end _; do
  [ "$cores" = 1 ] && [ "$topo" = single ] && [ "$end" = halt ] && [ "${src#programs/}" != "$src" ] || continue
  read -r -a optv <<< "$(manifest_asopts "$defs")"
  obj=$out/$name.bin
  if ! "$bin/tpu-as" --config tiny "${optv[@]}" "$src" -o "$obj" > "$out/$name.as.log" 2>&1; then
    bad "tpu-vp $name: tpu-as failed"; diag "$(head -n 5 "$out/$name.as.log")"; continue
  fi
  want=$("$bin/tpu-sim" --json "$obj" | sed -n 's/.*"cycles": \([0-9]*\).*/\1/p')
  for mode in "" --dmi; do
    log=$out/$name${mode}.log
    what="tpu-vp $mode${mode:+ }$name"
    if ! "$scb/tpu-vp" $mode "$obj" > "$log" 2>&1; then
      bad "$what: $(tail -n 1 "$log")"; continue
    fi
    cyc=$(sed -n 's/.*halt after \([0-9]*\) cycles (\([0-9]*\) clock periods.*/\1 \2/p' "$log")
    if ! grep -q '^result: bit-exact' "$log"; then
      bad "$what: $(grep '^result' "$log" || echo 'no result line')"
    elif [ -z "$want" ] || [ "$cyc" != "$want $want" ]; then
      bad "$what: cycles and clock periods '$cyc', tpu-sim says $want"
    else
      ok "$what: $want cycles as tpu-sim, bit-exact over TLM$(sed -n 's/.*: \([0-9]* simulated cycles per host second\)/; \1/p' "$log")"
    fi
  done
done <<< "$runs"

# ---- 3. tpu-vp's error handling -------------------------------------------------------
# expect STATUS PATTERN CMD...: exit status and a line of stderr
expect() {
  local want=$1 pat=$2; shift 2
  local err rc
  err=$("$@" 2>&1 >/dev/null); rc=$?
  if [ $rc -ne "$want" ]; then bad "${*#"$scb/"}: exit $rc, expected $want ($err)"
  elif ! grep -q -- "$pat" <<<"$err"; then bad "${*#"$scb/"}: no '$pat' in: $err"
  else ok "${*#"$scb/"}: exit $want, '$pat'"; fi
}
vp=$scb/tpu-vp
expect 2 "no program given" "$vp"
expect 2 "unknown option '--bogus'" "$vp" --bogus "$out/matmul.bin"
expect 2 "more than one program" "$vp" "$out/matmul.bin" "$out/matmul.bin"
expect 2 "is not a cycle count" "$vp" --max-cycles lots "$out/matmul.bin"
expect 2 "needs a value" "$vp" --config
expect 2 "--config nosuch" "$vp" --config nosuch "$out/matmul.bin"
expect 3 "nosuch.bin" "$vp" "$out/nosuch.bin"
printf 'not an object' > "$out/garbage.bin"
expect 3 "tpu-vp: error: .*garbage.bin: bad magic" "$vp" "$out/garbage.bin"
"$bin/tpu-as" --config v5e programs/matmul_tile.s -o "$out/matmul_tile_v5e.bin"
expect 3 "assembled for mxu_n = 128, the core has 8" "$vp" --config tiny "$out/matmul_tile_v5e.bin"
expect 3 "cycle limit reached (10 cycles)" "$vp" --max-cycles 10 "$out/matmul.bin"
printf '        li s1, 0x7ffffff0\n        vld v0, s1, 0\n        halt\n' > "$out/bad_vld.s"
"$bin/tpu-as" --config tiny "$out/bad_vld.s" -o "$out/bad_vld.bin"
expect 3 "ERROR 1): core 0: cycle 1: pc 1 (vld v0, s1, 0)" "$vp" "$out/bad_vld.bin"
if "$vp" --help | grep -q '^usage: tpu-vp'; then ok "tpu-vp --help: the usage"; else bad "tpu-vp --help: no 'usage: tpu-vp'"; fi

# ---- 4. the SystemC lockstep top --------------------------------------------------------
if [ "${SC_LOCKSTEP:-1}" = 0 ]; then
  skip "the SystemC lockstep top" "SC_LOCKSTEP=0"
elif [ ! -x "$scb/tpu-sc-lockstep" ]; then
  skip "the SystemC lockstep top" "$scb/tpu-sc-lockstep not built (make systemc-build)"
else
  bash "$here/lockstep.sh" "$bin" "$scb" > "$out/lockstep.tap" 2>&1
  sub lockstep.sh $? "$out/lockstep.tap"
fi

finish "systemc tests"
