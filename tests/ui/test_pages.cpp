// Pages over their presenters and jobs, with no window in between: each page takes what it shows
// and subscribes itself, so a stored sweep reaches the ledger table and the Steps overlay from a
// real database through the ShownSweep presenter and the query job alone.
#include "charts/run_overlay_chart.h"
#include "controller/query_job.h"
#include "controller/run_controller.h"
#include "models/history_model.h"
#include "models/ledger_model.h"
#include "pages/ledger_page.h"
#include "pages/steps_page.h"
#include "presenters/open_database.h"
#include "presenters/shown_sweep.h"

#include "window_fixture.h"

#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace stepscope;
using namespace stepscope::ui;
using namespace stepscope::test;

class TestPages : public QObject
{
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() { useTestSettings("test_pages"); }

    void pagesShowASweepWithoutTheWindow()
    {
        QTemporaryDir dir;
        const QString path = copyOf(h200Ledger(), dir);
        RunController controller;
        ShownSweep shown(&controller);
        HistoryModel history;
        QueryJob query(&history);
        followOpenDatabase(&controller, &query);
        LedgerPage ledger(&shown);
        StepsPage steps(shown.ledger(), &query);
        ledger.show(); // its status line shows only on screen
        QCOMPARE(ledger.view()->model()->rowCount(), 0);

        QSignalSpy opened(&controller, &RunController::databaseOpened);
        QSignalSpy chosen(&shown, &ShownSweep::sweepChosen);
        QString error;
        QVERIFY2(controller.openDatabaseAsync(path, &error), qPrintable(error));
        shown.show(1); // asked while the file still opens: shown once it is open
        QVERIFY(chosen.isEmpty());
        QVERIFY(opened.wait(60000));
        QCOMPARE(chosen.count(), 1);
        QVERIFY(!ledger.status().isEmpty()); // "Computing the ledger of sweep 1…"
        QTRY_VERIFY_WITH_TIMEOUT(!shown.job()->isBusy(), 120000);

        // The table holds the sweep's seven configurations, in the sweep's order, and the page
        // says which finishes the planned run first.
        const QAbstractItemModel *table = ledger.view()->model();
        QCOMPARE(table->rowCount(), 7);
        QCOMPARE(table->index(0, LedgerModel::Configuration).data().toString(), QString("baseline"));
        QCOMPARE(shown.ledger()->sweepId(), qint64(1));
        QVERIFY2(ledger.recommendationText().contains("finishes first"), qPrintable(ledger.recommendationText()));
        QVERIFY(ledger.status().isEmpty());

        // The Steps page asked the query job for one run per configuration, and drew them.
        QTRY_COMPARE_WITH_TIMEOUT(steps.overlay()->runCount(), 7, 60000);
        QCOMPARE(steps.overlay()->runs().front().name, QString("baseline"));
    }
};

QTEST_MAIN(TestPages)
#include "test_pages.moc"
