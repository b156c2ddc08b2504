#!/usr/bin/env bash
# Issue 21 through the CLI on the CPU: a sweep on two CPU slots (lanes) and a data-parallel step at
# world size 2 (gloo, two ranks launched by torch.distributed.run) stored with every rank's steps.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh" "$1"
db=$work/devices.sqlite

# --devices text that names nothing usable is refused before anything runs.
if cli run --db "$db" "${tiny[@]}" --single --devices cpu:0,cpu:0 > "$work/dup.out" 2>&1; then
  fail "a device named twice was accepted"
fi
grep -q "named twice" "$work/dup.out" || fail "no reason for the refusal: $(cat "$work/dup.out")"
if cli run --db "$db" "${tiny[@]}" --single --devices cuda:0,cpu:1 > "$work/mix.out" 2>&1; then
  fail "GPUs and CPU slots in one sweep were accepted"
fi
[ "$(count "$db" "SELECT COUNT(*) FROM runs")" = 0 ] || fail "a refused sweep wrote runs"

# Data parallel: world sizes 1 and 2 of one configuration, on two CPU slots. The world-size-2 run
# holds both slots; the two world-size-1 repeats may run side by side.
cli run --db "$db" "${tiny[@]}" --single --runtime python --world-sizes 1,2 --repeat 2 --steps 24 \
  --warmup-steps 2 --devices cpu:0,cpu:1 --no-profile > "$work/run.out" 2> "$work/run.err" ||
  { cat "$work/run.err"; fail "the data-parallel sweep failed"; }
grep -q "2 lanes, one timed process on each at a time: cpu slot 0, cpu slot 1" "$work/run.err" ||
  fail "the lanes were not said: $(head -5 "$work/run.err")"
grep -q "cpu slot 0+cpu slot 1\] .*ddp-2" "$work/run.err" ||
  fail "the world-size-2 run did not hold both slots: $(grep ddp-2 "$work/run.err" | head -3)"

runs=$(count "$db" "SELECT COUNT(*) FROM runs WHERE status = 'complete'")
[ "$runs" = 4 ] || { sqlite3 "$db" "SELECT config_name, status, message FROM runs"; fail "expected 4 complete runs, got $runs"; }
# Every rank's steps are kept, and the run's own steps are the slowest rank's.
ddp=$(count "$db" "SELECT id FROM runs WHERE config_name LIKE '%ddp-2%' ORDER BY id LIMIT 1")
[ "$(count "$db" "SELECT COUNT(DISTINCT rank) FROM rank_steps WHERE run_id = $ddp")" = 2 ] || fail "not both ranks' steps stored"
total=$((1 + 2 + 24))
[ "$(count "$db" "SELECT COUNT(*) FROM rank_steps WHERE run_id = $ddp AND rank = 1")" = "$total" ] ||
  fail "rank 1 lacks steps: $(count "$db" "SELECT COUNT(*) FROM rank_steps WHERE run_id = $ddp AND rank = 1")"
[ "$(count "$db" "SELECT COUNT(*) FROM steps WHERE run_id = $ddp")" = "$total" ] || fail "the run lacks steps"
off=$(count "$db" "SELECT COUNT(*) FROM steps s WHERE s.run_id = $ddp AND abs(s.wall_ms -
  (SELECT max(r.wall_ms) FROM rank_steps r WHERE r.run_id = s.run_id AND r.idx = s.idx)) > 1e-9")
[ "$off" = 0 ] || fail "$off steps are not their slowest rank's"
# Each run knows its lane; the world-size-2 run names both.
[ "$(count "$db" "SELECT COUNT(*) FROM runs WHERE lane LIKE '%\"device\":\"cpu slot%'")" = 4 ] || fail "runs without a lane"
count "$db" "SELECT lane FROM runs WHERE id = $ddp" | grep -q '"devices":\["cpu slot 0","cpu slot 1"\]' ||
  fail "the data-parallel run's lanes: $(count "$db" "SELECT lane FROM runs WHERE id = $ddp")"
# The hello of the run says how it was launched.
count "$db" "SELECT e.json FROM environments e JOIN runs r ON r.environment_id = e.id WHERE r.id = $ddp" |
  grep -q '"ddp_backend":"gloo"' || fail "the environment does not name the gloo backend"

# show RUN gives the lane and every rank's own figures.
cli show --db "$db" "$ddp" > "$work/run-show.out" 2>&1 || { cat "$work/run-show.out"; fail "show $ddp failed"; }
grep -q "^lane: cpu slot 0 (holding cpu slot 0, cpu slot 1), cpu" "$work/run-show.out" ||
  fail "show does not name the lanes: $(grep lane "$work/run-show.out")"
grep -q "^  rank 1: first step " "$work/run-show.out" || fail "no per-rank figures: $(cat "$work/run-show.out")"
# Steady figures need a steady window, which a loaded 2-core machine can deny a short DDP run (its
# steps still rising): then show must say so, and the figures that rest on it are not asked for.
steady=1
grep -q "^steady state: none" "$work/run-show.out" && steady=0
if [ $steady = 1 ]; then
  grep -q "^  rank 1: first step .*, steady median" "$work/run-show.out" || fail "no per-rank steady figures: $(cat "$work/run-show.out")"
else
  echo "note: the DDP run found no steady window on this machine now; its steady figures are not checked"
fi

# show names the data-parallel row with its scaling efficiency against world size 1.
sweep=$(count "$db" "SELECT MAX(id) FROM sweeps")
cli show --db "$db" --sweep "$sweep" > "$work/show.out" 2>&1 || { cat "$work/show.out"; fail "show failed"; }
grep -q "ddp-2.*: 2 ranks" "$work/show.out" || fail "no data-parallel row: $(cat "$work/show.out")"
# Under load the world-size-1 row may find no steady window either (CI at 675f024): then show must
# say that no efficiency can be given and why, never a figure made of a missing one.
if [ $steady = 1 ] && ! grep -q "no scaling efficiency (a row without a steady figure)" "$work/show.out"; then
  grep -q "scaling efficiency [0-9]*% against" "$work/show.out" || fail "no scaling efficiency: $(grep ranks "$work/show.out")"
fi
if [ $steady = 1 ]; then
  grep -q "ddp-2.*: 2 ranks.*scaling efficiency" "$work/show.out" \
    || fail "the data-parallel row says nothing of its scaling: $(grep ranks "$work/show.out")"
fi
echo "PASS"
