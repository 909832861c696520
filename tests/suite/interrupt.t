#!/bin/sh
# Ctrl-C, SIGTERM and the progress line of the long-running tools (make test; BIN and BUILD come from make)
exec tests/tap-wrap.sh interrupt bash tests/interrupt.sh "$BIN"
