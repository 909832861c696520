#!/usr/bin/env bash
# roundtrip.sh BIN_DIR WORK_DIR - for every programs/*.s: assemble it,
# disassemble the object, assemble the disassembly again, and require the
# two objects to be byte for byte the same (docs/assembler.md promises it).
#
# A program's first line may give tpu-as options ("# tpu-as: --config tiny");
# both assemblies use them.  Prints a TAP point per program
# (tests/checks.sh), then "roundtrip: N passed, M failed"; exits 1 if any
# failed.
set -uo pipefail
bin=${1:?usage: roundtrip.sh BIN_DIR WORK_DIR}
work=${2:?usage: roundtrip.sh BIN_DIR WORK_DIR}
for tool in tpu-as tpu-dis; do
  [ -x "$bin/$tool" ] || { echo "roundtrip: $bin/$tool not found (build it first)" >&2; exit 1; }
done
mkdir -p "$work" || exit 1
bin=$(cd "$bin" && pwd) && work=$(cd "$work" && pwd) || exit 1
cd "$(dirname "$0")/.." || exit 1

source tests/checks.sh   # ok, bad, finish: TAP (tests/README.md)
shopt -s nullglob
for src in programs/*.s; do
  name=$(basename "$src" .s)
  opts=$(sed -n '1s/^# *tpu-as: *//p' "$src")
  read -r -a optv <<< "$opts"
  first="$work/$name.bin" dis="$work/$name.dis.s" second="$work/$name.again.bin"
  log="$work/$name.log"
  rm -f "$first" "$dis" "$second"
  if ! "$bin/tpu-as" "${optv[@]}" -o "$first" "$src" >"$log" 2>&1; then
    why="tpu-as failed on the source"
  elif ! "$bin/tpu-dis" -o "$dis" "$first" >>"$log" 2>&1; then
    why="tpu-dis failed"
  elif ! "$bin/tpu-as" "${optv[@]}" -o "$second" "$dis" >>"$log" 2>&1; then
    why="tpu-as failed on the disassembly $dis"
  elif ! cmp "$first" "$second" >>"$log" 2>&1; then
    why="objects differ: $first $second"
  else
    ok "$src (${opts:-no options})"
    continue
  fi
  bad "$src: $why"
  diag "$(head -n 20 "$log")"
done
finish roundtrip
