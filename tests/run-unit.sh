#!/usr/bin/env bash
# run-unit.sh DIR - run every cmocka test binary in DIR; fail if any fails.
set -uo pipefail
dir=${1:?usage: run-unit.sh TEST_BIN_DIR}
pass=0; fail=0; failed=()
for t in "$dir"/test_*; do
  [ -x "$t" ] || continue
  case "$t" in *.d) continue;; esac
  if "$t"; then pass=$((pass+1)); else fail=$((fail+1)); failed+=("$(basename "$t")"); fi
done
echo "unit test binaries: $pass passed, $fail failed"
[ $fail -eq 0 ] || { echo "failed: ${failed[*]}"; exit 1; }
