#include "charts/comparison_chart.h"

#include "models/figure_text.h"
#include "charts/chart_palette.h"
#include "charts/log_ticker.h"
#include "models/comparison_model.h"

#include "charts/qcustomplot_compat.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace stepscope::ui
{
namespace
{

constexpr double kBarWidth = 0.36;
constexpr double kOffset = 0.19; // A above the category's centre, B below
// Past this ratio of the largest to the smallest figure a linear axis leaves the small bars a few
// pixels wide (an H200 against a CPU: 3.7 ms against 500 ms): the axis turns logarithmic.
constexpr double kLogAbove = 20;

} // namespace

ComparisonChart::ComparisonChart(QWidget *parent) : ChartWidget(parent)
{
    QCustomPlot *p = plot();
    p->yAxis->grid()->setVisible(false);
    p->yAxis->setTicker(QSharedPointer<QCPAxisTickerText>::create());
    moveLegendBelow(2);
    rebuild();
}

void ComparisonChart::setModel(ComparisonModel *model)
{
    if (model_)
        disconnect(model_, nullptr, this, nullptr);
    model_ = model;
    if (model_)
        connect(model_, &QAbstractItemModel::modelReset, this, [this] {
            rebuild();
            requestReplot();
        });
    rebuild();
    requestReplot();
}

void ComparisonChart::rebuild()
{
    assertUiThread();
    QCustomPlot *p = plot();
    p->clearPlottables();
    p->clearItems();
    whiskers_.clear();
    ratioLabels_.clear();
    const ChartColors colors = chartColors(palette());
    const QColor colorA = chartSeriesColor(0, palette()), colorB = chartSeriesColor(1, palette());

    // Bars along x, configurations down the y axis in the table's order (the first at the top).
    barsA_ = new QCPBars(p->yAxis, p->xAxis);
    barsB_ = new QCPBars(p->yAxis, p->xAxis);
    for (const auto &pair : {std::pair{barsA_, colorA}, std::pair{barsB_, colorB}}) {
        QCPBars *bars = pair.first;
        const QColor &color = pair.second;
        bars->setWidth(kBarWidth);
        bars->setPen(QPen(color.darker(125), 1));
        bars->setBrush(color);
    }
    const int n = model_ ? model_->rowCount() : 0;
    barsA_->setName(model_ && n ? tr("A: %1").arg(model_->nameA()) : tr("A"));
    barsB_->setName(model_ && n ? tr("B: %1").arg(model_->nameB()) : tr("B"));
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    double right = 0, smallest = std::numeric_limits<double>::infinity();
    const QPen whiskerPen(colors.text, 1.2);
    const auto whisker = [&](double y, const ComparisonModel::Figure &f) {
        if (!f.lowMs || !f.highMs)
            return;
        auto *line = new QCPItemLine(p);
        line->start->setCoords(*f.lowMs, y);
        line->end->setCoords(*f.highMs, y);
        line->setPen(whiskerPen);
        whiskers_.append(line);
        for (double x : {*f.lowMs, *f.highMs}) {
            auto *cap = new QCPItemLine(p);
            cap->start->setCoords(x, y - kBarWidth / 4);
            cap->end->setCoords(x, y + kBarWidth / 4);
            cap->setPen(whiskerPen);
        }
    };
    // QCPItemPosition takes (x, y): keys of horizontal bars are y coordinates.
    struct Pending {
        double y;
        double x;
        QString text;
        QColor color;
    };
    QVector<Pending> labels;
    for (int row = n - 1; row >= 0; --row) {
        const double y = n - 1 - row;
        ticker->addTick(y, shortAxisLabel(model_->label(row)));
        double end = 0;
        const auto a = model_->figureA(row), b = model_->figureB(row);
        if (a) {
            barsA_->addData(y + kOffset, a->ms);
            whisker(y + kOffset, *a);
            end = std::max({end, a->ms, a->highMs.value_or(0.0)});
        }
        if (b) {
            barsB_->addData(y - kOffset, b->ms);
            whisker(y - kOffset, *b);
            end = std::max({end, b->ms, b->highMs.value_or(0.0)});
        }
        right = std::max(right, end);
        for (const auto &f : {a, b})
            if (f && f->ms > 0)
                smallest = std::min({smallest, f->ms, f->lowMs.value_or(f->ms)});
        const QModelIndex verdict = model_->index(row, ComparisonModel::Verdict);
        const auto outcome = ComparisonModel::Outcome(verdict.data(ComparisonModel::OutcomeRole).toInt());
        const auto &r = model_->rows()[std::size_t(row)];
        QString text;
        QColor color = colors.text;
        if (r.ratio) {
            // Two decimals read well near 1; across machines (0.0082x) two significant digits do.
            const double ratio = r.ratio->ratio;
            text = QStringLiteral("B/A %1x").arg(ratio >= 0.1 ? QString::number(ratio, 'f', 2)
                                                              : QString::number(ratio, 'g', 2));
            if (outcome == ComparisonModel::Outcome::Faster)
                color = colors.faster;
            else if (outcome == ComparisonModel::Outcome::Slower)
                color = colors.slower;
            else
                text += r.ratio->hasInterval ? tr(", interval spans 1") : tr(", no interval");
        } else {
            text = verdict.data().toString();
        }
        labels.append({y, end, text, color});
    }
    right = right > 0 ? right : 1.0;
    const bool logarithmic = std::isfinite(smallest) && smallest > 0 && right / smallest > kLogAbove;
    // On a log axis a bar cannot start at 0: it starts at the left edge, a decade below the smallest.
    const double left = logarithmic ? std::pow(10.0, std::floor(std::log10(smallest)) - 1) : 0.0;
    barsA_->setBaseValue(left);
    barsB_->setBaseValue(left);
    for (const Pending &l : labels) {
        auto *label = new QCPItemText(p);
        label->position->setCoords(l.x > 0 ? l.x : 0.0, l.y);
        label->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
        label->setPadding(QMargins(6, 0, 0, 0));
        label->setText(l.text);
        label->setColor(l.color);
        ratioLabels_.prepend(label); // model row order
    }
    p->yAxis->setTicker(ticker);
    p->yAxis->setRange(-0.6, std::max(1, n) - 0.4);
    // Room on the right for the ratio labels (on a log axis: the same share of the width).
    p->xAxis->setScaleType(logarithmic ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
    if (logarithmic)
        p->xAxis->setTicker(QSharedPointer<LogTicker>::create());
    else
        p->xAxis->setTicker(QSharedPointer<QCPAxisTicker>::create());
    p->xAxis->setRange(left, logarithmic ? right * std::pow(right / left, 0.45) : right * 1.45);
    QString axis =
        model_ && model_->perImage() ? tr("steady time per image (ms), 95% CI") : tr("steady step (ms), 95% CI");
    if (logarithmic)
        axis += tr(", log scale");
    p->xAxis->setLabel(axis);
    p->legend->setVisible(n > 0);
}

} // namespace stepscope::ui
