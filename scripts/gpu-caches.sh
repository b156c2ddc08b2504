#!/usr/bin/env bash
# On the GPU machine (device tool): the native ledger at b32 with a cold and a warm process of each
# configuration (--caches both), in ledger order and in reverse order: a cold first step must not
# depend on what ran before it. Writes the databases, exports and logs under $OUT.
#   source .gpu-deps/env.sh && scripts/gpu-caches.sh [steps]
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/gpu-build.sh"
steps=${1:-300}
db="$out/h200-caches.sqlite"
# The native ledger's configurations (core/config/presets.cpp, GPU: the pin row included), written
# out so that the same list runs forwards and backwards.
python3 - "$out" "$steps" <<'PY'
import json, sys
out, steps = sys.argv[1], int(sys.argv[2])
knobs = [("tf32", True), ("cudnn_benchmark", True), ("autocast", "bf16"), ("channels_last", True),
         ("cpu_affinity", "one"), ("cuda_graph", True), ("optimizer", "fused")]
rows, cur = [{}], {}
for k, v in knobs:
    cur = dict(cur, **{k: v})
    rows.append(cur)
configs = [dict({"device": "cuda", "batch": 32, "image_size": 224, "steps": steps}, **r) for r in rows]
json.dump({"configs": configs, "baseline": 1}, open(f"{out}/ledger.json", "w"))
json.dump({"configs": configs[::-1], "baseline": len(configs)}, open(f"{out}/reverse.json", "w"))
PY
for order in ledger reverse; do
  $cli --db "$db" run --config "$out/$order.json" --caches both --name "H200 native b32 caches both, $order order" \
    2> "$out/$order.log" > "$out/$order.md"
  echo "$order rc=$? at $SECONDS s"
  grep -E "time left" "$out/$order.log" | tail -1
done
for id in 1 2; do
  $cli --db "$db" export --sweep $id --format json > "$out/sweep$id.json"
  $cli --db "$db" export --sweep $id --format markdown > "$out/sweep$id.md"
done
cat "$out/sweep1.md"
echo "done at $SECONDS s"
