#!/usr/bin/env bash
# demo.sh BIN_DIR - the main job: assemble every example program, show its
# disassembly, and (once tpu-sim exists) run it and print its report.
set -euo pipefail
bin=${1:?usage: demo.sh BIN_DIR}
out=$(dirname "$bin")/demo
mkdir -p "$out"
for src in programs/*.s; do
  name=$(basename "$src" .s)
  # the first line of a program may say how to assemble it: "# tpu-as: OPTIONS"
  opts=$(sed -n '1s/^# *tpu-as: *//p' "$src")
  echo "=== $src  (tpu-as $opts)"
  # shellcheck disable=SC2086
  "$bin/tpu-as" $opts -o "$out/$name.bin" "$src"
  "$bin/tpu-dis" "$out/$name.bin" | head -n 25
  echo "    ... ($("$bin/tpu-dis" "$out/$name.bin" | wc -l) lines of disassembly)"
  if [ -x "$bin/tpu-sim" ]; then
    # shellcheck disable=SC2086
    "$bin/tpu-sim" $opts "$out/$name.bin"
  fi
done
