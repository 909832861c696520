#!/bin/sh
# the test dialect's own machinery: checks.sh, tap-wrap.sh, the fuzz runner's log (make test; BUILD comes from make)
exec tests/tap-wrap.sh tap bash tests/tap.sh "${BUILD:-build}/tap"
