#pragma once
// Base of the charts that compare configurations: they read the LedgerModel and rebuild from its
// ledger whenever the model resets or changes. The model owns the data; a chart owns only drawings.
#include "charts/chart_widget.h"

#include <QPointer>

class QTimer;

namespace stepscope::ui
{

class LedgerModel;

class LedgerChart : public ChartWidget
{
    Q_OBJECT
  public:
    explicit LedgerChart(QWidget *parent = nullptr);

    // The chart does not own the model; it clears itself when the model goes away.
    void setModel(LedgerModel *model);
    LedgerModel *model() const;

  protected:
    // Clears the plot and draws the model's ledger again (also called with no model: draw empty).
    virtual void rebuild() = 0;
    void paletteChanged() override { rebuildNow(); }

  private:
    void rebuildNow();
    void scheduleRebuild();

    QPointer<LedgerModel> model_;
    // Cell-wise dataChanged bursts (a sweep updating a row) coalesce into one rebuild.
    QTimer *pending_ = nullptr;
};

} // namespace stepscope::ui
