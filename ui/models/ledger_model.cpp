#include "models/ledger_model.h"

#include "models/ledger_format.h"
#include "models/status_colors.h"

#include "common/failure.h"

#include <QBrush>
#include <QFont>

namespace stepscope::ui
{
namespace
{

bool isNoiseColumn(int column)
{
    return column == LedgerModel::SteadyState || column == LedgerModel::Spread || column == LedgerModel::Speedup ||
           column == LedgerModel::Noise;
}

// A row whose runs a Stop cancelled: what they left, not a failure.
QString cancelledStatus(const report::LedgerRow &row)
{
    if (row.cancelledSteps == 1)
        return LedgerModel::tr("cancelled after 1 step");
    if (row.cancelledSteps > 1)
        return LedgerModel::tr("cancelled after %1 steps").arg(row.cancelledSteps);
    return LedgerModel::tr("cancelled before it started");
}

} // namespace

LedgerModel::LedgerModel(QObject *parent) : QAbstractTableModel(parent) {}

LedgerRecommendation LedgerRecommendation::of(const report::Ledger &ledger)
{
    return {ledger.sweep.id,
            ledger.plannedSteps,
            ledger.recommendation,
            ledger.recommendationText,
            ledger.recommendationCI,
            ledger.recommendationTied,
            ledger.decidingCrossing,
            ledger.recommended,
            ledger.recommendedReason,
            ledger.leftOut,
            ledger.noRecommendationReason,
            ledger.recommendedWorth,
            ledger.byStart,
            ledger.fewestJoules,
            ledger.fewestJoulesText};
}

void LedgerRecommendation::applyTo(report::Ledger &ledger) const
{
    ledger.plannedSteps = plannedSteps;
    ledger.recommendation = recommendation;
    ledger.recommendationText = text;
    ledger.recommendationCI = ci;
    ledger.recommendationTied = tied;
    ledger.decidingCrossing = decidingCrossing;
    ledger.recommended = recommended;
    ledger.recommendedReason = recommendedReason;
    ledger.leftOut = leftOut;
    ledger.noRecommendationReason = noRecommendationReason;
    ledger.recommendedWorth = recommendedWorth;
    ledger.byStart = byStart;
    ledger.fewestJoules = fewestJoules;
    ledger.fewestJoulesText = fewestJoulesText;
    ledger.byJoules = false; // the text is time's (recommendFor); the model applies its objective after
}

LedgerData LedgerModel::read(const store::Reader &reader, qint64 sweepId, qint64 plannedSteps,
                             stats::CancelToken cancel, store::StartState start, int batch)
{
    LedgerData data;
    data.ledger = report::buildLedger(reader, sweepId, plannedSteps > 0 ? plannedSteps : 0, cancel, start, batch);
    data.runs.resize(data.ledger.rows.size());
    // The ledger keeps a failure's one-line message; the log or trace behind it stays in the run
    // row, and the user needs it to act on a crash. Same run as the ledger picks: the first one
    // (by position) that did not complete and has a category. A stopped sweep's runs did not fail
    // (the ledger counts them and their steps): the first with steps is the one to show.
    data.records = reader.runs(sweepId);
    // A batch scan: every batch's ledger, read here on the worker thread like the shown one.
    // A max-batch sweep's tries are of many batches too, but short and untimed: its answers, no scan.
    if (supervisor::isMaxBatchSweep(data.ledger.sweep))
        data.maxBatch = supervisor::maxBatchSearches(reader, sweepId);
    else if (data.ledger.batches.size() > 1 && !cancel.cancelled())
        data.scan = report::batchScan(reader, sweepId, plannedSteps > 0 ? plannedSteps : 0, cancel);
    const auto &runs = data.records;
    for (std::size_t i = 0; i < data.ledger.rows.size(); ++i) {
        LedgerRowRuns &out = data.runs[i];
        for (const auto &run : runs) {
            if (run.configName != data.ledger.rows[i].configName || run.status == RunStatus::Complete)
                continue;
            if (run.status == RunStatus::Cancelled) {
                if (!out.cancelledRun && run.stepCount > 0)
                    out.cancelledRun = run.id;
            } else if (out.detail.empty() && run.category) {
                out.detail = run.detail;
            }
        }
    }
    return data;
}

void LedgerModel::load(const store::Reader &reader, qint64 sweepId)
{
    adopt(read(reader, sweepId, plannedStepsChosen_ ? plannedSteps_ : 0), true);
}

void LedgerModel::setData(LedgerData data)
{
    adopt(std::move(data), false);
}

void LedgerModel::setLedger(report::Ledger ledger)
{
    LedgerData data;
    data.runs.resize(ledger.rows.size());
    data.ledger = std::move(ledger);
    adopt(std::move(data), true);
}

void LedgerModel::adopt(LedgerData data, bool recommend)
{
    beginResetModel();
    ledger_ = std::move(data.ledger);
    runs_ = std::move(data.runs);
    runs_.resize(ledger_.rows.size());
    records_ = std::move(data.records);
    scan_ = std::move(data.scan);
    maxBatch_ = std::move(data.maxBatch);
    if (recommend && plannedStepsChosen_ && ledger_.plannedSteps != plannedSteps_)
        report::recommendFor(ledger_, plannedSteps_);
    else if (ledger_.plannedSteps > 0)
        plannedSteps_ = ledger_.plannedSteps;
    applyObjective();
    endResetModel();
    Q_EMIT recommendationChanged(recommendation());
}

void LedgerModel::setRecommendation(const LedgerRecommendation &recommendation)
{
    if (recommendation.sweepId != ledger_.sweep.id || ledger_.rows.empty())
        return;
    recommendation.applyTo(ledger_);
    applyObjective();
    plannedSteps_ = recommendation.plannedSteps;
    plannedStepsChosen_ = true;
    // No cell text depends on N today, but views that mark the recommended row, and charts of
    // total time, read the ledger again on dataChanged.
    Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
    Q_EMIT recommendationChanged(this->recommendation());
}

std::vector<store::RunRecord> LedgerModel::runRecordsOf(int row) const
{
    std::vector<store::RunRecord> out;
    if (row < 0 || row >= rowCount())
        return out;
    const std::string &name = ledger_.rows[static_cast<std::size_t>(row)].configName;
    for (const auto &run : records_)
        if (run.configName == name)
            out.push_back(run);
    return out;
}

LedgerRowRuns LedgerModel::rowRuns(int row) const
{
    return row >= 0 && static_cast<std::size_t>(row) < runs_.size() ? runs_[static_cast<std::size_t>(row)]
                                                                    : LedgerRowRuns{};
}

void LedgerModel::clear()
{
    beginResetModel();
    ledger_ = report::Ledger{};
    runs_.clear();
    records_.clear();
    scan_ = {};
    maxBatch_.clear();
    endResetModel();
    Q_EMIT recommendationChanged(QString());
}

void LedgerModel::setPlannedSteps(qint64 steps)
{
    if (steps <= 0)
        return;
    plannedStepsChosen_ = true;
    if (steps == plannedSteps_ && ledger_.plannedSteps == steps)
        return;
    plannedSteps_ = steps;
    if (ledger_.rows.empty()) {
        ledger_.plannedSteps = steps;
        return;
    }
    report::recommendFor(ledger_, steps);
    applyObjective();
    // No cell text depends on N today, but views that mark the recommended row, and charts of
    // total time, read the ledger again on dataChanged.
    Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
    Q_EMIT recommendationChanged(recommendation());
}

void LedgerModel::setByJoules(bool byJoules)
{
    if (byJoules == byJoules_)
        return;
    byJoules_ = byJoules;
    if (ledger_.rows.empty())
        return;
    if (!byJoules && ledger_.byJoules)
        report::recommendFor(ledger_, ledger_.plannedSteps); // back to the verdict by time
    applyObjective();
    Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
    Q_EMIT recommendationChanged(recommendation());
}

void LedgerModel::applyObjective()
{
    // Without energy figures the verdict stays time's; the page greys the choice and says why.
    if (byJoules_ && !ledger_.byJoules)
        report::recommendByJoules(ledger_);
}

QString LedgerModel::recommendation() const
{
    return QString::fromStdString(ledger_.recommendationText);
}

QString LedgerModel::headline() const
{
    return QString::fromStdString(report::recommendationHeadline(ledger_));
}

QString LedgerModel::caveats() const
{
    return QString::fromStdString(report::recommendationCaveats(ledger_));
}

int LedgerModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(ledger_.rows.size());
}

int LedgerModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant LedgerModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const auto row = static_cast<std::size_t>(index.row());
    const report::LedgerRow &r = ledger_.rows[row];
    const int column = index.column();
    const bool broken = ledgerRowFailed(r) || ledgerRowDiverged(r);
    const bool noisy = r.steadyMs && r.noise != stats::Noise::Ok;
    const LedgerRowRuns &runs = runs_[row];
    const bool cancelled = r.failureCategory == toString(FailureCategory::Cancelled);

    switch (role) {
    case Qt::DisplayRole:
        if (column == Status && ledgerRowCancelled(r))
            return cancelledStatus(r);
        if (column == FirstStep)
            return firstStepCell(r, firstStepStates(ledger_));
        return ledgerCellText(r, column);
    case SortRole:
        return ledgerSortValue(r, column);
    case ConfigNameRole:
        return QString::fromStdString(r.configName);
    case FailureDetailRole: {
        QString text = ledgerFailureText(r);
        if (!runs.detail.empty())
            text += QStringLiteral("\n\n") + tr("Detail:") + QLatin1Char('\n') + QString::fromStdString(runs.detail);
        return text;
    }
    case Qt::ToolTipRole:
        switch (column) {
        case Configuration: {
            QString tip = QString::fromStdString(r.configName);
            // A data-parallel row (issue 21): its step is the slowest rank's; how it scales.
            if (r.worldSize > 1) {
                tip += QLatin1Char('\n') +
                       tr("%1 ranks of DistributedDataParallel; a step is the slowest rank's.").arg(r.worldSize);
                if (r.scalingEfficiency)
                    tip += QLatin1Char(' ') + tr("Scaling efficiency %1% against %2 (its steady step over this one, "
                                                 "per GPU).")
                                                  .arg(*r.scalingEfficiency * 100, 0, 'f', 0)
                                                  .arg(QString::fromStdString(r.scalingReference));
                else
                    tip += QLatin1Char(' ') + tr("No scaling efficiency: no world-size-1 row of it with a steady "
                                                 "figure in this sweep.");
                if (r.rankSpreadMs)
                    tip += QLatin1Char(' ') + tr("Slowest minus fastest rank: %1 per step (median).")
                                                  .arg(QString::fromStdString(report::formatMs(*r.rankSpreadMs)));
            }
            return tip;
        }
        case Status:
        case Failure: {
            if (r.cancelled > 0 && column == Status)
                return tr("Runs cancelled by Stop: %1, with %2 recorded steps (not part of the figures); finished "
                          "repeats count as usual. Double-click for the recorded steps.")
                    .arg(r.cancelled)
                    .arg(r.cancelledSteps);
            const QString failure = ledgerFailureText(r);
            return failure.isEmpty() ? QVariant() : QVariant(failure);
        }
        case SteadyState:
            if (r.steadyProblem)
                return tr("no steady state: %1").arg(QString::fromStdString(describe(*r.steadyProblem)));
            if (r.steadyMs)
                return tr("Median of %1 steady steps (%2 time), pooled over %3 repeat(s)")
                           .arg(r.steady.count)
                           .arg(r.timing == store::Timing::Gpu ? tr("CUDA-event") : tr("wall"))
                           .arg(r.completed) +
                       QLatin1Char('\n') + ledgerIntervalTip(r, column);
            return {};
        case FirstStep: {
            // The cell is one figure per start state; its words (which state, noise, missed caches,
            // the machine's first process) are here, with the processes' spread.
            const QString tip = ledgerIntervalTip(r, column);
            return ledgerCellText(r, column) + (tip.isEmpty() ? QString() : QLatin1Char('\n') + tip);
        }
        case Speedup:
        case BreakEven: {
            const QString tip = ledgerIntervalTip(r, column);
            return tip.isEmpty() ? QVariant() : QVariant(tip);
        }
        case PeakMemory:
            return ledgerMemoryTip(r);
        case Energy:
            return ledgerEnergyTip(r);
        case Noise:
            return noisy ? tr("Interquartile range over median, or spread between repeats, is 10% or more: "
                              "treat small differences as noise")
                         : QVariant();
        case Accuracy:
            // What the verdict means for the recommendation: a difference is flagged, a divergence
            // takes the row out.
            if (r.accuracy.differs())
                return tr("Its first losses left the baseline's by more than its precision allows (%1 of the loss "
                          "plus the first loss): it still trains and stays a candidate")
                    .arg(QString::number(r.accuracy.tolerance));
            if (r.accuracy.diverged())
                return tr("Its training broke: %1. Left out of the recommendation")
                    .arg(QString::fromStdString(report::leftOutReason(r)));
            return {};
        default:
            return {};
        }
    case Qt::ForegroundRole:
        if (broken || (!r.failureCategory.empty() && !cancelled && (column == Status || column == Failure)))
            return QBrush(failureColor());
        if (cancelled && (column == Status || column == Failure))
            return QBrush(warningColor()); // stopped, not broken
        if (noisy && isNoiseColumn(column))
            return QBrush(warningColor());
        if (column == Accuracy && r.accuracy.differs())
            return QBrush(warningColor()); // flagged, still a candidate
        return {};
    case Qt::BackgroundRole:
        if (broken)
            return QBrush(failureBackground());
        if (noisy && r.noise == stats::Noise::Unreliable && isNoiseColumn(column))
            return QBrush(warningBackground());
        return {};
    case Qt::FontRole:
        // The recommended row (report::Ledger::recommended) stands out, as its headline names it.
        if (ledger_.recommended && *ledger_.recommended == static_cast<std::size_t>(index.row())) {
            QFont bold;
            bold.setBold(true);
            return bold;
        }
        return {};
    case Qt::TextAlignmentRole:
        // An int, not Qt::Alignment: Qt 6.4's default delegate reads the role with toInt().
        return static_cast<int>(Qt::AlignVCenter | (ledgerRowNumeric(column) ? Qt::AlignRight : Qt::AlignLeft));
    default:
        return {};
    }
}

QVariant LedgerModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return QAbstractTableModel::headerData(section, orientation, role);
    if (role == Qt::DisplayRole)
        return section == FirstStep ? firstStepHeader(firstStepStates(ledger_)) : ledgerHeader(section);
    if (role == Qt::ToolTipRole && section == BreakEven)
        return tr("Steps after which the configuration's slower first step is paid back by its faster steps");
    return {};
}

} // namespace stepscope::ui
