#include "report/regression_gate.h"

#include "report/comparison_text.h"

#include <QJsonArray>

#include <algorithm>
#include <cstdio>

namespace stepscope::report
{
namespace
{

std::string percent(double fraction)
{
    char text[32];
    std::snprintf(text, sizeof text, "%+.1f%%", fraction * 100);
    return text;
}

// Worse verdicts rank higher: a row is its worst check.
int rank(GateVerdict v)
{
    switch (v) {
    case GateVerdict::Pass:
        return 0;
    case GateVerdict::NoData:
        return 1;
    case GateVerdict::Suspect:
        return 2;
    case GateVerdict::Regressed:
        return 3;
    }
    return 0;
}

GateCheck steadyCheck(const ComparisonRow &row, double maxSlowdown)
{
    GateCheck c;
    c.what = "steady";
    if (!row.ratio) {
        c.verdict = GateVerdict::NoData;
        c.why = row.outcome == ComparisonOutcome::OnlyInA   ? "not in the new sweep"
                : row.outcome == ComparisonOutcome::OnlyInB ? "not in the sweep checked against"
                                                            : "no steady state on one side";
        return c;
    }
    const stats::RatioCI &r = *row.ratio;
    c.ratio = r.ratio;
    if (r.hasInterval) {
        c.low = r.low;
        c.high = r.high;
    }
    c.verdict = steadyVerdict(r, maxSlowdown);
    if (c.verdict == GateVerdict::Regressed) {
        c.why = "slower by " + percent(r.ratio - 1) + ", its 95% interval [" + percent(r.low - 1) + ", " +
                percent(r.high - 1) + "] wholly beyond " + percent(maxSlowdown);
    } else if (c.verdict == GateVerdict::Suspect) {
        c.why = r.hasInterval ? "slower by " + percent(r.ratio - 1) + ", but its 95% interval [" +
                                    percent(r.low - 1) + ", " + percent(r.high - 1) + "] reaches inside " +
                                    percent(maxSlowdown) + ": more processes would tell"
                              : "slower by " + percent(r.ratio - 1) + " with one process a side: no interval";
    } else {
        c.why = percent(r.ratio - 1);
    }
    return c;
}

// First steps of one start state: the processes' range on each side. Regressed when B's fastest
// process is slower than A's slowest by more than the threshold (no overlap left to explain it).
std::optional<GateCheck> firstStepCheck(const LedgerRow &a, const LedgerRow &b, store::StartState state,
                                        double maxFirstStep)
{
    const LedgerRow::StartFigures &fa = a.figuresOf(state), &fb = b.figuresOf(state);
    if (!fa.firstStepMs || !fb.firstStepMs || *fa.firstStepMs <= 0)
        return std::nullopt;
    GateCheck c;
    c.what = "first step (" + std::string(store::toString(state)) + ")";
    c.ratio = *fb.firstStepMs / *fa.firstStepMs;
    const double limit = 1 + maxFirstStep;
    const double aMax = fa.maxMs.value_or(*fa.firstStepMs), bMin = fb.minMs.value_or(*fb.firstStepMs);
    const bool ranges = fa.processes >= 2 && fb.processes >= 2;
    if (ranges && bMin > aMax * limit) {
        c.verdict = GateVerdict::Regressed;
        c.why = "slower by " + percent(c.ratio - 1) + ": every new process above every old one by more than " +
                percent(maxFirstStep);
    } else if (c.ratio > limit) {
        c.verdict = GateVerdict::Suspect;
        c.why = "slower by " + percent(c.ratio - 1) +
                (ranges ? ", but the processes' ranges overlap" : ", with fewer than two processes a side");
    } else {
        c.why = percent(c.ratio - 1);
    }
    return c;
}

} // namespace

GateVerdict steadyVerdict(const stats::RatioCI &r, double maxSlowdown)
{
    const double limit = 1 + maxSlowdown;
    if (r.hasInterval && r.low > limit)
        return GateVerdict::Regressed;
    return r.ratio > limit ? GateVerdict::Suspect : GateVerdict::Pass;
}

const char *toString(GateVerdict verdict)
{
    switch (verdict) {
    case GateVerdict::Pass:
        return "pass";
    case GateVerdict::Regressed:
        return "regressed";
    case GateVerdict::Suspect:
        return "suspect";
    case GateVerdict::NoData:
        return "no_data";
    }
    return "pass";
}

bool GateResult::regressed() const
{
    return count(GateVerdict::Regressed) > 0;
}

int GateResult::count(GateVerdict verdict) const
{
    return static_cast<int>(
        std::count_if(rows.begin(), rows.end(), [verdict](const GateRow &r) { return r.verdict == verdict; }));
}

GateResult checkRegression(const Ledger &a, const Ledger &b, const SweepComparison &comparison, const GateRule &rule)
{
    GateResult result;
    result.rule = rule;
    result.setup = comparison.setup;
    for (const ComparisonRow &row : comparison.rows) {
        GateRow out;
        out.label = comparisonLabel(a, b, row);
        out.checks.push_back(steadyCheck(row, rule.maxSlowdown));
        if (rule.maxFirstStep && row.a && row.b)
            for (const store::StartState state : store::kStartStates)
                if (const auto check = firstStepCheck(a.rows[*row.a], b.rows[*row.b], state, *rule.maxFirstStep))
                    out.checks.push_back(*check);
        for (const GateCheck &c : out.checks)
            if (rank(c.verdict) > rank(out.verdict))
                out.verdict = c.verdict;
        result.rows.push_back(std::move(out));
    }
    return result;
}

std::string gateText(const GateResult &r, const std::string &titleA, const std::string &titleB)
{
    std::string out = "check: " + titleB + "\n  against " + titleA + "\n";
    out += "  threshold: steady " + percent(r.rule.maxSlowdown) +
           (r.rule.maxFirstStep ? ", first steps " + percent(*r.rule.maxFirstStep) : std::string(", first steps unchecked")) +
           "\n";
    for (const SetupDifference &d : r.setup.differences)
        out += "  differs: " + differenceText(d) + "\n";
    // Every row, its checks that did not pass first: a pass says by how much it moved.
    for (const GateRow &row : r.rows)
        for (const GateCheck &c : row.checks)
            if (row.verdict == GateVerdict::Pass ? c.what == "steady" : c.verdict != GateVerdict::Pass)
                out += std::string("  ") + (c.verdict == GateVerdict::Pass ? "ok" : toString(c.verdict)) + ": " +
                       row.label + ", " + c.what + ": " + c.why + "\n";
    char tally[160];
    std::snprintf(tally, sizeof tally, "%d regressed, %d suspect, %d without data, %d within the threshold\n",
                  r.count(GateVerdict::Regressed), r.count(GateVerdict::Suspect), r.count(GateVerdict::NoData),
                  r.count(GateVerdict::Pass));
    return out + tally;
}

QJsonObject gateJson(const GateResult &r, const std::string &titleA, const std::string &titleB)
{
    QJsonArray rows;
    for (const GateRow &row : r.rows) {
        QJsonArray checks;
        for (const GateCheck &c : row.checks) {
            QJsonObject o{{"what", QString::fromStdString(c.what)},
                          {"verdict", toString(c.verdict)},
                          {"why", QString::fromStdString(c.why)}};
            if (c.ratio > 0)
                o.insert("ratio", c.ratio);
            if (c.low)
                o.insert("low", *c.low);
            if (c.high)
                o.insert("high", *c.high);
            checks.append(o);
        }
        rows.append(QJsonObject{{"configuration", QString::fromStdString(row.label)},
                                {"verdict", toString(row.verdict)},
                                {"checks", checks}});
    }
    QJsonArray differences;
    for (const SetupDifference &d : r.setup.differences)
        differences.append(QString::fromStdString(differenceText(d)));
    QJsonObject rule{{"max_slowdown", r.rule.maxSlowdown}};
    if (r.rule.maxFirstStep)
        rule.insert("max_first_step", *r.rule.maxFirstStep);
    return QJsonObject{{"against", QString::fromStdString(titleA)},
                       {"checked", QString::fromStdString(titleB)},
                       {"rule", rule},
                       {"regressed", r.regressed()},
                       {"differences", differences},
                       {"counts", QJsonObject{{"regressed", r.count(GateVerdict::Regressed)},
                                              {"suspect", r.count(GateVerdict::Suspect)},
                                              {"no_data", r.count(GateVerdict::NoData)},
                                              {"pass", r.count(GateVerdict::Pass)}}},
                       {"rows", rows}};
}

} // namespace stepscope::report
