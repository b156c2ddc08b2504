#!/usr/bin/env bash
# The Windows stage of scripts/test.sh: the Qt-free core (core/common, platform, stats) cross-built
# with Debian's mingw-w64 (preset windows-mingw-core, cmake/mingw-w64.cmake) and its tests run under
# wine64. Installs its Debian packages first, as bootstrap.sh does. A wine that cannot start here fails
# the stage with the reason; it never passes by running nothing. Arguments go to ctest (e.g. -R Guards).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here"
"$here/scripts/apt-install.sh" cmake ninja-build ccache g++-mingw-w64-x86-64-posix googletest wine64
export CCACHE_BASEDIR="$here" CCACHE_NOHASHDIR=1

wine=$(command -v wine64 || echo /usr/lib/wine/wine64)
mkdir -p build-mingw
if ! out=$(WINEPREFIX="$here/build-mingw/wine-prefix" WINEDEBUG=-all "$wine" cmd.exe /c echo wine-runs 2>&1) ||
   [[ "$out" != *wine-runs* ]]; then
  echo "test-windows.sh: wine64 ($wine) cannot run Windows programs here:" >&2
  echo "$out" >&2
  exit 1
fi

[ -f build-mingw/CMakeCache.txt ] || cmake --preset windows-mingw-core >&2
cmake --build --preset windows-mingw-core -j "$(nproc)" >&2
# No arguments: all of them must be there. A filter of test.sh's for other stages may match none here.
(($#)) || set -- --no-tests=error
ctest --preset windows-mingw-core -j 2 "$@"
