#!/usr/bin/env bash
# A lane whose GPU goes away mid-sweep, through the CLI on a machine without a GPU. The native
# worker is a stand-in (STEPSCOPE_NATIVE_WORKER, as a build elsewhere would be): asked
# --cuda-devices it lists two GPUs of one model, as the real worker's probe does; on lane cuda:1 it
# fails cuda-unavailable, as a worker on a GPU that has gone does (stepscope-fake-worker
# --fail-on-lane); on cuda:0 it runs the real worker on the CPU. What must hold: the CLI says the
# lane retired and the run queued again, cuda:0 still completes every planned run, and the exit
# code is that of a sweep with a failed run.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh" "$1"
db=$work/lanes.sqlite

cat > "$work/two-gpus" <<EOF
#!/usr/bin/env bash
if [ "\${1:-}" = --cuda-devices ]; then
  printf '2\n0\tStand-in GPU\tGPU-stand-in-0\t00000000:01:00.0\t16384\n1\tStand-in GPU\tGPU-stand-in-1\t00000000:02:00.0\t16384\n'
  exit 0
fi
if [ "\${STEPSCOPE_LANE:-}" = cuda:1 ]; then
  exec "$bin/stepscope-fake-worker" --fail-on-lane cuda:1 "\$@"
fi
args=()
for a in "\$@"; do args+=("\${a//\"device\":\"cuda:0\"/\"device\":\"cpu\"}"); done
exec "$bin/stepscope-worker" "\${args[@]}"
EOF
chmod +x "$work/two-gpus"
export STEPSCOPE_NATIVE_WORKER=$work/two-gpus

# Two configurations (a batch scan), one each: cuda:0 takes batch 2, cuda:1 batch 4 and loses its
# GPU; batch 4 is queued again and runs on cuda:0.
rc=0
cli run --db "$db" --device cuda --single --batch 2,4 --image-size 32 --steps 4 --warmup-steps 1 \
  --start fresh --no-profile --devices cuda:0,cuda:1 > "$work/run.out" 2> "$work/run.err" || rc=$?
grep -q "2 lanes, one timed process on each at a time: cuda:0 (Stand-in GPU), cuda:1 (Stand-in GPU)" "$work/run.err" ||
  fail "the CLI did not take the stand-in's two GPUs as lanes: $(head -8 "$work/run.err")"
grep -q "lane cuda:1 retired: its run of .* failed .*cuda-unavailable.*it takes no more runs, the other lanes go on" \
  "$work/run.err" || fail "the retired lane was not said: $(cat "$work/run.err")"
grep -q "queued again for another lane: .*b4" "$work/run.err" ||
  fail "the lost run was not said to be queued again: $(cat "$work/run.err")"
# A sweep that finished with a failed run exits 1 (kRunsFailed): the failed row is the retired
# lane's, though its configuration did complete on cuda:0.
[ "$rc" = 1 ] || { cat "$work/run.err"; fail "expected exit code 1 (a run failed), got $rc"; }

sweep=$(count "$db" "SELECT MAX(id) FROM sweeps")
[ "$(count "$db" "SELECT status FROM sweeps WHERE id = $sweep")" = complete ] || fail "the sweep did not complete"
complete=$(count "$db" "SELECT COUNT(*) FROM runs WHERE sweep_id = $sweep AND status = 'complete'")
[ "$complete" = 2 ] || { sqlite3 "$db" "SELECT id, config_name, status, lane FROM runs"; fail "expected 2 complete runs, got $complete"; }
[ "$(count "$db" "SELECT COUNT(*) FROM runs WHERE sweep_id = $sweep AND status = 'complete' AND lane LIKE '%\"device\":\"cuda:0\"%'")" = 2 ] ||
  fail "not every complete run ran on cuda:0: $(sqlite3 "$db" "SELECT config_name, status, lane FROM runs")"
failed=$(count "$db" "SELECT COUNT(*) FROM runs WHERE sweep_id = $sweep AND status = 'failed' AND category = 'cuda-unavailable' AND lane LIKE '%\"device\":\"cuda:1\"%'")
[ "$failed" = 1 ] || fail "expected the one failed run on cuda:1, got $failed: $(sqlite3 "$db" "SELECT config_name, status, category, lane FROM runs")"
[ "$(count "$db" "SELECT COUNT(*) FROM runs WHERE sweep_id = $sweep")" = 3 ] || fail "a run too many or too few"
[ "$(count "$db" "SELECT COUNT(DISTINCT config_name) FROM runs WHERE sweep_id = $sweep AND status = 'complete'")" = 2 ] ||
  fail "each configuration should have completed once"
echo "PASS"
