// The setup job's reading of pip (supervisor/setup_progress.h) and of its failures
// (supervisor/setup_failure.h), on lines recorded from pip 23.2.1 (Debian 12's venv) and pip 24.2.
// The job itself runs against a local index in tests/cli/cli_setup.sh and tests/ui/test_setup_dialog.cpp.
#include "supervisor/python_setup.h"
#include "supervisor/setup_failure.h"
#include "supervisor/setup_progress.h"

#include <QFile>

#include <gtest/gtest.h>

using namespace stepscope::supervisor;

TEST(PipSize, ReadsPipsDecimalUnits)
{
    EXPECT_EQ(parsePipSize("888.0 MB"), 888'000'000);
    EXPECT_EQ(parsePipSize("1.4 kB"), 1'400);
    EXPECT_EQ(parsePipSize("123 bytes"), 123);
    EXPECT_EQ(parsePipSize("2.5 GB"), 2'500'000'000LL);
    EXPECT_FALSE(parsePipSize("lots"));
}

TEST(PipVersion, RawProgressFrom24_1)
{
    EXPECT_FALSE(pipHasRawProgress("pip 23.2.1 from /tmp/v/lib/python3.11/site-packages/pip (python 3.11)"));
    EXPECT_FALSE(pipHasRawProgress("pip 24.0 from x"));
    EXPECT_TRUE(pipHasRawProgress("pip 24.1 from x"));
    EXPECT_TRUE(pipHasRawProgress("pip 26.3 from x"));
    EXPECT_FALSE(pipHasRawProgress("garbage"));
}

TEST(SetupProgressReader, Pip23LinesAndPolledSizes)
{
    SetupProgressReader r;
    r.setPhase(SetupPhase::Resolving);
    EXPECT_TRUE(r.readLine("Collecting torch==2.11.0"));
    EXPECT_EQ(r.progress().phase, SetupPhase::Resolving);
    EXPECT_EQ(r.progress().package, "torch");
    EXPECT_TRUE(r.readLine("  Downloading http://127.0.0.1:33253/files/torch-2.11.0-py3-none-any.whl (4.2 MB)"));
    EXPECT_EQ(r.progress().phase, SetupPhase::Downloading);
    EXPECT_EQ(r.progress().file, "torch-2.11.0-py3-none-any.whl");
    EXPECT_EQ(r.progress().package, "torch");
    EXPECT_EQ(r.progress().fileTotal, 4'200'000);
    r.observeFileSize(1'000'000);
    EXPECT_EQ(r.progress().fileBytes, 1'000'000);
    EXPECT_EQ(r.progress().bytesDone, 1'000'000);
    // PyPI's files are shown by name alone; the file before is then whole.
    EXPECT_TRUE(r.readLine("  Downloading torchvision-0.26.0-cp311-cp311-manylinux_2_28_x86_64.whl (8.0 MB)"));
    EXPECT_EQ(r.progress().package, "torchvision");
    EXPECT_EQ(r.progress().bytesDone, 4'200'000);
    EXPECT_EQ(r.progress().bytesAnnounced, 12'200'000);
    EXPECT_EQ(r.progress().files, 2);
    r.observeFileSize(9'000'000); // never past the announced size
    EXPECT_EQ(r.progress().fileBytes, 8'000'000);
    EXPECT_TRUE(r.readLine("Installing collected packages: torchvision, torch"));
    EXPECT_EQ(r.progress().phase, SetupPhase::Installing);
    EXPECT_EQ(r.progress().bytesDone, 12'200'000);
    EXPECT_FALSE(r.readLine("Successfully installed torch-2.11.0 torchvision-0.26.0"));
}

TEST(SetupProgressReader, Pip24RawProgressWinsOverPolls)
{
    SetupProgressReader r;
    r.readLine("  Downloading http://127.0.0.1:37195/files/torch-2.11.0-py3-none-any.whl (4.2 MB)");
    EXPECT_TRUE(r.readLine("Progress 1310720 of 4195748"));
    EXPECT_TRUE(r.rawProgressSeen());
    EXPECT_EQ(r.progress().fileTotal, 4195748);
    EXPECT_EQ(r.progress().fileBytes, 1310720);
    r.observeFileSize(10); // the poll's coarser figure is ignored once pip says the bytes itself
    EXPECT_EQ(r.progress().fileBytes, 1310720);
}

namespace
{
SetupContext context()
{
    SetupContext c;
    c.environmentDir = "/tmp/venv";
    c.basePython = "python3";
    c.indexUrl = "http://127.0.0.1:57715/simple";
    c.cacheDir = "/tmp/pip-cache";
    c.requirements = "torch==2.11.0 torchvision==0.26.0";
    return c;
}
} // namespace

TEST(SetupFailure, OfflineIsNotNoMatchingDistribution)
{
    // pip 23.2.1 against a closed port: the connection error, then "no matching distribution".
    const QString output =
        "Looking in indexes: http://127.0.0.1:57715/simple\n"
        "WARNING: Retrying (Retry(total=0, connect=None, read=None, redirect=None, status=None)) after connection "
        "broken by 'NewConnectionError('<pip._vendor.urllib3.connection.HTTPConnection object at 0x7fc5>: Failed to "
        "establish a new connection: [Errno 111] Connection refused')': /simple/torch/\n"
        "ERROR: Could not find a version that satisfies the requirement torch==2.11.0 (from versions: none)\n"
        "ERROR: No matching distribution found for torch==2.11.0\n";
    const SetupFailure f = classifyPipFailure(output, context());
    EXPECT_EQ(f.error, SetupError::IndexUnreachable);
    EXPECT_TRUE(f.message.startsWith("cannot reach the package index http://127.0.0.1:57715/simple"));
    EXPECT_TRUE(f.fix.contains("--index-url"));
}

TEST(SetupFailure, NoMatchingDistributionNamesTheVersionsThere)
{
    const QString output = "ERROR: Could not find a version that satisfies the requirement torch==2.11.0 (from "
                           "versions: 2.2.0, 2.3.1)\nERROR: No matching distribution found for torch==2.11.0\n";
    const SetupFailure f = classifyPipFailure(output, context());
    EXPECT_EQ(f.error, SetupError::NoMatchingDistribution);
    EXPECT_TRUE(f.message.contains("2.2.0, 2.3.1"));
}

TEST(SetupFailure, NoSpaceSaysHowMuchAndWhere)
{
    const SetupFailure f = classifyPipFailure(
        "ERROR: Could not install packages due to an OSError: [Errno 28] No space left on device\n", context());
    EXPECT_EQ(f.error, SetupError::NoSpace);
    EXPECT_TRUE(f.message.contains("/tmp/venv"));
    EXPECT_TRUE(f.message.contains("/tmp/pip-cache"));
    EXPECT_TRUE(f.fix.contains(byteText(kSetupDownloadBytes)));
}

// The README says the sizes the setup's words, the dialog and the CLI's help say (setupSizeText).
TEST(SetupFailure, TheReadmeSaysTheSetupsSizes)
{
    QFile readme(QStringLiteral(STEPSCOPE_SOURCE_DIR "/README.md"));
    ASSERT_TRUE(readme.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(readme.readAll()).simplified();
    EXPECT_TRUE(text.contains(setupSizeText())) << "README.md must say " << setupSizeText().toStdString();
    EXPECT_FALSE(text.contains("resumes there with pip's cache")) << "a cut-off download starts over";
}

TEST(SetupFailure, DebianWithoutVenvNamesThePackage)
{
    const QString output =
        "The virtual environment was not successfully created because ensurepip is not\navailable.  On "
        "Debian/Ubuntu systems, you need to install the python3-venv\npackage using the following command.\n\n"
        "    apt install python3.11-venv\n";
    const SetupFailure f = classifyVenvFailure(output, context());
    EXPECT_EQ(f.error, SetupError::NoVenvModule);
    EXPECT_TRUE(f.fix.contains("apt install python3.11-venv"));
}

TEST(SetupFailure, AFullDiskUnderVenvIsNamedFromTheFreeSpace)
{
    // venv captures ensurepip's output: on a full disk, this line is all it says.
    const QString output = "Error: Command '['/tmp/venv/bin/python3', '-m', 'ensurepip', '--upgrade', "
                           "'--default-pip']' returned non-zero exit status 1.\n";
    SetupContext full = context();
    full.freeBytes = 4096;
    const SetupFailure f = classifyVenvFailure(output, full);
    EXPECT_EQ(f.error, SetupError::NoSpace);
    EXPECT_TRUE(f.message.contains("/tmp/venv"));
    EXPECT_TRUE(f.message.contains("4.1 kB free"));
    EXPECT_TRUE(f.fix.contains("STEPSCOPE_VENV"));
    SetupContext roomy = context();
    roomy.freeBytes = 100'000'000'000LL;
    EXPECT_EQ(classifyVenvFailure(output, roomy).error, SetupError::Failed) << "room enough: another cause";
    EXPECT_EQ(classifyVenvFailure(output, context()).error, SetupError::Failed) << "free space unknown";
}

TEST(SetupFailure, AFullDiskSaidByVenvIsNamed)
{
    const SetupFailure f =
        classifyVenvFailure("OSError: [Errno 28] No space left on device: '/tmp/venv/lib'\n", context());
    EXPECT_EQ(f.error, SetupError::NoSpace);
    EXPECT_TRUE(f.message.startsWith("no space left to create the Python environment in /tmp/venv"));
}

TEST(SetupFailure, WritesOfItsOwnNameAFullDisk)
{
    EXPECT_EQ(writeFailure("/tmp/venv/.stepscope-setup-incomplete", "No space left on device", context()).error,
              SetupError::NoSpace);
    SetupContext full = context();
    full.freeBytes = 0;
    EXPECT_EQ(writeFailure("/tmp/venv", {}, full).error, SetupError::NoSpace) << "mkdir says no words";
    const SetupFailure denied = writeFailure("/tmp/venv", "Permission denied", context());
    EXPECT_EQ(denied.error, SetupError::NotWritable);
    EXPECT_TRUE(denied.message.contains("Permission denied"));
}

TEST(SetupFailure, OnlyAPython3PassesTheProbe)
{
    EXPECT_FALSE(classifyPythonProbe("3.11\n", true, 0, context()));
    EXPECT_FALSE(classifyPythonProbe("a warning on stderr\n3.13\n", true, 0, context()));
    const auto silent = classifyPythonProbe("", true, 0, context()); // /bin/true
    ASSERT_TRUE(silent);
    EXPECT_EQ(silent->error, SetupError::NoPython);
    EXPECT_TRUE(silent->message.contains("python3 is not a Python 3"));
    EXPECT_TRUE(silent->message.contains("said nothing"));
    EXPECT_TRUE(silent->fix.contains("--python"));
    EXPECT_TRUE(classifyPythonProbe("2.7\n", true, 0, context())->message.contains("it is Python 2.7"));
    EXPECT_TRUE(classifyPythonProbe("", true, 1, context())->message.contains("exited with code 1"));
    EXPECT_TRUE(classifyPythonProbe("", false, 9, context())->message.contains("crashed"));
    EXPECT_TRUE(classifyPythonProbe("hello\n", true, 0, context())->message.contains("answered 'hello'"));
    const SetupFailure hang = pythonProbeTimedOut(5, context());
    EXPECT_EQ(hang.error, SetupError::NoPython);
    EXPECT_TRUE(hang.message.contains("did not answer within 5 s"));
}

TEST(SetupFailure, BusyNamesTheHolderAndHowToStopIt)
{
    SetupContext c = context();
    c.lockFile = "/tmp/.venv.setup-lock";
    const SetupFailure f = busyFailure("pid 4242 on host lab1", c);
    EXPECT_EQ(f.error, SetupError::Busy);
    EXPECT_EQ(f.message, "another setup of /tmp/venv is running (pid 4242 on host lab1 holds /tmp/.venv.setup-lock)");
    EXPECT_TRUE(f.fix.contains("kill 4242"));
    EXPECT_FALSE(busyFailure("", c).fix.contains("kill")) << "no pid, no kill to suggest";
}

TEST(SetupLock, BesideTheEnvironmentNamedAfterIt)
{
    EXPECT_EQ(setupLockFile("/home/u/.local/share/stepscope/venv-torch-2.11.0"),
              "/home/u/.local/share/stepscope/.venv-torch-2.11.0.setup-lock");
    EXPECT_EQ(setupLockFile("/tmp/venv/"), "/tmp/.venv.setup-lock");
}

TEST(SetupFailure, ByteText)
{
    EXPECT_EQ(byteText(999), "999 bytes");
    EXPECT_EQ(byteText(4'195'748), "4.2 MB");
    EXPECT_EQ(byteText(888'000'000), "888.0 MB");
}
