#!/usr/bin/env bash
# Set up, build and start the main job: the dashboard when it is built, else the CLI's default
# sweep (the 224x224 ledger on a GPU, a small-image ledger on the CPU).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=$("$here/scripts/build.sh" default | tail -n 1)
if [ -x "$bin/stepscope" ] && { [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; }; then
  exec "$bin/stepscope" --start "$@"
fi
exec "$bin/stepscope-cli" run "$@"
