#!/usr/bin/env bash
# Installs what Stepscope needs on a Debian machine and prepares the Python environment that
# provides LibTorch. Idempotent: a second run checks and returns in seconds.
#
#   scripts/bootstrap.sh            # Debian packages + virtual environment with pinned torch
#
# Environment:
#   STEPSCOPE_VENV   where the virtual environment lives (default: ~/.cache/stepscope/venv-torch-<ver>)
#                    It is kept outside the checkout so that fresh clones (CI) reuse it.
#   STEPSCOPE_SKIP_APT=1   do not touch Debian packages (e.g. no root, packages already there)
set -euo pipefail

TORCH_VERSION=2.11.0         # the same pins as STEPSCOPE_TORCH_PIN in CMakeLists.txt (what `stepscope-cli setup` installs)
TORCHVISION_VERSION=0.26.0   # the release built against torch 2.11 (the Python worker's ResNet18)
# The model libraries a run may name (issue 30: timm:NAME, hf:NAME), pinned for the tests' tiny models;
# a user's own environment may hold any version, or none (the run then says which package is missing).
TIMM_VERSION=1.0.31
TRANSFORMERS_VERSION=5.25.0
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
venv=${STEPSCOPE_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/stepscope/venv-torch-$TORCH_VERSION}

debs=(build-essential cmake ninja-build ccache pkg-config python3-venv
      qt6-base-dev qt6-base-dev-tools qt6-svg-dev libgl-dev libqcustomplot-dev
      libsqlite3-dev sqlite3 libgtest-dev libgmock-dev clang-format)

log() { printf 'bootstrap: %s\n' "$*" >&2; }

"$here/scripts/apt-install.sh" "${debs[@]}"

# python3-venv may be missing on pyenv-less systems; any python3 >= 3.10 with venv works.
py=${STEPSCOPE_PYTHON:-python3}
if [ ! -x "$venv/bin/python" ]; then
  log "creating virtual environment $venv"
  mkdir -p "$(dirname "$venv")"
  "$py" -m venv "$venv"
fi
if ! "$venv/bin/python" -c "import torch,torchvision,sys; sys.exit(0 if (torch.__version__.split('+')[0], torchvision.__version__.split('+')[0]) == ('$TORCH_VERSION', '$TORCHVISION_VERSION') else 1)" 2>/dev/null; then
  log "installing torch==$TORCH_VERSION torchvision==$TORCHVISION_VERSION from PyPI into $venv (large download, once)"
  "$venv/bin/python" -m pip install -q --upgrade pip
  "$venv/bin/python" -m pip install -q "torch==$TORCH_VERSION" "torchvision==$TORCHVISION_VERSION"
fi
if ! "$venv/bin/python" -c "import timm,transformers,sys; sys.exit(0 if (timm.__version__, transformers.__version__) == ('$TIMM_VERSION', '$TRANSFORMERS_VERSION') else 1)" 2>/dev/null; then
  log "installing timm==$TIMM_VERSION transformers==$TRANSFORMERS_VERSION into $venv (the model tests' libraries)"
  "$venv/bin/python" -m pip install -q "timm==$TIMM_VERSION" "transformers==$TRANSFORMERS_VERSION"
fi
echo "$venv"
