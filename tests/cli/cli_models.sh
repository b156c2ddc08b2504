#!/usr/bin/env bash
# Another model than ResNet18 through the CLI (issue 30): a factory's sweep runs every row in the
# Python worker and stores the model in each run's configuration and name; on the native runtime it
# runs from its TorchScript export with the Python run's losses, and a model that cannot be traced is
# n/a there, once a sweep; a factory that hangs meets the silence timeout and stores no figure; a
# factory that raises fails as model-failed with its trace.
#   cli_models.sh BIN_DIR PYTHON SOURCE_DIR
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh" "$1"
py=$2
export PYTHONPATH="$3/tests/data/models${PYTHONPATH:+:$PYTHONPATH}"
db=$work/m.sqlite
q() { sqlite3 "$db" "$1"; }
shape=("${tiny[@]}" --classes 10 --steps 12 --warmup-steps 1 --python "$py" --no-profile --timeout 120)

# Issue 30.3: on the native runtime alone, the Python worker traces the model to TorchScript and the
# native worker trains it: same seed, same weights, same batch, so its losses are the Python run's.
# (A database of its own: the checks further down count the runs of theirs.)
db=$work/native.sqlite
# (--objective energy on the CPU: no counter, so the verdict stays by time and says why.)
for runtime in native python; do
  cli --db "$db" run "${shape[@]}" --single --runtime $runtime --model tiny_factories:image_net,width=4 --objective energy \
    > "$work/$runtime.md" 2> "$work/$runtime.err" || fail "the $runtime run of a factory failed: $(tail -5 "$work/$runtime.err")"
done
grep -q "^No verdict by energy: no row has the figures to pick by (no energy counter: a CPU run); the verdict above is by time.$" \
  "$work/native.md" || fail "--objective energy on the CPU says why it stays by time: $(tail -3 "$work/native.md")"
rc=0
cli --db "$db" run "${shape[@]}" --single --objective joules > /dev/null 2> "$work/objective.err" || rc=$?
[ "$rc" = 2 ] && grep -q "'joules' is not an objective; use time or energy" "$work/objective.err" \
  || fail "an unknown objective is refused before anything runs: rc $rc, $(cat "$work/objective.err")"
grep -q "exporting to TorchScript" "$work/native.err" || fail "the export is said as it happens: $(cat "$work/native.err")"
grep -q "priming: exporting" "$work/native.err" && fail "the export is no priming: $(grep exporting "$work/native.err")"
native_losses=$(q "SELECT check_losses FROM runs WHERE config_json LIKE '%\"runtime\":\"native\"%' AND status='complete'")
python_losses=$(q "SELECT check_losses FROM runs WHERE config_json LIKE '%\"runtime\":\"python\"%' AND status='complete' ORDER BY id DESC LIMIT 1")
[ -n "$native_losses" ] && [ "$native_losses" != "[]" ] || fail "the native run stored no losses: $(q 'SELECT id, status, message FROM runs')"
"$py" - "$native_losses" "$python_losses" <<'PY' || fail "native and Python losses differ: $native_losses against $python_losses"
import json, sys
a, b = json.loads(sys.argv[1]), json.loads(sys.argv[2])
assert len(a) == len(b) == 10 and all(abs(x - y) <= 1e-5 * abs(y) for x, y in zip(a, b)), (a, b)
PY
q "SELECT model_description FROM runs WHERE config_json LIKE '%\"runtime\":\"native\"%'" | grep -q "^tiny_factories:image_net (.*traced to TorchScript" \
  || fail "the native run's model says it ran from TorchScript: $(q 'SELECT model_description FROM runs')"
[ "$(q "SELECT training_flops FROM runs WHERE config_json LIKE '%\"runtime\":\"native\"%'")" = \
  "$(q "SELECT training_flops FROM runs WHERE config_json LIKE '%\"runtime\":\"python\"%' ORDER BY id DESC LIMIT 1")" ] \
  || fail "the native run carries the model's FLOP count: $(q 'SELECT config_name, training_flops FROM runs')"
# A batch that is not all tensors cannot be traced: the native row is n/a with why, the Python row runs.
before=$(q "SELECT COUNT(*) FROM runs")
cat > "$work/pair.json" <<JSON
{"configs": [{"runtime": "native", "device": "cpu", "batch": 2, "steps": 12, "warmup_steps": 1, "model": "tiny_factories:flagged"},
             {"runtime": "native", "device": "cpu", "batch": 2, "steps": 12, "warmup_steps": 1, "model": "tiny_factories:flagged", "optimizer": "foreach"},
             {"runtime": "python", "device": "cpu", "batch": 2, "steps": 12, "warmup_steps": 1, "model": "tiny_factories:flagged"}]}
JSON
rc=0
cli --db "$db" run --config "$work/pair.json" --python "$py" --no-profile --timeout 120 > /dev/null 2> "$work/flagged.err" || rc=$?
[ "$rc" != 0 ] || fail "a sweep with failed rows exited 0"
[ "$(q "SELECT COUNT(*) FROM runs WHERE id > $before AND status='failed' AND category='model-failed' AND message LIKE 'n/a on the native worker: %TorchScript%'")" = 2 ] \
  || fail "both native rows are n/a, saying why: $(q "SELECT id, status, category, message FROM runs WHERE id > $before")"
[ "$(grep -c "exporting to TorchScript" "$work/flagged.err")" = 1 ] || fail "the model is traced once a sweep, not once a row: $(grep -c exporting "$work/flagged.err")"
[ "$(q "SELECT COUNT(*) FROM runs WHERE id > $before AND status='complete' AND config_json LIKE '%\"runtime\":\"python\"%'")" = 1 ] \
  || fail "the Python row runs on: $(q "SELECT id, status, message FROM runs WHERE id > $before")"
[ "$(q "SELECT COUNT(*) FROM steps WHERE run_id IN (SELECT id FROM runs WHERE id > $before AND status='failed')")" = 0 ] \
  || fail "a row that could not be exported stored steps"
db=$work/m.sqlite

# A name of no grammar: refused with the grammar.
rc=0
cli --db "$db" run "${shape[@]}" --single --runtime python --model "timm:" > /dev/null 2> "$work/bad.err" || rc=$?
[ "$rc" = 2 ] || fail "a broken model name: exit 2 expected, got $rc"
grep -q "timm:NAME" "$work/bad.err" || fail "the refusal lists the grammar: $(cat "$work/bad.err")"

# The preset with a factory: every row runs in Python and carries the model.
cli --db "$db" run "${shape[@]}" --preset each --knobs channels-last --model tiny_factories:image_net,width=4 \
  > "$work/run.md" 2> "$work/run.err" || fail "the sweep failed: $(tail -20 "$work/run.err")"
[ "$(q "SELECT COUNT(*) FROM runs WHERE status='complete'")" = 2 ] || fail "2 complete runs: $(q 'SELECT id, status, message FROM runs')"
[ "$(q "SELECT COUNT(*) FROM runs WHERE config_json LIKE '%\"runtime\":\"python\"%' AND config_json LIKE '%\"model\":\"tiny_factories:image_net,width=4\"%'")" = 2 ] \
  || fail "each run's configuration holds the model and the Python runtime: $(q 'SELECT config_json FROM runs')"
q "SELECT config_name FROM runs" | grep -q "tiny_factories:image_net,width=4" || fail "the model is in the configuration's name"
grep -q "skipped the native C++ runtime for tiny_factories:image_net,width=4 (its rows run in the Python worker" "$work/run.err" \
  || fail "where the native rows the preset asked for went is said: $(grep skipped "$work/run.err")"
grep -q "tiny_factories:image_net" "$work/run.md" || fail "the sweep's title names the model: $(head -3 "$work/run.md")"
grep -q "^Model: tiny_factories:image_net,width=4 (162 parameters)$" "$work/run.md" || fail "the ledger names the model: $(head -8 "$work/run.md")"
# Issue 30.4: each run stores its model's facts, its step's FLOPs counted by torch.utils.flop_counter,
# and `show` gives the model with its parameters and a TFLOP/s figure from that count.
[ "$(q "SELECT COUNT(*) FROM runs WHERE config_json LIKE '%image_net,width=4%' AND training_flops > 0 AND parameters > 0 \
        AND flops_source = 'torch.utils.flop_counter' AND model_description LIKE 'tiny_factories:image_net (%'")" = 2 ] \
  || fail "each run stores its model's facts: $(q 'SELECT model_description, parameters, training_flops, flops_source, flops_problem FROM runs')"
# A steady figure needs more steps than a tiny CPU run of 12 always settles in.
cli --db "$db" run "${tiny[@]}" --classes 10 --steps 40 --warmup-steps 1 --python "$py" --no-profile --timeout 120 \
  --single --runtime python --model tiny_factories:image_net,width=4 > /dev/null 2> "$work/steady.err" \
  || fail "the steady sweep failed: $(tail -20 "$work/steady.err")"
sweep=$(q "SELECT MAX(sweep_id) FROM runs")
cli --db "$db" show --sweep "$sweep" > "$work/show.md" || fail "show --sweep $sweep"
grep -q "^model: tiny_factories:image_net,width=4 (162 parameters)$" "$work/show.md" \
  || fail "show names the model with its parameters: $(cat "$work/show.md")"
# A rate needs a steady step, which a loaded 2-core machine can take away from 40 CPU steps: without
# one, show must say so rather than give a rate (issue 32.6: no test rests on a steady window).
if grep -q "^compute per steady step" "$work/show.md"; then
  grep -q "^compute per steady step (training FLOPs counted by torch.utils.flop_counter" "$work/show.md" || fail "show says where the FLOPs come from: $(cat "$work/show.md")"
  grep -Eq "^  baseline: [0-9.e+-]+ GFLOP, [0-9.e+-]+ TFLOP/s$" "$work/show.md" || fail "show gives a TFLOP/s figure: $(cat "$work/show.md")"
else
  run=$(q "SELECT id FROM runs WHERE sweep_id=$sweep LIMIT 1")
  cli --db "$db" show "$run" | grep -q "^steady state: none (" || fail "show gives no rate, yet the run has a steady state"
fi
run=$(q "SELECT id FROM runs WHERE sweep_id=$sweep LIMIT 1")
cli --db "$db" show "$run" | grep -q "^model: tiny_factories:image_net (.*; 162 parameters; .* GFLOP a training step, counted by torch.utils.flop_counter" \
  || fail "show RUN gives the run's model and its count: $(cli --db "$db" show "$run")"

# A factory that hangs: the silence timeout ends it, named, and no figure is stored.
rc=0
cli --db "$db" run "${shape[@]}" --single --runtime python --model tiny_factories:hangs --timeout 5 \
  > /dev/null 2> "$work/hang.err" || rc=$?
[ "$rc" != 0 ] || fail "a hanging factory's sweep exited 0"
hung=$(q "SELECT id FROM runs WHERE config_json LIKE '%tiny_factories:hangs%'")
[ "$(q "SELECT category FROM runs WHERE id=$hung")" = timeout ] || fail "timeout expected: $(q "SELECT category, message FROM runs WHERE id=$hung")"
[ "$(q "SELECT COUNT(*) FROM steps WHERE run_id=$hung")" = 0 ] || fail "the hung run stored steps"

# A factory that raises: model-failed, its own line in the detail.
rc=0
cli --db "$db" run "${shape[@]}" --single --runtime python --model tiny_factories:raises > /dev/null 2> "$work/raise.err" || rc=$?
[ "$rc" != 0 ] || fail "a raising factory's sweep exited 0"
raised=$(q "SELECT id FROM runs WHERE config_json LIKE '%tiny_factories:raises%'")
[ "$(q "SELECT category FROM runs WHERE id=$raised")" = model-failed ] || fail "model-failed expected: $(q "SELECT category, message FROM runs WHERE id=$raised")"
q "SELECT message FROM runs WHERE id=$raised" | grep -q "could not find its weights" || fail "the factory's own message is kept"
echo "ok"
