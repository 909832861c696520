#!/bin/sh
# the RTL of tiny: lint, every program in lockstep with the C model (make test; BIN and BUILD come from make)
exec tests/tap-wrap.sh rtl "${MAKE:-make}" --no-print-directory SAN=0 rtl-lint rtl-test
