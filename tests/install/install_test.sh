#!/usr/bin/env bash
# The packages as a user gets them: builds the .deb and the tarball from a configured build, validates
# them, installs the .deb with apt, runs the installed programs, removes it again, and runs the
# unpacked tarball from elsewhere. One PASS/FAIL line per check; exits 1 when any check failed.
#   tests/install/install_test.sh [BUILD_DIR]     (default: build, as scripts/test.sh leaves it)
# It installs what it needs with apt-get (lintian, desktop-file-utils, appstream) and the .deb itself,
# so it runs as root or with sudo, and refuses to run while a stepscope package is installed already.
# The programs find torch through STEPSCOPE_VENV (default: the bootstrap's environment), so nothing is
# downloaded.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=$(cd "${1:-$here/build}" && pwd) || { echo "FAIL: no build folder ${1:-$here/build}"; exit 1; }
venv=${STEPSCOPE_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/stepscope/venv-torch-2.11.0}
sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
export DEBIAN_FRONTEND=noninteractive
# apt waits for a dpkg lock that another apt holds (a bootstrap, unattended upgrades) instead of failing.
apt_get() { $sudo apt-get -o DPkg::Lock::Timeout=600 "$@"; }
failed=()
installed=0
work=$(mktemp -d)
chmod 755 "$work" # apt reads the .deb as its own user, _apt
cleanup() {
  # Never leave the package installed: later tests must not find /usr/bin/stepscope-cli.
  if [ "$installed" = 1 ] && dpkg-query -W -f='${Status}' stepscope 2>/dev/null | grep -q 'ok installed'; then
    apt_get remove -y -q stepscope > /dev/null 2>&1 || echo "install_test: could not remove stepscope" >&2
  fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; failed+=("$1"); }
# check NAME COMMAND...: PASS when COMMAND exits 0, else FAIL with the end of its output.
check() {
  local name=$1 log="$work/log.$1" start=$SECONDS
  shift
  if "$@" > "$log" 2>&1; then
    pass "$name ($((SECONDS - start)) s)"
  else
    fail "$name" "(exit $?, $((SECONDS - start)) s)"
    tail -n 30 "$log" | sed 's/^/    /'
  fi
}
# apt-get install, refreshing the package lists only when they are too old to have what is asked for.
apt_install() {
  apt_get install -y -q --no-install-recommends "$@" ||
    { apt_get update -q && apt_get install -y -q --no-install-recommends "$@"; }
}

if dpkg-query -W -f='${Status}' stepscope 2>/dev/null | grep -q 'ok installed'; then
  echo "FAIL: install: a stepscope package is installed already; remove it first (apt-get remove stepscope)"
  exit 1
fi
tools=()
command -v lintian > /dev/null || tools+=(lintian)
command -v desktop-file-validate > /dev/null || tools+=(desktop-file-utils)
command -v appstreamcli > /dev/null || tools+=(appstream)
command -v file > /dev/null || tools+=(file)
if ((${#tools[@]})); then
  check tools apt_install "${tools[@]}"
fi

# --- packaging ---
check cpack cpack --config "$build/CPackConfig.cmake" -B "$work/pkg"
deb=$(ls "$work"/pkg/stepscope_*.deb 2> /dev/null | head -n 1)
tarball=$(ls "$work"/pkg/stepscope-*.tar.gz 2> /dev/null | head -n 1)
if [ -z "$deb" ] || [ -z "$tarball" ]; then
  fail packages "cpack made no .deb or no .tar.gz"
  echo "install_test: failed: ${failed[*]}"
  exit 1
fi
echo "    $(basename "$deb") $(du -h "$deb" | cut -f1), $(basename "$tarball") $(du -h "$tarball" | cut -f1)"
dpkg-deb -f "$deb" Depends | sed 's/^/    Depends: /'
# torch.compile's toolchain comes recommended (doctor names it when it is missing).
check recommends-compile-toolchain sh -c "dpkg-deb -f '$deb' Recommends | grep -q 'g++, python3-dev'"

# What the .deb ships, read from the package itself.
dpkg-deb -x "$deb" "$work/deb"
desktop=$(ls "$work"/deb/usr/share/applications/*.desktop 2> /dev/null | head -n 1)
metainfo=$(ls "$work"/deb/usr/share/metainfo/*.metainfo.xml 2> /dev/null | head -n 1)
check desktop-file-validate desktop-file-validate "$desktop"
check appstream-validate appstreamcli validate --no-net "$metainfo"
app_id=$(basename "$desktop" .desktop)
icons_agree() {
  [ "$(basename "$metainfo" .metainfo.xml)" = "$app_id" ] && grep -q "^Icon=$app_id$" "$desktop" &&
    [ -f "$work/deb/usr/share/icons/hicolor/scalable/apps/$app_id.svg" ] &&
    for size in 16 22 24 32 48 64 128 256; do
      file "$work/deb/usr/share/icons/hicolor/${size}x$size/apps/$app_id.png" | grep -q "$size x $size" || return 1
    done
}
check desktop-metainfo-icon-names icons_agree
# The licence is declared where software centres and Debian look (LICENSE: GPL-3.0-or-later).
licence_declared() {
  local copyright="$work/deb/usr/share/doc/stepscope/copyright"
  grep -q '<project_license>GPL-3.0-or-later</project_license>' "$metainfo" &&
    grep -q '^Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/' "$copyright" &&
    grep -q '^License: GPL-3+$' "$copyright" && grep -q '/usr/share/common-licenses/GPL-3' "$copyright"
}
check licence-declared licence_declared
# No maintainer scripts: installing, upgrading and removing run nothing, so the user's data
# (~/.local/share/stepscope) is never touched.
no_scripts() {
  dpkg-deb --ctrl-tarfile "$deb" | tar -t | grep -E '(pre|post)(inst|rm)$' && return 1
  return 0
}
check no-maintainer-scripts no_scripts

# lintian must find nothing: no error and no warning (none is suppressed; its notes are printed).
check lintian lintian --fail-on error,warning --tag-display-limit 0 "$deb"
grep -E '^[A-Z]: ' "$work/log.lintian" | sed 's/^/    /'

# --- the installed .deb ---
installed=1
check apt-install apt_install "$deb"
# The programs run as a user would: a home folder of their own (nothing written to the real one),
# torch from the given environment, no variable pointing into the build or at libraries.
run_as_user() {
  env -u STEPSCOPE_PYTHON -u STEPSCOPE_NATIVE_WORKER -u STEPSCOPE_PYTHON_WORKER -u LD_LIBRARY_PATH -u XDG_DATA_HOME \
    -u XDG_CONFIG_HOME -u XDG_CACHE_HOME HOME="$work/home" STEPSCOPE_VENV="$venv" QT_QPA_PLATFORM=offscreen "$@"
}
mkdir -p "$work/home"
version() { run_as_user "$1/stepscope-cli" --version | grep -Eq '[0-9]+\.[0-9]+\.[0-9]+'; }
check installed-version version /usr/bin
check installed-doctor run_as_user /usr/bin/stepscope-cli doctor --device cpu
# The smallest real sweep, once per runtime: the native worker from lib/stepscope, the Python worker
# from share/stepscope/python, both with the located torch. `wrap` (an array) may wrap the CLI.
wrap=()
tiny_run() { # BIN_DIR DB [RUN_FLAGS...]
  local bin=$1 db=$2
  shift 2
  run_as_user "${wrap[@]}" "$bin/stepscope-cli" --db "$db" run --device cpu --batch 2 --image-size 32 --single \
    --steps 3 --warmup-steps 0 --no-profile "$@"
}
complete_runs() { [ "$(sqlite3 "$1" "SELECT COUNT(*) FROM runs WHERE status='complete'")" = "$2" ]; }
sweep() { # BIN_DIR DB
  tiny_run "$1" "$2" && tiny_run "$1" "$2" --runtime python && complete_runs "$2" 2
}
check installed-sweep sweep /usr/bin "$work/installed.sqlite"
# A user's machine has no CUDA toolkit in the loader's cache (this one may have, in /usr/local/lib):
# with /etc/ld.so.cache hidden in a mount namespace of its own, the native worker must still find
# the CUDA runtime it links (libcudart) where the located torch keeps it. Needs root for unshare.
without_system_cuda() {
  local wrap=(unshare -m sh -c 'mount --bind /dev/null /etc/ld.so.cache && exec "$@"' sh)
  tiny_run /usr/bin "$work/no-cuda.sqlite" && complete_runs "$work/no-cuda.sqlite" 1
}
if [ "$(id -u)" = 0 ] && unshare -m true 2> /dev/null; then
  check installed-sweep-without-system-cuda without_system_cuda
else
  echo "SKIP: installed-sweep-without-system-cuda (needs root and unshare -m)"
fi
# The dashboard as the menu starts it: the desktop entry's Exec line, field codes dropped.
dashboard() {
  local exec
  exec=$(sed -n 's/^Exec=//p' "/usr/share/applications/$app_id.desktop" | head -n 1 | sed 's/ *%[fFuUick]//g')
  [ -n "$exec" ] || return 1
  # shellcheck disable=SC2086 # the Exec line is a command and its words
  run_as_user timeout 120 $exec --db "$work/installed.sqlite" --screenshots "$work/shots" &&
    ls "$work"/shots/*.png > /dev/null && file "$work"/shots/*.png | grep -q 'PNG image data'
}
check installed-dashboard-screenshots dashboard
# Every option of the dashboard is in its manual page.
man_options() {
  local page option
  page=$(zcat /usr/share/man/man1/stepscope.1.gz | sed 's/\\-/-/g')
  for option in $(run_as_user /usr/bin/stepscope --help | grep -oE -- '--[a-z][a-z-]+' | sort -u); do
    grep -q -- "$option" <<< "$page" || { echo "stepscope.1 lacks $option"; return 1; }
  done
}
check dashboard-manual-page man_options
# No path into the build tree, the source tree or torch: RPATH/RUNPATH, if any, is $ORIGIN-relative.
no_build_paths() { # FILES...
  local f paths
  for f in "$@"; do
    paths=$(readelf -d "$f" | grep -E 'RPATH|RUNPATH' | sed 's/.*\[\(.*\)\]/\1/')
    echo "$f: ${paths:-no RPATH/RUNPATH}"
    tr ':' '\n' <<< "$paths" | grep -v -e '^$' -e '^\$ORIGIN' && return 1
  done
  return 0
}
check installed-rpath no_build_paths /usr/bin/stepscope /usr/bin/stepscope-cli /usr/lib/stepscope/stepscope-worker

# --- removal: every file the package brought goes; directories others share may stay ---
dpkg -L stepscope > "$work/files"
check apt-remove apt_get remove -y -q stepscope
leftovers() {
  local path left=0
  while read -r path; do
    if [ -d "$path" ] && ! [ -L "$path" ]; then
      # A directory may stay when another package owns it or it holds what others put there.
      [ -n "$(ls -A "$path")" ] || dpkg -S "$path" > /dev/null 2>&1 || { echo "left: $path/"; left=1; }
    elif [ -e "$path" ] || [ -L "$path" ]; then
      echo "left: $path"
      left=1
    fi
  done < "$work/files"
  return $left
}
check removed-cleanly leftovers

# --- the tarball, unpacked somewhere else ---
mkdir -p "$work/elsewhere/opt tools"
tar -xzf "$tarball" -C "$work/elsewhere/opt tools"
prefix=$(ls -d "$work/elsewhere/opt tools"/stepscope-*/)
check tarball-version version "$prefix/bin"
check tarball-sweep sweep "$prefix/bin" "$work/tarball.sqlite"
check tarball-rpath no_build_paths "$prefix/bin/stepscope" "$prefix/bin/stepscope-cli" "$prefix/lib/stepscope/stepscope-worker"

if ((${#failed[@]})); then
  echo "install_test: failed: ${failed[*]}"
  exit 1
fi
echo "install_test: all checks passed"
