#include "models/ledger_format.h"

#include "models/ledger_model.h"

#include "common/failure.h"
#include "report/ledger_text.h"

#include <QCoreApplication>

#include <algorithm>
#include <limits>

namespace stepscope::ui
{
namespace
{

QString fixed(double v, int decimals = 2)
{
    return QString::number(v, 'f', decimals);
}

QString speedupText(const report::LedgerRow &row)
{
    if (!row.speedup)
        // The baseline is its own reference; against a baseline without a steady figure nothing is.
        return row.baseline && row.steadyMs ? QStringLiteral("1.00x") : QString();
    QString s = fixed(*row.speedup) + QLatin1Char('x');
    if (row.timeRatio && !row.timeRatio->hasInterval)
        return s + QStringLiteral(" (%1)").arg(QLatin1String(report::kNoIntervalShort));
    if (row.timeRatio) {
        // The CI is of steady / baseline; its reciprocal bounds the speed-up, high end first.
        s += QStringLiteral(" [%1-%2]").arg(fixed(1.0 / row.timeRatio->high), fixed(1.0 / row.timeRatio->low));
        if (!row.timeRatio->significant)
            s += QStringLiteral(" n.s.");
    }
    return s;
}

// "110 [80-150]", "never [immediately to never]", "110 (n=1, no CI)": the count with its interval.
QString breakEvenWithRange(const report::LedgerRow &row)
{
    const std::string steps = report::breakEvenText(row);
    QString count = QString::fromStdString(steps);
    // The other start states' break-evens beside it, those the row ran: "474 [400-560] / 167 again".
    QString otherText;
    for (const store::StartState other : store::kStartStates) {
        const report::LedgerRow::StartFigures &o = row.figuresOf(other);
        if (other != row.firstStepStart && row.speedup && row.firstStepStart != store::StartState::Unrecorded &&
            o.firstStepMs)
            otherText += QStringLiteral(" / %1 %2")
                             .arg(QString::fromStdString(report::breakEvenStepsText(o.breakEvenSteps)),
                                  QString::fromLatin1(store::toString(other).data()));
    }
    if (row.breakEvenRange.empty() || row.breakEvenRange == steps)
        return count + otherText;
    const QString range = QString::fromStdString(row.breakEvenRange);
    return (row.breakEvenCI && !row.breakEvenCI->hasInterval ? count + QStringLiteral(" (%1)").arg(range)
                                                             : count + QStringLiteral(" [%1]").arg(range)) +
           otherText;
}

// A first step that moves between cold processes says so next to its median.
QString firstStepText(const report::LedgerRow &row)
{
    if (!row.firstStepMs)
        return QStringLiteral("-");
    QString s = QString::fromStdString(report::formatSeconds(*row.firstStepMs / 1000.0));
    // Every first step says which caches it found.
    if (const std::string_view start = store::toString(row.firstStepStart); !start.empty())
        s += QLatin1Char(' ') + QString::fromLatin1(start.data(), qsizetype(start.size()));
    if (row.firstStepNoise && *row.firstStepNoise != stats::Noise::Ok)
        s += QLatin1Char(' ') + QString::fromLatin1(stats::toString(*row.firstStepNoise));
    // The other start states beside it, those the row ran.
    for (const store::StartState other : store::kStartStates)
        if (other != row.firstStepStart && row.firstStepStart != store::StartState::Unrecorded &&
            row.figuresOf(other).firstStepMs)
            s += QStringLiteral(" / %1 %2")
                     .arg(QString::fromStdString(report::formatSeconds(*row.figuresOf(other).firstStepMs / 1000.0)),
                          QString::fromLatin1(store::toString(other).data()));
    if (row.warmMissed > 0)
        s += QCoreApplication::translate("LedgerModel", " (%n run(s) missed their caches: in no state)", nullptr,
                                         row.warmMissed);
    // The sweep's first process without a warm-up process paid for the machine's caches; where runs
    // had caches of their own, only for what none holds (the libraries' file cache, the driver).
    if (row.machineColdFirsts > 0) {
        const QString label = row.firstStepStart == store::StartState::Unrecorded ? QStringLiteral(" machine cold")
                                                                                  : QStringLiteral(" first process");
        s += row.completed > 1 ? label + QStringLiteral(" %1/%2").arg(row.machineColdFirsts).arg(row.completed) : label;
    }
    return s;
}

// "7.16-9.54 (n=3)": the per-process medians' spread and how many processes the figure rests on.
QString spreadText(const report::LedgerRow &row)
{
    if (row.processes <= 0)
        return {};
    const QString n = QStringLiteral("n=%1").arg(row.processes);
    if (!row.steadyMinMs || !row.steadyMaxMs || *row.steadyMinMs == *row.steadyMaxMs)
        return n;
    return fixed(*row.steadyMinMs) + QLatin1Char('-') + fixed(*row.steadyMaxMs) + QStringLiteral(" (") + n +
           QLatin1Char(')');
}

QString tr(const char *text)
{
    return QCoreApplication::translate("LedgerModel", text);
}

} // namespace

QString ledgerHeader(int column)
{
    switch (column) {
    case LedgerModel::Configuration:
        return tr("Configuration");
    case LedgerModel::Status:
        return tr("Status");
    case LedgerModel::FirstStep:
        return tr("First step");
    case LedgerModel::SteadyState:
        return tr("Steady state");
    case LedgerModel::Spread:
        return tr("Spread (ms)");
    case LedgerModel::Speedup:
        return tr("Speed-up [95% CI]");
    case LedgerModel::BreakEven:
        return tr("Break-even (steps)");
    case LedgerModel::Noise:
        return tr("Noise");
    case LedgerModel::PeakMemory:
        return tr("Peak memory (x baseline)");
    case LedgerModel::Energy:
        return tr("Energy per step (J)");
    case LedgerModel::Accuracy:
        return tr("Accuracy");
    case LedgerModel::Failure:
        return tr("Failure");
    default:
        return {};
    }
}

std::vector<store::StartState> firstStepStates(const report::Ledger &ledger)
{
    std::vector<store::StartState> states;
    const auto ran = [&ledger](store::StartState s) {
        return std::any_of(ledger.rows.begin(), ledger.rows.end(), [s](const report::LedgerRow &r) {
            return r.firstStepStart != store::StartState::Unrecorded && r.figuresOf(s).firstStepMs;
        });
    };
    if (ledger.start != store::StartState::Unrecorded && ran(ledger.start))
        states.push_back(ledger.start);
    for (const store::StartState s : store::kStartStates)
        if (s != ledger.start && ran(s))
            states.push_back(s);
    return states;
}

QString firstStepCell(const report::LedgerRow &row, const std::vector<store::StartState> &states)
{
    if (states.empty() || row.firstStepStart == store::StartState::Unrecorded)
        return row.firstStepMs ? QString::fromStdString(report::formatSeconds(*row.firstStepMs / 1000.0))
                               : QStringLiteral("-");
    QStringList figures;
    for (const store::StartState s : states) {
        const auto &ms = row.figuresOf(s).firstStepMs;
        // A state this row did not run (shipped, for an eager row: it has nothing to ship) is left
        // out rather than shown as "- shipped": each figure names its state, so none is misread.
        if (!ms && states.size() > 1)
            continue;
        QString figure = ms ? QString::fromStdString(report::formatSeconds(*ms / 1000.0)) : QStringLiteral("-");
        // Each figure names its state when there are several: the header has no room for them at
        // 1280 px beside long compile names.
        if (states.size() > 1)
            figure += QLatin1Char(' ') + QString::fromLatin1(store::toString(s).data(), qsizetype(store::toString(s).size()));
        // No-break spaces: the cell never wraps inside a figure; it may between two (ledger_columns).
        figures << figure.replace(QLatin1Char(' '), QChar(0x00A0));
    }
    return figures.isEmpty() ? QStringLiteral("-") : figures.join(QStringLiteral(" / "));
}

QString firstStepHeader(const std::vector<store::StartState> &states)
{
    if (states.empty())
        return ledgerHeader(LedgerModel::FirstStep);
    QStringList names;
    for (const store::StartState s : states)
        names << QString::fromLatin1(store::toString(s).data(), qsizetype(store::toString(s).size()));
    return tr("First step (%1)").arg(names.join(QStringLiteral(" / ")));
}

QString ledgerShortHeader(int column)
{
    switch (column) {
    case LedgerModel::FirstStep:
        return tr("First\nstep");
    case LedgerModel::SteadyState:
        return tr("Steady\nstate");
    case LedgerModel::Spread:
        return tr("Spread\n(ms)");
    case LedgerModel::Speedup:
        return tr("Speed-up\n[95% CI]");
    case LedgerModel::BreakEven:
        return tr("Break-even\n(steps)");
    case LedgerModel::PeakMemory:
        return tr("Peak\nMiB");
    case LedgerModel::Energy:
        return tr("J /\nstep");
    default:
        return ledgerHeader(column);
    }
}

QString ledgerCellText(const report::LedgerRow &row, int column)
{
    switch (column) {
    case LedgerModel::Configuration:
        return QString::fromStdString(row.label);
    case LedgerModel::Status:
        // With the category of a failure ("failed: out-of-memory"): the cell alone tells why.
        return QString::fromStdString(report::statusText(row));
    case LedgerModel::FirstStep:
        return firstStepText(row);
    case LedgerModel::SteadyState:
        if (row.steadyMs)
            return fixed(*row.steadyMs) + QStringLiteral(" ms");
        return row.steadyProblem ? tr("no steady state") : QStringLiteral("-");
    case LedgerModel::Spread:
        return spreadText(row);
    case LedgerModel::Speedup:
        return speedupText(row);
    case LedgerModel::BreakEven:
        return breakEvenWithRange(row);
    case LedgerModel::Noise:
        return row.steadyMs ? QString::fromLatin1(stats::toString(row.noise)) : QString();
    case LedgerModel::PeakMemory:
        return QString::fromStdString(report::memoryCellText(row.memory, row.memoryRatio));
    case LedgerModel::Energy:
        return QString::fromStdString(report::energyCell(row.energy));
    case LedgerModel::Accuracy:
        return QString::fromStdString(report::accuracyText(row.accuracy));
    case LedgerModel::Failure:
        return QString::fromStdString(row.failureCategory);
    default:
        return {};
    }
}

QVariant ledgerSortValue(const report::LedgerRow &row, int column)
{
    const auto number = [](const std::optional<double> &v) { return v ? QVariant(*v) : QVariant(); };
    const auto text = [](const std::string &s) { return s.empty() ? QVariant() : QVariant(QString::fromStdString(s)); };
    switch (column) {
    case LedgerModel::Configuration:
        return text(row.label);
    case LedgerModel::Status:
        return text(report::completionText(row));
    case LedgerModel::FirstStep:
        return number(report::msToSeconds(row.firstStepMs)); // the column's unit: seconds
    case LedgerModel::SteadyState:
        return number(row.steadyMs);
    case LedgerModel::Spread:
        return row.steadyMinMs && row.steadyMaxMs ? QVariant(*row.steadyMaxMs - *row.steadyMinMs) : QVariant();
    case LedgerModel::Speedup:
        if (row.speedup)
            return *row.speedup;
        return row.steadyMs ? QVariant(1.0) : QVariant(); // the baseline against itself
    case LedgerModel::BreakEven:
        if (row.breakEvenSteps)
            return *row.breakEvenSteps;
        // Only a row that was compared with the baseline can "never" pay off; the baseline itself
        // and rows without figures have no break-even at all.
        return row.speedup ? QVariant(std::numeric_limits<double>::infinity()) : QVariant();
    case LedgerModel::Noise:
        return row.steadyMs ? QVariant(static_cast<int>(row.noise)) : QVariant();
    case LedgerModel::PeakMemory:
        return row.memory.allocated ? QVariant(row.memory.allocated->medianMiB) : QVariant();
    case LedgerModel::Energy:
        return row.energy.joulesPerStep ? QVariant(*row.energy.joulesPerStep) : QVariant();
    case LedgerModel::Accuracy:
        return text(report::accuracyText(row.accuracy));
    case LedgerModel::Failure:
        return text(row.failureCategory);
    default:
        return {};
    }
}

bool ledgerRowFailed(const report::LedgerRow &row)
{
    return row.repeats > 0 && row.completed == 0 && !ledgerRowCancelled(row);
}

bool ledgerRowCancelled(const report::LedgerRow &row)
{
    // The ledger keeps the first category among the runs that did not complete: a row whose runs
    // failed before the Stop keeps theirs.
    return row.repeats > 0 && row.completed == 0 && row.failureCategory == toString(FailureCategory::Cancelled);
}

bool ledgerRowDiverged(const report::LedgerRow &row)
{
    return row.accuracy.diverged();
}

bool ledgerRowNumeric(int column)
{
    switch (column) {
    case LedgerModel::FirstStep:
    case LedgerModel::SteadyState:
    case LedgerModel::Spread:
    case LedgerModel::Speedup:
    case LedgerModel::BreakEven:
    case LedgerModel::PeakMemory:
    case LedgerModel::Energy:
        return true;
    default:
        return false;
    }
}

QString ledgerIntervalTip(const report::LedgerRow &row, int column)
{
    switch (column) {
    case LedgerModel::FirstStep: {
        if (!row.firstStepMs)
            return {};
        QString cold =
            row.machineColdFirsts > 0
                ? tr("\nMachine cold: no warm-up process ran, and this configuration had the sweep's first "
                     "process, which paid for the machine's caches (CUDA JIT, cuDNN engines, library files).")
                : QString();
        QString start;
        if (row.firstStepStart == store::StartState::Fresh)
            start = tr("\nCold: each process had fresh, empty caches of its own (CUDA JIT, torch's kernels, "
                       "Triton): what a new machine, a container or a driver upgrade pays.");
        else if (row.firstStepStart == store::StartState::Again)
            start = tr("\nWarm: each process found the caches a run of this configuration left: what this "
                       "machine pays once it has run it.");
        if (const auto share = row.machineCacheShareMs())
            start += tr("\nThe machine's caches cost this first step %1 (cold minus warm).")
                         .arg(QString::fromStdString(report::formatSeconds(*share / 1000.0)));
        cold += start;
        if (!row.firstStepNoise)
            return tr("1 repeat: no spread") + cold;
        return tr("Processes: %1 to %2 (%3)")
                   .arg(QString::fromStdString(report::formatSeconds(*row.firstStepMinMs / 1000.0)),
                        QString::fromStdString(report::formatSeconds(*row.firstStepMaxMs / 1000.0)),
                        QString::fromLatin1(stats::toString(*row.firstStepNoise))) +
               cold;
    }
    case LedgerModel::SteadyState: {
        if (!row.steadyCI)
            return {};
        // What the step computes, against the GPU's peak for its precision (report/compute.h).
        QString compute;
        if (row.compute.tflops)
            compute = tr("\n%1 GFLOP a step: %2 TFLOP/s")
                          .arg(QString::fromStdString(report::flopFigureText(row.compute.gflopPerStep.value_or(0))))
                          .arg(QString::fromStdString(report::flopFigureText(*row.compute.tflops))) +
                      (row.compute.peakShare
                           ? QStringLiteral(", ") + QString::fromStdString(report::peakShareText(row.compute))
                           : QString());
        if (!row.steadyCI->hasInterval)
            return tr(report::kNoInterval) + compute;
        return tr("95% CI %1-%2 ms over %3 cold processes")
                   .arg(fixed(row.steadyCI->low), fixed(row.steadyCI->high))
                   .arg(row.steadyCI->processes) +
               compute;
    }
    case LedgerModel::Speedup:
    case LedgerModel::BreakEven:
        if ((row.timeRatio && !row.timeRatio->hasInterval) || (row.breakEvenCI && !row.breakEvenCI->hasInterval))
            return tr(report::kNoInterval);
        if (row.timeRatio)
            return tr(
                "95% CI from a bootstrap over cold processes (never narrower than each process's own steps allow)");
        return {};
    default:
        return {};
    }
}

QString ledgerEnergyTip(const report::LedgerRow &row)
{
    // The row's line of the ledger's energy section (report::energyLines), or why there is none.
    QString tip = QString::fromStdString(report::energyText(row.energy));
    if (row.energy.firstStepJoules)
        tip += tr("\nFirst step: %1 J").arg(*row.energy.firstStepJoules, 0, 'f', 0);
    if (!row.baseline && row.energyBreakEven.hasBoth) {
        QString breakEven = QString::fromStdString(report::energyBreakEvenText(row.energyBreakEven));
        breakEven[0] = breakEven[0].toUpper();
        tip += QLatin1Char('\n') + breakEven;
    }
    tip[0] = tip[0].toUpper();
    return tip;
}

QString ledgerMemoryTip(const report::LedgerRow &row)
{
    QString tip = QString::fromStdString(report::memoryDetailText(row.memory, row.memoryRatio));
    tip[0] = tip[0].toUpper();
    return tip;
}

QString ledgerFailureText(const report::LedgerRow &row)
{
    if (row.failureCategory.empty())
        return {};
    QString text = QString::fromStdString(row.failureMessage);
    if (const auto category = failureCategoryFromString(row.failureCategory)) {
        const auto fix = fixFor(Failure{*category, row.failureMessage, {}});
        text += QStringLiteral("\n\n") + tr("Fix: ") + QString::fromUtf8(fix.data(), static_cast<int>(fix.size()));
    }
    return text.trimmed();
}

} // namespace stepscope::ui
