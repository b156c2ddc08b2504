#!/usr/bin/env bash
# Installs the Debian packages named that are not installed yet (apt-get, as root or through sudo);
# returns at once when all are there. STEPSCOPE_SKIP_APT=1 leaves the system alone.
#   scripts/apt-install.sh PACKAGE...
set -euo pipefail
[ "${STEPSCOPE_SKIP_APT:-0}" = 1 ] && exit 0
missing=()
for p in "$@"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
((${#missing[@]})) || exit 0
sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
printf 'apt-install: installing Debian packages: %s\n' "${missing[*]}" >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
