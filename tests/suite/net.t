#!/bin/sh
# tpu-net: the shipped networks read and planned, ResNet-18 on mid bit-exact with its reports checked, MobileNetV2, GPT-2 and ResNet-50, bad topologies, Ctrl-C keeping the layers done, a sweep's Pareto front (make test; BIN and BUILD come from make)
exec tests/tap-wrap.sh net bash tests/net.sh "$BIN" "$BUILD/net"
