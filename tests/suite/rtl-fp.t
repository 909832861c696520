#!/bin/sh
# the RTL fp units: lint, and against cmodel/fp.c bit for bit (make test; BIN and BUILD come from make)
exec tests/tap-wrap.sh rtl-fp "${MAKE:-make}" --no-print-directory rtl-lint-fp rtl-fp-test
