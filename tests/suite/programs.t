#!/bin/sh
# every example program on its machines: bit-exact, within its roofline bound (make test; BIN and BUILD come from make)
exec tests/tap-wrap.sh programs bash tests/programs.sh "$BIN" "$BUILD/programs"
