// Which Python and which torch Stepscope uses (torch_location.h): the order of the lookup, torch found
// without importing it, the words of a mismatch, the native worker's library path, and where an
// installed copy finds its workers. Interpreters are shell scripts in a temporary folder that
// answer the lookup's question as a Python would.
#include "scoped_env.h"
#include "supervisor_fixture.h"

#include "common/blocking_call.h"
#include "supervisor/device_probe.h"
#include "supervisor/doctor_items.h"
#include "supervisor/managed_python.h"
#include "supervisor/torch_location.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>

#include <optional>
#include <string>
#include <vector>

namespace stepscope::supervisor
{
namespace
{

using namespace test;
using stepscope::test::ScopedEnv;

// The torch release a fake install must claim to be accepted: the native worker's, or any.
QString acceptedVersion()
{
    return expectedTorchVersion().isEmpty() ? QStringLiteral("2.11.0") : expectedTorchVersion();
}

class TorchLocationTest : public SupervisorTest
{
  protected:
    void SetUp() override
    {
        SupervisorTest::SetUp();
        // Nothing of this machine's own setup takes part unless a test puts it there.
        python_ = std::make_unique<ScopedEnv>("STEPSCOPE_PYTHON", QByteArray());
        venv_ = std::make_unique<ScopedEnv>("STEPSCOPE_VENV", dir_.filePath("venv").toLocal8Bit());
    }

    QString write(const QString &relative, const QByteArray &text, bool executable = false)
    {
        const QString path = dir_.filePath(relative);
        QDir().mkpath(QFileInfo(path).absolutePath());
        QFile f(path);
        EXPECT_TRUE(f.open(QIODevice::WriteOnly)) << path.toStdString();
        f.write(text);
        f.close();
        if (executable)
            f.setPermissions(f.permissions() | QFileDevice::ExeOwner);
        return path;
    }

    // An interpreter that prints `answer` for any question (the lookup asks one thing: where torch is).
    QString fakePython(const QString &relative, const QString &answer = {})
    {
        return write(relative, "#!/bin/sh\necho '" + answer.toUtf8() + "'\n", true);
    }

    // A torch package as pip lays it out: version.py and lib/.
    QString fakeTorch(const QString &version)
    {
        const QString torch = dir_.filePath("site-packages/torch");
        write("site-packages/torch/version.py",
              "from typing import Optional\n__all__ = ['__version__']\n__version__ = '" + version.toUtf8() +
                  "'\ncuda: Optional[str] = '13.0'\n");
        QDir().mkpath(torch + "/lib");
        return torch;
    }

    std::unique_ptr<ScopedEnv> python_, venv_;
};

TEST_F(TorchLocationTest, PythonLookupOrder)
{
    const QString configured = fakePython("configured/python");
    const QString fromEnv = fakePython("env/python");
    const QString onPath = fakePython("path/python3");
    const ScopedEnv path("PATH", dir_.filePath("path").toLocal8Bit());

    // Configured first (a bare name is looked up on PATH), then STEPSCOPE_PYTHON.
    EXPECT_EQ(choosePython(configured, true).python, configured);
    EXPECT_EQ(choosePython(configured, true).origin, "--python / settings");
    EXPECT_EQ(QFileInfo(choosePython("python3", true).python).canonicalFilePath(),
              QFileInfo(onPath).canonicalFilePath());
    {
        const ScopedEnv env("STEPSCOPE_PYTHON", fromEnv.toLocal8Bit());
        EXPECT_EQ(choosePython({}, true).python, fromEnv);
        EXPECT_EQ(choosePython({}, true).origin, "STEPSCOPE_PYTHON");
        EXPECT_EQ(choosePython(configured, true).python, configured);
    }
    {
        // Set but not there: said, never replaced by another Python (another torch).
        const ScopedEnv env("STEPSCOPE_PYTHON", "/nonexistent/bin/python");
        const PythonChoice c = choosePython({}, true);
        EXPECT_TRUE(c.python.isEmpty());
        EXPECT_TRUE(c.problem.contains("STEPSCOPE_PYTHON=/nonexistent/bin/python")) << c.problem.toStdString();
        EXPECT_TRUE(c.fix.contains("STEPSCOPE_PYTHON")) << c.fix.toStdString();
    }

    // Without a managed environment: python3 on PATH (from an installed copy as from the build tree).
    EXPECT_EQ(choosePython({}, false).python, onPath);
    EXPECT_EQ(choosePython({}, false).origin, "python3 on PATH");

    // The managed environment comes before PATH once it is there...
    const QString managed = fakePython("venv/bin/python");
    ASSERT_EQ(managedPython(), managed);
    EXPECT_EQ(choosePython({}, false).python, managed);
    EXPECT_EQ(choosePython({}, true).origin, "the managed environment");
    {
        const ScopedEnv env("STEPSCOPE_PYTHON", fromEnv.toLocal8Bit());
        EXPECT_EQ(choosePython({}, false).python, fromEnv) << "STEPSCOPE_PYTHON before the managed environment";
    }
    // ...and is skipped while its setup has not finished, which the origin says.
    write("venv/.stepscope-setup-incomplete", "");
    PythonChoice c = choosePython({}, false);
    EXPECT_EQ(c.python, onPath);
    EXPECT_TRUE(c.origin.contains("python3 on PATH")) << c.origin.toStdString();
    EXPECT_TRUE(c.origin.contains("did not finish")) << c.origin.toStdString();

    // With nothing else either, what was tried, the unfinished setup among it, and the fix.
    const ScopedEnv nothing("PATH", "/nonexistent");
    c = choosePython({}, false);
    EXPECT_TRUE(c.python.isEmpty());
    EXPECT_TRUE(c.problem.contains("did not finish")) << c.problem.toStdString();
    EXPECT_TRUE(c.problem.contains("python3 on PATH")) << c.problem.toStdString();
    EXPECT_TRUE(c.fix.contains("stepscope-cli setup")) << c.fix.toStdString();
    EXPECT_TRUE(c.fix.contains("--python")) << c.fix.toStdString();
    // An installed copy never names the build's environment, even when it exists here.
    EXPECT_FALSE(c.problem.contains("the build's environment")) << c.problem.toStdString();
    // The tests run from the build's bin/ folder: there it is a candidate.
    EXPECT_TRUE(runningFromBuildTree());
    // And defaultPythonWorker follows the same order.
    QFile::remove(dir_.filePath("venv/.stepscope-setup-incomplete"));
    EXPECT_EQ(defaultPythonWorker().program, managed);
}

TEST_F(TorchLocationTest, TorchIsFoundWithoutImportingIt)
{
    const QString torch = fakeTorch(acceptedVersion() + "+cu130");
    const QString python = fakePython("bin/python", torch);
    const TorchLocation t = locateTorch(python);
    EXPECT_TRUE(t.usable()) << t.problem.toStdString();
    EXPECT_EQ(t.python, python);
    EXPECT_EQ(t.origin, "--python / settings");
    EXPECT_EQ(t.torchDir, torch);
    EXPECT_EQ(t.version, acceptedVersion() + "+cu130");
    // The supervisor's question to a real Python: its spec lookup, not an import (a torch/ package
    // whose import would fail is found all the same).
    const QString real = QStandardPaths::findExecutable("python3");
    if (real.isEmpty())
        GTEST_SKIP() << "no python3 on PATH";
    write("site-packages/torch/__init__.py", "raise ImportError('imported')\n");
    const ScopedEnv path("PYTHONPATH", dir_.filePath("site-packages").toLocal8Bit());
    const TorchLocation r = locateTorch(real);
    EXPECT_TRUE(r.usable()) << r.problem.toStdString();
    EXPECT_EQ(QFileInfo(r.torchDir).canonicalFilePath(), QFileInfo(torch).canonicalFilePath());
}

// The thread that must not wait (blocking_call.h) hears of it when a lookup is made there.
TEST_F(TorchLocationTest, TheLookupSaysItWaitsForItsPython)
{
    const QString python = fakePython("bin/python", fakeTorch(acceptedVersion()));
    std::vector<std::string> waits;
    forbidBlockingOnThisThread([&waits](std::string_view what) { waits.emplace_back(what); });
    const TorchLocation t = locateTorch(python);
    allowBlocking();
    EXPECT_TRUE(t.usable()) << t.problem.toStdString();
    ASSERT_EQ(waits.size(), 1u);
    EXPECT_TRUE(contains(waits.front(), python.toStdString())) << waits.front();
}

// The dashboard starts the probe on its UI thread: start() returns at once, the lookup's Python runs
// elsewhere, and nothing waits on the caller's thread until the answer.
TEST_F(TorchLocationTest, TheDeviceProbeLooksForTorchOffTheCallersThread)
{
    const QString torch = fakeTorch(acceptedVersion());
    const QString slowPython = write("slow/python", "#!/bin/sh\nsleep 1\necho '" + torch.toUtf8() + "'\n", true);
    const QString bare = fakePython("bare/python");
    const QString native = write("native/stepscope-worker", "#!/bin/sh\necho 2\n", true);
    const ScopedEnv worker("STEPSCOPE_NATIVE_WORKER", native.toLocal8Bit());
    std::vector<std::string> waits;
    forbidBlockingOnThisThread([&waits](std::string_view what) { waits.emplace_back(what); });

    DeviceProbe probe;
    std::optional<NativeProbe> answer;
    int found = -1;
    QString missing;
    QEventLoop loop;
    QObject::connect(&probe, &DeviceProbe::answered, &loop, [&](const NativeProbe &a) {
        answer = a;
        loop.quit();
    });
    QObject::connect(&probe, &DeviceProbe::found, &loop, [&found](int count) { found = count; });
    QObject::connect(&probe, &DeviceProbe::torchMissing, &loop, [&missing](const QString &why) { missing = why; });
    QTimer::singleShot(30000, &loop, &QEventLoop::quit);
    QElapsedTimer clock;
    clock.start();
    probe.start(slowPython);
    const qint64 startMs = clock.elapsed();
    EXPECT_TRUE(probe.isRunning());
    EXPECT_FALSE(answer) << "nothing is said from inside start()";
    loop.exec();
    EXPECT_LT(startMs, 500) << "start() waited for the Python's second";
    EXPECT_GE(clock.elapsed(), 1000) << "the answer came before the lookup ended";
    ASSERT_TRUE(answer);
    EXPECT_TRUE(answer->started);
    EXPECT_EQ(answer->exitCode, 0);
    EXPECT_EQ(answer->cudaDevices, 2);
    EXPECT_EQ(found, 2);
    EXPECT_FALSE(probe.isRunning());

    // Without a usable torch the answer comes from the loop as well, and no worker is asked.
    answer.reset();
    probe.start(bare);
    EXPECT_FALSE(answer);
    loop.exec();
    allowBlocking();
    ASSERT_TRUE(answer);
    EXPECT_TRUE(answer->torchMissing);
    EXPECT_TRUE(missing.contains("has no torch")) << missing.toStdString();
    EXPECT_TRUE(waits.empty()) << waits.front();
}

TEST_F(TorchLocationTest, MismatchAndMissingTorchAreSaidWithTheFix)
{
    fakeTorch("1.0.0+cpu");
    const QString python = fakePython("bin/python", dir_.filePath("site-packages/torch"));
    const ScopedEnv env("STEPSCOPE_PYTHON", python.toLocal8Bit());
    const TorchLocation t = locateTorch();
    if (expectedTorchVersion().isEmpty()) {
        EXPECT_TRUE(t.usable()) << "without the engine any torch is accepted: " << t.problem.toStdString();
    } else {
        ASSERT_FALSE(t.usable());
        for (const QString &said :
             {QStringLiteral("1.0.0+cpu"), expectedTorchVersion(), python, QStringLiteral("STEPSCOPE_PYTHON")})
            EXPECT_TRUE(t.problem.contains(said)) << said.toStdString() << " in " << t.problem.toStdString();
        EXPECT_TRUE(t.fix.contains("stepscope-cli setup")) << t.fix.toStdString();
        EXPECT_TRUE(t.fix.contains("--python")) << t.fix.toStdString();
        const Failure f = torchFailure(t);
        EXPECT_EQ(f.category, FailureCategory::TorchVersionMismatch);
        EXPECT_TRUE(contains(f.message, "stepscope-cli setup")) << f.message;
    }

    // A Python without torch.
    const QString bare = fakePython("bare/python");
    const TorchLocation none = locateTorch(bare);
    EXPECT_FALSE(none.usable());
    EXPECT_TRUE(none.problem.contains(bare + " (--python / settings) has no torch")) << none.problem.toStdString();
    EXPECT_EQ(torchFailure(none).category, FailureCategory::TorchMissing);

    // A Python that is not there.
    const TorchLocation gone = locateTorch(dir_.filePath("no/python"));
    EXPECT_FALSE(gone.usable());
    EXPECT_TRUE(gone.problem.contains(dir_.filePath("no/python"))) << gone.problem.toStdString();
    EXPECT_EQ(torchFailure(gone).category, FailureCategory::PythonNotFound);

    // A Python that breaks when asked.
    const QString broken = write("broken/python", "#!/bin/sh\necho 'no encodings' >&2\nexit 1\n", true);
    const TorchLocation b = locateTorch(broken);
    EXPECT_FALSE(b.usable());
    EXPECT_TRUE(b.problem.contains("no encodings")) << b.problem.toStdString();
}

TEST_F(TorchLocationTest, NativeWorkerLoadsTheLocatedLibTorchFirst)
{
    TorchLocation t;
    t.torchDir = "/opt/py/site-packages/torch";
    {
        const ScopedEnv ld("LD_LIBRARY_PATH", "/usr/local/other/lib");
        const QProcessEnvironment env = nativeWorkerEnvironment(t);
        EXPECT_EQ(env.value("LD_LIBRARY_PATH"), "/opt/py/site-packages/torch/lib:/usr/local/other/lib");
        // Still everything a worker gets.
        EXPECT_EQ(env.contains("STEPSCOPE_EXPECTED_TORCH"), !expectedTorchVersion().isEmpty());
    }
    {
        const ScopedEnv ld("LD_LIBRARY_PATH", QByteArray());
        EXPECT_EQ(nativeWorkerEnvironment(t).value("LD_LIBRARY_PATH"), "/opt/py/site-packages/torch/lib");
        EXPECT_FALSE(nativeWorkerEnvironment(TorchLocation{}).contains("LD_LIBRARY_PATH"))
            << "no torch located, nothing added";
    }

    // The pip wheels keep the CUDA runtime beside torch (site-packages/nvidia/<part>/lib), and the
    // native worker links it itself: those folders follow torch/lib, in name order.
    {
        const ScopedEnv ld("LD_LIBRARY_PATH", QByteArray());
        write("site-packages/torch/version.py", "__version__ = '2.11.0'\n");
        write("site-packages/nvidia/cu13/lib/libcudart.so.13", "");
        write("site-packages/nvidia/cudnn/lib/libcudnn.so.9", "");
        write("site-packages/nvidia/no_lib_here/README", "");
        TorchLocation wheel;
        wheel.torchDir = dir_.filePath("site-packages/torch");
        const QString site = QDir::cleanPath(dir_.filePath("site-packages"));
        EXPECT_EQ(nativeWorkerEnvironment(wheel).value("LD_LIBRARY_PATH"),
                  site + "/torch/lib:" + site + "/nvidia/cu13/lib:" + site + "/nvidia/cudnn/lib");
    }

    // The process a sweep starts has it.
    RunnerOptions o = options(fakeWorker({"--env", "LD_LIBRARY_PATH", "--exit", "3"}));
    o.torch = t;
    const SweepPlan p = plan({smallConfig()});
    run(p, o);
    const auto r = reader()->run(p.runs[0].runId);
    ASSERT_TRUE(r);
    EXPECT_TRUE(contains(r->detail, "LD_LIBRARY_PATH=[/opt/py/site-packages/torch/lib")) << r->detail;
}

TEST_F(TorchLocationTest, NativeRunsWithoutUsableTorchFailWithTheFix)
{
    const TorchLocation t{
        "/opt/py/bin/python",        "STEPSCOPE_PYTHON", {}, {}, "/opt/py/bin/python (STEPSCOPE_PYTHON) has no torch",
        "Run `stepscope-cli setup`."};
    RunnerOptions o = options(fakeWorker({"--stderr", "started anyway", "--exit", "0"}));
    o.torch = t;
    const SweepPlan p = plan({smallConfig()});
    const Outcome out = run(p, o);
    ASSERT_EQ(out.runFinished.size(), 1u);
    EXPECT_EQ(out.runFinished[0].second, "torch-missing");
    const auto r = reader()->run(p.runs[0].runId);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->message, "/opt/py/bin/python (STEPSCOPE_PYTHON) has no torch. Run `stepscope-cli setup`.");
    EXPECT_FALSE(contains(r->detail, "started anyway")) << "no worker is started";
}

TEST_F(TorchLocationTest, DoctorSaysWhichPythonAndLibTorch)
{
    TorchLocation t{
        "/opt/py/bin/python", "the managed environment", "/opt/py/site-packages/torch", "2.11.0+cu130", {}, {}};
    QList<DoctorItem> items = torchDoctorItems(t);
    ASSERT_EQ(items.size(), 2);
    EXPECT_EQ(items[0].item, "python");
    EXPECT_EQ(items[0].value, "/opt/py/bin/python (the managed environment)");
    EXPECT_EQ(items[1].item, "libtorch");
    EXPECT_EQ(items[1].status, DoctorStatus::Ok);
    EXPECT_EQ(items[1].value, "/opt/py/site-packages/torch/lib (torch 2.11.0+cu130)");

    t.problem = "it has torch 1.0.0";
    t.fix = "Run `stepscope-cli setup`.";
    items = torchDoctorItems(t);
    ASSERT_EQ(items.size(), 2);
    EXPECT_EQ(items[1].status, DoctorStatus::Fail);
    EXPECT_EQ(items[1].fix, t.fix);

    // No Python: one row, what was tried and the fix.
    items = torchDoctorItems(TorchLocation{{}, {}, {}, {}, "no Python interpreter found (tried ...)", "Run setup."});
    ASSERT_EQ(items.size(), 1);
    EXPECT_EQ(items[0].item, "python");
    EXPECT_EQ(items[0].status, DoctorStatus::Fail);
}

TEST_F(TorchLocationTest, InstalledLayoutFindsItsWorkers)
{
    const QString bin = dir_.filePath("prefix/bin");
    QDir().mkpath(bin);
    const QString script = write("prefix/share/stepscope/python/stepscope_worker.py", "");
    const QString native = write("prefix/lib/stepscope/stepscope-worker", "", true);
    EXPECT_EQ(pythonWorkerScriptFor(bin), script);
    EXPECT_EQ(nativeWorkerFor(bin), native);
    // The build tree: beside the program wins.
    const QString besideScript = write("prefix/bin/stepscope_worker.py", "");
    const QString besideNative = write("prefix/bin/stepscope-worker", "", true);
    EXPECT_EQ(pythonWorkerScriptFor(bin), besideScript);
    EXPECT_EQ(nativeWorkerFor(bin), besideNative);
    // Neither: beside the program, the place a missing worker's message names.
    const QString empty = dir_.filePath("empty/bin");
    QDir().mkpath(empty);
    EXPECT_EQ(nativeWorkerFor(empty), empty + "/stepscope-worker");
    EXPECT_EQ(pythonWorkerScriptFor(empty), empty + "/stepscope_worker.py");
}

} // namespace
} // namespace stepscope::supervisor
