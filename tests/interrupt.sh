#!/usr/bin/env bash
# interrupt.sh BIN_DIR - Ctrl-C and SIGTERM as a user meets them, and the
# progress line (sim/interrupt.h, sim/progress.h):
#   - tpu-sim on a loop of 1e8 iterations with --timeline and --vcd, sent
#     SIGINT: exit 130, "stop: interrupted at cycle N" in the report, the
#     timeline is valid JSON, the VCD ends with a whole line, at or before
#     cycle N; SIGTERM with --json: a JSON report whose stop is "interrupted";
#   - the progress line: shown with TPU_PROGRESS=1, absent when stderr is
#     not a terminal;
#   - tpu-vp (SystemC), sent SIGINT: exit 130, "interrupted at cycle N", and
#     no SystemC banner;
#   - tpu-lab grade-class, sent SIGINT: exit 130, a CSV of the submissions
#     graded so far;
#   - tests/cosim_random.sh (make soak), sent SIGTERM: exit 130, a summary
#     of the seeds that finished, a progress line, no bench left running and
#     nothing saved as a failure.
# Prints a TAP point per check (tests/checks.sh), then "interrupt: N passed,
# M failed"; exits non-zero on any failure.
set -uo pipefail
bin=${1:?usage: interrupt.sh BIN_DIR}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "$0")/checks.sh"   # ok, bad, skip, finish: TAP (tests/README.md)

. "$(dirname "$0")/signals.sh"      # run_signalled, set -m

printf '        li s1, 100000000\nloop:   addi s1, s1, -1\n        bne s1, zero, loop\n        halt\n' \
  > "$tmp/long.s"
"$bin/tpu-as" -o "$tmp/long.bin" "$tmp/long.s" || bad "assemble the long loop"

# ---- tpu-sim, SIGINT, with a timeline and a VCD -----------------------------
run_signalled INT 1 "$tmp/sim.out" "$tmp/sim.err" \
  "$bin/tpu-sim" --timeline "$tmp/t.json" --vcd "$tmp/t.vcd" "$tmp/long.bin"
[ "$status" = 130 ] && ok "tpu-sim SIGINT: exit 130" || { bad "tpu-sim SIGINT: exit $status, want 130"; diag "$(cat "$tmp/sim.err")"; }
n=$(sed -n 's/^stop *interrupted at cycle \([0-9]*\).*/\1/p' "$tmp/sim.out")
[ -n "$n" ] && [ "$n" -gt 0 ] && ok "tpu-sim SIGINT: 'stop interrupted at cycle $n'" || { bad "tpu-sim SIGINT: no 'stop interrupted at cycle N'"; diag "$(head -5 "$tmp/sim.out")"; }
grep -q "^tpu-sim: interrupted at cycle $n" "$tmp/sim.err" && ok "tpu-sim SIGINT: the message on stderr" || bad "tpu-sim SIGINT: no message on stderr"
python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$tmp/t.json" 2>/dev/null && ok "tpu-sim SIGINT: the timeline is valid JSON" \
  || bad "tpu-sim SIGINT: the timeline is not valid JSON"
# The VCD: ends with a newline; its last timestamp (10 per cycle) is not past cycle n.
if [ -s "$tmp/t.vcd" ] && [ "$(tail -c 1 "$tmp/t.vcd" | od -An -c | tr -d ' ')" = '\n' ]; then ok "tpu-sim SIGINT: the VCD ends with a whole line"
else bad "tpu-sim SIGINT: the VCD does not end with a whole line"; fi
last=$(grep -a '^#[0-9]' "$tmp/t.vcd" | tail -n 1 | tr -d '#')
[ -n "$last" ] && [ -n "$n" ] && [ "$last" -le $((n * 10 + 10)) ] && ok "tpu-sim SIGINT: the VCD's last time $last is not past cycle $n" \
  || bad "tpu-sim SIGINT: last VCD time '$last' past cycle $n"

# ---- tpu-sim, SIGTERM, --json --------------------------------------------------
run_signalled TERM 1 "$tmp/j.out" "$tmp/j.err" "$bin/tpu-sim" --json "$tmp/long.bin"
[ "$status" = 130 ] && ok "tpu-sim SIGTERM: exit 130" || bad "tpu-sim SIGTERM: exit $status, want 130"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); sys.exit(d["stop"] != "interrupted")' \
  "$tmp/j.out" 2>/dev/null && ok "tpu-sim SIGTERM: the JSON report's stop is 'interrupted'" || bad "tpu-sim SIGTERM: the JSON report's stop is not 'interrupted'"

# ---- the progress line -----------------------------------------------------------
run_signalled INT 1 "$tmp/p.out" "$tmp/p.err" env TPU_PROGRESS=1 "$bin/tpu-sim" "$tmp/long.bin"
grep -aqE 'tpu-sim: cycle [0-9,]+ +[0-9.e+]+ cycles/s' "$tmp/p.err" && ok "TPU_PROGRESS=1: the progress line on stderr" \
  || bad "TPU_PROGRESS=1: no progress line on stderr"
run_signalled INT 1 "$tmp/q.out" "$tmp/q.err" "$bin/tpu-sim" "$tmp/long.bin"
grep -aq 'cycles/s' "$tmp/q.err" && bad "stderr not a terminal: a progress line was printed" || ok "stderr not a terminal: no progress line"

# ---- tpu-lab grade-class, SIGINT: the CSV has the submissions graded so far ---------
mkdir -p "$tmp/class"
for i in $(seq -w 1 80); do cp programs/labs/solutions/02-pointwise.s "$tmp/class/s$i.s"; done
run_signalled INT 1 "$tmp/lab.out" "$tmp/lab.err" \
  "$bin/tpu-lab" grade-class 2 "$tmp/class" --programs programs --csv "$tmp/class.csv"
[ "$status" = 130 ] && ok "tpu-lab grade-class SIGINT: exit 130" || { bad "tpu-lab grade-class SIGINT: exit $status, want 130"; diag "$(head -3 "$tmp/lab.err")"; }
grep -q "interrupted: the CSV has the submissions graded so far" "$tmp/lab.err" && ok "tpu-lab grade-class SIGINT: the message on stderr" \
  || bad "tpu-lab grade-class SIGINT: no message on stderr"
rows=$(grep -c '^s[0-9]*,' "$tmp/class.csv" 2>/dev/null || echo 0)
if head -n 1 "$tmp/class.csv" 2>/dev/null | grep -q '^student,' && [ "$rows" -ge 1 ] && [ "$rows" -lt 80 ]; then ok "tpu-lab grade-class SIGINT: the CSV has its header and the $rows rows graded"
else bad "tpu-lab grade-class SIGINT: the CSV has $rows rows (want 1 to 79, with its header)"; fi

# ---- the SystemC virtual platform (when built: make systemc-build) ----------------
vp=$bin/../systemc/tpu-vp
if [ -x "$vp" ]; then
  run_signalled INT 1 "$tmp/vp.out" "$tmp/vp.err" "$vp" "$tmp/long.bin"
  [ "$status" = 130 ] && ok "tpu-vp SIGINT: exit 130" || bad "tpu-vp SIGINT: exit $status, want 130"
  grep -q 'tpu-vp: .*: interrupted at cycle [0-9]' "$tmp/vp.err" && ok "tpu-vp SIGINT: 'interrupted at cycle N'" \
    || bad "tpu-vp SIGINT: no 'interrupted at cycle N'"
  grep -q 'Copyright' "$tmp/vp.err" && bad "tpu-vp prints the SystemC banner" || ok "tpu-vp: no SystemC banner"
else
  skip "tpu-vp SIGINT" "$vp not built (make systemc-build)"
fi

# ---- the random lockstep runs (make soak, cosim-random), when the RTL is built ----
rtl=$bin/../rtl/tiny/rtl-bench
if [ -x "$rtl" ]; then
  before=$(ls build/cosim-fail 2>/dev/null | wc -l)
  run_signalled TERM 3 "$tmp/soak.out" "$tmp/soak.err" \
    env TPU_PROGRESS=1 bash "$(dirname "$0")/cosim_random.sh" "$bin" "$rtl" 100000
  [ "$status" = 130 ] && ok "cosim_random.sh SIGTERM: exit 130" || bad "cosim_random.sh SIGTERM: exit $status, want 130"
  grep -q '^cosim random: interrupted after [1-9][0-9]* seeds: [0-9]* passed, 0 failed' \
    "$tmp/soak.out" && ok "cosim_random.sh SIGTERM: the summary of the seeds done" || { bad "cosim_random.sh SIGTERM: no summary"; diag "$(cat "$tmp/soak.out")"; }
  grep -aq 'cosim random: [0-9]* of 100000 seeds, 0 failed' "$tmp/soak.err" && ok "cosim_random.sh: the progress line with TPU_PROGRESS=1" \
    || bad "cosim_random.sh: no progress line with TPU_PROGRESS=1"
  sleep 0.5
  pgrep -f "$rtl --lockstep" >/dev/null && bad "cosim_random.sh SIGTERM: benches left running" || ok "cosim_random.sh SIGTERM: no bench left running"
  [ "$(ls build/cosim-fail 2>/dev/null | wc -l)" = "$before" ] && ok "cosim_random.sh SIGTERM: nothing saved as a failure" \
    || bad "cosim_random.sh SIGTERM: interrupted seeds saved as failures"
else
  skip "cosim_random.sh SIGTERM" "$rtl not built (make rtl-build)"
fi

finish interrupt
