#pragma once
// What the window tests share: opening a database as File › Open does and waiting for every view
// to be read and computed (the window does both off the UI thread), and copies of the stored H200
// databases to open for writing.
#include "widgets/main_window.h"

#include <QFile>
#include <QFileInfo>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

namespace stepscope::test
{

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
