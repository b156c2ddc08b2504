#pragma once
// The environment a sweep ran in, one fact a row, each with what it does to the numbers and how
// to fix it (EnvironmentEntry).
#include "models/environment_assessment.h"

#include <QAbstractTableModel>

namespace stepscope::ui
{

class EnvironmentModel : public QAbstractTableModel
{
    Q_OBJECT
  public:
    enum Column { Key, Value, Assessment, Fix, ColumnCount };
    static constexpr int KeyRole = Qt::UserRole;          // the record's raw key
    static constexpr int SeverityRole = Qt::UserRole + 1; // int(Severity)

    explicit EnvironmentModel(QObject *parent = nullptr);

    // The worker's `hello` environment object as stored (EnvironmentRecord::json).
    void setEnvironmentJson(const QString &json);
    // What the sweep's runs show about the CPU (assessTiming), shown after the machine's facts;
    // kept across setEnvironmentJson() until replaced.
    void setTiming(const QList<EnvironmentEntry> &timing);
    void clear();
    QString environmentJson() const { return json_; }
    const QList<EnvironmentEntry> &entries() const { return entries_; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

  private:
    void rebuild();

    QString json_;
    QList<EnvironmentEntry> timing_;
    QList<EnvironmentEntry> entries_;
};

} // namespace stepscope::ui
