#!/usr/bin/env bash
# install-deps.sh - install the Debian packages the project needs, if missing.
#
# As root it runs apt-get itself; otherwise it prints the exact command and
# fails, so `make demo` / `make test` never run on a half-equipped machine.
# The list is the one place that names what the project depends on.
set -euo pipefail

PACKAGES=(
  build-essential     # gcc, make
  clang               # the fuzz targets (libFuzzer)
  libclang-rt-14-dev  # libFuzzer and the sanitizer runtimes for clang
  libcmocka-dev       # the C unit-test library
  verilator           # RTL lint and co-simulation
  yosys               # synthesis check of the RTL
  libsystemc-dev      # SystemC/TLM wrappers
  ccache              # reuse Verilator object files between builds
  gnuplot-nox         # roofline plots
  gtkwave             # fst2vcd: the tests read the co-simulation's FST waveforms back
  perl                # prove: make test runs tests/suite/*.t under it
  chromium            # tests/html.sh opens tpu-sim --html's page in headless Chromium
  libopenmpi-dev      # tpu-sim-mpi: cores spread over MPI ranks (sim/mpi/)
  openmpi-bin         # mpirun, for its test
  python3-numpy       # the Python package python/tpumodel (docs/python.md)
  python3-pytest      # its tests (tests/suite/python.t)
  python3-matplotlib  # docs/notebooks/roofline.ipynb's plot
  python3-nbclient    # make test executes the notebooks headless...
  python3-ipykernel   # ...in a Python kernel
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

cmd="apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -eq 0 ]; then
  echo "deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q >/dev/null
  $cmd
else
  echo "deps: missing Debian packages: ${missing[*]}" >&2
  echo "deps: run as root:  apt-get update && $cmd" >&2
  exit 1
fi
