#!/usr/bin/env bash
# Set up, build and run every test (what CI runs), in three stages:
#   1. ci:          everything, LibTorch engine included, warnings as errors, assertions on;
#   2. ci-sanitize: ASan+UBSan build of everything that does not load LibTorch (build-sanitize/);
#   3. install:     the .deb and the tarball made from the ci build, installed and run
#                   (tests/install/install_test.sh; it installs the .deb with apt and removes it).
# Arguments go to both ctest runs (e.g. -R store). Every stage runs even when an earlier one has
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

if ((${#failed[@]})); then
  echo "test.sh: tests failed in: ${failed[*]}" >&2
  exit 1
fi
