#!/bin/sh
# tpu-gen ffn-shard: the MLP sharded over a ring of 4 (data parallel, Megatron) and a 2x2 torus (data parallel, both), every core bit-exact and core 0's whole result the C reference's; the checks can fail; bad shardings (make test; BIN and BUILD come from make)
exec tests/tap-wrap.sh shard bash tests/shard.sh "$BIN" "$BUILD/shard"
