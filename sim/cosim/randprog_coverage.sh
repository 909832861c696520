#!/usr/bin/env bash
# randprog_coverage.sh [--require] BIN_DIR CONFIG N [FIRST_SEED]
#
# What the random programs of the lockstep tests cover, in ISA terms
# (docs/cosim.md, "Random programs"): the programs of seeds FIRST_SEED..
# (default 1) made as tests/cosim_random.sh makes them (every 8th with
# --errors, every 5th for several cores: four when seed % 20 == 19, two
# otherwise) are assembled and run on the C model
# (tpu-sim --json), and the script counts
#   - the instructions of the ISA (the table: tpu-isagen --markdown) that
#     the programs use, and those they never use;
#   - the stall reasons (every unit's, from the run's report: queue full,
#     sem.wait, sync, vreg hazard, loads in flight, VMEM budget
#     conflicts...) seen in at least one program, and those never seen;
#   - how the runs ended (halt, or which run-time error).
# With --require it exits 1 when an instruction is never used or a stall
# reason of a unit the config has is never seen (make test).  Exit 2 on
# bad usage or when a program cannot be made or run.
set -uo pipefail
require=0
[ "${1:-}" = --require ] && { require=1; shift; }
case "${1:-}" in -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac
usage="usage: randprog_coverage.sh [--require] BIN_DIR CONFIG N [FIRST_SEED]"
bin=${1:?$usage}
cfg=${2:?$usage}
count=${3:?$usage}
first=${4:-1}
for v in "$count" "$first"; do
  case "$v" in ''|*[!0-9]*) echo "randprog_coverage.sh: error: '$v' is not a number" >&2; exit 2 ;; esac
done
for t in tpu-randprog tpu-as tpu-sim tpu-isagen; do
  [ -x "$bin/$t" ] || { echo "randprog_coverage.sh: error: no '$bin/$t' (make)" >&2; exit 2; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/randprog_cov.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT

# the ISA's mnemonics, from the one table (the int8 ones too: tpu-randprog
# makes them by default where mxu_int8 = 1, as on tiny and tiny-odd)
"$bin/tpu-isagen" --markdown | sed -n 's/^| \[`\([a-z0-9.]*\)`\](#.*/\1/p' | sort -u > "$work/isa"
: > "$work/used"; : > "$work/stalls"; : > "$work/ends"
for ((s = first; s < first + count; s++)); do
  opt="" cores=1
  [ $((s % 8)) -eq 7 ] && opt=--errors
  if [ $((s % 20)) -eq 19 ]; then opt="$opt --cores 4"; cores=4
  elif [ $((s % 5)) -eq 4 ]; then opt="$opt --cores 2"; cores=2; fi
  # shellcheck disable=SC2086
  "$bin/tpu-randprog" --config "$cfg" --seed "$s" $opt -o "$work/p.s" >/dev/null 2>&1 \
    && "$bin/tpu-as" --config "$cfg" -o "$work/p.bin" "$work/p.s" >/dev/null 2>&1 \
    || { echo "randprog_coverage.sh: error: cannot make the program of seed $s" >&2; exit 2; }
  # mnemonics: the first word of each statement that is not a label or directive
  sed -e 's/#.*//' -e 's/^[A-Za-z_.][A-Za-z0-9_.]*://' "$work/p.s" \
    | awk '$1 != "" && $1 !~ /^\./ { print $1 }' | sort -u >> "$work/used"
  "$bin/tpu-sim" --config "$cfg" --cores "$cores" --json "$work/p.bin" > "$work/run.json" 2>/dev/null
  st=$?
  [ "$st" -le 3 ] || { echo "randprog_coverage.sh: error: tpu-sim failed on seed $s ($st)" >&2; exit 2; }
  # "UNIT": {"busy_cycles": B, "stall_cycles": S, "stalls": {"REASON": N, ...}}
  grep -o '"[a-z0-9]*": {"busy_cycles": [0-9]*, "stall_cycles": [0-9]*, "stalls": {[^}]*}' \
      "$work/run.json" \
    | sed -e 's/^"\([a-z0-9]*\)".*"stalls": {\(.*\)}$/\1 \2/' \
    | awk '{ u = $1; sub(/^[^ ]* /, ""); n = split($0, r, /, /);
             for (i = 1; i <= n; i++) { split(r[i], kv, /": /); gsub(/"/, "", kv[1]);
                                         if (kv[1] != "" && kv[2] + 0 > 0) print u ": " kv[1] } }' \
    | sed 's/^mxu[0-9]:/mxu:/' | sort -u >> "$work/stalls"
  stop=$(grep -o '"stop": "[a-z ]*"' "$work/run.json" | sed 's/.*: "\(.*\)"/\1/')
  err=$(grep -o '"error": "[^"]*"' "$work/run.json" | sed -e 's/.*: "//' -e 's/"$//' \
        -e 's/.*: //' -e 's/0x[0-9a-f]*/N/g' -e 's/[0-9][0-9]*/N/g' | cut -c1-60)
  echo "${stop:-?}${err:+: $err}" >> "$work/ends"
done

# the possible stall reasons of the units this config has
units="seq dma mxu vpu xlu"
"$bin/tpu-sim" --config "$cfg" --json "$work/p.bin" 2>/dev/null | grep -q '"ici": {' && units="$units ici"
for u in $units; do
  case $u in
    seq) r="queue full|sem.wait|sync|halt|vpu busy" ;;
    dma) r="no idle engine|vmem busy" ;;
    mxu) r="loads in flight|stream busy" ;;
    vpu) r="vreg hazard|vmem busy" ;;
    ici) r="link busy|vmem busy" ;;
    xlu) r="unit busy" ;;
  esac
  tr '|' '\n' <<<"$r" | sed "s/^/$u: /"
done | sort > "$work/all_stalls"

sort "$work/used" | uniq -c | awk '{ print $2, $1 }' > "$work/used_n"
nu=$(comm -12 "$work/isa" <(cut -d' ' -f1 "$work/used_n") | wc -l)
ni=$(wc -l < "$work/isa")
never=$(comm -23 "$work/isa" <(cut -d' ' -f1 "$work/used_n") | tr '\n' ' ')
echo "randprog coverage ($cfg, seeds $first..$((first + count - 1))):"
echo "  instructions: $nu of $ni used${never:+; never: $never}"
sort "$work/stalls" | uniq -c | sort -k2 > "$work/stalls_n"
ns=$(comm -12 "$work/all_stalls" <(sed 's/^ *[0-9]* //' "$work/stalls_n" | sort -u) | wc -l)
nst=$(wc -l < "$work/all_stalls")
snever=$(comm -23 "$work/all_stalls" <(sed 's/^ *[0-9]* //' "$work/stalls_n" | sort -u) | paste -sd ';' | sed 's/;/; /g')
echo "  stall reasons seen: $ns of $nst${snever:+; never: $snever}"
awk '{ n = $1; sub(/^ *[0-9]* /, ""); printf "    %-28s in %d programs\n", $0, n }' "$work/stalls_n"
echo "  how the runs ended:"
sort "$work/ends" | uniq -c | sort -rn | awk '{ n = $1; sub(/^ *[0-9]* /, ""); printf "    %-60s %d\n", $0, n }'
if [ "$require" = 1 ] && { [ "$nu" -ne "$ni" ] || [ "$ns" -ne "$nst" ]; }; then
  echo "randprog coverage: FAIL: something above is never exercised" >&2
  exit 1
fi
exit 0
