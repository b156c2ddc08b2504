#pragma once
// The benchmarks print milliseconds and seconds as doubles. A timer's nanoseconds (qint64) convert to
// a double exactly for the first 104 days of a run, so the conversion is written once, here.
#include <QElapsedTimer>

namespace stepscope::bench
{

inline double elapsedMs(const QElapsedTimer &timer)
{
    return static_cast<double>(timer.nsecsElapsed()) / 1e6;
}
inline double elapsedS(const QElapsedTimer &timer)
{
    return static_cast<double>(timer.nsecsElapsed()) / 1e9;
}

} // namespace stepscope::bench
