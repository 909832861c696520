#!/bin/sh
# the race checker: a seeded race of each kind reported with its cycle, instructions and bytes, in text, --json and the stepper; no race on the example programs and the labs' solutions (make test; BIN and BUILD come from make)
exec tests/tap-wrap.sh races bash tests/races.sh "$BIN" "$BUILD/races"
