#!/bin/sh
# docs/tutorial.md's transcript, rerun character for character (make test; BIN and BUILD come from make)
exec tests/tap-wrap.sh tutorial bash tests/tutorial.sh "$BIN"
