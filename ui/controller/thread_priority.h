#pragma once
// Background threads of the dashboard (ledger bootstraps, file checks, big deletes) run below the
// UI thread: on a 2-core machine they must not take the core the window needs to answer within a
// frame. They still get every cycle the window leaves idle.
namespace stepscope::ui
{

// Lowers the calling thread's scheduling priority (a nice value of its own on Linux; elsewhere
// nothing).
void lowerCurrentThreadPriority();

} // namespace stepscope::ui
