#!/usr/bin/env bash
# int8.sh BIN_DIR WORK_DIR - int8 in the MXU from the command line
# (docs/numerics.md section 9, docs/roofline.md "int8"): programs, errors,
# and the roofline measured in int8.
#
#   1. matmul_i8.s, matmul_w8.s and matmul_sweep.s (MODE 1, 2; XYVMEM) run
#      bit-exact on tiny, mid and v5e; the report counts int8 OPs at the
#      int8 peak (twice bf16's).
#   2. Bad input: int8 on a machine without it (mxu_int8 = 0) stops tpu-as
#      with file:line:col: error when the config is known, and the run at
#      issue with an error naming the instruction when it is not; bf16 MXU
#      instructions on an int8-only machine likewise; an int8 stream
#      against bf16 weights (and the reverse) is a run-time error naming the
#      instruction, not garbage; a wrong reference (the K pairs swapped)
#      is a MISMATCH.
#   3. The roofline, from runs (simulated cycles), on "v5e1" (v5e with one
#      MXU, as tests/roofline.sh; D = F = 1024), each prediction computed
#      here from the machine's numbers:
#      - int8 X and W from HBM, int32 Y: the measured crossover within 10%
#        of the exact-bytes prediction R D F / (2 D F - R D - 4 R F), R =
#        the int8 peak / HBM bytes per cycle = 119.9 (84.7; the book's 240
#        on v5e is R / 2 for D, F >> B at 4 MXUs: 479.5 / 2);
#      - int8 W widened to bf16 (dma.h2v.i8), bf16 compute: within 10% of
#        R D F / (2 D F - 2 R D - 4 R F) with the bf16 R = 59.9 (36.4; the
#        book's 120 on v5e).  vmem_bw = 4800 here: the widening DMA writes
#        two VMEM bytes per HBM byte, and at v5e's T11-tight 3200 the
#        memory-bound runs wait for VMEM (up to 110% of T_memory, the
#        crossover 14% high: docs/roofline.md says so);
#      - TPU v1 (cmodel/configs/tpuv1.cfg), X and Y in VMEM (only weights
#        cross HBM, as the paper's roofline counts): the measured ridge
#        within 5% of the paper's 1350 MACs per weight byte (2 OPs a MAC
#        here: 2700), and the crossover at B = ridge / 2.
# ROOFLINE_V5E=1 adds int8 and w8 on v5e itself (four MXUs; not in make
# test: about a minute of CPU).
set -uo pipefail
bin=${1:?usage: int8.sh BIN_DIR WORK_DIR}
work=${2:?usage: int8.sh BIN_DIR WORK_DIR}
mkdir -p "$work"
source "$(dirname "$0")/checks.sh"   # ok, bad, skip, finish: TAP (tests/README.md)

# ---- 1. programs ---------------------------------------------------------------
# prog NAME CONFIG SOURCE "asm options" [GREP]: assembles, runs bit-exact, and
# the report has GREP (a regex) when given
prog() {
  local name=$1 cfg=$2 src=$3 opts=$4 want=${5:-}
  local obj=$work/$name.bin out
  # shellcheck disable=SC2086
  if ! "$bin/tpu-as" --config "$cfg" $opts -o "$obj" "$src" 2>"$work/$name.err"; then
    bad "$name: tpu-as: $(head -n 1 "$work/$name.err")"; return; fi
  out=$("$bin/tpu-sim" --config "$cfg" "$obj" 2>&1)
  if ! grep -q '^result: bit-exact' <<<"$out"; then
    bad "$name: $(grep -m1 -E 'result|error' <<<"$out")"; return; fi
  if [ -n "$want" ] && ! grep -qE "$want" <<<"$out"; then
    bad "$name: the report has no /$want/"; grep -E '^(ops|flops|intensity|compute)' <<<"$out"; return; fi
  ok "$name: bit-exact${want:+, /$want/}"
}
prog i8-tiny     tiny programs/matmul_i8.s "" \
  '^ops +16384 .*8192 of them int8.*|^compute +MXU .* OP/cycle of 256 peak'
prog i8-mid      mid  programs/matmul_i8.s "-D B=20 -D D=96 -D F=64"
prog i8-v5e      v5e  programs/matmul_i8.s "-D B=64 -D D=512 -D F=1024" 'OP/cycle of 262144 peak'
prog w8-tiny     tiny programs/matmul_w8.s ""
prog w8-mid      mid  programs/matmul_w8.s "-D B=24 -D D=48 -D F=64"
for m in 1 2; do
  prog "sweep-mode$m-tiny" tiny programs/matmul_sweep.s "-D MODE=$m -D B=40 -D D=64 -D F=64 -D REPS=3"
  prog "sweep-mode$m-mid"  mid  programs/matmul_sweep.s "-D MODE=$m -D B=24 -D D=64 -D F=64 -D REPS=2"
  prog "sweep-mode$m-xy"   mid  programs/matmul_sweep.s "-D MODE=$m -D XYVMEM=1 -D B=24 -D D=64 -D F=64 -D REPS=2"
done
prog tpuv1-i8    tpuv1 programs/matmul_i8.s "-D B=32 -D D=512 -D F=256" 'OP/cycle of 131072 peak'

# ---- 2. bad input ----------------------------------------------------------------
printf 'name = noint8\nmxu_int8 = 0\n' >"$work/noint8.cfg"
out=$("$bin/tpu-as" --config "$work/noint8.cfg" -o "$work/x.bin" programs/matmul_i8.s 2>&1); rc=$?
if [ $rc -ne 0 ] && grep -qE "^programs/matmul_i8.s:[0-9]+:[0-9]+: error: 'mxu.lw.i8': the machine 'noint8' has no int8 MXU mode" <<<"$out"; then
  ok "int8 on a machine without it, config known: tpu-as stops: $(head -n 1 <<<"$out")"
else bad "int8 without it at assembly: exit $rc: $(head -n 1 <<<"$out")"; fi
# config not known at assembly: the run stops at issue, naming the instruction
"$bin/tpu-as" -D MXU_N=8 -D NUM_MXU=1 -o "$work/i8any.bin" programs/matmul_i8.s 2>"$work/i8any.err"
out=$("$bin/tpu-sim" --config "$work/noint8.cfg" "$work/i8any.bin" 2>&1); rc=$?
if [ $rc -ne 0 ] && grep -qE "pc [0-9]+ \(mxu\.lw\.i8 0, .*\): this machine's MXUs have no int8 mode" <<<"$out"; then
  ok "int8 on a machine without it, at run time: $(grep -m1 -o 'pc [0-9]* (mxu.lw.i8[^)]*): .*' <<<"$out")"
else bad "int8 without it at run time: exit $rc: $(head -n 2 <<<"$out") $(cat "$work/i8any.err")"; fi
out=$("$bin/tpu-as" --config tpuv1 -o "$work/x.bin" programs/matmul.s 2>&1); rc=$?
if [ $rc -ne 0 ] && grep -qE "^programs/matmul.s:[0-9]+:[0-9]+: error: 'mxu.lw': the machine 'tpuv1' has int8 MXUs only" <<<"$out"; then
  ok "bf16 on an int8-only machine: tpu-as stops: $(head -n 1 <<<"$out")"
else bad "bf16 on tpuv1: exit $rc: $(head -n 1 <<<"$out")"; fi
# mixed modes
cat >"$work/mixed1.s" <<'EOF'
        li      s1, 0
        li      s2, 8
        li      s3, 256
        mxu.lw  0, s1, s2, 0        # bf16 weights
        mxu.mm.i8 0, s3, s1, s2, s2, s2, 1
        halt
EOF
cat >"$work/mixed2.s" <<'EOF'
        li      s1, 0
        li      s2, 16
        li      s3, 256
        mxu.lw.i8 0, s1, s2, 0      # int8 weights
        mxu.mma 0, s3, s1, s2, s2, s2, 1
        halt
EOF
for t in "mixed1 mxu.mm.i8 an int8 stream against bf16 weights" "mixed2 mxu.mma a bf16 stream against int8 weights"; do
  read -r f insn what <<<"$t"
  "$bin/tpu-as" --config tiny -o "$work/$f.bin" "$work/$f.s" 2>"$work/$f.err" || { bad "$f: tpu-as: $(cat "$work/$f.err")"; continue; }
  out=$("$bin/tpu-sim" --config tiny "$work/$f.bin" 2>&1); rc=$?
  if [ $rc -ne 0 ] && grep -qF "pc 4 ($insn 0, " <<<"$out" && grep -qF "$what" <<<"$out"; then
    ok "$f: run-time error at issue: $(grep -m1 -o 'pc 4 .*' <<<"$out")"
  else bad "$f: exit $rc: $(head -n 2 <<<"$out")"; fi
done
# a wrong expectation is caught: the same run checked as bf16 pairs swapped
sed 's/^W:      .random i8, D\*F, 2 .*/W:      .random i8, D*F, 3/' programs/matmul_i8.s >"$work/i8seed.s"
"$bin/tpu-as" --config tiny -o "$work/i8seed.bin" "$work/i8seed.s" 2>/dev/null
if "$bin/tpu-sim" --config tiny "$work/i8seed.bin" | grep -q '^result: bit-exact'; then
  ok "matmul_i8.s with other random weights: bit-exact too"; else bad "matmul_i8.s seed 3: not bit-exact"; fi
cat >"$work/swap.s" <<'EOF'
# one 8 x 8 tile of int8 pairs on tiny, the reference told the wrong layout
        .hbm    0
X:      .i8     1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16
W:      .random i8, 16*8, 5
Y:      .zero   8*4
        .text
        li      s1, 0x1000              # W in VMEM
        li      s2, W
        li      s3, 8
        li      s4, 16
        dma.h2v s1, s2, s3, s4, s4, s4, 0
        li      s5, 0x2000              # X in VMEM
        li      s6, X
        li      s7, 1
        dma.h2v s5, s6, s7, s4, s4, s4, 1
        sem.wait 0, 1
        sem.wait 1, 1
        mxu.lw.i8 0, s1, s4, 2
        li      s8, 0x3000
        li      s9, 32
        mxu.mm.i8 0, s8, s5, s7, s4, s9, 3
        sem.wait 3, 1
        li      s10, Y
        dma.v2h s10, s8, s7, s9, s9, s9, 4
        sem.wait 4, 1
        halt
        .expect matmul_i8 Y, X, W, 1, 16, 8
EOF
"$bin/tpu-as" --config tiny -o "$work/swap.bin" "$work/swap.s" 2>"$work/swap.err"
if "$bin/tpu-sim" --config tiny "$work/swap.bin" 2>&1 | grep -q '^result: bit-exact'; then
  ok "one tile by hand: bit-exact"; else bad "one tile by hand: $(cat "$work/swap.err")"; fi
# swap the K pairs' bytes in X (x0 <-> x1): the product changes, the check says so
sed 's/^X:      .i8     1, 2, 3, 4,/X:      .i8     2, 1, 3, 4,/' "$work/swap.s" | sed 's/expect matmul_i8 Y, X,/expect matmul_i8 Y, XR,/; s/^W:/XR:     .i8     1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16\nW:/' >"$work/swap2.s"
"$bin/tpu-as" --config tiny -o "$work/swap2.bin" "$work/swap2.s" 2>"$work/swap2.err"
out=$("$bin/tpu-sim" --config tiny "$work/swap2.bin" 2>&1)
if grep -q '^result: MISMATCH in matmul_i8 Y (hbm 0x[0-9a-f]*) at \[0\]\[' <<<"$out"; then
  ok "a wrong reference is caught: $(grep -m1 -o 'MISMATCH.*' <<<"$out" | cut -c1-90)"
else bad "a wrong reference: $(grep -m1 'result' <<<"$out") $(cat "$work/swap2.err")"; fi

# random programs with --int8 (the default on tiny and mid, mxu_int8 = 1):
# each halts on the C model (or stops at its one --errors error), and
# together they use every int8 instruction
used=$work/rp_used; : >"$used"; rpbad=
for s in $(seq 1 24); do
  opt=""; [ $((s % 8)) -eq 7 ] && opt=--errors; [ $((s % 5)) -eq 4 ] && opt="$opt --cores 2"
  cfg=tiny; [ $((s % 3)) -eq 0 ] && cfg=mid
  # shellcheck disable=SC2086
  "$bin/tpu-randprog" --config $cfg --seed "$s" --int8 $opt -o "$work/rp.s" \
    && "$bin/tpu-as" --config $cfg -o "$work/rp.bin" "$work/rp.s" 2>"$work/rp.err" || { rpbad="$rpbad $s(make)"; continue; }
  grep -oE '^ *(mxu|dma)\.[a-z0-9.]*\.i8 ' "$work/rp.s" | tr -d ' ' >>"$used"
  n=1; case "$opt" in *cores*) n=2 ;; esac
  out=$("$bin/tpu-sim" --config $cfg --cores $n "$work/rp.bin" 2>&1)
  case "$opt" in
    *errors*) grep -q 'deliberate' "$work/rp.s" && grep -qE 'error' <<<"$out" || rpbad="$rpbad $s(no error)" ;;
    *) grep -q '^stop *halt' <<<"$out" || rpbad="$rpbad $s($(grep -m1 -i error <<<"$out" | cut -c1-80))" ;;
  esac
done
nu=$(sort -u "$used" | wc -l)
if [ -z "$rpbad" ] && [ "$nu" -eq 4 ]; then
  ok "tpu-randprog --int8: 24 seeds on tiny and mid run as they should, using all 4 int8 instructions"
else bad "tpu-randprog --int8:${rpbad:- } int8 instructions used: $(sort -u "$used" | tr '\n' ' ')"; fi
if "$bin/tpu-randprog" --seed 3 --no-int8 | grep -qE '\.i8 '; then bad "tpu-randprog --no-int8 makes int8"
else ok "tpu-randprog --no-int8 makes no int8"; fi
if for s in 1 2 4 5 6; do "$bin/tpu-randprog" --seed $s; done | grep -E '\.i8 ' >/dev/null; then
  ok "tpu-randprog makes int8 by default on tiny (mxu_int8 = 1)"
else bad "tpu-randprog makes no int8 by default on tiny (seeds 1, 2, 4, 5, 6)"; fi
if out=$("$bin/tpu-randprog" --config "$work/noint8.cfg" --seed 3 2>&1) && ! grep -qE '\.i8 ' <<<"$out"; then
  ok "tpu-randprog makes no int8 by default on a machine without it (mxu_int8 = 0)"
else bad "tpu-randprog by default on a machine without int8: $(head -n 2 <<<"$out")"; fi
out=$("$bin/tpu-randprog" --config "$work/noint8.cfg" --int8 2>&1); rc=$?
if [ $rc -eq 2 ] && grep -q "mxu_int8 = 0" <<<"$out"; then ok "tpu-randprog --int8 on a machine without int8: exit 2, '$out'"
else bad "tpu-randprog --int8 without int8: exit $rc: $out"; fi

# ---- 3. the roofline in int8 ------------------------------------------------------
run() {
  local name=$1; shift
  mkdir -p "$work/$name"
  if ! "$bin/tpu-roofline" --no-plot --out "$work/$name" "$@" >"$work/$name/out.txt" 2>&1; then
    bad "$name: tpu-roofline failed: $(grep -m1 -i 'fail\|error' "$work/$name/out.txt")"; return 1; fi
}
# rows CSV MAX: every matmul row bit-exact within MAX% of its bound
rows() {
  awk -F, -v max="$2" 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
    $col["series"] == "matmul_hbm" { n++; p = $col["pct_of_bound"] + 0
      if ($col["result"] != "bit-exact" || p > max || p < 99.9) { print "  B=" $col["b"] ": " p "% " $col["result"]; bad = 1 } }
    END { exit bad || n < 4 }' "$1"
}
# int8 NAME MODE R_PEAK BW CLK D BATCHES ARGS...: the crossover against the
# exact bytes (ex, ew: HBM bytes of an X and a W element)
xover() {
  awk -v r="$1" -v d="$2" -v ex="$3" -v ew="$4" 'BEGIN { printf "%.4f", r * ew * d * d / (2 * d * d - r * ex * d - 4 * r * d) }'
}
physics() {
  local name=$1 mode=$2 peak=$3 bw=$4 clk=$5 d=$6 batches=$7; shift 7
  local s=$work/$name/roofline-$name-$mode.txt csv=$work/$name/roofline-$name-$mode.csv r want got ex ew
  r=$(awk -v p="$peak" -v b="$bw" -v c="$clk" 'BEGIN { printf "%.6f", p / (b / c) }')
  if [ "$mode" = int8 ]; then ex=1; ew=1; else ex=2; ew=1; fi
  run "$name" --set name="$name" --mode "$mode" --d "$d" --f "$d" --batches "$batches" "$@" || return
  if rows "$csv" 105; then ok "$name $mode: every run bit-exact, within 5% of its bound"
  else bad "$name $mode: runs off their bound (above)"; fi
  want=$(xover "$r" "$d" "$ex" "$ew"); got=$(key crossover_hbm_measured "$s")
  check "$(near 0.10)" "$name $mode: D = F = $d: measured crossover B = $got, the exact bytes predict $want (within 10%)" "$got" "$want"
  check "$(near 1e-6)" "$name $mode: the tool predicts the same ($(key crossover_hbm_predicted "$s")), ridge $(key ridge_hbm "$s") = $r" "$(key crossover_hbm_predicted "$s")" "$want"
  got=$(key ridge_measured "$s")
  check "$(near 0.05)" "$name $mode: measured ridge $got OP/byte, within 5% of $r" "$got" "$r"
}
V5E1=(--config v5e --set num_mxu=1 --set vmem_bw=3200 --set vpu_lanes=64 --set hbm_latency=100)
physics v5e1 int8 65536 8.2e11 1.5e9 1024 21,28,42,56,64,110,130,170,255 "${V5E1[@]}"
physics v5e1w w8 32768 8.2e11 1.5e9 1024 20,24,28,32,44,52,64,80,110 "${V5E1[@]}" --set vmem_bw=4800
if [ "${ROOFLINE_V5E:-0}" = 1 ]; then
  physics v5e int8 262144 8.2e11 1.5e9 4096 85,170,255,300,420,500,700,1000 --config v5e
  physics v5ew w8 131072 8.2e11 1.5e9 4096 36,73,110,130,180,220,300,440 --config v5e
fi
# TPU v1: the paper's ridge, weights only over HBM
if run tpuv1 --config tpuv1 --xy-vmem --d 512 --f 512 --batches 340,675,1000,2025,2700,4050; then
  s=$work/tpuv1/roofline-tpuv1-int8-xy.txt
  if rows "$work/tpuv1/roofline-tpuv1-int8-xy.csv" 106; then ok "tpuv1: every run bit-exact, within 6% of its bound"
  else bad "tpuv1: runs off their bound (above)"; fi
  r=$(awk 'BEGIN { printf "%.4f", 2 * 65536 / (34e9 / 7e8) }')
  check "$(near 0.001)" "tpuv1: ridge $(key ridge_hbm "$s") OP/byte = 2 x 65,536 MACs / 48.57 B/cycle; the paper's 1350 MACs per weight byte" "$(key ridge_hbm "$s")" "$r"
  got=$(key ridge_measured "$s")
  check "$(near 0.05)" "tpuv1: measured ridge $got OP/byte = $(awk -v g="$got" 'BEGIN { printf "%.0f", g / 2 }') MACs per weight byte, within 5% of the paper's 1350" "$(awk -v g="$got" 'BEGIN { print g / 2 }')" 1350
  got=$(key crossover_hbm_measured "$s")
  check "$(near 0.10)" "tpuv1: measured crossover B = $got, predicted R / 2 = $(awk -v r="$r" 'BEGIN { printf "%.1f", r / 2 }') (within 10%)" "$got" "$(awk -v r="$r" 'BEGIN { print r / 2 }')"
fi
# the command line
if "$bin/tpu-roofline" --config tpuv1 --mode bf16 >/dev/null 2>&1; [ $? -eq 2 ]; then ok "--mode bf16 on tpuv1: exit 2"; else bad "--mode bf16 on tpuv1: not exit 2"; fi
if "$bin/tpu-roofline" --config "$work/noint8.cfg" --mode int8 >/dev/null 2>&1; [ $? -eq 2 ]; then ok "--mode int8 without int8: exit 2"; else bad "--mode int8 without int8: not exit 2"; fi
if "$bin/tpu-roofline" --mode int4 >/dev/null 2>&1; [ $? -eq 2 ]; then ok "--mode int4: exit 2"; else bad "--mode int4: not exit 2"; fi

finish int8
