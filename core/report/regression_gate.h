#pragma once
// A regression gate over two sweeps (issue 29.3): after a torch, driver or code upgrade, the same
// sweep again (`run --again`) is checked against the one before. A configuration regressed only
// when its interval lies wholly beyond the threshold: B/A's 95% CI over cold processes above
// 1 + max slowdown for steady steps; for first steps, every process of B slower than every process
// of A by more than the threshold, in each start state both ran. Whatever might have regressed
// without the data to say so is suspect, never a pass nor a failure; what one side lacks is said.
// `stepscope-cli check` exits 1 on a regression; both front-ends word it from here.
#include "report/ledger.h"
#include "report/sweep_comparison.h"

#include <QJsonObject>

#include <optional>
#include <string>
#include <vector>

namespace stepscope::report
{

struct GateRule {
    double maxSlowdown = 0.05;              // B/A steady above 1 + this is a slowdown
    std::optional<double> maxFirstStep;     // first steps: B above A by more than this; unset: unchecked
};

enum class GateVerdict {
    Pass,      // within the threshold, or its interval reaches inside it while its point does not leave it
    Regressed, // its interval lies wholly beyond the threshold
    Suspect,   // its point is beyond the threshold but its interval is not wholly (or it has none)
    NoData,    // one side has no steady state, or no row
};
const char *toString(GateVerdict verdict); // "pass", "regressed", "suspect", "no_data"

// The steady rule alone, on a ratio B/A with its interval (bench/gate_power measures it).
GateVerdict steadyVerdict(const stats::RatioCI &ratio, double maxSlowdown);

struct GateCheck {
    std::string what;            // "steady", "first step (fresh)", ...
    GateVerdict verdict = GateVerdict::Pass;
    double ratio = 0;            // B/A
    std::optional<double> low, high;
    std::string why;             // the words of the verdict
};

struct GateRow {
    std::string label;
    std::vector<GateCheck> checks;
    GateVerdict verdict = GateVerdict::Pass; // the worst of its checks
};

struct GateResult {
    GateRule rule;
    std::vector<GateRow> rows; // in the comparison's order
    ComparisonSetup setup;     // how the two sweeps ran differently (both environments)
    bool regressed() const;
    int count(GateVerdict verdict) const;
};

GateResult checkRegression(const Ledger &a, const Ledger &b, const SweepComparison &comparison, const GateRule &rule);

// For people: one line per row that did not pass, then the tally; for CI: the same as JSON.
std::string gateText(const GateResult &result, const std::string &titleA, const std::string &titleB);
QJsonObject gateJson(const GateResult &result, const std::string &titleA, const std::string &titleB);

} // namespace stepscope::report
