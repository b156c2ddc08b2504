#!/usr/bin/env bash
# torch.compile end to end on the CPU: the CLI runs native eager, Python eager and one compiled
# configuration of a tiny ResNet18 step through inductor's C++ backend under the fresh, shipped and
# again start states, and stores each with its first step, its start, the shipped run's bundle hits
# and its compile breakdown. The again first step must be smaller than the fresh one.
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
  {"runtime": "python", "compile": "default"}
], "start": "fresh,shipped,again"}
JSON
shape=("${tiny[@]}" --classes 10 --steps 4 --warmup-steps 1 --python "$py"
       --cache-dir "$work/cc" --timeout 600)
rc=0
cli --db "$db" run "${shape[@]}" --config "$work/sweep.json" > "$work/run.md" 2> "$work/run.err" || rc=$?
[ "$rc" = 0 ] || fail "sweep exited $rc: $(tail -20 "$work/run.err")"
# Eager CPU rows have nothing to ship: fresh and again each; the compiled row all three.
[ "$(q "SELECT COUNT(*) FROM runs WHERE status='complete'")" = 7 ] || fail "7 complete runs expected: $(q 'SELECT id, status, caches, category, message FROM runs')"
grep -q "compiling" "$work/run.err" || fail "the CLI shows no compiling progress"
if grep -qi "priming" "$work/run.err"; then fail "the fresh run primes the others: no priming process"; fi

fresh=$(q "SELECT id FROM runs WHERE caches='fresh' AND config_json LIKE '%\"compile\":\"default\"%'")
shipped=$(q "SELECT id FROM runs WHERE caches='shipped'")
again=$(q "SELECT id FROM runs WHERE caches='again' AND config_json LIKE '%\"compile\":\"default\"%'")
[ -n "$fresh" ] && [ -n "$shipped" ] && [ -n "$again" ] || fail "one compiled run of each start: $(q 'SELECT id, caches, config_name FROM runs')"
[ "$(q "SELECT COUNT(DISTINCT config_name) FROM runs WHERE id IN ($fresh, $shipped, $again)")" = 1 ] \
  || fail "one configuration, three starts"
[ "$(q "SELECT COUNT(*) FROM runs WHERE compile_cache IS NOT NULL AND compile_cache != ''")" = 0 ] \
  || fail "no compile_cache knob is written any more"

python3 - "$db" "$fresh" "$shipped" "$again" <<'PY' || fail "compile records"
import json, os, sqlite3, sys
db, fresh, shipped, again = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
c = sqlite3.connect(db)
def row(i):
    first, info, dirs, record = c.execute(
        "SELECT first_step_s, compile_json, cache_dirs, cache_record FROM runs WHERE id=?", (i,)).fetchone()
    return first, json.loads(info), json.loads(dirs), json.loads(record)
ff, fi, fd, fr = row(fresh)
sf, si, sd, sr = row(shipped)
af, ai, ad, ar = row(again)
for name, info in (("fresh", fi), ("shipped", si), ("again", ai)):
    assert info["compiled"] is True and info["fallback_reason"] == "", (name, info)
    assert info["graphs"] >= 1 and info["graph_breaks"] == 0, (name, info)
    assert info["start"] == name, (name, info)
assert fi["compile_s"] > 0 and fi["phases"]["inductor_forward_s"] > 0 and fi["phases"]["dynamo_tracing_s"] > 0, fi
assert fi["fx_graph_cache"].get("miss", 0) >= 1, fi
# The fresh run saved the bundle; the shipped run loaded it into empty caches of its own and hit.
assert fr.get("bundle_saved_bytes", 0) > 0, fr
bundle = sr["bundle"]
assert bundle["reported"] and bundle["hits"] >= 1 and bundle["misses"] == 0, bundle
assert bundle["bytes"] == fr["bundle_saved_bytes"], (bundle, fr)
assert sr["missed"] == [], sr
assert sd["TORCHINDUCTOR_CACHE_DIR"] != fd["TORCHINDUCTOR_CACHE_DIR"], "a shipped run has caches of its own"
assert ad["TORCHINDUCTOR_CACHE_DIR"] == fd["TORCHINDUCTOR_CACHE_DIR"], "the again run reads the fresh run's"
assert ai["fx_graph_cache"].get("hit", 0) >= 1 or ai["aot_autograd_cache"].get("hit", 0) >= 1, ai
print(f"first step: fresh {ff:.2f} s, shipped {sf:.2f} s (bundle {bundle['bytes']} B, {bundle['hits']} hits), again {af:.2f} s")
assert af < ff, f"the again first step ({af:.2f} s) must be smaller than the fresh one ({ff:.2f} s)"
for d in (fd, sd):
    assert not os.path.exists(d["TORCHINDUCTOR_CACHE_DIR"]), "the sweep's caches are gone with it"
PY
[ -z "$(ls -A "$work/cc")" ] || fail "the sweep's cache folders are gone afterwards: $(ls -A "$work/cc")"

cli --db "$db" show "$shipped" > "$work/show-shipped.txt"
grep -q "mega-cache bundle" "$work/show-shipped.txt" || fail "show names the bundle: $(cat "$work/show-shipped.txt")"
cli --db "$db" show "$fresh" > "$work/show-fresh.txt"
grep -q "inductor_forward" "$work/show-fresh.txt" || fail "show prints the compile breakdown"
cli --db "$db" export --format markdown --start shipped > "$work/l.md"
grep -q "compile-default" "$work/l.md" || fail "the ledger has the compiled row"
grep -q "with shipped caches" "$work/l.md" || fail "the shipped ledger names its start: $(cat "$work/l.md")"
# The torch.compile table the dashboard's Markdown report has (issue 29.5: one reading of the record).
grep -q "^### torch.compile$" "$work/l.md" || fail "the Markdown export has the torch.compile table: $(cat "$work/l.md")"
grep -q "^| configuration | start | first step | compile | phases | graphs |" "$work/l.md" || fail "its columns"
grep -q "against baseline: fresh " "$work/l.md" || fail "its findings name each start state"

# doctor: every line judged, exit 0 on this machine, compile readiness proven by a real compile.
cli doctor --device cpu --python "$py" > "$work/doctor.txt" 2>&1 || fail "doctor exited $?: $(cat "$work/doctor.txt")"
grep -q "compile readiness" "$work/doctor.txt" || fail "doctor checks compile readiness"
grep -q "triton" "$work/doctor.txt" || fail "doctor reports Triton"
rc=0
cli doctor --device cpu --python "$work/no/python" > "$work/doctor2.txt" 2>&1 || rc=$?
[ "$rc" = 1 ] || fail "doctor without a Python must exit 1, got $rc"
echo "compile sweep stored: fresh, shipped and again of one configuration, the bundle's hits recorded"
