#!/usr/bin/env bash
# On the GPU machine (device tool), after gpu-caches.sh: the default GPU ledger (native and Python
# rows, compile included) with both cache states, added to a copy of docs/results/h200-caches.sqlite
# so that its time-left estimates can use the earlier sweeps' runs of this host. Writes under $OUT.
#   source .gpu-deps/env.sh && scripts/gpu-caches-default.sh [steps]
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/gpu-build.sh"
steps=${1:-300}
db="$out/h200-caches.sqlite"
cp docs/results/h200-caches.sqlite "$db"
# The earlier sweeps ran on another lease's machine: the same host name keeps their runs in the
# estimate only when the name matches (it does on the lent machines: "vm").
hostname
$cli --db "$db" run --device cuda --batch 32 --steps "$steps" --name "H200 default GPU ledger b32, caches both" \
  2> "$out/default.log" > "$out/default.md"
echo "default rc=$? at $SECONDS s"
grep -E "time left|left\)" "$out/default.log" | tail -30
$cli --db "$db" export --format markdown > "$out/default-export.md"
cat "$out/default-export.md"
echo "done at $SECONDS s"
