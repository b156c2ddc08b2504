#pragma once
// Where a window goes so that all of it, frame included, lies on the screen's available area (the
// screen less panels and docks): at 1280x720 a window of 720 px plus a title bar pushed its status
// bar, with the sweep's progress and messages, off the bottom of the screen.
#include <QMargins>
#include <QRect>

namespace stepscope::ui
{

// The geometry, without its frame, of a window that wants `wanted` and has a frame of `frame`
// around it: no larger than `available` less the frame, and moved (the least it can) so that the
// frame lies inside `available`.
QRect fitWindow(const QRect &wanted, const QMargins &frame, const QRect &available);

} // namespace stepscope::ui
