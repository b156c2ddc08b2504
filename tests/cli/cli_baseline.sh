#!/usr/bin/env bash
# The sweep's baseline through the CLI: chosen by --baseline N|LABEL or in a --config file, stored
# with the sweep, first in the ledger and named by the exports; a bad choice exits 2 and writes
# nothing. Also: opening an older file's runs fills their missing summaries.
#   cli_baseline.sh BIN_DIR
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh" "$1"
db=$work/m.sqlite
shape=("${tiny[@]}" --steps 12 --warmup-steps 2 --no-warmup-process)
fp32="native cpu b2 32px c1000 baseline"
cl="native cpu b2 32px c1000 channels-last"

# Bad choices: exit 2, the choices listed, no database created.
set +e
cli --db "$db" run "${shape[@]}" --baseline 9 2> "$work/bad.err"; rc=$?
[ $rc = 2 ] || fail "--baseline 9 must exit 2, got $rc"
grep -q "choose one of" "$work/bad.err" && grep -q "  1  baseline  (native cpu" "$work/bad.err" \
  || fail "--baseline 9 lists the choices: $(cat "$work/bad.err")"
cli --db "$db" run "${shape[@]}" --baseline nope 2> "$work/bad.err"; rc=$?
[ $rc = 2 ] && grep -q "'nope' names no configuration" "$work/bad.err" || fail "--baseline nope: $rc $(cat "$work/bad.err")"
cli --db "$db" run "${shape[@]}" --baseline "" 2> "$work/bad.err"; rc=$?
[ $rc = 2 ] || fail "an empty --baseline must exit 2, got $rc"
cli --db "$db" run "${shape[@]}" --baseline 2>/dev/null; rc=$?
[ $rc = 2 ] || fail "--baseline without a value must exit 2, got $rc"
echo '{"configs": [{}, {"channels_last": true, "baseline": true}, {"autocast": "bf16", "baseline": true}]}' > "$work/two.json"
cli --db "$db" run "${shape[@]}" --config "$work/two.json" 2> "$work/bad.err"; rc=$?
[ $rc = 2 ] && grep -q "both marked" "$work/bad.err" || fail "two marked baselines: $rc $(cat "$work/bad.err")"
echo '{"configs": [{}, {"channels_last": true}], "baseline": 3}' > "$work/past.json"
cli --db "$db" run "${shape[@]}" --config "$work/past.json" 2> "$work/bad.err"; rc=$?
[ $rc = 2 ] && grep -q '"baseline" must be a position from 1 to 2' "$work/bad.err" || fail "baseline 3 of 2: $rc"
echo '[{"baseline": "yes"}]' > "$work/str.json"
cli --db "$db" run "${shape[@]}" --config "$work/str.json" 2> "$work/bad.err"; rc=$?
[ $rc = 2 ] && grep -q "baseline" "$work/bad.err" || fail "a baseline that is no boolean: $rc"
set -e
[ ! -e "$db" ] || fail "refused runs must write nothing, yet $db exists"

# A configuration file marks its second configuration: stored, first in the ledger, named.
echo '[{}, {"channels_last": true, "baseline": true}]' > "$work/marked.json"
cli --db "$db" run "${shape[@]}" --config "$work/marked.json" > "$work/marked.md" 2> "$work/run.err" \
  || fail "run exited $? $(cat "$work/run.err")"
[ "$(sqlite3 "$db" "SELECT baseline_config FROM sweeps WHERE id = 1")" = "$cl" ] || fail "stored baseline (marked)"
grep -q "^Baseline: channels-last " "$work/marked.md" || fail "the ledger names its baseline: $(cat "$work/marked.md")"
first=$(grep -m1 -A1 "^|---" "$work/marked.md" | tail -1)
case "$first" in "| channels-last | complete"*) ;; *) fail "the baseline is the first row: $first" ;; esac
cli --db "$db" export --format json > "$work/l.json"
python3 - "$work/l.json" "$cl" <<'PY' || fail "json export names the baseline"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["baseline"] == sys.argv[2], d["baseline"]
rows = d["rows"]
assert rows[0]["configuration"] == sys.argv[2] and rows[0]["speedup"] is None, rows[0]
assert rows[1]["knobs"] == "baseline", rows[1]
PY

# The flag overrides the file; a label and a position both work; the default is fp32 eager.
cli --db "$db" run "${shape[@]}" --config "$work/marked.json" --baseline baseline > /dev/null 2> "$work/run.err" \
  || fail "run --baseline baseline: $(cat "$work/run.err")"
[ "$(sqlite3 "$db" "SELECT baseline_config FROM sweeps WHERE id = 2")" = "$fp32" ] || fail "--baseline LABEL"
echo '{"configs": [{"channels_last": true}, {}], "baseline": 1}' > "$work/top.json"
cli --db "$db" run "${shape[@]}" --config "$work/top.json" > /dev/null 2> "$work/run.err" || fail "top-level baseline"
[ "$(sqlite3 "$db" "SELECT baseline_config FROM sweeps WHERE id = 3")" = "$cl" ] || fail "\"baseline\": 1"
echo '[{"channels_last": true}, {}]' > "$work/plain.json"
cli --db "$db" run "${shape[@]}" --config "$work/plain.json" --baseline 1 > /dev/null 2> "$work/run.err" || fail "--baseline 1"
[ "$(sqlite3 "$db" "SELECT baseline_config FROM sweeps WHERE id = 4")" = "$cl" ] || fail "--baseline 1 stored"
cli --db "$db" run "${shape[@]}" --config "$work/plain.json" > "$work/default.md" 2> "$work/run.err" || fail "default run"
[ "$(sqlite3 "$db" "SELECT baseline_config FROM sweeps WHERE id = 5")" = "$fp32" ] \
  || fail "default: fp32 eager, though listed second"
grep -q "^Baseline: baseline " "$work/default.md" || fail "default baseline named"

# Every completed run got its summary when it finished; ones lost (an older file) come back on open.
complete=$(sqlite3 "$db" "SELECT COUNT(*) FROM runs WHERE status = 'complete'")
[ "$complete" = 10 ] || fail "expected 10 complete runs, got $complete"
[ "$(sqlite3 "$db" "SELECT COUNT(*) FROM summaries WHERE method_version >= 1 AND timing = 'wall'")" = 10 ] \
  || fail "each run stores its summary with its rule's version"
sqlite3 "$db" "DELETE FROM summaries WHERE run_id % 2 = 0; UPDATE summaries SET method_version = 0"
cli --db "$db" list > "$work/list.txt"
[ "$(sqlite3 "$db" "SELECT COUNT(*) FROM summaries WHERE method_version >= 1")" = 10 ] \
  || fail "list fills missing and outdated summaries"

# Run again (issue 29.2): sweep 1's recipe whole (its list, its marked baseline, its shape); show
# --sweep gives the command line; --again takes no flag that would change the sweep.
cli --db "$db" show --sweep 1 > "$work/show.txt" || fail "show --sweep 1"
grep -qF "run it again: stepscope-cli --db $db run --again 1" "$work/show.txt" \
  || fail "show --sweep names the command that reruns it: $(cat "$work/show.txt")"
cli --db "$db" run --again 1 > /dev/null 2> "$work/again.err" || fail "run --again 1: $(cat "$work/again.err")"
grep -q "running sweep 1 again: custom, 2 configuration(s)" "$work/again.err" || fail "says what it replays"
[ "$(sqlite3 "$db" "SELECT baseline_config FROM sweeps WHERE id = 6")" = "$cl" ] || fail "again: the baseline"
[ "$(sqlite3 "$db" "SELECT group_concat(config_name, ';') FROM (SELECT config_name FROM runs WHERE sweep_id = 6 ORDER BY position)")" = \
  "$(sqlite3 "$db" "SELECT group_concat(config_name, ';') FROM (SELECT config_name FROM runs WHERE sweep_id = 1 ORDER BY position)")" ] \
  || fail "again: the same runs in the same order"
sqlite3 "$db" "SELECT name FROM sweeps WHERE id = 6" | grep -q "(again)$" || fail "again: its name says so"
set +e
cli --db "$db" run --again 1 --repeat 3 2> "$work/bad.err"; rc=$?
[ $rc = 2 ] && grep -q "\-\-repeat cannot go with it" "$work/bad.err" || fail "--again --repeat: $rc $(cat "$work/bad.err")"
cli --db "$db" run --again 99 2> "$work/bad.err"; rc=$?
[ $rc = 2 ] && grep -q "has no sweep 99" "$work/bad.err" || fail "--again 99: $rc $(cat "$work/bad.err")"
set -e
echo "cli baseline: ok"
