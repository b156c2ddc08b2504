// Behaviour of the dashboard's charts: what they hold after the data arrives, not how they look.
#include "charts/break_even_chart.h"
#include "charts/break_even_geometry.h"
#include "charts/chart_export.h"
#include "models/figure_text.h"
#include "charts/chart_palette.h"
#include "charts/first_vs_steady_chart.h"
#include "charts/label_placement.h"
#include "charts/live_step_chart.h"
#include "charts/run_overlay_chart.h"
#include "charts/waterfall_chart.h"
#include "ledger_rows.h"
#include "models/ledger_model.h"
#include "presenters/live_run.h"
#include "report/report_charts.h"
#include "report/waterfall.h"
#include "report/run_summary.h"
#include "stats/stats.h"

#include "charts/qcustomplot_compat.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <functional>

using namespace stepscope;
using namespace stepscope::ui;

namespace
{

report::LedgerRow row(const char *label, std::optional<double> firstS, std::optional<double> steadyMs)
{
    report::LedgerRow r;
    r.label = label;
    r.configName = std::string("resnet18 ") + label;
    r.firstStepMs = firstS ? std::optional<double>(*firstS * 1000.0) : std::nullopt;
    r.steadyMs = steadyMs;
    if (steadyMs) {
        r.steadyMinMs = *steadyMs * 0.99;
        r.steadyMaxMs = *steadyMs * 1.01;
    }
    r.repeats = 1;
    r.completed = steadyMs || firstS ? 1 : 0;
    r.lastStatus = r.completed ? RunStatus::Complete : RunStatus::Failed;
    return r;
}

// The cumulative ledger of the issue (21.4 -> 17.6 -> 11.1 -> 9.1 -> 8.2 ms) with one failed
// configuration and one that never settled.
report::Ledger sampleLedger()
{
    report::Ledger ledger;
    ledger.plannedSteps = 10000;
    ledger.rows.push_back(row("baseline", 0.52, 21.4));
    ledger.rows.push_back(row("tf32", 0.49, 17.6));
    ledger.rows.push_back(row("tf32+cudnn-benchmark", 2.34, 11.1));
    auto failed = row("max-autotune", std::nullopt, std::nullopt);
    failed.failureCategory = "compile-failed";
    ledger.rows.push_back(failed);
    ledger.rows.push_back(row("tf32+cudnn-benchmark+bf16", 2.04, 9.1));
    ledger.rows.push_back(row("tf32+cudnn-benchmark+bf16+cuda-graph", 2.27, 8.2));
    auto unsettled = row("channels-last", 1.0, std::nullopt);
    unsettled.steadyProblem = SteadyProblem{SteadyProblem::Kind::NeverSettles};
    ledger.rows.push_back(unsettled);

    const auto &base = ledger.rows[0];
    for (std::size_t i = 1; i < ledger.rows.size(); ++i) {
        auto &r = ledger.rows[i];
        if (!r.firstStepMs || !r.steadyMs)
            continue;
        r.speedup = *base.steadyMs / *r.steadyMs;
        r.breakEvenSteps = stats::breakEvenSteps(*r.firstStepMs, *r.steadyMs, *base.firstStepMs, *base.steadyMs);
    }
    return ledger;
}

// The batch-32 ledger measured on an H200 (docs/results/h200-ledger.md): four rows within 2.0-2.4 s
// and 7.3-7.7 ms, the crowd the labels must get through, and the recommendation of fused SGD over
// the CUDA graph that their lines decide at 1 + 0.14 s / 0.04 ms = 3,501 steps.
report::Ledger h200Ledger()
{
    struct Figures {
        const char *label, *axis;
        double firstS, firstLowS, firstHighS, steadyMs, steadyLowMs, steadyHighMs;
    };
    const Figures figures[] = {
        {"baseline", "baseline", 0.516, 0.509, 0.531, 14.12, 14.11, 14.13},
        {"tf32", "+tf32", 0.486, 0.480, 0.497, 7.56, 7.55, 7.60},
        {"tf32+cudnn-bench", "+cudnn-bench", 2.34, 2.30, 2.41, 7.67, 7.66, 7.68},
        {"tf32+cudnn-bench+bf16", "+bf16", 2.04, 1.98, 2.19, 7.37, 7.16, 9.54},
        {"tf32+cudnn-bench+bf16+channels-last", "+channels-last", 2.38, 2.29, 2.45, 7.33, 6.04, 7.82},
        {"tf32+cudnn-bench+bf16+channels-last+cuda-graph", "+cuda-graph", 2.27, 2.21, 2.33, 3.75, 3.72, 3.75},
        {"tf32+cudnn-bench+bf16+channels-last+cuda-graph+sgd-fused", "+sgd-fused", 2.41, 2.36, 2.44, 3.71, 3.69, 3.72},
    };
    report::Ledger ledger;
    ledger.plannedSteps = 10000;
    for (const Figures &f : figures) {
        report::LedgerRow r = row(f.label, f.firstS, f.steadyMs);
        r.axisLabel = f.axis;
        r.firstStepMinMs = f.firstLowS * 1000.0;
        r.firstStepMaxMs = f.firstHighS * 1000.0;
        r.steadyMinMs = f.steadyLowMs;
        r.steadyMaxMs = f.steadyHighMs;
        ledger.rows.push_back(r);
    }
    const auto &base = ledger.rows[0];
    for (std::size_t i = 1; i < ledger.rows.size(); ++i) {
        auto &r = ledger.rows[i];
        r.speedup = *base.steadyMs / *r.steadyMs;
        r.breakEvenSteps = stats::breakEvenSteps(*r.firstStepMs, *r.steadyMs, *base.firstStepMs, *base.steadyMs);
    }
    report::recommendFor(ledger, 10000);
    return ledger;
}

// Three rows of three processes each, recommended for 10,000 steps: the CUDA graph with fused SGD
// (3 s, 3 ms) overtakes the CUDA graph alone (1 s, 4 ms), the runner-up, at 2,001 steps; neither
// is the baseline, and both sides have processes to bootstrap an interval from.
report::Ledger threeProcessLedger()
{
    report::Ledger three;
    three.rows.push_back(test::rowOfProcesses("baseline", 0.5, 10.0, 3));
    three.rows.push_back(test::rowOfProcesses("cuda-graph", 1.0, 4.0, 3));
    three.rows.push_back(test::rowOfProcesses("cuda-graph+sgd-fused", 3.0, 3.0, 3));
    report::recommendFor(three, 10000);
    return three;
}

// QCPLegend::itemCount() counts the cells of its grid, empty ones too.
int legendEntries(QCPLegend *legend)
{
    int n = 0;
    for (int i = 0; i < legend->itemCount(); ++i)
        n += legend->item(i) ? 1 : 0;
    return n;
}

bool anyOverlap(const QVector<QRectF> &rects)
{
    for (int a = 0; a < rects.size(); ++a)
        for (int b = a + 1; b < rects.size(); ++b)
            if (rects[a].intersects(rects[b]))
                return true;
    return false;
}

int rowsWithSteadyState(const report::Ledger &ledger)
{
    return int(
        std::count_if(ledger.rows.begin(), ledger.rows.end(), [](const auto &r) { return r.steadyMs.has_value(); }));
}

} // namespace

class TestCharts : public QObject
{
    Q_OBJECT
  private Q_SLOTS:
    void liveChartHoldsExactlyTheAppendedSteps();
    void liveChartKeepsStepOneOffScale();
    void liveChartTakesAHundredThousandSteps();
    void liveChartShadesTheSteadyWindow();
    void liveShadingMatchesTheFinalReading();
    void beginRunClears();
    void liveChartHoverNamesTheNearestStep();
    void breakEvenHasOneLinePerSteadyConfiguration();
    void breakEvenFollowsPlannedSteps();
    void breakEvenElidesLongNamesInTheLegend();
    void liveChartShowsAPhaseUntilStepsArrive();
    void waterfallStepsFromConfigurationToConfiguration();
    void waterfallMarksAKnobOfThePickThatOnlyCosts();
    void waterfallBranchesWhereARowChangesAnEarlierOne();
    void waterfallColoursRegressions();
    void waterfallLabelsStayApartInAReport();
    void firstVsSteadyIsAScatterOnHonestAxes();
    void firstVsSteadyDrawsTheParetoFront();
    void firstVsSteadyHoverNamesTheRowAndItsMemory();
    void firstVsSteadyHasWhiskersAndLabelsThatDoNotOverlap();
    void labelPlacementAvoidsEveryTakenPlace();
    void breakEvenKeepsItsLegendOutOfThePlot();
    void breakEvenMarksTheDecidingCrossing();
    void breakEvenDrawsCrossingIntervals();
    void breakEvenGeometryComesFromTheLedgerAlone();
    void breakEvenNamesTheOtherStartStatesCrossing();
    void overlayDrawsEachRunWithItsSteadyWindow();
    void hiddenChartReplotsOnceShown();
    void chartsFollowModelReset();
    void chartsFollowThePalette();
    void saveChartWritesEachFormat();
    void saveChartRefusesUnknownSuffixAndUnwritablePath();
    void renderChartHasTheAskedSize();
};

void TestCharts::liveChartHoldsExactlyTheAppendedSteps()
{
    LiveStepChart chart;
    chart.beginRun(QStringLiteral("baseline"));
    chart.appendSteps(1, {2300.0, 30.0, 25.0, 21.5});
    chart.appendSteps(5, {21.4, 21.3});

    QCOMPARE(chart.pointCount(), 6);
    const auto *first = chart.firstStepGraph()->data().data();
    QCOMPARE(first->size(), 1);
    QCOMPARE(first->constBegin()->key, 1.0);
    QCOMPARE(first->constBegin()->value, 2300.0);

    const auto *steps = chart.stepGraph()->data().data();
    const QVector<double> keys{2, 3, 4, 5, 6};
    const QVector<double> values{30.0, 25.0, 21.5, 21.4, 21.3};
    QCOMPARE(steps->size(), keys.size());
    int i = 0;
    for (auto it = steps->constBegin(); it != steps->constEnd(); ++it, ++i) {
        QCOMPARE(it->key, keys[i]);
        QCOMPARE(it->value, values[i]);
    }
}

void TestCharts::liveChartKeepsStepOneOffScale()
{
    LiveStepChart chart;
    chart.beginRun(QStringLiteral("cudnn-benchmark"));
    QVector<double> ms{2300.0};
    for (int i = 0; i < 500; ++i)
        ms.append(21.0 + (i % 7) * 0.1);
    chart.appendSteps(1, ms);
    const QCPRange y = chart.plot()->yAxis->range();
    QVERIFY2(y.upper < 100, qPrintable(QStringLiteral("y range fits step 1: %1").arg(y.upper)));
    QVERIFY(y.upper > 21.6);
    QVERIFY(chart.firstStepNote()->visible());
    QVERIFY(chart.firstStepNote()->text().contains(QStringLiteral("2.30 s")));
}

void TestCharts::liveChartTakesAHundredThousandSteps()
{
    LiveStepChart chart;
    chart.beginRun(QStringLiteral("sweep"));
    const int total = 100000;
    const int chunk = 16;
    QVector<double> batch(chunk);
    for (int first = 1; first <= total; first += chunk) {
        for (int i = 0; i < chunk; ++i)
            batch[i] = first + i == 1 ? 1500.0 : 8.0 + ((first + i) % 13) * 0.01;
        chart.appendSteps(first, batch.mid(0, std::min(chunk, total - first + 1)));
    }
    QCOMPARE(chart.pointCount(), total);
    QCOMPARE(chart.stepGraph()->data()->size(), total - 1);
    QCOMPARE((chart.stepGraph()->data()->constEnd() - 1)->key, double(total));
    // The bulk line stays cheap to draw: sampled, no per-point symbols.
    QVERIFY(chart.stepGraph()->adaptiveSampling());
    QVERIFY(chart.stepGraph()->scatterStyle().isNone());
    QVERIFY(chart.plot()->interactions().testFlag(QCP::iRangeDrag));
    QVERIFY(chart.plot()->interactions().testFlag(QCP::iRangeZoom));
}

void TestCharts::liveChartShadesTheSteadyWindow()
{
    LiveStepChart chart;
    chart.beginRun(QStringLiteral("tf32"));
    QVector<double> ms(200, 17.6);
    chart.appendSteps(1, ms);
    QVERIFY(!chart.steadyWindowItem()->visible());
    chart.setSteadyWindow(12, 200);
    QVERIFY(chart.steadyWindowItem()->visible());
    QCOMPARE(chart.steadyWindowItem()->topLeft->key(), 12.0);
    QCOMPARE(chart.steadyWindowItem()->bottomRight->key(), 200.0);
    // The shading spans the whole height whatever the y zoom.
    QCOMPARE(chart.steadyWindowItem()->topLeft->typeY(), QCPItemPosition::ptAxisRectRatio);
    QCOMPARE(chart.steadyWindowItem()->topLeft->value(), 0.0);
    QCOMPARE(chart.steadyWindowItem()->bottomRight->value(), 1.0);
    chart.clearSteadyWindow();
    QVERIFY(!chart.steadyWindowItem()->visible());
}

// The live chart shades what the run's one reading will say: steps arrive in batches and are shaded
// as the Live page shades them (LiveRun: steadyShading over what arrived, then over all of them with
// how the run ended); the chart then holds exactly the window of the stored summary, or none.
void TestCharts::liveShadingMatchesTheFinalReading()
{
    const auto series = [](int count, const std::function<double(int)> &level) {
        QVector<double> ms{900.0}; // step 1
        for (int i = 0; i < count; ++i)
            ms << level(i) * (1.0 + 0.004 * ((i * 7) % 5 - 2));
        return ms;
    };
    // Flat for 60 steps, then falling for 80: settled early on, still falling at the end.
    const QVector<double> falls = series(140, [](int i) { return i < 60 ? 20.0 : 20.0 - 0.15 * (i - 60); });
    // A warm-up, then flat: settles.
    const QVector<double> settles = series(120, [](int i) { return i < 15 ? 40.0 - i : 12.0; });
    struct Case {
        const char *name;
        QVector<double> ms;
        RunStatus ended;
        bool shadedOnTheWay; // a window was shown while it ran
    };
    for (const Case &c :
         {Case{"falls", falls, RunStatus::Complete, true}, Case{"settles", settles, RunStatus::Complete, true},
          Case{"settles, then failed", settles, RunStatus::Failed, true}}) {
        LiveStepChart chart;
        chart.beginRun(QString::fromLatin1(c.name));
        const auto shade = [&chart](const std::optional<ShadedSteps> &s) {
            if (s)
                chart.setSteadyWindow(s->first, s->last);
            else
                chart.clearSteadyWindow();
        };
        bool shaded = false;
        for (int at = 0; at < c.ms.size(); at += 10) {
            const QVector<double> batch = c.ms.mid(at, 10);
            chart.appendSteps(at + 1, batch);
            shade(steadyShading(c.ms.mid(0, at + batch.size())));
            shaded = shaded || chart.steadyWindowItem()->visible();
        }
        QVERIFY2(shaded == c.shadedOnTheWay, c.name);
        shade(steadyShading(c.ms, c.ended));

        // The final reading, as the supervisor stores it for a completed run.
        std::vector<store::StepRow> rows;
        for (int i = 0; i < c.ms.size(); ++i)
            rows.push_back({i + 1, std::nullopt, c.ms[i]});
        const store::RunSummary reading = report::summarizeSteps(rows);
        const bool steady = c.ended == RunStatus::Complete && report::hasSteadyState(reading);
        QVERIFY2(chart.steadyWindowItem()->visible() == steady, c.name);
        if (steady) {
            QCOMPARE(chart.steadyWindowItem()->topLeft->key(), double(reading.steadyBegin));
            QCOMPARE(chart.steadyWindowItem()->bottomRight->key(),
                     double(reading.steadyBegin + reading.steadyCount - 1));
        }
        if (QByteArray(c.name) == "falls")
            QVERIFY2(!steady && reading.problem && reading.problem->kind == SteadyProblem::Kind::StillDrifting,
                     "a run that never settles ends without shading");
        if (QByteArray(c.name) == "settles")
            QVERIFY(steady);
    }
}

void TestCharts::beginRunClears()
{
    LiveStepChart chart;
    chart.beginRun(QStringLiteral("first"));
    chart.appendSteps(1, {900.0, 20.0, 21.0});
    chart.setSteadyWindow(2, 3);
    chart.beginRun(QStringLiteral("second"));
    QCOMPARE(chart.pointCount(), 0);
    QVERIFY(chart.stepGraph()->data()->isEmpty());
    QVERIFY(chart.firstStepGraph()->data()->isEmpty());
    QVERIFY(!chart.steadyWindowItem()->visible());
    QVERIFY(!chart.firstStepNote()->visible());
    QCOMPARE(chart.title(), QStringLiteral("second"));
    chart.appendSteps(1, {800.0, 19.0});
    QCOMPARE(chart.pointCount(), 2);
}

void TestCharts::liveChartHoverNamesTheNearestStep()
{
    LiveStepChart chart;
    chart.resize(800, 400);
    chart.beginRun(QStringLiteral("hover"));
    chart.appendSteps(1, {900.0, 20.0, 21.0, 22.5, 20.5});
    chart.plot()->replot(QCustomPlot::rpImmediateRefresh); // lays the axes out at this size
    const QCPAxis *x = chart.plot()->xAxis;
    const QCPAxis *y = chart.plot()->yAxis;
    const QPointF atStep4(x->coordToPixel(4.2), y->coordToPixel(22.5));
    const QString text = chart.toolTipAt(atStep4);
    QVERIFY2(text.contains(QStringLiteral("step 4")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("22.5 ms")), qPrintable(text));
    QVERIFY(chart.toolTipAt(QPointF(-10, -10)).isEmpty());
}

void TestCharts::breakEvenHasOneLinePerSteadyConfiguration()
{
    LedgerModel model;
    const report::Ledger ledger = sampleLedger();
    model.setLedger(ledger);
    BreakEvenChart chart;
    chart.setModel(&model);

    QCOMPARE(chart.plot()->graphCount(), rowsWithSteadyState(ledger));
    QVERIFY(chart.graphForRow(0));
    QVERIFY(!chart.graphForRow(3)); // failed
    QVERIFY(!chart.graphForRow(6)); // no steady state
    // T1 + (n - 1) * t at the first and last samples of the baseline's line.
    const auto *base = chart.graphForRow(0)->data().data();
    QCOMPARE(base->constBegin()->key, 1.0);
    QCOMPARE(base->constBegin()->value, 0.52);
    const auto last = base->constEnd() - 1;
    QVERIFY(qFuzzyCompare(last->value, 0.52 + (last->key - 1) * 0.0214));

    QCOMPARE(chart.plannedSteps(), 10000.0);
    QVERIFY(chart.plannedLine()->visible());
    QVERIFY(chart.plot()->xAxis->range().upper >= 20000);

    // Crossings at the ledger's break-even counts, for the rows that cross after step 1.
    QVector<double> expected;
    for (std::size_t i = 1; i < ledger.rows.size(); ++i) {
        const auto &n = ledger.rows[i].breakEvenSteps;
        if (ledger.rows[i].steadyMs && n && *n > 1)
            expected.append(*n);
    }
    QVERIFY(!expected.isEmpty());
    QCOMPARE(chart.crossings(), expected);
}

void TestCharts::breakEvenFollowsPlannedSteps()
{
    LedgerModel model;
    model.setLedger(sampleLedger());
    BreakEvenChart chart;
    chart.setModel(&model);
    QCOMPARE(chart.plannedSteps(), 10000.0);
    model.setPlannedSteps(50000);
    QTRY_COMPARE(chart.plannedSteps(), 50000.0);
    QVERIFY(chart.plot()->xAxis->range().upper >= 100000);
}

void TestCharts::breakEvenElidesLongNamesInTheLegend()
{
    report::Ledger ledger = sampleLedger();
    const std::string longName = "python tf32+cudnn-bench+bf16+channels-last+compile-reduce-overhead+warm-cache";
    ledger.rows[1].label = longName;
    LedgerModel model;
    model.setLedger(ledger);
    BreakEvenChart chart;
    chart.resize(900, 500);
    chart.setModel(&model);
    const QString shown = chart.graphForRow(1)->name();
    // Elided in the middle: shorter, with the distinguishing tail (mode and cache) kept.
    QVERIFY2(shown.size() < int(longName.size()), qPrintable(shown));
    QVERIFY2(shown.contains(QChar(0x2026)), qPrintable(shown));
    QVERIFY2(shown.contains("warm-cache"), qPrintable(shown));
    QVERIFY(chart.fullName(1).startsWith(QString::fromStdString(longName)));
    // The full name is the legend entry's tooltip; short names stay whole.
    chart.show();
    chart.plot()->replot(QCustomPlot::rpImmediateRefresh);
    auto *item = chart.plot()->legend->itemWithPlottable(chart.graphForRow(1));
    QVERIFY(item);
    // ... with the row's peak memory under it (none in this hand-made ledger: said so, never 0 MiB).
    QCOMPARE(chart.legendToolTipAt(item->rect().center()),
             chart.fullName(1) + QStringLiteral("\nPeak memory not measured"));
    QVERIFY(chart.legendToolTipAt(QPointF(-10, -10)).isEmpty());
    QCOMPARE(chart.graphForRow(2)->name(), QString("tf32+cudnn-benchmark"));
}

void TestCharts::breakEvenKeepsItsLegendOutOfThePlot()
{
    report::Ledger ledger = h200Ledger();
    ledger.rows[4].label = "python tf32+cudnn-bench+bf16+channels-last+compile-reduce-overhead+warm-cache";
    LedgerModel model;
    model.setLedger(ledger);
    BreakEvenChart chart;
    chart.setModel(&model);
    // The tab's size in a 1280 px window, a narrow one, and the report's picture.
    chart.show();
    for (const QSize size : {QSize(880, 640), QSize(620, 480), QSize(900, 480)}) {
        chart.resize(size);
        chart.layout()->activate(); // the plot takes the new size now, not at the next event loop
        chart.plot()->replot(QCustomPlot::rpImmediateRefresh);
        const QRect legend = chart.plot()->legend->outerRect();
        const QRect plotArea = chart.plot()->axisRect()->outerRect();
        QVERIFY2(!legend.intersects(plotArea),
                 qPrintable(QStringLiteral("legend over the plot at %1 px").arg(size.width())));
        QVERIFY2(QRect(QPoint(0, 0), size).contains(legend),
                 qPrintable(QStringLiteral("the legend (%1,%2 %3x%4) leaves the chart at %5 px")
                                .arg(legend.x())
                                .arg(legend.y())
                                .arg(legend.width())
                                .arg(legend.height())
                                .arg(size.width())));
        QCOMPARE(legendEntries(chart.plot()->legend), 7);
        // The plot keeps most of the height.
        QVERIFY(plotArea.height() > size.height() / 2);
        // Crossing labels (and the deciding one) never cover each other.
        const QVector<QRectF> rects = chart.crossingLabelRects();
        QCOMPARE(rects.size(), chart.crossings().size() + 1);
        QVERIFY2(!anyOverlap(rects), qPrintable(QStringLiteral("crossing labels overlap at %1 px").arg(size.width())));
        for (const QRectF &r : rects)
            QVERIFY(QRectF(chart.plot()->axisRect()->rect()).contains(r));
    }
    // An exported picture at another size lays the legend out for that size.
    const QImage image = renderChart(chart.plot(), QSize(1200, 500));
    QVERIFY(!image.isNull());
}

void TestCharts::breakEvenMarksTheDecidingCrossing()
{
    const report::Ledger ledger = h200Ledger();
    QVERIFY(ledger.recommendation && ledger.recommendation->runnerUp);
    QCOMPARE(ledger.recommendation->best, std::size_t(6));      // fused SGD
    QCOMPARE(*ledger.recommendation->runnerUp, std::size_t(5)); // the CUDA graph alone
    LedgerModel model;
    model.setLedger(ledger);
    BreakEvenChart chart;
    chart.setModel(&model);

    // Fused SGD starts 0.14 s later and steps 0.04 ms faster: it overtakes at 1 + 0.14 / 0.00004.
    const double expected = 1 + (2.41 - 2.27) / (0.00375 - 0.00371);
    const auto &deciding = chart.decidingCrossing();
    QVERIFY(deciding);
    QCOMPARE(deciding->best, 6);
    QCOMPARE(deciding->runnerUp, 5);
    QVERIFY(deciding->bestOvertakes);
    QVERIFY2(std::abs(deciding->steps - expected) < 1e-6 * expected, qPrintable(QString::number(deciding->steps)));
    QVERIFY(chart.decidingMarker());
    QVERIFY(std::abs(chart.decidingMarker()->position->key() - expected) < 1e-6 * expected);
    const double t = 2.41 + (expected - 1) * 0.00371;
    QVERIFY(std::abs(chart.decidingMarker()->position->value() - t) < 1e-9);
    // Both lines pass through it, and the axis shows it.
    QVERIFY(chart.plot()->xAxis->range().contains(expected));
    const QString text = chart.crossingLabels().last()->text();
    QVERIFY2(text.contains(QStringLiteral("+sgd-fused overtakes +cuda-graph at 3,501 steps")), qPrintable(text));
    // One process a configuration: the margin has no interval, so the two cannot be told apart.
    QVERIFY(ledger.recommendationTied);
    QVERIFY2(text.contains(QStringLiteral("cannot be told apart")), qPrintable(text));
    // The star is where the text's recommendation is: the simpler of the two (issue 19.1), not the
    // point estimate's winner.
    QCOMPARE(ledger.recommended, std::optional<std::size_t>(5));
    const std::string headline = report::recommendationHeadline(ledger);
    // The graph's row by its name (issue 28), and fused SGD as what it adds to it, with the total time
    // for 10000 steps it changes: (2.41 + 9999 * 3.71 ms) / (2.27 + 9999 * 3.75 ms).
    QVERIFY2(headline.rfind("Use " + ledger.rows[5].label + ": ", 0) == 0, headline.c_str());
    // One process each: nothing measured says "within noise", only that no interval tells them apart.
    QVERIFY2(headline.find("; +sgd-fused 0.7% faster, one process each: no interval") != std::string::npos,
             headline.c_str());
    QVERIFY(chart.graphForRow(5)->name().contains(QStringLiteral("recommended for N")));
    QVERIFY(chart.graphForRow(6)->name().contains(QStringLiteral("not told from the recommended: one process each")));

    // A shorter planned run makes the CUDA graph the best: fused SGD would overtake it only later.
    model.setPlannedSteps(1000);
    QTRY_VERIFY(chart.decidingCrossing() && chart.decidingCrossing()->best == 5);
    QVERIFY(!chart.decidingCrossing()->bestOvertakes);
    QVERIFY(std::abs(chart.decidingCrossing()->steps - expected) < 1e-6 * expected);
    QVERIFY(chart.crossingLabels().last()->text().contains(QStringLiteral("would overtake")));

    // No runner-up, no deciding crossing.
    report::Ledger one;
    one.rows.push_back(row("baseline", 0.5, 10.0));
    report::recommendFor(one, 1000);
    model.setLedger(one);
    QVERIFY(!chart.decidingCrossing());
    QVERIFY(!chart.decidingMarker());
}

void TestCharts::breakEvenDrawsCrossingIntervals()
{
    report::Ledger ledger = h200Ledger();
    stats::BreakEvenCI closed;
    closed.hasInterval = true;
    closed.low = 138;
    closed.high = 2536;
    ledger.rows[2].breakEvenCI = closed;
    ledger.rows[2].breakEvenRange = "138-2536";
    stats::BreakEvenCI open;
    open.hasInterval = true;
    open.low = 109;
    open.high = std::numeric_limits<double>::infinity();
    open.highNever = true;
    ledger.rows[3].breakEvenCI = open;
    ledger.rows[3].breakEvenRange = "109-never";
    LedgerModel model;
    model.setLedger(ledger);
    BreakEvenChart chart;
    chart.setModel(&model);

    const auto &intervals = chart.crossingIntervals();
    QCOMPARE(intervals.size(), 2);
    QCOMPARE(intervals[0].row, 2);
    QCOMPARE(intervals[0].low, 138.0);
    QCOMPARE(intervals[0].high, 2536.0);
    QVERIFY(!intervals[0].openEnded);
    QCOMPARE(intervals[1].row, 3);
    QVERIFY(intervals[1].openEnded); // "never" runs to the right edge with an arrow
    QCOMPARE(intervals[1].high, chart.plot()->xAxis->range().upper);
    // When the runner-up is the baseline the deciding crossing is that row's break-even: one
    // marker, one label and one whisker for it, with the row's interval (the ledger computes both alike).
    report::Ledger pair;
    pair.rows.push_back(test::rowOfProcesses("baseline", 0.5, 10.0, 3));
    pair.rows.push_back(test::rowOfProcesses("fast", 2.0, 5.0, 3));
    pair.rows[1].speedup = 2.0;
    pair.rows[1].breakEvenSteps = 1 + 1.5 / 0.005;
    pair.rows[1].breakEvenCI =
        stats::breakEvenInterval(report::processSummariesOf(pair.rows[1]), report::processSummariesOf(pair.rows[0]));
    pair.rows[1].breakEvenRange = report::breakEvenRangeText(*pair.rows[1].breakEvenCI);
    QVERIFY(pair.rows[1].breakEvenCI->hasInterval && !pair.rows[1].breakEvenCI->highNever);
    report::recommendFor(pair, 10000);
    LedgerModel pairModel;
    pairModel.setLedger(pair);
    BreakEvenChart pairChart;
    pairChart.setModel(&pairModel);
    QVERIFY(pairChart.decidingCrossing());
    QCOMPARE(pairChart.decidingCrossing()->runnerUp, 0);
    QVERIFY(std::abs(pairChart.decidingCrossing()->steps - 301) < 1e-6);
    QCOMPARE(pairChart.decidingCrossing()->low.value_or(0), pair.rows[1].breakEvenCI->low);
    QCOMPARE(pairChart.decidingCrossing()->high.value_or(0), pair.rows[1].breakEvenCI->high);
    QCOMPARE(pairChart.crossingLabels().size(), 1);
    const QString pairRange =
        QStringLiteral("[%1\u2013%2]")
            .arg(formatStepCount(pair.rows[1].breakEvenCI->low), formatStepCount(pair.rows[1].breakEvenCI->high));
    QVERIFY2(pairChart.crossingLabels().front()->text().contains(pairRange),
             qPrintable(pairChart.crossingLabels().front()->text() + " lacks " + pairRange));
    QCOMPARE(pairChart.crossingIntervals().size(), 1);

    // Between two rows neither of which is the baseline the deciding crossing has its interval too,
    // drawn as a whisker in the faster row's colour and written in its label.
    const report::Ledger three = threeProcessLedger();
    QVERIFY(three.decidingCrossing && three.decidingCrossing->ci.hasInterval);
    const stats::BreakEvenCI &ci = three.decidingCrossing->ci;
    LedgerModel threeModel;
    threeModel.setLedger(three);
    BreakEvenChart threeChart;
    threeChart.setModel(&threeModel);
    const auto &deciding = threeChart.decidingCrossing();
    QVERIFY(deciding && deciding->best == 2 && deciding->runnerUp == 1 && deciding->bestOvertakes);
    QCOMPARE(deciding->low.value_or(0), ci.low);
    QCOMPARE(deciding->high.value_or(0), ci.high);
    QVERIFY(std::any_of(threeChart.crossingIntervals().begin(), threeChart.crossingIntervals().end(),
                        [&](const BreakEvenChart::Interval &iv) { return iv.row == 2 && iv.low == ci.low; }));
    // An interval from "immediately" to "never" is said in words only: a whisker across the whole
    // axis would show nothing.
    report::Ledger everywhere = three;
    everywhere.decidingCrossing->ci.low = 0.5;
    everywhere.decidingCrossing->ci.highNever = true;
    everywhere.decidingCrossing->ci.high = std::numeric_limits<double>::infinity();
    LedgerModel openModel;
    openModel.setLedger(everywhere);
    BreakEvenChart openChart;
    openChart.setModel(&openModel);
    QVERIFY(openChart.decidingCrossing() && openChart.decidingCrossing()->low);
    QVERIFY(std::none_of(openChart.crossingIntervals().begin(), openChart.crossingIntervals().end(),
                         [](const BreakEvenChart::Interval &iv) { return iv.row == 2; }));
    QVERIFY2(openChart.crossingLabels().last()->text().contains(QStringLiteral("[immediately\u2013never]")),
             qPrintable(openChart.crossingLabels().last()->text()));

    const QString threeText = threeChart.crossingLabels().last()->text();
    QVERIFY2(threeText.contains(QStringLiteral("[%1\u2013%2]").arg(formatStepCount(ci.low), formatStepCount(ci.high))),
             qPrintable(threeText));

    // The label says the interval too.
    bool labelled = false;
    for (const QCPItemText *label : chart.crossingLabels())
        labelled = labelled || label->text().contains(QStringLiteral("[138-2536]"));
    QVERIFY(labelled);
}

// Lines are drawn for the ledger's start state; a row that ran cold and warm names the other
// state's crossing beside its own (issue 16): "501 steps cold · 101 warm".
void TestCharts::breakEvenNamesTheOtherStartStatesCrossing()
{
    report::Ledger ledger;
    ledger.rows.push_back(row("baseline", 1.0, 10.0));
    ledger.rows.push_back(row("fast", 3.0, 5.0));
    ledger.rows.push_back(row("mid", 2.0, 8.0));
    for (auto &r : ledger.rows)
        r.firstStepStart = store::StartState::Fresh;
    ledger.rows[0].again.firstStepMs = 1000.0; // the baseline pays nothing for the caches
    ledger.rows[1].speedup = 2.0;
    ledger.rows[1].breakEvenSteps = stats::breakEvenSteps(3000, 5, 1000, 10);
    report::LedgerRow &mid = ledger.rows[2];
    mid.speedup = 1.25;
    mid.breakEvenSteps = stats::breakEvenSteps(2000, 8, 1000, 10);
    mid.again.firstStepMs = 1200.0;
    mid.again.breakEvenSteps = stats::breakEvenSteps(1200, 8, 1000, 10);
    report::recommendFor(ledger, 10000);
    const BreakEvenGeometry g = breakEvenGeometry(ledger, 10000);
    const auto crossing = std::find_if(g.crossings.begin(), g.crossings.end(),
                                       [](const BreakEvenGeometry::Crossing &c) { return c.row == 2; });
    QVERIFY(crossing != g.crossings.end());
    QCOMPARE(crossing->otherText, QStringLiteral("101 again"));
    if (!crossing->decides)
        QCOMPARE(crossing->text, QStringLiteral("501 steps fresh \u00b7 101 again"));
    // A row without the other state's first step says nothing more.
    const auto fast = std::find_if(g.crossings.begin(), g.crossings.end(),
                                   [](const BreakEvenGeometry::Crossing &c) { return c.row == 1; });
    QVERIFY(fast != g.crossings.end());
    QVERIFY(fast->otherText.isEmpty());

    // Issue 28: a row that ran shipped too names both other states' crossings, fewest caches first.
    mid.shipped.firstStepMs = 1600.0;
    mid.shipped.breakEvenSteps = stats::breakEvenSteps(1600, 8, 1000, 10);
    const BreakEvenGeometry three = breakEvenGeometry(ledger, 10000);
    const auto both = std::find_if(three.crossings.begin(), three.crossings.end(),
                                   [](const BreakEvenGeometry::Crossing &c) { return c.row == 2; });
    QVERIFY(both != three.crossings.end());
    QCOMPARE(both->otherText, QStringLiteral("301 shipped \u00b7 101 again"));
}

// The geometry without a plot: a baseline of 1 s then 10 ms a step against a configuration of 3 s
// then 5 ms, for a planned run of 10,000 steps.
void TestCharts::breakEvenGeometryComesFromTheLedgerAlone()
{
    report::Ledger ledger;
    ledger.rows.push_back(row("baseline", 1.0, 10.0));
    ledger.rows.push_back(row("fast", 3.0, 5.0));
    ledger.rows[1].speedup = 2.0;
    ledger.rows[1].breakEvenSteps = stats::breakEvenSteps(3.0, 0.005, 1.0, 0.010);
    report::recommendFor(ledger, 10000);
    QVERIFY(ledger.recommendation && ledger.recommendation->runnerUp);
    const BreakEvenGeometry g = breakEvenGeometry(ledger, 10000);
    const auto near = [](double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(b)); };

    // The step axis runs to twice the planned run; the lines T1 + (n - 1) * t run along it.
    QVERIFY(near(g.xMax, 20000));
    QCOMPARE(g.keys.size(), 256);
    QCOMPARE(g.keys.first(), 1.0);
    QVERIFY(near(g.keys.last(), 20000));
    QCOMPARE(g.lines.size(), 2);
    QCOMPARE(g.lines[0].row, 0);
    QCOMPARE(g.lines[1].row, 1);
    QCOMPARE(g.lines[0].values.first(), 1.0);
    QCOMPARE(g.lines[1].values.first(), 3.0);
    QVERIFY(near(g.lines[0].values.last(), 1 + 19999 * 0.010));
    QVERIFY(near(g.lines[1].values.last(), 3 + 19999 * 0.005));
    for (int k = 0; k < g.keys.size(); k += 51)
        QVERIFY(near(g.lines[1].values[k], 3 + (g.keys[k] - 1) * 0.005));
    // From below the smallest first step to above the largest end.
    QVERIFY(near(g.yMin, 0.7));
    QVERIFY(near(g.yMax, (1 + 19999 * 0.010) * 1.5));

    // Rows without processes have no interval: the two cannot be told apart, so the simpler (the
    // baseline) is recommended and starred, as the recommendation's text says.
    QVERIFY(ledger.recommendationTied);
    QVERIFY(g.lines[0].recommended);
    QVERIFY(!g.lines[1].recommended);
    QCOMPARE(g.lines[0].suffix, QString(" \u2605 recommended for N"));
    QCOMPARE(g.lines[1].suffix, QString(" (not told from the recommended: one process each)"));
    QCOMPARE(g.lines[1].fullName, QString("fast (not told from the recommended: one process each)"));
    QCOMPARE(g.lineForRow(1), &g.lines[1]);
    QVERIFY(!g.lineForRow(2));

    // One crossing with the baseline at 1 + (3 - 1) / (0.010 - 0.005) = 401 steps, where both lines
    // stand at 5 s; it is the deciding crossing too, so its marker and label are the deciding one's.
    QCOMPARE(g.crossings.size(), 1);
    QCOMPARE(g.crossings[0].row, 1);
    QVERIFY(near(g.crossings[0].at.x(), 401));
    QVERIFY(near(g.crossings[0].at.y(), 5.0));
    QVERIFY(g.crossings[0].decides);
    QCOMPARE(g.crossings[0].interval, -1); // one process a configuration: no interval
    QVERIFY(g.intervals.isEmpty());
    QVERIFY(g.deciding);
    QCOMPARE(g.deciding->best, 1);
    QCOMPARE(g.deciding->runnerUp, 0);
    QVERIFY(g.deciding->bestOvertakes);
    QVERIFY(near(g.deciding->steps, 401));
    QVERIFY(!g.deciding->low);
    QVERIFY(near(g.decidingAt.x(), 401));
    QVERIFY(near(g.decidingAt.y(), 5.0));
    QCOMPARE(g.decidingInterval, -1);
    QVERIFY2(g.decidingText.startsWith(QStringLiteral("decides: fast overtakes baseline at 401 steps")),
             qPrintable(g.decidingText));

    // The planned N.
    QVERIFY(g.plannedShown);
    QCOMPARE(g.planned, 10000.0);
    QCOMPARE(g.plannedText, QStringLiteral("planned N = %1").arg(formatStepCount(10000)));

    // Between two rows neither of which is the baseline, the deciding crossing brings its own
    // interval, in the faster row's name, at the height where the two lines meet.
    const report::Ledger three = threeProcessLedger();
    QVERIFY(three.decidingCrossing && three.decidingCrossing->ci.hasInterval);
    const BreakEvenGeometry g3 = breakEvenGeometry(three, 10000);
    QVERIFY(g3.deciding && g3.deciding->best == 2 && g3.deciding->runnerUp == 1);
    QVERIFY(near(g3.deciding->steps, 1 + (3.0 - 1.0) / (0.004 - 0.003)));
    QVERIFY(near(g3.decidingAt.y(), 3.0 + (g3.deciding->steps - 1) * 0.003));
    QVERIFY(g3.decidingInterval >= 0);
    const BreakEvenGeometry::Interval &iv = g3.intervals[g3.decidingInterval];
    QCOMPARE(iv.row, 2);
    QCOMPARE(iv.low, three.decidingCrossing->ci.low);
    QCOMPARE(iv.seconds, g3.decidingAt.y());

    // No ledger: no lines, no planned line, the default ranges.
    const BreakEvenGeometry none = breakEvenGeometry(report::Ledger{}, 0);
    QVERIFY(none.lines.isEmpty() && none.crossings.isEmpty() && !none.deciding && !none.plannedShown);
    QCOMPARE(none.xMax, 10.0);
    QCOMPARE(none.yMin, 0.1);
    QCOMPARE(none.yMax, 1000.0);
}

void TestCharts::overlayDrawsEachRunWithItsSteadyWindow()
{
    QVector<RunSeries> runs;
    for (int k = 0; k < 3; ++k) {
        RunSeries run;
        run.name = QStringLiteral("tf32 #%1").arg(k + 1);
        run.ms.append(2300.0 + 100 * k); // step 1: far above the rest
        for (int i = 2; i <= 400; ++i)
            run.ms.append(i < 20 ? 30.0 : 17.0 + k * 0.5 + (i % 5) * 0.05);
        run.steadyFirst = 20;
        run.steadyLast = 400;
        run.colorIndex = 1;
        runs.append(run);
    }
    runs[2].steadyFirst = runs[2].steadyLast = 0; // one that never settled: no bar
    RunOverlayChart chart;
    chart.resize(800, 480);
    chart.show();
    chart.setRuns(runs);
    chart.plot()->replot(QCustomPlot::rpImmediateRefresh);

    QCOMPARE(chart.runCount(), 3);
    for (int k = 0; k < 3; ++k) {
        QCOMPARE(chart.stepGraph(k)->dataCount(), 399);
        QCOMPARE(chart.stepGraph(k)->data()->constBegin()->key, 2.0);
        QCOMPARE(chart.firstStepGraph(k)->dataCount(), 1);
    }
    QVERIFY(chart.steadyBar(0) && chart.steadyBar(1));
    QVERIFY(!chart.steadyBar(2));
    QCOMPARE(chart.steadyBar(0)->start->key(), 20.0);
    QCOMPARE(chart.steadyBar(0)->end->key(), 400.0);
    QVERIFY(std::abs(chart.steadyMedianMs(0) - 17.1) < 0.051);
    QVERIFY(chart.steadyMedianMs(1) > chart.steadyMedianMs(0));
    // The y range is the steady steps', not step 1's.
    QVERIFY(chart.plot()->yAxis->range().upper < 100);
    QVERIFY(chart.plot()->yAxis->range().upper > 30);
    QVERIFY(!chart.plot()->legend->outerRect().intersects(chart.plot()->axisRect()->outerRect()));
    QCOMPARE(legendEntries(chart.plot()->legend), 3);
    chart.clear();
    QCOMPARE(chart.runCount(), 0);
    QCOMPARE(chart.plot()->graphCount(), 0);
}

// A chart on a hidden page draws nothing when its data changes, and draws once when it shows.
void TestCharts::hiddenChartReplotsOnceShown()
{
    QVector<RunSeries> runs(2);
    for (int k = 0; k < runs.size(); ++k) {
        runs[k].name = QStringLiteral("run %1").arg(k + 1);
        for (int i = 1; i <= 1000; ++i)
            runs[k].ms.append(i == 1 ? 900.0 : 10.0 + k + (i % 3) * 0.1);
    }
    QWidget page;
    page.resize(800, 480);
    auto *chart = new RunOverlayChart(&page);
    chart->resize(800, 480);
    QTest::qWait(20); // the replot QCustomPlot queues when it is made
    QSignalSpy replots(chart->plot(), &QCustomPlot::afterReplot);
    chart->setRuns(runs);
    chart->setRuns(prepareOverlay(runs));
    QTest::qWait(50);
    QCOMPARE(replots.count(), 0);
    QCOMPARE(chart->stepGraph(1)->dataCount(), 999); // the data is there, only the drawing waits

    page.show();
    QVERIFY(QTest::qWaitForWindowExposed(&page));
    QTRY_VERIFY(replots.count() >= 1);
    QTest::qWait(50);
    const auto shown = replots.count();
    QVERIFY2(shown <= 2, qPrintable(QString::number(shown))); // the deferred one, or the resize's
    // On screen, changes replot, several in one turn of the event loop once.
    chart->setRuns(runs);
    chart->setRuns(runs);
    QTRY_COMPARE(replots.count(), shown + 1);
    QTest::qWait(50);
    QCOMPARE(replots.count(), shown + 1);
    // Hidden again, no replot until shown.
    page.hide();
    chart->clear();
    QTest::qWait(50);
    QCOMPARE(replots.count(), shown + 1);
    page.show();
    QTRY_VERIFY(replots.count() > shown + 1);
}

void TestCharts::liveChartShowsAPhaseUntilStepsArrive()
{
    LiveStepChart chart;
    chart.beginRun("compiled");
    QVERIFY(chart.phaseText().isEmpty());
    chart.setPhase("compiling 0:42", "torch.compile is building the first step");
    QVERIFY(chart.phaseNote()->visible());
    QVERIFY(chart.phaseText().startsWith("compiling 0:42"));
    chart.setPhase("compiling 0:44", {});
    QCOMPARE(chart.phaseText(), QString("compiling 0:44"));
    chart.appendSteps(1, {41750.0});
    QVERIFY(chart.phaseText().isEmpty()); // the first step ends the wait
    chart.setPhase("capturing 0:01", {});
    chart.beginRun("next");
    QVERIFY(chart.phaseText().isEmpty());
}

// Issue 35.1: the bar of a knob the recommendation judged "costs only" says its first-step price
// and to drop it; the other bars say nothing of the kind.
void TestCharts::waterfallMarksAKnobOfThePickThatOnlyCosts()
{
    LedgerModel model;
    report::Ledger ledger = sampleLedger();
    for (auto &r : ledger.rows)
        r.configName = "native cuda b32 224px c1000 " + r.label;
    report::KnobWorth costs;
    costs.knob = "cudnn-benchmark";
    costs.verdict = report::KnobWorth::Verdict::CostsOnly;
    costs.with = 2;
    costs.without = 1;
    costs.firstDeltaMs = 10950;
    ledger.recommendedWorth = {costs};
    model.setLedger(ledger);
    WaterfallChart chart;
    chart.setModel(&model);
    QCOMPARE(chart.steps()[2].row, 2);
    QCOMPARE(chart.steps()[2].parentRow, 1);
    QVERIFY2(chart.label(2)->text().endsWith(QStringLiteral("first step +10.95 s: drop it")),
             qPrintable(chart.label(2)->text()));
    for (int i : {0, 1, 3})
        QVERIFY2(!chart.label(i)->text().contains(QStringLiteral("drop it")), qPrintable(chart.label(i)->text()));
}

void TestCharts::waterfallStepsFromConfigurationToConfiguration()
{
    LedgerModel model;
    report::Ledger ledger = sampleLedger();
    // Canonical names: the waterfall finds each row's parent by them.
    for (auto &r : ledger.rows)
        r.configName = "native cuda b32 224px c1000 " + r.label;
    // A process-level interval on the tf32 row: its level gets a whisker.
    stats::MedianCI ci;
    ci.median = 17.6;
    ci.low = 17.1;
    ci.high = 18.3;
    ci.hasInterval = true;
    ci.processes = 3;
    ledger.rows[1].steadyCI = ci;
    model.setLedger(ledger);
    WaterfallChart chart;
    chart.setModel(&model);

    QCOMPARE(chart.barCount(), rowsWithSteadyState(ledger));
    const QVector<double> to{21.4, 17.6, 11.1, 9.1, 8.2};
    const QVector<bool> change{false, true, true, true, true};
    const QVector<double> delta{21.4, -3.8, -6.5, -2.0, -0.9};
    const QVector<int> parent{-1, 0, 1, 2, 4};
    for (int i = 0; i < chart.barCount(); ++i) {
        const auto &step = chart.steps()[i];
        QCOMPARE(step.toMs, to[i]);
        QCOMPARE(step.hasFrom, change[i]);
        QCOMPARE(step.parentRow, parent[i]);
        QVERIFY2(std::abs(step.deltaMs() - delta[i]) < 1e-9, qPrintable(QString::number(step.deltaMs())));
        // Each bar floats between the previous figure and its own.
        const QCPBars *bar = chart.bar(i);
        QVERIFY(bar);
        QCOMPARE(bar->baseValue(), std::min(step.fromMs, step.toMs));
        QVERIFY(std::abs(bar->data()->constBegin()->value - std::abs(step.deltaMs())) < 1e-9);
        // Bars stand at their ledger row, so a gap shows where the missing row is.
        QCOMPARE(bar->data()->constBegin()->key, double(step.row));
    }
    // The failed row 3 (max-autotune) is a gap, not a zero; bf16 after it adds one knob to
    // tf32+cudnn-benchmark, so it branches from there (11.1 -> 9.1 ms), named, with a line from there at 11.1.
    QCOMPARE(chart.steps()[3].row, 4);
    QCOMPARE(chart.gapRows(), QVector<int>({3, 6}));
    QVERIFY(chart.steps()[3].branch);
    QVERIFY(!chart.steps()[4].branch);
    QCOMPARE(chart.steps()[3].label, QStringLiteral("+bf16"));
    QCOMPARE(chart.bar(3)->brush().color(), chartColors(chart.palette()).faster);
    QVERIFY2(chart.label(3)->text().startsWith(QStringLiteral("from tf32+cudnn-benchmark\n")),
             qPrintable(chart.label(3)->text()));
    QVERIFY(chart.branchStub(3));
    QCOMPARE(chart.branchStub(3)->start->coords().y(), 11.1);
    QVERIFY(chart.branchStub(3)->start->coords().x() < 2.5); // from the parent's bar, over the gap
    QVERIFY(!chart.branchStub(4));
    QVERIFY(!chart.label(4)->text().startsWith(QStringLiteral("from")));
    // The CI whisker spans the interval; rows without one have none.
    QVERIFY(chart.whisker(1));
    QCOMPARE(chart.whisker(1)->start->coords().y(), 17.1);
    QCOMPARE(chart.whisker(1)->end->coords().y(), 18.3);
    QVERIFY(!chart.whisker(2));
}

// The H200 compile ledger at batch 32 (docs/results/h200-compile-b32.sqlite): six native knobs in a
// chain, then Python eager with the knobs of the fourth, then two compile modes of that Python row.
report::Ledger compileLedger()
{
    const std::pair<const char *, double> figures[] = {
        {"native cuda b32 224px c1000 baseline", 14.21},
        {"native cuda b32 224px c1000 tf32", 7.54},
        {"native cuda b32 224px c1000 tf32+cudnn-bench", 7.65},
        {"native cuda b32 224px c1000 tf32+cudnn-bench+bf16", 6.79},
        {"native cuda b32 224px c1000 tf32+cudnn-bench+bf16+channels-last", 5.80},
        {"native cuda b32 224px c1000 tf32+cudnn-bench+bf16+channels-last+cuda-graph", 3.59},
        {"native cuda b32 224px c1000 tf32+cudnn-bench+bf16+channels-last+cuda-graph+sgd-fused", 3.59},
        {"python cuda b32 224px c1000 tf32+cudnn-bench+bf16+channels-last", 6.75},
        {"python cuda b32 224px c1000 tf32+cudnn-bench+bf16+channels-last+compile-default", 7.99},
        {"python cuda b32 224px c1000 tf32+cudnn-bench+bf16+channels-last+compile-reduce-overhead", 2.83},
        {"python cuda b32 224px c1000 tf32+cudnn-bench+bf16+channels-last+compile-reduce-overhead+warm-cache", 2.82},
    };
    report::Ledger ledger;
    for (const auto &[name, steadyMs] : figures) {
        const std::string configName = name;
        const std::string knobs = configName.substr(configName.rfind(' ') + 1);
        const bool python = configName.rfind("python", 0) == 0;
        report::LedgerRow r = test::rowOfProcesses(python ? "python " + knobs : knobs, 1.0, steadyMs, 3);
        r.configName = configName;
        ledger.rows.push_back(r);
    }
    return ledger;
}

void TestCharts::waterfallBranchesWhereARowChangesAnEarlierOne()
{
    report::Ledger ledger = compileLedger();
    ledger.waterfall = report::waterfallOf(ledger.rows); // as buildLedger computes it
    LedgerModel model;
    model.setLedger(ledger);
    WaterfallChart chart;
    chart.setModel(&model);
    QCOMPARE(chart.barCount(), 11);
    // Python eager stands on the native row with its knobs (5.80 ms), not on fused SGD (3.59 ms):
    // +0.95 ms for the runtime, not +3.16. Reduce-overhead stands on Python eager (6.75 ms), not on
    // compile-default, which it replaces: -3.92 ms, not -5.16.
    const QVector<int> parent{-1, 0, 1, 2, 3, 4, 5, 4, 7, 7, 9};
    const QVector<bool> branch{false, false, false, false, false, false, false, true, false, true, false};
    const QStringList label{QStringLiteral("baseline"),         QStringLiteral("+tf32"),
                            QStringLiteral("+cudnn-bench"),     QStringLiteral("+bf16"),
                            QStringLiteral("+channels-last"),   QStringLiteral("+cuda-graph"),
                            QStringLiteral("+sgd-fused"),       QStringLiteral("native -> python"),
                            QStringLiteral("+compile-default"), QStringLiteral("+compile-reduce-overhead"),
                            QStringLiteral("+warm-cache")};
    for (int i = 0; i < chart.barCount(); ++i) {
        const auto &step = chart.steps()[i];
        QCOMPARE(step.parentRow, parent[i]);
        QCOMPARE(step.branch, branch[i]);
        QCOMPARE(step.label, label[i]);
        QCOMPARE(bool(chart.branchStub(i)), branch[i]);
        QCOMPARE(chart.label(i)->text().startsWith(QStringLiteral("from ")), branch[i]);
    }
    QVERIFY(std::abs(chart.steps()[7].deltaMs() - (6.75 - 5.80)) < 1e-9);
    QCOMPARE(chart.steps()[7].fromMs, 5.80);
    QVERIFY(std::abs(chart.steps()[9].deltaMs() - (2.83 - 6.75)) < 1e-9);
    QCOMPARE(chart.bar(9)->baseValue(), 2.83);
    QVERIFY2(chart.label(9)->text().startsWith(QStringLiteral("from python tf32+\u2026+channels-last\n")),
             qPrintable(chart.label(9)->text()));
    // Three processes a side: a 0.02 ms change of warm-cache is within noise; reduce-overhead's is not.
    QVERIFY(chart.steps()[9].significant);
    QVERIFY(!chart.steps()[10].significant);
    QVERIFY2(chart.label(10)->text().contains(QStringLiteral("n.s.")), qPrintable(chart.label(10)->text()));

    // A row whose parent has no steady state stands on the axis: warm-cache after a reduce-overhead
    // row that never settled is a level of its own, not a change from compile-default.
    ledger.rows[9].steadyMs.reset();
    ledger.waterfall = report::waterfallOf(ledger.rows);
    model.setLedger(ledger);
    QCOMPARE(chart.gapRows(), QVector<int>({9}));
    const auto &warm = chart.steps().back();
    QCOMPARE(warm.parentRow, 9);
    QVERIFY(!warm.hasFrom);
    QCOMPARE(chart.bar(chart.barCount() - 1)->baseValue(), 0.0);
}

void TestCharts::waterfallColoursRegressions()
{
    report::Ledger ledger;
    ledger.rows.push_back(row("baseline", 0.5, 10.0));
    ledger.rows.push_back(row("tf32", 0.5, 8.0));      // faster
    ledger.rows.push_back(row("tf32+bf16", 0.5, 9.0)); // slower
    for (auto &r : ledger.rows)
        r.configName = "native cuda b32 224px c1000 " + r.label;
    LedgerModel model;
    model.setLedger(ledger);
    WaterfallChart chart;
    chart.setModel(&model);
    QCOMPARE(chart.barCount(), 3);
    const ChartColors colors = chartColors(chart.palette());
    QCOMPARE(chart.bar(1)->brush().color(), colors.faster);
    QCOMPARE(chart.bar(2)->brush().color(), colors.slower);
    QVERIFY(chart.steps()[2].deltaMs() > 0);
}

// The box a label covers on screen, rotated or not: the bounds of its four corners.
QRectF labelBox(const QCPItemText *label)
{
    QPointF low = label->topLeft->pixelPosition(), high = low;
    for (const QCPItemAnchor *corner : {label->topRight, label->bottomLeft, label->bottomRight}) {
        const QPointF at = corner->pixelPosition();
        low = QPointF(std::min(low.x(), at.x()), std::min(low.y(), at.y()));
        high = QPointF(std::max(high.x(), at.x()), std::max(high.y(), at.y()));
    }
    return QRectF(low, high);
}

void TestCharts::waterfallLabelsStayApartInAReport()
{
    // Fourteen configurations a little faster each: side by side, neighbouring labels at about the
    // same height would cover each other in a report's 760 px (slots of 47 px, labels of 52).
    report::Ledger ledger;
    double ms = 21.4;
    std::string knobs = "baseline";
    for (int i = 0; i < 14; ++i, ms *= 0.98) {
        // A chain: each row adds one knob to the one before, so each label is a change and a level.
        ledger.rows.push_back(row(i == 0 ? "baseline" : "knob", 0.5, ms));
        knobs = i == 0 ? knobs : i == 1 ? "k1" : knobs + "+k" + std::to_string(i);
        ledger.rows.back().configName = "native cuda b32 224px c1000 " + knobs;
    }
    LedgerModel model;
    model.setLedger(ledger);
    WaterfallChart chart;
    chart.setModel(&model);
    QCOMPARE(chart.barCount(), 14);
    QVERIFY(!renderChart(chart.plot(), kReportChartSize).isNull());
    const QRectF plotArea = chart.plot()->axisRect()->rect();
    QVector<QRectF> boxes;
    for (int i = 0; i < chart.barCount(); ++i) {
        QCOMPARE(chart.label(i)->rotation(), -90.0); // upright: the slots are narrower than the labels
        boxes.append(labelBox(chart.label(i)));
        QVERIFY2(plotArea.contains(boxes.last()), qPrintable(QStringLiteral("label %1 leaves the plot").arg(i)));
    }
    QVERIFY(!anyOverlap(boxes));
    QCOMPARE(chart.steps().back().parentRow, 12);
    // Each label still stands above its own bar.
    for (int i = 0; i < chart.barCount(); ++i)
        QVERIFY(boxes[i].bottom() <= chart.plot()->yAxis->coordToPixel(chart.steps()[i].toMs) + 1);

    // Three bars in a wide picture: room enough to read them side by side, on the usual headroom.
    report::Ledger few;
    for (int i = 0; i < 3; ++i)
        few.rows.push_back(row(i == 0 ? "baseline" : "knob", 0.5, 21.4 - i));
    model.setLedger(few);
    QVERIFY(!renderChart(chart.plot(), QSize(1400, 500)).isNull());
    QCOMPARE(chart.label(0)->rotation(), 0.0);
    QCOMPARE(chart.plot()->yAxis->range().upper, 21.4 * 1.2);
}

void TestCharts::firstVsSteadyIsAScatterOnHonestAxes()
{
    LedgerModel model;
    const report::Ledger ledger = sampleLedger();
    model.setLedger(ledger);
    FirstVsSteadyChart chart;
    chart.resize(900, 520);
    chart.show(); // lays the plot out at the widget's size
    chart.setModel(&model);
    chart.plot()->replot(QCustomPlot::rpImmediateRefresh);

    QCOMPARE(chart.firstStepAxis(), chart.plot()->xAxis);
    QCOMPARE(chart.firstStepAxis()->scaleType(), QCPAxis::stLogarithmic);
    QCOMPARE(chart.steadyAxis()->scaleType(), QCPAxis::stLinear);
    QCOMPARE(chart.steadyAxis()->range().lower, 0.0); // from zero: heights compare
    // One point per row with both figures; the failed and the unsettled row are named, not drawn.
    QCOMPARE(chart.points().size(), 5);
    QVERIFY(!chart.graphForRow(3));
    QVERIFY(!chart.graphForRow(6));
    QVERIFY2(chart.missingNote().contains(QStringLiteral("max-autotune (failed: compile-failed)")),
             qPrintable(chart.missingNote()));
    QVERIFY2(chart.missingNote().contains(QStringLiteral("channels-last (no steady state)")),
             qPrintable(chart.missingNote()));
    for (const auto &pt : chart.points()) {
        const auto *data = chart.graphForRow(pt.row)->data().data();
        QCOMPARE(data->size(), 1);
        QCOMPARE(data->constBegin()->key, *ledger.rows[pt.row].firstStepMs / 1000.0);
        QCOMPARE(data->constBegin()->value, *ledger.rows[pt.row].steadyMs);
    }

    // The case: a 14 ms steady step against a 516 ms one. The slower step sits higher,
    // whatever the first steps; the longer first step sits further right.
    report::Ledger two;
    two.rows.push_back(row("baseline", 0.516, 14.12));
    two.rows.push_back(row("slow", 2.34, 516.0));
    model.setLedger(two);
    chart.plot()->replot(QCustomPlot::rpImmediateRefresh);
    const QCPAxis *x = chart.firstStepAxis();
    const QCPAxis *y = chart.steadyAxis();
    QVERIFY(y->coordToPixel(14.12) > y->coordToPixel(516.0)); // pixels grow downwards
    QVERIFY(x->coordToPixel(0.516) < x->coordToPixel(2.34));
    QVERIFY(y->range().upper >= 516.0);
    QVERIFY(x->range().contains(0.516) && x->range().contains(2.34));
}

// The hover over a point gives what the axes leave out: the full label and the peak memory.
void TestCharts::firstVsSteadyHoverNamesTheRowAndItsMemory()
{
    report::Ledger ledger;
    ledger.rows.push_back(row("baseline", 0.5, 10.0));
    ledger.rows.push_back(row("tf32+bf16", 2.0, 5.0));
    ledger.rows[0].memory.allocated = report::MemorySpread{1000, 990, 1010};
    ledger.rows[0].memory.processes = 3;
    ledger.rows[1].memory.allocated = report::MemorySpread{620, 600, 640};
    ledger.rows[1].memory.processes = 3;
    ledger.rows[1].memoryRatio = 0.62;
    LedgerModel model;
    model.setLedger(ledger);
    FirstVsSteadyChart chart;
    chart.resize(900, 520);
    chart.show();
    chart.setModel(&model);
    chart.plot()->replot(QCustomPlot::rpImmediateRefresh);
    const QCPAxis *x = chart.firstStepAxis(), *y = chart.steadyAxis();
    const QPointF at(x->coordToPixel(2.0) + 3, y->coordToPixel(5.0) - 2);
    const QString tip = chart.toolTipAt(at);
    QVERIFY2(tip.startsWith(QStringLiteral("tf32+bf16\nfirst step 2.00 s, steady step 5.00 ms\n")), qPrintable(tip));
    QVERIFY2(tip.contains(QStringLiteral("Peak allocated 620 MiB (processes 600-640 MiB), n=3; 0.62x the baseline's "
                                         "memory")),
             qPrintable(tip));
    QVERIFY(
        chart.toolTipAt(QPointF(x->coordToPixel(0.5), y->coordToPixel(10.0))).startsWith(QStringLiteral("baseline")));
    QVERIFY(chart.toolTipAt(QPointF(-10, -10)).isEmpty());
}

void TestCharts::firstVsSteadyDrawsTheParetoFront()
{
    const report::Ledger ledger = sampleLedger();
    // tf32 beats the baseline on both; bf16 beats cudnn-benchmark on both; bf16 and the CUDA graph
    // trade a longer first step for a faster step.
    QCOMPARE(paretoFrontRows(ledger.rows), QVector<int>({1, 4, 5}));
    LedgerModel model;
    model.setLedger(ledger);
    FirstVsSteadyChart chart;
    chart.setModel(&model);
    QCOMPARE(chart.frontRows(), QVector<int>({1, 4, 5})); // by first step: 0.49, 2.04, 2.27 s
    for (const auto &pt : chart.points())
        QCOMPARE(pt.onFront, chart.frontRows().contains(pt.row));
    QVERIFY(chart.frontLine());
    QCOMPARE(chart.frontLine()->lineStyle(), QCPGraph::lsStepLeft);
    const auto *line = chart.frontLine()->data().data();
    QCOMPARE(line->size(), 4); // the three rows and the run-out to the right edge
    QCOMPARE(line->constBegin()->key, 0.49);
    QCOMPARE((line->constEnd() - 1)->value, 8.2);
    QVERIFY((line->constEnd() - 1)->key >= chart.firstStepAxis()->range().upper);

    // A configuration that broke training is drawn hollow and is never on the front.
    report::Ledger diverged = ledger;
    diverged.rows[5].accuracy.verdict = report::LedgerRow::Accuracy::Verdict::Diverged;
    diverged.rows[5].accuracy.finite = false;
    QCOMPARE(paretoFrontRows(diverged.rows), QVector<int>({1, 4}));
    model.setLedger(diverged);
    QCOMPARE(chart.frontRows(), QVector<int>({1, 4}));
    QVERIFY(chart.graphForRow(5));
    QCOMPARE(chart.graphForRow(5)->scatterStyle().brush().style(), Qt::NoBrush);
    // Ties stand together: equal on both counts, neither beats the other.
    report::Ledger tie;
    tie.rows.push_back(row("a", 1.0, 10.0));
    tie.rows.push_back(row("b", 1.0, 10.0));
    tie.rows.push_back(row("c", 2.0, 12.0));
    QCOMPARE(paretoFrontRows(tie.rows), QVector<int>({0, 1}));
}

void TestCharts::firstVsSteadyHasWhiskersAndLabelsThatDoNotOverlap()
{
    LedgerModel model;
    const report::Ledger ledger = h200Ledger();
    model.setLedger(ledger);
    FirstVsSteadyChart chart;
    chart.setModel(&model);
    // Whiskers across processes in both directions, at the lowest and highest process.
    const QCPErrorBars *bf16First = chart.firstStepWhiskers(3);
    const QCPErrorBars *bf16Steady = chart.steadyWhiskers(3);
    QVERIFY(bf16First && bf16Steady);
    QCOMPARE(bf16First->errorType(), QCPErrorBars::etKeyError);
    QCOMPARE(bf16Steady->errorType(), QCPErrorBars::etValueError);
    QVERIFY(std::abs(bf16First->data()->at(0).errorMinus - (2.04 - 1.98)) < 1e-9);
    QVERIFY(std::abs(bf16First->data()->at(0).errorPlus - (2.19 - 2.04)) < 1e-9);
    QVERIFY(std::abs(bf16Steady->data()->at(0).errorPlus - (9.54 - 7.37)) < 1e-9);
    // One process: no whisker.
    report::Ledger single = ledger;
    single.rows[2].firstStepMinMs = single.rows[2].firstStepMaxMs = single.rows[2].firstStepMs;
    single.rows[2].steadyMinMs = single.rows[2].steadyMaxMs = single.rows[2].steadyMs;
    model.setLedger(single);
    QVERIFY(!chart.firstStepWhiskers(2));
    QVERIFY(!chart.steadyWhiskers(2));
    model.setLedger(ledger);

    // The baseline is marked: a larger symbol of its own shape.
    QCOMPARE(chart.graphForRow(0)->scatterStyle().shape(), QCPScatterStyle::ssDiamond);
    QVERIFY(chart.points().front().baseline);

    chart.show();
    for (const QSize size : {QSize(900, 520), QSize(640, 400)}) {
        chart.resize(size);
        chart.layout()->activate(); // the plot takes the new size now, not at the next event loop
        chart.plot()->replot(QCustomPlot::rpImmediateRefresh);
        const QVector<QRectF> rects = chart.labelRects();
        QCOMPARE(rects.size(), 7);
        QVERIFY2(!anyOverlap(rects), qPrintable(QStringLiteral("labels overlap at %1 px").arg(size.width())));
        const QRectF area = chart.plot()->axisRect()->rect();
        for (const QRectF &r : rects)
            QVERIFY2(area.contains(r), "a label leaves the plot");
        // No label covers a point.
        for (const auto &pt : chart.points()) {
            const QPointF at(chart.firstStepAxis()->coordToPixel(pt.firstS),
                             chart.steadyAxis()->coordToPixel(pt.steadyMs));
            for (const QRectF &r : rects)
                QVERIFY(!r.contains(at));
        }
    }
    // The same holds for the picture a report gets (laid out at the export size, not the widget's).
    const QImage image = renderChart(chart.plot(), QSize(900, 480));
    QVERIFY(!image.isNull());
    chart.plot()->replot(QCustomPlot::rpImmediateRefresh);
    QVERIFY(!anyOverlap(chart.labelRects()));
}

void TestCharts::labelPlacementAvoidsEveryTakenPlace()
{
    // Six labels for one spot and a marker on it: each finds a free place, none inside the marker.
    const QRectF bounds(0, 0, 400, 300);
    const QPointF spot(200, 150);
    const QVector<QRectF> markers{QRectF(195, 145, 10, 10)};
    QVector<LabelRequest> labels(6, LabelRequest{spot, QSizeF(70, 16)});
    const QVector<LabelPlacement> placed = placeLabels(labels, markers, bounds);
    QCOMPARE(placed.size(), 6);
    QVector<QRectF> rects;
    for (const auto &p : placed) {
        QVERIFY(!p.overlaps);
        QVERIFY(bounds.contains(p.rect));
        QVERIFY(!p.rect.intersects(markers.front()));
        rects.append(p.rect);
    }
    QVERIFY(!anyOverlap(rects));
    // The first goes right of its anchor, the default place.
    QCOMPARE(placed[0].rect.left(), spot.x() + 6);
    // At the right edge the label turns to the left instead of leaving the bounds.
    const auto edge = placeLabels({LabelRequest{QPointF(395, 100), QSizeF(70, 16)}}, {}, bounds);
    QVERIFY(edge[0].rect.right() <= 395);
}

void TestCharts::chartsFollowModelReset()
{
    LedgerModel model;
    model.setLedger(sampleLedger());
    WaterfallChart waterfall;
    BreakEvenChart breakEven;
    waterfall.setModel(&model);
    breakEven.setModel(&model);
    QVERIFY(waterfall.barCount() > 0);
    model.clear();
    QCOMPARE(waterfall.barCount(), 0);
    QCOMPARE(breakEven.plot()->graphCount(), 0);
    model.setLedger(sampleLedger());
    QCOMPARE(waterfall.barCount(), 5);
}

void TestCharts::chartsFollowThePalette()
{
    WaterfallChart chart;
    QPalette dark = chart.palette();
    dark.setColor(QPalette::Base, QColor(30, 30, 30));
    dark.setColor(QPalette::Window, QColor(40, 40, 40));
    dark.setColor(QPalette::WindowText, QColor(230, 230, 230));
    chart.setPalette(dark);
    QCOMPARE(chart.plot()->xAxis->tickLabelColor(), QColor(230, 230, 230));
    QCOMPARE(chart.plot()->yAxis->labelColor(), QColor(230, 230, 230));
    QVERIFY(chartColors(chart.palette()).dark);
}

void TestCharts::saveChartWritesEachFormat()
{
    LedgerModel model;
    model.setLedger(sampleLedger());
    BreakEvenChart chart;
    chart.setModel(&model);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());

    QString error;
    const QString png = dir.filePath(QStringLiteral("break-even.png"));
    QVERIFY2(saveChart(chart.plot(), png, &error, 800, 500), qPrintable(error));
    const QImage image(png);
    QCOMPARE(image.size(), QSize(800, 500));

    const QString svg = dir.filePath(QStringLiteral("break-even.SVG"));
    QVERIFY2(saveChart(chart.plot(), svg, &error), qPrintable(error));
    QFile svgFile(svg);
    QVERIFY(svgFile.open(QIODevice::ReadOnly));
    QVERIFY(svgFile.readAll().contains("<svg"));

    const QString pdf = dir.filePath(QStringLiteral("break-even.pdf"));
    QVERIFY2(saveChart(chart.plot(), pdf, &error, 640, 400), qPrintable(error));
    QFile pdfFile(pdf);
    QVERIFY(pdfFile.open(QIODevice::ReadOnly));
    const QByteArray bytes = pdfFile.readAll();
    QVERIFY(bytes.size() > 1000);
    QVERIFY(bytes.startsWith("%PDF"));
}

void TestCharts::saveChartRefusesUnknownSuffixAndUnwritablePath()
{
    LiveStepChart chart;
    QTemporaryDir dir;
    QString error;
    const QString xyz = dir.filePath(QStringLiteral("chart.xyz"));
    QVERIFY(!saveChart(chart.plot(), xyz, &error));
    QVERIFY2(error.contains(QStringLiteral(".xyz")), qPrintable(error));
    QVERIFY(!QFile::exists(xyz));

    error.clear();
    QVERIFY(!saveChart(chart.plot(), dir.filePath(QStringLiteral("missing/folder/chart.png")), &error));
    QVERIFY2(!error.isEmpty(), "a write failure says why");
}

void TestCharts::renderChartHasTheAskedSize()
{
    LedgerModel model;
    model.setLedger(sampleLedger());
    FirstVsSteadyChart chart;
    chart.setModel(&model);
    const QImage image = renderChart(chart.plot(), QSize(640, 360));
    QCOMPARE(image.size(), QSize(640, 360));
    // Something was drawn: not every pixel is the background.
    const QRgb corner = image.pixel(0, 0);
    bool drawn = false;
    for (int y = 0; y < image.height() && !drawn; y += 4)
        for (int x = 0; x < image.width() && !drawn; x += 4)
            drawn = image.pixel(x, y) != corner;
    QVERIFY(drawn);
}

QTEST_MAIN(TestCharts)
#include "test_charts.moc"
