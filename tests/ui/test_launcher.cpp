// The Start flow without the window (presenters/launcher.h): a Python that is not there offers the
// setup at once; a Python that must be asked is asked off the UI thread while Start waits, and its
// answer decides; what waits for an open runs after it, and never after a refused file.
#include "controller/query_job.h"
#include "controller/run_controller.h"
#include "models/history_model.h"
#include "presenters/launcher.h"
#include "presenters/live_run.h"
#include "presenters/shown_sweep.h"
#include "widgets/config_panel.h"

#include "window_fixture.h"

#include <QElapsedTimer>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace stepscope;
using namespace stepscope::ui;

namespace
{

// The window's parts a launcher drives, over a database in `dir`.
struct Parts {
    RunController controller;
    HistoryModel history;
    QueryJob query{&history};
    ShownSweep shown{&controller};
    LiveRun live{&controller, &query};
    ConfigPanel panel;
    Launcher launcher{&controller, &panel, &shown, &live};
};

// A stand-in interpreter: a shell script that waits `seconds` and fails, as a Python without torch would.
QString fakePython(const QTemporaryDir &dir, int seconds)
{
    const QString path = dir.filePath(QStringLiteral("python-%1").arg(seconds));
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return {};
    file.write(QStringLiteral("#!/bin/sh\nsleep %1\nexit 1\n").arg(seconds).toUtf8());
    file.close();
    file.setPermissions(file.permissions() | QFileDevice::ExeOwner);
    return path;
}

} // namespace

class TestLauncher : public QObject
{
    Q_OBJECT

  private Q_SLOTS:
    void initTestCase()
    {
        test::useTestSettings("test_launcher");
        // No managed environment: the lookup decides.
        qputenv("STEPSCOPE_VENV", dir_.filePath("no-venv").toUtf8());
    }

    void aPythonThatIsNotThereOffersTheSetupAtOnce()
    {
        Parts p;
        QString error;
        QVERIFY2(p.controller.openDatabase(dir_.filePath("a.sqlite"), &error), qPrintable(error));
        p.panel.setCudaDevices(0);
        p.panel.setPythonInterpreter(dir_.filePath("no-python/bin/python3"));
        QSignalSpy setup(&p.launcher, &Launcher::setupWanted);
        QVERIFY(!p.launcher.start());
        QCOMPARE(setup.count(), 1);
        QVERIFY2(setup.first().at(0).toString().startsWith("No usable PyTorch was found: "),
                 qPrintable(setup.first().at(0).toString()));
        QVERIFY(setup.first().at(1).toBool()); // the sweep starts once the setup is done
        QVERIFY(!p.controller.isRunning());
        QVERIFY(!p.launcher.isWaiting());
    }

    void startWaitsForTheTorchLookupOffTheUiThread()
    {
        Parts p;
        QString error;
        QVERIFY2(p.controller.openDatabase(dir_.filePath("b.sqlite"), &error), qPrintable(error));
        p.panel.setCudaDevices(0);
        p.panel.setPythonInterpreter(fakePython(dir_, 2)); // answers after two seconds
        QSignalSpy setup(&p.launcher, &Launcher::setupWanted);
        QSignalSpy status(&p.launcher, &Launcher::statusText);
        QElapsedTimer clock;
        clock.start();
        QVERIFY(p.launcher.start()); // waits, but not here
        QVERIFY2(clock.elapsed() < 1000, qPrintable(QString::number(clock.elapsed())));
        QVERIFY(p.launcher.isWaiting());
        QVERIFY(!p.controller.isRunning());
        QVERIFY(setup.isEmpty());
        QCOMPARE(status.last().at(0).toString(), QString("Looking for PyTorch…"));
        QTRY_COMPARE_WITH_TIMEOUT(setup.count(), 1, 30000); // its answer: no usable torch
        QVERIFY2(setup.first().at(0).toString().startsWith("No usable PyTorch was found: "),
                 qPrintable(setup.first().at(0).toString()));
        QVERIFY(!p.launcher.isWaiting());
        QVERIFY(!p.controller.isRunning());
        // Stop while waiting: the answer then starts nothing and offers nothing.
        QVERIFY(p.launcher.start());
        p.launcher.stop();
        QTest::qWait(3000);
        QCOMPARE(setup.count(), 1);
        QVERIFY(!p.controller.isRunning());
    }

    void whatWaitsForAnOpenRunsAfterItAndNeverAfterARefusal()
    {
        Parts p;
        int ran = 0;
        QSignalSpy opening(&p.launcher, &Launcher::opening);
        QVERIFY(p.launcher.openDatabase(dir_.filePath("c.sqlite")));
        QCOMPARE(opening.count(), 1);
        p.launcher.whenOpen([&] { ++ran; });
        QCOMPARE(ran, 0); // not before the open
        QTRY_COMPARE_WITH_TIMEOUT(ran, 1, 30000);
        p.launcher.whenOpen([&] { ++ran; }); // open now: at once
        QCOMPARE(ran, 2);

        const QString notes = dir_.filePath("program.sqlite"); // a file of another kind: this program
        QVERIFY(QFile::copy(QCoreApplication::applicationFilePath(), notes));
        QStringList notices;
        connect(&p.launcher, &Launcher::notice, this,
                [&](Launcher::Tone, const QString &title, const QString &) { notices << title; });
        QVERIFY(p.launcher.openDatabase(notes));
        p.launcher.whenOpen([&] { ran += 10; });
        QTRY_COMPARE_WITH_TIMEOUT(notices, QStringList{"Cannot open database"}, 30000);
        QTest::qWait(100);
        QCOMPARE(ran, 2);
        QVERIFY(!p.launcher.isWaiting());
    }

  private:
    QTemporaryDir dir_;
};

QTEST_MAIN(TestLauncher)
#include "test_launcher.moc"
