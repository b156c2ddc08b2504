#!/usr/bin/env bash
# Machine caches through the CLI and the real native worker (issue 16): --caches both runs a cold
# and a warm process of each configuration, each with cache folders of its own that are gone
# afterwards; the store, show and every export say which state each first step is; export
# --start again takes the warm figures; a bad --caches exits 2 and writes nothing.
#   cli_caches.sh BIN_DIR
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh" "$1"
db=$work/m.sqlite
shape=("${tiny[@]}" --steps 12 --warmup-steps 2)
export TMPDIR=$work/tmp # where the sweep's cache folders go: checked empty afterwards
mkdir -p "$TMPDIR"

set +e
cli --db "$db" run "${shape[@]}" --caches lukewarm 2> "$work/bad.err"; rc=$?
set -e
[ $rc = 2 ] || fail "--caches lukewarm must exit 2, got $rc"
grep -q "cold" "$work/bad.err" && grep -q "both" "$work/bad.err" || fail "the choices are named: $(cat "$work/bad.err")"
[ ! -e "$db" ] || fail "a refused run created the database"

echo '{"configs": [{}], "caches": "tepid"}' > "$work/bad.json"
set +e
cli --db "$db" run "${shape[@]}" --config "$work/bad.json" 2> "$work/bad.err"; rc=$?
set -e
[ $rc = 2 ] && grep -q '"caches" must be' "$work/bad.err" || fail "a file's bad caches: $rc $(cat "$work/bad.err")"
[ ! -e "$db" ] || fail "a refused file created the database"
# The file says which caches; no flag needed.
echo '{"configs": [{}, {"channels_last": true}], "caches": "both"}' > "$work/two.json"
cli --db "$db" run "${shape[@]}" --config "$work/two.json" > "$work/run.md" 2> "$work/run.err" \
  || fail "the sweep failed: $(tail -5 "$work/run.err")"
[ "$(count "$db" "SELECT count(*) FROM runs")" = 4 ] || fail "both: two processes of each configuration"
[ "$(count "$db" "SELECT count(*) FROM runs WHERE caches = 'cold' AND status = 'complete'")" = 2 ] || fail "two cold runs"
[ "$(count "$db" "SELECT count(*) FROM runs WHERE caches = 'warm' AND status = 'complete'")" = 2 ] || fail "two warm runs"
# Cold first, then warm, in the plan's order; every run has its record, with the CUDA cache named.
[ "$(count "$db" "SELECT group_concat(caches) FROM (SELECT caches FROM runs ORDER BY position)")" = "cold,cold,warm,warm" ] \
  || fail "the plan is a cold round, then a warm one"
[ "$(count "$db" "SELECT count(*) FROM runs WHERE json_extract(cache_record, '\$.caches[0].variable') = 'CUDA_CACHE_PATH'")" = 4 ] \
  || fail "every run records its caches: $(count "$db" "SELECT cache_record FROM runs")"
# The warm run of a configuration read the folders its cold run had.
cold_dir=$(count "$db" "SELECT json_extract(cache_dirs, '\$.CUDA_CACHE_PATH') FROM runs WHERE position = 0")
warm_dir=$(count "$db" "SELECT json_extract(cache_dirs, '\$.CUDA_CACHE_PATH') FROM runs WHERE position = 2")
[ -n "$cold_dir" ] && [ "$cold_dir" = "$warm_dir" ] || fail "the warm run reads its cold run's folders: $cold_dir / $warm_dir"
[ -z "$(ls -A "$TMPDIR")" ] || fail "the sweep's cache folders are gone afterwards: $(ls -A "$TMPDIR")"

warm=$(count "$db" "SELECT id FROM runs WHERE position = 2")
cli --db "$db" show "$warm" > "$work/show.txt"
grep -q "^machine caches: warm" "$work/show.txt" || fail "show names the warm state: $(cat "$work/show.txt")"
grep -q "CUDA_CACHE_PATH: primed" "$work/show.txt" || fail "show lists the primed caches"

cli --db "$db" export --format markdown > "$work/l.md"
grep -qE "[0-9] m?s cold" "$work/l.md" && grep -q "warm start (first step, break-even)" "$work/l.md" \
  || fail "the ledger shows both states: $(cat "$work/l.md")"
grep -q "on a fresh machine" "$work/l.md" || fail "the recommendation names its start state"
cli --db "$db" export --format markdown --start again > "$work/again.md"
grep -qE "[0-9] m?s warm" "$work/again.md" && grep -q "on this machine again" "$work/again.md" \
  || fail "--start again takes the warm figures: $(cat "$work/again.md")"
cli --db "$db" export --format csv > "$work/l.csv"
head -1 "$work/l.csv" | grep -q "first_step_cold_s,first_step_warm_s" || fail "the CSV has both states"
echo "ok: cold and warm runs, their caches recorded and removed, both states in every export"
