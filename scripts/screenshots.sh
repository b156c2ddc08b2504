#!/usr/bin/env bash
# Retakes the dashboard's screenshots in docs/screenshots from the H200 databases in docs/results:
# the real window under Xvfb on a 1280x720 screen, with settings of its own (every column shown,
# no remembered sweep), each database copied first (opening one for writing may store summaries).
#   scripts/screenshots.sh [BIN_DIR]      (default: build/bin; needs Xvfb and xvfb-run)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=${1:-$here/build/bin}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export XDG_CONFIG_HOME=$work/config
out=$here/docs/screenshots

# shots NAME DATABASE ARGS...: a PNG of every view into $work/NAME.
shots() {
  local name=$1 db=$2
  shift 2
  mkdir -p "$work/$name.db"
  cp "$here/docs/results/$db" "$work/$name.db/$db" # under its own name: the views show it
  xvfb-run -a -s "-screen 0 1280x720x24" env QT_QPA_PLATFORM=xcb \
    "$bin/stepscope" --db "$work/$name.db/$db" "$@" --screenshots "$work/$name"
}

shots ledger h200-ledger.sqlite --sweep 1
for view in ledger first-vs-steady break-even waterfall live history environment; do
  cp "$work/ledger/stepscope-$view.png" "$out/h200-$view.png"
done
shots each h200-knobs.sqlite --sweep 1
cp "$work/each/stepscope-ledger.png" "$out/h200-each-ledger.png"
shots compile h200-compile-b32.sqlite --sweep 1
cp "$work/compile/stepscope-break-even.png" "$out/h200-compile-break-even.png"
cp "$work/compile/stepscope-run-detail.png" "$out/h200-compile-run-detail.png"
shots profile h200-profile-b32.sqlite --sweep 1
cp "$work/profile/stepscope-why.png" "$out/h200-why.png"
shots compare h200-ledger.sqlite --compare 1,2
cp "$work/compare/stepscope-compare.png" "$out/h200-compare.png"
echo "screenshots: $out/h200-*.png"
