#!/usr/bin/env bash
# `stepscope-cli setup` against what a hostile user does, with stand-in Pythons (shell scripts that
# answer the version probe and then misbehave in `-m venv`): no pip, no network, seconds.
#   1. empty --index-url, --find-links or --python: a usage error (exit 2), nothing written;
#   2. a program that is no Python (/bin/true), or one that hangs: named within seconds;
#   3. a full disk while venv runs: named, with the fix;
#   4. a second setup of the same environment refuses at once, naming the first's pid; a kill -9
#      of the first leaves none of its children (nor theirs) running, and its lock file blocks nobody.
#   cli_setup_guards.sh BIN_DIR
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh" "$1"

export STEPSCOPE_VENV=$work/venv
lock=$work/.venv.setup-lock
# A guard that stops guarding must fail here, never reach an index: no pip settings of the machine
# (a find-links folder), and no index at all.
export PIP_CONFIG_FILE=/dev/null PIP_NO_INDEX=1
unset PIP_FIND_LINKS PIP_INDEX_URL PIP_EXTRA_INDEX_URL

# Ended: gone, or a zombie nobody reaped yet (a container's first process may never reap orphans).
ended() {
  local state
  state=$(ps -o stat= -p "$1" 2> /dev/null) || return 0
  case $state in Z*) return 0 ;; esac
  return 1
}
# A stand-in Python: answers the version probe as Python 3.11, then runs $2 for `-m venv DIR`.
stand_in() {
  printf '#!/bin/sh\n[ "$1" = -c ] && { echo 3.11; exit 0; }\n%s\n' "$2" > "$work/$1"
  chmod +x "$work/$1"
  echo "$work/$1"
}

full=$(stand_in full 'echo "OSError: [Errno 28] No space left on device: '"'"'$3/lib'"'"'" >&2; exit 1')

# 1. Empty values are slips, never "the default": an empty index would mean PyPI and gigabytes.
for given in "--index-url=" "--index-url= " "--find-links=" "--python="; do
  python=(--python "$full")
  [ "$given" = --python= ] && python=()
  cli setup "${python[@]}" "$given" > /dev/null 2> "$work/empty.err"; rc=$?
  [ "$rc" = 2 ] || fail "setup '$given' must be a usage error (2), got $rc: $(cat "$work/empty.err")"
  grep -q "^stepscope-cli setup: ${given%%=*} is empty; give " "$work/empty.err" ||
    fail "setup '$given' words: $(cat "$work/empty.err")"
done
cli setup --python "$full" --index-url "" > /dev/null 2>&1
[ $? = 2 ] || fail "--index-url '' (a separate argument) is refused too"
[ -e "$STEPSCOPE_VENV" ] || [ -e "$lock" ] && fail "a refused setup writes nothing"

# 2. Not a Python: /bin/true says nothing (it used to loop at "creating the Python environment").
start=$(date +%s)
timeout 30 "$bin/stepscope-cli" setup --python /bin/true > /dev/null 2> "$work/true.err"; rc=$?
took=$(($(date +%s) - start))
[ "$rc" = 1 ] || fail "setup --python /bin/true must exit 1, got $rc after $took s: $(tail -n 3 "$work/true.err")"
grep -q "/bin/true is not a Python 3 that can create the environment (asked its version, it said nothing)" \
  "$work/true.err" || fail "/bin/true words: $(cat "$work/true.err")"
grep -q "^fix: pass --python with the path of a Python 3" "$work/true.err" || fail "/bin/true fix: $(cat "$work/true.err")"
[ "$took" -le 10 ] || fail "/bin/true took $took s"

# A Python that hangs when asked: named after the probe's few seconds, and killed.
hang=$work/hang
printf '#!/bin/sh\necho $$ > "%s"\nexec sleep 60\n' "$work/hang.pid" > "$hang"
chmod +x "$hang"
start=$(date +%s)
timeout 30 "$bin/stepscope-cli" setup --python "$hang" > /dev/null 2> "$work/hang.err"; rc=$?
took=$(($(date +%s) - start))
[ "$rc" = 1 ] || fail "a hanging Python must fail (1), got $rc after $took s: $(tail -n 3 "$work/hang.err")"
grep -q "$hang did not answer within 5 s when asked its version" "$work/hang.err" ||
  fail "hang words: $(cat "$work/hang.err")"
[ "$took" -le 15 ] || fail "a hanging Python took $took s to name"
ended "$(cat "$work/hang.pid")" || fail "the hanging Python was left running"

# 3. A full disk while venv creates the environment ($full says what Python's venv says then).
cli setup --python "$full" > /dev/null 2> "$work/full.err"; rc=$?
[ "$rc" = 1 ] || fail "a full disk must fail (1), got $rc: $(cat "$work/full.err")"
grep -q "no space left to create the Python environment in $STEPSCOPE_VENV (.* free)" "$work/full.err" ||
  fail "full-disk words: $(cat "$work/full.err")"
grep -q "^fix: free some space there .*STEPSCOPE_VENV" "$work/full.err" || fail "full-disk fix: $(cat "$work/full.err")"

# 4. A venv that takes its time: it, two children and a grandchild in its group, every pid written down.
slow=$(stand_in slow 'echo $$ >> "'"$work"'/slow.pids"
sleep 300 & echo $! >> "'"$work"'/slow.pids"
sh -c '"'"'sleep 300 & echo $! >> "'"$work"'/slow.pids"; wait'"'"' & echo $! >> "'"$work"'/slow.pids"
wait')
"$bin/stepscope-cli" setup --python "$slow" > /dev/null 2> "$work/first.err" &
first=$!
trap 'kill -9 "$first" 2> /dev/null; rm -rf "$work"' EXIT
for _ in $(seq 1 100); do [ "$(wc -l 2> /dev/null < "$work/slow.pids")" = 4 ] && break; sleep 0.1; done
[ "$(wc -l 2> /dev/null < "$work/slow.pids")" = 4 ] || fail "the slow venv did not start: $(cat "$work/first.err")"
grep -q "^pid $first on host " "$lock" || fail "the lock file names the holder: '$(cat "$lock")'"

start=$(date +%s)
cli setup --python "$full" > /dev/null 2> "$work/second.err"; rc=$?
took=$(($(date +%s) - start))
[ "$rc" = 1 ] || fail "a second setup must refuse (1), got $rc: $(cat "$work/second.err")"
grep -q "another setup of $STEPSCOPE_VENV is running (pid $first on host .* holds $lock)" "$work/second.err" ||
  fail "busy words: $(cat "$work/second.err")"
grep -q "^fix: wait for it to finish, or stop it (.*kill $first)" "$work/second.err" ||
  fail "busy fix: $(cat "$work/second.err")"
[ "$took" -le 5 ] || fail "the refusal took $took s"
ended "$first" && fail "the refused setup ended the first"
[ -f "$STEPSCOPE_VENV/.stepscope-setup-incomplete" ] || fail "the refused setup removed the first's marker"

kill -9 "$first"
wait "$first" 2> /dev/null
for _ in $(seq 1 100); do
  alive=
  while read -r pid; do ended "$pid" || alive="$alive $pid"; done < "$work/slow.pids"
  [ -z "$alive" ] && break
  sleep 0.1
done
[ -z "$alive" ] || fail "children of the killed setup still run after 10 s:$alive ($(ps -o pid=,args= -p "${alive# }"))"

# The killed holder's file still names it; the kernel's lock is gone with it, and decides.
grep -q "^pid $first " "$lock" || fail "a kill -9 leaves the holder's text: '$(cat "$lock")'"
cli setup --python "$full" > /dev/null 2> "$work/after.err"; rc=$?
grep -q "another setup" "$work/after.err" && fail "a dead holder's lock file blocked a setup: $(cat "$work/after.err")"
grep -q "no space left" "$work/after.err" || fail "the setup after the kill ran: $(cat "$work/after.err")"
[ -s "$lock" ] && fail "a setup that ends empties its lock file: '$(cat "$lock")'"
echo "cli setup guards: ok"
