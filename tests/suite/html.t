#!/bin/sh
# tpu-sim --html's page in headless Chromium against the stepper, cell by cell (make test; BIN and BUILD come from make)
exec tests/tap-wrap.sh html bash tests/html.sh "$BIN"
