#include "models/kernel_diff_model.h"

#include "models/status_colors.h"

#include <cmath>

namespace stepscope::ui
{
namespace
{

using Kind = profile::KernelChange::Kind;

// Times of a few microseconds need three decimals; the rest read better with two.
QString msText(double ms)
{
    return QString::number(ms, 'f', std::fabs(ms) < 0.1 ? 3 : 2);
}

QString countText(double n)
{
    return std::fabs(n - std::round(n)) < 0.05 ? QString::number(std::lround(n)) : QString::number(n, 'f', 1);
}

} // namespace

KernelDiffModel::KernelDiffModel(QObject *parent) : QAbstractTableModel(parent) {}

void KernelDiffModel::setDiff(profile::ProfileDiff diff)
{
    beginResetModel();
    diff_ = std::move(diff);
    rebuild();
    endResetModel();
}

void KernelDiffModel::clear()
{
    setDiff({});
}

void KernelDiffModel::setRows(Rows rows)
{
    beginResetModel();
    rows_ = rows;
    rebuild();
    endResetModel();
}

void KernelDiffModel::rebuild()
{
    lines_.clear();
    if (rows_ == Rows::Kernels) {
        for (const auto &k : diff_.kernels) {
            const QString name = QString::fromStdString(k.name);
            lines_.push_back({name,
                              tr("%1\n%2, %3").arg(name, QString::fromUtf8(profile::displayName(k.family)),
                                                   QString::fromUtf8(profile::toString(k.kind))),
                              k.kind, k.msA, k.msB, k.countA, k.countB});
        }
        return;
    }
    for (const auto &f : diff_.families) {
        if (f.countA == 0 && f.countB == 0)
            continue;
        const QString name = QString::fromUtf8(profile::displayName(f.family));
        lines_.push_back({name, name, profile::changeKind(f.countA, f.countB, f.msA, f.msB), f.msA, f.msB, f.countA,
                          f.countB});
    }
}

int KernelDiffModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(lines_.size());
}

int KernelDiffModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant KernelDiffModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case ChangeShare:
            return tr("B's time against A's; an added kernel has none (it sorts last)");
        case Calls:
            return tr("Calls per step in A → B (sorted by B's)");
        default:
            return tr("Per step, from each row's profile");
        }
    }
    if (role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Name:
        return rows_ == Rows::Kernels ? tr("Kernel") : tr("Family");
    case AMs:
        return tr("A ms");
    case BMs:
        return tr("B ms");
    case ChangeMs:
        return tr("Change ms");
    case ChangeShare:
        return tr("Change");
    case Calls:
        return tr("Calls A → B");
    }
    return {};
}

QVariant KernelDiffModel::figure(const Line &l, int column) const
{
    switch (column) {
    case Name:
        return l.name;
    case AMs:
        return l.msA;
    case BMs:
        return l.msB;
    case ChangeMs:
        return l.msB - l.msA;
    case ChangeShare:
        return l.kind == Kind::Added || !(l.msA > 0) ? QVariant() : QVariant(l.msB / l.msA - 1);
    case Calls:
        return l.countB;
    }
    return {};
}

QString KernelDiffModel::text(const Line &l, int column) const
{
    const double delta = l.msB - l.msA;
    switch (column) {
    case Name:
        return l.name;
    case AMs:
        return l.kind == Kind::Added ? QString() : msText(l.msA);
    case BMs:
        return l.kind == Kind::Removed ? QString() : msText(l.msB);
    case ChangeMs:
        return (delta >= 0 ? QStringLiteral("+") : QString()) + msText(delta);
    case ChangeShare:
        if (l.kind == Kind::Added)
            return tr("added");
        if (l.kind == Kind::Removed)
            return tr("removed");
        if (!(l.msA > 0))
            return QString();
        return QStringLiteral("%1%2%").arg(delta >= 0 ? QStringLiteral("+") : QString()).arg(std::lround(100 * delta / l.msA));
    case Calls:
        return tr("%1 → %2").arg(countText(l.countA), countText(l.countB));
    }
    return {};
}

QVariant KernelDiffModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const Line &l = lines_[static_cast<std::size_t>(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        return text(l, index.column());
    case SortRole:
        return figure(l, index.column());
    case Qt::ToolTipRole:
        return index.column() == Name ? l.tip : QVariant();
    case Qt::TextAlignmentRole:
        return index.column() == Name ? QVariant() : QVariant(int(Qt::AlignRight | Qt::AlignVCenter));
    case Qt::ForegroundRole:
        // The change's colour: green where B is faster, red where slower, none within noise.
        if (index.column() != ChangeMs && index.column() != ChangeShare)
            return {};
        if (l.kind == Kind::Faster || l.kind == Kind::Removed)
            return successColor();
        if (l.kind == Kind::Slower || l.kind == Kind::Added)
            return failureColor();
        return {};
    }
    return {};
}

} // namespace stepscope::ui
