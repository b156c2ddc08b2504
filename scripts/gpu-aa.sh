#!/usr/bin/env bash
# On the GPU machine (device tool): issue 7's checks. The A/A check runs the same two-configuration
# sweep twice with adaptive repeats (bf16 + channels_last eager, and the same with a CUDA graph);
# the two speed-up intervals must overlap. Then the ledger, with its pin-one-core row, at batch 32
# and 128. Writes under $OUT.
# One device call runs 10 minutes at most, so the parts are separate:
#   source .gpu-deps/env.sh && scripts/gpu-aa.sh aa          # the A/A check, twice
#   source .gpu-deps/env.sh && scripts/gpu-aa.sh ledger "32 128"   # pinning rows, both batches
set -uo pipefail
part=${1:-aa}
batch=${2:-32}
source "$(dirname "${BASH_SOURCE[0]}")/gpu-build.sh"
db="$out/h200-aa.sqlite"
cat > "$out/aa.json" <<'JSON'
{"configs": [
  {"tf32": true, "cudnn_benchmark": true, "autocast": "bf16", "channels_last": true},
  {"tf32": true, "cudnn_benchmark": true, "autocast": "bf16", "channels_last": true, "cuda_graph": true, "optimizer": "fused"}
]}
JSON
if [ "$part" = aa ]; then for i in 1 2; do
  $cli --db "$db" run --device cuda --batch 32 --config "$out/aa.json" --warmup-process --until-ci 2 --max-repeats 8 \
    --max-minutes "${AA_MINUTES:-3}" --name "A/A $i" 2> "$out/aa-$i.log" > "$out/aa-$i.md"
  echo "A/A $i rc=$? at $SECONDS s"; grep -E "^\|" "$out/aa-$i.md"
done; fi
if [ "$part" = ledger ]; then
  # The native ledger rows with the pin-one-core row after channels_last, plus the graph rows
  # unpinned, so that the table shows what pinning does to eager and to graph-replayed steps.
  # Adaptive repeats bounded in time: one device call holds both batches.
  cat > "$out/ledger.json" <<'JSON'
{"configs": [
  {},
  {"tf32": true},
  {"tf32": true, "cudnn_benchmark": true},
  {"tf32": true, "cudnn_benchmark": true, "autocast": "bf16"},
  {"tf32": true, "cudnn_benchmark": true, "autocast": "bf16", "channels_last": true},
  {"tf32": true, "cudnn_benchmark": true, "autocast": "bf16", "channels_last": true, "cpu_affinity": "one"},
  {"tf32": true, "cudnn_benchmark": true, "autocast": "bf16", "channels_last": true, "cuda_graph": true},
  {"tf32": true, "cudnn_benchmark": true, "autocast": "bf16", "channels_last": true, "cuda_graph": true, "cpu_affinity": "one"}
]}
JSON
  for b in $batch; do
    $cli --db "$db" run --device cuda --batch "$b" --config "$out/ledger.json" --warmup-process --until-ci 2 \
      --max-repeats 4 --max-minutes "${LEDGER_MINUTES:-3}" --name "pinning b$b" 2> "$out/ledger-b$b.log" > "$out/ledger-b$b.md"
    echo "ledger b$b rc=$? at $SECONDS s"; grep -E "^\||Recommendation" "$out/ledger-b$b.md"
  done
fi
echo "done at $SECONDS s"
