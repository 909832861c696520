#!/usr/bin/env bash
# The cmocka unit tests (tests/test_*.c): each binary's TAP
# (CMOCKA_MESSAGE_OUTPUT=TAP) renumbered into one stream, and a binary that
# exits non-zero without a failed test (a crash) one more failed test.
# BUILD is the build directory (make test exports it).
set -uo pipefail
dir=${BUILD:-build}/tests
log=$(mktemp) || exit 1
trap 'rm -f "$log"' EXIT
n=0
for src in tests/test_*.c; do                # the sources name the binaries
  b=$(basename "$src" .c) t=$dir/$(basename "$src" .c)
  if [ ! -x "$t" ]; then
    n=$((n + 1)); echo "not ok $n - $b: not built ($t)"; continue
  fi
  CMOCKA_MESSAGE_OUTPUT=TAP "$t" >"$log" 2>&1
  status=$? failed=0
  while IFS= read -r line; do
    case "$line" in
      "ok "*|"not ok "*)
        n=$((n + 1))
        word=ok; [ "${line#not ok}" != "$line" ] && word="not ok" failed=1
        rest=${line#"$word" }; rest=${rest#* }; rest=${rest#- }
        echo "$word $n - $b: $rest" ;;
      1..*) ;;
      *) echo "# $line" ;;
    esac
  done <"$log"
  if [ "$status" -ne 0 ] && [ "$failed" = 0 ]; then
    n=$((n + 1)); echo "not ok $n - $b: exit status $status"
  fi
done
echo "1..$n"
