#!/usr/bin/env bash
# On the GPU machine (device tool), issue 31's checks in one call, each bounded so that the call's
# time is known before it starts (a 10-minute call at most; the device time of a session is 30):
#   1. the peak memory a run stores against plain PyTorch's max_memory_allocated (bench/peak_memory_check.py)
#   2. the memory timeline's peaks against the allocator's (bench/memory_timeline_check.py)
#   3. the largest batch that fits, eager bf16 + channels-last (native) and compile reduce-overhead
#      (Python), each checked by its +5% out-of-memory try
#   4. J per step and W for every row of the ledger at batch 32 (fresh, one process a row), with
#      profiles and so memory timelines to look at on the Why page
# Everything under $OUT; the database's kept traces and timelines beside it.
#   source .gpu-deps/env.sh && scripts/gpu-memory-energy.sh [seconds for the ledger]
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/gpu-build.sh"
ledger_s=${1:-170}
db="$out/memory-energy.sqlite"
step() { echo "== $1 (at $SECONDS s)"; }

step "peak memory against plain PyTorch"
timeout 90 python3 bench/peak_memory_check.py "$cli" 32 20 > "$out/peak-memory.txt" 2>&1
echo "rc=$?"; cat "$out/peak-memory.txt"

step "memory timeline against the allocator"
timeout 60 python3 bench/memory_timeline_check.py build-gpu/bin 32 > "$out/timeline-check.txt" 2>&1
echo "rc=$?"; tail -8 "$out/timeline-check.txt"

step "largest batch, native eager bf16 + channels-last"
timeout 150 $cli --db "$db" run --max-batch --single --runtime native --device cuda --tf32 --autocast bf16 \
  --channels-last > "$out/max-batch-eager.md" 2> "$out/max-batch-eager.log"
echo "rc=$?"; grep -iA6 "largest batch" "$out/max-batch-eager.md" | head -12

step "largest batch, Python compile reduce-overhead"
timeout 150 $cli --db "$db" run --max-batch --single --runtime python --device cuda --tf32 --autocast bf16 \
  --channels-last --compile reduce-overhead > "$out/max-batch-compile.md" 2> "$out/max-batch-compile.log"
echo "rc=$?"; grep -iA6 "largest batch" "$out/max-batch-compile.md" | head -12

step "ledger at batch 32: joules and watts of every row"
timeout "$ledger_s" $cli --db "$db" run --preset ledger --device cuda --batch 32 --steps 40 --repeat 1 --start fresh \
  --profile-steps 3 --timeout 120 > "$out/ledger.md" 2> "$out/ledger.log"
echo "rc=$?"
grep -E "^\| |Recommendation|J/step" "$out/ledger.md" | grep -v "^|---" | head -40
echo "done at $SECONDS s"
