#include "charts/waterfall_chart.h"

#include "report/ledger_text.h"

#include "models/figure_text.h"
#include "charts/chart_palette.h"
#include "models/ledger_format.h"
#include "models/ledger_model.h"
#include "report/waterfall.h"

#include "charts/qcustomplot_compat.h"

#include <algorithm>

namespace stepscope::ui
{
namespace
{

constexpr double kBarWidth = 0.6;
constexpr int kLabelGap = 3; // pixels between a bar's top (or its whisker) and its label

} // namespace

WaterfallChart::WaterfallChart(QWidget *parent) : LedgerChart(parent)
{
    QCustomPlot *p = plot();
    p->yAxis->setLabel(tr("steady-state step (ms)"));
    p->xAxis->grid()->setVisible(false);
    p->xAxis->setTicker(QSharedPointer<QCPAxisTickerText>::create());
    connect(p, &QCustomPlot::afterLayout, this, &WaterfallChart::fitLabels);
    rebuild();
}

void WaterfallChart::rebuild()
{
    QCustomPlot *p = plot();
    p->clearPlottables();
    p->clearItems();
    steps_.clear();
    bars_.clear();
    labels_.clear();
    whiskers_.clear();
    stubs_.clear();
    gaps_.clear();

    const report::Ledger emptyLedger;
    const report::Ledger &ledger = model() ? model()->ledger() : emptyLedger;
    const auto &rows = ledger.rows;
    // buildLedger computes the parents; a ledger put together otherwise (a test's, by hand) gets
    // them here.
    const std::vector<report::WaterfallStep> computed =
        ledger.waterfall.size() == rows.size() ? std::vector<report::WaterfallStep>() : report::waterfallOf(rows);
    const std::vector<report::WaterfallStep> &parents = computed.empty() ? ledger.waterfall : computed;
    const auto rowLabel = [&](std::size_t i) {
        return shortAxisLabel(QString::fromStdString(rows[i].axisLabel.empty()
                                                         ? (rows[i].label.empty() ? rows[i].configName : rows[i].label)
                                                         : rows[i].axisLabel));
    };
    // x positions: one slot per ledger row, so that a gap shows where the missing row stands.
    QVector<int> slotOfStep;
    QStringList slotLabels;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const report::WaterfallStep &w = parents[i];
        const QString label =
            w.change ? shortAxisLabel(QString::fromStdString(report::changeText(*w.change))) : rowLabel(i);
        slotLabels << label;
        if (!rows[i].steadyMs) {
            gaps_.append(int(i));
            continue;
        }
        Step step;
        step.row = int(i);
        step.label = label;
        step.parentRow = w.parent ? int(*w.parent) : -1;
        step.branch = w.branch;
        step.hasFrom = w.parent && rows[*w.parent].steadyMs.has_value();
        step.fromMs = step.hasFrom ? *rows[*w.parent].steadyMs : 0.0;
        step.toMs = *rows[i].steadyMs;
        step.significant = !w.ratio || !w.ratio->hasInterval || w.ratio->significant;
        if (rows[i].steadyCI && rows[i].steadyCI->hasInterval) {
            step.ciLowMs = rows[i].steadyCI->low;
            step.ciHighMs = rows[i].steadyCI->high;
        }
        steps_.append(step);
        slotOfStep.append(int(i));
    }

    const ChartColors colors = chartColors(palette());
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    double top = 0;
    for (int i = 0; i < steps_.size(); ++i) {
        const Step &step = steps_[i];
        const double x = slotOfStep[i];
        const double low = std::min(step.fromMs, step.toMs);
        const double high = std::max(step.fromMs, step.toMs);
        const QColor color =
            !step.hasFrom ? colors.neutral : (step.toMs <= step.fromMs ? colors.faster : colors.slower);

        // One QCPBars per bar: a bar floats on its own base value, which QCPBars holds per plottable.
        auto *bars = new QCPBars(p->xAxis, p->yAxis);
        bars->removeFromLegend();
        bars->setWidth(kBarWidth);
        bars->setBaseValue(low);
        bars->addData(x, high - low);
        bars->setPen(QPen(color.darker(125), 1));
        bars->setBrush(color);
        bars_.append(bars);
        top = std::max({top, high, step.ciHighMs.value_or(0.0)});

        QCPItemLine *whisker = nullptr;
        if (step.ciLowMs && step.ciHighMs) {
            // The level's interval over processes: a vertical line with end caps at its end.
            const QPen pen(colors.text, 1.2);
            whisker = new QCPItemLine(p);
            whisker->start->setCoords(x, *step.ciLowMs);
            whisker->end->setCoords(x, *step.ciHighMs);
            whisker->setPen(pen);
            for (double y : {*step.ciLowMs, *step.ciHighMs}) {
                auto *cap = new QCPItemLine(p);
                cap->start->setCoords(x - kBarWidth / 6, y);
                cap->end->setCoords(x + kBarWidth / 6, y);
                cap->setPen(pen);
            }
        }
        whiskers_.append(whisker);

        auto *label = new QCPItemText(p);
        label->position->setCoords(x, std::max(high, step.ciHighMs.value_or(high)));
        label->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
        label->setPadding(QMargins(0, 0, 0, kLabelGap));
        QString text = formatStepMs(step.toMs);
        if (step.hasFrom)
            text = formatDeltaMs(step.deltaMs()) + (step.significant ? QString() : QStringLiteral(" n.s.")) +
                   QStringLiteral("\n") + text;
        // A knob of the recommended row that only costs (report/knob_worth.h), judged on this very
        // bar: its first-step price, on the bar that shows it buys nothing steady.
        for (const report::KnobWorth &w : ledger.recommendedWorth)
            if (w.verdict == report::KnobWorth::Verdict::CostsOnly && w.firstDeltaMs && int(w.with) == step.row &&
                int(w.without) == step.parentRow)
                text += QStringLiteral("\n") +
                        tr("first step %1: drop it")
                            .arg(QString::fromStdString("+" + report::formatSeconds(*w.firstDeltaMs / 1000.0)));
        // A branch names the bar it grows from: its level is not the one just before.
        if (step.hasFrom && step.branch)
            text = tr("from %1").arg(rowLabel(std::size_t(step.parentRow))) + QStringLiteral("\n") + text;
        label->setText(text);
        label->setColor(!step.hasFrom ? colors.text : color);
        labels_.append(label);

        // The connector carries the eye from one bar's end to where the next one starts, only
        // between a bar and the next one that stands on it: across a gap or to a branch there is no
        // step to follow. A branch gets its own line from its parent, below.
        if (i + 1 < steps_.size() && steps_[i + 1].hasFrom && !steps_[i + 1].branch &&
            steps_[i + 1].parentRow == step.row) {
            auto *connector = new QCPItemLine(p);
            connector->start->setCoords(x + kBarWidth / 2, step.toMs);
            connector->end->setCoords(slotOfStep[i + 1] - kBarWidth / 2, step.toMs);
            connector->setPen(QPen(colors.grid, 1, Qt::DashLine));
        }
        // A branch's connector runs from its parent's bar, over the bars between, at the parent's
        // level: the eye finds where the branch grows from.
        QCPItemLine *stub = nullptr;
        if (step.hasFrom && step.branch) {
            stub = new QCPItemLine(p);
            stub->start->setCoords(step.parentRow + kBarWidth / 2, step.fromMs);
            stub->end->setCoords(x - kBarWidth / 2, step.fromMs);
            stub->setPen(QPen(color, 1, Qt::DotLine));
        }
        stubs_.append(stub);
    }
    for (int row : gaps_) {
        auto *note = new QCPItemText(p);
        note->position->setType(QCPItemPosition::ptPlotCoords);
        note->position->setCoords(row, 0);
        note->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
        note->setPadding(QMargins(0, 0, 0, 4));
        const report::LedgerRow &gap = rows[std::size_t(row)];
        note->setText(ledgerRowCancelled(gap)       ? tr("cancelled")
                      : gap.failureCategory.empty() ? tr("no steady\nstate")
                                                    : tr("failed"));
        note->setColor(colors.grid.darker(160));
    }
    for (int i = 0; i < slotLabels.size(); ++i)
        ticker->addTick(i, slotLabels[i]);
    p->xAxis->setTicker(ticker);
    p->xAxis->setTickLabelRotation(slotLabels.size() > 5 ? 30 : 0);
    reserveRoomForTickLabels(slotLabels, p->xAxis->tickLabelRotation());
    p->xAxis->setRange(-0.6, std::max(1, int(slotLabels.size())) - 0.4);
    headroomUpper_ = fittedUpper_ = top > 0 ? top * 1.2 : 1.0;
    p->yAxis->setRange(0, headroomUpper_);
}

void WaterfallChart::fitLabels()
{
    QCustomPlot *p = plot();
    const double slot = std::abs(p->xAxis->coordToPixel(1) - p->xAxis->coordToPixel(0));
    const int height = p->axisRect()->height();
    if (labels_.isEmpty() || slot <= 0 || height <= 0)
        return;
    QVector<double> widths;
    double widest = 0;
    for (const QCPItemText *label : labels_) {
        const QRect box =
            QFontMetrics(label->font()).boundingRect(QRect(0, 0, 10000, 10000), Qt::AlignCenter, label->text());
        widths.append(box.width() + kLabelGap);
        widest = std::max(widest, double(box.width()));
    }
    // Side by side they need a slot wider than the widest label (with a little air); upright, a
    // slot wider than two lines, which a bar of 0.6 slot always leaves at any size a chart is drawn.
    const bool upright = widest > 0.9 * slot;
    for (QCPItemText *label : labels_) {
        label->setRotation(upright ? -90 : 0);
        // Rotated, alignment is read along the text: it starts at the anchor and runs upwards.
        label->setPositionAlignment(upright ? Qt::AlignLeft | Qt::AlignVCenter : Qt::AlignHCenter | Qt::AlignBottom);
        label->setPadding(upright ? QMargins(kLabelGap, 0, 0, 0) : QMargins(0, 0, 0, kLabelGap));
    }
    // Upright labels stand taller than the 20% headroom: raise the axis so that each stays inside.
    // A label taller than most of the plot cannot be helped by the axis; it is left to clip.
    double upper = headroomUpper_;
    for (int i = 0; upright && i < labels_.size(); ++i) {
        const double share = widths[i] / height;
        const double anchor = labels_[i]->position->coords().y();
        if (share < 0.8)
            upper = std::max(upper, anchor / (1.0 - share));
    }
    // A range the user dragged or zoomed is theirs: only the one this chart set is fitted.
    const QCPRange now = p->yAxis->range();
    if (now.lower == 0 && now.upper == fittedUpper_ && upper != now.upper) {
        fittedUpper_ = upper;
        p->yAxis->setRangeUpper(upper);
        // The axis rect laid out its ticks for the old range: lay them out again before drawing.
        p->axisRect()->update(QCPLayoutElement::upPreparation);
    }
}

} // namespace stepscope::ui
