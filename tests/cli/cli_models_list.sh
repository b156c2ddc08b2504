#!/usr/bin/env bash
# `stepscope-cli models` (issue 30): what --model can name with a Python, from the Python worker's
# listing: torchvision, timm and transformers names under their versions, a filter that narrows them,
# JSON that parses, and for a Python without timm the missing library with the pip command that
# installs it, exit 1.
#   cli_models_list.sh BIN_DIR PYTHON
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh" "$1"
py=$2

cli models --python "$py" > "$work/all.txt" 2> "$work/all.err" || fail "models exited $?: $(cat "$work/all.err")"
for name in torchvision:resnet50 timm:test_vit hf:gpt2; do
  grep -qx "  $name" "$work/all.txt" || fail "$name is not listed: $(head -5 "$work/all.txt")"
done
grep -q "^resnet18: built in" "$work/all.txt" || fail "the built-in model is not listed first"
grep -Eq "^timm 1\.[0-9.]+: [0-9]+ models$" "$work/all.txt" || fail "timm's heading with its version: $(grep ^timm "$work/all.txt")"
grep -q "^transformers [0-9]" "$work/all.txt" || fail "transformers' heading"
# Detection models are no classifiers: the image workload cannot train them.
! grep -q "torchvision:fasterrcnn" "$work/all.txt" || fail "torchvision's detection models are listed"

# A filter, as an argument or as --filter: only names that hold it, any case.
cli models VIT --python "$py" > "$work/vit.txt" 2> /dev/null || fail "models VIT failed"
grep -qx "  timm:test_vit" "$work/vit.txt" || fail "the filter lost timm:test_vit"
grep -qx "  hf:vit" "$work/vit.txt" || fail "the filter lost hf:vit"
! grep -qx "  hf:gpt2" "$work/vit.txt" || fail "the filter kept hf:gpt2"
! grep -q "^resnet18" "$work/vit.txt" || fail "the filter kept resnet18"
grep -q "of [0-9]* models match 'VIT'" "$work/vit.txt" || fail "the heading says how many match: $(head -3 "$work/vit.txt")"
cli models --filter gpt2 --python "$py" > "$work/gpt.txt" 2> /dev/null || fail "models --filter failed"
[ "$(grep -c '^  ' "$work/gpt.txt")" -ge 1 ] && ! grep -q "^  timm:" "$work/gpt.txt" || fail "--filter gpt2: $(cat "$work/gpt.txt")"
rc=0
cli models vit --filter vit --python "$py" > /dev/null 2> "$work/twice.err" || rc=$?
[ "$rc" = 2 ] || fail "a filter given twice: exit 2 expected, got $rc"

# JSON for tools: it parses, and holds the same names.
cli models --json --filter test_vit --python "$py" > "$work/models.json" 2> "$work/json.err" || fail "--json failed: $(cat "$work/json.err")"
[ ! -s "$work/json.err" ] || fail "--json wrote to stderr: $(cat "$work/json.err")"
"$py" - "$work/models.json" <<'PY' || fail "the JSON: $(head -c 600 "$work/models.json")"
import json, sys
doc = json.load(open(sys.argv[1]))
libraries = {entry["library"]: entry for entry in doc["libraries"]}
assert doc["filter"] == "test_vit" and doc["python"], doc
assert "timm:test_vit" in libraries["timm"]["models"], libraries["timm"]
assert libraries["timm"]["total"] > len(libraries["timm"]["models"]) and libraries["timm"]["version"], libraries["timm"]
assert libraries["transformers"]["models"] == [] and libraries["transformers"]["prefix"] == "hf", libraries["transformers"]
PY

# A Python without timm: a stand-in that runs the real one with a timm that cannot be imported.
mkdir -p "$work/no-timm"
echo 'raise ModuleNotFoundError("No module named '"'timm'"'", name="timm")' > "$work/no-timm/timm.py"
cat > "$work/python-without-timm" <<SH
#!/bin/sh
PYTHONPATH="$work/no-timm\${PYTHONPATH:+:\$PYTHONPATH}" exec "$py" "\$@"
SH
chmod +x "$work/python-without-timm"
rc=0
cli models --python "$work/python-without-timm" > "$work/no-timm.txt" 2> "$work/no-timm.err" || rc=$?
[ "$rc" = 1 ] || fail "a missing library: exit 1 expected, got $rc"
# The command names the interpreter itself (sys.executable: the stand-in runs the real one).
grep -q "^timm: missing (ModuleNotFoundError: No module named 'timm'); install it into this Python: $py -m pip install timm\$" "$work/no-timm.txt" \
  || fail "the missing library and its pip command: $(grep timm "$work/no-timm.txt" | head -3)"
grep -qx "  torchvision:resnet50" "$work/no-timm.txt" || fail "the libraries that are there are still listed"
rc=0
cli models --json --python "$work/python-without-timm" > "$work/no-timm.json" 2> /dev/null || rc=$?
[ "$rc" = 1 ] || fail "--json with a missing library: exit 1 expected, got $rc"
"$py" -c 'import json, sys; t = [l for l in json.load(open(sys.argv[1]))["libraries"] if l["library"] == "timm"][0]; assert "missing" in t and t["install"].endswith("pip install timm"), t' \
  "$work/no-timm.json" || fail "the JSON names the missing library: $(cat "$work/no-timm.json")"

# A Python without torch lists nothing, and says why.
cat > "$work/python-without-torch" <<SH
#!/bin/sh
exec "$py" -I -S "\$@"
SH
chmod +x "$work/python-without-torch"
rc=0
cli models --python "$work/python-without-torch" > /dev/null 2> "$work/no-torch.err" || rc=$?
[ "$rc" = 1 ] || fail "no torch: exit 1 expected, got $rc"
grep -q "torch cannot be imported" "$work/no-torch.err" || fail "no torch is said: $(cat "$work/no-torch.err")"
grep -q "^fix: " "$work/no-torch.err" || fail "no torch comes with its fix: $(cat "$work/no-torch.err")"
echo "cli_models_list: ok"
