#pragma once
// Compare as a chart: per configuration, A's and B's steady time (per image when the batches
// differ) as two horizontal bars with their process-level 95% CI as whiskers, and the ratio B/A
// beside them, coloured as the table colours its verdict. Reads the ComparisonModel and rebuilds
// whenever it resets. The time axis is logarithmic when the figures span more than a factor of 20.
#include "charts/chart_widget.h"

#include <QPointer>
#include <QVector>

class QCPBars;
class QCPItemLine;
class QCPItemText;

namespace stepscope::ui
{

class ComparisonModel;

class ComparisonChart : public ChartWidget
{
    Q_OBJECT
  public:
    explicit ComparisonChart(QWidget *parent = nullptr);

    // The chart does not own the model.
    void setModel(ComparisonModel *model);

    QCPBars *barsA() const { return barsA_; }
    QCPBars *barsB() const { return barsB_; }
    // Whiskers drawn (one per figure with an interval) and the ratio labels, in model row order.
    int whiskerCount() const { return int(whiskers_.size()); }
    const QVector<QCPItemText *> &ratioLabels() const { return ratioLabels_; }

  protected:
    void paletteChanged() override { rebuild(); }

  private:
    void rebuild();

    QPointer<ComparisonModel> model_;
    QCPBars *barsA_ = nullptr;
    QCPBars *barsB_ = nullptr;
    QVector<QCPItemLine *> whiskers_;
    QVector<QCPItemText *> ratioLabels_;
};

} // namespace stepscope::ui
