#include "controller/thread_priority.h"

#ifdef __linux__
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace stepscope::ui
{

void lowerCurrentThreadPriority()
{
#ifdef __linux__
    // Linux threads are tasks with a nice value each; 10 weighs about a tenth of the UI thread's 0.
    setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), 10);
#endif
}

} // namespace stepscope::ui
