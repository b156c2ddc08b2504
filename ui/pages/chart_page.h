#pragma once
// A page that is one of the charts that read the ledger model (they clear with it).
#include "pages/page.h"

namespace stepscope::ui
{

class ChartWidget;

class ChartPage : public Page
{
    Q_OBJECT
  public:
    ChartPage(ChartWidget *chart, const QString &title, const QString &key, QWidget *parent = nullptr);

    QString title() const override { return title_; }
    QString key() const override { return key_; }
    QCustomPlot *chart() const override;
    ChartWidget *chartWidget() const { return chart_; }

  private:
    ChartWidget *chart_;
    QString title_, key_;
};

} // namespace stepscope::ui
