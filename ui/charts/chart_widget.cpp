#include "charts/chart_widget.h"

#include "charts/chart_palette.h"

#include "charts/qcustomplot_compat.h"

#include <QEvent>
#include <QFontMetrics>

#include <QThread>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

namespace stepscope::ui
{

ChartWidget::ChartWidget(QWidget *parent) : QWidget(parent), plot_(new QCustomPlot(this))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(plot_);
    // QCustomPlot asks for its layout's minimum size (a legend of long names, a footnote) and the
    // window would grow to fit it; charts fit their legends to the width they get instead.
    plot_->setMinimumSize(240, 180);
    // Any replot (the plot's own on a resize, or an export's) draws what a deferred one would.
    connect(plot_, &QCustomPlot::afterReplot, this, [this] { replotWhenShown_ = false; });
    restyle();
}

void ChartWidget::requestReplot()
{
    if (isVisible())
        plot_->replot(QCustomPlot::rpQueuedReplot);
    else
        replotWhenShown_ = true;
}

void ChartWidget::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    if (!replotWhenShown_)
        return;
    // Queued: a page shown by its tab is laid out next, and the plot replots for its new size
    // then; this one draws only if that did not happen.
    QMetaObject::invokeMethod(
        this,
        [this] {
            if (replotWhenShown_ && isVisible())
                plot_->replot();
        },
        Qt::QueuedConnection);
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
        requestReplot();
    }
}

void ChartWidget::assertUiThread() const
{
    Q_ASSERT_X(QThread::currentThread() == thread(), "ChartWidget", "charts are touched from the UI thread only");
}

void ChartWidget::reserveRoomForTickLabels(const QStringList &labels, double degrees)
{
    int right = 0;
    if (degrees > 0 && !labels.isEmpty()) {
        const QFontMetrics metrics(plot_->xAxis->tickLabelFont());
        const double cos = std::cos(degrees * M_PI / 180.0);
        // The last label starts at the last tick; the one before has about a category's width more.
        const double category = double(plot_->width()) / double(std::max<qsizetype>(labels.size() + 1, 2));
        for (qsizetype k = 0; k < std::min<qsizetype>(labels.size(), 3); ++k) {
            const QString &label = labels[labels.size() - 1 - k];
            int widest = 0;
            for (const QString &line : label.split(QLatin1Char('\n')))
                widest = std::max(widest, metrics.horizontalAdvance(line));
            right = std::max(right, int(widest * cos - double(k) * category));
        }
    }
    plot_->axisRect()->setMinimumMargins(QMargins(0, 0, std::max(0, right) + 8, 0));
}

void ChartWidget::moveLegendBelow(int columns)
{
    QCPLegend *legend = plot_->legend;
    legend->setVisible(true);
    plot_->axisRect()->insetLayout()->take(legend); // false when it is not there: nothing to do
    QCPLayoutGrid *layout = plot_->plotLayout();
    layout->addElement(layout->rowCount(), 0, legend);
    layout->setRowStretchFactor(layout->rowCount() - 1, 0.001); // the axis rect takes the height
    legend->setFillOrder(QCPLegend::foColumnsFirst);
    legend->setWrap(columns);
    legend->setColumnSpacing(16);
}

void ChartWidget::useStepAxes()
{
    plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    // Thin solid lines over tens of thousands of points: the fast polyline path is indistinguishable.
    plot_->setPlottingHint(QCP::phFastPolylines, true);
    plot_->setNoAntialiasingOnDrag(true);
    plot_->xAxis->setLabel(tr("step"));
    plot_->yAxis->setLabel(tr("step time (ms)"));
}

void ChartWidget::restyle()
{
    applyChartPalette(plot_, palette());
}

} // namespace stepscope::ui
