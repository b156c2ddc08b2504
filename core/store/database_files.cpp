#include "store/database_files.h"

#include "store/writer_claim.h"

#include "platform/platform.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>

#include <optional>

namespace stepscope::store
{

std::string defaultDatabasePath()
{
    if (!platform::homeFolderKnown())
        return {};
    return (QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation) + "/stepscope/measurements.sqlite")
        .toStdString();
}

std::string besideDatabase(const std::string &database, const std::string &storedName)
{
    return QFileInfo(QString::fromStdString(database)).dir().filePath(QString::fromStdString(storedName)).toStdString();
}

std::string databaseFileBehind(const std::string &path, const std::string &database)
{
    const QString out = QString::fromStdString(path);
    const QString db = QString::fromStdString(database);
    // A file not there yet compares by its folder's canonical path and its name.
    const auto pathKey = [](const QString &file) {
        const QFileInfo info(file);
        const QString dir = QFileInfo(info.absolutePath()).canonicalFilePath();
        return (dir.isEmpty() ? info.absolutePath() : dir) + "/" + info.fileName();
    };
    // SQLite names the side files after the database's real path, symbolic links resolved: a --db
    // that is a link has its -wal and -shm beside the target, so both names' side files are checked.
    const QString real = QFileInfo(db).canonicalFilePath();
    for (const QString &base : {db, real}) {
        if (base.isEmpty())
            continue;
        for (const char *suffix : {"", "-wal", "-shm", "-journal"}) {
            const QString file = base + suffix;
            // By identity where both exist (the seam says; empty when either does not), else by path.
            const std::optional<bool> sameIdentity = platform::sameFile(path, file.toStdString());
            const bool same = sameIdentity ? *sameIdentity : pathKey(out) == pathKey(file);
            if (same)
                return (*suffix ? "the database's " + QString(suffix + 1) + " file (" + file + ")"
                                : "the database " + db + " itself (or a link to it)")
                    .toStdString();
        }
    }
    // A side file of a live database under a name none of the above has (a bind mount of it, a
    // second mount): its locks give it away.
    if (lockedByARunningProgram(path))
        return "a file that a running program holds locked (a live database, or its -wal or -shm under another "
               "name)";
    return {};
}

} // namespace stepscope::store
