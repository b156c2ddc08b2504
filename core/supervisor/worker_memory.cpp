#include "supervisor/worker_memory.h"

#include "platform/platform.h"

// The figures come from the operating system (platform.h); this file names them for the supervisor.
namespace stepscope::supervisor
{

std::int64_t peakResidentKiB(std::int64_t pid)
{
    return platform::peakResidentKiB(pid);
}

std::vector<std::string> defaultOomCounterFiles()
{
    return platform::oomCounterFiles();
}

std::int64_t oomKillCount(const std::vector<std::string> &files)
{
    return platform::oomKillCount(files);
}

std::int64_t memoryLimitKiB()
{
    return platform::memoryLimitKiB();
}

} // namespace stepscope::supervisor
