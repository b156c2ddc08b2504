#pragma once
// The Python worker's --doctor items as a table (the items and their rules: supervisor/doctor_items.h,
// which `stepscope-cli doctor` reads too).
#include "supervisor/doctor_items.h"

#include <QAbstractTableModel>
#include <QByteArray>
#include <QList>
#include <QString>

#include <optional>

namespace stepscope::ui
{

using supervisor::DoctorExit;
using supervisor::DoctorItem;
using supervisor::doctorVerdict;
using supervisor::parseDoctorLine;

class DoctorModel : public QAbstractTableModel
{
    Q_OBJECT
  public:
    enum Column { Status, Item, Value, Fix, ColumnCount };

    explicit DoctorModel(QObject *parent = nullptr);

    void clear();
    void append(const DoctorItem &item);
    const QList<DoctorItem> &items() const { return items_; }
    int count(const QString &status) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

  private:
    QList<DoctorItem> items_;
};

} // namespace stepscope::ui
