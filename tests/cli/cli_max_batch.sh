#!/usr/bin/env bash
# The largest batch that fits (issue 31.3) through the CLI and the real workers on the CPU, against a
# memory limit: a search on the CPU without one is refused with what to do; a limit below any
# worker's own needs ends in "nothing fits" in two tries; a limit a little above the peak of the start
# batch is searched, every try a kept run that fitted or ran out of memory under the limit, and the
# answer is either narrowed to 5% with its failing check or said as a bracket with the cap that
# stopped it; `show --sweep` says the same.
#   cli_max_batch.sh BIN_DIR
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh" "$1"
db=$work/m.sqlite
start=(--single --device cpu --image-size 32 --batch 8)

set +e
cli --db "$db" run --max-batch "${start[@]}" 2> "$work/bad.err"; rc=$?
set -e
[ $rc = 2 ] && grep -q "runs on the CPU: give --memory-limit-mib" "$work/bad.err" \
  || fail "a CPU search without a limit is refused with what to do: $rc $(cat "$work/bad.err")"
[ ! -e "$db" ] || fail "a refused run created the database"

# 40 MiB: less than any worker's own code. Both runtimes: each worker holds itself to the limit. Batch norm
# refuses batch 1 at 32 px, so the search ends at batch 2.
for runtime in native python; do
  cli --db "$db" run --max-batch "${start[@]}" --runtime "$runtime" --memory-limit-mib 40 > "$work/none.md" \
    2> "$work/none.err" || fail "$runtime: the search failed: $(tail -5 "$work/none.err")"
  grep -q "nothing fits: batch 2 runs out of memory (the smallest batch this configuration runs)" "$work/none.md" || fail "$runtime: $(cat "$work/none.md")"
done
sweep=$(count "$db" "SELECT MAX(id) FROM sweeps")
[ "$(count "$db" "SELECT COUNT(*) FROM runs WHERE sweep_id = $sweep")" = 2 ] || fail "two tries: 8, then 2 (batch norm refuses 1 at 32 px)"
[ "$(count "$db" "SELECT COUNT(*) FROM runs WHERE sweep_id = $sweep AND category = 'out-of-memory' AND message LIKE
  '%passed memory_limit_mib 40 after the first step%'")" = 2 ] \
  || fail "each try out of memory, naming the limit: $(sqlite3 "$db" "SELECT message FROM runs")"
# The peak the first native try reached at batch 8, from its own words.
peak=$(sqlite3 "$db" "SELECT message FROM runs WHERE sweep_id = 1 AND position = 0" | sed -n 's/.*resident memory \([0-9]*\) MiB.*/\1/p')
[ -n "$peak" ] || fail "the failure names the peak: $(sqlite3 "$db" "SELECT message FROM runs")"

# Room for some dozens of images more than batch 8 needs.
limit=$((peak + 24))
cli --db "$db" run --max-batch "${start[@]}" --memory-limit-mib "$limit" > "$work/run.md" 2> "$work/run.err" \
  || fail "the search failed: $(tail -5 "$work/run.err")"
sweep=$(count "$db" "SELECT MAX(id) FROM sweeps")
grep -q "^## Largest batch that fits" "$work/run.md" || fail "the section: $(cat "$work/run.md")"
tries=$(count "$db" "SELECT COUNT(*) FROM runs WHERE sweep_id = $sweep")
[ "$tries" -ge 3 ] && [ "$tries" -le 8 ] || fail "3 to 8 tries: $tries"
[ "$(count "$db" "SELECT COUNT(*) FROM runs WHERE sweep_id = $sweep AND NOT (status = 'complete' OR
  (status = 'failed' AND category = 'out-of-memory'))")" = 0 ] \
  || fail "every try fitted or ran out of memory: $(sqlite3 "$db" "SELECT status, category, message FROM runs WHERE sweep_id = $sweep")"
[ "$(count "$db" "SELECT json_extract(config_json, '$.steps') || '/' || json_extract(config_json, '$.warmup_steps')
  FROM runs WHERE sweep_id = $sweep AND position = 0")" = "3/0" ] || fail "a try is short"
fits=$(count "$db" "SELECT MAX(json_extract(config_json, '$.batch')) FROM runs WHERE sweep_id = $sweep AND status = 'complete'")
fails=$(count "$db" "SELECT MIN(json_extract(config_json, '$.batch')) FROM runs WHERE sweep_id = $sweep AND status = 'failed'
  AND json_extract(config_json, '$.batch') > $fits")
row=$(grep "^| native cpu 32px c1000 mem-${limit}MiB |" "$work/run.md") || fail "the row: $(cat "$work/run.md")"
if [ "$fails" -le $(( (fits * 105 + 99) / 100 )) ]; then
  # Narrowed: the answer and its failing check, at most 5% above it.
  echo "$row" | grep -q "| $fits | $fails (+" || fail "narrowed: $row"
else
  echo "$row" | grep -q "| >= $fits | $fails |" || fail "a bracket is no answer: $row"
  grep -q "not narrowed to 5%: " "$work/run.md" || fail "the cap is said: $(cat "$work/run.md")"
fi
cli --db "$db" show --sweep "$sweep" > "$work/show.txt" || fail "show --sweep exited $?"
grep -qF "$row" "$work/show.txt" || fail "show --sweep says the same: $(cat "$work/show.txt")"
cat "$work/run.md"
echo "cli_max_batch: ok"
