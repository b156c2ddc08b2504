#include "models/comparison_model.h"

#include "models/status_colors.h"
#include "report/comparison_text.h"

#include <QBrush>

namespace stepscope::ui
{
namespace
{

QString q(const std::string &s)
{
    return QString::fromStdString(s);
}

} // namespace

ComparisonModel::ComparisonModel(QObject *parent) : QAbstractTableModel(parent) {}

ComparisonModel::Comparison ComparisonModel::compare(const report::Ledger &a, const report::Ledger &b)
{
    return report::compareSweeps(a, b);
}

void ComparisonModel::setLedgers(report::Ledger a, report::Ledger b)
{
    auto comparison = compare(a, b);
    setComparison(std::move(a), std::move(b), std::move(comparison));
}

void ComparisonModel::setComparison(report::Ledger a, report::Ledger b, Comparison comparison, QString nameA,
                                    QString nameB)
{
    beginResetModel();
    a_ = std::move(a);
    b_ = std::move(b);
    comparison_ = std::move(comparison);
    differences_.clear();
    for (const auto &d : comparison_.setup.differences)
        differences_ << q(report::differenceText(d));
    nameA_ = nameA.isEmpty() ? q(report::sweepTitle(a_)) : std::move(nameA);
    nameB_ = nameB.isEmpty() ? q(report::sweepTitle(b_)) : std::move(nameB);
    endResetModel();
}

void ComparisonModel::clear()
{
    beginResetModel();
    a_ = report::Ledger{};
    b_ = report::Ledger{};
    comparison_ = Comparison{};
    differences_.clear();
    nameA_.clear();
    nameB_.clear();
    endResetModel();
}

int ComparisonModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(comparison_.rows.size());
}

int ComparisonModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString ComparisonModel::label(int row) const
{
    return q(report::comparisonLabel(a_, b_, comparison_.rows[static_cast<std::size_t>(row)]));
}

QString ComparisonModel::unit() const
{
    return q(report::comparisonUnit(comparison_));
}

QVariant ComparisonModel::toolTip(const QModelIndex &index, const Row &row) const
{
    if (index.column() == Ratio)
        return row.ratio && !row.ratio->hasInterval
                   ? tr("1 repeat: no interval. One cold process in A or B says nothing about the "
                        "spread between processes; run 3 or more repeats")
                   : tr("Median steady time of B over A (%1), with a 95% confidence interval from a "
                        "bootstrap over cold processes (never narrower than each process's own steps allow); "
                        "below 1 means B is faster. An interval that spans 1 is no significant difference")
                         .arg(unit());
    if (index.column() == SteadyA || index.column() == SteadyB)
        return tr("Median steady time (%1) with its 95% confidence interval over cold processes").arg(unit());
    if (index.column() != Configuration)
        return {};
    if (!row.a || !row.b || a_.rows[*row.a].configName == b_.rows[*row.b].configName)
        return label(index.row()); // the whole label, which the column may elide
    return tr("A: %1\nB: %2").arg(q(a_.rows[*row.a].configName), q(b_.rows[*row.b].configName));
}

QVariant ComparisonModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row &row = comparison_.rows[static_cast<std::size_t>(index.row())];
    const auto a = figureA(index.row());
    const auto b = figureB(index.row());
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case Configuration:
            return label(index.row());
        case SteadyA:
            return q(report::comparisonFigureText(a));
        case SteadyB:
            return q(report::comparisonFigureText(b));
        case Ratio:
            return q(report::comparisonRatioText(row.ratio));
        case Verdict:
            return q(report::comparisonOutcomeText(row));
        default:
            return {};
        }
    case SortRole:
        switch (index.column()) {
        case Configuration:
            return label(index.row());
        case SteadyA:
            return a ? QVariant(a->ms) : QVariant();
        case SteadyB:
            return b ? QVariant(b->ms) : QVariant();
        case Ratio:
            return row.ratio ? QVariant(row.ratio->ratio) : QVariant();
        case Verdict:
            return static_cast<int>(row.outcome);
        default:
            return {};
        }
    case OutcomeRole:
        return static_cast<int>(row.outcome);
    case ConfigNameRole:
        return q(row.a ? a_.rows[*row.a].configName : b_.rows[*row.b].configName);
    case Qt::ToolTipRole:
        return toolTip(index, row);
    case Qt::ForegroundRole:
        if (row.outcome == Outcome::Faster)
            return QBrush(successColor());
        if (row.outcome == Outcome::Slower)
            return QBrush(failureColor());
        return {};
    case Qt::TextAlignmentRole:
        return static_cast<int>(Qt::AlignVCenter |
                                (index.column() == SteadyA || index.column() == SteadyB || index.column() == Ratio
                                     ? Qt::AlignRight
                                     : Qt::AlignLeft));
    default:
        return {};
    }
}

QVariant ComparisonModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return QAbstractTableModel::headerData(section, orientation, role);
    if (role == Qt::ToolTipRole) {
        if (section == SteadyA)
            return nameA_;
        if (section == SteadyB)
            return nameB_;
        return {};
    }
    if (role != Qt::DisplayRole)
        return {};
    // Per image, the header says so: the figures are not the step times the ledger shows.
    switch (section) {
    case Configuration:
        return tr("Configuration");
    case SteadyA:
        return perImage() ? tr("A per image [95% CI]") : tr("Steady A [95% CI]");
    case SteadyB:
        return perImage() ? tr("B per image [95% CI]") : tr("Steady B [95% CI]");
    case Ratio:
        return perImage() ? tr("B/A per image [95% CI]") : tr("B/A [95% CI]");
    case Verdict:
        return tr("B is");
    default:
        return {};
    }
}

} // namespace stepscope::ui
