#include "presenters/launcher.h"

#include "controller/run_controller.h"
#include "controller/store_message.h"
#include "controller/sweep_history_job.h"
#include "presenters/launch_form.h"
#include "presenters/live_run.h"
#include "presenters/open_database.h"
#include "presenters/shown_sweep.h"
#include "supervisor/managed_python.h"
#include "supervisor/torch_location.h"

#include <QFileInfo>
#include <QSettings>
#include <QTimer>
#include <QtConcurrent/QtConcurrentRun>

namespace stepscope::ui
{
namespace
{

// A store message with where the dashboard chooses another database file.
QString fileChoiceHint(const QString &message)
{
    return withFileChoiceHint(message, Launcher::tr("with File › Open database…"));
}

QString noTorch(const QString &problem, const QString &fix)
{
    return Launcher::tr("No usable PyTorch was found: %1. %2").arg(problem, fix);
}

} // namespace

Launcher::Launcher(RunController *controller, LaunchForm *panel, ShownSweep *shown, LiveRun *live,
                   QObject *parent)
    : QObject(parent), controller_(controller), panel_(panel), shown_(shown), history_(new SweepHistoryJob(this))
{
    followOpenDatabase(controller_, history_);
    connect(controller_, &RunController::databaseOpened, this, &Launcher::onDatabaseOpened);
    connect(controller_, &RunController::databaseRefused, this, [this](const QString &, const QString &error) {
        onDatabaseRefused();
        // The store says when another file is the remedy; the dashboard says where to choose one.
        const QString hinted = fileChoiceHint(error);
        Q_EMIT notice(Tone::Warning, tr("Cannot open database"),
                      hinted != error ? tr("%1\n\nThe file was not changed.").arg(hinted)
                                      : tr("%1\n\nThe file was not changed. Choose another file with File › "
                                           "Open database.")
                                            .arg(error));
    });
    // A host with GPUs of two models runs on one group (supervisor/sweep_lanes.h): said, not hidden.
    connect(controller_, &RunController::lanesNote, this, [this](const QString &note) {
        Q_EMIT logLine(note);
        Q_EMIT passing(note, 15000);
    });
    connect(controller_, &RunController::startFailed, this, [this](const QString &error) {
        panel_->setRunning(false);
        Q_EMIT notice(Tone::Warning, tr("Cannot start"), error);
    });
    connect(controller_, &RunController::sweepEvent, this, [this](const supervisor::SweepEvent &e) {
        if (const auto *p = std::get_if<supervisor::event::Progress>(&e))
            panel_->setProgress(p->sweepFraction, p->left.seconds, p->left.guess);
        else if (const auto *f = std::get_if<supervisor::event::StorageFailed>(&e))
            Q_EMIT notice(Tone::Critical, tr("Database write failed"),
                          tr("%1\n\nThe sweep was stopped. Everything committed before is kept.")
                              .arg(fileChoiceHint(f->message)));
    });
    connect(live, &LiveRun::sweepBegan, this, [this] { panel_->setRunning(true); });
    connect(live, &LiveRun::sweepEnded, this, [this] {
        panel_->setRunning(false);
        history_->request(); // its runs are history for the next estimate
    });
    connect(history_, &SweepHistoryJob::read, this,
            [this](qint64 newest, std::shared_ptr<const supervisor::TimeLeft> times) {
                panel_->setRunTimes(std::move(times));
                if (std::exchange(showNewest_, false) && newest > 0 && !controller_->isRunning())
                    shown_->show(newest);
            });
    connect(&probe_, &DeviceProbe::failedToStart, this, &Launcher::logLine);
    // The whole answer first: the GPUs' models, which "Devices at once" groups lanes by.
    connect(&probe_, &DeviceProbe::answered, this,
            [this](const supervisor::NativeProbe &probe) { panel_->setGpus(probe.gpus); });
    connect(&probe_, &DeviceProbe::found, this, &Launcher::onDevicesFound);
    connect(&probe_, &DeviceProbe::torchMissing, this, &Launcher::onTorchMissing);
}

bool Launcher::start()
{
    if (controller_->isRunning())
        return false;
    if (controller_->isOpening()) {
        Q_EMIT notice(Tone::Information, tr("Cannot start"), tr("The database is still being opened."));
        return false;
    }
    if (!controller_->hasDatabase()) {
        // No file yet: the default one, and the sweep starts once it is open.
        if (!openDatabase(RunController::defaultDatabasePath()))
            return false;
        afterOpen_.push_back([this] { QTimer::singleShot(0, this, &Launcher::start); });
        return true;
    }
    SweepRequest request;
    QString error;
    if (!panel_->buildRequest(request, &error)) {
        Q_EMIT notice(Tone::Warning, tr("Cannot start"), error);
        return false;
    }
    // Both workers take torch from the located Python: without a usable one every run would fail
    // torch-missing. The managed environment is checked first, as it costs no process; so is a
    // Python that is not there at all. Otherwise the background lookup answers (found usable: taken
    // without a second look, since the sweep locates torch again off this thread before its runs
    // start). A "not usable" is looked at again, since offering setup is a bigger step than a wait.
    if (!supervisor::managedEnvironmentReady()) {
        const QString python = panel_->pythonInterpreter();
        const supervisor::PythonChoice choice = supervisor::choosePython(python);
        if (choice.python.isEmpty()) {
            Q_EMIT setupWanted(noTorch(choice.problem, choice.fix), true);
            return false;
        }
        const bool knownUsable = torch_ && torch_->python == python && torch_->usable;
        startWhenTorchKnown_ = !knownUsable;
        lookUpTorch(); // the answer for this Start, or for the next one
        if (!knownUsable) {
            Q_EMIT statusText(tr("Looking for PyTorch…"));
            return true;
        }
    }
    return launch();
}

bool Launcher::launch()
{
    SweepRequest request;
    QString error;
    QStringList skipped;
    if (!panel_->buildRequest(request, &error, &skipped)) {
        Q_EMIT notice(Tone::Warning, tr("Cannot start"), error);
        return false;
    }
    controller_->setPythonInterpreter(panel_->pythonInterpreter());
    for (const auto &s : skipped)
        Q_EMIT logLine(tr("skipped %1").arg(s));
    if (panel_->viewingSweep())
        panel_->leaveSweepView();
    shown_->followNewSweep(); // the views now follow the new sweep (sweepStarted)
    if (!controller_->start(request, &error)) {
        Q_EMIT notice(Tone::Warning, tr("Cannot start"), error);
        return false;
    }
    panel_->setRunning(true); // while the sweep is prepared, too: one Start is enough
    return true;
}

void Launcher::lookUpTorch()
{
    if (supervisor::managedEnvironmentReady())
        return;
    const QString python = panel_->pythonInterpreter();
    torchLookup_.when(torchLookup_.next(), QtConcurrent::run([python] {
                          const supervisor::TorchLocation torch = supervisor::locateTorch(python);
                          return TorchAnswer{python, torch.usable(),
                                             torch.usable() ? QString() : noTorch(torch.problem, torch.fix)};
                      }),
                      [this](const TorchAnswer &answer) { onTorchAnswer(answer.python, answer.usable, answer.problem); });
}

void Launcher::onTorchAnswer(const QString &python, bool usable, const QString &problem)
{
    torch_ = TorchAnswer{python, usable, problem};
    if (!std::exchange(startWhenTorchKnown_, false))
        return;
    if (usable || python != panel_->pythonInterpreter()) {
        start(); // with the answer (or, for a Python changed meanwhile, with a lookup of the new one)
        return;
    }
    Q_EMIT statusText(tr("PyTorch is not set up."));
    Q_EMIT setupWanted(problem, true);
}

void Launcher::runAgain()
{
    if (!shown_->hasInfo() || controller_->isRunning())
        return;
    SweepRequest request;
    QString error;
    QString note;
    switch (shown_->againRequest(panel_->cudaDevices(), panel_->gpus(), request, &error, &note)) {
    case ShownSweep::AgainRefusal::Unreadable:
        Q_EMIT notice(Tone::Warning, tr("Run again"), error);
        return;
    case ShownSweep::AgainRefusal::NoCuda:
        Q_EMIT notice(Tone::Information, tr("Run again"), error);
        return;
    case ShownSweep::AgainRefusal::None:
        break;
    }
    if (!note.isEmpty())
        Q_EMIT statusText(note);
    panel_->leaveSweepView(); // the panel now shows what runs
    controller_->setPythonInterpreter(panel_->pythonInterpreter());
    shown_->followNewSweep();
    if (controller_->start(request, &error))
        panel_->setRunning(true);
    else
        Q_EMIT notice(Tone::Warning, tr("Cannot start"), error);
}

void Launcher::stop()
{
    startWhenTorchKnown_ = false;
    if (controller_->isRunning()) {
        Q_EMIT statusText(tr("Stopping: the running configuration is cancelled (its recorded steps are kept), no "
                             "further run starts, finished runs are kept…"));
        controller_->stop();
    }
}

bool Launcher::openDatabase(const QString &path)
{
    if (path.isEmpty()) {
        // No default path (HOME is not set): nothing is written until the user picks a file, and
        // the status bar says so rather than a dialog at start-up.
        Q_EMIT statusText(RunController::noDefaultDatabase() + QLatin1Char(' ') +
                          tr("Settings are kept in %1.").arg(QFileInfo(QSettings().fileName()).absolutePath()));
        return false;
    }
    QString error;
    if (!controller_->openDatabaseAsync(path, &error)) {
        Q_EMIT notice(Tone::Warning, tr("Cannot open database"), error);
        return false;
    }
    afterOpen_.clear(); // what waited for the previous file does not happen in this one
    showNewest_ = false;
    Q_EMIT opening(); // nothing of the previous file stays on screen while this one opens
    return true;
}

void Launcher::openChosenDatabase(const QString &path)
{
    // Opened by hand, a file shows its newest sweep (the history job reads which).
    showNewest_ = openDatabase(path);
}

void Launcher::whenOpen(std::function<void()> then)
{
    if (controller_->isOpening())
        afterOpen_.push_back(std::move(then));
    else if (controller_->hasDatabase())
        then();
}

void Launcher::onDatabaseOpened()
{
    history_->request();
    const auto then = std::move(afterOpen_);
    afterOpen_.clear();
    for (const auto &f : then)
        f();
}

void Launcher::onDatabaseRefused()
{
    afterOpen_.clear();
    showNewest_ = false;
}

void Launcher::detectDevices(std::function<void()> then)
{
    afterProbe_.push_back(std::move(then));
    Q_EMIT statusText(tr("Looking for CUDA devices…"));
    probe_.start(panel_->pythonInterpreter()); // the LibTorch of the torch runs will use
}

void Launcher::onDevicesFound(int count)
{
    panel_->setCudaDevices(count);
    panel_->loadSettings(QSettings());
    shown_->reshowStoredSettings(); // the probe reset the panel under the stored sweep
    torchProblem_.clear();
    Q_EMIT torchProblemChanged({});
    // Said for a while, not left standing: a stored sweep on show may well have run on a GPU.
    Q_EMIT statusText(tr("Ready"));
    Q_EMIT passing(count > 0 ? tr("%n CUDA device(s) found.", nullptr, count)
                             : tr("No CUDA device on this machine: new sweeps run small images on the CPU."),
                   8000);
    runAfterProbe();
}

void Launcher::onTorchMissing(const QString &why)
{
    // No verdict on CUDA: the panel keeps its devices and defaults, and says what it waits for.
    torchProblem_ = why;
    Q_EMIT torchProblemChanged(why);
    panel_->setDevicesUnknown(tr("CUDA devices are looked for once PyTorch is set up."));
    Q_EMIT logLine(why);
    Q_EMIT statusText(tr("PyTorch is not set up."));
    runAfterProbe();
}

void Launcher::runAfterProbe()
{
    const auto then = std::move(afterProbe_);
    afterProbe_.clear();
    for (const auto &f : then)
        if (f)
            f();
}

bool Launcher::isWaiting() const
{
    return startWhenTorchKnown_ || !afterOpen_.empty() || !afterProbe_.empty();
}

} // namespace stepscope::ui
