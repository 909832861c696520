#!/bin/sh
# the random programs use every instruction and meet every stall reason (on tiny-odd) (make test; docs/cosim.md)
exec tests/tap-wrap.sh randprog-coverage "${MAKE:-make}" --no-print-directory SAN=0 randprog-coverage
