// Per-run summaries: written once a run completes (or its rule changes), read by every view, and
// the runs whose summary is missing or was computed by an older rule.
#include "store/store_internal.h"

#include <QJsonDocument>
#include <QJsonObject>

#include <string>
#include <vector>

namespace stepscope::store
{
namespace
{

// A summary's SteadyProblem as a compact JSON object: {"kind": "still-drifting", "steps": 0, ...}.
std::string problemToJson(const std::optional<SteadyProblem> &p)
{
    if (!p)
        return {};
    QJsonObject o{{"kind", QString::fromUtf8(toString(p->kind).data())},
                  {"steps", static_cast<double>(p->steps)},
                  {"needed", static_cast<double>(p->needed)},
                  {"early_ms", p->earlyMs},
                  {"late_ms", p->lateMs},
                  {"run_steps", static_cast<double>(p->runSteps)}};
    // The machine's load only where the supervisor read it.
    if (p->cores > 0) {
        o.insert("load_1m", p->loadAverage);
        o.insert("cores", p->cores);
    }
    return QJsonDocument(o).toJson(QJsonDocument::Compact).toStdString();
}

std::optional<SteadyProblem> problemFromJson(const std::string &json)
{
    if (json.empty())
        return std::nullopt;
    const QJsonObject o = QJsonDocument::fromJson(QByteArray::fromStdString(json)).object();
    SteadyProblem p;
    // A kind a newer build wrote still reads as "no steady state".
    p.kind = steadyProblemKindFromString(o.value("kind").toString().toStdString())
                 .value_or(SteadyProblem::Kind::NeverSettles);
    p.steps = static_cast<std::int64_t>(o.value("steps").toDouble());
    p.needed = static_cast<std::int64_t>(o.value("needed").toDouble());
    p.earlyMs = o.value("early_ms").toDouble();
    p.lateMs = o.value("late_ms").toDouble();
    p.runSteps = static_cast<std::int64_t>(o.value("run_steps").toDouble());
    p.loadAverage = o.value("load_1m").toDouble();
    p.cores = o.value("cores").toInt();
    return p;
}

} // namespace

void Database::setSummary(std::int64_t runId, const RunSummary &summary)
{
    // Older files (tests of migrations) lack the later columns.
    const bool versioned = d->version >= 5, typed = d->version >= 6;
    d->enqueue([runId, summary, versioned, typed](sqlite3 *db) {
        Statement st(db, typed       ? "INSERT OR REPLACE INTO summaries (run_id, median_ms, p10_ms, p90_ms, iqr_ms, "
                                       "mad_ms, cv, steady_begin, steady_count, noise, timing, method_version, "
                                       "steady_problem) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                         : versioned ? "INSERT OR REPLACE INTO summaries (run_id, median_ms, p10_ms, p90_ms, iqr_ms, "
                                       "mad_ms, cv, steady_begin, steady_count, noise, timing, method_version) "
                                       "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                                     : "INSERT OR REPLACE INTO summaries (run_id, median_ms, p10_ms, p90_ms, iqr_ms, "
                                       "mad_ms, cv, steady_begin, steady_count, noise) "
                                       "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
        st.bind(1, runId);
        const std::optional<double> figures[] = {summary.medianMs, summary.p10Ms, summary.p90Ms,
                                                 summary.iqrMs,    summary.madMs, summary.cv};
        for (int i = 0; i < 6; ++i)
            st.bind(2 + i, figures[i]);
        st.bind(8, summary.steadyBegin).bind(9, summary.steadyCount).bind(10, summary.noise);
        if (versioned)
            st.bindTextOrNull(11, std::string(toString(summary.timing))).bind(12, summary.methodVersion);
        if (typed)
            st.bindTextOrNull(13, problemToJson(summary.problem));
        st.run();
    });
}

std::optional<RunSummary> Reader::summary(std::int64_t runId) const
{
    if (d->schemaVersion < 2)
        return std::nullopt; // summaries arrived with schema 2
    return d->read([runId, version = d->schemaVersion](sqlite3 *db) -> std::optional<RunSummary> {
        const std::string sql =
            std::string("SELECT median_ms, p10_ms, p90_ms, iqr_ms, mad_ms, cv, steady_begin, steady_count, noise, ") +
            (version >= 5 ? "timing, method_version, " : "NULL, 0, ") + (version >= 6 ? "steady_problem" : "NULL") +
            " FROM summaries WHERE run_id = ?";
        Statement st(db, sql.c_str());
        st.bind(1, runId);
        if (!st.step())
            return std::nullopt;
        RunSummary r;
        r.medianMs = st.optReal(0);
        r.p10Ms = st.optReal(1);
        r.p90Ms = st.optReal(2);
        r.iqrMs = st.optReal(3);
        r.madMs = st.optReal(4);
        r.cv = st.optReal(5);
        r.steadyBegin = st.int64(6);
        r.steadyCount = st.int64(7);
        r.noise = st.text(8);
        r.timing = timingFromString(st.text(9));
        r.methodVersion = static_cast<int>(st.int64(10));
        r.problem = problemFromJson(st.text(11));
        return r;
    });
}

std::vector<std::int64_t> Reader::runsNeedingSummary(int methodVersion) const
{
    return d->read([methodVersion, version = d->schemaVersion](sqlite3 *db) {
        std::vector<std::int64_t> out;
        // Before schema 5 no summary says which rule computed it (before 2 there are none): all of
        // them are due.
        const std::string sql = version < 5 ? "SELECT id FROM runs WHERE status = 'complete' ORDER BY id"
                                            : "SELECT id FROM runs WHERE status = 'complete' AND id NOT IN "
                                              "(SELECT run_id FROM summaries WHERE method_version >= ?) ORDER BY id";
        Statement st(db, sql.c_str());
        if (version >= 5)
            st.bind(1, methodVersion);
        while (st.step())
            out.push_back(st.int64(0));
        return out;
    });
}

} // namespace stepscope::store
