// The Why page (issue 18.2, 18.3) over the H200 b32 ledger with profiles (docs/results/
// h200-profiles.md): the chart's bars split each timed step into GPU busy and waiting, the table
// gives each row's verdict, and the kernel diff follows the two rows picked.
#include "charts/qcustomplot_compat.h"
#include "charts/memory_chart.h"
#include "charts/why_chart.h"
#include "config/config_json.h"
#include "models/kernel_diff_model.h"
#include "models/ledger_model.h"
#include "models/why_model.h"
#include "pages/why_page.h"
#include "profile/profile_summary.h"
#include "store/store.h"
#include "widgets/config_panel.h"

#include "window_fixture.h"

#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QListWidget>
#include <QSignalSpy>
#include <QToolButton>
#include <QPushButton>
#include <QRegularExpression>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

using namespace stepscope;
using namespace stepscope::ui;
using namespace stepscope::test;

// The H200 b32 ledger with profiles, read from a copy of the file.
struct H200Ledger {
    QTemporaryDir dir;
    LedgerModel ledger;
    H200Ledger()
    {
        const QString path = copyOf(QStringLiteral(STEPSCOPE_SOURCE_DIR "/docs/results/h200-profile-b32.sqlite"), dir);
        ledger.load(*store::Reader::open(path.toStdString()), 1);
    }
};

class TestWhy : public QObject
{
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() { useTestSettings("test_why"); }

    void whyPageShowsVerdictsBarsAndADiff()
    {
        QTemporaryDir dir;
        const QString path = copyOf(QStringLiteral(STEPSCOPE_SOURCE_DIR "/docs/results/h200-profile-b32.sqlite"), dir);
        LedgerModel ledger;
        ledger.load(*store::Reader::open(path.toStdString()), 1);
        WhyPage page(&ledger);
        page.resize(1200, 900);
        page.show();

        // Twelve rows (the file's +warm-cache row is its twin's again start now), each profiled: eager with bf16 and
        // channels_last is launch-bound at b32, the whole-step graph GPU-bound.
        WhyModel *model = page.model();
        QCOMPARE(model->rowCount(), 12);
        const auto verdict = [&](int row) { return model->index(row, WhyModel::Verdict).data().toString(); };
        QVERIFY2(verdict(4).startsWith("launch-bound: the GPU waits 56% of the step"), qPrintable(verdict(4)));
        QVERIFY2(verdict(4).contains("CUDA graph"), qPrintable(verdict(4)));
        QVERIFY2(verdict(7).startsWith("GPU-bound"), qPrintable(verdict(7)));
        QVERIFY(model->index(7, WhyModel::Busy).data().toString().startsWith("3.41 / 3.53 ms (97%)"));
        QCOMPARE(model->index(0, WhyModel::Kernels).data().toString(), QString("317"));
        // Each share names its peak (issue 35.7): an fp32 row's and a TF32 row's are of different
        // peaks, and the header says so.
        const auto compute = [&](int row) { return model->index(row, WhyModel::Compute).data().toString(); };
        QVERIFY2(compute(0).contains("% of the fp32 dense peak"), qPrintable(compute(0)));
        bool tf32 = false;
        for (int row = 0; row < model->rowCount(); ++row)
            tf32 = tf32 || compute(row).contains("% of the TF32 dense peak") ||
                   compute(row).contains("% of the bf16 dense peak");
        QVERIFY(tf32);
        QVERIFY(model->headerData(WhyModel::Compute, Qt::Horizontal, Qt::ToolTipRole).toString().contains("precision"));
        const QString steadyTip = ledger.index(0, LedgerModel::SteadyState).data(Qt::ToolTipRole).toString();
        QVERIFY2(steadyTip.contains("% of the fp32 dense peak"), qPrintable(steadyTip));

        // The bars: busy plus waiting is the timed step.
        auto *chart = page.findChild<WhyChart *>();
        QVERIFY(chart);
        QCOMPARE(chart->busyMs().size(), 12);
        QVERIFY(std::fabs(chart->busyMs()[4] + chart->waitingMs()[4] - 7.94) < 0.01);
        QVERIFY(chart->waitingMs()[4] > chart->busyMs()[4]);      // launch-bound: waiting is the longer part
        QVERIFY(chart->waitingMs()[7] < chart->busyMs()[7] / 10); // graph: hardly any

        // The diff defaults to the baseline against the recommended row, and follows a new pick.
        const QList<QComboBox *> boxes = page.findChildren<QComboBox *>();
        const auto picked = [&](qsizetype i) { return boxes.size() > i ? boxes[i]->currentText() : QString(); };
        QCOMPARE(picked(0), QString("baseline"));
        QVERIFY2(page.diffText().startsWith("Steady step: "), qPrintable(page.diffText()));
        page.setDiffRows(4, 7);
        const QString diff = page.diffText();
        QVERIFY2(diff.contains("Most of the change is waiting"), qPrintable(diff));
        QVERIFY2(diff.contains("Steady step: 7.94 ms -> 3.53 ms"), qPrintable(diff));
        // A first-step difference of seconds reads in seconds, as the ledger's do.
        const QRegularExpression firstStep(
            QStringLiteral("first step: [+-](\\d+ ms|\\d+\\.\\d\\d s|\\d+ min \\d+ s)\n"));
        QVERIFY2(firstStep.match(diff).hasMatch(), qPrintable(diff));

        // Selecting two rows in the table picks them too: the native graph against the compiled
        // model inside the graph, a change of GPU work.
        page.view()->selectRow(7);
        page.view()->selectionModel()->select(model->index(11, 0),
                                              QItemSelectionModel::Select | QItemSelectionModel::Rows);
        QCOMPARE(picked(1), QString("python tf32+cudnn-bench+bf16+channels-last+cuda-graph+sgd-fused+compile-default"));
        QVERIFY(page.diffText().contains("Most of the change is GPU work"));

        // A sweep without profiles says how to get them.
        ledger.clear();
        QVERIFY(page.diffText().isEmpty() || page.diffText().contains("profile"));
    }

    // A CPU row (issue 35.7): no "GPU busy" anywhere, and a busy time longer than the step (ATen ops
    // on several threads) is shown as 100% with the reason, never as 134%.
    void cpuRowSaysCpuAndClampsItsBusyShare()
    {
        LedgerModel ledger;
        WhyPage page(&ledger);
        LedgerData data;
        data.ledger.sweep.id = 1;
        report::LedgerRow row;
        row.label = "cpu eager";
        row.steadyMs = 10.0;
        profile::ProfileSummary p;
        p.device = "cpu";
        p.steps = 5;
        p.busyMs = 13.4;
        p.profiledStepMs = 12.0;
        p.kernelsPerStep = 300;
        row.profile = p;
        data.ledger.rows.push_back(row);
        ledger.setData(std::move(data));

        WhyModel *model = page.model();
        QCOMPARE(model->rowCount(), 1);
        const QString busy = model->index(0, WhyModel::Busy).data().toString();
        QVERIFY2(busy.startsWith("CPU 13.40 / 10.00 ms (100% (measured 134%: ATen ops"), qPrintable(busy));
        QVERIFY2(!busy.contains("(134%)"), qPrintable(busy));
        const QString tip = model->index(0, WhyModel::Busy).data(Qt::ToolTipRole).toString();
        QVERIFY2(tip.contains("inside ATen") && !tip.contains("GPU activity"), qPrintable(tip));
        auto *chart = page.findChild<WhyChart *>();
        QVERIFY(chart);
        QCOMPARE(chart->plot()->plottable(0)->name(), QString("inside ATen"));
        QVERIFY(!chart->plot()->xAxis->label().contains("GPU"));
        QVERIFY(!model->text().contains("GPU busy"));
    }

    // The current row's trace (issue 35.7): a path and an enabled "Open trace" when the kept file is
    // there, "not kept" and why when it is not (here: the database copied without its .traces).
    void traceOfTheCurrentRowOpensOrSaysWhyNot()
    {
        QTemporaryDir dir;
        const QString path = copyOf(QStringLiteral(STEPSCOPE_SOURCE_DIR "/docs/results/h200-profile-b32.sqlite"), dir);
        LedgerModel ledger;
        ledger.load(*store::Reader::open(path.toStdString()), 1);
        WhyPage page(&ledger);
        page.view()->setCurrentIndex(page.model()->index(0, 0));
        QVERIFY2(page.traceText().contains("not kept: missing: ") && page.traceText().contains(".traces/run-"),
                 qPrintable(page.traceText()));
        QVERIFY(!page.openTraceButton()->isEnabled());

        // The kept trace in place: its path, and the button to open it.
        const std::string stored = ledger.ledger().rows[page.model()->whyRow(0).row].profileTrace;
        QVERIFY(!stored.empty());
        const QString kept = QFileInfo(path).absolutePath() + "/" + QString::fromStdString(stored);
        QVERIFY(QDir().mkpath(QFileInfo(kept).absolutePath()));
        QFile file(kept);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.close();
        ledger.load(*store::Reader::open(path.toStdString()), 1);
        page.view()->setCurrentIndex(page.model()->index(0, 0));
        QVERIFY2(page.traceText().contains(QString::fromStdString(stored)), qPrintable(page.traceText()));
        QVERIFY(!page.traceText().contains("not kept"));
        QVERIFY(page.openTraceButton()->isEnabled());
    }

    // Issue 31.2: the current row's memory over one step, drawn from its stored timeline with the
    // biggest blocks and their stacks beside it; a row without one hides the chart and says why.
    void memoryOverOneStepDrawsTheRowsTimelineOrSaysWhyNot()
    {
        QTemporaryDir dir;
        const QString path = copyOf(QStringLiteral(STEPSCOPE_SOURCE_DIR "/docs/results/h200-profile-b32.sqlite"), dir);
        LedgerModel ledger;
        ledger.load(*store::Reader::open(path.toStdString()), 1);
        WhyPage page(&ledger);
        page.view()->setCurrentIndex(page.model()->index(0, 0));
        QVERIFY(page.memoryChart()->isHidden());
        QVERIFY2(page.memoryText().contains("has no memory timeline"), qPrintable(page.memoryText()));

        // Row 0's profiled run gets the snapshot of tests/data/make_memory_snapshots.py.
        const std::int64_t runId = ledger.ledger().rows[page.model()->whyRow(0).row].profileRunId;
        auto stored = profile::profileFromJson(store::Reader::open(path.toStdString())->run(runId)->profileJson);
        QVERIFY(stored);
        QFile pickle(QStringLiteral(STEPSCOPE_SOURCE_DIR "/tests/data/memory-snapshot-step.pickle"));
        QVERIFY(pickle.open(QIODevice::ReadOnly));
        std::string problem;
        stored->memory = profile::StoredMemory{};
        stored->memory->timeline = profile::summarizeSnapshot(pickle.readAll().toStdString(), problem);
        stored->memory->file = "h200-profile-b32.sqlite.traces/run-1-abcdef.memory.pickle.gz";
        {
            auto db = store::Database::open(path.toStdString());
            db->setProfile(runId, profile::toJson(*stored));
            db->flush();
        }
        ledger.load(*store::Reader::open(path.toStdString()), 1);
        page.view()->setCurrentIndex(page.model()->index(0, 0));
        QVERIFY(!page.memoryChart()->isHidden());
        QCOMPARE(page.memoryChart()->allocatedMiB().size(), 10);
        QCOMPARE(page.memoryChart()->allocatedMiB()[4], 18.0);
        QCOMPARE(page.memoryChart()->reservedMiB().back(), 22.0);
        const QString text = page.memoryText();
        QVERIFY2(text.contains("memory timeline: one step after the timed ones, 9 allocator events: allocated peaks "
                               "at 18.0 MiB"),
                 qPrintable(text));
        QVERIFY2(text.contains("8.0 MiB  _forward_impl (torchvision/models/resnet.py:270)"), qPrintable(text));
        QVERIFY2(text.contains("run-1-abcdef.memory.pickle.gz beside the database (gunzip it, then open it at "
                               "https://pytorch.org/memory_viz)"),
                 qPrintable(text));

        // Another row has none: no chart pretends to be its data.
        page.view()->setCurrentIndex(page.model()->index(1, 0));
        QVERIFY(page.memoryChart()->isHidden());
        QVERIFY2(page.memoryText().contains("has no memory timeline"), qPrintable(page.memoryText()));
    }

    // The kernel diff is a table (issue 35.7): a row per kernel (or per family), sorted by the
    // figures, not their text: a change of +10 ms sorts above +9 ms.
    void kernelDiffIsASortableTable()
    {
        H200Ledger h200;
        WhyPage page(&h200.ledger);
        page.setDiffRows(4, 7);
        KernelDiffModel *model = page.diffModel();
        QVERIFY(model->rowCount() > 10);
        QCOMPARE(model->rowCount(), int(model->diff().kernels.size()));
        QVERIFY(page.diffText().contains("Steady step: 7.94 ms -> 3.53 ms"));

        profile::ProfileDiff diff;
        const auto kernel = [](const char *name, double a, double b) {
            profile::KernelChange k;
            k.name = name;
            k.countA = a > 0 ? 10 : 0;
            k.countB = b > 0 ? 10 : 0;
            k.msA = a;
            k.msB = b;
            k.kind = profile::changeKind(k.countA, k.countB, a, b);
            return k;
        };
        diff.kernels = {kernel("nine", 1, 10), kernel("half", 2, 2.5), kernel("ten", 1, 11), kernel("new", 0, 3)};
        model->setDiff(diff);
        QCOMPARE(model->rowCount(), 4);
        QTableView *view = page.diffView();
        view->sortByColumn(KernelDiffModel::ChangeMs, Qt::DescendingOrder);
        const auto cell = [&](int row, int column) { return view->model()->index(row, column).data().toString(); };
        QCOMPARE(cell(0, KernelDiffModel::Name), QString("ten"));
        QCOMPARE(cell(0, KernelDiffModel::ChangeMs), QString("+10.00"));
        QCOMPARE(cell(1, KernelDiffModel::Name), QString("nine"));
        QCOMPARE(cell(1, KernelDiffModel::ChangeShare), QString("+900%"));
        QCOMPARE(cell(2, KernelDiffModel::Name), QString("new"));
        QCOMPARE(cell(3, KernelDiffModel::ChangeMs), QString("+0.50"));
        // An added kernel has no % change: last whichever way that column is sorted.
        view->sortByColumn(KernelDiffModel::ChangeShare, Qt::DescendingOrder);
        QCOMPARE(cell(3, KernelDiffModel::ChangeShare), QString("added"));
        view->sortByColumn(KernelDiffModel::ChangeShare, Qt::AscendingOrder);
        QCOMPARE(cell(3, KernelDiffModel::ChangeShare), QString("added"));
        QCOMPARE(model->index(0, KernelDiffModel::AMs).data(Qt::TextAlignmentRole).toInt(),
                 int(Qt::AlignRight | Qt::AlignVCenter));
    }

    // The advice can be acted on (issue 35.7): "Add to the panel" sends the current row's
    // configuration with each advised knob, and the panel's custom list takes it as it is.
    void addToThePanelSendsTheRowWithTheAdvisedKnob()
    {
        H200Ledger h200;
        WhyPage page(&h200.ledger);
        QVERIFY(!page.addToPanelButton()->isEnabled()); // no row picked yet
        page.view()->setCurrentIndex(page.model()->index(4, 0)); // launch-bound, CUDA graph first
        QToolButton *add = page.addToPanelButton();
        QVERIFY2(add->isEnabled(), qPrintable(add->toolTip()));
        QVERIFY2(add->toolTip().contains("CUDA graph"), qPrintable(add->toolTip()));
        const RunConfig row = *page.model()->whyRow(4).config;
        QVERIFY(!row.cudaGraph);
        QSignalSpy spy(&page, &WhyPage::configWanted);
        add->click();
        QVERIFY(spy.count() >= 2);
        const RunConfig graph = spy.at(0).at(0).value<RunConfig>();
        QVERIFY(graph.cudaGraph);
        RunConfig expected = row;
        expected.cudaGraph = true;
        QVERIFY(graph == expected);

        ConfigPanel panel;
        panel.setCudaDevices(1);
        panel.addConfig(graph);
        panel.addConfig(graph); // once
        const supervisor::SweepRecipe recipe = panel.recipe();
        QVERIFY(recipe.kind == supervisor::SweepKind::Custom);
        QCOMPARE(int(recipe.list.size()), 1);
        QVERIFY(recipe.list.front().cudaGraph);
        QCOMPARE(recipe.list.front().batch, graph.batch);
        QCOMPARE(recipe.list.front().imageSize, graph.imageSize);
        QVERIFY(recipe.list.front().runtime == graph.runtime);
        QVERIFY(recipe.list.front().onCuda());
    }

    // A row whose advice its configuration cannot take: the button is off and says why.
    void addToThePanelIsOffWhenNoKnobApplies()
    {
        LedgerModel ledger;
        WhyPage page(&ledger);
        LedgerData data;
        data.ledger.sweep.id = 1;
        report::LedgerRow row;
        row.label = "python cpu compile-default";
        row.steadyMs = 50.0;
        RunConfig compiled; // on the CPU, spent outside ATen: the advice is the native runtime, which cannot compile
        compiled.runtime = Runtime::Python;
        compiled.compile = CompileMode::Default;
        row.configJson = QJsonDocument(toJson(compiled)).toJson(QJsonDocument::Compact).toStdString();
        profile::ProfileSummary p;
        p.device = "cpu";
        p.steps = 5;
        p.busyMs = 10;
        p.profiledStepMs = 52;
        row.profile = p;
        data.ledger.rows.push_back(row);
        ledger.setData(std::move(data));
        page.view()->setCurrentIndex(page.model()->index(0, 0));
        QToolButton *add = page.addToPanelButton();
        QVERIFY(!add->isEnabled());
        QVERIFY2(add->toolTip().contains("the native runtime") && add->toolTip().contains("torch.compile has no C++"),
                 qPrintable(add->toolTip()));
    }
};

QTEST_MAIN(TestWhy)
#include "test_why.moc"
