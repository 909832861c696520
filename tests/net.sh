#!/usr/bin/env bash
# net.sh BIN_DIR WORK_DIR - tpu-net, whole networks from topology files
# (docs/workloads.md, "Networks"):
#   - every shipped topology (programs/networks/) is read and planned;
#   - ResNet-18 on mid with data: every layer bit-exact, the reports'
#     columns (CSV, JSON, timeline) consistent, one layer's cycles the same
#     as tpu-gen + tpu-as + tpu-sim give, timing-only the same cycles,
#     -j 1 the same reports as -j 2;
#   - MobileNetV2 (groups) on mid, GPT-2 small and ResNet-50 on v5e;
#   - bad topologies and command lines: exit 2, FILE:LINE:COL and the column;
#   - Ctrl-C and SIGTERM keep the layers done (exit 130);
#   - a small sweep: sweep.csv with its Pareto front, the plot.
set -uo pipefail
bin=${1:?usage: net.sh BIN_DIR WORK_DIR}
work=${2:?usage: net.sh BIN_DIR WORK_DIR}
rm -rf "$work" && mkdir -p "$work"
source "$(dirname "$0")/checks.sh"   # ok, bad, skip, finish: TAP (tests/README.md)
NETS=programs/networks
net=$bin/tpu-net
have_gnuplot=0; command -v gnuplot >/dev/null 2>&1 && have_gnuplot=1
plot=(); [ $have_gnuplot = 1 ] || plot=(--no-plot)
# col FILE NAME: the column number of NAME in the CSV's header
col() { head -n 1 "$1" | tr ',' '\n' | grep -nx "$2" | cut -d: -f1; }

# ---- 1. every shipped topology: read and planned on v5e ---------------------------------
for spec in resnet18:21 resnet50:54 mobilenetv2:53 vit_s16:194 bert_base:361 gpt2_small:337; do
  n=${spec%%:*} want=${spec#*:}
  out=$work/dry-$n.txt
  if "$net" "$NETS/$n.csv" --config v5e --dry-run >"$out" 2>&1 \
     && grep -q ": $want layers" "$out" && grep -q '^predicted: ' "$out"; then
    ok "$n.csv: $want layers read and planned on v5e"
  else bad "$n.csv: $(head -n 2 "$out")"; fi
done
# the papers' MAC counts (im2col GEMMs, groups included): ResNet-50 about 4.1e9 with the
# projections (He et al.: 3.8e9 FLOPs counted as multiply-adds, conv only), GPT-2 small
# 1024 tokens about 1.06e11
macs() { awk -F, -v c="$(col "$1" macs)" 'NR > 1 { s += $c } END { printf "%.4g", s }' "$1"; }

# ---- 2. ResNet-18 on mid, with data ----------------------------------------------------
d=$work/r18
"$net" "$NETS/resnet18.csv" --config mid -j 2 --out "$d" "${plot[@]}" >"$work/r18.txt" 2>&1
rc=$?
csv=$d/layers.csv
if [ $rc = 0 ] && grep -q 'every layer run bit-exact (21 of 21)' "$work/r18.txt"; then
  ok "resnet18 on mid: exit 0, every layer bit-exact"
else bad "resnet18 on mid: exit $rc"; sed 's/^/      /' "$work/r18.txt" | head -n 20; fi
hdr='layer,name,line,type,engine,groups,M,N,K,Np,Kp,total_cycles,compute_cycles,stall_cycles,overall_util_pct,mapping_efficiency_pct,compute_util_pct,avg_dram_read_bw,avg_dram_write_bw,avg_dram_bw,peak_dram_bw,macs,mxu_macs,hbm_bytes,intensity,t_math,t_memory,bound,pct_of_roofline,predicted_cycles,predicted_bound,predicted_error_pct,measured_cycles,time_us,vmem_peak_bytes,instructions,energy_uj,result'
if [ -f "$csv" ] && [ "$(head -n 1 "$csv")" = "$hdr" ] && [ "$(($(wc -l <"$csv") - 1))" = 21 ]; then
  ok "layers.csv: the 38 columns, 21 rows"
else bad "layers.csv: header or rows differ"; head -n 2 "$csv" 2>/dev/null; fi
# the columns agree with one another and with the layer's shape
if awk -F, -v NCOL=38 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
  { e = ""
    if (NF != NCOL) e = e " fields " NF
    if ($c["total_cycles"] != $c["compute_cycles"] + $c["stall_cycles"]) e = e " compute+stall"
    if ($c["total_cycles"] != $c["measured_cycles"]) e = e " measured"
    if ($c["overall_util_pct"] > 100 || $c["overall_util_pct"] <= 0) e = e " util"
    if ($c["macs"] != $c["groups"] * $c["M"] * $c["N"] * $c["K"]) e = e " macs"
    me = 100 * $c["N"] * $c["K"] / ($c["Np"] * $c["Kp"])
    if (me - $c["mapping_efficiency_pct"] > 0.01 || $c["mapping_efficiency_pct"] - me > 0.01) e = e " mapping"
    if ($c["bound"] != "compute" && $c["bound"] != "memory") e = e " bound"
    if ($c["result"] != "bit-exact") e = e " result"
    if ($c["engine"] != "conv-mxu") e = e " engine"
    if ($c["peak_dram_bw"] + 0.001 < $c["avg_dram_bw"]) e = e " peak<avg"
    if ($c["energy_uj"] <= 0) e = e " energy"
    hb = $c["avg_dram_bw"] * $c["total_cycles"]
    if (hb - $c["hbm_bytes"] > $c["total_cycles"] * 0.001 + 1 || $c["hbm_bytes"] - hb > $c["total_cycles"] * 0.001 + 1) e = e " bw"
    if (e != "") { print "row " NR ":" e; bad = 1 } }
  END { exit bad }' "$csv" >"$work/cols.txt"; then
  ok "layers.csv: compute + stall = total = measured, MACs = G M N K, mapping = N K / (Np Kp), avg bandwidth x cycles = HBM bytes, peak >= avg"
else bad "layers.csv columns: $(head -n 3 "$work/cols.txt")"; fi
if grep -q '^1,conv1,2,conv,conv-mxu,1,12544,64,147,64,160,' "$csv"; then
  ok "conv1 is tpu-gen conv2d's program, the im2col GEMM 12544 x 64 x 147 (OFMAP 112 x 112 of a 230 x 230 padded IFMAP)"
else bad "conv1's GEMM: $(sed -n 2p "$csv" | cut -d, -f1-11)"; fi
# same_as NAME CSV TPU-GEN-ARGS...: the layer's cycles are those of tpu-gen + tpu-as + tpu-sim
same_as() {
  local name=$1 f=$2 row cyc sim
  shift 2
  row=$(grep ",$name," "$f")
  cyc=$(echo "$row" | cut -d, -f"$(col "$f" total_cycles)")
  "$bin/tpu-gen" "$@" --config mid -o "$work/p.s" --quiet \
    && "$bin/tpu-as" --config mid -o "$work/p.bin" "$work/p.s" \
    && "$bin/tpu-sim" --config mid --json "$work/p.bin" >"$work/p.json" 2>&1
  sim=$(grep -o '"cycles": [0-9]*' "$work/p.json" | head -n 1 | grep -o '[0-9]*$')
  if [ -n "$cyc" ] && [ "$cyc" = "$sim" ]; then
    ok "$name: $cyc cycles, as tpu-gen $1 + tpu-as + tpu-sim measure"
  else bad "$name: tpu-net $cyc cycles, tpu-sim ${sim:-?} (tpu-gen $*)"; fi
}
same_as conv3_1_proj "$csv" conv2d -H 56 -W 56 -C 64 --filters 128 -R 1 -S 1 --stride 2
"$net" "$NETS/resnet18.csv" --config mid --lowering im2col --out "$work/r18i" --no-plot --quiet
if [ $? = 0 ] && awk -F, -v e="$(col "$work/r18i/layers.csv" engine)" 'NR > 1 && ($e != "im2col-gemm" || $NF != "bit-exact") { b = 1 } END { exit b }' "$work/r18i/layers.csv"; then
  ok "--lowering im2col: every conv layer the im2col GEMM, bit-exact"
else bad "--lowering im2col"; fi
same_as conv3_1_proj "$work/r18i/layers.csv" gemm -M 784 -N 128 -K 64
if command -v python3 >/dev/null 2>&1; then
  if python3 - "$d" <<'EOF'
import json, sys
d = sys.argv[1]
j = json.load(open(d + "/layers.json"))
assert j["layers_done"] == 21 and len(j["layers"]) == 21, "layers"
assert all(l["result"] == "bit-exact" for l in j["layers"]), "result"
assert j["total_cycles"] == sum(l["total_cycles"] for l in j["layers"]), "total"
t = json.load(open(d + "/timeline.json"))
x = [e for e in t["traceEvents"] if e.get("ph") == "X" and e.get("tid") == 1]
assert len(x) == 21, "slices"
assert x[0]["ts"] == 0 and all(x[i]["ts"] + x[i]["dur"] == x[i + 1]["ts"] for i in range(20)), "one after another"
assert x[-1]["ts"] + x[-1]["dur"] == j["total_cycles"], "end"
EOF
  then ok "layers.json (21 layers, the total) and timeline.json (a slice per layer, one after another) load"
  else bad "layers.json or timeline.json"; fi
else skip "layers.json and timeline.json load" "no python3"
fi
if [ $have_gnuplot = 1 ]; then
  if [ -s "$d/roofline.png" ] && [ -s "$d/roofline.svg" ] && [ -s "$d/roofline.gp" ]; then
    ok "the roofline plot: roofline.gp, .png, .svg"
  else bad "no roofline plot in $d"; fi
else skip "the roofline plot" "no gnuplot"
fi
if ! ls "$d"/*.tmp >/dev/null 2>&1; then ok "no temporary files left"; else bad "temporary files left"; fi
if grep -q '^where the time goes' "$d/summary.txt" && grep -q '^bound: .* compute-bound' "$d/summary.txt"; then
  ok "summary.txt: the bound's share and where the time goes"
else bad "summary.txt"; fi

# timing only: the same cycles; -j 1: the same reports
"$net" "$NETS/resnet18.csv" --config mid --timing-only --out "$work/r18t" --no-plot --quiet
tc=$(col "$csv" total_cycles)
if [ "$(cut -d, -f"$tc" "$csv")" = "$(cut -d, -f"$tc" "$work/r18t/layers.csv")" ]; then
  ok "--timing-only: every layer's cycles as with data"
else bad "--timing-only changes the cycles"; fi
"$net" "$NETS/resnet18.csv" --config mid -j 1 --out "$work/r18j1" --no-plot --quiet
if cmp -s "$csv" "$work/r18j1/layers.csv"; then ok "-j 1 and -j 2: the same layers.csv"
else bad "-j 1 and -j 2 differ"; fi
"$net" "$NETS/resnet18.csv" --config mid --seed 7 --out "$work/r18s7" --no-plot --quiet
if [ $? = 0 ] && grep -q '"seed": 7' "$work/r18s7/layers.json"; then ok "--seed 7: other data, bit-exact"
else bad "--seed 7"; fi

# ---- 3. groups, transformers, the big ones --------------------------------------------
d=$work/mb
"$net" "$NETS/mobilenetv2.csv" --config mid --timing-only -j 2 --out "$d" --no-plot >"$work/mb.txt" 2>&1
rc=$?
gc=$(col "$d/layers.csv" groups)
g=$(awk -F, -v c="$gc" 'NR > 1 && $c > 1' "$d/layers.csv" 2>/dev/null | wc -l)
dw=$(grep ',b2_dw,' "$d/layers.csv" | cut -d, -f5-9)
if [ $rc = 0 ] && [ "$g" = 17 ] && [ "$dw" = "conv-vpu,96,3136,1,9" ]; then
  ok "mobilenetv2 on mid: 17 depthwise layers on the VPU, b2_dw = 96 groups of 3136 x 1 x 9"
else bad "mobilenetv2: exit $rc, $g grouped layers, b2_dw '$dw'"; fi
d=$work/gpt2
"$net" "$NETS/gpt2_small.csv" --config v5e --timing-only -j 2 --out "$d" --no-plot >"$work/gpt2.txt" 2>&1
rc=$?
m=$(macs "$d/layers.csv")
if [ $rc = 0 ] && [ "$(($(wc -l <"$d/layers.csv") - 1))" = 337 ] && grep -q '^by kind' "$d/summary.txt" \
   && grep -q "7 runs" "$work/gpt2.txt" && [ "$m" = 1.063e+11 ]; then
  ok "gpt2_small on v5e, timing only: 337 layers from 7 runs (one per GEMM shape), $m MACs"
else bad "gpt2_small: exit $rc, MACs $m"; head -n 3 "$work/gpt2.txt"; fi
d=$work/r50
t0=$(date +%s.%N)
"$net" "$NETS/resnet50.csv" --config v5e -j 2 --out "$d" --no-plot >"$work/r50.txt" 2>&1
rc=$?
t1=$(date +%s.%N)
m=$(macs "$d/layers.csv")
if [ $rc = 0 ] && grep -q 'every layer run bit-exact (54 of 54)' "$work/r50.txt" && [ "$m" = 3.858e+09 ]; then
  ok "resnet50 on v5e with data: 54 layers bit-exact, $m MACs, $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s"
else bad "resnet50 on v5e: exit $rc, MACs $m"; head -n 8 "$work/r50.txt"; fi

# ---- 4. bad input ------------------------------------------------------------------------
CONVH='Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, Strides,'
# bad_topo NAME CONTENT PATTERN [ARGS...]
bad_topo() {
  local name=$1 content=$2 pat=$3 f=$work/bad-$1.csv
  shift 3
  printf '%b' "$content" >"$f"
  "$net" "$f" --config tiny --out "$work/o-$name" "$@" >"$work/bad-$name.out" 2>&1
  local rc=$? msg
  msg=$(head -n 1 "$work/bad-$name.out")
  if [ $rc = 2 ] && [ "$(wc -l <"$work/bad-$name.out")" = 1 ] && echo "$msg" | grep -Eq -- "$pat"; then
    ok "bad topology ($name): exit 2, '${msg#tpu-net: }'"
  else bad "bad topology ($name): exit $rc, '$msg' (expected /$pat/)"; fi
}
bad_topo missing  'Layer, M, N, K,\nfc1, 8, 8, 8,\nfc2, 8, 8,\n' "bad-missing.csv:3: error: missing column 4 \(K\)"
bad_topo extra    'Layer, M, N, K,\nfc1, 8, 8, 8, 9,\n' "bad-extra.csv:2:15: error: extra column 5"
bad_topo zero     'Layer, M, N, K,\nfc1, 8, 0, 8,\n' "bad-zero.csv:2:9: error: column 3 \(N\) must be positive, got '0'"
bad_topo negative 'Layer, M, N, K,\nfc1, -8, 8, 8,\n' "bad-negative.csv:2:6: error: column 2 \(M\) must be positive, got '-8'"
bad_topo word     "$CONVH\nc1, 8, 8, 3, 3, four, 4, 1,\n" "bad-word.csv:2:17: error: column 6 \(Channels\): expected a positive whole number, got 'four'"
bad_topo float    'Layer, M, N, K,\nfc1, 8, 8, 2.5,\n' "bad-float.csv:2:12: error: column 4 \(K\): expected a positive whole number"
bad_topo vmem     'Layer, M, N, K,\nfc1, 8, 8, 8,\nhuge, 1, 8, 200000,\n' "bad-vmem.csv:3: error: layer 'huge' .* too large for VMEM"
bad_topo header   'fc1, 8, 8, 8,\n' "bad-header.csv:1:6: error: the first line must be the header"
bad_topo columns  'Layer, M, N,\nfc1, 8, 8,\n' "bad-columns.csv:1: error: the header has 3 columns: expected 4"
bad_topo filter   "$CONVH\nc1, 8, 8, 9, 3, 4, 4, 1,\n" "bad-filter.csv:2:11: error: column 4 \(Filter Height\) 9 is larger than column 2"
bad_topo groups   "${CONVH} Groups,\nc1, 8, 8, 3, 3, 6, 4, 1, 4,\n" "bad-groups.csv:2:26: error: column 9 \(Groups\) 4 must divide"
bad_topo option9  "${CONVH} Dilation,\nc1, 8, 8, 3, 3, 6, 4, 1, 4,\n" "bad-option9.csv:1:[0-9]+: error: column 9 of the header is 'Dilation': expected 'Groups' or 'Stride width'"
bad_topo empty    '' "bad-empty.csv: error: the topology is empty"
bad_topo noname   'Layer, M, N, K,\n, 8, 8, 8,\n' "bad-noname.csv:2:1: error: column 1 \(Layer\) is empty"
bad_topo sweepkey 'Layer, M, N, K,\nfc1, 8, 8, 8,\n' "error: --sweep 'vmem_latency=1,2': unknown key 'vmem_latency' \(the keys: mxu_n" --sweep vmem_latency=1,2
bad_topo sweepval 'Layer, M, N, K,\nfc1, 8, 8, 8,\n' "error: --sweep 'num_mxu=1,x': bad value 'x' for num_mxu" --sweep num_mxu=1,x
bad_topo batch    'Layer, M, N, K,\nfc1, 8, 8, 8,\n' "error: --batch 2: .* is a GEMM topology" --batch 2
if "$net" "$work/nosuch.csv" --config tiny >/dev/null 2>&1; [ $? = 2 ]; then ok "a missing topology: exit 2"; else bad "missing topology: not exit 2"; fi
if "$net" "$NETS/resnet18.csv" >/dev/null 2>&1; [ $? = 2 ]; then ok "no --config: exit 2"; else bad "no --config: not exit 2"; fi
if "$net" "$NETS/resnet18.csv" --config v5e --frobnicate >/dev/null 2>&1; [ $? = 2 ]; then ok "an unknown option: exit 2"; else bad "unknown option: not exit 2"; fi
if "$net" --help | grep -q '^usage: tpu-net'; then ok "--help"; else bad "--help"; fi
# SCALE-Sim's own files read as they are: trailing commas or none, a 9th column Stride width,
# spreadsheet cells left empty at the end of a row
printf 'Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, Strides, Stride width,,,\nc1,10,12,3,3,8,8,1,2,,,\n\n,,,,,,,,,\nc2,8,8,1,1,8,16,1,1\n' >"$work/ss.csv"
if "$net" "$work/ss.csv" --config tiny --out "$work/ss" --no-plot --quiet \
   && grep -q '^1,c1,2,conv,im2col-gemm,1,40,8,72,' "$work/ss/layers.csv" \
   && grep -q '^2,c2,5,conv,conv-mxu,1,64,16,8,' "$work/ss/layers.csv"; then
  ok "SCALE-Sim's layout: trailing commas or none, Stride width (OFMAP 8 x 5 of 10 x 12, stride 1 x 2: the im2col GEMM), empty rows"
else bad "SCALE-Sim layout: $(cat "$work/ss/layers.csv" 2>/dev/null | cut -d, -f1-8)"; fi

# ---- 5. Ctrl-C and SIGTERM: the layers done are kept ----------------------------------
. "$(dirname "$0")/signals.sh"
printf 'Layer, M, N, K,\n' >"$work/slow.csv"
for i in $(seq 1 40); do echo "g$i, 1024, 256, 256," >>"$work/slow.csv"; done
stop_test() {
  local name=$1 sig=$2 jobs=$3 dir=$work/stop-$1 pid st k i
  rm -rf "$dir" && mkdir -p "$dir"
  TPU_PROGRESS=1 "$net" "$work/slow.csv" --config tiny -j "$jobs" --out "$dir" >"$dir.out" 2>"$dir.err" &
  pid=$!
  for ((i = 0; i < 600; i++)); do
    grep -q '[1-9][0-9]*/40 layers' "$dir.err" 2>/dev/null && break
    sleep 0.05
  done
  kill -"$sig" "$pid"
  for ((i = 0; i < 400; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
  kill -KILL "$pid" 2>/dev/null
  wait "$pid"; st=$?
  k=$(sed -n 's/.*interrupted after \([0-9]*\) of 40 layers.*/\1/p' "$dir.err")
  if [ "$st" = 130 ] && [ -n "$k" ] && [ "$k" -ge 1 ] && [ "$k" -lt 40 ]; then
    ok "$name: exit 130, interrupted after $k of 40 layers"
  else bad "$name: exit $st, '$(tr '\r' '\n' <"$dir.err" | tail -n 2)'"; fi
  if [ -f "$dir/layers.csv" ] && [ "$(($(wc -l <"$dir/layers.csv") - 1))" = "${k:-x}" ] \
     && awk -F, 'NR > 1 && $NF != "bit-exact" { b = 1 } END { exit b }' "$dir/layers.csv" \
     && grep -q "^stop: interrupted after $k of 40 layers" "$dir/summary.txt" \
     && grep -q '"interrupted": true' "$dir/layers.json"; then
    ok "$name: layers.csv holds the $k layers done, each bit-exact; the summary and JSON say interrupted"
  else bad "$name: the reports do not hold the ${k:-?} layers done"; fi
  if [ ! -e "$dir/roofline.png" ] && [ -f "$dir/roofline.gp" ] && ! ls "$dir"/*.tmp >/dev/null 2>&1; then
    ok "$name: no plot drawn (its script is written), no temporary files"
  else bad "$name: a plot was drawn, no script, or temporary files"; fi
}
stop_test sigint INT 2
stop_test sigterm TERM 1

# ---- 6. a sweep ---------------------------------------------------------------------------
d=$work/sweep
"$net" "$NETS/resnet18.csv" --config mid --sweep num_mxu=1,2 --sweep hbm_bw=16e9,32e9,64e9 \
  -j 2 --out "$d" "${plot[@]}" >"$work/sweep.txt" 2>&1
rc=$?
sc=$d/sweep.csv
if [ $rc = 0 ] && [ "$(head -n 1 "$sc")" = "design,num_mxu,hbm_bw,feasible,layers_done,layers_failed,cycles,time_ms,tflops,macs,hbm_bytes,energy_uj,area_cells,area_mxu,area_dma,area_hbm_phy,area_vmem_ports,pareto" ] \
   && [ "$(($(wc -l <"$sc") - 1))" = 6 ]; then
  ok "sweep: 6 designs in sweep.csv"
else bad "sweep: exit $rc"; head -n 3 "$sc" 2>/dev/null; fi
# the front: no design on it is dominated, every design off it is
if awk -F, 'NR > 1 { t[NR] = $8; a[NR] = $13; p[NR] = $NF; n = NR }
  END { front = 0
    for (i = 2; i <= n; i++) { dom = 0
      for (j = 2; j <= n; j++) if (j != i && t[j] <= t[i] && a[j] <= a[i] && (t[j] < t[i] || a[j] < a[i])) dom = 1
      if (dom == p[i]) { print "design " i - 1 " pareto " p[i] " dominated " dom; bad = 1 }
      front += p[i] }
    if (front < 1) bad = 1
    exit bad }' "$sc"; then
  ok "sweep: the Pareto column marks exactly the designs no other beats in time and area ($(awk -F, 'NR > 1 && $NF == 1' "$sc" | wc -l) on the front)"
else bad "sweep: the Pareto column is wrong"; fi
if awk -F, 'NR > 1 && $2 == 2 && $3 == "32e9" { t2 = $8 } NR > 1 && $2 == 1 && $3 == "32e9" { t1 = $8 }
    END { exit !(t2 < t1) }' "$sc"; then ok "sweep: two MXUs faster than one at the same bandwidth"
else bad "sweep: two MXUs not faster"; fi
if [ -f "$d/design-1/layers.csv" ] && [ -f "$d/design-6/summary.txt" ]; then
  ok "sweep: each design's reports in design-K/"
else bad "sweep: no per-design reports"; fi
if [ $have_gnuplot = 1 ]; then
  if [ -s "$d/sweep.png" ] && [ -s "$d/sweep.svg" ]; then ok "sweep: sweep.png and .svg"
  else bad "sweep: no plot"; fi
else skip "sweep: sweep.png and .svg" "no gnuplot"
fi
printf 'Layer, M, N, K,\nfc1, 8, 8, 8,\nwide, 8, 8, 20000,\n' >"$work/wide.csv"
if "$net" "$work/wide.csv" --config tiny --sweep vmem_bytes=32Ki,256Ki --out "$work/sweep2" \
     --no-plot >/dev/null 2>"$work/sweep2.err"; [ $? = 0 ] \
   && grep -q "design 1 (vmem_bytes=32Ki) is infeasible: .*wide.csv:3: layer 'wide'" "$work/sweep2.err" \
   && awk -F, 'NR == 2 && $3 == 0 && $NF == 0 { a = 1 } NR == 3 && $3 == 1 && $NF == 1 { b = 1 } END { exit !(a && b) }' "$work/sweep2/sweep.csv"; then
  ok "sweep: a design no tiling fits (K = 20000 in 32 KiB of VMEM) is marked infeasible, the other runs"
else bad "sweep: infeasible design: $(head -n 2 "$work/sweep2.err")"; fi

finish net
