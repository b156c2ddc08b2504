#include "pages/sweep_pages.h"

#include "charts/break_even_chart.h"
#include "charts/first_vs_steady_chart.h"
#include "charts/waterfall_chart.h"
#include "controller/run_controller.h"
#include "pages/batch_scan_page.h"
#include "pages/chart_page.h"
#include "pages/compare_page.h"
#include "pages/history_page.h"
#include "pages/ledger_page.h"
#include "pages/live_page.h"
#include "pages/log_page.h"
#include "pages/steps_page.h"
#include "pages/why_page.h"
#include "presenters/live_run.h"
#include "presenters/shown_sweep.h"
#include "pages/environment_page.h"

namespace stepscope::ui
{

template <typename P> P *SweepPages::add(P *page)
{
    pages_ << page;
    addTab(page, page->title());
    return page;
}

SweepPages::SweepPages(const Sources &s, QWidget *parent) : QTabWidget(parent)
{
    // Each title's mnemonic (Alt+letter) is its own and none of the menus' (File, Run, View, Tools,
    // Help): a tab that shares a menu's letter takes Alt+F or Alt+H from it.
    live_ = add(new LivePage(s.live));
    ledger_ = add(new LedgerPage(s.shown));
    const auto chart = [this, &s](LedgerChart *c, const QString &title, const QString &key) {
        c->setModel(s.shown->ledger());
        add(new ChartPage(c, title, key));
    };
    chart(new FirstVsSteadyChart, tr("F&irst step vs steady"), QStringLiteral("first-vs-steady"));
    chart(new BreakEvenChart, tr("&Break-even"), QStringLiteral("break-even"));
    chart(new WaterfallChart, tr("W&aterfall"), QStringLiteral("waterfall"));
    why_ = add(new WhyPage(s.shown->ledger()));
    // Beside the Why page, whose busy shares its chart labels; a tab only while the sweep is a scan.
    batchScan_ = add(new BatchScanPage(s.shown->ledger()));
    setTabVisible(indexOf(batchScan_), batchScan_->hasScan());
    connect(batchScan_, &BatchScanPage::scanChanged, this,
            [this](bool scan) { setTabVisible(indexOf(batchScan_), scan); });
    steps_ = add(new StepsPage(s.shown->ledger(), s.query));
    history_ = add(new HistoryPage(s.history, s.query, s.controller));
    compare_ = add(new ComparePage(s.comparison, s.comparisonJob));
    environment_ = add(new EnvironmentPage(s.shown->environment()));
    log_ = add(new LogPage);

    // What one page or presenter asks of another, and which page comes forward for it.
    connect(ledger_, &LedgerPage::runStepsRequested, this, [this, live = s.live](qint64 runId) {
        live->showStoredRun(runId);
        setCurrentWidget(live_);
    });
    connect(s.live, &LiveRun::runBegan, this, [this] { setCurrentWidget(live_); });
    connect(s.live, &LiveRun::sweepEnded, this, [this] { setCurrentWidget(ledger_); });
    connect(s.live, &LiveRun::logLine, log_, &LogPage::append);
    connect(s.shown, &ShownSweep::ledgerForward, this, [this] { setCurrentWidget(ledger_); });
    connect(s.shown, &ShownSweep::storedRunWanted, s.live, &LiveRun::showStoredRun);
    connect(s.shown, &ShownSweep::sweepChosen, compare_, &ComparePage::setShownSweep);
    connect(history_, &HistoryPage::renamed, s.shown, &ShownSweep::renamed);
    connect(history_, &HistoryPage::deleting, s.shown, &ShownSweep::forget);
    connect(s.controller, &RunController::databaseOpened, compare_, &ComparePage::setDatabase);
}

Page *SweepPages::currentPage() const
{
    return qobject_cast<Page *>(currentWidget());
}

void SweepPages::clearPages()
{
    for (Page *page : pages_)
        page->clear();
}

} // namespace stepscope::ui
