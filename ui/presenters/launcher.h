#pragma once
// What happens between the user's Start and a running sweep, and what waits meanwhile. Start builds
// the panel's request and hands it to the controller once three things are known: a database is open
// (the default one is opened first), CUDA devices were looked for (detectDevices), and the panel's
// Python has a usable torch (looked up off the UI thread; without one the setup is offered instead).
// Whatever is not known yet is waited for, never on the UI thread: the request waits in this object
// and goes on when the answer comes. Run again, Stop, opening a file (and showing its newest sweep),
// and a comparison asked for while a file opens go through here too.
//
// No widgets of its own: the window shows its notices (message boxes), status texts, the torch
// banner and the setup dialog; the panel is driven through its public API.
#include "controller/device_probe.h"
#include "controller/latest.h"

#include <QObject>
#include <QString>

#include <functional>
#include <optional>
#include <vector>

namespace stepscope::ui
{

class LaunchForm;
class LiveRun;
class RunController;
class ShownSweep;
class SweepHistoryJob;

class Launcher : public QObject
{
    Q_OBJECT
  public:
    enum class Tone { Information, Warning, Critical };
    Q_ENUM(Tone)

    // None is owned; all outlive this.
    Launcher(RunController *controller, LaunchForm *panel, ShownSweep *shown, LiveRun *live,
             QObject *parent = nullptr);

    // Start: true when the sweep started or waits for an open, a probe or the torch lookup; false,
    // with a notice or the setup offered, when it cannot start.
    bool start();
    // Run again: the stored sweep on show, as it ran.
    void runAgain();
    void stop();
    // Opens (or creates) `path` on the controller's thread: databaseOpened or a notice follows. The
    // views of the previous file are cleared at once (opening). False when refused at once, or for
    // an empty path (no default: HOME is not set), which the status text explains.
    bool openDatabase(const QString &path);
    // A file the user chose: its newest sweep is shown once read.
    void openChosenDatabase(const QString &path);
    // `then` runs once the database is open: now when it is, after the open under way, never when
    // that is refused or another file is chosen (the views are cleared).
    void whenOpen(std::function<void()> then);
    // Asks the native worker for CUDA devices and fits the panel to them; `then` runs afterwards.
    void detectDevices(std::function<void()> then = {});
    // Looks up, off the UI thread, whether the panel's Python has a usable torch; a Start waiting
    // for it goes on with the answer.
    void lookUpTorch();
    // Why the probe found no usable torch; empty once it found one.
    QString torchProblem() const { return torchProblem_; }
    DeviceProbe *probe() { return &probe_; }
    SweepHistoryJob *sweepHistory() const { return history_; }
    // What waits: a Start for the torch lookup, a sweep for an open, a probe's follow-ups.
    bool isWaiting() const;

  Q_SIGNALS:
    // Something the user must read before going on (a message box in the window).
    void notice(stepscope::ui::Launcher::Tone tone, const QString &title, const QString &text);
    // The status bar's standing text, and a passing message.
    void statusText(const QString &text);
    void passing(const QString &text, int timeoutMs);
    void logLine(const QString &line);
    // No usable torch, and why (empty: there is one now).
    void torchProblemChanged(const QString &why);
    // The setup is offered for `reason`; with `startAfter` the sweep asked for starts once it is done.
    void setupWanted(const QString &reason, bool startAfter);
    // A file starts opening: what showed the previous one goes.
    void opening();

  private:
    // Start once the torch is known usable (or not needed).
    bool launch();
    void onDatabaseOpened();
    void onDatabaseRefused();
    void onDevicesFound(int count);
    void onTorchMissing(const QString &why);
    void onTorchAnswer(const QString &python, bool usable, const QString &problem);
    void runAfterProbe();

    RunController *controller_;
    LaunchForm *panel_;
    ShownSweep *shown_;
    SweepHistoryJob *history_;
    DeviceProbe probe_;
    Latest torchLookup_{this};

    // The last torch lookup's answer for a Python as the panel names it.
    struct TorchAnswer {
        QString python;
        bool usable = false;
        QString problem; // with its fix; empty when usable
    };
    std::optional<TorchAnswer> torch_;
    bool startWhenTorchKnown_ = false; // Start waits for the lookup under way
    QString torchProblem_;
    bool showNewest_ = false; // a file the user chose is opening: show its newest sweep once read
    std::vector<std::function<void()>> afterOpen_, afterProbe_;
};

} // namespace stepscope::ui
