#!/usr/bin/env bash
# roofline.sh BIN_DIR WORK_DIR - the roofline measured by tpu-roofline,
# checked against the arithmetic (docs/roofline.md), and its rough edges.
#
# The physics runs on "v5e1": the v5e preset with one MXU (128x128, W = 7
# weight loads in flight), vmem_bw at the T11 minimum for it (3200: the
# VMEM ridge 10.24 sits at the weight-load crossover, as v5e's does), a
# VPU of 8 x 64 lanes (a vld fits that vmem_bw) and an HBM latency of 100
# cycles: the same arithmetic as v5e at a quarter of the peak, so four
# times cheaper to simulate per cycle and with runs a few times shorter.
# At D = F = 1024 it checks:
#   - every run halts bit-exact within 5% of its roofline bound (and never
#     under it: the bound is a bound);
#   - the matmul with W streamed from HBM turns compute-bound at the batch
#     the exact byte count predicts, R D F / (D F - R D - 2 R F) = 72.7 with
#     R = 32768 / 546.67 = 59.9, within 10%;
#   - the elementwise ops sit on the HBM slope at 1/12 (add, mul) and 1/8
#     (relu) FLOP per byte;
#   - with W in VMEM the crossover is the weight-load ridge N / W = 18.3,
#     within 10%, and there the MXUs do about as many FLOPs per byte of
#     VMEM traffic as the VMEM ridge (within 10%);
#   - the measured ridge is within 5% of R, and halving hbm_bw doubles it
#     (exactly in theory, within 5% measured) and moves the crossover to
#     184.8 (within 10%).
# ROOFLINE_V5E=1 runs the same checks on v5e itself (four MXUs, D = F =
# 1024: crossover 805.8; twice its HBM bandwidth, 1.64e12, for the second
# run, 184.8: the numbers docs/roofline.md quotes; about 30 s of CPU more,
# so not in make test).
# Then: any mxu_n (3, 6, 12: the roofline, matmul.s and tpu-rtlcfg), a very
# slow HBM (hbm_bw = 1e6: bounded work, bandwidths with their digits, the
# table and the summary agree), Ctrl-C and SIGTERM (a valid CSV of the
# points done, exit 130, no plot; the progress line), the command line.
# The predictions are computed here from the machines' numbers, not read
# from the tool.
set -uo pipefail
bin=${1:?usage: roofline.sh BIN_DIR WORK_DIR}
work=${2:?usage: roofline.sh BIN_DIR WORK_DIR}
mkdir -p "$work"
source "$(dirname "$0")/checks.sh"   # ok, bad, skip, finish: TAP (tests/README.md)


# run NAME ARGS...: tpu-roofline into WORK/NAME
run() {
  local name=$1; shift
  mkdir -p "$work/$name"
  if ! "$bin/tpu-roofline" --no-plot --out "$work/$name" "$@" >"$work/$name/out.txt" 2>&1; then
    bad "$name: tpu-roofline failed: $(grep -m1 -i 'fail\|error' "$work/$name/out.txt")"
    return 1
  fi
  return 0
}

# rows NAME CSV: every row bit-exact and within 5% of its bound, the
# pointwise ops at their intensity on the HBM slope
rows() {
  if awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
      {
        s = $col["series"]; p = $col["pct_of_bound"] + 0; x = $col["intensity"] + 0
        if ($col["result"] != "bit-exact") { print "  " s " B=" $col["b"] ": " $col["result"]; bad = 1 }
        if (p > 105 || p < 99.9) { print "  " s " B=" $col["b"] ": " p "% of its bound"; bad = 1 }
        if (s == "add" || s == "mul" || s == "relu") {
          want = s == "relu" ? 1 / 8 : 1 / 12
          if (x < want * 0.999 || x > want * 1.001 || $col["bound"] != "hbm") {
            print "  " s ": intensity " x ", bound " $col["bound"]; bad = 1
          }
        }
        n++
      }
      END { exit bad || n < 3 }' "$2"; then
    ok "$1: $(($(wc -l <"$2") - 1)) runs bit-exact, each within 5% of its roofline bound; elementwise ops on the HBM slope"
  else
    bad "$1: runs off their bound (above)"
  fi
}

# crossover R D F: the batch where the streamed matmul turns compute-bound
crossover() {
  awk -v r="$1" -v d="$2" -v f="$3" 'BEGIN { printf "%.4f", r * d * f / (d * f - r * d - 2 * r * f) }'
}

# physics NAME PEAK HBM_BW CLOCK N W VMEM_BW D STREAMED VMEM K ARGS...:
# the checks above on one machine (D = F), its runs with --batches
# STREAMED and --vmem-batches VMEM; then with K times the HBM bandwidth
# (K = 1/2 or 2; streamed batches 1/3 to 2.2 times its crossover)
physics() {
  local name=$1 peak=$2 bw=$3 clk=$4 n=$5 w=$6 vbw=$7 d=$8 sb=$9 vb=${10} k=${11}; shift 11
  local s=$work/$name/roofline-$name.txt csv=$work/$name/roofline-$name.csv
  local r want got nw vr ridge1=
  r=$(awk -v p="$peak" -v b="$bw" -v c="$clk" 'BEGIN { printf "%.6f", p / (b / c) }')
  if run "$name" --set name="$name" --d "$d" --f "$d" --batches "$sb" --vmem-batches "$vb" "$@"; then
    rows "$name" "$csv"
    want=$(crossover "$r" "$d" "$d"); got=$(key crossover_hbm_measured "$s")
    check "$(near 0.10)" "$name: W streamed, D = F = $d: measured crossover B = $got, the exact byte count predicts $want (within 10%)" "$got" "$want"
    check "$(near 1e-6)" "$name: the tool predicts the same ($(key crossover_hbm_predicted "$s"))" "$(key crossover_hbm_predicted "$s")" "$want"
    nw=$(awk -v n="$n" -v w="$w" 'BEGIN { printf "%.6f", n / w }')
    got=$(key crossover_vmem_measured "$s")
    check "$(near 0.10) && a < c" "$name: W in VMEM: measured crossover B = $got, the weight-load ridge N / W = $nw (within 10%), below the streamed one" "$got" "$nw" "$(key crossover_hbm_measured "$s")"
    check "$(near 1e-6)" "$name: the tool predicts the same ($(key crossover_vmem_predicted "$s")), and its weight-load ridge $(key ridge_weights "$s")" "$(key crossover_vmem_predicted "$s")" "$nw"
    got=$(key vmem_intensity_measured "$s")
    vr=$(awk -v p="$peak" -v v="$vbw" 'BEGIN { printf "%.6f", p / v }')
    check "$(near 0.10)" "$name: W in VMEM: $got FLOP per byte of VMEM traffic at the measured crossover, the VMEM ridge $vr (within 10%)" "$got" "$vr"
    check "$(near 0.001)" "$name: HBM ridge $(key ridge_hbm "$s") FLOP/byte = $peak / ($bw / $clk)" "$(key ridge_hbm "$s")" "$r"
    ridge1=$(key ridge_measured "$s")
    check "$(near 0.05)" "$name: measured ridge $ridge1 FLOP/byte, within 5% of $r" "$ridge1" "$r"
  fi
  # K times the bandwidth: 1/K times the ridge
  local half=$name-bw$k bw2 r2 c2
  bw2=$(awk -v b="$bw" -v k="$k" 'BEGIN { printf "%.6g", b * k }')
  r2=$(awk -v r="$r" -v k="$k" 'BEGIN { printf "%.6f", r / k }')
  c2=$(crossover "$r2" "$d" "$d")
  sb=$(awk -v c="$c2" 'BEGIN { printf "%d,%d,%d,%d,%d,%d", c / 3, c / 2, c * 0.75, c * 1.3, c * 1.6, c * 2.2 }')
  s=$work/$half/roofline-$half.txt
  if run "$half" --set name="$half" --set hbm_bw="$bw2" --d "$d" --f "$d" --batches "$sb" --vmem-batches none "$@"; then
    rows "$half" "$work/$half/roofline-$half.csv"
    got=$(key crossover_hbm_measured "$s")
    check "$(near 0.10)" "$half: hbm_bw $bw2: measured crossover B = $got, predicted $c2 (within 10%)" "$got" "$c2"
    local h1 h2
    h1=$(key ridge_hbm "$work/$name/roofline-$name.txt"); h2=$(key ridge_hbm "$s")
    check "b > 0 && (a * c / b - 1) < 1e-9 && (1 - a * c / b) < 1e-9" "$half: $k x hbm_bw, 1/$k x the ridge: $h1 -> $h2 FLOP/byte" "$h2" "$h1" "$k"
    if [ -n "$ridge1" ]; then
      got=$(key ridge_measured "$s")
      check "(a * c / b - 1) < 0.05 && (1 - a * c / b) < 0.05" "$half: and the measured ridge: $ridge1 -> $got FLOP/byte (ratio within 5% of 1/$k)" "$got" "$ridge1" "$k"
    fi
  fi
}

V5E1=(--config v5e --set num_mxu=1 --set vmem_bw=3200 --set vpu_lanes=64 --set hbm_latency=100)

# 1. the physics
physics v5e1 32768 8.2e11 1.5e9 128 7 3200 1024 36,51,62,84,116,145 2,5,9,27,55 0.5 "${V5E1[@]}"
if [ "${ROOFLINE_V5E:-0}" = 1 ]; then
  physics v5e 131072 8.2e11 1.5e9 128 7 12416 1024 100,250,480,690,1050,1610,2420 \
    4,8,24,32,96,129,192,384 2 --config v5e
fi

# 1b. The presets of the book's table, v4p, v5p and v6e (cmodel/configs/):
# their ridge, measured.  Each run pays a fixed start and end (the HBM
# latency, the first fetches, the last group's results written after the
# last multiply: on v6e, 256-wide arrays, about 12,000 cycles), which a
# few REPS do not hide to 2% (the default sweep's medians come 1-2% under
# the ridge).  So each batch runs twice, with REPS 2 and 3 (and the
# elementwise ops with 8 and 12 chunks): the difference is one matmul (or
# four chunks) in the steady state, its cycles free of the fixed cost.
# From those differences, with D = F = 4096:
#   - the ridge: FLOPs per cycle of the compute-bound batch over HBM bytes
#     per cycle of the memory-bound ones (two matmuls and the elementwise
#     ops, their median) within 2% of peak / bandwidth, and that within
#     0.5% of the book's (the chip's FLOP/s over its HBM bytes/s: 229, 164
#     and 575);
#   - the batch where the matmul from HBM turns compute-bound (the line
#     through the two memory-bound matmuls' cycles against the line through
#     the origin and the compute-bound one's) within 2% of the exact byte
#     count's R D F / (D F - R D - 2 R F), and the matmul's intensity there,
#     2BDF / (2BD + 2DF + 4BF), within 2% of R.
# steady NAME FLOPS BW MEM1 MEM2 COMP: NAME's preset against the book's
# FLOP/s and bytes/s per chip; MEM1 and MEM2 memory-bound batches, COMP a
# compute-bound one
steady() {
  local name=$1 flops=$2 bw=$3 m1=$4 m2=$5 cb=$6 d=4096 r book got want
  local dir2=$name-steady2 dir3=$name-steady3
  run "$dir2" --config "$name" --d $d --f $d --batches "$m1,$m2,$cb" --vmem-batches none \
      --reps 2 --chunks 8 || return
  run "$dir3" --config "$name" --d $d --f $d --batches "$m1,$m2,$cb" --vmem-batches none \
      --reps 3 --chunks 12 || return
  local s=$work/$dir2/roofline-$name.txt
  r=$(key ridge_hbm "$s")
  book=$(awk -v f="$flops" -v b="$bw" 'BEGIN { printf "%.6f", f / b }')
  check "$(near 0.005)" "$name: ridge peak / bandwidth = $r FLOP/byte, the book's $flops / $bw = $book (within 0.5%)" "$r" "$book"
  # the differences, one line per batch or op: series b bound dcycles dflops dbytes
  local diff
  diff=$(awk -F, 'FNR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
      { k = $col["series"] " " $col["b"]
        if ($col["result"] != "bit-exact") print "notexact " k
        if (FNR == NR) { c[k] = $col["cycles"]; f[k] = $col["flops"]; h[k] = $col["hbm_bytes"]; next }
        print k, $col["bound"], $col["cycles"] - c[k], $col["flops"] - f[k], $col["hbm_bytes"] - h[k] }' \
      "$work/$dir2/roofline-$name.csv" "$work/$dir3/roofline-$name.csv")
  if grep -q notexact <<<"$diff" || [ "$(grep -c ' compute \| hbm ' <<<"$diff")" != 6 ]; then
    bad "$name: the runs (not all bit-exact, or not 3 matmuls and 3 elementwise ops on their sides): $diff"
    return
  fi
  ok "$name: 12 runs bit-exact (REPS 2 and 3 at B = $m1, $m2 (memory-bound) and $cb (compute-bound))"
  local peak bwm ridge
  peak=$(awk '$3 == "compute" { print $5 / $4 }' <<<"$diff")
  bwm=$(awk '$3 == "hbm" { print $6 / $4 }' <<<"$diff" | sort -g | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
  ridge=$(awk -v p="$peak" -v b="$bwm" 'BEGIN { printf "%.4f", p / b }')
  check "$(near 0.02)" "$name: measured ridge $ridge FLOP/byte ($peak FLOP/cycle over $bwm B/cycle, steady state), within 2% of $r" "$ridge" "$r"
  check "$(near 0.02)" "$name: ... and within 2% of the book's $book" "$ridge" "$book"
  # the crossover: memory line a + b B through the two memory-bound
  # matmuls, compute line c B through the compute-bound one
  local x
  x=$(awk -v m1="$m1" -v m2="$m2" -v cb="$cb" '
      $1 == "matmul_hbm" { y[$2] = $4 }
      END { b = (y[m2] - y[m1]) / (m2 - m1); a = y[m1] - b * m1; c = y[cb] / cb
            printf "%.4f", (c > b ? a / (c - b) : -1) }' <<<"$diff")
  want=$(crossover "$r" "$d" "$d")
  check "$(near 0.02)" "$name: W streamed, D = F = $d: measured crossover B = $x (steady state), the exact byte count predicts $want (within 2%)" "$x" "$want"
  got=$(awk -v b="$x" -v d="$d" 'BEGIN { printf "%.4f", 2 * b * d * d / (2 * b * d + 2 * d * d + 4 * b * d) }')
  check "$(near 0.02)" "$name: the matmul's intensity there, $got FLOP/byte, within 2% of the ridge $r" "$got" "$r"
}
steady v4p 2.75e14 1.2e12 70 180 420
steady v5p 4.59e14 2.8e12 50 120 300
steady v6e 9.20e14 1.6e12 150 500 1400

# 2. any mxu_n, not only powers of two: the default D and F are multiples
# of N * num_mxu; matmul.s and the RTL config take it too
out=$("$bin/tpu-roofline" --config tiny --set mxu_n=6 --out "$work/n6" --no-plot --quiet 2>&1)
if [ $? -eq 0 ] && grep -q 'D = 48, F = 48' <<<"$out"; then ok "mxu_n = 6: every run bit-exact, D = F = 48"
else bad "mxu_n = 6: $(head -n 2 <<<"$out")"; fi
for nm in "3 1" "12 2"; do
  read -r n m <<<"$nm"
  out=$("$bin/tpu-roofline" --config tiny --set mxu_n="$n" --set num_mxu="$m" --batches 1,7,40 \
        --vmem-batches 1,9 --chunks 2 --out "$work/n$n" --no-plot --quiet 2>&1); rc=$?
  dd=$(sed -n 's/.*(D = \([0-9]*\), F = \([0-9]*\)).*/\1 \2/p' <<<"$out" | head -n 1)
  read -r d f <<<"${dd:-0 0}"
  if [ $rc -eq 0 ] && [ "$d" -gt 0 ] && [ $((d % n)) -eq 0 ] && [ $((f % (n * m))) -eq 0 ]; then
    ok "mxu_n = $n, num_mxu = $m: every run bit-exact, D = $d, F = $f"
  else bad "mxu_n = $n, num_mxu = $m: $(head -n 2 <<<"$out")"; fi
  printf 'name = n%s\nmxu_n = %s\nnum_mxu = %s\n' "$n" "$n" "$m" >"$work/n$n.cfg"
  if "$bin/tpu-as" --config "$work/n$n.cfg" -D B=7 -D D=$((3 * n)) -D F=$((2 * n * m)) \
       -o "$work/n$n.bin" programs/matmul.s >"$work/n$n.as" 2>&1 \
     && "$bin/tpu-sim" --config "$work/n$n.cfg" "$work/n$n.bin" 2>&1 | grep -q 'result: bit-exact' \
     && "$bin/tpu-rtlcfg" "$work/n$n.cfg" | grep -q "CFG_MXU_N *= $n;"; then
    ok "mxu_n = $n: matmul.s -D B=7 -D D=$((3 * n)) -D F=$((2 * n * m)) bit-exact; tpu-rtlcfg CFG_MXU_N = $n"
  else bad "mxu_n = $n: matmul.s or tpu-rtlcfg: $(head -n 2 "$work/n$n.as")"; fi
done

# 3. A very slow HBM (issue 11: 3 minutes silent, then "0.00 B/cycle" and
# a table and a summary that disagreed): the default sweep, its work
# bounded (D from the machine's balance, every run under 4e6 cycles), the
# bandwidths with their digits, the table's bounds counted in the summary.
slow=$work/slow
if run slow --config tiny --set hbm_bw=1e6; then
  out=$(cat "$slow/out.txt")
  if grep -q 'HBM 0.001 B/cycle' <<<"$out" && ! grep -q ' 0\.00* B/cycle' <<<"$out"; then
    ok "hbm_bw 1e6: 'HBM 0.001 B/cycle'"; else bad "hbm_bw 1e6: $(grep -m1 '^machine' <<<"$out")"; fi
  most=$(awk -F, 'NR > 1 && $11 > m { m = $11 } END { print m + 0 }' "$slow/roofline-tiny.csv")
  check "a <= 4e6" "hbm_bw 1e6: D = $(key d "$slow/roofline-tiny.txt"), the longest run $most cycles (bounded)" "$most"
  nv=$(grep -c '^matmul_vmem .* hbm ' <<<"$out"); nh=$(grep -c '^matmul_hbm .* hbm ' <<<"$out")
  if grep -q "^ *$nv W-in-VMEM runs bound by HBM" <<<"$out" && grep -q 'weight-load-bound runs: 0, compute-bound: 0' <<<"$out" \
     && grep -q "memory-bound runs: $nh, compute-bound: 0" <<<"$out"; then
    ok "hbm_bw 1e6: the summary counts the runs as the table bounds them ($nh streamed and $nv W-in-VMEM by HBM)"
  else bad "hbm_bw 1e6: table and summary disagree"; grep -E '^matmul|crossover|bound by' <<<"$out"; fi
fi

# 4. Ctrl-C (in-process, --jobs 1) and SIGTERM (children, --jobs 2) once a
# point is done: the points done in a valid CSV, exit 130, no plot.  The
# progress line is forced on (TPU_PROGRESS=1) to see a point finish: the
# signal must come after the first point and before the last, which a
# fixed delay (signals.sh's run_signalled) cannot promise on every machine;
# signals.sh sets -m (a background job of a script would otherwise ignore
# SIGINT).
. "$(dirname "$0")/signals.sh"
stop_test() {
  local name=$1 sig=$2 jobs=$3 dir=$work/$1 pid st k i
  # a fresh folder: the wait below must not see an earlier run's err.txt
  # (the background job truncates it only once it has started)
  rm -rf "$dir" && mkdir -p "$dir"
  TPU_PROGRESS=1 "$bin/tpu-roofline" "${V5E1[@]}" --set name=stop --d 1024 --f 1024 \
    --batches 36,51,62,84,116,145 --vmem-batches none --chunks 8 --jobs "$jobs" \
    --out "$dir" --img "$dir" >"$dir/out.txt" 2>"$dir/err.txt" &
  pid=$!
  for ((i = 0; i < 400; i++)); do
    grep -q '[1-9][0-9]*/9 points' "$dir/err.txt" 2>/dev/null && break
    sleep 0.05
  done
  kill -"$sig" "$pid"
  for ((i = 0; i < 400; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
  kill -KILL "$pid" 2>/dev/null
  wait "$pid"; st=$?
  local csv=$dir/roofline-stop.csv
  if [ "$st" = 130 ] && grep -q 'interrupted after [0-9]* of 9 points' "$dir/err.txt"; then
    ok "$name: exit 130, '$(grep -o 'interrupted after [0-9]* of 9 points' "$dir/err.txt")'"
  else bad "$name: exit $st"; tr '\r' '\n' <"$dir/err.txt" | tail -n 3; fi
  k=$(sed -n 's/.*interrupted after \([0-9]*\) of.*/\1/p' "$dir/err.txt")
  if [ -f "$csv" ] && [ "$(($(wc -l <"$csv") - 1))" = "${k:-x}" ] && [ "${k:-0}" -ge 1 ] \
     && awk -F, 'NR > 1 && $NF != "bit-exact" { bad = 1 } END { exit bad }' "$csv"; then
    ok "$name: the CSV has the $k point$([ "$k" = 1 ] || echo s) done, each bit-exact"
  else bad "$name: the CSV ($csv) does not hold the ${k:-?} points done"; fi
  if [ ! -e "$dir/roofline-stop.png" ] && [ -f "$dir/roofline-stop.gp" ]; then
    ok "$name: no plot (its gnuplot script is written)"; else bad "$name: a plot was drawn, or no script"; fi
  if grep -q 'points  [0-9.]* s elapsed.*running: matmul_hbm B [0-9]* [0-9]*%' "$dir/err.txt"; then
    ok "$name: the progress line shows points done, time elapsed and left, and the running points"
  else bad "$name: no progress line: $(tr '\r' '\n' <"$dir/err.txt" | head -n 2)"; fi
}
stop_test sigint INT 1
stop_test sigterm TERM 2

# 5. the command line
if "$bin/tpu-roofline" --config nosuch >/dev/null 2>&1; [ $? -eq 2 ]; then ok "bad --config: exit 2"; else bad "bad --config: not exit 2"; fi
if "$bin/tpu-roofline" --batches 1,x >/dev/null 2>&1; [ $? -eq 2 ]; then ok "bad --batches: exit 2"; else bad "bad --batches: not exit 2"; fi
if "$bin/tpu-roofline" --set hbm_bw=0 >/dev/null 2>&1; [ $? -eq 2 ]; then ok "bad --set: exit 2"; else bad "bad --set: not exit 2"; fi
if "$bin/tpu-roofline" --set num_mxu=1 --set vmem_bw=3200 >/dev/null 2>&1; [ $? -eq 2 ]; then ok "a machine the model cannot build (vmem_bw under one vld): exit 2 before any run"; else bad "vmem_bw under one vld: not exit 2"; fi
if "$bin/tpu-roofline" --d 100 >/dev/null 2>&1; [ $? -eq 2 ]; then ok "--d not a multiple of mxu_n: exit 2"; else bad "--d 100: not exit 2"; fi
if "$bin/tpu-roofline" --help | grep -q '^usage: tpu-roofline'; then ok "--help"; else bad "--help"; fi

finish roofline
