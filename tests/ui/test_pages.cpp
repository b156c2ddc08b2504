// Pages over their presenters and jobs, with no window in between: each page takes what it shows
// and subscribes itself, so a stored sweep reaches the ledger table and the Steps overlay from a
// real database through the ShownSweep presenter and the query job alone.
#include "charts/run_overlay_chart.h"
#include "controller/query_job.h"
#include "controller/run_controller.h"
#include "models/history_model.h"
#include "models/ledger_model.h"
#include "pages/history_page.h"
#include "pages/ledger_page.h"
#include "pages/steps_page.h"
#include "presenters/open_database.h"
#include "presenters/shown_sweep.h"
#include "report/knob_worth.h"
#include "store/store.h"

#include "batch_scan_fixture.h"
#include "charts/first_vs_steady_chart.h"
#include "charts/qcustomplot_compat.h"
#include "compile_sweep_fixture.h"
#include "window_fixture.h"

#include "parts/lane_strip.h"
#include <QApplication>
#include <QComboBox>
#include <QMessageBox>
#include <QPushButton>

#include <QSignalSpy>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QToolButton>
#include <QTreeView>

#include <memory>

using namespace stepscope;
using namespace stepscope::ui;
using namespace stepscope::test;

namespace
{

// What the History page's delete dialog said, and answers it with `button` once it shows.
struct DeleteDialog {
    QString text;
    bool noByDefault = false;
    bool shown = false;

    void answer(QMessageBox::StandardButton button)
    {
        shown = false;
        QTimer::singleShot(0, [this, button] {
            auto *box = qobject_cast<QMessageBox *>(QApplication::activeModalWidget());
            if (!box)
                return;
            shown = true;
            text = box->text();
            noByDefault = box->defaultButton() == box->button(QMessageBox::No);
            box->button(button)->click();
        });
    }
};

// Every step row of a sweep's runs, as a fresh read of the file finds them (0 once it is gone).
std::size_t stepsOfSweep(const QString &path, qint64 sweep)
{
    const auto reader = store::Reader::open(path.toStdString());
    std::size_t steps = 0;
    for (const auto &run : reader->runs(sweep))
        steps += reader->steps(run.id).size();
    return steps;
}

bool sweepInFile(const QString &path, qint64 sweep)
{
    return store::Reader::open(path.toStdString())->sweep(sweep).has_value();
}

// Opens `path` and shows its sweep 1 until its ledger holds `rows` rows, false when it does not in time.
bool openAndShowLedger(RunController &controller, ShownSweep &shown, const QString &path, int rows,
                       int timeoutMs = 120000)
{
    QSignalSpy opened(&controller, &RunController::databaseOpened);
    QString error;
    if (!controller.openDatabaseAsync(path, &error) || (!opened.wait(60000) && opened.isEmpty()))
        return false;
    shown.show(1);
    return QTest::qWaitFor([&] { return !shown.job()->isBusy() && shown.ledger()->rowCount() == rows; }, timeoutMs);
}

bool openAndList(RunController &controller, HistoryModel &history, const QString &path)
{
    QSignalSpy opened(&controller, &RunController::databaseOpened);
    QString error;
    if (!controller.openDatabaseAsync(path, &error) || (!opened.wait(60000) && opened.isEmpty()))
        return false;
    return QTest::qWaitFor([&] { return history.indexOfSweep(1).isValid(); }, 60000);
}

} // namespace

class TestPages : public QObject
{
    Q_OBJECT
  private Q_SLOTS:

    // Issue 31.3: a max-batch sweep's ledger page says each configuration's largest batch that fits,
    // in the CLI's words (a batch scan's says nothing of it: aBatchScanLedgerOffersEachBatch).
    void aMaxBatchSweepShowsItsAnswerAboveTheLedger()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("max-batch.sqlite");
        {
            auto db = store::Database::open(path.toStdString());
            test::SweepSpec spec("max batch", "custom");
            spec.settingsJson = R"({"max_batch":{"tries":8}})";
            const auto sweepId = test::addSweep(*db, spec);
            RunConfig config;
            config.device = "cuda";
            config.warmupSteps = 0;
            config.steps = 3;
            int position = 0;
            for (const auto &[batch, fits] : std::vector<std::pair<int, bool>>{
                     {32, true}, {64, true}, {128, false}, {100, true}, {105, false}}) {
                config.batch = batch;
                test::RunSpec run = test::runOf(config, position++);
                run.steps = test::stepsAt(10.0, 4);
                if (fits) {
                    run.memory = std::make_pair(std::int64_t(batch) << 20, std::int64_t(batch + 100) << 20);
                } else {
                    run.status = RunStatus::Failed;
                    run.failure = Failure{FailureCategory::OutOfMemory, "CUDA out of memory", {}};
                }
                test::addRun(*db, sweepId, run);
            }
            db->flush();
        }
        RunController controller;
        ShownSweep shown(&controller);
        LedgerPage ledger(&shown);
        QVERIFY(openAndShowLedger(controller, shown, path, 1, 60000));
        QTRY_VERIFY_WITH_TIMEOUT(!shown.ledger()->maxBatch().empty(), 60000);
        const QString text = ledger.maxBatchText();
        QVERIFY2(text.contains("Largest batch that fits"), qPrintable(text));
        QVERIFY2(text.contains("native cuda 224px c1000 baseline: fits 100 (200 MiB at peak); 105 runs out of memory "
                               "(the +5% check); 5 tries"),
                 qPrintable(text));
        // Its tries are a few steps each: no verdict in time, and no "try --steps 30" either.
        QVERIFY2(ledger.recommendationText().startsWith("A largest-batch search times nothing"),
                 qPrintable(ledger.recommendationText()));
        QVERIFY(!ledger.recommendationText().contains("--steps"));
    }

    // Issue 35.4: a batch scan's ledger offers each batch; choosing one builds that batch's ledger
    // through the ledger job, and the headline names the batch it is for.
    void aBatchScanLedgerOffersEachBatch()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("scan.sqlite");
        {
            auto db = store::Database::open(path.toStdString());
            test::writeBatchScanSweep(*db);
        }
        RunController controller;
        ShownSweep shown(&controller);
        LedgerPage ledger(&shown);
        QVERIFY(openAndShowLedger(controller, shown, path, 2, 60000));
        QCOMPARE(shown.ledger()->ledger().batch, 2); // the baseline's, first
        QVERIFY(ledger.maxBatchText().isEmpty()); // a scan is no max-batch search (issue 31.3)
        QComboBox *batch = ledger.batchBox();
        QVERIFY(batch && !batch->isHidden());
        QCOMPARE(batch->count(), 2);
        QCOMPARE(batch->itemData(0).toInt(), 2);
        QCOMPARE(batch->itemData(1).toInt(), 4);
        QCOMPARE(batch->currentData().toInt(), 2);
        QVERIFY2(ledger.headlineText().startsWith("Batch 2: "), qPrintable(ledger.headlineText()));
        QCOMPARE(*shown.ledger()->ledger().rows[0].steadyMs, 10.0);

        batch->setCurrentIndex(1);
        Q_EMIT batch->activated(1); // as a user's choice does
        QCOMPARE(shown.batch(), 4);
        QTRY_VERIFY_WITH_TIMEOUT(!shown.job()->isBusy() && shown.ledger()->ledger().batch == 4, 60000);
        QCOMPARE(*shown.ledger()->ledger().rows[0].steadyMs, 20.0); // batch 4's baseline
        QCOMPARE(batch->currentData().toInt(), 4);
        QVERIFY2(ledger.headlineText().startsWith("Batch 4: "), qPrintable(ledger.headlineText()));

        // Issue 35.6: the first-step cell is one line with both states' figures where there is room;
        // the spare width went to the figures.
        ledger.resize(1280, 600);
        ledger.show();
        QVERIFY(QTest::qWaitForWindowExposed(&ledger));
        QTableView *view = ledger.view();
        const QString cell = view->model()->index(0, LedgerModel::FirstStep).data().toString();
        // Each figure names its state (the header has no room for them beside long compile names).
        QCOMPARE(cell, QString("3.00 s fresh").replace(' ', QChar(0x00A0)) + " / " +
                           QString("750 ms again").replace(' ', QChar(0x00A0)));
        QTRY_VERIFY(view->columnWidth(LedgerModel::FirstStep) >= view->fontMetrics().horizontalAdvance(cell));
        QVERIFY(view->rowHeight(0) < 2 * view->fontMetrics().lineSpacing());
        QVERIFY(view->columnWidth(LedgerModel::Configuration) <
                view->fontMetrics().horizontalAdvance("channels-last") + 60);
    }

    // Issue 35.6: the first-vs-steady chart draws both start states of a sweep that ran them, with
    // a legend naming them.
    void firstVsSteadyDrawsBothStates()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("scan.sqlite");
        {
            auto db = store::Database::open(path.toStdString());
            test::writeBatchScanSweep(*db);
        }
        const auto reader = store::Reader::open(path.toStdString());
        LedgerModel model;
        model.load(*reader, 1);
        FirstVsSteadyChart chart;
        chart.setModel(&model);
        QCOMPARE(int(chart.states().size()), 2);
        QVERIFY(chart.states()[0] == store::StartState::Fresh);
        QCPGraph *again = chart.stateGraph(store::StartState::Again);
        QVERIFY(again);
        QCOMPARE(again->dataCount(), 2);
        QCOMPARE(again->data()->begin()->key, 0.5); // batch 2 baseline's again first step, in s
        QVERIFY(chart.plot()->legend->visible());
        QCOMPARE(chart.plot()->legend->itemCount(), 2);
    }

    // Issue 35.4/35.6: History's run rows say each run's batch and start state; the sweep, its batches.
    void historyRowsNameBatchAndStart()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("scan.sqlite");
        {
            auto db = store::Database::open(path.toStdString());
            test::writeBatchScanSweep(*db);
        }
        const auto reader = store::Reader::open(path.toStdString());
        HistoryModel model;
        model.load(*reader);
        const QModelIndex sweep = model.index(0, 0);
        QCOMPARE(model.rowCount(sweep), 8);
        QCOMPARE(model.index(0, HistoryModel::Preset).data().toString(), QString("ledger, batches 2, 4"));
        QCOMPARE(model.index(0, HistoryModel::Preset, sweep).data().toString(), QString("repeat 1, batch 2, fresh"));
        QCOMPARE(model.index(1, HistoryModel::Preset, sweep).data().toString(), QString("repeat 1, batch 2, again"));
        QCOMPARE(model.index(7, HistoryModel::Preset, sweep).data().toString(), QString("repeat 1, batch 4, again"));
        QVERIFY(model.index(7, 0, sweep).data(HistoryModel::FilterRole).toString().contains("batch 4"));
    }
    // Issue 21: the live view's lanes, one row per device, from the controller's signals.
    void laneStripShowsEachLanesRun()
    {
        RunController controller;
        LaneStrip strip(&controller);
        QVERIFY(strip.isHidden());
        using namespace supervisor::event;
        controller.onEvent(RunStarted{8, 3, 14, "python cuda b32 224px c1000 baseline", {"cuda:0", 0}, {}});
        controller.onEvent(RunStarted{7, 2, 14, "python cuda b32 224px c1000 tf32", {"cuda:1", 1}, {}});
        QVERIFY(!strip.isHidden());
        QCOMPARE(strip.table()->rowCount(), 2);
        QCOMPARE(strip.rowText(1), QString("cuda:1 | 3 of 14 | python cuda b32 224px c1000 tf32 | starting"));
        QVERIFY(strip.rowText(0).startsWith("cuda:0 | 4 of 14 | "));
        controller.onEvent(FirstStep{7, 2.5, {"cuda:1", 1}});
        QVERIFY2(strip.rowText(1).endsWith("first step 2.50 s, measuring"), qPrintable(strip.rowText(1)));
        controller.onEvent(RunFinished{8, RunStatus::Failed, Failure{FailureCategory::CudaUnavailable, "gone", {}}, {"cuda:0", 0}});
        QVERIFY2(strip.rowText(0).endsWith("failed [cuda-unavailable]; waiting for the next run"),
                 qPrintable(strip.rowText(0)));
        // A data-parallel run fills the row of each device it holds.
        controller.onEvent(RunStarted{9, 4, 14, "python cuda b32 224px c1000 ddp-2", {"cuda:0+cuda:1", 0}, {}});
        QCOMPARE(strip.table()->rowCount(), 2);
        QCOMPARE(strip.rowText(0), QString("cuda:0 | 5 of 14 | python cuda b32 224px c1000 ddp-2 | starting, with "
                                           "cuda:0+cuda:1"));
        QVERIFY(strip.rowText(1).startsWith("cuda:1 | 5 of 14 | python cuda b32 224px c1000 ddp-2"));
        Q_EMIT controller.sweepStarted(2, 4); // a new sweep starts without lanes until it names some
        QVERIFY(strip.isHidden());
        QCOMPARE(strip.table()->rowCount(), 0);
    }

    void initTestCase() { useTestSettings("test_pages"); }

    void pagesShowASweepWithoutTheWindow()
    {
        QTemporaryDir dir;
        const QString path = copyOf(h200Ledger(), dir);
        RunController controller;
        ShownSweep shown(&controller);
        HistoryModel history;
        QueryJob query(&history);
        followOpenDatabase(&controller, &query);
        LedgerPage ledger(&shown);
        StepsPage steps(shown.ledger(), &query);
        ledger.show(); // its status line shows only on screen
        QCOMPARE(ledger.view()->model()->rowCount(), 0);

        QSignalSpy opened(&controller, &RunController::databaseOpened);
        QSignalSpy chosen(&shown, &ShownSweep::sweepChosen);
        QString error;
        QVERIFY2(controller.openDatabaseAsync(path, &error), qPrintable(error));
        shown.show(1); // asked while the file still opens: shown once it is open
        QVERIFY(chosen.isEmpty());
        QVERIFY(opened.wait(60000));
        QCOMPARE(chosen.count(), 1);
        QVERIFY(!ledger.status().isEmpty()); // "Computing the ledger of sweep 1…"
        QTRY_VERIFY_WITH_TIMEOUT(!shown.job()->isBusy(), 120000);

        // The table holds the sweep's seven configurations, in the sweep's order, and the page
        // says which finishes the planned run first.
        const QAbstractItemModel *table = ledger.view()->model();
        QCOMPARE(table->rowCount(), 7);
        QCOMPARE(table->index(0, LedgerModel::Configuration).data().toString(), QString("baseline"));
        QCOMPARE(shown.ledger()->sweepId(), qint64(1));
        QVERIFY2(ledger.recommendationText().contains("finishes first"), qPrintable(ledger.recommendationText()));
        QVERIFY(ledger.status().isEmpty());
        // Issue 19.1: the headline says the verdict, what it rests on is the smaller line under it,
        // and the full text waits under Details (at 1280x720 the table needs the room).
        QVERIFY(ledger.headlineText().startsWith("Use "));
        QCOMPARE(ledger.caveatsText(), QString::fromStdString(report::recommendationCaveats(shown.ledger()->ledger())));
        QVERIFY(!ledger.recommendationShown());
        auto *details = ledger.findChild<QToolButton *>(QStringLiteral("recommendationDetails"));
        QVERIFY(details && details->isVisible());
        details->click();
        QVERIFY(ledger.recommendationShown());

        // The Steps page asked the query job for one run per configuration, and drew them.
        QTRY_COMPARE_WITH_TIMEOUT(steps.overlay()->runCount(), 7, 60000);
        QCOMPARE(steps.overlay()->runs().front().name, QString("baseline"));
    }

    // Issue 35.1: "What is each knob worth?" says it of the selected row, recommended or not, in the
    // CLI's words, and follows the selection while open.
    void knobWorthOfAnyRow()
    {
        QTemporaryDir dir;
        const QString path = copyOf(h200Ledger(), dir);
        RunController controller;
        ShownSweep shown(&controller);
        LedgerPage page(&shown);
        QVERIFY(openAndShowLedger(controller, shown, path, 7, 120000));
        const report::Ledger &ledger = shown.ledger()->ledger();
        QVERIFY(ledger.recommended);
        QVERIFY(!page.knobWorthButton()->isEnabled()); // no row selected
        QVERIFY(page.knobWorthText().isEmpty());
        // The row before the recommended one with two knobs or more: not the recommended row.
        int row = -1;
        for (int r = 1; r < int(ledger.rows.size()); ++r)
            if (std::size_t(r) != *ledger.recommended && report::knobWorthOf(ledger, std::size_t(r)).size() >= 2)
                row = r;
        QVERIFY(row > 0);
        QTableView *view = page.view();
        view->setCurrentIndex(view->model()->index(row, 0)); // sweep order: view row = model row
        QVERIFY(page.knobWorthButton()->isEnabled());
        page.knobWorthButton()->click();
        const QString text = page.knobWorthText();
        QVERIFY2(text.contains(QString::fromStdString(ledger.rows[std::size_t(row)].label).toHtmlEscaped()),
                 qPrintable(text));
        for (const report::KnobWorth &w : report::knobWorthOf(ledger, std::size_t(row)))
            QVERIFY2(text.contains(QString::fromStdString(report::knobWorthText(ledger, w)).toHtmlEscaped()),
                     qPrintable(text));
        // The context menu's action, on the baseline: no knob to weigh.
        view->setCurrentIndex(view->model()->index(0, 0));
        QVERIFY(page.knobWorthAction()->isEnabled());
        page.knobWorthAction()->trigger();
        QVERIFY2(page.knobWorthText().contains("turns on no knob"), qPrintable(page.knobWorthText()));
        page.showKnobWorth(-1);
        QVERIFY(page.knobWorthText().isEmpty());
    }

    // A knob no two rows isolate (issue 35.1, "offer to run it"): the H100 sweep measured the graph
    // row and its cudnn-bench twin only, so the pick's four knobs are not measured; the button puts
    // the pick without each of them into the panel, in the row's own shape.
    void knobWorthOffersTheMissingRows()
    {
        QTemporaryDir dir;
        const QString path = copyOf(QStringLiteral(STEPSCOPE_SOURCE_DIR "/docs/results/h100-knob-worth.sqlite"), dir);
        RunController controller;
        ShownSweep shown(&controller);
        LedgerPage page(&shown);
        QVERIFY(openAndShowLedger(controller, shown, path, 3, 120000));
        const report::Ledger &ledger = shown.ledger()->ledger();
        QVERIFY(ledger.recommended);
        QSignalSpy wanted(&page, &LedgerPage::configWanted);
        page.showKnobWorth(int(*ledger.recommended));
        QVERIFY(page.addMissingButton()->isVisibleTo(&page));
        QVERIFY2(page.addMissingButton()->text().contains("4 missing rows"), qPrintable(page.addMissingButton()->text()));
        page.addMissingButton()->click();
        QCOMPARE(wanted.size(), 4);
        QStringList labels;
        for (const QList<QVariant> &args : wanted) {
            const auto config = args.at(0).value<RunConfig>();
            QCOMPARE(config.batch, 32);
            QVERIFY(config.onCuda());
            QVERIFY(!config.cudnnBenchmark);
            labels << QString::fromStdString(knobLabel(config));
        }
        QCOMPARE(labels, QStringList({"bf16+channels-last+cuda-graph", "tf32+channels-last+cuda-graph",
                                      "tf32+bf16+cuda-graph", "tf32+bf16+channels-last"}));
        // The baseline has no knob: nothing missing, no button.
        page.showKnobWorth(0);
        QVERIFY(!page.addMissingButton()->isVisibleTo(&page));
    }

    // Issue 35.6: the default GPU sweep ran its compiled rows shipped too, its eager rows not (they
    // have nothing to ship): an eager row's first-step cell leaves that state out instead of
    // showing "- shipped", a compiled row's names all three.
    void aFirstStepCellShowsTheStatesItsRowRan()
    {
        QTemporaryDir dir;
        const QString path = copyOf(QStringLiteral(STEPSCOPE_SOURCE_DIR "/docs/results/h200-starts-default.sqlite"), dir);
        RunController controller;
        ShownSweep shown(&controller);
        QSignalSpy opened(&controller, &RunController::databaseOpened);
        QString error;
        QVERIFY2(controller.openDatabaseAsync(path, &error), qPrintable(error));
        QVERIFY(opened.wait(60000));
        shown.show(1);
        QTRY_VERIFY_WITH_TIMEOUT(!shown.job()->isBusy() && shown.ledger()->rowCount() > 3, 120000);
        const report::Ledger &ledger = shown.ledger()->ledger();
        int eager = -1, compiled = -1;
        for (int r = 0; r < int(ledger.rows.size()); ++r) {
            const std::string &label = ledger.rows[std::size_t(r)].label;
            if (label == "baseline")
                eager = r;
            if (label.find("compile-reduce-overhead") != std::string::npos)
                compiled = r;
        }
        QVERIFY(eager >= 0 && compiled >= 0);
        const auto cell = [&](int row) { return shown.ledger()->index(row, LedgerModel::FirstStep).data().toString(); };
        QVERIFY2(cell(compiled).contains("shipped") && cell(compiled).contains("fresh"), qPrintable(cell(compiled)));
        QVERIFY2(cell(eager).contains("fresh") && !cell(eager).contains("shipped"), qPrintable(cell(eager)));
    }

    // Issue 28: the ledger's start-state switch builds the ledger again for that state: the compiled
    // row's first step and break-even are its fresh runs' for a fresh machine, its again runs' for
    // this machine again, and the headline names the row and its start.
    void theStartSwitchReranksForThatState()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("compile.sqlite");
        {
            auto db = store::Database::open(path.toStdString());
            test::writeCompileSweep(*db);
        }
        RunController controller;
        ShownSweep shown(&controller);
        LedgerPage ledger(&shown);
        QVERIFY(openAndShowLedger(controller, shown, path, 4, 60000));
        const auto compiledRow = [&]() -> const report::LedgerRow & { return shown.ledger()->ledger().rows[2]; };
        QVERIFY(shown.ledger()->ledger().start == store::StartState::Fresh);
        QVERIFY(compiledRow().firstStepStart == store::StartState::Fresh);
        QCOMPARE(*compiledRow().firstStepMs, 30000.0);

        const QString freshHeadline = ledger.headlineText();
        QComboBox *start = ledger.startBox();
        QVERIFY(start);
        QCOMPARE(start->count(), 3);
        start->setCurrentIndex(start->findData(int(store::StartState::Again)));
        QVERIFY(shown.start() == store::StartState::Again);
        QTRY_VERIFY_WITH_TIMEOUT(!shown.job()->isBusy() && shown.ledger()->ledger().start == store::StartState::Again,
                                 60000);
        QVERIFY(compiledRow().firstStepStart == store::StartState::Again);
        QCOMPARE(*compiledRow().firstStepMs, 3000.0);
        QVERIFY(compiledRow().breakEvenSteps && std::abs(*compiledRow().breakEvenSteps - 1251) < 1);
        // Fresh, the compile's 30 s first step loses 10000 steps to the baseline; again, its 3 s one
        // wins them by 17% (one process each: no interval, so the simpler is named, the compile beside it).
        QVERIFY2(!freshHeadline.contains("compile-default"), qPrintable(freshHeadline));
        QVERIFY2(ledger.headlineText().contains("python compile-default 17.4% faster"), qPrintable(ledger.headlineText()));
    }

    // The delete asks (No by default, naming the sweep), hides the sweep at once, and writes nothing
    // until its undo window ends: undone, every step is there; not undone, the sweep is gone.
    void deleteAsksAndCanBeUndone()
    {
        QTemporaryDir dir;
        const QString path = copyOf(h200Ledger(), dir);
        RunController controller;
        HistoryModel history;
        QueryJob query(&history);
        followOpenDatabase(&controller, &query);
        HistoryPage page(&history, &query, &controller);
        QSignalSpy messages(&page, &HistoryPage::message);
        page.show();
        QVERIFY(QTest::qWaitForWindowActive(&page));
        QVERIFY(openAndList(controller, history, path));
        const QString name = history.indexOfSweep(1).data().toString();
        QVERIFY(!name.isEmpty());
        const std::size_t steps = stepsOfSweep(path, 1);
        QVERIFY(steps > 0);

        // No (the default) keeps it.
        DeleteDialog dialog;
        dialog.answer(QMessageBox::No);
        page.deleteSweep(1);
        QVERIFY(dialog.shown);
        QVERIFY(dialog.noByDefault);
        QVERIFY2(dialog.text.contains(QStringLiteral("sweep 1 \"%1\"").arg(name)), qPrintable(dialog.text));
        QCOMPARE(page.pendingDelete(), qint64(0));
        QVERIFY(history.indexOfSweep(1).isValid());

        // Delete, then Ctrl+Z within the window: the sweep is back, and nothing is deleted later.
        page.setUndoWindow(400);
        dialog.answer(QMessageBox::Yes);
        page.deleteSweep(1);
        QVERIFY(dialog.shown);
        QCOMPARE(page.pendingDelete(), qint64(1));
        QVERIFY(!history.indexOfSweep(1).isValid());
        QVERIFY(page.undoBar()->isVisible());
        page.activateWindow(); // back from the dialog
        QVERIFY(QTest::qWaitForWindowActive(&page));
        page.view()->setFocus();
        QTest::keyClick(page.view(), Qt::Key_Z, Qt::ControlModifier);
        QCOMPARE(page.pendingDelete(), qint64(0));
        QVERIFY(!page.undoBar()->isVisible());
        QVERIFY(history.indexOfSweep(1).isValid());
        QTest::qWait(1000); // past the window
        QVERIFY(sweepInFile(path, 1));
        QCOMPARE(stepsOfSweep(path, 1), steps);
        QVERIFY(history.indexOfSweep(1).isValid());

        // The Undo button does the same.
        dialog.answer(QMessageBox::Yes);
        page.deleteSweep(1);
        QVERIFY(!history.indexOfSweep(1).isValid());
        page.undoButton()->click();
        QVERIFY(history.indexOfSweep(1).isValid());
        QTest::qWait(1000);
        QCOMPARE(stepsOfSweep(path, 1), steps);

        // Not undone: carried out when the window ends, with its runs and steps.
        const auto runs = store::Reader::open(path.toStdString())->runs(1);
        dialog.answer(QMessageBox::Yes);
        page.deleteSweep(1);
        QVERIFY(sweepInFile(path, 1)); // not yet
        QTRY_VERIFY_WITH_TIMEOUT(!sweepInFile(path, 1), 30000);
        const auto reader = store::Reader::open(path.toStdString());
        for (const auto &run : runs) {
            QVERIFY(!reader->run(run.id));
            QVERIFY(reader->steps(run.id).empty());
        }
        QTRY_VERIFY_WITH_TIMEOUT(messages.size() > 0 && messages.last().first().toString() ==
                                                            QStringLiteral("Sweep 1 \"%1\" deleted.").arg(name),
                                 30000);
        QVERIFY(!page.undoBar()->isVisible());
        QVERIFY(!history.indexOfSweep(1).isValid());
    }

    // Quitting while a delete waits carries it out, whole: the window's controller ends before its
    // pages, and lets the page write first.
    void aDeleteWaitingAtQuitIsCarriedOut()
    {
        QTemporaryDir dir;
        const QString path = copyOf(h200Ledger(), dir);
        auto controller = std::make_unique<RunController>();
        HistoryModel history;
        QueryJob query(&history);
        followOpenDatabase(controller.get(), &query);
        HistoryPage page(&history, &query, controller.get());
        QVERIFY(openAndList(*controller, history, path));
        DeleteDialog dialog;
        dialog.answer(QMessageBox::Yes);
        page.deleteSweep(1); // a 10 s window
        QCOMPARE(page.pendingDelete(), qint64(1));
        QVERIFY(sweepInFile(path, 1));
        controller.reset(); // waits for the writer side
        QCOMPARE(page.pendingDelete(), qint64(0));
        QVERIFY(!sweepInFile(path, 1));
        QCOMPARE(stepsOfSweep(path, 1), std::size_t(0));
    }
};

QTEST_MAIN(TestPages)
#include "test_pages.moc"
