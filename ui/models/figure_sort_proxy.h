#pragma once
// A sort proxy for tables of figures: rows without a figure (an invalid SortRole value: a failed
// configuration, the baseline's break-even) stay at the bottom whichever way the column is sorted.
// QSortFilterProxyModel alone puts them last ascending but first descending.
#include <QSortFilterProxyModel>

namespace stepscope::ui
{

class FigureSortProxy : public QSortFilterProxyModel
{
    Q_OBJECT
  public:
    explicit FigureSortProxy(QObject *parent = nullptr);

  protected:
    bool lessThan(const QModelIndex &left, const QModelIndex &right) const override;
};

} // namespace stepscope::ui
