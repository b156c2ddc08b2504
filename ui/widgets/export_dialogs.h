#pragma once
// File › Export sweep report and File › Export current chart: the file dialogs in front of the
// exports, and the message boxes for an export refused at once or failed later.
class QWidget;

namespace stepscope::ui
{

class Page;
class ReportExport;

void exportSweepReport(QWidget *parent, ReportExport *exporter);
// The chart of `page` (none: says to switch to a chart tab); never over the open database's files.
void exportPageChart(QWidget *parent, Page *page, const ReportExport *exporter);

} // namespace stepscope::ui
