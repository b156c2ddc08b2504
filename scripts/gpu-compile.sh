#!/usr/bin/env bash
# On the GPU machine (device tool): torch.compile through Stepscope. Builds the headless engine,
# CLI and Python worker, checks the environment with `doctor`, runs the GPU ledger (native rows,
# then Python eager, compile default and reduce-overhead cold, reduce-overhead warm) at the given
# batch sizes, and plain PyTorch compiled the same way in the same session. Writes under $OUT.
#   source .gpu-deps/env.sh && scripts/gpu-compile.sh "32" [reference]
set -uo pipefail
batches=${1:-32}
reference=${2:-reference}
source "$(dirname "${BASH_SOURCE[0]}")/gpu-build.sh"
db="$out/h200-compile.sqlite"
cache=/tmp/scc   # short, as a warm cache should be
$cli doctor --device cuda --python "$(command -v python3)" > "$out/doctor.txt" 2>&1; echo "doctor rc=$?"; cat "$out/doctor.txt"
for b in $batches; do
  $cli --db "$db" run --device cuda --batch "$b" --image-size 224 --python "$(command -v python3)" \
    --compile-cache-dir "$cache" --name "H200 compile ledger b$b" 2> "$out/run-b$b.log" > "$out/ledger-b$b.md"
  echo "ledger b$b rc=$? at $SECONDS s"; cat "$out/ledger-b$b.md"
done
if [ "$reference" = reference ]; then
  for b in $batches; do
    for mode in "" default reduce-overhead; do
      d=$(mktemp -d /tmp/ref-XXXX)
      TORCHINDUCTOR_CACHE_DIR=$d/i TRITON_CACHE_DIR=$d/t python3 bench/pytorch_reference.py --batch "$b" \
        --knobs tf32,cudnn,bf16,cl ${mode:+--compile $mode} 2>>"$out/reference.err" | tee -a "$out/reference.jsonl"
    done
  done
fi
echo "done at $SECONDS s"
