#pragma once
// Two sweeps side by side as a table: report::compareSweeps (core/report/sweep_comparison.h) of
// their ledgers, worded by report/comparison_text.h as `stepscope-cli compare` words it. One row
// per configuration with each side's steady median and its process-level 95% CI, the ratio B/A
// with its interval, and what B is. Per image when the sides ran other batches.
#include "report/ledger.h"
#include "report/sweep_comparison.h"

#include <QAbstractTableModel>
#include <QString>
#include <QStringList>

#include <optional>
#include <vector>

namespace stepscope::ui
{

class ComparisonModel : public QAbstractTableModel
{
    Q_OBJECT
  public:
    enum Column { Configuration, SteadyA, SteadyB, Ratio, Verdict, ColumnCount };
    // Of B against A. OnlyInA/OnlyInB: the configuration has no match on the other side.
    using Outcome = report::ComparisonOutcome;
    static constexpr int SortRole = Qt::UserRole;        // raw ms / ratio; invalid when missing
    static constexpr int OutcomeRole = Qt::UserRole + 1; // int(Outcome)
    static constexpr int ConfigNameRole = Qt::UserRole + 2;

    using Figure = report::ComparisonFigure; // ms per step, or per image
    using Row = report::ComparisonRow;
    using Comparison = report::SweepComparison;

    explicit ComparisonModel(QObject *parent = nullptr);

    // report::compareSweeps: runs the ratio's bootstrap, thread-safe, and the dashboard calls it on
    // a worker (controller/comparison_job.h).
    static Comparison compare(const report::Ledger &a, const report::Ledger &b);
    // Adopts what compare() made of these ledgers: nothing is computed on the calling thread.
    // The names say where each side comes from ("h200.sqlite, #2 H200 ledger b128").
    void setComparison(report::Ledger a, report::Ledger b, Comparison comparison, QString nameA = {},
                       QString nameB = {});
    // compare() + setComparison() on the calling thread (tests).
    void setLedgers(report::Ledger a, report::Ledger b);
    void clear();
    const report::Ledger &ledgerA() const { return a_; }
    const report::Ledger &ledgerB() const { return b_; }
    const QString &nameA() const { return nameA_; }
    const QString &nameB() const { return nameB_; }
    const std::vector<Row> &rows() const { return comparison_.rows; }
    const Comparison &comparison() const { return comparison_; }
    bool isEmpty() const { return comparison_.rows.empty(); }
    // Every way the two sides differ in shape, device, GPU or runtime, worded.
    const QStringList &differences() const { return differences_; }
    bool perImage() const { return comparison_.setup.perImage; }

    // The row's figure of side A or B (per image in per-image mode); none without a steady state.
    std::optional<Figure> figureA(int row) const { return comparison_.rows[std::size_t(row)].figureA; }
    std::optional<Figure> figureB(int row) const { return comparison_.rows[std::size_t(row)].figureB; }
    QString label(int row) const;
    // "ms per step" or "ms per image".
    QString unit() const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

  private:
    QVariant toolTip(const QModelIndex &index, const Row &row) const;

    report::Ledger a_, b_;
    Comparison comparison_;
    QStringList differences_;
    QString nameA_, nameB_;
};

} // namespace stepscope::ui
