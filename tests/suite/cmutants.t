#!/bin/sh
# a handful of C-model mutants, each must be killed by lockstep against the RTL or by the fp code's plain reference (make test; docs/cosim.md "C-model mutants")
exec tests/tap-wrap.sh cmutants-smoke "${MAKE:-make}" --no-print-directory SAN=0 cmutants-smoke
