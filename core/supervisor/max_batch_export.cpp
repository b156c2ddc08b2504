#include "supervisor/max_batch_export.h"

#include "report/json_number.h"
#include "report/number_text.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace stepscope::supervisor
{

namespace
{

using Stop = report::MaxBatchState::Stop;
constexpr double kMiB = 1024.0 * 1024.0;

// The stop as a token a script can compare (the Markdown words it for a reader).
const char *stopToken(Stop stop)
{
    switch (stop) {
    case Stop::Searching: return "searching";
    case Stop::Narrowed: return "narrowed";
    case Stop::NothingFits: return "nothing-fits";
    case Stop::Ceiling: return "ceiling";
    case Stop::TriesUsed: return "tries-used";
    case Stop::TimeUsed: return "time-used";
    case Stop::Failed: return "failed";
    }
    return "searching";
}

const char *resultToken(report::MaxBatchTry::Result result)
{
    switch (result) {
    case report::MaxBatchTry::Result::Fits: return "fits";
    case report::MaxBatchTry::Result::OutOfMemory: return "out-of-memory";
    case report::MaxBatchTry::Result::Failed: return "failed";
    }
    return "failed";
}

// The try at the answer: its allocated peak (the state keeps only the reported one).
std::optional<double> allocatedAtAnswer(const MaxBatchSearch &s)
{
    if (!s.state.fits)
        return std::nullopt;
    for (auto t = s.tries.rbegin(); t != s.tries.rend(); ++t)
        if (t->batch == *s.state.fits && t->result == report::MaxBatchTry::Result::Fits)
            return t->allocatedBytes;
    return std::nullopt;
}

// How far above the answer its failing check lies, in percent; none without both.
std::optional<double> checkAbovePct(const report::MaxBatchState &st)
{
    if (!st.fits || !st.fails || *st.fits <= 0)
        return std::nullopt;
    return (double(*st.fails) / *st.fits - 1) * 100;
}

std::string cell(const std::optional<double> &v, const char *format)
{
    return v ? report::formatNumber(format, *v) : std::string();
}

std::optional<double> mibOf(const std::optional<double> &bytes)
{
    return bytes ? std::optional<double>(*bytes / kMiB) : std::nullopt;
}

} // namespace

std::string maxBatchCsv(const std::vector<MaxBatchSearch> &searches)
{
    std::string out = "configuration,start_batch,largest_fits,smallest_out_of_memory,check_above_pct,narrowed,stop,"
                      "peak_reserved_mib,peak_allocated_mib,tries,seconds,memory_limit,pending\n";
    for (const MaxBatchSearch &s : searches) {
        const report::MaxBatchState &st = s.state;
        out += report::csvField(s.label) + ',' + std::to_string(s.startBatch) + ',' +
               (st.fits ? std::to_string(*st.fits) : "") + ',' + (st.fails ? std::to_string(*st.fails) : "") + ',' +
               cell(checkAbovePct(st), "%.2f") + ',' + (st.stop == Stop::Narrowed ? "1" : "0") + ',' +
               stopToken(st.stop) + ',' + cell(mibOf(st.peakAtAnswer), "%.1f") + ',' +
               cell(mibOf(allocatedAtAnswer(s)), "%.1f") + ',' + std::to_string(st.tries) + ',' +
               report::formatNumber("%.1f", st.seconds) + ',' + report::csvField(s.limitText) + ',' +
               (s.pending ? "1" : "0") + '\n';
    }
    return out;
}

std::string maxBatchJson(const std::vector<MaxBatchSearch> &searches, const report::MaxBatchLimits &limits)
{
    QJsonArray rows;
    for (const MaxBatchSearch &s : searches) {
        const report::MaxBatchState &st = s.state;
        QJsonArray tries;
        for (std::size_t i = 0; i < s.tries.size(); ++i) {
            const report::MaxBatchTry &t = s.tries[i];
            QJsonObject o{{"batch", t.batch},
                          {"result", resultToken(t.result)},
                          {"peak_reserved_mib", report::jsonNumber(mibOf(t.peakBytes))},
                          {"peak_allocated_mib", report::jsonNumber(mibOf(t.allocatedBytes))},
                          {"seconds", t.seconds},
                          {"run_id", i < s.runIds.size() ? QJsonValue(qint64(s.runIds[i])) : QJsonValue()}};
            if (!t.failure.empty())
                o.insert("failure", QString::fromStdString(t.failure));
            tries.append(o);
        }
        rows.append(QJsonObject{
            {"configuration", QString::fromStdString(s.label)},
            {"start_batch", s.startBatch},
            {"largest_fits", st.fits ? QJsonValue(*st.fits) : QJsonValue()},
            {"smallest_out_of_memory", st.fails ? QJsonValue(*st.fails) : QJsonValue()},
            {"check_above_pct", report::jsonNumber(checkAbovePct(st))},
            {"narrowed", st.stop == Stop::Narrowed},
            {"stop", stopToken(st.stop)},
            {"sentence", QString::fromStdString(report::maxBatchSentence(st, limits))},
            {"peak_reserved_mib", report::jsonNumber(mibOf(st.peakAtAnswer))},
            {"peak_allocated_mib", report::jsonNumber(mibOf(allocatedAtAnswer(s)))},
            {"seconds", st.seconds},
            {"memory_limit", QString::fromStdString(s.limitText)},
            {"pending", s.pending},
            {"tries", tries}});
    }
    const QJsonObject caps{{"tries_cap", limits.maxTries}, {"seconds_cap", limits.maxSeconds},
                           {"tolerance", limits.tolerance}};
    return QJsonDocument(QJsonObject{{"max_batch", caps}, {"searches", rows}}).toJson().toStdString();
}

} // namespace stepscope::supervisor
