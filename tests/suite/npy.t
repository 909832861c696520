#!/bin/sh
# arrays in and out as .npy: tpu-sim --load/--dump round trips, float32 into bf16 rounded to nearest even, a tpu-gen GEMM on our own arrays bit-exact, malformed .npy files and bad options rejected with exit 2 (make test; BIN and BUILD come from make)
exec tests/tap-wrap.sh npy bash tests/npy.sh "$BIN" "$BUILD/npy"
