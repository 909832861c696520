#!/bin/sh
# the kernel generator: random GEMM shapes on tiny, mid and v5e generated, assembled, run and bit-exact; 8192^3 within IMEM; bad command lines (make test; BIN and BUILD come from make)
exec tests/tap-wrap.sh kernels bash tests/kernels.sh "$BIN" "$BUILD/kernels"
