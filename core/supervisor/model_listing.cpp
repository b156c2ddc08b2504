#include "supervisor/model_listing.h"

#include "common/failure.h"
#include "config/model_name.h"
#include "protocol/protocol.h"
#include "supervisor/torch_location.h"
#include "supervisor/worker_command.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>

namespace stepscope::supervisor
{
namespace
{

QString tr(const char *text)
{
    return QCoreApplication::translate("ModelListing", text);
}

QString text(std::string_view s)
{
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

ModelLibrary libraryOf(const QJsonObject &json)
{
    ModelLibrary library;
    library.library = json.value("library").toString();
    library.prefix = json.value("prefix").toString();
    library.version = json.value("version").toString();
    for (const QJsonValue &name : json.value("models").toArray())
        library.models << name.toString();
    library.missing = json.value("missing").toString();
    library.install = json.value("install").toString();
    return library;
}

} // namespace

bool ModelListing::complete() const
{
    return listed() && std::all_of(libraries.begin(), libraries.end(), [](const ModelLibrary &l) { return l.available(); });
}

ModelListing readModelListing(const ProcessRun &run)
{
    ModelListing listing;
    listing.python = run.program;
    bool answered = false;
    for (const QByteArray &line : run.output.split('\n')) {
        const QJsonObject json = QJsonDocument::fromJson(line).object();
        if (json.value("type").toString() == QLatin1String("models")) {
            for (const QJsonValue &library : json.value("libraries").toArray())
                listing.libraries.append(libraryOf(library.toObject()));
            answered = true;
        } else if (const protocol::Message m = protocol::parseLine(line); m.type == protocol::Message::Type::Error) {
            // The worker's own words (torch-missing: no torch, so nothing can be built), with its fix.
            listing.problem = QString::fromStdString(m.failure.message);
            listing.fix = text(fixFor(m.failure));
            return listing;
        }
    }
    const QString byHand = tr("Run it by hand to read the whole log: %1").arg(run.commandLine());
    if (!run.started) {
        listing.problem = tr("cannot start %1: %2").arg(run.program, run.startError);
        listing.fix = text(fixFor(FailureCategory::PythonNotFound));
    } else if (run.stopped) {
        listing.problem = tr("stopped before it answered");
    } else if (run.timedOut) {
        listing.problem = tr("no answer within %1 s; the end of its log: %2").arg(kModelListingLimitMs / 1000).arg(run.log());
        listing.fix = byHand;
    } else if (!answered || !run.succeeded()) {
        listing.problem = run.crashed ? tr("--list-models crashed; the end of its log: %1").arg(run.log())
                                      : tr("--list-models ended with exit code %1 without a listing; the end of its "
                                           "log: %2")
                                            .arg(run.exitCode)
                                            .arg(run.log());
        listing.fix = byHand;
    }
    if (!listing.listed())
        listing.libraries.clear();
    return listing;
}

ModelListing listModels(const QString &configuredPython, const StopFlag &stop)
{
    const WorkerCommand worker = defaultPythonWorker(configuredPython);
    if (worker.program.isEmpty()) {
        const PythonChoice choice = choosePython(configuredPython);
        return {{}, {}, {}, choice.problem, choice.fix};
    }
    ModelListing listing = readModelListing(runProcess(worker.program, worker.arguments + QStringList{"--list-models"},
                                                       workerEnvironment(), kModelListingLimitMs, stop));
    listing.origin = worker.origin;
    return listing;
}

bool nameMatches(const QString &name, const QString &text)
{
    return name.contains(text, Qt::CaseInsensitive);
}

ModelListing filteredListing(const ModelListing &listing, const QString &text)
{
    ModelListing out = listing;
    for (ModelLibrary &library : out.libraries)
        library.models.removeIf([&text](const QString &name) { return !nameMatches(name, text); });
    return out;
}

QStringList modelNames(const ModelListing &listing)
{
    QStringList names{QString::fromLatin1(kDefaultModel)};
    for (const ModelLibrary &library : listing.libraries)
        names += library.models;
    return names;
}

} // namespace stepscope::supervisor
