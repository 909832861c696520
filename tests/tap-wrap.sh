#!/usr/bin/env bash
# tap-wrap.sh NAME COMMAND... - run one test of `make test` as a TAP
# producer for prove (tests/suite/*.t call it).
#
# The test scripts speak TAP through tests/checks.sh (tests/README.md): a
# line "ok N - ...", "not ok N - ..." or "ok N - ... # SKIP why" is a test
# point, passed on with the numbers of one stream (a script may run
# another; their plans "1..N" are dropped).  Every other line is a TAP
# comment, and the command's exit status the last point, so prove never
# misses a non-zero exit.  The TAP goes to standard output and, with TAP_DIR set, to
# TAP_DIR/NAME.tap (the machine-readable report of the run).
set -uo pipefail
name=${1:?usage: tap-wrap.sh NAME COMMAND...}
shift
out=/dev/null
if [ -n "${TAP_DIR:-}" ]; then
  mkdir -p "$TAP_DIR" && out=$TAP_DIR/$name.tap
fi
{
  "$@" 2>&1
  echo "tap-wrap-status $?"
} | awk -v name="$name" '
  /^tap-wrap-status / { status = $2; next }
  # the dialect: a TAP point, renumbered
  /^(not )?ok [0-9]+( |$)/ {
    word = "ok"; if ($0 ~ /^not /) word = "not ok"
    rest = $0; sub(/^(not )?ok [0-9]+ ?/, "", rest)
    print word " " ++n (rest == "" ? "" : " " rest); next
  }
  /^1\.\.[0-9]+/ { print "# " $0; next }
  /^#/ { print; next }
  { print "# " $0 }
  END {
    n++
    if (status == 0) print "ok " n " - " name " (exit 0)"
    else             print "not ok " n " - " name " (exit " status ")"
    print "1.." n
  }' | tee "$out"
