#!/usr/bin/env bash
# The figures core/report computes beside the ledger, as the CLI shows them, on copies of the H200
# databases of docs/results (read-only there): `show --sweep` and `export` print the environment
# assessment (pinning, the shared CUDA cache, launch-bound steps) and the compile break-even against
# eager with its interval; `compare A B` (also across two files) prints the sweep comparison.
#   cli_figures.sh BIN_DIR SOURCE_DIR
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh" "$1"
results=$2/docs/results
for f in h200-pinning-b32 h200-compile-b32 h200-ledger h200-aa h200-models-lm; do
  cp "$results/$f.sqlite" "$work/$f.sqlite"
  chmod u+w "$work/$f.sqlite"
done

# show --sweep: what pinning did, per pinned configuration against its unpinned twin, and the
# CUDA cache finding with its fix.
cli --db "$work/h200-pinning-b32.sqlite" show --sweep 1 > "$work/pinning.txt" || fail "show --sweep exited $?"
grep -q "^what may skew these numbers:" "$work/pinning.txt" || fail "show --sweep has the assessment: $(cat "$work/pinning.txt")"
grep -Eq "\[info\] What pinning did: tf32\+cudnn-bench\+bf16\+channels-last\+pin-one-core: [0-9.]+ ms pinned vs [0-9.]+ ms unpinned \(1\.[0-9]+x faster\)" \
  "$work/pinning.txt" || fail "show --sweep says what pinning did: $(grep -i pinning "$work/pinning.txt")"
grep -q "\[warning\] CUDA_CACHE_PATH" "$work/pinning.txt" && grep -q "fix: Use the fresh CUDA cache option" "$work/pinning.txt" \
  || fail "show --sweep names the shared CUDA cache and its fix"

# A launch-bound step (wall time well above GPU time; the H200 files have none, so one is made by
# doubling a configuration's wall time): named with its figures and the pinning fix.
sqlite3 "$work/h200-pinning-b32.sqlite" \
  "UPDATE runs SET block_wall_ms = block_wall_ms * 2 WHERE sweep_id = 1 AND config_name LIKE '%bf16+channels-last'"
cli --db "$work/h200-pinning-b32.sqlite" show --sweep 1 > "$work/bound.txt"
grep -Eq "\[warning\] Launch-bound steps: 1 of 8 configurations; worst tf32\+cudnn-bench\+bf16\+channels-last: wall [0-9.]+ ms per step vs GPU [0-9.]+ ms \(2\.[0-9]+x\)" \
  "$work/bound.txt" || fail "show --sweep flags the launch-bound step: $(grep -i launch "$work/bound.txt")"
grep -q "fix: try cpu_affinity one" "$work/bound.txt" || fail "the launch-bound fix"
cli --db "$work/h200-pinning-b32.sqlite" export --sweep 1 --format markdown > "$work/bound.md"
grep -q "^### What may skew these numbers" "$work/bound.md" && grep -q "^- \*\*Launch-bound steps\*\* (1 of 8" "$work/bound.md" \
  || fail "the Markdown export has the assessment: $(tail -8 "$work/bound.md")"
cli --db "$work/h200-pinning-b32.sqlite" export --sweep 1 --format json > "$work/bound.json"
python3 - "$work/bound.json" <<'PY' || fail "the JSON export has the assessment"
import json, sys
d = json.load(open(sys.argv[1]))
a = d["environment_assessment"]
ids = [f["id"] for f in a["findings"]]
assert "launch_bound" in ids and "cpu_pinning" in ids and "shared_cuda_cache" in ids, ids
assert a["launch_bound"]["configurations"] == 1 and a["launch_bound"]["ratio"] > 1.3, a["launch_bound"]
assert [p["outcome"] for p in a["cpu_pinning"]] == ["faster", "no change"], a["cpu_pinning"]
assert len(d["rows"]) == 8 and d["compile_break_even"] == [], d.keys()
PY

# The compile break-even against Python eager in an older file (schema 5, compile_cache a knob then):
# its warm-cache row is the cold row's again start now, in show and in both exports.
cli --db "$work/h200-compile-b32.sqlite" show --sweep 1 > "$work/compile.txt"
grep -q "^compile break-even against eager" "$work/compile.txt" || fail "show --sweep has the compile break-even"
grep -Eq "compile-reduce-overhead \(fresh start\) vs python tf32\+cudnn-bench\+bf16\+channels-last: [0-9,]+ \(n=1, no CI\)" \
  "$work/compile.txt" || fail "fresh reduce-overhead vs eager: $(grep reduce "$work/compile.txt")"
grep -q "compile-default (fresh start) vs python .*: never" "$work/compile.txt" || fail "compile default never pays off"
if grep -q "warm-cache" "$work/compile.txt"; then fail "the warm-cache row is the again start of its twin now"; fi
cli --db "$work/h200-compile-b32.sqlite" export > "$work/compile.md"
grep -q "^### torch.compile: break-even against eager" "$work/compile.md" || fail "Markdown export: compile break-even"
grep -q "| python tf32+cudnn-bench+bf16+channels-last+compile-reduce-overhead | fresh |" "$work/compile.md" \
  || fail "Markdown export: the fresh row: $(grep reduce "$work/compile.md")"
cli --db "$work/h200-compile-b32.sqlite" export --format json > "$work/compile.json"
cli --db "$work/h200-compile-b32.sqlite" export --format json --start again > "$work/compile-again.json"
python3 - "$work/compile.json" "$work/compile-again.json" <<'PY' || fail "JSON export: compile break-even"
import json, sys
d, a = (json.load(open(p)) for p in sys.argv[1:3])
rows = {r["configuration"].split()[-1]: r for r in d["compile_break_even"]}
again = {r["configuration"].split()[-1]: r for r in a["compile_break_even"]}
name = "tf32+cudnn-bench+bf16+channels-last+compile-reduce-overhead"
cold, warm = rows[name], again[name]
assert not any("warm-cache" in k for k in rows), rows.keys()
assert cold["start"] == "fresh" and warm["start"] == "again", (cold, warm)
assert cold["eager"] == warm["eager"] and cold["eager"].startswith("python "), cold["eager"]
assert 1 < warm["steps"] < cold["steps"], (warm["steps"], cold["steps"])
assert cold["ci_low"] is None and "n=1, no CI" in cold["text"], cold  # one repeat a row
assert rows["tf32+cudnn-bench+bf16+channels-last+compile-default"]["never"] is True
# The pick for a fresh machine never rests on the again first step.
by = d["recommended_by_start"]
assert by["fresh"]["first_step_measured"] in (True, False) and "total_s" in by["fresh"], by
PY

# compare: the A/A sweeps (the same configuration twice, two cold processes a side and more) differ
# by nothing significant; across two files, each side is named by its file.
cli --db "$work/h200-aa.sqlite" compare 1 2 > "$work/aa.md" || fail "compare exited $?"
grep -q "^## Comparison: B #2 A/A 2 against A #1 A/A 1" "$work/aa.md" || fail "compare names the sides: $(head -3 "$work/aa.md")"
grep -q "^| configuration | steady A \[95% CI\] | steady B \[95% CI\] | B/A \[95% CI\] | B is |" "$work/aa.md" \
  || fail "compare prints the Markdown table"
grep -Eq "^\| .* \| [0-9.]+ ms \[[0-9.]+-[0-9.]+\] \| [0-9.]+ ms \[[0-9.]+-[0-9.]+\] \| [0-9.]+x \[[0-9.]+-[0-9.]+\] \| " "$work/aa.md" \
  || fail "compare prints each side's CI and the ratio's: $(cat "$work/aa.md")"
grep -q "no significant difference (interval spans 1)" "$work/aa.md" || fail "an A/A comparison: $(cat "$work/aa.md")"
cli --db "$work/h200-ledger.sqlite" compare 1 2 --format json > "$work/batch.json"
python3 - "$work/batch.json" <<'PY' || fail "compare --format json across batches"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["per_image"] is True and d["unit"] == "ms per image", (d["per_image"], d["unit"])
assert "Batch: A 32, B 128" in d["differences"], d["differences"]
assert len(d["rows"]) == 7 and all(r["ratio"] > 0 for r in d["rows"]), d["rows"]
assert all(r["ratio_ci_low"] <= r["ratio"] <= r["ratio_ci_high"] for r in d["rows"]), d["rows"]
PY
cli --db "$work/h200-ledger.sqlite" compare 1 1 --db-b "$work/h200-compile-b32.sqlite" > "$work/files.md"
grep -q "^## Comparison: B h200-compile-b32.sqlite, #1 H200 compile ledger b32 against A h200-ledger.sqlite, #1 H200 ledger b32" \
  "$work/files.md" || fail "compare across files: $(head -1 "$work/files.md")"
grep -q "| only in B |" "$work/files.md" || fail "the compile file's Python rows are only in B"
grep -q "| 1 repeat: no interval |" "$work/files.md" || fail "one repeat a side says so: $(cat "$work/files.md")"
cli --db "$work/h200-aa.sqlite" compare 1 2 --format csv > "$work/aa.csv"
[ "$(head -1 "$work/aa.csv" | cut -d, -f1-4)" = "configuration,knobs,unit,a_ms" ] || fail "compare --format csv header"

# compare reads only: neither file changes. Bad arguments exit 2, a missing file 3.
before=$(cksum < "$work/h200-aa.sqlite")
cli --db "$work/h200-aa.sqlite" compare 1 2 > /dev/null
[ "$(cksum < "$work/h200-aa.sqlite")" = "$before" ] || fail "compare wrote to the database"
set +e
cli --db "$work/h200-aa.sqlite" compare 1 2> /dev/null; [ $? = 2 ] || fail "compare with one sweep must exit 2"
cli --db "$work/h200-aa.sqlite" compare 1 9 2> "$work/bad.err"; [ $? = 2 ] || fail "compare with no sweep 9 must exit 2"
grep -q "no sweep 9" "$work/bad.err" || fail "compare names the missing sweep: $(cat "$work/bad.err")"
cli --db "$work/h200-aa.sqlite" compare 1 x 2> /dev/null; [ $? = 2 ] || fail "compare 1 x must exit 2"
cli --db "$work/h200-aa.sqlite" compare 1 2 --format xml 2> /dev/null; [ $? = 2 ] || fail "compare --format xml must exit 2"
cli --db "$work/h200-aa.sqlite" compare 1 2 --db-b "$work/none.sqlite" 2> /dev/null; [ $? = 3 ] || fail "a missing --db-b exits 3"
cli --db "$work/h200-aa.sqlite" show --sweep 9 2> /dev/null; [ $? = 2 ] || fail "show --sweep 9 must exit 2"
cli --db "$work/h200-aa.sqlite" show 1 --sweep 1 2> /dev/null; [ $? = 2 ] || fail "show RUN --sweep ID must exit 2"
set -e
# Energy (issue 31.4) from the H200's counter: the Energy section, and --objective energy turns the
# verdict to the fewest joules; a file of before energy was measured refuses it, saying why.
cli --db "$work/h200-models-lm.sqlite" export --sweep 2 > "$work/energy.md"
grep -q "^- tf32+cudnn-bench+bf16+cuda-graph: 3.29 J/step at 540 W (n=1, no CI); timed steps under 1 s" "$work/energy.md" \
  || fail "the Energy section gives a row's joules: $(grep -A8 '^Energy' "$work/energy.md")"
cli --db "$work/h200-models-lm.sqlite" export --sweep 2 --objective energy > "$work/joules.md"
grep -q "^\*\*Recommendation: Use .*: the fewest joules, [0-9.]* kJ for 10,000 steps\.\*\*" "$work/joules.md" \
  || fail "--objective energy heads with the fewest joules: $(grep Recommendation "$work/joules.md")"
rc=0
cli --db "$work/h200-ledger.sqlite" export --objective energy > /dev/null 2> "$work/joules.err" || rc=$?
[ "$rc" = 2 ] && grep -q "has energy figures to pick by (not measured); use --objective time" "$work/joules.err" \
  || fail "a sweep without energy refuses --objective energy: rc $rc, $(cat "$work/joules.err")"
# Idle power comes out only when asked, and the Energy section and JSON say so; a bad figure is refused.
cli --db "$work/h200-models-lm.sqlite" export --sweep 2 --idle-watts 100 > "$work/net.md"
grep -q "net of 100 W of idle power over each window (--idle-watts)" "$work/net.md" \
  || fail "--idle-watts is said: $(grep '^Energy' "$work/net.md")"
grep -q "idle power" "$work/energy.md" && fail "idle power is taken out only when asked"
grep -q '"idle_watts_subtracted": 100' <<< "$(cli --db "$work/h200-models-lm.sqlite" export --sweep 2 --idle-watts 100 --format json)" \
  || fail "the JSON says the idle watts taken out"
rc=0
cli --db "$work/h200-models-lm.sqlite" export --sweep 2 --idle-watts abc > /dev/null 2> "$work/idle.err" || rc=$?
[ "$rc" = 2 ] && grep -q "is not a power; give the GPU's idle draw in watts" "$work/idle.err" \
  || fail "--idle-watts abc is refused: rc $rc, $(cat "$work/idle.err")"
# Here-strings, not `| grep -q`: grep ending early would make pipefail take the writer's SIGPIPE.
grep -q -- "--db-b FILE" <<< "$(cli compare --help)" || fail "compare --help lists --db-b"
grep -q -- "compare:--db-b" <<< "$(cli completion bash)" || fail "the completion knows compare's --db-b"
grep -q "^\.SS \"compare A B\"" <<< "$(cli man)" || fail "the manual page has compare: $(cli man | grep -n compare | head -3)"
echo "cli figures: assessment, compile break-even and comparison shown"
