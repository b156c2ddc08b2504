#!/usr/bin/env bash
# Set up (once) and build. Idempotent: a second run reuses the environment, the CMake cache and ccache.
#   scripts/build.sh [preset]     (default preset: default; see CMakePresets.json)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
preset=${1:-default}
venv=$("$here/scripts/bootstrap.sh" | tail -n 1)
cd "$here"
# Paths relative to the checkout and no working directory in the hash: a clean clone elsewhere (CI,
# a second worktree) hits the cache that an earlier checkout filled.
export CCACHE_BASEDIR="$here" CCACHE_NOHASHDIR=1
binary_dir=build
[ "$preset" = gpu ] && binary_dir=build-gpu
[ "$preset" = ci-sanitize ] && binary_dir=build-sanitize
if [ ! -f "$binary_dir/CMakeCache.txt" ]; then
  cmake --preset "$preset" -DSTEPSCOPE_PYTHON="$venv/bin/python" >&2
fi
cmake --build --preset "$preset" -j "$(nproc)" >&2
echo "$here/$binary_dir/bin"
