# tests/checks.sh - the pass/fail helpers of the measuring test scripts
# (tests/roofline.sh, tests/int8.sh), sourced after `pass=0; fail=0`.

ok()  { echo "ok    $1"; pass=$((pass+1)); }
bad() { echo "FAIL  $1"; fail=$((fail+1)); }

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
