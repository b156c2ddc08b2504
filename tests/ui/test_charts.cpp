// Behaviour of the dashboard's charts: what they hold after the data arrives, not how they look.
#include "charts/break_even_chart.h"
#include "charts/chart_export.h"
#include "charts/chart_palette.h"
#include "charts/first_vs_steady_chart.h"
#include "charts/live_step_chart.h"
#include "charts/waterfall_chart.h"
#include "models/ledger_model.h"
#include "stats/stats.h"

#include "charts/qcustomplot_compat.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>

using namespace stepscope;
using namespace stepscope::ui;

namespace
{

report::LedgerRow row(const char *label, std::optional<double> firstS, std::optional<double> steadyMs)
{
    report::LedgerRow r;
    r.label = label;
    r.configName = std::string("resnet18 ") + label;
    r.firstStepS = firstS;
    r.steadyMs = steadyMs;
    if (steadyMs) {
        r.steadyMinMs = *steadyMs * 0.99;
        r.steadyMaxMs = *steadyMs * 1.01;
    }
    r.status = steadyMs || firstS ? "complete" : "failed";
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
    unsettled.steadyProblem = "no steady state: still drifting";
    ledger.rows.push_back(unsettled);

    const auto &base = ledger.rows[0];
    for (std::size_t i = 1; i < ledger.rows.size(); ++i) {
        auto &r = ledger.rows[i];
        if (!r.firstStepS || !r.steadyMs)
            continue;
        r.speedup = *base.steadyMs / *r.steadyMs;
        r.breakEvenSteps =
            stats::breakEvenSteps(*r.firstStepS, *r.steadyMs / 1000, *base.firstStepS, *base.steadyMs / 1000);
    }
    return ledger;
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
    void beginRunClears();
    void liveChartHoverNamesTheNearestStep();
    void breakEvenHasOneLinePerSteadyConfiguration();
    void breakEvenFollowsPlannedSteps();
    void breakEvenElidesLongNamesInTheLegend();
    void liveChartShowsAPhaseUntilStepsArrive();
    void waterfallStepsFromConfigurationToConfiguration();
    void waterfallColoursRegressions();
    void firstVsSteadyUsesALogAxisForTheFirstStep();
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
    QVector<double> batch(16);
    for (int first = 1; first <= total; first += batch.size()) {
        for (int i = 0; i < batch.size(); ++i)
            batch[i] = first + i == 1 ? 1500.0 : 8.0 + ((first + i) % 13) * 0.01;
        chart.appendSteps(first, batch.mid(0, std::min<int>(batch.size(), total - first + 1)));
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
    QCOMPARE(chart.legendToolTipAt(item->rect().center()), chart.fullName(1));
    QVERIFY(chart.legendToolTipAt(QPointF(-10, -10)).isEmpty());
    QCOMPARE(chart.graphForRow(2)->name(), QString("tf32+cudnn-benchmark"));
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

void TestCharts::waterfallStepsFromConfigurationToConfiguration()
{
    LedgerModel model;
    report::Ledger ledger = sampleLedger();
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
    const QVector<bool> change{false, true, true, false, true};
    const QVector<double> delta{21.4, -3.8, -6.5, 9.1, -0.9};
    for (int i = 0; i < chart.barCount(); ++i) {
        const auto &step = chart.steps()[i];
        QCOMPARE(step.toMs, to[i]);
        QCOMPARE(step.hasFrom, change[i]);
        QVERIFY2(std::abs(step.deltaMs() - delta[i]) < 1e-9, qPrintable(QString::number(step.deltaMs())));
        // Each bar floats between the previous figure and its own.
        const QCPBars *bar = chart.bar(i);
        QVERIFY(bar);
        QCOMPARE(bar->baseValue(), std::min(step.fromMs, step.toMs));
        QVERIFY(std::abs(bar->data()->constBegin()->value - std::abs(step.deltaMs())) < 1e-9);
        // Bars stand at their ledger row, so a gap shows where the missing row is.
        QCOMPARE(bar->data()->constBegin()->key, double(step.row));
    }
    // The failed row 3 is a gap, not a zero, and bf16 after it is a level of its own (from the
    // axis, neutral): the 11.1 -> 9.1 ms drop spans two knobs and is given to neither.
    QCOMPARE(chart.steps()[3].row, 4);
    QCOMPARE(chart.gapRows(), QVector<int>({3, 6}));
    QCOMPARE(chart.bar(3)->baseValue(), 0.0);
    QCOMPARE(chart.bar(3)->brush().color(), chartColors(chart.palette()).neutral);
    // The CI whisker spans the interval; rows without one have none.
    QVERIFY(chart.whisker(1));
    QCOMPARE(chart.whisker(1)->start->coords().y(), 17.1);
    QCOMPARE(chart.whisker(1)->end->coords().y(), 18.3);
    QVERIFY(!chart.whisker(2));
}

void TestCharts::waterfallColoursRegressions()
{
    report::Ledger ledger;
    ledger.rows.push_back(row("baseline", 0.5, 10.0));
    ledger.rows.push_back(row("faster", 0.5, 8.0));
    ledger.rows.push_back(row("slower", 0.5, 9.0));
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

void TestCharts::firstVsSteadyUsesALogAxisForTheFirstStep()
{
    LedgerModel model;
    const report::Ledger ledger = sampleLedger();
    model.setLedger(ledger);
    FirstVsSteadyChart chart;
    chart.setModel(&model);

    QCOMPARE(chart.firstStepAxis()->scaleType(), QCPAxis::stLogarithmic);
    QCOMPARE(chart.steadyAxis()->scaleType(), QCPAxis::stLinear);
    QCOMPARE(chart.firstStepBars()->valueAxis(), chart.firstStepAxis());
    QCOMPARE(chart.steadyBars()->valueAxis(), chart.steadyAxis());
    QCOMPARE(chart.steadyBars()->data()->size(), rowsWithSteadyState(ledger));
    QCOMPARE(chart.firstStepBars()->data()->size(), 6); // all but the failed row
    const QStringList labels = chart.configurationLabels();
    QCOMPARE(labels.size(), int(ledger.rows.size()));
    QCOMPARE(labels[0], QStringLiteral("baseline"));
    QVERIFY2(labels[3].startsWith(QStringLiteral("max-autotune")) &&
                 labels[3].contains(QStringLiteral("compile-failed")),
             qPrintable(labels[3]));
    QVERIFY2(labels[6].contains(QStringLiteral("no steady state")), qPrintable(labels[6]));
    // The failed row is a gap: no bar of either kind at its key.
    for (const QCPBars *bars : {chart.firstStepBars(), chart.steadyBars()})
        for (auto it = bars->data()->constBegin(); it != bars->data()->constEnd(); ++it)
            QVERIFY(std::abs(it->key - 3.0) > 0.5);
    QVERIFY(chart.firstStepAxis()->range().lower <= 0.49);
    QVERIFY(chart.firstStepAxis()->range().upper >= 2.34);
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
