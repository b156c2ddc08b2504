#pragma once
// The ledger of one sweep as a table: one row per configuration, repeats pooled. It owns the
// report::Ledger; the ledger table view and every comparison chart read it from here.
#include "common/measurement_defaults.h"
#include "report/ledger.h"
#include "report/why_table.h"
#include "supervisor/max_batch_sweep.h"

#include <QAbstractTableModel>
#include <QString>

#include <optional>
#include <string>
#include <vector>

namespace stepscope::ui
{

// What a ledger row's runs say beyond report::LedgerRow, read with it.
struct LedgerRowRuns {
    std::string detail;            // full detail of the first failed run, if any
    std::int64_t cancelledRun = 0; // the first run a Stop cancelled with steps (they can be shown), else 0
};

// A ledger as a worker reads it (LedgerModel::read): the model adopts it without computing.
struct LedgerData {
    report::Ledger ledger;
    std::vector<LedgerRowRuns> runs;       // per ledger row
    std::vector<store::RunRecord> records; // every run of the sweep, by position
    report::BatchScan scan;                // a sweep of several batches: the verdict across them
    std::vector<supervisor::MaxBatchSearch> maxBatch; // a max-batch sweep: each configuration's search
};

// The recommendation for another planned run length (report::recommendFor's fields), computed
// apart from the ledger it belongs to.
struct LedgerRecommendation {
    std::int64_t sweepId = 0;
    std::int64_t plannedSteps = 0;
    std::optional<stats::Recommendation> recommendation;
    std::string text;
    std::optional<stats::DifferenceCI> ci;
    bool tied = false;
    std::optional<report::Ledger::Crossing> decidingCrossing;
    std::optional<std::size_t> recommended; // the row every view recommends, and why
    std::string recommendedReason;
    std::vector<std::size_t> leftOut;
    std::string noRecommendationReason; // why there is none (report::Ledger::noRecommendationReason)
    std::vector<report::KnobWorth> recommendedWorth;   // what each knob of the recommended row is worth
    std::vector<report::Ledger::StartPick> byStart;    // each start state's pick, for the same length
    std::optional<std::size_t> fewestJoules;           // the fewest joules over the same length, and its words
    std::string fewestJoulesText;

    static LedgerRecommendation of(const report::Ledger &ledger);
    void applyTo(report::Ledger &ledger) const;
};

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
        PeakMemory,
        Energy,
        Accuracy,
        Failure,
        ColumnCount
    };
    // Raw numbers for sorting and charts (Qt::UserRole): seconds for FirstStep, ms for SteadyState,
    // the factor for Speedup, steps for BreakEven (+inf for "never"), MiB allocated for PeakMemory, J for Energy. A
    // missing figure is an invalid QVariant: sorted after every number ascending, and descending too
    // with FigureSortProxy.
    static constexpr int SortRole = Qt::UserRole;
    static constexpr int FailureDetailRole = Qt::UserRole + 1; // message, fix, and the first failed run's detail
    static constexpr int ConfigNameRole = Qt::UserRole + 2;    // canonical configuration name

    explicit LedgerModel(QObject *parent = nullptr);

    // Reads and computes a sweep's ledger (bootstrap included: seconds to minutes on a large sweep).
    // Thread-safe; the dashboard calls it on a worker (controller/ledger_job.h), never on the UI thread.
    // plannedSteps <= 0: the sweep's own planned length. `cancel` as report::buildLedger takes it.
    // `start`: the start state the planned run assumes (report::Ledger::start). `batch`: which batch
    // of a batch scan the rows are of (report::buildLedger's; 0: the baseline's).
    static LedgerData read(const store::Reader &reader, qint64 sweepId, qint64 plannedSteps,
                           stats::CancelToken cancel = {}, store::StartState start = store::StartState::Fresh,
                           int batch = 0);
    // Adopts a ledger computed elsewhere as it is: nothing is computed on the calling thread.
    void setData(LedgerData data);
    // Adopts a recommendation computed elsewhere; ignored when it is of another sweep.
    void setRecommendation(const LedgerRecommendation &recommendation);

    // Convenience for tests and small ledgers, computing on the calling thread: read() + setData()
    // (with the chosen planned length, see setPlannedSteps), and setLedger() recomputes the
    // recommendation when a length was chosen.
    void load(const store::Reader &reader, qint64 sweepId);
    void setLedger(report::Ledger ledger);
    void clear();
    // Changes the planned run length on the calling thread: recommendation and break-even views
    // follow. The choice then holds for every sweep loaded later, instead of each sweep's own length.
    void setPlannedSteps(qint64 steps);
    qint64 plannedSteps() const { return plannedSteps_; }
    // What the verdict minimizes (issue 31.4): the planned run's time, or its joules where the rows
    // have energy figures (report::recommendByJoules), else time with the ledger saying so. Holds for
    // every sweep loaded later, as the planned length does.
    void setByJoules(bool byJoules);
    bool byJoulesChosen() const { return byJoules_; }
    // Whether any row has the figures a verdict in joules needs (a GPU with an energy counter).
    bool canRecommendByJoules() const { return ledger_.fewestJoules.has_value(); }

    const report::Ledger &ledger() const { return ledger_; }
    // A batch scan's figures across its batches (empty batches for a sweep of one batch).
    const report::BatchScan &batchScan() const { return scan_; }
    // A max-batch sweep's searches (issue 31.3), each configuration's answer; empty for other sweeps.
    const std::vector<supervisor::MaxBatchSearch> &maxBatch() const { return maxBatch_; }
    // The runs behind a row (model row), or an empty record.
    LedgerRowRuns rowRuns(int row) const;
    // Every run of the sweep as read with the ledger (read() and load() only), by position.
    const std::vector<store::RunRecord> &runRecords() const { return records_; }
    // Those of a row's configuration.
    std::vector<store::RunRecord> runRecordsOf(int row) const;
    qint64 sweepId() const { return ledger_.sweep.id; }
    QString recommendation() const;
    // The recommendation in one line (report::recommendationHeadline); "" without one.
    QString headline() const;
    // Why there is no recommendation ("the baseline (baseline) has no steady state: ..."); "" with one.
    QString noRecommendationReason() const { return QString::fromStdString(ledger_.noRecommendationReason); }
    // What the headline rests on, for a smaller line under it (report::recommendationCaveats).
    QString caveats() const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

  Q_SIGNALS:
    void recommendationChanged(const QString &text);

  private:
    void adopt(LedgerData data, bool recommend);
    // After any recomputation by time: the chosen objective applied to ledger_.
    void applyObjective();

    report::Ledger ledger_;
    std::vector<LedgerRowRuns> runs_; // per row
    std::vector<store::RunRecord> records_;
    report::BatchScan scan_;
    std::vector<supervisor::MaxBatchSearch> maxBatch_;
    qint64 plannedSteps_ = kDefaultPlannedSteps;
    bool plannedStepsChosen_ = false; // set by setPlannedSteps, else each sweep's own length
    bool byJoules_ = false;           // setByJoules
};

} // namespace stepscope::ui
