#!/usr/bin/env bash
# cosim_minimize.sh BIN_DIR RTL_BENCH FAIL.s [OUT.s] - shrink a program that
# fails lockstep (docs/cosim.md).
#
# Repeatedly deletes blocks of instruction lines (halves, quarters, ...
# down to single lines) from the .text part of FAIL.s and keeps a deletion
# when the smaller program still assembles (tpu-as --config CFG, CFG read
# from rtl_config.h beside RTL_BENCH) and RTL_BENCH --lockstep still fails.
# Labels, directives, data and comments stay.  Writes the smallest failing
# program to OUT.s (default FAIL.min.s) after every improvement, so it can
# be stopped at any time; at the end prints its mismatch report and writes
# the waveform of the cycles before the mismatch to OUT.fail.fst (default
# FAIL.min.fail.fst).  Exits 2 if FAIL.s does not fail to begin with.
set -uo pipefail
usage="usage: cosim_minimize.sh BIN_DIR RTL_BENCH FAIL.s [OUT.s]"
case "${1:-}" in -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
bin=${1:?$usage}
bench=${2:?$usage}
in=${3:?$usage}
out=${4:-${in%.s}.min.s}
[ -r "$in" ] || { echo "cosim_minimize.sh: error: cannot read '$in'" >&2; exit 2; }
cfg=$(sed -n 's/^#define RTL_CONFIG "\(.*\)"$/\1/p' "$(dirname "$bench")/rtl_config.h" 2>/dev/null)
cfg=${cfg:-tiny}
work=$(mktemp -d "${TMPDIR:-/tmp}/cosim_min.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT

mapfile -t lines < "$in"
# keep[i] = 1 while line i is in the program; cand = deletable lines (an
# instruction in .text: not blank, not a comment, not a label alone, not a
# directive).
keep=() cand=() text=0
for i in "${!lines[@]}"; do
  keep[i]=1
  l=${lines[i]%%#*}; l=${l%%;*}
  l=$(echo "$l" | sed 's/^[[:space:]]*\([A-Za-z_][A-Za-z0-9_.]*:[[:space:]]*\)*//')
  case "$l" in
    .text*) text=1 ;;
    .hbm*|.vmem*) text=0 ;;
  esac
  if [ "$text" = 1 ] && [ -n "${l// /}" ] && [ "${l:0:1}" != . ]; then
    # a label on the same line as the instruction is kept: only lines
    # that are just an instruction are deleted
    [[ "${lines[i]}" =~ ^[[:space:]]*[A-Za-z_][A-Za-z0-9_.]*: ]] || cand+=("$i")
  fi
  [ "${l:0:5}" = .insn ] && [ "$text" = 1 ] && cand+=("$i")
done

# fails FILE: 0 if FILE assembles and lockstep fails on it
fails() {
  "$bin/tpu-as" --config "$cfg" -o "$work/t.bin" "$1" >/dev/null 2>&1 || return 1
  "$bench" --lockstep --max-cycles 200000 "$work/t.bin" >"$work/t.log" 2>&1
  [ $? -eq 1 ]
}
write() {  # the program with the kept lines
  for i in "${!lines[@]}"; do [ "${keep[i]}" = 1 ] && printf '%s\n' "${lines[i]}"; done > "$1"
}

write "$work/cur.s"
fails "$work/cur.s" || { echo "cosim_minimize.sh: error: '$in' does not fail lockstep" >&2; exit 2; }
cp "$work/cur.s" "$out"
tries=0
chunk=$(( (${#cand[@]} + 1) / 2 ))
while [ "$chunk" -ge 1 ]; do
  changed=0
  for ((s = 0; s < ${#cand[@]}; s += chunk)); do
    block=()
    for ((j = s; j < s + chunk && j < ${#cand[@]}; j++)); do
      [ "${keep[${cand[j]}]}" = 1 ] && block+=("${cand[j]}")
    done
    [ ${#block[@]} -eq 0 ] && continue
    for i in "${block[@]}"; do keep[i]=0; done
    write "$work/try.s"
    tries=$((tries + 1))
    if fails "$work/try.s"; then
      cp "$work/try.s" "$out"; changed=1
    else
      for i in "${block[@]}"; do keep[i]=1; done
    fi
  done
  if [ "$changed" = 0 ]; then chunk=$((chunk / 2)); fi
done
n=0; for i in "${cand[@]}"; do [ "${keep[i]}" = 1 ] && n=$((n + 1)); done
echo "cosim_minimize: $n of ${#cand[@]} instructions left after $tries runs: $out"
# the mismatch of the smallest program, and its waveform beside it
wave=${out%.s}.fail.fst
"$bin/tpu-as" --config "$cfg" -o "$work/t.bin" "$out" >/dev/null 2>&1
"$bench" --lockstep --max-cycles 200000 --wave-on-fail "$wave" "$work/t.bin" >"$work/t.log" 2>&1
grep -v -e '^rtl-bench2\{0,1\}: .*: \(halt after\|error after\|both stopped:\)' -e 'waveform of cycles' "$work/t.log" \
  | head -n 3
grep 'waveform of cycles' "$work/t.log"
