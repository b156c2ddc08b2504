#include "config/config_json.h"

#include <QJsonDocument>

#include <cmath>

namespace stepscope
{
namespace
{
constexpr long long kExactInDouble = 1LL << 53;
} // namespace

QJsonObject toJson(const RunConfig &c)
{
    QJsonObject o;
    for (const auto &f : fields()) {
        const QString key = QString::fromLatin1(f.key);
        const FieldValue v = f.get(c);
        if (f.kind == FieldKind::Flag)
            o.insert(key, v.number != 0);
        else if (f.kind == FieldKind::Integer && f.max <= kExactInDouble)
            o.insert(key, static_cast<qint64>(v.number));
        else // JSON numbers are doubles: a seed above 2^53 would silently change, so it travels as text.
            o.insert(key, QString::fromStdString(valueText(c, f)));
    }
    return o;
}

bool fromJson(const QJsonObject &object, RunConfig &config, std::vector<ConfigError> &errors, const RunConfig &base)
{
    config = base;
    const auto before = errors.size();
    for (auto it = object.begin(); it != object.end(); ++it) {
        const std::string key = it.key().toStdString();
        if (key == messages::kBaselineKey) {
            if (!it.value().isBool())
                errors.push_back({key, messages::kBaselineNotAFlag});
            continue;
        }
        QString text;
        switch (it.value().type()) {
        case QJsonValue::Bool:
            text = it.value().toBool() ? "true" : "false";
            break;
        case QJsonValue::Double: {
            const double v = it.value().toDouble();
            // Out-of-range doubles must not reach the cast (undefined behaviour); as text, setField refuses them.
            const bool integral = std::isfinite(v) && std::fabs(v) < 9.2e18 && v == std::trunc(v);
            text = integral ? QString::number(static_cast<long long>(v)) : QString::number(v);
            break;
        }
        case QJsonValue::String:
            text = it.value().toString();
            break;
        default:
            errors.push_back({key, messages::kNotAValue});
            continue;
        }
        ConfigError error;
        if (!setField(config, key, text.toStdString(), error))
            errors.push_back(error);
    }
    return errors.size() == before;
}

bool isMarkedBaseline(const QJsonObject &object)
{
    return object.value(QLatin1String(messages::kBaselineKey)).toBool(false);
}

bool parseConfig(const QByteArray &json, RunConfig &config, std::vector<ConfigError> &errors)
{
    QJsonParseError parseError;
    const auto doc = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError || !doc.isObject()) {
        errors.push_back({"json", parseError.error != QJsonParseError::NoError
                                      ? "not valid JSON: " + parseError.errorString().toStdString() + " at offset " +
                                            std::to_string(parseError.offset)

                                      : std::string(messages::kNotAnObject)});
        return false;
    }
    if (!fromJson(doc.object(), config, errors))
        return false;
    const auto problems = validate(config);
    errors.insert(errors.end(), problems.begin(), problems.end());
    return problems.empty();
}

bool parseStoredConfig(const QByteArray &json, RunConfig &config, std::vector<ConfigError> &errors)
{
    QJsonObject object = QJsonDocument::fromJson(json).object();
    if (object.isEmpty())
        return parseConfig(json, config, errors); // its words for what is wrong
    object.remove(QStringLiteral("compile_cache"));
    return parseConfig(QJsonDocument(object).toJson(QJsonDocument::Compact), config, errors);
}

} // namespace stepscope
