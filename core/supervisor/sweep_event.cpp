#include "supervisor/sweep_event.h"

namespace stepscope::supervisor
{
namespace
{
using namespace event;
// One name per kind: what tests and logs call it.
constexpr const char *nameOf(const RunStarted &) { return "run-started"; }
constexpr const char *nameOf(const WarmupStarted &) { return "warmup-started"; }
constexpr const char *nameOf(const WarmupFailed &) { return "warmup-failed"; }
constexpr const char *nameOf(const PrimingStarted &) { return "priming-started"; }
constexpr const char *nameOf(const Environment &) { return "environment"; }
constexpr const char *nameOf(const FirstStep &) { return "first-step"; }
constexpr const char *nameOf(const Phase &) { return "phase"; }
constexpr const char *nameOf(const CompileInfo &) { return "compile-info"; }
constexpr const char *nameOf(const Progress &) { return "progress"; }
constexpr const char *nameOf(const RunFinished &) { return "run-finished"; }
constexpr const char *nameOf(const AdaptiveRunAdded &) { return "adaptive-run-added"; }
constexpr const char *nameOf(const AdaptiveTimeSpent &) { return "adaptive-time-spent"; }
constexpr const char *nameOf(const LaneRetired &) { return "lane-retired"; }
constexpr const char *nameOf(const RunRequeued &) { return "run-requeued"; }
constexpr const char *nameOf(const Log &) { return "log"; }
constexpr const char *nameOf(const TimeLeftReport &) { return "time-left-report"; }
constexpr const char *nameOf(const Provisional &) { return "provisional"; }
constexpr const char *nameOf(const StorageFailed &) { return "storage-failed"; }
constexpr const char *nameOf(const Finished &) { return "finished"; }
constexpr const char *nameOf(const MaxBatchTryAdded &) { return "max-batch-try-added"; }
} // namespace

const char *kindName(const SweepEvent &e)
{
    return std::visit([](const auto &x) { return nameOf(x); }, e);
}

} // namespace stepscope::supervisor
