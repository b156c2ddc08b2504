#!/usr/bin/env bash
# Start states through the CLI and the real native worker (issues 16 and 28): --start fresh,again
# runs a fresh and an again process of each configuration, each with cache folders of its own that
# are gone afterwards; the store, show and every export say which state each first step is; export
# --start again takes the again figures; the old --caches words still work; a bad --start exits 2
# and writes nothing.
#   cli_caches.sh BIN_DIR
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh" "$1"
db=$work/m.sqlite
# 40 steps: a tiny CPU run of 12 can find no steady window on a loaded 2-core machine (CI at
# cbf9a24), and the recommendation this test reads rests on one.
shape=("${tiny[@]}" --steps 40 --warmup-steps 2)
caches=$work/cc # where the sweep's cache folders go: checked empty afterwards
mkdir -p "$caches"

set +e
cli --db "$db" run "${shape[@]}" --start lukewarm 2> "$work/bad.err"; rc=$?
set -e
[ $rc = 2 ] || fail "--start lukewarm must exit 2, got $rc"
grep -q "fresh" "$work/bad.err" && grep -q "again" "$work/bad.err" || fail "the choices are named: $(cat "$work/bad.err")"
[ ! -e "$db" ] || fail "a refused run created the database"

# The knob of before start states says what replaced it.
set +e
cli --db "$db" run "${shape[@]}" --compile-cache warm 2> "$work/old.err"; rc=$?
set -e
[ $rc = 2 ] && grep -q -- "--start fresh,shipped,again" "$work/old.err" || fail "--compile-cache names --start: $rc $(cat "$work/old.err")"
[ ! -e "$db" ] || fail "a refused run created the database"

echo '{"configs": [{}], "start": "tepid"}' > "$work/bad.json"
set +e
cli --db "$db" run "${shape[@]}" --config "$work/bad.json" 2> "$work/bad.err"; rc=$?
set -e
[ $rc = 2 ] && grep -q '"start": unknown start state' "$work/bad.err" || fail "a file's bad start: $rc $(cat "$work/bad.err")"
[ ! -e "$db" ] || fail "a refused file created the database"
# The file says which starts, in the old words too; no flag needed.
echo '{"configs": [{}, {"channels_last": true}], "caches": "both"}' > "$work/two.json"
cli --db "$db" run "${shape[@]}" --cache-dir "$caches" --config "$work/two.json" > "$work/run.md" 2> "$work/run.err" \
  || fail "the sweep failed: $(tail -5 "$work/run.err")"
[ "$(count "$db" "SELECT count(*) FROM runs")" = 4 ] || fail "both: two processes of each configuration"
[ "$(count "$db" "SELECT count(*) FROM runs WHERE caches = 'fresh' AND status = 'complete'")" = 2 ] || fail "two fresh runs"
[ "$(count "$db" "SELECT count(*) FROM runs WHERE caches = 'again' AND status = 'complete'")" = 2 ] || fail "two again runs"
# Fresh first, then again, in the plan's order; every run has its record, with the CUDA cache named.
[ "$(count "$db" "SELECT group_concat(caches) FROM (SELECT caches FROM runs ORDER BY position)")" = "fresh,fresh,again,again" ] \
  || fail "the plan is a fresh round, then an again one"
[ "$(count "$db" "SELECT count(*) FROM runs WHERE json_extract(cache_record, '\$.caches[0].variable') = 'CUDA_CACHE_PATH'")" = 4 ] \
  || fail "every run records its caches: $(count "$db" "SELECT cache_record FROM runs")"
# The compile caches are among them: one start state for every cache.
[ "$(count "$db" "SELECT count(*) FROM runs WHERE json_extract(cache_dirs, '\$.TORCHINDUCTOR_CACHE_DIR') IS NOT NULL")" = 4 ] \
  || fail "every run has its inductor folder: $(count "$db" "SELECT cache_dirs FROM runs")"
# The again run of a configuration read the folders its fresh run had.
fresh_dir=$(count "$db" "SELECT json_extract(cache_dirs, '\$.CUDA_CACHE_PATH') FROM runs WHERE position = 0")
again_dir=$(count "$db" "SELECT json_extract(cache_dirs, '\$.CUDA_CACHE_PATH') FROM runs WHERE position = 2")
[ -n "$fresh_dir" ] && [ "$fresh_dir" = "$again_dir" ] || fail "the again run reads its fresh run's folders: $fresh_dir / $again_dir"
case "$fresh_dir" in "$caches"/sweep-*) ;; *) fail "--cache-dir holds the folders: $fresh_dir" ;; esac
[ -z "$(ls -A "$caches")" ] || fail "the sweep's cache folders are gone afterwards: $(ls -A "$caches")"

again=$(count "$db" "SELECT id FROM runs WHERE position = 2")
cli --db "$db" show "$again" > "$work/show.txt"
grep -q "^machine caches: again" "$work/show.txt" || fail "show names the again state: $(cat "$work/show.txt")"
grep -q "CUDA_CACHE_PATH: primed" "$work/show.txt" || fail "show lists the primed caches"

cli --db "$db" export --format markdown > "$work/l.md"
grep -qE "[0-9] m?s fresh" "$work/l.md" && grep -q "other starts (first step, break-even)" "$work/l.md" \
  || fail "the ledger shows both states: $(cat "$work/l.md")"
# The recommendation names its start state; where load left a row without a steady window there is
# none, and the ledger must say why instead (issue 32.6: no assertion rests on a steady window).
recommends() { # FILE WORDS
  if grep -q "^No recommendation because" "$1"; then
    grep -q "no steady state" "$1" || fail "no recommendation, and not for want of a steady state: $(cat "$1")"
    echo "note: no steady window under this load; the recommendation's words are not checked"
  else
    grep -q "$2" "$1" || fail "the recommendation names its start state ($2): $(cat "$1")"
  fi
}
recommends "$work/l.md" "on a fresh machine"
cli --db "$db" export --format markdown --start again > "$work/again.md"
grep -qE "[0-9] m?s again" "$work/again.md" || fail "--start again takes the again figures: $(cat "$work/again.md")"
recommends "$work/again.md" "on this machine again"
cli --db "$db" export --format csv > "$work/l.csv"
head -1 "$work/l.csv" | grep -q "first_step_fresh_s,first_step_shipped_s,first_step_again_s" || fail "the CSV has every state"
cli --db "$db" export --format json > "$work/l.json"
python3 - "$work/l.json" <<'PY' || fail "JSON names the pick of each start state"
import json, sys
d = json.load(open(sys.argv[1]))
by = d["recommended_by_start"]
assert set(by) == {"fresh", "shipped", "again"}, by
assert by["fresh"]["first_step_measured"] is True, by
assert by["shipped"]["first_step_measured"] is False, by  # no shipped run: fresh stands in, said so
PY
echo "ok: fresh and again runs, their caches recorded and removed, every state in every export"
