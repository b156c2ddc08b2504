#include "cli_options.h"

#include "cli.h"

#include "common/measurement_defaults.h"
#include "config/presets.h"
#include "config/run_config.h"
#include "store/database_files.h"
#include "supervisor/start_caches.h"
#include "supervisor/managed_python.h"
#include "supervisor/setup_failure.h"
#include "supervisor/sweep_request.h"

#include <QCommandLineOption>
#include <QHash>
#include <QRegularExpression>

#include <algorithm>
#include <vector>

#include <cstdio>

namespace stepscope::cli
{
namespace
{

constexpr qsizetype kWidth = 100; // help text is wrapped at this width
constexpr qsizetype kColumn = 28; // where an option's description starts

OptionSpec option(const QString &name, const QString &valueName, const QString &help, ValueKind kind = ValueKind::Text,
                  const QStringList &choices = {})
{
    OptionSpec o;
    o.name = name;
    o.valueName = valueName;
    o.help = help;
    o.kind = valueName.isEmpty() ? ValueKind::None : kind;
    o.choices = choices;
    return o;
}

OptionSpec flag(const QString &name, const QString &help)
{
    return option(name, {}, help);
}

// A numeric option of the sweep service's table (supervisor/sweep_request.h): its help says what it
// is, then `more`, then the table's range and default, so --help can never disagree with the check.
OptionSpec limitOption(const supervisor::SweepLimit &limit, const QString &valueName, const QString &more = {})
{
    return option(limit.option, valueName,
                  QString::fromUtf8(limit.what) + more + " (" + QString::fromStdString(supervisor::limitRange(limit)) +
                      ")");
}

CommandSpec command(const QString &name, const QString &summary, const QString &description,
                    std::vector<std::pair<int, QString>> exitCodes, bool needsDatabase = false,
                    const QString &arguments = {}, int maxArguments = 0)
{
    CommandSpec c;
    c.name = name;
    c.arguments = arguments;
    c.maxArguments = maxArguments;
    c.needsDatabase = needsDatabase;
    c.summary = summary;
    c.description = description;
    c.exitCodes = std::move(exitCodes);
    return c;
}

QStringList toStrings(const std::vector<std::string> &list)
{
    QStringList out;
    for (const auto &s : list)
        out << QString::fromStdString(s);
    return out;
}

// The configuration flags, one per RunConfig key of config/run_config.cpp's table: --image-size
// sets "image_size". The literal values of its "allowed" column ("cpu|cuda|cuda:N" gives cpu and
// cuda) are what the completion offers; a knob alone (`--tf32`) means true.
std::vector<OptionSpec> configurationFlags()
{
    static const QRegularExpression literal("^[a-z0-9][a-z0-9_-]*$");
    std::vector<OptionSpec> out;
    for (const auto &f : fields()) {
        QStringList choices;
        for (const QString &v : QString(f.allowed).split('|'))
            if (literal.match(v).hasMatch())
                choices << v;
        OptionSpec o = option(QString(f.key).replace('_', '-'), f.allowed, f.help,
                              choices.isEmpty() ? ValueKind::Text : ValueKind::Choice, choices);
        if (f.isFlag)
            o.implicitValue = "true";
        out.push_back(o);
    }
    return out;
}

const std::vector<std::pair<int, QString>> &sweepExitCodes()
{
    static const std::vector<std::pair<int, QString>> codes{
        {kOk, "every run complete"},
        {kRunsFailed, "some runs failed (`show` has the category, the fix and the worker's log)"},
        {kUsage, "bad arguments or configuration: nothing ran and nothing was written"},
        {kDatabase, "the database was refused or could not be written (not a Stepscope file, damaged, from a newer "
                    "Stepscope, read-only, the disk full, deleted during the sweep)"},
        {kCancelled, "interrupted (Ctrl-C): the running configuration is cancelled, finished runs are kept"},
    };
    return codes;
}

const std::vector<std::pair<int, QString>> &readExitCodes()
{
    static const std::vector<std::pair<int, QString>> codes{
        {kOk, "done"},
        {kUsage, "bad arguments, or no such sweep or run in the database"},
        {kDatabase, "the database was refused (not a Stepscope file, damaged, from a newer Stepscope), or an "
                    "export could not be written"},
    };
    return codes;
}

// `text` cut into lines of at most kWidth characters, every line after the first starting at
// `indent` (the first one continues where the caller is, at `indent` too).
QString wrapped(const QString &text, qsizetype indent)
{
    QString out;
    qsizetype column = indent;
    for (const QString &word : text.split(' ', Qt::SkipEmptyParts)) {
        if (column > indent && column + 1 + word.size() > kWidth) {
            out += '\n' + QString(indent, ' ');
            column = indent;
        } else if (column > indent) {
            out += ' ';
            ++column;
        }
        out += word;
        column += word.size();
    }
    return out;
}

QString spelled(const OptionSpec &o)
{
    QString s = o.shortName.isEmpty() ? QString() : "-" + o.shortName + ", ";
    s += "--" + o.name;
    if (!o.valueName.isEmpty())
        s += o.implicitValue.isEmpty() ? " " + o.valueName : " [" + o.valueName + "]";
    return s;
}

void appendEntry(QString &out, const QString &left, const QString &help, qsizetype column = kColumn)
{
    const QString head = "  " + left;
    out += head.size() + 2 > column ? head + '\n' + QString(column, ' ') : head.leftJustified(column);
    out += wrapped(help, column) + '\n';
}

void appendGroups(QString &out, const CommandSpec &command)
{
    for (const auto &group : command.groups) {
        out += '\n' + group.title + ":\n";
        for (const auto &o : group.options)
            appendEntry(out, spelled(o), o.help);
    }
}

QString usageOf(const CommandSpec &command)
{
    QString usage = "stepscope-cli " + command.name + " [options]";
    if (!command.arguments.isEmpty())
        usage += ' ' + command.arguments;
    return usage;
}

void appendExamples(QString &out, const CommandSpec &command)
{
    if (command.examples.empty())
        return;
    out += "\nexamples:\n";
    for (const auto &[line, what] : command.examples)
        out += "  " + line + "\n      " + wrapped(what, 6) + '\n';
}

void appendExitCodes(QString &out, const std::vector<std::pair<int, QString>> &codes)
{
    out += "\nexit codes:\n";
    for (const auto &[code, meaning] : codes)
        appendEntry(out, QString::number(code), meaning, 8);
}

// Text for roff: a backslash printed as one, "--" as two minus signs (not hyphens), and no line
// that starts with a control character.
QString roff(QString text)
{
    text.replace('\\', "\\e").replace("--", "\\-\\-");
    if (text.startsWith('.') || text.startsWith('\''))
        text.prepend("\\&");
    return text;
}

QString roffOption(const OptionSpec &o)
{
    QString s = ".TP\n";
    if (!o.shortName.isEmpty())
        s += "\\fB\\-" + roff(o.shortName) + "\\fR, ";
    s += "\\fB\\-\\-" + QString(o.name).replace('-', "\\-") + "\\fR";
    if (!o.valueName.isEmpty())
        s += o.implicitValue.isEmpty() ? " \\fI" + roff(o.valueName) + "\\fR" : " [\\fI" + roff(o.valueName) + "\\fR]";
    return s + '\n' + roff(o.help) + '\n';
}

QString roffExitCodes(const std::vector<std::pair<int, QString>> &codes)
{
    QString s;
    for (const auto &[code, meaning] : codes)
        s += ".TP\n.B " + QString::number(code) + '\n' + roff(meaning) + '\n';
    return s;
}

QString shellWords(const QStringList &words)
{
    return "'" + words.join(' ') + "'";
}

QStringList optionWords(const std::vector<OptionSpec> &options)
{
    QStringList words;
    for (const auto &o : options) {
        if (!o.shortName.isEmpty())
            words << "-" + o.shortName;
        words << "--" + o.name;
    }
    return words;
}

std::vector<OptionSpec> allOptions(const CommandSpec &command, const HelpDefaults &defaults)
{
    std::vector<OptionSpec> out;
    for (const auto &group : command.groups)
        out.insert(out.end(), group.options.begin(), group.options.end());
    const auto common = commonOptions(defaults);
    out.insert(out.end(), common.begin(), common.end());
    return out;
}

// Where the managed environment goes, by rule: the same words on every machine, for --help and the
// manual alike.
QString managedEnvironmentText()
{
    return "$STEPSCOPE_VENV, else $XDG_DATA_HOME/stepscope/venv-torch-" + supervisor::pinnedTorchVersion();
}

} // namespace

HelpDefaults machineDefaults()
{
    const QString db = QString::fromStdString(store::defaultDatabasePath());
    return {db.isEmpty() ? "none: HOME is not set, so pass --db" : db, supervisor::defaultCacheRoot()};
}

HelpDefaults genericDefaults()
{
    return {"$XDG_DATA_HOME/stepscope/measurements.sqlite, XDG_DATA_HOME being ~/.local/share when unset",
            "$XDG_CACHE_HOME/stepscope/cc, XDG_CACHE_HOME being ~/.cache when unset"};
}

std::vector<OptionSpec> commonOptions(const HelpDefaults &defaults)
{
    OptionSpec help = flag("help", "show this help and exit");
    help.shortName = "h";
    return {option("db", "FILE", "the measurements database (default " + defaults.database + ")", ValueKind::File),
            help};
}

CommandSpec programSpec(const HelpDefaults &)
{
    // Its arguments are the command and the command's own.
    CommandSpec program = command({}, "which training-step optimizations pay off on this GPU", {}, sweepExitCodes(),
                                  false, "COMMAND [options] [arguments]", -1);
    program.groups = {{"before the command only", {flag("version", "print the version and exit")}}};
    return program;
}

std::vector<CommandSpec> commandSpecs(const HelpDefaults &defaults)
{
    std::vector<CommandSpec> out;
    out.push_back(command(
        "run", "run a sweep (default: the ledger preset, fitted to this machine)",
        "Runs a sweep: every configuration in its own cold worker process, repeats interleaved (A B C A B C), "
        "each step stored in the database as it comes; then prints the ledger table and the recommendation. "
        "Without --preset, --config or --single it runs the ledger preset fitted to this machine: the "
        "224x224 ledger on a GPU, a small CPU ledger otherwise. --batch takes a list too (16,32,64,128): a batch "
        "scan, every configuration at each batch, one ledger per batch. Progress goes to standard error; Ctrl-C "
        "stops the running configuration and keeps every finished run.",
        sweepExitCodes(), true));
    out.back().groups = {
        {"run options",
         {option("preset", toStrings(presetNames()).join('|'),
                 "ledger: knobs added cumulatively; each: every knob alone vs the baseline; combinations: every "
                 "combination of the --knobs named (2^k rows)",
                 ValueKind::Choice, toStrings(presetNames())),
          option("knobs", "LIST",
                 "the knobs a preset sweeps, a comma list in its order (tf32, cudnn-bench, bf16, fp16, "
                 "channels-last, pin-one-core, cuda-graph, sgd-per-parameter, sgd-fused, compile-default, ...; "
                 "default: the preset's own; combinations needs them); the dashboard's ticks are these"),
          option("config", "FILE", "configurations from JSON (an object, an array, or {\"configs\": [...]})",
                 ValueKind::File),
          flag("single", "run exactly the configuration given by flags (no preset)"),
          limitOption(supervisor::kRepeatLimit, "N", ", interleaved A B C A B C"),
          limitOption(supervisor::kPlannedStepsLimit, "N"),
          option("baseline", "N|LABEL",
                 "the configuration the others are compared with: its position in the sweep (1 = first), its knob "
                 "label (\"tf32+bf16\", \"python baseline\") or its canonical name (default: fp32 eager of the "
                 "sweep's runtime and shape where the sweep has it, else the first configuration). A --config file "
                 "may say \"baseline\": N next to \"configs\", or \"baseline\": true on one of them; this flag "
                 "overrides it"),
          limitOption(supervisor::kTimeoutLimit, "S", "; 604800 is 7 days"),
          option("start", "LIST",
                 "the start states each configuration runs under, a comma list: fresh = every cache a first step "
                 "reads (CUDA JIT, torch's kernels, Triton, torch.compile's) empty and the run's own, a new node; "
                 "shipped = fresh plus what an earlier run of it saved to ship in an image (torch.compile's "
                 "mega-cache for compiled rows, the CUDA JIT folder for others); again = the caches as a run of it "
                 "left them, a machine that ran it before; all = the three; shipped-compiled = shipped for "
                 "compiled rows only (default: fresh,again,shipped-compiled on a GPU, fresh on the CPU). A "
                 "--config file may say \"start\": \"fresh,again\" next to \"configs\"; this flag overrides it"),
          option("caches", "cold|warm|both",
                 "the old words for --start: cold = fresh, warm = again, both = fresh,again",
                 ValueKind::Choice, {"cold", "warm", "both"}),
          flag("fresh-cuda-cache", "the same as --start fresh (kept for scripts)"),
          limitOption(supervisor::kUntilCiLimit, "PCT",
                      ": after the planned processes, cold processes are added to each configuration whose steady "
                      "figure's 95% CI is wider than +-PCT% of its median (2 is +-2%; at least 2 processes each are "
                      "planned)"),
          limitOption(supervisor::kMaxRepeatsLimit, "K", ", with --until-ci"),
          limitOption(supervisor::kMaxMinutesLimit, "T", ", with --until-ci"),
          limitOption(supervisor::kProfileStepsLimit, "K",
                      ": Kineto (native) or torch.profiler (Python) over K more steps after the timed ones, never "
                      "during them; the summary is stored with the run and the trace kept beside the database"),
          flag("no-profile", "no profile (the same as --profile-steps 0)"),
          flag("max-batch", "time nothing: find each configuration's largest batch that fits, within 5%, by short "
                            "processes from its own batch up (at most 8 tries and 2 minutes a configuration, a compile's own time aside), each "
                            "answer checked by a try 5% above it running out of memory; on the CPU give "
                            "--memory-limit-mib too (a smaller card than yours: --memory-limit-mib on CUDA)"),
          option("fits-from", "SWEEP",
                 "a batch scan bounded by a --max-batch sweep of this database: each configuration runs only at "
                 "the batches its search did not see run out of memory (said before the sweep starts)"),
          option("objective", "time|energy",
                 "what the printed verdict minimises over the planned run: time (the default), or the GPU's "
                 "joules, first step included (where the rows have energy figures; the other is named beside it)",
                 ValueKind::Choice, {"time", "energy"}),
          flag("dry-run", "say what the sweep would run (each configuration's name on standard output, the runs "
                          "and the time they should take on standard error) and stop: nothing runs, nothing is "
                          "written"),
          option("devices", "LIST",
                 "run on several GPUs at once, one timed process per GPU: cuda:0,cuda:1 or all; the runs are dealt "
                 "out as GPUs come free, repeats of a configuration stay on GPUs of one model (a host with two "
                 "models runs on the larger group and says which it left out); cpu:0,cpu:1 are CPU slots, which "
                 "share the cores (tests)"),
          option("world-sizes", "LIST",
                 "data-parallel steps: every configuration at each world size, e.g. 1,2 (DistributedDataParallel "
                 "through torch.distributed.run in the Python worker, one GPU per rank, gloo on the CPU; with "
                 "--devices a run of world size W holds W of them)"),
          flag("warmup-process", "one discarded one-step process before the timed runs: it warms what no run's "
                                 "own caches hold (the driver, the file cache of the libraries; default: off)"),
          flag("no-warmup-process", "no such warm-up process"),
          option("python", "PATH",
                 "the Python whose torch both workers use (else STEPSCOPE_PYTHON, Stepscope's own environment, "
                 "the build's environment, python3 on PATH); it needs the torch Stepscope was built for",
                 ValueKind::File),
          option("cache-dir", "DIR",
                 "where each sweep makes the cache folders its runs start with, removed when it ends (default " +
                     defaults.compileCacheDir + "; keep it short: inductor and Triton make long names below it)",
                 ValueKind::Directory),
          option("compile-cache-dir", "DIR", "the old name of --cache-dir", ValueKind::Directory),
          option("name", "TEXT", "a name for the sweep"),
          option("again", "SWEEP",
                 "run stored sweep SWEEP again, whole: the recipe stored with it (kind, knobs, compile, start "
                 "states, repeats and adaptive rule, lanes, timeout, profile steps, warm-up process, planned "
                 "steps); only --python, --cache-dir and --name may go with it")}},
        {"configuration flags (also the keys of JSON configurations, with '_' for '-')", configurationFlags()}};
    out.back().examples = {
        {"stepscope-cli run", "the ledger preset, fitted to this machine"},
        {"stepscope-cli run --preset each --repeat 3", "every knob alone against the baseline, 3 cold processes each"},
        {"stepscope-cli run --until-ci 2 --max-repeats 10",
         "more processes until each steady figure is known to +-2%, 10 at most"},
        {"stepscope-cli run --single --device cuda --tf32 --autocast bf16 --channels-last --cuda-graph",
         "one configuration, as the flags give it (knob flags need --single or a --config file)"},
        {"stepscope-cli run --config sweep.json --baseline tf32",
         "the configurations of a file, compared with its tf32 row"},
        {"stepscope-cli run --batch 16,32,64,128",
         "a batch scan: every configuration at four batch sizes, a ledger each"},
        {"stepscope-cli run --max-batch --device cuda --autocast bf16 --channels-last --single",
         "the largest batch that fits for that configuration"},
        {"stepscope-cli run --again 3", "sweep 3 again, as it was defined (after a torch or driver upgrade, say)"},
    };

    const OptionSpec sweepId = option("sweep", "ID", "that sweep (see `stepscope-cli list`) instead of the latest");
    out.push_back(command("list", "list sweeps and their runs",
                          "Lists the sweeps of the database, newest first, each with its runs: status, failure "
                          "category, steps recorded and the steady-state median.",
                          readExitCodes(), true));
    out.back().groups = {{"list options", {option("sweep", "ID", "that sweep alone")}}};
    out.back().examples = {{"stepscope-cli list", "every sweep, newest first, with its runs"},
                           {"stepscope-cli list --sweep 3", "sweep 3 alone"}};

    out.push_back(command("show", "one run: status, failure with its fix, timings, compile caches and breakdown",
                          "Shows run RUN (an id from `stepscope-cli list`): its configuration, status, the failure "
                          "with its category, fix and the worker's log, setup and first-step times, the steady "
                          "state, peak memory, the compile caches and breakdown, and the environment it ran in. "
                          "With --sweep ID instead: that sweep's figures beside its ledger, the compile break-even "
                          "against eager and what may skew its numbers (launch-bound steps, pinning, the GPU's "
                          "clocks, caches).",
                          readExitCodes(), true, "[RUN]", 1));
    out.back().groups = {{"show options", {option("sweep", "ID", "that sweep's figures instead of a run")}}};
    out.back().examples = {{"stepscope-cli show 12", "run 12: its status, failure and fix, timings and log"},
                           {"stepscope-cli show --sweep 3", "sweep 3's figures, compile break-even and caveats"}};

    out.push_back(command("export", "the ledger table of a sweep as CSV, JSON or Markdown",
                          "Writes the ledger table of a sweep (by default the latest) to standard output, or to a "
                          "file: whole or not at all, never over the database. Numbers always use a decimal point.",
                          readExitCodes(), true));
    out.back().groups = {
        {"export options",
         {option("format", "csv|json|markdown", "the format (default markdown)", ValueKind::Choice,
                 {"csv", "json", "markdown"}),
          sweepId, option("out", "FILE", "write to FILE instead of standard output", ValueKind::File),
          option("planned-steps", "N", "planned run length for the recommendation (default: the sweep's own)"),
          option("batch", "N", "of a batch scan: that batch's rows (default: the baseline's batch)"),
          option("start", "fresh|shipped|again",
                 "the start state the planned run assumes: a fresh machine (every cache empty, the default), a "
                 "fresh machine with the configuration's shipped caches, or this machine again; the other states' "
                 "figures are shown beside, and JSON carries the pick for each",
                 ValueKind::Choice, {"fresh", "shipped", "again"}),
          option("objective", "time|energy",
                 "what the recommendation minimises over the planned run: time (the default), or the GPU's "
                 "joules, first step included (needs energy figures: a GPU sweep); the other is named beside it",
                 ValueKind::Choice, {"time", "energy"}),
          option("idle-watts", "W",
                 "take W watts of idle power out of every energy figure (W x each window's seconds), so that "
                 "joules are what the work itself spent; the Energy section and JSON say it was done (default: "
                 "none, the counter's figures as read)")}}};
    out.back().examples = {
        {"stepscope-cli export --format csv --sweep 3 --out ledger.csv", "sweep 3's ledger into ledger.csv"},
        {"stepscope-cli export --planned-steps 100000 --start again",
         "the latest ledger for a run of 100000 steps on a machine that ran it before"}};

    out.push_back(command("compare", "sweep B against sweep A, configuration by configuration",
                          "Compares sweep B with sweep A (ids from `stepscope-cli list`; B from another database "
                          "with --db-b): per configuration, each side's median steady time with its 95% CI over "
                          "cold processes, the ratio B/A with its interval, and whether B is faster, slower or "
                          "not significantly different. Every way the two sweeps ran differently is named first; "
                          "with other batches the figures are per image. Neither database is written.",
                          readExitCodes(), true, "A B", 2));
    out.back().groups = {
        {"compare options",
         {option("db-b", "FILE", "the database of sweep B (default: the one of A, --db)", ValueKind::File),
          option("format", "csv|json|markdown", "the format (default markdown)", ValueKind::Choice,
                 {"csv", "json", "markdown"})}}};
    out.back().examples = {{"stepscope-cli compare 3 4", "sweep 4 against sweep 3 of the same database"},
                           {"stepscope-cli --db a100.sqlite compare 1 2 --db-b h200.sqlite",
                            "sweep 2 of another machine's database against sweep 1"}};

    static const std::vector<std::pair<int, QString>> checkExitCodes{
        {kOk, "no configuration regressed (suspect ones and ones without data are listed)"},
        {kRunsFailed, "a configuration regressed: its interval lies wholly beyond the threshold"},
        {kUsage, "bad arguments, or no such sweep in the database"},
        {kDatabase, "a database was refused (not a Stepscope file, damaged, from a newer Stepscope)"},
    };
    out.push_back(command("check", "a regression gate: the latest sweep against an earlier one",
                          "Checks a sweep (the latest of --db, or --sweep ID) against sweep --against ID (of "
                          "--db-b FILE when given): a configuration regressed when the 95% interval of its steady "
                          "ratio B/A over cold processes lies wholly above 1 + --max-slowdown, or, with "
                          "--max-first-step, when every new process's first step is slower than every old one's by "
                          "more than that, in each start state both ran. Ones that may have regressed without the "
                          "data to say so are suspect; ones a side lacks are named; both sweeps' differences in "
                          "setup come first. Exit 1 on a regression. Neither database is written.",
                          checkExitCodes, true));
    out.back().groups = {
        {"check options",
         {option("against", "ID", "the sweep checked against (required)"),
          option("sweep", "ID", "the sweep checked (default: the latest of --db)"),
          option("db-b", "FILE", "the database of the sweep checked against (default: --db)", ValueKind::File),
          option("max-slowdown", "PCT", "steady slowdown allowed, percent (default 5)"),
          option("max-first-step", "PCT", "first-step slowdown allowed, percent (default: first steps unchecked)"),
          option("format", "text|json", "the format (default text)", ValueKind::Choice, {"text", "json"})}}};
    out.back().examples = {{"stepscope-cli run --again 3 && stepscope-cli check --against 3",
                            "sweep 3 again after an upgrade, then gated against it"},
                           {"stepscope-cli check --against 1 --db-b before.sqlite --max-slowdown 10 --format json",
                            "the latest sweep against sweep 1 of another file, for CI"}};

    out.push_back(command("why", "where each configuration's step goes, or the kernel diff of two runs",
                          "Without arguments: for each configuration of a sweep (by default the latest), its "
                          "profile against its timed steady step: GPU busy and waiting, kernels and launches per "
                          "step, whether it is launch-bound or GPU-bound and the knobs that address that, TFLOP/s "
                          "and the share of the GPU's peak, its top kernels and the path of its trace. With two "
                          "run ids (see `stepscope-cli list`): run B against run A kernel by kernel (added, "
                          "removed, faster, slower), by family, and how much of their steady difference is GPU "
                          "work and how much is waiting.",
                          readExitCodes(), true, "[RUN RUN]", 2));
    out.back().groups = {
        {"why options",
         {sweepId, option("kernels", "N", "top kernels shown per configuration (default 3) or in a diff (15)"),
          option("batch", "N", "of a batch scan: that batch's rows (default: the baseline's batch)")}}};
    out.back().examples = {{"stepscope-cli why", "where each configuration's step goes, in the latest sweep"},
                           {"stepscope-cli why 12 15", "run 15 against run 12, kernel by kernel"}};

    out.push_back(command(
        "doctor", "can this machine run the native and Python workers and torch.compile?",
        "Checks the native worker, the GPU as a run reads it (driver, clocks, throttling), the "
        "Python that would run python runs, torch, Triton, the compiler and a tiny "
        "torch.compile. One line per item: ok, warn or fail, with a fix.",
        {{kOk, "no item failed (warnings allowed)"}, {kRunsFailed, "an item failed"}, {kUsage, "bad arguments"}}));
    out.back().groups = {
        {"doctor options",
         {option("device", "cpu|cuda", "the device to check (default: cuda where the native worker sees one, else cpu)",
                 ValueKind::Choice, {"cpu", "cuda"}),
          option("python", "PATH", "the Python to check (as run's --python)", ValueKind::File)}}};
    out.back().examples = {{"stepscope-cli doctor", "every item, on the device run would pick"},
                           {"stepscope-cli doctor --device cuda --python ~/venv/bin/python",
                            "the GPU, and another Python's torch and torch.compile"}};

    out.push_back(command(
        "models", "the models --model can name in this Python (torchvision, timm, transformers)",
        "Lists what run's --model can train with the Python that runs Python runs (as run's --python, "
        "STEPSCOPE_PYTHON, the managed environment): the built-in resnet18, torchvision's classifiers, timm's "
        "models and the transformers architectures with a language-model or classification head, each as --model "
        "takes it, under its library's version. A library that Python cannot import is named with the pip command "
        "that installs it there. FILTER (or --filter) keeps the names that contain it, in any case. Imports the "
        "libraries (a few seconds) but builds no model and starts no GPU.",
        {{kOk, "every library listed"},
         {kRunsFailed, "a library, torch or the Python itself is missing: the listing says which, and how to "
                       "install it"},
         {kUsage, "bad arguments"}},
        false, "[FILTER]", 1));
    out.back().groups = {
        {"models options",
         {option("filter", "TEXT", "only the names that contain TEXT (as FILTER)"),
          flag("json", "one JSON object for tools: the Python, and per library its version, its names or what is "
                       "missing and the install command"),
          option("python", "PATH", "the Python to ask (as run's --python)", ValueKind::File)}}};
    out.back().examples = {{"stepscope-cli models vit", "every ViT this Python can train, from each library"},
                           {"stepscope-cli models --json --python ~/venv/bin/python", "another Python's models, as JSON"}};

    out.push_back(command(
        "setup", "install PyTorch into Stepscope's own Python environment",
        "Creates Stepscope's managed Python environment (" + managedEnvironmentText() +
            ") with python3 -m venv and installs the torch and torchvision releases this Stepscope is built for "
            "(torch " +
            supervisor::pinnedTorchVersion() + ", torchvision " + supervisor::pinnedTorchvisionVersion() +
            ", " + supervisor::setupSizeText() +
            ") with pip. Progress goes to standard error; Ctrl-C stops pip, and the environment stays marked "
            "incomplete (never used) until a later setup finishes: " + supervisor::setupRetryText() + ". Pip's own settings (PIP_INDEX_URL, a proxy) apply. When the environment is "
            "ready already, it says so. One setup of an environment runs at a time: a second refuses at once, naming "
            "the first's pid. venv and pip die with the setup, even when it is killed outright.",
        {{kOk, "PyTorch is set up, or was already"},
         {kRunsFailed, "the setup failed: the message says why (offline, no matching release, no space, no "
                       "python3 venv module, not a Python 3, another setup of the same environment running) and "
                       "the fix; a retry keeps what pip finished downloading"},
         {kUsage, "bad arguments"},
         {kCancelled, "interrupted (Ctrl-C): pip was stopped, the environment stays incomplete"}}));
    out.back().groups = {
        {"setup options",
         {option("index-url", "URL", "the package index pip downloads from (a mirror; default: pip's own, PyPI)"),
          option("find-links", "DIR", "also take wheels from this folder or page (pip --find-links)",
                 ValueKind::Directory),
          flag("no-index", "no package index at all: wheels from --find-links only"),
          option("python", "PATH", "the Python 3 that creates the environment (default: python3 on PATH)",
                 ValueKind::File)}}};
    out.back().examples = {{"stepscope-cli setup", "torch and torchvision from PyPI into the managed environment"},
                           {"stepscope-cli setup --index-url https://download.pytorch.org/whl/cpu",
                            "the CPU-only wheels (much smaller) from PyTorch's own index"}};

    const std::vector<std::pair<int, QString>> printed{{kOk, "printed"}, {kUsage, "bad arguments"}};
    out.push_back(command("help", "this overview, or a command's help",
                          "Prints the overview of every command and option, or COMMAND's help (as COMMAND --help).",
                          printed, false, "[COMMAND]", 1));
    out.push_back(command("completion", "print the bash completion script",
                          "Prints the bash completion of stepscope-cli. Packages install it as "
                          "share/bash-completion/completions/stepscope-cli; without one, add "
                          "eval \"$(stepscope-cli completion bash)\" to ~/.bashrc.",
                          printed, false, "bash", 1));
    out.push_back(command("man", "print the manual page (roff)",
                          "Prints the manual page of stepscope-cli as roff: stepscope-cli man | man -l -", printed));
    return out;
}

QString programHelp(const HelpDefaults &defaults)
{
    const CommandSpec program = programSpec(defaults);
    const auto commands = commandSpecs(defaults);
    QString out = QString("stepscope-cli %1: %2\n\n").arg(STEPSCOPE_VERSION, program.summary);
    out += "usage: stepscope-cli [--db FILE] COMMAND [options] [arguments]\n"
           "       stepscope-cli COMMAND --help\n\ncommands:\n";
    for (const auto &c : commands)
        appendEntry(out, c.name + (c.arguments.isEmpty() ? QString() : ' ' + c.arguments), c.summary);
    for (const auto &c : commands)
        appendGroups(out, c);
    out += "\noptions of every command (also before it):\n";
    for (const auto &o : commonOptions(defaults))
        appendEntry(out, spelled(o), o.help);
    appendGroups(out, program);
    appendExamples(out, commands.front()); // run's: where everyone starts
    appendExitCodes(out, program.exitCodes);
    return out;
}

QString commandHelp(const CommandSpec &command, const HelpDefaults &defaults)
{
    if (command.name.isEmpty())
        return programHelp(defaults);
    QString out = "usage: " + usageOf(command) + "\n\n" + wrapped(command.description, 0) + '\n';
    appendGroups(out, command);
    out += "\noptions of every command:\n";
    for (const auto &o : commonOptions(defaults))
        appendEntry(out, spelled(o), o.help);
    appendExamples(out, command);
    appendExitCodes(out, command.exitCodes);
    return out;
}

QString bashCompletion()
{
    const HelpDefaults defaults = genericDefaults();
    const auto commands = commandSpecs(defaults);
    QStringList names;
    for (const auto &c : commands)
        names << c.name;

    QString script = QString("# bash completion for stepscope-cli %1, generated by `stepscope-cli completion bash` "
                             "from the CLI's\n# option tables. Installed as "
                             "share/bash-completion/completions/stepscope-cli, or: eval \"$(stepscope-cli "
                             "completion bash)\"\n")
                         .arg(STEPSCOPE_VERSION);
    script += "_stepscope_cli()\n{\n"
              "    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}\n"
              "    local command= words= options i\n"
              "    for ((i = 1; i < COMP_CWORD; i++)); do\n"
              "        case ${COMP_WORDS[i]} in\n"
              "        --db) ((i++)) ;;\n"
              "        -*) ;;\n"
              "        *)\n"
              "            command=${COMP_WORDS[i]}\n"
              "            break\n"
              "            ;;\n"
              "        esac\n"
              "    done\n"
              "    case $command in\n";
    const CommandSpec program = programSpec(defaults);
    script += "    '') options=" + shellWords(optionWords(allOptions(program, defaults))) +
              " words=" + shellWords(names) + " ;;\n";
    for (const auto &c : commands)
        script += "    " + c.name + ") options=" + shellWords(optionWords(allOptions(c, defaults))) + " ;;\n";
    script += "    *) return ;;\n    esac\n";

    // The value after an option: a file, a folder, one of its choices, or nothing to offer.
    QStringList files, directories, text;
    QHash<QString, QStringList> choices, optional; // "run:--preset" -> its choices
    QStringList choiceOrder, optionalOrder;
    auto collect = [&](const QString &command, const std::vector<OptionSpec> &options) {
        for (const auto &o : options) {
            const QString key = command + ":--" + o.name;
            if (!o.implicitValue.isEmpty()) {
                optional[key] = o.choices;
                optionalOrder << key;
            } else if (o.kind == ValueKind::File)
                files << key;
            else if (o.kind == ValueKind::Directory)
                directories << key;
            else if (o.kind == ValueKind::Choice) {
                choices[key] = o.choices;
                choiceOrder << key;
            } else if (o.kind == ValueKind::Text)
                text << key;
        }
    };
    collect({}, allOptions(program, defaults));
    for (const auto &c : commands)
        collect(c.name, allOptions(c, defaults));
    script += "    case $command:$prev in\n";
    for (const auto &[keys, compgen] : {std::pair{files, "-f"}, std::pair{directories, "-d"}})
        if (!keys.isEmpty())
            script += "    " + keys.join(" | ") + ")\n        compopt -o filenames 2> /dev/null\n" +
                      "        COMPREPLY=($(compgen " + compgen + " -- \"$cur\"))\n        return\n        ;;\n";
    for (const QString &key : choiceOrder)
        script += "    " + key + ")\n        COMPREPLY=($(compgen -W " + shellWords(choices[key]) +
                  " -- \"$cur\"))\n        return\n        ;;\n";
    // A value that may be left out: its values, and the options that may follow instead.
    for (const QString &key : optionalOrder)
        script += "    " + key + ") words=" + shellWords(optional[key]) + " ;;\n";
    if (!text.isEmpty())
        script += "    " + text.join(" | ") + ") return ;;\n";
    script += "    esac\n"
              "    case $command in\n"
              "    help) words=" +
              shellWords(names) +
              " ;;\n"
              "    completion) words=bash ;;\n"
              "    esac\n"
              "    COMPREPLY=($(compgen -W \"$words $options\" -- \"$cur\"))\n"
              "}\n"
              "complete -F _stepscope_cli stepscope-cli\n";
    return script;
}

QString manPage()
{
    const HelpDefaults defaults = genericDefaults();
    const CommandSpec program = programSpec(defaults);
    QString page = ".\\\" Generated by `stepscope-cli man` from the CLI's option tables; do not edit.\n";
    page += QString(".TH STEPSCOPE-CLI 1 \"\" \"Stepscope %1\" \"User Commands\"\n").arg(STEPSCOPE_VERSION);
    page += ".SH NAME\nstepscope-cli \\- " + roff(program.summary) + '\n';
    page += ".SH SYNOPSIS\n.B stepscope-cli\n[\\fB\\-\\-db\\fR \\fIFILE\\fR] \\fICOMMAND\\fR [\\fIoptions\\fR] "
            "[\\fIarguments\\fR]\n.br\n.B stepscope-cli\n\\fICOMMAND\\fR \\fB\\-\\-help\\fR\n";
    page += ".SH DESCRIPTION\n" +
            roff("Stepscope measures what each PyTorch training-step optimization (TF32, cuDNN autotuning, bf16 or "
                 "fp16 autocast, channels_last, CUDA graphs, fused optimizers, torch.compile) does to a ResNet18 "
                 "training step on this machine: the first step, the steady-state step and the number of steps "
                 "after which it pays off. stepscope-cli runs sweeps headless and reads their results; the "
                 "dashboard, stepscope, shows the same database.") +
            '\n';
    page += ".SH COMMANDS\n";
    for (const auto &c : commandSpecs(defaults)) {
        page += ".SS \"" + c.name + (c.arguments.isEmpty() ? QString() : ' ' + c.arguments) + "\"\n";
        page += roff(c.description) + '\n';
        for (const auto &group : c.groups) {
            page += ".PP\n" + roff(group.title) + ":\n";
            for (const auto &o : group.options)
                page += roffOption(o);
        }
    }
    page += ".SH OPTIONS OF EVERY COMMAND\nThey may also come before the command.\n";
    for (const auto &o : commonOptions(defaults))
        page += roffOption(o);
    for (const auto &group : program.groups)
        for (const auto &o : group.options)
            page += roffOption(o);
    page += ".SH EXIT STATUS\n" + roffExitCodes(program.exitCodes);
    page += ".PP\n" + roff("doctor exits 1 when an item failed, 0 otherwise (warnings allowed).") + '\n';
    page += ".SH ENVIRONMENT\n";
    const std::vector<std::pair<QString, QString>> environment{
        {"STEPSCOPE_PYTHON", "the Python whose torch both workers use when --python is not given"},
        {"STEPSCOPE_NATIVE_WORKER",
         "another native worker program (default: stepscope-worker beside stepscope-cli, else in "
         "../lib/stepscope)"},
        {"STEPSCOPE_PYTHON_WORKER", "another stepscope_worker.py (default: the one beside stepscope-cli, else in "
                                    "../share/stepscope/python)"},
        {"XDG_DATA_HOME, HOME", "where the default database is: " + defaults.database +
                                    ". With neither set there is no default, and --db is needed"},
        {"XDG_CACHE_HOME", "where the default --cache-dir is: " + defaults.compileCacheDir},
        {"STEPSCOPE_VENV",
         "where `setup` builds the managed Python environment (default " + managedEnvironmentText() + ")"},
    };
    for (const auto &[name, meaning] : environment)
        page += ".TP\n.B " + name + '\n' + roff(meaning) + '\n';
    page += ".SH EXAMPLES\n";
    for (const auto &c : commandSpecs(defaults))
        for (const auto &[line, what] : c.examples)
            page += ".TP\n.B " + roff(line) + '\n' + roff(what) + '\n';
    page += ".SH SEE ALSO\n" + roff("stepscope-cli COMMAND --help, and the README of Stepscope.") + '\n';
    return page;
}

CommandLine::CommandLine(CommandSpec command, HelpDefaults defaults)
    : command_(std::move(command)), defaults_(std::move(defaults)), options_(allOptions(command_, defaults_))
{
    // "-bogus" is one unknown option, not six; the program's own options end at the command.
    parser_.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    if (command_.name.isEmpty())
        parser_.setOptionsAfterPositionalArgumentsMode(QCommandLineParser::ParseAsPositionalArguments);
    for (const auto &o : options_) {
        QStringList names;
        if (!o.shortName.isEmpty())
            names << o.shortName;
        names << o.name;
        parser_.addOption(QCommandLineOption(names, o.help, o.valueName));
    }
}

namespace
{

// Edits (insert, delete, replace) between two names: "did you mean" for a mistyped option.
int editDistance(const QString &a, const QString &b)
{
    std::vector<int> row(static_cast<std::size_t>(b.size()) + 1);
    for (std::size_t j = 0; j < row.size(); ++j)
        row[j] = int(j);
    for (qsizetype i = 1; i <= a.size(); ++i) {
        int diagonal = row[0];
        row[0] = int(i);
        for (qsizetype j = 1; j <= b.size(); ++j) {
            const int above = row[std::size_t(j)];
            row[std::size_t(j)] =
                std::min({above + 1, row[std::size_t(j - 1)] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diagonal = above;
        }
    }
    return row.back();
}

} // namespace

QString CommandLine::suggestion(const QString &name) const
{
    // Close enough to be a slip: two edits, or a third of a long name.
    int best = std::max<int>(2, int(name.size()) / 3) + 1;
    QString out;
    for (const auto &o : options_) {
        const int d = editDistance(name, o.name);
        if (d < best) {
            best = d;
            out = o.name;
        }
    }
    return out;
}

const OptionSpec *CommandLine::find(const QString &name) const
{
    for (const auto &o : options_)
        if (o.name == name || (!o.shortName.isEmpty() && o.shortName == name))
            return &o;
    return nullptr;
}

bool CommandLine::parse(const QStringList &arguments, int &exitCode)
{
    QStringList normalized{"stepscope-cli"}, problems;
    bool optionsEnded = false;
    for (qsizetype i = 0; i < arguments.size(); ++i) {
        const QString &a = arguments[i];
        const OptionSpec *o = optionsEnded || !a.startsWith("--") || a.contains('=') ? nullptr : find(a.mid(2));
        optionsEnded = optionsEnded || a == "--" || (command_.name.isEmpty() && !a.startsWith('-'));
        if (!o || o->valueName.isEmpty()) {
            normalized << a;
        } else if (i + 1 < arguments.size() && !arguments[i + 1].startsWith("--")) {
            normalized << a << arguments[++i];
        } else if (!o->implicitValue.isEmpty()) {
            normalized << a + '=' + o->implicitValue;
        } else {
            problems << a + " needs a value";
        }
    }
    const bool parsed = parser_.parse(normalized);
    const QString who = command_.name.isEmpty() ? "stepscope-cli" : "stepscope-cli " + command_.name;
    if (parser_.isSet("help")) {
        std::fputs(commandHelp(command_, defaults_).toLocal8Bit().constData(), stdout);
        exitCode = kOk;
        return false;
    }
    for (const QString &name : parser_.unknownOptionNames()) {
        QString given = (name.size() > 1 ? "--" : "-") + name;
        for (const QString &a : normalized)
            if (a.startsWith('-') && QString(a).remove(QRegularExpression("^--?")).section('=', 0, 0) == name)
                given = a.section('=', 0, 0);
        if (name == "compile-cache") {
            // The knob of before start states: say what replaced it, not a look-alike flag.
            problems << "--compile-cache is gone: which caches a compile finds is the run's start state; use "
                        "--start fresh,shipped,again (cold was fresh, warm was again)";
            continue;
        }
        const QString near = suggestion(name);
        problems << "unknown option '" + given + "'" +
                        (near.isEmpty() ? QString() : " (did you mean '--" + near + "'?)");
    }
    if (!parsed && parser_.unknownOptionNames().isEmpty())
        problems << parser_.errorText().remove(QRegularExpression("\\.$"));
    const QStringList positional = parser_.positionalArguments();
    if (command_.maxArguments >= 0 && positional.size() > command_.maxArguments)
        problems << "unexpected argument '" + positional.value(command_.maxArguments) + "'";
    if (!problems.isEmpty()) {
        std::fprintf(stderr, "%s: %s; see '%s --help'\n", qPrintable(who), qPrintable(problems.join("; ")),
                     qPrintable(who));
        exitCode = kUsage;
        return false;
    }
    return true;
}

bool CommandLine::isSet(const QString &name) const
{
    return parser_.isSet(name);
}

QString CommandLine::value(const QString &name) const
{
    return parser_.value(name);
}

QStringList CommandLine::positionalArguments() const
{
    return parser_.positionalArguments();
}

std::vector<std::pair<QString, QString>> CommandLine::given() const
{
    std::vector<std::pair<QString, QString>> out;
    QHash<QString, qsizetype> seen;
    for (const QString &name : parser_.optionNames()) {
        const qsizetype k = seen[name]++;
        const QStringList values = parser_.values(name);
        out.emplace_back(name, k < values.size() ? values[k] : QString());
    }
    return out;
}

} // namespace stepscope::cli
