#!/usr/bin/env bash
# On the GPU machine (device tool), issue 28: compile reduce-overhead at b32 against the native fp32
# baseline under every start state (fresh, shipped, again), 3 processes of each, then the 7 native
# ledger rows fresh in ledger order and reversed (a fresh first step must not depend on what ran
# before it). Writes the database, the exports and the logs under $OUT as one tarball.
#   source .gpu-deps/env.sh && scripts/gpu-starts.sh [steps] [repeats]
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/gpu-build.sh"
steps=${1:-100}
repeats=${2:-3}
db="$out/h200-starts.sqlite"
python3 - "$out" "$steps" <<'PY'
import json, sys
out, steps = sys.argv[1], int(sys.argv[2])
shape = {"device": "cuda", "batch": 32, "image_size": 224, "steps": steps}
compiled = dict(shape, runtime="python", tf32=True, cudnn_benchmark=True, autocast="bf16", channels_last=True,
                compile="reduce-overhead")
json.dump({"configs": [dict(shape), compiled], "baseline": 1}, open(f"{out}/starts.json", "w"))
knobs = [("tf32", True), ("cudnn_benchmark", True), ("autocast", "bf16"), ("channels_last", True),
         ("cuda_graph", True), ("optimizer", "fused")]
rows, cur = [{}], {}
for k, v in knobs:
    cur = dict(cur, **{k: v})
    rows.append(cur)
native = [dict(shape, steps=60, **r) for r in rows]
json.dump({"configs": native, "baseline": 1}, open(f"{out}/ledger.json", "w"))
json.dump({"configs": native[::-1], "baseline": len(native)}, open(f"{out}/reverse.json", "w"))
PY
$cli --db "$db" run --config "$out/starts.json" --start all --repeat "$repeats" --no-profile \
  --name "H200 b32 reduce-overhead, every start" 2> "$out/starts.log" > "$out/starts.md"
echo "starts rc=$? at $SECONDS s"
for order in ledger reverse; do
  $cli --db "$db" run --config "$out/$order.json" --start fresh --no-profile \
    --name "H200 native b32 fresh, $order order" 2> "$out/$order.log" > "$out/$order.md"
  echo "$order rc=$? at $SECONDS s"
done
for start in fresh shipped again; do
  $cli --db "$db" export --sweep 1 --format json --start $start > "$out/starts-$start.json"
  $cli --db "$db" export --sweep 1 --format markdown --start $start > "$out/starts-$start.md"
done
for id in 2 3; do $cli --db "$db" export --sweep $id --format json > "$out/native$id.json"; done
for run in $(sqlite3 "$db" "SELECT id FROM runs WHERE sweep_id = 1 AND caches = 'shipped'" 2>/dev/null); do
  $cli --db "$db" show "$run" >> "$out/shipped-runs.txt"
done
cat "$out/starts-fresh.md"
echo "done at $SECONDS s"
