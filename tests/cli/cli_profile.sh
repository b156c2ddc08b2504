#!/usr/bin/env bash
# Profiles through the CLI and the real native worker on the CPU (issue 18): every complete run has a
# profile summary (Kineto records ATen ops on the CPU), its trace kept gzip-compressed beside the
# database; a CPU run says it has no memory timeline (issue 31.2); `why` prints each row's verdict
# and `why RUN RUN` the diff of two; CSV and JSON carry the profile; --no-profile profiles nothing; a
# batch list plans one configuration per batch and its ledgers show one batch at a time; bad values
# exit 2.
#   cli_profile.sh BIN_DIR
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh" "$1"
db=$work/m.sqlite
shape=("${tiny[@]}" --steps 12 --warmup-steps 2)

set +e
cli --db "$db" run "${shape[@]}" --profile-steps 2000 2> "$work/bad.err"; rc=$?
set -e
[ $rc = 2 ] && grep -q "profile-steps" "$work/bad.err" || fail "--profile-steps 2000: $rc $(cat "$work/bad.err")"
[ ! -e "$db" ] || fail "a refused run created the database"

echo '[{}, {"channels_last": true}]' > "$work/two.json"
cli --db "$db" run "${shape[@]}" --config "$work/two.json" --profile-steps 3 > "$work/run.md" 2> "$work/run.err" \
  || fail "the sweep failed: $(tail -5 "$work/run.err")"
[ "$(count "$db" "SELECT COUNT(*) FROM runs WHERE status = 'complete' AND profile LIKE '%\"summary\"%'")" = 2 ] \
  || fail "every complete run has a profile: $(sqlite3 "$db" "SELECT id, substr(profile, 1, 200) FROM runs")"
[ "$(count "$db" "SELECT json_extract(profile, '$.summary.steps') FROM runs WHERE id = 1")" = 3 ] \
  || fail "the profile covers the steps asked for"
[ "$(count "$db" "SELECT json_extract(profile, '$.summary.device') FROM runs WHERE id = 1")" = cpu ] || fail "device"
trace=$work/$(sqlite3 "$db" "SELECT json_extract(profile, '$.trace_file') FROM runs WHERE id = 1")
[ -f "$trace" ] || fail "the trace is kept beside the database: $trace"
gzip -t "$trace" || fail "the kept trace is gzip"
zcat "$trace" > "$work/trace.json"
grep -q "stepscope::profiled_steps" "$work/trace.json" || fail "the trace holds the profiled window"
[ "$(ls -A "$db.traces" | grep -vc '\.trace\.json\.gz$' || true)" = 0 ] || fail "the raw traces are gone: $(ls -A "$db.traces")"
grep -q "### Why: where each step goes" "$work/run.md" || fail "the run's ledger ends with the Why table"

cli --db "$db" why > "$work/why.txt" || fail "why exited $?"
grep -q "^baseline$" "$work/why.txt" && grep -q "^channels-last$" "$work/why.txt" || fail "why names the rows: $(cat "$work/why.txt")"
grep -qE "(compute|framework)-bound: " "$work/why.txt" || fail "why gives a verdict: $(cat "$work/why.txt")"
grep -q "ATen ops per step" "$work/why.txt" || fail "why counts ops: $(cat "$work/why.txt")"
grep -q "$trace" "$work/why.txt" || fail "why names the trace: $(cat "$work/why.txt")"

cli --db "$db" show 1 > "$work/show.txt" || fail "show 1 exited $?"
grep -q "^profile: 3 steps after the timed ones (ATen ops on the CPU)" "$work/show.txt" \
  && grep -Eq "Trace: m\.sqlite\.traces/run-1-[A-Za-z0-9]{6}\.trace\.json\.gz beside the database" "$work/show.txt" \
  || fail "show names the profile and its trace: $(cat "$work/show.txt")"
# Issue 31.2: a CPU run has no allocator history to record, and says so rather than draw nothing.
grep -q "^memory timeline: none (no memory timeline on the CPU)$" "$work/show.txt" \
  || fail "show says a CPU run has no memory timeline: $(cat "$work/show.txt")"

cli --db "$db" why 1 2 > "$work/diff.txt" || fail "why 1 2 exited $?"
grep -q "^A: baseline (run 1" "$work/diff.txt" && grep -q "^B: channels-last (run 2" "$work/diff.txt" || fail "diff sides"
grep -q "By family" "$work/diff.txt" && grep -qE "^Kernels: [0-9]+ added, [0-9]+ removed" "$work/diff.txt" \
  || fail "the diff by family and kernel: $(cat "$work/diff.txt")"
set +e
cli --db "$db" why 1 > /dev/null 2> "$work/why.err"; rc1=$?
cli --db "$db" why 1 99 > /dev/null 2> "$work/why99.err"; rc2=$?
set -e
[ $rc1 = 2 ] && grep -q "two run ids" "$work/why.err" || fail "why with one run: $rc1 $(cat "$work/why.err")"
[ $rc2 = 2 ] && grep -q "no run 99" "$work/why99.err" || fail "why with a missing run: $rc2 $(cat "$work/why99.err")"

cli --db "$db" export --format csv > "$work/l.csv"
head -1 "$work/l.csv" | grep -q "bound,gpu_busy_ms,busy_share,kernels_per_step" || fail "CSV profile columns"
cli --db "$db" export --format json > "$work/l.json"
python3 - "$work/l.json" <<'PY' || fail "JSON profile"
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
assert all(r["profile"]["summary"]["kernels_per_step"] > 0 for r in rows), rows
assert all(r["profile"]["verdict"]["bound"] in ("compute-bound", "framework-bound") for r in rows), rows
PY

# --no-profile: the runs have none, and no trace is written.
db2=$work/n.sqlite
cli --db "$db2" run "${shape[@]}" --single --no-profile > /dev/null 2>&1 || fail "--no-profile run"
[ "$(count "$db2" "SELECT COUNT(*) FROM runs WHERE profile IS NULL OR profile = ''")" = 1 ] || fail "no profile stored"
[ ! -e "$db2.traces" ] || [ -z "$(ls -A "$db2.traces")" ] || fail "no trace written"
cli --db "$db2" why > "$work/why2.txt"
grep -q "no profile: not profiled" "$work/why2.txt" || fail "why says the row was not profiled"

# A batch list: one configuration per batch, one ledger per batch.
db3=$work/b.sqlite
cli --db "$db3" run --device cpu --image-size 32 --steps 12 --warmup-steps 2 --single --batch 2,3 --profile-steps 1 \
  > "$work/scan.md" 2> "$work/scan.err" || fail "batch scan: $(tail -5 "$work/scan.err")"
[ "$(count "$db3" "SELECT group_concat(json_extract(config_json, '$.batch'), ',') FROM runs")" = "2,3" ] \
  || fail "one run per batch: $(sqlite3 "$db3" "SELECT config_json FROM runs")"
grep -q "Batch 2 of a scan over batches 2 3" "$work/scan.md" && grep -q "Batch 3 of a scan over batches 2 3" "$work/scan.md" \
  || fail "a ledger per batch: $(cat "$work/scan.md")"
grep -q "Across batch sizes" "$work/scan.md" || fail "the verdict across batches"
cli --db "$db3" export --batch 3 --format csv > "$work/b3.csv"
grep -q "b3 32px" "$work/b3.csv" || fail "export --batch 3"
set +e
cli --db "$db3" export --batch 5 > /dev/null 2> "$work/b5.err"; rc=$?
cli --db "$work/x.sqlite" run "${tiny[@]}" --batch 2,zero 2> "$work/bz.err"; rc2=$?
set -e
[ $rc = 2 ] && grep -q "ran no batch 5" "$work/b5.err" || fail "export --batch 5: $rc $(cat "$work/b5.err")"
[ $rc2 = 2 ] && grep -q "'zero' is not a batch size" "$work/bz.err" || fail "--batch 2,zero: $rc2 $(cat "$work/bz.err")"
echo "ok"
