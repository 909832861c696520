#!/usr/bin/env bash
# shard.sh BIN_DIR WORK_DIR - tpu-gen ffn-shard, the transformer MLP sharded
# across cores (docs/transformers.md, "Sharded across chips"):
#   - data parallel (B_X on a ring of 4, B_XY on a 2x2 torus), Megatron
#     (F_X on rings of 2 and 4) and both (B_X,F_Y and F_X,B_Y on a 2x2
#     torus) on tiny: every core's stages bit-exact (its own .expect), and
#     core 0's whole result (tpu-sim --dump) byte for byte the C reference
#     of tpu-gen --ref (the partials summed P_0 + P_1 + ... left to right);
#     with one K-tile a core (F / tp = MXU_N) tpu-gen finds it identical
#     to one chip's result;
#   - --reduce ring (the library's ReduceScatter, each half chunk added in
#     its ring's order) on rings of 2 and 4 and the 2x2 torus, the same;
#   - v5e: Megatron on a ring of 4 (both reductions), the same checks;
#   - --overlap (the collective matmul) on a ring of 2, the 2x2 torus and a
#     v5e ring of 4: the same checks, and core 0's result byte for byte
#     --reduce ring's (the same order of the sum); on a communication-heavy
#     shape (tiny and v5e) the same ICI bytes in fewer cycles;
#   - --partials bf16 with --overlap on the same three: bit-exact against
#     the reference that rounds each hop to bf16, half the ICI bytes, the
#     error against float64 reported;
#   - --timing-only takes the cycles of its checked twin; --part compute
#     and --part comm add up to the whole within 5% (they do not overlap);
#   - the checks can fail: a core sent to another's block reports a
#     MISMATCH, a sum without its last partial differs from the reference;
#   - bad command lines, shapes and shardings: "tpu-gen: error: ..." and
#     exit 2; --help.
set -uo pipefail
bin=${1:?usage: shard.sh BIN_DIR WORK_DIR}
work=${2:?usage: shard.sh BIN_DIR WORK_DIR}
lib="$(cd "$(dirname "$0")/../programs" && pwd)"
mkdir -p "$work"
# shellcheck source=checks.sh
source "$(dirname "$0")/checks.sh"

cyc() { sed -n 's/^cycles *\([0-9]*\).*/\1/p' "$1" | head -n 1; }
# gen_run KIND CFG NAME CORES DUMP TOPO_ARGS -- GEN_ARGS...: tpu-gen KIND
# with --ref, assemble, run on CORES cores, dump label DUMP of core 0 (into
# NAME.o0.npy): every core bit-exact and core 0's DUMP equal to the reference
gen_run() {
  local kind=$1 cfg=$2 name=$3 cores=$4 dump=$5; shift 5
  local topo=()
  while [ "$1" != "--" ]; do topo+=("$1"); shift; done; shift
  local f="$work/$name"
  if ! "$bin/tpu-gen" "$kind" --config "$cfg" "$@" -o "$f.s" --ref "$f.ref.npy" >"$f.gen" 2>&1; then
    bad "$name: tpu-gen failed: $(head -n 1 "$f.gen")"; return
  fi
  if ! "$bin/tpu-as" --config "$cfg" -I "$lib" -o "$f.bin" "$f.s" >"$f.as" 2>&1; then
    bad "$name: tpu-as failed: $(head -n 1 "$f.as")"; return
  fi
  "$bin/tpu-sim" --config "$cfg" --cores "$cores" "${topo[@]}" --dump "$dump=$f.o0.npy" "$f.bin" >"$f.sim" 2>&1
  local rc=$?
  if [ $rc -ne 0 ] || ! grep -q '^result: bit-exact' "$f.sim"; then
    bad "$name: tpu-sim exit $rc: $(grep -m1 -E 'MISMATCH|error|result' "$f.sim")"; return
  fi
  if ! cmp -s "$f.ref.npy" "$f.o0.npy"; then
    bad "$name: core 0's $dump differs from the C reference"; return
  fi
  ok "$name: $(cyc "$f.sim") cycles, every core bit-exact, core 0's $dump = the reference"
}
# run NAME CFG CORES DUMP TOPO_ARGS -- GEN_ARGS...: gen_run of ffn-shard
run() { local name=$1 cfg=$2; shift 2; gen_run ffn-shard "$cfg" "$name" "$@"; }
T2=(--topology torus2d --grid 2x2)
run tp4-one-tile tiny 4 O0 -- -T 64 -D 16 -F 32 --mesh 4 --shard F_X
if grep -q ': 0 of 1024 values differ' "$work/tp4-one-tile.gen"; then
  ok "F / tp = MXU_N: identical to one chip"
else
  bad "F / tp = MXU_N: not identical to one chip: $(grep 'one chip' "$work/tp4-one-tile.gen")"
fi
run tp4 tiny 4 O0 -- -T 64 -D 32 -F 64 --mesh 4 --shard tp
if grep -q 'values differ, by at most' "$work/tp4.gen" && ! grep -q ': 0 of' "$work/tp4.gen"; then
  ok "two K-tiles a core: the association differs from one chip's and tpu-gen says by how much"
else
  bad "two K-tiles a core: $(grep 'one chip' "$work/tp4.gen")"
fi
run tp2 tiny 2 O0 -- -T 128 -D 16 -F 48 --mesh 2 --shard tp
run pad4 tiny 4 O0 -- -T 64 -D 20 -F 36 --mesh 4 --shard tp     # D and F/tp not multiples of the MXU: padded
run dp4 tiny 4 P0 -- -T 256 -D 16 -F 32 --mesh 4 --shard B_X
run dp22 tiny 4 P0 "${T2[@]}" -- -T 256 -D 24 -F 40 --mesh 2x2 --shard dp
run mix22 tiny 4 O0 "${T2[@]}" -- -T 128 -D 16 -F 32 --mesh 2x2 --shard B_X,F_Y
run mix22b tiny 4 O0 "${T2[@]}" -- -T 128 -D 16 -F 32 --mesh 2x2 --shard F_X,B_Y
run tp4-v5e v5e 4 O0 -- -T 1024 -D 128 -F 512 --mesh 4 --shard tp
# --reduce ring: the library's ReduceScatter, each half chunk in its ring's order (the reference's)
run ring4 tiny 4 O0 -- -T 64 -D 64 -F 96 --mesh 4 --shard tp --reduce ring
run ring2 tiny 2 O0 -- -T 64 -D 16 -F 64 --mesh 2 --shard tp --reduce ring
run ring22 tiny 4 O0 "${T2[@]}" -- -T 128 -D 16 -F 32 --mesh 2x2 --shard B_X,F_Y --reduce ring
run ring4-v5e v5e 4 O0 -- -T 1024 -D 128 -F 512 --mesh 4 --shard tp --reduce ring

# --overlap: the collective matmul (GEMM 2 in n pieces, each piece's halves sent on while the
# next computes): the same order of the sum as --reduce ring, so the same result byte for byte
run ovl2 tiny 2 O0 -- -T 64 -D 16 -F 64 --mesh 2 --shard tp --overlap
run ovl22 tiny 4 O0 "${T2[@]}" -- -T 128 -D 16 -F 32 --mesh 2x2 --shard B_X,F_Y --overlap
run ovl4-v5e v5e 4 O0 -- -T 1024 -D 128 -F 512 --mesh 4 --shard tp --overlap
for p in "ovl2 ring2" "ovl22 ring22" "ovl4-v5e ring4-v5e"; do
  read -r a b <<<"$p"
  if [ -s "$work/$a.ref.npy" ] && cmp -s "$work/$a.o0.npy" "$work/$b.o0.npy"; then ok "$a: O0 byte for byte --reduce ring's ($b)"
  else bad "$a: O0 differs from --reduce ring's ($b)"; fi
done
# --partials bf16: each sum rounded to bf16 before it travels (docs/numerics.md 14), the
# reference rounds the same way: bit-exact, half the ICI bytes of fp32 partials
run bf2 tiny 2 O0 -- -T 64 -D 16 -F 64 --mesh 2 --shard tp --overlap --partials bf16
run bf22 tiny 4 O0 "${T2[@]}" -- -T 128 -D 16 -F 32 --mesh 2x2 --shard B_X,F_Y --overlap --partials bf16
run bf4-v5e v5e 4 O0 -- -T 1024 -D 128 -F 512 --mesh 4 --shard tp --overlap --partials bf16
for p in "bf2 ovl2" "bf22 ovl22" "bf4-v5e ovl4-v5e"; do
  read -r a b <<<"$p"
  x=$(sed -n 's/^ici bytes *\([0-9]*\).*/\1/p' "$work/$a.sim" | head -n 1); y=$(sed -n 's/^ici bytes *\([0-9]*\).*/\1/p' "$work/$b.sim" | head -n 1)
  if [ -n "$x" ] && [ -n "$y" ] && [ "$x" -gt 0 ] && [ $((2 * x)) -eq "$y" ] && ! cmp -s "$work/$a.o0.npy" "$work/$b.o0.npy"; then
    ok "$a: $x ICI bytes, half of fp32 partials' $y; the result differs from theirs (rounded)"
  else
    bad "$a: ICI bytes '$x' against fp32 partials' '$y'"
  fi
done
if grep -Eq 'against float64 .*max abs error [0-9.e+-]+ with bf16 partials, [0-9.e+-]+ with fp32' "$work/bf4-v5e.gen"; then
  ok "bf16 partials: $(grep -o 'max abs error [^;]*' "$work/bf4-v5e.gen")"
else
  bad "bf16 partials: no error against float64 in the report"
fi

# on a communication-heavy shape --overlap sends the same ICI bytes in fewer cycles
icib() { sed -n 's/^ici bytes *\([0-9]*\).*/\1/p' "$1" | head -n 1; }
ovl() {
  local name=$1 cfg=$2 cores=$3; shift 3
  local x
  for x in "" --overlap; do
    "$bin/tpu-gen" ffn-shard --config "$cfg" "$@" --reduce ring $x --timing-only --quiet -o "$work/$name$x.s" \
      && "$bin/tpu-as" --config "$cfg" -I "$lib" -o "$work/$name$x.bin" "$work/$name$x.s" \
      && "$bin/tpu-sim" --config "$cfg" --cores "$cores" "$work/$name$x.bin" >"$work/$name$x.sim" 2>&1
  done
  local c0 c1 b0 b1
  c0=$(sed -n 's/^cycles *\([0-9]*\).*/\1/p' "$work/$name.sim" | head -n 1); c1=$(sed -n 's/^cycles *\([0-9]*\).*/\1/p' "$work/$name--overlap.sim" | head -n 1)
  b0=$(icib "$work/$name.sim"); b1=$(icib "$work/$name--overlap.sim")
  if [ -n "$c0" ] && [ -n "$c1" ] && [ -n "$b0" ] && [ "$b0" = "$b1" ] && [ "$b0" -gt 0 ] && [ "$c1" -lt "$c0" ]; then
    ok "$name: --overlap $c1 cycles against $c0, the same $b0 ICI bytes"
  else
    bad "$name: --overlap '$c1' cycles against '$c0', ICI bytes '$b1' against '$b0'"
  fi
}
ovl ovl-tiny tiny 2 -T 64 -D 64 -F 32 --mesh 2 --shard tp
ovl ovl-v5e v5e 4 -T 1024 -D 512 -F 2048 --mesh 4 --shard tp

# --timing-only and --part
part() {
  local name=$1; shift
  "$bin/tpu-gen" ffn-shard --config tiny -T 64 -D 32 -F 64 --mesh 4 --shard tp --quiet "$@" -o "$work/$name.s" \
    && "$bin/tpu-as" --config tiny -I "$lib" -o "$work/$name.bin" "$work/$name.s" \
    && "$bin/tpu-sim" --config tiny --cores 4 "$work/$name.bin" >"$work/$name.sim" 2>&1
}
part timing --timing-only && part compute --part compute && part comm --part comm
all=$(cyc "$work/tp4.sim"); t=$(cyc "$work/timing.sim"); c=$(cyc "$work/compute.sim"); m=$(cyc "$work/comm.sim")
if [ -n "$t" ] && [ "$t" = "$all" ]; then ok "--timing-only: $t cycles, its checked twin's"; else bad "--timing-only: '$t' cycles, checked '$all'"; fi
if [ -n "$c" ] && [ -n "$m" ] && [ "$c" -lt "$all" ] && [ "$m" -lt "$all" ] \
   && [ $(( (all - c - m) * 20 )) -le "$all" ] && [ $(( (c + m - all) * 20 )) -le "$all" ]; then
  ok "--part compute $c + --part comm $m cycles = the whole $all within 5% (nothing overlaps; the whole adds a barrier)"
else
  bad "--part: compute '$c', comm '$m', whole '$all'"
fi

# the checks can fail
f="$work/tp4"
sed 's/beq     cid, s1, CORE2/beq     cid, s1, CORE1/' "$f.s" >"$work/mut1.s"
if ! cmp -s "$f.s" "$work/mut1.s" && "$bin/tpu-as" --config tiny -I "$lib" -o "$work/mut1.bin" "$work/mut1.s" 2>/dev/null; then
  "$bin/tpu-sim" --config tiny --cores 4 "$work/mut1.bin" >"$work/mut1.sim" 2>&1
  rc=$?
  if [ $rc -eq 1 ] && grep -q MISMATCH "$work/mut1.sim"; then ok "core 2 on core 1's block: MISMATCH, exit 1"; else bad "core 2 on core 1's block: exit $rc"; fi
else
  bad "mutant 1 not made"
fi
# drop the last partial of the sum: the last vadd group reads slot 3
awk '/^SHARD_SUM:/{s=1} { if (s && $1=="vadd") { n++; if (n>8) next } print }' "$f.s" >"$work/mut2.s"
if ! cmp -s "$f.s" "$work/mut2.s" && "$bin/tpu-as" --config tiny -I "$lib" -o "$work/mut2.bin" "$work/mut2.s" 2>/dev/null; then
  "$bin/tpu-sim" --config tiny --cores 4 --dump O0="$work/mut2.npy" "$work/mut2.bin" >/dev/null 2>&1
  if [ -s "$work/mut2.npy" ] && ! cmp -s "$f.ref.npy" "$work/mut2.npy"; then ok "a sum without its last partial: differs from the reference"
  else bad "a sum without its last partial: not caught"; fi
else
  bad "mutant 2 not made"
fi

# The book's decode number (docs/transformers.md, "The book's numbers"): a
# decode step's MLP matmuls, X[B,1024] W_in[1024,4096] W_out[4096,1024] on one
# v5e (tpu-gen mlp, bf16 weights, fp32 out), swept over B: HBM-bound and
# nearly flat, then linear.  The knee is where the line fitted to the flat
# points (B <= 128) meets the line fitted to the linear ones (B >= 384); the
# prediction from the exact bytes solves 4 B D F / peak = (4 D F + 2 B D +
# 4 B D) / HBM bandwidth (the book, weights only: peak / HBM = 240).
sweep="$work/decode.txt"; : >"$sweep"
for b in 8 32 64 96 128 384 448 512 640 768; do
  "$bin/tpu-gen" mlp --config v5e -M $b --dims 1024,4096,1024 --timing-only --quiet -o "$work/dec.s" \
    && "$bin/tpu-as" --config v5e -o "$work/dec.bin" "$work/dec.s" \
    && echo "$b $("$bin/tpu-sim" --config v5e "$work/dec.bin" | sed -n 's/^cycles *\([0-9]*\).*/\1/p' | head -n 1)" >>"$sweep"
done
knee=$(awk -v D=1024 -v F=4096 '
  function fit(lo, hi,   n, sx, sy, sxx, sxy, i) { n = sx = sy = sxx = sxy = 0
    for (i = 1; i <= N; i++) if (b[i] >= lo && b[i] <= hi) { n++; sx += b[i]; sy += t[i]; sxx += b[i]*b[i]; sxy += b[i]*t[i] }
    s = (n*sxy - sx*sy) / (n*sxx - sx*sx); a = (sy - s*sx) / n }
  NF == 2 && $2 > 0 { N++; b[N] = $1; t[N] = $2 }
  END { if (N != 10) { print "bad"; exit }
    fit(0, 128); a1 = a; s1 = s; fit(384, 1e9); a2 = a; s2 = s
    k = (a1 - a2) / (s2 - s1)
    peak = 131072; hbm = 8.2e11 / 1.5e9
    pred = (4*D*F/hbm) / (4*D*F/peak - 6*D/hbm)
    printf "%.1f %.1f %.1f %.1f %.2f\n", k, pred, s1, s2, k / pred }' "$sweep")
read -r k pred s1 s2 ratio <<<"$knee"
if [ "$knee" != "bad" ] && awk -v r="$ratio" -v s1="$s1" -v s2="$s2" 'BEGIN { exit !(r >= 0.9 && r <= 1.1 && s2 > 5 * s1) }'; then
  ok "decode MLP on v5e: knee at B = $k, the exact bytes predict $pred (ratio $ratio; book 240); slope $s1 cycles/row before, $s2 after"
else
  bad "decode MLP on v5e: knee '$knee' (B, predicted, slopes, ratio): $(tr '\n' ' ' <"$sweep")"
fi

# The book's tensor-parallel number: the Megatron MLP on a ring of 4 v5e
# cores hides its AllReduce under the GEMMs when F / tp exceeds
# 2 (n-1)/n C / W_ici (C the peak FLOP a cycle, W_ici the bidirectional
# link bytes a cycle; fp32 partials, so twice the book's bf16 C / W_ici =
# 2,185) = 3,277.  Measured: the AllReduce's link time (--part comm, the ICI
# unit's busy cycles) against the MXUs' busy time a hidden unit (tpu-gen ffn
# on one core's block): their crossover within 10% of the arithmetic.  The
# wall-clock crossover is printed too (lower: the GEMMs and the GELU take
# longer than T_math; docs/transformers.md).
"$bin/tpu-gen" ffn-shard --config v5e -T 1024 -D 1024 -F 4096 --mesh 4 --shard tp --reduce ring --part comm \
  --quiet -o "$work/tpc.s" && "$bin/tpu-as" --config v5e -I "$lib" -o "$work/tpc.bin" "$work/tpc.s" \
  && "$bin/tpu-sim" --config v5e --cores 4 "$work/tpc.bin" >"$work/tpc.sim" 2>&1
"$bin/tpu-gen" ffn --config v5e -T 1024 -D 1024 -F 1024 --timing-only --quiet -o "$work/tpf.s" \
  && "$bin/tpu-as" --config v5e -o "$work/tpf.bin" "$work/tpf.s" \
  && "$bin/tpu-sim" --config v5e "$work/tpf.bin" >"$work/tpf.sim" 2>&1
busy() { awk -v u="$2" '$1 == u && $2 ~ /^[0-9]+$/ { print $2; exit }' "$1"; }
ici=$(busy "$work/tpc.sim" ici); mxu=$(busy "$work/tpf.sim" mxu0)
cw=$(cyc "$work/tpc.sim"); fw=$(cyc "$work/tpf.sim")
res=$(awk -v ici="$ici" -v mxu="$mxu" -v cw="$cw" -v fw="$fw" 'BEGIN {
  if (ici <= 0 || mxu <= 0 || cw <= 0 || fw <= 0) { print "bad"; exit }
  arith = 2 * 3 / 4 * 131072 / 60; f = ici * 1024 / mxu; fwall = cw * 1024 / fw
  printf "%.0f %.0f %.0f %.3f\n", f, arith, fwall, f / arith }')
read -r fb arith fwall r <<<"$res"
if [ "$res" != "bad" ] && awk -v r="$r" 'BEGIN { exit !(r >= 0.9 && r <= 1.1) }'; then
  ok "tensor-parallel MLP on a ring of 4 v5e: link time = MXU time at F/tp = $fb, the arithmetic $arith (ratio $r); wall clock: $fwall"
else
  bad "tensor-parallel crossover: '$res' (ici busy '$ici', mxu busy '$mxu', cycles '$cw' '$fw')"
fi

# bad input: gen_bad KIND WANT ARGS...: tpu-gen KIND ARGS exits 2 with one
# "tpu-gen: error: ...WANT" line
gen_bad() {
  local kind=$1 want=$2; shift 2
  "$bin/tpu-gen" "$kind" "$@" -o "$work/bad.s" >"$work/bad.out" 2>&1
  local rc=$?
  if [ $rc -eq 2 ] && grep -q "^tpu-gen: error: .*$want" "$work/bad.out"; then ok "$kind bad: $* -> $want"
  else bad "$kind bad: $* -> exit $rc: $(head -n 1 "$work/bad.out") (wanted '$want')"; fi
}
badcmd() { gen_bad ffn-shard "$@"; }
G=(--config tiny -D 16 -F 32)
badcmd "T 100 does not divide" "${G[@]}" -T 100 --mesh 4 --shard dp
badcmd "T 128 does not divide" "${G[@]}" -T 128 --mesh 4 --shard B_X
badcmd "F 30 does not divide" --config tiny -T 64 -D 16 -F 30 --mesh 4 --shard tp
badcmd "D 18 does not divide" --config tiny -T 64 -D 18 -F 32 --mesh 4 --shard tp
badcmd "unknown mesh axis 'Z'" "${G[@]}" -T 64 --mesh 4 --shard B_Z
badcmd "'D' is not a shardable dimension" "${G[@]}" -T 64 --mesh 4 --shard D_X
badcmd "one axis" "${G[@]}" -T 64 --mesh 4 --shard F_Y
badcmd "axis X is used twice" "${G[@]}" -T 64 --mesh 2x2 --shard B_X,F_X
badcmd "F over both axes" "${G[@]}" -T 64 --mesh 2x2 --shard F_XY
badcmd "leaves an axis" "${G[@]}" -T 128 --mesh 2x2 --shard B_X
badcmd "expected '_'" "${G[@]}" -T 64 --mesh 4 --shard BX
badcmd "--mesh must be" "${G[@]}" -T 64 --mesh 4x --shard dp
badcmd "2 to 64 cores" "${G[@]}" -T 64 --mesh 1 --shard dp
badcmd "needs --shard" "${G[@]}" -T 64 --mesh 4
badcmd "needs --mesh" "${G[@]}" -T 64 --shard tp
badcmd "only with F sharded" "${G[@]}" -T 256 --mesh 4 --shard dp --part comm
badcmd "--part must be" "${G[@]}" -T 64 --mesh 4 --shard tp --part half
badcmd "--ref needs the data" "${G[@]}" -T 64 --mesh 4 --shard tp --timing-only --ref "$work/x.npy"
badcmd "do not fit VMEM" --config tiny -T 1024 -D 64 -F 32 --mesh 4 --shard tp
badcmd "--reduce must be" "${G[@]}" -T 64 --mesh 4 --shard tp --reduce tree
badcmd "an even number of vectors" --config tiny -T 64 -D 12 -F 32 --mesh 4 --shard tp --reduce ring
badcmd "unknown option" "${G[@]}" -T 64 --mesh 4 --shard tp --heads 2
badcmd "not with --reduce a2a" "${G[@]}" -T 64 --mesh 4 --shard tp --overlap --reduce a2a
badcmd "--overlap: only with F sharded" "${G[@]}" -T 256 --mesh 4 --shard dp --overlap
badcmd "does not divide into 8 half chunks" --config tiny -T 64 -D 12 -F 32 --mesh 4 --shard tp --overlap
badcmd "IMEM holds 4096" --config tiny -T 64 -D 64 -F 96 --mesh 4 --shard tp --overlap
badcmd "--partials bf16: only with --overlap" "${G[@]}" -T 64 --mesh 4 --shard tp --reduce ring --partials bf16
badcmd "--partials must be fp32 or bf16" "${G[@]}" -T 64 --mesh 4 --shard tp --overlap --partials fp16
badcmd "-D must be positive, got '0'" --config tiny -T 64 -D 0 -F 32 --mesh 4 --shard tp
badcmd "-F is too large: '2000000000' (at most 2^30)" --config tiny -T 64 -D 16 -F 2000000000 --mesh 4 --shard tp
if "$bin/tpu-gen" ffn-shard --help | grep -q "usage: tpu-gen ffn-shard"; then ok "--help"; else bad "--help"; fi

# ---- tpu-gen block-shard: the pre-norm block sharded Megatron-style (the
# heads and F over the model axis, the sequences over the other; Wo's and
# W_out's partials AllReduced).  Four copies of the block outgrow tiny's
# 4096 instructions: tiny with a 16Ki-word IMEM (the same machine otherwise).
bcfg="$work/tiny16k.cfg"
sed 's/^imem_words .*/imem_words      = 16384/' "$(dirname "$0")/../cmodel/configs/tiny.cfg" >"$bcfg"
# brun NAME CORES TOPO_ARGS -- GEN_ARGS...: gen_run of block-shard, core 0's y (Y0)
brun() { local name=$1; shift; gen_run block-shard "$bcfg" "$name" "$1" Y0 "${@:2}"; }
brun blk4 4 -- -T 64 -D 32 -F 32 --heads 4 --mesh 4 --shard F_X
if grep -q ': 0 of 2048 values differ' "$work/blk4.gen"; then
  ok "block on a ring of 4, one K-tile a core (D/4 = F/4 = MXU_N): y bit for bit one chip's (tpu_ref_block)"
else
  bad "block on a ring of 4: not one chip's y: $(grep 'one chip' "$work/blk4.gen")"
fi
brun blk22 4 "${T2[@]}" -- -T 64 -D 16 -F 16 --heads 2 --mesh 2x2 --shard B_X,F_Y
if grep -q ': 0 of 1024 values differ' "$work/blk22.gen"; then
  ok "block on a 2x2 torus (B_X, heads and F over Y), one K-tile a core: y bit for bit one chip's"
else
  bad "block on a 2x2 torus: not one chip's y: $(grep 'one chip' "$work/blk22.gen")"
fi
brun blk22c 4 "${T2[@]}" -- -T 64 -D 16 -F 32 --heads 4 --mesh 2x2 --shard F_X,B_Y --causal
if grep -q 'values differ, by at most' "$work/blk22c.gen" && ! grep -q ': 0 of' "$work/blk22c.gen"; then
  ok "two K-tiles a core (causal, F_X,B_Y): the sum associates differently from one chip and tpu-gen says by how much"
else
  bad "two K-tiles a core: $(grep 'one chip' "$work/blk22c.gen")"
fi
brun blk4r 4 -- -T 64 -D 32 -F 64 --heads 4 --mesh 4 --shard F_X --reduce ring
brun blk2 2 -- -T 64 -D 16 -F 32 --heads 2 --mesh 2 --shard F_X
# --part compute: no AllReduce, fewer cycles; the difference is the exposed communication
"$bin/tpu-gen" block-shard --config "$bcfg" -T 64 -D 32 -F 32 --heads 4 --mesh 4 --shard F_X --part compute --quiet \
  -o "$work/blkc.s" && "$bin/tpu-as" --config "$bcfg" -I "$lib" -o "$work/blkc.bin" "$work/blkc.s" \
  && "$bin/tpu-sim" --config "$bcfg" --cores 4 "$work/blkc.bin" >"$work/blkc.sim" 2>&1
bw=$(cyc "$work/blk4.sim"); bc=$(cyc "$work/blkc.sim")
if [ -n "$bw" ] && [ -n "$bc" ] && [ "$bc" -lt "$bw" ]; then
  ok "block --part compute: $bc cycles of $bw: the AllReduces' exposed $((bw - bc))"
else
  bad "block --part compute: '$bc' cycles, the whole '$bw'"
fi
# the checks can fail: core 0's first AllReduce without its VPU sum (only its own partial)
f="$work/blk4"
awk '/^CORE0:/{c=1} /^CORE1:/{c=0} c && /# ======== 7b/{s=1} c && /# ======== 8:/{s=0} { if (s && $1=="vadd") next; print }' "$f.s" >"$work/bmut.s"
if ! cmp -s "$f.s" "$work/bmut.s" && "$bin/tpu-as" --config "$bcfg" -I "$lib" -o "$work/bmut.bin" "$work/bmut.s" 2>/dev/null; then
  "$bin/tpu-sim" --config "$bcfg" --cores 4 --dump Y0="$work/bmut.npy" "$work/bmut.bin" >/dev/null 2>&1
  if [ -s "$work/bmut.npy" ] && ! cmp -s "$f.ref.npy" "$work/bmut.npy"; then ok "block: an AllReduce without its sum: core 0's y differs from the reference"
  else bad "block: an AllReduce without its sum: not caught"; fi
else
  bad "block mutant not made"
fi
# bad input: exit 2, one "tpu-gen: error:" line
bbad() { gen_bad block-shard "$@"; }
BG=(--config "$bcfg" -T 64 -D 32 -F 32)
bbad "heads 6 does not divide over the 4 cores" "${BG[@]}" -D 48 --heads 6 --mesh 4 --shard F_X
bbad "unknown mesh axis 'Z'" "${BG[@]}" --heads 4 --mesh 4 --shard F_Z
bbad "D 32 does not divide into 3 heads" "${BG[@]}" --heads 3 --mesh 4 --shard F_X
bbad "one axis" "${BG[@]}" --heads 4 --mesh 4 --shard F_Y
bbad "-B 3: one sequence a core" "${BG[@]}" --heads 4 --mesh 2x2 --shard B_X,F_Y -B 3
bbad "needs -T, -D, -F and --heads" --config "$bcfg" -T 64 -D 32 -F 32 --mesh 4 --shard F_X
bbad "--ref needs the data" "${BG[@]}" --heads 4 --mesh 4 --shard F_X --timing-only --ref "$work/x.npy"
bbad "--part must be all or compute" "${BG[@]}" --heads 4 --mesh 4 --shard F_X --part comm
bbad "unknown option" "${BG[@]}" --heads 4 --mesh 4 --shard F_X --past 8
bbad "-B is too large: '2000000' (at most 2^20)" "${BG[@]}" --heads 4 --mesh 4 --shard F_X -B 2000000
bbad "goes flash-style" --config "$bcfg" -T 512 -D 16 -F 16 --heads 2 --mesh 2 --shard F_X
if "$bin/tpu-gen" block-shard --help | grep -q "usage: tpu-gen block-shard"; then ok "block-shard --help"; else bad "block-shard --help"; fi

finish shard
