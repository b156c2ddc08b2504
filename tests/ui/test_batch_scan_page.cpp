// The Batch scan tab (issue 35.4): there for a sweep of several batches only, with the verdict in
// words above the chart; the Why page no longer carries the chart.
#include "charts/batch_scan_chart.h"
#include "pages/batch_scan_page.h"
#include "pages/sweep_pages.h"
#include "pages/why_page.h"
#include "store/store.h"

#include "batch_scan_fixture.h"
#include "window_fixture.h"

#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace stepscope;
using namespace stepscope::ui;

class TestBatchScanPage : public QObject
{
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() { test::useTestSettings("test_batch_scan_page"); }

    void theTabIsThereForAScanOnly()
    {
        QTemporaryDir dir;
        const QString scanPath = dir.filePath("scan.sqlite");
        {
            auto db = store::Database::open(scanPath.toStdString());
            test::writeBatchScanSweep(*db);
        }
        MainWindow window;
        window.resize(1280, 720);
        window.show();
        SweepPages *pages = window.pages();
        BatchScanPage *scan = pages->batchScan();
        QVERIFY(scan);
        QVERIFY(!pages->isTabVisible(pages->indexOf(scan)));
        QVERIFY(!pages->why()->findChild<BatchScanChart *>()); // the chart has a page of its own

        QVERIFY(test::openAndShow(window, scanPath, 1));
        QTRY_VERIFY_WITH_TIMEOUT(scan->hasScan(), 60000);
        QVERIFY(pages->isTabVisible(pages->indexOf(scan)));
        pages->setCurrentWidget(scan);
        QVERIFY(scan->scanChart()->isVisible());
        QCOMPARE(scan->scanChart()->lineCount(), 2);
        // Two processes a row (fresh and again): channels-last is 4 ms a sample at b2, 3 at b4; the
        // baseline 5 at both.
        const QString verdict = scan->verdictText();
        QVERIFY2(verdict.contains("b4 is 1.33x faster per sample than b2 (95% CI "), qPrintable(verdict));
        QVERIFY2(verdict.contains("no significant difference per sample between b2 and b4 (1.00x, 95% CI"),
                 qPrintable(verdict));
        QVERIFY2(verdict.contains("b2: 5.00 ms per sample"), qPrintable(verdict));
        QVERIFY2(verdict.contains("first step 2.00 s"), qPrintable(verdict));

        // A sweep of one batch: no tab, and the page says why if it is reached anyway.
        QVERIFY(test::openAndShow(window, test::copyOf(test::h200Ledger(), dir), 1));
        QTRY_VERIFY_WITH_TIMEOUT(!pages->isTabVisible(pages->indexOf(scan)), 60000);
        QVERIFY(!scan->hasScan());
        QVERIFY2(scan->verdictText().contains("measured one batch"), qPrintable(scan->verdictText()));
    }
};

QTEST_MAIN(TestBatchScanPage)
#include "test_batch_scan_page.moc"
