#include "supervisor/event_text.h"

#include "report/ledger.h"

#include <QStringList>

namespace stepscope::supervisor
{
namespace
{

using namespace event;

QString failureText(const Failure &failure)
{
    return "[" + QString::fromUtf8(toString(failure.category).data()) + "] " + QString::fromStdString(failure.message);
}

QString onLane(const LaneOf &lane)
{
    return lane.label.isEmpty() ? QString() : " on " + lane.label;
}

QString percent(double fraction)
{
    return QString::number(fraction * 100, 'f', 0) + "%";
}

// The stages and reports: each kind's sentence.
QString sentence(const WarmupStarted &e)
{
    return "machine warm-up: one discarded step of " + e.config +
           " before the timed runs, so that caches which outlive a process are not charged to " + e.before +
           " (not stored)";
}
QString sentence(const WarmupFailed &e)
{
    return "machine warm-up process failed " + failureText(e.failure) + "; the timed runs go on";
}
QString sentence(const PrimingStarted &e)
{
    return "priming " + QString::fromStdString(primingText(e.start)) + " for " + e.config + onLane(e.lane) +
           " (one step of it, not stored)";
}
QString sentence(const AdaptiveRunAdded &e)
{
    return "adaptive repeats: one more process of " + e.config + " (" +
           (e.halfWidth < 0 ? QString("%1 process(es) with a steady state: no interval yet").arg(e.processes)
                            : QString("%1 processes, 95% CI +-%2% of the median, above +-%3%")
                                  .arg(e.processes)
                                  .arg(e.halfWidth * 100, 0, 'f', 1)
                                  .arg(e.target * 100, 0, 'f', 1)) +
           ")";
}
QString sentence(const AdaptiveTimeSpent &e)
{
    return QString("adaptive repeats: the sweep's %1 minutes are spent; no more processes").arg(e.minutes);
}
QString sentence(const MaxBatchTryAdded &e)
{
    return QString("largest batch of %1: %2").arg(e.search, e.soFar); // soFar names the next try
}
QString sentence(const LaneRetired &e)
{
    return "lane " + e.lane + " retired: its run of " + e.config + " failed " + failureText(e.failure) +
           "; it takes no more runs, the other lanes go on";
}
QString sentence(const RunRequeued &e)
{
    return "queued again for another lane: " + e.config;
}
QString sentence(const TimeLeftReport &e)
{
    QStringList each;
    for (const auto &p : e.predictions)
        each << QString("%1 s for %2 s%3").arg(p.predicted, 0, 'f', 0).arg(p.actual, 0, 'f', 0).arg(p.guess ? " (guess)" : "");
    return QString("time left, predicted at %1 run starts against the time the rest took: median error %2, worst %3 (%4)")
        .arg(e.predictions.size())
        .arg(percent(e.medianError), percent(e.worstError), each.join(", "));
}
QString sentence(const Provisional &e)
{
    const QString verdict =
        !e.headline.isEmpty() ? e.headline
                              : "no recommendation yet" + (e.noRecommendation.isEmpty() ? QString() : " (" + e.noRecommendation + ")");
    return "every configuration's " + QString::fromUtf8(store::toString(e.start)) + " run has ended (" + e.ledgerState +
           "); for " + QString::fromStdString(report::startText(e.start)) + ": " + verdict;
}

// The kinds that carry a sentence of their own, and those that do not.
template <class E> constexpr bool kSaidInWords = false;
template <> constexpr bool kSaidInWords<WarmupStarted> = true;
template <> constexpr bool kSaidInWords<WarmupFailed> = true;
template <> constexpr bool kSaidInWords<PrimingStarted> = true;
template <> constexpr bool kSaidInWords<AdaptiveRunAdded> = true;
template <> constexpr bool kSaidInWords<AdaptiveTimeSpent> = true;
template <> constexpr bool kSaidInWords<LaneRetired> = true;
template <> constexpr bool kSaidInWords<MaxBatchTryAdded> = true;
template <> constexpr bool kSaidInWords<RunRequeued> = true;
template <> constexpr bool kSaidInWords<TimeLeftReport> = true;
template <> constexpr bool kSaidInWords<Provisional> = true;

} // namespace

std::string primingText(store::StartState start)
{
    return start == store::StartState::Shipped ? "the shipped bundle" : "the caches of the again start";
}

bool isSaidInWords(const SweepEvent &e)
{
    return std::visit([](const auto &x) { return kSaidInWords<std::decay_t<decltype(x)>>; }, e);
}

QString describe(const SweepEvent &e)
{
    return std::visit(
        Overloaded{
            [](const StorageFailed &x) { return "the database refused a write, the sweep stops: " + x.message; },
            [](const Log &x) { return x.line; },
            [](const auto &x) -> QString {
                if constexpr (kSaidInWords<std::decay_t<decltype(x)>>)
                    return sentence(x);
                else
                    return {};
            },
        },
        e);
}

} // namespace stepscope::supervisor
