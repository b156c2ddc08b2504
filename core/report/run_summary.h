#pragma once
// The one reading of a run: which of its steps are steady, and the figures over them. It is
// computed once when a run completes (the supervisor) and stored (store::RunSummary); every view
// (ledger, exports, CLI, charts, history) reads the stored summary. A run without a current one
// (still running, or stored by an older rule) is read by this same function on the fly.
#include "store/store.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace stepscope::report
{

// The version of the rule below (series, steady-state detection, noise thresholds). Bump it when
// any of them changes: summaries of an older version are recomputed when a database is opened
// (refreshSummaries).
constexpr int kSummaryMethodVersion = 1;

// A run's step times from step 2 on (step 1 is the first-step figure): CUDA-event time where the
// worker had it, else wall time. `gpu` says whether any step had a CUDA-event time.
struct StepSeries {
    std::vector<double> ms; // ms[0] is step 2
    bool gpu = false;
};
StepSeries stepSeries(const std::vector<store::StepRow> &steps);

// The steady window alone, as summarizeSeries finds it (its first part), for a view that needs no
// figures: the live chart re-reads a growing run twice a second. Steps [first, first + count).
struct StepWindow {
    bool found = false;
    std::int64_t first = 0, count = 0;
    std::optional<SteadyProblem> problem; // why there is none
};
StepWindow steadyWindowOf(const StepSeries &series);

// The summary of a run's stored steps: steady window, median, p10/p90, IQR, MAD, cv, noise, timing.
store::RunSummary summarizeSteps(const std::vector<store::StepRow> &steps);
store::RunSummary summarizeSeries(const StepSeries &series);

// The steps inside a summary's window, from the series it was computed from (empty without one).
std::vector<double> steadySamples(const StepSeries &series, const store::RunSummary &summary);

// Whether the summary found a steady state.
bool hasSteadyState(const store::RunSummary &summary);

// A stored run as every view reads it: its stored summary when that is of the current rule, else
// the same rule applied now; with its series and the steady samples inside the window.
struct RunReading {
    store::RunSummary summary;
    StepSeries series;
    std::vector<double> steady;
    bool stored = false; // the summary came from the database
};
RunReading readRun(const store::Reader &reader, const store::RunRecord &run);
// The summary alone: reads the steps only when no current summary is stored.
store::RunSummary summaryOf(const store::Reader &reader, const store::RunRecord &run);

// Computes and stores the summary of every completed run whose summary is missing or of an older
// rule (Reader::runsNeedingSummary). Whoever opens a database for writing calls it once after the
// open (the CLI, the dashboard): the store knows no statistics. Returns how many it wrote; throws
// store::StoreError when they cannot be written.
int refreshSummaries(store::Database &db, const store::Reader &reader);
int refreshSummaries(store::Database &db); // opens its own Reader on db.path()

} // namespace stepscope::report
