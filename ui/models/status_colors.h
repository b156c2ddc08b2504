#pragma once
// The few colours that carry meaning in tables and charts. Fixed rather than taken from the
// palette: a red "failed" has to stay red in every theme and in an exported report.
#include <QColor>

namespace stepscope::ui
{

inline QColor failureColor()
{
    return QColor(0xc0, 0x1c, 0x28);
} // failed, diverged, slower
inline QColor failureBackground()
{
    return QColor(0xfb, 0xe3, 0xe4);
}
inline QColor warningColor()
{
    return QColor(0xd0, 0x6a, 0x00);
} // noisy, unreliable, skewed
inline QColor warningBackground()
{
    return QColor(0xff, 0xf0, 0xd9);
}
inline QColor successColor()
{
    return QColor(0x1a, 0x7f, 0x37);
} // significantly faster

} // namespace stepscope::ui
