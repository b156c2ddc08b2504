#!/usr/bin/env bash
# Set up, build and run every test (what CI runs).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$here/scripts/build.sh" ci >/dev/null
cd "$here"
QT_QPA_PLATFORM=offscreen ctest --test-dir build --output-on-failure -j 2 "$@"
