#pragma once
// Two sweeps side by side (say, before and after a driver update): one row per configuration that
// both measured, with the ratio of steady medians B/A and whether it is significant.
#include "report/ledger.h"

#include <QAbstractTableModel>
#include <QString>

#include <optional>
#include <vector>

namespace stepscope::ui
{

class ComparisonModel : public QAbstractTableModel
{
    Q_OBJECT
  public:
    enum Column { Configuration, SteadyA, SteadyB, Ratio, Verdict, ColumnCount };
    enum class Outcome { Faster, Slower, NoSignificantDifference, NotComparable }; // of B against A
    static constexpr int SortRole = Qt::UserRole;        // raw ms / ratio; invalid when missing
    static constexpr int OutcomeRole = Qt::UserRole + 1; // int(Outcome)
    static constexpr int ConfigNameRole = Qt::UserRole + 2;

    struct Row {
        std::size_t a = 0, b = 0; // indices into the ledgers' rows
        std::optional<stats::RatioCI> ratio;
        Outcome outcome = Outcome::NotComparable;
    };

    explicit ComparisonModel(QObject *parent = nullptr);

    // Rows follow A's order; a configuration matches by canonical name, else by its knob label
    // (the same knobs measured with another batch or image size). Runs the ratio's bootstrap:
    // thread-safe, and the dashboard calls it on a worker (controller/comparison_job.h).
    static std::vector<Row> compare(const report::Ledger &a, const report::Ledger &b);
    // Adopts rows compare() made of these ledgers: nothing is computed on the calling thread.
    void setComparison(report::Ledger a, report::Ledger b, std::vector<Row> rows);
    // compare() + setComparison() on the calling thread (tests).
    void setLedgers(report::Ledger a, report::Ledger b);
    void clear();
    const report::Ledger &ledgerA() const { return a_; }
    const report::Ledger &ledgerB() const { return b_; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

  private:
    QString verdictText(const Row &row) const;

    report::Ledger a_, b_;
    std::vector<Row> rows_;
};

} // namespace stepscope::ui
