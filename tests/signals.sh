# signals.sh - sourced by the test scripts that send Ctrl-C and SIGTERM
# (interrupt.sh, cosim_cli.sh, roofline.sh).
#
# A non-interactive shell starts background jobs with SIGINT ignored (and
# a program or script cannot undo a signal ignored on entry); with job
# control on (set -m) they keep the default, as under a terminal.  And if
# make test itself was started with SIGINT ignored (from a script's
# background job, or nohup), every process under it inherits that:
# run_signalled starts its command through `env --default-signal`, which
# restores the default first.
set -m

# run_signalled SIG DELAY OUT ERR COMMAND...: run COMMAND in the background
# (stdout to OUT, stderr to ERR), send it SIG after DELAY seconds and wait
# for it, at most 60 s (then it is killed, which fails the caller's check
# instead of hanging the test).  Its exit status goes to $status.  DELAY
# may be @FILE: wait until FILE exists (the run has started; at most 60 s:
# on a loaded host a fixed delay can end before it does), then 1 s more.
run_signalled() {
  local sig=$1 delay=$2 out=$3 err=$4 pid i
  shift 4
  env --default-signal=INT,TERM "$@" >"$out" 2>"$err" &
  pid=$!
  if [ "${delay#@}" != "$delay" ]; then
    for ((i = 0; i < 600; i++)); do
      [ -e "${delay#@}" ] && break
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    delay=1
  fi
  sleep "$delay"
  kill -"$sig" "$pid"
  for ((i = 0; i < 600; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -KILL "$pid" 2>/dev/null
  wait "$pid"; status=$?
}
