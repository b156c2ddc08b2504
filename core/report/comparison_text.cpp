#include "report/comparison_text.h"

#include "report/environment_pair.h"
#include "report/json_number.h"
#include "report/number_text.h"
#include "report/peak_memory.h"

#include <QJsonArray>

#include <algorithm>
#include <cmath>
#include <sstream>

namespace stepscope::report
{
namespace
{

std::string nameOf(const std::string &given, const Ledger &ledger)
{
    return given.empty() ? sweepTitle(ledger) : given;
}

const std::string &configNameOf(const ComparisonSides &sides, const ComparisonRow &row)
{
    return row.a ? sides.a.rows[*row.a].configName : sides.b.rows[*row.b].configName;
}

std::string ratioNumber(double v)
{
    return formatNumber("%.2f", v);
}

// A side's row, or none where the configuration is only on the other side.
const LedgerRow *rowOf(const Ledger &ledger, const std::optional<std::size_t> &index)
{
    return index ? &ledger.rows[*index] : nullptr;
}

// What a row costs besides time (issue 31) for the comparison: peak allocated MiB (per step: a
// process's peak does not divide by its batch) and joules per step, or per sample where the sides
// compare per sample (a step's joules do), as the time figures are.
struct CostFigures {
    std::optional<double> peakMiB, joules;
};
CostFigures costOf(const LedgerRow *row, bool perSample, int batch)
{
    CostFigures out;
    if (!row)
        return out;
    if (row->memory.allocated)
        out.peakMiB = row->memory.allocated->medianMiB;
    if (row->energy.joulesPerStep && (!perSample || batch > 0))
        out.joules = *row->energy.joulesPerStep / (perSample ? batch : 1);
    return out;
}

bool anyCost(const ComparisonSides &sides, const SweepComparison &comparison)
{
    for (const ComparisonRow &row : comparison.rows)
        for (const CostFigures &c : {costOf(rowOf(sides.a, row.a), false, 1), costOf(rowOf(sides.b, row.b), false, 1)})
            if (c.peakMiB || c.joules)
                return true;
    return false;
}

std::string costRatioText(const std::optional<double> &a, const std::optional<double> &b)
{
    return a && b && *a > 0 ? ratioNumber(*b / *a) + "x" : "-";
}

std::string joulesText(const std::optional<double> &joules)
{
    return joules ? formatNumber(*joules < 1 ? "%.3f J" : "%.2f J", *joules) : "-";
}

} // namespace

std::string comparisonNumber(double ms)
{
    const double m = std::abs(ms);
    return formatNumber(m < 1 ? "%.3f" : m < 100 ? "%.2f" : "%.1f", ms);
}

std::string comparisonMsText(double ms)
{
    return comparisonNumber(ms) + " ms";
}

std::string comparisonFigureText(const std::optional<ComparisonFigure> &figure)
{
    if (!figure)
        return "-";
    const std::string median = comparisonMsText(figure->ms);
    if (!figure->lowMs || !figure->highMs)
        return median + " (" + kNoIntervalShort + ")";
    return median + " [" + comparisonNumber(*figure->lowMs) + "-" + comparisonNumber(*figure->highMs) + "]";
}

std::string comparisonRatioText(const std::optional<stats::RatioCI> &ratio)
{
    if (!ratio)
        return "-";
    if (!ratio->hasInterval)
        return ratioNumber(ratio->ratio) + "x (" + kNoIntervalShort + ")";
    return ratioNumber(ratio->ratio) + "x [" + ratioNumber(ratio->low) + "-" + ratioNumber(ratio->high) + "]";
}

std::string comparisonOutcomeText(const ComparisonRow &row)
{
    switch (row.outcome) {
    case ComparisonOutcome::Faster:
        return "faster";
    case ComparisonOutcome::Slower:
        return "slower";
    case ComparisonOutcome::NoSignificantDifference:
        return row.ratio && !row.ratio->hasInterval ? kNoInterval : "no significant difference (interval spans 1)";
    case ComparisonOutcome::NotComparable:
        switch (row.notComparable) {
        case NotComparableReason::NoSteadyStateInA:
            return "not comparable: no steady state in A";
        case NotComparableReason::NoSteadyStateInB:
            return "not comparable: no steady state in B";
        case NotComparableReason::BatchNotRecorded:
        case NotComparableReason::None:
            return "not comparable: batch not recorded";
        }
        break;
    case ComparisonOutcome::OnlyInA:
        return "only in A";
    case ComparisonOutcome::OnlyInB:
        return "only in B";
    }
    return {};
}

const char *comparisonOutcomeId(ComparisonOutcome outcome)
{
    switch (outcome) {
    case ComparisonOutcome::Faster:
        return "faster";
    case ComparisonOutcome::Slower:
        return "slower";
    case ComparisonOutcome::NoSignificantDifference:
        return "no_significant_difference";
    case ComparisonOutcome::NotComparable:
        return "not_comparable";
    case ComparisonOutcome::OnlyInA:
        return "only_in_a";
    case ComparisonOutcome::OnlyInB:
        return "only_in_b";
    }
    return "";
}

std::string comparisonVerdict(const SweepComparison &comparison)
{
    int faster = 0, slower = 0, same = 0, noInterval = 0, notComparable = 0, onlyA = 0, onlyB = 0;
    double fastLow = 0, fastHigh = 0, slowLow = 0, slowHigh = 0;
    const auto widen = [](int count, double ratio, double &low, double &high) {
        low = count == 1 ? ratio : std::min(low, ratio);
        high = count == 1 ? ratio : std::max(high, ratio);
    };
    for (const ComparisonRow &row : comparison.rows) {
        switch (row.outcome) {
        case ComparisonOutcome::Faster:
            widen(++faster, row.ratio->ratio, fastLow, fastHigh);
            break;
        case ComparisonOutcome::Slower:
            widen(++slower, row.ratio->ratio, slowLow, slowHigh);
            break;
        case ComparisonOutcome::NoSignificantDifference:
            ++same;
            noInterval += row.ratio && !row.ratio->hasInterval;
            break;
        case ComparisonOutcome::NotComparable:
            ++notComparable;
            break;
        case ComparisonOutcome::OnlyInA:
            ++onlyA;
            break;
        case ComparisonOutcome::OnlyInB:
            ++onlyB;
            break;
        }
    }
    const int both = faster + slower + same;
    const auto range = [](int n, double low, double high) {
        return n == 1 ? " (" + ratioNumber(low) + "x)" : " (" + ratioNumber(low) + "x-" + ratioNumber(high) + "x)";
    };
    // "3", or "all 5" when every configuration falls in one class.
    const auto count = [both](int n) { return (n == both && n > 1 ? "all " : "") + std::to_string(n); };
    std::vector<std::string> parts;
    if (faster)
        parts.push_back("faster on " + count(faster) + range(faster, fastLow, fastHigh));
    if (slower)
        parts.push_back("slower on " + count(slower) + range(slower, slowLow, slowHigh));
    if (same)
        parts.push_back("not significantly different on " + count(same) +
                        (noInterval ? " (" + std::to_string(noInterval) + " with one repeat: no interval)" : ""));
    std::string text;
    if (both == 0) {
        text = "Nothing to compare: no configuration has a steady figure on both sides";
    } else {
        text = "Of " + std::to_string(both) + (both == 1 ? " configuration" : " configurations") +
               " measured on both sides, B is ";
        for (std::size_t i = 0; i < parts.size(); ++i)
            text += (i == 0 ? "" : i + 1 == parts.size() ? " and " : ", ") + parts[i];
    }
    std::vector<std::string> rest;
    if (notComparable)
        rest.push_back(std::to_string(notComparable) + " not comparable");
    if (onlyA)
        rest.push_back(std::to_string(onlyA) + " only in A");
    if (onlyB)
        rest.push_back(std::to_string(onlyB) + " only in B");
    for (std::size_t i = 0; i < rest.size(); ++i)
        text += (i == 0 ? "; " : ", ") + rest[i];
    return text + ".";
}

std::string comparisonUnit(const SweepComparison &comparison)
{
    return comparison.setup.perImage ? "ms per image" : "ms per step";
}

std::string sweepTitle(const Ledger &ledger)
{
    if (!ledger.sweep.id)
        return {};
    return "#" + std::to_string(ledger.sweep.id) + " " + ledger.sweep.name;
}

std::string comparisonMarkdown(const ComparisonSides &sides, const SweepComparison &comparison)
{
    const bool perImage = comparison.setup.perImage;
    std::ostringstream out;
    out << "## Comparison: B " << nameOf(sides.nameB, sides.b) << " against A " << nameOf(sides.nameA, sides.a)
        << "\n\n"
        << comparisonVerdict(comparison) << "\n\n";
    if (!comparison.setup.differences.empty()) {
        out << "A and B did not run alike, read the ratios with that in mind:\n\n";
        for (const SetupDifference &d : comparison.setup.differences)
            out << "- " << differenceText(d) << '\n';
        out << '\n';
    }
    if (comparison.setup.modelsDiffer)
        out << "The models differ: a step of one does other work than a step of the other, so every figure is "
               "steady time per sample (each side's step time divided by its batch), not per step.\n\n";
    else if (perImage)
        out << "The batches differ: every figure is steady time per image (each side's step time divided by its "
               "batch), not per step.\n\n";
    out << "| configuration | " << (perImage ? "A per image [95% CI]" : "steady A [95% CI]") << " | "
        << (perImage ? "B per image [95% CI]" : "steady B [95% CI]") << " | "
        << (perImage ? "B/A per image [95% CI]" : "B/A [95% CI]") << " | B is |\n|---|---:|---:|---:|---|\n";
    for (const ComparisonRow &row : comparison.rows)
        out << "| " << markdownCell(comparisonLabel(sides.a, sides.b, row)) << " | "
            << comparisonFigureText(row.figureA) << " | " << comparisonFigureText(row.figureB) << " | "
            << comparisonRatioText(row.ratio) << " | " << comparisonOutcomeText(row) << " |\n";
    out << "\nMedian steady time (" << comparisonUnit(comparison)
        << ") of each side with its 95% CI over cold processes; B/A below 1 means B is faster. Intervals "
           "resample cold processes (never narrower than each process's own steps allow); one that spans 1 is no "
           "significant difference; "
        << kNoIntervalShort << " = one repeat, no interval: run 3 or more repeats.\n";
    if (anyCost(sides, comparison)) {
        const bool perSample = comparison.setup.perImage;
        out << "\n### Memory and energy\n\n| configuration | peak A | peak B | B/A | "
            << (perSample ? "J per sample A | J per sample B" : "J/step A | J/step B") << " | B/A |\n"
            << "|---|---:|---:|---:|---:|---:|---:|\n";
        for (const ComparisonRow &row : comparison.rows) {
            const CostFigures a = costOf(rowOf(sides.a, row.a), perSample, row.batchA),
                            b = costOf(rowOf(sides.b, row.b), perSample, row.batchB);
            out << "| " << markdownCell(comparisonLabel(sides.a, sides.b, row)) << " | "
                << (a.peakMiB ? memoryFigureText(*a.peakMiB) : "-") << " | "
                << (b.peakMiB ? memoryFigureText(*b.peakMiB) : "-") << " | " << costRatioText(a.peakMiB, b.peakMiB)
                << " | " << joulesText(a.joules) << " | " << joulesText(b.joules) << " | "
                << costRatioText(a.joules, b.joules) << " |\n";
        }
        out << "\nPeak allocated GPU memory (median over processes; a process's peak, never divided by its batch) "
               "and the GPU's joules "
            << (perSample ? "per sample" : "per step")
            << " over the timed steps (mean over processes; the ledger's Energy section has their intervals). "
               "\"-\": not measured on that side (a CPU run, or a GPU without an energy counter). The ratios are "
               "point figures: read them beside the sides' spreads.\n";
    }
    const auto environments = environmentPairs(sides.a.environmentJson, sides.b.environmentJson);
    if (!environments.empty()) {
        out << "\n### Environments\n\nWhat each side ran with; facts that differ are in bold.\n\n"
               "| fact | A | B |\n|---|---|---|\n";
        for (const EnvironmentPair &e : environments) {
            const std::string mark = e.differs() ? "**" : "";
            out << "| " << mark << markdownCell(e.label) << mark << " | "
                << markdownCell(environmentValueText(e.valueA, e.recordedA)) << " | "
                << markdownCell(environmentValueText(e.valueB, e.recordedB)) << " |\n";
        }
    }
    return out.str();
}

QJsonObject comparisonJson(const ComparisonSides &sides, const SweepComparison &comparison)
{
    const auto text = [](const std::string &s) { return QJsonValue(QString::fromStdString(s)); };
    const QJsonValue null(QJsonValue::Null);
    const auto figure = [&](const std::optional<ComparisonFigure> &f) {
        if (!f)
            return null;
        return QJsonValue(QJsonObject{{"ms", f->ms},
                                      {"ci_low", jsonNumber(f->lowMs)},
                                      {"ci_high", jsonNumber(f->highMs)}});
    };
    const auto side = [&](const Ledger &l, const std::string &name) {
        return QJsonObject{{"sweep", qint64(l.sweep.id)}, {"name", text(nameOf(name, l))}};
    };
    QJsonArray differences;
    for (const SetupDifference &d : comparison.setup.differences)
        differences.append(text(differenceText(d)));
    QJsonArray rows;
    const bool perSample = comparison.setup.perImage;
    for (const ComparisonRow &row : comparison.rows) {
        const auto &r = row.ratio;
        const CostFigures costA = costOf(rowOf(sides.a, row.a), perSample, row.batchA),
                          costB = costOf(rowOf(sides.b, row.b), perSample, row.batchB);
        rows.append(QJsonObject{{"configuration", text(configNameOf(sides, row))},
                                {"knobs", text(comparisonLabel(sides.a, sides.b, row))},
                                {"a", figure(row.figureA)},
                                {"b", figure(row.figureB)},
                                {"ratio", r ? QJsonValue(r->ratio) : null},
                                {"ratio_ci_low", r && r->hasInterval ? QJsonValue(r->low) : null},
                                {"ratio_ci_high", r && r->hasInterval ? QJsonValue(r->high) : null},
                                {"significant", r ? QJsonValue(r->significant) : null},
                                {"outcome", comparisonOutcomeId(row.outcome)},
                                {"verdict", text(comparisonOutcomeText(row))},
                                {"a_peak_allocated_mib", jsonNumber(costA.peakMiB)},
                                {"b_peak_allocated_mib", jsonNumber(costB.peakMiB)},
                                {perSample ? "a_joules_per_sample" : "a_joules_per_step", jsonNumber(costA.joules)},
                                {perSample ? "b_joules_per_sample" : "b_joules_per_step", jsonNumber(costB.joules)}});
    }
    QJsonArray environments;
    for (const EnvironmentPair &e : environmentPairs(sides.a.environmentJson, sides.b.environmentJson))
        environments.append(QJsonObject{{"key", text(e.key)},
                                        {"a", e.recordedA ? text(e.valueA) : null},
                                        {"b", e.recordedB ? text(e.valueB) : null},
                                        {"differs", e.differs()}});
    return QJsonObject{{"a", side(sides.a, sides.nameA)},
                       {"b", side(sides.b, sides.nameB)},
                       {"unit", text(comparisonUnit(comparison))},
                       {"per_image", comparison.setup.perImage},
                       {"models_differ", comparison.setup.modelsDiffer},
                       {"summary", text(comparisonVerdict(comparison))},
                       {"differences", differences},
                       {"environments", environments},
                       {"rows", rows}};
}

std::string comparisonCsv(const ComparisonSides &sides, const SweepComparison &comparison)
{
    const auto num = [](const std::optional<double> &v) {
        return v && std::isfinite(*v) ? formatNumber("%.6g", *v) : std::string();
    };
    const auto ms = [](const std::optional<ComparisonFigure> &f) {
        return f ? std::optional<double>(f->ms) : std::nullopt;
    };
    std::ostringstream out;
    out << "configuration,knobs,unit,a_ms,a_ci_low,a_ci_high,b_ms,b_ci_low,b_ci_high,ratio,ratio_ci_low,ratio_ci_high,"
           "significant,outcome,a_peak_allocated_mib,b_peak_allocated_mib,a_joules,b_joules\n";
    for (const ComparisonRow &row : comparison.rows) {
        const auto &r = row.ratio;
        const bool interval = r && r->hasInterval;
        out << csvField(configNameOf(sides, row)) << ',' << csvField(comparisonLabel(sides.a, sides.b, row)) << ','
            << comparisonUnit(comparison) << ',' << num(ms(row.figureA)) << ','
            << num(row.figureA ? row.figureA->lowMs : std::nullopt) << ','
            << num(row.figureA ? row.figureA->highMs : std::nullopt) << ',' << num(ms(row.figureB)) << ','
            << num(row.figureB ? row.figureB->lowMs : std::nullopt) << ','
            << num(row.figureB ? row.figureB->highMs : std::nullopt) << ','
            << num(r ? std::optional<double>(r->ratio) : std::nullopt) << ','
            << num(interval ? std::optional<double>(r->low) : std::nullopt) << ','
            << num(interval ? std::optional<double>(r->high) : std::nullopt) << ','
            << (r ? (r->significant ? "yes" : "no") : "") << ',' << comparisonOutcomeId(row.outcome);
        const bool perSample = comparison.setup.perImage;
        const CostFigures a = costOf(rowOf(sides.a, row.a), perSample, row.batchA),
                            b = costOf(rowOf(sides.b, row.b), perSample, row.batchB);
        out << ',' << num(a.peakMiB) << ',' << num(b.peakMiB) << ',' << num(a.joules) << ',' << num(b.joules) << '\n';
    }
    return out.str();
}

} // namespace stepscope::report
