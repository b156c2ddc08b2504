#!/usr/bin/env bash
# On the GPU machine (device tool): every native knob alone (`each`), fp16 under a CUDA graph, and
# the ledger with a fresh CUDA JIT cache per run (truly cold first steps). Writes under $OUT.
#   source .gpu-deps/env.sh && scripts/gpu-knobs.sh
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/gpu-build.sh"
db="$out/h200-knobs.sqlite"
$cli --db "$db" run --device cuda --batch 32 --preset each --name "H200 each b32" 2> "$out/each.log" > "$out/each.md"
echo "each rc=$? at $SECONDS s"; cat "$out/each.md"
$cli --db "$db" run --device cuda --batch 32 --single --tf32 --cudnn-benchmark --autocast fp16 --channels-last \
  --cuda-graph --optimizer fused --name "H200 fp16 graph b32" 2> "$out/fp16graph.log" > "$out/fp16graph.md"
echo "fp16 graph rc=$? at $SECONDS s"; cat "$out/fp16graph.md"
$cli --db "$db" run --device cuda --batch 32 --fresh-cuda-cache --name "H200 ledger b32 fresh CUDA cache" \
  2> "$out/fresh.log" > "$out/fresh.md"
echo "fresh ledger rc=$? at $SECONDS s"; cat "$out/fresh.md"
$cli --db "$db" show 2 | grep -E "environment" | head -1
echo "done at $SECONDS s"
