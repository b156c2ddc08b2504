#!/usr/bin/env bash
# Crash safety: kill -9 a running sweep, reopen, every committed step is there and the run is
# `interrupted`. Also Ctrl-C (SIGINT): the running run becomes `cancelled`, exit code 130.
#   cli_kill.sh BIN_DIR
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh" "$1"

# kill -9 of the CLI and its worker.
db=$work/kill.sqlite
setsid "$bin/stepscope-cli" --db "$db" run "${tiny[@]}" --single --steps 100000 \
  2> "$work/kill.err" > /dev/null &
pid=$!
seen=$(wait_for_steps "$db" 20) || fail "no steps committed within 60 s: $(cat "$work/kill.err")"
kill -9 -- -"$pid" 2>/dev/null || kill -9 "$pid"
wait "$pid" 2>/dev/null
cli --db "$db" list > "$work/list.txt" || fail "reopen after kill -9 failed"
grep -q "interrupted" "$work/list.txt" || fail "the killed run must be interrupted: $(cat "$work/list.txt")"
kept=$(count "$db" "SELECT COUNT(*) FROM steps")
[ "$kept" -ge "$seen" ] || fail "steps lost: saw $seen committed, $kept after reopen"
gaps=$(count "$db" "SELECT MAX(idx) - COUNT(*) FROM steps")
[ "$gaps" = 0 ] || fail "steps must be contiguous from 1"

# SIGINT (Ctrl-C) of the CLI: cancelled run, queued runs cancelled, exit 130.
db=$work/int.sqlite
"$bin/stepscope-cli" --db "$db" run "${tiny[@]}" --steps 100000 \
  2> "$work/int.err" > "$work/int.md" &
pid=$!
wait_for_steps "$db" 10 > /dev/null || fail "no steps before SIGINT"
kill -INT "$pid"
wait "$pid"; rc=$?
[ "$rc" = 130 ] || fail "Ctrl-C must exit 130, got $rc: $(tail -5 "$work/int.err")"
statuses=$(count "$db" "SELECT group_concat(status, ',') FROM (SELECT status FROM runs ORDER BY position)")
case "$statuses" in
  cancelled,cancelled*) ;;
  *) fail "running and queued runs must be cancelled, got $statuses" ;;
esac
[ "$(count "$db" "SELECT COUNT(*) FROM steps")" -ge 10 ] || fail "the cancelled run keeps its steps"
echo "cli kill: ok"
