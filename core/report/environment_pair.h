#pragma once
// Two sweeps' environment records side by side, for a comparison (the Compare page's report and
// `stepscope-cli compare`): a figure of B against A means little without the driver, library
// versions, clocks and settings each side ran with. One row per fact either side recorded, in the
// order people look for them (assessment_text.h's factOrder), and whether the two differ.
#include <string>
#include <vector>

namespace stepscope::report
{

struct EnvironmentPair {
    std::string key, label;     // the record's key, and its name for people ("CUDA_CACHE_PATH")
    std::string valueA, valueB; // as recorded; "" when that side did not record it
    bool recordedA = false, recordedB = false;
    bool differs() const { return recordedA != recordedB || valueA != valueB; }
};

// The facts of both records (environment_assessment.h's assessEnvironment, so a fact a record
// lacks that matters is a row too, not recorded). Empty when neither record can be read.
std::vector<EnvironmentPair> environmentPairs(const std::string &environmentJsonA, const std::string &environmentJsonB);

// "-" for a fact not recorded, else the value.
std::string environmentValueText(const std::string &value, bool recorded);

} // namespace stepscope::report
