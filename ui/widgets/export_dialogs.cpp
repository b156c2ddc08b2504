#include "widgets/export_dialogs.h"

#include "charts/chart_export.h"
#include "pages/compare_page.h"
#include "pages/page.h"
#include "presenters/report_export.h"

#include <QDir>
#include <QFileDialog>
#include <QMessageBox>

#include "charts/qcustomplot_compat.h"

namespace stepscope::ui
{
namespace
{

QString tr(const char *text)
{
    return QCoreApplication::translate("MainWindow", text);
}

} // namespace

void exportSweepReport(QWidget *parent, ReportExport *exporter)
{
    QString filter;
    QString path = QFileDialog::getSaveFileName(
        parent, tr("Export sweep report"), QDir::homePath() + "/stepscope-report.html",
        tr("HTML report (*.html);;PDF (*.pdf);;Markdown (*.md);;CSV table (*.csv)"), &filter);
    if (path.isEmpty())
        return;
    path = ComparePage::withSuffix(path, filter); // "report" typed with PDF chosen is report.pdf
    QString error;
    if (!exporter->write(path, &error)) {
        QMessageBox::warning(parent, tr("Export report"), error);
        return;
    }
    QObject::connect(
        exporter, &ReportExport::failed, parent,
        [parent](const QString &failure) { QMessageBox::warning(parent, tr("Export report"), failure); },
        Qt::SingleShotConnection);
}

void exportPageChart(QWidget *parent, Page *page, const ReportExport *exporter)
{
    QCustomPlot *plot = page ? page->chart() : nullptr;
    if (!plot) {
        QMessageBox::information(parent, tr("Export chart"), tr("Switch to a chart tab first."));
        return;
    }
    const QString path = QFileDialog::getSaveFileName(parent, tr("Export chart"),
                                                      QDir::homePath() + "/stepscope-" + page->key() + ".png",
                                                      tr("PNG (*.png);;SVG (*.svg);;PDF (*.pdf)"));
    if (path.isEmpty())
        return;
    QString error = exporter->refusedTarget(path);
    if (!error.isEmpty() || !saveChart(plot, path, &error))
        QMessageBox::warning(parent, tr("Export chart"), error);
}

} // namespace stepscope::ui
