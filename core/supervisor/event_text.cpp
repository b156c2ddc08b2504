#include "supervisor/event_text.h"

namespace stepscope::supervisor
{
namespace
{

QString failureText(const std::optional<Failure> &failure)
{
    if (!failure)
        return QStringLiteral("[unknown]");
    return "[" + QString::fromUtf8(toString(failure->category).data()) + "] " + QString::fromStdString(failure->message);
}

} // namespace

std::string primingText(store::StartState start)
{
    return start == store::StartState::Shipped ? "the shipped bundle" : "the caches of the again start";
}

bool isSaidInWords(SweepEvent::Kind kind)
{
    using K = SweepEvent::Kind;
    switch (kind) {
    case K::WarmupStarted:
    case K::WarmupFailed:
    case K::PrimingStarted:
    case K::AdaptiveRunAdded:
    case K::AdaptiveTimeSpent:
    case K::LaneRetired:
    case K::RunRequeued:
    case K::TimeLeftReport:
    case K::Provisional:
        return true;
    default:
        return false;
    }
}

QString describe(const SweepEvent &e)
{
    using K = SweepEvent::Kind;
    switch (e.kind) {
    case K::WarmupStarted:
        return "machine warm-up" + (e.lane.isEmpty() ? QString() : " on " + e.lane) + ": one discarded step of " +
               e.config + " before the timed runs, so that caches which outlive a process are not charged to " +
               e.detail + " (not stored)";
    case K::WarmupFailed:
        return "machine warm-up process failed " + failureText(e.failure) + "; the timed runs go on";
    case K::PrimingStarted:
        return "priming " + QString::fromStdString(primingText(e.start)) + " for " + e.config +
               (e.lane.isEmpty() ? QString() : " on " + e.lane) + " (one step of it, not stored)";
    case K::AdaptiveRunAdded:
        return "adaptive repeats: one more process of " + e.config + " (" +
               (e.halfWidth < 0 ? QString("%1 process(es) with a steady state: no interval yet").arg(e.processes)
                                : QString("%1 processes, 95% CI +-%2% of the median, above +-%3%")
                                      .arg(e.processes)
                                      .arg(e.halfWidth * 100, 0, 'f', 1)
                                      .arg(e.target * 100, 0, 'f', 1)) +
               ")";
    case K::AdaptiveTimeSpent:
        return QString("adaptive repeats: the sweep's %1 minutes are spent; no more processes").arg(e.minutes);
    case K::LaneRetired:
        return "lane " + e.lane + " retired: its run of " + e.config + " failed " + failureText(e.failure) +
               "; it takes no more runs, the other lanes go on";
    case K::RunRequeued:
        return "queued again for another lane: " + e.config;
    case K::StorageFailed:
        return "the database refused a write, the sweep stops: " + e.detail;
    case K::Log:
    case K::TimeLeftReport:
    case K::Provisional:
        return e.detail;
    case K::RunStarted:
    case K::Environment:
    case K::FirstStep:
    case K::Phase:
    case K::CompileInfo:
    case K::Progress:
    case K::RunFinished:
    case K::Finished:
        return {};
    }
    return {};
}

} // namespace stepscope::supervisor
