#!/usr/bin/env bash
# On the GPU machine (device tool), issue 18: the default ledger with a profile of every run, cold
# caches only (one process a row, to fit a lease), at the batch given; then why, two kernel diffs
# (eager vs graph, eager vs compile default) and exports under $OUT.
#   source .gpu-deps/env.sh && scripts/gpu-profile.sh [batch] [steps]
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/gpu-build.sh"
batch=${1:-32}
steps=${2:-200}
db="$out/h200-profile-b$batch.sqlite"
$cli --db "$db" run --device cuda --batch "$batch" --steps "$steps" --caches cold \
  --name "H200 ledger b$batch with profiles" 2> "$out/ledger-b$batch.log" > "$out/ledger-b$batch.md"
echo "ledger b$batch rc=$? at $SECONDS s"
grep -E "failed|error" "$out/ledger-b$batch.log" | head -20
$cli --db "$db" list > "$out/list-b$batch.txt"
$cli --db "$db" why --kernels 5 > "$out/why-b$batch.txt"
$cli --db "$db" export --format json > "$out/ledger-b$batch.json"
# Run ids by label: the native eager baseline-with-knobs row (tf32+cudnn+bf16+cl), its graph row,
# and the Python compile-default row.
python3 - "$db" "$out" "$cli" "$batch" <<'PY'
import json, sqlite3, subprocess, sys
db, out, cli, batch = sys.argv[1:5]
rows = sqlite3.connect(db).execute("select id, config_name from runs where status='complete'").fetchall()
def find(pred):
    for i, name in rows:
        if pred(name):
            return i
eager = find(lambda n: n.startswith("native") and n.endswith("[tf32+cudnn-bench+bf16+channels-last]"))
graph = find(lambda n: n.startswith("native") and n.endswith("[tf32+cudnn-bench+bf16+channels-last+pin-one-core+cuda-graph+sgd-fused]"))
compiled = find(lambda n: n.startswith("python") and n.endswith("[tf32+cudnn-bench+bf16+channels-last+compile-default]"))
for name, a, b in [("eager-vs-graph", eager, graph), ("eager-vs-compile-default", eager, compiled)]:
    if a and b:
        text = subprocess.run([cli, "--db", db, "why", str(a), str(b)], capture_output=True, text=True)
        open(f"{out}/diff-{name}-b{batch}.txt", "w").write(text.stdout + text.stderr)
PY
cat "$out/why-b$batch.txt" | head -120
echo "done at $SECONDS s"
