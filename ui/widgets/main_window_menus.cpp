// The window's menus (File, Run, View, Tools, Help) and the tab stepping of View: each action calls
// what the window, its launcher or a page already offers.
#include "controller/run_controller.h"
#include "pages/batch_scan_page.h"
#include "pages/compare_page.h"
#include "pages/sweep_pages.h"
#include "presenters/launcher.h"
#include "widgets/database_dialog.h"
#include "widgets/export_dialogs.h"
#include "widgets/main_window.h"
#include "widgets/recent_databases.h"

#include <QCoreApplication>
#include <QMenuBar>
#include <QMessageBox>

namespace stepscope::ui
{

void MainWindow::buildMenus()
{
    auto *file = menuBar()->addMenu(tr("&File"));
    auto *open = file->addAction(tr("&Open database…"), this, [this] {
        const QString path = chooseDatabaseFile(this, controller_->databasePath());
        if (!path.isEmpty())
            openChosenDatabase(path);
    });
    open->setShortcut(QKeySequence::Open);
    recent_ = new RecentDatabases(tr("Recent databases"), file);
    file->addMenu(recent_);
    connect(recent_, &RecentDatabases::openRequested, this, &MainWindow::openChosenDatabase);
    file->addSeparator();
    auto *exportReport =
        file->addAction(tr("&Export sweep report…"), this, [this] { exportSweepReport(this, export_); });
    exportReport->setShortcut(QKeySequence(tr("Ctrl+E")));
    file->addAction(tr("Export c&omparison report…"), tabs_->compare(), &ComparePage::exportReportInteractive);
    auto *exportChart = file->addAction(tr("Export current &chart…"), this,
                                        [this] { exportPageChart(this, tabs_->currentPage(), export_); });
    exportChart->setShortcut(QKeySequence(tr("Ctrl+Shift+E")));
    file->addSeparator();
    auto *quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    auto *run = menuBar()->addMenu(tr("&Run"));
    auto *start = run->addAction(tr("&Start sweep"), this, &MainWindow::startSweep);
    start->setShortcut(QKeySequence(tr("Ctrl+R")));
    auto *stop = run->addAction(tr("S&top sweep"), this, &MainWindow::stopSweep);
    stop->setShortcut(QKeySequence(tr("Ctrl+.")));

    auto *view = menuBar()->addMenu(tr("&View"));
    int number = 0;
    for (Page *page : tabs_->pages()) {
        auto *a = view->addAction(page->title().remove('&'), this, [this, page] { tabs_->setCurrentWidget(page); });
        if (++number <= 9)
            a->setShortcut(QKeySequence(QString("Ctrl+%1").arg(number)));
        // The Batch scan tab is there for a scan only, and so is its entry.
        if (page == tabs_->batchScan()) {
            a->setVisible(tabs_->batchScan()->hasScan());
            connect(tabs_->batchScan(), &BatchScanPage::scanChanged, a, &QAction::setVisible);
        }
    }
    // Ctrl+Tab and Ctrl+Shift+Tab cycle the tabs wherever the focus is (QTabWidget does it only with
    // the focus inside the tabs, and a table there takes Tab for itself).
    view->addSeparator();
    auto *next = view->addAction(tr("&Next tab"), this, [this] { stepTab(1); });
    next->setShortcuts({QKeySequence(Qt::CTRL | Qt::Key_Tab), QKeySequence(Qt::CTRL | Qt::Key_PageDown)});
    auto *previous = view->addAction(tr("&Previous tab"), this, [this] { stepTab(-1); });
    // Shift+Tab arrives as Backtab (with Shift) from most keyboards, as Tab with Shift from some.
    previous->setShortcuts({QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Backtab),
                            QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Tab), QKeySequence(Qt::CTRL | Qt::Key_PageUp)});
    auto *tools = menuBar()->addMenu(tr("&Tools"));
    tools->addAction(tr("Set up &PyTorch…"), this, [this] { showSetupDialog(); });

    auto *help = menuBar()->addMenu(tr("&Help"));
    auto *glossary = help->addAction(tr("&Glossary"), this, &MainWindow::showGlossary);
    glossary->setShortcut(QKeySequence::HelpContents);
    glossary->setShortcutContext(Qt::ApplicationShortcut);
    help->addAction(tr("&About Stepscope"), this,
                    [this] { QMessageBox::about(this, tr("About Stepscope"), aboutText()); });
}

QString MainWindow::aboutText()
{
    // The licence is the package's (installer/debian/copyright): GPL because QCustomPlot is.
    return tr("<b>Stepscope</b> %1<br>Which PyTorch training-step optimizations pay off on this GPU: first-step "
              "cost, steady-state saving, break-even and the fastest way to finish your planned run."
              "<p>Free software under the GNU General Public License, version 3 or (at your option) any later "
              "version (GPL-3.0-or-later), with no warranty. It uses Qt (LGPL-3), QCustomPlot (GPL-3), SQLite "
              "(public domain) and PyTorch (BSD-3-Clause).</p>")
        .arg(QCoreApplication::applicationVersion());
}

void MainWindow::stepTab(int step)
{
    const int count = tabs_->count();
    restoreTab_ = -1; // the user chose a tab
    int index = tabs_->currentIndex();
    do // past hidden tabs (Batch scan, for a sweep of one batch)
        index = ((index + step) % count + count) % count;
    while (!tabs_->isTabVisible(index) && index != tabs_->currentIndex());
    tabs_->setCurrentIndex(index);
}

} // namespace stepscope::ui
