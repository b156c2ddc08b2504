#!/usr/bin/env bash
# The command line itself (issue 10): every command answers --help and refuses unknown options with
# exit 2; `list --sweep N` lists that sweep alone; the bash completion and the manual page carry every
# option; the dashboard answers --help and --version without a display; progress through a pipe is
# whole lines, on a terminal one line redrawn in place.
#   cli_args.sh BIN_DIR
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh" "$1"
commands=(run list show export compare doctor setup)
# The options a command's --help lists (the option column, not options named in descriptions).
options_of() { cli "$1" --help | grep -oE '^  (-h, )?--[a-z0-9-]+' | grep -oE -- '--[a-z0-9-]+'; }
# Whether a line of $2 is exactly $1 (a here-string: `| grep -q` would end a producer early, and
# pipefail would take its SIGPIPE for a failure).
has_line() { grep -qx -- "$1" <<< "$2"; }

# --help: exit 0, usage on stdout, nothing on stderr.
for c in "${commands[@]}" help completion man; do
  cli "$c" --help > "$work/help.out" 2> "$work/help.err"; rc=$?
  [ $rc = 0 ] || fail "$c --help must exit 0, got $rc: $(cat "$work/help.err")"
  grep -q "^usage: stepscope-cli $c" "$work/help.out" || fail "$c --help prints its usage: $(head -3 "$work/help.out")"
  [ -s "$work/help.err" ] && fail "$c --help wrote to stderr: $(cat "$work/help.err")"
  cli "$c" -h | cmp -s - "$work/help.out" || fail "$c -h differs from $c --help"
  cli help "$c" | cmp -s - "$work/help.out" || fail "help $c differs from $c --help"
done
has_line --image-size "$(options_of run)" || fail "run --help lists the configuration flags"
has_line --planned-steps "$(options_of export)" || fail "export --help lists --planned-steps"
for a in --help -h help; do
  cli $a > "$work/top.out" 2>&1 || fail "stepscope-cli $a must exit 0"
  grep -q "^usage: stepscope-cli" "$work/top.out" && grep -q -- "--image-size" "$work/top.out" \
    || fail "stepscope-cli $a prints the overview with every option"
done
[[ "$(cli --version)" =~ ^stepscope-cli\ [0-9]+\.[0-9]+\.[0-9]+$ ]] || fail "--version: $(cli --version 2>&1)"

# Unknown options: exit 2, named, with the command's --help; nothing is created.
db=$work/none.sqlite
for c in "${commands[@]}"; do
  cli --db "$db" "$c" --bogus 2> "$work/bad.err"; rc=$?
  [ $rc = 2 ] || fail "$c --bogus must exit 2, got $rc"
  grep -q -- "unknown option '--bogus'" "$work/bad.err" && grep -q "stepscope-cli $c --help" "$work/bad.err" \
    || fail "$c --bogus names the option and the help: $(cat "$work/bad.err")"
done
# A slip of a few letters gets the option it was meant to be; a name far from all gets none.
cli --db "$db" export --formt csv 2> "$work/bad.err"; rc=$?
[ $rc = 2 ] && grep -q -- "unknown option '--formt' (did you mean '--format'?)" "$work/bad.err" \
  || fail "a mistyped option is suggested: $rc $(cat "$work/bad.err")"
cli --db "$db" run --profile-step 3 2> "$work/bad.err"; rc=$?
[ $rc = 2 ] && grep -q -- "(did you mean '--profile-steps'?)" "$work/bad.err" || fail "--profile-step: $(cat "$work/bad.err")"
cli --db "$db" run --zzzzzzzz 2> "$work/bad.err"; rc=$?
[ $rc = 2 ] && ! grep -q "did you mean" "$work/bad.err" || fail "no suggestion for a name far from all: $(cat "$work/bad.err")"
cli --bogus list 2> "$work/bad.err"; rc=$?
[ $rc = 2 ] && grep -q -- "'--bogus'" "$work/bad.err" || fail "an unknown option before the command: $rc $(cat "$work/bad.err")"
cli --db "$db" run --device cpu --name 2> "$work/bad.err"; rc=$?
[ $rc = 2 ] && grep -q -- "--name needs a value" "$work/bad.err" || fail "run --name without a value: $rc $(cat "$work/bad.err")"
cli --db "$db" show 1 2 2> "$work/bad.err"; rc=$?
[ $rc = 2 ] && grep -q "unexpected argument '2'" "$work/bad.err" || fail "show 1 2: $rc $(cat "$work/bad.err")"
cli frobnicate 2> /dev/null; [ $? = 2 ] || fail "an unknown command exits 2"
cli completion zsh 2> /dev/null; [ $? = 2 ] || fail "completion of another shell exits 2"
[ -e "$db" ] && fail "a refused command created the database"

# list --sweep N: that sweep alone (a stand-in worker that fails at once makes the sweeps quickly).
db=$work/two.sqlite
for name in first second; do
  STEPSCOPE_NATIVE_WORKER=/bin/false cli --db "$db" run --device cpu --single --name "$name" > /dev/null 2>&1
  [ $? = 1 ] || fail "a sweep whose worker fails exits 1"
done
cli --db "$db" list > "$work/list.txt" || fail "list"
[ "$(grep -c '^sweep ' "$work/list.txt")" = 2 ] || fail "list shows both sweeps: $(cat "$work/list.txt")"
cli --db "$db" list --sweep 1 > "$work/list1.txt" || fail "list --sweep 1"
grep -q "^sweep 1 .* first " "$work/list1.txt" || fail "list --sweep 1 lists sweep 1: $(cat "$work/list1.txt")"
[ "$(grep -c '^sweep ' "$work/list1.txt")" = 1 ] || fail "list --sweep 1 lists only sweep 1: $(cat "$work/list1.txt")"
[ "$(grep -c '^  run ' "$work/list1.txt")" = 1 ] || fail "list --sweep 1 lists only its run"
cli --db "$db" list --sweep=2 > "$work/list2.txt" && grep -q "^sweep 2 .* second " "$work/list2.txt" || fail "list --sweep=2"
for bad in 3 abc 0; do
  cli --db "$db" list --sweep "$bad" > /dev/null 2> "$work/bad.err"; rc=$?
  [ $rc = 2 ] || fail "list --sweep $bad must exit 2, got $rc"
done

# The bash completion offers every option of every command, and the values of the options with choices.
cli completion bash > "$work/completion.bash" || fail "completion bash"
complete_line() { # the words of a command line, the last one being completed
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _stepscope_cli; printf "%s\n" "${COMPREPLY[@]}"' \
    _ "$work/completion.bash" stepscope-cli "$@" 2> /dev/null
}
for c in "${commands[@]}"; do
  complete_line "$c" -- > "$work/offered.txt"
  for o in $(options_of "$c"); do
    grep -qx -- "$o" "$work/offered.txt" || fail "the completion of '$c --' lacks $o"
  done
done
[ "$(options_of run | wc -l)" -ge 30 ] || fail "run --help lists fewer options than the configuration table has"
has_line export "$(complete_line "")" || fail "the completion offers the commands"
[ "$(complete_line export --format "" | sort | tr '\n' ' ')" = "csv json markdown " ] || fail "export --format values"
has_line each "$(complete_line run --preset "")" || fail "run --preset values"
has_line aot_eager "$(complete_line run --compile-backend "")" || fail "run --compile-backend values"
has_line false "$(complete_line run --tf32 "")" || fail "a knob's optional value"
has_line --sweep "$(complete_line --db x list --sw)" || fail "the command is found after --db FILE"
generated=$bin/../share/bash-completion/completions/stepscope-cli
if [ -e "$generated" ]; then
  cmp -s "$generated" "$work/completion.bash" || fail "the built completion file is not what the CLI prints"
fi

# The manual page names every command and every option, and is valid roff.
cli man > "$work/stepscope-cli.1" || fail "man"
sed 's/\\-/-/g' "$work/stepscope-cli.1" > "$work/man.txt"
for c in "${commands[@]}" help completion man; do
  grep -q "^\.SS \"$c" "$work/man.txt" || fail "the manual page has no section for $c"
  for o in $(options_of "$c"); do
    grep -qE -- "^(\\\\fB-h\\\\fR, )?\\\\fB$o\\\\fR" "$work/man.txt" || fail "the manual page lacks $c's $o"
  done
done
grep -q "version" "$work/man.txt" || fail "the manual page names --version"
if command -v groff > /dev/null; then
  warnings=$(groff -man -Tutf8 -ww -z "$work/stepscope-cli.1" 2>&1)
  [ -z "$warnings" ] || fail "groff warns about the manual page: $warnings"
fi
generated=$bin/../share/man/man1/stepscope-cli.1
if [ -e "$generated" ]; then
  cmp -s "$generated" "$work/stepscope-cli.1" || fail "the built manual page is not what the CLI prints"
fi

# The dashboard: --help and --version without a display.
if [ -x "$bin/stepscope" ]; then
  env -u DISPLAY -u WAYLAND_DISPLAY QT_QPA_PLATFORM= "$bin/stepscope" --help > "$work/gui.out" 2> "$work/gui.err"; rc=$?
  [ $rc = 0 ] || fail "stepscope --help without a display must exit 0, got $rc: $(head -3 "$work/gui.err")"
  grep -q "^Usage: " "$work/gui.out" && grep -q -- "--screenshots" "$work/gui.out" || fail "stepscope --help: $(cat "$work/gui.out")"
  env -u DISPLAY -u WAYLAND_DISPLAY QT_QPA_PLATFORM= "$bin/stepscope" --version > "$work/gui.out" 2>&1; rc=$?
  [ $rc = 0 ] && grep -Eq "^stepscope [0-9]+\.[0-9]+" "$work/gui.out" || fail "stepscope --version: $rc $(cat "$work/gui.out")"
fi

# Progress. Through a pipe: whole lines only, no carriage return or terminal escape.
tiny+=(--single --steps 20 --warmup-steps 0)
cli --db "$work/p.sqlite" run "${tiny[@]}" 2>&1 > /dev/null | cat > "$work/pipe.err"
[ "${PIPESTATUS[0]}" = 0 ] || fail "a tiny run through a pipe: $(tail -3 "$work/pipe.err")"
grep -q ": first step " "$work/pipe.err" && grep -q ": complete (run 1)" "$work/pipe.err" || fail "pipe: $(cat "$work/pipe.err")"
grep -q $'\r' "$work/pipe.err" && fail "progress through a pipe wrote a carriage return: $(cat -A "$work/pipe.err")"
grep -q $'\e' "$work/pipe.err" && fail "progress through a pipe wrote a terminal escape: $(cat -A "$work/pipe.err")"

# On a terminal (a pty from util-linux script, 40 columns): the progress line is redrawn in place,
# never wider than the terminal (a wrapped line cannot be redrawn), and cleared before any other
# message, which then starts a line of its own.
if script -qec true /dev/null > /dev/null 2>&1; then
  script -qec "stty cols 40; '$bin/stepscope-cli' --db '$work/t.sqlite' run ${tiny[*]} > /dev/null" /dev/null \
    > "$work/tty.out" 2>&1 || fail "a tiny run on a terminal: $(cat -A "$work/tty.out" | tail -3)"
  python3 - "$work/tty.out" << 'PY' || fail "terminal progress: $(cat -A "$work/tty.out")"
import re, sys
out = open(sys.argv[1], "rb").read().decode()
redraws = re.findall(r"\r([^\r\n\x1b]*step \d+/\d+)\x1b\[K", out)
assert redraws, "no progress line redrawn in place"
assert all(len(r) < 40 for r in redraws), [r for r in redraws if len(r) >= 40]
seen = 0
for line in out.replace("\r\n", "\n").split("\n"):
    # What the terminal shows of a line: what follows its last carriage return, less the clears.
    shown = line.split("\r")[-1].replace("\x1b[K", "")
    if ": first step " in shown or ": complete (run 1)" in shown:
        seen += 1
        assert shown.startswith("[1/1] ") and not re.search(r"step \d+/\d+.*:", shown), repr(line)
        assert line == shown or line.endswith("\r\x1b[K" + shown), "not cleared first: " + repr(line)
assert seen == 2, seen
PY
fi

# run --dry-run (issue 29.1): the configurations on stdout, one a line, and nothing written; --knobs
# chooses a preset's knobs, and an unknown one is refused with the known ones before anything runs.
dry=$work/dry.sqlite
shape=(--device cpu --batch 2 --image-size 32)
out=$(cli --db "$dry" run --dry-run "${shape[@]}" --preset combinations --knobs bf16,channels-last 2> "$work/dry.err") ||
  fail "run --dry-run failed: $(cat "$work/dry.err")"
[ "$(wc -l <<< "$out")" = 4 ] || fail "2 knobs combine into 4 rows, the dry run said: $out"
has_line "native cpu b2 32px c1000 bf16+channels-last" "$out" || fail "no combined row in: $out"
grep -q "dry run: 4 configuration(s) x 1 repeat(s)" "$work/dry.err" || fail "no plan line: $(cat "$work/dry.err")"
[ -e "$dry" ] && fail "run --dry-run created the database"
cli --db "$dry" run --dry-run "${shape[@]}" --preset each --knobs bf16,turbo > /dev/null 2> "$work/knob.err"; rc=$?
[ $rc = 2 ] || fail "an unknown knob must exit 2, got $rc"
grep -q "'turbo' is no knob; the knobs are tf32, " "$work/knob.err" || fail "unknown knob not named: $(cat "$work/knob.err")"
cli --db "$dry" run --dry-run "${shape[@]}" --preset combinations > /dev/null 2> "$work/knob.err" &&
  fail "combinations without --knobs was accepted"
grep -q "add e.g. --knobs" "$work/knob.err" || fail "combinations without knobs says no fix: $(cat "$work/knob.err")"

# Every comma list has one grammar (issue 34.10): an empty item, an item with blanks around it and an
# item named twice are refused with exit 2, the flag and the bad item named, before anything runs.
refused_list() { # EXPECTED-MESSAGE ARGS...
  local want=$1; shift
  cli --db "$dry" run --dry-run "${shape[@]}" "$@" > /dev/null 2> "$work/list.err"; local rc=$?
  [ $rc = 2 ] || fail "run $* must exit 2, got $rc: $(cat "$work/list.err")"
  grep -qF -- "$want" "$work/list.err" || fail "run $*: no '$want' in: $(cat "$work/list.err")"
}
refused_list "--devices: the list is empty" --single --devices ""
refused_list "--devices: item 2 of 'cpu:0,,cpu:1' is empty (a comma too many); write cpu:0,cpu:1" \
  --single --devices cpu:0,,cpu:1
refused_list "--devices: ' cpu:0' has blanks around it; write cpu:0" --single --devices " cpu:0"
refused_list "--devices: item 2 of 'cpu:0,' is empty" --single --devices cpu:0,
refused_list "--world-sizes: 2 is named twice" --single --runtime python --world-sizes 2,2
refused_list "--batch: 2 is named twice" --single --batch 2,2
refused_list "--batch: 4 is named twice ('04')" --single --batch 4,04
refused_list "--batch: item 2 of '2,' is empty" --single --batch 2,
refused_list "--start: fresh is named twice" --single --start fresh,fresh
refused_list "--start: item 2 of 'fresh,,again' is empty" --single --start fresh,,again
refused_list "--knobs: bf16 is named twice" --preset each --knobs bf16,bf16
refused_list "--knobs: ' tf32' has blanks around it; write bf16,tf32" --preset each --knobs "bf16, tf32"
[ -e "$dry" ] && fail "a refused list created the database"
# DDP runs only in the Python worker, unpinned: a runtime switched is said, one asked for natively and
# an affinity that would be dropped are refused.
cli --db "$dry" run --dry-run "${shape[@]}" --single --world-sizes 1,2 > "$work/ddp.out" 2> "$work/ddp.err" ||
  fail "--world-sizes 1,2 failed: $(cat "$work/ddp.err")"
grep -q "^stepscope-cli: --world-sizes 2 runs in the Python worker: " "$work/ddp.err" ||
  fail "the switch to the Python worker was not said: $(cat "$work/ddp.err")"
refused_list "--runtime native: --world-sizes 2 runs DDP, which only the Python worker runs" \
  --single --runtime native --world-sizes 1,2
refused_list "--cpu-affinity 0: --world-sizes 2 runs unpinned" --single --world-sizes 2 --cpu-affinity 0
# A preset's pinned rows lose their pinning under DDP: said, with their names (a flag was refused).
cli --db "$dry" run --dry-run "${shape[@]}" --preset each --knobs pin-one-core --world-sizes 1,2 > /dev/null \
  2> "$work/pin.err" || fail "a pinned preset row with --world-sizes 1,2 failed: $(cat "$work/pin.err")"
grep -q "^stepscope-cli: --world-sizes 2 runs unpinned, since every rank would pin itself to the same cores: .*pin-one-core" \
  "$work/pin.err" || fail "the dropped pinning was not said: $(cat "$work/pin.err")"
refused_list "is not a core list: core 3 is named twice" --single --cpu-affinity 3,3
# A write error on standard output is an error, --help's too; an empty --out is no file name.
cli run --help > /dev/full 2> "$work/full.err" && fail "run --help > /dev/full exited 0"
grep -q "could not write to standard output" "$work/full.err" || fail "run --help > /dev/full said: $(cat "$work/full.err")"
cli --db "$dry" export --out "" > "$work/out.out" 2> "$work/out.err"; rc=$?
[ $rc = 2 ] && grep -q -- "--out is empty" "$work/out.err" || fail "export --out '' must exit 2: $rc $(cat "$work/out.err")"
[ -s "$work/out.out" ] && fail "export --out '' wrote to standard output"

echo "cli args: ok"
