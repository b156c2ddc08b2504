#pragma once
// What a front-end asks the sweep service for (sweep_service.h), with every limit and default in one
// table. The CLI fills it from its options and prints the table in --help; the dashboard fills it
// from its panel and takes its spin boxes' ranges from the same table. Validation is one function,
// so both refuse the same requests with the same words.
#include "common/measurement_defaults.h"
#include "config/run_config.h"
#include "store/store.h"
#include "supervisor/sweep_lanes.h"

#include <QJsonObject>
#include <QString>

#include <cstdint>
#include <optional>
#include <vector>

namespace stepscope::supervisor
{

// How a form shows a limit (the dashboard's panel makes its box from it, ui/widgets/field_widgets.h).
// Its enabling rule names the options (the CLI's flags, without "--") that switch it on or off.
struct LimitForm {
    const char *label = "";      // the form's name for it: "Repeats"
    const char *unit = "";       // after the number, with its space: " min"
    const char *zero = "";       // said instead of 0 where 0 means "none": "no time limit"
    const char *details = "";    // what a tooltip says after `what`
    const char *onlyWith = "";   // the flag without which the setting means nothing: "until-ci"
    const char *unusedWith = ""; // the flag under which it means nothing: "max-batch"
    double step = 1;             // the box's step; the finest value a bound the table excludes is off by
    const char *prefix = "";     // before the number: "±"
};

// One numeric setting of a sweep: its CLI option, range, default and what it is. `max` is inclusive.
struct SweepLimit {
    const char *option; // the CLI's option name, without "--"
    double min, max, defaultValue;
    bool whole;        // a whole number
    bool minExclusive; // min itself is refused (a percentage above 0)
    const char *what;  // "cold processes of each configuration", ...
    LimitForm form{};
};

// The table. Repeats: cold processes each; more than 100 is a typing slip, not a sweep.
inline constexpr SweepLimit kRepeatLimit{"repeat",
                                         1,
                                         100,
                                         1,
                                         true,
                                         false,
                                         "cold processes of each configuration",
                                         {"Repeats", "", "", "Interleaved A B C A B C.", "", "max-batch"}};
// A worker silent this long is killed; Qt's timers count milliseconds in an int (24.8 days at most),
// and a week is the longest sensible silence.
inline constexpr SweepLimit kTimeoutLimit{
    "timeout", 1, 7 * 24 * 3600, 900, true, false, "seconds a worker may stay silent before it is killed"};
// Planned steps stop at 2^31 - 1 (the dashboard's spin box holds an int; no training run is longer).
inline constexpr SweepLimit kPlannedStepsLimit{"planned-steps",
                                               1,
                                               2147483647,
                                               static_cast<double>(kDefaultPlannedSteps),
                                               true,
                                               false,
                                               "steps of the planned training run the recommendation is for",
                                               {"Planned run", " steps", "", "", "", "max-batch"}};
inline constexpr SweepLimit kUntilCiLimit{"until-ci",
                                          0,
                                          50,
                                          2,
                                          false,
                                          true,
                                          "adaptive repeats: the steady CI to reach, +-% of the median",
                                          {"Until the 95% CI is within", " %", "",
                                           "After the planned repeats, cold processes are added to every "
                                           "configuration whose steady figure's 95% CI is wider than this share of "
                                           "its median (at least 2 processes each).",
                                           "until-ci", "", 0.5, "\u00b1"}};
// An interval needs two processes: adaptive repeats start there.
inline constexpr SweepLimit kMaxRepeatsLimit{"max-repeats",
                                             2,
                                             1000,
                                             10,
                                             true,
                                             false,
                                             "adaptive repeats: at most this many processes of a configuration",
                                             {"At most", " processes", "", "", "until-ci"}};
inline constexpr SweepLimit kMaxMinutesLimit{"max-minutes", 0, 1000, 0, true, false,
                                             "adaptive repeats: no new process after this many minutes of the sweep "
                                             "(0: no time cap)",
                                             {"Stop adding after", " min", "no time limit", "", "until-ci"}};
// Steady steps profiled after each run's timed ones (issue 18.1); 0 profiles nothing (--no-profile).
inline constexpr SweepLimit kProfileStepsLimit{
    "profile-steps",
    0,
    1000,
    20,
    true,
    false,
    "steady steps profiled after each run's timed ones (0: none)",
    {"Profile steps", "", "off",
     "Never during the timed steps. The Why page shows them: GPU busy and waiting, kernels, the kernel diff.", "",
     "max-batch"}};
inline constexpr const SweepLimit *kSweepLimits[] = {&kRepeatLimit,      &kTimeoutLimit,    &kPlannedStepsLimit,
                                                     &kUntilCiLimit,     &kMaxRepeatsLimit, &kMaxMinutesLimit,
                                                     &kProfileStepsLimit};

// Whether `value` is allowed, and the words of the refusal when not ("give a whole number from 1 to 100").
bool withinLimit(const SweepLimit &limit, double value);
std::string limitHint(const SweepLimit &limit);
// "from 1 to 100, default 1", for --help and tooltips.
std::string limitRange(const SweepLimit &limit);
// The limit told in sentences, as a form's tooltip says it: `what`, then the form's details.
std::string explanation(const SweepLimit &limit);

// Which start states the runs of a sweep have (store::StartState, start_caches.h). Each repeat is a
// round of fresh runs, then of shipped ones, then of again ones; the first fresh run of a
// configuration primes what its shipped and again runs read (an unstored process does when no fresh
// run comes first). Shipped runs only for rows whose shipped start differs (shippedDiffers), and
// with `shipped` Compiled only for torch.compile rows.
struct StartStates {
    enum class Shipped { None, Compiled, All };
    bool fresh = true;
    Shipped shipped = Shipped::None;
    bool again = false;
    bool operator==(const StartStates &o) const
    {
        return fresh == o.fresh && shipped == o.shipped && again == o.again;
    }
    bool any() const { return fresh || again || shipped != Shipped::None; }
    // Whether runs of `config` are planned starting `state`.
    bool runs(const RunConfig &config, store::StartState state) const;
};
// On a GPU: fresh and again for every row, shipped for compiled ones; elsewhere fresh alone (a CPU
// first step has no cache worth a second process).
StartStates defaultStartStates(bool cuda);
// "fresh,again,shipped-compiled", "fresh,shipped,again", "fresh": what --start takes back.
std::string toString(const StartStates &s);
// A comma list of fresh, shipped, again (shipped-compiled: shipped for compiled rows only), or all;
// the old --caches words too: cold (fresh), warm (again), both (fresh,again). nullopt with `error`.
std::optional<StartStates> startStatesFromString(const QString &s, std::string *error = nullptr);

struct SweepRequest {
    std::vector<RunConfig> configs;
    int repeats = static_cast<int>(kRepeatLimit.defaultValue);
    qint64 plannedSteps = kDefaultPlannedSteps;
    // "ledger", "each", "combinations" (built from knobs), "custom" (a list), "single".
    QString preset = "ledger";
    QString name; // empty: "<preset> <device> b<batch> <size>px"
    int timeoutSeconds = static_cast<int>(kTimeoutLimit.defaultValue);
    // Unset: defaultStartStates (a GPU's first steps differ by seconds between starts).
    std::optional<StartStates> starts;
    // Index in `configs` of the baseline; unset: defaultBaseline's rule (config/sweep_baseline.h).
    std::optional<std::size_t> baseline;
    // One discarded process before the timed runs (RunnerOptions::machineWarmup). Off unless asked:
    // every run's caches are its own now (docs/decisions.md "Machine caches").
    std::optional<bool> machineWarmup;
    // Adaptive repeats (RunnerOptions::Adaptive): more cold processes for every configuration whose
    // steady CI is wider than +-halfWidth of its median, up to the caps. An interval needs two
    // processes, so an adaptive sweep starts with at least two of each.
    bool adaptive = false;
    double adaptiveHalfWidth = kUntilCiLimit.defaultValue / 100.0;
    int adaptiveMaxProcesses = static_cast<int>(kMaxRepeatsLimit.defaultValue);
    int adaptiveMaxMinutes = 0; // 0: no time cap
    // Steady steps each run profiles after its timed ones; 0: no profile (kProfileStepsLimit).
    int profileSteps = static_cast<int>(kProfileStepsLimit.defaultValue);
    // A batch scan (issue 18.5): every configuration at each of these batch sizes, in one sweep (the
    // ledger shows one batch at a time, report/ledger.h). Empty: each configuration's own batch.
    std::vector<int> batches;
    // The data-parallel dimension (issue 21): every configuration at each of these world sizes (1: a
    // plain step; more: DistributedDataParallel in the Python worker). Empty: each configuration's own.
    std::vector<int> worldSizes;
    // Several devices at once (issue 21): one lane each (sweep_lanes.h). Empty: one at a time, on
    // the configurations' own device. Lanes of more than one GPU model are split by prepare().
    std::vector<LaneDevice> lanes;
    // The largest batch that fits (issue 31.3, max_batch_sweep.h): instead of timing them, each
    // configuration's batch is searched with short processes, one a try, from its own batch up.
    bool maxBatch = false;
    // A batch scan bounded by a max-batch sweep of the same database (max_batch_sweep.h,
    // boundByMaxBatch): each configuration runs only at the batches its search did not see run out
    // of memory. 0: none.
    std::int64_t fitsFrom = 0;
    QString python;           // interpreter of Python runs; empty: automatic (defaultPythonWorker)
    QString cacheRoot; // where each run's cache folders go (start_caches.h); empty: defaultCacheRoot()
    // The recipe the request was made from (sweep_recipe.h), stored with the sweep so that it can be
    // run again whole; empty for a request made by hand.
    QJsonObject recipe;
};

// Every problem of the request, configurations included ("repeat: give a whole number from 1 to
// 100"); empty when it can run.
std::vector<ConfigError> validate(const SweepRequest &request);

// The defaults that depend on the rest of the request, applied: the warm-up process, at least two
// processes of each configuration for adaptive repeats, the configurations of a batch scan (every
// configuration at each batch, the batches in the order given), a max-batch search's first tries
// (fresh, unprofiled, short), the sweep's name.
SweepRequest withDefaults(SweepRequest request);

} // namespace stepscope::supervisor
