#include "config/config_json.h"

#include <QJsonDocument>

#include <cmath>

namespace stepscope
{

QJsonObject toJson(const RunConfig &c)
{
    return QJsonObject{
        {"runtime", QString::fromStdString(toString(c.runtime))},
        {"device", QString::fromStdString(c.device)},
        {"tf32", c.tf32},
        {"cudnn_benchmark", c.cudnnBenchmark},
        {"autocast", QString::fromStdString(toString(c.autocast))},
        {"channels_last", c.channelsLast},
        {"cuda_graph", c.cudaGraph},
        {"optimizer", QString::fromStdString(toString(c.optimizer))},
        {"compile", QString::fromStdString(toString(c.compile))},
        {"compile_backend", QString::fromStdString(toString(c.compileBackend))},
        {"compile_target", QString::fromStdString(toString(c.compileTarget))},
        {"compile_cache", QString::fromStdString(toString(c.compileCache))},
        {"batch", c.batch},
        {"image_size", c.imageSize},
        {"classes", c.classes},
        {"warmup_steps", c.warmupSteps},
        {"steps", c.steps},
        // JSON numbers are doubles: a seed above 2^53 would silently change, so it travels as text.
        {"seed", QString::number(c.seed)},
        {"cpu_affinity", QString::fromStdString(c.cpuAffinity)},
        {"threads", c.threads},
    };
}

bool fromJson(const QJsonObject &object, RunConfig &config, std::vector<ConfigError> &errors, const RunConfig &base)
{
    config = base;
    const auto before = errors.size();
    for (auto it = object.begin(); it != object.end(); ++it) {
        const std::string key = it.key().toStdString();
        if (key == "baseline") {
            if (!it.value().isBool())
                errors.push_back({key, "must be true or false (true: the sweep's baseline)"});
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
            errors.push_back({key, "must be a string, number or boolean"});
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
    return object.value("baseline").toBool(false);
}

bool parseConfig(const QByteArray &json, RunConfig &config, std::vector<ConfigError> &errors)
{
    QJsonParseError parseError;
    const auto doc = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError || !doc.isObject()) {
        errors.push_back({"json", parseError.error != QJsonParseError::NoError
                                      ? "not valid JSON: " + parseError.errorString().toStdString() + " at offset " +
                                            std::to_string(parseError.offset)
                                      : std::string("expected a JSON object of settings")});
        return false;
    }
    if (!fromJson(doc.object(), config, errors))
        return false;
    const auto problems = validate(config);
    errors.insert(errors.end(), problems.begin(), problems.end());
    return problems.empty();
}

} // namespace stepscope
