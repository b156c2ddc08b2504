#pragma once
// What the kernel can tell about a worker's memory: its peak resident size while it runs, how much
// memory there is, and how many times the kernel's out-of-memory killer has struck. A SIGKILL that
// Stepscope did not send is judged with these: the OOM killer sends exactly that, and says nothing
// else to the process it kills.
#include <cstdint>
#include <string>
#include <vector>

namespace stepscope::supervisor
{

// The peak resident set of process `pid` (VmHWM of /proc/PID/status on Linux) in KiB; -1 where unknown.
std::int64_t peakResidentKiB(std::int64_t pid);

// Files that count OOM kills in "oom_kill N" lines: /proc/vmstat (the whole machine) and this
// process's memory cgroup (memory.events in v2, memory.oom_control in v1), those that exist. A
// worker inherits the cgroup, so a container's limit shows there. None on Windows.
std::vector<std::string> defaultOomCounterFiles();

// The sum of the oom_kill counts in `files`; -1 when none of them has one.
std::int64_t oomKillCount(const std::vector<std::string> &files);

// The memory a worker may use in KiB: MemTotal, or the memory cgroup's limit when lower; -1 unknown.
std::int64_t memoryLimitKiB();

} // namespace stepscope::supervisor
