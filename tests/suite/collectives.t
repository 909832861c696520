#!/bin/sh
# the collectives of programs/lib/: bit-exact on rings, tori, meshes and lines, and over the three axes of a torus3d at once; the v5e numbers (V/W, hops x latency, AllToAll against its cost, mesh twice the torus, both torus axes at once half of one after the other for AllGather, ReduceScatter and AllReduce) in simulated cycles; bad input; tpu-collectives (make test)
exec tests/tap-wrap.sh collectives bash tests/collectives.sh "$BIN" "$BUILD/collectives-test"
