#!/bin/sh
# tpu-sim-mpi under mpirun -np 2 and 3 gives tpu-sim's report and exit status byte for byte (make test)
exec tests/tap-wrap.sh mpi bash tests/mpi.sh "$BIN" "$BUILD/mpi-test"
