// The window's views as a user meets them, without running a sweep where none is needed: the
// ledger computed off the UI thread and the planned-steps box debounced, a newer request winning,
// an opened sweep naming itself (header, read-only settings) and nothing stale after File › Open,
// the history's ids, dates and rename, the pages, Tools › Set up PyTorch, and 1280x720.
#include "widgets/main_window.h"

#include "pages/history_page.h"
#include "pages/sweep_pages.h"
#include "presenters/shown_sweep.h"

#include "charts/live_step_chart.h"
#include "charts/run_overlay_chart.h"
#include "controller/ledger_job.h"
#include "controller/run_controller.h"
#include "controller/settings_location.h"
#include "models/environment_model.h"
#include "models/history_model.h"
#include "models/ledger_format.h"
#include "models/ledger_model.h"
#include "models/status_colors.h"
#include "pages/ledger_columns.h"
#include "pages/ledger_page.h"
#include "pages/live_page.h"
#include "pages/page.h"
#include "pages/steps_page.h"
#include "store/store.h"
#include "widgets/config_panel.h"
#include "pages/environment_page.h"
#include "widgets/setup_dialog.h"
#include "widgets/sweep_header.h"
#include "widgets/torch_banner.h"

#include "window_fixture.h"

#include <QBrush>
#include <QCheckBox>
#include <QComboBox>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QLocale>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollBar>
#include <QSet>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <thread>

using namespace stepscope;
using namespace stepscope::ui;
using namespace stepscope::test;

class TestWindowViews : public QObject
{
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() { useTestSettings("test_window_views"); }

    void ledgerIsComputedOffTheUiThreadAndPlannedStepsAreDebounced()
    {
        QTemporaryDir dir;
        const QString path = copyOf(h200Ledger(), dir);
        MainWindow window;
        window.show();
        QVERIFY(openAndWait(window, path));
        QSignalSpy ready(window.shownSweep()->job(), &LedgerJob::ready);
        window.showSweep(1);
        QVERIFY(window.isBusy()); // returned at once: the ledger is being built elsewhere
        QVERIFY(!window.pages()->ledger()->status().isEmpty());
        QVERIFY(waitIdle(window));
        QCOMPARE(ready.count(), 1); // the model was filled by the job, once
        QCOMPARE(window.shownSweep()->ledger()->rowCount(), 7);
        QVERIFY(window.shownSweep()->job()->lastBuildThread() != std::thread::id());
        QVERIFY(window.shownSweep()->job()->lastBuildThread() != std::this_thread::get_id());
        QVERIFY(window.pages()->ledger()->status().isEmpty());

        // Typing 25000 is five values of the box and one recomputation, after the typing stops.
        QSignalSpy recommended(window.shownSweep()->job(), &LedgerJob::recommended);
        QSpinBox *planned = window.configPanel()->plannedBox();
        planned->setFocus();
        planned->selectAll();
        QTest::keyClicks(planned, "25000", Qt::NoModifier, 20);
        QCOMPARE(planned->value(), 25000);
        QCOMPARE(recommended.count(), 0); // nothing yet: the debounce waits for the last key
        QVERIFY(recommended.wait(30000));
        QVERIFY(waitIdle(window));
        QCOMPARE(recommended.count(), 1);
        QCOMPARE(recommended.first().at(1).toLongLong(), qint64(25000));
        QVERIFY2(window.pages()->ledger()->recommendationText().startsWith("For 25000 steps:"),
                 qPrintable(window.pages()->ledger()->recommendationText()));
        QCOMPARE(ready.count(), 1); // the ledger itself was not rebuilt
    }

    void stepsPageOverlaysTheShownSweepsRuns()
    {
        QTemporaryDir dir;
        const QString path = copyOf(h200Ledger(), dir);
        MainWindow window;
        QVERIFY(openAndShow(window, path, 1));
        StepsPage *steps = window.pages()->steps();
        QTRY_COMPARE(steps->overlay()->runCount(), 7); // one run per configuration
        QCOMPARE(steps->overlay()->runs().front().name, QString("baseline"));
        QCOMPARE(steps->overlay()->runs().front().ms.size(), 111); // 1 + 10 warm-up + 100 measured
        // Every cold process of one configuration, in its colour.
        const int baseline = steps->choice()->findData(0);
        QVERIFY(baseline > 0);
        steps->choice()->setCurrentIndex(baseline);
        Q_EMIT steps->choice()->activated(baseline);
        QTRY_COMPARE(steps->overlay()->runCount(), 3);
        QCOMPARE(steps->overlay()->runs().at(2).name, QString("baseline #3"));
        QCOMPARE(steps->overlay()->runs().at(2).colorIndex, 0);
    }

    void newerLedgerRequestSupersedesOlder()
    {
        QTemporaryDir dir;
        const QString path = copyOf(h200Ledger(), dir);
        MainWindow window;
        QVERIFY(openAndWait(window, path));
        QSignalSpy ready(window.shownSweep()->job(), &LedgerJob::ready);
        window.showSweep(1);
        window.showSweep(2); // before sweep 1's ledger arrives
        QVERIFY(waitIdle(window));
        QCOMPARE(ready.count(), 1);
        QCOMPARE(ready.first().at(0).toLongLong(), qint64(2));
        QCOMPARE(window.shownSweep()->ledger()->sweepId(), qint64(2));
        QCOMPARE(window.sweepHeader()->sweepId(), qint64(2));
    }

    void openedSweepShowsItselfAndStaleViewsClear()
    {
        QTemporaryDir dir;
        const QString path = copyOf(h200Ledger(), dir);
        MainWindow window;
        window.show();
        QVERIFY(openAndWait(window, path));
        QVERIFY(window.sweepHeader()->text().startsWith("No sweep shown"));
        window.showSweep(1);
        QVERIFY(waitIdle(window));
        const QString header = window.sweepHeader()->text();
        for (const char *fact : {"H200 ledger b32", "sweep 1", "complete", "cuda", "NVIDIA H200", "batch 32", "224 px",
                                 "7 configurations × 3 repeats", "21 of 21 runs complete", "baseline: baseline"})
            QVERIFY2(header.contains(QString::fromUtf8(fact)), qPrintable(fact + QStringLiteral(" in: ") + header));
        QVERIFY2(header.contains(QStringLiteral("planned %1 steps").arg(QLocale().toString(10000))),
                 qPrintable(header));
        // The sweep's date, in local time.
        const QString created = QDateTime::fromString("2026-11-30T10:08:51.177Z", Qt::ISODateWithMs)
                                    .toLocalTime()
                                    .toString("yyyy-MM-dd HH:mm");
        QVERIFY2(header.contains(created), qPrintable(header));

        // The panel shows the sweep's settings, read-only, with a way to run them again.
        ConfigPanel *panel = window.configPanel();
        QVERIFY(panel->viewingSweep());
        QVERIFY(panel->sweepCaption().contains("Sweep 1"));
        QCOMPARE(panel->device(), QString("cuda"));
        QCOMPARE(panel->baseConfig().batch, 32);
        QCOMPARE(panel->baseConfig().imageSize, 224);
        for (const char *knob : {"tf32", "cudnn-bench", "autocast", "channels-last", "cuda-graph"})
            QVERIFY2(panel->knobBox(knob)->isChecked(), knob);
        QVERIFY(!panel->knobBox("tf32")->isEnabled() || !panel->knobBox("tf32")->parentWidget()->isEnabled());
        QVERIFY(panel->runAgainButton()->isVisible());
        QVERIFY(!panel->startButton()->isEnabled());
        QVERIFY(window.pages()->ledger()->recommendationText().contains("finishes first"));

        // File › Open of another database: nothing of the first stays on screen.
        QSignalSpy opened(&window, &MainWindow::databaseOpened);
        QVERIFY(window.openDatabase(dir.filePath("other.sqlite")));
        QCOMPARE(window.shownSweep()->ledger()->rowCount(), 0);
        QVERIFY(!window.pages()->ledger()->recommendationText().contains("finishes first"));
        QVERIFY(window.sweepHeader()->text().startsWith("No sweep shown"));
        QCOMPARE(window.pages()->history()->model()->rowCount(), 0);
        QVERIFY(!panel->viewingSweep());
        QVERIFY(opened.wait(30000));
        QVERIFY(waitIdle(window));
        QCOMPARE(window.pages()->history()->model()->rowCount(), 0);
        QCOMPARE(window.shownSweep()->ledger()->rowCount(), 0);
    }

    void historyHasIdsFullDatesAndRename()
    {
        QTemporaryDir dir;
        const QString path = copyOf(h200Ledger(), dir);
        MainWindow window;
        QVERIFY(openAndWait(window, path));
        HistoryModel *history = window.pages()->history()->model();
        QCOMPARE(history->rowCount(), 2);
        const QModelIndex b32 = history->indexOfSweep(1);
        QVERIFY(b32.isValid());
        QCOMPARE(history->index(b32.row(), HistoryModel::Id).data().toLongLong(), qint64(1));
        QCOMPARE(history->headerData(HistoryModel::Id, Qt::Horizontal).toString(), QString("Id"));
        const QString created = history->index(b32.row(), HistoryModel::Created).data().toString();
        QVERIFY2(QRegularExpression("^\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d$").match(created).hasMatch(),
                 qPrintable(created));
        // A run row has its own id too.
        QVERIFY(history->index(0, HistoryModel::Id, b32).data().toLongLong() > 0);

        window.showSweep(1);
        QVERIFY(waitIdle(window));
        window.pages()->history()->renameSweep(1, "batch 32, before the driver update");
        QTRY_COMPARE_WITH_TIMEOUT(history->index(history->indexOfSweep(1).row(), HistoryModel::Name).data().toString(),
                                  QString("batch 32, before the driver update"), 30000);
        QVERIFY(window.sweepHeader()->text().startsWith("batch 32, before the driver update"));
        QVERIFY(waitIdle(window));
        auto reader = store::Reader::open(path.toStdString());
        QCOMPARE(QString::fromStdString(reader->sweep(1)->name), QString("batch 32, before the driver update"));
        QCOMPARE(QString::fromStdString(reader->sweep(2)->name), QString("H200 ledger b128"));
    }

    void pagesAreAssembledWithoutIndices()
    {
        MainWindow window;
        QStringList keys;
        for (Page *page : window.pages()->pages()) {
            QVERIFY(!page->title().isEmpty());
            keys << page->key();
        }
        QCOMPARE(keys, (QStringList{"live", "ledger", "first-vs-steady", "break-even", "waterfall", "why", "batch-scan",
                                    "steps", "history", "compare", "environment", "log"}));
        QCOMPARE(QSet<QString>(keys.begin(), keys.end()).size(), keys.size());
        int charts = 0;
        for (Page *page : window.pages()->pages())
            charts += page->chart() ? 1 : 0;
        QCOMPARE(charts, 8); // five ledger charts, the Why page's, the batch scan's and the comparison
    }

    // Tools › Set up PyTorch… is always there and opens the one setup dialog, idle until asked.
    void toolsMenuOffersPyTorchSetup()
    {
        MainWindow window;
        QAction *setup = nullptr;
        for (QAction *menu : window.menuBar()->actions())
            if (menu->text() == "&Tools")
                for (QAction *a : menu->menu()->actions())
                    if (a->text() == QString("Set up &PyTorch…"))
                        setup = a;
        QVERIFY(setup);
        QVERIFY(!window.setupDialog());
        setup->trigger();
        QVERIFY(window.setupDialog());
        QVERIFY(window.setupDialog()->isVisible());
        QVERIFY(!window.setupDialog()->job()->isRunning());
        setup->trigger(); // raised again, not a second one
        QCOMPARE(window.findChildren<SetupDialog *>().size(), 1);
        window.setupDialog()->close();
        QTRY_VERIFY(!window.setupDialog());
    }

    // Start with no usable torch (a configured Python that is not there) and no managed environment:
    // the setup is offered, saying why, instead of runs that would all fail torch-missing.
    void sweepWithoutTorchOffersSetup()
    {
        QTemporaryDir dir;
        const QByteArray venv = qgetenv("STEPSCOPE_VENV");
        qputenv("STEPSCOPE_VENV", dir.filePath("no-venv").toUtf8());
        {
            MainWindow window;
            QVERIFY(openAndWait(window, dir.filePath("m.sqlite")));
            window.configPanel()->setPythonInterpreter(dir.filePath("no-python/bin/python3"));
            QVERIFY(!window.startSweep());
            QVERIFY(!window.controller()->isRunning());
            QVERIFY(window.setupDialog());
            QVERIFY(window.setupDialog()->isVisible());
            QVERIFY(!window.setupDialog()->job()->isRunning());
            bool saysWhy = false;
            for (const QLabel *label : window.setupDialog()->findChildren<QLabel *>())
                saysWhy = saysWhy || label->text().startsWith("No usable PyTorch was found: ");
            QVERIFY(saysWhy);
            window.configPanel()->setPythonInterpreter({});

            // Once the setup is done, the panel names the managed environment's Python: it comes
            // before the build's environment and python3 on PATH.
            const QString managed = dir.filePath("no-venv/bin/python");
            QVERIFY(QDir().mkpath(QFileInfo(managed).absolutePath()));
            QFile python(managed);
            QVERIFY(python.open(QIODevice::WriteOnly));
            python.write("#!/bin/sh\nexit 1\n");
            python.close();
            QVERIFY(python.setPermissions(python.permissions() | QFileDevice::ExeOwner));
            const auto noteNames = [&](const QString &text) {
                for (const QLabel *label : window.configPanel()->findChildren<QLabel *>())
                    if (label->text().contains(text))
                        return true;
                return false;
            };
            QVERIFY(!noteNames(managed));
            Q_EMIT window.setupDialog()->ready(
                stepscope::supervisor::SetupResult{dir.filePath("no-venv"), managed, {}, {}});
            QVERIFY(noteNames(managed));
        }
        if (venv.isNull())
            qunsetenv("STEPSCOPE_VENV");
        else
            qputenv("STEPSCOPE_VENV", venv);
    }

    // File › Export writes a report, never over the measurements: the open database, its -wal and
    // -shm, or a link to one of them are refused with the reason, and the file still reads.
    void reportExportRefusesTheDatabasesOwnFiles()
    {
        QTemporaryDir dir;
        const QString path = copyOf(h200Ledger(), dir);
        MainWindow window;
        QVERIFY(openAndShow(window, path, 1));
        const QString link = dir.filePath("report.html");
        QVERIFY(QFile::link(path, link));
        for (const QString &target : {path, path + "-wal", path + "-shm", link}) {
            QString error;
            QVERIFY2(!window.reportExport()->write(target, &error), qPrintable(target));
            QVERIFY2(error.contains("would destroy the measurements"), qPrintable(error));
        }
        QVERIFY(!window.isBusy()); // nothing was started
        QCOMPARE(store::Reader::open(path.toStdString())->runs(1).size(), std::size_t(21));
        QString error;
        QVERIFY2(exportedReport(window, dir.filePath("report.md"), &error).contains("H200"), qPrintable(error));
    }

    // Without HOME (nor XDG_DATA_HOME, XDG_CONFIG_HOME) there is no default database: nothing is
    // created under "/", Start says why and where the settings went, and nothing crashes.
    void withoutHomeNothingIsWrittenUnderTheRootFolder()
    {
        const QByteArray home = qgetenv("HOME"), data = qgetenv("XDG_DATA_HOME"), config = qgetenv("XDG_CONFIG_HOME");
        const QString settingsBase = QFileInfo(QFileInfo(QSettings().fileName()).absolutePath()).absolutePath();
        qunsetenv("HOME");
        qunsetenv("XDG_DATA_HOME");
        qunsetenv("XDG_CONFIG_HOME");
        const QString settings = keepSettingsOutOfRoot();
        const QString defaultPath = RunController::defaultDatabasePath();
        bool started = true;
        QString status;
        {
            MainWindow window;
            started = window.startSweep();
            status = window.progressText();
        }
        qputenv("HOME", home);
        if (!data.isEmpty())
            qputenv("XDG_DATA_HOME", data);
        if (!config.isEmpty())
            qputenv("XDG_CONFIG_HOME", config);
        QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, settingsBase);
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, settingsBase);

        QVERIFY(!settings.isEmpty());
        QVERIFY2(!settings.startsWith("/.") && settings != "/", qPrintable(settings));
        QVERIFY2(defaultPath.isEmpty(), qPrintable(defaultPath));
        QVERIFY(!started);
        QVERIFY2(status.contains("HOME is not set") && status.contains("File › Open database") &&
                     status.contains(settings),
                 qPrintable(status));
        QVERIFY(!QFileInfo::exists("/.local/share/stepscope"));
        QVERIFY(!QFileInfo::exists("/.config/stepscope-tests"));
    }

    // The ledger's eleven columns beside the panel at 1280x720 need no sideways scrolling: the H200
    // ledger, and the compile ledger's long names ("python tf32+compile-reduce-overhead+...").
    // Headers are short, with the full name as tooltip, and a column hidden from the header's
    // menu stays hidden in the next window.
    void ledgerFitsAt1280x720WithoutScrollingSideways()
    {
        QTemporaryDir dir;
        for (const char *file : {"h200-ledger.sqlite", "h200-compile-b32.sqlite"}) {
            const QString path = copyOf(QStringLiteral(STEPSCOPE_SOURCE_DIR "/docs/results/") + file, dir);
            MainWindow window;
            window.resize(1280, 720);
            window.show();
            QVERIFY(QTest::qWaitForWindowExposed(&window));
            QVERIFY(openAndShow(window, path, 1));
            window.findChild<QTabWidget *>()->setCurrentWidget(window.pages()->ledger());
            QTableView *view = window.pages()->ledger()->view();
            QVERIFY(view->model()->rowCount() >= 6);
            // Every column shows, but Failure only where a row has one, Peak memory where a row has a
            // figure (both files have: they ran on an H200), and Energy where a row has joules (these
            // files predate the energy counter, schema 11: hidden).
            const auto &rows = window.shownSweep()->ledger()->ledger().rows;
            const bool failures = std::any_of(
                rows.begin(), rows.end(), [](const report::LedgerRow &row) { return !row.failureCategory.empty(); });
            QVERIFY(std::any_of(rows.begin(), rows.end(),
                                [](const report::LedgerRow &row) { return row.memory.allocated.has_value(); }));
            QVERIFY(std::none_of(rows.begin(), rows.end(),
                                 [](const report::LedgerRow &row) { return row.energy.joulesPerStep.has_value(); }));
            for (int c = 0; c < LedgerModel::ColumnCount; ++c) {
                const bool shown = (c != LedgerModel::Failure || failures) && c != LedgerModel::Energy;
                QVERIFY2(view->isColumnHidden(c) != shown, qPrintable(QString("%1: column %2").arg(file).arg(c)));
                QVERIFY(!shown || view->columnWidth(c) > 20);
            }
            QTRY_COMPARE(view->horizontalScrollBar()->maximum(), 0);
            int columns = 0;
            for (int c = 0; c < LedgerModel::ColumnCount; ++c)
                columns += view->isColumnHidden(c) ? 0 : view->columnWidth(c);
            QVERIFY2(columns <= view->viewport()->width(),
                     qPrintable(QString("%1 > %2").arg(columns).arg(view->viewport()->width())));
            // Every cell's wrapped text has the height it needs.
            const auto *table = static_cast<const QAbstractItemView *>(view);
            for (int r = 0; r < view->model()->rowCount(); ++r)
                QVERIFY2(
                    view->rowHeight(r) >= table->sizeHintForRow(r),
                    qPrintable(QString("%1: %2 < %3").arg(file).arg(view->rowHeight(r)).arg(table->sizeHintForRow(r))));
            // The environment arrived with the ledger while its page was hidden: its wrapped rows
            // are measured once the page shows.
            window.findChild<QTabWidget *>()->setCurrentWidget(window.pages()->environment());
            QTableView *env = nullptr;
            for (QTableView *v : window.pages()->environment()->findChildren<QTableView *>())
                if (qobject_cast<EnvironmentModel *>(v->model()))
                    env = v;
            QVERIFY(env && env->model()->rowCount() > 0);
            const auto *envTable = static_cast<const QAbstractItemView *>(env);
            const auto envRowsFit = [env, envTable] {
                for (int r = 0; r < env->model()->rowCount(); ++r)
                    if (env->rowHeight(r) < envTable->sizeHintForRow(r))
                        return false;
                return true;
            };
            QTRY_VERIFY(envRowsFit());
            QCOMPARE(view->model()->headerData(LedgerModel::Speedup, Qt::Horizontal).toString(),
                     QString("Speed-up\n[95% CI]"));
            QVERIFY(view->model()
                        ->headerData(LedgerModel::Speedup, Qt::Horizontal, Qt::ToolTipRole)
                        .toString()
                        .startsWith("Speed-up [95% CI]"));
        }
        {
            RunController controller;
            ShownSweep shown(&controller);
            LedgerPage page(&shown);
            setLedgerColumnShown(page.view(), LedgerModel::Noise, false);
            setLedgerColumnShown(page.view(), LedgerModel::Configuration, false); // never hidden
            QVERIFY(!page.view()->isColumnHidden(LedgerModel::Configuration));
        }
        {
            RunController controller;
            ShownSweep shown(&controller);
            LedgerPage page(&shown);
            QVERIFY(page.view()->isColumnHidden(LedgerModel::Noise));
            QVERIFY(!page.view()->isColumnHidden(LedgerModel::Spread));
            setLedgerColumnShown(page.view(), LedgerModel::Noise, true);
        }
        RunController controller;
        ShownSweep shown(&controller);
        LedgerPage page(&shown);
        QVERIFY(!page.view()->isColumnHidden(LedgerModel::Noise));
    }

    // A CPU sweep has no memory figures: its Peak memory column hides itself, as an empty Failure
    // column does, and shows once a row has a figure.
    void peakMemoryColumnShowsOnlyWithAFigure()
    {
        report::Ledger ledger;
        ledger.rows.resize(2);
        ledger.rows[0].label = "baseline";
        ledger.rows[1].label = "tf32";
        ledger.rows[1].memory.cpu = true;
        LedgerModel model;
        model.setLedger(ledger);
        QTableView view;
        view.setModel(&model);
        hideLedgerColumns(&view);
        QCOMPARE(model.index(1, LedgerModel::PeakMemory).data().toString(), QStringLiteral("-"));
        QVERIFY(view.isColumnHidden(LedgerModel::PeakMemory));
        QVERIFY(!view.isColumnHidden(LedgerModel::SteadyState));

        ledger.rows[1].memory.allocated = report::MemorySpread{300, 300, 300};
        model.setLedger(ledger);
        hideLedgerColumns(&view);
        QVERIFY(!view.isColumnHidden(LedgerModel::PeakMemory));
    }

    void startStopAndPlannedRunStayInViewAt1280x720()
    {
        MainWindow window;
        window.resize(1280, 720);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        ConfigPanel *panel = window.configPanel();
        const QRect area = window.centralWidget()->rect();
        for (QWidget *w : {static_cast<QWidget *>(panel->startButton()), static_cast<QWidget *>(panel->stopButton()),
                           static_cast<QWidget *>(panel->plannedBox())}) {
            QVERIFY(w->isVisible());
            const QRect r(w->mapTo(window.centralWidget(), QPoint(0, 0)), w->size());
            QVERIFY2(area.contains(r), qPrintable(QString("%1 at %2,%3 %4x%5 outside %6x%7")
                                                      .arg(w->metaObject()->className())
                                                      .arg(r.x())
                                                      .arg(r.y())
                                                      .arg(r.width())
                                                      .arg(r.height())
                                                      .arg(area.width())
                                                      .arg(area.height())));
            QVERIFY(!w->visibleRegion().isEmpty());
        }
    }
    // Issue 35.2: without a usable torch the start-up says so, with why and the setup, and no
    // verdict on CUDA: the panel keeps the user's shape and never reads "No CUDA device". A setup
    // that succeeds looks for the devices again.
    void withoutTorchABannerOffersSetupAndCudaIsNotJudged()
    {
        QTemporaryDir dir;
        const QByteArray venv = qgetenv("STEPSCOPE_VENV");
        qputenv("STEPSCOPE_VENV", dir.filePath("no-venv").toUtf8()); // no managed environment
        {
            MainWindow window;
            window.show();
            ConfigPanel *panel = window.configPanel();
            panel->setShape(32, 224, 10, 100);
            panel->setPythonInterpreter(dir.filePath("first/bin/python3"));
            QVERIFY(!window.torchBanner()->isVisibleTo(&window));
            bool afterProbe = false;
            window.detectDevices([&] { afterProbe = true; });
            QTRY_VERIFY(afterProbe); // the start-up goes on (a --sweep is shown, ...)
            QVERIFY(window.torchBanner()->isVisibleTo(&window));
            const QString banner = window.torchBanner()->text();
            QVERIFY2(banner.startsWith("PyTorch is not set up\n"), qPrintable(banner));
            QVERIFY2(banner.contains(dir.filePath("first/bin/python3")), qPrintable(banner));
            QVERIFY2(!window.lastMessage().contains("CUDA"), qPrintable(window.lastMessage()));
            for (const QLabel *label : panel->findChildren<QLabel *>())
                QVERIFY2(!label->text().contains("No CUDA device"), qPrintable(label->text()));
            QCOMPARE(panel->baseConfig().batch, 32); // not the CPU's defaults
            QCOMPARE(panel->baseConfig().imageSize, 224);

            // The banner's button opens the setup; once it is done, the devices are looked for
            // again, with the Python the panel names now.
            window.torchBanner()->setupButton()->click();
            QVERIFY(window.setupDialog() && window.setupDialog()->isVisible());
            QVERIFY(!window.setupDialog()->job()->isRunning());
            panel->setPythonInterpreter(dir.filePath("second/bin/python3"));
            Q_EMIT window.setupDialog()->ready(stepscope::supervisor::SetupResult{});
            QTRY_VERIFY2(window.torchBanner()->text().contains(dir.filePath("second/bin/python3")),
                         qPrintable(window.torchBanner()->text()));
            window.setupDialog()->close();
        }
        if (venv.isNull())
            qunsetenv("STEPSCOPE_VENV");
        else
            qputenv("STEPSCOPE_VENV", venv);
    }

    // Issue 35.10: the tabs' Alt letters are their own, none of them a menu's: Alt+F and Alt+H open
    // File and Help. Ctrl+Tab and Ctrl+Shift+Tab cycle the tabs, round the ends, from a table too.
    void menusKeepTheirAltLettersAndCtrlTabCyclesTabs()
    {
        MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        const auto letter = [](const QString &text) {
            const qsizetype at = text.indexOf(QLatin1Char('&'));
            return at >= 0 && at + 1 < text.size() ? text.at(at + 1).toLower() : QChar();
        };
        QSet<QChar> menus, tabs;
        for (QAction *menu : window.menuBar()->actions())
            menus.insert(letter(menu->text()));
        QVERIFY(menus.contains(QLatin1Char('f')) && menus.contains(QLatin1Char('h')));
        SweepPages *pages = window.pages();
        for (int i = 0; i < pages->count(); ++i) {
            const QChar l = letter(pages->tabText(i));
            QVERIFY2(!l.isNull(), qPrintable(pages->tabText(i)));
            QVERIFY2(!menus.contains(l), qPrintable(pages->tabText(i)));
            QVERIFY2(!tabs.contains(l), qPrintable(pages->tabText(i)));
            tabs.insert(l);
        }
        pages->setCurrentIndex(0);
        for (const auto &[key, title] : {std::pair{Qt::Key_F, QString("&File")}, std::pair{Qt::Key_H, QString("&Help")}}) {
            QTest::keyClick(&window, key, Qt::AltModifier);
            QTRY_VERIFY(qobject_cast<QMenu *>(QApplication::activePopupWidget()));
            auto *menu = qobject_cast<QMenu *>(QApplication::activePopupWidget());
            QCOMPARE(menu->title(), title);
            menu->close();
            QTRY_VERIFY(!QApplication::activePopupWidget());
            QCOMPARE(pages->currentIndex(), 0);
        }

        QWidget *table = pages->ledger()->view();
        pages->setCurrentWidget(pages->ledger());
        table->setFocus();
        const int ledger = pages->currentIndex();
        QTest::keyClick(table, Qt::Key_Tab, Qt::ControlModifier);
        QCOMPARE(pages->currentIndex(), ledger + 1);
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Backtab, Qt::ControlModifier | Qt::ShiftModifier);
        QCOMPARE(pages->currentIndex(), ledger);
        pages->setCurrentIndex(0);
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Tab, Qt::ControlModifier | Qt::ShiftModifier);
        QCOMPARE(pages->currentIndex(), pages->count() - 1);
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Tab, Qt::ControlModifier);
        QCOMPARE(pages->currentIndex(), 0);
    }

    // Issue 35.10: Enter on a ledger row does what a double-click does: a plain row's steps, on Live.
    void enterOnALedgerRowOpensIt()
    {
        QTemporaryDir dir;
        MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        QVERIFY(openAndShow(window, copyOf(h200Ledger(), dir), 1));
        LedgerPage *ledger = window.pages()->ledger();
        window.pages()->setCurrentWidget(ledger);
        QSignalSpy steps(ledger, &LedgerPage::runStepsRequested);
        QTableView *view = ledger->view();
        view->setFocus();
        view->setCurrentIndex(view->model()->index(0, LedgerModel::Configuration));
        QTest::keyClick(view, Qt::Key_Return);
        QCOMPARE(steps.count(), 1);
        QVERIFY(steps.first().first().toLongLong() > 0);
        QCOMPARE(window.pages()->currentWidget(), static_cast<QWidget *>(window.pages()->live()));
    }

    // Issue 35.10: File › Open's dialog opens, with an Open button, and takes a new name too (the
    // database is created), without asking to overwrite an existing one.
    void fileOpenSaysOpenAndCreatesANewDatabase()
    {
        QTemporaryDir dir;
        MainWindow window;
        window.show();
        QAction *open = nullptr;
        for (QAction *menu : window.menuBar()->actions())
            if (menu->text() == "&File")
                for (QAction *a : menu->menu()->actions())
                    if (a->text() == QString("&Open database…"))
                        open = a;
        QVERIFY(open);
        const QString path = dir.filePath("new.sqlite");
        bool seen = false;
        QTimer::singleShot(0, &window, [&] {
            auto *dialog = qobject_cast<QFileDialog *>(QApplication::activeModalWidget());
            if (!dialog)
                return;
            seen = true;
            QCOMPARE(dialog->acceptMode(), QFileDialog::AcceptOpen);
            QCOMPARE(dialog->fileMode(), QFileDialog::AnyFile);
            QCOMPARE(dialog->labelText(QFileDialog::Accept), QString("&Open"));
            for (const QPushButton *b : dialog->findChildren<QPushButton *>())
                QVERIFY2(!b->text().contains("Save"), qPrintable(b->text()));
            dialog->selectFile(path);
            static_cast<QDialog *>(dialog)->accept(); // QFileDialog::accept, protected there
        });
        QSignalSpy opened(&window, &MainWindow::databaseOpened);
        open->trigger();
        QVERIFY(seen);
        QVERIFY(opened.wait(60000) || !opened.isEmpty());
        QCOMPARE(opened.first().first().toString(), path);
        QVERIFY(QFileInfo::exists(path));
    }

    // Issue 35.10: a deleted sweep leaves the header and the panel at once, not when its undo
    // window ends.
    void aDeletedSweepLeavesTheHeader()
    {
        QTemporaryDir dir;
        MainWindow window;
        window.show();
        QVERIFY(openAndShow(window, copyOf(h200Ledger(), dir), 1));
        QCOMPARE(window.sweepHeader()->sweepId(), qint64(1));
        QVERIFY(window.configPanel()->viewingSweep());
        HistoryPage *history = window.pages()->history();
        QTRY_VERIFY(window.pages()->history()->model()->indexOfSweep(1).isValid());
        QTimer::singleShot(0, &window, [] {
            if (auto *box = qobject_cast<QMessageBox *>(QApplication::activeModalWidget()))
                box->button(QMessageBox::Yes)->click();
        });
        history->deleteSweep(1);
        QCOMPARE(history->pendingDelete(), qint64(1));
        QCOMPARE(window.sweepHeader()->sweepId(), qint64(0));
        QVERIFY(window.sweepHeader()->text().startsWith("No sweep shown"));
        QVERIFY(!window.configPanel()->viewingSweep());
        history->undoDelete(); // nothing is written
    }
};

QTEST_MAIN(TestWindowViews)
#include "test_window_views.moc"
