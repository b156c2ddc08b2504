#!/usr/bin/env bash
# On the GPU machine (device tool), issue 35.4: a batch scan as a user runs one, for the Batch scan
# page and its screenshots. Two native rows (fp32 eager, the bf16 + channels-last CUDA graph) at
# batch 32 and 128, `repeats` cold processes each, fresh and again, profiled. Everything under $OUT.
#   source .gpu-deps/env.sh && scripts/gpu-batch-scan.sh [steps] [repeats]
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/gpu-build.sh"
steps=${1:-40}
repeats=${2:-2}
db="$out/batch-scan.sqlite"
python3 - "$out" "$steps" <<'PY'
import json, sys
out, steps = sys.argv[1], int(sys.argv[2])
shape = {"device": "cuda", "image_size": 224, "steps": steps}
graph = dict(shape, tf32=True, autocast="bf16", channels_last=True, cuda_graph=True)
json.dump({"configs": [dict(shape), graph]}, open(f"{out}/scan.json", "w"))
PY
$cli --db "$db" run --config "$out/scan.json" --batch 32,128 --start fresh,again --repeat "$repeats" \
  --profile-steps 10 --name "batch scan" 2> "$out/scan.log" > "$out/scan.md"
echo "scan rc=$? at $SECONDS s"
$cli --db "$db" show --sweep 1 > "$out/scan-show.txt" 2>&1
echo "done at $SECONDS s"
