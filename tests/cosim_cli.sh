#!/usr/bin/env bash
# cosim_cli.sh BIN_DIR - tpu-cosim as a user meets it (needs the tiny RTL
# bench, build/rtl/tiny/rtl-bench, built by make test first):
#   - a bad --config gets tpu-rtlcfg's message and exit 2, no make error;
#   - a program that stops with a run-time error on both sides says
#     "both stopped: ... matched" and exits 3, or 0 with --expect-error;
#     one that halts with --expect-error exits 1;
#   - a --bench that fails without a report says so;
#   - Ctrl-C (SIGINT, and SIGTERM) stops the lockstep run at a cycle
#     boundary: "interrupted at cycle N", exit 130, and a --wave FST that
#     fst2vcd reads to its end.
# Prints a TAP point per check (tests/checks.sh), then "cosim-cli: N passed,
# M failed"; exits non-zero on any failure.
set -uo pipefail
bin=${1:?usage: cosim_cli.sh BIN_DIR}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "$0")/checks.sh"   # ok, bad, skip, run_check, finish: TAP (tests/README.md)

cosim=$bin/tpu-cosim
run_check "bad --config" 2 "^tpu-cosim: error: --config nosuch: .*unknown preset" -- "$cosim" --config nosuch /dev/null
out=$("$cosim" --config nosuch /dev/null 2>&1)
if grep -q "make" <<<"$out"; then bad "bad --config mentions make: $out"; else ok "bad --config: no word of make"; fi

"$bin/tpu-as" --config tiny -o "$tmp/err.bin" sim/rtl/progs/err_illegal.s || bad "assemble err_illegal.s"
"$bin/tpu-as" --config tiny -o "$tmp/ok.bin" sim/rtl/progs/scalar.s || bad "assemble scalar.s"
run_check "run-time error on both sides" 3 \
  "^tpu-cosim: both stopped: core 0: cycle [0-9]+: pc 2 .*illegal.* at cycle [0-9]+, matched" \
  -- "$cosim" "$tmp/err.bin"
run_check "--expect-error, error"        0 "both stopped: .*, matched" -- "$cosim" --expect-error "$tmp/err.bin"
run_check "--expect-error, halt"         1 "expected a run-time error" -- "$cosim" --expect-error "$tmp/ok.bin"
run_check "halt"                         0 "^tpu-cosim: matched [0-9]+ cycles, [0-9]+ records" -- "$cosim" "$tmp/ok.bin"
run_check "--mode rtl, error"            3 "both stopped:" -- "$cosim" --mode rtl "$tmp/err.bin"
run_check "cycle limit on both sides"    3 "both stopped: cycle limit at cycle 3, matched" \
  -- "$cosim" --max-cycles 3 "$tmp/ok.bin"
run_check "--bench that fails"           1 "the bench failed \(exit 1\) without a report" \
  -- "$cosim" --bench /bin/false "$tmp/ok.bin"
run_check "--bench missing"              2 "no rtl-bench" -- "$cosim" --bench "$tmp/nosuch" "$tmp/ok.bin"

# Ctrl-C: a loop of 100 million iterations (minutes in lockstep),
# signalled a second after the bench has opened its waveform (tpu-cosim
# first asks make whether the bench is up to date, which on a host busy
# with make test's other suites took more than the two seconds this test
# used to wait).  (The background job is given the signal by kill:
# tpu-cosim passes it on to the bench.)
printf '        li s1, 100000000\nloop:   addi s1, s1, -1\n        bne s1, zero, loop\n        halt\n' \
  > "$tmp/long.s"
"$bin/tpu-as" --config tiny -o "$tmp/long.bin" "$tmp/long.s" || bad "assemble the long loop"
. "$(dirname "$0")/signals.sh"      # run_signalled, set -m
for sig in INT TERM; do
  run_signalled "$sig" "@$tmp/long-$sig.fst" "$tmp/int-$sig.log" "$tmp/int-$sig.err" \
    "$cosim" --wave "$tmp/long-$sig.fst" "$tmp/long.bin"
  cat "$tmp/int-$sig.err" >>"$tmp/int-$sig.log"
  if [ "$status" = 130 ]; then ok "SIG$sig: exit 130"; else bad "SIG$sig: exit $status, want 130"; diag "$(tail -3 "$tmp/int-$sig.log")"; fi
  if grep -qE "interrupted at cycle [0-9]+: every cycle before it matched" "$tmp/int-$sig.log" \
     && grep -q "^tpu-cosim: interrupted" "$tmp/int-$sig.log"; then ok "SIG$sig: the 'interrupted at cycle N' report"
  else bad "SIG$sig: no 'interrupted' report"; diag "$(tail -3 "$tmp/int-$sig.log")"; fi
  if command -v fst2vcd >/dev/null; then
    if fst2vcd "$tmp/long-$sig.fst" 2>/dev/null | tail -n 2 | grep -q '^#'; then ok "SIG$sig: the --wave FST reads back to its end"
    else bad "SIG$sig: the --wave FST does not read back to its end"; fi
  else skip "SIG$sig: the --wave FST reads back to its end" "no fst2vcd (gtkwave: make deps)"
  fi
done

finish cosim-cli
