#!/usr/bin/env bash
# CLI conventions (issue 19.9), through the real CLI and native worker: a flag the chosen preset
# would drop is refused, and one a --config file overrides is said; every command's --help ends with
# examples; list, show, export and why leave no -wal or -shm beside a database that had none; the
# same configuration at two seeds is two ledger rows labelled by seed (an A/A check in one sweep).
#   cli_conventions.sh BIN_DIR
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh" "$1"

# A knob flag with a preset: refused, named, with what to do instead; nothing is created.
db=$work/none.sqlite
cli --db "$db" run --device cpu --compile default > /dev/null 2> "$work/dropped.err"; rc=$?
[ $rc = 2 ] || fail "--compile with the ledger preset must be refused (exit 2), got $rc: $(cat "$work/dropped.err")"
grep -q "the ledger preset chooses every row's knobs itself, so --compile default would be dropped" \
  "$work/dropped.err" && grep -q "add --single" "$work/dropped.err" \
  || fail "the refusal names the dropped flag and the way out: $(cat "$work/dropped.err")"
cli --db "$db" run --device cpu --preset each --tf32 --autocast bf16 > /dev/null 2> "$work/dropped.err"; rc=$?
[ $rc = 2 ] && grep -q "so --tf32, --autocast bf16 would be dropped" "$work/dropped.err" \
  || fail "every dropped flag is named: $rc $(cat "$work/dropped.err")"
[ -e "$db" ] && fail "a refused run created the database"
# Flags the preset keeps (the shape, a flag at its default value) are no refusal: --help shows the way.
cli --db "$db" run "${tiny[@]}" --tf32 false --steps 2 --warmup-steps 1 --preset nosuch > /dev/null 2> "$work/kept.err"
grep -q "would be dropped" "$work/kept.err" && fail "a shape flag or a default value is not dropped: $(cat "$work/kept.err")"

# --help: every command that does something ends with examples to copy; the manual lists them all.
for c in run list show export compare why doctor setup; do
  cli "$c" --help > "$work/help.out" || fail "$c --help"
  grep -q "^examples:$" "$work/help.out" || fail "$c --help has no examples"
  grep -Eq "^  stepscope-cli ([^ ]+ )*$c( |$)" "$work/help.out" || fail "$c --help's examples run $c: $(tail -8 "$work/help.out")"
done
# (here-strings: `| grep -q` could end the CLI's output early, and pipefail take that for a failure)
grep -qx "  stepscope-cli run --preset each --repeat 3" <<< "$(cli run --help)" || fail "run --help shows --preset each"
grep -q "^examples:$" <<< "$(cli --help)" || fail "the overview shows run's examples"
cli man > "$work/man.roff"
grep -q '^.B stepscope-cli show 12$' "$work/man.roff" && grep -q '^.B stepscope-cli doctor$' "$work/man.roff" \
  || fail "the manual lists every command's examples"

# Read-only commands leave the folder as they found it.
db=$work/m.sqlite
cli --db "$db" run "${tiny[@]}" --steps 4 --warmup-steps 1 --single --no-profile > /dev/null 2> "$work/run.err" \
  || fail "tiny sweep: $(tail -3 "$work/run.err")"
side_files() { ls "$work" | grep -E 'm\.sqlite-(wal|shm)$'; }
[ -z "$(side_files)" ] || fail "run left $(side_files) behind it"
for command in "list" "show 1" "show --sweep 1" "export --format csv" "export --format json" "why"; do
  # shellcheck disable=SC2086
  cli --db "$db" $command > "$work/out.txt" 2> "$work/out.err" || fail "$command: $(cat "$work/out.err")"
  [ -s "$work/out.txt" ] || fail "$command printed nothing"
  [ -z "$(side_files)" ] || fail "'$command' left $(side_files) beside the database: $(ls "$work")"
done
# A reader still sees what a writer has in its -wal (a sweep's live data): here a connection that
# holds the file open with a commit in the -wal, not yet checkpointed; its side files stay its own.
(printf "PRAGMA wal_autocheckpoint=0;\nUPDATE sweeps SET name='renamed live' WHERE id=1;\n"; sleep 4) \
  | sqlite3 "$db" > /dev/null &
writer=$!
for _ in $(seq 1 50); do [ -s "$db-wal" ] && break; sleep 0.1; done
[ -s "$db-wal" ] || fail "the writer's commit is not in the -wal"
cli --db "$db" list > "$work/live.txt" 2>&1 || fail "list beside a writer: $(cat "$work/live.txt")"
grep -q "renamed live" "$work/live.txt" || fail "list reads the commit still in the -wal: $(cat "$work/live.txt")"
[ -e "$db-wal" ] || fail "the writer's -wal was removed under it"
wait $writer
[ -z "$(side_files)" ] || fail "the writer's side files stayed after it: $(side_files)"

# An A/A check in one sweep: the same configuration at seeds 0 and 1 is two rows, by seed.
cat > "$work/aa.json" << 'JSON'
{"configs": [{"seed": 0}, {"seed": 1}]}
JSON
db=$work/aa.sqlite
cli --db "$db" run "${tiny[@]}" --steps 4 --warmup-steps 1 --no-profile --repeat 2 --config "$work/aa.json" \
  > "$work/aa.md" 2> "$work/aa.err" || fail "A/A sweep: $(tail -3 "$work/aa.err")"
grep -q "^| baseline | complete" "$work/aa.md" && grep -q "^| seed-1 | complete" "$work/aa.md" \
  || fail "two seeds are two rows labelled by seed: $(cat "$work/aa.md")"
[ "$(sqlite3 "$db" "SELECT COUNT(DISTINCT config_name) FROM runs")" = 2 ] || fail "two configurations stored"
# A flag the file overrides is said, with the configurations that do.
cli --db "$db" run "${tiny[@]}" --seed 1 --steps 2 --warmup-steps 1 --no-profile --config "$work/aa.json" \
  > /dev/null 2> "$work/over.err" || fail "a sweep with an overridden flag: $(tail -3 "$work/over.err")"
grep -q "stepscope-cli: --seed 1 is overridden by $work/aa.json: configuration 1 sets it otherwise" "$work/over.err" \
  || fail "a flag the file overrides is said: $(cat "$work/over.err")"
echo "CLI conventions hold"
