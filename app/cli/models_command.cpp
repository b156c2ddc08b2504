// `models [FILTER]`: what --model can name with the Python that runs Python runs. The listing is the
// Python worker's (supervisor/model_listing.h), the one the dashboard's model picker completes from.
#include "cli.h"
#include "cli_options.h"

#include "config/model_name.h"
#include "supervisor/model_listing.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cstdio>

namespace stepscope::cli
{
namespace
{

using supervisor::ModelLibrary;
using supervisor::ModelListing;

void print(const QString &line)
{
    std::fputs((line + QLatin1Char('\n')).toUtf8().constData(), stdout);
}

// "torchvision 0.26.0: 80 models", or with a filter "timm 1.0.31: 3 of 1371 models match 'vit'".
QString heading(const ModelLibrary &all, const ModelLibrary &shown, const QString &filter)
{
    const QString what = all.library == QLatin1String("transformers") ? QStringLiteral("architectures with a head")
                                                                        : QStringLiteral("models");
    const QString count = filter.isEmpty()
                              ? QStringLiteral("%1 %2").arg(all.models.size()).arg(what)
                              : QStringLiteral("%1 of %2 %3 match '%4'").arg(shown.models.size()).arg(all.models.size())
                                    .arg(what, filter);
    return QStringLiteral("%1 %2: %3").arg(all.library, all.version, count);
}

void printText(const ModelListing &all, const ModelListing &shown, const QString &filter)
{
    print(QStringLiteral("python: %1 (%2)").arg(all.python, all.origin));
    if (supervisor::nameMatches(QString::fromLatin1(kDefaultModel), filter))
        print(QStringLiteral("%1: built in, the default (the native and the Python worker)").arg(kDefaultModel));
    for (qsizetype i = 0; i < shown.libraries.size(); ++i) {
        const ModelLibrary &library = shown.libraries[i];
        if (!library.available()) {
            print(QStringLiteral("%1: missing (%2); install it into this Python: %3")
                      .arg(library.library, library.missing, library.install));
            continue;
        }
        print(heading(all.libraries[i], library, filter));
        for (const QString &name : library.models)
            print(QStringLiteral("  ") + name);
    }
}

QJsonObject json(const ModelListing &all, const ModelListing &shown, const QString &filter)
{
    QJsonObject out{{"python", all.python}, {"origin", all.origin}, {"filter", filter}};
    if (!all.listed()) {
        out.insert("problem", all.problem);
        out.insert("fix", all.fix);
    }
    QJsonArray builtIn;
    if (supervisor::nameMatches(QString::fromLatin1(kDefaultModel), filter))
        builtIn.append(QString::fromLatin1(kDefaultModel));
    out.insert("built_in", builtIn);
    QJsonArray libraries;
    for (qsizetype i = 0; i < shown.libraries.size(); ++i) {
        const ModelLibrary &library = shown.libraries[i];
        QJsonObject entry{{"library", library.library}, {"prefix", library.prefix}};
        if (library.available()) {
            entry.insert("version", library.version);
            entry.insert("total", all.libraries[i].models.size()); // before the filter
            entry.insert("models", QJsonArray::fromStringList(library.models));
        } else {
            entry.insert("missing", library.missing);
            entry.insert("install", library.install);
        }
        libraries.append(entry);
    }
    out.insert("libraries", libraries);
    return out;
}

} // namespace

int modelsCommand(const Options &, const CommandLine &line)
{
    const QString argument = line.positionalArguments().value(0);
    if (!argument.isEmpty() && line.isSet("filter")) {
        printError("stepscope-cli models: give the filter once, as FILTER or as --filter");
        return kUsage;
    }
    const QString filter = line.isSet("filter") ? line.value("filter") : argument;
    if (!line.isSet("json"))
        printError("stepscope-cli models: asking the Python worker (it imports torch, torchvision, timm and "
                   "transformers: a few seconds)...");
    const ModelListing all = supervisor::listModels(line.value("python"));
    const ModelListing shown = supervisor::filteredListing(all, filter);
    if (line.isSet("json"))
        print(QString::fromUtf8(QJsonDocument(json(all, shown, filter)).toJson(QJsonDocument::Indented)).trimmed());
    if (!all.listed()) {
        printError(QStringLiteral("stepscope-cli models: %1 cannot list models: %2")
                       .arg(all.python.isEmpty() ? QStringLiteral("no Python") : all.python, all.problem));
        if (!all.fix.isEmpty())
            printError(QStringLiteral("fix: %1").arg(all.fix));
        return kRunsFailed;
    }
    if (!line.isSet("json"))
        printText(all, shown, filter);
    return all.complete() ? kOk : kRunsFailed;
}

} // namespace stepscope::cli
