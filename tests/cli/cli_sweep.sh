#!/usr/bin/env bash
# A real tiny sweep on the CPU through the CLI: it writes SQLite, lists, shows and exports, and
# refuses bad input with the documented exit codes.
#   cli_sweep.sh BIN_DIR
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh" "$1"
db=$work/m.sqlite

cli --db "$db" run "${tiny[@]}" --steps 12 --warmup-steps 2 \
  --repeat 2 --planned-steps 500 > "$work/run.md" 2> "$work/run.err" || fail "run exited $? $(cat "$work/run.err")"
grep -q "skipped tf32" "$work/run.err" || fail "CPU ledger should say it skipped tf32"
# CPU ledger: baseline, bf16, +channels-last, +sgd-fused; two repeats each = 8 runs.
runs=$(sqlite3 "$db" "SELECT COUNT(*) FROM runs WHERE status='complete'")
[ "$runs" = 8 ] || fail "expected 8 complete runs, got $runs"
steps=$(sqlite3 "$db" "SELECT COUNT(*) FROM steps")
[ "$steps" = $((8 * 15)) ] || fail "expected 120 steps (8 runs x 15), got $steps"
gpu=$(sqlite3 "$db" "SELECT COUNT(*) FROM steps WHERE gpu_ms IS NOT NULL")
[ "$gpu" = 0 ] || fail "CPU steps must not carry GPU times"
order=$(sqlite3 "$db" "SELECT group_concat(repeat_index, '') FROM (SELECT repeat_index FROM runs ORDER BY position)")
[ "$order" = 00001111 ] || fail "repeats must be interleaved, got $order"
grep -q "| baseline | complete" "$work/run.md" || fail "run prints the ledger table"
# A recommendation, or on a machine too busy for the baseline to settle, why there is none.
grep -qE "Recommendation|^No recommendation because the baseline" "$work/run.md" || fail "run prints the recommendation"

# A run too short to settle: no speed-up, and the reason with a step count to try (issue 19.4).
cli --db "$work/short.sqlite" run "${tiny[@]}" --single --steps 3 --warmup-steps 0 --no-profile > "$work/short.md" 2>/dev/null \
  || fail "a short run exited $?"
grep -q "^No recommendation because the baseline (baseline) has no steady state: only 3 steps after the first one were timed.*try --steps 30" \
  "$work/short.md" || fail "a short run says why there is no recommendation: $(cat "$work/short.md")"

cli --db "$db" list > "$work/list.txt"
[ "$(grep -c '^  run ' "$work/list.txt")" = 8 ] || fail "list shows 8 runs"
cli --db "$db" show 1 > "$work/show.txt"
grep -q "steps recorded: 15" "$work/show.txt" || fail "show counts the steps"
grep -q "losses of the first steps" "$work/show.txt" || fail "show prints the check losses"

cli --db "$db" export --format csv --out "$work/l.csv" 2>/dev/null
[ "$(wc -l < "$work/l.csv")" = 5 ] || fail "csv: header + 4 configurations"
head -1 "$work/l.csv" | grep -q "^configuration,knobs,status" || fail "csv header"
cli --db "$db" export --format json > "$work/l.json"
python3 -c "import json,sys; d=json.load(open('$work/l.json')); r=d['rows']; assert len(r)==4, r; assert r[0]['knobs']=='baseline'; assert r[0]['steady_ms'] is None or r[0]['steady_ms']>0; assert d['planned_steps']==500, d['planned_steps']" \
  || fail "json export"
cli --db "$db" export --format markdown > "$work/export.md"
grep -q "| bf16 |" "$work/export.md" || fail "markdown export"

# Bad input: exit 2, nothing written.
before=$(sqlite3 "$db" "SELECT COUNT(*) FROM runs")
set +e
cli --db "$db" run --device cpu --batch 0 2> "$work/bad.err"; rc=$?
[ $rc = 2 ] || fail "batch 0 must exit 2, got $rc"
grep -q "batch" "$work/bad.err" || fail "batch 0 error names the field"
cli --db "$db" run --device cpu --image-size 16 2> "$work/bad.err"; rc=$?
[ $rc = 2 ] && grep -q "image_size" "$work/bad.err" || fail "image 16 must be refused naming image_size"
cli --db "$db" run --device cpu --single --cuda-graph 2> "$work/bad.err"; rc=$?
[ $rc = 2 ] && grep -q "cuda_graph" "$work/bad.err" || fail "cuda graph on cpu must be refused"
cli --db "$db" run --frobnicate 2>/dev/null; [ $? = 2 ] || fail "unknown flag exits 2"
if [ "$("$bin/stepscope-worker" --cuda-devices)" = 0 ]; then
  cli --db "$db" run --device cuda:0 2> "$work/bad.err"; rc=$?
  [ $rc = 2 ] && grep -q "cuda:0 is not available" "$work/bad.err" || fail "a missing GPU must be refused up front: $rc"
fi
cli --db "$db" export --format xml 2>/dev/null; [ $? = 2 ] || fail "unknown format exits 2"
echo "not a database" > "$work/foreign.sqlite"
cp "$work/foreign.sqlite" "$work/foreign.copy"
cli --db "$work/foreign.sqlite" list 2> "$work/foreign.err"; rc=$?
[ $rc = 3 ] || fail "a foreign file must exit 3, got $rc"
grep -qi "not a Stepscope database" "$work/foreign.err" || fail "foreign file message: $(cat "$work/foreign.err")"
cmp -s "$work/foreign.sqlite" "$work/foreign.copy" || fail "a refused file must stay untouched"
set -e
after=$(sqlite3 "$db" "SELECT COUNT(*) FROM runs")
[ "$before" = "$after" ] || fail "refused runs must write nothing"
cli --help > "$work/help.txt"
grep -q -- "--image-size" "$work/help.txt" || fail "--help lists the flags"
cli --version | grep -q "stepscope-cli" || fail "--version"
echo "cli sweep: ok"
