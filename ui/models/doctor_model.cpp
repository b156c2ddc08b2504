#include "models/doctor_model.h"

#include "models/status_colors.h"

#include <QBrush>
#include <QCoreApplication>

namespace stepscope::ui
{

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
    const bool fail = i.status == DoctorStatus::Fail;
    const bool warn = i.status == DoctorStatus::Warn;
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case Status:
            return QString::fromLatin1(supervisor::toString(i.status));
        case Item:
            return i.item;
        case Value:
            return i.value;
        case Fix:
            return i.status == DoctorStatus::Ok ? QString() : i.fix;
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
