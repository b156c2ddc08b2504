#pragma once
// A figure in a JSON export: its number, or null where there is none. Null too where it is not finite,
// since JSON has no NaN or infinity. QJson writes the number itself: locale-independent, and the
// shortest text that reads back as the same double.
#include <QJsonValue>

#include <cmath>
#include <optional>

namespace stepscope::report
{

inline QJsonValue jsonNumber(const std::optional<double> &v)
{
    return v && std::isfinite(*v) ? QJsonValue(*v) : QJsonValue(QJsonValue::Null);
}

} // namespace stepscope::report
