#include "widgets/window_fit.h"

namespace stepscope::ui
{

QRect fitWindow(const QRect &wanted, const QMargins &frame, const QRect &available)
{
    const QSize room = available.size().shrunkBy(frame);
    QRect framed = QRect(wanted.topLeft(), wanted.size().boundedTo(room)).marginsAdded(frame);
    // Right and bottom first: when the frame is as large as the area, its top-left edge wins, where
    // the title bar and the menus are.
    if (framed.right() > available.right())
        framed.moveRight(available.right());
    if (framed.bottom() > available.bottom())
        framed.moveBottom(available.bottom());
    if (framed.left() < available.left())
        framed.moveLeft(available.left());
    if (framed.top() < available.top())
        framed.moveTop(available.top());
    return framed.marginsRemoved(frame);
}

} // namespace stepscope::ui
