#include "charts/chart_widget.h"

#include "charts/chart_palette.h"

#include "charts/qcustomplot_compat.h"

#include <QEvent>
#include <QFontMetrics>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QScopedValueRollback>
#include <QThread>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <functional>

namespace stepscope::ui
{
namespace
{

// A QCustomPlot that tells the ranges the user changes (wheel, drag) from those the chart's code
// sets: QCPAxis::rangeChanged says neither. And Home, with the plot focused, resets the zoom.
class Plot : public QCustomPlot
{
  public:
    Plot(QWidget *parent, std::function<void()> home) : QCustomPlot(parent), home_(std::move(home))
    {
        setFocusPolicy(Qt::StrongFocus); // Home needs the focus; a click or Tab gives it
    }
    bool userInput() const { return userInput_; }

  protected:
    bool event(QEvent *event) override
    {
        switch (event->type()) {
        case QEvent::MouseButtonPress:
        case QEvent::MouseMove:
        case QEvent::MouseButtonRelease:
        case QEvent::Wheel: {
            // Whatever the plot does to a range while it handles these is the user's doing.
            const QScopedValueRollback<bool> user(userInput_, true);
            return QCustomPlot::event(event);
        }
        default:
            return QCustomPlot::event(event);
        }
    }
    void keyPressEvent(QKeyEvent *event) override
    {
        if (event->key() == Qt::Key_Home && (event->modifiers() & ~Qt::KeypadModifier) == Qt::NoModifier) {
            home_();
            event->accept();
            return;
        }
        QCustomPlot::keyPressEvent(event);
    }

  private:
    std::function<void()> home_;
    bool userInput_ = false;
};

} // namespace

ChartWidget::ChartWidget(QWidget *parent) : QWidget(parent), plot_(new Plot(this, [this] { resetZoom(); }))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(plot_);
    // QCustomPlot asks for its layout's minimum size (a legend of long names, a footnote) and the
    // window would grow to fit it; charts fit their legends to the width they get instead.
    plot_->setMinimumSize(240, 180);
    // Any replot (the plot's own on a resize, or an export's) draws what a deferred one would.
    connect(plot_, &QCustomPlot::afterReplot, this, [this] { replotWhenShown_ = false; });
    // Virtual: a chart that follows its data resumes following.
    connect(plot_, &QCustomPlot::mouseDoubleClick, this, [this] { resetZoom(); });
    watchRanges();
    restyle();
}

void ChartWidget::watchRanges()
{
    // The axes of the default axis rect, which every chart of the dashboard draws in.
    for (QCPAxis *axis : plot_->axisRect()->axes()) {
        fitted_.insert(axis, {axis->range().lower, axis->range().upper}); // a chart that keeps the default
        connect(axis, qOverload<const QCPRange &>(&QCPAxis::rangeChanged), this, [this, axis](const QCPRange &r) {
            if (!static_cast<Plot *>(plot_)->userInput())
                fitted_.insert(axis, {r.lower, r.upper});
        });
    }
}

void ChartWidget::resetZoom()
{
    bool changed = false;
    const auto fitted = fitted_; // setRange() below records each range again
    for (auto it = fitted.constBegin(); it != fitted.constEnd(); ++it) {
        const QCPRange range(it.value().first, it.value().second);
        if (it.key()->range() != range) {
            it.key()->setRange(range);
            changed = true;
        }
    }
    if (changed)
        requestReplot();
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

void ChartWidget::showHoverText(std::function<QString(const QPointF &)> textAt)
{
    connect(plot_, &QCustomPlot::mouseMove, this, [this, textAt = std::move(textAt)](QMouseEvent *event) {
        const QString text = textAt(event->position());
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(event->globalPosition().toPoint(), text, plot_);
    });
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
