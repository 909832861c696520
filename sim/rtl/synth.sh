#!/usr/bin/env bash
# synth.sh OUT_DIR - synthesise the core with Yosys and report cells per unit
# (docs/rtl.md "Synthesis").  OUT_DIR holds tpu_cfg.vh (the tiny config with
# a 4 KiB VMEM and HBM: only their address widths change).
#
#   1. core with the VMEM storage and the HBM storage as black boxes (a
#      memory macro and the simulation's storage); IMEM stays a memory cell
#      (attribute tpu_macro), every other memory becomes flops;
#      synth -run begin:fine, memory_map, techmap, abc -fast; check; no
#      latches.
#   2. vmem on its own: its arbiter and port logic as gates, the storage as
#      memory read and write ports; no latches.
#   3. system (two cores and their links) elaborated and processed: Yosys
#      accepts it and finds no latch (its cells are twice the core's).
# Writes OUT_DIR/core.log, vmem.log, stat files and report.txt, prints the
# report.  Exits non-zero when Yosys fails or finds a latch.
set -euo pipefail
out=${1:?usage: synth.sh OUT_DIR}
yosys=${YOSYS:-yosys}
cd "$(dirname "$0")/../.."
srcs=$(ls rtl/*.v | grep -v '^rtl/system\.v$' | tr '\n' ' ')
latches='t:$dlatch t:$adlatch t:$dlatchsr t:$_DLATCH_* t:$_DLATCHSR_*'

"$yosys" -q -w "Replacing memory" -l "$out/core.log" -p "
read_verilog -sv -DSYNTHESIS -Irtl -I$out $srcs
blackbox hbm_mem vmem
synth -top core -run begin:fine
select -assert-none $latches
opt -fast -full
memory_map -attr !tpu_macro
opt -full
techmap
opt -fast
abc -fast
opt -fast
hierarchy -check
check
select -assert-none $latches
tee -q -o $out/core_stat.txt stat -top core
" || { echo "synth: yosys failed on core (see $out/core.log)"; exit 1; }

# vmem's parameters as core.v derives them for this config
cfg() { sed -n "s/^localparam [a-z]* *\(\[63:0\]\)* *$1 *= *\(64'd\)*\([0-9]*\);.*/\3/p" "$out/tpu_cfg.vh"; }
vbytes=$(cfg CFG_VMEM_BYTES); n=$(cfg CFG_MXU_N); nmxu=$(cfg CFG_NUM_MXU)
vecb=$((4 * $(cfg CFG_SUBLANES) * $(cfg CFG_LANES)))
dmab=$(( ($(cfg CFG_HBM_NUM) + $(cfg CFG_HBM_DEN) - 1) / $(cfg CFG_HBM_DEN) ))
icib=$(( ($(cfg CFG_ICI_NUM) + $(cfg CFG_ICI_DEN) - 1) / $(cfg CFG_ICI_DEN) ))
aw=0; while [ $((1 << aw)) -lt "$vbytes" ]; do aw=$((aw + 1)); done
"$yosys" -q -w "Replacing memory" -l "$out/vmem.log" -p "
read_verilog -sv -DSYNTHESIS -Irtl rtl/vmem.v
hierarchy -check -top vmem -chparam Bytes $vbytes -chparam AW $aw -chparam NumMxu $nmxu \
  -chparam MxuN $n -chparam MxuW $(cfg CFG_MXU_WLOADS) -chparam VecB $vecb -chparam DmaPorts $dmab \
  -chparam IciB $icib
proc
opt -fast
select -assert-none $latches
wreduce
alumacc
opt -fast
techmap -map +/techmap.v t:\$add t:\$sub t:\$lt t:\$le t:\$gt t:\$ge t:\$eq t:\$ne t:\$mux t:\$pmux t:\$logic_* t:\$reduce_* t:\$and t:\$or t:\$xor t:\$not t:\$alu t:\$lcu t:\$shl t:\$shr
opt -fast
tee -q -o $out/vmem_stat.txt stat
" || { echo "synth: yosys failed on vmem (see $out/vmem.log)"; exit 1; }

srcs2=$(ls rtl/*.v | tr '\n' ' ')
"$yosys" -q -w "Replacing memory" -l "$out/system.log" -p "
read_verilog -sv -DSYNTHESIS -Irtl -I$out $srcs2
blackbox hbm_mem vmem
hierarchy -check -top system
proc
select -assert-none $latches
" || { echo "synth: yosys failed on system (see $out/system.log)"; exit 1; }

# Cells per unit, submodules included: total(m) = own cells - submodule
# instances + sum(instances x total(submodule)).
{
  echo "synth: tiny config (VMEM and HBM 4 KiB), Yosys $("$yosys" -V | awk '{print $2}'), no latches"
  awk '
    function short(m,   bf) { bf = (m ~ /InFracW/); sub(/^\$paramod\$[0-9a-f]*\\/, "", m);
                        sub(/^\$paramod\\/, "", m); sub(/\\.*/, "", m);
                        return bf ? m " (bf16)" : m }
    function total(m,   t, i) {
      if (m in memo) return memo[m]
      t = own[m]
      for (i = 1; i <= nkid[m]; i++) t += kidn[m, i] * (total(kid[m, i]) - 1)
      memo[m] = t; return t }
    /^=== design hierarchy ===/ { done = 1 }
    !done && /^=== .* ===$/ { cur = $2; mods[++nm] = cur; next }
    !done && cur != "" && /Number of cells:/ { own[cur] = $4; next }
    !done && cur != "" && NF == 2 && $1 !~ /^\$_/ && $1 !~ /^\$mem/ && $2 ~ /^[0-9]+$/ {
      nkid[cur]++; kid[cur, nkid[cur]] = $1; kidn[cur, nkid[cur]] = $2 }
    END {
      printf "  %-16s %10s\n", "unit", "cells (with its submodules)"
      n = split("seq queue dma hbm_port mxu mxu_row mxu_cell mxu_mac vpu ici fp32_add fp32_mul fp32_mul_(bf16) fp32_cmp bf16_round", order, " ")
      for (k = 1; k <= n; k++) {
        gsub(/_\(/, " (", order[k])
        for (i = 1; i <= nm; i++)
          if (short(mods[i]) == order[k]) { printf "  %-16s %10d\n", order[k], total(mods[i]); seen[i] = 1 }
      }
      for (i = 1; i <= nm; i++)
        if (!seen[i] && short(mods[i]) != "core") printf "  %-16s %10d\n", short(mods[i]), total(mods[i])
      printf "  %-16s %10d   (glue: arbiter sums, trace wiring)\n", "core (own)", own["core"]
      printf "  %-16s %10d   (everything but vmem and hbm_mem)\n", "core total", total("core")
    }' "$out/core_stat.txt"
  vm=$(awk '/Number of cells:/ { print $4 }' "$out/vmem_stat.txt")
  rd=$(awk '$1 == "$memrd" { print $2 }' "$out/vmem_stat.txt")
  wr=$(awk '$1 == "$memwr_v2" { print $2 }' "$out/vmem_stat.txt")
  printf '  %-16s %10d   (arbiter and ports; storage: %s byte read and %s byte write ports)\n' \
    vmem "$vm" "${rd:-0}" "${wr:-0}"
  printf '  %-16s %10s   (simulation storage, not synthesised)\n' hbm_mem -
  echo "  system: elaborated by Yosys, no latches"
} | tee "$out/report.txt"
