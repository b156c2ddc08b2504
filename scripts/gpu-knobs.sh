#!/usr/bin/env bash
# On the GPU machine (device tool): every native knob alone (`each`), fp16 under a CUDA graph, and
# the ledger with a fresh CUDA JIT cache per run (truly cold first steps). Writes under $OUT.
#   source .gpu-deps/env.sh && scripts/gpu-knobs.sh
set -uo pipefail
out=${OUT:-$PWD/gpu-out}
mkdir -p "$out"
if [ ! -x build-gpu/bin/stepscope-cli ]; then
  cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTEPSCOPE_BUILD_GUI=OFF -DSTEPSCOPE_BUILD_TESTS=OFF \
    $STEPSCOPE_GPU_CMAKE_ARGS -DSTEPSCOPE_PYTHON="$(command -v python3)" > "$out/configure.log" 2>&1 || { tail -40 "$out/configure.log"; exit 1; }
fi
cmake --build build-gpu -j 16 > "$out/build.log" 2>&1 || { grep -E "error" "$out/build.log" | head -30; exit 1; }
echo "built at $SECONDS s"
cli=./build-gpu/bin/stepscope-cli
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
