#!/bin/sh
# tpu-cosim's errors, exit statuses and Ctrl-C (make test; BIN and BUILD come from make)
exec tests/tap-wrap.sh cosim-cli "${MAKE:-make}" --no-print-directory SAN=0 cosim-cli-test
