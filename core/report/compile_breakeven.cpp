#include "report/compile_breakeven.h"

#include "config/config_json.h"
#include "report/number_text.h"

#include <QJsonObject>

#include <cmath>
#include <sstream>

namespace stepscope::report
{
namespace
{

std::optional<RunConfig> configOf(const std::string &json)
{
    if (json.empty())
        return std::nullopt;
    RunConfig c;
    std::vector<ConfigError> errors;
    if (!parseStoredConfig(QByteArray::fromStdString(json), c, errors)) // an older file's compile_cache goes
        return std::nullopt;
    return c;
}

// The same knobs run eager.
RunConfig withoutCompile(RunConfig c)
{
    c.compile = CompileMode::None;
    c.compileBackend = CompileBackend::Inductor;
    c.compileTarget = CompileTarget::Model;
    return c;
}

bool hasFigures(const LedgerRow &row)
{
    return row.steadyMs && row.firstStepMs;
}

std::string stepsText(double steps)
{
    return steps <= 1 ? std::string("immediately") : groupThousands(std::llround(steps));
}

std::string secondsOrDash(const std::optional<double> &s)
{
    return s ? formatSeconds(*s) : "-";
}

} // namespace

std::vector<CompileBreakEven> compileBreakEvens(const Ledger &ledger)
{
    std::vector<std::optional<RunConfig>> configs;
    for (const auto &row : ledger.rows)
        configs.push_back(configOf(row.configJson));
    std::vector<CompileBreakEven> out;
    for (std::size_t i = 0; i < ledger.rows.size(); ++i) {
        if (!configs[i] || configs[i]->compile == CompileMode::None)
            continue;
        CompileBreakEven b;
        b.row = i;
        b.start = ledger.rows[i].firstStepStart;
        const RunConfig eager = withoutCompile(*configs[i]);
        for (std::size_t j = 0; j < ledger.rows.size(); ++j)
            if (j != i && configs[j] && *configs[j] == eager) {
                b.eagerRow = j;
                break;
            }
        const LedgerRow &row = ledger.rows[i];
        if (b.eagerRow && hasFigures(row) && hasFigures(ledger.rows[*b.eagerRow])) {
            const LedgerRow &e = ledger.rows[*b.eagerRow];
            b.measured = true;
            b.steps = stats::breakEvenSteps(*row.firstStepMs, *row.steadyMs, *e.firstStepMs, *e.steadyMs);
            // Against the eager row as the ledger's rows are against the baseline: processes resampled.
            b.ci = stats::breakEvenInterval(processSummariesOf(row), processSummariesOf(e));
        }
        out.push_back(b);
    }
    return out;
}

std::string compileBreakEvenText(const CompileBreakEven &b)
{
    if (!b.measured)
        return "-";
    const std::string point = b.steps ? stepsText(*b.steps) : std::string("never");
    const std::string range = breakEvenRangeText(b.ci);
    if (range == point)
        return point;
    return point + (b.ci.hasInterval ? " [" + range + "]" : " (" + range + ")");
}

std::string compileBreakEvenMarkdown(const Ledger &ledger, const std::vector<CompileBreakEven> &breakEvens)
{
    if (breakEvens.empty())
        return {};
    std::ostringstream out;
    out << "\n### torch.compile: break-even against eager\n\n"
        << "| configuration | start | first step | steady state | eager row | vs eager (steps) [95% CI] | "
           "vs baseline (steps) |\n|---|---|---:|---:|---|---:|---:|\n";
    for (const CompileBreakEven &b : breakEvens) {
        const LedgerRow &row = ledger.rows[b.row];
        out << "| " << markdownCell(row.label) << " | " << store::toString(b.start) << " | "
            << secondsOrDash(msToSeconds(row.firstStepMs)) << " | " << (row.steadyMs ? formatMs(*row.steadyMs) : "-")
            << " | " << (b.eagerRow ? markdownCell(ledger.rows[*b.eagerRow].label) : std::string("none in this sweep"))
            << " | " << compileBreakEvenText(b) << " | " << breakEvenText(row) << " |\n";
    }
    out << "\nvs eager: steps after which the compiled row's slower first step is paid back against the same knobs "
           "run eager in the same runtime (what compile alone buys); 95% CIs resample cold processes.\n";
    return out.str();
}

QJsonArray compileBreakEvenJson(const Ledger &ledger, const std::vector<CompileBreakEven> &breakEvens)
{
    const auto text = [](const std::string &s) { return QJsonValue(QString::fromStdString(s)); };
    const QJsonValue null(QJsonValue::Null);
    QJsonArray out;
    for (const CompileBreakEven &b : breakEvens) {
        const bool interval = b.measured && b.ci.hasInterval && !b.ci.lowNever;
        out.append(QJsonObject{{"configuration", text(ledger.rows[b.row].configName)},
                               {"start", text(std::string(store::toString(b.start)))},
                               {"eager", b.eagerRow ? text(ledger.rows[*b.eagerRow].configName) : null},
                               {"measured", b.measured},
                               {"steps", b.measured && b.steps ? QJsonValue(*b.steps) : null},
                               {"never", b.measured && !b.steps},
                               {"ci_low", interval ? QJsonValue(b.ci.low) : null},
                               {"ci_high", interval && !b.ci.highNever ? QJsonValue(b.ci.high) : null},
                               {"text", text(compileBreakEvenText(b))}});
    }
    return out;
}

} // namespace stepscope::report
