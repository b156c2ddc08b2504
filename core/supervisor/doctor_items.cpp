#include "supervisor/doctor_items.h"

#include "common/failure.h"

#include <QCoreApplication>
#include <QDir>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>

namespace stepscope::supervisor
{
namespace
{

QString tr(const char *text)
{
    return QCoreApplication::translate("DoctorModel", text);
}

} // namespace

const char *toString(DoctorStatus status)
{
    switch (status) {
    case DoctorStatus::Ok:
        return "ok";
    case DoctorStatus::Warn:
        return "warn";
    case DoctorStatus::Fail:
        break;
    }
    return "fail";
}

DoctorStatus doctorStatusFromString(const QString &word)
{
    for (DoctorStatus status : {DoctorStatus::Ok, DoctorStatus::Warn})
        if (word == QLatin1String(toString(status)))
            return status;
    return DoctorStatus::Fail;
}

int countOf(const QList<DoctorItem> &items, DoctorStatus status)
{
    return static_cast<int>(
        std::count_if(items.begin(), items.end(), [status](const DoctorItem &i) { return i.status == status; }));
}

std::optional<DoctorItem> parseDoctorLine(const QByteArray &line)
{
    const QJsonObject o = QJsonDocument::fromJson(line.trimmed()).object();
    if (o.value(QLatin1String("type")).toString() != QLatin1String("doctor"))
        return std::nullopt;
    return DoctorItem{o.value(QLatin1String("item")).toString(),
                      doctorStatusFromString(o.value(QLatin1String("status")).toString()),
                      o.value(QLatin1String("value")).toVariant().toString(), o.value(QLatin1String("fix")).toString()};
}

std::optional<DoctorItem> doctorVerdict(const QList<DoctorItem> &items, const ProcessRun &run)
{
    const QString item = QStringLiteral("python worker");
    const QString fix = tr("Run it by hand to read the whole log: %1").arg(run.commandLine());
    const QString log = run.log();
    if (!run.started) {
        const auto notFound = fixFor(FailureCategory::PythonNotFound);
        return DoctorItem{item, DoctorStatus::Fail, tr("cannot start %1: %2").arg(run.program, run.startError),
                          QString::fromUtf8(notFound.data(), static_cast<qsizetype>(notFound.size()))};
    }
    if (run.timedOut)
        return DoctorItem{item, DoctorStatus::Fail,
                          tr("no answer within %1 s; the end of its log: %2").arg(kDoctorLimitMs / 1000).arg(log), fix};
    if (items.isEmpty())
        return DoctorItem{item, DoctorStatus::Fail, tr("--doctor said nothing; the end of its log: %1").arg(log), fix};
    if ((run.crashed || run.exitCode != 0) && countOf(items, DoctorStatus::Fail) == 0)
        return DoctorItem{
            item, DoctorStatus::Fail,
            run.crashed ? tr("--doctor crashed; the end of its log: %1").arg(log)
                        : tr("--doctor stopped with exit code %1; the end of its log: %2").arg(run.exitCode).arg(log),
            fix};
    return std::nullopt;
}

QList<DoctorItem> torchDoctorItems(const TorchLocation &torch)
{
    if (torch.python.isEmpty())
        return {{"python", DoctorStatus::Fail, torch.problem, torch.fix}};
    QList<DoctorItem> items{{"python", DoctorStatus::Ok, torch.python + " (" + torch.origin + ")", {}}};
    if (!torch.usable())
        items.append({"libtorch", DoctorStatus::Fail, torch.problem, torch.fix});
    else
        items.append({"libtorch",
                      DoctorStatus::Ok,
                      QDir(torch.torchDir).filePath("lib") + " (torch " + torch.version + ")",
                      {}});
    return items;
}

} // namespace stepscope::supervisor
