#!/usr/bin/env bash
# Set up, build and run every test (what CI runs), in four stages:
#   1. ci:          everything, LibTorch engine included, warnings as errors, assertions on;
#   2. ci-sanitize: ASan+UBSan build of everything that does not load LibTorch (build-sanitize/);
#   3. install:     the .deb and the tarball made from the ci build, installed and run
#                   (tests/install/install_test.sh; it installs the .deb with apt and removes it);
#   4. windows:     the Qt-free core cross-built with mingw-w64, its tests under wine64
#                   (scripts/test-windows.sh; build-mingw/).
# Arguments go to every ctest run (e.g. -R store). Every stage runs even when an earlier one has
# failing tests, so one CI run reports everything; a build that fails stops at once.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here"
failed=()

"$here/scripts/build.sh" ci >/dev/null
ctest --preset ci -j 2 "$@" || failed+=(ci)

"$here/scripts/build.sh" ci-sanitize >/dev/null
ctest --preset ci-sanitize -j 2 "$@" || failed+=(ci-sanitize)

tests/install/install_test.sh build || failed+=(install)

scripts/test-windows.sh "$@" || failed+=(windows)

if ((${#failed[@]})); then
  echo "test.sh: tests failed in: ${failed[*]}" >&2
  exit 1
fi
