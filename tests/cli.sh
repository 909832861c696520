#!/usr/bin/env bash
# cli.sh BIN_DIR - check the commands' exit codes, --help and messages.
#   0 success, 1 error in the input, 2 bad command line; --help exits 0.
# Prints a TAP point per check (tests/checks.sh), then "cli: N passed, M
# failed"; exits non-zero on any failure.
# Other commands append their checks below the assembler's.
set -uo pipefail
bin=${1:?usage: cli.sh BIN_DIR}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "$0")/checks.sh"   # ok, bad, skip, run_check, finish: TAP
# need FILE: the command is built (make all builds every one), else a failed point
need() { [ -x "$1" ] && return 0; bad "$(basename "$1"): not built ($1)"; return 1; }

# ---- tpu-as -----------------------------------------------------------------
printf 'li s1, 5\nhalt\n' > "$tmp/good.s"
printf 'nop\nadd s1, s2\n' > "$tmp/bad.s"
run_check "tpu-as --help"          0 "usage: tpu-as.*--config.*" -- "$bin/tpu-as" --help
run_check "tpu-as --help options"  0 "--list"                   -- "$bin/tpu-as" --help
run_check "tpu-as bad option"      2 "unknown option '--frob'"  -- "$bin/tpu-as" --frob "$tmp/good.s"
run_check "tpu-as no input"        2 "no input file"            -- "$bin/tpu-as"
run_check "tpu-as -o no value"     2 "needs a value"            -- "$bin/tpu-as" "$tmp/good.s" -o
run_check "tpu-as bad -D"          2 "not a valid constant name" -- "$bin/tpu-as" -D 9x=1 "$tmp/good.s"
run_check "tpu-as bad --config"    2 "unknown preset"           -- "$bin/tpu-as" --config nosuch "$tmp/good.s"
run_check "tpu-as missing file"    1 "cannot read '$tmp/missing.s'" -- "$bin/tpu-as" "$tmp/missing.s"
run_check "tpu-as bad program"     1 "bad.s:2:1: error: 'add' takes 3 operands" -- "$bin/tpu-as" "$tmp/bad.s" -o "$tmp/bad.bin"
run_check "tpu-as good program"    0 "^$"                       -- "$bin/tpu-as" "$tmp/good.s"
run_check "tpu-as default output good.bin" 0 "^    li s1, 5 " -- "$bin/tpu-dis" "$tmp/good.bin"
run_check "tpu-as --list"          0 "text 0x00000000  [0-9a-f]{16}  li s1, 5" -- "$bin/tpu-as" --list "$tmp/good.s" -o "$tmp/l.bin"
run_check "tpu-as -D and --config" 0 "^$"                       -- "$bin/tpu-as" --config tiny -D N=3 "$tmp/good.s" -o "$tmp/c.bin"
run_check "tpu-as --config tiny: the object" 0 "^\.target 8, 1, 8, 8$" -- "$bin/tpu-dis" "$tmp/c.bin"
run_check "tpu-as stdin"           0 "^$"                       -- bash -c "printf 'halt\n' | '$bin/tpu-as' - -o '$tmp/stdin.bin'"
run_check "tpu-as stdin: the object" 0 "^    halt  "            -- "$bin/tpu-dis" "$tmp/stdin.bin"

# .include: next to the including file, then -I; messages name the included file's lines
mkdir -p "$tmp/inc/sub" "$tmp/incdir"
printf '        .equ X, 3\n        .include "sub/b.inc"\n        .include "lib.inc"\n        halt\n' > "$tmp/inc/top.s"
printf '        addi s2, s2, X\n        .include "c.inc"\n' > "$tmp/inc/sub/b.inc"
printf '        li s3, 5\n' > "$tmp/inc/sub/c.inc"
printf '        li s4, 6\n' > "$tmp/incdir/lib.inc"
run_check "tpu-as .include -I"       0 "li s3, 5"  -- "$bin/tpu-as" -I "$tmp/incdir" --list "$tmp/inc/top.s" -o "$tmp/inc.bin"
run_check "tpu-as .include not found" 1 "top.s:3:18: error: cannot find 'lib.inc' \(looked next to .*top.s\)" -- "$bin/tpu-as" "$tmp/inc/top.s" -o "$tmp/inc.bin"
printf '        li s3\n' > "$tmp/inc/sub/c.inc"
run_check "tpu-as error in included" 1 "sub/c.inc:1:9: error: 'li' takes 2 operands" -- "$bin/tpu-as" -I "$tmp/incdir" "$tmp/inc/top.s" -o "$tmp/inc.bin"
printf '        .include "b.inc"\n' > "$tmp/inc/sub/c.inc"
run_check "tpu-as .include cycle"    1 "sub/c.inc:1:18: error: '.*sub/b.inc' includes itself" -- "$bin/tpu-as" -I "$tmp/incdir" "$tmp/inc/top.s" -o "$tmp/inc.bin"
printf 'x: .include "c.inc"\n halt\n' > "$tmp/inc/sub/lbl.s"
run_check "tpu-as .include label"    1 "lbl.s:1:4: error: '.include' must be alone on its line" -- "$bin/tpu-as" "$tmp/inc/sub/lbl.s" -o "$tmp/inc.bin"
printf ' .include "/dev/null"\n halt\n' > "$tmp/inc/dev.s"
run_check "tpu-as .include device"   1 "dev.s:1:11: error: cannot read '/dev/null': not a regular file" -- "$bin/tpu-as" "$tmp/inc/dev.s" -o "$tmp/inc.bin"
for i in $(seq 1 17); do printf ' .include "n%d.inc"\n' $((i + 1)) > "$tmp/inc/n$i.inc"; done
printf ' li s1, 1\n' > "$tmp/inc/n18.inc"
printf ' .include "n1.inc"\n halt\n' > "$tmp/inc/deep.s"
run_check "tpu-as .include too deep" 1 "n16.inc:1:11: error: '.include' nested too deeply \(at most 16 levels\)" -- "$bin/tpu-as" "$tmp/inc/deep.s" -o "$tmp/inc.bin"
run_check "tpu-as -I no value"       2 "needs a value" -- "$bin/tpu-as" "$tmp/good.s" -I

# ---- tpu-dis ----------------------------------------------------------------
if need "$bin/tpu-dis"; then
  run_check "tpu-dis --help"       0 "usage"                    -- "$bin/tpu-dis" --help
  run_check "tpu-dis bad option"   2 "unknown option '--frob'"                         -- "$bin/tpu-dis" --frob "$tmp/good.bin"
  run_check "tpu-dis missing file" 1 "missing.bin"              -- "$bin/tpu-dis" "$tmp/missing.bin"
fi

# ---- tpu-isagen --------------------------------------------------------------
if need "$bin/tpu-isagen"; then
  run_check "tpu-isagen --help"      0 "--rtl-doc FILE"           -- "$bin/tpu-isagen" --help
  run_check "tpu-isagen bad option"  2 "unknown option '--frob'"  -- "$bin/tpu-isagen" --frob
  run_check "tpu-isagen no option"   2 "give exactly one of"      -- "$bin/tpu-isagen"
  run_check "tpu-isagen --queue"     0 "define TPU_QE_BITS 576"   -- "$bin/tpu-isagen" --queue
  run_check "tpu-isagen doc missing" 1 "missing.md: No such file" -- "$bin/tpu-isagen" --rtl-doc "$tmp/missing.md"
  printf 'x\n<!-- tpu-isagen: trace ports -->\nold\n' > "$tmp/open.md"
  run_check "tpu-isagen doc unended" 1 "open.md:3: error: no '<!-- end of tpu-isagen: trace ports -->'" \
    -- "$bin/tpu-isagen" --rtl-doc "$tmp/open.md"
  printf '<!-- tpu-isagen: trace ports -->\nold\n<!-- end of tpu-isagen: trace ports -->\n' > "$tmp/half.md"
  run_check "tpu-isagen doc no queue" 1 "no '<!-- tpu-isagen: queue entry -->' line" \
    -- "$bin/tpu-isagen" --rtl-doc "$tmp/half.md"
fi

# ---- tpu-mutate -----------------------------------------------------------------
if need "$bin/tpu-mutate"; then
  run_check "tpu-mutate --help"      0 "\+mutant=ID"              -- "$bin/tpu-mutate" --help
  run_check "tpu-mutate no option"   2 "give --list"              -- "$bin/tpu-mutate"
  run_check "tpu-mutate bad option"  2 "unknown option '--frob'"  -- "$bin/tpu-mutate" --frob
  run_check "tpu-mutate --check"     0 "mutants apply to rtl"     -- "$bin/tpu-mutate" --check
  run_check "tpu-mutate --list"      0 "^1 +seq"                  -- "$bin/tpu-mutate" --list
  run_check "tpu-mutate no rtl dir"  1 "$tmp/nortl: No such file" -- "$bin/tpu-mutate" --check --rtl "$tmp/nortl"
  mkdir -p "$tmp/rtl2" && cp rtl/*.v rtl/*.vh rtl/*.vlt "$tmp/rtl2/" 2>/dev/null
  sed -i 's/OP_BLT:  if/OP_BLT: if/' "$tmp/rtl2/seq.v"
  run_check "tpu-mutate drifted rtl" 1 "mutant 1: 'OP_BLT:  if' is on 0 lines" -- "$bin/tpu-mutate" --check --rtl "$tmp/rtl2"
  run_check "tpu-mutate -o"          0 "^$"                       -- "$bin/tpu-mutate" -o "$tmp/mut" --rtl rtl
  if grep -q 'tpu_mutant == 1) ? (\$signed(x) <= \$signed(a)) : (\$signed(x) < \$signed(a))' "$tmp/mut/seq.v" \
     && grep -q 'value\$plusargs("mutant=%d", tpu_mutant)' "$tmp/mut/seq.v"; then
    ok "tpu-mutate -o: mutant 1 and the plusarg in seq.v"
  else
    bad "tpu-mutate -o: mutant 1 or the plusarg not in seq.v"
  fi
  # a mutated header (fp32_add.vh, mutant 51) is mutated in place and gets
  # no declaration; the modules that include it (fp32_add.v) declare
  # tpu_mutant once; the package that includes it (mxu_mac_pkg.vh) declares
  # its own and loses its no_inline_task, and a module that includes only
  # that package (mxu_mac.v) declares none; nor does a module with no
  # mutant and no mutated header (system.v)
  if grep -q 'tpu_mutant == 51) ?' "$tmp/mut/fp32_add.vh" \
     && ! grep -q 'int unsigned tpu_mutant' "$tmp/mut/fp32_add.vh" \
     && [ "$(grep -c 'int unsigned tpu_mutant' "$tmp/mut/fp32_add.v")" = 1 ] \
     && [ "$(grep -c 'int unsigned tpu_mutant = ' "$tmp/mut/mxu_mac_pkg.vh")" = 1 ] \
     && ! grep -qF '/*verilator no_inline_task*/' "$tmp/mut/mxu_mac_pkg.vh" \
     && ! grep -q 'int unsigned tpu_mutant' "$tmp/mut/mxu_mac.v" \
     && ! grep -q 'int unsigned tpu_mutant' "$tmp/mut/system.v"; then
    ok "tpu-mutate -o: the mutated header's includers declare tpu_mutant once"
  else
    bad "tpu-mutate -o: the mutated header's includers do not declare tpu_mutant once"
  fi
fi

# ---- tpu-sim and tpu-bench (block added by the tpu-sim engineer) -------------
# Exit codes: 0 halted and bit-exact (or no .expect), 1 result differs or
# cannot be checked, 2 bad command line/config, 3 not loaded or did not halt.
if need "$bin/tpu-sim"; then
  as() { "$bin/tpu-as" --config tiny -o "$tmp/$1.bin" "$tmp/$1.s" >/dev/null 2>&1; }
  printf 'halt\n' > "$tmp/sim_ok.s"
  printf '  .vmem 0\nv: .f32 1.5\n  .text\nhalt\n  .expect f32 v, bits(0x3fc00000)\n' > "$tmp/sim_pass.s"
  printf '  .vmem 0\nv: .f32 1.5, 2\n  .text\nhalt\n  .expect f32 v, bits(0x3fc00000), bits(0x40000001)\n' > "$tmp/sim_mis.s"
  printf 'halt\n  .expect copy vmem(0x3fff0), hbm(0), 0x100\n' > "$tmp/sim_experr.s"
  printf 'sem.wait 0, 1\nhalt\n' > "$tmp/sim_dead.s"
  printf 'loop: beq zero, zero, loop\n' > "$tmp/sim_loop.s"
  printf '.insn 0\n' > "$tmp/sim_ill.s"
  for p in sim_ok sim_pass sim_mis sim_experr sim_dead sim_loop sim_ill; do as $p; done
  echo garbage > "$tmp/sim_garbage.bin"
  "$bin/tpu-as" --config v5e -o "$tmp/sim_v5e.bin" "$tmp/sim_ok.s" >/dev/null 2>&1
  s=$bin/tpu-sim
  run_check "tpu-sim --help"          0 "usage: tpu-sim.*"            -- "$s" --help
  run_check "tpu-sim --help options"  0 "--max-cycles"                -- "$s" --help
  run_check "tpu-sim bad option"      2 "unknown option '--frob'"     -- "$s" --frob "$tmp/sim_ok.bin"
  run_check "tpu-sim no program"      2 "no program given"            -- "$s"
  run_check "tpu-sim two programs"    2 "only one program"            -- "$s" "$tmp/sim_ok.bin" "$tmp/sim_ok.bin"
  run_check "tpu-sim no value"        2 "needs a value"               -- "$s" "$tmp/sim_ok.bin" --config
  run_check "tpu-sim bad --config"    2 "unknown preset"              -- "$s" --config nosuch "$tmp/sim_ok.bin"
  run_check "tpu-sim bad --set"       2 "unknown key 'nokey'"         -- "$s" --set nokey=1 "$tmp/sim_ok.bin"
  run_check "tpu-sim bad --cores"     2 "--cores wants"               -- "$s" --cores 0 "$tmp/sim_ok.bin"
  run_check "tpu-sim bad --topology"  2 "ring, torus2d, mesh2d or torus3d" -- "$s" --cores 2 --topology star "$tmp/sim_ok.bin"
  run_check "tpu-sim grid mismatch"   2 "does not match --cores"      -- "$s" --cores 4 --topology torus2d --grid 3x2 "$tmp/sim_ok.bin"
  run_check "tpu-sim bad --max-cycles" 2 "--max-cycles wants"         -- "$s" --max-cycles -1 "$tmp/sim_ok.bin"
  run_check "tpu-sim no expect"       0 "^result: nothing to check"   -- "$s" "$tmp/sim_ok.bin"
  run_check "tpu-sim bit-exact"       0 "^result: bit-exact$"         -- "$s" "$tmp/sim_pass.bin"
  run_check "tpu-sim report lines"    0 "^bound +neither \(no MXU work" -- "$s" "$tmp/sim_pass.bin"
  run_check "tpu-sim --quiet"         0 "^result: bit-exact$"         -- "$s" --quiet "$tmp/sim_pass.bin"
  run_check "tpu-sim --json"          0 '"cycles": [0-9]+, .*"bound": .*"result": "bit-exact"' -- "$s" --json "$tmp/sim_pass.bin"
  run_check "tpu-sim mismatch"        1 "^result: MISMATCH in f32 ADDR \(vmem 0x0\) at \[1\]: expected 0x40000001 \(2.00000024\), got 0x40000000 \(2\)$" -- "$s" "$tmp/sim_mis.bin"
  run_check "tpu-sim cannot check"    1 "result: cannot check: .expect #1 \(copy\): DST .* is outside VMEM" -- "$s" "$tmp/sim_experr.bin"
  run_check "tpu-sim deadlock"        3 "^tpu-sim: error: core 0: cycle 0: pc 0 \(sem.wait 0, 1\): deadlock" -- "$s" "$tmp/sim_dead.bin"
  run_check "tpu-sim cycle limit"     3 "^tpu-sim: error: .*cycle limit" -- "$s" --max-cycles 1e3 "$tmp/sim_loop.bin"
  run_check "tpu-sim illegal insn"    3 "^tpu-sim: error: core 0: cycle 0: pc 0 .*illegal instruction" -- "$s" "$tmp/sim_ill.bin"
  run_check "tpu-sim not halted"      3 "^result: not checked"        -- "$s" --quiet "$tmp/sim_ill.bin"
  run_check "tpu-sim missing file"    3 "tpu-sim: error: .*missing.bin" -- "$s" "$tmp/missing.bin"
  run_check "tpu-sim bad object"      3 "tpu-sim: error: .*sim_garbage.bin: bad magic" -- "$s" "$tmp/sim_garbage.bin"
  run_check "tpu-sim wrong machine"   3 "assembled for mxu_n = 128"   -- "$s" --config tiny "$tmp/sim_v5e.bin"
  run_check "tpu-sim preset by shape" 0 "machine +v5e: "              -- "$s" "$tmp/sim_v5e.bin"
  run_check "tpu-sim two cores"       0 "== total \(2 cores\)"        -- "$s" --cores 2 "$tmp/sim_pass.bin"
  run_check "tpu-sim torus grid"      0 "4 cores \(torus2d 2x2\)"     -- "$s" --grid 2x2 --topology torus2d "$tmp/sim_pass.bin"
  run_check "tpu-sim --html"          0 "^result: bit-exact$"         -- "$s" --quiet --html "$tmp/p.html" "$tmp/sim_pass.bin"
  if tail -n 1 "$tmp/p.html" 2>/dev/null | grep -q '^</html>$'; then ok "tpu-sim --html: a whole page"; else bad "tpu-sim --html: no whole page"; fi
  run_check "tpu-sim --html-cycles"   0 "^result: bit-exact$"         -- "$s" --quiet --html "$tmp/p.html" --html-cycles 0:1 "$tmp/sim_pass.bin"
  run_check "tpu-sim --html-cycles A:" 0 "^result: bit-exact$"        -- "$s" --quiet --html "$tmp/p.html" --html-cycles=1: "$tmp/sim_pass.bin"
  run_check "tpu-sim --html past end" 0 "p.html has no cycle: the run ended after 1 cycle, before --html-cycles 5:9" \
                                                                   -- "$s" --quiet --html "$tmp/p.html" --html-cycles 5:9 "$tmp/sim_pass.bin"
  run_check "tpu-sim bad --html-cycles" 2 "--html-cycles wants A:B, cycles A to B-1 with A < B .*not 'x'" \
                                                                   -- "$s" --html "$tmp/p.html" --html-cycles x "$tmp/sim_ok.bin"
  run_check "tpu-sim --html-cycles B<A" 2 "--html-cycles wants A:B.*not '10:5'" -- "$s" --html "$tmp/p.html" --html-cycles 10:5 "$tmp/sim_ok.bin"
  run_check "tpu-sim --html-cycles :"  2 "--html-cycles wants A:B.*not ':'" -- "$s" --html "$tmp/p.html" --html-cycles : "$tmp/sim_ok.bin"
  run_check "tpu-sim --html-cycles alone" 2 "--html-cycles needs --html FILE" -- "$s" --html-cycles 0:10 "$tmp/sim_ok.bin"
  run_check "tpu-sim --html --step"   2 "cannot be used with --step"  -- "$s" --html "$tmp/p.html" --step "$tmp/sim_ok.bin"
  run_check "tpu-sim --html no value" 2 "option '--html' needs a value" -- "$s" "$tmp/sim_ok.bin" --html
  run_check "tpu-sim --html bad path" 2 "tpu-sim: error: $tmp/no/p.html: No such file or directory" \
                                                                   -- "$s" --html "$tmp/no/p.html" "$tmp/sim_ok.bin"
fi
if need "$bin/tpu-bench"; then
  run_check "tpu-bench --help"        0 "usage: tpu-bench row"        -- "$bin/tpu-bench" --help
  run_check "tpu-bench no benchmark"  2 "which benchmark"             -- "$bin/tpu-bench"
  run_check "tpu-bench bad benchmark" 2 "unknown benchmark 'frob'"    -- "$bin/tpu-bench" frob
  run_check "tpu-bench bad --n"       2 "--n wants"                   -- "$bin/tpu-bench" row --n 0
  run_check "tpu-bench row"           0 "tpu_ref_row_tile n=8: .* MACs per host second" -- "$bin/tpu-bench" row --n 8 --seconds 0.05
  run_check "tpu-bench kernel"        0 "^MXU kernel: (soft|sse2|avx2|avx2-fma|avx512-fma)$" -- "$bin/tpu-bench" row --n 8 --seconds 0.01
  run_check "tpu-bench TPU_REF_KERNEL" 0 "^MXU kernel: soft$"         -- env TPU_REF_KERNEL=soft "$bin/tpu-bench" row --n 8 --seconds 0.01
  run_check "tpu-bench bad TPU_REF_KERNEL" 2 "TPU_REF_KERNEL=frob: no such kernel" -- env TPU_REF_KERNEL=frob "$bin/tpu-bench" row --n 8
  run_check "tpu-bench run"           0 "cycles/s, .* MACs/s; max RSS" -- "$bin/tpu-bench" run --config tiny "$tmp/sim_pass.bin"
  run_check "tpu-bench run failure"   1 "deadlock"                    -- "$bin/tpu-bench" run --config tiny "$tmp/sim_dead.bin"
  run_check "tpu-bench run --repeat"  0 "sim_pass.bin on tiny x 3: 3 cycles" -- "$bin/tpu-bench" run --config tiny --repeat 3 "$tmp/sim_pass.bin"
  run_check "tpu-bench bad --repeat"  2 "--repeat wants"              -- "$bin/tpu-bench" run --repeat 0 "$tmp/sim_pass.bin"
fi

finish cli
