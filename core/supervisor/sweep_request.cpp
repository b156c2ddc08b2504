#include "supervisor/sweep_request.h"

#include "config/model_name.h"
#include "supervisor/max_batch_sweep.h"
#include "supervisor/start_caches.h"

#include <QStringList>

#include <cmath>
#include <cstdio>

namespace stepscope::supervisor
{
namespace
{

std::string number(double v)
{
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.15g", v);
    return buffer;
}

} // namespace

bool withinLimit(const SweepLimit &limit, double value)
{
    if (!std::isfinite(value) || value > limit.max || value < limit.min)
        return false;
    if (limit.minExclusive && value <= limit.min)
        return false;
    return !limit.whole || value == std::floor(value);
}

std::string limitHint(const SweepLimit &limit)
{
    if (limit.minExclusive)
        return "give a number above " + number(limit.min) + " and up to " + number(limit.max);
    return std::string(limit.whole ? "give a whole number" : "give a number") + " from " + number(limit.min) + " to " +
           number(limit.max);
}

std::string limitRange(const SweepLimit &limit)
{
    const std::string range = limit.minExclusive ? "above " + number(limit.min) + ", up to " + number(limit.max)
                                                 : "from " + number(limit.min) + " to " + number(limit.max);
    return range + ", default " + (limit.defaultValue == 0 ? std::string("none") : number(limit.defaultValue));
}

std::string explanation(const SweepLimit &limit)
{
    return sentences(limit.what, limit.form.details);
}

std::vector<ConfigError> validate(const SweepRequest &r)
{
    std::vector<ConfigError> errors;
    const auto check = [&](const SweepLimit &limit, double value) {
        if (!withinLimit(limit, value))
            errors.push_back({limit.option, "'" + number(value) + "' is not allowed; " + limitHint(limit)});
    };
    if (r.configs.empty())
        errors.push_back({"configs", "the sweep has no configuration: tick at least one option or add to the list"});
    check(kRepeatLimit, r.repeats);
    check(kTimeoutLimit, r.timeoutSeconds);
    check(kPlannedStepsLimit, static_cast<double>(r.plannedSteps));
    check(kProfileStepsLimit, r.profileSteps);
    if (r.adaptive) {
        check(kUntilCiLimit, r.adaptiveHalfWidth * 100.0);
        check(kMaxRepeatsLimit, r.adaptiveMaxProcesses);
        if (r.adaptiveMaxMinutes != 0)
            check(kMaxMinutesLimit, r.adaptiveMaxMinutes);
    }
    for (const int b : r.batches)
        if (b < 1 || b > 4096)
            errors.push_back(
                {"batch", "'" + std::to_string(b) + "' is not a batch size: give whole numbers from 1 to 4096"});
    for (const int w : r.worldSizes)
        if (w < 1 || w > 64)
            errors.push_back(
                {"world-sizes", "'" + std::to_string(w) + "' is not a world size: give whole numbers from 1 to 64"});
    const bool gpuLanes =
        std::any_of(r.lanes.begin(), r.lanes.end(), [](const LaneDevice &l) { return l.cudaIndex >= 0; });
    for (const RunConfig &c : r.configs) {
        if (!r.lanes.empty() && gpuLanes != c.onCuda()) {
            errors.push_back({"devices", gpuLanes ? "--devices names GPUs, and " + canonicalName(c) +
                                                        " runs on the CPU; use --device cuda"
                                                  : "--devices names CPU slots, and " + canonicalName(c) +
                                                        " runs on a GPU; use --device cpu or name GPUs"});
            break;
        }
    }
    if (r.baseline && *r.baseline >= r.configs.size())
        errors.push_back({"baseline", "the baseline is not one of the sweep's configurations"});
    for (const RunConfig &c : r.configs)
        for (const ConfigError &e : stepscope::validate(c))
            errors.push_back({canonicalName(c) + ": " + e.field, e.message});
    for (ConfigError &e : maxBatchProblems(r))
        errors.push_back(std::move(e));
    return errors;
}

bool StartStates::runs(const RunConfig &config, store::StartState state) const
{
    switch (state) {
    case store::StartState::Fresh:
        return fresh;
    case store::StartState::Again:
        return again;
    case store::StartState::Shipped:
        return shippedDiffers(config) &&
               (shipped == Shipped::All ||
                (shipped == Shipped::Compiled && config.runtime == Runtime::Python && config.compile != CompileMode::None));
    case store::StartState::Unrecorded:
        break;
    }
    return false;
}

StartStates defaultStartStates(bool cuda)
{
    StartStates s;
    if (cuda) {
        s.again = true;
        s.shipped = StartStates::Shipped::Compiled;
    }
    return s;
}

std::string toString(const StartStates &s)
{
    std::string out;
    const auto add = [&](const char *word) { out += (out.empty() ? "" : ",") + std::string(word); };
    if (s.fresh)
        add("fresh");
    if (s.shipped == StartStates::Shipped::All)
        add("shipped");
    if (s.again)
        add("again");
    if (s.shipped == StartStates::Shipped::Compiled)
        add("shipped-compiled");
    return out;
}

std::optional<StartStates> startStatesFromString(const QString &text, std::string *error)
{
    StartStates s;
    s.fresh = false;
    const QString t = text.trimmed().toLower();
    if (t == "cold" || t == "warm" || t == "both") {
        s.fresh = t != "warm";
        s.again = t != "cold";
        return s;
    }
    for (const QString &part : t.split(',', Qt::SkipEmptyParts)) {
        const QString word = part.trimmed();
        if (word == "all") {
            s.fresh = s.again = true;
            s.shipped = StartStates::Shipped::All;
        } else if (word == "fresh") {
            s.fresh = true;
        } else if (word == "again") {
            s.again = true;
        } else if (word == "shipped") {
            s.shipped = StartStates::Shipped::All;
        } else if (word == "shipped-compiled") {
            if (s.shipped == StartStates::Shipped::None)
                s.shipped = StartStates::Shipped::Compiled;
        } else {
            if (error)
                *error = "unknown start state '" + word.toStdString() +
                         "'; give a comma list of fresh, shipped, again (or all; shipped-compiled ships compiled rows "
                         "only), e.g. fresh,again";
            return std::nullopt;
        }
    }
    if (!s.any()) {
        if (error)
            *error = "no start state given; give a comma list of fresh, shipped, again, or all";
        return std::nullopt;
    }
    return s;
}

SweepRequest withDefaults(SweepRequest r)
{
    if (!r.machineWarmup)
        r.machineWarmup = false;
    if (r.maxBatch) {
        // Each try times nothing: one fresh process, no profile; the first try is the configuration's batch.
        r.starts = StartStates{};
        r.repeats = 1;
        r.profileSteps = 0;
        for (RunConfig &c : r.configs)
            c = maxBatchTry(c, c.batch);
    }
    if (!r.starts)
        r.starts = defaultStartStates(
            std::any_of(r.configs.begin(), r.configs.end(), [](const RunConfig &c) { return c.onCuda(); }));
    if (r.adaptive)
        r.repeats = std::min(std::max(r.repeats, 2), r.adaptiveMaxProcesses);
    QString batchText = r.configs.empty() ? QString() : QString::number(r.configs.front().batch);
    if (!r.batches.empty()) {
        // The baseline's index keeps pointing into the first batch's block.
        std::vector<RunConfig> scan;
        QStringList sizes;
        for (const int b : r.batches) {
            sizes << QString::number(b);
            for (RunConfig c : r.configs) {
                c.batch = b;
                scan.push_back(c);
            }
        }
        r.configs = std::move(scan);
        r.batches.clear();
        batchText = sizes.join(',');
    }
    if (!r.worldSizes.empty()) {
        // Each world size a block of the configurations, as a batch scan does; DDP runs only in the
        // Python worker, and its knobs mean nothing at world size 1.
        std::vector<RunConfig> crossed;
        for (const int w : r.worldSizes) {
            for (RunConfig c : r.configs) {
                c.worldSize = w;
                if (w > 1) {
                    c.runtime = Runtime::Python;
                    // Every rank would pin itself to the same cores: a pinned row has no DDP twin.
                    c.cpuAffinity = "none";
                } else {
                    const RunConfig plain;
                    c.ddpBucketCapMb = plain.ddpBucketCapMb;
                    c.ddpGradientAsBucketView = plain.ddpGradientAsBucketView;
                    c.ddpStaticGraph = plain.ddpStaticGraph;
                }
                // A plain step and a DDP step compare only in one runtime and on one device name: at
                // world size 1 too (its rank 0 is cuda:0, as the one process of world size 1 is then).
                if (std::any_of(r.worldSizes.begin(), r.worldSizes.end(), [](int x) { return x > 1; })) {
                    c.runtime = Runtime::Python;
                    if (c.onCuda())
                        c.device = "cuda";
                }
                if (std::find(crossed.begin(), crossed.end(), c) == crossed.end())
                    crossed.push_back(c);
            }
        }
        r.configs = std::move(crossed);
        r.worldSizes.clear();
    }
    if (r.name.isEmpty() && !r.configs.empty()) {
        // The model where it is not the built-in one: "ledger cuda timm:convnext_tiny b32 64px". Only
        // the worker knows whether another model takes images or tokens, so its name carries a shape
        // only where one was set away from the default: "hf:bert b16 s512", never "224px" for it.
        const RunConfig &first = r.configs.front();
        const RunConfig defaults;
        const bool builtIn = first.model == kDefaultModel;
        const QString device =
            QString::fromStdString(first.device) + (builtIn ? QString() : " " + QString::fromStdString(first.model));
        r.name = QString("%1%2 %3 b%4").arg(r.maxBatch ? "max batch: " : "", r.preset, device).arg(batchText);
        if (builtIn || first.imageSize != defaults.imageSize)
            r.name += QString(" %1px").arg(first.imageSize);
        if (!builtIn && first.sequenceLength != defaults.sequenceLength)
            r.name += QString(" s%1").arg(first.sequenceLength);
    }
    return r;
}

} // namespace stepscope::supervisor
