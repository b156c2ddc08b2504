// The "Set up PyTorch" dialog driving the real setup job against a loopback index of stand-in wheels
// (tests/tools/fake_torch_index.py, throttled): the download's progress shows (bar, bytes, time
// left), Cancel stops it and offers Retry with the environment left incomplete, and the retry
// resumes to a ready environment. No network; python3 with its venv module is needed.
#include "supervisor/managed_python.h"
#include "widgets/setup_dialog.h"

#include <QFile>
#include <QLineEdit>
#include <QProcess>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

using namespace stepscope;

class TestSetupDialog : public QObject
{
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(work_.isValid());
        QProcess venv;
        venv.start("python3", {"-m", "venv", work_.filePath("probe")});
        if (!venv.waitForFinished(60000) || venv.exitCode() != 0)
            QSKIP("python3 -m venv does not work here (python3-venv)");
        // The machine's pip settings stay out; the environment and pip's cache are the test's own.
        qputenv("PIP_CONFIG_FILE", "/dev/null");
        qputenv("PIP_CACHE_DIR", work_.filePath("pip-cache").toUtf8());
        for (const char *name : {"PIP_FIND_LINKS", "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_NO_INDEX"})
            qunsetenv(name);
        qputenv("STEPSCOPE_VENV", work_.filePath("venv").toUtf8());

        // 6 MB of torch at 1 MiB/s: a download long enough to watch and to cancel.
        server_.setProgram("python3");
        server_.setArguments({STEPSCOPE_SOURCE_DIR "/tests/tools/fake_torch_index.py", "--dir", work_.filePath("index"),
                              "--torch", supervisor::pinnedTorchVersion(), "--torchvision",
                              supervisor::pinnedTorchvisionVersion(), "--pad-mb", "6", "--rate-kib", "1024",
                              "--lifetime", "240"});
        server_.start();
        QVERIFY(server_.waitForStarted());
        QTRY_VERIFY_WITH_TIMEOUT(server_.canReadLine(), 30000);
        url_ = QString::fromUtf8(server_.readLine()).trimmed();
        QVERIFY2(url_.startsWith("http://127.0.0.1:"), qPrintable(url_));
    }

    void cleanupTestCase()
    {
        server_.kill();
        server_.waitForFinished();
    }

    // First, it also creates the environment that the tests after it resume in.
    void offlineSaysTheFixAndOffersRetry()
    {
        QProcess closed;
        closed.start("python3", {STEPSCOPE_SOURCE_DIR "/tests/tools/fake_torch_index.py", "--closed-port"});
        QVERIFY(closed.waitForFinished(30000));
        const QString url = QString::fromUtf8(closed.readAllStandardOutput()).trimmed();
        ui::SetupDialog dialog;
        supervisor::SetupOptions options;
        options.indexUrl = url;
        dialog.setOptions(options);
        QSignalSpy failed(dialog.job(), &supervisor::PythonSetup::failed);
        dialog.startSetup();
        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 120000);
        QCOMPARE(failed.at(0).at(0).value<supervisor::SetupFailure>().error, supervisor::SetupError::IndexUnreachable);
        QVERIFY2(dialog.errorText().startsWith("cannot reach the package index " + url),
                 qPrintable(dialog.errorText()));
        QVERIFY2(dialog.errorText().contains("Fix: check the network"), qPrintable(dialog.errorText()));
        QCOMPARE(dialog.phaseText(), QString("Setup failed"));
        QCOMPARE(dialog.startButton()->text(), QString("Retry"));
        QVERIFY(dialog.startButton()->isEnabled());
        QVERIFY(!supervisor::managedEnvironmentReady());
    }

    void progressThenCancel()
    {
        ui::SetupDialog dialog;
        supervisor::SetupOptions options;
        options.indexUrl = url_;
        dialog.setOptions(options);
        QCOMPARE(dialog.indexField()->text(), url_);
        dialog.show();
        dialog.startSetup();
        QVERIFY(!dialog.startButton()->isEnabled());
        QCOMPARE(dialog.cancelButton()->text(), QString("Cancel"));
        // The download: a bar with the file's size, the bytes so far and the size in words.
        QTRY_VERIFY_WITH_TIMEOUT(dialog.progressBar()->maximum() > 1 && dialog.progressBar()->value() > 0, 90000);
        QVERIFY2(dialog.phaseText().startsWith("Downloading torch"), qPrintable(dialog.phaseText()));
        QVERIFY2(dialog.detailText().contains(" of 6."), qPrintable(dialog.detailText()));
        QTRY_VERIFY_WITH_TIMEOUT(dialog.detailText().contains(QRegularExpression("about [0-9]+ (s|min) left")), 10000);

        QElapsedTimer clock;
        clock.start();
        dialog.cancelButton()->click();
        QVERIFY2(clock.elapsed() < 3000, "a cancel returns promptly");
        QVERIFY(!dialog.job()->isRunning());
        QVERIFY(dialog.isVisible()); // it stays, to offer Retry
        QVERIFY2(dialog.errorText().contains("cancelled"), qPrintable(dialog.errorText()));
        QCOMPARE(dialog.startButton()->text(), QString("Retry"));
        QVERIFY(dialog.startButton()->isEnabled());
        QVERIFY(QFile::exists(supervisor::managedEnvironmentIncompleteMarker()));
        QVERIFY(!supervisor::managedEnvironmentReady());
    }

    void retryResumesToReady()
    {
        ui::SetupDialog dialog;
        supervisor::SetupOptions options;
        options.indexUrl = url_;
        dialog.setOptions(options);
        QSignalSpy ready(&dialog, &ui::SetupDialog::ready);
        QSignalSpy phases(dialog.job(), &supervisor::PythonSetup::progress);
        dialog.startButton()->click();
        QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 1, 120000);
        QVERIFY(supervisor::managedEnvironmentReady());
        QVERIFY(!QFile::exists(supervisor::managedEnvironmentIncompleteMarker()));
        QCOMPARE(dialog.phaseText(), QString("PyTorch is set up"));
        QVERIFY(dialog.errorText().isEmpty());
        QCOMPARE(dialog.cancelButton()->text(), QString("Close"));
        // Resumed: the environment of the cancelled setup was kept, not created again.
        for (const auto &args : phases)
            QVERIFY(args.at(0).value<supervisor::SetupProgress>().phase != supervisor::SetupPhase::CreatingEnvironment);
    }

  private:
    QTemporaryDir work_;
    QProcess server_;
    QString url_;
};

QTEST_MAIN(TestSetupDialog)
#include "test_setup_dialog.moc"
