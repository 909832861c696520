#!/bin/sh
# the lockstep benches refuse a C model library built with another config.def (make test; BUILD comes from make)
exec tests/tap-wrap.sh cosim-abi bash tests/cosim_abi.sh "${BUILD:-build}"
