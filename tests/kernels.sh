#!/usr/bin/env bash
# kernels.sh BIN_DIR WORK_DIR [--soak] - the kernel generator (tpu-gen,
# docs/workloads.md):
#   - seeded random GEMM shapes (odd and prime sizes, 1..300) on tiny and
#     mid and a few on v5e, in bf16, int8 and w8, some with tiling options:
#     each generated, assembled, run and bit-exact (its own .expect);
#   - a --timing-only program takes the cycles of its checked twin;
#   - the 8192 x 8192 x 8192 program for v5e assembles within IMEM (not
#     run), and so does the largest cube tiny's HBM holds;
#   - the VPU epilogue (--bias, --relu, both) on GEMMs; conv2d on random
#     small layers (stride 1/2, padding 0/1/2, groups 1/2/C, odd sizes) on
#     tiny and mid and a few on v5e; pooling (max, avg) and elementwise
#     layers; MLP chains: all bit-exact (.expect matmul_epi, conv2d, pool);
#   - bad command lines: gcc-style "tpu-gen: error: ..." and exit 2; --help.
# --soak-all: 200 random shapes 1..4096 on each of tiny, mid and v5e in
# bf16, int8 and w8 in turn (make kernels-soak-all; below).
# --soak: instead, 200 random shapes 1..4096 on v5e (make kernels-soak),
# then every conv layer of ResNet-18 and MobileNetV2 on v5e, bit-exact.
set -uo pipefail
bin=${1:?usage: kernels.sh BIN_DIR WORK_DIR [--soak]}
work=${2:?usage: kernels.sh BIN_DIR WORK_DIR [--soak]}
soak=${3:-}
mkdir -p "$work"
source "$(dirname "$0")/checks.sh"   # ok, bad, skip, finish: TAP (tests/README.md)

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

# layer KERNEL CFG [OPTIONS...]: any tpu-gen kernel, the same way
layer() {
  local kernel=$1 cfg=$2; shift 2
  local name="$kernel $cfg $*"
  local f="$work/l-$kernel-$cfg-$pass-$fail"
  if ! "$bin/tpu-gen" "$kernel" --config "$cfg" "$@" -o "$f.s" >"$f.gen" 2>&1; then
    bad "$name: tpu-gen failed: $(head -n 1 "$f.gen")"; return
  fi
  if ! "$bin/tpu-as" --config "$cfg" -o "$f.bin" "$f.s" >"$f.as" 2>&1; then
    bad "$name: tpu-as failed: $(head -n 1 "$f.as")"; return
  fi
  "$bin/tpu-sim" --config "$cfg" "$f.bin" >"$f.sim" 2>&1
  local rc=$?
  local cyc pred
  cyc=$(sed -n 's/^cycles *\([0-9]*\).*/\1/p' "$f.sim")
  pred=$(sed -n 's/.*predicted \([0-9]*\) cycles.*/\1/p' "$f.gen" | head -n 1)
  if [ $rc -eq 0 ] && grep -q '^result: bit-exact' "$f.sim"; then
    ok "$name: bit-exact, $cyc cycles (predicted $pred)"
    rm -f "$f.s" "$f.bin" "$f.as" "$f.sim" "$f.gen"
  else
    bad "$name: exit $rc, $(grep -m1 -E '^result|error' "$f.sim")"
  fi
}

# conv2d CFG NB H W C F R S STRIDE PAD GROUPS [OPTIONS...]
conv() {
  local cfg=$1; shift
  layer conv2d "$cfg" --batch "$1" -H "$2" -W "$3" -C "$4" --filters "$5" -R "$6" -S "$7" \
    --stride "$8" --pad "$9" --groups "${10}" "${@:11}"
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

# --soak-all: 200 random shapes on each of tiny, mid and v5e, the dtypes in
# turn (bf16, int8, w8), each dimension 1..4096 (every other one a prime),
# drawn again while the data does not fit the machine's HBM or the run would
# be too long for a soak (more than 2^30 MACs on tiny, 2^32 on mid)
isprime() { local n=$1 d=2; [ "$n" -lt 2 ] && return 1
  while [ $((d * d)) -le "$n" ]; do [ $((n % d)) -eq 0 ] && return 1; d=$((d + 1)); done; }
dim4096() { local v=$(( RANDOM * 32768 + RANDOM )); v=$(( v % 4096 + 1 ))
  if [ $((RANDOM % 2)) -eq 0 ]; then while ! isprime "$v"; do v=$(( v % 4096 + 1 )); done; fi
  echo "$v"; }
if [ "$soak" = "--soak-all" ]; then
  RANDOM=2026
  dts=(bf16 int8 w8)
  for cfg in tiny mid v5e; do
    case $cfg in tiny) lim=$((1 << 30)) ;; mid) lim=$((1 << 32)) ;; *) lim=$((1 << 40)) ;; esac
    for i in $(seq 1 200); do
      dt=${dts[$((i % 3))]}
      while :; do
        m=$(dim4096); n=$(dim4096); k=$(dim4096)
        [ $((m * n * k)) -le $lim ] || continue
        "$bin/tpu-gen" gemm --config $cfg -M $m -N $n -K $k --dtype $dt --predict \
          >/dev/null 2>&1 && break
      done
      gemm $cfg $m $n $k --dtype $dt
    done
  done
  finish kernels
fi

if [ "$soak" = "--soak" ]; then
  RANDOM=4096
  for i in $(seq 1 200); do
    m=$(( RANDOM % 4096 + 1 )); n=$(( RANDOM % 4096 + 1 )); k=$(( RANDOM % 4096 + 1 ))
    gemm v5e $m $n $k
  done
  # the conv layers of ResNet-18 (He et al., "Deep Residual Learning for
  # Image Recognition", 2016, Table 1: 224x224 input, the 18-layer column;
  # the 1x1 stride-2 projections of the shortcuts) and MobileNetV2
  # (Sandler et al., "MobileNetV2: Inverted Residuals and Linear
  # Bottlenecks", 2018, Table 2 with the bottleneck of Figure 4: 1x1
  # expansion t, 3x3 depthwise with the block's stride, 1x1 projection):
  # each distinct shape once, batch 1, bias and relu where the network has
  # them (a projection has no relu), on v5e
  resnet=(
    "1 224 224 3 64 7 7 2 3 1"      "1 56 56 64 64 3 3 1 1 1"
    "1 56 56 64 128 3 3 2 1 1"      "1 56 56 64 128 1 1 2 0 1"
    "1 28 28 128 128 3 3 1 1 1"     "1 28 28 128 256 3 3 2 1 1"
    "1 28 28 128 256 1 1 2 0 1"     "1 14 14 256 256 3 3 1 1 1"
    "1 14 14 256 512 3 3 2 1 1"     "1 14 14 256 512 1 1 2 0 1"
    "1 7 7 512 512 3 3 1 1 1")
  for l in "${resnet[@]}"; do conv v5e $l --bias --relu; done
  mobilenet=(
    "1 224 224 3 32 3 3 2 1 1 --relu"     "1 112 112 32 32 3 3 1 1 32 --relu"
    "1 112 112 32 16 1 1 1 0 1"           "1 112 112 16 96 1 1 1 0 1 --relu"
    "1 112 112 96 96 3 3 2 1 96 --relu"   "1 56 56 96 24 1 1 1 0 1"
    "1 56 56 24 144 1 1 1 0 1 --relu"     "1 56 56 144 144 3 3 1 1 144 --relu"
    "1 56 56 144 24 1 1 1 0 1"            "1 56 56 144 144 3 3 2 1 144 --relu"
    "1 28 28 144 32 1 1 1 0 1"            "1 28 28 32 192 1 1 1 0 1 --relu"
    "1 28 28 192 192 3 3 1 1 192 --relu"  "1 28 28 192 32 1 1 1 0 1"
    "1 28 28 192 192 3 3 2 1 192 --relu"  "1 14 14 192 64 1 1 1 0 1"
    "1 14 14 64 384 1 1 1 0 1 --relu"     "1 14 14 384 384 3 3 1 1 384 --relu"
    "1 14 14 384 64 1 1 1 0 1"            "1 14 14 384 96 1 1 1 0 1"
    "1 14 14 96 576 1 1 1 0 1 --relu"     "1 14 14 576 576 3 3 1 1 576 --relu"
    "1 14 14 576 96 1 1 1 0 1"            "1 14 14 576 576 3 3 2 1 576 --relu"
    "1 7 7 576 160 1 1 1 0 1"             "1 7 7 160 960 1 1 1 0 1 --relu"
    "1 7 7 960 960 3 3 1 1 960 --relu"    "1 7 7 960 160 1 1 1 0 1"
    "1 7 7 960 320 1 1 1 0 1"             "1 7 7 320 1280 1 1 1 0 1 --relu")
  for l in "${mobilenet[@]}"; do conv v5e $l --bias; done
  finish kernels
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

# the VPU epilogue: bias, relu, both; narrower groups (a bias pattern of
# several vectors), several M-tiles and groups, w8
gemm tiny 37 29 45 --relu
gemm tiny 37 29 45 --bias
gemm tiny 300 100 61 --bias --relu
gemm tiny 2000 20 30 --bias --relu
gemm mid 211 77 45 --bias --relu --tile-m 30
gemm mid 131 47 99 --bias --tile-n 16 --dtype w8
gemm v5e 300 500 700 --bias --relu
gemm v5e 129 700 130 --bias --tile-n 384

# conv2d on random small layers: stride 1/2, padding 0..2 (< the window),
# groups 1, 2 or C (depthwise: the VPU), odd sizes; with and without the
# epilogue
RANDOM=2
for cfg in tiny tiny tiny tiny mid mid mid mid tiny mid; do
  for kind in 1 2 C; do
    h=$((RANDOM % 12 + 3)); w=$((RANDOM % 12 + 3)); r=$((RANDOM % 3 + 1)); s=$((RANDOM % 3 + 1))
    st=$((RANDOM % 2 + 1)); pd=$((RANDOM % 3)); [ $pd -ge $r ] && pd=$((r - 1)); [ $pd -ge $s ] && pd=$((s - 1))
    [ $((h + 2 * pd)) -lt $r ] && h=$r; [ $((w + 2 * pd)) -lt $s ] && w=$s
    case $kind in
      1) c=$((RANDOM % 9 + 1)); f=$((RANDOM % 13 + 1)); g=1 ;;
      2) c=$(( (RANDOM % 5 + 1) * 2 )); f=$(( (RANDOM % 6 + 1) * 2 )); g=2 ;;
      C) c=$((RANDOM % 20 + 1)); f=$c; g=$c ;;
    esac
    epi=(); [ $((RANDOM % 2)) -eq 0 ] && epi+=(--bias); [ $((RANDOM % 2)) -eq 0 ] && epi+=(--relu)
    conv $cfg $((RANDOM % 2 + 1)) $h $w $c $f $r $s $st $pd $g "${epi[@]}"
  done
done
conv tiny 2 30 30 16 24 3 3 1 1 1 --bias --relu                      # several M-tiles
conv tiny 1 17 19 6 10 5 5 2 2 1 --tile-m 40
conv mid 1 13 11 12 40 3 1 1 0 4 --relu
conv mid 1 9 9 8 16 3 3 1 1 8                                         # groups of one channel, two filters
conv mid 1 11 11 6 6 3 3 1 1 6 --engine mxu --bias                    # depthwise on the MXU
conv v5e 1 56 56 64 64 3 3 1 1 1 --bias --relu                        # ResNet's conv2_x
conv v5e 1 28 28 64 96 3 3 2 1 2
conv v5e 1 28 28 144 144 3 3 2 1 144 --bias --relu                    # MobileNetV2's depthwise

# pooling and elementwise layers on the VPU
layer pool tiny --mode max -H 9 -W 9 -C 8 -R 3 -S 3 --stride 2 --pad 1
layer pool tiny --mode avg -H 7 -W 8 -C 3 -R 2 -S 2 --stride 2
layer pool mid --mode avg -H 7 -W 8 -C 5 -R 3 -S 3 --pad 1 --batch 2
layer pool mid --mode max -H 11 -W 6 -C 17 -R 2 -S 3 --stride 1
layer pool v5e --mode max -H 112 -W 112 -C 64 -R 3 -S 3 --stride 2 --pad 1   # ResNet-18's
for op in add relu add_relu max mul; do layer eltwise tiny --op $op -H 5 -W 7 -C 33; done
layer eltwise mid --op add_relu -H 17 -W 3 -C 100 --batch 3
layer eltwise v5e --op add -H 56 -W 56 -C 64

# MLP chains: GEMM, relu, GEMM; intermediates bf16 in VMEM when they fit
# (else, and with --via-hbm, in HBM), each layer checked
layer mlp tiny -M 37 --dims 20,50,13 --relu
layer mlp tiny -M 37 --dims 20,50,13 --relu --bias
layer mlp mid -M 100 --dims 64,200,30,17 --relu --bias
layer mlp v5e -M 256 --dims 1024,4096,1024 --relu
layer mlp v5e -M 300 --dims 700,1000,300,200 --relu --bias
layer mlp tiny -M 37 --dims 20,50,13 --relu --via-hbm
layer mlp mid -M 100 --dims 64,200,30,17 --relu --bias --via-hbm
layer mlp mid -M 600 --dims 32,1000,16 --relu     # H1 1.2 MB: does not fit mid's 1 MB

# where the intermediates live: said in the plan comment; in VMEM the chain
# skips the HBM round trip (timing-only runs: no copies for the checks)
where() {   # EXPECTED CFG ARGS...
  local want=$1 cfg=$2; shift 2
  local got
  got=$("$bin/tpu-gen" mlp --config "$cfg" "$@" --timing-only --quiet | sed -n 's/^#   intermediates   bf16 \([a-z]*\) \([A-Z]*\).*/\1 \2/p')
  if [ "$got" = "$want" ]; then ok "mlp $cfg $*: intermediates $got"; else bad "mlp $cfg $*: intermediates '$got', want '$want'"; fi
}
where "in VMEM" v5e -M 256 --dims 1024,4096,1024 --relu
where "through HBM" v5e -M 256 --dims 1024,4096,1024 --relu --via-hbm
where "through HBM" mid -M 600 --dims 32,1000,16 --relu
where "through HBM" tiny -M 4000 --dims 16,64,8
mcyc() {   # CFG ARGS...: cycles of the timing-only program
  local cfg=$1; shift
  "$bin/tpu-gen" mlp --config "$cfg" "$@" --timing-only --quiet -o "$work/mc.s" \
    && "$bin/tpu-as" --config "$cfg" -o "$work/mc.bin" "$work/mc.s" \
    && "$bin/tpu-sim" --config "$cfg" "$work/mc.bin" | sed -n 's/^cycles *\([0-9]*\).*/\1/p'
}
cv=$(mcyc v5e -M 256 --dims 1024,4096,1024 --relu)
ch=$(mcyc v5e -M 256 --dims 1024,4096,1024 --relu --via-hbm)
if [ -n "$cv" ] && [ -n "$ch" ] && [ "$cv" -lt "$ch" ]; then
  ok "mlp v5e 256 x 1024,4096,1024: $cv cycles with H1 in VMEM, $ch through HBM"
else
  bad "mlp v5e: in VMEM '$cv' cycles, through HBM '$ch'"
fi

# --predict: the cost model's cycles and bound, no program
if "$bin/tpu-gen" conv2d --config v5e -H 56 -W 56 -C 64 --filters 64 -R 3 -S 3 --pad 1 --predict \
     | grep -q 'predicted [0-9]* cycles, [a-z]*-bound'; then
  ok "--predict prints the prediction (conv2d)"
else
  bad "--predict"
fi

if "$bin/tpu-gen" gemm --config v5e -M 1024 -N 1024 -K 1024 --bias --predict \
     | grep -q '^tpu-gen: predicted [0-9]* cycles, [a-z]*-bound'; then
  ok "--predict prints the prediction (gemm)"
else
  bad "--predict (gemm)"
fi

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
err "need fp32 results"              gemm --config mid -M 8 -N 8 -K 8 --relu --dtype int8
err "must divide the channels"       conv2d --config tiny -H 8 -W 8 -C 6 --filters 4 -R 3 -S 3 --groups 4
err "must be smaller than the window" conv2d --config tiny -H 8 -W 8 -C 6 --filters 4 -R 3 -S 3 --pad 3
err "conv2d needs -H"                conv2d --config tiny -W 8 -C 6 --filters 4 -R 3 -S 3
err "pool needs --mode"              pool --config tiny -H 8 -W 8 -C 6 -R 3 -S 3
err "unknown --op"                   eltwise --config tiny -H 8 -W 8 -C 6 --op div
err "--dims needs at least two"      mlp --config tiny -M 8 --dims 8
err "is for depthwise"               conv2d --config tiny -H 8 -W 8 -C 6 --filters 6 -R 3 -S 3 --engine vpu
err "--tile-m needs a value"         gemm --config tiny -M 8 -N 8 -K 8 --tile-m
if "$bin/tpu-gen" --help | grep -q '^usage: tpu-gen gemm'; then
  ok "--help prints the usage, exit 0"
else
  bad "--help"
fi

finish kernels
