# What the CLI tests share. Each test sources it first, with the build's bin/ folder:
#   . "$(dirname "${BASH_SOURCE[0]}")/common.sh" "$1"
# It sets bin, work (a temporary folder, removed at exit), fail, cli (the CLI itself), count and
# wait_for_steps (for a database a sweep is writing), and tiny (the CPU shape of every test run).
bin=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cli() { "$bin/stepscope-cli" "$@"; }
# What a query answers, 0 while the database cannot answer (not there yet, being written).
count() { sqlite3 "$1" "$2" 2>/dev/null || echo 0; }
# count() reads 0 while the database is not there yet; a sqlite3 command that cannot run at all
# (on one GPU machine a Debian sqlite3 shell refused the system's newer library) must fail here, not
# read as "no steps" after a minute of waiting.
sqlite3 :memory: "SELECT 1" > /dev/null || fail "the sqlite3 command does not run here"
# Waits up to 60 s for the database $1 to hold at least $2 steps, and prints how many it holds.
wait_for_steps() {
  local n
  for _ in $(seq 1 600); do
    n=$(count "$1" "SELECT COUNT(*) FROM steps")
    [ "${n:-0}" -ge "$2" ] && { echo "$n"; return 0; }
    sleep 0.1
  done
  return 1
}
# Batch 2 of 32x32 images on the CPU; each test adds its steps.
tiny=(--device cpu --batch 2 --image-size 32)
