#!/bin/sh
# the RTL of sim/rtl/wide.cfg (vpu_lanes 32, sparse HBM above 1 GiB): lint only; the
# lockstep run is make rtl-test-wide, not part of make test (make test; BIN and BUILD come from make)
exec tests/tap-wrap.sh rtl-wide "${MAKE:-make}" --no-print-directory SAN=0 rtl-lint-wide
