#include "models/comparison_model.h"

#include "models/status_colors.h"

#include <QBrush>

namespace stepscope::ui
{
namespace
{

QString steadyText(const report::LedgerRow &row)
{
    return row.steadyMs ? QString::number(*row.steadyMs, 'f', 2) + QStringLiteral(" ms") : QStringLiteral("-");
}

QString sweepTitle(const report::Ledger &ledger)
{
    if (!ledger.sweep.id)
        return {};
    return QStringLiteral("#%1 %2").arg(ledger.sweep.id).arg(QString::fromStdString(ledger.sweep.name));
}

} // namespace

ComparisonModel::ComparisonModel(QObject *parent) : QAbstractTableModel(parent) {}

std::vector<ComparisonModel::Row> ComparisonModel::compare(const report::Ledger &a, const report::Ledger &b)
{
    std::vector<Row> rows;
    std::vector<bool> taken(b.rows.size(), false);
    const auto find = [&](auto matches) -> std::optional<std::size_t> {
        for (std::size_t j = 0; j < b.rows.size(); ++j)
            if (!taken[j] && matches(b.rows[j]))
                return j;
        return std::nullopt;
    };
    for (std::size_t i = 0; i < a.rows.size(); ++i) {
        const auto &ra = a.rows[i];
        auto j = find([&](const report::LedgerRow &rb) { return rb.configName == ra.configName; });
        if (!j)
            j = find([&](const report::LedgerRow &rb) { return rb.label == ra.label; });
        if (!j)
            continue;
        taken[*j] = true;
        Row row{i, *j, std::nullopt, Outcome::NotComparable};
        const auto &rb = b.rows[*j];
        if (!ra.samplesMs.empty() && !rb.samplesMs.empty()) {
            // Cold processes of each sweep are the repeats: the CI comes from their spread.
            row.ratio = stats::ratioOfMedians(rb.runSamplesMs, ra.runSamplesMs);
            row.outcome = !row.ratio->significant ? Outcome::NoSignificantDifference
                          : row.ratio->ratio < 1  ? Outcome::Faster
                                                  : Outcome::Slower;
        }
        rows.push_back(row);
    }
    return rows;
}

void ComparisonModel::setLedgers(report::Ledger a, report::Ledger b)
{
    auto rows = compare(a, b);
    setComparison(std::move(a), std::move(b), std::move(rows));
}

void ComparisonModel::setComparison(report::Ledger a, report::Ledger b, std::vector<Row> rows)
{
    beginResetModel();
    a_ = std::move(a);
    b_ = std::move(b);
    rows_ = std::move(rows);
    endResetModel();
}

void ComparisonModel::clear()
{
    beginResetModel();
    a_ = report::Ledger{};
    b_ = report::Ledger{};
    rows_.clear();
    endResetModel();
}

int ComparisonModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int ComparisonModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString ComparisonModel::verdictText(const Row &row) const
{
    switch (row.outcome) {
    case Outcome::Faster:
        return tr("faster");
    case Outcome::Slower:
        return tr("slower");
    case Outcome::NoSignificantDifference:
        return row.ratio && !row.ratio->hasInterval ? tr(report::kNoInterval) : tr("no significant difference");
    case Outcome::NotComparable:
        return a_.rows[row.a].samplesMs.empty() ? tr("not comparable: no steady state in A")
                                                : tr("not comparable: no steady state in B");
    }
    return {};
}

QVariant ComparisonModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row &row = rows_[static_cast<std::size_t>(index.row())];
    const auto &ra = a_.rows[row.a];
    const auto &rb = b_.rows[row.b];
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case Configuration:
            return QString::fromStdString(ra.label);
        case SteadyA:
            return steadyText(ra);
        case SteadyB:
            return steadyText(rb);
        case Ratio:
            if (!row.ratio)
                return QStringLiteral("-");
            if (!row.ratio->hasInterval)
                return QStringLiteral("%1x (%2)")
                    .arg(QString::number(row.ratio->ratio, 'f', 2), QLatin1String(report::kNoIntervalShort));
            return QStringLiteral("%1x [%2-%3]")
                .arg(QString::number(row.ratio->ratio, 'f', 2), QString::number(row.ratio->low, 'f', 2),
                     QString::number(row.ratio->high, 'f', 2));
        case Verdict:
            return verdictText(row);
        default:
            return {};
        }
    case SortRole:
        switch (index.column()) {
        case Configuration:
            return QString::fromStdString(ra.label);
        case SteadyA:
            return ra.steadyMs ? QVariant(*ra.steadyMs) : QVariant();
        case SteadyB:
            return rb.steadyMs ? QVariant(*rb.steadyMs) : QVariant();
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
        return QString::fromStdString(ra.configName);
    case Qt::ToolTipRole:
        if (index.column() == Ratio)
            return row.ratio && !row.ratio->hasInterval
                       ? tr("1 repeat: no interval. One cold process in A or B says nothing about the "
                            "spread between processes; run 3 or more repeats")
                       : tr("Median steady step time of B over A, with a 95% confidence interval from a "
                            "bootstrap over cold processes (then steps within them); below 1 means B is faster");
        if (index.column() == Configuration && ra.configName != rb.configName)
            return tr("A: %1\nB: %2").arg(QString::fromStdString(ra.configName), QString::fromStdString(rb.configName));
        return {};
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
            return sweepTitle(a_);
        if (section == SteadyB)
            return sweepTitle(b_);
        return {};
    }
    if (role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Configuration:
        return tr("Configuration");
    case SteadyA:
        return tr("Steady A");
    case SteadyB:
        return tr("Steady B");
    case Ratio:
        return tr("B/A [95% CI]");
    case Verdict:
        return tr("B is");
    default:
        return {};
    }
}

} // namespace stepscope::ui
