#!/usr/bin/env bash
# On the GPU machine (device tool), issue 35.1: what each knob of the pick is worth, with the exact
# twin measured. Three native rows at b32, `repeats` cold processes each, fresh: fp32 eager (the
# baseline), tf32+bf16+channels-last+cuda-graph and the same with cudnn-bench. The export's
# knob_worth then judges cudnn-bench against its exact twin. Also doctor's toolchain rows on this
# machine. Everything under $OUT.
#   source .gpu-deps/env.sh && scripts/gpu-knob-worth.sh [steps] [repeats]
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/gpu-build.sh"
steps=${1:-60}
repeats=${2:-3}
db="$out/knob-worth.sqlite"
python3 - "$out" "$steps" <<'PY'
import json, sys
out, steps = sys.argv[1], int(sys.argv[2])
shape = {"device": "cuda", "batch": 32, "image_size": 224, "steps": steps}
graph = dict(shape, tf32=True, autocast="bf16", channels_last=True, cuda_graph=True)
json.dump({"configs": [dict(shape), graph, dict(graph, cudnn_benchmark=True)]}, open(f"{out}/knobs.json", "w"))
PY
$cli --db "$db" run --config "$out/knobs.json" --start fresh --repeat "$repeats" --no-profile \
  --name "knob worth" 2> "$out/sweep.log" > "$out/sweep.md"
echo "sweep rc=$? at $SECONDS s"
$cli --db "$db" show --sweep 1 > "$out/show.txt" 2>&1
$cli --db "$db" export --sweep 1 --format json > "$out/export.json" 2>&1
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('headline:', d['headline']); print('caveats:', d['caveats']); [print(json.dumps(k)) for k in d['knob_worth']]" "$out/export.json"
grep -o "What each knob.*" "$out/show.txt" | head -3
timeout 300 $cli doctor --device cuda > "$out/doctor.txt" 2>&1
echo "doctor rc=$?"
grep -iE "compiler|headers|torch.compile|leftovers" "$out/doctor.txt"
echo "done at $SECONDS s"
