#!/usr/bin/env bash
# `stepscope-cli setup` with no network: stand-in torch and torchvision wheels on a loopback index
# (tests/tools/fake_torch_index.py). An index nobody answers gives the offline error with its fix,
# fast; a throttled download is cancelled with SIGINT (exit 130, marker kept, no pip left running);
# the next setup resumes in the same environment and finishes at the pins; a third says it is ready.
#   cli_setup.sh BIN_DIR SOURCE_DIR TORCH_PIN TORCHVISION_PIN
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh" "$1"
src=$2 torch_pin=$3 vision_pin=$4
index=$src/tests/tools/fake_torch_index.py

# The machine's pip settings (a find-links folder, a mirror) stay out; pip's cache is the test's own.
export PIP_CONFIG_FILE=/dev/null PIP_CACHE_DIR=$work/pip-cache
unset PIP_FIND_LINKS PIP_INDEX_URL PIP_EXTRA_INDEX_URL PIP_NO_INDEX
export STEPSCOPE_VENV=$work/venv
marker=$STEPSCOPE_VENV/.stepscope-setup-incomplete
python3 -m venv "$work/probe" > /dev/null 2>&1 || { echo "SKIP: python3 -m venv does not work here (python3-venv)"; exit 77; }
rm -rf "$work/probe"

pip_running() { pgrep -f "$STEPSCOPE_VENV/bin/python -m pip" > /dev/null; }

# 1. Offline: an index on a closed loopback port.
closed=$(python3 "$index" --closed-port)
start=$(date +%s)
cli setup --index-url "$closed" > "$work/offline.out" 2> "$work/offline.err"; rc=$?
took=$(($(date +%s) - start))
[ "$rc" = 1 ] || fail "offline setup must exit 1, got $rc: $(cat "$work/offline.err")"
grep -q "cannot reach the package index $closed" "$work/offline.err" || fail "offline words: $(cat "$work/offline.err")"
grep -q "^fix: .*--index-url" "$work/offline.err" || fail "offline fix: $(cat "$work/offline.err")"
[ "$took" -le 60 ] || fail "offline setup took $took s (venv included): pip's retries must be short"
[ -f "$marker" ] || fail "a failed setup keeps the incomplete marker"
[ -x "$STEPSCOPE_VENV/bin/python" ] || fail "the environment was created before pip failed"

# 2. A throttled index: 6 MB of torch at 1 MiB/s.
python3 "$index" --dir "$work/index" --torch "$torch_pin" --torchvision "$vision_pin" --pad-mb 6 --rate-kib 1024 \
  --lifetime 200 > "$work/index.url" 2> "$work/index.err" &
server=$!
trap 'kill "$server" 2> /dev/null; rm -rf "$work"' EXIT
for _ in $(seq 1 100); do [ -s "$work/index.url" ] && break; sleep 0.1; done
url=$(head -n 1 "$work/index.url")
[ -n "$url" ] || fail "the local index did not start: $(cat "$work/index.err")"

# Cancel mid-download.
"$bin/stepscope-cli" setup --index-url "$url" > "$work/cancel.out" 2> "$work/cancel.err" &
pid=$!
for _ in $(seq 1 300); do grep -q "downloading torch-$torch_pin" "$work/cancel.err" 2> /dev/null && break; sleep 0.1; done
grep -q "downloading torch-$torch_pin" "$work/cancel.err" || fail "no download line: $(cat "$work/cancel.err")"
sleep 1
kill -INT "$pid"
start=$(date +%s%N)
wait "$pid"; rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
[ "$rc" = 130 ] || fail "Ctrl-C must exit 130, got $rc: $(cat "$work/cancel.err")"
[ "$ms" -le 3000 ] || fail "a cancel must return promptly, took $ms ms"
grep -q "setup cancelled" "$work/cancel.err" || fail "cancel words: $(cat "$work/cancel.err")"
[ -f "$marker" ] || fail "a cancelled setup keeps the incomplete marker"
pip_running && fail "pip still runs after the cancel"
"$STEPSCOPE_VENV/bin/python" -c "import torch" 2> /dev/null && fail "torch must not be installed by a cancelled setup"

# 3. Resume: the environment is kept (not created again), the download finishes.
cli setup --index-url "$url" > "$work/resume.out" 2> "$work/resume.err"; rc=$?
[ "$rc" = 0 ] || fail "resumed setup must exit 0, got $rc: $(cat "$work/resume.err")"
grep -q "creating the Python environment" "$work/resume.err" && fail "a resume keeps the environment"
grep -Eq "downloading torch-$torch_pin-py3-none-any.whl: [0-9.]+ MB of 6\.[0-9] MB \([1-9][0-9]?%\)" "$work/resume.err" ||
  fail "progress lines with bytes and percent: $(cat "$work/resume.err")"
grep -q "s left" "$work/resume.err" || fail "progress says the time left: $(cat "$work/resume.err")"
grep -q "installing" "$work/resume.err" || fail "the install phase is said: $(cat "$work/resume.err")"
grep -q "PyTorch is set up: torch $torch_pin and torchvision $vision_pin in $STEPSCOPE_VENV" "$work/resume.out" ||
  fail "the end names the versions and the path: $(cat "$work/resume.out")"
grep -q "^next: " "$work/resume.out" || fail "the end says what to run next"
[ -f "$marker" ] && fail "a finished setup removes the marker"
[ -d "$STEPSCOPE_VENV/.stepscope-setup-tmp" ] && fail "pip's private TMPDIR is removed"
got=$("$STEPSCOPE_VENV/bin/python" -c "import torch, torchvision; print(torch.__version__, torchvision.__version__)")
[ "$got" = "$torch_pin $vision_pin" ] || fail "the stand-ins must import at the pins, got '$got'"

# 4. Ready: said, nothing run.
cli setup --index-url "$closed" > "$work/ready.out" 2> "$work/ready.err" || fail "a ready environment exits 0"
grep -q "already set up" "$work/ready.out" || fail "ready words: $(cat "$work/ready.out")"

# 5. No index: wheels from a folder alone, into another environment.
wheels=$(python3 "$index" --dir "$work/folder" --torch "$torch_pin" --torchvision "$vision_pin" --pad-mb 0.1 \
  --wheels-only)
STEPSCOPE_VENV=$work/venv2 cli setup --no-index --find-links "$wheels" > "$work/links.out" 2> "$work/links.err" ||
  fail "setup --no-index --find-links: $(cat "$work/links.err")"
[ -f "$work/venv2/.stepscope-setup-incomplete" ] && fail "the --find-links setup finished"
cli setup --no-index > /dev/null 2>&1; [ $? = 2 ] || fail "--no-index without --find-links is a usage error"
echo "cli setup: ok"
