#!/usr/bin/env bash
# `stepscope --report`: the dashboard's sweep and comparison reports written with no display, on
# copies of H200 databases of docs/results (read-only there). The PDF holds the three charts the
# HTML holds (the long sweep whose PDF once lost two of them), the HTML has the sweep's rows, the
# databases are left as they were with no side file beside them, and what cannot be written is
# refused with the reason and a non-zero exit.
#   cli_report.sh BIN_DIR SOURCE_DIR
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh" "$1"
db=$work/caches.sqlite
cp "$2/docs/results/h200-caches.sqlite" "$db"
chmod u+w "$db"
before=$(sha256sum < "$db")
# No display, and a platform that would need one: --report must not need it.
report() { env -u DISPLAY -u WAYLAND_DISPLAY QT_QPA_PLATFORM=xcb "$bin/stepscope" "$@"; }

report --db "$db" --sweep 1 --report "$work/r.pdf" > "$work/pdf.out" 2> "$work/pdf.err" \
  || fail "--report .pdf exited $?: $(cat "$work/pdf.err")"
grep -q "Report of sweep 1 written to $work/r.pdf" "$work/pdf.out" || fail "says where: $(cat "$work/pdf.out")"
[ "$(head -c 5 "$work/r.pdf")" = "%PDF-" ] || fail "r.pdf is not a PDF"
report --db "$db" --sweep 1 --report "$work/r.html" > /dev/null 2> "$work/html.err" \
  || fail "--report .html exited $?: $(cat "$work/html.err")"
charts=$(grep -o '<img src="data:image/png;base64,' "$work/r.html" | wc -l)
[ "$charts" -eq 3 ] || fail "the HTML has 3 charts, not $charts"
# One image XObject per chart (opaque charts have no soft mask to count twice).
images=$(grep -ac '/Subtype /Image' "$work/r.pdf" || true)
[ "$images" -eq "$charts" ] || fail "the PDF has $images images, the HTML $charts charts"
grep -q "H200 native b32 caches both, ledger order" "$work/r.html" || fail "the HTML names the sweep"
# Every configuration of the sweep is a row (its label: the knobs, after the shape).
while read -r config; do
  label=${config##* }
  grep -qF ">$label<" "$work/r.html" || fail "the HTML has no row $label"
done < <(sqlite3 "$db" "SELECT DISTINCT config_name FROM runs WHERE sweep_id = 1")

# Without --sweep: the latest.
latest=$(sqlite3 "$db" "SELECT id FROM sweeps ORDER BY created DESC, id DESC LIMIT 1")
report --db "$db" --report "$work/latest.md" > "$work/md.out" 2>/dev/null || fail "--report .md exited $?"
grep -q "Report of sweep $latest written" "$work/md.out" || fail "the latest sweep: $(cat "$work/md.out")"

# Refused, with the reason, a non-zero exit and no file: an unknown suffix, the database itself
# or its side file under any suffix, an unknown sweep, a folder that is not there.
refused() { # expected words, then the arguments
  local words=$1
  shift
  if report --db "$db" "$@" > /dev/null 2> "$work/refused.err"; then
    fail "$* was written"
  fi
  grep -q "$words" "$work/refused.err" || fail "$*: $(cat "$work/refused.err")"
}
refused "use .html, .pdf, .md or .csv" --report "$work/r.txt"
refused "would destroy the measurements" --report "$db"
refused "would destroy the measurements" --report "$db-wal"
refused "no sweep 99 in" --sweep 99 --report "$work/r99.pdf"
refused "is not a sweep number" --sweep abc --report "$work/abc.pdf"
refused "may not exist or may not be writable" --report "$work/no-such-folder/r.pdf"
refused "leave out --start" --start --report "$work/start.pdf"
for f in r.txt r99.pdf abc.pdf start.pdf no-such-folder; do
  [ ! -e "$work/$f" ] || fail "$f was left behind"
done
# --compare A,B: the Compare page's report, here across two files (sweep B from --compare-db).
ledger=$work/ledger.sqlite
cp "$2/docs/results/h200-ledger.sqlite" "$ledger"
chmod u+w "$ledger"
# Three times: the page's reader thread once closed its reader after the program had ended, and
# left the -wal and -shm it had made beside the file about every other time.
for n in 1 2 3; do
  report --db "$db" --compare 1,2 --compare-db "$ledger" --report "$work/cmp$n.pdf" > "$work/cmp.out" 2> "$work/cmp.err" \
    || fail "--compare --report .pdf exited $?: $(cat "$work/cmp.err")"
  for side in -wal -shm; do
    [ ! -e "$db$side" ] && [ ! -e "$ledger$side" ] || fail "the comparison left a $side file behind (run $n)"
  done
done
grep -q "Comparison of sweep 1 with sweep 2 written to $work/cmp3.pdf" "$work/cmp.out" || fail "says where: $(cat "$work/cmp.out")"
[ "$(head -c 5 "$work/cmp1.pdf")" = "%PDF-" ] || fail "cmp1.pdf is not a PDF"
report --db "$db" --compare 1,2 --compare-db "$ledger" --report "$work/cmp.html" > /dev/null 2>&1 || fail "--compare .html"
grep -q "H200 native b32 caches both, ledger order" "$work/cmp.html" && grep -q "H200 ledger b128" "$work/cmp.html" \
  || fail "the comparison names both sweeps"
grep -q "data:image/svg+xml;base64," "$work/cmp.html" || fail "the comparison has its chart"
refused "no sweep 9 in" --compare 1,9 --report "$work/cmp9.pdf"
refused "would destroy the measurements" --compare 1,2 --compare-db "$ledger" --report "$ledger"
refused "is not two sweep numbers" --compare 1 --report "$work/cmp1x.pdf"
refused "not both" --compare 1,2 --sweep 1 --report "$work/both.pdf"
[ ! -e "$work/cmp9.pdf" ] && [ ! -e "$work/cmp1x.pdf" ] && [ ! -e "$work/both.pdf" ] || fail "a refused comparison left a file"

[ "$(sha256sum < "$db")" = "$before" ] || fail "the database changed"
for side in -wal -shm -journal; do
  [ ! -e "$db$side" ] || fail "the report left $db$side behind"
done
echo "cli_report: ok"
