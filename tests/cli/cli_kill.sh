#!/usr/bin/env bash
# Crash safety: kill -9 a running sweep, reopen, every committed step is there and the run is
# `interrupted`. Also Ctrl-C (SIGINT): the running run becomes `cancelled`, exit code 130.
#   cli_kill.sh BIN_DIR
set -uo pipefail
bin=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
count() { sqlite3 "$1" "$2" 2>/dev/null || echo 0; }
# count() reads 0 while the database is not there yet; a sqlite3 command that cannot run at all
# (on one GPU machine a Debian sqlite3 shell refused the system's newer library) must fail here, not
# read as "no steps" after a minute of waiting.
sqlite3 :memory: "SELECT 1" > /dev/null || fail "the sqlite3 command does not run here"

wait_for_steps() { # db min
  for _ in $(seq 1 600); do
    n=$(count "$1" "SELECT COUNT(*) FROM steps")
    [ "${n:-0}" -ge "$2" ] && { echo "$n"; return 0; }
    sleep 0.1
  done
  return 1
}

# kill -9 of the CLI and its worker.
db=$work/kill.sqlite
setsid "$bin/stepscope-cli" --db "$db" run --device cpu --single --batch 2 --image-size 32 --steps 100000 \
  2> "$work/kill.err" > /dev/null &
pid=$!
seen=$(wait_for_steps "$db" 20) || fail "no steps committed within 60 s: $(cat "$work/kill.err")"
kill -9 -- -"$pid" 2>/dev/null || kill -9 "$pid"
wait "$pid" 2>/dev/null
"$bin/stepscope-cli" --db "$db" list > "$work/list.txt" || fail "reopen after kill -9 failed"
grep -q "interrupted" "$work/list.txt" || fail "the killed run must be interrupted: $(cat "$work/list.txt")"
kept=$(count "$db" "SELECT COUNT(*) FROM steps")
[ "$kept" -ge "$seen" ] || fail "steps lost: saw $seen committed, $kept after reopen"
gaps=$(count "$db" "SELECT MAX(idx) - COUNT(*) FROM steps")
[ "$gaps" = 0 ] || fail "steps must be contiguous from 1"

# SIGINT (Ctrl-C) of the CLI: cancelled run, queued runs cancelled, exit 130.
db=$work/int.sqlite
"$bin/stepscope-cli" --db "$db" run --device cpu --batch 2 --image-size 32 --steps 100000 \
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
