#!/usr/bin/env bash
# labs_attacks.sh BIN_DIR WORK_DIR - a class of hostile and careless
# submissions against tpu-lab (issue 30; docs/labs/README.md, "What the
# grader trusts"):
#   - includes that leave the submission's folder (absolute, '..', a
#     symbolic link, a device, a FIFO) are refused, cost the checks, and
#     never print a word of the file they name, nor tell whether it exists;
#   - a submission that is itself a link to the reference solution is refused;
#   - grade-class picks the lab's file in a student's folder, says which and
#     warns about the others; formula cells are escaped; a class summary;
#   - the "look at:" line fits what failed; repeated answer gradings slow down;
#   - tpu-lab run through PATH from another folder finds its programs;
#   - lab 10's design file: lines that name files, huge keys and values,
#     bytes that are not text, malformed lines: the config check fails at
#     once with the reason, nothing of another file is printed.
set -uo pipefail
bin=${1:?usage: labs_attacks.sh BIN_DIR WORK_DIR}
work=${2:?usage: labs_attacks.sh BIN_DIR WORK_DIR}
bin=$(cd "$bin" && pwd)
repo=$(pwd)
rm -rf "$work" && mkdir -p "$work"
work=$(cd "$work" && pwd)
export TPU_LAB_DELAY=0 TPU_LAB_STATE_DIR="$work/state"
source "$(dirname "$0")/checks.sh"   # ok, bad, skip, finish: TAP (tests/README.md)
S=$repo/programs/labs/solutions
lab() { timeout -k 5 60 "$bin/tpu-lab" "$@"; }

# A secret of the grading machine, outside every submission.
mkdir -p "$work/secret"
echo 'hunter2' > "$work/secret/pw.txt"

# attack NAME INCLUDE-LINE [SETUP]: a lab 3 submission that includes
# something; it must score below 10, say why, and print nothing of the
# secret or of /etc.
attack() {
  local name=$1 inc=$2 dir="$work/$1"
  mkdir -p "$dir"
  printf '%s\n' "$inc" > "$dir/lab3.s"
  [ $# -ge 3 ] && (cd "$dir" && eval "$3")
  lab grade 3 "$dir/lab3.s" >"$dir/out.txt" 2>&1
  local rc=$? score
  score=$(sed -n 's/^score: \([0-9]*\)\/10$/\1/p' "$dir/out.txt")
  if [ $rc -eq 1 ] && [ "$score" = 0 ] && grep -q "cannot include" "$dir/out.txt" \
     && ! grep -Eq 'hunter2|root:|daemon|^ *#|lab 3: tile|Lab 3' "$dir/out.txt" \
     && ! grep -Fq "$(hostname)" "$dir/out.txt"; then
    ok "attack $name: 0/10, '$(grep -o "cannot include[^:]*: [^(]*" "$dir/out.txt" | head -n 1)'"
  else
    bad "attack $name: exit $rc, score '$score'"; sed 's/^/      /' "$dir/out.txt"
  fi
}
attack abs-solution ".include \"$S/03-tiling.s\""
attack dotdot-solution ".include \"../../../../../../../..$S/03-tiling.s\""
attack symlink-solution '.include "sol.s"' "ln -s '$S/03-tiling.s' sol.s"
attack symlink-dir '.include "d/03-tiling.s"' "ln -s '$S' d"
attack leak-secret '.include "../secret/pw.txt"'
attack leak-secret-link '.include "pw.txt"' "ln -s '$work/secret/pw.txt' pw.txt"
attack leak-hostname '.include "/etc/hostname"'
attack leak-passwd '.include "/etc/passwd"'
attack device '.include "/dev/zero"'
attack fifo '.include "pipe.s"' "mkfifo pipe.s"
attack proc '.include "/proc/self/environ"'

# the refusal tells nothing about existence: the same words for a file
# that exists and one that does not
for pair in "/etc/passwd /etc/no-such-file" "../secret/pw.txt ../secret/nothing.txt"; do
  set -- $pair
  a=$(printf '.include "%s"\n' "$1" > "$work/e1.s"; lab grade 3 "$work/e1.s" 2>&1 \
      | grep -o "cannot include[^)]*" | sed "s|'[^']*'|NAME|")
  b=$(printf '.include "%s"\n' "$2" > "$work/e1.s"; lab grade 3 "$work/e1.s" 2>&1 \
      | grep -o "cannot include[^)]*" | sed "s|'[^']*'|NAME|")
  [ -n "$a" ] && [ "$a" = "$b" ] && ok "existence of $1 not told: '$a'" \
    || bad "existence of $1 told: '$a' vs '$b'"
done

# a submission that is a link to the solution, to grade and to grade-class
# Lab 10's design file is read as three words and nothing else: lines that
# name files, huge values, bytes that are not text, malformed lines.  Each
# costs the config check (0/10, at once), says why, and prints nothing of
# the files named.
att10() {
  local name=$1 want=$2 dir="$work/l10-$1"
  mkdir -p "$dir"
  cat > "$dir/10-shard-mlp.cfg"
  lab grade 10 "$dir/10-shard-mlp.cfg" >"$dir/out.txt" 2>&1
  local rc=$? score
  score=$(sed -n 's/^score: \([0-9]*\)\/10$/\1/p' "$dir/out.txt")
  if [ $rc -eq 1 ] && [ "$score" = 0 ] && grep -Eq "^  FAIL +0/1 +config .*$want" "$dir/out.txt" \
     && ! grep -Eq 'hunter2|root:|daemon' "$dir/out.txt" && [ "$(wc -c < "$dir/out.txt")" -lt 4000 ]; then
    ok "lab 10 attack $name: 0/10, '$(grep -o "config .*" "$dir/out.txt" | head -n 1 | cut -c1-90)'"
  else
    bad "lab 10 attack $name: exit $rc, score '$score'"; head -c 2000 "$dir/out.txt" | sed 's/^/      /'
  fi
}
att10 include "unknown key 'include'" < <(printf 'include = /etc/passwd\nshard = F_X\nreduce = ring\noverlap = yes\n')
att10 path-value "the lab takes F_X" < <(printf 'shard = ../secret/pw.txt\nreduce = ring\noverlap = yes\n')
att10 long-path "1 to 16 characters" < <(printf 'shard = ../../secret/pw.txt\nreduce = ring\noverlap = yes\n')
att10 abs-value "the lab takes F_X" < <(printf 'shard = /etc/passwd\nreduce = ring\noverlap = yes\n')
att10 huge-value "1 to 16 characters" < <({ printf 'shard = F_X\nreduce = ring\noverlap = '; head -c 200000 /dev/zero | tr '\0' y; printf '\n'; })
att10 huge-key "unknown key 'xxxxxxxx" < <({ printf 'shard = F_X\nreduce = ring\n'; head -c 300000 /dev/zero | tr '\0' x; printf ' = yes\n'; })
att10 huge-number "overlap = 99999999999: yes or no" < <(printf 'shard = F_X\nreduce = ring\noverlap = 99999999999\n')
att10 nul "not a text file" < <(printf 'shard = F_X\x00\nreduce = ring\noverlap = yes\n')
att10 binary "not plain text \\(0xff\\)" < <(printf 'shard = F_X\xff\x1b[2J\nreduce = ring\noverlap = yes\n')
att10 no-equals "expected 'key = value'" < <(printf 'shard F_X\nreduce = ring\noverlap = yes\n')
att10 twice "shard is given twice" < <(printf 'shard = F_X\nshard = B_X\nreduce = ring\noverlap = yes\n')
att10 other-axis "the lab takes F_X" < <(printf 'shard = F_X,F_Y\nreduce = ring\noverlap = yes\n')
att10 missing "no 'overlap = ...' line" < <(printf 'shard = F_X\nreduce = ring\n')
att10 bad-reduce "reduce = tree: a2a or ring" < <(printf 'shard = F_X\nreduce = tree\noverlap = no\n')

mkdir -p "$work/linked"
ln -s "$S/03-tiling.s" "$work/linked/lab3.s"
lab grade 3 "$work/linked/lab3.s" >"$work/linked.out" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q 'symbolic link that leaves its folder' "$work/linked.out" \
  && ok "grade: a submission linked to the solution is refused (exit 2)" \
  || { bad "grade: linked submission: exit $rc"; sed 's/^/      /' "$work/linked.out"; }

# inside the folder, includes work: the reference solution split in two
mkdir -p "$work/split/parts"
head -n 20 "$S/03-tiling.s" > "$work/split/parts/head.inc"
{ echo '.include "parts/head.inc"'; tail -n +21 "$S/03-tiling.s"; } > "$work/split/lab3.s"
lab grade 3 "$work/split/lab3.s" >"$work/split.out" 2>&1 \
  && grep -qx 'score: 10/10' "$work/split.out" \
  && ok "an include inside the submission's folder works (10/10)" \
  || { bad "include inside the folder"; sed 's/^/      /' "$work/split.out"; }

# ---- grade-class -------------------------------------------------------------
class="$work/class"
mkdir -p "$class/dana" "$class/erin" "$class/frank" "$class/=HYPERLINK(\"http:x\")" "$class/gina"
cp "$repo/programs/labs/03-tiling.s" "$class/dana/a_old_attempt.s"     # the starter: 3/10
cp "$S/03-tiling.s" "$class/dana/lab3.s"                               # the lab's name: 10/10
touch -d '2020-01-01' "$class/dana/lab3.s"                             # older, still chosen
cp "$repo/programs/labs/03-tiling.s" "$class/erin/try1.s"
cp "$S/03-tiling.s" "$class/erin/try2.s"
touch -d '2020-01-01' "$class/erin/try1.s"                             # try2 is the newest
ln -s "$S/03-tiling.s" "$class/frank/lab3.s"                           # only a link
cp "$S/03-tiling.s" "$class/=HYPERLINK(\"http:x\")/lab3.s"
mkfifo "$class/gina/lab3.s"                                            # a FIFO
printf '.include "bob.s"\n' > "$class/alice.s"                         # another student's file
mkdir -p "$class/hana"
printf '.include "../../secret/pw.txt"\n' > "$class/hana/lab3.s"        # the grading machine's secret
cp "$S/03-tiling.s" "$class/bob.s"
ln -s "$S/03-tiling.s" "$class/carl.s"
lab grade-class 3 "$class" --csv "$work/class.csv" >"$work/class.out" 2>"$work/class.err"
rc=$?
csv="$work/class.csv"
row() { grep "^$1," "$csv"; }
if [ $rc -eq 0 ]; then ok "grade-class of the hostile class: exit 0"
else bad "grade-class: exit $rc"; sed 's/^/      /' "$work/class.err"; fi
row dana | grep -q "^dana,[^,]*dana/lab3.s,3,10,10," && row dana | grep -q 'not graded: a_old_attempt.s' \
  && ok "dana: lab3.s graded (the lab's file name), a_old_attempt.s named in the warning" \
  || bad "dana: $(row dana)"
row erin | grep -q "^erin,[^,]*erin/try2.s,3,10,10," && row erin | grep -q 'the newest' \
  && ok "erin: the newest of two files graded, the other named" || bad "erin: $(row erin)"
row frank | grep -q '^frank,,3,0,10,.*symbolic link' \
  && ok "frank: a link to the solution is not graded (0)" || bad "frank: $(row frank)"
row gina | grep -q '^gina,,3,0,10,.*no regular .s file' \
  && ok "gina: a FIFO is not graded and does not hang" || bad "gina: $(row gina)"
row alice | grep -q '^alice,[^,]*,3,0,10,.*cannot include' \
  && ok "alice: a flat file may not include another student's file" || bad "alice: $(row alice)"
row carl | grep -q '^carl,,3,0,10,.*symbolic link' \
  && ok "carl: a flat link to the solution is not graded" || bad "carl: $(row carl)"
grep -q "^\"'=HYPERLINK(\"\"http:x\"\")\",[^,]*,3,10,10," "$csv" \
  && ! grep -q '^=' "$csv" && ! grep -q ',=' "$csv" \
  && ok "a student named =HYPERLINK(...) is escaped: no cell starts with =" \
  || { bad "formula escaping"; grep -i hyperlink "$csv" | sed 's/^/      /'; }
row hana | grep -q '^hana,[^,]*,3,0,10,.*cannot include' \
  && ! grep -q 'hunter2' "$csv" "$work/class.out" "$work/class.err" \
  && ok "hana's include of the secret is refused: the CSV and the output hold nothing of it" \
  || bad "the secret leaked: $(row hana)"
head -n 1 "$csv" | grep -q ',speed_cycles,speed_pct_of_bound,first_failure,warning$' \
  && row dana | grep -Eq ',[0-9]+,[0-9]+\.[0-9],[^,]*,"?graded lab3.s' \
  && ok "the CSV has each check's cycles and % of the bound" || bad "cycles columns: $(row dana)"
summary="$work/class-summary.txt"
if [ -f "$summary" ] && grep -q '^class summary: lab 3, .*: 6 graded, 3 without a gradable file' "$summary" \
   && grep -q '^mean 6.67, median 10, out of 10$' "$summary" \
   && grep -Eq '^ +10/10 +4 #+$' "$summary" && grep -Eq '^ +0/10 +2 #+$' "$summary" \
   && grep -q '^class summary' "$work/class.out"; then
  ok "the class summary: count, mean, median, histogram, printed and beside the CSV"
else
  bad "class summary"; sed 's/^/      /' "$summary" "$work/class.out" 2>/dev/null
fi

# ---- feedback that fits the failure ------------------------------------------
T=$repo/tests/labs
look() {  # look LAB FILE PATTERN WHAT
  lab grade "$1" "$2" > "$work/look.out" 2>&1
  grep -A1 ' FAIL ' "$work/look.out" | grep 'look at:' | head -n 1 | grep -q "$3" \
    && ok "look at fits $4" || { bad "look at for $4"; sed 's/^/      /' "$work/look.out"; }
}
look 3 "$T/03-deadlock.s" 'the waits on sem 4' "a deadlock (names the semaphore)"
look 3 "$T/03-no-accumulate.s" 'the result at \[0\]\[0\]' "a wrong result (names the element)"
look 2 "$T/02-does-not-assemble.s" "assembler message" "an assembler error"
sed 's/^\( *\)halt/\1jmp 0/' "$S/03-tiling.s" > "$work/loop.s"
grep -q 'jmp 0' "$work/loop.s" && look 3 "$work/loop.s" 'an endless loop' "the cycle limit" \
  || bad "loop.s: no halt to replace"
sed '0,/^\( *li  *s1, *\)WS *$/s//\1WS + 0x7fff0000/' "$S/03-tiling.s" > "$work/range.s"
look 3 "$work/range.s" 'the addresses and sizes of the instruction at pc [0-9]* (dma' "an address out of range"
grep -A1 ' FAIL .* speed ' "$work/look.out" | grep -q 'result-large first' \
  && ok "speed after a failed result looks at result-large" || bad "speed's look"

# ---- repeated grading of answers slows down -----------------------------------
(
  unset TPU_LAB_DELAY
  for i in 1 2 3 4; do "$bin/tpu-lab" grade --quiet 1 "$S/01-answers.txt" --student pat; done
) > "$work/delay.out" 2>&1
grep -q 'graded 3 times in the last 10 minutes for pat: waiting 1 s' "$work/delay.out" \
  && [ "$(grep -c waiting "$work/delay.out")" -eq 1 ] \
  && ok "the 4th grading of lab 1 in 10 minutes waits (1 s)" \
  || { bad "the delay"; sed 's/^/      /' "$work/delay.out"; }

# ---- tpu-lab through PATH, from another folder --------------------------------
mkdir -p "$work/elsewhere/pathbin"
ln -sf "$bin/tpu-lab" "$work/elsewhere/pathbin/tpu-lab"
(cd "$work/elsewhere" && PATH="$work/elsewhere/pathbin:$PATH" tpu-lab grade 2 "$S/02-pointwise.s") \
  > "$work/path.out" 2>&1 && grep -qx 'score: 10/10' "$work/path.out" \
  && ok "tpu-lab found through PATH and a link finds its programs folder" \
  || { bad "tpu-lab through PATH"; sed 's/^/      /' "$work/path.out"; }
# a programs folder in the working directory does not replace the lab's own
mkdir -p "$work/fake/programs/labs/solutions"
echo 'mxu_n = 1' > "$work/fake/programs/labs/solutions/07-codesign.cfg"
(cd "$work/fake" && "$bin/tpu-lab" grade 7 "$S/07-codesign.cfg") > "$work/fake.out" 2>&1 \
  && grep -qx 'score: 10/10' "$work/fake.out" \
  && ok "a programs/ folder in the working directory is not the lab's" \
  || { bad "the working directory's programs/"; sed 's/^/      /' "$work/fake.out"; }

# ---- what a student meets first ------------------------------------------------
# the starters check themselves in tpu-sim (their .expect lines)
P=$repo/programs
starter() {  # starter FILE CONFIG DEFINES...
  local f=$1 cfg=$2; shift 2
  "$bin/tpu-as" --config "$cfg" "$@" -o "$work/starter.bin" "$f" 2>"$work/starter.err" \
    && "$bin/tpu-sim" --config "$cfg" "$work/starter.bin" > "$work/starter.out" 2>&1
  grep -q '^result: bit-exact' "$work/starter.out" \
    && ok "starter $(basename "$f") checks its result in tpu-sim" \
    || { bad "starter $(basename "$f"): $(tail -n 1 "$work/starter.out" "$work/starter.err")"; }
}
starter "$P/labs/02-pointwise.s" tiny -D NELEM=65536
starter "$P/labs/03-tiling.s" "$P/labs/03-tiny32k.cfg" -D B=16 -D D=16 -D F=16
starter "$P/labs/04-double-buffer.s" tiny
# lab 7's handout: vmem_bw of max(num_mxu x 12 x mxu_n + 16, 256) is taken,
# one byte less is refused
printf '        halt\n' > "$work/halt.s"
vmin_ok=1
for n in 8 16; do for m in 1 2 4; do
  need=$((m * 12 * n + 16)); [ $need -lt 256 ] && need=256
  for v in $need $((need - 1)); do
    sed "s/^mxu_n .*/mxu_n = $n/; s/^num_mxu .*/num_mxu = $m/; s/^vmem_bw .*/vmem_bw = $v/" \
      "$P/labs/07-codesign.cfg" > "$work/l7.cfg"
    "$bin/tpu-as" --config "$work/l7.cfg" -o "$work/halt.bin" "$work/halt.s" 2>/dev/null \
      && "$bin/tpu-sim" --config "$work/l7.cfg" "$work/halt.bin" >/dev/null 2>&1
    rc=$?
    if { [ $v -eq $need ] && [ $rc -ne 0 ]; } || { [ $v -ne $need ] && [ $rc -eq 0 ]; }; then
      vmin_ok=0; echo "      mxu_n $n num_mxu $m vmem_bw $v: exit $rc"
    fi
  done
done; done
[ $vmin_ok = 1 ] && ok "lab 7's vmem_bw minimum is the model's (6 designs, at and one below)" \
  || bad "lab 7's vmem_bw minimum"
grep -q 'max(num_mxu · 12 · mxu_n + 16, 256)' "$repo/docs/labs/07-codesign.md" \
  && ok "lab 7's handout states that minimum" || bad "lab 7's handout"
# the tutorial's program names the tutorial's machine on its first line
head -n 1 "$P/tutorial_4x4.s" | grep -qx '# tpu-as: --config programs/tut4.cfg' \
  && grep -q 'tpu-as --config programs/tut4.cfg programs/tutorial_4x4.s' "$repo/docs/tutorial.md" \
  && ok "tutorial_4x4.s's first line names tut4.cfg, as the tutorial runs it" \
  || bad "tutorial_4x4.s's first line: $(head -n 1 "$P/tutorial_4x4.s")"

finish labs-attacks
