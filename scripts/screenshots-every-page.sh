#!/usr/bin/env bash
# Issue 35, build 4: every page of a sweep of each kind, at 1280x720 and 1920x1080, under Xvfb with
# a window manager, into docs/screenshots/pages/WIDTHxHEIGHT/KIND-PAGE.png (reduced to 256 colours:
# the pages are flat UI, and a hundred full-colour PNGs would weigh the repository down).
# The kinds and their databases (docs/results):
#   default   h200-starts-default.sqlite  the default GPU sweep, fresh and again starts
#   scan      h100-batch-scan.sqlite      a batch scan (32, 128)
#   lanes     h200-lanes-one-gpu.sqlite   several lanes
#   compile   h200-compile-b32.sqlite     a compile-only list
#   models    h100-models.sqlite          models other than ResNet18 (issue 30), when present
#   scripts/screenshots-every-page.sh [BIN_DIR]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=${1:-$here/build/bin}
for tool in xvfb-run openbox import convert; do
  command -v $tool >/dev/null || { echo "needs $tool (apt-get install xvfb openbox imagemagick)" >&2; exit 1; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export XDG_CONFIG_HOME=$work/config
kinds=("default h200-starts-default.sqlite" "scan h100-batch-scan.sqlite" "lanes h200-lanes-one-gpu.sqlite"
       "compile h200-compile-b32.sqlite")
[ -f "$here/docs/results/h100-models.sqlite" ] && kinds+=("models h100-models.sqlite")
for size in 1280x720 1920x1080; do
  out=$here/docs/screenshots/pages/$size
  mkdir -p "$out"
  for entry in "${kinds[@]}"; do
    read -r kind db <<< "$entry"
    dir=$work/$size-$kind
    mkdir -p "$dir.db"
    cp "$here/docs/results/$db" "$dir.db/$db" # a copy: opening one may store summaries
    xvfb-run -a -s "-screen 0 ${size}x24" bash -c 'openbox >/dev/null 2>&1 & sleep 1; exec "$@"' shots \
      env QT_QPA_PLATFORM=xcb "$bin/stepscope" --db "$dir.db/$db" --sweep 1 --screenshots "$dir" > /dev/null 2>&1 \
      || echo "screenshots of $kind at $size failed" >&2
    for png in "$dir"/stepscope-*.png; do
      [ -e "$png" ] || continue
      page=$(basename "$png" .png)
      page=${page#stepscope-}
      # Pages with nothing of a stored sweep's to show: Compare (no pair chosen), Log (no sweep ran
      # in this session), and Batch scan for a sweep of one batch (its tab is hidden).
      case $kind-$page in *-compare | *-log) continue ;; scan-batch-scan) ;; *-batch-scan) continue ;; esac
      convert "$png" -colors 256 "PNG8:$out/$kind-$page.png"
    done
  done
done
echo "screenshots: $here/docs/screenshots/pages/"
