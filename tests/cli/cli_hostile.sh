#!/usr/bin/env bash
# The store and the CLI under hostile use (issue 8): what a careless or unlucky user does loses no
# data and is told by its right name. Tiny CPU runs, as cli_sweep.sh.
#   cli_hostile.sh BIN_DIR
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh" "$1"
chmod 755 "$work"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -9 -- -"$p" 2>/dev/null; kill -9 "$p" 2>/dev/null; done
  chmod -R u+w "$work" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
tiny+=(--warmup-steps 0)
# As root, permissions do not stop a write: the reader checks run as nobody then.
as_reader() {
  if [ "$(id -u)" = 0 ]; then setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; else "$@"; fi
}

db=$work/m.sqlite
# A sweep whose name holds a terminal escape and a newline, under the longest --timeout allowed.
cli --db "$db" run "${tiny[@]}" --single --steps 4 --timeout 604800 --name $'red\e[31m\nline' \
  > /dev/null 2> "$work/run.err" || fail "a tiny sweep must complete: $(tail -3 "$work/run.err")"

# Control characters in names are shown escaped, never sent to the terminal.
cli --db "$db" list > "$work/list.txt" || fail "list"
grep -q $'\e' "$work/list.txt" && fail "list printed a raw escape: $(cat -A "$work/list.txt")"
grep -qF 'red\x1b[31m\x0aline' "$work/list.txt" || fail "list must escape control characters: $(cat "$work/list.txt")"

# export --out never overwrites the database: not by its name, a symbolic or hard link, or its -wal.
cp "$db" "$work/before.sqlite"
walBefore=$(cat "$db-wal" 2> /dev/null | cksum)
ln -s "$db" "$work/sym.sqlite"
ln "$db" "$work/hard.sqlite"
for out in "$db" "$work/sym.sqlite" "$work/hard.sqlite" "$db-wal" "$work/../$(basename "$work")/m.sqlite"; do
  cli --db "$db" export --out "$out" 2> "$work/export.err"; rc=$?
  [ $rc = 2 ] || fail "export --out $out must be refused with exit 2, got $rc"
  grep -q "refusing to write" "$work/export.err" || fail "export refusal: $(cat "$work/export.err")"
done
cmp -s "$db" "$work/before.sqlite" || fail "a refused export changed the database"
[ "$(cat "$db-wal" 2> /dev/null | cksum)" = "$walBefore" ] || fail "a refused export changed the database's -wal"
cli --db "$db" export --format csv --out "$work/l.csv" 2> /dev/null || fail "export to a file"
[ "$(wc -l < "$work/l.csv")" = 2 ] || fail "csv export: header + 1 configuration"
# "abc" is not the latest sweep.
for bad in abc 0 -3; do
  cli --db "$db" export --sweep "$bad" > /dev/null 2>&1; rc=$?
  [ $rc = 2 ] || fail "export --sweep $bad must exit 2, got $rc"
done

# --timeout is parsed wide and capped (42949673 s used to time out after 40 ms; 2592000 s never).
for t in 42949673 2592000 99999999999999999999; do
  cli --db "$work/t.sqlite" run "${tiny[@]}" --single --timeout "$t" 2> "$work/t.err"; rc=$?
  [ $rc = 2 ] || fail "--timeout $t must exit 2, got $rc"
  grep -q -- "--timeout" "$work/t.err" || fail "--timeout error names the flag: $(cat "$work/t.err")"
done
[ -e "$work/t.sqlite" ] && fail "a refused --timeout wrote a database"

# A --config file: a missing CUDA device is refused as the flag is, nothing written; a file too big
# for a configuration is refused before it is read; no "small CPU ledger" is claimed.
gpus=$("$bin/stepscope-worker" --cuda-devices 2> /dev/null || echo 0)
if [ "${gpus:-0}" -lt 8 ]; then
  echo '{"configs": [{"device": "cpu", "batch": 2, "image_size": 32, "steps": 3}, {"device": "cuda:7"}]}' \
    > "$work/cuda7.json"
  cli --db "$work/c.sqlite" run --config "$work/cuda7.json" 2> "$work/c.err"; rc=$?
  [ $rc = 2 ] || fail "a --config entry on cuda:7 must exit 2, got $rc: $(cat "$work/c.err")"
  grep -q "cuda:7 is not available" "$work/c.err" || fail "cuda:7 message: $(cat "$work/c.err")"
  grep -q "small CPU ledger" "$work/c.err" && fail "a --config run is not the small CPU ledger"
  [ -e "$work/c.sqlite" ] && fail "a refused --config wrote a database"
fi
head -c 2000000 /dev/zero | tr '\0' ' ' > "$work/big.json"
cli --db "$work/c.sqlite" run --config "$work/big.json" 2> "$work/c.err"; rc=$?
[ $rc = 2 ] && grep -q "larger than 1 MiB" "$work/c.err" || fail "a 2 MB --config must be refused: $rc $(cat "$work/c.err")"

# Without HOME there is no default database: say to pass --db (it used to land in //.local).
env -u HOME -u XDG_DATA_HOME "$bin/stepscope-cli" list 2> "$work/home.err"; rc=$?
[ $rc = 2 ] && grep -q -- "--db" "$work/home.err" || fail "HOME unset must exit 2 asking for --db: $rc $(cat "$work/home.err")"

# A file that is not a database is refused (exit 3) with the store's remedy in the CLI's words.
for i in $(seq 200); do echo "step,gpu_ms,wall_ms"; done > "$work/text.sqlite"
cli --db "$work/text.sqlite" list 2> "$work/text.err"; rc=$?
[ $rc = 3 ] && grep -qF "choose another database file with --db PATH" "$work/text.err" \
  || fail "a text file as --db: exit 3 saying how to choose another: $rc $(cat "$work/text.err")"

# Read-only databases are read: a 444 file, a file in a read-only folder, and no -wal or -shm
# appears beside them; writing to them is refused up front.
if [ "$(id -u)" != 0 ] || command -v setpriv > /dev/null; then
  ro=$work/ro
  mkdir "$ro" && cp "$db" "$ro/m.sqlite" && chmod 1777 "$ro" && chmod 444 "$ro/m.sqlite"
  as_reader "$bin/stepscope-cli" --db "$ro/m.sqlite" list > "$work/ro.txt" 2> "$work/ro.err" \
    || fail "list of a 444 file: $(cat "$work/ro.err")"
  grep -q "^sweep 1 " "$work/ro.txt" || fail "the 444 file's sweep is listed"
  ls "$ro" | grep -q -- "-wal\|-shm" && fail "reading a 444 file created $(ls "$ro")"
  as_reader "$bin/stepscope-cli" --db "$ro/m.sqlite" run "${tiny[@]}" --single 2> "$work/ro.err"; rc=$?
  [ $rc = 3 ] && grep -q "read-only" "$work/ro.err" || fail "running into a 444 file: exit 3, read-only: $rc"
  chmod 644 "$ro/m.sqlite" && chmod 555 "$ro"
  as_reader "$bin/stepscope-cli" --db "$ro/m.sqlite" show 1 > /dev/null 2> "$work/ro.err" \
    || fail "show in a read-only folder: $(cat "$work/ro.err")"
  ls "$ro" | grep -q -- "-wal\|-shm" && fail "reading in a read-only folder created $(ls "$ro")"
  chmod 755 "$ro"
fi

# The database deleted mid-sweep: exit 3 with a message that names it, never an abort (134).
gone=$work/gone.sqlite
cli --db "$gone" run "${tiny[@]}" --single --steps 100000 > /dev/null 2> "$work/gone.err" &
pid=$!
pids+=("$pid")
wait_for_steps "$gone" 5 > /dev/null || fail "no steps before deleting the database: $(cat "$work/gone.err")"
rm -f "$gone" "$gone-wal" "$gone-shm"
wait "$pid"; rc=$?
[ $rc = 3 ] || fail "a deleted database must stop the sweep with exit 3, got $rc: $(tail -3 "$work/gone.err")"
grep -q "gone.sqlite' was deleted or replaced" "$work/gone.err" || fail "deleted message: $(tail -3 "$work/gone.err")"
[ -e "$gone" ] && fail "the deleted database came back"

# A kill -9 between planning and the end: nothing stays queued or running, the sweep is interrupted.
killed=$work/killed.sqlite
setsid "$bin/stepscope-cli" --db "$killed" run "${tiny[@]}" --steps 100000 --no-warmup-process \
  > /dev/null 2> "$work/killed.err" &
pid=$!
pids+=("$pid")
wait_for_steps "$killed" 5 > /dev/null || fail "no steps before kill -9: $(cat "$work/killed.err")"
kill -9 -- -"$pid" 2> /dev/null || kill -9 "$pid"
wait "$pid" 2> /dev/null
cli --db "$killed" list > /dev/null || fail "reopen after kill -9"
left=$(count "$killed" "SELECT COUNT(*) FROM runs WHERE status IN ('queued', 'running')")
[ "$left" = 0 ] || fail "$left run(s) left queued or running after kill -9"
[ "$(count "$killed" "SELECT COUNT(*) FROM runs WHERE status = 'interrupted' AND message LIKE 'not run%'")" -ge 1 ] \
  || fail "the runs that never started are interrupted, not run"
[ "$(count "$killed" "SELECT status FROM sweeps")" = interrupted ] || fail "the killed sweep is interrupted"

# Ctrl-Z longer than the heartbeat: the run of a stopped, living CLI is not interrupted.
stopped=$work/stopped.sqlite
"$bin/stepscope-cli" --db "$stopped" run "${tiny[@]}" --single --steps 100000 > /dev/null 2> "$work/stopped.err" &
pid=$!
pids+=("$pid")
wait_for_steps "$stopped" 5 > /dev/null || fail "no steps before Ctrl-Z"
aged=
for _ in 1 2 3 4 5; do
  kill -STOP "$pid"
  # Its heartbeat as if it had been stopped for an hour (the writer may have been stopped mid-commit).
  if sqlite3 -cmd ".timeout 1000" "$stopped" \
    "UPDATE runs SET heartbeat = strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-1 hour')" 2> /dev/null; then
    aged=1
    break
  fi
  kill -CONT "$pid"
  sleep 0.3
done
[ -n "$aged" ] || fail "could not age the heartbeat"
cli --db "$stopped" list > "$work/stopped.txt" 2>&1
kill -CONT "$pid"
grep -q " running " "$work/stopped.txt" || fail "a stopped CLI's run must stay running: $(cat "$work/stopped.txt")"
kill -INT "$pid"
wait "$pid"; rc=$?
[ $rc = 130 ] || fail "Ctrl-C after Ctrl-Z must exit 130, got $rc"

# Out of memory on the CPU: under an address-space limit (the lowest that a tiny run fits in), a
# large batch is out-of-memory with its peak memory, not internal with "please report it".
limit=
for kb in 3000000 4000000 6000000 8000000 12000000 16000000; do
  if (ulimit -v "$kb" && "$bin/stepscope-worker" --config \
    '{"device":"cpu","batch":2,"image_size":32,"steps":2,"warmup_steps":0}' > /dev/null 2>&1); then
    limit=$kb
    break
  fi
done
[ -n "$limit" ] || fail "no address-space limit up to 16 GB fits a tiny worker"
(ulimit -v "$limit" && exec "$bin/stepscope-cli" --db "$work/oom.sqlite" run --device cpu --single --batch 1024 \
  --image-size 224 --steps 2 --warmup-steps 0) > /dev/null 2> "$work/oom.err"; rc=$?
[ $rc = 1 ] || fail "an out-of-memory run must exit 1, got $rc: $(tail -5 "$work/oom.err")"
grep -q "\[out-of-memory\]" "$work/oom.err" || fail "CPU out of memory is out-of-memory: $(tail -5 "$work/oom.err")"
grep -q "peak resident memory" "$work/oom.err" || fail "the peak memory is given: $(tail -5 "$work/oom.err")"
grep -q "please report" "$work/oom.err" && fail "an out-of-memory run is no internal error"

# A full disk, on a small tmpfs where a user namespace allows one: the sweep stops with exit 3 and
# "disk is full"; an export that cannot be written leaves the good file it would replace whole.
if unshare -rm true 2> /dev/null; then
  full=$work/full
  mkdir "$full"
  unshare -rm bash -c '
    bin=$1 full=$2 db=$3
    mount -t tmpfs -o size=300k tmpfs "$full" || exit 99
    "$bin/stepscope-cli" --db "$full/f.sqlite" run --device cpu --batch 2 --image-size 32 --warmup-steps 0 \
      --single --steps 100000 > /dev/null 2> "$full/../full.err"
    echo $? > "$full/../full.rc"
    rm -f "$full"/f.sqlite*
    "$bin/stepscope-cli" --db "$db" export --out "$full/good.md" 2> /dev/null || exit 98
    cp "$full/good.md" "$full/../good.copy"
    dd if=/dev/zero of="$full/filler" bs=4k 2> /dev/null
    "$bin/stepscope-cli" --db "$db" export --format json --out "$full/good.md" 2> "$full/../export.err"
    echo $? > "$full/../export.rc"
    cmp -s "$full/good.md" "$full/../good.copy"; echo $? > "$full/../intact.rc"
  ' _ "$bin" "$full" "$db"
  rc=$?
  if [ $rc != 99 ]; then
    [ $rc = 0 ] || fail "the full-disk checks did not run to the end: $rc"
    [ "$(cat "$work/full.rc")" = 3 ] || fail "a full disk must exit 3, got $(cat "$work/full.rc"): $(tail -2 "$work/full.err")"
    grep -q "the disk is full" "$work/full.err" || fail "full disk message: $(tail -2 "$work/full.err")"
    [ "$(cat "$work/export.rc")" != 0 ] || fail "an export onto a full disk must fail"
    [ "$(cat "$work/intact.rc")" = 0 ] || fail "a failed export damaged the file it would replace"
  fi
fi

echo "cli hostile: ok"
