#include "models/doctor_model.h"

#include "models/status_colors.h"

#include <QBrush>
#include <QCoreApplication>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>

namespace stepscope::ui
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

DoctorModel::DoctorModel(QObject *parent) : QAbstractTableModel(parent) {}

void DoctorModel::clear()
{
    beginResetModel();
    items_.clear();
    endResetModel();
}

void DoctorModel::append(const DoctorItem &item)
{
    const int row = static_cast<int>(items_.size());
    beginInsertRows({}, row, row);
    items_.append(item);
    endInsertRows();
}

int DoctorModel::count(const QString &status) const
{
    return static_cast<int>(
        std::count_if(items_.begin(), items_.end(), [&](const DoctorItem &i) { return i.status == status; }));
}

int DoctorModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(items_.size());
}

int DoctorModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant DoctorModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const DoctorItem &i = items_[index.row()];
    const bool fail = i.status == QLatin1String("fail");
    const bool warn = i.status == QLatin1String("warn");
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case Status:
            return i.status;
        case Item:
            return i.item;
        case Value:
            return i.value;
        case Fix:
            return i.status == QLatin1String("ok") ? QString() : i.fix;
        default:
            return {};
        }
    case Qt::ToolTipRole:
        return i.fix.isEmpty() ? i.value : i.value + QStringLiteral("\n") + tr("Fix: ") + i.fix;
    case Qt::ForegroundRole:
        if (index.column() != Status && index.column() != Value)
            return {};
        if (fail)
            return QBrush(failureColor());
        if (warn)
            return QBrush(warningColor());
        return index.column() == Status ? QVariant(QBrush(successColor())) : QVariant();
    case Qt::BackgroundRole:
        if (index.column() != Status)
            return {};
        if (fail)
            return QBrush(failureBackground());
        if (warn)
            return QBrush(warningBackground());
        return {};
    default:
        return {};
    }
}

QVariant DoctorModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Status:
        return tr("Status");
    case Item:
        return tr("Check");
    case Value:
        return tr("Found");
    case Fix:
        return tr("Fix");
    default:
        return {};
    }
}

} // namespace stepscope::ui
