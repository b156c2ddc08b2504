#include "models/figure_sort_proxy.h"

namespace stepscope::ui
{

FigureSortProxy::FigureSortProxy(QObject *parent) : QSortFilterProxyModel(parent) {}

bool FigureSortProxy::lessThan(const QModelIndex &left, const QModelIndex &right) const
{
    const bool l = left.data(sortRole()).isValid();
    const bool r = right.data(sortRole()).isValid();
    if (l != r) {
        // A descending sort asks lessThan(right, left): answer so that the missing one still loses.
        return sortOrder() == Qt::AscendingOrder ? l : r;
    }
    return QSortFilterProxyModel::lessThan(left, right);
}

} // namespace stepscope::ui
