#pragma once
// The ledger of one sweep as a table: one row per configuration, repeats pooled. It owns the
// report::Ledger; the ledger table view and every comparison chart read it from here.
#include "common/measurement_defaults.h"
#include "report/ledger.h"

#include <QAbstractTableModel>
#include <QString>

#include <string>
#include <vector>

namespace stepscope::ui
{

class LedgerModel : public QAbstractTableModel
{
    Q_OBJECT
  public:
    enum Column {
        Configuration,
        Status,
        FirstStep,
        SteadyState,
        Spread,
        Speedup,
        BreakEven,
        Noise,
        Accuracy,
        Failure,
        ColumnCount
    };
    // Raw numbers for sorting and charts (Qt::UserRole): seconds for FirstStep, ms for SteadyState,
    // the factor for Speedup, steps for BreakEven (+inf for "never"). A missing figure is an
    // invalid QVariant: sorted after every number ascending, and descending too with FigureSortProxy.
    static constexpr int SortRole = Qt::UserRole;
    static constexpr int FailureDetailRole = Qt::UserRole + 1; // message, fix, and the first failed run's detail
    static constexpr int ConfigNameRole = Qt::UserRole + 2;    // canonical configuration name

    explicit LedgerModel(QObject *parent = nullptr);

    // Rebuilds from the database (reads on the calling thread: it is a few thousand rows).
    void load(const store::Reader &reader, qint64 sweepId);
    void setLedger(report::Ledger ledger);
    void clear();
    // Changes the planned run length: recommendation and break-even views follow. The choice
    // then holds for every sweep loaded later, instead of each sweep's own planned length.
    void setPlannedSteps(qint64 steps);
    qint64 plannedSteps() const { return plannedSteps_; }

    const report::Ledger &ledger() const { return ledger_; }
    qint64 sweepId() const { return ledger_.sweep.id; }
    QString recommendation() const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

  Q_SIGNALS:
    void recommendationChanged(const QString &text);

  private:
    void adopt(report::Ledger ledger, std::vector<std::string> details);

    report::Ledger ledger_;
    std::vector<std::string> details_; // per row: full detail of the first failed run, if any
    qint64 plannedSteps_ = kDefaultPlannedSteps;
    bool plannedStepsChosen_ = false; // set by setPlannedSteps, else each sweep's own length
};

} // namespace stepscope::ui
