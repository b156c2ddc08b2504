#include "charts/chart_widget.h"

#include "charts/chart_palette.h"

#include "charts/qcustomplot_compat.h"

#include <QEvent>
#include <QThread>
#include <QVBoxLayout>

namespace stepscope::ui
{

ChartWidget::ChartWidget(QWidget *parent) : QWidget(parent), plot_(new QCustomPlot(this))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(plot_);
    restyle();
}

void ChartWidget::setTitle(const QString &title)
{
    // The title row exists only while there is a title: an empty row would still take its margins.
    if (title.isEmpty()) {
        if (title_) {
            plot_->plotLayout()->remove(title_);
            plot_->plotLayout()->simplify();
            title_ = nullptr;
        }
        return;
    }
    if (!title_) {
        QFont bold = font();
        bold.setBold(true);
        bold.setPointSizeF(bold.pointSizeF() + 1);
        plot_->plotLayout()->insertRow(0);
        title_ = new QCPTextElement(plot_, title, bold);
        plot_->plotLayout()->addElement(0, 0, title_);
        plot_->plotLayout()->setRowStretchFactor(0, 0.001); // the axis rect takes the height
        title_->setTextColor(chartColors(palette()).text);
    }
    title_->setText(title);
}

QString ChartWidget::title() const
{
    return title_ ? title_->text() : QString();
}

void ChartWidget::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) {
        restyle();
        paletteChanged();
        plot_->replot(QCustomPlot::rpQueuedReplot);
    }
}

void ChartWidget::assertUiThread() const
{
    Q_ASSERT_X(QThread::currentThread() == thread(), "ChartWidget", "charts are touched from the UI thread only");
}

void ChartWidget::restyle()
{
    applyChartPalette(plot_, palette());
}

} // namespace stepscope::ui
