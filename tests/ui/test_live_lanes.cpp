// Issue 35.8, a sweep over several lanes as the Live tab and the status bar show it: a trace per
// lane that another lane's new run never blanks, each lane in the status line, and marks at the top
// edge for the steps the y fit clips. Synthetic events and step batches, no worker.
#include "charts/live_step_chart.h"
#include "controller/query_job.h"
#include "controller/run_controller.h"
#include "models/history_model.h"
#include "pages/live_page.h"
#include "presenters/live_run.h"
#include "presenters/report_export.h"
#include "presenters/shown_sweep.h"
#include "widgets/sweep_status_bar.h"

#include "charts/qcustomplot_compat.h"

#include <QtTest>

using namespace stepscope;
using namespace stepscope::ui;

namespace
{

QVector<double> steadySteps(int n, double ms, double first = 900.0)
{
    QVector<double> out(n, ms);
    out[0] = first;
    for (int i = 1; i < n; ++i)
        out[i] = ms + (i % 3) * 0.05;
    return out;
}

supervisor::event::RunStarted started(qint64 runId, int index, const QString &config, const QString &lane,
                                      int laneIndex)
{
    return {runId, index, 12, config, {lane, laneIndex}, {}};
}

} // namespace

class TestLiveLanes : public QObject
{
    Q_OBJECT
  private Q_SLOTS:
    void chartKeepsATracePerLane()
    {
        LiveStepChart chart;
        chart.resize(900, 500);
        chart.beginRun(QStringLiteral("earlier run"));
        chart.appendSteps(1, {800.0, 20.0, 21.0});
        chart.beginLaneRun(0, QStringLiteral("cpu:0"), QStringLiteral("tf32 (run 1 of 12)"));
        QVERIFY(!chart.stepGraph(LiveStepChart::kNoLane)); // the earlier run's trace is gone
        chart.appendSteps(0, 1, steadySteps(100, 20.0));
        chart.beginLaneRun(1, QStringLiteral("cpu:1"), QStringLiteral("bf16 (run 2 of 12)"));
        chart.appendSteps(1, 1, steadySteps(40, 12.0));
        QCOMPARE(chart.traceCount(), 2);
        QCOMPARE(chart.stepGraph(0)->dataCount(), 99);
        QCOMPARE(chart.stepGraph(1)->dataCount(), 39);
        QCOMPARE(chart.pointCount(), 100 + 40);
        QVERIFY(chart.stepGraph(0)->pen().color() != chart.stepGraph(1)->pen().color());
        QVERIFY(chart.plot()->legend->visible());
        QCOMPARE(chart.stepGraph(0)->name(), QStringLiteral("cpu:0 — tf32 (run 1 of 12)"));

        // Lane 1's next run starts over on its own trace; lane 0 keeps every step.
        chart.beginLaneRun(1, QStringLiteral("cpu:1"), QStringLiteral("fp16 (run 3 of 12)"));
        chart.appendSteps(1, 1, {700.0, 11.0});
        QCOMPARE(chart.stepGraph(0)->dataCount(), 99);
        QCOMPARE(chart.stepGraph(1)->dataCount(), 1);
        QCOMPARE(chart.firstStepGraph(1)->data()->constBegin()->value, 700.0);

        // Shading and phase are one lane's, named; the focused lane's wins.
        chart.setSteadyWindow(0, 12, 100);
        QVERIFY(chart.steadyWindowItem()->visible());
        QVERIFY(chart.steadyWindowLabel()->text().contains(QStringLiteral("cpu:0")));
        chart.setFocusLane(1);
        QVERIFY(!chart.steadyWindowItem()->visible()); // lane 1 has none: never lane 0's instead
        chart.setSteadyWindow(1, 5, 30);
        QCOMPARE(chart.steadyWindowItem()->topLeft->key(), 5.0);
        QVERIFY(chart.steadyWindowLabel()->text().contains(QStringLiteral("cpu:1")));
        chart.setFocusLane(LiveStepChart::kNoLane);
        QCOMPARE(chart.steadyWindowItem()->topLeft->key(), 12.0);
        chart.setPhase(1, QStringLiteral("compiling 0:42"), QStringLiteral("torch.compile traces the step"));
        QVERIFY(chart.phaseText().startsWith(QStringLiteral("cpu:1: compiling 0:42")));
        chart.appendSteps(0, 101, {20.0}); // lane 0's steps do not end lane 1's wait
        QVERIFY(!chart.phaseText().isEmpty());
        chart.appendSteps(1, 3, {11.0});
        QVERIFY(chart.phaseText().isEmpty());

        // A new single-device run: one trace again, no legend.
        chart.beginRun(QStringLiteral("next sweep"));
        QCOMPARE(chart.traceCount(), 1);
        QVERIFY(chart.stepGraph());
        QVERIFY(!chart.stepGraph(0));
        QVERIFY(!chart.plot()->legend->visible());
    }

    void clippedStepGetsAMark()
    {
        LiveStepChart chart;
        chart.resize(900, 500);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        chart.beginRun(QStringLiteral("spiky"));
        QVector<double> ms = steadySteps(400, 20.0, 2300.0);
        ms[149] = 2000.0; // step 150: a hundred times the rest
        chart.appendSteps(1, ms);
        chart.plot()->replot(QCustomPlot::rpImmediateRefresh);
        QVERIFY(chart.plot()->yAxis->range().upper < 100); // fitted to the steady steps
        // One mark: step 150's. Step 1 has its own note and no mark.
        QCOMPARE(chart.clippedMarkCount(), 1);
        QVERIFY(chart.firstStepNote()->visible());
        const QPointF at = chart.clippedMarkItem(0)->position->pixelPosition() + QPointF(0, 4);
        const QString tip = chart.toolTipAt(at);
        QVERIFY2(tip.contains(QStringLiteral("step 150")) && tip.contains(QStringLiteral("2.00 s")), qPrintable(tip));

        // Neighbouring spikes share one mark with their count.
        chart.appendSteps(401, {20.0, 900.0, 950.0, 20.0});
        chart.plot()->replot(QCustomPlot::rpImmediateRefresh);
        QCOMPARE(chart.clippedMarkCount(), 2);
        QCOMPARE(chart.clippedMarkItem(1)->text(), QStringLiteral("\u25B2"
                                                                  "2"));
        const QString both = chart.toolTipAt(chart.clippedMarkItem(1)->position->pixelPosition() + QPointF(0, 4));
        QVERIFY2(both.contains(QStringLiteral("2 steps above the scale")) && both.contains(QStringLiteral("step 403")),
                 qPrintable(both));
    }

    void presenterAndStatusBarFollowEveryLane()
    {
        RunController controller;
        HistoryModel history;
        QueryJob query(&history);
        LiveRun live(&controller, &query);
        LivePage page(&live);
        ShownSweep shown(&controller);
        ReportExport report(&shown, &controller);
        SweepStatusBar bar(&live, &report);
        bar.show(); // its phase() is what is on screen
        LiveStepChart *chart = page.liveChart();

        Q_EMIT controller.sweepStarted(7, 12);
        controller.onEvent(started(31, 0, QStringLiteral("native cpu b2 32px tf32"), QStringLiteral("cpu:0"), 0));
        controller.pushSamples({31, 1, steadySteps(30, 20.0)});
        controller.onEvent(started(32, 1, QStringLiteral("native cpu b2 32px bf16"), QStringLiteral("cpu:1"), 1));
        controller.pushSamples({32, 1, steadySteps(10, 12.0)});
        controller.pushSamples({31, 31, QVector<double>(5, 20.0)});
        QTRY_COMPARE(chart->pointCount(), 45);
        QCOMPARE(chart->traceCount(), 2);
        QCOMPARE(chart->stepGraph(0)->dataCount(), 34);
        QCOMPARE(chart->stepGraph(1)->dataCount(), 9);

        supervisor::event::Progress p{0, 12, 35, 60, 35.0 / 60, 0.05, {120, false}, 31};
        controller.onEvent(p);
        p.step = 10;
        p.runId = 32;
        controller.onEvent(p);
        const QString text = bar.text();
        QVERIFY2(text.startsWith(QStringLiteral("2 lanes")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("cpu:0 run 1/12 tf32 step 35/60")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("cpu:1 run 2/12 bf16 step 10/60")), qPrintable(text));

        // The words every lane's name shares are said once, in the header, not in the status bar.
        QVERIFY2(!text.contains(QStringLiteral("native")), qPrintable(text));

        // A phase is its lane's, in the chart and the status bar.
        controller.onEvent(
            supervisor::event::Phase{33, QStringLiteral("compiling"), 42, false, {QStringLiteral("cpu:1"), 1}});
        QVERIFY(chart->phaseText().isEmpty()); // run 33 is no lane's run yet
        controller.onEvent(started(33, 2, QStringLiteral("compile"), QStringLiteral("cpu:1"), 1));
        controller.onEvent(
            supervisor::event::Phase{33, QStringLiteral("compiling"), 42, false, {QStringLiteral("cpu:1"), 1}});
        QVERIFY2(chart->phaseText().startsWith(QStringLiteral("cpu:1: compiling 0:42")),
                 qPrintable(chart->phaseText()));
        QVERIFY2(bar.phase().startsWith(QStringLiteral("cpu:1 compiling")), qPrintable(bar.phase()));
        QCOMPARE(chart->stepGraph(0)->dataCount(), 34); // lane 1's new run left lane 0's steps
        QVERIFY(chart->stepGraph(1)->data()->isEmpty());

        controller.onEvent(
            supervisor::event::RunFinished{31, RunStatus::Complete, std::nullopt, {QStringLiteral("cpu:0"), 0}});
        p.runId = 33;
        p.step = 0;
        controller.onEvent(p);
        // One lane left running: its name whole.
        QVERIFY2(bar.text().startsWith(QStringLiteral("1 lane: cpu:1 run 3/12 compile")), qPrintable(bar.text()));
    }
};

QTEST_MAIN(TestLiveLanes)
#include "test_live_lanes.moc"
