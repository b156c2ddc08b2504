#!/usr/bin/env bash
# Exports and `show` under a decimal-comma locale: CSV fields must not split at a decimal comma,
# JSON must parse, Markdown must read "14.21 ms". The locale is compiled into a temporary folder
# (localedef), so the test needs no root and no locales-all.
#   cli_locale.sh BIN_DIR SOURCE_DIR
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh" "$1"
src=$2

localedef -i de_DE -f UTF-8 "$work/de_DE.UTF-8" 2>/dev/null || [ -d "$work/de_DE.UTF-8" ] || fail "localedef could not build de_DE.UTF-8"
de=(env LOCPATH="$work" LC_ALL=de_DE.UTF-8 LANG=de_DE.UTF-8)
# The locale really has a decimal comma here (the test would prove nothing otherwise).
[ "$("${de[@]}" python3 -c 'import locale; locale.setlocale(locale.LC_ALL, ""); print(locale.localeconv()["decimal_point"])')" = "," ] \
  || fail "de_DE.UTF-8 did not take effect"

cp "$src/docs/results/h200-compile-b32.sqlite" "$work/m.sqlite"
cli() { "${de[@]}" "$bin/stepscope-cli" --db "$work/m.sqlite" "$@"; }
cli export --format json > "$work/l.json"
cli export --format csv > "$work/l.csv"
cli export --format markdown > "$work/l.md"
cli show 9 > "$work/show.txt"

python3 - "$work" <<'PY' || fail "exports under de_DE"
import csv, json, sys
w = sys.argv[1]
d = json.load(open(f"{w}/l.json"))  # a decimal comma would make this invalid JSON
rows = d["rows"]
assert len(rows) == 10, len(rows)  # the older file's warm-cache row is its twin's again start
assert abs(rows[0]["steady_ms"] - 14.213) < 0.01, rows[0]["steady_ms"]
table = list(csv.reader(open(f"{w}/l.csv")))
header = table[0]
assert all(len(r) == len(header) for r in table), [len(r) for r in table]
for r in table[1:]:
    row = dict(zip(header, r))
    float(row["steady_ms"])  # "14,2133" would not parse
    if row["speedup_ci_low"]:
        lo, s, hi = float(row["speedup_ci_low"]), float(row["speedup"]), float(row["speedup_ci_high"])
        assert lo <= s * 1.0001 and s <= hi * 1.0001, (row["configuration"], lo, s, hi)
md = open(f"{w}/l.md").read()
assert "14.21 ms" in md and "14,21 ms" not in md, md[:500]
PY
grep -q "first step: 21.00 s" "$work/show.txt" || fail "show under de_DE: $(grep 'first step' "$work/show.txt")"
echo "exports and show are locale-proof"
