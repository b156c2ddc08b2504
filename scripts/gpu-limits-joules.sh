#!/usr/bin/env bash
# On the GPU machine (device tool), what issue 31 left for a GPU, in parts that each fit one 10-minute
# call (the build is kept between calls on a warm machine):
#   limits   the largest batch under a 20,000 MiB limit (ResNet18 at 224 fits Stepscope's ceiling,
#            4096, on a whole 80 GB card): native eager and Python eager, bf16 + channels-last, each
#            answer checked by its +5% try
#   ledger   J/step and W for the native ledger rows at batch 32, two cold processes a row and 400
#            timed steps, so that every steady window is over the second the counter needs
#   compiled compile reduce-overhead: its largest batch under the same limit (its joules are the
#            ledger part's compile rows)
#   source .gpu-deps/env.sh && scripts/gpu-limits-joules.sh limits|ledger|compiled
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/gpu-build.sh"
part=${1:?limits, ledger or compiled}
db="$out/limits-joules-$part.sqlite"
step() { echo "== $1 (at $SECONDS s)"; }
knobs=(--tf32 --autocast bf16 --channels-last)
limit=(--memory-limit-mib 20000)
maxbatch() { # name, timeout, flags...
  local name=$1 t=$2
  shift 2
  step "largest batch: $name"
  timeout "$t" $cli --db "$db" run --max-batch --single --device cuda "$@" > "$out/max-batch-$name.md" \
    2> "$out/max-batch-$name.log"
  echo "rc=$?"
  grep -iB2 -A12 "largest batch" "$out/max-batch-$name.md" | head -30
}
case "$part" in
limits)
  maxbatch native-limit 150 --runtime native "${knobs[@]}" "${limit[@]}"
  maxbatch python-limit 200 --runtime python "${knobs[@]}" "${limit[@]}"
  ;;
ledger)
  step "ledger at batch 32, 2 processes x 400 steps"
  timeout 520 $cli --db "$db" run --preset ledger --device cuda --batch 32 --steps 400 --repeat 2 --start fresh \
    --no-profile --timeout 120 > "$out/ledger.md" 2> "$out/ledger.log"
  echo "rc=$?"
  grep -E "^\| |Recommendation|joules|J/step" "$out/ledger.md" | grep -v "^|---" | head -40
  ;;
compiled)
  maxbatch compile-limit 300 --runtime python --compile reduce-overhead "${knobs[@]}" "${limit[@]}"
  ;;
esac
echo "done at $SECONDS s"
