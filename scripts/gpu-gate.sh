#!/usr/bin/env bash
# On the GPU machine (device tool), issue 29: the regression gate on live sweeps of one lease.
# Sweep 1: native fp32 eager (launch-bound at b32) and the native bf16 + channels_last whole-step CUDA
# graph, `repeats` cold processes each, fresh. Sweep 2: `run --again 1` (an A/A pair: `check` must
# exit 0). Sweep 3: `run --again 1` with CUDA_LAUNCH_BLOCKING=1 in the workers' environment (a real
# slowdown of every launch: `check` must exit 1 and name the eager row). Everything under $OUT.
#   source .gpu-deps/env.sh && scripts/gpu-gate.sh [steps] [repeats]
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/gpu-build.sh"
steps=${1:-60}
repeats=${2:-3}
db="$out/gate.sqlite"
python3 - "$out" "$steps" <<'PY'
import json, sys
out, steps = sys.argv[1], int(sys.argv[2])
shape = {"device": "cuda", "batch": 32, "image_size": 224, "steps": steps}
graph = dict(shape, tf32=True, cudnn_benchmark=True, autocast="bf16", channels_last=True, cuda_graph=True,
             optimizer="fused")
json.dump({"configs": [dict(shape), graph], "baseline": 1}, open(f"{out}/gate.json", "w"))
PY
# The default sweep on this machine, as the dashboard's panel would plan it too (nothing runs).
$cli --db "$db" run --dry-run > "$out/default-dry.txt" 2>&1
echo "default sweep: $(grep -c . "$out/default-dry.txt") lines; $(tail -1 "$out/default-dry.txt")"
$cli --db "$db" run --config "$out/gate.json" --start fresh --repeat "$repeats" --no-profile \
  --name "gate A" 2> "$out/sweep1.log" > "$out/sweep1.md"
echo "sweep 1 rc=$? at $SECONDS s"
$cli --db "$db" show --sweep 1 > "$out/show1.txt" 2>&1
$cli --db "$db" run --again 1 2> "$out/sweep2.log" > "$out/sweep2.md"
echo "sweep 2 (again) rc=$? at $SECONDS s"
$cli --db "$db" check --against 1 --sweep 2 > "$out/check-aa.txt" 2>&1
echo "check A/A rc=$? (0 expected)"
$cli --db "$db" check --against 1 --sweep 2 --max-slowdown 0 --format json > "$out/check-aa-0.json" 2>&1
echo "check A/A at 0% rc=$?"
CUDA_LAUNCH_BLOCKING=1 $cli --db "$db" run --again 1 2> "$out/sweep3.log" > "$out/sweep3.md"
echo "sweep 3 (again, CUDA_LAUNCH_BLOCKING=1) rc=$? at $SECONDS s"
$cli --db "$db" check --against 1 --sweep 3 > "$out/check-slow.txt" 2>&1
echo "check slowed rc=$? (1 expected)"
cat "$out/check-aa.txt" "$out/check-slow.txt"
grep -h "time left, predicted" "$out"/sweep*.log
echo "done at $SECONDS s"
