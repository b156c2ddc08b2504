#include "report/why_table.h"

#include "report/number_text.h"
#include "store/database_files.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <sstream>

namespace stepscope::report
{
namespace
{

std::string fmt(double v, const char *format)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, format, v);
    return buf;
}

std::string pct(double share)
{
    return fmt(share * 100, "%.0f%%");
}

std::string shortKernel(const std::string &name, std::size_t max = 70)
{
    return name.size() <= max ? name : name.substr(0, max - 1) + "…";
}

std::string computeCell(const LedgerRow &r)
{
    return r.compute.tflops ? tflopsText(r.compute) : "-";
}

// The kept trace of a profiled row, or why there is none to open. A kept trace can be missing: the
// database copied without its ".traces" folder beside it.
void traceOf(const Ledger &ledger, const LedgerRow &r, WhyRow &w)
{
    if (r.profileTrace.empty()) {
        w.traceProblem =
            "not kept" + (r.profile && !r.profile->note.empty() ? " (" + r.profile->note + ")"
                                                                : std::string(" (too large, or not written)"));
        return;
    }
    if (ledger.databasePath.empty()) {
        w.traceProblem = "kept as " + r.profileTrace + ", but the database's folder is not known";
        return;
    }
    const std::string path = store::besideDatabase(ledger.databasePath, r.profileTrace);
    std::error_code error;
    if (std::filesystem::is_regular_file(path, error))
        w.tracePath = path;
    else
        w.traceProblem = "missing: " + path + " (the database moved without its .traces folder?)";
}

// The row's timed steady step with its spread between processes: the half-width of its 95% CI
// over the median, the figure the verdict's rule (profile::kNoisyTimedStep) reads.
std::optional<profile::TimedStep> timedStep(const LedgerRow &r)
{
    if (!r.steadyMs)
        return std::nullopt;
    profile::TimedStep t{*r.steadyMs, std::nullopt};
    if (r.steadyCI && r.steadyCI->hasInterval && *r.steadyMs > 0)
        t.spread = (r.steadyCI->high - r.steadyCI->low) / 2 / *r.steadyMs;
    return t;
}

} // namespace

std::vector<WhyRow> whyRows(const Ledger &ledger)
{
    std::vector<WhyRow> out;
    for (std::size_t i = 0; i < ledger.rows.size(); ++i) {
        const LedgerRow &r = ledger.rows[i];
        WhyRow w;
        w.row = i;
        w.label = r.label;
        if (r.memorySnapshot)
            w.memory = &*r.memorySnapshot;
        if (r.profile) {
            w.profile = &*r.profile;
            const RunConfig config = storedConfig(r.configJson);
            if (!r.configJson.empty())
                w.config = config;
            w.verdict = profile::verdict(*r.profile, timedStep(r), config);
            // The profiler's counters against the forward FLOPs of the row's model.
            const std::optional<double> forward = forwardFlopsOf(config, r.model);
            if (r.profile->profilerGflop && forward && *forward > 0)
                w.flopCheckRatio = *r.profile->profilerGflop / (*forward / 1e9);
            traceOf(ledger, r, w);
        } else {
            w.problem = r.profileProblem.empty() ? "not profiled" : r.profileProblem;
        }
        out.push_back(std::move(w));
    }
    return out;
}

std::string whyText(const Ledger &ledger, std::size_t topKernels)
{
    std::ostringstream out;
    const auto rows = whyRows(ledger);
    for (const WhyRow &w : rows) {
        const LedgerRow &r = ledger.rows[w.row];
        out << w.label << "\n";
        if (!w.verdict) {
            out << "  no profile: " << w.problem << "\n\n";
            continue;
        }
        const profile::ProfileSummary &p = *w.profile;
        const profile::Verdict &v = *w.verdict;
        const bool gpu = p.device != "cpu";
        const RunConfig config = w.config.value_or(RunConfig{});
        out << "  " << v.text << "\n";
        out << "  " << profile::busyName(p) << " " << fmt(p.busyMs, "%.2f") << " ms of " << fmt(v.stepMs, "%.2f")
            << " ms" << (v.againstTimed ? " (timed steady step)" : " (profiled step)") << "; "
            << fmt(p.kernelsPerStep, "%.0f") << (gpu ? " kernels" : " ATen ops") << " per step";
        if (gpu)
            out << ", " << fmt(p.launchesPerStep, "%.0f") << " launches taking " << fmt(p.launchCpuMs, "%.2f")
                << " ms of CPU";
        out << "\n  compute: " << computeCell(r);
        if (w.flopCheckRatio && *w.flopCheckRatio >= 0.5)
            out << "; the profiler's FLOP counters give " << fmt(*w.flopCheckRatio * 100, "%.0f")
                << "% of the counted forward FLOPs";
        else if (w.flopCheckRatio || config.compile != CompileMode::None)
            out << "; the profiler counts too few FLOPs to check against (compiled kernels carry no counters)";
        out << "\n";
        std::size_t shown = 0;
        for (const auto &k : p.kernels) {
            if (shown++ >= topKernels)
                break;
            out << "    " << fmt(k.msPerStep, "%7.3f") << " ms  x" << fmt(k.countPerStep, "%-4.0f") << " "
                << shortKernel(k.name) << " [" << profile::displayName(k.family) << "]\n";
        }
        if (!p.note.empty())
            out << "  note: " << p.note << "\n";
        out << "\n";
    }
    out << "Busy time is the union of the profile's GPU activity (on the CPU: time inside ATen ops), set "
           "against the timed steady step where the row has one; the profiler slows launches, so its own "
           "step is longer.\n";
    return out.str();
}

std::string whyMarkdown(const Ledger &ledger, std::size_t topKernels)
{
    std::ostringstream out;
    const auto rows = whyRows(ledger);
    bool any = false;
    for (const auto &w : rows)
        any = any || w.verdict.has_value();
    if (!any)
        return {};
    out << "\n### Why: where each step goes\n\n";
    out << "| configuration | verdict | busy / step | kernels per step | launch CPU | compute | top kernel |\n";
    out << "|---|---|---:|---:|---:|---:|---|\n";
    for (const WhyRow &w : rows) {
        const LedgerRow &r = ledger.rows[w.row];
        if (!w.verdict) {
            out << "| " << markdownCell(w.label) << " | no profile: " << markdownCell(w.problem) << " | | | | | |\n";
            continue;
        }
        const auto &p = *w.profile;
        out << "| " << markdownCell(w.label) << " | " << markdownCell(w.verdict->text) << " | " << fmt(p.busyMs, "%.2f")
            << " / " << fmt(w.verdict->stepMs, "%.2f") << " ms ("
            << profile::busyShareText(p.busyMs, w.verdict->stepMs, p.device == "cpu") << ") | "
            << fmt(p.kernelsPerStep, "%.0f") << " | "
            << (p.device == "cpu" ? std::string("-") : fmt(p.launchCpuMs, "%.2f") + " ms") << " | " << computeCell(r)
            << " | "
            << (p.kernels.empty() ? std::string("-")
                                  : markdownCell(shortKernel(p.kernels.front().name, 60)) + " (" +
                                        fmt(p.kernels.front().msPerStep, "%.3f") + " ms)")
            << " |\n";
    }
    out << "\nBusy: the union of GPU activity in the profile (CPU runs: time inside ATen ops) over the timed "
           "steady step. Profiles are taken after the timed steps, never during them.\n";
    for (const WhyRow &w : rows) {
        if (!w.verdict || topKernels == 0)
            continue;
        out << "\n" << markdownCell(w.label) << ", top kernels:\n\n";
        std::size_t shown = 0;
        for (const auto &k : w.profile->kernels) {
            if (shown++ >= topKernels)
                break;
            out << "- " << fmt(k.msPerStep, "%.3f") << " ms, " << fmt(k.countPerStep, "%.0f") << " per step, "
                << profile::displayName(k.family) << ": `" << shortKernel(k.name, 100) << "`\n";
        }
    }
    return out.str();
}

std::vector<std::string> runProfileLines(const store::RunRecord &run, std::size_t topKernels)
{
    const auto stored = profile::profileFromJson(run.profileJson);
    if (!stored)
        return {};
    if (!stored->summary && stored->problem.empty())
        return {}; // a failed run's memory snapshot alone (report/memory_text.h)
    if (!stored->summary)
        return {"Profile: none (" + stored->problem + "); the timed figures are complete"};
    const profile::ProfileSummary &p = *stored->summary;
    const bool gpu = p.device != "cpu";
    std::vector<std::string> lines;
    lines.push_back("Profile: " + std::to_string(p.steps) + " steps after the timed ones (" +
                    (gpu ? "Kineto/CUPTI kernels" : "ATen ops on the CPU") + ")");
    lines.push_back(std::string(profile::busyName(p)) + " " + fmt(p.busyMs, "%.3f") + " ms per step of " +
                    fmt(p.profiledStepMs, "%.3f") + " ms profiled (" +
                    profile::busyShareText(p.busyMs, p.profiledStepMs, !gpu) + ")");
    lines.push_back(fmt(p.kernelsPerStep, "%.0f") +
                    (gpu ? " kernels, " + fmt(p.launchesPerStep, "%.0f") + " launches taking " +
                               fmt(p.launchCpuMs, "%.3f") + " ms of CPU per step"
                         : std::string(" ATen ops per step")));
    lines.push_back("Trace: " + (stored->traceFile.empty()
                                     ? std::string("not kept") + (p.note.empty() ? "" : " (" + p.note + ")")
                                     : stored->traceFile + " beside the database"));
    std::size_t shown = 0;
    for (const auto &k : p.kernels) {
        if (shown++ >= topKernels)
            break;
        lines.push_back(fmt(k.msPerStep, "%.3f") + " ms x" + fmt(k.countPerStep, "%.0f") + "  " +
                        shortKernel(k.name, 90) + " [" + profile::displayName(k.family) + "]");
    }
    return lines;
}

BatchScan batchScan(const store::Reader &reader, std::int64_t sweepId, std::int64_t plannedSteps,
                    stats::CancelToken cancel)
{
    BatchScan scan;
    const Ledger first = buildLedger(reader, sweepId, plannedSteps, cancel);
    if (first.batches.size() < 2)
        return scan;
    scan.batches = first.batches;
    std::vector<std::vector<BatchPoint>> points; // per scan row, per batch: what its verdict reads
    for (std::size_t b = 0; b < scan.batches.size(); ++b) {
        const int batch = scan.batches[b];
        const Ledger ledger =
            batch == first.batch ? first : buildLedger(reader, sweepId, plannedSteps, cancel, first.start, batch);
        scan.recommended.push_back(ledger.recommendationText);
        const auto why = whyRows(ledger);
        for (const WhyRow &w : why) {
            const LedgerRow &r = ledger.rows[w.row];
            auto row = std::find_if(scan.rows.begin(), scan.rows.end(),
                                    [&](const BatchScan::Row &x) { return x.label == r.label; });
            if (row == scan.rows.end()) {
                scan.rows.push_back({r.label, std::vector<BatchScan::Cell>(scan.batches.size())});
                row = scan.rows.end() - 1;
                points.emplace_back(scan.batches.size());
                for (std::size_t k = 0; k < scan.batches.size(); ++k)
                    row->cells[k].batch = points.back()[k].batch = scan.batches[k];
            }
            BatchPoint &point = points[std::size_t(row - scan.rows.begin())][b];
            point.steadyMs = r.steadyMs;
            point.steadyCI = r.steadyCI;
            point.firstStepMs = r.firstStepMs;
            point.processes = processSummariesOf(r);
            BatchScan::Cell &cell = row->cells[b];
            cell.stepMs = r.steadyMs;
            if (r.steadyMs)
                cell.perImageMs = *r.steadyMs / batch;
            if (w.verdict) {
                cell.busyShare = w.verdict->busyShare;
                cell.bound = w.verdict->bound;
            }
        }
    }
    for (std::size_t i = 0; i < scan.rows.size(); ++i)
        scan.verdicts.push_back(batchVerdictOf(scan.rows[i].label, points[i], cancel));
    return scan;
}

std::string batchScanText(const BatchScan &scan)
{
    if (scan.batches.empty())
        return {};
    std::ostringstream out;
    out << "\n### Across batch sizes: step time per image (busy share)\n\n| configuration |";
    for (const int b : scan.batches)
        out << " b" << b << " |";
    out << "\n|---|";
    for (std::size_t i = 0; i < scan.batches.size(); ++i)
        out << "---:|";
    out << "\n";
    for (const auto &row : scan.rows) {
        out << "| " << markdownCell(row.label) << " |";
        for (const auto &c : row.cells) {
            out << ' ' << (c.perImageMs ? fmt(*c.perImageMs * 1000, "%.1f") + " us" : std::string("-"));
            if (c.busyShare)
                out << " (" << pct(*c.busyShare) << ")";
            out << " |";
        }
        out << "\n";
    }
    out << "\nPer image: the steady step over the batch. Busy: the profile's GPU busy time over the timed step.\n";
    if (!scan.verdicts.empty())
        out << "\nPer sample, with 95% CIs over cold processes:\n\n";
    for (const BatchVerdict &verdict : scan.verdicts)
        out << "- " << markdownCell(batchVerdictText(verdict)) << "\n";
    for (std::size_t i = 0; i < scan.batches.size(); ++i)
        if (!scan.recommended[i].empty())
            out << "\n- b" << scan.batches[i] << ": " << markdownCell(scan.recommended[i]) << "\n";
    return out.str();
}

} // namespace stepscope::report
