#!/usr/bin/env bash
# report.sh [LOG [GOAL]] - what tests/fuzz/log.tsv (make fuzz's line per
# target and run) adds up to: per target the runs, CPU seconds in all,
# execs, the last coverage (cov, ft) and corpus, the crashes found, and the
# CPU seconds still wanted to reach GOAL (3600: one CPU-hour per target,
# issue 33).  make fuzz-report.
set -uo pipefail
log=${1:-$(dirname "$0")/log.tsv}
goal=${2:-3600}
case $goal in ''|*[!0-9]*) echo "report.sh: error: GOAL '$goal' is not a number of seconds" >&2; exit 2 ;; esac
if [ ! -r "$log" ]; then
  echo "report.sh: error: no fuzz log $log (make fuzz writes it)" >&2; exit 2
fi
awk -F'\t' -v goal="$goal" '
  NR == 1 && $1 == "date" { next }
  NF < 10 { printf "%s:%d: error: %d fields, want 10\n", FILENAME, NR, NF > "/dev/stderr"; bad = 1; next }
  {
    t = $3
    if (!(t in runs)) order[++n] = t
    runs[t]++; cpu[t] += $5; execs[t] += $6; cov[t] = $7; ft[t] = $8; corp[t] = $9
    crashes[t] += $10; last[t] = substr($1, 1, 10) " " $2
  }
  END {
    if (bad) exit 2
    if (n == 0) { print "report.sh: error: the fuzz log has no runs" > "/dev/stderr"; exit 2 }
    printf "%-7s %4s %8s %11s %6s %6s %6s %7s %8s  %s\n", "target", "runs", "CPU s", "execs", "cov", "ft", "corpus", "crashes", "to goal", "last run"
    for (i = 1; i <= n; i++) {
      t = order[i]; left = goal - cpu[t]; if (left < 0) left = 0
      printf "%-7s %4d %8.0f %11d %6d %6d %6d %7d %8.0f  %s\n", t, runs[t], cpu[t], execs[t], cov[t], ft[t], corp[t], crashes[t], left, last[t]
    }
  }' "$log"
