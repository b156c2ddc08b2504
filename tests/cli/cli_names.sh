#!/usr/bin/env bash
# Nothing lost through another name, every error named (issue 17), through the real CLI and native
# worker: a hard-linked database is refused for writing; export --out through a symlinked --db onto
# the real -wal is refused while a sweep writes; standard output on /dev/full exits 3; SIGHUP and
# SIGQUIT end a sweep as Ctrl-C does; a FIFO, a folder, /dev/null and an empty --db are refused at
# once; a file-size limit is named; a config file's unknown keys, loose numbers and two sweep
# sources are refused.
#   cli_names.sh BIN_DIR
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh" "$1"
shape=("${tiny[@]}" --steps 6 --warmup-steps 1 --single)
pids=()
trap 'for p in "${pids[@]}"; do kill -9 "$p" 2> /dev/null; done; rm -rf "$work"' EXIT
a=$work/a.sqlite
cli --db "$a" run "${shape[@]}" > /dev/null 2> "$work/a.err" || fail "first sweep: $(tail -3 "$work/a.err")"

# Hard links: no writer through either name; reading still works.
ln "$a" "$work/b.sqlite"
cli --db "$work/b.sqlite" run "${shape[@]}" > /dev/null 2> "$work/link.err"; rc=$?
[ $rc = 3 ] && grep -q "has 2 names (hard links)" "$work/link.err" || fail "hard link: $rc $(cat "$work/link.err")"
cli --db "$a" run "${shape[@]}" > /dev/null 2> "$work/link.err"; rc=$?
[ $rc = 3 ] || fail "the first name of a hard-linked file must be refused too: $rc"
cli --db "$work/b.sqlite" list > /dev/null || fail "reading a hard-linked file"
rm "$work/b.sqlite"

# A symlinked --db: its -wal is the target's, and export --out may not replace it while a sweep runs.
live=$work/live.sqlite
ln -s "$live" "$work/link.sqlite"
"$bin/stepscope-cli" --db "$live" run "${tiny[@]}" --single --steps 100000 > /dev/null 2> "$work/live.err" &
pid=$!
pids+=("$pid")
wait_for_steps "$live" 5 > /dev/null || fail "no steps in the live sweep: $(cat "$work/live.err")"
for side in "$live-wal" "$live-shm" "$live"; do
  before=$(stat -c %i "$side")
  cli --db "$work/link.sqlite" export --out "$side" > /dev/null 2> "$work/out.err"; rc=$?
  [ $rc = 2 ] && grep -q "refusing to write" "$work/out.err" || fail "export onto $side through a link: $rc $(cat "$work/out.err")"
  [ "$(stat -c %i "$side")" = "$before" ] || fail "$side was replaced"
done

# SIGHUP (a closed terminal) and SIGQUIT end the sweep as Ctrl-C does: the run cancelled, kept.
for sig in HUP QUIT; do
  kill -"$sig" "$pid"
  wait "$pid"; rc=$?
  [ $rc = 130 ] || fail "SIG$sig must end the sweep with exit 130, got $rc: $(tail -3 "$work/live.err")"
  [ "$(count "$live" "SELECT status FROM runs ORDER BY id DESC LIMIT 1")" = cancelled ] || fail "SIG$sig: the run is cancelled"
  [ "$(count "$live" "SELECT status FROM sweeps ORDER BY id DESC LIMIT 1")" = cancelled ] || fail "SIG$sig: the sweep is cancelled"
  [ "$sig" = QUIT ] && break
  "$bin/stepscope-cli" --db "$live" run "${tiny[@]}" --single --steps 100000 > /dev/null 2> "$work/live.err" &
  pid=$!
  pids+=("$pid")
  n=$(count "$live" "SELECT COUNT(*) FROM steps")
  wait_for_steps "$live" $((n + 5)) > /dev/null || fail "no steps in the second live sweep"
done

# Standard output that cannot be written: exit 3 with the reason, not 0 with an empty file.
if [ -w /dev/full ]; then
  for args in "list" "export" "export --format json"; do
    # shellcheck disable=SC2086
    cli --db "$a" $args > /dev/full 2> "$work/full.err"; rc=$?
    [ $rc = 3 ] && grep -q "could not write to standard output" "$work/full.err" || fail "$args > /dev/full: $rc $(cat "$work/full.err")"
  done
fi

# Special files and odd paths, refused at once with their real reason.
mkfifo "$work/pipe.sqlite"
timeout 20 "$bin/stepscope-cli" --db "$work/pipe.sqlite" list > /dev/null 2> "$work/fifo.err"; rc=$?
[ $rc = 3 ] && grep -q "named pipe" "$work/fifo.err" || fail "list on a FIFO: $rc $(cat "$work/fifo.err")"
cli --db "$work" list > /dev/null 2> "$work/dir.err"; rc=$?
[ $rc = 3 ] && grep -q "is a folder" "$work/dir.err" || fail "a folder as --db: $rc $(cat "$work/dir.err")"
cli --db /dev/null run "${shape[@]}" > /dev/null 2> "$work/null.err"; rc=$?
[ $rc = 3 ] && grep -q "is a device" "$work/null.err" || fail "/dev/null as --db: $rc $(cat "$work/null.err")"
[ ! -e /dev/null-journal ] || fail "/dev/null-journal was created"
cli --db "" list > /dev/null 2> "$work/empty.err"; rc=$?
[ $rc = 2 ] && grep -q "\-\-db is empty" "$work/empty.err" || fail "--db \"\": $rc $(cat "$work/empty.err")"

# A file-size limit: named, not a silent SIGXFSZ.
(ulimit -f 64; exec "$bin/stepscope-cli" --db "$work/big.sqlite" run "${tiny[@]}" --single --steps 4000 \
  > /dev/null 2> "$work/fsize.err"); rc=$?
[ $rc = 3 ] && grep -q "size limit" "$work/fsize.err" || fail "ulimit -f: $rc $(tail -3 "$work/fsize.err")"

# Configuration: one rule for numbers, unknown keys refused, one source of configurations.
echo '{"configs": [{}], "basline": 1}' > "$work/typo.json"
cli --db "$work/c.sqlite" run "${tiny[@]}" --steps 6 --config "$work/typo.json" > /dev/null 2> "$work/typo.err"; rc=$?
[ $rc = 2 ] && grep -q 'unknown key "basline"' "$work/typo.err" || fail "a typo'd key: $rc $(cat "$work/typo.err")"
for v in " 2" "+2" "2 " "2e0"; do
  cli --db "$work/c.sqlite" run "${shape[@]}" --repeat "$v" > /dev/null 2> "$work/num.err"; rc=$?
  [ $rc = 2 ] || fail "--repeat '$v' must be refused (exit 2), got $rc"
  cli --db "$work/c.sqlite" run "${shape[@]}" --batch "$v" > /dev/null 2> "$work/num.err"; rc=$?
  [ $rc = 2 ] || fail "--batch '$v' must be refused (exit 2), got $rc"
done
cli --db "$work/c.sqlite" run "${shape[@]}" --preset ledger > /dev/null 2> "$work/two.err"; rc=$?
[ $rc = 2 ] && grep -q "give one of --preset, --config and --single" "$work/two.err" || fail "--single --preset: $rc"
[ ! -e "$work/c.sqlite" ] || fail "a refused run created its database"
# A control character in an echoed value reaches the terminal escaped.
cli --db "$work/c.sqlite" run "${shape[@]}" --batch $'2\e[2J' > /dev/null 2> "$work/ctl.err"; rc=$?
[ $rc = 2 ] && grep -qF '\x1b[2J' "$work/ctl.err" && ! grep -q $'\e' "$work/ctl.err" \
  || fail "an escape in a value is echoed raw: $(od -c "$work/ctl.err" | head -3)"
echo "ok: links, outputs, signals, special files, limits and configurations"
