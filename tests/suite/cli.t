#!/bin/sh
# the commands' exit statuses, --help and messages (make test; BIN and BUILD come from make)
exec tests/tap-wrap.sh cli bash tests/cli.sh "$BIN"
