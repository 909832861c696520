#!/bin/sh
# the labs' grader: reference solutions 10/10, wrong ones below with the right check failing, grade-class, the command line (make test; BIN and BUILD come from make)
exec tests/tap-wrap.sh labs bash tests/labs.sh "$BIN" "$BUILD/labs"
