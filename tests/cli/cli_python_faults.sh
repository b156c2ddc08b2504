#!/usr/bin/env bash
# Every failure category of the Python worker, each by injecting the fault from outside, through
# the real CLI and supervisor: the run must land in SQLite as `failed` with its category, the CLI
# must print the fix, and the sweep must go on (exit 1, not a hang or an abort).
#   cli_python_faults.sh BIN_DIR PYTHON     (PYTHON: the interpreter that holds torch)
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh" "$1"
py=$2
fx=$work/fixtures
tiny=(--runtime python "${tiny[@]}" --classes 10 --steps 2 --warmup-steps 0 --timeout 240)
n=0

# expect CATEGORY MESSAGE_PATTERN [ENV=VALUE ...] -- CLI RUN ARGS...
expect() {
  local category=$1 pattern=$2; shift 2
  local envs=()
  while [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  n=$((n + 1))
  local db=$work/f$n.sqlite rc=0
  env "${envs[@]}" "$bin/stepscope-cli" --db "$db" run --single "${tiny[@]}" "$@" \
    > "$work/out$n" 2> "$work/err$n" || rc=$?
  [ "$rc" = 1 ] || fail "$category: the CLI should exit 1 (a run failed), got $rc: $(tail -5 "$work/err$n")"
  local got
  got=$(sqlite3 "$db" "SELECT status || ' ' || category FROM runs")
  [ "$got" = "failed $category" ] || fail "$category: stored as '$got'; log: $(tail -8 "$work/err$n")"
  local message
  message=$(sqlite3 "$db" "SELECT message FROM runs")
  echo "$message" | grep -Eq "$pattern" || fail "$category: message '$message' does not match /$pattern/"
  grep -q "fix: " "$work/err$n" || fail "$category: the CLI prints no fix"
  echo "ok: $category: $message"
}

mkdir -p "$fx/oldtorch/torch" "$fx/oldtriton/triton" "$fx/segv" "$fx/hang"
echo '__version__ = "2.4.0"' > "$fx/oldtorch/torch/__init__.py"
echo '__version__ = "3.1.0"' > "$fx/oldtriton/triton/__init__.py"
# The crash comes 0.3 s after the interpreter starts, while torch still imports: a tiny run on an
# idle machine can end within 2 s, and then there was nothing left to crash.
cat > "$fx/segv/sitecustomize.py" <<'PY'
import os, signal, threading
threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGSEGV)).start()
PY
echo 'import time; time.sleep(600)' > "$fx/hang/sitecustomize.py"
# An interpreter without torch: the same Python with its site-packages switched off.
printf '#!/bin/sh\nexec "%s" -S "$@"\n' "$py" > "$fx/python-no-torch"
# An interpreter with 8 GB of address space: an absurd batch fails to allocate, as it would on a
# small machine, without waking the kernel's OOM killer on this one.
printf '#!/bin/sh\nulimit -v 8000000\nexec "%s" "$@"\n' "$py" > "$fx/python-small"
chmod +x "$fx/python-no-torch" "$fx/python-small"

expect python-not-found "no/such/python" -- --python "$work/no/such/python"
expect torch-missing "torch cannot be imported" -- --python "$fx/python-no-torch"
expect torch-version-mismatch "2\.4\.0.*built for 2\.11" PYTHONPATH="$fx/oldtorch" -- --python "$py"
expect triton-version-mismatch "Triton 3\.1\.0.*needs 3\.6" PYTHONPATH="$fx/oldtriton" -- --python "$py" --compile default
long=$work
for i in $(seq 20); do long=$long/$(printf 'c%.0s' $(seq 200)); done
mkdir -p "$long"
expect cache-path-too-long "characters" -- --python "$py" --compile default --compile-cache-dir "$long"
expect compile-failed "failed during first step" CXX=/nonexistent/c++ -- --python "$py" --compile default
# Errors suppressed: dynamo runs the step eager. It must be a failed run, never a compiled one.
expect compile-failed "not compiled as asked" CXX=/nonexistent/c++ TORCHDYNAMO_SUPPRESS_ERRORS=1 -- \
  --python "$py" --compile default
expect out-of-memory "out of memory" -- --python "$fx/python-small" --batch 4096 --image-size 512
expect worker-crashed "crashed" PYTHONPATH="$fx/segv" -- --python "$py"
expect timeout "said nothing for 3 s" PYTHONPATH="$fx/hang" -- --python "$py" --timeout 3

# A sweep goes on after a failure: a broken configuration first, a good one after it.
cat > "$work/two.json" <<JSON
{"configs": [{"runtime": "python", "compile": "default"}, {"runtime": "python"}]}
JSON
rc=0
CXX=/nonexistent/c++ "$bin/stepscope-cli" --db "$work/two.sqlite" run --device cpu --batch 2 --image-size 32 \
  --classes 10 --steps 2 --warmup-steps 0 --python "$py" --config "$work/two.json" > /dev/null 2> "$work/two.err" || rc=$?
[ "$rc" = 1 ] || fail "mixed sweep: exit 1 expected, got $rc"
got=$(sqlite3 "$work/two.sqlite" "SELECT group_concat(status, ',') FROM (SELECT status FROM runs ORDER BY position)")
[ "$got" = "failed,complete" ] || fail "mixed sweep: the sweep must go on after a failed compile, got $got"
echo "all Python worker faults named"
