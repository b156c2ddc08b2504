// What a chart's view does under the user's hand (charts/chart_widget.h, charts/log_ticker.h): a
// wheel zoom is undone by a double click and by Home, back to the ranges the chart itself set last,
// and a logarithmic axis keeps at least three labelled ticks however narrow its range.
#include "charts/break_even_chart.h"
#include "charts/first_vs_steady_chart.h"
#include "charts/live_step_chart.h"
#include "charts/log_ticker.h"
#include "charts/run_overlay_chart.h"

#include "charts/qcustomplot_compat.h"

#include <QApplication>
#include <QTest>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

using namespace stepscope::ui;

namespace
{

// One notch of the wheel over the middle of the axis rect, as the user turns it.
void wheel(QCustomPlot *plot, int notches = 1)
{
    const QPointF at = plot->axisRect()->rect().center();
    QWheelEvent event(at, plot->mapToGlobal(at), {}, QPoint(0, 120 * notches), Qt::NoButton, Qt::NoModifier,
                      Qt::NoScrollPhase, false);
    QApplication::sendEvent(plot, &event);
}

bool sameRange(const QCPRange &a, const QCPRange &b)
{
    return qFuzzyCompare(a.lower + 1, b.lower + 1) && qFuzzyCompare(a.upper, b.upper);
}

QVector<RunSeries> runs(int steps, double ms)
{
    RunSeries run;
    run.name = QStringLiteral("baseline");
    for (int i = 0; i < steps; ++i)
        run.ms.append(i == 0 ? ms * 40 : ms + (i % 7) * 0.1);
    run.steadyFirst = 10;
    run.steadyLast = steps;
    return {run};
}

// Labelled ticks of `axis` inside its range, after a replot laid them out.
int ticksInside(QCPAxis *axis)
{
    axis->parentPlot()->replot();
    const QVector<double> ticks = axis->tickVector();
    return int(std::count_if(ticks.begin(), ticks.end(), [&](double t) { return axis->range().contains(t); }));
}

} // namespace

class TestChartZoom : public QObject
{
    Q_OBJECT
  private Q_SLOTS:
    void doubleClickAndHomeUndoTheZoom()
    {
        RunOverlayChart chart;
        chart.setRuns(runs(200, 20.0));
        chart.resize(640, 420);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        QCustomPlot *p = chart.plot();
        p->replot();
        const QCPRange x = p->xAxis->range(), y = p->yAxis->range();

        wheel(p, 3);
        QVERIFY(!sameRange(p->xAxis->range(), x)); // the wheel zoomed in
        QTest::mouseDClick(p, Qt::LeftButton, {}, p->axisRect()->rect().center());
        QVERIFY(sameRange(p->xAxis->range(), x));
        QVERIFY(sameRange(p->yAxis->range(), y));

        wheel(p, -2);
        QVERIFY(!sameRange(p->xAxis->range(), x));
        QTest::keyClick(p, Qt::Key_Home);
        QVERIFY(sameRange(p->xAxis->range(), x));
        QVERIFY(sameRange(p->yAxis->range(), y));

        // New data: the chart's own fit is the one Home comes back to, not the first one.
        wheel(p, 2);
        chart.setRuns(runs(900, 35.0));
        const QCPRange refitted = p->xAxis->range(), refittedY = p->yAxis->range();
        QVERIFY(!sameRange(refitted, x));
        wheel(p, 2);
        QVERIFY(!sameRange(p->xAxis->range(), refitted));
        QTest::keyClick(p, Qt::Key_Home);
        QVERIFY(sameRange(p->xAxis->range(), refitted));
        QVERIFY(sameRange(p->yAxis->range(), refittedY));
    }

    void homeMakesTheLiveChartFollowAgain()
    {
        LiveStepChart chart;
        chart.resize(640, 420);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        chart.beginRun(QStringLiteral("baseline"));
        chart.appendSteps(1, {900.0, 30.0, 25.0, 21.5, 21.4, 21.3});
        QCustomPlot *p = chart.plot();
        wheel(p, 3);
        QVERIFY(!chart.followsLatest());
        chart.appendSteps(7, QVector<double>(200, 21.0)); // not followed: the user's view stays
        QVERIFY(p->xAxis->range().upper < 150);
        QTest::keyClick(p, Qt::Key_Home);
        QVERIFY(chart.followsLatest());
        QVERIFY2(p->xAxis->range().upper >= 206, qPrintable(QString::number(p->xAxis->range().upper)));
    }

    void aNarrowLogAxisKeepsThreeTicks()
    {
        // 0.2-15 s: the powers of ten inside are 1 and 10, all QCPAxisTickerLog labels.
        QCustomPlot plot;
        plot.resize(600, 400);
        plot.xAxis->setScaleType(QCPAxis::stLogarithmic);
        plot.xAxis->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
        plot.xAxis->setRange(0.2, 15);
        QVERIFY(ticksInside(plot.xAxis) < 3); // what this ticker is for
        useLogTicker(plot.xAxis);
        QVERIFY2(ticksInside(plot.xAxis) >= 3, qPrintable(QString::number(ticksInside(plot.xAxis))));
        for (const QCPRange &range : {QCPRange(2.51 / 1.6, 2.55 * 1.6), QCPRange(40, 90), QCPRange(3, 300),
                                      QCPRange(0.011, 0.5), QCPRange(2.50, 2.56), QCPRange(1, 1e6)}) {
            plot.xAxis->setRange(range);
            QVERIFY2(ticksInside(plot.xAxis) >= 3, qPrintable(QString("%1-%2").arg(range.lower).arg(range.upper)));
        }
        // Wide ranges keep the powers of ten alone.
        plot.xAxis->setRange(0.01, 1e4);
        plot.replot();
        for (const double t : plot.xAxis->tickVector())
            QVERIFY2(std::abs(std::log10(t) - std::round(std::log10(t))) < 1e-9, qPrintable(QString::number(t)));

        // The dashboard's log axes use it, and keep three ticks when the user zooms in.
        BreakEvenChart breakEven;
        breakEven.resize(640, 420);
        for (QCPAxis *axis : {breakEven.plot()->xAxis, breakEven.plot()->yAxis}) {
            QVERIFY(qSharedPointerDynamicCast<LogTicker>(axis->ticker()));
            axis->setRange(300, 9000);
            QVERIFY(ticksInside(axis) >= 3);
        }
        FirstVsSteadyChart firstVsSteady;
        firstVsSteady.resize(640, 420);
        QVERIFY(qSharedPointerDynamicCast<LogTicker>(firstVsSteady.plot()->xAxis->ticker()));
        firstVsSteady.plot()->xAxis->setRange(1.6, 4);
        QVERIFY(ticksInside(firstVsSteady.plot()->xAxis) >= 3);
    }
};

QTEST_MAIN(TestChartZoom)
#include "test_chart_zoom.moc"
