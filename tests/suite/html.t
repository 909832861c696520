#!/bin/sh
# tpu-sim --html's page in headless Chromium against the stepper, cell by cell; its layout, listing and VMEM view with random data; screenshots in $BUILD/html-test (make test; BIN and BUILD come from make)
exec tests/tap-wrap.sh html bash tests/html.sh "$BIN" "$BUILD/html-test"
