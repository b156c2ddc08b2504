#include "models/environment_assessment.h"

#include "report/assessment_text.h"

namespace stepscope::ui
{
namespace
{

EnvironmentEntry entryOf(const report::AssessmentLine &line)
{
    const auto q = [](const std::string &s) { return QString::fromStdString(s); };
    return {q(line.key), q(line.label), q(line.value), q(line.assessment), q(line.fix), line.severity, line.finding};
}

} // namespace

QList<EnvironmentEntry> assessEnvironment(const QString &environmentJson)
{
    QList<EnvironmentEntry> out;
    for (const auto &fact : report::assessEnvironment(environmentJson.toStdString()))
        out.append(entryOf(report::lineOf(fact)));
    return out;
}

QList<EnvironmentEntry> assessTiming(const QList<RunTiming> &runs)
{
    std::vector<report::RunTiming> timings;
    for (const RunTiming &run : runs)
        timings.push_back({run.configJson.toStdString(), run.steadyMedianMs, run.blockWallMs});
    QList<EnvironmentEntry> out;
    for (const auto &line : report::timingLines(report::assessTiming(timings)))
        out.append(entryOf(line));
    return out;
}

} // namespace stepscope::ui
