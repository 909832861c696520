#!/usr/bin/env bash
# tutorial.sh BIN_DIR [DOC] - rerun the transcript of docs/tutorial.md and
# require the same output, so the tutorial cannot drift from the code.
#
# The transcript is the ```console blocks of DOC (default docs/tutorial.md):
#   - a line "$ COMMAND" is a shell command (a line ending in '\' goes on
#     on the next line); the lines after it, up to the next "$ " line or
#     the end of the block, are what it prints (stdout, then stderr);
#   - a command that runs `tpu-sim ... --step ...` opens a stepper session:
#     the lines "(tpu) CMD" that follow, in that block and in the next
#     ```console blocks that start with "(tpu) ", are the commands typed at
#     the prompt, each followed by what it printed.  The session is rerun
#     with the commands on standard input and --echo, which prints them
#     exactly as a terminal shows them.
# Commands run in order in one scratch directory, where `programs` is the
# repository's programs/ and BIN_DIR comes first in PATH.  Prints one line
# per command, then "tutorial: N passed, M failed"; exits 1 if any failed.
set -uo pipefail
bin=${1:?usage: tutorial.sh BIN_DIR [DOC]}
root=$(cd "$(dirname "$0")/.." && pwd) || exit 1
doc=${2:-$root/docs/tutorial.md}
[ -x "$bin/tpu-sim" ] || { echo "tutorial: $bin/tpu-sim not found (build it first)" >&2; exit 1; }
[ -r "$doc" ] || { echo "tutorial: cannot read $doc" >&2; exit 1; }
bin=$(cd "$bin" && pwd) || exit 1
work=$(mktemp -d "${TMPDIR:-/tmp}/tutorial.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
ln -s "$root/programs" "$work/programs"
mkdir "$work/items"

# Split the transcript into items: items/N.cmd (the command), N.in (the
# session's stdin, for --step), N.exp (the recorded output).
awk -v dir="$work/items" '
  function start(cmdline) {
    n++; item = dir "/" n; printf "" > (item ".exp"); printf "" > (item ".in")
    session = (cmdline ~ /tpu-sim .*--step/)
  }
  /^```console[ \t]*$/ { inblock = 1; first = 1; next }
  inblock && /^```[ \t]*$/ { inblock = 0; next }
  !inblock { next }
  {
    line = $0
    if (cont) {                       # continuation of a command line
      printf "%s\n", line >> (item ".cmd")
      cont = (line ~ /\\$/)
      first = 0; next
    }
    if (line ~ /^\$ /) {
      start(substr(line, 3))
      printf "%s\n", substr(line, 3) > (item ".cmd")
      cont = (line ~ /\\$/)
      first = 0; next
    }
    if (first && line !~ /^\(tpu\) /) { # a block must start with a command
      printf "block at line %d starts with neither \"$ \" nor \"(tpu) \"\n", NR > "/dev/stderr"
      bad = 1
    }
    first = 0
    if (n == 0) next
    if (session && line ~ /^\(tpu\) /)
      printf "%s\n", substr(line, 7) >> (item ".in")
    printf "%s\n", line >> (item ".exp")
  }
  END { if (bad) exit 1 }
' "$doc" || { echo "tutorial: cannot parse $doc"; exit 1; }

source "$root/tests/checks.sh"   # ok, bad, finish: TAP (tests/README.md)
for c in $(ls "$work/items" | sed -n 's/\.cmd$//p' | sort -n); do
  item="$work/items/$c"
  cmd=$(cat "$item.cmd")
  shown=$(head -n 1 "$item.cmd")
  if grep -q 'tpu-sim .*--step' "$item.cmd"; then
    run="$cmd --echo"
    input="$item.in"
  else
    run=$cmd
    input=/dev/null
  fi
  (cd "$work" && PATH="$bin:$PATH" bash -c "$run" <"$input" >"$item.out" 2>"$item.err")
  cat "$item.err" >>"$item.out"
  if diff -u "$item.exp" "$item.out" >"$item.diff"; then
    ok "\$ $shown"
  else
    bad "\$ $shown: the output differs from the transcript (- recorded, + now):"
    diag "$(head -n 60 "$item.diff")"
  fi
done
[ $pass -gt 0 ] || bad "no command of $doc was run"
finish tutorial
