#!/bin/sh
# the fuzz targets: regression inputs, then a short run each (make test; BIN and BUILD come from make)
exec tests/tap-wrap.sh fuzz-smoke "${MAKE:-make}" --no-print-directory fuzz-smoke
