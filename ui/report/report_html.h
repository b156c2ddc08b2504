#pragma once
// The one HTML body behind both the HTML file and the PDF: they differ only in how a chart image
// is referenced, because QTextDocument does not load data: URIs.
#include "report/report_writer.h"

namespace stepscope::ui
{

enum class ChartImages {
    DataUri,  // <img src="data:image/png;base64,...">: a browser needs nothing else
    Resource, // <img src="chart-N.png">: registered with QTextDocument::addResource
};

QString reportHtml(const ReportInput &input, ChartImages images);
QString chartResourceName(int index);
// The environment record to report: the input's, else the ledger's own.
QString reportEnvironmentJson(const ReportInput &input);

} // namespace stepscope::ui
