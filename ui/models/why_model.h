#pragma once
// The Why table (issue 18.2) over the shown sweep's LedgerModel: one row per configuration with its
// verdict, GPU busy against the timed step, kernels and launches per step, compute against the
// GPU's peak and its top kernel (report/why_table.h). Follows the ledger model by itself.
#include <QAbstractTableModel>
#include <QPointer>

#include <vector>

#include "report/why_table.h"

namespace stepscope::ui
{

class LedgerModel;

class WhyModel : public QAbstractTableModel
{
    Q_OBJECT
  public:
    enum Column { Configuration, Verdict, Busy, Kernels, Launches, Compute, TopKernel, ColumnCount };

    explicit WhyModel(LedgerModel *ledger, QObject *parent = nullptr);

    // The ledger row (index into Ledger::rows) of a model row, and whether it has a profile.
    const report::WhyRow &whyRow(int row) const { return rows_[static_cast<std::size_t>(row)]; }
    const report::Ledger &ledger() const;
    // The Why table of the ledger as text (the CLI's `why`), for copying.
    QString text() const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

  private:
    void refresh();

    QPointer<LedgerModel> ledger_;
    std::vector<report::WhyRow> rows_;
};

} // namespace stepscope::ui
