#include "models/ledger_model.h"

#include "models/ledger_format.h"
#include "models/status_colors.h"

#include <QBrush>

namespace stepscope::ui
{
namespace
{

bool isNoiseColumn(int column)
{
    return column == LedgerModel::SteadyState || column == LedgerModel::Spread || column == LedgerModel::Speedup ||
           column == LedgerModel::Noise;
}

} // namespace

LedgerModel::LedgerModel(QObject *parent) : QAbstractTableModel(parent) {}

void LedgerModel::load(const store::Reader &reader, qint64 sweepId)
{
    auto ledger = report::buildLedger(reader, sweepId, plannedStepsChosen_ ? plannedSteps_ : 0);
    // The ledger keeps a failure's one-line message; the log or trace behind it stays in the run
    // row, and the user needs it to act on a crash. Same run as the ledger picks: the first one
    // (by position) that did not complete and has a category.
    std::vector<std::string> details(ledger.rows.size());
    const auto runs = reader.runs(sweepId);
    for (std::size_t i = 0; i < ledger.rows.size(); ++i) {
        for (const auto &run : runs) {
            if (run.configName == ledger.rows[i].configName && run.status != RunStatus::Complete && run.category) {
                details[i] = run.detail;
                break;
            }
        }
    }
    adopt(std::move(ledger), std::move(details));
}

void LedgerModel::setLedger(report::Ledger ledger)
{
    std::vector<std::string> details(ledger.rows.size());
    adopt(std::move(ledger), std::move(details));
}

void LedgerModel::adopt(report::Ledger ledger, std::vector<std::string> details)
{
    beginResetModel();
    ledger_ = std::move(ledger);
    details_ = std::move(details);
    if (plannedStepsChosen_ && ledger_.plannedSteps != plannedSteps_)
        report::recommendFor(ledger_, plannedSteps_);
    else if (ledger_.plannedSteps > 0)
        plannedSteps_ = ledger_.plannedSteps;
    endResetModel();
    Q_EMIT recommendationChanged(recommendation());
}

void LedgerModel::clear()
{
    beginResetModel();
    ledger_ = report::Ledger{};
    details_.clear();
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
    // No cell text depends on N today, but views that mark the recommended row, and charts of
    // total time, read the ledger again on dataChanged.
    Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
    Q_EMIT recommendationChanged(recommendation());
}

QString LedgerModel::recommendation() const
{
    return QString::fromStdString(ledger_.recommendationText);
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

    switch (role) {
    case Qt::DisplayRole:
        return ledgerCellText(r, column);
    case SortRole:
        return ledgerSortValue(r, column);
    case ConfigNameRole:
        return QString::fromStdString(r.configName);
    case FailureDetailRole: {
        QString text = ledgerFailureText(r);
        if (!details_[row].empty())
            text += QStringLiteral("\n\n") + tr("Detail:") + QLatin1Char('\n') + QString::fromStdString(details_[row]);
        return text;
    }
    case Qt::ToolTipRole:
        switch (column) {
        case Configuration:
            return QString::fromStdString(r.configName);
        case Status:
        case Failure: {
            const QString failure = ledgerFailureText(r);
            return failure.isEmpty() ? QVariant() : QVariant(failure);
        }
        case SteadyState:
            if (!r.steadyProblem.empty())
                return QString::fromStdString(r.steadyProblem);
            if (r.steadyMs)
                return tr("Median of %1 steady steps (%2 time), pooled over %3 repeat(s)")
                           .arg(r.steady.count)
                           .arg(r.timing == "gpu" ? tr("CUDA-event") : tr("wall"))
                           .arg(r.completed) +
                       QLatin1Char('\n') + ledgerIntervalTip(r, column);
            return {};
        case FirstStep:
        case Speedup:
        case BreakEven: {
            const QString tip = ledgerIntervalTip(r, column);
            return tip.isEmpty() ? QVariant() : QVariant(tip);
        }
        case Noise:
            return noisy ? tr("Interquartile range over median, or spread between repeats, is 10% or more: "
                              "treat small differences as noise")
                         : QVariant();
        default:
            return {};
        }
    case Qt::ForegroundRole:
        if (broken || (!r.failureCategory.empty() && (column == Status || column == Failure)))
            return QBrush(failureColor());
        if (noisy && isNoiseColumn(column))
            return QBrush(warningColor());
        return {};
    case Qt::BackgroundRole:
        if (broken)
            return QBrush(failureBackground());
        if (noisy && r.noise == stats::Noise::Unreliable && isNoiseColumn(column))
            return QBrush(warningBackground());
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
        return ledgerHeader(section);
    if (role == Qt::ToolTipRole && section == BreakEven)
        return tr("Steps after which the configuration's slower first step is paid back by its faster steps");
    return {};
}

} // namespace stepscope::ui
