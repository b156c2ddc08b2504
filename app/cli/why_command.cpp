// `stepscope-cli why`: where each configuration's step goes (the Why table of report/why_table.h),
// or, given two runs, their kernel diff (profile/kernel_diff.h) tied to the steady and first-step
// difference between them.
#include "cli.h"
#include "cli_options.h"

#include "config/run_config.h"
#include "profile/kernel_diff.h"
#include "report/ledger.h"
#include "report/ledger_text.h"
#include "report/why_table.h"
#include "store/store.h"
#include "supervisor/run_profile.h"

#include <algorithm>
#include <cstdio>

namespace stepscope::cli
{
namespace
{

void print(const std::string &text)
{
    std::fwrite(text.data(), 1, text.size(), stdout);
}

struct ProfiledRun {
    store::RunRecord run;
    profile::StoredProfile stored;
    std::optional<double> steadyMs;
};

// Run `text` (an id) with its profile; nullopt, said, when it has none.
std::optional<ProfiledRun> profiledRun(const store::Reader &reader, const QString &text, const QString &db)
{
    long long id = 0;
    if (!parseWhole(text, id) || id < 1) {
        printError("stepscope-cli why: '" + text + "' is not a run id (see 'stepscope-cli list')");
        return std::nullopt;
    }
    auto run = reader.run(id);
    if (!run) {
        printError("stepscope-cli why: no run " + text + " in " + db);
        return std::nullopt;
    }
    auto stored = profile::profileFromJson(run->profileJson);
    if (!stored || !stored->summary) {
        printError("stepscope-cli why: run " + text + " has no profile" +
                   (stored && !stored->problem.empty() ? QString(": ") + QString::fromStdString(stored->problem)
                                                       : QString(" (run with --profile-steps above 0)")));
        return std::nullopt;
    }
    ProfiledRun out{*run, std::move(*stored), std::nullopt};
    if (const auto summary = reader.summary(id))
        out.steadyMs = summary->medianMs;
    return out;
}

int diffRuns(const store::Reader &reader, const QStringList &ids, const CommandLine &line, const QString &db)
{
    const auto a = profiledRun(reader, ids[0], db);
    const auto b = a ? profiledRun(reader, ids[1], db) : std::nullopt;
    if (!a || !b)
        return kUsage;
    long long top = 15;
    if (!positiveOption(line, "a positive number of kernels", "kernels", top))
        return kUsage;
    const auto label = [](const ProfiledRun &p) {
        return knobLabel(report::storedConfig(p.run.configJson)) + " (run " + std::to_string(p.run.id) + ", " +
               p.run.configName + ")";
    };
    const auto firstMs = [](const ProfiledRun &p) {
        return p.run.firstStepSeconds ? std::optional<double>(*p.run.firstStepSeconds * 1000.0) : std::nullopt;
    };
    const profile::DiffSide sa{&*a->stored.summary, a->steadyMs, firstMs(*a), label(*a)};
    const profile::DiffSide sb{&*b->stored.summary, b->steadyMs, firstMs(*b), label(*b)};
    const auto seconds = [](double ms) { return report::formatSecondsDelta(ms / 1000.0); };
    print(profile::diffText(profile::diffProfiles(sa, sb), sa, sb, static_cast<std::size_t>(top), seconds));
    return kOk;
}

} // namespace

int whyCommand(const Options &options, const CommandLine &line)
{
    const QStringList arguments = line.positionalArguments();
    long long sweepId = 0, top = 3;
    if (!positiveOption(line, "a sweep id (see 'stepscope-cli list')", "sweep", sweepId))
        return kUsage;
    if (!arguments.isEmpty() && arguments.size() != 2) {
        printError("stepscope-cli why: give two run ids to diff (why RUN RUN), or none for a sweep's table");
        return kUsage;
    }
    if (sweepId != 0 && !arguments.isEmpty()) {
        printError("stepscope-cli why: give two run ids or --sweep ID, not both");
        return kUsage;
    }
    int code = kOk;
    auto reader = openReader(options.db, code);
    if (!reader)
        return code;
    if (arguments.size() == 2)
        return diffRuns(*reader, arguments, line, options.db);
    if (!positiveOption(line, "a positive number of kernels", "kernels", top))
        return kUsage;
    if (!resolveSweep(*reader, "why", options.db, sweepId))
        return kUsage;
    long long batch = 0;
    if (!positiveOption(line, "a batch size the sweep ran", "batch", batch))
        return kUsage;
    const report::Ledger ledger =
        report::buildLedger(*reader, sweepId, 0, {}, store::StartState::Fresh, static_cast<int>(batch));
    if (batch != 0 && std::find(ledger.batches.begin(), ledger.batches.end(), batch) == ledger.batches.end()) {
        printError("stepscope-cli why: sweep " + QString::number(sweepId) + " ran no batch " + QString::number(batch));
        return kUsage;
    }
    std::string text =
        "Sweep " + std::to_string(sweepId) + ": " + ledger.sweep.name +
        (ledger.batches.size() > 1 ? " (batch " + std::to_string(ledger.batch) + "; --batch N for another)"
                                   : std::string()) +
        "\n\n" + report::whyText(ledger, static_cast<std::size_t>(top)) +
        report::batchScanText(report::batchScan(*reader, sweepId));
    bool traces = false;
    for (const auto &r : ledger.rows)
        if (!r.profileTrace.empty()) {
            if (!traces)
                text += "\nTraces (open in https://ui.perfetto.dev or chrome://tracing):\n";
            traces = true;
            text += "  " + r.label + " (run " + std::to_string(r.profileRunId) +
                    "): " + supervisor::keptTracePath(options.db, r.profileTrace).toStdString() + "\n";
        }
    print(text);
    return kOk;
}

} // namespace stepscope::cli
