// The dashboard's item models against databases written through the store: a synthetic one whose
// every figure is known in advance, and the real ledger measured on an H200.
#include "models/comparison_model.h"
#include "models/environment_model.h"
#include "models/figure_sort_proxy.h"
#include "models/history_model.h"
#include "models/ledger_model.h"
#include "models/status_colors.h"
#include "controller/run_controller.h"
#include "pages/ledger_page.h"
#include "presenters/shown_sweep.h"

#include "common/failure.h"
#include "config/config_json.h"
#include "store/store.h"

#include "stored_sweep.h"

#include <QAbstractItemModelTester>
#include <QBrush>
#include <QComboBox>
#include <QFile>
#include <QJsonDocument>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <optional>

using namespace stepscope;
using stepscope::ui::ComparisonModel;
using stepscope::ui::EnvironmentModel;
using stepscope::ui::HistoryModel;
using stepscope::ui::LedgerModel;
using stepscope::ui::LedgerPage;
using stepscope::ui::RunController;
using stepscope::ui::ShownSweep;

namespace
{

const char *const kEnvironmentJson =
    R"j({"gpu":"NVIDIA H200","torch":"2.11.0","cuda_runtime":"13.0.0","cudnn":"9.19.0","host":"vm",)j"
    R"j("cuda_cache_path":"unset (default ~/.nv/ComputeCache)",)j"
    R"j("cuda_module_loading":"unset (LibTorch default: LAZY)",)j"
    R"j("cpu_threads":"16","device":"cuda","worker":"native"})j";

const char *const kOomDetail = "Traceback (most recent call last):\n  step()\nRuntimeError: CUDA out of memory. "
                               "Tried to allocate 2.00 GiB (GPU 0; 139.8 GiB total capacity)";

// Written independently of stats:: so that a wrong median there cannot hide here.
double medianOf(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct ConfigSpec {
    std::string name; // canonical: the knob label is the part after the last space
    std::string json;
    double firstS = 0;
    double steadyMs = 0;
    double wobble = 0.01; // relative amplitude of the steady pattern
    std::vector<double> losses;
    std::optional<Failure> failure;
};

struct WrittenSweep {
    std::int64_t id = 0;
    std::map<std::string, std::vector<double>> steadyMs; // every steady step written, per config
    int runs = 0;
};

// A worker's step series: step 1 (the first step), five warm-up steps that are far from the steady
// time, then 60 steady steps with a fixed wobble. The warm-up fills exactly one of the steady-state
// detector's blocks (5 steps), so the detected window is precisely the 60 steady steps.
std::vector<store::StepRow> stepsFor(const ConfigSpec &c, int repeat, std::vector<double> *steady)
{
    const double scale = c.steadyMs * (1.0 + 0.002 * repeat);
    const double warmup[] = {3.0, 2.5, 2.0, 1.6, 1.3};
    const double pattern[] = {-1.0, -0.5, 0.0, 0.5, 1.0};
    std::vector<store::StepRow> rows;
    std::int64_t index = 1;
    rows.push_back({index++, c.firstS * 1000, c.firstS * 1000 + 0.5});
    for (double w : warmup)
        rows.push_back({index++, scale * w, scale * w + 0.3});
    for (int i = 0; i < 60; ++i) {
        const double v = scale * (1.0 + c.wobble * pattern[(i * 3) % 5]);
        steady->push_back(v);
        rows.push_back({index++, v, v + 0.3});
    }
    return rows;
}

WrittenSweep writeSweep(store::Database &db, const std::string &name, const std::vector<ConfigSpec> &configs,
                        int repeats, std::int64_t environmentId)
{
    WrittenSweep written;
    test::SweepSpec sweep(name, "ledger", 10000);
    sweep.settingsJson = R"j({"device":"cuda","batch":8,"image_size":64,"steps":60,"warmup_steps":5,"repeats":2})j";
    sweep.status = store::SweepStatus::Running;
    written.id = test::addSweep(db, sweep);
    // Interleaved as the supervisor runs them (A B C A B C).
    for (int r = 0; r < repeats; ++r) {
        for (std::size_t i = 0; i < configs.size(); ++i) {
            const ConfigSpec &c = configs[i];
            test::RunSpec run = test::runNamed(c.name, static_cast<std::int64_t>(r * configs.size() + i), c.json);
            run.repeatIndex = r;
            run.environmentId = environmentId;
            run.setupS = 1.2;
            if (c.failure) {
                run.status = RunStatus::Failed;
                run.failure = c.failure;
            } else {
                run.firstS = c.firstS;
                run.steps = stepsFor(c, r, &written.steadyMs[c.name]);
                run.checkLosses = c.losses;
                // 512 and 576 MiB allocated, 600 and 664 reserved: a median between the processes.
                run.memory = {(512ll + 64 * r) << 20, (600ll + 64 * r) << 20};
            }
            test::addRun(db, written.id, run);
            ++written.runs;
        }
    }
    db.finishSweep(written.id, store::SweepStatus::Complete);
    return written;
}

const std::vector<double> kLosses{2.30, 2.27, 2.21, 2.16, 2.08};

std::vector<ConfigSpec> sweepAConfigs()
{
    const std::string prefix = "native cuda b8 64px c10 ";
    auto almost = kLosses;
    for (double &l : almost)
        l += 0.001;
    return {
        // baseline: cheap first step; cudnn-bench: dear first step, fastest step that counts.
        // Total for N steps decides: 100 steps -> baseline, 10000 -> cudnn-bench (break-even ~834).
        {prefix + "baseline", R"j({"tf32":false})j", 0.5, 10.0, 0.01, kLosses, std::nullopt},
        {prefix + "cudnn-bench", R"j({"cudnn_benchmark":true})j", 3.0, 7.0, 0.01, almost, std::nullopt},
        {prefix + "cuda-graph", R"j({"cuda_graph":true})j", 1.0, 9.0, 0.01, almost, std::nullopt},
        // Fastest of all, but its losses are NaN: the accuracy gate must keep it out.
        {prefix + "bf16",
         R"j({"autocast":"bf16"})j",
         0.4,
         5.0,
         0.01,
         {2.30, std::numeric_limits<double>::quiet_NaN(), 2.2, 2.1, 2.0},
         std::nullopt},
        {prefix + "channels-last", R"j({"channels_last":true})j", 0.6, 9.5, 0.12, almost, std::nullopt},
        {prefix + "cuda-graph+sgd-fused",
         R"j({"cuda_graph":true})j",
         0,
         0,
         0,
         {},
         Failure{FailureCategory::OutOfMemory, "CUDA out of memory. Tried to allocate 2.00 GiB", kOomDetail}},
    };
}

std::vector<ConfigSpec> sweepBConfigs()
{
    // Against A: baseline twice as fast, cudnn-bench the very same samples, cuda-graph slower and
    // measured at another batch (matched by its knob label), tf32 only here.
    return {
        {"native cuda b8 64px c10 baseline", R"j({"tf32":false})j", 0.5, 5.0, 0.01, kLosses, std::nullopt},
        {"native cuda b8 64px c10 cudnn-bench", R"j({"cudnn_benchmark":true})j", 3.0, 7.0, 0.01, kLosses, std::nullopt},
        {"native cuda b16 64px c10 cuda-graph", R"j({"cuda_graph":true})j", 1.0, 12.0, 0.01, kLosses, std::nullopt},
        {"native cuda b8 64px c10 tf32", R"j({"tf32":true})j", 0.5, 6.0, 0.01, kLosses, std::nullopt},
    };
}

// Canonical name of a configuration of sweep A.
QString config(const char *knobs)
{
    return QStringLiteral("native cuda b8 64px c10 ") + QLatin1String(knobs);
}

int rowOf(const QAbstractItemModel &model, int role, const QString &value)
{
    for (int r = 0; r < model.rowCount(); ++r)
        if (model.index(r, 0).data(role).toString() == value)
            return r;
    return -1;
}

std::int64_t h200Sweep(const store::Reader &reader, const std::string &name)
{
    for (const auto &sweep : reader.sweeps())
        if (sweep.name == name)
            return sweep.id;
    return 0;
}

QColor foreground(const QModelIndex &index)
{
    return index.data(Qt::ForegroundRole).value<QBrush>().color();
}

} // namespace

class TestModels : public QObject
{
    Q_OBJECT

  private Q_SLOTS:
    void initTestCase();

    void ledgerMatchesDatabase();
    void ledgerFailureRow();
    void ledgerPeakMemoryColumn();
    void ledgerEnergyColumn();
    void ledgerObjectiveByJoules();
    void ledgerSortsBySteadyState();
    void ledgerRecommendationFollowsPlannedSteps();
    void ledgerOnH200Database();
    void ledgerReloadAndClear();

    void historyTree();
    void historyFilters();

    void environmentAssessments();
    void environmentWithoutCuda();
    void environmentTimingFlagsLaunchBoundAndPinning();

    void comparisonVerdicts();
    void comparisonOnH200Batches();

  private:
    // A GPU sweep with energy figures (a baseline and a faster CUDA graph whose first step costs
    // ten times the joules) and a CPU row without a counter; written once.
    std::int64_t energySweep();
    QTemporaryDir dir_;
    std::int64_t energySweep_ = 0;
    std::string dbPath_;
    std::unique_ptr<store::Reader> reader_;
    WrittenSweep a_, b_;
    std::unique_ptr<store::Reader> h200_;
};

void TestModels::initTestCase()
{
    QVERIFY(dir_.isValid());
    dbPath_ = dir_.filePath(QStringLiteral("synthetic.db")).toStdString();
    {
        auto db = store::Database::open(dbPath_);
        store::EnvironmentRecord env;
        env.json = kEnvironmentJson;
        env.gpu = "NVIDIA H200";
        env.cuda = "13.0.0";
        env.cudnn = "9.19.0";
        env.torch = "2.11.0";
        env.host = "vm";
        const auto envId = db->addEnvironment(env);
        a_ = writeSweep(*db, "synthetic A", sweepAConfigs(), 2, envId);
        b_ = writeSweep(*db, "synthetic B", sweepBConfigs(), 2, envId);
        db->flush();
    }
    reader_ = store::Reader::open(dbPath_);
    QVERIFY(reader_);

    // Opening may add -wal/-shm files: work on a copy, never on the file in docs/.
    const QString source = QStringLiteral(STEPSCOPE_SOURCE_DIR "/docs/results/h200-ledger.sqlite");
    const QString copy = dir_.filePath(QStringLiteral("h200.sqlite"));
    QVERIFY2(QFile::copy(source, copy), qPrintable(source));
    QFile::setPermissions(copy, QFile::ReadOwner | QFile::WriteOwner);
    h200_ = store::Reader::open(copy.toStdString());
    QVERIFY(h200_);
}

void TestModels::ledgerMatchesDatabase()
{
    LedgerModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.load(*reader_, a_.id);
    QCOMPARE(model.sweepId(), a_.id);
    QCOMPARE(model.rowCount(), 6);
    QCOMPARE(model.columnCount(), int(LedgerModel::ColumnCount));
    QCOMPARE(model.headerData(LedgerModel::SteadyState, Qt::Horizontal).toString(), QStringLiteral("Steady state"));

    for (const auto &[name, samples] : a_.steadyMs) {
        const int row = rowOf(model, LedgerModel::ConfigNameRole, QString::fromStdString(name));
        QVERIFY2(row >= 0, name.c_str());
        const double expected = medianOf(samples);
        const QModelIndex steady = model.index(row, LedgerModel::SteadyState);
        QVERIFY2(qFuzzyCompare(steady.data(LedgerModel::SortRole).toDouble(), expected), name.c_str());
        QCOMPARE(steady.data().toString(), QString::number(expected, 'f', 2) + QStringLiteral(" ms"));
        QCOMPARE(model.index(row, LedgerModel::Status).data().toString(), QStringLiteral("complete"));
    }

    const int baseline = rowOf(model, LedgerModel::ConfigNameRole, config("baseline"));
    const int cudnn = rowOf(model, LedgerModel::ConfigNameRole, config("cudnn-bench"));
    QCOMPARE(baseline, 0);
    QCOMPARE(model.index(baseline, LedgerModel::Configuration).data().toString(), QStringLiteral("baseline"));
    QCOMPARE(model.index(baseline, LedgerModel::FirstStep).data().toString(), QStringLiteral("500 ms"));
    QCOMPARE(model.index(baseline, LedgerModel::Speedup).data().toString(), QStringLiteral("1.00x"));
    QVERIFY(!model.index(baseline, LedgerModel::BreakEven).data(LedgerModel::SortRole).isValid());

    // cudnn-bench: 10 ms -> 7 ms per step at 2.5 s more up front.
    QCOMPARE(model.index(cudnn, LedgerModel::FirstStep).data().toString(), QStringLiteral("3.00 s"));
    QVERIFY(model.index(cudnn, LedgerModel::Speedup).data().toString().startsWith(QStringLiteral("1.43x [")));
    QVERIFY(!model.index(cudnn, LedgerModel::Speedup).data().toString().contains(QStringLiteral("n.s.")));
    const double breakEven = model.index(cudnn, LedgerModel::BreakEven).data(LedgerModel::SortRole).toDouble();
    QVERIFY2(breakEven > 800 && breakEven < 870, qPrintable(QString::number(breakEven)));
    QCOMPARE(model.index(cudnn, LedgerModel::Spread).data().toString(),
             QStringLiteral("%1-%2 (n=2)").arg(QString::number(7.0, 'f', 2), QString::number(7.0 * 1.002, 'f', 2)));
    QCOMPARE(model.index(cudnn, LedgerModel::Noise).data().toString(), QStringLiteral("ok"));
    QCOMPARE(model.index(cudnn, LedgerModel::Accuracy).data().toString(), QStringLiteral("ok"));
    QVERIFY(!model.index(cudnn, LedgerModel::Noise).data(Qt::ForegroundRole).isValid());

    // A wobble of +-12% puts the interquartile range at 12% of the median: noisy, orange.
    const int noisy = rowOf(model, LedgerModel::ConfigNameRole, config("channels-last"));
    QCOMPARE(model.index(noisy, LedgerModel::Noise).data().toString(), QStringLiteral("noisy"));
    QCOMPARE(foreground(model.index(noisy, LedgerModel::Noise)), ui::warningColor());

    // NaN losses: diverged, red, and never the recommendation however fast.
    const int bf16 = rowOf(model, LedgerModel::ConfigNameRole, config("bf16"));
    QVERIFY(model.index(bf16, LedgerModel::Accuracy).data().toString().startsWith(QStringLiteral("diverged")));
    QCOMPARE(foreground(model.index(bf16, LedgerModel::Configuration)), ui::failureColor());
    QVERIFY2(model.index(bf16, LedgerModel::Accuracy)
                 .data(Qt::ToolTipRole)
                 .toString()
                 .contains(QStringLiteral("a loss is not finite. Left out of the recommendation")),
             qPrintable(model.index(bf16, LedgerModel::Accuracy).data(Qt::ToolTipRole).toString()));
    QVERIFY(!model.index(cudnn, LedgerModel::Accuracy).data(Qt::ToolTipRole).isValid());
    QVERIFY(model.ledger().recommended);
    QVERIFY(model.ledger().rows[*model.ledger().recommended].label != "bf16");
    // ... and the recommendation says that it left bf16 out, and why.
    QVERIFY2(model.recommendation().contains(
                 QStringLiteral("Left out of the recommendation: bf16 (training diverged: a loss is not finite)")),
             qPrintable(model.recommendation()));
}

void TestModels::ledgerFailureRow()
{
    LedgerModel model;
    model.load(*reader_, a_.id);
    const int row = rowOf(model, LedgerModel::ConfigNameRole, config("cuda-graph+sgd-fused"));
    QVERIFY(row >= 0);
    QCOMPARE(model.index(row, LedgerModel::Failure).data().toString(), QStringLiteral("out-of-memory"));
    // The status cell names the category: a failed run reads the same here as in the CLI and exports.
    QCOMPARE(model.index(row, LedgerModel::Status).data().toString(), QStringLiteral("failed: out-of-memory"));
    QCOMPARE(model.index(row, LedgerModel::SteadyState).data().toString(), QStringLiteral("-"));
    QVERIFY(!model.index(row, LedgerModel::SteadyState).data(LedgerModel::SortRole).isValid());
    QCOMPARE(foreground(model.index(row, LedgerModel::SteadyState)), ui::failureColor());
    QVERIFY(model.index(row, LedgerModel::Status).data(Qt::BackgroundRole).isValid());

    const QString fix = QString::fromUtf8(fixFor(FailureCategory::OutOfMemory).data(),
                                          int(fixFor(FailureCategory::OutOfMemory).size()));
    const QString detail = model.index(row, 0).data(LedgerModel::FailureDetailRole).toString();
    QVERIFY2(detail.contains(fix), qPrintable(detail));
    QVERIFY(detail.contains(QStringLiteral("CUDA out of memory. Tried to allocate 2.00 GiB")));
    QVERIFY2(detail.contains(QString::fromUtf8(kOomDetail)), qPrintable(detail));
    const QString tip = model.index(row, LedgerModel::Failure).data(Qt::ToolTipRole).toString();
    QVERIFY(tip.contains(fix) && tip.contains(QStringLiteral("Tried to allocate")));

    // A row without a failure has no detail to show.
    QVERIFY(model.index(0, 0).data(LedgerModel::FailureDetailRole).toString().isEmpty());
}

// The energy column (issue 31.4): joules per step over the row's processes, its tooltip with the
// interval, the first step's joules and the break-even in joules; "-" and why without a counter.
std::int64_t TestModels::energySweep()
{
    if (energySweep_ > 0)
        return energySweep_;
    const QString path = dir_.filePath("energy.db");
    std::int64_t sweepId = 0;
    {
        auto db = store::Database::open(path.toStdString());
        sweepId = test::addSweep(*db, {"energy", "ledger", 10000});
        RunConfig base, graph, cpu;
        base.device = graph.device = "cuda";
        graph.cudaGraph = true;
        cpu.device = "cpu";
        int position = 0;
        for (int r = 0; r < 2; ++r)
            for (const RunConfig *c : {&base, &graph, &cpu}) {
                test::RunSpec run = test::runOf(*c, position++);
                run.firstS = 1.5;
                run.steps = test::stepsAt(c->cudaGraph ? 6.0 : 10.0);
                EnergyReading e;
                if (c == &cpu)
                    e.problem = "no energy counter: a CPU run";
                else {
                    e.blockJoules = (c == &base ? 3.6 + 0.2 * r : 1.6) * 100;
                    e.blockSeconds = 2.0;
                    e.blockSteps = 100;
                    e.firstStepJoules = c == &base ? 40.0 : 400.0;
                    e.firstStepSeconds = 1.5;
                }
                run.energy = e;
                test::addRun(*db, sweepId, run);
            }
        db->flush();
    }
    energySweep_ = sweepId;
    return sweepId;
}

void TestModels::ledgerEnergyColumn()
{
    const QString path = dir_.filePath("energy.db");
    const std::int64_t sweepId = energySweep();
    LedgerModel model;
    model.load(*store::Reader::open(path.toStdString()), sweepId);
    QCOMPARE(model.headerData(LedgerModel::Energy, Qt::Horizontal).toString(), QStringLiteral("Energy per step (J)"));
    QCOMPARE(model.index(0, LedgerModel::Energy).data().toString(), QStringLiteral("3.70 J"));
    QCOMPARE(model.index(0, LedgerModel::Energy).data(LedgerModel::SortRole).toDouble(), 3.7);
    const QString tip = model.index(1, LedgerModel::Energy).data(Qt::ToolTipRole).toString();
    QVERIFY2(tip.startsWith(QStringLiteral("1.60 J/step [")) && tip.contains(QStringLiteral("First step: 400 J")) &&
                 tip.contains(QStringLiteral("Fewer joules than the baseline after 173 steps")),
             qPrintable(tip));
    QCOMPARE(model.index(2, LedgerModel::Energy).data().toString(), QStringLiteral("-"));
    QVERIFY(!model.index(2, LedgerModel::Energy).data(LedgerModel::SortRole).isValid());
    QCOMPARE(model.index(2, LedgerModel::Energy).data(Qt::ToolTipRole).toString(),
             QStringLiteral("No energy counter: a CPU run"));
}

// Issue 31.4's switch: the verdict by the fewest joules where the rows have energy figures. Over 100
// steps the CUDA graph finishes first, but its 400 J first step makes the baseline cheaper; over
// 10,000 steps both objectives pick the graph. The ledger page greys the switch without figures.
void TestModels::ledgerObjectiveByJoules()
{
    const QString path = dir_.filePath("energy.db");
    const std::int64_t sweepId = energySweep();
    RunController controller;
    ShownSweep shown(&controller);
    LedgerPage page(&shown);
    LedgerModel &model = *shown.ledger();
    model.load(*store::Reader::open(path.toStdString()), sweepId);
    QVERIFY(model.canRecommendByJoules());
    QVERIFY(page.objectiveBox()->isEnabled());
    model.setPlannedSteps(100);
    QCOMPARE(model.ledger().recommended, std::optional<std::size_t>(1)); // by time: the graph
    QCOMPARE(model.ledger().fewestJoules, std::optional<std::size_t>(0));
    QVERIFY2(model.recommendation().contains(QStringLiteral("fewest joules")), qPrintable(model.recommendation()));

    page.objectiveBox()->setCurrentIndex(page.objectiveBox()->findData(true)); // as the user does
    QVERIFY(model.byJoulesChosen());
    QCOMPARE(model.ledger().recommended, std::optional<std::size_t>(0));
    QVERIFY2(page.headlineText().contains(QStringLiteral("the fewest joules")), qPrintable(page.headlineText()));
    QVERIFY2(model.recommendation().contains(QStringLiteral(" By time: ")), qPrintable(model.recommendation()));
    model.setPlannedSteps(10000); // another length keeps the objective
    QCOMPARE(model.ledger().recommended, std::optional<std::size_t>(1));
    QVERIFY(model.ledger().byJoules);

    page.objectiveBox()->setCurrentIndex(page.objectiveBox()->findData(false));
    model.setPlannedSteps(100);
    QCOMPARE(model.ledger().recommended, std::optional<std::size_t>(1)); // time's again
    QVERIFY(!model.ledger().byJoules);
    QVERIFY2(!page.headlineText().contains(QStringLiteral("joules")), qPrintable(page.headlineText()));

    // A CPU sweep has no figures to pick by: the switch is greyed and says why.
    model.load(*reader_, a_.id);
    QVERIFY(!model.canRecommendByJoules());
    QVERIFY(!page.objectiveBox()->isEnabled());
    QVERIFY(page.objectiveBox()->toolTip().contains(QStringLiteral("No row of this ledger has energy figures")));
}

// The peak memory column: the median over the row's processes against the baseline's, its tooltip
// with allocated, reserved, the processes' spread and n; "-" and why for a row without a figure.
void TestModels::ledgerPeakMemoryColumn()
{
    LedgerModel model;
    model.load(*reader_, a_.id);
    QCOMPARE(model.headerData(LedgerModel::PeakMemory, Qt::Horizontal).toString(),
             QStringLiteral("Peak memory (x baseline)"));
    const int baseline = rowOf(model, LedgerModel::ConfigNameRole, config("baseline"));
    const int cudnn = rowOf(model, LedgerModel::ConfigNameRole, config("cudnn-bench"));
    QCOMPARE(model.index(baseline, LedgerModel::PeakMemory).data().toString(), QStringLiteral("544 MiB"));
    QCOMPARE(model.index(cudnn, LedgerModel::PeakMemory).data().toString(), QStringLiteral("544 MiB (1.00x)"));
    QCOMPARE(model.index(cudnn, LedgerModel::PeakMemory).data(LedgerModel::SortRole).toDouble(), 544.0);
    const QString tip = model.index(cudnn, LedgerModel::PeakMemory).data(Qt::ToolTipRole).toString();
    QVERIFY2(tip.startsWith(QStringLiteral("Peak allocated 544 MiB (processes 512-576 MiB), reserved 632 MiB "
                                           "(processes 600-664 MiB), n=2")),
             qPrintable(tip));
    QVERIFY2(tip.endsWith(QStringLiteral("1.00x the baseline's memory")), qPrintable(tip));

    const int failed = rowOf(model, LedgerModel::ConfigNameRole, config("cuda-graph+sgd-fused"));
    QCOMPARE(model.index(failed, LedgerModel::PeakMemory).data().toString(), QStringLiteral("-"));
    QVERIFY(!model.index(failed, LedgerModel::PeakMemory).data(LedgerModel::SortRole).isValid());
    QVERIFY(model.index(failed, LedgerModel::PeakMemory)
                .data(Qt::ToolTipRole)
                .toString()
                .startsWith(QStringLiteral("Peak memory not measured")));
    // The verdict names what fits the batch the failed row could not.
    QVERIFY(model.ledger().recommended);
    const QString fits =
        QStringLiteral("cuda-graph+sgd-fused ran out of memory at batch %1; %2 fits it (peak 544 MiB).")
            .arg(model.ledger().batch)
            .arg(QString::fromStdString(model.ledger().rows[*model.ledger().recommended].label));
    QVERIFY2(model.caveats().contains(fits), qPrintable(model.caveats()));
}

void TestModels::ledgerSortsBySteadyState()
{
    LedgerModel model;
    model.load(*reader_, a_.id);
    QSortFilterProxyModel proxy;
    QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
    proxy.setSourceModel(&model);
    proxy.setSortRole(LedgerModel::SortRole);
    proxy.sort(LedgerModel::SteadyState, Qt::AscendingOrder);

    QStringList order;
    double previous = -1;
    bool sawMissing = false;
    for (int r = 0; r < proxy.rowCount(); ++r) {
        const QVariant v = proxy.index(r, LedgerModel::SteadyState).data(LedgerModel::SortRole);
        order << proxy.index(r, LedgerModel::Configuration).data().toString();
        if (!v.isValid()) {
            sawMissing = true;
            continue;
        }
        QVERIFY2(!sawMissing, "a missing figure sorted before a number");
        QVERIFY(v.toDouble() >= previous);
        previous = v.toDouble();
    }
    QCOMPARE(order,
             (QStringList{"bf16", "cudnn-bench", "cuda-graph", "channels-last", "baseline", "cuda-graph+sgd-fused"}));

    // Descending, the failed row stays at the bottom with FigureSortProxy.
    ui::FigureSortProxy figures;
    QAbstractItemModelTester figuresTester(&figures, QAbstractItemModelTester::FailureReportingMode::QtTest);
    figures.setSourceModel(&model);
    figures.setSortRole(LedgerModel::SortRole);
    figures.sort(LedgerModel::SteadyState, Qt::DescendingOrder);
    QStringList descending;
    for (int r = 0; r < figures.rowCount(); ++r)
        descending << figures.index(r, LedgerModel::Configuration).data().toString();
    QCOMPARE(descending,
             (QStringList{"baseline", "channels-last", "cuda-graph", "cudnn-bench", "bf16", "cuda-graph+sgd-fused"}));
    figures.sort(LedgerModel::BreakEven, Qt::AscendingOrder); // baseline and failed have none
    QCOMPARE(figures.index(0, LedgerModel::Configuration).data().toString(), QStringLiteral("bf16"));
    figures.sort(LedgerModel::BreakEven, Qt::DescendingOrder);
    QVERIFY(figures.index(0, LedgerModel::BreakEven).data(LedgerModel::SortRole).isValid());
    QVERIFY(!figures.index(5, LedgerModel::BreakEven).data(LedgerModel::SortRole).isValid());
}

void TestModels::ledgerRecommendationFollowsPlannedSteps()
{
    LedgerModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.load(*reader_, a_.id);
    QCOMPARE(model.plannedSteps(), qint64(10000));
    QVERIFY2(model.recommendation().startsWith(QStringLiteral("For 10000 steps: cudnn-bench finishes first")),
             qPrintable(model.recommendation()));

    QSignalSpy changed(&model, &LedgerModel::dataChanged);
    QSignalSpy text(&model, &LedgerModel::recommendationChanged);
    model.setPlannedSteps(100);
    QCOMPARE(model.plannedSteps(), qint64(100));
    QCOMPARE(changed.count(), 1);
    QCOMPARE(text.count(), 1);
    QVERIFY2(model.recommendation().startsWith(QStringLiteral("For 100 steps: baseline finishes first")),
             qPrintable(model.recommendation()));
    QCOMPARE(text.last().first().toString(), model.recommendation());
    QCOMPARE(model.ledger().plannedSteps, qint64(100));
    const auto recommendedLabel = [&] { return model.ledger().rows[model.ledger().recommended.value()].label; };
    QCOMPARE(recommendedLabel(), std::string("baseline"));

    // A recommendation computed apart (the ledger job's, for another length) brings its row along:
    // the bold row and the headline follow the text.
    report::Ledger apart = model.ledger();
    report::recommendFor(apart, 10000);
    model.setRecommendation(ui::LedgerRecommendation::of(apart));
    QVERIFY(model.recommendation().startsWith(QStringLiteral("For 10000 steps: cudnn-bench finishes first")));
    QCOMPARE(recommendedLabel(), std::string("cudnn-bench"));
    QVERIFY2(model.headline().startsWith(QStringLiteral("Use cudnn-bench")), qPrintable(model.headline()));
    QCOMPARE(model.ledger().leftOut, apart.leftOut);
    // ... and what each of its knobs is worth, and each start state's pick, of that same length.
    QCOMPARE(model.ledger().recommendedWorth.size(), apart.recommendedWorth.size());
    QVERIFY(!apart.recommendedWorth.empty());
    QCOMPARE(model.ledger().recommendedWorth.front().knob, std::string("cudnn-bench"));
    QCOMPARE(model.ledger().byStart.size(), apart.byStart.size());
    model.setPlannedSteps(100);

    // The chosen length holds for the next sweep loaded.
    model.load(*reader_, b_.id);
    QCOMPARE(model.plannedSteps(), qint64(100));
    QVERIFY(model.recommendation().startsWith(QStringLiteral("For 100 steps:")));
}

void TestModels::ledgerOnH200Database()
{
    LedgerModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    const auto b32 = h200Sweep(*h200_, "H200 ledger b32");
    QVERIFY(b32 > 0);
    model.load(*h200_, b32);
    QCOMPARE(model.rowCount(), 7);
    QCOMPARE(model.index(0, LedgerModel::Configuration).data().toString(), QStringLiteral("baseline"));
    // docs/results/h200-ledger.md: bf16 at 7.37 ms, 1.92x.
    const int bf16 = rowOf(model, Qt::DisplayRole, QStringLiteral("tf32+cudnn-bench+bf16"));
    QVERIFY(bf16 >= 0);
    QCOMPARE(model.index(bf16, LedgerModel::SteadyState).data().toString(), QStringLiteral("7.37 ms"));
    QVERIFY(model.index(bf16, LedgerModel::Speedup).data().toString().startsWith(QStringLiteral("1.92x [")));
    // The steady figure's tip says what the step computes against the H200's bf16 peak: 340.7 GFLOP
    // a step at 7.37 ms is 46.2 TFLOP/s, 4.7% of 989.4.
    const QString tip = model.index(bf16, LedgerModel::SteadyState).data(Qt::ToolTipRole).toString();
    QVERIFY2(tip.contains(QStringLiteral("340.7 GFLOP a step: 46.2 TFLOP/s, 4.7% of the bf16 dense peak")),
             qPrintable(tip));

    const QString tenThousand = model.recommendation();
    QVERIFY2(tenThousand.contains(QStringLiteral("cuda-graph+sgd-fused finishes first")), qPrintable(tenThousand));
    // One step: only the first step counts, and TF32 alone has the cheapest one (486 ms).
    model.setPlannedSteps(1);
    QVERIFY2(model.recommendation().startsWith(QStringLiteral("For 1 steps: tf32 finishes first")),
             qPrintable(model.recommendation()));
    QVERIFY(model.recommendation() != tenThousand);
}

void TestModels::ledgerReloadAndClear()
{
    LedgerModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.load(*reader_, a_.id);
    QCOMPARE(model.rowCount(), 6);
    model.load(*reader_, b_.id);
    QCOMPARE(model.rowCount(), 4);
    model.setLedger(report::buildLedger(*reader_, a_.id));
    QCOMPARE(model.rowCount(), 6);
    model.clear();
    QCOMPARE(model.rowCount(), 0);
    QVERIFY(model.recommendation().isEmpty());
    model.setPlannedSteps(500); // on an empty model: no crash, remembered
    QCOMPARE(model.plannedSteps(), qint64(500));
    model.load(*reader_, 999999); // no such sweep: empty, not a crash
    QCOMPARE(model.rowCount(), 0);
}

void TestModels::historyTree()
{
    HistoryModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.load(*reader_);
    QCOMPARE(model.rowCount(), 2);

    const auto sweeps = reader_->sweeps();
    for (int r = 0; r < model.rowCount(); ++r) {
        const QModelIndex sweep = model.index(r, 0);
        const auto id = model.sweepId(sweep);
        QCOMPARE(id, sweeps[std::size_t(r)].id);
        QCOMPARE(model.runId(sweep), qint64(0));
        const auto runs = reader_->runs(id);
        QCOMPARE(model.rowCount(sweep), int(runs.size()));
        QCOMPARE(model.index(r, HistoryModel::Runs).data().toInt(), int(runs.size()));
        QCOMPARE(sweep.data().toString(), QString::fromStdString(sweeps[std::size_t(r)].name));
        for (int c = 0; c < model.rowCount(sweep); ++c) {
            const QModelIndex run = model.index(c, HistoryModel::Status, sweep);
            QCOMPARE(model.runId(run), qint64(runs[std::size_t(c)].id));
            QCOMPARE(model.sweepId(run), id);
            QCOMPARE(run.data(HistoryModel::RunIdRole).toLongLong(), qint64(runs[std::size_t(c)].id));
            QCOMPARE(model.parent(run), sweep);
            QCOMPARE(model.index(c, HistoryModel::Best, sweep).data().toLongLong(),
                     qint64(runs[std::size_t(c)].stepCount));
        }
    }
    const QModelIndex a = model.indexOfSweep(a_.id);
    QCOMPARE(model.rowCount(a), a_.runs);
    QCOMPARE(model.rowCount(model.indexOfSweep(b_.id)), b_.runs);
    // The failed runs say so, with their category.
    int failed = 0;
    for (int c = 0; c < model.rowCount(a); ++c)
        if (model.index(c, HistoryModel::Status, a).data().toString() == QLatin1String("failed")) {
            ++failed;
            QCOMPARE(model.index(c, HistoryModel::Runs, a).data().toString(), QStringLiteral("out-of-memory"));
        }
    QCOMPARE(failed, 2);
    // Sweep A ran to its end with those two failed: it finished, it did not "complete".
    const QModelIndex aStatus = model.index(a.row(), HistoryModel::Status);
    QCOMPARE(aStatus.data().toString(), QStringLiteral("finished, 2 of %1 failed").arg(a_.runs));
    QCOMPARE(foreground(aStatus), ui::failureColor());
    // Best steady of A is bf16 (5 ms): the history does not run the accuracy gate.
    QVERIFY2(model.index(a.row(), HistoryModel::Best).data().toString().startsWith(QStringLiteral("5.0")),
             qPrintable(model.index(a.row(), HistoryModel::Best).data().toString()));

    model.load(*h200_);
    QCOMPARE(model.rowCount(), 2); // batch 32 and batch 128
    for (int r = 0; r < 2; ++r) {
        QCOMPARE(model.rowCount(model.index(r, 0)), 21);
        QVERIFY(model.index(r, HistoryModel::Best).data().toString().contains(QStringLiteral("sgd-fused")));
    }
    model.clear();
    QCOMPARE(model.rowCount(), 0);
    QCOMPARE(model.sweepId(QModelIndex()), qint64(0));
}

void TestModels::historyFilters()
{
    HistoryModel model;
    model.load(*reader_);
    QSortFilterProxyModel proxy;
    QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
    proxy.setSourceModel(&model);
    proxy.setRecursiveFilteringEnabled(true);
    proxy.setFilterRole(HistoryModel::FilterRole);
    proxy.setFilterFixedString(QStringLiteral("out-of-memory"));
    QCOMPARE(proxy.rowCount(), 1); // only sweep A has a run that ran out of memory
    const QModelIndex sweep = proxy.index(0, 0);
    QCOMPARE(model.sweepId(proxy.mapToSource(sweep)), a_.id);
    QCOMPARE(proxy.rowCount(sweep), 2);
    proxy.setFilterFixedString(QStringLiteral("synthetic B"));
    QCOMPARE(proxy.rowCount(), 1);
    proxy.setFilterFixedString(QString());
    QCOMPARE(proxy.rowCount(), 2);
}

void TestModels::environmentTimingFlagsLaunchBoundAndPinning()
{
    auto json = [](const RunConfig &c) {
        return QString::fromUtf8(QJsonDocument(toJson(c)).toJson(QJsonDocument::Compact));
    };
    RunConfig eager;
    eager.device = "cuda";
    eager.autocast = Autocast::BF16;
    eager.channelsLast = true;
    RunConfig pinned = eager;
    pinned.cpuAffinity = "one";
    RunConfig graph = pinned;
    graph.cudaGraph = true;
    // The H200 figures: unpinned wall far above GPU time; pinned 5.3 ms; the graph GPU-bound.
    const QList<ui::RunTiming> runs{{json(eager), 8.0, 8.4}, {json(eager), 8.4, 8.6}, {json(pinned), 5.3, 5.5},
                                    {json(graph), 4.0, 4.1}, {json(eager), 0, 3.0},   {QStringLiteral("bad"), 1, 9}};
    // The GPU time alone (wall unknown) says nothing about launches.
    QVERIFY(ui::assessTiming({{json(eager), 4.0, 0}}).isEmpty());

    auto entries = ui::assessTiming(runs);
    auto find = [&](const char *key) {
        for (const auto &e : entries)
            if (e.key == QLatin1String(key))
                return e;
        return ui::EnvironmentEntry{};
    };
    // Nothing launch-bound yet: the wall times sit within 1.3x of the GPU's.
    QVERIFY(find("launch_bound").key.isEmpty());
    const auto pinning = find("cpu_pinning");
    QCOMPARE(pinning.severity, ui::Severity::Info);
    QVERIFY2(pinning.value.contains(QStringLiteral("bf16+channels-last+pin-one-core: 5.30 ms pinned vs 8.20 ms "
                                                   "unpinned (1.55x faster)")),
             qPrintable(pinning.value));

    // Wall well above GPU time (the GPU idles between launches): flagged, with the fix.
    entries = ui::assessTiming({{json(eager), 5.0, 9.0}, {json(graph), 4.0, 4.1}});
    const auto bound = find("launch_bound");
    QCOMPARE(bound.severity, ui::Severity::Warning);
    QVERIFY2(bound.value.startsWith(QStringLiteral("1 of 2 configurations; worst bf16+channels-last")),
             qPrintable(bound.value));
    QVERIFY(bound.assessment.contains(QStringLiteral("launch-bound: the CPU limits this step")));
    QVERIFY(bound.fix.contains(QStringLiteral("cpu_affinity one")));
    QVERIFY(find("cpu_pinning").key.isEmpty());

    // A pinned environment record says so.
    EnvironmentModel model;
    model.setEnvironmentJson(QStringLiteral(R"j({"gpu":"NVIDIA H200","cpu_affinity":"one","cpu_cores":"3"})j"));
    const int row = rowOf(model, EnvironmentModel::KeyRole, QStringLiteral("cpu_affinity"));
    QVERIFY(row >= 0);
    QVERIFY(model.index(row, EnvironmentModel::Assessment).data().toString().contains(QStringLiteral("pinned")));
    QCOMPARE(model.index(rowOf(model, EnvironmentModel::KeyRole, QStringLiteral("cpu_cores")), 0).data().toString(),
             QStringLiteral("CPU cores the worker ran on"));

    // The view shows the timing facts after the machine's, and keeps them when the record changes.
    model.setTiming(ui::assessTiming({{json(eager), 5.0, 9.0}}));
    QVERIFY(rowOf(model, EnvironmentModel::KeyRole, QStringLiteral("launch_bound")) >= 0);
    model.setEnvironmentJson(QStringLiteral(R"j({"gpu":"NVIDIA H200"})j"));
    QVERIFY(rowOf(model, EnvironmentModel::KeyRole, QStringLiteral("launch_bound")) >= 0);
    model.clear();
    QCOMPARE(model.rowCount(), 0);
}

void TestModels::environmentAssessments()
{
    EnvironmentModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setEnvironmentJson(QString::fromUtf8(kEnvironmentJson));
    QVERIFY(model.rowCount() >= 10);
    QCOMPARE(model.index(0, EnvironmentModel::Value).data().toString(), QStringLiteral("NVIDIA H200"));

    const int cache = rowOf(model, EnvironmentModel::KeyRole, QStringLiteral("cuda_cache_path"));
    QVERIFY(cache >= 0);
    QVERIFY(model.index(cache, EnvironmentModel::Assessment).data().toString().contains(QStringLiteral("first steps")));
    QVERIFY(model.index(cache, EnvironmentModel::Fix).data().toString().contains(QStringLiteral("fresh CUDA cache")));
    QCOMPARE(model.index(cache, 0).data(EnvironmentModel::SeverityRole).toInt(), int(ui::Severity::Warning));

    const int loading = rowOf(model, EnvironmentModel::KeyRole, QStringLiteral("cuda_module_loading"));
    QVERIFY(!model.index(loading, EnvironmentModel::Assessment).data().toString().isEmpty());
    QVERIFY(!model.index(loading, EnvironmentModel::Fix).data().toString().isEmpty());

    // No clock in the record: a row says so, since a throttled GPU would skew everything.
    const int clocks = rowOf(model, EnvironmentModel::KeyRole, QStringLiteral("gpu_clocks"));
    QVERIFY(clocks >= 0);
    QVERIFY(model.index(clocks, EnvironmentModel::Fix).data().toString().contains(QStringLiteral("nvidia-smi")));

    // 16 threads are plenty: nothing to say.
    const int threads = rowOf(model, EnvironmentModel::KeyRole, QStringLiteral("cpu_threads"));
    QVERIFY(model.index(threads, EnvironmentModel::Assessment).data().toString().isEmpty());

    model.setEnvironmentJson(QStringLiteral(R"j({"gpu":"NVIDIA H200","cpu_threads":"1","sm_clock_mhz":"1980",)j"
                                            R"j("cuda_module_loading":"EAGER","cuda_cache_path":"/tmp/fresh"})j"));
    QCOMPARE(rowOf(model, EnvironmentModel::KeyRole, QStringLiteral("gpu_clocks")), -1);
    QVERIFY(!model.index(rowOf(model, EnvironmentModel::KeyRole, QStringLiteral("cpu_threads")), EnvironmentModel::Fix)
                 .data()
                 .toString()
                 .isEmpty());
    QVERIFY(model
                .index(rowOf(model, EnvironmentModel::KeyRole, QStringLiteral("cuda_module_loading")),
                       EnvironmentModel::Assessment)
                .data()
                .toString()
                .contains(QStringLiteral("start-up")));
    QVERIFY(model
                .index(rowOf(model, EnvironmentModel::KeyRole, QStringLiteral("cuda_cache_path")),
                       EnvironmentModel::Assessment)
                .data()
                .toString()
                .isEmpty());

    model.setEnvironmentJson(QStringLiteral("not json"));
    QCOMPARE(model.rowCount(), 0);
    model.setEnvironmentJson(QString::fromUtf8(kEnvironmentJson));
    model.clear();
    QCOMPARE(model.rowCount(), 0);
}

void TestModels::environmentWithoutCuda()
{
    EnvironmentModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setEnvironmentJson(QStringLiteral(R"j({"gpu":"none (CUDA not available)","torch":"2.11.0","device":"cpu",)j"
                                            R"j("cuda_cache_path":"unset (default ~/.nv/ComputeCache)"})j"));
    const int gpu = rowOf(model, EnvironmentModel::KeyRole, QStringLiteral("gpu"));
    QCOMPARE(gpu, 0);
    QCOMPARE(model.index(gpu, 0).data(EnvironmentModel::SeverityRole).toInt(), int(ui::Severity::Problem));
    QCOMPARE(foreground(model.index(gpu, EnvironmentModel::Assessment)), ui::failureColor());
    QVERIFY(model.index(gpu, EnvironmentModel::Fix).data().toString().contains(QStringLiteral("driver")));
    // Without CUDA, CUDA caches and clocks do not matter.
    QVERIFY(model
                .index(rowOf(model, EnvironmentModel::KeyRole, QStringLiteral("cuda_cache_path")),
                       EnvironmentModel::Assessment)
                .data()
                .toString()
                .isEmpty());
    QCOMPARE(rowOf(model, EnvironmentModel::KeyRole, QStringLiteral("gpu_clocks")), -1);
}

void TestModels::comparisonVerdicts()
{
    ComparisonModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setLedgers(report::buildLedger(*reader_, a_.id), report::buildLedger(*reader_, b_.id));
    // In both: baseline, cudnn-bench, and cuda-graph (by label, batch differs). Then bf16,
    // channels-last and the failed one (A only), then tf32 (B only), each saying so.
    QCOMPARE(model.rowCount(), 7);
    QCOMPARE(model.index(0, ComparisonModel::Configuration).data().toString(), QStringLiteral("baseline"));
    QCOMPARE(model.index(5, ComparisonModel::Verdict).data().toString(), QStringLiteral("only in A"));
    QCOMPARE(model.index(6, ComparisonModel::Configuration).data().toString(), QStringLiteral("tf32"));
    QCOMPARE(model.index(6, ComparisonModel::Verdict).data().toString(), QStringLiteral("only in B"));
    QVERIFY(model.differences().isEmpty()); // same shape, device and environment
    QVERIFY(!model.perImage());

    const auto verdict = [&](const char *label) {
        return model.index(rowOf(model, Qt::DisplayRole, QString::fromLatin1(label)), ComparisonModel::Verdict);
    };
    QCOMPARE(verdict("baseline").data().toString(), QStringLiteral("faster"));
    QCOMPARE(foreground(verdict("baseline")), ui::successColor());
    const double ratio = model.index(0, ComparisonModel::Ratio).data(ComparisonModel::SortRole).toDouble();
    QVERIFY2(std::abs(ratio - 0.5) < 0.01, qPrintable(QString::number(ratio)));
    QVERIFY(model.index(0, ComparisonModel::Ratio).data().toString().startsWith(QStringLiteral("0.50x [")));
    const double baselineA = medianOf(a_.steadyMs["native cuda b8 64px c10 baseline"]);
    QVERIFY(model.index(0, ComparisonModel::SteadyA)
                .data()
                .toString()
                .startsWith(QString::number(baselineA, 'f', 2) + " ms ["));

    QCOMPARE(verdict("cudnn-bench").data().toString(), QStringLiteral("no significant difference (interval spans 1)"));
    QVERIFY(!verdict("cudnn-bench").data(Qt::ForegroundRole).isValid());

    QCOMPARE(verdict("cuda-graph").data().toString(), QStringLiteral("slower"));
    QCOMPARE(foreground(verdict("cuda-graph")), ui::failureColor());
    QCOMPARE(verdict("cuda-graph").data(ComparisonModel::OutcomeRole).toInt(), int(ComparisonModel::Outcome::Slower));

    // Swapped, the verdicts turn around.
    model.setLedgers(report::buildLedger(*reader_, b_.id), report::buildLedger(*reader_, a_.id));
    QCOMPARE(verdict("baseline").data().toString(), QStringLiteral("slower"));
    QCOMPARE(verdict("cuda-graph").data().toString(), QStringLiteral("faster"));
    model.clear();
    QCOMPARE(model.rowCount(), 0);
}

void TestModels::comparisonOnH200Batches()
{
    // The same seven configurations at batch 32 (A) and 128 (B): matched by knob label, since the
    // canonical names differ in the batch. Per step, four times the batch is slower everywhere; the
    // comparison says the batches differ and compares per image instead.
    ComparisonModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setLedgers(report::buildLedger(*h200_, h200Sweep(*h200_, "H200 ledger b32")),
                     report::buildLedger(*h200_, h200Sweep(*h200_, "H200 ledger b128")));
    QCOMPARE(model.rowCount(), 7);
    QVERIFY(model.perImage());
    QVERIFY2(model.differences().contains(QStringLiteral("Batch: A 32, B 128")),
             qPrintable(model.differences().join('\n')));
    QCOMPARE(model.differences().size(), 1); // same GPU, device, runtime, torch and image size
    QVERIFY(model.headerData(ComparisonModel::Ratio, Qt::Horizontal).toString().contains(QStringLiteral("per image")));
    // 14.12 ms / 32 and 46.99 ms / 128.
    QVERIFY(model.index(0, ComparisonModel::SteadyA).data().toString().startsWith(QStringLiteral("0.441 ms [")));
    QVERIFY(model.index(0, ComparisonModel::SteadyB).data().toString().startsWith(QStringLiteral("0.367 ms [")));
    for (int r = 0; r < model.rowCount(); ++r) {
        const auto a = model.figureA(r), b = model.figureB(r);
        QVERIFY(a && b);
        const double ratio = model.index(r, ComparisonModel::Ratio).data(ComparisonModel::SortRole).toDouble();
        QVERIFY2(std::abs(ratio - b->ms / a->ms) < 0.02 * ratio, qPrintable(QString::number(ratio)));
        QVERIFY(ratio < 1.3); // per step it was above 1.3 on every row
    }
}

QTEST_MAIN(TestModels)
#include "test_models.moc"
