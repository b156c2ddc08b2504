#!/usr/bin/env bash
# On the GPU machine (device tool): an A/A check in one sweep (issue 19.9). The same configuration
# at seeds 0 and 1 is two ledger rows, so the speed-up of the second over the first must come out
# "no significant difference". Once for the launch-bound eager row (tf32, cudnn-bench, bf16,
# channels-last: its step moves 10-40% between processes) and once for the graph-replayed one.
# Writes the database and each ledger under $OUT.
#   source .gpu-deps/env.sh && scripts/gpu-aa-seeds.sh [REPEATS] [STEPS]
set -uo pipefail
repeats=${1:-5}
steps=${2:-300}
source "$(dirname "${BASH_SOURCE[0]}")/gpu-build.sh"
db="$out/h200-aa-seeds.sqlite"
knobs='"tf32": true, "cudnn_benchmark": true, "autocast": "bf16", "channels_last": true'
for kind in eager graph; do
  extra=""
  [ "$kind" = graph ] && extra=', "cuda_graph": true, "optimizer": "fused"'
  printf '{"configs": [{%s%s, "seed": 0}, {%s%s, "seed": 1}]}\n' "$knobs" "$extra" "$knobs" "$extra" > "$out/aa-$kind.json"
  $cli --db "$db" run --device cuda --batch 32 --config "$out/aa-$kind.json" --repeat "$repeats" --steps "$steps" \
    --caches cold --no-profile --name "A/A seeds $kind" 2> "$out/aa-$kind.log" > "$out/aa-$kind.md"
  echo "A/A $kind rc=$? at $SECONDS s"
  grep -E "^\| (configuration|baseline|seed)" "$out/aa-$kind.md" | cut -c1-400
done
