#pragma once
// Every sweep in the database as a tree: sweeps at the top, their runs below. The history view
// wraps it in a QSortFilterProxyModel with recursive filtering on FilterRole.
#include "store/store.h"

#include <QAbstractItemModel>
#include <QSet>
#include <QString>

#include <optional>
#include <vector>

namespace stepscope::ui
{

class HistoryModel : public QAbstractItemModel
{
    Q_OBJECT
  public:
    // Sweep rows fill the columns by the first name, run rows by the second.
    enum Column {
        Name,    // sweep name           | run configuration
        Id,      // sweep id             | run id
        Created, // sweep created        | run started (local time, to the second)
        Preset,  // sweep preset (batches) | repeat (1-based), batch, start state
        Status,  // sweep status         | run status
        Runs,    // number of runs       | failure category
        Best,    // best steady state    | steps recorded
        ColumnCount
    };
    static constexpr int SortRole = Qt::UserRole;       // raw value of the cell
    static constexpr int FilterRole = Qt::UserRole + 1; // all searchable text of the row
    static constexpr int SweepIdRole = Qt::UserRole + 2;
    static constexpr int RunIdRole = Qt::UserRole + 3; // 0 on sweep rows

    struct Sweep {
        store::SweepRecord record;
        std::vector<store::RunRecord> runs;
        std::optional<double> bestSteadyMs;
        QString bestLabel;
        // Each run's batch size (by position; 0 where its configuration does not say), and the
        // sweep's distinct ones ascending: a batch scan's runs differ only there (issue 35.4).
        std::vector<int> runBatches;
        std::vector<int> batches;
    };
    using Sweeps = std::vector<Sweep>;

    explicit HistoryModel(QObject *parent = nullptr);

    // Reads every sweep and run with their stored summaries (the steps of a run without one).
    // Thread-safe; the dashboard calls it on a worker (controller/query_job.h).
    static Sweeps read(const store::Reader &reader);
    void setSweeps(Sweeps sweeps);
    // read() + setSweeps() on the calling thread (tests).
    void load(const store::Reader &reader);
    void clear();

    // For indexes of this model (map a proxy's index to the source first); 0 for any other.
    qint64 sweepId(const QModelIndex &index) const; // of the sweep, or of the run's sweep; 0 if none
    qint64 runId(const QModelIndex &index) const;   // 0 for a sweep row or an invalid index
    QModelIndex indexOfSweep(qint64 sweepId) const;

    // Leaves a sweep out of the tree, across setSweeps(), until shown again (or read gone from the
    // file, or clear()): a delete waiting for its undo (pages/history_page.h).
    void hideSweep(qint64 sweepId);
    void showSweep(qint64 sweepId);
    bool isHidden(qint64 sweepId) const { return hidden_.contains(sweepId); }

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

  private:
    QVariant sweepData(const Sweep &sweep, int column, int role) const;
    QVariant runData(const store::RunRecord &run, int column, int role) const;
    const Sweep &shown(std::size_t row) const { return sweeps_[shown_[row]]; }
    void pickShown(); // shown_ from sweeps_ and hidden_
    static void readBatches(Sweep &sweep); // runBatches and batches from the runs' configurations
    QString runText(const Sweep &sweep, std::size_t run) const; // "repeat 1, batch 4, again"

    std::vector<Sweep> sweeps_;      // as read, hidden ones included
    std::vector<std::size_t> shown_; // the tree's sweep rows: indexes into sweeps_, in order
    QSet<qint64> hidden_;
};

} // namespace stepscope::ui
