#include "widgets/screenshots.h"

#include "pages/ledger_page.h"
#include "parts/run_detail_dialog.h"

#include <QApplication>
#include <QDir>
#include <QTabWidget>
#include <QTableView>

#include <memory>

#include "charts/qcustomplot_compat.h"

namespace stepscope::ui
{
namespace
{

bool grabInto(QWidget *widget, const QString &path, QString *error)
{
    if (widget->grab().save(path))
        return true;
    if (error)
        *error = QApplication::translate("MainWindow", "Cannot write %1").arg(path);
    return false;
}

} // namespace

bool saveScreenshots(QWidget *window, QTabWidget *tabs, LedgerPage *ledger, const QString &dir, QString *error)
{
    if (!QDir().mkpath(dir)) {
        if (error)
            *error = QApplication::translate("MainWindow", "Cannot create %1").arg(dir);
        return false;
    }
    for (int i = 0; i < tabs->count(); ++i) {
        auto *page = qobject_cast<Page *>(tabs->widget(i));
        if (!page)
            continue;
        tabs->setCurrentWidget(page);
        QApplication::processEvents();
        if (QCustomPlot *plot = page->chart())
            plot->replot(QCustomPlot::rpImmediateRefresh);
        if (!grabInto(window, QDir(dir).filePath(QString("stepscope-%1.png").arg(page->key())), error))
            return false;
    }
    // The run detail as a double-click shows it: the first compiled configuration that ran, and
    // the first that failed (a compile that fell back to eager among them).
    bool shotCompiled = false, shotFailed = false;
    const int rows = ledger->view()->model()->rowCount();
    for (int row = 0; row < rows && !(shotCompiled && shotFailed); ++row) {
        std::unique_ptr<RunDetailDialog> dialog{ledger->rowDetailDialog(row)};
        if (!dialog)
            continue;
        const bool failed = dialog->currentRun().status != RunStatus::Complete;
        if ((failed && shotFailed) || (!failed && shotCompiled))
            continue;
        (failed ? shotFailed : shotCompiled) = true;
        dialog->show();
        QApplication::processEvents();
        const QString name =
            failed ? QStringLiteral("stepscope-run-detail-failed.png") : QStringLiteral("stepscope-run-detail.png");
        if (!grabInto(dialog.get(), QDir(dir).filePath(name), error))
            return false;
    }
    return true;
}

} // namespace stepscope::ui
