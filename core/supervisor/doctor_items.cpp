#include "supervisor/doctor_items.h"

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

std::optional<DoctorItem> parseDoctorLine(const QByteArray &line)
{
    const QJsonObject o = QJsonDocument::fromJson(line.trimmed()).object();
    if (o.value(QLatin1String("type")).toString() != QLatin1String("doctor"))
        return std::nullopt;
    DoctorItem item{o.value(QLatin1String("item")).toString(), o.value(QLatin1String("status")).toString(),
                    o.value(QLatin1String("value")).toVariant().toString(), o.value(QLatin1String("fix")).toString()};
    if (item.status != QLatin1String("ok") && item.status != QLatin1String("warn"))
        item.status = QStringLiteral("fail"); // an unknown status is no reason to pass
    return item;
}

std::optional<DoctorItem> doctorVerdict(const QList<DoctorItem> &items, const DoctorExit &exit)
{
    const QString fix = tr("Run it by hand to read the whole log: %1").arg(exit.command);
    const QString log = exit.logTail.trimmed().isEmpty() ? tr("(no log)") : exit.logTail.trimmed();
    if (!exit.started)
        return DoctorItem{QStringLiteral("python worker"), QStringLiteral("fail"),
                          tr("cannot start: %1").arg(exit.startError),
                          tr("Set the Python interpreter in the panel (empty: STEPSCOPE_PYTHON, the build's "
                             "environment, python3 on PATH) to one that holds torch.")};
    if (exit.timedOut)
        return DoctorItem{QStringLiteral("python worker"), QStringLiteral("fail"),
                          tr("no answer within 180 s; the end of its log: %1").arg(log), fix};
    if (items.isEmpty())
        return DoctorItem{QStringLiteral("python worker"), QStringLiteral("fail"),
                          tr("--doctor said nothing; the end of its log: %1").arg(log), fix};
    const bool anyFail =
        std::any_of(items.begin(), items.end(), [](const DoctorItem &i) { return i.status == "fail"; });
    if ((exit.crashed || exit.exitCode != 0) && !anyFail)
        return DoctorItem{
            QStringLiteral("python worker"), QStringLiteral("fail"),
            exit.crashed ? tr("--doctor crashed; the end of its log: %1").arg(log)
                         : tr("--doctor stopped with exit code %1; the end of its log: %2").arg(exit.exitCode).arg(log),
            fix};
    return std::nullopt;
}

QList<DoctorItem> torchDoctorItems(const TorchLocation &torch)
{
    if (torch.python.isEmpty())
        return {{"python", "fail", torch.problem, torch.fix}};
    QList<DoctorItem> items{{"python", "ok", torch.python + " (" + torch.origin + ")", {}}};
    if (!torch.usable())
        items.append({"libtorch", "fail", torch.problem, torch.fix});
    else
        items.append({"libtorch", "ok", QDir(torch.torchDir).filePath("lib") + " (torch " + torch.version + ")", {}});
    return items;
}

} // namespace stepscope::supervisor
