#pragma once
// The charts a report carries, drawn from its ledger by the dashboard's own chart classes, off
// screen: first step vs steady, break-even and the waterfall. The export builds them from the
// ledger it reports, so the report shows exactly its figures whatever the screen shows.
// Widgets: call on the GUI thread.
#include "report/ledger.h"

#include <QImage>
#include <QList>
#include <QPair>
#include <QSize>
#include <QString>

#include <functional>

class QObject;

namespace stepscope::ui
{

// Sized for the text column of a portrait A4 page (the PDF) and a browser's reading width (the
// HTML); drawn at twice the pixels so they stay sharp in print.
inline constexpr QSize kReportChartSize{760, 440};

using ReportCharts = QList<QPair<QString, QImage>>;

ReportCharts renderReportCharts(const report::Ledger &ledger, QSize size = kReportChartSize, qreal scale = 2.0);

// The same charts, one per turn of the event loop: at print resolution each takes tens of
// milliseconds of the UI thread, all three at once more than a frame should wait. `done` gets them
// on the UI thread, unless `context` is gone first.
void renderReportChartsPaced(QObject *context, const report::Ledger &ledger, std::function<void(ReportCharts)> done,
                             QSize size = kReportChartSize, qreal scale = 2.0);

} // namespace stepscope::ui
