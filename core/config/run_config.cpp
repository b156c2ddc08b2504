#include "config/run_config.h"

#include "config/model_name.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <limits>
#include <sstream>

namespace stepscope
{
namespace
{

bool parseBool(const std::string &text, bool &out)
{
    for (const char *word : messages::kFlagTrue)
        if (text == word) {
            out = true;
            return true;
        }
    for (const char *word : messages::kFlagFalse)
        if (text == word) {
            out = false;
            return true;
        }
    return false;
}

// Decimal digits with an optional minus and nothing else (no spaces, no '+'): the grammar the Python
// worker's parser has too, so that both refuse the same texts.
bool parseInt(const std::string &text, long long lo, long long hi, long long &out)
{
    const std::size_t sign = text.rfind('-', 0) == 0 ? 1 : 0;
    if (text.size() == sign || text.find_first_not_of("0123456789", sign) != std::string::npos)
        return false;
    errno = 0;
    const long long v = std::strtoll(text.c_str(), nullptr, 10);
    if (errno != 0 || v < lo || v > hi)
        return false;
    out = v;
    return true;
}

bool validDevice(const FieldInfo &field, const std::string &d)
{
    if (d == "cpu" || d == "cuda")
        return true;
    long long idx = 0;
    return d.rfind("cuda:", 0) == 0 && parseInt(d.substr(5), field.min, field.max, idx);
}

// The value `text` means for `field`; false when the field does not allow it (`why` set for core lists).
bool parseValue(const FieldInfo &field, const std::string &text, FieldValue &value, std::string &why)
{
    switch (field.kind) {
    case FieldKind::Choice: {
        const auto at = std::find(field.choices.begin(), field.choices.end(), text);
        value.number = at - field.choices.begin();
        return at != field.choices.end();
    }
    case FieldKind::Flag: {
        bool on = false;
        if (!parseBool(text, on))
            return false;
        value.number = on;
        return true;
    }
    case FieldKind::Integer:
        return parseInt(text, field.min, field.max, value.number);
    case FieldKind::Device:
        value.text = text;
        return validDevice(field, text);
    case FieldKind::Model:
        value.text = text;
        return isModelName(text);
    case FieldKind::CoreList:
        break;
    }
    if (std::find(field.choices.begin(), field.choices.end(), text) != field.choices.end()) {
        value.text = text;
        return true;
    }
    std::vector<int> cores;
    if (!parseCoreList(text, cores, why))
        return false;
    value.text = formatCoreList(cores); // one spelling per set: "3,2" and "2-3" are the same runs
    return true;
}

// A value that bypassed setField (a RunConfig built in code) checked as setField would; "" when fine.
std::string problemOf(const RunConfig &c, const FieldInfo &field)
{
    const FieldValue v = field.get(c);
    const std::string text = valueText(c, field);
    switch (field.kind) {
    case FieldKind::Choice:
    case FieldKind::Flag:
        return {}; // enums and bools hold nothing else
    case FieldKind::Integer:
        if (v.number >= field.min && v.number <= field.max)
            return {};
        return std::string(field.key) + " must be from " + std::to_string(field.min) + " to " +
               std::to_string(field.max) + " (got " + text + ")" + (*field.why ? ": " : "") + field.why;
    case FieldKind::Device:
        return validDevice(field, text) ? std::string() : "'" + text + "' is not a device; use cpu, cuda or cuda:N";
    case FieldKind::Model:
        return isModelName(text) ? std::string() : "'" + text + "' is not a model name; use " + modelPhrase();
    case FieldKind::CoreList:
        break;
    }
    FieldValue parsed;
    std::string why;
    return parseValue(field, text, parsed, why) ? std::string() : why + "; use " + allowedPhrase(field);
}

bool holds(const RunConfig &c, const FieldCondition &condition)
{
    const std::string value = valueText(c, *findField(condition.field));
    const bool listed = std::find(condition.values.begin(), condition.values.end(), value) != condition.values.end();
    return listed != condition.negate;
}

// A rule's message with "{key}" replaced by that field's value in `c`.
std::string ruleMessage(const RunConfig &c, const FieldRule &rule)
{
    return fillMessage(rule.message, [&](const std::string &key, std::string &out) {
        const FieldInfo *field = findField(key);
        if (field)
            out = valueText(c, *field);
        return field != nullptr;
    });
}

// "{name}" in a template of messages:: replaced by the value given for it.
std::string filled(const char *text, const std::vector<std::pair<const char *, std::string>> &values)
{
    return fillMessage(text, [&](const std::string &name, std::string &out) {
        for (const auto &[key, value] : values)
            if (name == key) {
                out = value;
                return true;
            }
        return false;
    });
}

} // namespace

int RunConfig::cudaIndex() const
{
    const auto colon = device.find(':');
    return colon == std::string::npos ? 0 : std::atoi(device.c_str() + colon + 1);
}

bool RunConfig::operator==(const RunConfig &o) const
{
    for (const auto &f : fields())
        if (valueText(*this, f) != valueText(o, f))
            return false;
    return true;
}

bool parseCoreList(const std::string &text, std::vector<int> &cores, std::string &error)
{
    cores.clear();
    const std::string max = std::to_string(kMaxCpuCores - 1);
    auto bad = [&](const std::string &why) {
        error = "'" + text + "' is not a core list: " + why + " (e.g. 3, 2,3 or 4-7; cores 0.." + max + ")";
        cores.clear();
        return false;
    };
    if (text.empty())
        return bad("it is empty");
    std::size_t pos = 0;
    while (pos <= text.size()) {
        const auto comma = text.find(',', pos);
        const std::string item = text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
        const auto dash = item.find('-');
        long long lo = 0, hi = 0;
        if (!parseInt(item.substr(0, dash), 0, kMaxCpuCores - 1, lo))
            return bad("'" + item + "' is not a core number or range");
        hi = lo;
        if (dash != std::string::npos && !parseInt(item.substr(dash + 1), 0, kMaxCpuCores - 1, hi))
            return bad("'" + item + "' is not a core number or range");
        if (hi < lo)
            return bad("range '" + item + "' runs backwards");
        for (long long core = lo; core <= hi; ++core) {
            // One grammar for every list (issue 34.6): a core named twice is a slip, never merged
            // without a word ("2,3" and "2-3" are one set, spelled two ways; "3,3" is a mistake).
            if (std::find(cores.begin(), cores.end(), static_cast<int>(core)) != cores.end())
                return bad("core " + std::to_string(core) + " is named twice");
            cores.push_back(static_cast<int>(core));
        }
        if (comma == std::string::npos)
            break;
        pos = comma + 1;
    }
    std::sort(cores.begin(), cores.end());
    cores.erase(std::unique(cores.begin(), cores.end()), cores.end());
    return true;
}

std::string formatCoreList(std::vector<int> cores)
{
    std::sort(cores.begin(), cores.end());
    cores.erase(std::unique(cores.begin(), cores.end()), cores.end());
    std::string out;
    for (std::size_t i = 0; i < cores.size();) {
        std::size_t j = i;
        while (j + 1 < cores.size() && cores[j + 1] == cores[j] + 1)
            ++j;
        out += (out.empty() ? "" : ",") + std::to_string(cores[i]);
        if (j > i)
            out += "-" + std::to_string(cores[j]);
        i = j + 1;
    }
    return out;
}

int pickOneCore(const std::vector<int> &allowed)
{
    for (int core : allowed)
        if (core != 0)
            return core;
    return allowed.empty() ? -1 : allowed.front();
}

bool setField(RunConfig &c, const std::string &key, const std::string &value, ConfigError &error)
{
    const FieldInfo *field = findField(key);
    if (!field && key == "compile_cache") {
        error = {key, messages::kRetiredCompileCache};
        return false;
    }
    if (!field) {
        std::string known;
        for (const auto &f : fields())
            known += std::string(known.empty() ? "" : ", ") + f.key;
        error = {key, filled(messages::kUnknownSetting, {{"key", key}, {"known", known}})};
        return false;
    }
    FieldValue parsed;
    std::string why;
    if (!parseValue(*field, value, parsed, why)) {
        const std::string allowed = allowedPhrase(*field);
        error = {key, why.empty()
                          ? filled(messages::kNotAllowed, {{"value", value}, {"key", key}, {"allowed", allowed}})
                          : filled(messages::kNotACoreList, {{"why", why}, {"allowed", allowed}})};
        return false;
    }
    field->set(c, parsed);
    return true;
}

std::vector<ConfigError> validate(const RunConfig &c)
{
    std::vector<ConfigError> errors;
    for (const auto &f : fields())
        if (std::string problem = problemOf(c, f); !problem.empty())
            errors.push_back({f.key, std::move(problem)});
    for (const auto &rule : rules())
        if (std::all_of(rule.when.begin(), rule.when.end(), [&](const FieldCondition &w) { return holds(c, w); }))
            errors.push_back({rule.field, ruleMessage(c, rule)});
    return errors;
}

std::string describe(const std::vector<ConfigError> &errors)
{
    std::string out;
    for (const auto &e : errors)
        out += (out.empty() ? "" : "\n") + e.field + ": " + e.message;
    return out;
}

std::vector<std::string> knobNames(const RunConfig &c)
{
    std::vector<std::string> knobs;
    // The data-parallel dimension first: "ddp-2+cuda-graph" reads as a DDP row with a graph.
    if (c.worldSize > 1) {
        knobs.push_back("ddp-" + std::to_string(c.worldSize));
        if (c.ddpBucketCapMb != 25)
            knobs.push_back("bucket-" + std::to_string(c.ddpBucketCapMb) + "mb");
        if (c.ddpGradientAsBucketView)
            knobs.emplace_back("grad-view");
        if (c.ddpStaticGraph)
            knobs.emplace_back("static-graph");
    }
    if (c.tf32)
        knobs.emplace_back("tf32");
    if (c.cudnnBenchmark)
        knobs.emplace_back("cudnn-bench");
    if (c.autocast != Autocast::Off)
        knobs.push_back(toString(c.autocast));
    if (c.channelsLast)
        knobs.emplace_back("channels-last");
    // Where the ledger puts it: pinning matters once the GPU work is small enough to wait on launches.
    if (c.cpuAffinity == "one")
        knobs.emplace_back("pin-one-core");
    else if (c.cpuAffinity != "none")
        knobs.push_back("pin-" + c.cpuAffinity);
    if (c.cudaGraph)
        knobs.emplace_back("cuda-graph");
    if (c.optimizer != Optimizer::Foreach)
        knobs.push_back("sgd-" + toString(c.optimizer));
    if (c.compile != CompileMode::None) {
        knobs.push_back("compile-" + toString(c.compile));
        if (c.compileBackend != CompileBackend::Inductor)
            knobs.push_back("backend-" + toString(c.compileBackend));
        if (c.compileTarget == CompileTarget::Step)
            knobs.emplace_back("whole-step");
    }
    if (c.threads > 0)
        knobs.push_back("threads-" + std::to_string(c.threads));
    if (c.memoryLimitMib > 0)
        knobs.push_back("mem-" + std::to_string(c.memoryLimitMib) + "MiB");
    // Not a knob, but a run the label must tell apart: the same configuration at seeds 0 and 1 is an
    // A/A check, two rows, not one row of pooled repeats. Seed 0, every sweep's default, says nothing.
    if (c.seed != 0)
        knobs.push_back("seed-" + std::to_string(c.seed));
    return knobs;
}

std::string knobLabel(const RunConfig &c)
{
    const auto knobs = knobNames(c);
    if (knobs.empty())
        return "baseline";
    std::string out;
    for (const auto &k : knobs)
        out += (out.empty() ? "" : "+") + k;
    return out;
}

std::string canonicalName(const RunConfig &c)
{
    std::ostringstream s;
    s << toString(c.runtime) << ' ' << c.device;
    // The default model and sequence length say nothing, so names stored before issue 30 stay as they were.
    if (c.model != kDefaultModel)
        s << ' ' << c.model;
    s << " b" << c.batch << ' ' << c.imageSize << "px";
    if (c.sequenceLength != RunConfig{}.sequenceLength)
        s << " s" << c.sequenceLength;
    s << " c" << c.classes << ' ' << knobLabel(c);
    return s.str();
}

namespace
{
template <typename Enum> std::string nameOf(const char *key, Enum value)
{
    return findField(key)->choices.at(static_cast<std::size_t>(value));
}
} // namespace

std::string toString(Runtime r)
{
    return nameOf("runtime", r);
}
std::string toString(Autocast a)
{
    return nameOf("autocast", a);
}
std::string toString(Optimizer o)
{
    return nameOf("optimizer", o);
}
std::string toString(CompileMode m)
{
    return nameOf("compile", m);
}
std::string toString(CompileBackend b)
{
    return nameOf("compile_backend", b);
}
std::string toString(CompileTarget t)
{
    return nameOf("compile_target", t);
}

} // namespace stepscope
