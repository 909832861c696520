#!/usr/bin/env bash
# run.sh BUILD_DIR SECONDS - replay the kept regression inputs of every fuzz
# target, then fuzz each for SECONDS from its seeds (tests/fuzz/seeds/TARGET/,
# in git, plus the example programs and configs).  A crash is saved under
# tests/fuzz/regress/TARGET/ (commit it: it becomes a regression input) and
# fails the run; so does finding no target at all.  A TAP point per target
# (tests/checks.sh).
set -uo pipefail
build=${1:?usage: run.sh BUILD_DIR SECONDS}
secs=${2:?usage: run.sh BUILD_DIR SECONDS}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
source "$root/tests/checks.sh"   # ok, bad, finish: TAP (tests/README.md)
for bin in "$build"/fuzz_*; do
  [ -x "$bin" ] || continue
  name=$(basename "$bin"); name=${name#fuzz_}
  regress="$here/regress/$name"
  corpus="$root/$build/corpus/$name"
  mkdir -p "$regress" "$corpus"
  # seeds: kept regression inputs, the checked-in seeds, and for the
  # assembler every example program
  cp -n "$here"/seeds/"$name"/* "$corpus"/ 2>/dev/null || true
  [ "$name" = asm ] && cp -n "$root"/programs/*.s "$root"/sim/rtl/progs/*.s "$corpus"/ 2>/dev/null
  [ "$name" = config ] && cp -n "$root"/cmodel/configs/*.cfg "$corpus"/ 2>/dev/null
  if [ "$name" = obj ] && [ -x "$root/build/bin/tpu-as" ]; then
    for p in "$root"/programs/*.s; do
      opts=$(sed -n '1s/^# *tpu-as: *//p' "$p")
      # shellcheck disable=SC2086
      "$root/build/bin/tpu-as" $opts -o "$corpus/$(basename "$p" .s).o" "$p" >/dev/null 2>&1 || true
    done
  fi
  if compgen -G "$regress/*" >/dev/null; then
    if ! "$bin" -runs=0 "$regress"/* >"$build/$name.regress.log" 2>&1; then
      bad "fuzz $name: a kept regression input fails again (see $build/$name.regress.log)"
      continue
    fi
  fi
  log="$build/$name.log"
  if "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
       -artifact_prefix="$regress/" -print_final_stats=1 "$corpus" >"$log" 2>&1; then
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$')
    nkept=$(find "$regress" -type f ! -name .gitkeep | wc -l)
    ok "fuzz $name: $nkept kept inputs replayed, ${secs}s, ${runs:-?} inputs, no crash"
  else
    bad "fuzz $name: CRASH - input saved in $regress/ ; log: $log"
    diag "$(tail -n 30 "$log")"
  fi
done
if [ $((pass + fail)) -eq 0 ]; then
  bad "fuzz: no fuzz target in $build (build them: make fuzz-smoke)"
fi
finish fuzz
