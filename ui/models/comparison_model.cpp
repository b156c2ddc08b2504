#include "models/comparison_model.h"

#include "models/status_colors.h"

#include <QBrush>
#include <QCoreApplication>

#include <cmath>

namespace stepscope::ui
{
namespace
{

QString sweepTitle(const report::Ledger &ledger)
{
    if (!ledger.sweep.id)
        return {};
    return QStringLiteral("#%1 %2").arg(ledger.sweep.id).arg(QString::fromStdString(ledger.sweep.name));
}

std::optional<ComparisonModel::Figure> figureOf(const report::LedgerRow &row, double divisor)
{
    if (!row.steadyMs)
        return std::nullopt;
    ComparisonModel::Figure f;
    f.ms = *row.steadyMs / divisor;
    if (row.steadyCI && row.steadyCI->hasInterval) {
        f.lowMs = row.steadyCI->low / divisor;
        f.highMs = row.steadyCI->high / divisor;
    }
    return f;
}

// B/A per image from B/A per step: the same interval, scaled by the batches' ratio.
stats::RatioCI perImageRatio(stats::RatioCI ci, int batchA, int batchB)
{
    const double k = double(batchA) / double(batchB);
    ci.ratio *= k;
    ci.low *= k;
    ci.high *= k;
    ci.significant = ci.hasInterval && (ci.high < 1.0 || ci.low > 1.0);
    return ci;
}

} // namespace

QString comparisonNumber(double ms)
{
    const double m = std::abs(ms);
    return QString::number(ms, 'f', m < 1 ? 3 : m < 100 ? 2 : 1);
}

QString comparisonMsText(double ms)
{
    return comparisonNumber(ms) + QStringLiteral(" ms");
}

ComparisonModel::ComparisonModel(QObject *parent) : QAbstractTableModel(parent) {}

ComparisonModel::Comparison ComparisonModel::compare(const report::Ledger &a, const report::Ledger &b)
{
    Comparison result;
    result.setup = compareSetup(a, b);
    const bool batchNoted = result.setup.perImage;
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
        Row row;
        row.a = i;
        row.batchA = rowBatch(a, ra);
        if (!j) {
            row.outcome = Outcome::OnlyInA;
            result.rows.push_back(row);
            continue;
        }
        taken[*j] = true;
        row.b = *j;
        row.batchB = rowBatch(b, b.rows[*j]);
        // Rows matched by their knobs across batches compare per image even where the sweeps'
        // batch sets agree as a whole.
        if (row.batchA > 0 && row.batchB > 0 && row.batchA != row.batchB)
            result.setup.perImage = true;
        result.rows.push_back(row);
    }
    for (std::size_t j = 0; j < b.rows.size(); ++j)
        if (!taken[j]) {
            Row row;
            row.b = j;
            row.batchB = rowBatch(b, b.rows[j]);
            row.outcome = Outcome::OnlyInB;
            result.rows.push_back(row);
        }
    if (result.setup.perImage && !batchNoted)
        result.setup.differences.prepend(
            QCoreApplication::translate("Compare", "Batch: matched configurations ran with other batches"));

    for (Row &row : result.rows) {
        if (!row.a || !row.b)
            continue;
        const auto &ra = a.rows[*row.a];
        const auto &rb = b.rows[*row.b];
        if (ra.samplesMs.empty() || rb.samplesMs.empty())
            continue; // NotComparable: no steady state on one side
        if (result.setup.perImage && (row.batchA <= 0 || row.batchB <= 0))
            continue; // per image needs both batches
        // Cold processes of each sweep are the repeats: the CI comes from their spread.
        row.ratio = stats::ratioOfMedians(rb.runSamplesMs, ra.runSamplesMs);
        if (result.setup.perImage)
            row.ratio = perImageRatio(*row.ratio, row.batchA, row.batchB);
        row.outcome = !row.ratio->significant ? Outcome::NoSignificantDifference
                      : row.ratio->ratio < 1  ? Outcome::Faster
                                              : Outcome::Slower;
    }
    return result;
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
    nameA_ = nameA.isEmpty() ? sweepTitle(a_) : std::move(nameA);
    nameB_ = nameB.isEmpty() ? sweepTitle(b_) : std::move(nameB);
    endResetModel();
}

void ComparisonModel::clear()
{
    beginResetModel();
    a_ = report::Ledger{};
    b_ = report::Ledger{};
    comparison_ = Comparison{};
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

std::optional<ComparisonModel::Figure> ComparisonModel::figure(int row, bool sideA) const
{
    const Row &r = comparison_.rows[static_cast<std::size_t>(row)];
    const auto &index = sideA ? r.a : r.b;
    const int batch = sideA ? r.batchA : r.batchB;
    if (!index || (perImage() && batch <= 0))
        return std::nullopt;
    return figureOf((sideA ? a_ : b_).rows[*index], perImage() ? batch : 1.0);
}

QString ComparisonModel::label(int row) const
{
    const Row &r = comparison_.rows[static_cast<std::size_t>(row)];
    return QString::fromStdString(r.a ? a_.rows[*r.a].label : b_.rows[*r.b].label);
}

QString ComparisonModel::unit() const
{
    return perImage() ? tr("ms per image") : tr("ms per step");
}

QString ComparisonModel::figureText(const std::optional<Figure> &figure) const
{
    if (!figure)
        return QStringLiteral("-");
    const QString median = comparisonMsText(figure->ms);
    if (!figure->lowMs || !figure->highMs)
        return QStringLiteral("%1 (%2)").arg(median, QLatin1String(report::kNoIntervalShort));
    return QStringLiteral("%1 [%2-%3]")
        .arg(median, comparisonNumber(*figure->lowMs), comparisonNumber(*figure->highMs));
}

QString ComparisonModel::verdictText(const Row &row) const
{
    switch (row.outcome) {
    case Outcome::Faster:
        return tr("faster");
    case Outcome::Slower:
        return tr("slower");
    case Outcome::NoSignificantDifference:
        return row.ratio && !row.ratio->hasInterval ? tr(report::kNoInterval)
                                                    : tr("no significant difference (interval spans 1)");
    case Outcome::NotComparable:
        if (a_.rows[*row.a].samplesMs.empty())
            return tr("not comparable: no steady state in A");
        if (b_.rows[*row.b].samplesMs.empty())
            return tr("not comparable: no steady state in B");
        return tr("not comparable: batch not recorded");
    case Outcome::OnlyInA:
        return tr("only in A");
    case Outcome::OnlyInB:
        return tr("only in B");
    }
    return {};
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
            return figureText(a);
        case SteadyB:
            return figureText(b);
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
        return QString::fromStdString(row.a ? a_.rows[*row.a].configName : b_.rows[*row.b].configName);
    case Qt::ToolTipRole:
        if (index.column() == Ratio)
            return row.ratio && !row.ratio->hasInterval
                       ? tr("1 repeat: no interval. One cold process in A or B says nothing about the "
                            "spread between processes; run 3 or more repeats")
                       : tr("Median steady time of B over A (%1), with a 95% confidence interval from a "
                            "bootstrap over cold processes (never narrower than each process's own steps allow); below 1 means B is faster. "
                            "An interval that spans 1 is no significant difference")
                             .arg(unit());
        if (index.column() == SteadyA || index.column() == SteadyB)
            return tr("Median steady time (%1) with its 95% confidence interval over cold processes").arg(unit());
        if (index.column() == Configuration &&
            (!row.a || !row.b || a_.rows[*row.a].configName == b_.rows[*row.b].configName))
            return label(index.row()); // the whole label, which the column may elide
        if (index.column() == Configuration && a_.rows[*row.a].configName != b_.rows[*row.b].configName)
            return tr("A: %1\nB: %2")
                .arg(QString::fromStdString(a_.rows[*row.a].configName),
                     QString::fromStdString(b_.rows[*row.b].configName));
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
