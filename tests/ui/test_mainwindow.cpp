// The whole window over a real tiny CPU sweep: tick boxes, press Start, and check that the table,
// the charts, the recommendation and the report got the data the database holds. And the window
// itself: it fits a 1280x720 screen with its frame, File › Open shows the newest sweep, the
// arrangement comes back with the next window, F1 opens the glossary.
#include "widgets/main_window.h"

#include "pages/history_page.h"
#include "pages/ledger_page.h"
#include "pages/live_page.h"
#include "pages/sweep_pages.h"
#include "pages/why_page.h"
#include "presenters/report_export.h"
#include "presenters/shown_sweep.h"

#include "charts/break_even_chart.h"
#include "charts/first_vs_steady_chart.h"
#include "charts/live_step_chart.h"
#include "charts/waterfall_chart.h"
#include "common/measurement_defaults.h"
#include "controller/ledger_job.h"
#include "controller/run_controller.h"
#include "models/doctor_model.h"
#include "models/history_model.h"
#include "models/ledger_format.h"
#include "models/ledger_model.h"
#include "models/status_colors.h"
#include "widgets/config_panel.h"
#include "pages/environment_page.h"
#include "widgets/glossary.h"
#include "parts/run_detail_dialog.h"
#include "widgets/sweep_header.h"
#include "widgets/window_fit.h"

#include "compile_sweep_fixture.h"
#include "window_fixture.h"

#include <QBrush>
#include <QCheckBox>
#include <QHeaderView>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QScreen>
#include <QSettings>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QSplitter>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>

#include <algorithm>
#include <thread>

#include "charts/qcustomplot_compat.h"

using namespace stepscope;
using namespace stepscope::ui;
using stepscope::test::openAndShow;
using stepscope::test::openAndWait;
using stepscope::test::waitIdle;

class TestMainWindow : public QObject
{
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() { stepscope::test::useTestSettings("test_mainwindow"); }

    void ticksBoxesRunsASweepAndShowsIt()
    {
        QTemporaryDir dir;
        MainWindow window;
        window.show();
        QVERIFY(openAndWait(window, dir.filePath("m.sqlite")));
        bool detected = false;
        window.detectDevices([&] { detected = true; });
        QTRY_VERIFY_WITH_TIMEOUT(detected, 60000);

        ConfigPanel *panel = window.configPanel();
        panel->setDevice("cpu");
        QVERIFY(!panel->knobBox("cuda-graph")->isEnabled()); // CUDA-only knobs are off on the CPU
        panel->knobBox("autocast")->setChecked(true);
        panel->knobBox("channels-last")->setChecked(true);
        panel->setOptimizer(Optimizer::Foreach);
        panel->setSweepKind(ConfigPanel::SweepKind::Ledger);
        panel->setShape(2, 32, 2, 30); // enough steps for a steady state even on a loaded machine
        panel->setRepeats(1);
        panel->profileStepsBox()->setValue(3); // not the default: Run again must keep it (issue 29.2)

        QSignalSpy finished(&window, &MainWindow::sweepFinished);
        QTest::mouseClick(panel->startButton(), Qt::LeftButton);
        QVERIFY(window.controller()->isRunning());
        QVERIFY(!panel->startButton()->isEnabled());
        QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, 270000); // 4 cold processes on a loaded machine
        QCOMPARE(finished.first().at(1).toBool(), false);
        QVERIFY(panel->startButton()->isEnabled());
        QVERIFY(waitIdle(window)); // the ledger is computed on its own thread
        QVERIFY(window.shownSweep()->job()->lastBuildThread() != std::this_thread::get_id());
        QVERIFY2(window.progressText().contains("complete"), qPrintable(window.progressText()));
        // The header names what ran: this machine's CPU, the shape, the runs.
        const QString header = window.sweepHeader()->text();
        for (const char *fact : {"cpu", "batch 2", "32 px", "3 configurations × 1 repeat", "3 of 3 runs complete"})
            QVERIFY2(header.contains(QString::fromUtf8(fact)), qPrintable(fact + QStringLiteral(" in: ") + header));

        // Ledger: baseline, +bf16, +channels-last, all complete.
        LedgerModel *ledger = window.shownSweep()->ledger();
        QCOMPARE(ledger->rowCount(), 3);
        QCOMPARE(ledger->index(0, LedgerModel::Configuration).data().toString(), QString("baseline"));
        QCOMPARE(ledger->index(1, LedgerModel::Configuration).data().toString(), QString("bf16"));
        QCOMPARE(ledger->index(2, LedgerModel::Configuration).data().toString(), QString("bf16+channels-last"));
        for (int r = 0; r < 3; ++r)
            QVERIFY(ledger->index(r, LedgerModel::Status).data().toString().startsWith("complete"));

        // The table matches the database: the baseline's steady state is the median of its window.
        auto reader = store::Reader::open(dir.filePath("m.sqlite").toStdString());
        const auto ledgerFromDb = report::buildLedger(*reader, ledger->sweepId());
        QVERIFY(ledgerFromDb.rows.front().steadyMs.has_value() == ledger->ledger().rows.front().steadyMs.has_value());
        if (ledgerFromDb.rows.front().steadyMs)
            QCOMPARE(*ledger->ledger().rows.front().steadyMs, *ledgerFromDb.rows.front().steadyMs);

        // Live chart: every step of the last run arrived.
        QCOMPARE(window.pages()->live()->liveChart()->pointCount(), 1 + 2 + 30);
        // Comparison charts read the model: one break-even line per configuration with a steady
        // state (a loaded CPU may leave some without one).
        int steady = 0;
        for (const auto &row : ledger->ledger().rows)
            steady += row.steadyMs.has_value() ? 1 : 0;
        QCOMPARE(window.findChild<BreakEvenChart *>()->plot()->graphCount(), steady);
        QCOMPARE(window.findChild<WaterfallChart *>()->barCount(), steady); // one bar per row with a steady state
        // A point needs a first step and a steady state: a loaded CI machine can leave every row
        // without a steady state, and then the scatter is empty and its footnote says why.
        for (int r = 0; r < 3; ++r) {
            const report::LedgerRow &row = ledger->ledger().rows[std::size_t(r)];
            const bool drawable = row.firstStepMs && row.steadyMs;
            QVERIFY2((window.findChild<FirstVsSteadyChart *>()->graphForRow(r) != nullptr) == drawable,
                     qPrintable(QString::number(r)));
        }
        // The recommendation names the row the ledger picked, for the planned run; without a
        // baseline steady figure or a candidate (no steady state on a loaded machine) it says why
        // there is none.
        const report::Ledger &shown = ledger->ledger();
        const bool candidate = !shown.rows.empty() && shown.rows.front().steadyMs &&
                               std::any_of(shown.rows.begin(), shown.rows.end(), [](const report::LedgerRow &row) {
                                   return row.steadyMs && row.firstStepMs && !ledgerRowDiverged(row);
                               });
        QCOMPARE(shown.recommendation.has_value(), candidate);
        const QString recommendation = window.pages()->ledger()->recommendationText();
        if (candidate)
            QVERIFY2(recommendation.startsWith(
                         // A CPU sweep runs cold: the recommendation names that start state.
                         QStringLiteral("For %1 steps on a fresh machine: %2 finishes first (")
                             .arg(shown.plannedSteps)
                             .arg(QString::fromStdString(shown.rows[shown.recommendation->best].label))),
                     qPrintable(recommendation));
        else
            QVERIFY2(recommendation.startsWith("No recommendation because " +
                                               QString::fromStdString(shown.noRecommendationReason)),
                     qPrintable(recommendation));

        // History lists the sweep with its three runs.
        HistoryModel *history = window.pages()->history()->model();
        QCOMPARE(history->rowCount(), 1);
        QCOMPARE(history->rowCount(history->index(0, 0)), 3);

        // The report names each configuration; a chart export per view works.
        QString error;
        const QString text = test::exportedReport(window, dir.filePath("report.html"), &error);
        QVERIFY2(!text.isEmpty(), qPrintable(error));
        QVERIFY(text.contains("bf16+channels-last"));
        QVERIFY(text.contains("data:image/png;base64,"));
        QVERIFY(!window.reportExport()->write(dir.filePath("report.xyz"), &error));
        QVERIFY(error.contains(".html"));

        QVERIFY2(window.saveScreenshots(dir.filePath("shots"), &error), qPrintable(error));
        QVERIFY(QFileInfo(dir.filePath("shots/stepscope-ledger.png")).size() > 1000);

        // Shown again from the history, the sweep's settings stand read-only in the panel, and
        // "Run again" starts the same configurations with the same baseline and repeats.
        const qint64 first = ledger->sweepId();
        window.showSweep(first);
        QVERIFY(waitIdle(window));
        QVERIFY(panel->viewingSweep());
        QVERIFY(!panel->startButton()->isEnabled());
        QSignalSpy started(window.controller(), &RunController::sweepStarted);
        QTest::mouseClick(panel->runAgainButton(), Qt::LeftButton);
        QTRY_COMPARE(started.count(), 1);
        const qint64 again = started.first().at(0).toLongLong();
        QVERIFY(again != first);
        QVERIFY(!panel->viewingSweep());
        {
            auto stored = store::Reader::open(dir.filePath("m.sqlite").toStdString());
            auto names = [&](qint64 sweep) {
                QStringList out;
                for (const auto &run : stored->runs(sweep))
                    out << QString::fromStdString(run.configName);
                return out;
            };
            QCOMPARE(names(again), names(first));
            QCOMPARE(stored->sweep(again)->baselineConfig, stored->sweep(first)->baselineConfig);
            // The whole recipe runs again (supervisor/sweep_recipe.h), its name apart: adaptive repeats,
            // lanes, timeout, profile steps, the warm-up process.
            auto recipe = [&](qint64 sweep) {
                QJsonObject r = QJsonDocument::fromJson(QByteArray::fromStdString(stored->sweep(sweep)->settingsJson))
                                    .object()
                                    .value("recipe")
                                    .toObject();
                r.remove("name");
                return r;
            };
            QVERIFY(!recipe(first).isEmpty());
            QCOMPARE(recipe(again), recipe(first));
            QCOMPARE(recipe(again).value("profile_steps").toInt(), 3);
            QVERIFY(QString::fromStdString(stored->sweep(again)->name).endsWith("(again)"));
        }
        QSignalSpy stopped(&window, &MainWindow::sweepFinished);
        window.stopSweep();
        QVERIFY(stopped.wait(60000));
        QCOMPARE(stopped.first().at(1).toBool(), true);
    }

    void compileWaitShowsInStatusBarAndLiveTab()
    {
        MainWindow window;
        window.show();
        RunController *controller = window.controller();
        using namespace supervisor::event;
        controller->onEvent(RunStarted{7, 0, 2, "python cpu b8 64px c10 compile-max-autotune-no-cudagraphs", {}, {}});
        QVERIFY(window.phaseStatus().isEmpty());
        controller->onEvent(Phase{7, "compiling", 42.4, false, {}});
        QCOMPARE(window.phaseStatus(), QString("compiling 0:42"));
        QVERIFY(window.pages()->live()->liveChart()->phaseText().startsWith("compiling 0:42"));
        controller->onEvent(Phase{7, "compiling", 44.5, false, {}}); // every 2 s while it lasts
        QCOMPARE(window.phaseStatus(), QString("compiling 0:44"));
        controller->onEvent(Phase{8, "compiling", 1.0, false, {}}); // not the run on screen
        QCOMPARE(window.phaseStatus(), QString("compiling 0:44"));
        controller->onEvent(Phase{7, "compiling", 45.0, true, {}}); // the priming process says so
        QCOMPARE(window.phaseStatus(), QString("priming: compiling 0:45"));
        controller->onEvent(Phase{7, "compiling", 44.0, false, {}});
        QCOMPARE(window.phaseStatus(), QString("compiling 0:44"));
        controller->onEvent(RunFinished{7, RunStatus::Complete, std::nullopt, {}});
        QVERIFY(window.phaseStatus().isEmpty());
        QVERIFY(window.pages()->live()->liveChart()->phaseText().isEmpty());
    }

    void compiledRowsOpenTheirRunDetail()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("compile.sqlite");
        std::int64_t sweepId = 0;
        {
            auto db = store::Database::open(path.toStdString());
            sweepId = test::writeCompileSweep(*db);
        }
        MainWindow window;
        QVERIFY(openAndShow(window, path, sweepId));
        QCOMPARE(window.shownSweep()->ledger()->rowCount(), 4); // compile default: one row, fresh and again
        // A plain row shows its steps instead of a dialog.
        QVERIFY(!std::unique_ptr<RunDetailDialog>(window.pages()->ledger()->rowDetailDialog(0)));
        // The compile that fell back to eager says so first of all.
        std::unique_ptr<RunDetailDialog> failed(window.pages()->ledger()->rowDetailDialog(3));
        QVERIFY(failed);
        QVERIFY2(failed->html().contains(QStringLiteral("NOT compiled: ") + test::kNotCompiledReason),
                 qPrintable(failed->html()));
        std::unique_ptr<RunDetailDialog> cold(window.pages()->ledger()->rowDetailDialog(2));
        QVERIFY(cold);
        QVERIFY(cold->html().contains("28.50 s"));
        QVERIFY(cold->html().contains("TRITON_CACHE_DIR"));
        QVERIFY(!cold->html().contains("NOT compiled"));

        // The exported report has the torch.compile section (read by the report job from the store).
        QString error;
        const QString html = test::exportedReport(window, dir.filePath("report.html"), &error);
        QVERIFY2(html.contains("<h2>torch.compile</h2>"), qPrintable(error));

        // The PDF is laid out on the report job's thread too.
        QSignalSpy written(window.reportExport(), &stepscope::ui::ReportExport::written);
        QVERIFY2(window.reportExport()->write(dir.filePath("report.pdf"), &error), qPrintable(error));
        QVERIFY(written.wait(60000));
        QFile pdf(dir.filePath("report.pdf"));
        QVERIFY(pdf.open(QIODevice::ReadOnly));
        QVERIFY(pdf.read(5) == "%PDF-");
        QVERIFY(!window.reportExport()->write(dir.filePath("report"), &error)); // no suffix: said at once
        QVERIFY(error.contains(".pdf"));
    }

    // The button runs the doctor service with the panel's Python: without one, its row says so and the
    // native worker's row says it was not started and what to do, with no row from a Python worker.
    void doctorWithoutPythonSaysSoForBothWorkers()
    {
        MainWindow window;
        window.configPanel()->setPythonInterpreter("/nonexistent/bin/python3");
        EnvironmentPage *page = window.pages()->environment();
        QTest::mouseClick(page->doctorButton(), Qt::LeftButton);
        QTRY_VERIFY(!page->doctorRunning());
        const QList<DoctorItem> rows = page->doctorModel()->items();
        QCOMPARE(rows.size(), 4); // stepscope, python, leftovers, native worker
        QCOMPARE(rows[1].item, QString("python"));
        QCOMPARE(rows[1].status, DoctorStatus::Fail);
        QVERIFY2(rows[1].value.contains("/nonexistent/bin/python3"), qPrintable(rows[1].value));
        QVERIFY(!rows[1].fix.isEmpty());
        QCOMPARE(rows[2].item, QString("leftovers")); // asks no Python: there without one too
        QCOMPARE(rows[3].item, QString("native worker"));
        QCOMPARE(rows[3].status, DoctorStatus::Fail);
        QVERIFY2(rows[3].value.startsWith("not started"), qPrintable(rows[3].value));
        QVERIFY(page->doctorButton()->isEnabled()); // ready to run again
    }

    void stopSaysCancelledAndKeepsTheRecordedSteps()
    {
        QTemporaryDir dir;
        MainWindow window;
        window.show();
        QVERIFY(openAndWait(window, dir.filePath("stop.sqlite")));
        ConfigPanel *panel = window.configPanel();
        panel->setCudaDevices(0);
        panel->setDevice("cpu");
        panel->setSweepKind(ConfigPanel::SweepKind::Single);
        panel->knobBox("autocast")->setChecked(false);
        panel->knobBox("channels-last")->setChecked(false);
        panel->setShape(2, 32, 0, 100000); // long enough to be stopped on any machine
        panel->setRepeats(2);
        panel->machineWarmupBox()->setChecked(false);
        QSignalSpy finished(&window, &MainWindow::sweepFinished);
        QVERIFY(window.startSweep());
        QTRY_VERIFY_WITH_TIMEOUT(window.pages()->live()->liveChart()->pointCount() > 5, 90000);
        QTest::mouseClick(panel->stopButton(), Qt::LeftButton);
        QVERIFY(finished.wait(60000));
        QCOMPARE(finished.first().at(1).toBool(), true);
        QVERIFY(window.pages()->live()->liveChart()->pointCount() > 5); // what the stopped run recorded stays in view

        // The words: cancelled, never failed, and nothing goes on.
        QVERIFY2(window.lastMessage().contains("cancelled"), qPrintable(window.lastMessage()));
        QVERIFY2(!window.lastMessage().contains("failed"), qPrintable(window.lastMessage()));
        QVERIFY2(!window.lastMessage().contains("goes on"), qPrintable(window.lastMessage()));
        QVERIFY2(window.progressText().contains("cancelled"), qPrintable(window.progressText()));
        QVERIFY2(window.progressText().contains("0 of 2 runs complete"), qPrintable(window.progressText()));

        // The ledger row says how far it got, in the warning colour, not as a failure.
        QVERIFY(waitIdle(window));
        LedgerModel *ledger = window.shownSweep()->ledger();
        QCOMPARE(ledger->rowCount(), 1);
        const QString status = ledger->index(0, LedgerModel::Status).data().toString();
        QVERIFY2(QRegularExpression("^cancelled after \\d+ steps?$").match(status).hasMatch(), qPrintable(status));
        QVERIFY(!ledgerRowFailed(ledger->ledger().rows.front()));
        QVERIFY(ledgerRowCancelled(ledger->ledger().rows.front()));
        QCOMPARE(ledger->index(0, LedgerModel::Status).data(Qt::ForegroundRole).value<QBrush>().color(),
                 warningColor());
        QVERIFY(!ledger->index(0, LedgerModel::Configuration).data(Qt::BackgroundRole).isValid());
        QVERIFY(ledger->ledger().rows.front().cancelledSteps > 5);
        QVERIFY(ledger->rowRuns(0).cancelledRun > 0);
        QCOMPARE(ledger->ledger().rows.front().cancelled, 2);
    }

    // Issue 19.5: at 1280x720 the whole window, frame and status bar included, lies on the screen's
    // available area. Run under Xvfb and a window manager (QT_QPA_PLATFORM=xcb) it checks the real
    // frame; offscreen, Qt's 2 px frame; fitWindow is checked with a title bar's frame either way.
    void windowAndStatusBarFitTheScreenWithTheirFrame()
    {
        // A window of 1280x820 (the first start's size), under a frame with a 30 px title bar.
        QCOMPARE(fitWindow(QRect(0, 0, 1280, 820), QMargins(1, 30, 1, 1), QRect(0, 0, 1280, 720)),
                 QRect(1, 30, 1278, 689));
        // Partly off the screen: moved back the least it can, its size kept.
        QCOMPARE(fitWindow(QRect(500, 400, 1000, 500), QMargins(4, 24, 4, 4), QRect(0, 0, 1280, 720)),
                 QRect(276, 216, 1000, 500));
        // A panel at the top of the screen (available area starts below it).
        QCOMPARE(fitWindow(QRect(0, 0, 1280, 720), QMargins(0, 20, 0, 0), QRect(0, 28, 1280, 692)),
                 QRect(0, 48, 1280, 672));

        MainWindow window;
        window.resize(1280, 820);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        // A real screen (Xvfb at 1280x720) as it is; offscreen's 800x800 screen takes windows past
        // its edges, so a 1280x720 area stands for it.
        const bool offscreen = QGuiApplication::platformName() == QLatin1String("offscreen");
        QRect available = offscreen ? QRect(0, 0, 1280, 720) : window.screen()->availableGeometry();
        available.setSize(available.size().boundedTo(QSize(1280, 720)));
        // A window manager frames the window after it is mapped (offscreen: at once).
        const bool framed = QTest::qWaitFor([&] { return window.frameGeometry() != window.geometry(); }, 2000);
        QVERIFY2(framed || !offscreen, "offscreen has a frame");
        window.fitToScreen(available);
        QTRY_VERIFY2(available.contains(window.frameGeometry()), qPrintable(QString("frame %1,%2 %3x%4")
                                                                                .arg(window.frameGeometry().x())
                                                                                .arg(window.frameGeometry().y())
                                                                                .arg(window.frameGeometry().width())
                                                                                .arg(window.frameGeometry().height())));
        QStatusBar *bar = window.statusBar();
        QVERIFY(bar->isVisible());
        const QRect barOnScreen(bar->mapToGlobal(QPoint(0, 0)), bar->size());
        QVERIFY2(available.contains(barOnScreen),
                 qPrintable(QString("status bar at y %1..%2").arg(barOnScreen.top()).arg(barOnScreen.bottom())));
        // The window never asks for more than a 1280x720 screen less a frame with a title bar.
        const QSize least = window.minimumSizeHint().expandedTo(window.minimumSize());
        QVERIFY2(least.width() <= 1280 - 2 * 4 && least.height() <= 720 - 40,
                 qPrintable(QString("minimum %1x%2").arg(least.width()).arg(least.height())));
    }

    // The sweep's progress and time left beside Start/Stop while it runs.
    void progressAndTimeLeftStandBesideStartAndStop()
    {
        MainWindow window;
        window.show();
        ConfigPanel *panel = window.configPanel();
        QVERIFY(panel->progressText().isEmpty()); // nothing runs
        RunController *controller = window.controller();
        Q_EMIT controller->sweepStarted(5, 4);
        QVERIFY(panel->progressBar()->isVisible());
        QCOMPARE(panel->progressText(), QString("0% · estimating time left"));
        controller->onEvent(supervisor::event::Progress{1, 4, 5, 10, 0.5, 0.25, {150, true}});
        QCOMPARE(panel->progressText(), QString("25% · about 3 min left, a guess"));
        QCOMPARE(panel->progressBar()->value(), 250);
        controller->onEvent(supervisor::event::Progress{2, 4, 5, 10, 0.5, 0.5, {40, false}});
        QCOMPARE(panel->progressText(), QString("50% · about 40 s left"));
        // Beside the buttons, on the same row.
        const QRect bar(panel->progressBar()->mapTo(&window, QPoint(0, 0)), panel->progressBar()->size());
        const QRect stop(panel->stopButton()->mapTo(&window, QPoint(0, 0)), panel->stopButton()->size());
        QVERIFY(bar.left() > stop.left() && bar.top() < stop.bottom() && bar.bottom() > stop.top());
        panel->setRunning(false);
        QVERIFY(panel->progressText().isEmpty());
    }

    // File › Open (and Recent) shows the newest sweep of the file; an open the command line asks
    // for leaves the choice to it (--sweep, the last sweep shown).
    void fileOpenShowsTheNewestSweep()
    {
        QTemporaryDir dir;
        const QString path =
            stepscope::test::copyOf(QStringLiteral(STEPSCOPE_SOURCE_DIR "/docs/results/h200-knobs.sqlite"), dir);
        qint64 newest = 0;
        {
            const auto reader = store::Reader::open(path.toStdString());
            const auto sweeps = reader->sweeps();
            QVERIFY(sweeps.size() >= 2); // else "newest" would be "the only one"
            newest = sweeps.front().id;
            for (const auto &s : sweeps)
                QVERIFY(s.id <= newest);
        }
        {
            MainWindow window;
            QVERIFY(openAndWait(window, path));
            QTest::qWait(300);
            QCOMPARE(window.shownSweep()->sweepId(), qint64(0));
        }
        MainWindow window;
        window.show();
        window.openChosenDatabase(path);
        QTRY_COMPARE_WITH_TIMEOUT(window.shownSweep()->sweepId(), newest, 60000);
        QVERIFY(waitIdle(window));
        QCOMPARE(window.sweepHeader()->sweepId(), newest);
    }

    // The tab, the splitters and the widths of the columns a user drags come back with the next
    // window.
    void tabSplittersAndColumnWidthsSurviveCloseAndReopen()
    {
        QSettings().remove("window");
        QList<int> mainSizes, whySizes;
        {
            MainWindow window;
            window.resize(1280, 720);
            window.show();
            QVERIFY(QTest::qWaitForWindowExposed(&window));
            window.pages()->setCurrentWidget(window.pages()->why());
            // The panel and the pages side by side, under the banner a missing torch shows.
            auto *split = window.centralWidget()->findChild<QSplitter *>(QString(), Qt::FindDirectChildrenOnly);
            QVERIFY(split);
            mainSizes = split->sizes();
            mainSizes[0] += 60;
            mainSizes[1] -= 60;
            split->setSizes(mainSizes);
            mainSizes = split->sizes();
            const auto whySplitters = window.pages()->why()->findChildren<QSplitter *>();
            QVERIFY(!whySplitters.isEmpty());
            whySizes = whySplitters.front()->sizes();
            QVERIFY(whySizes.size() >= 2);
            whySizes[0] += 40;
            whySizes[1] -= 40;
            whySplitters.front()->setSizes(whySizes);
            whySizes = whySplitters.front()->sizes();
            window.pages()->history()->view()->header()->resizeSection(HistoryModel::Name, 222);
            QVERIFY(window.close());
        }
        MainWindow again;
        again.resize(1280, 720);
        again.show();
        QVERIFY(QTest::qWaitForWindowExposed(&again));
        QCOMPARE(again.pages()->currentWidget(), static_cast<QWidget *>(again.pages()->why()));
        QCOMPARE(again.centralWidget()->findChild<QSplitter *>(QString(), Qt::FindDirectChildrenOnly)->sizes(), mainSizes);
        QCOMPARE(again.pages()->why()->findChildren<QSplitter *>().front()->sizes(), whySizes);
        QCOMPARE(again.pages()->history()->view()->header()->sectionSize(HistoryModel::Name), 222);
        // The sweep start-up shows (--sweep, the last one) keeps the tab; one the user opens later
        // comes forward on its ledger.
        QTemporaryDir dir;
        const QString path = stepscope::test::copyOf(stepscope::test::h200Ledger(), dir);
        QVERIFY(openAndShow(again, path, 1));
        QCOMPARE(again.pages()->currentWidget(), static_cast<QWidget *>(again.pages()->why()));
        again.showSweep(2);
        QVERIFY(waitIdle(again));
        QCOMPARE(again.pages()->currentWidget(), static_cast<QWidget *>(again.pages()->ledger()));
    }

    // The About box says under which licence Stepscope comes (the one LICENSE holds).
    void aboutBoxNamesTheLicence() { QVERIFY(MainWindow::aboutText().contains("GPL-3.0-or-later")); }

    // F1 opens the glossary, whose words are the ones the views use and the thresholds they flag at.
    void f1OpensTheGlossary()
    {
        MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        QVERIFY(!window.glossary());
        QTest::keyClick(&window, Qt::Key_F1);
        QTRY_VERIFY(window.glossary() && window.glossary()->isVisible());
        const QString text = window.glossary()->text();
        for (const char *term :
             {"noisy:", "unreliable:", "n.s.:", "machine cold:", "deciding crossing:", "Pareto front:",
              // Issue 35.10: the words of the Why page, the start states and the ledger's columns too.
              "launch-bound:", "GPU-bound:", "% of peak:", "fresh:", "shipped:", "again:", "first process:",
              "steady window:", "break-even:"})
            QVERIFY2(text.contains(QLatin1String(term)), term);
        QVERIFY(text.contains(QStringLiteral("%1%").arg(kNoiseWarn * 100)));
        QVERIFY(text.contains(QStringLiteral("%1%").arg(kNoiseUnreliable * 100)));
        QVERIFY(text.contains(QLatin1String(report::kNoIntervalShort)));
    }

    void settingsPersistBetweenWindows()
    {
        {
            MainWindow window;
            window.configPanel()->setShape(4, 48, 3, 21);
            window.close();
        }
        MainWindow again;
        again.configPanel()->setCudaDevices(0); // as detectDevices would, then settings win
        QSettings settings;
        again.configPanel()->loadSettings(settings);
        const RunConfig c = again.configPanel()->baseConfig();
        QCOMPARE(c.batch, 4);
        QCOMPARE(c.imageSize, 48);
        QCOMPARE(c.steps, 21);
    }
};

QTEST_MAIN(TestMainWindow)
#include "test_mainwindow.moc"
