#!/usr/bin/env bash
# Retakes the dashboard's screenshots in docs/screenshots from the H200 databases in docs/results:
# the real window under Xvfb on a 1280x720 screen with a window manager (openbox: its frame and
# title bar take room, as on a desktop, so a window that does not fit shows it), with settings of
# its own (every column shown, no remembered sweep), each database copied first (opening one for
# writing may store summaries).
#   scripts/screenshots.sh [BIN_DIR] [WIDTHxHEIGHT]   (defaults: build/bin, 1280x720)
# Another size writes to /tmp/stepscope-shots-WxH instead of docs/screenshots, to look at.
# Needs xvfb-run, openbox and ImageMagick's import (installed with apt-get when missing).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=${1:-$here/build/bin}
size=${2:-1280x720}
need=()
command -v xvfb-run >/dev/null || need+=(xvfb)
command -v openbox >/dev/null || need+=(openbox)
command -v import >/dev/null || need+=(imagemagick)
if ((${#need[@]})); then
  sudo=
  [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get install -y "${need[@]}" >&2
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export XDG_CONFIG_HOME=$work/config
out=$here/docs/screenshots
[ "$size" = 1280x720 ] || { out=/tmp/stepscope-shots-$size; mkdir -p "$out"; }

# shots NAME DATABASE ARGS...: a PNG of every view into $work/NAME.
shots() {
  local name=$1 db=$2
  shift 2
  mkdir -p "$work/$name.db"
  cp "$here/docs/results/$db" "$work/$name.db/$db" # under its own name: the views show it
  # openbox first, so the window is placed and framed as on a desktop.
  xvfb-run -a -s "-screen 0 ${size}x24" bash -c 'openbox >/dev/null 2>&1 & sleep 1; exec "$@"' shots \
    env QT_QPA_PLATFORM=xcb "$bin/stepscope" --db "$work/$name.db/$db" "$@" --screenshots "$work/$name"
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
# The whole screen, frame and all: the status bar must be inside it.
mkdir -p "$work/screen.db"
cp "$here/docs/results/h200-ledger.sqlite" "$work/screen.db/"
xvfb-run -a -s "-screen 0 ${size}x24" bash -c 'openbox >/dev/null 2>&1 & sleep 1
  "$@" & app=$!; sleep 8; import -window root "'"$out"'/h200-screen.png"; kill $app' shots \
  env QT_QPA_PLATFORM=xcb "$bin/stepscope" --db "$work/screen.db/h200-ledger.sqlite" --sweep 1
echo "screenshots: $out/h200-*.png"
