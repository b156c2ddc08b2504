#pragma once
// The words of environment_assessment.h's findings, for people and for tools: the dashboard's
// environment view and report, and the CLI's show and export all print these, so that the two
// front-ends say the same thing about the same sweep.
#include "report/environment_assessment.h"

#include <QJsonObject>

#include <string>
#include <vector>

namespace stepscope::report
{

// The place of a record's key among the facts people look for first (GPU, versions, then how it
// was run); keys outside the table sort after it.
int factOrder(const std::string &key);
std::string factLabel(const std::string &key); // "CUDA_CACHE_PATH"; the key itself when unknown

const char *severityName(Severity severity); // "none", "info", "warning", "problem"
const char *findingId(Finding finding);      // stable, for JSON: "launch_bound", "shared_cuda_cache", ...

// One fact or finding as a row of the environment view: what was recorded, what it does to the
// numbers (empty when nothing), and the fix.
struct AssessmentLine {
    std::string key, label, value, assessment, fix;
    Finding finding = Finding::None;
    Severity severity = Severity::None;
};
AssessmentLine lineOf(const EnvironmentFact &fact);
// The timing findings as rows keyed "launch_bound" and "cpu_pinning"; none when the runs show neither.
std::vector<AssessmentLine> timingLines(const TimingAssessment &timing);
// The environment's rows, then the timing's.
std::vector<AssessmentLine> assessmentLines(const SweepAssessment &assessment);

// For people: what may skew the sweep's numbers, one Markdown item per finding with its fix;
// empty when nothing does.
std::string assessmentMarkdown(const SweepAssessment &assessment);
// For tools: "findings" (id, key, severity, value, assessment, fix of each), "launch_bound" (its
// figures, or null) and "cpu_pinning" (each pair's figures).
QJsonObject assessmentJson(const SweepAssessment &assessment);

} // namespace stepscope::report
