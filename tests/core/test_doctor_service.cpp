// The doctor service (doctor_service.h): the rows both front-ends show, in their order, with stand-in
// workers (tests/tools/fake_worker.cpp) for the native worker and the Python interpreter; the one
// reading of a status word; the closing verdict of a Python doctor that said too little.
#include "supervisor_fixture.h"

#include "common/failure.h"
#include "platform/platform.h"
#include "supervisor/doctor_service.h"
#include "supervisor/leftovers.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>

namespace stepscope::supervisor
{
namespace
{

using namespace test;

// What the Python worker's --doctor prints: an item whose status is no known word among them.
constexpr const char *kDoctorLines =
    R"j({"type":"doctor","item":"python","status":"ok","value":"3.11.2 (/opt/venv/bin/python3)","fix":""})j"
    "\n"
    R"j({"type":"doctor","item":"torch","status":"ok","value":"2.11.0+cu130","fix":""})j"
    "\n"
    R"j({"type":"log","message":"not a row"})j"
    "\n"
    R"j({"type":"doctor","item":"triton","status":"maybe","value":"3.5.0","fix":""})j"
    "\n";

// The native worker's --probe answer on a GPU that is held back by heat.
constexpr const char *kHotGpu =
    R"j({"type":"hello","protocol":1,"env":{"driver":"580.159.04","cuda_driver_api":"13.0.0","cuda_runtime":"13.0.0","cudnn":"9.19.0","before_sm_clock_mhz":"1410","before_sm_clock_max_mhz":"1980","before_temperature_c":"87","before_throttle_reasons":"sw-thermal-slowdown"}})j"
    "\n";

class DoctorServiceTest : public SupervisorTest
{
  protected:
    QString write(const QString &name, const QByteArray &text)
    {
        QFile f(dir_.filePath(name));
        EXPECT_TRUE(f.open(QIODevice::WriteOnly));
        f.write(text);
        return f.fileName();
    }

    // A torch the lookup accepted, so that the native worker is started.
    TorchLocation usableTorch() const
    {
        return {"/opt/py/bin/python", "STEPSCOPE_PYTHON", dir_.filePath("site/torch"), "2.11.0+cpu", {}, {}};
    }

    // A Python that prints kDoctorLines for --doctor (the lines file stands where the script does).
    WorkerCommand doctorPython(const QStringList &after = {})
    {
        return {STEPSCOPE_FAKE_WORKER, QStringList{"--replay", write("doctor.jsonl", kDoctorLines)} + after, "test"};
    }

    static int indexOf(const QList<DoctorItem> &items, const QString &item)
    {
        for (int i = 0; i < items.size(); ++i)
            if (items[i].item == item)
                return i;
        return -1;
    }
};

TEST_F(DoctorServiceTest, ANativeWorkerThatCannotStartIsAFailRowWithItsFixBeforeThePythonRows)
{
    const DoctorRequest request{
        "stepscope-test 1.0", usableTorch(), {dir_.filePath("no-such-worker"), {}, "test"}, doctorPython(), "cpu"};
    QList<DoctorItem> streamed;
    DoctorProgress progress;
    progress.item = [&](const DoctorItem &item) { streamed.append(item); };
    const DoctorReport report = runDoctor(request, progress);

    QStringList names;
    for (const DoctorItem &i : report.items)
        names << i.item;
    EXPECT_EQ(names, QStringList({"stepscope", "python", "libtorch", "leftovers", "native worker", "python", "torch",
                                  "triton"}));
    const DoctorItem &native = report.items[indexOf(report.items, "native worker")];
    EXPECT_EQ(native.status, DoctorStatus::Fail);
    EXPECT_TRUE(native.value.startsWith("cannot start " + dir_.filePath("no-such-worker")))
        << native.value.toStdString();
    EXPECT_TRUE(native.fix.contains("STEPSCOPE_NATIVE_WORKER")) << native.fix.toStdString();
    EXPECT_EQ(report.items.back().status, DoctorStatus::Fail) << "triton's unknown word is a fail";
    EXPECT_EQ(report.device, "cpu");
    // The rows were handed over as they came, the same and in the same order.
    ASSERT_EQ(streamed.size(), report.items.size());
    for (int i = 0; i < streamed.size(); ++i)
        EXPECT_EQ(streamed[i].item, report.items[i].item);
}

// The doctor clears what killed sweeps left, as the next sweep would, and says so in a row of its own.
TEST_F(DoctorServiceTest, TheLeftoversRowSaysWhatKilledSweepsLeftAndWhatWentAway)
{
    std::error_code error;
    const std::string caches = dir_.filePath("cc").toStdString();
    const std::string mine = leftovers::makeOwnedFolder(caches, leftovers::kCachePrefix, error);
    ASSERT_FALSE(mine.empty()) << error.message();
    const QString dead = dir_.filePath("cc/sweep-1-dead01");
    ASSERT_TRUE(QDir().mkpath(dead));
    QFile owner(dead + "/owner");
    ASSERT_TRUE(owner.open(QIODevice::WriteOnly));
    owner.write(QString("pid 999999999\nhost %1\nmade 1\n").arg(QString::fromStdString(platform::hostName())).toUtf8());
    owner.close();
    DoctorRequest request{{}, usableTorch(), {dir_.filePath("none"), {}, {}}, {}, "cpu"};
    request.cacheRoot = QString::fromStdString(caches);
    const DoctorReport report = runDoctor(request);
    const int row = indexOf(report.items, "leftovers");
    ASSERT_GE(row, 0);
    EXPECT_EQ(report.items[row].status, DoctorStatus::Ok);
    EXPECT_TRUE(report.items[row].value.startsWith("removed 1 cache folder left by ended processes"))
        << report.items[row].value.toStdString();
    EXPECT_TRUE(report.items[row].value.contains("kept 1 of running processes"))
        << report.items[row].value.toStdString();
    EXPECT_FALSE(QFileInfo::exists(dead));
    EXPECT_TRUE(QFileInfo::exists(QString::fromStdString(mine)));
}

TEST_F(DoctorServiceTest, TheNativeWorkersAnswerPicksCudaAndReadsTheGpu)
{
    // First call --cuda-devices (one device), second --probe cuda:0 (a hot GPU).
    const QString count = write("count", "0");
    const WorkerCommand native{
        STEPSCOPE_FAKE_WORKER,
        {"--count", count, "--alternate", write("devices.txt", "1\n"), write("probe.jsonl", kHotGpu)},
        "test"};
    QString asked;
    DoctorProgress progress;
    progress.askingPython = [&](const QString &device) { asked = device; };
    const DoctorReport report = runDoctor({{}, usableTorch(), native, doctorPython(), {}}, progress);

    EXPECT_EQ(report.device, "cuda") << "what a run would pick where LibTorch sees a device";
    EXPECT_EQ(asked, "cuda");
    const int at = indexOf(report.items, "native worker");
    ASSERT_GE(at, 0);
    EXPECT_EQ(report.items[at].status, DoctorStatus::Ok);
    EXPECT_TRUE(report.items[at].value.startsWith("1 CUDA device(s) seen by LibTorch"))
        << report.items[at].value.toStdString();
    const int driver = indexOf(report.items, "driver");
    ASSERT_GT(driver, at);
    EXPECT_EQ(report.items[driver].value, "580.159.04 (CUDA driver API 13.0.0)");
    const DoctorItem &clocks = report.items[indexOf(report.items, "gpu clocks")];
    EXPECT_EQ(clocks.status, DoctorStatus::Warn);
    EXPECT_TRUE(clocks.fix.startsWith("The GPU is held back"));
    EXPECT_LT(indexOf(report.items, "gpu clocks"), indexOf(report.items, "torch")) << "native rows come first";
    EXPECT_EQ(indexOf(report.items, "stepscope"), -1) << "no program named, no row";
}

TEST_F(DoctorServiceTest, WithoutAUsableTorchTheNativeWorkerIsNotStartedAndSaysWhy)
{
    TorchLocation torch = usableTorch();
    torch.problem = "it has torch 1.0.0";
    torch.fix = "Run `stepscope-cli setup`.";
    const DoctorReport report =
        runDoctor({{}, torch, {dir_.filePath("no-such-worker"), {}, "test"}, doctorPython(), "cpu"});
    const DoctorItem &native = report.items[indexOf(report.items, "native worker")];
    EXPECT_EQ(native.status, DoctorStatus::Fail);
    EXPECT_TRUE(native.value.startsWith("not started")) << native.value.toStdString();
    EXPECT_EQ(native.fix, torch.fix);
    EXPECT_GE(indexOf(report.items, "torch"), 0) << "the Python worker is still asked";
}

TEST_F(DoctorServiceTest, APythonDoctorThatSaysTooLittleGetsAVerdict)
{
    // Silent, failing, with a traceback on stderr.
    const WorkerCommand silent{
        STEPSCOPE_FAKE_WORKER,
        {"--replay", write("nothing.jsonl", ""), "--stderr", "Traceback: SyntaxError", "--exit", "1"},
        "test"};
    DoctorReport report = runDoctor({{}, usableTorch(), {dir_.filePath("none"), {}, {}}, silent, "cpu"});
    const DoctorItem &verdict = report.items.back();
    EXPECT_EQ(verdict.item, "python worker");
    EXPECT_EQ(verdict.status, DoctorStatus::Fail);
    EXPECT_TRUE(verdict.value.contains("said nothing") && verdict.value.contains("SyntaxError"))
        << verdict.value.toStdString();
    EXPECT_TRUE(verdict.fix.contains("--doctor --device cpu")) << "the command to run by hand";

    // An interpreter that cannot start, and a script that is not there.
    report = runDoctor({{},
                        usableTorch(),
                        {dir_.filePath("none"), {}, {}},
                        {dir_.filePath("no-python"), {"-u", write("worker.py", "")}, {}},
                        "cpu"});
    EXPECT_TRUE(report.items.back().value.startsWith("cannot start " + dir_.filePath("no-python")));
    const auto notFound = fixFor(FailureCategory::PythonNotFound);
    EXPECT_EQ(report.items.back().fix.toStdString(), std::string(notFound));
    report = runDoctor({{},
                        usableTorch(),
                        {dir_.filePath("none"), {}, {}},
                        {STEPSCOPE_FAKE_WORKER, {"-u", dir_.filePath("missing.py")}, {}},
                        "cpu"});
    EXPECT_EQ(report.items.back().value, dir_.filePath("missing.py") + " is missing");

    // A doctor that said why it fails needs no verdict; one that stopped without a fail row does.
    const QList<DoctorItem> saidFail{{"torch", DoctorStatus::Fail, "missing", "pip install torch"}};
    const QList<DoctorItem> saidOk{{"torch", DoctorStatus::Ok, "2.11.0", {}}};
    ProcessRun run;
    run.started = true;
    run.exitCode = 1;
    EXPECT_FALSE(doctorVerdict(saidFail, run));
    EXPECT_TRUE(doctorVerdict(saidOk, run)->value.contains("exit code 1"));
    run.crashed = true;
    EXPECT_TRUE(doctorVerdict(saidFail + saidOk, run) == std::nullopt);
    EXPECT_TRUE(doctorVerdict(saidOk, run)->value.contains("crashed"));
    run.timedOut = true;
    EXPECT_TRUE(doctorVerdict(saidFail, run)->value.contains("180 s"));
}

TEST_F(DoctorServiceTest, TheStopFlagEndsTheRunUnderWayWithoutAVerdict)
{
    bool stop = false;
    DoctorProgress progress;
    progress.item = [&](const DoctorItem &item) { stop = stop || item.item == "torch"; };
    progress.stop = [&] { return stop; };
    QElapsedTimer clock;
    clock.start();
    const DoctorReport report = runDoctor(
        {{}, usableTorch(), {dir_.filePath("none"), {}, {}}, doctorPython({"--sleep", "30"}), "cpu"}, progress);
    EXPECT_LT(clock.elapsed(), 10000) << "the sleeping doctor was killed";
    EXPECT_TRUE(report.stopped);
    EXPECT_EQ(indexOf(report.items, "python worker"), -1) << "a stopped doctor has no verdict";
}

TEST(DoctorStatusTest, OneMappingAndAnUnknownWordIsFail)
{
    for (DoctorStatus status : {DoctorStatus::Ok, DoctorStatus::Warn, DoctorStatus::Fail})
        EXPECT_EQ(doctorStatusFromString(QString::fromLatin1(toString(status))), status);
    EXPECT_STREQ(toString(DoctorStatus::Warn), "warn");
    for (const char *word : {"maybe", "OK", "", "passed"})
        EXPECT_EQ(doctorStatusFromString(QString::fromLatin1(word)), DoctorStatus::Fail) << word;
    const auto item =
        parseDoctorLine(R"j({"type":"doctor","item":"triton","status":"maybe","value":"3.5.0","fix":""})j");
    ASSERT_TRUE(item);
    EXPECT_EQ(item->status, DoctorStatus::Fail);
    EXPECT_FALSE(parseDoctorLine(R"j({"type":"log","message":"x"})j"));
    EXPECT_EQ(countOf({*item, {"torch", DoctorStatus::Ok, {}, {}}}, DoctorStatus::Fail), 1);
}

} // namespace
} // namespace stepscope::supervisor
