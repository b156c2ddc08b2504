// Compare across databases (issue 9 item 5): two temporary databases whose sweeps differ in batch,
// image size and torch; the page reads the second one read-only, names every difference, compares
// per image, matches rows by configuration, and its report holds the comparison, not a sweep.
#include "charts/comparison_chart.h"
#include "config/config_json.h"
#include "controller/comparison_job.h"
#include "models/comparison_model.h"
#include "pages/compare_page.h"
#include "pages/stored_comparison_report.h"
#include "report/comparison_report.h"
#include "report/comparison_text.h"
#include "store/store.h"

#include "ledger_rows.h"
#include "stored_sweep.h"
#include "tiny_config.h"

#include "charts/qcustomplot_compat.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

using namespace stepscope;
using ui::ComparisonModel;

namespace
{

struct Shape {
    int batch = 2;
    int imageSize = 32;
    std::string torch;
};

// One configuration of a synthetic sweep: its knobs and the step time every process settles at.
struct Planned {
    bool channelsLast = false;
    Optimizer optimizer = Optimizer::Foreach;
    double steadyMs = 0;
};

// Writes a completed CPU sweep: `repeats` cold processes per configuration, each a first step and
// 50 steady steps spread ±2% around the planned time (a little more in the later processes, so that
// the process-level interval is not empty). Returns the sweep's id.
std::int64_t writeSweep(const QString &path, const std::string &name, const Shape &shape,
                        const std::vector<Planned> &configs, int repeats = 3)
{
    auto db = store::Database::open(path.toStdString());
    store::EnvironmentRecord env;
    env.torch = shape.torch;
    env.json = R"({"device":"cpu","worker":"native","cpu":"Test CPU","torch":")" + shape.torch + "\"}";
    const auto envId = db->addEnvironment(env);
    test::SweepSpec sweep{name};
    sweep.settingsJson = QJsonDocument(QJsonObject{{"device", "cpu"},
                                                   {"batch", shape.batch},
                                                   {"image_size", shape.imageSize},
                                                   {"repeats", repeats}})
                             .toJson(QJsonDocument::Compact)
                             .toStdString();
    sweep.status = store::SweepStatus::Running;
    const auto sweepId = test::addSweep(*db, sweep);
    std::int64_t position = 0;
    for (int r = 0; r < repeats; ++r)
        for (const Planned &p : configs) {
            RunConfig c = test::tinyCpuConfig(0, 50);
            c.batch = shape.batch;
            c.imageSize = shape.imageSize;
            c.channelsLast = p.channelsLast;
            c.optimizer = p.optimizer;
            test::RunSpec run = test::runOf(c, position++);
            run.repeatIndex = r;
            run.environmentId = envId;
            run.firstS = 0.2;
            run.steps = {{1, std::nullopt, 200.0}};
            const double level = p.steadyMs * (1.0 + 0.01 * r);
            for (std::int64_t i = 2; i <= 51; ++i)
                run.steps.push_back({i, std::nullopt, level * (1.0 + 0.02 * std::sin(double(i) * 1.7))});
            test::addRun(*db, sweepId, run);
        }
    db->finishSweep(sweepId, store::SweepStatus::Complete);
    db->flush();
    return sweepId;
}

// A Compare page over its own model and job, the dashboard's database being `database`.
struct Compare {
    explicit Compare(const QString &database)
    {
        job.setDatabase(database);
        page.resize(1280, 720);
        page.setDatabase(database);
    }
    ComparisonModel model;
    ui::ComparisonJob job{&model};
    ui::ComparePage page{&model, &job};
};

} // namespace

class TestCompare : public QObject
{
    Q_OBJECT

  private Q_SLOTS:
    void initTestCase();
    void modelMatchesRowsAndComparesPerImage();
    void sameShapeHasNoWarning();
    void chartTurnsLogarithmicAcrossMachines();
    void pageComparesAcrossDatabases();
    void badDatabaseLosesNothing();
    void changedSidesNeverShowStaleFigures();
    void bDefaultsToAnotherSweep();
    void reportHoldsTheComparison();
    void reportRefusesDatabaseFiles();
    void storedComparisonReportWithoutAWindow();

  private:
    void compareAcross(ui::ComparePage &page);

    QTemporaryDir dir_;
    QString dbA_, dbB_;
    std::int64_t sweepA_ = 0, sweepA2_ = 0, sweepB_ = 0;
};

void TestCompare::initTestCase()
{
    QVERIFY(dir_.isValid());
    dbA_ = dir_.filePath(QStringLiteral("a.sqlite"));
    dbB_ = dir_.filePath(QStringLiteral("b.sqlite"));
    // A: batch 2 at 32 px, baseline 10 ms a step (5 ms an image), channels-last 12 ms (6).
    // B: batch 4 at 64 px, baseline 12 ms a step (3 ms an image): slower a step, faster an image;
    // channels-last 24 ms (6 an image, as A); fused SGD only in B; per-parameter SGD only in A.
    sweepA_ = writeSweep(
        dbA_, "cpu b2", {2, 32, "2.5.0"},
        {{false, Optimizer::Foreach, 10.0}, {true, Optimizer::Foreach, 12.0}, {false, Optimizer::PerParameter, 11.0}});
    sweepA2_ = writeSweep(dbA_, "cpu b2 again", {2, 32, "2.5.0"},
                          {{false, Optimizer::Foreach, 10.0}, {true, Optimizer::Foreach, 12.0}});
    sweepB_ = writeSweep(
        dbB_, "cpu b4", {4, 64, "2.6.0"},
        {{false, Optimizer::Foreach, 12.0}, {true, Optimizer::Foreach, 24.0}, {false, Optimizer::Fused, 9.0}});
}

void TestCompare::modelMatchesRowsAndComparesPerImage()
{
    const auto readerA = store::Reader::open(dbA_.toStdString());
    const auto readerB = store::Reader::open(dbB_.toStdString());
    ComparisonModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setLedgers(report::buildLedger(*readerA, sweepA_), report::buildLedger(*readerB, sweepB_));

    QVERIFY(model.perImage());
    const QString differences = model.differences().join('\n');
    QVERIFY2(differences.contains(QStringLiteral("Batch: A 2, B 4")), qPrintable(differences));
    QVERIFY2(differences.contains(QStringLiteral("Image size: A 32 px, B 64 px")), qPrintable(differences));
    QVERIFY2(differences.contains(QStringLiteral("torch: A 2.5.0, B 2.6.0")), qPrintable(differences));
    QVERIFY2(!differences.contains(QStringLiteral("Device")), qPrintable(differences));
    QVERIFY(model.headerData(ComparisonModel::SteadyA, Qt::Horizontal).toString().contains("per image"));
    QVERIFY(model.headerData(ComparisonModel::Ratio, Qt::Horizontal).toString().contains("per image"));

    // Baseline and channels-last matched across batches (their canonical names differ), then the
    // configuration only A ran, then the one only B ran.
    QCOMPARE(model.rowCount(), 4);
    const auto verdict = [&](int row) { return model.index(row, ComparisonModel::Verdict).data().toString(); };
    QCOMPARE(model.label(0), QStringLiteral("baseline"));
    QVERIFY(model.index(0, 0).data(ComparisonModel::ConfigNameRole).toString().contains(QStringLiteral("b2 ")));
    QVERIFY(model.rows()[0].a && model.rows()[0].b);
    QVERIFY(model.label(1).contains(QStringLiteral("channels-last")));
    QCOMPARE(verdict(2), QStringLiteral("only in A"));
    QCOMPARE(verdict(3), QStringLiteral("only in B"));

    // Per image, B's baseline (12 ms / 4) beats A's (10 ms / 2): 0.6x, faster, where per step it is
    // 1.2x slower.
    const double ratio = model.index(0, ComparisonModel::Ratio).data(ComparisonModel::SortRole).toDouble();
    QVERIFY2(std::abs(ratio - 0.6) < 0.02, qPrintable(QString::number(ratio)));
    QCOMPARE(verdict(0), QStringLiteral("faster"));
    const auto a = model.figureA(0);
    QVERIFY(a && a->lowMs && a->highMs);
    QVERIFY2(std::abs(a->ms - 5.0) < 0.15, qPrintable(QString::number(a->ms)));
    QVERIFY(*a->lowMs <= a->ms && a->ms <= *a->highMs);
    QVERIFY(model.index(0, ComparisonModel::SteadyA).data().toString().contains('['));
    // Channels-last costs the same per image on both sides: its interval spans 1, and it says so.
    QVERIFY2(verdict(1).contains(QStringLiteral("interval spans 1")), qPrintable(verdict(1)));
}

// A CPU sweep against an H200's: on a linear axis the GPU's bars would be a few pixels wide. Past a
// factor of 20 the axis is logarithmic and says so; close figures keep the linear axis from 0.
void TestCompare::chartTurnsLogarithmicAcrossMachines()
{
    report::Ledger cpu, gpu;
    cpu.rows = {test::rowOfProcesses("baseline", 1.0, 500.0, 3), test::rowOfProcesses("tf32", 1.0, 450.0, 3)};
    gpu.rows = {test::rowOfProcesses("baseline", 2.0, 14.0, 3), test::rowOfProcesses("tf32", 2.0, 3.7, 3)};
    ComparisonModel model;
    model.setLedgers(cpu, gpu);
    ui::ComparisonChart chart;
    chart.setModel(&model);
    QCOMPARE(chart.barsA()->dataCount(), 2);
    QCPAxis *time = chart.plot()->xAxis;
    QCOMPARE(time->scaleType(), QCPAxis::stLogarithmic);
    QVERIFY2(time->label().contains(QStringLiteral("log scale")), qPrintable(time->label()));
    // Every bar, whisker ends included, lies inside the axis, and bars start at its left edge.
    const auto b = model.figureB(1);
    QVERIFY(b && b->lowMs);
    QVERIFY(time->range().lower > 0 && time->range().lower < *b->lowMs);
    QVERIFY(time->range().upper > 500.0);
    QCOMPARE(chart.barsB()->baseValue(), time->range().lower);
    // 3.7 / 450 ms: a ratio far from 1 keeps its significant digits.
    QVERIFY2(chart.ratioLabels()[1]->text().startsWith(QStringLiteral("B/A 0.008")),
             qPrintable(chart.ratioLabels()[1]->text()));

    model.setLedgers(cpu, cpu);
    QCOMPARE(time->scaleType(), QCPAxis::stLinear);
    QCOMPARE(time->range().lower, 0.0);
    QVERIFY(!time->label().contains(QStringLiteral("log scale")));
}

void TestCompare::sameShapeHasNoWarning()
{
    const auto reader = store::Reader::open(dbA_.toStdString());
    ComparisonModel model;
    model.setLedgers(report::buildLedger(*reader, sweepA_), report::buildLedger(*reader, sweepA2_));
    QVERIFY2(model.differences().isEmpty(), qPrintable(model.differences().join('\n')));
    QVERIFY(!model.perImage());
    QVERIFY(!model.headerData(ComparisonModel::SteadyA, Qt::Horizontal).toString().contains("per image"));
    QCOMPARE(model.rowCount(), 3); // two matched by canonical name, per-parameter SGD only in A
    QCOMPARE(model.index(2, ComparisonModel::Verdict).data().toString(), QStringLiteral("only in A"));
}

void TestCompare::compareAcross(ui::ComparePage &page)
{
    QSignalSpy added(&page, &ui::ComparePage::databaseAdded);
    page.addDatabase(dbB_);
    QVERIFY(added.wait(30000));
    QVERIFY(page.databases().contains(QFileInfo(dbB_).absoluteFilePath()));
    QSignalSpy shown(&page, &ui::ComparePage::comparisonShown);
    page.compare({dbA_, sweepA_}, {dbB_, sweepB_});
    QVERIFY(shown.wait(60000));
}

void TestCompare::pageComparesAcrossDatabases()
{
    Compare c(dbA_);
    auto &page = c.page;
    auto &model = c.model;
    auto &job = c.job;
    page.show();
    compareAcross(page);

    // The dashboard still reads its own database; B came from the other file.
    QCOMPARE(job.database(), dbA_);
    QVERIFY(model.nameB().startsWith(QStringLiteral("b.sqlite")));
    QVERIFY(page.warningShown());
    QVERIFY(page.warningText().contains(QStringLiteral("Batch: A 2, B 4")));
    QVERIFY(page.caption().contains(QStringLiteral("ms per image")));
    QCOMPARE(page.view()->model()->rowCount(), 4);

    // The chart: a bar per side for each configuration that side ran, whiskers, a ratio per row.
    ui::ComparisonChart *chart = page.comparisonChart();
    QCOMPARE(chart->barsA()->dataCount(), 3);
    QCOMPARE(chart->barsB()->dataCount(), 3);
    QCOMPARE(chart->whiskerCount(), 6);
    QCOMPARE(chart->ratioLabels().size(), 4);
    QVERIFY(chart->ratioLabels()[0]->text().startsWith(QStringLiteral("B/A 0.6")));
    QVERIFY(chart->plot()->xAxis->label().contains(QStringLiteral("per image")));

    // Both sides from one file with the same shape: the banner goes.
    QSignalSpy shown(&page, &ui::ComparePage::comparisonShown);
    page.compare({dbA_, sweepA_}, {QString(), sweepA2_});
    QVERIFY(shown.wait(60000));
    QVERIFY(!page.warningShown());
    QVERIFY(!page.caption().contains(QStringLiteral("per image")));
}

void TestCompare::badDatabaseLosesNothing()
{
    Compare c(dbA_);
    auto &page = c.page;
    auto &model = c.model;
    auto &job = c.job;
    compareAcross(page);
    const QStringList before = page.databases();

    const QString corrupt = dir_.filePath(QStringLiteral("corrupt.sqlite"));
    {
        QFile f(corrupt);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QByteArray(4096, 'x'));
    }
    const QByteArray corruptBytes = [&] {
        QFile f(corrupt);
        f.open(QIODevice::ReadOnly);
        return f.readAll();
    }();
    for (const QString &bad : {corrupt, dir_.filePath(QStringLiteral("missing.sqlite"))}) {
        page.addDatabase(bad);
        QTRY_VERIFY_WITH_TIMEOUT(page.errorText().contains(QFileInfo(bad).fileName()), 30000);
        // The store names the remedy; the page says where to take it, in the dashboard's words.
        QVERIFY2(page.errorText().contains(QStringLiteral("choose another database file with \"Add database…\"")),
                 qPrintable(page.errorText()));
        QVERIFY2(!page.errorText().contains(QStringLiteral("--db")), qPrintable(page.errorText()));
        QCOMPARE(page.databases(), before);
        QCOMPARE(model.rowCount(), 4); // the comparison on show stays
        QCOMPARE(job.database(), dbA_);
    }
    QFile f(corrupt);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(f.readAll(), corruptBytes);
    QVERIFY(!QFile::exists(dir_.filePath(QStringLiteral("missing.sqlite"))));
}

// Issue 19.6: a pick of A or B after a comparison compares the new pair; meanwhile the old figures
// are greyed out and cannot be exported as the new pair's.
void TestCompare::changedSidesNeverShowStaleFigures()
{
    Compare c(dbA_);
    auto &page = c.page;
    page.show();
    compareAcross(page);
    QVERIFY(page.showsPickedSides());
    QCOMPARE(page.verdictText(), QString::fromStdString(report::comparisonVerdict(c.model.comparison())));
    QVERIFY(page.verdictText().startsWith(QStringLiteral("Of ")));
    QVERIFY(page.view()->isEnabled());

    QSignalSpy shown(&page, &ui::ComparePage::comparisonShown);
    QComboBox *a = page.sweepPickerA();
    const int again = a->findData(QVariant(qint64(sweepA2_)));
    QVERIFY(again >= 0);
    a->setCurrentIndex(again); // as a user picks it
    QVERIFY(!page.showsPickedSides());
    QVERIFY(!page.view()->isEnabled()); // greyed out while the new pair is computed
    QString error;
    QVERIFY(!page.exportReport(dir_.filePath(QStringLiteral("stale.html")), &error));
    QVERIFY2(error.contains(QStringLiteral("still being compared")), qPrintable(error));
    QVERIFY(shown.wait(60000));
    QVERIFY(page.showsPickedSides());
    QVERIFY(page.view()->isEnabled());
    QVERIFY2(c.model.nameA().contains(QStringLiteral("cpu b2 again")), qPrintable(c.model.nameA()));
    QCOMPARE(c.model.ledgerA().sweep.id, sweepA2_);
    QCOMPARE(page.view()->model()->rowCount(), 3); // A2's two configurations, then B's fused SGD
    QCOMPARE(page.verdictText(), QString::fromStdString(report::comparisonVerdict(c.model.comparison())));
}

// B's default is another sweep than A's: comparing a sweep with itself is a request, not a default.
void TestCompare::bDefaultsToAnotherSweep()
{
    Compare c(dbA_);
    c.page.setShownSweep(sweepA2_);
    QTRY_COMPARE_WITH_TIMEOUT(c.page.sweepPickerA()->currentData().toLongLong(), qint64(sweepA2_), 30000);
    QTRY_COMPARE_WITH_TIMEOUT(c.page.sweepPickerB()->currentData().toLongLong(), qint64(sweepA_), 30000);
    c.page.setShownSweep(sweepA_);
    QTRY_COMPARE_WITH_TIMEOUT(c.page.sweepPickerA()->currentData().toLongLong(), qint64(sweepA_), 30000);
    QTRY_COMPARE_WITH_TIMEOUT(c.page.sweepPickerB()->currentData().toLongLong(), qint64(sweepA2_), 30000);
}

void TestCompare::reportHoldsTheComparison()
{
    Compare c(dbA_);
    auto &page = c.page;
    compareAcross(page);

    QTemporaryDir out;
    QSignalSpy written(&page, &ui::ComparePage::reportWritten);
    QSignalSpy failed(&page, &ui::ComparePage::reportFailed);
    QString error;
    for (const char *suffix : {"html", "md", "csv", "pdf"}) {
        const QString path = out.filePath(QStringLiteral("comparison.") + QLatin1String(suffix));
        QVERIFY2(page.exportReport(path, &error), qPrintable(error));
        QTRY_VERIFY_WITH_TIMEOUT(written.contains(QVariantList{path}) || !failed.isEmpty(), 60000);
        QVERIFY2(failed.isEmpty(), qPrintable(failed.value(0).value(0).toString()));
    }
    const auto read = [&](const char *name) {
        QFile f(out.filePath(QLatin1String(name)));
        return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
    };
    const QString html = read("comparison.html");
    // Both sides, the warning, the per-image figures, every row, the chart; not the sweep report.
    QVERIFY(html.contains(QStringLiteral("cpu b2")) && html.contains(QStringLiteral("cpu b4")));
    QVERIFY(html.contains(QStringLiteral("Batch: A 2, B 4")));
    QVERIFY(html.contains(QStringLiteral("per image")));
    QVERIFY(html.contains(QStringLiteral("only in B")));
    // The chart as vectors (SVG), the one-line verdict, both sides' environments with their torch.
    QVERIFY(html.contains(QStringLiteral("data:image/svg+xml;base64,")));
    QVERIFY(!html.contains(QStringLiteral("data:image/png;base64,")));
    QVERIFY(html.contains(page.verdictText().toHtmlEscaped()));
    QVERIFY(html.contains(QStringLiteral("Environments")));
    QVERIFY(html.contains(QStringLiteral("2.5.0")) && html.contains(QStringLiteral("2.6.0")));
    QVERIFY(!html.contains(QStringLiteral("Stepscope report:")));
    // Each cell as the page's table shows it.
    const QString ratioCell = page.view()->model()->index(0, ComparisonModel::Ratio).data().toString();
    QVERIFY(html.contains(ratioCell));
    const QString md = read("comparison.md");
    QVERIFY(md.contains(QStringLiteral("Image size: A 32 px, B 64 px")));
    QVERIFY(md.contains(ratioCell));
    const QString csv = read("comparison.csv");
    QVERIFY(csv.contains(QStringLiteral("# differs: Batch: A 2, B 4")));
    QCOMPARE(csv.count(QLatin1Char('\n')) - csv.count(QStringLiteral("# ")), 1 + 4); // header and four rows
    QVERIFY(md.contains(page.verdictText()));
    QVERIFY2(md.contains(QStringLiteral("| **torch** | 2.5.0 | 2.6.0 |")), qPrintable(md)); // differs: bold
    QVERIFY2(md.contains(QStringLiteral("| CPU | Test CPU | Test CPU |")), qPrintable(md)); // alike: plain
    QVERIFY(csv.contains(QStringLiteral("# environment differs:")));
    // The PDF draws the chart as paths and text: no raster image in it (a PNG chart would be one).
    QFile pdfFile(out.filePath(QStringLiteral("comparison.pdf")));
    QVERIFY(pdfFile.open(QIODevice::ReadOnly));
    const QByteArray pdf = pdfFile.readAll();
    QVERIFY(pdf.startsWith("%PDF"));
    QVERIFY(!pdf.contains("/Subtype /Image"));
    QVERIFY(pdf.size() > 20000);

    // A name typed without a suffix takes the chosen filter's.
    QCOMPARE(ui::ComparePage::withSuffix(QStringLiteral("/tmp/x"), QStringLiteral("PDF (*.pdf)")),
             QStringLiteral("/tmp/x.pdf"));
    QCOMPARE(ui::ComparePage::withSuffix(QStringLiteral("/tmp/x.md"), QStringLiteral("PDF (*.pdf)")),
             QStringLiteral("/tmp/x.md"));
}

void TestCompare::reportRefusesDatabaseFiles()
{
    Compare c(dbA_);
    auto &page = c.page;
    QString error;
    QVERIFY(!page.exportReport(dir_.filePath(QStringLiteral("nothing.html")), &error)); // nothing compared yet
    QVERIFY(error.contains(QStringLiteral("no comparison")));
    compareAcross(page);

    const QByteArray before = [&] {
        QFile f(dbB_);
        f.open(QIODevice::ReadOnly);
        return f.readAll();
    }();
    // A link to B's file is B's file: refused as well.
    const QString link = dir_.filePath(QStringLiteral("link.html"));
    QVERIFY(QFile::link(dbB_, link));
    for (const QString &target : {dbB_, dbA_, dbA_ + QStringLiteral("-wal"), link}) {
        error.clear();
        QVERIFY2(!page.exportReport(target, &error), qPrintable(target));
        QVERIFY2(error.contains(QStringLiteral("database")), qPrintable(error));
    }
    QFile f(dbB_);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(f.readAll(), before);
}

// `stepscope --compare A,B --compare-db FILE --report`: the page's report, from a page never shown;
// a sweep not in its file is refused rather than compared with another one.
void TestCompare::storedComparisonReportWithoutAWindow()
{
    QTemporaryDir out;
    const QString html = out.filePath(QStringLiteral("headless.html"));
    QString error;
    QVERIFY2(ui::writeStoredComparisonReport(dbA_, {{}, sweepA_}, {dbB_, sweepB_}, html, &error), qPrintable(error));
    QFile file(html);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(file.readAll());
    QVERIFY(text.contains(QStringLiteral("cpu b2")) && text.contains(QStringLiteral("cpu b4")));
    QVERIFY(text.contains(QStringLiteral("Batch: A 2, B 4")));
    QVERIFY(text.contains(QStringLiteral("data:image/svg+xml;base64,")));

    QVERIFY(!ui::writeStoredComparisonReport(dbA_, {{}, sweepA_}, {dbB_, 99}, out.filePath("missing.html"), &error));
    QVERIFY2(error.contains(QStringLiteral("no sweep 99")), qPrintable(error));
    QVERIFY(!ui::writeStoredComparisonReport(dbA_, {{}, sweepA_}, {dbB_, sweepB_}, dbB_, &error));
    QVERIFY2(error.contains(QStringLiteral("would destroy the measurements")), qPrintable(error));
    QVERIFY(!QFileInfo::exists(out.filePath("missing.html")));
}

QTEST_MAIN(TestCompare)
#include "test_compare.moc"
