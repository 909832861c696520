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
#   - the tutorial's matmul with random weights and inputs (-0.85547, ...):
#     at every cycle, by the page's own layout (window.tpuLayoutCheck()), no
#     two labels of the MXU drawing, the listing or the VMEM view overlap
#     and each cell's labels lie inside it; the listing marks the pc and the
#     instruction issued as the stepper's `list` and status line say; the
#     VMEM view (fp32, bf16, hex) shows what the stepper's `x` prints (and
#     its number format is C's %.5g on 20,000 bit patterns); a VMEM budget
#     that ran out shows as a note; the layout check finds the overlaps of
#     the old style; screenshots are saved in WORK_DIR (look at them);
#   - a run stopped by Ctrl-C while it records still leaves a page that loads;
#   - every page is self-contained (no address outside the file) and logs
#     nothing on the browser's console; a page with a script error injected
#     must be caught, so that the console check is known to work.
# Prints a TAP point per check (tests/checks.sh), then "html: N passed, M
# failed"; exits non-zero on any failure.
# WORK_DIR (default: a temporary folder, removed) keeps the screenshots and
# the page of the random-data run.
set -uo pipefail
bin=${1:?usage: html.sh BIN_DIR [WORK_DIR]}
root=$(cd "$(dirname "$0")/.." && pwd) || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
work=${2:-$tmp/work}
rm -rf "$work" && mkdir -p "$work" || exit 1
work=$(cd "$work" && pwd)
source "$(dirname "$0")/checks.sh"   # ok, bad, skip, finish: TAP (tests/README.md)

chromium=$(command -v chromium || true)
if [ -z "$chromium" ]; then
  bad "chromium is not installed: run 'bash sim/scripts/install-deps.sh' as root" \
      "(apt-get update && apt-get install -y --no-install-recommends chromium)"
  finish html
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
# arriving, LHS row, x, partial sum out) and its whole text.  Prints
# unnumbered TAP points ("ok - ...", "not ok - ...") for relay.
check_cycle() {
  local page=$1 n=$2 name cell
  shift 2
  name=$(basename "$page")
  if ! open_page "file://$page#cycle=$n" "$tmp/dom.html" "$tmp/log.txt"; then
    echo "not ok - $name#cycle=$n: chromium failed: $(tail -3 "$tmp/log.txt")"; return
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
    print(("ok - " if ok else "not ok - ") + "%s, cycle %d: %s" % (name, n, what))
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
# cycle_check PAGE N CELL...: check_cycle, its verdicts as points (relay).
cycle_check() {
  last_check=$(check_cycle "$@")
  relay <<<"$last_check" || bad "$1#cycle=$2: no check ran"
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
cycle_check "$tmp/tut4.html" 39 "0 0 2" "0 1 1" "0 2 0" "0 0 3" "0 3 3"
grep -q 'mxu0 cell (1, 1): w 0 s 21 l 21 ' <<<"$last_check" \
  && ok "cycle 39: cell (1, 1) receives its weight 21, in the middle of the weight load" \
  || bad "cycle 39: cell (1, 1) does not show the weight 21 arriving"
cycle_check "$tmp/tut4.html" 45 "0 0 0" "0 1 1" "0 3 0" "0 2 3"
grep -q 'mxu0 cell (1, 1): .* y 64$' <<<"$last_check" \
  && ok "cycle 45: cell (1, 1) makes the partial sum 64 (not zero)" \
  || bad "cycle 45: cell (1, 1) does not show the partial sum 64"
cycle_check "$tmp/tut4.html" 48 "0 3 3" "0 3 0" "0 2 2"
cycle_check "$tmp/tut4.html" 56 "0 3 3"

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
    print("not ok - %s: the driven page wrote no test-dump" % name)
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
    print(("ok - " + what) if ok else "not ok - %s: %d differ, e.g. %s" % (what, len(bad), bad[:2]))
EOF
  relay <"$tmp/drive.out" || bad "$name, $how: the driven page's check did not run"
}
drive_check "$tmp/tut4.html" 4 0 56

# ---- real-valued data: the labels' layout, the listing, the VMEM view -------------------------
# layout.js, added at the end of a copy of a page, goes through every
# recorded cycle (+1 from the first, then -1 back from the last), and at
# each: window.tpuLayoutCheck() (no two labels overlap, a cell's labels lie
# inside it), the listing's marks (data-pc, data-issued, the lines marked,
# the pc line in view) and the VMEM view as it opens (a label's region, or
# address 0); at the cycles in TEST_SPOTS also the VMEM view switched to
# bf16 at address 0 and to hex bytes at the first label (or 0x40), and the
# layout with each.  It writes it all into <pre id="test-dump">.
cat >"$tmp/layout.js" <<'EOF'
<script>
(function () {
  var out = [], slider = document.getElementById("cycle"), lo = +slider.min, hi = +slider.max;
  function $(id) { return document.getElementById(id); }
  function set(id, v) { var e = $(id); e.value = v; e.dispatchEvent(new Event("change")); }
  function vmem() {
    var t = $("vmem"), rows = [];
    for (var i = 0; i < t.rows.length; i++) {
      var r = [];
      for (var j = 0; j < t.rows[i].cells.length; j++) r.push(t.rows[i].cells[j].textContent);
      rows.push(r.join(" "));
    }
    return [t.getAttribute("data-cycle"), t.getAttribute("data-addr"), t.getAttribute("data-fmt"),
            rows.join(" / ")].join("|");
  }
  function record(way, what) {
    var c = document.body.getAttribute("data-cycle"), L = $("listing");
    out.push([way, c, "layout" + what, JSON.stringify(window.tpuLayoutCheck())].join("|"));
    out.push([way, c, "vmem" + what, vmem()].join("|"));
    if (what) return;
    var pc = L.querySelector(".ins.pc"), is = L.querySelector(".ins.issued");
    var box = L.getBoundingClientRect(), r = pc && pc.getBoundingClientRect();
    out.push([way, c, "pc", L.getAttribute("data-pc"), pc ? pc.textContent : "",
              r && r.top >= box.top - 1 && r.bottom <= box.bottom + 1 ? "in view" : "out of view"].join("|"));
    out.push([way, c, "issued", L.getAttribute("data-issued"), is ? is.textContent : ""].join("|"));
    if (TEST_SPOTS.indexOf(+c) < 0) return;
    var lab = document.querySelector("#vmem-label option[value='0']");
    set("vmem-fmt", "bf16"); set("vmem-addr", "0"); set("vmem-len", "32");
    record(way, "-bf16");
    set("vmem-fmt", "hex"); set("vmem-addr", lab ? lab.textContent.split(" ")[0] : "0x40");
    record(way, "-hex");
    set("vmem-label", lab ? "0" : "");
    if (!lab) { set("vmem-addr", "0"); set("vmem-len", "64"); set("vmem-fmt", "f32"); }
  }
  slider.value = lo;
  slider.dispatchEvent(new Event("input"));
  for (var c = lo; c <= hi; c++) { record("fwd", ""); $("fwd1").click(); }
  for (c = hi; c >= lo; c--) { record("back", ""); $("back1").click(); }
  var pre = document.createElement("pre");
  pre.id = "test-dump";
  pre.textContent = out.join("\n");
  document.body.appendChild(pre);
})();
</script>
EOF
# The dump against the stepper stopped at each cycle: `list` (its "=>"
# line), the status line (the pc issued) and `x vmem` of the view's range.
cat >"$tmp/layout.py" <<'EOF'
import html, json, re, subprocess, sys
name, dom_path, first, last, min_labels = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
sim = sys.argv[6:]
def result(ok, what):
    print(("ok - " if ok else "not ok - ") + "%s: %s" % (name, what))
dom = open(dom_path).read()
m = re.search(r'<pre id="test-dump">(.*?)</pre>', dom, re.S)
if not m:
    result(False, "the driven page wrote no test-dump")
    sys.exit(0)
page = {}
for line in html.unescape(m.group(1)).splitlines():
    f = line.split("|")
    page[(f[0], int(f[1]), f[2])] = f[3:]
cycles = list(range(first, last + 1))
# what to ask the stepper at each cycle: `list`, and `x vmem` of every view shown
esize = {"f32": 4, "bf16": 2, "hex": 1}
asks = {}
for c in cycles:
    asks[c] = []
    for what in ("vmem", "vmem-bf16", "vmem-hex"):
        v = page.get(("fwd", c, what))
        if v and v[1] != "":
            n = sum(len(r.split()) - 1 for r in v[3].split(" / ") if r.startswith("0x"))
            asks[c].append((what, int(v[1]), n, v[2]))
cmds = ["step %d" % first] if first > 0 else []
for c in cycles:
    cmds.append("step")
    cmds.append("list")
    for what, addr, n, fmt in asks[c]:
        cmds.append("x vmem %d %d as %s" % (addr, n, fmt))
step = subprocess.run(sim, input="\n".join(cmds) + "\n", capture_output=True, text=True).stdout
want = {}
for blk in re.split(r'^(?=cycle \d+: )', step, flags=re.M):
    mt = re.match(r'cycle (\d+): (.*)\n', blk)
    if not mt or int(mt.group(1)) not in asks:
        continue
    c = int(mt.group(1))
    iss = re.match(r'issued pc (\d+)(?: <[^>]*>)?: (.*)$', mt.group(2))
    want[(c, "issued")] = [iss.group(1), "   %4d  %s" % (int(iss.group(1)), iss.group(2))] if iss else ["", ""]
    pc = re.search(r'^(=> +(\d+)  .*)$', blk, re.M)
    want[(c, "pc")] = [pc.group(2), pc.group(1)] if pc else None
    vals = [l.split()[2:] for l in blk.splitlines() if re.match(r'vmem 0x[0-9a-f]+:', l)]
    k = 0
    for what, addr, n, fmt in asks[c]:
        per = 16 if fmt == "hex" else 8
        rows = (n + per - 1) // per
        want[(c, what)] = [t for r in vals[k:k + rows] for t in r]
        k += rows
bad = {}
def note(kind, c, got, exp):
    bad.setdefault(kind, []).append((c, got, exp))
count = {}
for way in ("fwd", "back"):
    for c in cycles:
        lay = page.get((way, c, "layout"))
        for what in ("layout", "layout-bf16", "layout-hex"):
            v = page.get((way, c, what))
            if v is None:
                if what == "layout":
                    note("layout", c, None, "a layout check")
                continue
            r = json.loads(v[0])
            count["layout"] = count.get("layout", 0) + 1
            if r["overlaps"] or r["outside"] or r["labels"] < min_labels or r["cycle"] != c:
                note("layout", c, r, "no overlap, no label outside its cell, >= %d labels" % min_labels)
        got = page.get((way, c, "pc"))
        exp = want.get((c, "pc"))
        count["pc"] = count.get("pc", 0) + 1
        if not got or not exp or got[:2] != exp or got[2] != "in view":
            note("pc", c, got, exp)
        got = page.get((way, c, "issued"))
        exp = want.get((c, "issued"))
        count["issued"] = count.get("issued", 0) + 1
        if not got or not exp or got[0] != exp[0] or got[1][2:] != exp[1][2:]:    # "=>" when it is the pc too
            note("issued", c, got, exp)
        for what in ("vmem", "vmem-bf16", "vmem-hex"):
            v = page.get((way, c, what))
            if v is None or (c, what) not in want:
                continue
            toks = [t for r in v[3].split(" / ") for t in r.split()[1:]]
            count[what] = count.get(what, 0) + 1
            if v[0] != str(c) or toks != want[(c, what)] or not toks:
                note(what, c, (v[0], toks), want[(c, what)])
labels = [json.loads(page[("fwd", c, "layout")][0])["labels"] for c in cycles if ("fwd", c, "layout") in page]
result("layout" not in bad and count.get("layout", 0) >= 2 * len(cycles),
       "tpuLayoutCheck() at %d views of cycles %d-%d (%d-%d labels each): no two labels overlap, "
       "every cell's labels inside it%s" % (count.get("layout", 0), first, last, min(labels or [0]), max(labels or [0]),
       "" if "layout" not in bad else "; %d bad, e.g. %s" % (len(bad["layout"]), bad["layout"][:2])))
result("pc" not in bad, "the listing's => line and its pc are the stepper's `list` at every cycle, "
       "both ways, and in view%s" % ("" if "pc" not in bad else "; %d differ, e.g. %s" % (len(bad["pc"]), bad["pc"][:2])))
nis = sum(1 for c in cycles if want.get((c, "issued"), [""])[0])
result("issued" not in bad and nis > 0, "the listing marks the instruction issued as the stepper's status line "
       "says (%d cycles issue one)%s" % (nis, "" if "issued" not in bad else "; %d differ, e.g. %s" % (len(bad["issued"]), bad["issued"][:2])))
for what, how in (("vmem", "as it opens"), ("vmem-bf16", "bf16 at 0"), ("vmem-hex", "hex bytes")):
    v = page.get(("fwd", last, what))
    result(what not in bad and count.get(what, 0) > 0,
           "the VMEM view %s (%s) is the stepper's `x vmem` at %d cycles%s" % (how, v and v[2], count.get(what, 0),
           "" if what not in bad else "; %d differ, e.g. %s" % (len(bad[what]), bad[what][:1])))
EOF
# layout_check PAGE FIRST LAST MIN_LABELS SPOTS: PAGE driven by layout.js
# (TEST_SPOTS = SPOTS, a JS array), compared with the stepper on "${sim[@]}".
layout_check() {
  local page=$1 first=$2 last=$3 min=$4 spots=$5 name
  name=$(basename "$page")
  { echo "<script>var TEST_SPOTS = $spots;</script>"; cat "$tmp/layout.js"; } >"$tmp/layout.inc"
  awk -v js="$tmp/layout.inc" '/^<\/body>$/ { while ((getline l < js) > 0) print l } { print }' \
    "$page" >"$tmp/layout.html"
  open_page "file://$tmp/layout.html" "$tmp/layout.dom" "$tmp/layout.log" \
    || bad "$name: chromium failed on the page driven by layout.js"
  console_clean "$name driven for the layout, listing and VMEM checks" "$tmp/layout.log"
  python3 "$tmp/layout.py" "$name" "$tmp/layout.dom" "$first" "$last" "$min" \
    "$bin/tpu-sim" --step "${sim[@]}" >"$tmp/layout.out" 2>&1
  relay <"$tmp/layout.out" || bad "$name: the layout check did not run"
}
# screenshot PAGE#CYCLE PNG: what a browser draws, kept in $work.
screenshot() {
  timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --no-first-run --hide-scrollbars \
    --user-data-dir="$tmp/profile" --virtual-time-budget=5000 --window-size=1400,1100 \
    --screenshot="$2" "$1" >/dev/null 2>&1
  if [ -s "$2" ] && [ "$(head -c 8 "$2" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] &&
     [ "$(wc -c <"$2")" -gt 20000 ]; then
    ok "screenshot of $(basename "$1"): $2 ($(wc -c <"$2") bytes)"
  else
    bad "no screenshot of $1 in $2"
  fi
}

# The tutorial's matmul with random W and X (uniform in [-1, 1): -0.85547,
# 0.072266, ...) instead of its small integers.
python3 - "$root/programs/tutorial_4x4.s" "$tmp/tutrand.s" <<'EOF'
import sys
s = open(sys.argv[1]).read()
a, b = s.index("W:      .set"), s.index("# ---- VMEM layout")
open(sys.argv[2], "w").write(s[:a] + "W:      .random bf16, N*N, 7\nX:      .random bf16, M*N, 8\n\n" + s[b:])
EOF
"$bin/tpu-as" --config "$cfg" "$tmp/tutrand.s" -o "$tmp/tutrand.bin" >/dev/null \
  || bad "assemble the tutorial with random data"
if "$bin/tpu-sim" --config "$cfg" --quiet --html "$work/tut-random.html" "$tmp/tutrand.bin" \
     >"$tmp/run.out" 2>&1; then
  ok "tpu-sim --html tut-random.html (random data): $(wc -c <"$work/tut-random.html") bytes"
else
  bad "tpu-sim --html tut-random.html: $(cat "$tmp/run.out")"
fi
self_contained "tut-random.html" "$work/tut-random.html"
grep -q '"vlabels":\[\["Y",80,96,"f32"\]\]' "$work/tut-random.html" \
  && ok "tut-random.html: the VMEM label Y (vmem 0x50, 96 bytes, fp32) for the VMEM view" \
  || bad "tut-random.html: no VMEM label Y of 96 bytes in PROG"
sim=(--config "$cfg" "$tmp/tutrand.bin")
# 16 cells of 1 to 3 labels, 8 row and column labels, 26 listing lines, the VMEM view
layout_check "$work/tut-random.html" 0 56 45 "[0, 30, 45, 52, 56]"
screenshot "file://$work/tut-random.html#cycle=51" "$work/tut-random-51.png"
# The check can fail: with the old style (the LHS row put over the cell's
# top right corner, out of the flow) the labels overlap at cycle 46.
sed -e 's#^<script>var F = \[\], E = \[\], V0 = \[\], VW = \[\];</script>$#<style>.cell { position: relative; } .cell .r { position: absolute; right: 3px; top: 1px; }</style>&#' \
    -e 's#^</body>$#<script>document.body.setAttribute("data-layout", JSON.stringify(tpuLayoutCheck()));</script>&#' \
    "$work/tut-random.html" >"$tmp/overlap.html"
open_page "file://$tmp/overlap.html#cycle=46" "$tmp/overlap.dom" "$tmp/overlap.log"
n=$(grep -o 'data-layout="[^"]*"' "$tmp/overlap.dom" | grep -o 'cell-0-[0-9]-[0-9] \.r' | wc -l)
[ "$n" -gt 0 ] && ok "the layout check can fail: with the row label over the corner it finds $n overlaps at cycle 46" \
  || bad "the layout check found no overlap with the row label over the cell's corner: $(grep -o 'data-layout="[^"]*"' "$tmp/overlap.dom" | head -c 300)"
# Cycle 52: the MXU has written rows of Y; with the VMEM budget spent from
# cycle 50 on (META edited), the view shows cycle 49 and says so; spent
# before the first cycle, no view.
stepper_at 49 "x vmem 0x50 24 as f32" >"$tmp/y49.txt"
sed 's/"stop":null}/"stop":50}/' "$work/tut-random.html" >"$tmp/stale.html"
open_page "file://$tmp/stale.html#cycle=52" "$tmp/stale.dom" "$tmp/stale.log"
python3 - "$tmp/stale.dom" "$tmp/y49.txt" >"$tmp/stale.out" 2>&1 <<'EOF'
import html, re, sys
dom, step = open(sys.argv[1]).read(), open(sys.argv[2]).read()
want = [t for l in step.splitlines() if l.startswith("vmem 0x") for t in l.split()[2:]]
note = re.search(r'<div id="vmem-note">([^<]*)</div>', dom)
table = re.search(r'<table id="vmem"([^>]*)>(.*?)</table>', dom, re.S)
got = [html.unescape(t) for t in re.findall(r'<td[^>]*data-addr[^>]*>([^<]*)</td>', table.group(2))] if table else []
ok = (note and "VMEM writes from cycle 50 on were not recorded" in note.group(1) and "cycle 49" in note.group(1)
      and table and 'data-cycle="49"' in table.group(1) and 'class="stale"' in table.group(1) and got == want)
print(("ok - " if ok else "not ok - ") + "VMEM budget spent at cycle 50: at cycle 52 the view shows cycle 49 "
      "greyed, says so, and its values are the stepper's at 49%s" % ("" if ok else ": %r, %r, %r" % (
      note and note.group(1), got, want)))
EOF
relay <"$tmp/stale.out" || bad "the stale VMEM check did not run: $(tail -2 "$tmp/stale.out")"
sed 's/"stop":null}/"stop":0}/' "$work/tut-random.html" >"$tmp/novmem.html"
open_page "file://$tmp/novmem.html#cycle=52" "$tmp/novmem.dom" "$tmp/novmem.log"
grep -q '<div id="vmem-note">VMEM was not recorded' "$tmp/novmem.dom" &&
  grep -q '<table id="vmem"[^>]*></table>' "$tmp/novmem.dom" \
  && ok "VMEM budget spent before the first cycle: no VMEM view, a note says why" \
  || bad "VMEM budget spent before the first cycle: no note, or a VMEM view"

# The one number the page formats itself, the VMEM view's (fmtF32), against
# C's %.5g (Python's is the same: exact, ties to even) on 20,000 fp32 bit
# patterns: ties (1.03125 -> 1.0312), rounding up to a new exponent, the
# limits of the fixed notation, subnormals, -0, inf, nan, random ones.
python3 - "$tmp/fmt-bits.js" "$tmp/fmt-want.txt" <<'EOF'
import math, random, struct, sys
def f32(b): return struct.unpack("<f", struct.pack("<I", b))[0]
def bits(x): return struct.unpack("<I", struct.pack("<f", x))[0]
def fmt(b):
    v = f32(b)
    if math.isnan(v): return "nan"
    if math.isinf(v): return "-inf" if v < 0 else "inf"
    if v == 0: return "-0" if b >> 31 else "0"
    return "%.5g" % v
random.seed(7)
pats = [0, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00001, 1, 0x807fffff, 0x7f7fffff, 0x00800000]
for x in (1.03125, 1.09375, 2.40625, 0.0001220703125, 99999.5, 9.99995, 999995.0, 0.000099999, 1e-5,
          12345.5, 123456.0, 1e5, 99999.0, 0.0001, 0.00012345):
    pats += [bits(x), bits(-x), bits(x) + 1, bits(x) - 1]
for m in range(1, 16):          # k / 2^m with six significant digits, the last a 5: ties
    for k in range(1, 1 << 11):
        x = k / 2.0 ** m * 10.0 ** random.randint(-3, 3)
        s6 = "%.6g" % x
        if f32(bits(x)) == x and float(s6) == x and s6.rstrip("0").endswith("5") and \
           len(s6.replace("-", "").replace(".", "").lstrip("0")) == 6:
            pats.append(bits(x))
while len(pats) < 20000:
    pats.append(random.getrandbits(32))
pats = pats[:20000]
open(sys.argv[1], "w").write("<script>(function () { var b = %s, out = []; for (var i = 0; i < b.length; i++) "
    "out.push(window.tpuFmtF32(b[i])); var p = document.createElement('pre'); p.id = 'test-fmt'; "
    "p.textContent = out.join(' '); document.body.appendChild(p); })();</script>\n" % pats)
open(sys.argv[2], "w").write(" ".join(fmt(b) for b in pats))
EOF
awk -v js="$tmp/fmt-bits.js" '/^<\/body>$/ { while ((getline l < js) > 0) print l } { print }' \
  "$work/tut-random.html" >"$tmp/fmt.html"
open_page "file://$tmp/fmt.html" "$tmp/fmt.dom" "$tmp/fmt.log"
python3 - "$tmp/fmt.dom" "$tmp/fmt-want.txt" >"$tmp/fmt.out" 2>&1 <<'EOF'
import html, re, sys
m = re.search(r'<pre id="test-fmt">(.*?)</pre>', open(sys.argv[1]).read(), re.S)
got = html.unescape(m.group(1)).split(" ") if m else []
want = open(sys.argv[2]).read().split(" ")
bad = [(i, g, w) for i, (g, w) in enumerate(zip(got, want)) if g != w]
ok = len(got) == len(want) and not bad
print(("ok - " if ok else "not ok - ") + "the VMEM view's numbers (fmtF32) are C's %%.5g for %d fp32 bit patterns%s"
      % (len(want), "" if ok else ": %d of %d differ, e.g. %s" % (len(bad), len(got), bad[:3])))
EOF
relay <"$tmp/fmt.out" || bad "the fmtF32 check did not run: $(tail -2 "$tmp/fmt.out")"

# ---- the console check can fail --------------------------------------------------------------
sed -e 's#^<script>var F = \[\], E = \[\], V0 = \[\], VW = \[\];</script>$#&<script>notDefinedAnywhere();</script>#' \
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
cycle_check "$tmp/mm.html" 8250 "0 0 0" "0 6 0" "0 7 7" "0 3 5"
grep -q 'mxu0 cell (6, 0): w \S* s \S* l [^-]' <<<"$last_check" \
  && ok "cycle 8250: cell (6, 0) shows a weight arriving" || bad "cycle 8250: cell (6, 0) shows no weight arriving"
drive_check "$tmp/mm.html" 8 8200 8299
# 64 cells of 1 to 5 labels (real values: matmul.s's .random data), 16 row
# and column labels; no VMEM label: the view opens at address 0
layout_check "$tmp/mm.html" 8200 8299 100 "[8250, 8299]"
screenshot "file://$tmp/mm.html#cycle=8250" "$work/mm-tiny-8250.png"
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
cycle_check "$tmp/mm10k.html" 109999 "0 7 0" "0 4 4"

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

finish html
