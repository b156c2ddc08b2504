#pragma once
// The dashboard window. It arranges the pieces: the configuration panel on the left (scrolled,
// with the planned run and Start/Stop pinned under it), the header naming the sweep on show, the
// pages in tabs, the menus, and the sweep's progress and passing messages in the status bar; all of
// it, frame included, on the screen's available area (fitToScreen). It
// routes no job's results: the presenters (presenters/*.h) follow the controller and the jobs, and
// each page subscribes itself to the presenter, model or job it shows.
#include <QList>
#include <QMainWindow>
#include <QPointer>

#include <functional>

class QSplitter;

namespace stepscope::ui
{

class Activity;
class ComparePage;
class ComparisonJob;
class ComparisonModel;
class ConfigPanel;
class GlossaryDialog;
class HistoryModel;
class Launcher;
class LiveRun;
class QueryJob;
class RecentDatabases;
class ReportExport;
class RunController;
class SetupDialog;
class ShownSweep;
class SweepHeader;
class SweepPages;
class SweepStatusBar;
class TorchBanner;

class MainWindow : public QMainWindow
{
    Q_OBJECT
  public:
    explicit MainWindow(QWidget *parent = nullptr);

    // Opens (or creates) a database on the controller's thread: databaseOpened or a message box
    // follows. The views of the previous file are cleared at once. False when refused at once
    // (a sweep is running), or for an empty path (no default: HOME is not set), which the status
    // bar explains.
    bool openDatabase(const QString &path);
    // Asks the native worker how many CUDA devices LibTorch sees, then fits the defaults to it;
    // `then` runs afterwards (e.g. start the default sweep). Without a usable torch nothing is said
    // of CUDA: the torch banner says why and offers the setup, after which the probe runs again.
    void detectDevices(std::function<void()> then = {});
    bool startSweep();
    void stopSweep();
    // Shows a stored sweep (ShownSweep::show); waits for a database still being opened.
    void showSweep(qint64 sweepId);
    // Compares two sweeps on the comparison job's thread; the Compare page shows the result.
    bool compareSweeps(qint64 a, qint64 b);
    // Saves a PNG of every page into `dir` (documentation screenshots). Take them when idle.
    bool saveScreenshots(const QString &dir, QString *error);
    // Whether a file is being opened or any job is reading, computing or writing.
    bool isBusy() const;

    RunController *controller() const { return controller_; }
    Launcher *launcher() const { return launcher_; }
    ConfigPanel *configPanel() const { return panel_; }
    ShownSweep *shownSweep() const { return shown_; }
    ReportExport *reportExport() const { return export_; }
    SweepHeader *sweepHeader() const { return header_; }
    SweepPages *pages() const { return tabs_; }
    ComparePage *comparePage() const;
    // The status bar: its standing text ("Sweep 3 cancelled: ..."), its last passing message, and
    // "compiling 0:42" while the running worker is in a long phase (else empty).
    QString progressText() const;
    QString lastMessage() const;
    QString phaseStatus() const;
    // The About box's words: version, what Stepscope answers, and its licence.
    static QString aboutText();

    // Fits the window, its frame included, into `available` (a screen's available geometry): no
    // larger, and moved inside it. Done on the first show for the window's screen, and again once
    // the window manager's frame is known.
    void fitToScreen(const QRect &available);
    // Help › Glossary (F1): the words the views use, explained (widgets/glossary.h).
    void showGlossary();
    GlossaryDialog *glossary() const { return glossary_; }
    // Tools › Set up PyTorch…: the managed environment's setup (widgets/setup_dialog.h), with why it
    // is offered when a sweep found no usable torch. One dialog, raised again while it is open.
    void showSetupDialog(const QString &reason = {});
    SetupDialog *setupDialog() const;
    TorchBanner *torchBanner() const { return torchBanner_; }
    // Opens a file the user chose (File › Open, Recent): its newest sweep is shown once read.
    void openChosenDatabase(const QString &path);

  Q_SIGNALS:
    void sweepFinished(qint64 sweepId, bool cancelled);
    void databaseOpened(const QString &path);
    void busyChanged(bool busy);

  protected:
    void closeEvent(QCloseEvent *event) override;
    void showEvent(QShowEvent *event) override;

  private:
    void buildMenus();
    // The next (1) or previous (-1) tab, round the ends.
    void stepTab(int step);
    void connectRun();
    void onDatabaseOpened(const QString &path);
    void clearViews();
    // The geometry, the tab, the splitters and the column widths of last time (view_state.h).
    void restoreWindowState();
    void fitToScreen(const QRect &available, const QSize &wanted);
    QList<QWidget *> arrangedViews() const; // the pages whose splitters and columns are kept

    RunController *controller_;
    QueryJob *query_;
    HistoryModel *history_;
    ComparisonModel *comparison_;
    ComparisonJob *comparisonJob_;
    ShownSweep *shown_;
    ReportExport *export_;
    LiveRun *live_;
    Activity *activity_;

    ConfigPanel *panel_;
    SweepHeader *header_;
    SweepPages *tabs_;
    QSplitter *split_;
    Launcher *launcher_;
    GlossaryDialog *glossary_ = nullptr;
    // Deletes itself on close; a QPointer forgets it then (a destroyed() slot on this window would run
    // during the window's own destruction, when the dialog goes with the window's children).
    QPointer<SetupDialog> setup_;

    SweepStatusBar *status_;
    TorchBanner *torchBanner_;
    RecentDatabases *recent_ = nullptr;

    int restoreTab_ = -1; // the tab of last time, kept when the first sweep shown brings its ledger forward
    bool fitted_ = false; // fitted to its screen on the first show
};

} // namespace stepscope::ui
