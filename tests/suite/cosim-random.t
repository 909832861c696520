#!/bin/sh
# 200 random programs in lockstep on tiny (make test; BIN and BUILD come from make)
exec tests/tap-wrap.sh cosim-random "${MAKE:-make}" --no-print-directory SAN=0 cosim-random
