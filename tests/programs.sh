#!/usr/bin/env bash
# programs.sh BIN_DIR WORK_DIR - every program run of the manifest
# (programs/manifest.txt, read by sim/cosim/manifest.sh) on the C model,
# tpu-sim on each config its row names ("all": tiny), with its -D values,
# cores and topology:
#   - each ends as its row says: halt (results bit-exact where it has
#     .expect records), or the named run-time error;
#   - its checks hold: the roofline bound (on v5e the tiled matmul at
#     D = F = 4096 within 5% of max(T_math, T_memory) at B = 64,
#     memory-bound, and B = 1024, compute-bound; the pointwise ops
#     memory-bound within 10% of T_memory), no races (--check-races);
#   - the manifest names every programs/*.s and sim/rtl/progs/*.s, and the
#     reader rejects bad manifests with FILE:LINE:COL: error: and exit 2.
set -uo pipefail
bin=${1:?usage: programs.sh BIN_DIR WORK_DIR}
work=${2:?usage: programs.sh BIN_DIR WORK_DIR}
mkdir -p "$work"
source "$(dirname "$0")/checks.sh"   # ok, bad, finish: TAP (tests/README.md)
. sim/cosim/manifest.sh

json_field() {  # json_field KEY FILE: the value of a top-level "KEY": in one-line JSON
  grep -o "\"$1\": [^,}]*" "$2" | head -n 1 | sed 's/^[^:]*: //; s/"//g'
}

# run CONFIG NAME SOURCE DEFINES CORES TOPOLOGY END CHECKS: one row on one config
run() {
  local config=$1 name=$2 src=$3 defs=$4 cores=$5 topo=$6 end=$7 checks=$8
  local id="$name-$config" obj="$work/$name-$config.bin" js="$work/$name-$config.json"
  local err="$work/$name-$config.err" optv simopts=() rc result got pct how msg why c
  read -r -a optv <<< "$(manifest_asopts "$defs")"
  if ! "$bin/tpu-as" --config "$config" "${optv[@]}" -o "$obj" "$src" 2>"$err"; then
    bad "$id: tpu-as: $(head -n 1 "$err")"; return
  fi
  case "$topo" in
    single) ;;
    ring) simopts+=(--cores "$cores") ;;
    *) simopts+=(--cores "$cores" --topology "${topo%%:*}" --grid "${topo#*:}") ;;
  esac
  case ",$checks," in *,races,*) simopts+=(--check-races) ;; esac
  "$bin/tpu-sim" --config "$config" "${simopts[@]}" --json "$obj" >"$js" 2>"$err"
  rc=$?
  result=$(json_field result "$js"); got=$(json_field bound "$js"); pct=$(json_field roofline_pct "$js")
  # how it ended: 0 halted (bit-exact or nothing to check), 3 stopped early
  case $rc in
    0) how=halt msg= ;;
    3) msg=$(grep -m1 'error: ' "$err")
       how=error; grep -q 'cycle limit' <<<"$msg" && how=limit ;;
    *) bad "$id: exit $rc, result '$result' $(head -n 1 "$err")"; return ;;
  esac
  if ! why=$(manifest_verdict "$end" "$how" "$msg"); then
    bad "$id: $why"; return
  fi
  for c in ${checks//,/ }; do
    case "$c" in
      bound=*) if [ "$got" != "${c#bound=}" ]; then
                 bad "$id: bound '$got', expected '${c#bound=}'"; return
               fi ;;
      pct=*) if ! awk -v p="$pct" -v m="${c#pct=}" 'BEGIN { exit !(p != "" && p + 0 <= m + 0) }'; then
               bad "$id: took ${pct}% of its roofline bound, more than ${c#pct=}%"
               return
             fi ;;
    esac
  done
  if [ "$how" = halt ] && [ "$checks" != - ]; then
    ok "$id: halt, $result, ${got}, ${pct}% of the roofline bound ($checks)"
  elif [ "$how" = halt ]; then
    ok "$id: halt, $result"
  else
    ok "$id: ${end}: $(sed 's/^tpu-sim: error: //' <<<"$msg" | cut -c1-100)"
  fi
}

runs=$(manifest_model_runs) || { bad "the manifest does not read"; finish programs; }
while IFS=$'\t' read -r config name src defs cores topo end checks; do
  run "$config" "$name" "$src" "$defs" "$cores" "$topo" "$end" "$checks"
done <<< "$runs"

# The manifest names every program.
if out=$(bash sim/cosim/manifest.sh check 2>&1); then
  ok "$out"
else
  bad "manifest.sh check: $out"
fi

# Bad manifests: LINE:COL, a message naming the problem, exit 2, for every
# command; and a program missing from the list.
badm() {  # badm "LINE" "FILE:LINE:COL: error: TEXT"
  local m="$work/bad-manifest.txt" got rc
  printf '# a bad manifest\n%s\n' "$1" > "$m"
  for cmd in "runs tiny" model-runs check; do
    # shellcheck disable=SC2086
    got=$(MANIFEST=$m bash sim/cosim/manifest.sh $cmd 2>&1 >/dev/null); rc=$?
    if [ $rc -ne 2 ] || ! grep -qF -- "${2/FILE/$m}" <<<"$got"; then
      bad "bad manifest line '$1' ($cmd): exit $rc: $got"; return
    fi
  done
  ok "bad manifest line '$1': $(head -n 1 <<<"$got")"
}
badm "programs/nosuch.s - 1 single all halt -" "FILE:2:1: error: no program \"programs/nosuch.s\""
badm "../x.s - 1 single all halt -" "FILE:2:1: error: program \"../x.s\" is not a .s file inside the checkout"
badm "programs/matmul.s - 1 single all halt" "FILE:2:1: error: 6 columns, not 7"
badm "programs/matmul.s B32 1 single all halt -" "FILE:2:19: error: define \"B32\" is not NAME=VALUE"
badm "programs/matmul.s - 0 single all halt -" "FILE:2:21: error: cores \"0\" is not 1 to 16"
badm "programs/matmul.s - 2 single all halt -" "FILE:2:23: error: topology single with 2 cores"
badm "programs/matmul.s - 6 torus2d:2x2 all halt -" "FILE:2:23: error: grid 2x2 is not 6 cores"
badm "programs/matmul.s - 4 cube all halt -" "FILE:2:23: error: topology \"cube\" is not single"
badm "programs/matmul.s - 1 single all stop -" "FILE:2:34: error: end \"stop\" is not halt or error:NAME"
badm "programs/matmul.s - 1 single all error:oops -" "FILE:2:34: error: end \"error:oops\""
badm "programs/matmul.s - 1 single all halt fast" "FILE:2:39: error: check \"fast\" is not"
badm "programs/matmul.s - 1 single all halt -
programs/matmul.s - 1 single tiny halt -" "FILE:3:1: error: run \"matmul\" again (line 2)"
got=$(MANIFEST="$work/bad-manifest.txt" bash -c '. sim/cosim/manifest.sh;
  printf "programs/matmul.s - 1 single all halt -\n" > "$MANIFEST"; manifest_check' 2>&1); rc=$?
if [ $rc -eq 2 ] && grep -q "error: programs/matmul_tile.s has no line" <<<"$got"; then
  ok "a program without a line: $(grep -m1 matmul_tile <<<"$got")"
else
  bad "a program without a line: exit $rc: $got"
fi
# A verdict: an expected error is not a halt, a halt is not an expected
# error, and the error must be the named one.
v() {  # v WANT(0|1) END HOW MSG
  local want=$1; shift
  manifest_verdict "$@" >/dev/null; local got=$?
  if [ "$got" = "$want" ]; then ok "manifest_verdict $1 $2: $got"
  else bad "manifest_verdict $*: $got, expected $want"; fi
}
v 0 halt halt ""
v 1 halt error "core 0: cycle 94: pc 89 (dma.ici 0, ...): ICI port 0 is not connected to a neighbour"
v 0 error:port error "core 0: cycle 94: pc 89 (dma.ici 0, ...): ICI port 0 is not connected to a neighbour"
v 1 error:deadlock error "core 0: cycle 94: pc 89 (dma.ici 0, ...): ICI port 0 is not connected to a neighbour"
v 1 error:port halt ""
v 1 error:port limit "cycle limit"
# The same on rtl-bench --program-status's exit and last line (its format:
# sim/rtl/rtl_bench.cpp), as run_tests.sh and run_mutants.sh judge a run.
bv() {  # bv WANT(0|1) END STATUS LOG
  local want=$1; shift
  manifest_bench_verdict "$@" >/dev/null; local got=$?
  if [ "$got" = "$want" ]; then ok "manifest_bench_verdict $1 $2 (${3:0:60}...): $got"
  else bad "manifest_bench_verdict $*: $got, expected $want"; fi
}
pcl="rtl-bench: w/err_pc.bin: both stopped: core 0: cycle 3: pc 1099511627776 (outside IMEM): pc 1099511627776 is outside IMEM (4096 words) at cycle 4: cycles, records, VMEM and HBM match the C model"
bv 0 error:pc 3 "$pcl"
bv 1 error:range 3 "$pcl"
bv 1 halt 3 "$pcl"
bv 0 halt 0 "rtl-bench2: w/ici.bin: halt after 389 cycles: cycles, records, VMEM and HBM match the C model"
bv 1 error:port 0 "rtl-bench2: w/ici.bin: halt after 389 cycles: cycles, records, VMEM and HBM match the C model"
bv 1 halt 3 "rtl-bench: w/x.bin: both stopped: cycle limit at cycle 2000000: cycles, records, VMEM and HBM match the C model"
bv 1 halt 1 "rtl-bench: w/x.bin: halt after 9 cycles: MISMATCH"
bv 1 error:pc 1 "rtl-bench: w/x.bin: error after 9 cycles: MISMATCH"
finish programs
