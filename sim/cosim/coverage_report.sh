#!/usr/bin/env bash
# coverage_report.sh VERILATOR_COVERAGE COV_DIR - merge the coverage counts
# of COV_DIR/dat/*.dat (written by a coverage build of rtl-bench with
# TPU_COVERAGE_DIR set: make coverage), annotate the sources into
# COV_DIR/annotated/, and print, per RTL file (= unit), the line and toggle
# points covered (verilator_coverage's --write-info lcov file: DA records;
# a point is covered when its count is at least 1).
set -uo pipefail
vc=${1:?usage: coverage_report.sh VERILATOR_COVERAGE COV_DIR}
dir=${2:?usage: coverage_report.sh VERILATOR_COVERAGE COV_DIR}
shopt -s nullglob
dats=("$dir"/dat/*.dat)
[ ${#dats[@]} -gt 0 ] || { echo "coverage: no counts in $dir/dat" >&2; exit 1; }
"$vc" --write "$dir/merged.dat" "${dats[@]}" >/dev/null || exit 1
rm -rf "$dir/annotated"
"$vc" --annotate "$dir/annotated" --annotate-min 1 "$dir/merged.dat" > "$dir/annotate.txt" || exit 1
"$vc" --write-info "$dir/coverage.info" "$dir/merged.dat" >/dev/null || exit 1
echo "coverage: ${#dats[@]} runs merged; annotated sources in $dir/annotated/"
awk '
  /^SF:/ { f = $0; sub(/^SF:/, "", f); n = split(f, p, "/"); f = p[n]; next }
  /^DA:/ { split(substr($0, 4), d, ","); tot[f]++; if (d[2] + 0 >= 1) hit[f]++; next }
  END {
    printf "%-14s %8s %8s %7s\n", "file", "points", "covered", "%"
    for (f in tot) { T += tot[f]; H += hit[f]
      printf "%-14s %8d %8d %6.1f%%\n", f, tot[f], hit[f], 100 * hit[f] / tot[f] | "sort" }
    close("sort")
    printf "%-14s %8d %8d %6.1f%%\n", "all", T, H, T ? 100 * H / T : 0
  }' "$dir/coverage.info"
