#pragma once
// Which sweep the dashboard shows, and what is pending for it. The ledger, the header, the
// environment and the read-only settings follow this one object: it asks the ledger job for the
// sweep chosen in the history or the one running, again after each of its runs ends and once more
// when it finishes, and for the recommendation of the planned run N once the typing stops. A sweep
// asked for while the database still opens is shown once it is open. No widgets: pages and the
// header subscribe to its signals and models.
#include "common/measurement_defaults.h"
#include "controller/ledger_job.h"
#include "supervisor/sweep_request.h"

#include <QObject>

#include <optional>

class QTimer;

namespace stepscope::ui
{

class EnvironmentModel;
class LedgerModel;
class RunController;
using supervisor::SweepRequest; // supervisor/sweep_request.h

class ShownSweep : public QObject
{
    Q_OBJECT
  public:
    explicit ShownSweep(RunController *controller, QObject *parent = nullptr);

    LedgerModel *ledger() const { return ledger_; }
    EnvironmentModel *environment() const { return environment_; }
    LedgerJob *job() const { return job_; }
    qint64 sweepId() const { return shown_; }

    // Shows a stored sweep (its settings then stand read-only: storedSettingsWanted), or brings the
    // running sweep's views forward. Waits for a database still being opened.
    void show(qint64 sweepId);
    // The planned run the recommendation is for: ledgers are built for it at once, and a change
    // recomputes the recommendation once the typing stops.
    void setPlannedSteps(qint64 steps);
    // The start state the shown ledger assumes (fresh, shipped, again): its first steps, break-evens
    // and recommendation are that state's, and the ledger is built again for it.
    void setStart(store::StartState start);
    store::StartState start() const { return start_; }
    // The batch of a batch scan the shown ledger is of (0: the baseline's, what a sweep opens at):
    // the ledger is built again for it. Another sweep starts again at its baseline's batch.
    void setBatch(int batch);
    int batch() const { return batch_; }
    qint64 plannedSteps() const { return plannedSteps_; }
    // The views follow the sweep about to start: nothing stored stays on show.
    void followNewSweep();
    // The panel left the stored sweep's settings (to edit them, or for the user's own).
    void leaveStoredView() { storedView_ = false; }
    // The stored sweep's settings again, after something reset the panel under them.
    void reshowStoredSettings();
    // The header follows a rename of the sweep on show.
    void renamed(qint64 sweepId, const QString &name);
    // A sweep about to be deleted: when it is on show, its views empty now.
    void forget(qint64 sweepId);
    // Another database opens: nothing of this one stays.
    void clear();
    // What the ledger job computes for the sweep ("Computing the ledger of sweep 3…"); empty when
    // it computes nothing or was not told why.
    QString activity() const;

    enum class AgainRefusal { None, Unreadable, NoCuda };
    // The sweep on show as it was defined, for a new sweep on a machine with `cudaDevices`; a refusal
    // says why in *error. The stored recipe (supervisor/sweep_recipe.h) replayed whole; `gpus` resolves its lanes. A sweep
    // of before recipes is its configurations, repeats and start states (`note` says so).
    AgainRefusal againRequest(int cudaDevices, const std::vector<supervisor::FoundGpu> &gpus, SweepRequest &request,
                              QString *error, QString *note = nullptr) const;
    bool hasInfo() const { return info_.has_value(); }

  Q_SIGNALS:
    // What the sweep is (the header's facts), read before its ledger; again after a rename.
    void infoChanged(const stepscope::ui::SweepInfo &info);
    // Nothing is on show (another file, a deleted sweep, a refused open).
    void cleared();
    // The sweep whose ledger is requested now (the comparison's side A follows it).
    void sweepChosen(qint64 sweepId);
    // A stored sweep's settings, to stand read-only in the panel.
    void storedSettingsWanted(const stepscope::ui::SweepInfo &info);
    // A stored sweep's last run that recorded steps, for the live chart.
    void storedRunWanted(qint64 runId);
    // A sweep was chosen for show: its ledger page should come forward.
    void ledgerForward();
    void activityChanged(const QString &text);

  private:
    void request(qint64 sweepId, const QString &activity);
    void onSweepRead(const SweepInfo &info);
    void recommendForPlannedRun();

    RunController *controller_;
    LedgerModel *ledger_;
    EnvironmentModel *environment_;
    LedgerJob *job_;
    QTimer *debounce_;
    qint64 plannedSteps_ = kDefaultPlannedSteps;
    store::StartState start_ = store::StartState::Fresh;
    int batch_ = 0; // chosen for shown_ only
    qint64 shown_ = 0;   // the sweep the header, ledger and charts are of
    qint64 pending_ = 0; // asked for while the database was still opening
    qint64 running_ = 0;
    int runIndex_ = 0, runTotal_ = 0;
    bool storedView_ = false; // shown_ was opened for reading (not the sweep this window runs)
    std::optional<SweepInfo> info_;
    QString activity_; // why the ledger job is busy
};

} // namespace stepscope::ui
