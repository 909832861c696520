# tests/checks.sh - the one dialect of the test scripts (tests/README.md):
# each check prints one TAP test point, `ok N - NAME`, `not ok N - NAME`
# or `ok N - NAME # SKIP REASON`; anything else a script prints is a
# comment (`# ...`) or a line tap-wrap.sh turns into one.  Sourced first:
#
#   source "$(dirname "$0")/checks.sh"
#   ok "what held"; bad "what did not"; skip "what" "why not here"
#   finish NAME        # "NAME: P passed, F failed[, S skipped]", exit 1 on a failure
#
# pass, fail and skipped count the points (scripts may read them).
pass=0 fail=0 skipped=0 tap_n=0

ok()   { tap_n=$((tap_n+1)); pass=$((pass+1)); echo "ok $tap_n - $*"; }
bad()  { tap_n=$((tap_n+1)); fail=$((fail+1)); echo "not ok $tap_n - $*"; }
# skip NAME REASON: a check that cannot run here (a missing optional tool)
skip() { tap_n=$((tap_n+1)); skipped=$((skipped+1)); echo "ok $tap_n - $1 # SKIP ${2:-}"; }
# diag TEXT...: TAP comments, one per line of TEXT (a failure's evidence)
diag() { printf '%s\n' "$*" | sed 's/^/#   /'; }
# point COND NAME: ok NAME when the shell test COND (a command's status) is 0
point() { if [ "$1" = 0 ]; then ok "$2"; else bad "$2"; fi; }

# finish NAME: the summary line; the script's status is 1 on any failure
finish() {
  local extra=
  [ "$skipped" -gt 0 ] && extra=", $skipped skipped"
  echo "$1: $pass passed, $fail failed$extra"
  [ "$fail" -eq 0 ] && exit 0
  exit 1
}

# run_check NAME WANT_STATUS PATTERN -- COMMAND...: one point, ok when the
# command exits WANT_STATUS and its stdout+stderr matches the extended
# regular expression PATTERN (give one: what the command promises to say;
# "^$" for "prints nothing").  A failure shows the first lines of output.
run_check() {
  local name=$1 want=$2 pat=$3; shift 4
  local out status
  [ -n "$pat" ] || { bad "$name: run_check without a PATTERN checks only the exit status"; return 1; }
  out=$("$@" 2>&1); status=$?
  if [ "$status" != "$want" ]; then
    bad "$name: exit $status, want $want"; diag "$(head -n 5 <<<"$out")"; return 1
  fi
  if ! grep -qE -- "$pat" <<<"$out"; then
    bad "$name: output does not match '$pat'"; diag "$(head -n 5 <<<"$out")"; return 1
  fi
  ok "$name"
}

# key NAME FILE: the value of "NAME = value" in a summary file
key() { sed -n "s/^$1 = //p" "$2" | head -n 1; }

# check COND MESSAGE [A [B [C [D]]]]: COND is an awk expression over a b c d
check() {
  local cond=$1 msg=$2; shift 2
  if awk -v a="${1:-}" -v b="${2:-}" -v c="${3:-}" -v d="${4:-}" "BEGIN { exit !($cond) }"; then
    ok "$msg"
  else
    bad "$msg (values: $*)"
  fi
}

# near F: the awk condition "a is within the fraction F of b (a > 0)"
near() { echo "a > 0 && (a - b) / b < $1 && (b - a) / b < $1"; }

# relay < FILE: a child's verdicts become points of this script: its TAP
# points, numbered (a subshell's ok and bad, a cmocka binary's) or not (a
# Python check prints "ok - NAME" and "not ok - NAME"); its other lines are
# printed as they are.  False when the child gave no verdict at all.  Read
# from a file or a here-string, not a pipe (the counts live in this shell).
relay() {
  local line n=0 re_tap='^(not )?ok( [0-9]+)?( - (.*))?$' re_skip='^(.*) # SKIP ?(.*)$'
  while IFS= read -r line; do
    if [[ $line =~ $re_tap ]]; then
      n=$((n+1)); line=${BASH_REMATCH[4]}
      if [ -n "${BASH_REMATCH[1]}" ]; then bad "$line"
      elif [[ $line =~ $re_skip ]]; then skip "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}"
      else ok "$line"; fi
    else printf '%s\n' "$line"; fi
  done
  [ "$n" -gt 0 ]
}
