#pragma once
// A page that is one chart: the live steps, or one of the charts that read the ledger model.
#include "pages/page.h"

#include <functional>

namespace stepscope::ui
{

class ChartWidget;

class ChartPage : public Page
{
    Q_OBJECT
  public:
    // `clear` forgets the chart's own data, for a chart that does not read a model.
    ChartPage(ChartWidget *chart, const QString &title, const QString &key, std::function<void()> clear = {},
              QWidget *parent = nullptr);

    QString title() const override { return title_; }
    QString key() const override { return key_; }
    QCustomPlot *chart() const override;
    void clear() override;
    ChartWidget *chartWidget() const { return chart_; }

  private:
    ChartWidget *chart_;
    QString title_, key_;
    std::function<void()> clear_;
};

} // namespace stepscope::ui
