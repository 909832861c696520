#!/usr/bin/env bash
# tap-wrap.sh NAME COMMAND... - run one test of `make test` as a TAP
# producer for prove (tests/suite/*.t call it).
#
# A cmocka binary speaks TAP itself (CMOCKA_MESSAGE_OUTPUT=TAP); the test
# scripts print their own lines ("ok    ...", "FAIL ..." and a summary
# "NAME: P passed, F failed").  Here every line of the command's output
# becomes a TAP diagnostic, a line that starts with "ok" also a passed TAP
# test and one with "FAIL" a failed one, and the command's exit status the
# last TAP test; so prove counts a script's checks one by one (those it
# names) and never misses a non-zero exit.  The
# TAP goes to standard output and, with TAP_DIR set, to TAP_DIR/NAME.tap
# (the machine-readable report of the run).
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
  { print "# " $0 }
  /^ok[ \t]/ { n++; sub(/^ok[ \t]*/, ""); print "ok " n " - " $0 }
  /^FAIL/ { n++; sub(/^FAIL[ \t]*/, ""); print "not ok " n " - " $0 }
  END {
    n++
    if (status == 0) print "ok " n " - " name " (exit 0)"
    else             print "not ok " n " - " name " (exit " status ")"
    print "1.." n
  }' | tee "$out"
