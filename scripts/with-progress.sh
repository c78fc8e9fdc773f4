#!/usr/bin/env bash
# with-progress.sh WHAT COMMAND...: run COMMAND, saying when it starts and ends and, every INTERVAL seconds (30), that
# it is still running, each line with the time of day. Long setup steps (pip, apt, building containerlab) are
# otherwise silent for minutes. Its own lines go to standard error (the output of COMMAND stays its own). Exits with
# COMMAND's status.
set -uo pipefail
what=${1:?usage: with-progress.sh WHAT COMMAND...}
shift
interval=${PROGRESS_INTERVAL:-30}
say() { printf '==> [%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
say "$what"
start=$SECONDS
"$@" &
pid=$!
next=$interval
while kill -0 "$pid" 2>/dev/null; do
  sleep 1
  if ((SECONDS - start >= next)); then
    say "$what: still running ($((SECONDS - start)) s)"
    next=$((next + interval))
  fi
done
wait "$pid"
status=$?
if ((status == 0)); then say "$what: done in $((SECONDS - start)) s"; else say "$what: failed (exit $status) after $((SECONDS - start)) s"; fi
exit "$status"
