#pragma once
// The dashboard window: the configuration panel on the left, the views in tabs, the sweep's
// progress in the status bar. It is the only place that wires the controller to the views.
#include <QElapsedTimer>
#include <QMainWindow>
#include <QPointer>

#include <memory>

class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QProgressBar;
class QSortFilterProxyModel;
class QTabWidget;
class QTableView;
class QTimer;
class QTreeView;
class QCustomPlot;
class QMenu;

namespace stepscope::store
{
class Reader;
}

namespace stepscope::ui
{

class BreakEvenChart;
class ComparisonModel;
class ConfigPanel;
class EnvironmentModel;
class EnvironmentPage;
class FirstVsSteadyChart;
class HistoryModel;
class LedgerModel;
class LiveStepChart;
class RunController;
class RunDetailDialog;
class WaterfallChart;

class MainWindow : public QMainWindow
{
    Q_OBJECT
  public:
    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    bool openDatabase(const QString &path);
    // Asks the native worker how many CUDA devices LibTorch sees, then fits the defaults to it;
    // `then` runs afterwards (e.g. start the default sweep).
    void detectDevices(std::function<void()> then = {});
    bool startSweep();
    void stopSweep();
    void showSweep(qint64 sweepId);
    // Shows a finished run's steps in the live chart (what the chart showed while it ran).
    void showRunSteps(qint64 runId);
    bool compareSweeps(qint64 a, qint64 b);
    bool exportReport(const QString &path, QString *error);
    // Saves a PNG of every tab into `dir` (documentation screenshots).
    bool saveScreenshots(const QString &dir, QString *error);

    // For tests.
    ConfigPanel *configPanel() const { return panel_; }
    RunController *controller() const { return controller_; }
    LedgerModel *ledgerModel() const { return ledger_; }
    HistoryModel *historyModel() const { return history_; }
    LiveStepChart *liveChart() const { return live_; }
    BreakEvenChart *breakEvenChart() const { return breakEven_; }
    FirstVsSteadyChart *firstVsSteadyChart() const { return firstVsSteady_; }
    WaterfallChart *waterfallChart() const { return waterfall_; }
    EnvironmentPage *environmentPage() const { return environmentPage_; }
    QString recommendationText() const;
    // "compiling 0:42" while the running worker is in a long phase, else empty.
    QString phaseStatus() const;
    // The detail dialog of a ledger row (model row) that failed or is compiled; nullptr for a
    // plain row (a double-click shows its steps instead). The caller owns it.
    RunDetailDialog *rowDetailDialog(int ledgerRow);

  Q_SIGNALS:
    void sweepFinished(qint64 sweepId, bool cancelled);

  protected:
    void closeEvent(QCloseEvent *event) override;

  private:
    void buildMenus();
    void buildTabs();
    void drainSamples();
    void reloadLedger(qint64 sweepId);
    void reloadHistory();
    void compareSelectedSweeps();
    void deleteSelectedSweep();
    void showRowDetail(const QModelIndex &proxyIndex);
    void runDoctor();
    void showPhase(qint64 runId, const QString &phase, double elapsedSeconds);
    void clearPhase();
    void reportCompile(qint64 runId, const QString &json);
    void exportReportInteractive();
    void exportChartInteractive();
    void rememberDatabase(const QString &path);
    void rebuildRecentMenu();
    void loadSettings();
    void saveSettings() const;
    QCustomPlot *currentPlot() const;
    store::Reader &reader(); // throws store::StoreError

    RunController *controller_;
    ConfigPanel *panel_;
    QTabWidget *tabs_;
    LiveStepChart *live_;
    FirstVsSteadyChart *firstVsSteady_;
    BreakEvenChart *breakEven_;
    WaterfallChart *waterfall_;
    LedgerModel *ledger_;
    QSortFilterProxyModel *ledgerProxy_;
    QTableView *ledgerView_;
    QLabel *recommendation_;
    HistoryModel *history_;
    QSortFilterProxyModel *historyProxy_;
    QTreeView *historyView_;
    QLineEdit *historyFilter_;
    ComparisonModel *comparison_;
    QTableView *comparisonView_;
    QLabel *comparisonTitle_;
    EnvironmentModel *environment_;
    EnvironmentPage *environmentPage_;
    QPlainTextEdit *log_;
    QProgressBar *progressBar_;
    QLabel *progressLabel_;
    QLabel *phaseLabel_;
    QTimer *drain_;
    QMenu *recentMenu_ = nullptr;

    std::unique_ptr<store::Reader> reader_;
    qint64 liveRunId_ = 0;
    QVector<double> liveSeries_; // the running configuration's step times, for steady detection
    QElapsedTimer steadyClock_;  // rate-limits that detection
    int stepsInRun_ = 0;
    int runIndex_ = 0, runTotal_ = 0;
};

} // namespace stepscope::ui
