#!/usr/bin/env bash
# cosim_abi.sh BUILD_DIR - the lockstep benches refuse a C model library
# compiled with another cmodel/config.def than their own object
# (config_layout_matches, sim/cosim/trace_records.h): the 64x64 lockstep
# crash of issue 34 was a bench object compiled before the energy keys were
# added, linked with a library compiled after; tpu_config_load wrote 64
# bytes past the bench's tpu_config.  A small program includes the header
# with config.def as it is, without its last key (the library's tpu_config
# is larger: that crash) and with one key more (smaller), linked with
# BUILD_DIR's libraries.
# Prints "cosim-abi: N passed, M failed" and exits non-zero on any failure.
set -uo pipefail
build=${1:?usage: cosim_abi.sh BUILD_DIR}
CXX=${CXX:-g++}
san=()     # a library of make SAN=1 (build-san) is instrumented
nm "$build/libtpumodel.a" 2>/dev/null | grep -q __asan && san=(-fsanitize=address,undefined)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=checks.sh
source "$(dirname "$0")/checks.sh"   # ok, bad, finish: TAP (tests/README.md)

cat > "$tmp/abi.cpp" <<'CPP'
#include "cosim/trace_records.h"
int main() { std::puts(tpu_cosim::config_layout_matches() ? "same" : "differs"); return 0; }
CPP
# check NAME WANT: compile abi.cpp with the public headers of $tmp/NAME (a
# copy of cmodel/include/tpu/ beside a config.def of its own, which config.h
# includes as ../../config.def), run it, expect WANT
check() {
  local name=$1 want=$2
  if ! "$CXX" -std=gnu++17 -O1 -Wall -Wextra -Werror ${san[@]+"${san[@]}"} -I"$tmp/$name/include/tpu" -Isim \
       -o "$tmp/abi-$name" "$tmp/abi.cpp" "$build/libtpusim.a" "$build/libtpumodel.a" -lm \
       2>"$tmp/cc.log"; then
    bad "$name: does not compile"; tail -5 "$tmp/cc.log"; return
  fi
  local got
  got=$("$tmp/abi-$name")
  [ "$got" = "$want" ] && ok "config.def $name: $got" || bad "config.def $name: '$got', want '$want'"
}
for d in as-is short long; do
  mkdir -p "$tmp/$d/include" && cp -r cmodel/include/tpu "$tmp/$d/include/" && cp cmodel/isa.def "$tmp/$d/"
done
cp cmodel/config.def "$tmp/as-is/"
check as-is same
last=$(grep -n '^KEY(' cmodel/config.def | tail -n 1 | cut -d: -f1)
sed "${last}d" cmodel/config.def > "$tmp/short/config.def"
{ cat cmodel/config.def
  echo 'KEY(zz_extra_key, F64, 1, 0, 2, "a key the library does not have")'; } > "$tmp/long/config.def"
check short differs
check long differs
finish cosim-abi
