#!/usr/bin/env bash
# run.sh BIN_DIR WORK_DIR - the Python package's tests (tests/suite/python.t,
# from the checkout's root): pytest over python/tests/ (a TAP point per
# test, tests/checks.sh), then docs/notebooks/*.ipynb executed headless
# (run_notebook.py: nbclient and ipykernel, else the code cells with plain
# python3).  Needs build/lib/libtpu.so (make pylib) and BIN_DIR's tpu-as,
# tpu-sim and tpu-gen.  Debian's python3 (/usr/bin/python3, or PYTHON) with
# python3-numpy, python3-pytest, python3-matplotlib, python3-nbclient and
# python3-ipykernel (sim/scripts/install-deps.sh).
set -uo pipefail
bin=${1:?usage: run.sh BIN_DIR WORK_DIR}
work=${2:?usage: run.sh BIN_DIR WORK_DIR}
cd "$(dirname "$0")/../.." || exit 1
mkdir -p "$work" && work=$(cd "$work" && pwd) || exit 1
case $bin in /*) ;; *) bin=$PWD/$bin ;; esac
py=${PYTHON:-/usr/bin/python3}
[ -x "$py" ] || py=python3
export PYTHONDONTWRITEBYTECODE=1 TPU_BIN=$bin TPU_WORK=$work/pytest MPLBACKEND=Agg
source tests/checks.sh   # ok, bad, relay, finish: TAP (tests/README.md)
if [ ! -f build/lib/libtpu.so ]; then
  bad "build/lib/libtpu.so is missing: make pylib"
  finish python
fi
start=$(date +%s.%N)
# pytest -v: "FILE::TEST PASSED [ 5%]" becomes a passed point "FILE::TEST"
"$py" -m pytest -v -rN -p no:cacheprovider python/tests 2>&1 | awk '
  / PASSED( +\[ *[0-9]+%\])?$/ { sub(/ PASSED.*/, ""); print "ok - " $0; next }
  / (FAILED|ERROR)( +\[ *[0-9]+%\])?$/ { sub(/ (FAILED|ERROR).*/, ""); print "not ok - " $0; next }
  { print "#     " $0 }' >"$work/pytest.out"
rc=${PIPESTATUS[0]}
relay <"$work/pytest.out" || bad "pytest ran no test"
if [ "$rc" -eq 0 ]; then ok "pytest: exit 0"; else bad "pytest: exit $rc"; fi
echo "#     pytest took $(echo "$(date +%s.%N) - $start" | bc | cut -c1-5) s"

for nbk in docs/notebooks/*.ipynb; do
  name=$(basename "$nbk" .ipynb)
  start=$(date +%s.%N)
  if ROOFLINE_PNG=$work/$name.png "$py" -Xfrozen_modules=off python/tests/run_notebook.py "$nbk" \
       "$work/$name.ipynb" >"$work/$name.log" 2>&1; then
    ok "notebook $nbk executed ($(echo "$(date +%s.%N) - $start" | bc | cut -c1-5) s): $(tail -n 1 "$work/$name.log")"
  else
    bad "notebook $nbk"
    diag "$(tail -n 30 "$work/$name.log")"
  fi
done
finish python
