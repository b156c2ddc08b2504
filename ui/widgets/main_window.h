#pragma once
// The dashboard window. It assembles the pieces and wires them: the configuration panel on the left
// (scrolled, with the planned run and Start/Stop pinned under it), the header naming the sweep on
// show, the pages in tabs, the sweep's progress in the status bar. It computes nothing and reads
// nothing itself: the controller runs sweeps and opens files, the jobs (controller/*_job.h) read
// and compute on their own threads and fill the models, and the UI thread only shows results.
#include "controller/ledger_job.h"

#include <QElapsedTimer>
#include <QList>
#include <QMainWindow>

#include <functional>
#include <optional>

class QLabel;
class QProgressBar;
class QTabWidget;
class QTimer;
class QMenu;

namespace stepscope::ui
{

class BreakEvenChart;
class ChartPage;
class ComparePage;
class ComparisonJob;
class ComparisonModel;
class ConfigPanel;
class DeviceProbe;
class EnvironmentModel;
class EnvironmentPage;
class FirstVsSteadyChart;
class HistoryModel;
class HistoryPage;
class LedgerModel;
class LedgerPage;
class LiveStepChart;
class LogPage;
class Page;
class QueryJob;
class ReportJob;
class RunController;
class RunDetailDialog;
class StepsPage;
class SweepHeader;
class WaterfallChart;
struct RunSteps;

class MainWindow : public QMainWindow
{
    Q_OBJECT
  public:
    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    // Opens (or creates) a database on the controller's thread: databaseOpened or a message box
    // follows. The views of the previous file are cleared at once. False when refused at once
    // (a sweep is running), or for an empty path (no default: HOME is not set), which the status
    // bar explains.
    bool openDatabase(const QString &path);
    // Asks the native worker how many CUDA devices LibTorch sees, then fits the defaults to it;
    // `then` runs afterwards (e.g. start the default sweep).
    void detectDevices(std::function<void()> then = {});
    bool startSweep();
    void stopSweep();
    // Shows a stored sweep: header, read-only settings in the panel, ledger (computed on the ledger
    // job's thread), and its last run's steps. Waits for a database still being opened.
    void showSweep(qint64 sweepId);
    // Shows a stored run's steps in the live chart (what the chart showed while it ran).
    void showRunSteps(qint64 runId);
    // Compares two sweeps on the comparison job's thread; the Compare page shows the result.
    bool compareSweeps(qint64 a, qint64 b);
    // Writes the report of the sweep on show (format by the file's suffix) on the report job's
    // thread: reportWritten or reportFailed follows. False at once, with *error, when there is
    // nothing to report, the suffix names no format, or `path` is the open database's own file
    // (the database, its -wal, -shm or -journal).
    bool exportReport(const QString &path, QString *error);
    // Renames a sweep in the open database; the history and header follow.
    void renameSweep(qint64 sweepId, const QString &name);
    // Saves a PNG of every page into `dir` (documentation screenshots). Take them when idle.
    bool saveScreenshots(const QString &dir, QString *error);

    // Whether a file is being opened or any job is reading or computing.
    bool isBusy() const;
    qint64 shownSweep() const { return shownSweep_; }

    // For tests.
    ConfigPanel *configPanel() const { return panel_; }
    RunController *controller() const { return controller_; }
    LedgerModel *ledgerModel() const { return ledger_; }
    HistoryModel *historyModel() const { return history_; }
    ComparisonModel *comparisonModel() const { return comparison_; }
    LiveStepChart *liveChart() const { return live_; }
    BreakEvenChart *breakEvenChart() const { return breakEven_; }
    FirstVsSteadyChart *firstVsSteadyChart() const { return firstVsSteady_; }
    WaterfallChart *waterfallChart() const { return waterfall_; }
    EnvironmentPage *environmentPage() const { return environmentPage_; }
    HistoryPage *historyPage() const { return historyPage_; }
    LedgerPage *ledgerPage() const { return ledgerPage_; }
    ComparePage *comparePage() const { return comparePage_; }
    StepsPage *stepsPage() const { return stepsPage_; }
    SweepHeader *sweepHeader() const { return header_; }
    LedgerJob *ledgerJob() const { return ledgerJob_; }
    const QList<Page *> &pages() const { return pages_; }
    Page *currentPage() const;
    QString recommendationText() const;
    // The status bar's standing text ("Sweep 3 cancelled: ...") and its last passing message.
    QString progressText() const;
    QString lastMessage() const { return lastMessage_; }
    QString logText() const;
    // "compiling 0:42" while the running worker is in a long phase, else empty.
    QString phaseStatus() const;
    // The detail dialog of a ledger row (model row) that failed, was cancelled or is compiled, from
    // the runs read with the ledger; nullptr for a plain row (a double-click shows its steps
    // instead). The caller owns it.
    RunDetailDialog *rowDetailDialog(int ledgerRow);

  Q_SIGNALS:
    void sweepFinished(qint64 sweepId, bool cancelled);
    void databaseOpened(const QString &path);
    void reportWritten(const QString &path);
    void reportFailed(const QString &error);
    void busyChanged(bool busy);

  protected:
    void closeEvent(QCloseEvent *event) override;

  private:
    // Why `path` may not be written (it is one of the open database's files), else empty.
    QString refusedTarget(const QString &path) const;
    void buildPages();
    void buildMenus();
    void connectController();
    void connectJobs();
    void addPage(Page *page);
    void onDatabaseOpened(const QString &path);
    void clearViews();
    void drainSamples();
    void requestLedger(qint64 sweepId, const QString &activity);
    void onSweepRead(const SweepInfo &info);
    void showStoredSettings(const SweepInfo &info);
    void runAgain();
    void leaveStoredSettings(bool ownSettings);
    void reloadHistory();
    void deleteSweep(qint64 sweepId);
    void showRowDetail(int ledgerRow);
    void showSteps(const RunSteps &steps);
    void runDoctor();
    void showPhase(qint64 runId, const QString &phase, double elapsedSeconds);
    void clearPhase();
    void reportCompile(qint64 runId, const QString &json);
    void exportReportInteractive();
    void exportChartInteractive();
    void showMessage(const QString &text, int timeoutMs);
    void updateBusy();
    void rememberDatabase(const QString &path);
    void rebuildRecentMenu();
    void loadSettings();
    void saveSettings() const;

    RunController *controller_;
    LedgerJob *ledgerJob_;
    ComparisonJob *comparisonJob_;
    QueryJob *queryJob_;
    ReportJob *reportJob_;
    DeviceProbe *deviceProbe_;

    LedgerModel *ledger_;
    HistoryModel *history_;
    ComparisonModel *comparison_;
    EnvironmentModel *environment_;

    ConfigPanel *panel_;
    SweepHeader *header_;
    QTabWidget *tabs_;
    QList<Page *> pages_;
    ChartPage *livePage_;
    LedgerPage *ledgerPage_;
    HistoryPage *historyPage_;
    ComparePage *comparePage_;
    StepsPage *stepsPage_;
    EnvironmentPage *environmentPage_;
    LogPage *log_;
    LiveStepChart *live_;
    FirstVsSteadyChart *firstVsSteady_;
    BreakEvenChart *breakEven_;
    WaterfallChart *waterfall_;

    QProgressBar *progressBar_;
    QLabel *progressLabel_;
    QLabel *phaseLabel_;
    QTimer *drain_;
    QTimer *plannedDebounce_;
    QMenu *recentMenu_ = nullptr;
    QString lastMessage_;
    bool busy_ = false;
    int drawingReports_ = 0; // exports whose charts are still being drawn

    qint64 shownSweep_ = 0;   // the sweep the header, ledger and charts are of
    qint64 pendingSweep_ = 0; // asked for while the database was still opening
    std::optional<std::pair<qint64, qint64>> pendingCompare_;
    bool storedView_ = false;    // shownSweep_ was opened for reading (not the sweep this window ran)
    bool startWhenOpen_ = false; // Start was pressed before any database was open
    std::optional<SweepInfo> shownInfo_;
    QString ledgerActivity_; // what the ledger job computes, for the header
    std::vector<std::function<void()>> afterProbe_;

    qint64 runningSweep_ = 0;
    qint64 liveRunId_ = 0;
    QVector<double> liveSeries_; // the running configuration's step times, for steady detection
    QElapsedTimer steadyClock_;  // rate-limits that detection
    int stepsInRun_ = 0;
    int runIndex_ = 0, runTotal_ = 0, runsComplete_ = 0, runsEnded_ = 0;
};

} // namespace stepscope::ui
