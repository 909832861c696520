#!/bin/sh
# the SystemC model, the virtual platform and the SystemC lockstep top (make test; BIN and BUILD come from make)
exec tests/tap-wrap.sh systemc "${MAKE:-make}" --no-print-directory systemc-test
