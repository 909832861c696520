#!/usr/bin/env bash
# cosim_random.sh [--seconds S] [--length L] BIN_DIR RTL_BENCH N [FIRST_SEED]
#
# Constrained-random co-simulation (docs/cosim.md): for N seeds from
# FIRST_SEED (default 1), tpu-randprog makes a program for the bench's
# config (read from rtl_config.h beside RTL_BENCH), tpu-as assembles it and
# RTL_BENCH --lockstep runs it on the RTL and the C model, comparing the
# trace records of every cycle, how and when the run ended and the final
# VMEM and HBM.  Every 8th seed (seed % 8 == 7) is made with --errors: the
# program stops with a deliberate run-time error, which both sides must
# report at the same cycle.  Every 5th seed (seed % 5 == 4) is a two-core
# program (tpu-randprog --cores 2, with dma.ici) run by rtl-bench2 beside
# RTL_BENCH (two cores in a ring); when that is not built those seeds are
# skipped and counted as such.
#
# With --seconds S it stops starting new seeds after S seconds (make soak).
# JOBS (default 2) programs run at once.  Prints one line per failure with
# the seed, saves the failing program as build/cosim-fail/SEED.s (and the
# bench's output as SEED.log), and ends with
# "cosim random: P passed, F failed (CONFIG, seeds A..B, T two-core)";
# exits 1 if any failed.
set -uo pipefail
seconds=0 length=300
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds=${2:?--seconds needs a value}; shift 2 ;;
    --length)  length=${2:?--length needs a value}; shift 2 ;;
    -h|--help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) break ;;
  esac
done
usage="usage: cosim_random.sh [--seconds S] [--length L] BIN_DIR RTL_BENCH N [FIRST_SEED]"
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
faildir=build/cosim-fail
work=$(mktemp -d "${TMPDIR:-/tmp}/cosim_random.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
mkdir -p "$faildir" || exit 2

# one SEED: generate, assemble, run; prints "ok SEED", "ok2 SEED" (two
# cores), "skip SEED" or "FAIL SEED ..."
one() {
  local seed=$1 opt="" src="$work/$1.s" obj="$work/$1.bin" log="$work/$1.log" b=$bench ok=ok
  [ $((seed % 8)) -eq 7 ] && opt=--errors
  if [ $((seed % 5)) -eq 4 ]; then
    [ -n "$bench2" ] || { echo "skip $seed"; return; }
    opt="$opt --cores 2" b=$bench2 ok=ok2
  fi
  if ! "$bin/tpu-randprog" --config "$cfg" --seed "$seed" --length "$length" $opt -o "$src" \
       >"$log" 2>&1 || ! "$bin/tpu-as" --config "$cfg" -o "$obj" "$src" >>"$log" 2>&1; then
    cp "$src" "$faildir/$seed.s" 2>/dev/null; cp "$log" "$faildir/$seed.log"
    echo "FAIL seed $seed $opt: could not make the program: $(head -n 1 "$log")"
    return
  fi
  if "$b" --lockstep --max-cycles 1000000 "$obj" >"$log" 2>&1; then
    echo "$ok $seed"
  else
    cp "$src" "$faildir/$seed.s"; cp "$log" "$faildir/$seed.log"
    echo "FAIL seed $seed $opt: $(grep -m 1 -v '^ ' "$log")" \
         "(saved $faildir/$seed.s; tpu-as --config $cfg -o x.bin $faildir/$seed.s;" \
         "$b --lockstep x.bin)"
  fi
  rm -f "$src" "$obj" "$log"
}
export -f one
export bin bench bench2 cfg length work faildir

pass=0 fail=0 two=0 skip=0
start=$SECONDS
next=$first
last=$((first + count - 1))
while [ "$next" -le "$last" ]; do
  if [ "$seconds" -gt 0 ] && [ $((SECONDS - start)) -ge "$seconds" ]; then
    break
  fi
  batch=$((jobs * 8))
  end=$((next + batch - 1))
  [ "$end" -gt "$last" ] && end=$last
  while read -r word rest; do
    if [ "$word" = ok ]; then
      pass=$((pass + 1))
    elif [ "$word" = ok2 ]; then
      pass=$((pass + 1)) two=$((two + 1))
    elif [ "$word" = skip ]; then
      skip=$((skip + 1))
    else
      fail=$((fail + 1))
      echo "$word $rest"
    fi
  done < <(seq "$next" "$end" | xargs -P "$jobs" -I{} bash -c 'one {}')
  next=$((end + 1))
done
extra=", $two two-core"
[ "$skip" -gt 0 ] && extra="$extra, $skip two-core skipped: no $(dirname "$bench")/rtl-bench2"
echo "cosim random: $pass passed, $fail failed ($cfg, seeds $first..$((next - 1))$extra)"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
