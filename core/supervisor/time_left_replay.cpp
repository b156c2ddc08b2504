#include "supervisor/time_left_replay.h"

#include "config/config_json.h"
#include "stats/stats.h"
#include "supervisor/run_costs.h"

#include <QDateTime>

#include <algorithm>
#include <cmath>

namespace stepscope::supervisor
{

std::vector<ReplayPoint> replayTimeLeft(const store::Reader &reader, std::int64_t sweepId, TimeLeft model)
{
    struct Run {
        PlannedRun planned;
        QDateTime started;
        double seconds = 0;
        std::optional<double> firstStep;
    };
    std::vector<Run> runs;
    for (const store::RunRecord &record : reader.runs(sweepId)) {
        const auto seconds = wallSeconds(record);
        RunConfig config;
        std::vector<ConfigError> errors;
        if (!seconds || !parseStoredConfig(QByteArray::fromStdString(record.configJson), config, errors))
            continue;
        const store::StartState start = store::startOf(record);
        Run run;
        run.planned.runId = record.id;
        run.planned.config = config;
        run.planned.caches = start == store::StartState::Unrecorded ? store::StartState::Fresh : start;
        run.started = QDateTime::fromString(QString::fromStdString(record.started), Qt::ISODateWithMs);
        run.seconds = *seconds;
        run.firstStep = record.firstStepSeconds;
        runs.push_back(std::move(run));
    }
    std::stable_sort(runs.begin(), runs.end(), [](const Run &a, const Run &b) { return a.started < b.started; });
    if (runs.empty())
        return {};
    std::vector<PlannedRun> planned;
    QDateTime end = runs.front().started;
    for (const Run &run : runs) {
        planned.push_back(run.planned);
        end = std::max(end, run.started.addMSecs(static_cast<qint64>(run.seconds * 1000)));
    }
    const std::vector<RunKey> keys = runKeys(planned);
    std::vector<ReplayPoint> points;
    for (std::size_t k = 0; k < runs.size(); ++k) {
        if (const auto left = model.left(keys, k, 0)) {
            const double actual = static_cast<double>(runs[k].started.msecsTo(end)) / 1000.0;
            ReplayPoint point{k, left->seconds, actual, left->guess, {}};
            for (std::size_t j = k; j < runs.size(); ++j) {
                const auto one = model.predict(keys[j]);
                point.each.emplace_back(one ? one->seconds : -1, runs[j].seconds);
            }
            points.push_back(std::move(point));
        }
        model.addFinished(keys[k], runs[k].seconds, runs[k].firstStep);
    }
    return points;
}

std::optional<ReplayError> replayError(const std::vector<ReplayPoint> &points, std::size_t fromRun)
{
    std::vector<double> errors;
    for (const ReplayPoint &p : points)
        if (p.run >= fromRun && p.actual >= 1)
            errors.push_back(std::abs(p.predicted - p.actual) / p.actual);
    if (errors.empty())
        return std::nullopt;
    return ReplayError{stats::median(errors), *std::max_element(errors.begin(), errors.end()),
                       static_cast<int>(errors.size())};
}

} // namespace stepscope::supervisor
