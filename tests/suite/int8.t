#!/bin/sh
# int8 in the MXU: programs, bad input, the roofline in int8 and TPU v1's ridge (make test; BIN and BUILD come from make)
exec tests/tap-wrap.sh int8 bash tests/int8.sh "$BIN" "$BUILD/int8-test"
