#!/bin/sh
# the mutation test: lockstep catches a broken MXU at the right cycle (make test; BIN and BUILD come from make)
exec tests/tap-wrap.sh cosim-mutation "${MAKE:-make}" --no-print-directory SAN=0 cosim-mutation
