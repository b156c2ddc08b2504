#pragma once
// The dashboard's tabs. As hotspot's ResultsPage hands its parser to its sub-pages, this makes every
// page from the presenter, model or job it shows, and each page subscribes itself to it; what is
// left here is the order of the tabs and which comes forward when a presenter says so (a run
// starts or its steps are asked for: Live; a sweep is chosen or ends: Ledger), and which tabs a
// sweep has (Batch scan for a sweep of several batches only).
#include <QList>
#include <QTabWidget>

namespace stepscope::ui
{

class BatchScanPage;
class ComparePage;
class ComparisonJob;
class ComparisonModel;
class EnvironmentPage;
class HistoryModel;
class HistoryPage;
class LedgerPage;
class LivePage;
class LiveRun;
class LogPage;
class Page;
class QueryJob;
class RunController;
class ShownSweep;
class StepsPage;
class WhyPage;

class SweepPages : public QTabWidget
{
    Q_OBJECT
  public:
    // What the pages show; none is owned, all outlive the pages.
    struct Sources {
        RunController *controller = nullptr;
        ShownSweep *shown = nullptr;
        LiveRun *live = nullptr;
        QueryJob *query = nullptr; // fills `history`
        HistoryModel *history = nullptr;
        ComparisonJob *comparisonJob = nullptr; // fills `comparison`
        ComparisonModel *comparison = nullptr;
    };
    explicit SweepPages(const Sources &sources, QWidget *parent = nullptr);

    const QList<Page *> &pages() const { return pages_; }
    Page *currentPage() const;
    // Every page forgets what it shows of its own (another database opens).
    void clearPages();

    LivePage *live() const { return live_; }
    LedgerPage *ledger() const { return ledger_; }
    StepsPage *steps() const { return steps_; }
    HistoryPage *history() const { return history_; }
    ComparePage *compare() const { return compare_; }
    EnvironmentPage *environment() const { return environment_; }
    LogPage *log() const { return log_; }
    WhyPage *why() const { return why_; }
    BatchScanPage *batchScan() const { return batchScan_; }

  private:
    template <typename P> P *add(P *page);

    QList<Page *> pages_;
    LivePage *live_;
    LedgerPage *ledger_;
    StepsPage *steps_;
    HistoryPage *history_;
    ComparePage *compare_;
    EnvironmentPage *environment_;
    LogPage *log_;
    WhyPage *why_;
    BatchScanPage *batchScan_;
};

} // namespace stepscope::ui
