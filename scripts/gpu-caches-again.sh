#!/usr/bin/env bash
# On the GPU machine (device tool), after gpu-caches.sh and gpu-caches-default.sh: the reversed native
# ledger once more into a copy of docs/results/h200-caches.sqlite, whose earlier sweeps ran on a host
# of the same name: the time-left estimate then rests on measured runs. Writes under $OUT.
#   source .gpu-deps/env.sh && scripts/gpu-caches-again.sh
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/gpu-build.sh"
db="$out/h200-caches.sqlite"
cp docs/results/h200-caches.sqlite "$db"
python3 - "$out" <<'PY'
import json, sqlite3, sys
out = sys.argv[1]
# The reversed list exactly as sweep 2 stored it (its settings and configurations).
rows = sqlite3.connect(f"{out}/h200-caches.sqlite").execute(
    "SELECT config_json FROM runs WHERE sweep_id = 2 AND caches = 'cold' ORDER BY position").fetchall()
json.dump({"configs": [json.loads(r[0]) for r in rows], "baseline": len(rows)}, open(f"{out}/reverse.json", "w"))
PY
$cli --db "$db" run --config "$out/reverse.json" --caches both --name "H200 native b32 caches both, reverse order, again" \
  2> "$out/again.log" > "$out/again.md"
echo "again rc=$? at $SECONDS s"
grep -E "left" "$out/again.log" | tail -20
