#include "charts/label_placement.h"

#include <array>
#include <limits>

namespace stepscope::ui
{
namespace
{

double overlapArea(const QRectF &a, const QRectF &b)
{
    const QRectF both = a.intersected(b);
    return both.isValid() ? both.width() * both.height() : 0.0;
}

// The box moved inside `bounds` as far as it fits; a box larger than the bounds keeps its top left.
QRectF clamped(QRectF rect, const QRectF &bounds)
{
    if (rect.right() > bounds.right())
        rect.moveRight(bounds.right());
    if (rect.bottom() > bounds.bottom())
        rect.moveBottom(bounds.bottom());
    if (rect.left() < bounds.left())
        rect.moveLeft(bounds.left());
    if (rect.top() < bounds.top())
        rect.moveTop(bounds.top());
    return rect;
}

} // namespace

QVector<LabelPlacement> placeLabels(const QVector<LabelRequest> &labels, const QVector<QRectF> &obstacles,
                                    const QRectF &bounds, double gap)
{
    QVector<LabelPlacement> out;
    QVector<QRectF> taken = obstacles;
    // Beside the point first (reads as its name), then above and below, then the corners; farther
    // rings only when the near ones are all covered.
    struct Direction {
        double dx, dy; // -1, 0 or 1: which side of the anchor the box lies on
    };
    static constexpr std::array<Direction, 8> kDirections{
        {{1, 0}, {-1, 0}, {0, -1}, {0, 1}, {1, -1}, {1, 1}, {-1, -1}, {-1, 1}}};
    static constexpr std::array<double, 3> kRings{1.0, 3.0, 6.0};

    for (const LabelRequest &label : labels) {
        const double w = label.size.width(), h = label.size.height();
        LabelPlacement best;
        double bestCost = std::numeric_limits<double>::infinity();
        bool found = false;
        for (std::size_t ring = 0; ring < kRings.size() && !found; ++ring) {
            const double d = gap * kRings[ring];
            for (const Direction &dir : kDirections) {
                // The box's edge (or corner) nearest the anchor sits d pixels away from it.
                const double left = dir.dx > 0   ? label.anchor.x() + d
                                    : dir.dx < 0 ? label.anchor.x() - d - w
                                                 : label.anchor.x() - w / 2;
                const double top = dir.dy > 0   ? label.anchor.y() + d
                                   : dir.dy < 0 ? label.anchor.y() - d - h
                                                : label.anchor.y() - h / 2;
                const QRectF raw(left, top, w, h);
                const QRectF rect = clamped(raw, bounds);
                double cost = 0;
                for (const QRectF &other : taken)
                    cost += overlapArea(rect, other);
                // A box pushed back inside the bounds may cover its own anchor: that costs too.
                if (rect != raw && rect.adjusted(-2, -2, 2, 2).contains(label.anchor))
                    cost += w * h;
                if (cost < bestCost) {
                    bestCost = cost;
                    best.rect = rect;
                    best.far = ring > 0;
                }
                if (cost <= 0) {
                    found = true;
                    break;
                }
            }
        }
        best.overlaps = !found;
        taken.append(best.rect);
        out.append(best);
    }
    return out;
}

} // namespace stepscope::ui
