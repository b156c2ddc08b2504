#include "config/config_schema.h"

#include "config/config_json.h"
#include "config/config_table.h"
#include "config/model_name.h"

#include <QJsonArray>

namespace stepscope
{
namespace
{

QJsonArray strings(const std::vector<std::string> &items)
{
    QJsonArray out;
    for (const auto &item : items)
        out.append(QString::fromStdString(item));
    return out;
}

template <std::size_t N> QJsonArray strings(const char *const (&items)[N])
{
    QJsonArray out;
    for (const char *item : items)
        out.append(QString::fromLatin1(item));
    return out;
}

const char *kindName(FieldKind kind)
{
    switch (kind) {
    case FieldKind::Choice:
        return "choice";
    case FieldKind::Flag:
        return "flag";
    case FieldKind::Integer:
        return "integer";
    case FieldKind::Device:
        return "device";
    case FieldKind::Model:
        return "model";
    case FieldKind::CoreList:
        break;
    }
    return "core_list";
}

QJsonObject fieldJson(const FieldInfo &f, const QJsonObject &defaults)
{
    QJsonObject o{{"key", f.key},
                  {"kind", kindName(f.kind)},
                  {"allowed", QString::fromStdString(allowedPhrase(f))},
                  {"help", f.help}};
    const QJsonValue fallback = defaults.value(QLatin1String(f.key));
    // A default that travels as text (the seed) is given as the number it is.
    o.insert("default", f.kind == FieldKind::Integer && fallback.isString()
                            ? QJsonValue(fallback.toString().toLongLong())
                            : fallback);
    if (!f.choices.empty())
        o.insert(f.kind == FieldKind::Choice ? "choices" : "words", strings(f.choices));
    if (f.kind == FieldKind::Model) // the grammar itself, so that both workers accept the same names
        o.insert("pattern", modelPattern());
    else if (f.kind != FieldKind::Choice && f.kind != FieldKind::Flag) {
        o.insert("min", static_cast<qint64>(f.min));
        o.insert("max", static_cast<qint64>(f.max));
    }
    return o;
}

QJsonObject ruleJson(const FieldRule &rule)
{
    QJsonArray when;
    for (const auto &c : rule.when)
        when.append(QJsonObject{{"field", c.field}, {c.negate ? "not_in" : "in", strings(c.values)}});
    return QJsonObject{{"field", rule.field}, {"when", when}, {"message", rule.message}};
}

} // namespace

QJsonObject configSchema()
{
    const QJsonObject defaults = toJson(RunConfig{});
    QJsonArray fieldList, ruleList;
    for (const auto &f : fields())
        fieldList.append(fieldJson(f, defaults));
    for (const auto &rule : rules())
        ruleList.append(ruleJson(rule));
    return QJsonObject{
        {"format", kConfigSchemaFormat},
        {"version", kConfigSchemaVersion},
        {"about", "Written by stepscope-config-schema from core/config/config_table.cpp at build time; edit that "
                  "table, not this file."},
        {"fields", fieldList},
        {"rules", ruleList},
        {"flag_words", QJsonObject{{"true", strings(messages::kFlagTrue)}, {"false", strings(messages::kFlagFalse)}}},
        {"sweep_keys", QJsonObject{{messages::kBaselineKey, messages::kBaselineNotAFlag}}},
        {"messages", QJsonObject{{"not_allowed", messages::kNotAllowed},
                                 {"not_a_core_list", messages::kNotACoreList},
                                 {"unknown_setting", messages::kUnknownSetting},
                                 {"not_a_value", messages::kNotAValue},
                                 {"not_an_object", messages::kNotAnObject}}},
    };
}

} // namespace stepscope
