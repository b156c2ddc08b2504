#pragma once
// What the window tests share: settings of their own, opening a database as File › Open does and
// waiting for every view to be read and computed (the window does both off the UI thread), and
// copies of the stored H200 databases to open for writing.
#include "presenters/report_export.h"
#include "widgets/main_window.h"

#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

namespace stepscope::test
{

// Settings of this test program alone, empty at the start: Qt's test folders, not the user's.
inline void useTestSettings(const char *program)
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName("stepscope-tests");
    QCoreApplication::setApplicationName(program);
    QSettings().clear();
}

inline bool waitIdle(ui::MainWindow &window, int ms = 120000)
{
    return QTest::qWaitFor([&] { return !window.isBusy(); }, ms);
}

inline bool openAndWait(ui::MainWindow &window, const QString &path)
{
    QSignalSpy opened(&window, &ui::MainWindow::databaseOpened);
    if (!window.openDatabase(path))
        return false;
    if (!opened.wait(60000) && opened.isEmpty())
        return false;
    return waitIdle(window, 60000);
}

// Opens `path` and shows one of its sweeps, with every view's work done.
inline bool openAndShow(ui::MainWindow &window, const QString &path, qint64 sweepId)
{
    if (!openAndWait(window, path))
        return false;
    window.showSweep(sweepId);
    return waitIdle(window);
}

// Exports the report of the sweep on show to `path` (its format by the suffix) and reads it back;
// empty, with *error, when the export was refused, failed or took over a minute.
inline QString exportedReport(ui::MainWindow &window, const QString &path, QString *error)
{
    QSignalSpy written(window.reportExport(), &ui::ReportExport::written);
    if (!window.reportExport()->write(path, error))
        return {};
    if (!written.wait(60000) && written.isEmpty()) {
        *error = QStringLiteral("no report written in 60 s");
        return {};
    }
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *error = file.errorString();
        return {};
    }
    return QString::fromUtf8(file.readAll());
}

// A copy in `dir`, so that opening it for writing leaves docs/results alone.
inline QString copyOf(const QString &source, const QTemporaryDir &dir)
{
    const QString target = dir.filePath(QFileInfo(source).fileName());
    QFile::copy(source, target);
    QFile(target).setPermissions(QFile::ReadOwner | QFile::WriteOwner);
    return target;
}

inline QString h200Ledger()
{
    return QStringLiteral(STEPSCOPE_SOURCE_DIR "/docs/results/h200-ledger.sqlite");
}

} // namespace stepscope::test
