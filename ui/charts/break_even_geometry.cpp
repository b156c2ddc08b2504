#include "charts/break_even_geometry.h"

#include "models/figure_text.h"

#include <QCoreApplication>
#include <QStringList>

#include <algorithm>
#include <cmath>
#include <limits>

namespace stepscope::ui
{
namespace
{

constexpr int kSamples = 256; // per line, spaced evenly on the log axis
// The deciding crossing is drawn when it lies within this many planned runs; beyond that the
// x axis would squeeze everything that matters for N into its left edge.
constexpr double kDecidingReach = 50;

// The chart's words, in the chart's translation context (they were its tr() before).
QString tr(const char *text)
{
    return QCoreApplication::translate("stepscope::ui::BreakEvenChart", text);
}

double cumulativeSeconds(const report::LedgerRow &row, double steps)
{
    return (*row.firstStepMs + (steps - 1) * *row.steadyMs) / 1000.0;
}

// "752 shipped · 299 again": the row's break-even in each start state its line is not drawn for,
// those it ran; "" without any.
QString otherStartText(const report::LedgerRow &row)
{
    if (row.firstStepStart == store::StartState::Unrecorded)
        return {};
    QStringList parts;
    for (const store::StartState other : store::kStartStates) {
        const report::LedgerRow::StartFigures &f = row.figuresOf(other);
        if (other == row.firstStepStart || !f.firstStepMs)
            continue;
        const QString steps = !f.breakEvenSteps        ? tr("never")
                              : *f.breakEvenSteps <= 1 ? tr("immediately")
                                                       : formatStepCount(*f.breakEvenSteps);
        parts << steps + QLatin1Char(' ') + QString::fromLatin1(store::toString(other).data());
    }
    return parts.join(QStringLiteral(" \u00b7 "));
}

bool hasLine(const report::LedgerRow &row)
{
    return row.firstStepMs && row.steadyMs && *row.firstStepMs > 0 && *row.steadyMs > 0;
}

QString shortName(const report::LedgerRow &row)
{
    return shortAxisLabel(QString::fromStdString(
        row.axisLabel.empty() ? (row.label.empty() ? row.configName : row.label) : row.axisLabel));
}

// The crossing that decides: where the recommended configuration's line meets the runner-up's, as
// the ledger computed it (with its own interval, whichever rows the two are).
std::optional<BreakEvenGeometry::DecidingCrossing> decidingCrossing(const report::Ledger &ledger, double planned)
{
    const auto &rows = ledger.rows;
    const auto &recommendation = ledger.recommendation;
    const auto &crossing = ledger.decidingCrossing;
    if (!recommendation || !recommendation->runnerUp || !crossing)
        return std::nullopt;
    const int b = int(recommendation->best), r = int(*recommendation->runnerUp);
    if (!(b < int(rows.size()) && r < int(rows.size()) && hasLine(rows[b]) && hasLine(rows[r]) &&
          crossing->steps <= kDecidingReach * std::max(planned, 10.0)))
        return std::nullopt;
    BreakEvenGeometry::DecidingCrossing d{b,           r, crossing->steps, int(crossing->faster) == b, std::nullopt,
                                          std::nullopt};
    if (crossing->ci.hasInterval && !crossing->ci.lowNever) {
        d.low = crossing->ci.low;
        d.high = crossing->ci.highNever ? std::numeric_limits<double>::infinity() : crossing->ci.high;
    }
    return d;
}

BreakEvenGeometry::Line line(const report::Ledger &ledger, std::size_t i, const QVector<double> &keys)
{
    const report::LedgerRow &row = ledger.rows[i];
    const auto &recommendation = ledger.recommendation;
    BreakEvenGeometry::Line line;
    line.row = int(i);
    line.values.resize(keys.size());
    for (int k = 0; k < keys.size(); ++k)
        line.values[k] = cumulativeSeconds(row, keys[k]);

    const QString label = QString::fromStdString(row.label.empty() ? row.configName : row.label);
    QStringList tags;
    if (i == 0 && label != QLatin1String("baseline"))
        tags << tr("baseline");
    else if (!row.breakEvenSteps && row.speedup)
        tags << tr("never pays off");
    else if (row.breakEvenSteps && *row.breakEvenSteps <= 1)
        tags << tr("ahead from step 1");
    // The star goes where every view's recommendation is (report::Ledger::recommended): the simpler of
    // two that cannot be told apart, not the point estimate's winner.
    line.recommended = ledger.recommended && *ledger.recommended == i;
    const bool other =
        recommendation && (recommendation->best == i || (recommendation->runnerUp && *recommendation->runnerUp == i));
    if (!line.recommended && other)
        // Tied: within the measured noise, or with one process a side no interval at all to tell them
        // apart (the headline says the same).
        tags << (!ledger.recommendationTied ? tr("runner-up")
                 : ledger.recommendationCI && !ledger.recommendationCI->hasInterval
                     ? tr("not told from the recommended: one process each")
                     : tr("within noise of the recommended"));
    line.suffix = tags.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(tags.join(QStringLiteral(", ")));
    if (line.recommended)
        line.suffix += tr(" \u2605 recommended for N");
    line.shortName = shortName(row);
    line.fullName = label + line.suffix;
    return line;
}

// An interval on the step axis at height `seconds`: none when it is empty, or when it runs from
// "immediately" to "never" (it spans the whole axis and says nothing a line could show: the label
// carries it in words).
std::optional<BreakEvenGeometry::Interval> interval(int row, double low, double high, double seconds, double xMax)
{
    const BreakEvenGeometry::Interval iv{row, std::max(1.0, low), std::min(high, xMax),
                                         !std::isfinite(high) || high > xMax, seconds};
    if (iv.high <= iv.low || (low <= 1 && iv.openEnded))
        return std::nullopt;
    return iv;
}

QString decidingText(const report::Ledger &ledger, const BreakEvenGeometry::DecidingCrossing &d)
{
    const QString best = shortName(ledger.rows[d.best]), second = shortName(ledger.rows[d.runnerUp]);
    QString text =
        d.bestOvertakes
            ? tr("decides: %1 overtakes %2 at %3 steps").arg(best, second, formatStepCount(d.steps))
            : tr("decides: %1 would overtake %2 only after %3 steps").arg(second, best, formatStepCount(d.steps));
    if (d.low)
        text += QStringLiteral(" [%1\u2013%2]")
                    .arg(*d.low <= 1 ? tr("immediately") : formatStepCount(*d.low),
                         std::isfinite(*d.high) ? formatStepCount(*d.high) : tr("never"));
    // The margin at N may be within the noise: the marker must not read as more certain than the ledger.
    if (ledger.recommendationTied)
        text += QLatin1Char('\n') + tr("(at N the two cannot be told apart)");
    return text;
}

} // namespace

const BreakEvenGeometry::Line *BreakEvenGeometry::lineForRow(int row) const
{
    const auto it = std::find_if(lines.begin(), lines.end(), [row](const Line &line) { return line.row == row; });
    return it == lines.end() ? nullptr : &*it;
}

BreakEvenGeometry breakEvenGeometry(const report::Ledger &ledger, double planned)
{
    const auto &rows = ledger.rows;
    BreakEvenGeometry g;
    g.deciding = decidingCrossing(ledger, planned);

    double largestCrossing = 0;
    for (std::size_t i = 1; i < rows.size(); ++i) {
        const auto &n = rows[i].breakEvenSteps;
        if (n && std::isfinite(*n))
            largestCrossing = std::max(largestCrossing, *n);
    }
    g.xMax = std::max({2 * planned, largestCrossing * 1.2, 10.0});
    if (g.deciding)
        g.xMax = std::max(g.xMax, g.deciding->steps * 1.5);
    g.keys.resize(kSamples);
    for (int k = 0; k < kSamples; ++k)
        g.keys[k] = std::pow(g.xMax, double(k) / (kSamples - 1)); // 1 .. xMax

    double yLow = std::numeric_limits<double>::infinity(), yHigh = 0;
    QVector<bool> drawn(int(rows.size()), false);
    for (std::size_t i = 0; i < rows.size(); ++i) {
        if (!hasLine(rows[i]))
            continue;
        g.lines.append(line(ledger, i, g.keys));
        drawn[int(i)] = true;
        yLow = std::min(yLow, *rows[i].firstStepMs / 1000.0);
        yHigh = std::max(yHigh, g.lines.last().values.last());
    }
    if (yHigh > 0) {
        g.yMin = yLow * 0.7;
        g.yMax = yHigh * 1.5;
    }

    // Crossings with the baseline, at the ledger's own break-even figure (one computation for all views).
    if (!rows.empty() && hasLine(rows[0])) {
        for (std::size_t i = 1; i < rows.size(); ++i) {
            const auto &n = rows[i].breakEvenSteps;
            // At n <= 1 the configuration is ahead from the first step: the lines never cross at n >= 1.
            if (!drawn[int(i)] || !n || !std::isfinite(*n) || *n <= 1)
                continue;
            BreakEvenGeometry::Crossing c;
            c.row = int(i);
            c.at = QPointF(*n, cumulativeSeconds(rows[0], *n));
            const auto &ci = rows[i].breakEvenCI;
            if (ci && ci->hasInterval && !ci->lowNever)
                if (const auto iv =
                        interval(c.row, ci->low, ci->highNever ? std::numeric_limits<double>::infinity() : ci->high,
                                 c.at.y(), g.xMax)) {
                    c.interval = int(g.intervals.size());
                    g.intervals.append(*iv);
                }
            // The crossing that decides, when the baseline is one of its two: its own marker says it.
            c.decides = g.deciding && ((g.deciding->best == c.row && g.deciding->runnerUp == 0) ||
                                       (g.deciding->runnerUp == c.row && g.deciding->best == 0));
            // The lines are the assumed start state's; the other state's crossing is named beside.
            c.otherText = otherStartText(rows[i]);
            if (!c.decides) {
                // With its process-level interval where there is one; a single run has none to show.
                c.text = tr("%1 steps").arg(formatStepCount(*n));
                if (!c.otherText.isEmpty())
                    c.text += QLatin1Char(' ') + QString::fromLatin1(store::toString(rows[i].firstStepStart).data());
                if (ci && ci->hasInterval)
                    c.text += QStringLiteral(" [%1]").arg(QString::fromStdString(rows[i].breakEvenRange));
                if (!c.otherText.isEmpty())
                    c.text += QStringLiteral(" \u00b7 ") + c.otherText;
            }
            g.crossings.append(c);
        }
    }

    if (g.deciding) {
        const BreakEvenGeometry::DecidingCrossing &d = *g.deciding;
        g.decidingAt = QPointF(d.steps, cumulativeSeconds(rows[d.best], d.steps));
        // A crossing with the baseline has its interval from the crossings above (the same interval:
        // the ledger computes both alike); between two other rows it is the faster row's, here.
        const int faster = d.bestOvertakes ? d.best : d.runnerUp;
        if (d.low && d.best != 0 && d.runnerUp != 0)
            if (const auto iv = interval(faster, *d.low, *d.high, g.decidingAt.y(), g.xMax)) {
                g.decidingInterval = int(g.intervals.size());
                g.intervals.append(*iv);
            }
        g.decidingText = decidingText(ledger, d);
    }

    g.plannedShown = planned > 0 && !g.lines.isEmpty();
    if (g.plannedShown) {
        g.planned = planned;
        g.plannedText = tr("planned N = %1").arg(formatStepCount(planned));
    }
    return g;
}

} // namespace stepscope::ui
