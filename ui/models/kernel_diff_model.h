#pragma once
// The kernel diff of two rows (profile/kernel_diff.h) as a table: one row per kernel, or per kernel
// family, with its time per step in A and in B, the change in ms and in %, and its calls per step.
// The Why page sorts it through a FigureSortProxy on SortRole (raw numbers; an added kernel has
// no % change and sorts after every figure).
#include <QAbstractTableModel>

#include "profile/kernel_diff.h"

namespace stepscope::ui
{

class KernelDiffModel : public QAbstractTableModel
{
    Q_OBJECT
  public:
    enum Column { Name, AMs, BMs, ChangeMs, ChangeShare, Calls, ColumnCount };
    enum class Rows { Kernels, Families };
    static constexpr int SortRole = Qt::UserRole; // the raw figure; invalid when there is none

    explicit KernelDiffModel(QObject *parent = nullptr);

    void setDiff(profile::ProfileDiff diff); // reset
    void clear();
    void setRows(Rows rows); // reset
    Rows rows() const { return rows_; }
    const profile::ProfileDiff &diff() const { return diff_; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

  private:
    // A kernel or a family, as a row reads it.
    struct Line {
        QString name, tip;
        profile::KernelChange::Kind kind = profile::KernelChange::Kind::Same;
        double msA = 0, msB = 0, countA = 0, countB = 0;
    };
    void rebuild();
    QVariant figure(const Line &line, int column) const; // SortRole
    QString text(const Line &line, int column) const;    // DisplayRole

    profile::ProfileDiff diff_;
    Rows rows_ = Rows::Kernels;
    std::vector<Line> lines_;
};

} // namespace stepscope::ui
