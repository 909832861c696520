#!/usr/bin/env bash
# cli.sh BIN_DIR - check the commands' exit codes, --help and messages.
#   0 success, 1 error in the input, 2 bad command line; --help exits 0.
# Prints "cli: N passed, M failed" and exits non-zero on any failure.
# Other commands append their checks below the assembler's.
set -uo pipefail
bin=${1:?usage: cli.sh BIN_DIR}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0

# check NAME WANT_STATUS [GREP_PATTERN] -- COMMAND...: run it, compare the
# exit status, and (if given) look for the pattern in stdout+stderr.
check() {
  local name=$1 want=$2 pat=$3; shift 4
  local out status
  out=$("$@" 2>&1); status=$?
  if [ "$status" != "$want" ]; then
    echo "FAIL $name: exit $status, want $want"; echo "$out" | head -5; fail=$((fail+1)); return
  fi
  if [ -n "$pat" ] && ! grep -qE -- "$pat" <<<"$out"; then
    echo "FAIL $name: output does not match '$pat'"; echo "$out" | head -5; fail=$((fail+1)); return
  fi
  pass=$((pass+1))
}

# ---- tpu-as -----------------------------------------------------------------
printf 'li s1, 5\nhalt\n' > "$tmp/good.s"
printf 'nop\nadd s1, s2\n' > "$tmp/bad.s"
check "tpu-as --help"          0 "usage: tpu-as.*--config.*" -- "$bin/tpu-as" --help
check "tpu-as --help options"  0 "--list"                   -- "$bin/tpu-as" --help
check "tpu-as bad option"      2 "unknown option '--frob'"  -- "$bin/tpu-as" --frob "$tmp/good.s"
check "tpu-as no input"        2 "no input file"            -- "$bin/tpu-as"
check "tpu-as -o no value"     2 "needs a value"            -- "$bin/tpu-as" "$tmp/good.s" -o
check "tpu-as bad -D"          2 "not a valid constant name" -- "$bin/tpu-as" -D 9x=1 "$tmp/good.s"
check "tpu-as bad --config"    2 "unknown preset"           -- "$bin/tpu-as" --config nosuch "$tmp/good.s"
check "tpu-as missing file"    1 "cannot read '$tmp/missing.s'" -- "$bin/tpu-as" "$tmp/missing.s"
check "tpu-as bad program"     1 "bad.s:2:1: error: 'add' takes 3 operands" -- "$bin/tpu-as" "$tmp/bad.s" -o "$tmp/bad.bin"
check "tpu-as good program"    0 ""                         -- "$bin/tpu-as" "$tmp/good.s"
if [ -f "$tmp/good.bin" ]; then pass=$((pass+1)); else echo "FAIL tpu-as default output good.bin"; fail=$((fail+1)); fi
check "tpu-as --list"          0 "text 0x00000000  [0-9a-f]{16}  li s1, 5" -- "$bin/tpu-as" --list "$tmp/good.s" -o "$tmp/l.bin"
check "tpu-as -D and --config" 0 ""                         -- "$bin/tpu-as" --config tiny -D N=3 "$tmp/good.s" -o "$tmp/c.bin"
check "tpu-as stdin"           0 ""                         -- bash -c "printf 'halt\n' | '$bin/tpu-as' - -o '$tmp/stdin.bin'"

# ---- tpu-dis ----------------------------------------------------------------
if [ -x "$bin/tpu-dis" ]; then
  check "tpu-dis --help"       0 "usage"                    -- "$bin/tpu-dis" --help
  check "tpu-dis bad option"   2 ""                         -- "$bin/tpu-dis" --frob "$tmp/good.bin"
  check "tpu-dis missing file" 1 "missing.bin"              -- "$bin/tpu-dis" "$tmp/missing.bin"
fi

echo "cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
