#pragma once
// Where chart labels go so that none covers another, a data point or the edge of the plot: a
// greedy choice among a few places around each anchor, nearest first. Pure geometry in pixels,
// so charts call it once the axis rect has its size (QCustomPlot::afterLayout) and tests call it
// directly.
#include <QPointF>
#include <QRectF>
#include <QSizeF>
#include <QVector>

namespace stepscope::ui
{

struct LabelRequest {
    QPointF anchor; // the point the label names
    QSizeF size;    // the label's box, padding included
};

struct LabelPlacement {
    QRectF rect;           // where the label's box goes
    bool overlaps = false; // no free place was found: the least covered one was taken
    bool far = false;      // placed away from its anchor: worth a leader line
};

// Places the labels in the order given (put the most important first). `obstacles` are kept
// clear (markers, other items); `bounds` is where labels must stay (the axis rect). `gap` is the
// distance between an anchor and the nearest edge of its label.
QVector<LabelPlacement> placeLabels(const QVector<LabelRequest> &labels, const QVector<QRectF> &obstacles,
                                    const QRectF &bounds, double gap = 6);

} // namespace stepscope::ui
