#!/usr/bin/env bash
# On the GPU machine (device tool), issue 18.5 and the profile's own cost: (1) the batch scan
# 16,32,64,128 for eager, the whole-step graph and compile reduce-overhead (all on TF32, cuDNN
# autotuning, bf16 and channels_last), cold caches; (2) the native eager and graph rows with and
# without profiling, interleaved, two processes each: the steady figure must agree within noise.
#   source .gpu-deps/env.sh && scripts/gpu-profile-scan.sh [steps] [part: scan|cost|both]
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/gpu-build.sh"
steps=${1:-200}
part=${2:-both}
python3 - "$out" "$steps" <<'PY'
import json, sys
out, steps = sys.argv[1], int(sys.argv[2])
knobs = {"device": "cuda", "image_size": 224, "steps": steps, "tf32": True, "cudnn_benchmark": True,
         "autocast": "bf16", "channels_last": True}
eager = dict(knobs)
graph = dict(knobs, cuda_graph=True, optimizer="fused", cpu_affinity="one")
ro = dict(knobs, runtime="python", compile="reduce-overhead")
json.dump({"configs": [eager, graph, ro], "baseline": 1}, open(f"{out}/scan.json", "w"))
json.dump({"configs": [dict(eager, batch=32), dict(graph, batch=32)], "baseline": 1}, open(f"{out}/cost.json", "w"))
PY
if [ "$part" != cost ]; then
  db="$out/h200-batch-scan.sqlite"
  $cli --db "$db" run --config "$out/scan.json" --batch 16,32,64,128 --caches cold --name "H200 batch scan" \
    2> "$out/scan.log" > "$out/scan.md"
  echo "scan rc=$? at $SECONDS s"
  $cli --db "$db" why > "$out/why-scan.txt"
  grep -A20 "Across batch sizes" "$out/scan.md"
fi
if [ "$part" != scan ]; then
  db="$out/h200-profile-cost.sqlite"
  $cli --db "$db" run --config "$out/cost.json" --repeat 2 --caches cold --name "H200 profiled" \
    2> "$out/cost-on.log" > "$out/cost-on.md"
  $cli --db "$db" run --config "$out/cost.json" --repeat 2 --caches cold --no-profile --name "H200 not profiled" \
    2> "$out/cost-off.log" > "$out/cost-off.md"
  echo "cost rc=$? at $SECONDS s"
  for id in 1 2; do $cli --db "$db" export --sweep $id --format csv > "$out/cost-$id.csv"; done
  cut -d, -f2,10-12 "$out/cost-1.csv" "$out/cost-2.csv"
fi
echo "done at $SECONDS s"
