#include "report/batch_scan_verdict.h"

#include "report/ledger_text.h"
#include "report/number_text.h"
#include "report/sweep_comparison.h"

#include <algorithm>

namespace stepscope::report
{
namespace
{

std::string batchName(int batch)
{
    return "b" + std::to_string(batch);
}

// A time per sample in ms, or in us under a millisecond (a large batch's per-sample time of a
// small model is tens of microseconds): the interval takes the unit of its centre.
std::string perSampleText(double ms, const std::optional<stats::MedianCI> &ci)
{
    const bool micro = ms < 1.0;
    const double k = micro ? 1000.0 : 1.0;
    const char *format = micro ? "%.1f" : "%.2f";
    std::string text = formatNumber(format, ms * k) + (micro ? " us" : " ms") + " per sample";
    if (ci && ci->hasInterval)
        text += " (95% CI " + formatNumber(format, ci->low * k) + "-" + formatNumber(format, ci->high * k) + ")";
    else
        text += std::string(" (") + kNoIntervalShort + ")";
    return text;
}

} // namespace

BatchVerdict batchVerdictOf(const std::string &label, const std::vector<BatchPoint> &points, stats::CancelToken cancel)
{
    BatchVerdict verdict;
    verdict.label = label;
    std::vector<std::size_t> measured; // points with a steady time, fastest per sample first
    for (std::size_t i = 0; i < points.size(); ++i) {
        const BatchPoint &p = points[i];
        BatchVerdict::At at;
        at.batch = p.batch;
        at.firstStepMs = p.firstStepMs;
        if (p.steadyMs && p.batch > 0) {
            at.perSampleMs = *p.steadyMs / p.batch;
            if (p.steadyCI) {
                stats::MedianCI ci = *p.steadyCI;
                ci.median /= p.batch;
                ci.low /= p.batch;
                ci.high /= p.batch;
                at.perSampleCI = ci;
            }
            measured.push_back(i);
        }
        verdict.at.push_back(at);
    }
    std::stable_sort(measured.begin(), measured.end(), [&](std::size_t a, std::size_t b) {
        return *verdict.at[a].perSampleMs < *verdict.at[b].perSampleMs;
    });
    if (measured.empty())
        return verdict;
    verdict.fastest = measured[0];
    if (measured.size() < 2)
        return verdict;
    verdict.next = measured[1];
    const BatchPoint &fast = points[*verdict.fastest], &next = points[*verdict.next];
    // Step over step, each side's processes resampled as every ratio of the ledger, then per sample:
    // (fast step / fast batch) / (next step / next batch).
    verdict.ratio =
        perImageRatio(stats::ratioOfMedians(fast.processes, next.processes, stats::kResamples, stats::kSeed, cancel),
                      next.batch, fast.batch);
    return verdict;
}

std::string batchVerdictHeadline(const BatchVerdict &v)
{
    if (!v.fastest)
        return "no steady time at any batch";
    const std::string fast = batchName(v.at[*v.fastest].batch);
    if (!v.next)
        return "a steady time at " + fast + " only: nothing to compare per sample";
    const std::string next = batchName(v.at[*v.next].batch);
    const bool several = v.at.size() > 2;
    const stats::RatioCI &r = *v.ratio;
    // Equal to the shown digits: "1.00x faster" would read as a finding.
    const bool even = formatNumber("%.2f", r.ratio) == "1.00";
    if (!r.hasInterval)
        return (even ? fast + " and " + next + " took the same time per sample"
                     : fast + " was " + factorWords(r) + " per sample than " + next) +
               " (" + kNoInterval + ": not a verdict)";
    if (!r.significant)
        return std::string("no significant difference per sample between ") + fast + " and " + next +
               (several ? ", the fastest two" : "") + " (" + (even ? "" : fast + " ") + factorWords(r) + ", " +
               factorIntervalText(r) + ")";
    return fast + " is " + factorWords(r) + " per sample than " + next + (several ? ", the next fastest" : "") + " (" +
           factorIntervalText(r) + ")";
}

std::string batchVerdictFigures(const BatchVerdict &v)
{
    std::string text;
    for (const BatchVerdict::At &at : v.at) {
        if (!text.empty())
            text += "; ";
        text += batchName(at.batch) + ": " +
                (at.perSampleMs ? perSampleText(*at.perSampleMs, at.perSampleCI) : std::string("no steady time"));
        if (at.firstStepMs)
            text += ", first step " + formatSeconds(*at.firstStepMs / 1000.0);
    }
    return text;
}

std::string batchVerdictText(const BatchVerdict &v)
{
    return v.label + ": " + batchVerdictHeadline(v) + ". " + batchVerdictFigures(v) + ".";
}

} // namespace stepscope::report
