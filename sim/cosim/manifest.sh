#!/usr/bin/env bash
# sim/cosim/manifest.sh - the one reader of programs/manifest.txt, the list
# of every program run the tests make (docs/cosim.md, "The program
# manifest").  Sourced by the runners (sim/rtl/run_tests.sh,
# sim/cosim/run_mutants.sh, sim/systemc/tests/*.sh, tests/programs.sh) for
# its functions, or run as a command:
#
#   manifest.sh runs CONFIG   the runs of CONFIG (rows whose configs are
#                             "all" or name CONFIG), one a line, tab-separated:
#                             NAME SOURCE DEFINES CORES TOPOLOGY END CHECKS
#                             (no field empty: DEFINES and CHECKS are - or
#                             a comma list, as in the manifest)
#   manifest.sh model-runs    every row once per config it names ("all":
#                             tiny), CONFIG first, then the columns of runs
#   manifest.sh check         the manifest is well formed and names every
#                             programs/*.s and sim/rtl/progs/*.s
#   manifest.sh -h|--help     this text
#
# MANIFEST names another file (tests).  A bad line is reported as
# FILE:LINE:COL: error: ... and exits 2 (every command reads the whole file).
# Exit status: 0 fine, 2 bad usage or a bad manifest.
#
# The functions, for the runners:
#   manifest_runs CONFIG, manifest_model_runs   as the commands above
#   manifest_asopts DEFINES  the tpu-as options of a DEFINES field
#                 ("K=4,X=1": "-D K=4 -D X=1"; "-": nothing)
#   manifest_bench DIR CORES TOPOLOGY   the lockstep bench of DIR that runs
#                 the shape (DIR/rtl-bench, rtl-bench2 or rtl-bench4), or
#                 nothing: the RTL has no such system
#   manifest_verdict END HOW MESSAGE    0 when a run that ended HOW (halt,
#                 error or limit; MESSAGE: the C model's error text) ended as
#                 END says; else prints why not and returns 1
#   manifest_bench_verdict END STATUS LOG  the same for a run of rtl-bench
#                 --program-status (exit STATUS, its output LOG): 0 halted,
#                 3 both stopped the same way ("both stopped: MESSAGE at
#                 cycle N"), anything else a mismatch

MANIFEST=${MANIFEST:-programs/manifest.txt}

# The named errors: NAME, then an extended regular expression the C model's
# message (cmodel/seq.c fail(), the deadlock check) matches.
manifest_error_re() {
  case "$1" in
    pc)       echo 'is outside IMEM' ;;
    illegal)  echo 'illegal instruction' ;;
    nomxu)    echo 'mxu [0-9]+ does not exist' ;;
    range)    echo 'out of range' ;;
    align)    echo 'misaligned' ;;
    size)     echo 'more than 2\^|negative (row count|row size)' ;;
    port)     echo 'is not connected to a neighbour' ;;
    mode)     echo 'have no int8 mode|are int8 only|stream against' ;;
    deadlock) echo 'deadlock:' ;;
    *) return 1 ;;
  esac
}
MANIFEST_ERRORS="pc illegal nomxu range align size port mode deadlock"

# _manifest_parse: every row of $MANIFEST, checked, as
# "NAME<TAB>SOURCE<TAB>DEFINES<TAB>CORES<TAB>TOPOLOGY<TAB>CONFIGS<TAB>END<TAB>CHECKS".
_manifest_parse() {
  [ -r "$MANIFEST" ] || { echo "manifest: error: cannot read '$MANIFEST'" >&2; return 2; }
  awk -v file="$MANIFEST" -v errors=" $MANIFEST_ERRORS " '
    function col(i,   s, k, p) {        # the column where field i starts
      s = $0; p = 0
      for (k = 1; k <= i; k++) {
        match(s, /[^ \t]+/); p += RSTART; if (k < i) { p += RLENGTH - 1; s = substr(s, RSTART + RLENGTH) }
      }
      return p
    }
    function bad(i, msg) { printf "%s:%d:%d: error: %s\n", file, NR, col(i), msg > "/dev/stderr"; status = 2 }
    {
      sub(/#.*/, "")
      if ($0 ~ /^[ \t]*$/) next
      if (NF != 7) { printf "%s:%d:1: error: %d columns, not 7 (program defines cores topology configs end checks)\n", file, NR, NF > "/dev/stderr"; status = 2; next }
      src = $1; defs = $2; cores = $3; topo = $4; cfgs = $5; end_ = $6; checks = $7
      if (src !~ /\.s$/ || src ~ /(^|\/)\.\.(\/|$)/ || src ~ /^\//) { bad(1, "program \"" src "\" is not a .s file inside the checkout"); next }
      if ((getline junk < src) < 0) { bad(1, "no program \"" src "\""); next }
      close(src)
      n = split(src, parts, "/"); name = parts[n]; sub(/\.s$/, "", name)
      if (defs != "-") {
        nd = split(defs, d, ",")
        for (k = 1; k <= nd; k++) {
          if (d[k] !~ /^[A-Za-z_][A-Za-z_0-9]*=[^= \t]+$/) { bad(2, "define \"" d[k] "\" is not NAME=VALUE"); next }
          v = d[k]; sub(/=/, "", v); name = name "_" v
        }
      }
      if (cores !~ /^[0-9]+$/ || cores < 1 || cores > 16) { bad(3, "cores \"" cores "\" is not 1 to 16"); next }
      if (topo == "single") {
        if (cores != 1) { bad(4, "topology single with " cores " cores"); next }
      } else if (topo == "ring") {
        if (cores < 2) { bad(4, "a ring of " cores " core"); next }
      } else if (topo ~ /^(torus2d|mesh2d):[0-9]+x[0-9]+$/) {
        split(substr(topo, index(topo, ":") + 1), g, "x")
        if (g[1] * g[2] != cores) { bad(4, "grid " g[1] "x" g[2] " is not " cores " cores"); next }
      } else if (topo ~ /^torus3d:[0-9]+x[0-9]+x[0-9]+$/) {
        split(substr(topo, index(topo, ":") + 1), g, "x")
        if (g[1] * g[2] * g[3] != cores) { bad(4, "grid " g[1] "x" g[2] "x" g[3] " is not " cores " cores"); next }
      } else { bad(4, "topology \"" topo "\" is not single, ring, torus2d:RxC, mesh2d:RxC or torus3d:XxYxZ"); next }
      if (cfgs != "all" && cfgs !~ /^[A-Za-z0-9_.-]+(,[A-Za-z0-9_.-]+)*$/) { bad(5, "configs \"" cfgs "\" is not all or a comma list of names"); next }
      if (end_ != "halt" && !(end_ ~ /^error:/ && index(errors, " " substr(end_, 7) " "))) {
        bad(6, "end \"" end_ "\" is not halt or error:NAME (NAME:" substr(errors, 1, length(errors) - 1) ")"); next
      }
      if (checks != "-") {
        nc = split(checks, c, ",")
        for (k = 1; k <= nc; k++)
          if (c[k] !~ /^(bound=(memory|compute)-bound|pct=[0-9]+|races)$/) { bad(7, "check \"" c[k] "\" is not bound=memory-bound, bound=compute-bound, pct=N or races"); next }
      }
      if (name in seen) { bad(1, "run \"" name "\" again (line " seen[name] ")"); next }
      seen[name] = NR
      out[++rows] = name "\t" src "\t" defs "\t" cores "\t" topo "\t" cfgs "\t" end_ "\t" checks
    }
    END {
      if (status) exit status
      if (!rows) { printf "%s:1:1: error: no runs\n", file > "/dev/stderr"; exit 2 }
      for (i = 1; i <= rows; i++) print out[i]
    }' "$MANIFEST"
}

# manifest_runs CONFIG: the runs of CONFIG (see the header).
manifest_runs() {
  local cfg=${1:?manifest_runs CONFIG} rows
  rows=$(_manifest_parse) || return 2
  awk -F'\t' -v OFS='\t' -v cfg="$cfg" \
    '$6 == "all" || index("," $6 ",", "," cfg ",") { print $1, $2, $3, $4, $5, $7, $8 }' <<<"$rows"
}

# manifest_model_runs: every row once per config it names ("all": tiny).
manifest_model_runs() {
  local rows
  rows=$(_manifest_parse) || return 2
  awk -F'\t' -v OFS='\t' '{
    n = split($6 == "all" ? "tiny" : $6, c, ",")
    for (i = 1; i <= n; i++) print c[i], $1, $2, $3, $4, $5, $7, $8 }' <<<"$rows"
}

# manifest_asopts DEFINES: "-D A=1 -D B=2" for "A=1,B=2", nothing for "-".
manifest_asopts() {
  [ "$1" = - ] || sed 's/^/-D /; s/,/ -D /g' <<<"$1"
}

# manifest_bench DIR CORES TOPOLOGY: the bench of DIR for that shape, or nothing.
manifest_bench() {
  case "$2 $3" in
    "1 single") echo "$1/rtl-bench" ;;
    "2 ring") echo "$1/rtl-bench2" ;;
    "4 ring") echo "$1/rtl-bench4" ;;
    "2 torus3d:1x1x2") echo "$1/rtl-bench2z" ;;   # ports 4/5 (+z, -z) wired
    "8 torus3d:2x2x2") echo "$1/rtl-bench8" ;;    # all six ports (make rtl-test-torus3d)
  esac
}

# manifest_verdict END HOW MESSAGE (see the header).
manifest_verdict() {
  local end=$1 how=$2 msg=${3:-} re
  case "$end" in
    halt)
      [ "$how" = halt ] && return 0
      echo "expected halt, but both stopped: ${msg:-$how}"; return 1 ;;
    error:*)
      re=$(manifest_error_re "${end#error:}") || { echo "unknown error name in '$end'"; return 1; }
      if [ "$how" != error ]; then
        echo "expected a run-time error (${end#error:}), but the run ended with $how"; return 1
      fi
      grep -Eq -- "$re" <<<"$msg" && return 0
      echo "expected a run-time error (${end#error:}), but both stopped with: $msg"; return 1 ;;
    -) return 0 ;;      # a random program: any end both sides agree on
  esac
  echo "unknown end '$end'"; return 1
}

# manifest_bench_verdict END STATUS LOG (see the header).
manifest_bench_verdict() {
  local end=$1 st=$2 log=$3 msg
  case "$st" in
    0) manifest_verdict "$end" halt ;;
    3) msg=$(sed -n 's/^rtl-bench[0-9]*: .*: both stopped: \(.*\) at cycle [0-9]*: .*/\1/p' <<<"$log" | tail -n 1)
       if [ "$msg" = "cycle limit" ]; then manifest_verdict "$end" limit "cycle limit"
       else manifest_verdict "$end" error "$msg"; fi ;;
    *) return 1 ;;
  esac
}

# manifest_check: well formed, and every program has a line.
manifest_check() {
  local rows src missing=0 n
  rows=$(_manifest_parse) || return 2
  shopt -s nullglob
  for src in programs/*.s sim/rtl/progs/*.s; do
    if ! cut -f2 <<<"$rows" | grep -qxF -- "$src"; then
      echo "$MANIFEST: error: $src has no line (add one: docs/cosim.md, \"The program manifest\")" >&2
      missing=1
    fi
  done
  [ "$missing" = 0 ] || return 2
  n=$(wc -l <<<"$rows")
  echo "manifest: $n runs of $(cut -f2 <<<"$rows" | sort -u | wc -l) programs, every programs/*.s and sim/rtl/progs/*.s listed"
}

# As a command.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -uo pipefail
  case "${1:-}" in
    runs) [ $# -eq 2 ] || { echo "usage: manifest.sh runs CONFIG (try --help)" >&2; exit 2; }
          manifest_runs "$2" ;;
    model-runs) manifest_model_runs ;;
    check) manifest_check ;;
    -h|--help) sed -n '2,/^$/p' "$0" | sed -e 's/^# \{0,1\}//' -e '/^$/d' | sed -n '1,/^The functions/p' | sed '$d'; exit 0 ;;
    *) echo "manifest.sh: error: ${1:+unknown command '$1'}${1:-no command} (runs CONFIG, model-runs, check; try --help)" >&2
       exit 2 ;;
  esac
fi
