#!/bin/sh
# every program assembles, disassembles and assembles back to the same bytes (make test; BIN and BUILD come from make)
exec tests/tap-wrap.sh roundtrip bash tests/roundtrip.sh "$BIN" "$BUILD/roundtrip"
