#!/usr/bin/env bash
# Nothing left behind (issue 34.3). Folders a killed sweep left (its cache folder, a data-parallel
# coordinator's, a profile's unfinished trace) name their owner (core/supervisor/leftovers.h): the
# next sweep on the host removes those whose owner has ended, and keeps a live owner's and one
# without an owner file. A profile whose trace cannot be written (a file-size limit here: root
# ignores a read-only folder, and a tiny file system needs root) keeps the run's timed steps, says
# why it has no trace, and leaves nothing in the traces folder. `doctor` says what it cleared.
#   cli_leftovers.sh BIN_DIR
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh" "$1"
db=$work/m.sqlite
caches=$work/cc
export TMPDIR=$work/tmp # the coordinators' folders go here
mkdir -p "$TMPDIR"
host=$(python3 -c 'import socket; print(socket.gethostname())')
sleep 0 & dead=$!
wait $dead # a pid that has ended
plant() { # folder owner-pid
  mkdir -p "$1"
  printf 'pid %s\nhost %s\nmade %s\n' "$2" "$host" "$(date +%s)" > "$1/owner"
  head -c 100000 /dev/zero > "$1/trace.json.tmp"
}
plant "$caches/sweep-$dead-dead01" $dead
plant "$caches/sweep-$$-live01" $$ # this shell: alive
mkdir -p "$caches/sweep-old001"     # an older Stepscope's, without an owner
plant "$TMPDIR/stepscope-ddp-$dead-dead02" $dead
plant "$TMPDIR/stepscope-ddp-$$-live02" $$
plant "$db.traces/partial-$dead-dead03" $dead

# 300 KiB per file: the database fits, the trace (about 750 KB raw) does not.
set +e
(ulimit -f 300; cli --db "$db" run "${tiny[@]}" --steps 6 --warmup-steps 1 --single --profile-steps 1 \
  --cache-dir "$caches" > "$work/run.md" 2> "$work/run.err")
rc=$?
set -e
[ $rc = 0 ] || fail "a profile that cannot write its trace ends the sweep ($rc): $(tail -5 "$work/run.err")"
[ "$(count "$db" "SELECT status FROM runs")" = complete ] || fail "the run is complete"
[ "$(count "$db" "SELECT COUNT(*) FROM steps")" = 8 ] || fail "its timed steps are kept"
problem=$(sqlite3 "$db" "SELECT json_extract(profile, '$.problem') FROM runs")
echo "$problem" | grep -q "ulimit -f" || fail "the profile says why it has no trace: $problem"
[ -z "$(ls -A "$db.traces")" ] || fail "the traces folder holds what no run keeps: $(ls -A "$db.traces")"

[ ! -e "$caches/sweep-$dead-dead01" ] || fail "a dead sweep's cache folder stays"
[ ! -e "$TMPDIR/stepscope-ddp-$dead-dead02" ] || fail "a dead coordinator's folder stays"
[ -d "$caches/sweep-$$-live01" ] && [ -d "$TMPDIR/stepscope-ddp-$$-live02" ] || fail "a live owner's folder went"
[ -d "$caches/sweep-old001" ] || fail "a folder without an owner went"
[ "$(ls "$caches")" = "$(printf 'sweep-%s-live01\nsweep-old001' $$)" ] || fail "the sweep left its own: $(ls "$caches")"

# doctor clears what the next sweep would, and says so (stand-in workers: only its row matters).
plant "$work/xdg/stepscope/cc/sweep-$dead-dead04" $dead
XDG_CACHE_HOME=$work/xdg STEPSCOPE_NATIVE_WORKER=/bin/false cli --db "$db" doctor --device cpu --python /bin/false \
  > "$work/doctor.txt" 2>&1 || true
grep -Eq "^ok +leftovers +removed 1 cache folder left by ended processes \(0\.10 MiB\); kept 1 of running" "$work/doctor.txt" \
  || fail "doctor's leftovers row: $(cat "$work/doctor.txt")"
[ ! -e "$work/xdg/stepscope/cc/sweep-$dead-dead04" ] || fail "doctor left a dead sweep's cache folder"
echo "ok"
