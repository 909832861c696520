#!/bin/sh
# the grader against hostile and careless submissions: includes that leave the folder, links, FIFOs, formula names, grade-class's choice of file, feedback, the answer labs' delay (make test; BIN and BUILD come from make)
exec tests/tap-wrap.sh labs-attacks bash tests/labs_attacks.sh "$BIN" "$BUILD/labs-attacks"
