#include "report/cache_text.h"

#include "report/number_text.h"

namespace stepscope::report
{

std::string formatBytes(std::int64_t bytes)
{
    if (bytes < 0)
        return "?";
    if (bytes < 1024)
        return std::to_string(bytes) + " B";
    if (bytes < 1024 * 1024)
        return formatNumber("%.1f KiB", static_cast<double>(bytes) / 1024.0);
    if (bytes < 1024LL * 1024 * 1024)
        return formatNumber("%.1f MiB", static_cast<double>(bytes) / 1048576.0);
    return formatNumber("%.2f GiB", static_cast<double>(bytes) / 1073741824.0);
}

std::vector<std::string> runCacheLines(const store::RunRecord &run)
{
    std::vector<std::string> lines;
    switch (run.caches) {
    case store::CacheStart::Cold:
        lines.push_back("cold: fresh, empty cache folders of its own (what a new machine pays)");
        break;
    case store::CacheStart::Warm:
        lines.push_back("warm: the cache folders a run of the same configuration left in this sweep");
        break;
    case store::CacheStart::Unrecorded:
        return lines;
    }
    if (!run.cacheRecord) {
        lines.push_back("no cache record: the run did not end under its supervisor");
        return lines;
    }
    for (const store::CacheUse &c : run.cacheRecord->caches)
        lines.push_back(c.variable + ": " + std::string(store::toString(c.state)) + ", " + formatBytes(c.bytesBefore) +
                        " -> " + formatBytes(c.bytesAfter) + " (" + c.path + ")");
    for (const std::string &m : run.cacheRecord->missed)
        lines.push_back("missed: " + m + " grew by more than " + formatBytes(store::kWarmCacheGrowthBytes) +
                        ", so this first step compiled what a warm one would have found; it counts as neither "
                        "cold nor warm");
    return lines;
}

std::vector<std::string> machineCacheShareLines(const Ledger &ledger)
{
    std::vector<std::string> lines;
    for (const LedgerRow &row : ledger.rows)
        if (const auto share = row.machineCacheShareMs())
            lines.push_back(row.label + ": " + formatSeconds(*share / 1000.0) + " of a " +
                            formatSeconds(*row.cold.firstStepMs / 1000.0) + " cold first step (" +
                            formatSeconds(*row.warm.firstStepMs / 1000.0) + " warm)");
    return lines;
}

} // namespace stepscope::report
