#include "pages/chart_page.h"

#include "charts/chart_widget.h"

#include <QVBoxLayout>

namespace stepscope::ui
{

ChartPage::ChartPage(ChartWidget *chart, const QString &title, const QString &key, QWidget *parent)
    : Page(parent), chart_(chart), title_(title), key_(key)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(chart_);
}

QCustomPlot *ChartPage::chart() const
{
    return chart_->plot();
}

} // namespace stepscope::ui
