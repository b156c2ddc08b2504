#include "supervisor/worker_memory.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace stepscope::supervisor
{
namespace
{

// The value after `key` on the first line that starts with it ("VmHWM:\t 1234 kB" -> 1234), or -1.
std::int64_t keyedValue(const std::string &file, const std::string &key)
{
    std::ifstream in(file);
    for (std::string line; std::getline(in, line);)
        if (line.rfind(key, 0) == 0) {
            std::istringstream rest(line.substr(key.size()));
            std::int64_t value = -1;
            if (rest >> value)
                return value;
        }
    return -1;
}

// The memory cgroup directories of this process under /sys/fs/cgroup (v2 and v1, where present).
std::vector<std::string> memoryCgroupDirs()
{
    std::vector<std::string> dirs;
    std::ifstream in("/proc/self/cgroup");
    for (std::string line; std::getline(in, line);) {
        // "0::/path" (v2, unified) or "4:memory:/path" (v1).
        const auto first = line.find(':'), second = line.find(':', first + 1);
        if (first == std::string::npos || second == std::string::npos)
            continue;
        const std::string controllers = line.substr(first + 1, second - first - 1);
        const std::string path = line.substr(second + 1);
        if (controllers.empty())
            dirs.push_back("/sys/fs/cgroup" + path);
        else if (("," + controllers + ",").find(",memory,") != std::string::npos)
            dirs.push_back("/sys/fs/cgroup/memory" + path);
    }
    return dirs;
}

bool readable(const std::string &file)
{
    return std::ifstream(file).good();
}

} // namespace

std::int64_t peakResidentKiB(std::int64_t pid)
{
    if (pid <= 0)
        return -1;
    return keyedValue("/proc/" + std::to_string(pid) + "/status", "VmHWM:");
}

std::vector<std::string> defaultOomCounterFiles()
{
    std::vector<std::string> files;
    if (readable("/proc/vmstat"))
        files.push_back("/proc/vmstat");
    for (const auto &dir : memoryCgroupDirs())
        for (const char *name : {"/memory.events", "/memory.oom_control"})
            if (readable(dir + name))
                files.push_back(dir + name);
    return files;
}

std::int64_t oomKillCount(const std::vector<std::string> &files)
{
    std::int64_t total = -1;
    for (const auto &file : files) {
        const std::int64_t n = keyedValue(file, "oom_kill ");
        if (n >= 0)
            total = std::max<std::int64_t>(total, 0) + n;
    }
    return total;
}

std::int64_t memoryLimitKiB()
{
    std::int64_t limit = keyedValue("/proc/meminfo", "MemTotal:");
    for (const auto &dir : memoryCgroupDirs())
        for (const char *name : {"/memory.max", "/memory.limit_in_bytes"}) {
            std::ifstream in(dir + name);
            std::string text;
            // "max" (v2) or a huge number (v1) mean no limit of its own.
            if (!(in >> text) || text == "max")
                continue;
            const long long bytes = std::atoll(text.c_str());
            if (bytes > 0 && (limit < 0 || bytes / 1024 < limit))
                limit = bytes / 1024;
        }
    return limit;
}

} // namespace stepscope::supervisor
