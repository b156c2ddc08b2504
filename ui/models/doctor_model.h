#pragma once
// The doctor's rows as a table (supervisor/doctor_service.h: the rows `stepscope-cli doctor` prints).
#include "supervisor/doctor_items.h"

#include <QAbstractTableModel>
#include <QList>
#include <QString>

namespace stepscope::ui
{

using supervisor::DoctorItem;
using supervisor::DoctorStatus;

class DoctorModel : public QAbstractTableModel
{
    Q_OBJECT
  public:
    enum Column { Status, Item, Value, Fix, ColumnCount };

    explicit DoctorModel(QObject *parent = nullptr);

    void clear();
    void append(const DoctorItem &item);
    const QList<DoctorItem> &items() const { return items_; }
    int count(DoctorStatus status) const { return supervisor::countOf(items_, status); }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

  private:
    QList<DoctorItem> items_;
};

} // namespace stepscope::ui
