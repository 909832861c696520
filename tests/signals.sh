# signals.sh - sourced by the test scripts that send Ctrl-C and SIGTERM
# (interrupt.sh, cosim_cli.sh, roofline.sh).
#
# A non-interactive shell starts background jobs with SIGINT ignored (and
# a program or script cannot undo a signal ignored on entry); with job
# control on (set -m) they keep the default, as under a terminal.
set -m

# run_signalled SIG DELAY OUT ERR COMMAND...: run COMMAND in the background
# (stdout to OUT, stderr to ERR), send it SIG after DELAY seconds and wait
# for it, at most 60 s (then it is killed, which fails the caller's check
# instead of hanging the test).  Its exit status goes to $status.
run_signalled() {
  local sig=$1 delay=$2 out=$3 err=$4 pid i
  shift 4
  "$@" >"$out" 2>"$err" &
  pid=$!
  sleep "$delay"
  kill -"$sig" "$pid"
  for ((i = 0; i < 600; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -KILL "$pid" 2>/dev/null
  wait "$pid"; status=$?
}
