#!/usr/bin/env bash
# programs.sh BIN_DIR WORK_DIR - run the example programs on the C model and
# check what the roofline says about them:
#   - every run halts and its .expect results are bit-exact;
#   - on v5e, the tiled matmul at D = F = 4096 comes within 5% of
#     max(T_math, T_memory) at B = 64 (memory-bound) and B = 1024
#     (compute-bound);
#   - the pointwise ops are memory-bound, within 10% of T_memory.
set -uo pipefail
bin=${1:?usage: programs.sh BIN_DIR WORK_DIR}
work=${2:?usage: programs.sh BIN_DIR WORK_DIR}
mkdir -p "$work"
source "$(dirname "$0")/checks.sh"   # ok, bad, finish: TAP (tests/README.md)

json_field() {  # json_field KEY FILE: the value of a top-level "KEY": in one-line JSON
  grep -o "\"$1\": [^,}]*" "$2" | head -n 1 | sed 's/^[^:]*: //; s/"//g'
}

# check NAME CONFIG PROGRAM "asm options" "sim options" BOUND MAX_PCT (one
# point; this check replaces checks.sh's)
check() {
  local name=$1 config=$2 prog=$3 asopts=$4 simopts=$5 bound=$6 maxpct=$7
  local obj="$work/$name.bin" js="$work/$name.json"
  # shellcheck disable=SC2086
  if ! "$bin/tpu-as" --config "$config" $asopts -o "$obj" "$prog" 2>"$work/$name.err"; then
    bad "$name: tpu-as: $(head -n 1 "$work/$name.err")"; return
  fi
  # shellcheck disable=SC2086
  "$bin/tpu-sim" --config "$config" $simopts --json "$obj" >"$js" 2>"$work/$name.err"
  local rc=$? result got pct
  result=$(json_field result "$js"); got=$(json_field bound "$js"); pct=$(json_field roofline_pct "$js")
  if [ $rc -ne 0 ] || [ "$result" != "bit-exact" ]; then
    bad "$name: exit $rc, result '$result' $(head -n 1 "$work/$name.err")"; return
  fi
  if [ "$bound" != "-" ] && [ "$got" != "$bound" ]; then
    bad "$name: bound '$got', expected '$bound'"; return
  fi
  if [ "$maxpct" != "-" ] && ! awk -v p="$pct" -v m="$maxpct" 'BEGIN { exit !(p + 0 <= m + 0) }'; then
    bad "$name: took ${pct}% of its roofline bound, more than ${maxpct}%"; return
  fi
  ok "$name: $result, ${got}, ${pct}% of the roofline bound"
}

check matmul_tile-tiny  tiny programs/matmul_tile.s  ""                            ""          -             -
check matmul-tiny       tiny programs/matmul.s       ""                            ""          -             -
check matmul-tiny-sweep tiny programs/matmul.s       "-D B=32 -D D=64 -D F=64"     ""          compute-bound -
check matmul-mid        mid  programs/matmul.s       "-D B=16 -D D=48 -D F=64"     ""          -             -
check matmul_twice-tiny tiny programs/matmul_twice.s ""                          "--check-races" -           -
check add-tiny          tiny programs/pointwise.s    "-D OP=0"                     ""          memory-bound  110
check mul-tiny          tiny programs/pointwise.s    "-D OP=1"                     ""          memory-bound  110
check relu-tiny         tiny programs/pointwise.s    "-D OP=2"                     ""          memory-bound  110
check softmax-tiny      tiny programs/softmax.s      ""                            ""          -             -
check softmax-mid       mid  programs/softmax.s      "-D NB=3"                     ""          -             -
check xlu_reduce-tiny   tiny programs/xlu_reduce.s   "" "--check-races"                          -             -
check xlu_reduce-mid    mid  programs/xlu_reduce.s   ""                            ""          -             -
check xlu_reduce-v5e    v5e  programs/xlu_reduce.s   ""                            ""          -             -
check ici-ring          tiny programs/ici_exchange.s ""                            "--cores 2" -             -
check matmul-v5e-b64    v5e  programs/matmul.s       "-D B=64 -D D=4096 -D F=4096"   ""        memory-bound  105
check matmul-v5e-b1024  v5e  programs/matmul.s       "-D B=1024 -D D=4096 -D F=4096" ""        compute-bound 105
check add-v5e           v5e  programs/pointwise.s    "-D OP=0 -D NCHUNK=16"        ""          memory-bound  110
check relu-v5e          v5e  programs/pointwise.s    "-D OP=2 -D NCHUNK=16"        ""          memory-bound  110
finish programs
