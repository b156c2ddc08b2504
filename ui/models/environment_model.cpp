#include "models/environment_model.h"

#include "models/status_colors.h"

#include <QBrush>

namespace stepscope::ui
{

EnvironmentModel::EnvironmentModel(QObject *parent) : QAbstractTableModel(parent) {}

void EnvironmentModel::setEnvironmentJson(const QString &json)
{
    json_ = json;
    rebuild();
}

void EnvironmentModel::setTiming(const QList<EnvironmentEntry> &timing)
{
    timing_ = timing;
    rebuild();
}

void EnvironmentModel::rebuild()
{
    beginResetModel();
    entries_ = assessEnvironment(json_);
    entries_ += timing_;
    endResetModel();
}

void EnvironmentModel::clear()
{
    timing_.clear();
    setEnvironmentJson(QString());
}

int EnvironmentModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(entries_.size());
}

int EnvironmentModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant EnvironmentModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const EnvironmentEntry &e = entries_[index.row()];
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case Key:
            return e.label;
        case Value:
            return e.value;
        case Assessment:
            return e.assessment;
        case Fix:
            return e.fix;
        default:
            return {};
        }
    case Qt::ToolTipRole:
        if (index.column() == Key)
            return e.key;
        if (!e.assessment.isEmpty())
            return e.assessment + QStringLiteral("\n") + tr("Fix: ") + e.fix;
        return {};
    case KeyRole:
        return e.key;
    case SeverityRole:
        return static_cast<int>(e.severity);
    case Qt::ForegroundRole:
        if (index.column() != Assessment)
            return {};
        if (e.severity == Severity::Problem)
            return QBrush(failureColor());
        if (e.severity == Severity::Warning)
            return QBrush(warningColor());
        return {};
    default:
        return {};
    }
}

QVariant EnvironmentModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Key:
        return tr("Setting");
    case Value:
        return tr("Value");
    case Assessment:
        return tr("Effect on the numbers");
    case Fix:
        return tr("Fix");
    default:
        return {};
    }
}

} // namespace stepscope::ui
