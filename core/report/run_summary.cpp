#include "report/run_summary.h"

#include "stats/stats.h"

namespace stepscope::report
{

StepSeries stepSeries(const std::vector<store::StepRow> &steps)
{
    StepSeries s;
    s.ms.reserve(steps.size());
    for (const auto &step : steps) {
        if (step.index < 2)
            continue; // step 1 is the first-step figure, never part of the steady state
        s.gpu = s.gpu || step.gpuMs.has_value();
        s.ms.push_back(step.gpuMs ? *step.gpuMs : step.wallMs);
    }
    return s;
}

StepWindow steadyWindowOf(const StepSeries &series)
{
    const auto window = stats::detectSteadyState(series.ms);
    StepWindow w;
    w.found = window.found;
    w.problem = window.problem;
    if (window.found) {
        w.first = static_cast<std::int64_t>(window.begin) + 2; // ms[0] is step 2
        w.count = static_cast<std::int64_t>(window.end - window.begin);
    }
    return w;
}

store::RunSummary summarizeSeries(const StepSeries &series)
{
    store::RunSummary summary;
    summary.timing = series.gpu ? store::Timing::Gpu : store::Timing::Wall;
    summary.methodVersion = kSummaryMethodVersion;
    const StepWindow window = steadyWindowOf(series);
    if (!window.found) {
        summary.problem = window.problem;
        return summary;
    }
    const auto begin = series.ms.begin() + static_cast<long>(window.first - 2);
    const std::vector<double> steady(begin, begin + static_cast<long>(window.count));
    const auto s = stats::summarize(steady);
    summary.medianMs = s.median;
    summary.p10Ms = s.p10;
    summary.p90Ms = s.p90;
    summary.iqrMs = s.iqr;
    summary.madMs = s.mad;
    summary.cv = s.cv;
    summary.steadyBegin = window.first;
    summary.steadyCount = window.count;
    summary.noise = stats::toString(stats::noiseOf(s));
    return summary;
}

store::RunSummary summarizeSteps(const std::vector<store::StepRow> &steps)
{
    return summarizeSeries(stepSeries(steps));
}

bool hasSteadyState(const store::RunSummary &summary)
{
    return summary.steadyCount > 0 && summary.medianMs.has_value();
}

std::vector<double> steadySamples(const StepSeries &series, const store::RunSummary &summary)
{
    if (!hasSteadyState(summary) || summary.steadyBegin < 2)
        return {};
    const auto begin = static_cast<std::size_t>(summary.steadyBegin - 2);
    const auto end = begin + static_cast<std::size_t>(summary.steadyCount);
    if (end > series.ms.size())
        return {}; // not the steps this summary was computed from
    return std::vector<double>(series.ms.begin() + static_cast<long>(begin),
                               series.ms.begin() + static_cast<long>(end));
}

namespace
{

std::optional<store::RunSummary> storedSummary(const store::Reader &reader, const store::RunRecord &run)
{
    if (run.status != RunStatus::Complete)
        return std::nullopt; // only completed runs are summarized; others are read on the fly
    auto stored = reader.summary(run.id);
    if (!stored || stored->methodVersion < kSummaryMethodVersion)
        return std::nullopt;
    // A summary of a file before schema 6 without a steady state kept its reason as words only:
    // read again, so that the reason is data (a read-only file is never migrated).
    if (!hasSteadyState(*stored) && !stored->problem)
        return std::nullopt;
    return stored;
}

} // namespace

RunReading readRun(const store::Reader &reader, const store::RunRecord &run)
{
    RunReading r;
    r.series = stepSeries(reader.steps(run.id));
    if (auto stored = storedSummary(reader, run)) {
        r.summary = std::move(*stored);
        r.stored = true;
    } else {
        r.summary = summarizeSeries(r.series);
    }
    r.steady = steadySamples(r.series, r.summary);
    return r;
}

store::RunSummary summaryOf(const store::Reader &reader, const store::RunRecord &run)
{
    if (auto stored = storedSummary(reader, run))
        return *stored;
    return summarizeSteps(reader.steps(run.id));
}

int refreshSummaries(store::Database &db, const store::Reader &reader)
{
    int written = 0;
    for (const std::int64_t runId : reader.runsNeedingSummary(kSummaryMethodVersion)) {
        db.setSummary(runId, summarizeSteps(reader.steps(runId)));
        ++written;
    }
    if (written > 0)
        db.flush();
    return written;
}

int refreshSummaries(store::Database &db)
{
    const auto reader = store::Reader::open(db.path());
    return refreshSummaries(db, *reader);
}

} // namespace stepscope::report
