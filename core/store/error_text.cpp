// The sentences a user reads when SQLite fails: what happened to which file, what was kept, and what
// to do about it.
#include "store/store_internal.h"

#include "platform/platform.h"

#include <QFileInfo>

#include <filesystem>

#include <cstring>
#include <fstream>
#include <string>

namespace stepscope::store
{

namespace
{

bool startsWithSqliteMagic(const std::string &path)
{
    static constexpr char kMagic[16] = {'S', 'Q', 'L', 'i', 't', 'e', ' ', 'f',
                                        'o', 'r', 'm', 'a', 't', ' ', '3', '\0'};
    std::ifstream in(path, std::ios::binary);
    char head[16] = {};
    return in.read(head, sizeof head) && std::memcmp(head, kMagic, sizeof kMagic) == 0;
}

// Why a write could not find room, in words, or empty when it was not that. SQLite says SQLITE_FULL
// for ENOSPC on its own writes, but a failure to grow the -shm or a sync comes back as a plain I/O
// error whose errno may already be gone: then a file system with no space left gives it away.
std::string noSpaceCause(const std::string &path, int primary, int sys, bool *sizeLimit = nullptr)
{
    using platform::NoSpace;
    const NoSpace os = platform::noSpaceCause(sys);
    if (primary == SQLITE_FULL || os == NoSpace::DiskFull || os == NoSpace::QuotaExceeded)
        return os == NoSpace::QuotaExceeded ? "the disk quota is used up" : "the disk is full";
    if (os == NoSpace::FileTooLarge)
        return "the file reached a size limit";
    // Past RLIMIT_FSIZE a write fails (SIGXFSZ is ignored, see the CLI's main), and SQLite may report
    // the short write without its errno: the sizes of the file and its log tell.
    if (const auto limit = platform::fileSizeLimit(); limit && (primary == SQLITE_IOERR || primary == SQLITE_FULL)) {
        std::error_code error;
        for (const std::string &file : {path, path + "-wal", path + "-journal"}) {
            const auto size = std::filesystem::file_size(file, error);
            if (!error && size + 64 * 1024 >= *limit) {
                if (sizeLimit)
                    *sizeLimit = true;
                return "the file reached this process's file-size limit (ulimit -f: " + std::to_string(*limit) +
                       " bytes)";
            }
        }
    }
    if (primary == SQLITE_IOERR)
        if (const auto room = platform::freeBytes(folderOf(path)); room && *room < 64 * 1024)
            return "the disk is full";
    return {};
}

} // namespace

// The sentence a user sees when a read or an open fails inside SQLite.
StoreError describeOpenFailure(const std::string &path, const SqlFailure &e)
{
    using Kind = StoreError::Kind;
    switch (e.primary()) {
    case SQLITE_NOTADB:
        if (startsWithSqliteMagic(path))
            return StoreError(Kind::Corrupt, quoted(path) + " starts like an SQLite file but cannot be read (" +
                                                 e.what() +
                                                 "): it is damaged or encrypted. It was left untouched; "
                                                 "restore it from a backup or choose another database file.");
        return StoreError(Kind::NotStepscope, quoted(path) +
                                                  " is not a Stepscope database (it is not an SQLite file at "
                                                  "all); choose another database file.");
    case SQLITE_CORRUPT:
        return StoreError(Kind::Corrupt, quoted(path) + " is a damaged database (" + e.what() +
                                             "). It was left untouched; restore it from a backup or choose another "
                                             "database file.");
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
        return StoreError(Kind::Io, quoted(path) + " is locked by another process (" + e.what() +
                                        "); close the other Stepscope and try again.");
    case SQLITE_CANTOPEN:
        return StoreError(Kind::Io, "cannot open " + quoted(path) + " (" + e.what() +
                                        "); check that its folder exists and that you may write there.");
    default: {
        const std::string full = noSpaceCause(path, e.primary(), e.systemErrno());
        if (!full.empty())
            return StoreError(Kind::Io, "cannot use " + quoted(path) + ": " + full + " (" + e.what() +
                                            "). It was left as it was; free some space and run again.");
        return StoreError(Kind::Io, "cannot use " + quoted(path) + ": " + e.what());
    }
    }
}

// The sentence a user sees when a batch of writes failed. Earlier batches were committed (and WAL
// keeps them through a crash), so the message says what was lost: this batch, nothing before it.
StoreError describeWriteFailure(const std::string &path, const SqlFailure &e)
{
    const char *safe = " Nothing committed before this batch was lost.";
    // A full disk reaches us as SQLITE_FULL, or as a plain I/O error whose errno says it (ENOSPC on
    // some file systems, EFBIG/EDQUOT at a size limit or a quota).
    const int sys = e.systemErrno();
    bool sizeLimit = false;
    const std::string noSpace = noSpaceCause(path, e.primary(), sys, &sizeLimit);
    if (!noSpace.empty()) {
        std::string cause = e.what();
        if (sys != 0)
            cause += ": " + platform::errorText(sys);
        const char *fix = platform::noSpaceCause(sys) == platform::NoSpace::FileTooLarge || sizeLimit
                              ? " Raise the limit (ulimit -f) or choose another database file."
                              : " Free some space and run again.";
        return StoreError(StoreError::Kind::Io,
                          "could not save to " + quoted(path) + ": " + noSpace + " (" + cause + ")." + safe + fix);
    }
    switch (e.primary()) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
        return StoreError(StoreError::Kind::Io, "could not save to " + quoted(path) +
                                                    ": another process held the database for too long (" + e.what() +
                                                    ")." + safe);
    case SQLITE_CONSTRAINT:
        // The one constraint a Stepscope writer meets: the run's sweep is gone, deleted by another
        // process while this one ran it (the store refuses that when it can see the owner alive).
        if (e.code() == SQLITE_CONSTRAINT_FOREIGNKEY)
            return StoreError(StoreError::Kind::Io, "could not save to " + quoted(path) +
                                                        ": the sweep being run was deleted by another process (" +
                                                        e.what() +
                                                        "); the sweep stops, and what it had measured "
                                                        "went with the deletion.");
        [[fallthrough]];
    default: {
        std::string cause = e.what();
        if (sys != 0)
            cause += " (" + platform::errorText(sys) + ")";
        return StoreError(StoreError::Kind::Io, "could not save to " + quoted(path) + ": " + cause + "." + safe);
    }
    }
}

std::string missingFileText(const std::string &path)
{
    return quoted(path) + " does not exist; check its path or " + kChooseAnotherFile + ".";
}

std::string readOnlyFileText(const std::string &path)
{
    return quoted(path) + " is read-only; Stepscope needs to write to it. Check its permissions or " +
           kChooseAnotherFile + ".";
}

std::string notADatabasePathText(const std::string &path)
{
    if (path.empty())
        return std::string("no database file was named (an empty path); ") + kChooseAnotherFile + ".";
    // SQLite's limit on a full path name (SQLITE_MAX_PATHNAME, 512), less its longest side file's suffix.
    constexpr std::size_t kMaxPathBytes = 512 - std::strlen("-journal");
    const std::string absolute = QFileInfo(QString::fromStdString(path)).absoluteFilePath().toStdString();
    if (absolute.size() > kMaxPathBytes)
        return quoted(path) + " is " + std::to_string(absolute.size()) + " bytes long as a full path; SQLite takes " +
               std::to_string(kMaxPathBytes) + " at most. Move it to a shorter path or " + kChooseAnotherFile + ".";
    switch (platform::fileKind(path)) {
    case platform::FileKind::Missing:
    case platform::FileKind::Regular:
        return {};
    case platform::FileKind::Directory:
        return quoted(path) + " is a folder, not a database file: name a file in it (" + path +
               "/measurements.sqlite) or " + kChooseAnotherFile + ".";
    case platform::FileKind::Fifo:
        return quoted(path) + " is a named pipe (FIFO), not a database file; " + kChooseAnotherFile + ".";
    case platform::FileKind::Device:
        return quoted(path) + " is a device, not a database file (nothing written there is kept); " +
               kChooseAnotherFile + ".";
    case platform::FileKind::Socket:
    case platform::FileKind::Other:
        break;
    }
    return quoted(path) + " is not a regular file; " + kChooseAnotherFile + ".";
}

std::string moreThanOneNameText(const std::string &path)
{
    const auto links = platform::hardLinkCount(path);
    if (!links || *links <= 1)
        return {};
    return quoted(path) + " has " + std::to_string(*links) +
           " names (hard links). SQLite keeps its lock and write-ahead log beside the name it is given, so a "
           "second name is a second, unsynchronised database over the same file, and a sweep written through "
           "each would lose one. Write through one name: remove the other links (find / -samefile '" +
           path + "' lists them), or copy the file (cp '" + path + "' copy.sqlite) and use the copy.";
}

std::string withFileChoiceHint(const std::string &message, const std::string &how)
{
    const auto at = message.find(kChooseAnotherFile);
    if (at == std::string::npos || how.empty())
        return message;
    std::string out = message;
    out.insert(at + std::strlen(kChooseAnotherFile), " " + how);
    return out;
}

} // namespace stepscope::store
