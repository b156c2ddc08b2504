#!/usr/bin/env bash
# torch.compile end to end on the CPU: the CLI runs native eager, Python eager, a cold compile and
# a warm compile of one tiny ResNet18 step through inductor's C++ backend, and stores each with
# its first step, its cache label and its compile breakdown. The warm first step must be smaller.
#   cli_compile.sh BIN_DIR PYTHON
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh" "$1"
py=$2
db=$work/c.sqlite
q() { sqlite3 "$db" "$1"; }

cat > "$work/sweep.json" <<'JSON'
{"configs": [
  {"runtime": "native"},
  {"runtime": "python"},
  {"runtime": "python", "compile": "default", "compile_cache": "cold"},
  {"runtime": "python", "compile": "default", "compile_cache": "warm"}
]}
JSON
shape=("${tiny[@]}" --classes 10 --steps 4 --warmup-steps 1 --python "$py"
       --compile-cache-dir "$work/cc" --timeout 600)
rc=0
cli --db "$db" run "${shape[@]}" --config "$work/sweep.json" > "$work/run.md" 2> "$work/run.err" || rc=$?
[ "$rc" = 0 ] || fail "sweep exited $rc: $(tail -20 "$work/run.err")"
[ "$(q "SELECT COUNT(*) FROM runs WHERE status='complete'")" = 4 ] || fail "4 complete runs expected: $(q 'SELECT id, status, category, message FROM runs')"
grep -q "compiling" "$work/run.err" || fail "the CLI shows no compiling progress"
grep -qi "priming" "$work/run.err" || fail "the warm run was not primed by a run of its own configuration"

cold=$(q "SELECT id FROM runs WHERE compile_cache='cold'")
warm=$(q "SELECT id FROM runs WHERE compile_cache='warm'")
[ -n "$cold" ] && [ -n "$warm" ] || fail "runs are not labelled cold and warm: $(q 'SELECT id, compile_cache FROM runs')"
# Their machine caches are a state of their own (a CPU sweep runs cold), recorded for every run.
[ "$(q "SELECT COUNT(*) FROM runs WHERE caches='cold' AND cache_record IS NOT NULL")" = "$(q "SELECT COUNT(*) FROM runs")" ] \
  || fail "every run has a cold machine-cache record: $(q 'SELECT id, caches, cache_record FROM runs')"
[ "$(q "SELECT COUNT(*) FROM runs WHERE compile_cache IS NULL OR compile_cache=''")" = 2 ] \
  || fail "eager runs must carry no compile cache label"

python3 - "$db" "$cold" "$warm" "$work/cc" <<'PY' || fail "compile records"
import json, os, sqlite3, sys
db, cold, warm, root = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
c = sqlite3.connect(db)
def row(i):
    first, info, dirs = c.execute("SELECT first_step_s, compile_json, cache_dirs FROM runs WHERE id=?", (i,)).fetchone()
    return first, json.loads(info), json.loads(dirs)
cf, ci, cd = row(cold)
wf, wi, wd = row(warm)
for name, info in (("cold", ci), ("warm", wi)):
    assert info["compiled"] is True and info["fallback_reason"] == "", (name, info)
    assert info["graphs"] >= 1 and info["graph_breaks"] == 0, (name, info)
    assert info["cache"] == name, (name, info)
assert ci["compile_s"] > 0 and ci["phases"]["inductor_forward_s"] > 0 and ci["phases"]["dynamo_tracing_s"] > 0, ci
assert ci["fx_graph_cache"].get("miss", 0) >= 1, ci
assert wi["fx_graph_cache"].get("hit", 0) >= 1 or wi["aot_autograd_cache"].get("hit", 0) >= 1, wi
print(f"first step: cold {cf:.2f} s, warm {wf:.2f} s; compile: cold {ci['compile_s']:.2f} s, warm {wi['compile_s']:.2f} s")
assert wf < cf, f"the warm first step ({wf:.2f} s) must be smaller than the cold one ({cf:.2f} s)"
for var in ("TORCHINDUCTOR_CACHE_DIR", "TRITON_CACHE_DIR"):
    assert not os.path.exists(cd[var]), f"the cold cache {cd[var]} must be removed after its run"
    assert wd[var].startswith(root) and os.path.isdir(wd[var]), f"the warm cache {wd[var]} is kept under {root}"
PY

cli --db "$db" show "$warm" > "$work/show-warm.txt"
grep -qi "warm" "$work/show-warm.txt" || fail "show names the warm cache"
cli --db "$db" show "$cold" > "$work/show-cold.txt"
grep -q "inductor_forward" "$work/show-cold.txt" || fail "show prints the compile breakdown"
cli --db "$db" export --format markdown > "$work/l.md"
grep -q "compile-default" "$work/l.md" || fail "the ledger has the compiled rows"
grep -q "warm-cache" "$work/l.md" || fail "the ledger tells the warm row apart"

# A second warm sweep finds its cache primed: no second priming run.
cli --db "$db" run "${shape[@]}" --single --runtime python --compile default --compile-cache warm \
  > /dev/null 2> "$work/again.err" || fail "second warm run: $(tail -5 "$work/again.err")"
if grep -qi "priming" "$work/again.err"; then fail "a primed warm cache was primed again"; fi

# doctor: every line judged, exit 0 on this machine, compile readiness proven by a real compile.
cli doctor --device cpu --python "$py" > "$work/doctor.txt" 2>&1 || fail "doctor exited $?: $(cat "$work/doctor.txt")"
grep -q "compile readiness" "$work/doctor.txt" || fail "doctor checks compile readiness"
grep -q "triton" "$work/doctor.txt" || fail "doctor reports Triton"
rc=0
cli doctor --device cpu --python "$work/no/python" > "$work/doctor2.txt" 2>&1 || rc=$?
[ "$rc" = 1 ] || fail "doctor without a Python must exit 1, got $rc"
echo "compile sweep stored: cold and warm labelled, breakdown recorded"
