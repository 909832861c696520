#!/bin/sh
# every one-core program in lockstep on the mid config (make test; BIN and BUILD come from make)
exec tests/tap-wrap.sh cosim-mid "${MAKE:-make}" --no-print-directory SAN=0 cosim-mid COSIM_MID_TWO=0
