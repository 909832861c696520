#!/bin/sh
# tpu-roofline against the arithmetic (docs/roofline.md) (make test; BIN and BUILD come from make)
exec tests/tap-wrap.sh roofline bash tests/roofline.sh "$BIN" "$BUILD/roofline-test"
