#!/bin/sh
# the ring collectives of programs/lib/: bit-exact on rings, tori and meshes; the v5e numbers (V/W, hops x latency, mesh twice the torus) in simulated cycles; bad input; tpu-collectives (make test)
exec tests/tap-wrap.sh collectives bash tests/collectives.sh "$BIN" "$BUILD/collectives-test"
