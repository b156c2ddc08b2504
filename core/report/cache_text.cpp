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
    case store::StartState::Fresh:
        lines.push_back("fresh: empty cache folders of its own, compile caches included (what a new machine pays)");
        break;
    case store::StartState::Shipped:
        lines.push_back("shipped: empty cache folders of its own plus the bundle an earlier run of the same "
                        "configuration saved (what a machine built from an image with the team's caches pays)");
        break;
    case store::StartState::Again:
        lines.push_back("again: the cache folders a run of the same configuration left in this sweep");
        break;
    case store::StartState::Unrecorded:
        return lines;
    }
    if (!run.compileCache.empty())
        lines.push_back("an older file's run: its torch.compile caches were " + run.compileCache +
                        (store::startOf(run) == store::StartState::Unrecorded
                             ? ", unlike its machine caches: a mixed start, counted in no state"
                             : ", like its machine caches"));
    if (!run.cacheRecord) {
        lines.push_back("no cache record: the run did not end under its supervisor");
        return lines;
    }
    for (const store::CacheUse &c : run.cacheRecord->caches)
        lines.push_back(c.variable + ": " + std::string(store::toString(c.state)) + ", " + formatBytes(c.bytesBefore) +
                        " -> " + formatBytes(c.bytesAfter) + " (" + c.path + ")");
    if (const auto &b = run.cacheRecord->bundle)
        lines.push_back("mega-cache bundle: " + formatBytes(b->bytes) + " (" + b->path + "), " +
                        (b->reported ? std::to_string(b->hits) + " FX graph(s) found, " + std::to_string(b->misses) +
                                           " compiled anyway, loaded in " + formatSeconds(b->loadSeconds)
                                     : std::string("the worker never said how loading it went")));
    if (run.cacheRecord->bundleSavedBytes > 0)
        lines.push_back("saved the configuration's shipped bundle: " + formatBytes(run.cacheRecord->bundleSavedBytes));
    for (const std::string &m : run.cacheRecord->missed)
        lines.push_back("missed: " +
                        (m == "mega-cache" ? std::string("the mega-cache bundle gave no hit for every graph")
                                           : m + " grew by more than " + formatBytes(store::kWarmCacheGrowthBytes)) +
                        ", so this first step compiled what its start should have found; it counts in no state");
    return lines;
}

std::vector<std::string> machineCacheShareLines(const Ledger &ledger)
{
    std::vector<std::string> lines;
    for (const LedgerRow &row : ledger.rows)
        if (const auto share = row.machineCacheShareMs())
            lines.push_back(row.label + ": " + formatSeconds(*share / 1000.0) + " of a " +
                            formatSeconds(*row.fresh.firstStepMs / 1000.0) + " fresh first step (" +
                            formatSeconds(*row.again.firstStepMs / 1000.0) + " again)");
    return lines;
}

} // namespace stepscope::report
