#!/usr/bin/env bash
# html.sh BIN_DIR - tpu-sim --html's page, opened in headless Chromium and
# compared with what the stepper (tpu-sim --step) prints:
#   - the tutorial's matmul (programs/tutorial_4x4.s on programs/tut4.cfg),
#     the page opened at a cycle by its address (#cycle=N): in the middle of
#     the weight load, with non-zero partial sums, the last cycle; each
#     against `show cell`, `show units` and the stepper's status line;
#   - every cell, unit line and status line of every cycle of that run, read
#     off the page driven through its buttons (+1 from the first cycle, -1
#     back from the last), against the stepper's `trace cell` lines for all
#     16 cells and its `show units` and status lines;
#   - a window (--html-cycles) of programs/matmul.s on tiny, inside and
#     outside it, and the size of a 10,000-cycle window;
#   - a run stopped by Ctrl-C while it records still leaves a page that loads;
#   - every page is self-contained (no address outside the file) and logs
#     nothing on the browser's console; a page with a script error injected
#     must be caught, so that the console check is known to work.
# Prints "html: N passed, M failed" and exits non-zero on any failure.
set -uo pipefail
bin=${1:?usage: html.sh BIN_DIR}
root=$(cd "$(dirname "$0")/.." && pwd) || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
ok()  { echo "ok    $*"; pass=$((pass+1)); }
bad() { echo "FAIL  $*"; fail=$((fail+1)); }

chromium=$(command -v chromium || true)
if [ -z "$chromium" ]; then
  bad "chromium is not installed: run 'bash sim/scripts/install-deps.sh' as root" \
      "(apt-get update && apt-get install -y --no-install-recommends chromium)"
  echo "html: $pass passed, $fail failed"
  exit 1
fi

# open_page URL DOM LOG: load the page headless; its DOM after the scripts
# ran goes to DOM, Chromium's log (the page's console in it) to LOG.
open_page() {
  timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --no-first-run \
    --user-data-dir="$tmp/profile" --virtual-time-budget=5000 --enable-logging=stderr --v=0 \
    --dump-dom "$1" >"$2" 2>"$3"
}
# console_clean NAME LOG: the page wrote nothing on the console (an uncaught
# error, console.log and console.error all show as CONSOLE lines).
console_clean() {
  if grep -q ':CONSOLE' "$2"; then
    bad "$1: the browser's console says: $(grep ':CONSOLE' "$2" | head -3)"
  else
    ok "$1: nothing on the browser's console"
  fi
}
# self_contained NAME FILE: no address of anything outside the file.
self_contained() {
  if grep -Eiq '(src|href|action)=|https?:|url\(|@import' "$2"; then
    bad "$1 refers to something outside it: $(grep -Eio '.{0,30}((src|href|action)=|https?:|url\(|@import).{0,30}' "$2" | head -2)"
  else
    ok "$1 is self-contained (no src=, href=, url(), http)"
  fi
}

# stepper_at N COMMANDS...: what the stepper prints for the commands at
# cycle N of the run of "${sim[@]}" (tpu-sim's options and the object).
stepper_at() {
  local n=$1; shift
  { echo "step $((n + 1))"; printf '%s\n' "$@"; } | "$bin/tpu-sim" --step "${sim[@]}" 2>&1
}

# check_cycle PAGE N [CELL...]: the page opened at #cycle=N against the
# stepper at cycle N: the status line, every `show units` line and for each
# CELL ("K R C") the numbers of `show cell` (weight, shadow, the weight
# arriving, LHS row, x, partial sum out) and its whole text.  Prints ok and
# FAIL lines.
check_cycle() {
  local page=$1 n=$2 name cell
  shift 2
  name=$(basename "$page")
  if ! open_page "file://$page#cycle=$n" "$tmp/dom.html" "$tmp/log.txt"; then
    echo "FAIL  $name#cycle=$n: chromium failed: $(tail -3 "$tmp/log.txt")"; return
  fi
  console_clean "$name#cycle=$n" "$tmp/log.txt"
  local cmds=("show units")
  for cell in "$@"; do cmds+=("show cell $cell"); done
  stepper_at "$n" "${cmds[@]}" >"$tmp/step.txt"
  python3 - "$name" "$n" "$tmp/dom.html" "$tmp/step.txt" "$@" <<'EOF'
import html, re, sys
name, n, dom_path, step_path, cells = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5:]
dom, step = open(dom_path).read(), open(step_path).read()
def result(ok, what):
    print(("ok    " if ok else "FAIL  ") + "%s, cycle %d: %s" % (name, n, what))
def attrs(elem_id):
    m = re.search(r'<[a-z]+ ([^>]*\bid="%s"[^>]*)>' % re.escape(elem_id), dom)
    return m and {k: html.unescape(v) for k, v in re.findall(r'([\w-]+)="([^"]*)"', m.group(1))}
body = re.search(r'<body data-cycle="(\d+)"', dom)
result(body and int(body.group(1)) == n, "#cycle=%d opens cycle %s" % (n, body and body.group(1)))
status = re.search(r'<div id="status">([^<]*)</div>', dom)
status = status and html.unescape(status.group(1))
want = re.search(r'^(cycle %d: .*)$' % n, step, re.M)
want = want and want.group(1)
result(status and status == want, "status line %r%s" % (status, "" if status == want else ", stepper %r" % want))
units = re.search(r'units in cycle %d:\n((?:  .*\n)+)' % n, step)
for line in (units.group(1).splitlines() if units else []):
    a = attrs("unit-" + line.split()[0]) or {}
    result(a.get("data-line") == line.strip(), "unit line %r%s" % (a.get("data-line"),
           "" if a.get("data-line") == line.strip() else ", show units %r" % line.strip()))
if not units:
    result(False, "the stepper printed no 'units in cycle %d'" % n)
for cell in cells:
    k, r, c = cell.split()
    a = attrs("cell-%s-%s-%s" % (k, r, c))
    m = re.search(r'mxu%s cell \(%s, %s\): weight (\S+) \(0x\w+\), shadow (\S+) \(0x\w+\)\n'
                  r'(?:  weight being loaded: (\S+) \(0x\w+\).*\n)?'
                  r'(?:  multiply-add of LHS row (\d+): x (\S+) \(0x\w+\), partial sum out (\S+) \(0x\w+\)\n'
                  r'|  no multiply-add in this cycle\n)' % (k, r, c), step)
    if not a or not m:
        result(False, "cell %s: page %r, show cell %r" % (cell, a, m and m.group(0)))
        continue
    want = {"w": m.group(1), "s": m.group(2), "l": m.group(3) or "", "row": m.group(4) or "",
            "x": m.group(5) or "", "y": m.group(6) or ""}
    got = {key: a.get("data-" + key) for key in want}
    result(got == want, "mxu%s cell (%s, %s): %s" % (k, r, c,
           " ".join("%s %s" % (key, v or "-") for key, v in got.items()) if got == want
           else "page %s, show cell %s" % (got, want)))
    title = a.get("title", "")
    result(title == m.group(0), "mxu%s cell (%s, %s): its text is show cell's%s" % (k, r, c,
           "" if title == m.group(0) else ": %r, want %r" % (title, m.group(0))))
EOF
}
# run_check PAGE N CELL...: check_cycle, its lines printed and counted.
run_check() {
  last_check=$(check_cycle "$@")
  echo "$last_check"
  pass=$((pass + $(grep -c '^ok' <<<"$last_check")))
  fail=$((fail + $(grep -c '^FAIL' <<<"$last_check")))
}

# ---- the tutorial's run, at a few cycles ---------------------------------------------------
cfg=$root/programs/tut4.cfg
"$bin/tpu-as" --config "$cfg" "$root/programs/tutorial_4x4.s" -o "$tmp/tut4.bin" >/dev/null \
  || bad "assemble programs/tutorial_4x4.s"
if "$bin/tpu-sim" --config "$cfg" --quiet --html "$tmp/tut4.html" "$tmp/tut4.bin" >"$tmp/run.out" 2>&1 \
   && [ -s "$tmp/tut4.html" ]; then
  ok "tpu-sim --html tut4.html: $(wc -c <"$tmp/tut4.html") bytes for the whole run (57 cycles)"
else
  bad "tpu-sim --html: $(cat "$tmp/run.out")"
fi
self_contained "tut4.html" "$tmp/tut4.html"

# Cycle 39: the weights' wavefront is in the array (the cells on k + c = 2
# receive theirs); 45 and 48: partial sums in most cells; 56: the last cycle.
sim=(--config "$cfg" "$tmp/tut4.bin")
run_check "$tmp/tut4.html" 39 "0 0 2" "0 1 1" "0 2 0" "0 0 3" "0 3 3"
grep -q 'mxu0 cell (1, 1): w 0 s 21 l 21 ' <<<"$last_check" \
  && ok "cycle 39: cell (1, 1) receives its weight 21, in the middle of the weight load" \
  || bad "cycle 39: cell (1, 1) does not show the weight 21 arriving"
run_check "$tmp/tut4.html" 45 "0 0 0" "0 1 1" "0 3 0" "0 2 3"
grep -q 'mxu0 cell (1, 1): .* y 64$' <<<"$last_check" \
  && ok "cycle 45: cell (1, 1) makes the partial sum 64 (not zero)" \
  || bad "cycle 45: cell (1, 1) does not show the partial sum 64"
run_check "$tmp/tut4.html" 48 "0 3 3" "0 3 0" "0 2 2"
run_check "$tmp/tut4.html" 56 "0 3 3"

# ---- every cycle, driven through the page's buttons ------------------------------------------
# drive_check PAGE N FIRST LAST: a script added at the end of a copy of
# PAGE presses +1 from the first recorded cycle to the last, then -1 back to
# the first (the page's two ways to a cycle: a step on from the cycle shown,
# and a jump from a checkpoint), writing what the page shows into <pre
# id="test-dump">.  The stepper is stopped at each of the cycles FIRST to
# LAST of the run of "${sim[@]}" (an N x N MXU) for `show units` and `show
# cell` of every cell: every line must be the page's.
cat >"$tmp/drive.js" <<'EOF'
<script>
(function () {
  var out = [], slider = document.getElementById("cycle"), lo = +slider.min, hi = +slider.max;
  function record(way) {
    var c = document.body.getAttribute("data-cycle");
    var cells = document.querySelectorAll("[id^='cell-']");
    for (var i = 0; i < cells.length; i++)
      out.push([way, c, cells[i].id, cells[i].title.replace(/\n/g, "\\n")].join("|"));
    var units = document.querySelectorAll("[id^='unit-']");
    for (i = 0; i < units.length; i++)
      out.push([way, c, units[i].id, units[i].getAttribute("data-line")].join("|"));
    out.push([way, c, "status", document.getElementById("status").textContent].join("|"));
  }
  slider.value = lo;
  slider.dispatchEvent(new Event("input"));
  for (var c = lo; c <= hi; c++) { record("fwd"); document.getElementById("fwd1").click(); }
  for (c = hi; c >= lo; c--) { record("back"); document.getElementById("back1").click(); }
  var pre = document.createElement("pre");
  pre.id = "test-dump";
  pre.textContent = out.join("\n");
  document.body.appendChild(pre);
})();
</script>
EOF
drive_check() {
  local page=$1 n=$2 first=$3 last=$4 name r c i
  name=$(basename "$page")
  awk -v js="$tmp/drive.js" '/^<\/body>$/ { while ((getline l < js) > 0) print l } { print }' \
    "$page" >"$tmp/drive.html"
  open_page "file://$tmp/drive.html" "$tmp/drive.dom" "$tmp/drive.log" \
    || bad "$name: chromium failed on the driven page"
  console_clean "$name driven cycle by cycle" "$tmp/drive.log"
  {
    [ "$first" -gt 0 ] && echo "step $first"
    for ((i = first; i <= last; i++)); do
      echo "step"; echo "show units"
      for ((r = 0; r < n; r++)); do for ((c = 0; c < n; c++)); do echo "show cell 0 $r $c"; done; done
    done
  } | "$bin/tpu-sim" --step "${sim[@]}" >"$tmp/drive.step" 2>&1
  python3 - "$name" "$first" "$last" "$n" "$tmp/drive.dom" "$tmp/drive.step" >"$tmp/drive.out" <<'EOF'
import html, re, sys
name, first, last, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
dom, step = open(sys.argv[5]).read(), open(sys.argv[6]).read()
m = re.search(r'<pre id="test-dump">(.*?)</pre>', dom, re.S)
if not m:
    print("FAIL  %s: the driven page wrote no test-dump" % name)
    sys.exit(0)
page = {}
for line in html.unescape(m.group(1)).splitlines():
    f = line.split("|", 3)
    page[(f[0], int(f[1]), f[2])] = f[3].replace("\\n", "\n")
want = {}
blocks = re.split(r'^(?=cycle \d+: )', step, flags=re.M)
for blk in blocks:
    mt = re.match(r'(cycle (\d+): .*)\n', blk)
    if not mt or not first <= int(mt.group(2)) <= last:
        continue
    c = int(mt.group(2))
    want[(c, "status")] = mt.group(1)
    units = re.search(r'units in cycle %d:\n((?:  .*\n)+)' % c, blk)
    for u in (units.group(1).splitlines() if units else []):
        want[(c, "unit-" + u.split()[0])] = u.strip()
    for cell in re.finditer(r'^mxu0 cell \((\d+), (\d+)\): .*\n(?:  .*\n)+', blk, re.M):
        want[(c, "cell-0-%s-%s" % (cell.group(1), cell.group(2)))] = cell.group(0)
cycles = sorted({k[0] for k in want})
size = (last - first + 1) * (n * n + 6)
for way, how in (("fwd", "+1 from the first cycle"), ("back", "-1 from the last cycle")):
    bad = [(k, page.get((way,) + k), v) for k, v in sorted(want.items()) if page.get((way,) + k) != v]
    what = "%s, %s: show cell of every cell, the status and show units lines of cycles %d-%d " \
           "(%d texts) are the stepper's" % (name, how, first, last, len(want))
    ok = not bad and cycles == list(range(first, last + 1)) and len(want) >= size - (last - first + 1)
    print(("ok    " + what) if ok else "FAIL  %s: %d differ, e.g. %s" % (what, len(bad), bad[:2]))
EOF
  cat "$tmp/drive.out"
  pass=$((pass + $(grep -c '^ok' "$tmp/drive.out"))); fail=$((fail + $(grep -c '^FAIL' "$tmp/drive.out")))
}
drive_check "$tmp/tut4.html" 4 0 56

# ---- the console check can fail --------------------------------------------------------------
sed -e 's#^<script>var F = \[\], E = \[\];</script>$#&<script>notDefinedAnywhere();</script>#' \
  "$tmp/tut4.html" >"$tmp/broken.html"
open_page "file://$tmp/broken.html#cycle=40" "$tmp/broken.dom" "$tmp/broken.log"
if grep -q ':CONSOLE.*notDefinedAnywhere' "$tmp/broken.log"; then
  ok "a script error injected into a copy of the page shows on the console: the check can fail"
else
  bad "the console check missed a script error injected into the page"
fi

# ---- a window of a longer run: programs/matmul.s on tiny ------------------------------------------
"$bin/tpu-as" --config tiny -D B=1024 -D D=64 -D F=256 "$root/programs/matmul.s" -o "$tmp/mm.bin" \
  >/dev/null || bad "assemble programs/matmul.s"
sim=("$tmp/mm.bin")
# Cycle 8250: the first stream (from cycle 8237) fills most of the array
# while the next tile's weights arrive (mxu0 cell (6, 0) gets one).
if "$bin/tpu-sim" --quiet --html "$tmp/mm.html" --html-cycles 8200:8300 "$tmp/mm.bin" >/dev/null 2>&1; then
  ok "tpu-sim --html-cycles 8200:8300: $(wc -c <"$tmp/mm.html") bytes"
else
  bad "tpu-sim --html-cycles 8200:8300 failed"
fi
run_check "$tmp/mm.html" 8250 "0 0 0" "0 6 0" "0 7 7" "0 3 5"
grep -q 'mxu0 cell (6, 0): w \S* s \S* l [^-]' <<<"$last_check" \
  && ok "cycle 8250: cell (6, 0) shows a weight arriving" || bad "cycle 8250: cell (6, 0) shows no weight arriving"
drive_check "$tmp/mm.html" 8 8200 8299
open_page "file://$tmp/mm.html#cycle=5" "$tmp/mm5.dom" "$tmp/mm5.log"
grep -q '<body data-cycle="8200"' "$tmp/mm5.dom" &&
  grep -q 'cycle 5 was not recorded (cycles 8200 to 8299): showing cycle 8200' "$tmp/mm5.dom" \
  && ok "#cycle=5, outside the window 8200:8300: the page says so and shows cycle 8200" \
  || bad "#cycle=5, outside the window 8200:8300: no note, or not at cycle 8200"
# The MXU is busy throughout this window: 64 new partial sums a cycle.
"$bin/tpu-sim" --quiet --html "$tmp/mm10k.html" --html-cycles 100000:110000 "$tmp/mm.bin" >/dev/null 2>&1
size=$(wc -c <"$tmp/mm10k.html")
# docs/tpu-sim.md gives the size; past 12 MB the encoding has got worse.
if [ "$size" -gt 1000000 ] && [ "$size" -lt 12000000 ]; then
  ok "a 10,000-cycle window of matmul on tiny, the MXU busy throughout: $size bytes"
else
  bad "a 10,000-cycle window of matmul on tiny: $size bytes (expected 1 to 12 MB)"
fi
run_check "$tmp/mm10k.html" 109999 "0 7 0" "0 4 4"

# ---- Ctrl-C while the page records ---------------------------------------------------------------
. "$(dirname "$0")/signals.sh"      # run_signalled, set -m
printf '        li s1, 100000000\nloop:   addi s1, s1, -1\n        bne s1, zero, loop\n        halt\n' \
  >"$tmp/long.s"
"$bin/tpu-as" -o "$tmp/long.bin" "$tmp/long.s" >/dev/null || bad "assemble the long loop"
run_signalled INT 1 "$tmp/long.out" "$tmp/long.err" "$bin/tpu-sim" --html "$tmp/long.html" "$tmp/long.bin"
[ "$status" = 130 ] && ok "Ctrl-C: exit 130" || bad "Ctrl-C: exit $status, want 130"
n=$(sed -n 's/^tpu-sim: interrupted at cycle \([0-9]*\).*/\1/p' "$tmp/long.err")
tail -n 1 "$tmp/long.html" | grep -q '^</html>$' && ok "Ctrl-C: the page ends with </html>" \
  || bad "Ctrl-C: the page is cut: $(tail -c 100 "$tmp/long.html")"
if [ -n "$n" ] && [ "$n" -gt 1 ]; then
  last=$((n - 1))
  open_page "file://$tmp/long.html#cycle=$last" "$tmp/long.dom" "$tmp/long.log"
  console_clean "the page of the interrupted run" "$tmp/long.log"
  grep -q "<body data-cycle=\"$last\"" "$tmp/long.dom" &&
    grep -q "cycles 0 to $last recorded; the run was stopped after $n cycles" "$tmp/long.dom" \
    && ok "Ctrl-C at cycle $n: the page holds cycles 0 to $last and says the run was stopped" \
    || bad "Ctrl-C at cycle $n: the page does not open at cycle $last or does not say it was stopped"
else
  bad "Ctrl-C: no 'interrupted at cycle N' on stderr: $(head -3 "$tmp/long.err")"
fi

echo "html: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
