#!/bin/sh
# the model's public boundary: a tool sees only cmodel/include/tpu/, a deliberate #include "core.h" in a tool fails to compile (make test)
exec tests/tap-wrap.sh boundary bash tests/boundary.sh
