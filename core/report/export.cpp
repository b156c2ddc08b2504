// Text exports of a ledger: CSV for spreadsheets, JSON for scripts, Markdown for people.
#include "report/cache_text.h"
#include "report/json_number.h"
#include "report/ledger.h"
#include "report/number_text.h"
#include "report/why_table.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace stepscope::report
{
namespace
{

std::string num(const std::optional<double> &v, const char *f = "%.4g")
{
    if (!v || !std::isfinite(*v))
        return "";
    return formatNumber(f, *v);
}

std::string speedupText(const LedgerRow &row)
{
    if (!row.speedup)
        // The baseline is its own reference; against a baseline without a steady figure nothing is.
        return row.baseline && row.steadyMs ? "1.00x" : "";
    std::string s = num(row.speedup, "%.2fx");
    if (row.timeRatio && !row.timeRatio->hasInterval)
        return s + " (" + kNoIntervalShort + ")";
    if (row.timeRatio) {
        s += " [" + num(1.0 / row.timeRatio->high, "%.2f") + "-" + num(1.0 / row.timeRatio->low, "%.2f") + "]";
        if (!row.timeRatio->significant)
            s += " n.s.";
    }
    return s;
}

// "110 [80-150]", "never [immediately to never]", "110 (n=1, no CI)", as the dashboard shows it.
std::string breakEvenWithRange(const LedgerRow &row)
{
    const std::string steps = breakEvenText(row);
    if (row.breakEvenRange.empty() || row.breakEvenRange == steps)
        return steps;
    const bool none = row.breakEvenCI && !row.breakEvenCI->hasInterval;
    return steps + (none ? " (" + row.breakEvenRange + ")" : " [" + row.breakEvenRange + "]");
}

// " machine cold" (" machine cold 1/3" over several processes) when a first step paid for the
// machine's caches: the sweep's first process without a warm-up process. Where runs had caches of
// their own (cold or warm), that process paid only for what no cache folder holds (the libraries'
// file cache, the driver): " first process".
std::string machineColdText(const LedgerRow &row)
{
    if (row.machineColdFirsts <= 0)
        return "";
    const std::string label = row.firstStepStart == store::StartState::Unrecorded ? " machine cold" : " first process";
    return row.completed > 1 ? label + " " + std::to_string(row.machineColdFirsts) + "/" + std::to_string(row.completed)
                             : label;
}

std::string firstStepText(const LedgerRow &row)
{
    if (!row.firstStepMs)
        return "-";
    const bool flagged = row.firstStepNoise && *row.firstStepNoise != stats::Noise::Ok;
    const std::string_view start = store::toString(row.firstStepStart);
    return formatSeconds(*row.firstStepMs / 1000.0) + (start.empty() ? "" : " " + std::string(start)) +
           (flagged ? std::string(" ") + stats::toString(*row.firstStepNoise) : "") + machineColdText(row);
}

// The first steps and break-evens of the start states the ledger does not assume, those the row
// ran: "2.18 s again, 167; 3.65 s shipped, 410".
std::string otherStartCell(const LedgerRow &row, store::StartState assumed)
{
    std::string text;
    for (const store::StartState other : store::kStartStates) {
        const LedgerRow::StartFigures &f = row.figuresOf(other);
        if (other == assumed || !f.firstStepMs)
            continue;
        text += (text.empty() ? "" : "; ") + formatSeconds(*f.firstStepMs / 1000.0) + " " +
                std::string(store::toString(other));
        if (row.speedup)
            text += ", " + breakEvenStepsText(f.breakEvenSteps);
    }
    if (text.empty())
        return "-";
    if (row.warmMissed > 0)
        text += " (" + std::to_string(row.warmMissed) + " run(s) missed their caches: in no state)";
    return text;
}

std::string spreadText(const std::optional<double> &lo, const std::optional<double> &hi, const char *f)
{
    if (!lo || !hi || *lo == *hi)
        return "";
    return num(lo, f) + "-" + num(hi, f);
}

// "7.16-9.54 (n=3)": the spread of the per-process medians and how many processes it rests on.
std::string spreadCell(const LedgerRow &row)
{
    if (row.processes <= 0)
        return "";
    const std::string n = "n=" + std::to_string(row.processes);
    const std::string spread = spreadText(row.steadyMinMs, row.steadyMaxMs, "%.2f");
    return spread.empty() ? n : spread + " (" + n + ")";
}

// The peaks' median, lowest and highest process, allocated then reserved, and how many processes
// reported them: empty figures where none did (a CPU row), never 0 MiB.
std::string memoryFields(const PeakMemory &m)
{
    std::string fields;
    for (const std::optional<MemorySpread> &s : {m.allocated, m.reserved})
        fields += s ? num(s->medianMiB, "%.1f") + ',' + num(s->minMiB, "%.1f") + ',' + num(s->maxMiB, "%.1f") + ','
                    : std::string(",,,");
    return fields + std::to_string(m.processes);
}

// Joules per step with its interval, power, the first step's joules, processes, the break-even in
// joules against the baseline ("never" where it spends more per step) and why there is no figure:
// empty cells without one, never 0 J.
std::string energyFields(const LedgerRow &r)
{
    const EnergyFigures &e = r.energy;
    const std::string breakEven = !r.energyBreakEven.hasBoth ? ""
                                  : r.energyBreakEven.steps  ? num(r.energyBreakEven.steps, "%.1f")
                                                             : "never";
    return num(e.joulesPerStep, "%.6g") + ',' + num(e.low, "%.6g") + ',' + num(e.high, "%.6g") + ',' +
           num(e.watts, "%.1f") + ',' + num(e.firstStepJoules, "%.6g") + ',' + std::to_string(e.processes) + ',' +
           breakEven + ',' + csvField(e.problem);
}

// "+bf16: -0.30 ms (95% CI -0.41 to -0.19)", with "from <parent>" for a branch; rows without a
// parent or without both steady states say nothing.
std::vector<std::string> waterfallLines(const Ledger &l)
{
    std::vector<std::string> lines;
    for (const WaterfallStep &w : l.waterfall) {
        if (!w.parent || !w.change || !w.deltaMs || w.row >= l.rows.size())
            continue;
        std::string line = changeText(*w.change);
        if (w.branch)
            line += " (from " + l.rows[*w.parent].label + ")";
        // A change that rounds to zero is "+0.00", not "-0.00".
        line += ": " + num(std::abs(*w.deltaMs) < 0.005 ? 0.0 : *w.deltaMs, "%+.2f") + " ms";
        if (w.deltaLowMs && w.deltaHighMs)
            line += " (95% CI " + num(w.deltaLowMs, "%+.2f") + " to " + num(w.deltaHighMs, "%+.2f") +
                    (w.ratio && !w.ratio->significant ? ", n.s.)" : ")");
        else
            line += std::string(" (") + kNoIntervalShort + ")";
        lines.push_back(line);
    }
    return lines;
}

} // namespace

std::string toCsv(const Ledger &l)
{
    std::ostringstream out;
    out << "configuration,knobs,status,failure_category,repeats,completed,first_step_s,first_step_min_s,"
           "first_step_max_s,steady_ms,steady_min_ms,steady_max_ms,p10_ms,p90_ms,iqr_ms,timing,noise,speedup,"
           "speedup_ci_low,speedup_ci_high,significant,break_even_steps,accuracy,peak_allocated_mib,"
           "peak_allocated_min_mib,peak_allocated_max_mib,peak_reserved_mib,peak_reserved_min_mib,"
           "peak_reserved_max_mib,memory_processes,memory_ratio,joules_per_step,joules_per_step_ci_low,"
           "joules_per_step_ci_high,watts,first_step_joules,energy_processes,energy_break_even_steps,energy_problem,"
           "wall_per_step_ms,compile_s,baseline,processes,"
           "machine_cold_first_steps,first_step_start,"
           "first_step_fresh_s,first_step_shipped_s,first_step_again_s,break_even_fresh_steps,"
           "break_even_shipped_steps,break_even_again_steps,fresh_processes,shipped_processes,again_processes,"
           "start_missed,gflop_per_step,tflops,peak_share,bound,gpu_busy_ms,busy_share,kernels_per_step,"
           "launches_per_step,launch_cpu_ms,profiled_step_ms,profiler_gflop,profile_problem,recommended\n";
    const std::vector<WhyRow> why = whyRows(l);
    for (const auto &r : l.rows) {
        const bool haveSteady = r.steadyMs.has_value();
        out << csvField(r.configName) << ',' << csvField(r.label) << ',' << csvField(completionText(r)) << ','
            << r.failureCategory << ',' << r.repeats << ',' << r.completed << ','
            << num(msToSeconds(r.firstStepMs), "%.6g") << ',' << num(msToSeconds(r.firstStepMinMs), "%.6g") << ','
            << num(msToSeconds(r.firstStepMaxMs), "%.6g") << ',' << num(r.steadyMs, "%.6g") << ','
            << num(r.steadyMinMs, "%.6g") << ',' << num(r.steadyMaxMs, "%.6g") << ','
            << (haveSteady ? num(r.steady.p10, "%.6g") : "") << ',' << (haveSteady ? num(r.steady.p90, "%.6g") : "")
            << ',' << (haveSteady ? num(r.steady.iqr, "%.6g") : "") << ',' << store::toString(r.timing) << ','
            << (haveSteady ? stats::toString(r.noise) : "") << ',' << num(r.speedup, "%.4f")
            << ','
            // The speed-up is baseline / steady: its interval is the time ratio's, inverted.
            << (r.timeRatio ? num(1.0 / r.timeRatio->high, "%.4f") : "") << ','
            << (r.timeRatio ? num(1.0 / r.timeRatio->low, "%.4f") : "") << ','
            << (r.timeRatio ? (r.timeRatio->significant ? "yes" : "no") : "") << ',' << csvField(breakEvenText(r))
            << ',' << csvField(accuracyText(r.accuracy)) << ',' << memoryFields(r.memory) << ','
            << num(r.memoryRatio, "%.4f") << ',' << energyFields(r) << ',' << num(r.blockWallMs, "%.6g") << ','
            << num(msToSeconds(r.compileMs), "%.6g") << ',' << (&r == &l.rows.front() ? "yes" : "") << ','
            << r.processes << ',' << (r.machineColdFirsts >= 0 ? std::to_string(r.machineColdFirsts) : "") << ','
            << store::toString(r.firstStepStart) << ',' << num(msToSeconds(r.fresh.firstStepMs), "%.6g") << ','
            << num(msToSeconds(r.shipped.firstStepMs), "%.6g") << ',' << num(msToSeconds(r.again.firstStepMs), "%.6g")
            << ',' << num(r.fresh.breakEvenSteps, "%.1f") << ',' << num(r.shipped.breakEvenSteps, "%.1f") << ','
            << num(r.again.breakEvenSteps, "%.1f") << ',' << r.fresh.processes << ',' << r.shipped.processes << ','
            << r.again.processes << ',' << r.warmMissed << ',' << num(r.compute.gflopPerStep, "%.6g") << ','
            << num(r.compute.tflops, "%.4g") << ',' << num(r.compute.peakShare, "%.4f") << ',';
        // The profile's figures (why_table.h): empty for a row without one, whose problem says why.
        const WhyRow &w = why[static_cast<std::size_t>(&r - &l.rows.front())];
        if (w.verdict) {
            const auto &p = *w.profile;
            out << csvField(profile::toString(w.verdict->bound)) << ',' << num(p.busyMs, "%.6g") << ','
                << num(w.verdict->busyShare, "%.4f") << ',' << num(p.kernelsPerStep, "%.6g") << ','
                << num(p.launchesPerStep, "%.6g") << ',' << num(p.launchCpuMs, "%.6g") << ','
                << num(p.profiledStepMs, "%.6g") << ',' << num(p.profilerGflop, "%.6g") << ",";
        } else {
            out << ",,,,,,,," << csvField(w.problem) << ',';
        }
        out << (l.recommended && &l.rows[*l.recommended] == &r ? "yes" : "") << '\n';
    }
    return out.str();
}

std::string toJson(const Ledger &l)
{
    // QJson, as everywhere else in the project: escaping, number format and validity are its job
    // (jsonNumber), not ours.
    const auto text = [](const std::string &v) { return QJsonValue(QString::fromStdString(v)); };
    QJsonObject root;
    root["sweep"] = QJsonObject{{"id", qint64(l.sweep.id)},
                                {"name", text(l.sweep.name)},
                                {"preset", text(l.sweep.preset)},
                                {"created", text(l.sweep.created)},
                                {"status", text(std::string(store::toString(l.sweep.status)))}};
    const QJsonDocument environment = QJsonDocument::fromJson(QByteArray::fromStdString(l.environmentJson));
    root["environment"] = environment.isObject() ? QJsonValue(environment.object()) : QJsonValue(QJsonValue::Null);
    root["planned_steps"] = qint64(l.plannedSteps);
    // The row every speed-up, break-even and accuracy figure is against (rows[0]), by its configuration.
    root["baseline"] = l.rows.empty() ? QJsonValue(QJsonValue::Null) : text(l.rows.front().configName);
    root["first_step_caches"] = text(firstStepCachesText(l));
    // The start state rows' first steps, break-evens and the recommendation assume.
    root["start"] = text(std::string(store::toString(l.start)));
    root["recommendation"] = text(l.recommendationText);
    // The one configuration every view recommends (Ledger::recommended), and why.
    root["recommended"] = l.recommended ? text(l.rows[*l.recommended].configName) : QJsonValue(QJsonValue::Null);
    root["recommended_reason"] = text(l.recommendedReason);
    root["start"] = text(std::string(store::toString(l.start)));
    // What finishes first under each start state (Ledger::byStart): a fresh machine's pick never
    // rests on a cache a fresh machine lacks.
    QJsonObject byStart;
    for (const Ledger::StartPick &p : l.byStart)
        byStart[QString::fromUtf8(store::toString(p.state).data())] =
            p.row ? QJsonValue(QJsonObject{{"configuration", text(l.rows[*p.row].configName)},
                                           {"label", text(l.rows[*p.row].label)},
                                           {"total_s", p.totalSeconds},
                                           {"first_step_measured", p.measured}})
                  : QJsonValue(QJsonValue::Null);
    root["recommended_by_start"] = byStart;
    // The fewest joules over the planned run (issue 31.4), and its words: null without energy figures.
    root["fewest_joules"] = l.fewestJoules ? QJsonValue(QJsonObject{{"configuration", text(l.rows[*l.fewestJoules].configName)},
                                                                    {"label", text(l.rows[*l.fewestJoules].label)},
                                                                    {"text", text(l.fewestJoulesText)}})
                                           : QJsonValue(QJsonValue::Null);
    // Idle power taken out of every energy figure on the user's word (--idle-watts); null: none was.
    root["idle_watts_subtracted"] = l.idleWatts ? QJsonValue(*l.idleWatts) : QJsonValue(QJsonValue::Null);
    root["headline"] = text(recommendationHeadline(l));
    root["caveats"] = text(recommendationCaveats(l));
    // What each knob of the recommended configuration is worth (knob_worth.h), for tools: the rows
    // it was judged between, the first-step and steady differences, the steady ratio's interval
    // (null without one), and the configuration that would judge it exactly.
    QJsonArray worth;
    for (const KnobWorth &w : l.recommendedWorth) {
        static const char *const kVerdicts[] = {"pays", "hurts", "costs_only", "no_change", "unsure", "not_measured"};
        QJsonObject k{{"knob", text(w.knob)},
                      {"verdict", kVerdicts[static_cast<int>(w.verdict)]},
                      {"without_configuration", text(w.withoutConfig)}};
        if (w.verdict != KnobWorth::Verdict::NotMeasured) {
            const bool interval = w.steadyRatio && w.steadyRatio->hasInterval;
            k["exact"] = w.exact;
            k["with"] = text(l.rows[w.with].configName);
            k["without"] = text(l.rows[w.without].configName);
            k["first_step_difference_s"] = w.firstDeltaMs ? QJsonValue(*w.firstDeltaMs / 1000.0) : QJsonValue();
            k["steady_difference_ms"] = w.steadyDeltaMs ? QJsonValue(*w.steadyDeltaMs) : QJsonValue();
            k["steady_ratio"] = w.steadyRatio ? QJsonValue(w.steadyRatio->ratio) : QJsonValue();
            k["steady_ratio_low"] = interval ? QJsonValue(w.steadyRatio->low) : QJsonValue();
            k["steady_ratio_high"] = interval ? QJsonValue(w.steadyRatio->high) : QJsonValue();
        }
        worth.append(k);
    }
    root["knob_worth"] = worth;
    // Where the recommended configuration and the runner-up swap places, for tools: the faster per
    // step overtakes the slower after `steps` steps; the bounds are null without an interval and
    // for "never".
    if (const auto &c = l.decidingCrossing) {
        const bool interval = c->ci.hasInterval && !c->ci.lowNever;
        root["deciding_crossing"] =
            QJsonObject{{"faster", text(l.rows[c->faster].configName)},
                        {"slower", text(l.rows[c->slower].configName)},
                        {"steps", c->steps},
                        {"ci_low", interval ? jsonNumber(c->ci.low) : QJsonValue(QJsonValue::Null)},
                        {"ci_high", interval && !c->ci.highNever ? jsonNumber(c->ci.high) : QJsonValue(QJsonValue::Null)},
                        {"range", text(c->range)}};
    } else {
        root["deciding_crossing"] = QJsonValue(QJsonValue::Null);
    }
    QJsonArray rows;
    const std::vector<WhyRow> why = whyRows(l); // the verdicts the Why table gives
    for (const auto &r : l.rows) {
        QJsonObject o{{"configuration", text(r.configName)},
                      {"knobs", text(r.label)},
                      {"status", text(completionText(r))},
                      {"failure_category", text(r.failureCategory)},
                      {"failure_message", text(r.failureMessage)},
                      {"repeats", r.repeats},
                      {"completed", r.completed},
                      {"processes", r.processes},
                      {"first_step_s", jsonNumber(msToSeconds(r.firstStepMs))},
                      {"first_step_noise", text(r.firstStepNoise ? stats::toString(*r.firstStepNoise) : "")},
                      {"steady_ms", jsonNumber(r.steadyMs)},
                      {"steady_min_ms", jsonNumber(r.steadyMinMs)},
                      {"steady_max_ms", jsonNumber(r.steadyMaxMs)},
                      {"timing", text(std::string(store::toString(r.timing)))},
                      {"wall_per_step_ms", jsonNumber(r.blockWallMs)},
                      {"noise", text(r.steadyMs ? stats::toString(r.noise) : "")},
                      {"speedup", jsonNumber(r.speedup)},
                      {"break_even_steps", jsonNumber(r.breakEvenSteps)},
                      {"break_even", text(breakEvenText(r))},
                      {"break_even_range", text(r.breakEvenRange)},
                      {"accuracy", text(accuracyText(r.accuracy))},
                      {"steady_problem", text(r.steadyProblem ? "no steady state: " + describe(*r.steadyProblem) : "")},
                      {"compile_s", jsonNumber(msToSeconds(r.compileMs))}};
        // Peak GPU memory as the CSV has it; nulls where no process reported one (a CPU row).
        const auto spread = [&](const std::optional<MemorySpread> &s, const char *prefix) {
            const QString p = QString::fromLatin1(prefix);
            o[p + "_mib"] = s ? QJsonValue(s->medianMiB) : QJsonValue(QJsonValue::Null);
            o[p + "_min_mib"] = s ? QJsonValue(s->minMiB) : QJsonValue(QJsonValue::Null);
            o[p + "_max_mib"] = s ? QJsonValue(s->maxMiB) : QJsonValue(QJsonValue::Null);
        };
        spread(r.memory.allocated, "peak_allocated");
        spread(r.memory.reserved, "peak_reserved");
        o["memory_processes"] = r.memory.processes;
        o["memory_ratio"] = jsonNumber(r.memoryRatio);
        o["memory"] = text(memoryDetailText(r.memory, r.memoryRatio));
        // Energy as the CSV has it; nulls without a figure and the reason in energy_problem.
        o["joules_per_step"] = jsonNumber(r.energy.joulesPerStep);
        o["joules_per_step_ci"] = r.energy.hasInterval()
                                      ? QJsonValue(QJsonArray{jsonNumber(r.energy.low), jsonNumber(r.energy.high)})
                                      : QJsonValue(QJsonValue::Null);
        o["watts"] = jsonNumber(r.energy.watts);
        o["first_step_joules"] = jsonNumber(r.energy.firstStepJoules);
        o["energy_processes"] = r.energy.processes;
        o["energy_break_even_steps"] = !r.energyBreakEven.hasBoth ? QJsonValue(QJsonValue::Null)
                                       : r.energyBreakEven.steps  ? jsonNumber(r.energyBreakEven.steps)
                                                                  : QJsonValue(QStringLiteral("never"));
        o["energy"] = text(energyText(r.energy));
        // The speed-up is baseline / steady: its interval is the time ratio's, inverted.
        o["speedup_ci"] = r.timeRatio
                              ? QJsonValue(QJsonArray{jsonNumber(1.0 / r.timeRatio->high), jsonNumber(1.0 / r.timeRatio->low)})
                              : QJsonValue(QJsonValue::Null);
        o["time_ratio_ci"] = r.timeRatio ? QJsonValue(QJsonArray{jsonNumber(r.timeRatio->low), jsonNumber(r.timeRatio->high)})
                                         : QJsonValue(QJsonValue::Null);
        o["significant"] = r.timeRatio ? QJsonValue(r.timeRatio->significant) : QJsonValue(QJsonValue::Null);
        o["machine_cold_first_steps"] =
            r.machineColdFirsts >= 0 ? QJsonValue(r.machineColdFirsts) : QJsonValue(QJsonValue::Null);
        o["first_step_start"] = text(std::string(store::toString(r.firstStepStart)));
        for (const store::StartState s : store::kStartStates) {
            const LedgerRow::StartFigures &f = r.figuresOf(s);
            o[QString::fromUtf8(store::toString(s).data()) + "_start"] =
                QJsonObject{{"processes", f.processes},
                            {"first_step_s", jsonNumber(msToSeconds(f.firstStepMs))},
                            {"first_step_min_s", jsonNumber(msToSeconds(f.minMs))},
                            {"first_step_max_s", jsonNumber(msToSeconds(f.maxMs))},
                            {"break_even_steps", jsonNumber(f.breakEvenSteps)},
                            {"break_even_range", text(f.breakEvenRange)}};
        }
        o["start_missed"] = r.warmMissed;
        // Data-parallel rows (issue 21): the step is the slowest rank's.
        o["world_size"] = r.worldSize;
        o["scaling_efficiency"] = jsonNumber(r.scalingEfficiency);
        o["scaling_reference"] = text(r.scalingReference);
        o["rank_spread_ms"] = jsonNumber(r.rankSpreadMs);
        o["compute"] = QJsonObject{{"precision", toString(r.compute.precision)},
                                   {"gflop_per_step", jsonNumber(r.compute.gflopPerStep)},
                                   {"flops_source", text(std::string(toString(r.compute.source)))},
                                   {"tflops", jsonNumber(r.compute.tflops)},
                                   {"peak_share", jsonNumber(r.compute.peakShare)}};
        // The row's model as its worker reported it (issue 30.4); nulls for files of before.
        o["model"] = QJsonObject{
            {"description", r.model.description.empty() ? QJsonValue(QJsonValue::Null) : text(r.model.description)},
            {"parameters",
             r.model.parameters ? QJsonValue(static_cast<double>(*r.model.parameters)) : QJsonValue(QJsonValue::Null)},
            {"flops_problem",
             r.model.flopsProblem.empty() ? QJsonValue(QJsonValue::Null) : text(r.model.flopsProblem)}};
        o["machine_cache_share_s"] = jsonNumber(msToSeconds(r.machineCacheShareMs()));
        // The row's profile summary as stored, with its verdict (why_table.h).
        if (r.profile) {
            profile::StoredProfile stored;
            stored.summary = r.profile;
            stored.traceFile = r.profileTrace;
            QJsonObject p = QJsonDocument::fromJson(QByteArray::fromStdString(profile::toJson(stored))).object();
            p["run_id"] = static_cast<qint64>(r.profileRunId);
            const profile::Verdict &v = *why[static_cast<std::size_t>(&r - &l.rows.front())].verdict;
            QJsonArray knobs;
            for (const profile::Advice a : v.advice)
                knobs.append(QString::fromUtf8(profile::toString(a)));
            p["verdict"] = QJsonObject{{"bound", profile::toString(v.bound)},
                                       {"busy_share", v.busyShare},
                                       {"against_timed_step", v.againstTimed},
                                       {"knobs", knobs},
                                       {"text", QString::fromStdString(v.text)}};
            o["profile"] = p;
        } else {
            o["profile"] = QJsonObject{{"problem", text(r.profileProblem.empty() ? "not profiled" : r.profileProblem)}};
        }
        // The row it stands on in the waterfall (report/waterfall.h) and what it changes.
        const std::size_t index = static_cast<std::size_t>(&r - &l.rows.front());
        if (index < l.waterfall.size()) {
            const WaterfallStep &w = l.waterfall[index];
            o["waterfall"] =
                QJsonObject{{"parent", w.parent ? text(l.rows[*w.parent].configName) : QJsonValue(QJsonValue::Null)},
                            {"change", text(w.change ? changeText(*w.change) : "")},
                            {"branch", w.branch},
                            {"delta_ms", jsonNumber(w.deltaMs)},
                            {"delta_ci_ms", w.deltaLowMs && w.deltaHighMs
                                                ? QJsonValue(QJsonArray{jsonNumber(w.deltaLowMs), jsonNumber(w.deltaHighMs)})
                                                : QJsonValue(QJsonValue::Null)}};
        }
        rows.append(o);
    }
    root["rows"] = rows;
    return QJsonDocument(root).toJson(QJsonDocument::Indented).toStdString();
}

std::string toMarkdown(const Ledger &l)
{
    std::ostringstream out;
    out << "## Sweep " << l.sweep.id << ": " << l.sweep.name << " (" << l.sweep.preset << ", " << l.sweep.created
        << ")\n\n";
    if (l.batches.size() > 1) {
        out << "Batch " << l.batch << " of a scan over batches";
        for (const int b : l.batches)
            out << ' ' << b;
        out << ": the rows below are all at batch " << l.batch << ".\n\n";
    }
    if (const std::string models = modelsLine(l.models); !models.empty())
        out << models << "\n\n";
    if (l.environment)
        out << "GPU: " << (l.environment->gpu.empty() ? "none" : l.environment->gpu) << "; torch "
            << l.environment->torch << "; CUDA " << (l.environment->cuda.empty() ? "-" : l.environment->cuda)
            << "; cuDNN " << (l.environment->cudnn.empty() ? "-" : l.environment->cudnn) << "; host "
            << l.environment->host << "\n\n";
    if (!l.rows.empty())
        out << "Baseline: " << l.rows.front().label << " (speed-up, break-even and accuracy are against it)\n\n";
    // The compile column only where a row compiled: other ledgers keep their shape.
    const bool compiles = std::any_of(l.rows.begin(), l.rows.end(), [](const LedgerRow &r) { return r.compileMs.has_value(); });
    // The memory column only where a worker reported memory: a CPU sweep's would be dashes alone.
    const bool memory = l.measuredMemory();
    out << "| configuration | status | first step | steady state | spread (n processes) | speed-up [95% CI] | "
           "break-even (steps) | noise | accuracy |"
        << (memory ? " peak memory (x baseline) |" : "") << (compiles ? " compile time |" : "")
        << (l.hasSeveralStarts ? " other starts (first step, break-even) |" : "") << "\n";
    out << "|---|---|---:|---:|---:|---:|---:|---|---|" << (memory ? "---:|" : "") << (compiles ? "---|" : "")
        << (l.hasSeveralStarts ? "---:|" : "") << "\n";
    for (const auto &r : l.rows) {
        out << "| " << r.label << " | " << statusText(r) << " | " << firstStepText(r) << " | "
            << (r.steadyMs && std::isfinite(*r.steadyMs) ? num(r.steadyMs, "%.2f") + " ms"
                : !r.steadyProblem                       ? "-"
                                                         : "no steady state")
            << " | " << spreadCell(r) << " | " << speedupText(r) << " | " << breakEvenWithRange(r) << " | "
            << (r.steadyMs ? stats::toString(r.noise) : "") << " | " << accuracyText(r.accuracy) << " |";
        if (memory)
            out << ' ' << memoryCellText(r.memory, r.memoryRatio) << " |";
        if (compiles)
            out << ' ' << (r.compileMs ? formatSeconds(*r.compileMs / 1000.0) : "-") << " |";
        if (l.hasSeveralStarts)
            out << ' ' << otherStartCell(r, l.start) << " |";
        out << '\n';
    }
    out << "\nSteady state: median of the detected steady window ("
        << (l.rows.empty()                   ? ""
            : l.rows.front().timing == store::Timing::Gpu ? "CUDA-event time"
                                             : "wall time")
        << " per step), pooled over cold-process repeats. 95% CIs resample cold processes, with each "
           "process's own noise (from blocks of its steps) as a floor; n.s. = no significant difference; n=1, no "
           "CI = one repeat, no interval.\n";
    if (const std::string caches = firstStepCachesText(l); !caches.empty())
        out << "First steps: " << caches << ".\n";
    if (const std::string note = peakMemoryNote(l); !note.empty())
        out << note << "\n";
    // What the steps cost in energy (report/energy.h), or why no row has a figure.
    if (const EnergyLines energy = energyLines(l); !energy.lines.empty()) {
        out << "\nEnergy (" << energy.heading << "):\n\n";
        for (const std::string &line : energy.lines)
            out << "- " << markdownCell(line) << "\n";
    } else if (!energy.note.empty())
        out << energy.note << "\n";
    // What each steady step computes, against the GPU's dense peak for its precision.
    if (const ComputeLines compute = computeLines(l); !compute.lines.empty()) {
        out << "\nCompute per steady step (" << compute.heading << "):\n\n";
        for (const std::string &line : compute.lines)
            out << "- " << markdownCell(line) << "\n";
    }
    // What each change did, against the row it changes (report/waterfall.h): the waterfall in words.
    if (const auto changes = waterfallLines(l); !changes.empty()) {
        out << "\nWhat each change did (each row against the earlier row it differs from by one change):\n\n";
        for (const std::string &line : changes)
            out << "- " << markdownCell(line) << "\n";
    }
    if (const auto shares = machineCacheShareLines(l); !shares.empty()) {
        out << "\nWhat the machine's caches cost each first step (cold minus warm):\n\n";
        for (const std::string &line : shares)
            out << "- " << markdownCell(line) << "\n";
    }
    if (!l.recommendationText.empty())
        out << "\n**Recommendation: " << markdownCell(recommendationHeadline(l)) << ".**\n\n"
            << l.recommendationText << "\n";
    if (const std::string caveats = recommendationCaveats(l); !caveats.empty())
        out << "\n" << caveats << "\n";
    out << whyMarkdown(l);
    return out.str();
}

} // namespace stepscope::report
