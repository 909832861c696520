#!/usr/bin/env bash
# transformer.sh BIN_DIR WORK_DIR - the transformer kernels of tpu-gen
# (docs/transformers.md):
#   - softmax, layernorm, rmsnorm, gelu, silu on the VPU (feature-major) on
#     tiny, mid and v5e: one column, odd column counts, several tiles,
#     --tile-rows, softmax's --scale: each generated, assembled, run and
#     bit-exact (its own .expect), and its error against float64 (printed
#     by tpu-gen) within the bounds docs/transformers.md gives;
#   - ffn (GEMM, GELU, GEMM; with --prenorm also the layernorm before and
#     the residual after) and attention (GEMM, scaled softmax, GEMM; one
#     head and several) on tiny and v5e, every stage checked; --timing-only
#     takes the cycles of its checked twin;
#   - the checks can fail: a program with one instruction changed, or a
#     check's constant changed, reports a MISMATCH;
#   - block (layernorm, QKV, the KV cache write with K token-major, attention
#     per head, W_o, residual, the MLP half): prefill and --causal on tiny
#     (dh 8, 10 padded, 3 heads) and v5e, --decode --past P (a few new
#     tokens padded to the lanes, and a whole vector of them), flash
#     attention (--key-block, and a decode whose softmax would not fit); a
#     decode on the KV cache a prefill dumped equals the longer prefill; every stage
#     checked and y^T the same bytes as tpu_ref_block's (--ref, --dump); a
#     program without the causal mask, or with K's transpose one column off,
#     gives another y;
#   - bad command lines and shapes: gcc-style "tpu-gen: error: ..." and
#     exit 2; --help.
set -uo pipefail
bin=${1:?usage: transformer.sh BIN_DIR WORK_DIR}
work=${2:?usage: transformer.sh BIN_DIR WORK_DIR}
mkdir -p "$work"
# shellcheck source=checks.sh
source "$(dirname "$0")/checks.sh"

# run KERNEL CFG MAXERR [OPTIONS...]: generate, assemble, run: bit-exact,
# and the printed max abs error against float64 below MAXERR (ffn and
# attention: relative to the largest |O| or |y|)
run() {
  local kernel=$1 cfg=$2 maxerr=$3; shift 3
  local name="$kernel $cfg $*"
  local f="$work/$kernel-$cfg-$pass-$fail"
  if ! "$bin/tpu-gen" "$kernel" --config "$cfg" "$@" -o "$f.s" >"$f.gen" 2>&1; then
    bad "$name: tpu-gen failed: $(head -n 1 "$f.gen")"; return
  fi
  if ! "$bin/tpu-as" --config "$cfg" -o "$f.bin" "$f.s" >"$f.as" 2>&1; then
    bad "$name: tpu-as failed: $(head -n 1 "$f.as")"; return
  fi
  "$bin/tpu-sim" --config "$cfg" "$f.bin" >"$f.sim" 2>&1
  local rc=$? cyc pred err
  cyc=$(sed -n 's/^cycles *\([0-9]*\).*/\1/p' "$f.sim")
  pred=$(sed -n 's/.*predicted \([0-9]*\) cycles.*/\1/p' "$f.gen" | head -n 1)
  err=$(sed -n 's/.*error against float64.*max abs \([^ ]*\) .*/\1/p' "$f.gen")
  local big
  big=$(sed -n 's/.*largest |[Oy]| \([^)]*\)).*/\1/p' "$f.gen")
  [ -n "$big" ] && [ -n "$err" ] && err=$(awk -v e="$err" -v b="$big" 'BEGIN { printf "%.3g", e / b }')
  if [ $rc -ne 0 ] || ! grep -q '^result: bit-exact' "$f.sim"; then
    bad "$name: exit $rc, $(grep -m1 -E '^result|error' "$f.sim")"
  elif [ -z "$err" ] || ! awk -v e="$err" -v m="$maxerr" 'BEGIN { exit !(e + 0 < m + 0) }'; then
    bad "$name: bit-exact, but the error against float64 is '$err' (bound $maxerr)"
  else
    ok "$name: bit-exact, $cyc cycles (predicted $pred), max abs error $err"
    rm -f "$f.s" "$f.bin" "$f.as" "$f.sim" "$f.gen"
  fi
}

# the VPU layers; bounds: docs/transformers.md's table, with room
for k in softmax layernorm rmsnorm gelu silu; do
  b=1e-5; [ $k = silu ] && b=1e-5; [ $k = softmax ] && b=1e-6
  run $k tiny $b -N 64 -C 1
  run $k tiny $b -N 128 -C 7
  run $k tiny $b -N 640 -C 13                  # 10 vectors of rows: tiles of 5
  run $k tiny $b -N 192 -C 40 --tile-rows 64   # 3 tiles of one vector
  run $k mid $b -N 512 -C 9
  run $k v5e $b -N 2048 -C 24
done
run softmax tiny 1e-6 -N 64 -C 33 --scale 0.125
run layernorm tiny 1e-5 -N 64 -C 16 --eps 0.001
run rmsnorm tiny 1e-5 -N 64 -C 16 --eps 0

# GEMM, VPU layer, GEMM; bounds (of max abs / max |O|): the bf16 rounding
# of the intermediate
run ffn tiny 0.01 -T 64 -D 16 -F 32
run ffn tiny 0.01 -T 128 -D 20 -F 37           # padded K both times, 2 tiles
run ffn v5e 0.01 -T 1024 -D 128 -F 256
run attention tiny 0.01 -T 64 --dh 8
run attention tiny 0.01 -T 128 --dh 12 --kv 40
run attention v5e 0.01 -T 1024 --dh 64 --kv 256
run ffn tiny 0.01 -T 64 -D 16 -F 32 --prenorm    # layernorm, GEMM, GELU, GEMM, residual
run ffn tiny 0.01 -T 128 -D 20 -F 37 --prenorm --eps 0.001
run ffn v5e 0.01 -T 1024 -D 128 -F 256 --prenorm
run attention tiny 0.01 -T 64 --dh 8 --heads 3
run attention v5e 0.01 -T 1024 --dh 64 --kv 128 --heads 2

# --timing-only: the same cycles as the checked program
timing_twin() {
  local kernel=$1 cfg=$2; shift 2
  local f="$work/twin-$kernel" c1 c2
  "$bin/tpu-gen" "$kernel" --config "$cfg" "$@" -o "$f.s" --quiet &&
    "$bin/tpu-as" --config "$cfg" -o "$f.bin" "$f.s" &&
    c1=$("$bin/tpu-sim" --config "$cfg" "$f.bin" | sed -n 's/^cycles *\([0-9]*\).*/\1/p')
  "$bin/tpu-gen" "$kernel" --config "$cfg" "$@" --timing-only -o "$f.t.s" --quiet &&
    "$bin/tpu-as" --config "$cfg" -o "$f.t.bin" "$f.t.s" &&
    c2=$("$bin/tpu-sim" --config "$cfg" "$f.t.bin" | sed -n 's/^cycles *\([0-9]*\).*/\1/p')
  if [ -n "${c1:-}" ] && [ "${c1:-}" = "${c2:-}" ]; then
    ok "$kernel $cfg $* --timing-only: $c2 cycles, as the checked program"
  else
    bad "$kernel $cfg $* --timing-only: ${c2:-?} cycles, the checked program ${c1:-?}"
  fi
}
timing_twin layernorm tiny -N 256 -C 20
timing_twin attention tiny -T 64 --dh 8 --kv 24
timing_twin ffn tiny -T 64 -D 16 -F 24 --prenorm

# the checks can fail: change the program or the check, see the MISMATCH
mismatch() {   # NAME SED-EXPR KERNEL CFG OPTIONS...
  local name=$1 expr=$2 kernel=$3 cfg=$4; shift 4
  local f="$work/mut-$pass-$fail"
  "$bin/tpu-gen" "$kernel" --config "$cfg" "$@" -o "$f.s" --quiet
  sed -e "$expr" "$f.s" >"$f.m.s"
  if cmp -s "$f.s" "$f.m.s"; then
    bad "mismatch $name: the change did not apply"; return
  fi
  "$bin/tpu-as" --config "$cfg" -o "$f.bin" "$f.m.s" >/dev/null 2>&1
  "$bin/tpu-sim" --config "$cfg" "$f.bin" >"$f.sim" 2>&1
  local rc=$?
  if [ $rc -ne 0 ] && grep -q 'MISMATCH' "$f.sim"; then
    ok "mismatch $name: exit $rc, $(grep -m1 -o 'MISMATCH.*' "$f.sim" | cut -c1-90)"
  else
    bad "mismatch $name: exit $rc, $(grep -m1 -E '^result' "$f.sim")"
  fi
}
mismatch "softmax without the maximum"  '0,/vmax    v0, v0, v16/s//vmin    v0, v0, v16/'  softmax tiny -N 64 -C 4
mismatch "softmax, another scale"       's/^\(        .expect softmax_s .*\), 0x3f800000, 0$/\1, 0x3f800001, 0/' softmax tiny -N 64 -C 4
mismatch "layernorm, another eps"       's/^\(        .expect layernorm .*\), 0x3727c5ac, 0$/\1, 0x3f800000, 0/' layernorm tiny -N 64 -C 4
mismatch "rmsnorm, rcp for rsqrt"       '0,/vrsqrt  v8, v8/s//vrcp    v8, v8/'  rmsnorm tiny -N 64 -C 4
mismatch "gelu, 1 - tanh"               '0,/vsub    v0, v26, v0/s//vsub    v0, v0, v26/'  gelu tiny -N 64 -C 2
mismatch "silu, exp(x)"                 '0,/vsub    v0, v30, v16/s//vadd    v0, v30, v16/'  silu tiny -N 64 -C 2
mismatch "ffn, the GELU's input read before the run" 's/^\(        .expect gelu G, H, .*\), 12$/\1, 8/' ffn tiny -T 64 -D 8 -F 16
mismatch "prenorm, the residual's O read before the run" 's/^\(        .expect residual Y, XRES, O, .*\), 64$/\1, 0/' ffn tiny -T 64 -D 8 -F 16 --prenorm
mismatch "prenorm, layernorm's output taken as fp32" 's/^\(        .expect layernorm XT, .*\), 8$/\1, 0/' ffn tiny -T 64 -D 8 -F 16 --prenorm
mismatch "attention, P read before the run" 's/^\(        .expect matmul_epi O, VT, P, O, .*\), 64$/\1, 0/' attention tiny -T 64 --dh 8

# the block: bit-exact stage by stage, y^T byte for byte the C reference's
# (tpu_ref_block, --ref), the error against float64 below MAXERR of max |y|
block() {   # CFG MAXERR OPTIONS...
  local cfg=$1 maxerr=$2; shift 2
  local name="block $cfg $*" f="$work/block-$pass-$fail"
  if ! "$bin/tpu-gen" block --config "$cfg" "$@" -o "$f.s" --ref "$f.ref.npy" >"$f.gen" 2>&1; then
    bad "$name: tpu-gen failed: $(head -n 1 "$f.gen")"; return
  fi
  if ! "$bin/tpu-as" --config "$cfg" -o "$f.bin" "$f.s" >"$f.as" 2>&1; then
    bad "$name: tpu-as failed: $(head -n 1 "$f.as")"; return
  fi
  "$bin/tpu-sim" --config "$cfg" --dump "Y=$f.y.npy" "$f.bin" >"$f.sim" 2>&1
  local rc=$? cyc err big
  cyc=$(sed -n 's/^cycles *\([0-9]*\).*/\1/p' "$f.sim")
  err=$(sed -n 's/.*error against float64.*max abs \([^ ]*\) .*/\1/p' "$f.gen")
  big=$(sed -n 's/.*largest |y| \([^)]*\)).*/\1/p' "$f.gen")
  [ -n "$big" ] && [ -n "$err" ] && err=$(awk -v e="$err" -v b="$big" 'BEGIN { printf "%.3g", e / b }')
  if [ $rc -ne 0 ] || ! grep -q '^result: bit-exact' "$f.sim"; then
    bad "$name: exit $rc, $(grep -m1 -E '^result|error' "$f.sim")"
  elif ! cmp -s "$f.ref.npy" "$f.y.npy"; then
    bad "$name: bit-exact stage by stage, but y is not the reference's"
  elif grep -q 'padding tokens CHANGE' "$f.gen"; then
    bad "$name: the padding tokens change the real ones' y"
  elif [ -z "$err" ] || ! awk -v e="$err" -v m="$maxerr" 'BEGIN { exit !(e + 0 < m + 0) }'; then
    bad "$name: bit-exact, but the error against float64 is '$err' (bound $maxerr)"
  else
    ok "$name: bit-exact, y the reference's, $cyc cycles, max abs error $err of max |y|"
    rm -f "$f".*
  fi
}
block tiny 0.02 -T 64 -D 16 -F 32 --heads 2
block tiny 0.02 -T 64 -D 16 -F 32 --heads 2 --causal
block tiny 0.02 -T 128 -D 24 -F 40 --heads 3 --causal          # 2 vectors of tokens, odd F
block tiny 0.02 -T 64 -D 20 -F 32 --heads 2 --causal --eps 0.001   # dh 10: Q's K-tile padded
block tiny 0.02 -T 3 -D 16 -F 32 --heads 2 --decode --past 64  # 3 new tokens, 61 of padding
block tiny 0.02 -T 64 -D 16 -F 32 --heads 2 --decode --past 8
block v5e 0.02 -T 1024 -D 128 -F 256 --heads 2 --causal        # dh 64 on 128 x 128 MXUs
# flash: a block of keys at a time (--key-block, or when one softmax tile does not fit VMEM)
block tiny 0.02 -T 64 -D 16 -F 32 --heads 1 --key-block 32 --causal
block mid 0.02 -T 256 -D 32 -F 64 --heads 2 --key-block 96 --causal  # 3 blocks (the last partial), 2 query vectors
block mid 0.02 -T 128 -D 32 -F 64 --heads 2 --decode --past 48 --key-block 64   # new keys across blocks
block tiny 0.02 -T 3 -D 16 -F 32 --heads 1 --decode --past 400  # one softmax tile would not fit: flash
if grep -q 'padding tokens do not change' <("$bin/tpu-gen" block --config tiny -T 1 -D 8 -F 16 --heads 2 --decode --past 8 -o /dev/null); then
  ok "block --decode: a padded step's real token has the y of the reference on it alone"
else
  bad "block --decode: the padding tokens' report"
fi
# decode continues a prefill: a causal prefill of 128 tokens; a prefill of
# its first 64 (x loaded from it), whose KV cache (--dump KH, VH) is the past
# of a decode of the last 64 (--load KP, VP, x): the decode's y is the long
# prefill's last 64 columns, byte for byte
chain() {
  local d="$work/chain" o="--config tiny -D 16 -F 32 --heads 2" xa ya
  mkdir -p "$d"
  # shellcheck disable=SC2086
  if ! "$bin/tpu-gen" block $o -T 128 --causal -o "$d/a.s" --quiet ||
     ! "$bin/tpu-gen" block $o -T 64 --causal -o "$d/b.s" --quiet ||
     ! "$bin/tpu-gen" block $o -T 64 --decode --past 64 -o "$d/c.s" --quiet; then
    bad "block: decode continues a prefill: tpu-gen failed"; return
  fi
  xa=$(awk '/^        \.hbm/ {a=$2} /^XRES:/ {print a; exit}' "$d/a.s")
  ya=$(awk '/^        \.hbm/ {a=$2} /^Y:/ {print a; exit}' "$d/a.s")
  printf '        .hbm    %s\nXH:\n        .array  XH, f32, 16, 64, pitch 512\n        .hbm    %s\nXT:\n        .array  XT, f32, 16, 64, pitch 512\n        .hbm    %s\nYT:\n        .array  YT, f32, 16, 64, pitch 512\n' \
    "$xa" $((xa + 256)) $((ya + 256)) >>"$d/a.s"
  local r1 r2 r3
  if ! "$bin/tpu-as" --config tiny -o "$d/a.bin" "$d/a.s" || ! "$bin/tpu-as" --config tiny -o "$d/b.bin" "$d/b.s" ||
     ! "$bin/tpu-as" --config tiny -o "$d/c.bin" "$d/c.s"; then
    bad "block: decode continues a prefill: tpu-as failed"; return
  fi
  r1=$("$bin/tpu-sim" --config tiny --dump "XH=$d/xh.npy" --dump "XT=$d/xt.npy" --dump "YT=$d/yt.npy" "$d/a.bin" | grep '^result')
  r2=$("$bin/tpu-sim" --config tiny --load "XRES=$d/xh.npy" --dump "KH0=$d/k0.npy" --dump "KH1=$d/k1.npy" \
       --dump "VH0=$d/v0.npy" --dump "VH1=$d/v1.npy" "$d/b.bin" | grep '^result')
  r3=$("$bin/tpu-sim" --config tiny --load "XRES=$d/xt.npy" --load "KP0=$d/k0.npy" --load "KP1=$d/k1.npy" \
       --load "VP0=$d/v0.npy" --load "VP1=$d/v1.npy" --dump "Y=$d/yc.npy" "$d/c.bin" | grep '^result')
  if [ "$r1$r2$r3" = "result: bit-exactresult: bit-exactresult: bit-exact" ] && cmp -s "$d/yt.npy" "$d/yc.npy"; then
    ok "block: a decode of 64 tokens on the KV cache a prefill of 64 wrote gives the 128-token prefill's last 64 y, byte for byte"
  else
    bad "block: decode continues a prefill: '$r1' '$r2' '$r3', y $(cmp "$d/yt.npy" "$d/yc.npy" 2>&1)"
  fi
}
chain

# the end-to-end comparison catches what the stages' checks do not see
block_mutant() {   # NAME SED-EXPR OPTIONS...
  local name=$1 expr=$2; shift 2
  local f="$work/bmut-$pass-$fail"
  "$bin/tpu-gen" block --config tiny "$@" -o "$f.s" --ref "$f.ref.npy" --quiet
  sed -e "$expr" "$f.s" >"$f.m.s"
  if cmp -s "$f.s" "$f.m.s"; then
    bad "block mutant $name: the change did not apply"; return
  fi
  "$bin/tpu-as" --config tiny -o "$f.bin" "$f.m.s" >/dev/null 2>&1
  "$bin/tpu-sim" --config tiny --dump "Y=$f.y.npy" "$f.bin" >"$f.sim" 2>&1
  if [ -s "$f.y.npy" ] && ! cmp -s "$f.ref.npy" "$f.y.npy"; then
    ok "block mutant $name: y differs from the reference ($(grep -m1 '^result' "$f.sim"))"
  else
    bad "block mutant $name: y is still the reference's"
  fi
}
block_mutant "without the causal mask" '/^        vsel    /d' -T 64 -D 16 -F 32 --heads 2 --causal
block_mutant "K transposed one feature off" 's/^        addi    s2, s2, 2$/        addi    s2, s2, 4/' -T 64 -D 16 -F 32 --heads 4
block_mutant "flash, the sum without the correction" 's/^        vmul    v1, v1, v3$/        vmul    v1, v1, v31/' -T 64 -D 16 -F 32 --heads 1 --key-block 32
mismatch "block, the scores' K read before the run" 's/^\(        .expect matmul_epi S0, KH0, .*\), 68$/\1, 64/' block tiny -T 64 -D 16 -F 32 --heads 2
timing_twin block tiny -T 64 -D 16 -F 32 --heads 2 --causal

# bad command lines and shapes: exit 2, one gcc-style line
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
err "does not divide into vectors"   softmax --config tiny -N 100 -C 4
err "does not divide into vectors"   layernorm --config v5e -N 512 -C 4
err "too large for VMEM"             softmax --config tiny -N 64 -C 300
err "too large for VMEM"             layernorm --config tiny -N 128 -C 200 --tile-rows 128
err "--tile-rows 96 is impossible"   gelu --config tiny -N 192 -C 4 --tile-rows 96
err "-C must be positive"            silu --config tiny -N 64 -C 0
err "-N must be a positive whole"    silu --config tiny -N 6x4 -C 4
err "needs -N and -C"                rmsnorm --config tiny -N 64
err "--config is required"           gelu -N 64 -C 4
err "--eps must be a non-negative"   layernorm --config tiny -N 64 -C 4 --eps -1
err "--eps must be a non-negative"   layernorm --config tiny -N 64 -C 4 --eps 1e-50
err "--scale must be a positive"     softmax --config tiny -N 64 -C 4 --scale 0
err "--scale must be a positive"     softmax --config tiny -N 64 -C 4 --scale inf
err "unknown option '--scale'"       gelu --config tiny -N 64 -C 4 --scale 2
err "unknown option '--eps'"         softmax --config tiny -N 64 -C 4 --eps 2
err "-T 100 does not divide"         ffn --config tiny -T 100 -D 8 -F 8
err "ffn needs -T, -D and -F"        ffn --config tiny -T 64 -D 8
err "attention needs -T and --dh"    attention --config tiny -T 64
err "too large for VMEM"             attention --config tiny -T 64 --dh 8 --kv 400
err "does not fit HBM"               ffn --config tiny -T 4096 -D 1024 -F 4096
err "--heads 300: at most 256"       attention --config tiny -T 64 --dh 8 --heads 300
err "IMEM holds 4096"                attention --config tiny -T 64 --dh 8 --heads 12
err "unknown option '--heads'"       ffn --config tiny -T 64 -D 8 -F 8 --heads 2
err "--eps is for --prenorm"         ffn --config tiny -T 64 -D 8 -F 8 --eps 0.1
err "--eps must be a non-negative"   ffn --config tiny -T 64 -D 8 -F 8 --prenorm --eps x
err "unknown option '--prenorm'"     attention --config tiny -T 64 --dh 8 --prenorm
err "-D 30 does not divide into 4 heads" block --config tiny -T 64 -D 30 -F 32 --heads 4
err "-T 100 does not divide"         block --config tiny -T 100 -D 16 -F 32
err "block needs -T, -D and -F"      block --config tiny -T 64 -D 16
err "--past is for --decode"         block --config tiny -T 64 -D 16 -F 32 --past 8
err "--decode needs --past"          block --config tiny -T 1 -D 16 -F 32 --decode
err "--past 5 must be a multiple"    block --config tiny -T 1 -D 16 -F 32 --decode --past 5
err "VMEM cannot hold one block of 800 keys" block --config tiny -T 64 -D 16 -F 32 --decode --past 8000 --key-block 800
err "--key-block 12 must be a multiple" block --config tiny -T 64 -D 16 -F 32 --key-block 12
err "too large for VMEM"             block --config tiny -T 64 -D 512 -F 32
err "--ref needs the data"           block --config tiny -T 64 -D 16 -F 32 --timing-only --ref x.npy
err "unknown option '--kv'"          block --config tiny -T 64 -D 16 -F 32 --kv 8
err "--heads 300: at most 256"       block --config tiny -T 64 -D 16 -F 32 --heads 300
err "--eps needs a value"            block --config tiny -T 64 -D 16 -F 32 --eps
err "--eps must be a non-negative"   ffn --config tiny -T 64 -D 8 -F 8 --prenorm --eps 1e-400
err "-o needs a file name"           attention --config tiny -T 64 --dh 8 -o
for k in softmax layernorm rmsnorm gelu silu ffn attention block; do
  if "$bin/tpu-gen" $k --help | grep -q "^usage: tpu-gen $k"; then
    ok "$k --help prints the usage, exit 0"
  else
    bad "$k --help"
  fi
done

finish transformer
