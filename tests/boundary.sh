#!/usr/bin/env bash
# boundary.sh - the model's public boundary holds in the build
# (docs/architecture.md, "The public API"): with the flags the Makefile
# gives a tool (make print-cflags),
#   - every public header (cmodel/include/tpu/*.h) compiles alone;
#   - every other header of cmodel/ is not found, while the model's own
#     flags find it (so the failure is the boundary, not a broken header);
#   - the Verilated benches' -CFLAGS (sim/*/*.mk) name only that folder;
#   - a real tool (sim/tpu_as.c) compiles, and with a deliberate
#     `#include "core.h"` added it fails: "core.h: No such file".
# Run from the checkout's root.  Prints a TAP point per check
# (tests/checks.sh), then "boundary: N passed, M failed".
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
source tests/checks.sh
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

flags=$(MAKEFLAGS= make -s --no-print-directory print-cflags) || { bad "make print-cflags"; finish boundary; }
cc=$(sed -n 's/^CC=//p' <<<"$flags")
read -r -a tool <<<"$(sed -n 's/^CFLAGS=//p' <<<"$flags")"
read -r -a model <<<"$(sed -n 's/^MODEL_CFLAGS=//p' <<<"$flags")"
[ -n "$cc" ] && [ "${#tool[@]}" -gt 0 ] && [ "${#model[@]}" -gt 0 ] \
  || { bad "make print-cflags gave no CC, CFLAGS or MODEL_CFLAGS"; finish boundary; }
if printf '%s\n' "${tool[@]}" | grep -qx -- '-Icmodel'; then
  bad "the tools' CFLAGS have -Icmodel: ${tool[*]}"
else
  ok "the tools' CFLAGS have no -Icmodel, only the public folder: $(printf '%s\n' "${tool[@]}" | grep -m1 cmodel)"
fi
# the Verilated benches (-CFLAGS of sim/*/*.mk) see the public folder only
reach=$(grep -n 'abspath cmodel)' sim/*/*.mk)
if [ -z "$reach" ]; then ok "the Verilated benches' -CFLAGS name cmodel/include/tpu, not cmodel/"
else bad "a Verilated bench sees cmodel/: $reach"; fi

# compile FLAGS_ARRAY FILE: -fsyntax-only, its messages in $tmp/cc.err
compile() { local -n f=$1; "$cc" "${f[@]}" -fsyntax-only "$2" >"$tmp/cc.err" 2>&1; }

n=0
for h in cmodel/include/tpu/*.h; do
  name=$(basename "$h") n=$((n + 1))
  printf '#include "%s"\nint main(void) { return 0; }\n' "$name" >"$tmp/pub.c"
  if compile tool "$tmp/pub.c"; then ok "public $name: compiles alone with a tool's flags"
  else bad "public $name: does not compile alone with a tool's flags"; diag "$(head -n 5 "$tmp/cc.err")"; fi
done
[ "$n" -gt 0 ] || bad "no public header in cmodel/include/tpu/"

for h in cmodel/*.h; do
  name=$(basename "$h")
  printf '#include "%s"\n' "$name" >"$tmp/in.c"
  if compile tool "$tmp/in.c"; then
    bad "internal $name: a tool can include it (make it public in cmodel/include/tpu/, or keep tools out)"
  elif ! grep -q "$name: No such file" "$tmp/cc.err"; then
    bad "internal $name: fails for another reason than not found"; diag "$(head -n 3 "$tmp/cc.err")"
  elif ! "$cc" "${model[@]}" -E "$tmp/in.c" >/dev/null 2>"$tmp/model.err"; then
    bad "internal $name: the model's flags do not find it either"; diag "$(head -n 3 "$tmp/model.err")"
  else
    ok "internal $name: not found with a tool's flags, found with the model's"
  fi
done

cp sim/tpu_as.c "$tmp/tpu_as.c"
if compile tool "$tmp/tpu_as.c"; then ok "sim/tpu_as.c compiles with a tool's flags"
else bad "sim/tpu_as.c does not compile with a tool's flags"; diag "$(head -n 5 "$tmp/cc.err")"; fi
{ echo '#include "core.h"      /* a deliberate reach into the model */'; cat sim/tpu_as.c; } >"$tmp/tpu_as.c"
if compile tool "$tmp/tpu_as.c"; then
  bad "sim/tpu_as.c with #include \"core.h\" compiles: the boundary is not in the build"
elif grep -q 'core.h: No such file' "$tmp/cc.err"; then
  ok "sim/tpu_as.c with #include \"core.h\" fails: $(grep -m1 -o 'fatal error: core.h: No such file.*' "$tmp/cc.err")"
else
  bad "sim/tpu_as.c with #include \"core.h\" fails for another reason"; diag "$(head -n 3 "$tmp/cc.err")"
fi

finish boundary
