#!/usr/bin/env bash
# One database, one writer, whatever its names (issue 34.1, 34.2), through the real CLI and native
# worker. A database renamed under a sweep: the sweep stops with exit 3 and says where the file went;
# the renamed file alone holds every step committed before the rename, and nothing is left beside
# the old name. A bind mount of the database file (a second name with one link, which no name or
# link count gives away): a sweep through it is refused with the live writer's pid, an export
# through it onto the live -wal is refused, and the live sweep loses nothing. The bind mount needs
# a mount namespace (root, or user namespaces): where there is none, that part is skipped (77).
#   cli_one_writer.sh BIN_DIR
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh" "$1"
pids=()
trap 'for p in "${pids[@]}"; do kill -9 "$p" 2> /dev/null; done; rm -rf "$work"' EXIT
long=("${tiny[@]}" --single --steps 100000)

# --- Renamed mid-sweep ---------------------------------------------------------------------------
db=$work/m.sqlite
"$bin/stepscope-cli" --db "$db" run "${long[@]}" > /dev/null 2> "$work/rename.err" &
pid=$!
pids+=("$pid")
seen=$(wait_for_steps "$db" 5) || fail "no steps before the rename: $(cat "$work/rename.err")"
mv "$db" "$work/moved.sqlite"
wait "$pid"; rc=$?
[ $rc = 3 ] || fail "a renamed database must stop the sweep with exit 3, got $rc: $(tail -3 "$work/rename.err")"
grep -q "was moved to '$work/moved.sqlite'" "$work/rename.err" || fail "where the file went: $(tail -2 "$work/rename.err")"
for side in "$db" "$db-wal" "$db-shm"; do
  [ -e "$side" ] && fail "left beside the old name: $side"
done
# The file alone, as a user carries it away.
cp "$work/moved.sqlite" "$work/carried.sqlite"
n=$(count "$work/carried.sqlite" "SELECT COUNT(*) FROM steps")
[ "$n" -ge "$seen" ] || fail "the renamed file alone holds $n steps, $seen were committed before the rename"
[ "$(count "$work/carried.sqlite" "PRAGMA integrity_check")" = ok ] || fail "the renamed file is damaged"
cli --db "$work/moved.sqlite" list > "$work/list.txt" || fail "list of the renamed file"
grep -q "interrupted" "$work/list.txt" || fail "the stopped sweep reads interrupted: $(cat "$work/list.txt")"

# --- A bind mount of the live database -----------------------------------------------------------
if [ "$(id -u)" = 0 ]; then ns=(unshare -m); else ns=(unshare -rm); fi
"${ns[@]}" true 2> /dev/null || { echo "SKIP: no mount namespace here (${ns[*]}), the bind-mount part is not run"; exit 77; }
real=$work/real/m.sqlite
mkdir -p "$work/real" "$work/mount"
cli --db "$real" run "${tiny[@]}" --single --steps 4 --warmup-steps 1 > /dev/null 2>&1 || fail "first sweep into $real"
touch "$work/mount/m.sqlite"
# shellcheck disable=SC2016
"${ns[@]}" bash -c '
  set -u
  . "$1/common.sh" "$2"
  real=$3; other=$4/m.sqlite; out=$5
  mount --bind "$real" "$other" || fail "bind mount"
  "$bin/stepscope-cli" --db "$real" run "${tiny[@]}" --single --steps 100000 > /dev/null 2> "$out/live.err" &
  pid=$!
  wait_for_steps "$real" 12 > /dev/null || { kill -9 $pid; fail "no steps in the live sweep: $(cat "$out/live.err")"; }
  cli --db "$other" run "${tiny[@]}" --single --steps 4 --warmup-steps 1 > /dev/null 2> "$out/second.err"; rc=$?
  [ $rc = 3 ] && grep -q "is being written by Stepscope process $pid on this machine under another name" "$out/second.err" ||
    { kill -9 $pid; fail "a writer through the bind mount: $rc $(cat "$out/second.err")"; }
  [ -e "$other-wal" ] && { kill -9 $pid; fail "the refused writer left a log beside its name"; }
  before=$(stat -c %i "$real-wal")
  cli --db "$other" export --out "$real-wal" > /dev/null 2> "$out/export.err"; rc=$?
  [ $rc = 2 ] && grep -q "holds locked" "$out/export.err" || { kill -9 $pid; fail "export onto the live -wal: $rc $(cat "$out/export.err")"; }
  [ "$(stat -c %i "$real-wal")" = "$before" ] || { kill -9 $pid; fail "the live -wal was replaced"; }
  committed=$(count "$real" "SELECT COUNT(*) FROM steps")
  kill -INT $pid
  wait $pid; rc=$?
  [ $rc = 130 ] || fail "the live sweep must end as Ctrl-C ends it, got $rc: $(tail -3 "$out/live.err")"
  n=$(count "$real" "SELECT COUNT(*) FROM steps")
  [ "$n" -ge "$committed" ] || fail "the live sweep lost steps: $n after, $committed before"
  [ "$(count "$real" "PRAGMA integrity_check")" = ok ] || fail "the database is damaged"
  [ "$(count "$real" "SELECT COUNT(*) FROM sweeps")" = 2 ] || fail "a sweep is missing or one too many"
' _ "$(dirname "${BASH_SOURCE[0]}")" "$bin" "$real" "$work/mount" "$work" || exit 1
echo "PASS"
