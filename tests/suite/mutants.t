#!/bin/sh
# a handful of RTL mutants (one per unit), each must be killed by lockstep (make test; docs/cosim.md "Mutants")
exec tests/tap-wrap.sh mutants-smoke "${MAKE:-make}" --no-print-directory SAN=0 mutants-smoke
