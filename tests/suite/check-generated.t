#!/bin/sh
# docs/isa.md and rtl/tpu_isa.vh are what cmodel/isa.def generates (make test; BIN and BUILD come from make)
exec tests/tap-wrap.sh check-generated "${MAKE:-make}" --no-print-directory check-generated
