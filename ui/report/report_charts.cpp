#include "report/report_charts.h"

#include "charts/break_even_chart.h"
#include "charts/chart_export.h"
#include "charts/first_vs_steady_chart.h"
#include "charts/waterfall_chart.h"
#include "models/ledger_model.h"

#include <QCoreApplication>
#include <QTimer>

#include <memory>

namespace stepscope::ui
{
namespace
{

constexpr int kChartCount = 3;

// The report's chart number `index`, drawn from `model`, with its title.
QPair<QString, QImage> renderChartOf(int index, LedgerModel &model, QSize size, qreal scale)
{
    const auto tr = [](const char *text) { return QCoreApplication::translate("Report", text); };
    std::unique_ptr<LedgerChart> chart;
    QString title;
    switch (index) {
    case 0:
        chart = std::make_unique<FirstVsSteadyChart>();
        title = tr("First step vs steady state");
        break;
    case 1:
        chart = std::make_unique<BreakEvenChart>();
        title = tr("Break-even");
        break;
    default:
        chart = std::make_unique<WaterfallChart>();
        title = tr("Waterfall of the cumulative ledger");
        break;
    }
    chart->setModel(&model);
    return {title, renderChart(chart->plot(), size, scale)};
}

} // namespace

ReportCharts renderReportCharts(const report::Ledger &ledger, QSize size, qreal scale)
{
    LedgerModel model;
    model.setLedger(ledger);
    ReportCharts charts;
    for (int index = 0; index < kChartCount; ++index)
        charts.append(renderChartOf(index, model, size, scale));
    return charts;
}

void renderReportChartsPaced(QObject *context, const report::Ledger &ledger, std::function<void(ReportCharts)> done,
                             QSize size, qreal scale)
{
    struct Drawing {
        LedgerModel model;
        ReportCharts charts;
    };
    auto drawing = std::make_shared<Drawing>();
    drawing->model.setLedger(ledger);
    auto step = std::make_shared<std::function<void()>>();
    *step = [context, drawing, done = std::move(done), step, size, scale] {
        drawing->charts.append(renderChartOf(static_cast<int>(drawing->charts.size()), drawing->model, size, scale));
        if (drawing->charts.size() < kChartCount) {
            // A timer, not a posted call: posted calls run back to back, timers let others in between.
            QTimer::singleShot(5, context, *step);
            return;
        }
        done(std::move(drawing->charts));
        *step = nullptr; // breaks the cycle of the closure holding itself
    };
    // The first chart too: a zero timer is a posted call, and would run back to back with the
    // layout and paint the export's request left queued.
    QTimer::singleShot(5, context, *step);
}

} // namespace stepscope::ui
