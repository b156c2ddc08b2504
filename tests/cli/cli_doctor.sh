#!/usr/bin/env bash
# `doctor` reads the GPU the way a run would (driver, clocks, throttling from the native worker's
# --probe) and judges it: a throttled GPU is a warning with its fix, an idle one is fine. Stand-in
# workers answer for a GPU this machine does not have; the stand-in Python answers the question where
# its torch is with the real one's answer (PYTHON: the interpreter that holds the build's torch).
#   cli_doctor.sh BIN_DIR PYTHON
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh" "$1"
py=$2

native() { # $1: throttle reasons
  cat > "$work/native" <<SH
#!/bin/sh
case "\$1" in
  --cuda-devices) echo 1 ;;
  --probe) echo '{"type":"hello","protocol":1,"env":{"driver":"580.159.04","cuda_driver_api":"13.0.0","cuda_runtime":"13.0.0","cudnn":"9.19.0","before_sm_clock_mhz":"1410","before_sm_clock_max_mhz":"1980","before_temperature_c":"87","before_throttle_reasons":"$1"}}' ;;
esac
SH
  chmod +x "$work/native"
}
cat > "$work/python" <<SH
#!/bin/sh
[ "\$1" = -c ] && exec "$py" "\$@"
echo '{"type":"doctor","item":"torch","status":"ok","value":"2.11.0+cu130","fix":""}'
SH
chmod +x "$work/python"

native sw-thermal-slowdown
rc=0
STEPSCOPE_NATIVE_WORKER=$work/native "$bin/stepscope-cli" doctor --device cuda --python "$work/python" \
  > "$work/hot.txt" 2>&1 || rc=$?
[ "$rc" = 0 ] || fail "warnings alone must exit 0, got $rc: $(cat "$work/hot.txt")"
grep -Eq "^ok +driver +580\.159\.04 \(CUDA driver API 13\.0\.0\)" "$work/hot.txt" || fail "driver line: $(cat "$work/hot.txt")"
grep -Eq "^warn +gpu clocks +SM 1410 of 1980 MHz, 87 C, throttle reasons: sw-thermal-slowdown" "$work/hot.txt" \
  || fail "a throttled GPU must warn: $(cat "$work/hot.txt")"
grep -q "fix: The GPU is held back" "$work/hot.txt" || fail "the throttle warning carries its fix"
grep -Eq "^ok +torch +2\.11\.0\+cu130" "$work/hot.txt" || fail "the Python worker's lines are in the table"
# Which Python and which LibTorch, and why those (issue 20).
grep -Eq "^ok +python +$work/python \(--python / settings\)" "$work/hot.txt" || fail "python line: $(cat "$work/hot.txt")"
grep -Eq "^ok +libtorch +/.*/torch/lib \(torch [0-9]" "$work/hot.txt" || fail "libtorch line: $(cat "$work/hot.txt")"
# How long the Python side (its tiny torch.compile) may take is said before the wait, and how long it
# took after it (issue 19.9).
grep -q "tiny torch.compile, 5 s to a minute or two on a cold start (stopped after 3 min)" "$work/hot.txt" \
  || fail "doctor says up front how long its compile check takes: $(cat "$work/hot.txt")"
grep -Eq "the Python worker answered in [0-9]+\.[0-9] s$" "$work/hot.txt" \
  || fail "doctor says how long its compile check took: $(cat "$work/hot.txt")"

native idle
STEPSCOPE_NATIVE_WORKER=$work/native "$bin/stepscope-cli" doctor --device cuda --python "$work/python" > "$work/idle.txt" 2>&1 \
  || fail "idle GPU: $(cat "$work/idle.txt")"
grep -Eq "^ok +gpu clocks .*throttle reasons: idle" "$work/idle.txt" || fail "an idle GPU is fine: $(cat "$work/idle.txt")"

# A Python doctor that reports a failure makes the exit code 1.
echo 'echo "{\"type\":\"doctor\",\"item\":\"triton\",\"status\":\"fail\",\"value\":\"3.1.0\",\"fix\":\"pip install triton==3.6.0\"}"' >> "$work/python"
rc=0
STEPSCOPE_NATIVE_WORKER=$work/native "$bin/stepscope-cli" doctor --device cuda --python "$work/python" > "$work/bad.txt" 2>&1 || rc=$?
[ "$rc" = 1 ] || fail "a fail line must exit 1, got $rc"
grep -q "fix: pip install triton==3.6.0" "$work/bad.txt" || fail "the fail line shows its fix"

# A Python whose torch is another release: doctor fails, names both and says how to get the right one.
mkdir -p "$work/site/torch/lib"
echo "__version__ = '1.0.0+cpu'" > "$work/site/torch/version.py"
printf '#!/bin/sh\necho "%s"\n' "$work/site/torch" > "$work/oldpython"
chmod +x "$work/oldpython"
rc=0
STEPSCOPE_NATIVE_WORKER=$work/native "$bin/stepscope-cli" doctor --device cuda --python "$work/oldpython" \
  > "$work/old.txt" 2>&1 || rc=$?
[ "$rc" = 1 ] || fail "another torch must exit 1, got $rc: $(cat "$work/old.txt")"
grep -Eq "^fail +libtorch +.*has torch 1\.0\.0\+cpu, but the native worker was built for torch [0-9]" "$work/old.txt" \
  || fail "the mismatch names both versions: $(cat "$work/old.txt")"
grep -q "fix: Run \`stepscope-cli setup\`" "$work/old.txt" || fail "the mismatch says the fix: $(cat "$work/old.txt")"
grep -Eq "^fail +native worker +not started" "$work/old.txt" || fail "no native worker on another torch: $(cat "$work/old.txt")"
echo "doctor judges the GPU and the Python side"
