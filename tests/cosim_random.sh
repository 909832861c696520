#!/usr/bin/env bash
# cosim_random.sh [--seconds S] [--length L] [--keep] BIN_DIR RTL_BENCH N [FIRST_SEED]
#
# Constrained-random co-simulation (docs/cosim.md): for N seeds from
# FIRST_SEED (default 1), tpu-randprog makes a program for the bench's
# config (read from rtl_config.h beside RTL_BENCH), tpu-as assembles it and
# RTL_BENCH --lockstep runs it on the RTL and the C model, comparing the
# trace records of every cycle, how and when the run ended and the final
# VMEM and HBM.  Every 8th seed (seed % 8 == 7) is made with --errors: the
# program stops with a deliberate run-time error, which both sides must
# report at the same cycle.  Every 5th seed (seed % 5 == 4) is a program
# for several cores (tpu-randprog --cores N, with dma.ici): four cores
# (rtl-bench4 beside RTL_BENCH, a ring of four) when seed % 20 == 19, two
# (rtl-bench2, a ring of two) otherwise; when that bench is not built those
# seeds are skipped and counted as such.
#
# With --seconds S it stops starting new seeds after S seconds (make soak).
# --keep also keeps, for each failure, the waveform of the cycles before
# the mismatch (SEED.fail.fst) and the program shrunk by
# sim/cosim/cosim_minimize.sh (SEED.min.s, its waveform SEED.min.fail.fst).
# The summary ends with the lockstep cycles run and the cycles and
# programs per hour.
# JOBS (default 2) programs run at once.  Prints a TAP point per seed
# (tests/checks.sh; a failure's names the seed and what differed), saves the failing program as build/cosim-fail/SEED.s (and the
# bench's output as SEED.log), and ends with
# "cosim random: P passed, F failed (CONFIG, seeds A..B, T two-core)";
# exits 1 if any failed.
#
# On a terminal (or with TPU_PROGRESS=1; TPU_PROGRESS=0 turns it off) one
# line on stderr, redrawn in place, shows the seeds done, the failures and
# the time elapsed and left.  Ctrl-C (or SIGTERM) stops the runs in flight
# (they are not counted, and nothing is saved for them), prints the
# summary of the seeds that finished and exits 130.
set -uo pipefail
seconds=0 length=300 keep=0
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds=${2:?--seconds needs a value}; shift 2 ;;
    --keep) keep=1; shift ;;
    --length)  length=${2:?--length needs a value}; shift 2 ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) break ;;
  esac
done
usage="usage: cosim_random.sh [--seconds S] [--length L] [--keep] BIN_DIR RTL_BENCH N [FIRST_SEED]"
bin=${1:?$usage}
bench=${2:?$usage}
count=${3:?$usage}
first=${4:-1}
jobs=${JOBS:-2}
for v in "$count" "$first" "$seconds" "$length" "$jobs"; do
  case "$v" in ''|*[!0-9]*) echo "cosim_random.sh: error: '$v' is not a number" >&2; exit 2 ;; esac
done
[ -x "$bench" ] || { echo "cosim_random.sh: error: no bench '$bench' (make rtl-build)" >&2; exit 2; }
for t in tpu-randprog tpu-as; do
  [ -x "$bin/$t" ] || { echo "cosim_random.sh: error: no '$bin/$t'" >&2; exit 2; }
done
cfg=$(sed -n 's/^#define RTL_CONFIG "\(.*\)"$/\1/p' "$(dirname "$bench")/rtl_config.h" 2>/dev/null)
cfg=${cfg:-tiny}
bench2=$(dirname "$bench")/rtl-bench2
[ -x "$bench2" ] || bench2=""
bench4=$(dirname "$bench")/rtl-bench4
[ -x "$bench4" ] || bench4=""
faildir=build/cosim-fail
work=$(mktemp -d "${TMPDIR:-/tmp}/cosim_random.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
mkdir -p "$faildir" || exit 2

# one SEED: generate, assemble, run; prints "ok SEED CYCLES", "ok2 SEED
# CYCLES" (two cores), "ok4 SEED CYCLES" (four), "skip2 SEED", "skip4 SEED"
# or "FAIL SEED ..."
one() {
  local seed=$1 opt="" src="$work/$1.s" obj="$work/$1.bin" log="$work/$1.log" b=$bench ok=ok
  [ $((seed % 8)) -eq 7 ] && opt=--errors
  if [ $((seed % 20)) -eq 19 ]; then
    [ -n "$bench4" ] || { echo "skip4 $seed"; return; }
    opt="$opt --cores 4" b=$bench4 ok=ok4
  elif [ $((seed % 5)) -eq 4 ]; then
    [ -n "$bench2" ] || { echo "skip2 $seed"; return; }
    opt="$opt --cores 2" b=$bench2 ok=ok2
  fi
  if ! "$bin/tpu-randprog" --config "$cfg" --seed "$seed" --length "$length" $opt -o "$src" \
       >"$log" 2>&1 || ! "$bin/tpu-as" --config "$cfg" -o "$obj" "$src" >>"$log" 2>&1; then
    cp "$src" "$faildir/$seed.s" 2>/dev/null; cp "$log" "$faildir/$seed.log"
    echo "FAIL seed $seed $opt: could not make the program: $(head -n 1 "$log")"
    return
  fi
  "$b" --lockstep --max-cycles 1000000 "$obj" >"$log" 2>&1
  local st=$? cyc
  if [ "$st" -eq 0 ]; then
    cyc=$(tail -n 1 "$log" | sed -n 's/.* after \([0-9][0-9]*\) cycles.*/\1/p; s/.* at cycle \([0-9][0-9]*\).*/\1/p' | head -n 1)
    echo "$ok $seed ${cyc:-0}"
  elif [ "$st" -eq 130 ]; then
    echo "int $seed"                        # interrupted: not a result
  else
    cp "$src" "$faildir/$seed.s"; cp "$log" "$faildir/$seed.log"
    if [ "$keep" = 1 ]; then
      # the waveform of the cycles before the mismatch, and the program shrunk
      "$b" --lockstep --max-cycles 1000000 --wave-on-fail "$faildir/$seed.fail.fst" "$obj" \
        >/dev/null 2>&1
      bash sim/cosim/cosim_minimize.sh "$bin" "$b" "$faildir/$seed.s" "$faildir/$seed.min.s" \
        >"$faildir/$seed.min.log" 2>&1
    fi
    echo "FAIL seed $seed $opt: $(grep -m 1 -v '^ ' "$log")" \
         "(saved $faildir/$seed.s; tpu-as --config $cfg -o x.bin $faildir/$seed.s;" \
         "$b --lockstep x.bin)"
  fi
  rm -f "$src" "$obj" "$log"
}
export -f one
export bin bench bench2 bench4 cfg length work faildir keep

# Ctrl-C / SIGTERM: stop starting seeds and end the ones in flight (the
# xargs below and its children; a terminal's Ctrl-C reaches them anyway).
stop=0
kill_tree() {
  local p
  for p in $(ps -o pid= --ppid "$1" 2>/dev/null); do
    kill_tree "$p"
    kill -TERM "$p" 2>/dev/null
  done
}
trap 'stop=1' INT TERM

# The progress line: on a terminal, or TPU_PROGRESS=1; never with TPU_PROGRESS=0.
show=0
[ -t 2 ] && show=1
[ "${TPU_PROGRESS:-}" = 1 ] && show=1
[ "${TPU_PROGRESS:-}" = 0 ] && show=0
shown_at=-1
progress() {
  [ "$show" = 1 ] && [ "$SECONDS" != "$shown_at" ] || return 0    # once a second
  shown_at=$SECONDS
  local done=$((pass + fail)) el=$((SECONDS - start)) left=""
  if [ "$seconds" -gt 0 ]; then
    left=", $((seconds - el > 0 ? seconds - el : 0)) s left"
  elif [ "$done" -gt 0 ]; then
    left=", about $(( el * (count - done) / done )) s left"
  fi
  printf '\rcosim random: %d of %d seeds, %d failed, %d s%s\033[K' \
    "$done" "$count" "$fail" "$el" "$left" >&2
}

source "$(dirname "$0")/checks.sh"   # ok, bad, skip: TAP (tests/README.md)
two=0 four=0 skip2=0 skip4=0 cycles=0
start=$SECONDS
next=$first
last=$((first + count - 1))
while [ "$next" -le "$last" ] && [ "$stop" = 0 ]; do
  if [ "$seconds" -gt 0 ] && [ $((SECONDS - start)) -ge "$seconds" ]; then
    break
  fi
  batch=$((jobs * 8))
  end=$((next + batch - 1))
  [ "$end" -gt "$last" ] && end=$last
  while read -r word rest; do
    [ "$show" = 1 ] && [ "$word" != int ] && printf '\r\033[K' >&2
    if [ "$word" = ok ]; then
      cycles=$((cycles + ${rest#* })); ok "seed ${rest% *}: ${rest#* } cycles in lockstep"
    elif [ "$word" = ok2 ]; then
      two=$((two + 1)) cycles=$((cycles + ${rest#* })); ok "seed ${rest% *} (two cores): ${rest#* } cycles in lockstep"
    elif [ "$word" = ok4 ]; then
      four=$((four + 1)) cycles=$((cycles + ${rest#* })); ok "seed ${rest% *} (four cores): ${rest#* } cycles in lockstep"
    elif [ "$word" = skip2 ]; then
      skip2=$((skip2 + 1)); skip "seed $rest (two cores)" "no $(dirname "$bench")/rtl-bench2"
    elif [ "$word" = skip4 ]; then
      skip4=$((skip4 + 1)); skip "seed $rest (four cores)" "no $(dirname "$bench")/rtl-bench4"
    elif [ "$word" = int ]; then
      stop=1
    else
      bad "${rest}"
    fi
    progress
  done < <(seq "$next" "$end" | xargs -P "$jobs" -I{} bash -c 'one {}')
  if [ "$stop" = 1 ]; then
    kill_tree $$
    wait 2>/dev/null
    break
  fi
  next=$((end + 1))
done
[ "$show" = 1 ] && printf '\r\033[K' >&2
extra=", $two two-core, $four four-core"
[ "$skip2" -gt 0 ] && extra="$extra, $skip2 two-core skipped: no $(dirname "$bench")/rtl-bench2"
[ "$skip4" -gt 0 ] && extra="$extra, $skip4 four-core skipped: no $(dirname "$bench")/rtl-bench4"
if [ "$stop" = 1 ]; then
  echo "cosim random: interrupted after $((pass + fail)) seeds: $pass passed, $fail failed" \
       "($cfg, from seed $first$extra)"
  exit 130
fi
echo "cosim random: $pass passed, $fail failed ($cfg, seeds $first..$((next - 1))$extra)"
el=$((SECONDS - start))
[ "$el" -gt 0 ] || el=1
echo "cosim random: $cycles lockstep cycles in $el s: $((cycles * 3600 / el)) cycles and" \
     "$(((pass + fail) * 3600 / el)) programs per hour ($jobs at once)"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
