#!/bin/sh
# the transformer kernels: softmax, layernorm, rmsnorm, gelu, silu, ffn and attention on tiny, mid and v5e generated, assembled, run and bit-exact, errors against float64 within bounds; the checks can fail; bad command lines (make test; BIN and BUILD come from make)
exec tests/tap-wrap.sh transformer bash tests/transformer.sh "$BIN" "$BUILD/transformer"
