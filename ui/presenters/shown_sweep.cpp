#include "presenters/shown_sweep.h"

#include "config/run_config.h"
#include "controller/run_controller.h"
#include "models/environment_model.h"
#include "models/ledger_model.h"
#include "presenters/open_database.h"
#include "supervisor/sweep_recipe.h"

#include <QLocale>
#include <QSettings>
#include <QTimer>

#include <algorithm>
#include <utility>

namespace stepscope::ui
{
namespace
{

// How long the planned-steps box waits for the typing to stop before the recommendation is
// recomputed: one recomputation per number, not per keystroke.
constexpr int kPlannedDebounceMs = 250;

} // namespace

ShownSweep::ShownSweep(RunController *controller, QObject *parent)
    : QObject(parent), controller_(controller), ledger_(new LedgerModel(this)),
      environment_(new EnvironmentModel(this)), job_(new LedgerJob(ledger_, this)), debounce_(new QTimer(this))
{
    followOpenDatabase(controller_, job_);
    debounce_->setSingleShot(true);
    debounce_->setInterval(kPlannedDebounceMs);
    connect(debounce_, &QTimer::timeout, this, &ShownSweep::recommendForPlannedRun);

    connect(job_, &LedgerJob::sweepRead, this, &ShownSweep::onSweepRead);
    connect(job_, &LedgerJob::ready, this, [this](qint64, const QList<EnvironmentEntry> &timing) {
        if (const auto &env = ledger_->ledger().environmentJson; !env.empty())
            environment_->setEnvironmentJson(QString::fromStdString(env));
        environment_->setTiming(timing);
    });
    connect(job_, &LedgerJob::busyChanged, this, [this](bool busy) {
        if (!busy)
            activity_.clear();
        Q_EMIT activityChanged(activity());
    });

    connect(controller_, &RunController::databaseOpened, this, [this] {
        if (const qint64 sweep = std::exchange(pending_, 0); sweep > 0)
            show(sweep);
    });
    connect(controller_, &RunController::databaseRefused, this, [this] {
        pending_ = 0;
        Q_EMIT cleared();
    });
    // The running sweep's views follow it: read at its start, updated after every run, computed
    // in full once it ends.
    connect(controller_, &RunController::sweepStarted, this, [this](qint64 sweepId, int runs) {
        running_ = sweepId;
        runTotal_ = runs;
        request(sweepId, tr("Reading sweep %1…").arg(sweepId));
    });
    connect(controller_, &RunController::sweepEvent, this, [this](const supervisor::SweepEvent &e) {
        using namespace supervisor::event;
        std::visit(supervisor::Overloaded{
                       [this](const RunStarted &x) {
                           runIndex_ = x.index;
                           runTotal_ = x.total;
                       },
                       [this](const RunFinished &) {
                           request(running_,
                                   tr("Updating the ledger after run %1 of %2…").arg(runIndex_ + 1).arg(runTotal_));
                       },
                       [this](const Environment &x) { environment_->setEnvironmentJson(x.json); },
                       [this](const Finished &x) {
                           request(x.sweepId, tr("Computing the ledger of sweep %1…").arg(x.sweepId));
                           QSettings().setValue("lastSweep", x.sweepId);
                           running_ = 0;
                       },
                       [](const auto &) {},
                   },
                   e);
    });
}

void ShownSweep::show(qint64 sweepId)
{
    if (sweepId <= 0)
        return;
    if (controller_->isOpening()) {
        pending_ = sweepId;
        return;
    }
    if (!controller_->hasDatabase())
        return;
    Q_EMIT ledgerForward();
    if (controller_->isRunning() && sweepId == running_)
        return;                              // the running sweep's views follow it already
    storedView_ = !controller_->isRunning(); // the panel belongs to a running sweep
    if (sweepId == shown_ && info_ && (ledger_->sweepId() == sweepId || job_->isBusy())) {
        // Already on show (or on its way): its figures are not computed a second time.
        if (storedView_)
            Q_EMIT storedSettingsWanted(*info_);
        return;
    }
    request(sweepId, tr("Computing the ledger of sweep %1…").arg(sweepId));
}

void ShownSweep::request(qint64 sweepId, const QString &activity)
{
    if (sweepId <= 0 || !controller_->hasDatabase())
        return;
    if (sweepId != shown_) {
        ledger_->clear(); // another sweep's figures must not stand under this one's header
        batch_ = 0;       // its batches are not this one's
    }
    shown_ = sweepId;
    Q_EMIT sweepChosen(sweepId);
    activity_ = activity;
    job_->request(sweepId, plannedSteps_, start_, batch_);
    Q_EMIT activityChanged(this->activity());
}

void ShownSweep::setStart(store::StartState start)
{
    if (start == start_)
        return;
    start_ = start;
    if (shown_ > 0)
        request(shown_, tr("Computing the ledger of sweep %1 for %2…")
                            .arg(shown_)
                            .arg(QString::fromStdString(report::startText(start))));
}

void ShownSweep::setBatch(int batch)
{
    if (batch == batch_ || shown_ <= 0)
        return;
    batch_ = batch;
    request(shown_, tr("Computing the ledger of sweep %1 at batch %2…").arg(shown_).arg(batch));
}

void ShownSweep::onSweepRead(const SweepInfo &info)
{
    info_ = info;
    Q_EMIT infoChanged(info);
    if (const auto &env = info.environment; env && !env->json.empty())
        environment_->setEnvironmentJson(QString::fromStdString(env->json));
    if (storedView_) {
        Q_EMIT storedSettingsWanted(info);
        if (info.lastRun > 0 && !controller_->isRunning())
            Q_EMIT storedRunWanted(info.lastRun);
    }
}

void ShownSweep::setPlannedSteps(qint64 steps)
{
    plannedSteps_ = steps;
    debounce_->start();
}

void ShownSweep::recommendForPlannedRun()
{
    if (ledger_->rowCount() == 0 && !job_->isBusy())
        return; // the next ledger is built for it
    activity_ = tr("Recomputing the recommendation for %1 steps…").arg(QLocale().toString(plannedSteps_));
    job_->requestPlannedSteps(plannedSteps_);
    Q_EMIT activityChanged(activity());
}

QString ShownSweep::activity() const
{
    return job_->isBusy() ? activity_ : QString();
}

void ShownSweep::followNewSweep()
{
    storedView_ = false;
    job_->cancel();
    ledger_->clear();
    shown_ = 0;
}

void ShownSweep::reshowStoredSettings()
{
    if (storedView_ && info_)
        Q_EMIT storedSettingsWanted(*info_);
}

void ShownSweep::renamed(qint64 sweepId, const QString &name)
{
    if (!info_ || info_->sweep.id != sweepId)
        return;
    info_->sweep.name = name.trimmed().toStdString();
    Q_EMIT infoChanged(*info_);
}

void ShownSweep::forget(qint64 sweepId)
{
    if (sweepId != shown_)
        return;
    job_->cancel();
    ledger_->clear();
    shown_ = 0;
    info_.reset();
    Q_EMIT cleared();
}

void ShownSweep::clear()
{
    job_->cancel();
    shown_ = pending_ = 0;
    info_.reset();
    storedView_ = false;
    ledger_->clear();
    environment_->clear();
    Q_EMIT cleared();
}

ShownSweep::AgainRefusal ShownSweep::againRequest(int cudaDevices, const std::vector<supervisor::FoundGpu> &gpus,
                                                  SweepRequest &request, QString *error, QString *note) const
{
    if (!info_)
        return AgainRefusal::Unreadable;
    const SweepInfo &info = *info_;
    bool legacy = false;
    std::string why;
    auto stored = supervisor::recipeToRunAgain(info.sweep, info.configJsons, legacy, why);
    if (!stored) {
        *error = tr("Sweep %1 cannot run again here: %2.").arg(info.sweep.id).arg(QString::fromStdString(why));
        return AgainRefusal::Unreadable;
    }
    supervisor::SweepRecipe &recipe = *stored;
    if (legacy && note)
        *note = tr("Sweep %1 was recorded before sweeps kept their recipe: its configurations, repeats and "
                   "start states run again; every other setting is the default.")
                    .arg(info.sweep.id);
    // The planned run is the reader's choice on the ledger page, not the stored sweep's.
    recipe.settings.plannedSteps = plannedSteps_;
    if (!supervisor::requestOf(recipe, request, why)) {
        *error = tr("Sweep %1 cannot run again here: %2.").arg(info.sweep.id).arg(QString::fromStdString(why));
        return AgainRefusal::Unreadable;
    }
    for (const RunConfig &c : request.configs)
        if (c.onCuda() && cudaDevices == 0) {
            *error = tr("Sweep %1 ran on %2; this machine has no CUDA device. Edit the settings for the CPU instead.")
                         .arg(info.sweep.id)
                         .arg(QString::fromStdString(c.device));
            return AgainRefusal::NoCuda;
        }
    if (!recipe.devices.isEmpty()) {
        QString problem;
        request.lanes = supervisor::parseLanes(recipe.devices, gpus, problem);
        if (!problem.isEmpty()) {
            *error = tr("Sweep %1 ran on %2 at once: %3").arg(info.sweep.id).arg(recipe.devices, problem);
            return AgainRefusal::NoCuda;
        }
    }
    return AgainRefusal::None;
}

} // namespace stepscope::ui
