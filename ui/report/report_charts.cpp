#include "report/report_charts.h"

#include "charts/break_even_chart.h"
#include "charts/chart_export.h"
#include "charts/first_vs_steady_chart.h"
#include "charts/waterfall_chart.h"
#include "models/ledger_model.h"

#include <QCoreApplication>

namespace stepscope::ui
{

QList<QPair<QString, QImage>> renderReportCharts(const report::Ledger &ledger, QSize size, qreal scale)
{
    const auto tr = [](const char *text) { return QCoreApplication::translate("Report", text); };
    LedgerModel model;
    model.setLedger(ledger);
    FirstVsSteadyChart firstVsSteady;
    BreakEvenChart breakEven;
    WaterfallChart waterfall;
    QList<QPair<QString, QImage>> charts;
    const QList<QPair<QString, LedgerChart *>> all{{tr("First step vs steady state"), &firstVsSteady},
                                                   {tr("Break-even"), &breakEven},
                                                   {tr("Waterfall of the cumulative ledger"), &waterfall}};
    for (const auto &[title, chart] : all) {
        chart->setModel(&model);
        charts.append({title, renderChart(chart->plot(), size, scale)});
    }
    return charts;
}

} // namespace stepscope::ui
