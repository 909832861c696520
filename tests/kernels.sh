#!/usr/bin/env bash
# kernels.sh BIN_DIR WORK_DIR [--soak] - the kernel generator (tpu-gen,
# docs/workloads.md):
#   - seeded random GEMM shapes (odd and prime sizes, 1..300) on tiny and
#     mid and a few on v5e, in bf16, int8 and w8, some with tiling options:
#     each generated, assembled, run and bit-exact (its own .expect);
#   - a --timing-only program takes the cycles of its checked twin;
#   - the 8192 x 8192 x 8192 program for v5e assembles within IMEM (not
#     run), and so does the largest cube tiny's HBM holds;
#   - bad command lines: gcc-style "tpu-gen: error: ..." and exit 2; --help.
# --soak: instead, 200 random shapes 1..4096 on v5e (make kernels-soak).
set -uo pipefail
bin=${1:?usage: kernels.sh BIN_DIR WORK_DIR [--soak]}
work=${2:?usage: kernels.sh BIN_DIR WORK_DIR [--soak]}
soak=${3:-}
mkdir -p "$work"
pass=0; fail=0
ok()  { echo "ok    $*"; pass=$((pass+1)); }
bad() { echo "FAIL  $*"; fail=$((fail+1)); }

# gemm CFG M N K [OPTIONS...]: generate, assemble, run; bit-exact and exit 0
gemm() {
  local cfg=$1 m=$2 n=$3 k=$4; shift 4
  local name="$cfg ${m}x${n}x${k}${*:+ $*}"
  local f="$work/g-$cfg-$m-$n-$k"
  if ! "$bin/tpu-gen" gemm --config "$cfg" -M "$m" -N "$n" -K "$k" "$@" -o "$f.s" >"$f.gen" 2>&1; then
    bad "$name: tpu-gen failed: $(head -n 1 "$f.gen")"; return
  fi
  if ! "$bin/tpu-as" --config "$cfg" -o "$f.bin" "$f.s" >"$f.as" 2>&1; then
    bad "$name: tpu-as failed: $(head -n 1 "$f.as")"; return
  fi
  "$bin/tpu-sim" --config "$cfg" "$f.bin" >"$f.sim" 2>&1
  local rc=$?
  local cyc pred
  cyc=$(sed -n 's/^cycles *\([0-9]*\).*/\1/p' "$f.sim")
  pred=$(sed -n 's/.*predicted \([0-9]*\) cycles.*/\1/p' "$f.gen")
  if [ $rc -eq 0 ] && grep -q '^result: bit-exact' "$f.sim"; then
    ok "$name: bit-exact, $cyc cycles (predicted $pred)"
    rm -f "$f.s" "$f.bin" "$f.as" "$f.sim" "$f.gen"
  else
    bad "$name: exit $rc, $(grep -m1 -E '^result|error' "$f.sim")"
  fi
}

# prime or odd sizes, 1..300, from bash's seeded RANDOM
RANDOM=35
primes=(1 2 3 5 7 11 13 17 19 23 29 31 37 41 43 47 53 59 61 67 71 73 79 83 89 97
        101 103 107 109 113 127 131 137 139 149 151 157 163 167 173 179 181 191
        193 197 199 211 223 227 229 233 239 241 251 257 263 269 271 277 281 283 293)
size() {   # half primes, half any odd size up to $1
  if [ $((RANDOM % 2)) -eq 0 ]; then
    local p=${primes[$((RANDOM % ${#primes[@]}))]}
    echo $(( p > $1 ? $1 : p ))
  else
    echo $(( (RANDOM % (($1 + 1) / 2)) * 2 + 1 ))
  fi
}
dtypes=(bf16 bf16 int8 w8)

if [ "$soak" = "--soak" ]; then
  RANDOM=4096
  for i in $(seq 1 200); do
    m=$(( RANDOM % 4096 + 1 )); n=$(( RANDOM % 4096 + 1 )); k=$(( RANDOM % 4096 + 1 ))
    gemm v5e $m $n $k
  done
  echo "kernels: $pass passed, $fail failed"
  [ $fail -eq 0 ]
  exit
fi

for i in $(seq 1 32); do
  gemm tiny "$(size 300)" "$(size 300)" "$(size 300)" --dtype "${dtypes[$((i % 4))]}"
done
for i in $(seq 1 24); do
  gemm mid "$(size 300)" "$(size 300)" "$(size 300)" --dtype "${dtypes[$((i % 4))]}"
done
for i in $(seq 1 8); do
  gemm v5e "$(size 300)" "$(size 300)" "$(size 300)" --dtype "${dtypes[$((i % 4))]}"
done
# edges and the tiling options: one row, one column, K of one; several
# M-tiles (two X buffers and one), W blocks of several K-tiles, fewer MXUs
gemm tiny 1 1 1
gemm tiny 300 1 1
gemm tiny 1 300 300
gemm tiny 2000 20 300                       # M-tiles forced by VMEM
gemm tiny 97 45 61 --tile-m 10 --tile-k 64
gemm mid 211 77 45 --dtype int8 --tile-m 30
gemm mid 101 77 45 --dtype w8 --tile-m 30 --tile-k 48
gemm mid 131 47 99 --tile-n 16
gemm v5e 300 500 700
gemm v5e 129 1 300 --dtype int8

# --timing-only: no data and no check, the same cycles as the checked run
t1="$work/t-checked"; t2="$work/t-timing"
"$bin/tpu-gen" gemm --config mid -M 77 -N 99 -K 131 -o "$t1.s" --quiet \
  && "$bin/tpu-gen" gemm --config mid -M 77 -N 99 -K 131 --timing-only -o "$t2.s" --quiet \
  && "$bin/tpu-as" --config mid -o "$t1.bin" "$t1.s" && "$bin/tpu-as" --config mid -o "$t2.bin" "$t2.s"
c1=$("$bin/tpu-sim" --config mid "$t1.bin" | sed -n 's/^cycles *\([0-9]*\).*/\1/p')
c2=$("$bin/tpu-sim" --config mid "$t2.bin" | sed -n 's/^cycles *\([0-9]*\).*/\1/p')
if [ -n "$c1" ] && [ "$c1" = "$c2" ] && ! grep -q '\.expect' "$t2.s"; then
  ok "--timing-only: no .expect, $c2 cycles as the checked run"
else
  bad "--timing-only: checked $c1 cycles, timing-only $c2"
fi

# big shapes assemble within IMEM (loops: the program does not grow)
imem() {   # CFG M N K LIMIT
  local f="$work/big-$1"
  if "$bin/tpu-gen" gemm --config "$1" -M "$2" -N "$3" -K "$4" -o "$f.s" >"$f.gen" 2>&1 \
     && "$bin/tpu-as" --config "$1" -o "$f.bin" "$f.s" >"$f.as" 2>&1; then
    local n
    n=$(sed -n 's/.*program: \([0-9]*\) instructions.*/\1/p' "$f.gen")
    if [ -n "$n" ] && [ "$n" -le "$5" ]; then
      ok "$1 $2x$3x$4 assembles: $n instructions (at most $5)"
    else
      bad "$1 $2x$3x$4: $n instructions, expected at most $5"
    fi
  else
    bad "$1 $2x$3x$4 does not assemble: $(cat "$f.gen" "$f.as" | grep -m1 error)"
  fi
  rm -f "$f.s" "$f.bin"
}
imem v5e 8192 8192 8192 400
imem tiny 1024 1024 1024 300
imem mid 1021 1031 1033 300

# bad command lines: exit 2, one gcc-style line
err() {   # EXPECTED-TEXT ARGS...
  local want=$1; shift
  local out rc
  out=$("$bin/tpu-gen" "$@" 2>&1 >/dev/null); rc=$?
  if [ $rc -eq 2 ] && [[ "$out" == "tpu-gen: error: "* ]] && [[ "$out" == *"$want"* ]]; then
    ok "error: $* -> $out"
  else
    bad "error: $*: exit $rc, '$out' (wanted exit 2 and '$want')"
  fi
}
err "-M must be positive"            gemm --config tiny -M 0 -N 8 -K 8
err "-N must be positive"            gemm --config tiny -M 8 -N -5 -K 8
err "-K must be a positive whole"    gemm --config tiny -M 8 -N 8 -K abc
err "-K must be a positive whole"    gemm --config tiny -M 8 -N 8 -K 1.5
err "-M is too large"                gemm --config tiny -M 99999999999999999999 -N 8 -K 8
err "needs -M, -N and -K"            gemm --config tiny -M 8 -N 8
err "--config is required"           gemm -M 8 -N 8 -K 8
err "unknown --dtype"                gemm --config tiny -M 8 -N 8 -K 8 --dtype fp8
err "unknown option"                 gemm --config tiny -M 8 -N 8 -K 8 --fast
err "unknown kernel"                 conv --config tiny
err "--tile-n 12 is impossible"      gemm --config tiny -M 8 -N 8 -K 8 --tile-n 12
err "--tile-n 48 is impossible"      gemm --config mid -M 8 -N 8 -K 8 --tile-n 48
err "--tile-k 12 is impossible"      gemm --config tiny -M 8 -N 8 -K 24 --tile-k 12
err "--tile-k 16 is impossible"      gemm --config tiny -M 8 -N 8 -K 24 --tile-k 16
err "--tile-m 5000 is impossible"    gemm --config tiny -M 10000 -N 8 -K 300 --tile-m 5000
err "does not fit HBM"               gemm --config v5e -M 100000 -N 100000 -K 100000
err "does not fit HBM"               gemm --config tiny -M 4096 -N 4096 -K 4096
err "too large for VMEM"             gemm --config tiny -M 1 -N 1 -K 200000
err "is int8 only"                   gemm --config tpuv1 -M 8 -N 8 -K 8
err "not supported yet"              gemm --config tiny -M 8 -N 8 -K 8 --relu
err "--tile-m needs a value"         gemm --config tiny -M 8 -N 8 -K 8 --tile-m
if "$bin/tpu-gen" --help | grep -q '^usage: tpu-gen gemm'; then
  ok "--help prints the usage, exit 0"
else
  bad "--help"
fi

echo "kernels: $pass passed, $fail failed"
[ $fail -eq 0 ]
