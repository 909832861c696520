#!/usr/bin/env bash
# races.sh BIN_DIR WORK_DIR - tpu-sim --check-races (sim/view/races.c,
# docs/tpu-sim.md "Races"):
#   - each seeded race of tests/races/ (one per kind: a read before the
#     copy-in, an overwrite before the read, a read before the result; an
#     ICI copy read too early, an inbox overwritten by ICI before it was
#     copied out) is reported once, with its cycle, both instructions and
#     the bytes, in text and in --json, and exits 4; with the missing
#     sem.wait added, none is;
#   - the stepper: `races on` (and --step --check-races) stops at the race
#     like a breakpoint, `races` lists it, the session exits 4;
#   - no race, and no access the checker cannot place, on every example
#     program with the -D values, configs and cores of tests/programs.sh,
#     collectives.sh, int8.sh and the labs' reference solutions.
set -uo pipefail
bin=${1:?usage: races.sh BIN_DIR WORK_DIR}
work=${2:?usage: races.sh BIN_DIR WORK_DIR}
mkdir -p "$work"
source "$(dirname "$0")/checks.sh"   # ok, bad, skip, finish: TAP (tests/README.md)

# clean NAME CONFIG PROGRAM "asm options" "sim options": no race, exit 0
clean() {
  local name=$1 config=$2 prog=$3 asopts=$4 simopts=$5 obj="$work/$1.bin" out="$work/$1.out"
  # shellcheck disable=SC2086
  if ! "$bin/tpu-as" --config "$config" $asopts -o "$obj" "$prog" 2>"$work/$name.err"; then
    bad "$name: tpu-as: $(head -n 1 "$work/$name.err")"; return
  fi
  # shellcheck disable=SC2086
  "$bin/tpu-sim" --config "$config" $simopts --check-races --quiet "$obj" >"$out" 2>"$work/$name.err"
  local rc=$?
  if [ $rc -eq 0 ] && grep -qx 'races: none' "$out" && ! [ -s "$work/$name.err" ]; then
    ok "$name: no race, $(tail -n 1 "$out")"
  else
    bad "$name: exit $rc: $(head -n 2 "$out" | tr '\n' ' ') $(head -n 1 "$work/$name.err")"
  fi
}

# seeded NAME "sim options" LINE: exactly one race, this line, exit 4
seeded() {
  local name=$1 simopts=$2 want=$3 obj="$work/$1.bin" out="$work/$1.out"
  if ! "$bin/tpu-as" --config tiny -o "$obj" "tests/races/$name.s" 2>"$work/$name.err"; then
    bad "$name: tpu-as: $(head -n 1 "$work/$name.err")"; return
  fi
  # shellcheck disable=SC2086
  "$bin/tpu-sim" $simopts --check-races --quiet "$obj" >"$out" 2>"$work/$name.err"
  local rc=$? got
  got=$(grep '^race ' "$out")
  if [ $rc -eq 4 ] && [ "$got" = "$want" ] && grep -qx 'races: 1' "$out" && ! [ -s "$work/$name.err" ]; then
    ok "$name: exit 4, $want"
  else
    bad "$name: exit $rc, got '$got' $(head -n 1 "$work/$name.err"), want '$want'"
  fi
}

# ---- one seeded race of each kind ---------------------------------------------------
seeded race_a "" "race (a) read before copy-in: cycle 44: vmem 0x0..0x3f: mxu0 pc 15 (mxu.mm 0, s9, s6, s10, s5, s11, 3) read it before dma pc 11 (dma.h2v s6, s7, s3, s8, zero, zero, 2) wrote it (in 4 cycles, the last 47)"
seeded race_b "" "race (b) overwrite before read: cycle 33: vmem 0x3e0..0x3ff: dma pc 12 (dma.h2v s7, s8, s9, s10, zero, zero, 2) wrote it before mxu0 pc 7 (mxu.mm 0, s3, s4, s5, s2, s6, 1) read it (in 2 cycles, the last 34)"
seeded race_c "" "race (c) read before result: cycle 33: vmem 0xc00..0xc7f: dma pc 12 (dma.v2h s7, s8, s9, s10, zero, zero, 2) read it before mxu0 pc 7 (mxu.mm 0, s3, s4, s5, s2, s6, 1) wrote it (in 8 cycles, the last 40)"
seeded race_ici "--cores 2" "race (a) read before copy-in: core 1: cycle 5: vmem 0x100..0x1ff: vpu core 1 pc 10 (vld v0, s1, 0) read it before ici from core 0 pc 4 (dma.ici 0, s1, s2, s3, 0, 1) wrote it"

# an inbox copied out while a neighbour's dma.ici fills it: (b) where the
# incoming bytes landed first, (a) where the copy read first
"$bin/tpu-as" --config tiny -o "$work/race_ici_b.bin" tests/races/race_ici_b.s 2>"$work/race_ici_b.err"
"$bin/tpu-sim" --cores 2 --check-races --quiet "$work/race_ici_b.bin" >"$work/race_ici_b.out" 2>>"$work/race_ici_b.err"; rc=$?
cat >"$work/race_ici_b.want" <<'OUT'
race (b) overwrite before read: core 1: cycle 15: vmem 0x100..0x137: ici from core 0 pc 4 (dma.ici 0, s1, s2, s3, 0, 1) wrote it before dma core 1 pc 11 (dma.v2h s2, s1, s3, s4, zero, zero, 2) read it (in 14 cycles, the last 28)
race (a) read before copy-in: core 1: cycle 29: vmem 0x138..0x1ff: dma core 1 pc 11 (dma.v2h s2, s1, s3, s4, zero, zero, 2) read it before ici from core 0 pc 4 (dma.ici 0, s1, s2, s3, 0, 1) wrote it (in 13 cycles, the last 41)
races: 2
result: nothing to check (no .expect records)
OUT
if [ $rc -eq 4 ] && cmp -s "$work/race_ici_b.want" "$work/race_ici_b.out" && ! [ -s "$work/race_ici_b.err" ]; then
  ok "race_ici_b: exit 4, (b) on the 56 bytes landed first, (a) on the 200 read first"
else bad "race_ici_b: exit $rc; $(diff "$work/race_ici_b.want" "$work/race_ici_b.out" | head -n 6)"; fi

# the same races fixed by the sem.wait they lack: none, exit 0
fix() {  # fix NAME "sed script" "sim options"
  sed "$2" "tests/races/$1.s" >"$work/$1-fixed.s"
  if cmp -s "tests/races/$1.s" "$work/$1-fixed.s"; then bad "$1-fixed: the fix did not apply"; return; fi
  clean "$1-fixed" tiny "$work/$1-fixed.s" "" "$3"
}
fix race_a 's/^\(        li      s9, Y \).*/        sem.wait 2, 1\n\1/; s/^        sem.wait 2, 1$//' ""
fix race_b 's/^\(        dma.h2v s7, .*\)/        sem.wait 1, 1\n\1/; s/^        sem.wait 1, 1$//' ""
fix race_c 's/^\(        dma.v2h s7, .*\)/        sem.wait 1, 1\n\1/; s/^        sem.wait 1, 1$//' ""
fix race_ici 's/^\(        vld     v0, s1, 0\).*/        sem.wait 1, 1\n\1/; s/^        sem.wait 1, 1$//' "--cores 2"

# --json: the fields, the race's numbers and texts
"$bin/tpu-sim" --check-races --json "$work/race_c.bin" >"$work/race_c.json" 2>/dev/null; rc=$?
if [ $rc -eq 4 ] && python3 - "$work/race_c.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
r = d["race_list"][0]
assert d["races"] == 1 and d["races_dropped"] == 0 and d["result"] == "none", d
assert (r["kind"], r["core"], r["cycle"], r["last_cycle"], r["cycles"]) == ("c", 0, 33, 40, 8), r
assert (r["vmem_lo"], r["vmem_hi"]) == (0xc00, 0xc7f), r
assert r["reader"] == {"core": 0, "unit": "dma", "pc": 12, "issued": 12, "incoming": False,
                       "insn": "dma.v2h s7, s8, s9, s10, zero, zero, 2"}, r["reader"]
assert r["writer"]["unit"] == "mxu0" and r["writer"]["pc"] == 7 and r["writer"]["issued"] == 7, r
assert r["text"].startswith("race (c) read before result: cycle 33: vmem 0xc00..0xc7f"), r
PY
then ok "race_c --json: exit 4, races 1, kind c, cycles 33..40, vmem 0xc00..0xc7f, both instructions"
else bad "race_c --json: exit $rc, $(head -c 300 "$work/race_c.json")"; fi

# ---- the stepper ------------------------------------------------------------------------
printf 'races\nraces on\ncontinue\nraces\ncontinue\nquit\n' \
  | "$bin/tpu-sim" --step --echo "$work/race_a.bin" >"$work/step_a.out" 2>&1; rc=$?
cat >"$work/step_a.want" <<'OUT'
(tpu) races
error: the race checker is off (races on)
(tpu) races on
checking races
(tpu) continue
race (a) read before copy-in: cycle 44: vmem 0x0..0xf: mxu0 pc 15 (mxu.mm 0, s9, s6, s10, s5, s11, 3) read it before dma pc 11 (dma.h2v s6, s7, s3, s8, zero, zero, 2) wrote it
cycle 44: stalled at pc 16: sem.wait 3, 1 (sem.wait: sem 3)
(tpu) races
race (a) read before copy-in: cycle 44: vmem 0x0..0xf: mxu0 pc 15 (mxu.mm 0, s9, s6, s10, s5, s11, 3) read it before dma pc 11 (dma.h2v s6, s7, s3, s8, zero, zero, 2) wrote it
races: 1
(tpu) continue
cycle 66: issued pc 18: halt
the program halted after 67 cycles; result: nothing to check (no .expect records)
(tpu) quit
OUT
if [ $rc -eq 4 ] && diff -u "$work/step_a.want" "$work/step_a.out" >"$work/step_a.diff"; then
  ok "stepper: races on stops at the race in cycle 44 like a breakpoint (one row), races lists it, exit 4"
else bad "stepper race_a: exit $rc; $(head -n 20 "$work/step_a.diff")"; fi
printf 'continue\nraces off\ncontinue\n' | "$bin/tpu-sim" --step --check-races "$work/race_b.bin" >"$work/step_b.out" 2>&1; rc=$?
if [ $rc -eq 4 ] && [ "$(grep -c '^race (b)' "$work/step_b.out")" = 1 ] \
   && grep -q '^race (b) overwrite before read: cycle 33: vmem 0x3e0..0x3ef: dma pc 12' "$work/step_b.out" \
   && grep -q '^the program halted after' "$work/step_b.out"; then
  ok "stepper --check-races: stops at cycle 33 with the first row's bytes, races off runs on, exit 4"
else bad "stepper race_b: exit $rc; $(head -n 5 "$work/step_b.out")"; fi

# ---- no race in the shipped programs ---------------------------------------------
# tests/programs.sh
clean matmul_tile-tiny  tiny programs/matmul_tile.s  ""                        ""
clean matmul-tiny       tiny programs/matmul.s       ""                        ""
clean matmul-tiny-sweep tiny programs/matmul.s       "-D B=32 -D D=64 -D F=64" ""
clean matmul-mid        mid  programs/matmul.s       "-D B=16 -D D=48 -D F=64" ""
for op in 0 1 2; do clean "pointwise$op-tiny" tiny programs/pointwise.s "-D OP=$op" ""; done
clean ici-ring          tiny programs/ici_exchange.s ""                        "--cores 2"
clean matmul-v5e-b64    v5e  programs/matmul.s       "-D B=64 -D D=4096 -D F=4096" ""
clean add-v5e           v5e  programs/pointwise.s    "-D OP=0 -D NCHUNK=16"    ""
clean relu-v5e          v5e  programs/pointwise.s    "-D OP=2 -D NCHUNK=16"    ""
clean tutorial_4x4      programs/tut4.cfg programs/tutorial_4x4.s ""          ""
# tests/int8.sh
clean i8-tiny  tiny programs/matmul_i8.s "" ""
clean i8-mid   mid  programs/matmul_i8.s "-D B=20 -D D=96 -D F=64" ""
clean w8-tiny  tiny programs/matmul_w8.s "" ""
clean w8-mid   mid  programs/matmul_w8.s "-D B=24 -D D=48 -D F=64" ""
for m in 0 1 2; do
  clean "sweep-mode$m-tiny" tiny programs/matmul_sweep.s "-D MODE=$m -D B=40 -D D=64 -D F=64 -D REPS=3" ""
  clean "sweep-mode$m-xy"   mid  programs/matmul_sweep.s "-D MODE=$m -D XYVMEM=1 -D B=24 -D D=64 -D F=64 -D REPS=2" ""
done
# tests/collectives.sh (a sample of every program and shape)
for k in 1 2 3 5 8; do
  clean "ag-ring$k"  tiny programs/allgather.s     "-D K=$k" "--cores $k"
  clean "rs-ring$k"  tiny programs/reducescatter.s "-D K=$k" "--cores $k"
  clean "ar-ring$k"  tiny programs/allreduce.s     "-D K=$k" "--cores $k"
  clean "a2a-ring$k" tiny programs/alltoall.s      "-D K=$k" "--cores $k"
done
clean ar-ring5-pieces tiny programs/allreduce.s "-D K=5 -D CHUNK=2048 -D LIB_PIECE=256" "--cores 5"
clean ag-ring5-pieces tiny programs/allgather.s "-D K=5 -D SHARD=2048 -D LIB_PIECE=256" "--cores 5"
for g in 2x3 4x4; do
  r=${g%x*}; c=${g#*x}; n=$((r * c))
  clean "ag-torus$g"  tiny programs/allgather.s     "-D R=$r -D C=$c" "--cores $n --topology torus2d --grid $g"
  clean "ar-torus$g"  tiny programs/allreduce.s     "-D R=$r -D C=$c" "--cores $n --topology torus2d --grid $g"
  clean "a2a-torus$g" tiny programs/alltoall.s      "-D R=$r -D C=$c" "--cores $n --topology torus2d --grid $g"
done
clean rs-mesh2x3   tiny programs/reducescatter.s "-D R=2 -D C=3 -D WRAP=0" "--cores 6 --topology mesh2d --grid 2x3"
clean ag-whole-torus3x4 tiny programs/allgather.s "-D R=3 -D C=4 -D WHOLE=1" "--cores 12 --topology torus2d --grid 3x4"
clean ag-both-torus3x3  tiny programs/allgather.s "-D R=3 -D C=3 -D BOTH=1" "--cores 9 --topology torus2d --grid 3x3"
clean ar-both-torus2x3  tiny programs/allreduce.s "-D R=2 -D C=3 -D BOTH=1" "--cores 6 --topology torus2d --grid 2x3"
clean ar-both-torus3x2-pieces tiny programs/allreduce.s "-D R=3 -D C=2 -D BOTH=1 -D CHUNK=2048 -D LIB_PIECE=256" "--cores 6 --topology torus2d --grid 3x2"
clean a2a-mesh1x6-wide tiny programs/alltoall.s "-D R=1 -D C=6 -D WRAP=0 -D CH=1024" "--cores 6 --topology mesh2d --grid 1x6"
clean matmul2chip-tiny     tiny programs/matmul_2chip.s "-D F=64 -D D=32" "--cores 2"
clean matmul2chip-tiny-b24 tiny programs/matmul_2chip.s "-D B=24 -D F=128 -D D=64" "--cores 2"
for k in 1 2 4; do clean "mc-ring$k" tiny programs/matmul_collective.s "-D K=$k" "--cores $k"; done
clean mc-ring4-b     tiny programs/matmul_collective.s "-D K=4 -D OVERLAP=0" "--cores 4"
clean mc-ring3-wide  tiny programs/matmul_collective.s "-D K=3 -D B=16 -D D=96 -D F=48" "--cores 3"
# the labs' reference solutions, with the grader's machines and sizes (sim/lab/lab0N.c)
S=programs/labs/solutions
clean lab02-tiny tiny $S/02-pointwise.s "-D NELEM=65536"  "--set hbm_latency=400"
clean lab02-mid  mid  $S/02-pointwise.s "-D NELEM=131072" "--set hbm_latency=400"
clean lab03-small programs/labs/03-tiny32k.cfg $S/03-tiling.s "-D B=16 -D D=16 -D F=16" ""
clean lab03-large programs/labs/03-tiny32k.cfg $S/03-tiling.s "-D B=128 -D D=256 -D F=64" ""
clean lab04 tiny $S/04-double-buffer.s "" ""

# ---- after the sweep: matmul.s in --json and in the stepper
"$bin/tpu-sim" --check-races --json "$work/matmul-tiny.bin" >"$work/clean.json" 2>/dev/null; rc=$?
if [ $rc -eq 0 ] && grep -q '"races": 0, "races_dropped": 0, "race_list": \[\]}$' "$work/clean.json"; then
  ok "matmul --json: \"races\": 0, an empty race_list"
else bad "matmul --json: exit $rc, $(tail -c 200 "$work/clean.json")"; fi
printf 'races on\ncontinue\n' | "$bin/tpu-sim" --step "$work/matmul-tiny.bin" >"$work/step_mm.out" 2>&1; rc=$?
if [ $rc -eq 0 ] && ! grep -q '^race' "$work/step_mm.out" && grep -q 'result: bit-exact' "$work/step_mm.out"; then
  ok "stepper: races on over matmul.s: no race, runs to halt, exit 0"
else bad "stepper matmul: exit $rc; $(tail -n 3 "$work/step_mm.out")"; fi

finish races
