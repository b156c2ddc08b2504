#!/usr/bin/env bash
# The regression gate (issue 29.3) on stored fixtures, no worker run: the H200 A/A pair passes
# (exit 0); the same pair with a 20% slowdown planted in sweep 2's steps regresses (exit 1) and says
# which rows, in text and JSON; bad arguments exit 2 and nothing is written.
#   cli_check.sh BIN_DIR
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh" "$1"
db=$work/aa.sqlite
cp "$(dirname "${BASH_SOURCE[0]}")/../../docs/results/h200-aa.sqlite" "$db"
before=$(sha256sum "$db" | cut -d' ' -f1)

cli --db "$db" check --against 1 --sweep 2 > "$work/aa.txt" || fail "an A/A pair must pass: $(cat "$work/aa.txt")"
grep -q "^0 regressed" "$work/aa.txt" || fail "the tally: $(cat "$work/aa.txt")"
grep -q "  ok: tf32+cudnn-bench+bf16+channels-last, steady: " "$work/aa.txt" || fail "each row said: $(cat "$work/aa.txt")"
[ "$(sha256sum "$db" | cut -d' ' -f1)" = "$before" ] || fail "check must not write the database"

# 20% slower in every step of sweep 2: wholly beyond 5% for a row with enough processes.
planted=$work/planted.sqlite
cp "$db" "$planted"
sqlite3 "$planted" "UPDATE steps SET wall_ms = wall_ms * 1.2, gpu_ms = gpu_ms * 1.2
                    WHERE run_id IN (SELECT id FROM runs WHERE sweep_id = 2)"
set +e
cli --db "$planted" check --against 1 --sweep 2 > "$work/slow.txt"; rc=$?
[ $rc = 1 ] || fail "a planted slowdown must exit 1, got $rc: $(cat "$work/slow.txt")"
grep -q "^  regressed: .*, steady: slower by +2[0-9].[0-9]%, its 95% interval \[+1[0-9]" "$work/slow.txt" || fail "names the row: $(cat "$work/slow.txt")"
cli --db "$planted" check --against 1 --sweep 2 --format json > "$work/slow.json"; rc=$?
[ $rc = 1 ] || fail "json: exit 1, got $rc"
python3 - "$work/slow.json" <<'PY' || fail "the JSON says what regressed"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["regressed"] is True, d
assert d["counts"]["regressed"] >= 1, d["counts"]
row = [r for r in d["rows"] if r["verdict"] == "regressed"][0]
c = row["checks"][0]
assert c["what"] == "steady" and c["low"] > 1.05 and abs(c["ratio"] - 1.2) < 0.02, c
PY
# A threshold above the slowdown passes it; a sweep against itself, a missing --against, a bad
# percentage: exit 2.
cli --db "$planted" check --against 1 --sweep 2 --max-slowdown 50 > /dev/null; rc=$?
[ $rc = 0 ] || fail "--max-slowdown 50 lets a 20% slowdown pass, got $rc"
cli --db "$db" check --against 2 --sweep 2 2> "$work/bad.err"; rc=$?
[ $rc = 2 ] && grep -q "is the one checked" "$work/bad.err" || fail "against itself: $rc $(cat "$work/bad.err")"
cli --db "$db" check 2> "$work/bad.err"; rc=$?
[ $rc = 2 ] && grep -q "give --against" "$work/bad.err" || fail "no --against: $rc"
cli --db "$db" check --against 1 --max-slowdown x 2> "$work/bad.err"; rc=$?
[ $rc = 2 ] && grep -q "not a percentage" "$work/bad.err" || fail "bad --max-slowdown: $rc"
cli --db "$db" check --against 99 2> "$work/bad.err"; rc=$?
[ $rc = 2 ] && grep -q "no sweep 99" "$work/bad.err" || fail "--against 99: $rc $(cat "$work/bad.err")"
set -e
echo "cli check: ok"
