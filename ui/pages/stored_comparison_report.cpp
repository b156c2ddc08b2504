#include "pages/stored_comparison_report.h"

#include "models/comparison_model.h"
#include "pages/compare_page.h"
#include "report/report_target.h"
#include "report/report_text.h"
#include "store/store.h"

#include <QCoreApplication>
#include <QDir>
#include <QEventLoop>

#include <utility>

namespace stepscope::ui
{
using report_text::tr;

bool writeStoredComparisonReport(const QString &database, const ComparisonSide &a, const ComparisonSide &b,
                                 const QString &path, QString *error)
{
    QString failure;
    const auto fail = [&](const QString &why) {
        if (error)
            *error = why;
        return false;
    };
    // What the file name alone refuses, before anything is read (the page checks again as it exports).
    for (const QString &file : {database, b.path})
        if (const QString refused = file.isEmpty() ? QString() : refusedReportTarget(path, file); !refused.isEmpty())
            return fail(refused);
    if (!reportFormatOf(path, &failure))
        return fail(failure);
    // Both sweeps must be there: the page's pickers would otherwise fall back on another sweep of
    // the file, and the report would compare a pair nobody asked for.
    for (const ComparisonSide *side : {&a, &b}) {
        const QString file = side->path.isEmpty() ? database : side->path;
        try {
            if (!store::Reader::open(file.toStdString())->sweep(side->sweep))
                return fail(tr("There is no sweep %1 in %2: `stepscope-cli --db %2 list` lists its sweeps.")
                                .arg(side->sweep)
                                .arg(QDir::toNativeSeparators(file)));
        } catch (const store::StoreError &e) {
            return fail(
                QString::fromStdString(store::withFileChoiceHint(e.what(), "with --db FILE or --compare-db FILE")));
        }
    }
    ComparisonModel model;
    ComparisonJob job(&model);
    job.setDatabase(database);
    ComparePage page(&model, &job);
    page.setDatabase(database);

    QEventLoop loop;
    bool written = false, exporting = false;
    const auto stop = [&](const QString &why) {
        failure = why;
        loop.quit();
    };
    QObject::connect(&page, &ComparePage::comparisonShown, &loop, [&] {
        if (model.ledgerA().sweep.id != a.sweep || model.ledgerB().sweep.id != b.sweep ||
            std::exchange(exporting, true))
            return; // not the pair asked for (yet), or already being written
        QString refused;
        if (!page.exportReport(path, &refused))
            stop(refused);
    });
    QObject::connect(&page, &ComparePage::reportWritten, &loop, [&] {
        written = true;
        loop.quit();
    });
    QObject::connect(&page, &ComparePage::reportFailed, &loop, stop);
    QObject::connect(&job, &ComparisonJob::failed, &loop, stop);
    QObject::connect(&job, &ComparisonJob::unreadable, &loop,
                     [&](const QString &, const QString &message) { stop(message); });
    QObject::connect(&job, &ComparisonJob::empty, &loop, [&](qint64 sweepA, qint64 sweepB) {
        stop(tr("Sweep %1 or sweep %2 has no runs: nothing to compare.").arg(sweepA).arg(sweepB));
    });
    page.compare(a, b);
    loop.exec();
    return written || fail(failure);
}

} // namespace stepscope::ui
