#pragma once
// Two sweeps side by side (say, before and after a driver update, or one GPU against another):
// one row per configuration, matched between the two, with each side's steady median and its
// process-level 95% CI, the ratio of steady medians B/A with its interval, and whether the
// interval leaves 1 out. A configuration only one side measured keeps a row that says so. When
// the sides ran another batch, every figure is per image (ComparisonSetup).
#include "models/comparison_setup.h"
#include "report/ledger.h"

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
    enum class Outcome { Faster, Slower, NoSignificantDifference, NotComparable, OnlyInA, OnlyInB };
    static constexpr int SortRole = Qt::UserRole;        // raw ms / ratio; invalid when missing
    static constexpr int OutcomeRole = Qt::UserRole + 1; // int(Outcome)
    static constexpr int ConfigNameRole = Qt::UserRole + 2;

    // One side's steady figure as the table shows it: ms per step, or per image.
    struct Figure {
        double ms = 0;
        std::optional<double> lowMs, highMs; // 95% CI over processes; none with one process
    };

    struct Row {
        std::optional<std::size_t> a, b; // indices into the ledgers' rows
        std::optional<stats::RatioCI> ratio;
        Outcome outcome = Outcome::NotComparable;
        int batchA = 0, batchB = 0; // the rows' batches; figures are divided by them per image
    };

    struct Comparison {
        std::vector<Row> rows;
        ComparisonSetup setup;
    };

    explicit ComparisonModel(QObject *parent = nullptr);

    // Rows follow A's order, then B's configurations A lacks; a configuration matches by canonical
    // name, else by its knob label (the same knobs measured with another batch or image size).
    // Runs the ratio's bootstrap: thread-safe, and the dashboard calls it on a worker
    // (controller/comparison_job.h).
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
    bool isEmpty() const { return comparison_.rows.empty(); }
    // Every way the two sides differ in shape, device, GPU or runtime.
    const QStringList &differences() const { return comparison_.setup.differences; }
    bool perImage() const { return comparison_.setup.perImage; }

    // The row's figure of side A or B (per image in per-image mode); none without a steady state.
    std::optional<Figure> figureA(int row) const { return figure(row, true); }
    std::optional<Figure> figureB(int row) const { return figure(row, false); }
    QString label(int row) const;
    // "ms per step" or "ms per image".
    QString unit() const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

  private:
    std::optional<Figure> figure(int row, bool sideA) const;
    QString verdictText(const Row &row) const;
    QString figureText(const std::optional<Figure> &figure) const;

    report::Ledger a_, b_;
    Comparison comparison_;
    QString nameA_, nameB_;
};

// A steady time as the comparison writes it: three significant digits, small per-image times too.
QString comparisonMsText(double ms); // "14.12 ms", "0.367 ms"
QString comparisonNumber(double ms); // the same without the unit

} // namespace stepscope::ui
