#!/bin/sh
# the Python package (python/tpumodel, docs/python.md): pytest python/tests (objects, reports and memory equal tpu-as's and tpu-sim's on every program, bf16 rounding equals the model's, gemm bit-exact, stepping, Ctrl-C, errors) and docs/notebooks/*.ipynb executed headless (make test; BIN and BUILD come from make)
exec tests/tap-wrap.sh python bash python/tests/run.sh "$BIN" "$BUILD/python"
