#include "supervisor/run_profile.h"

#include "profile/trace_summary.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#ifdef STEPSCOPE_WITH_ZLIB
#include <zlib.h>
#endif

namespace stepscope::supervisor
{
namespace
{

// Writes `data` gzip-compressed to `path` (whole or not at all). Returns the problem, empty on success.
std::string writeCompressed(const QByteArray &data, const QString &path, std::int64_t &bytes)
{
#ifdef STEPSCOPE_WITH_ZLIB
    const QString partial = path + ".partial";
    gzFile file = gzopen(QFile::encodeName(partial).constData(), "wb6");
    if (!file)
        return "cannot create " + partial.toStdString();
    qsizetype written = 0;
    bool ok = true;
    while (written < data.size() && ok) {
        const auto chunk = static_cast<unsigned>(std::min<qsizetype>(data.size() - written, 1 << 24));
        ok = gzwrite(file, data.constData() + written, chunk) == static_cast<int>(chunk);
        written += chunk;
    }
    ok = gzclose(file) == Z_OK && ok;
    bytes = QFileInfo(partial).size();
    if (!ok) {
        QFile::remove(partial);
        return "writing the compressed trace failed (is the disk full?)";
    }
    if (bytes > kMaxKeptTraceBytes) {
        QFile::remove(partial);
        return "the trace is " + std::to_string(bytes / (1024 * 1024)) + " MiB compressed, over the " +
               std::to_string(kMaxKeptTraceBytes / (1024 * 1024)) + " MiB kept";
    }
    QFile::remove(path);
    if (!QFile::rename(partial, path)) {
        QFile::remove(partial);
        return "cannot move the compressed trace to " + path.toStdString();
    }
    return {};
#else
    (void)data, (void)path, (void)bytes;
    return "this build has no zlib, so traces are summarised but not kept";
#endif
}

} // namespace

QString traceFolderFor(const QString &databasePath)
{
    return databasePath + ".traces";
}

QString rawTracePath(const QString &folder, std::int64_t runId)
{
    return QDir(folder).filePath(QString("run-%1.trace.json").arg(runId));
}

QString keptTraceName(const QString &databasePath, std::int64_t runId)
{
    return QFileInfo(traceFolderFor(databasePath)).fileName() + QString("/run-%1.trace.json.gz").arg(runId);
}

QString keptTracePath(const QString &databasePath, const std::string &storedName)
{
    return QFileInfo(databasePath).dir().filePath(QString::fromStdString(storedName));
}

profile::StoredProfile recordProfile(const protocol::Message &m, const QString &databasePath, std::int64_t runId)
{
    profile::StoredProfile out;
    if (!m.profileProblem.empty()) {
        out.problem = m.profileProblem;
        return out;
    }
    const QString raw = QString::fromStdString(m.tracePath);
    QFile file(raw);
    if (!file.open(QIODevice::ReadOnly)) {
        out.problem = "the worker's trace " + m.tracePath + " cannot be read: " + file.errorString().toStdString();
        return out;
    }
    if (file.size() > kMaxRawTraceBytes) {
        out.problem = "the trace is " + std::to_string(file.size() / (1024 * 1024)) + " MiB, over the " +
                      std::to_string(kMaxRawTraceBytes / (1024 * 1024)) + " MiB read; profile fewer steps";
        file.close();
        QFile::remove(raw);
        return out;
    }
    const QByteArray trace = file.readAll();
    file.close();
    profile::TraceFacts facts;
    facts.steps = m.steps;
    facts.profilerGflop = m.profilerGflop;
    std::string problem;
    out.summary = profile::summarizeTrace(trace, facts, problem);
    if (!out.summary)
        out.problem = "the trace could not be read: " + problem;
    std::int64_t bytes = 0;
    const QString name = keptTraceName(databasePath, runId);
    const std::string keepProblem = writeCompressed(trace, keptTracePath(databasePath, name.toStdString()), bytes);
    if (keepProblem.empty())
        out.traceFile = name.toStdString();
    else if (out.summary)
        out.summary->note += (out.summary->note.empty() ? "" : "; ") + ("trace not kept: " + keepProblem);
    QFile::remove(raw);
    return out;
}

} // namespace stepscope::supervisor
