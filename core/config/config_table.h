#pragma once
// The shapes of the configuration table (config_table.cpp): one row per RunConfig field, one rule per
// combination of settings that cannot run, and the messages that refuse a value. Plain C++. Both
// workers obey this one table: the native side reads it here; the build writes it out as the Python
// worker's config_schema.json (config_schema.h), so no field, range, default or rule exists twice.
#include <string>
#include <utility>
#include <vector>

namespace stepscope
{

struct RunConfig;

enum class FieldKind {
    Choice,   // one name of `choices`, stored as the enum of that index
    Flag,     // true or false
    Integer,  // from `min` to `max`
    Device,   // cpu, cuda or cuda:N with N from `min` to `max`
    CoreList, // one of `words`, or a core list (parseCoreList) of cores from `min` to `max`
    Model,    // a model name of model_name.h's grammar (its regular expression)
};

// A field's value: `number` for choices (the index), flags (0 or 1) and integers; `text` for devices
// and core lists.
struct FieldValue {
    long long number = 0;
    std::string text;
};

// How a form shows a field: the dashboard's configuration panel makes the field's widget from its
// row (ui/widgets/field_widgets.h), so that its label, unit and tooltip are written here once. A
// field without a label has no widget of its own. The words are for people; the JSON names are `key`.
struct FieldForm {
    const char *label = "";   // the form's name for it: "Batch", "TF32 matmuls and convolutions"
    const char *unit = "";    // after a number, with its space: " px", " MiB"
    const char *zero = "";    // said instead of 0 where 0 means "not set": "library default"
    const char *details = ""; // what a tooltip says after `help`: why it helps, what it costs
    // The choices a form offers, in its order and its words (a name of `choices`, or for a CoreList
    // "list": a core list typed beside it); empty: every choice, by its name.
    std::vector<std::pair<std::string, std::string>> offered{};
};

struct FieldInfo {
    const char *key = "";     // the JSON name, and the CLI flag with '-' for '_'
    const char *allowed = ""; // for --help: "off|bf16|fp16", "1..4096", "cpu|cuda|cuda:N"
    const char *help = "";
    bool isFlag = false; // a boolean knob: `--key` alone means true
    FieldKind kind = FieldKind::Flag;
    std::vector<std::string> choices; // Choice: the names, in enum order; CoreList: the words
    long long min = 0, max = 0;
    const char *why = ""; // said after a range refusal: why the range is what it is
    FieldValue (*get)(const RunConfig &) = nullptr;
    void (*set)(RunConfig &, const FieldValue &) = nullptr;
    std::string allowedText{}; // what `allowed` points into
    FieldForm form{};
};

// A rule: when every condition holds, `field` is refused with `message`. A condition holds when the
// field's value, as text ("true", "fp16", "cpu", "32"), is among `values` (or, with `negate`, is
// not). "{key}" in the message is replaced by that field's value.
struct FieldCondition {
    const char *field;
    bool negate;
    std::vector<std::string> values;
};
struct FieldRule {
    const char *field;
    std::vector<FieldCondition> when;
    const char *message;
};

const std::vector<FieldInfo> &fields();
const std::vector<FieldRule> &rules();
const FieldInfo *findField(const std::string &key); // nullptr for an unknown key

// The field's value in `config` as rules and messages see it: a choice's name, "true"/"false", the
// decimal number, the device or core list.
std::string valueText(const RunConfig &config, const FieldInfo &field);
// What a refusal of `field` lists as allowed: "off, bf16, fp16", "an integer from 1 to 4096".
std::string allowedPhrase(const FieldInfo &field);
// The field told in sentences, as a form's tooltip says it: `help`, then the form's details.
std::string explanation(const FieldInfo &field);
// `brief` as a sentence (capital first, full stop last), then `more` after a space when there is any.
std::string sentences(const std::string &brief, const std::string &more);

// The refusals that are no rule of one field; both workers word them from these templates.
namespace messages
{
constexpr const char *kNotAllowed = "'{value}' is not allowed for {key}; allowed: {allowed}";
constexpr const char *kNotACoreList = "{why}; allowed: {allowed}";
constexpr const char *kUnknownSetting = "unknown setting '{key}'; known settings: {known}";
// compile_cache was a knob until the caches a first step finds became the run's start state.
constexpr const char *kRetiredCompileCache =
    "compile_cache is no longer a setting: which caches a first step finds is the run's start state, and every "
    "compiled configuration runs under each start state the sweep plans; drop the key and choose the states "
    "with --start fresh,shipped,again (cold is fresh, warm is again)";
constexpr const char *kNotAValue = "must be a string, number or boolean";
constexpr const char *kNotAnObject = "expected a JSON object of settings";
// A sweep file's "baseline": true marks the sweep's baseline (config_json.h); any other value is this.
constexpr const char *kBaselineKey = "baseline";
constexpr const char *kBaselineNotAFlag = "must be true or false (true: the sweep's baseline)";
constexpr const char *kFlagTrue[] = {"true", "1", "on", "yes"};
constexpr const char *kFlagFalse[] = {"false", "0", "off", "no"};
} // namespace messages

// `text` with every "{name}" replaced by lookup(name); a name lookup does not know (it returns false)
// is left as it is.
template <typename Lookup> std::string fillMessage(const std::string &text, Lookup lookup)
{
    std::string out, value;
    std::size_t pos = 0;
    while (pos < text.size()) {
        const auto open = text.find('{', pos);
        const auto close = open == std::string::npos ? std::string::npos : text.find('}', open);
        if (close == std::string::npos) {
            out += text.substr(pos);
            break;
        }
        out += text.substr(pos, open - pos);
        if (lookup(text.substr(open + 1, close - open - 1), value))
            out += value;
        else
            out += text.substr(open, close - open + 1);
        pos = close + 1;
    }
    return out;
}

} // namespace stepscope
