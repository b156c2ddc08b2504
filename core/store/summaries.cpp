// Per-run summaries: written once a run completes (or its rule changes), read by every view, and
// the runs whose summary is missing or was computed by an older rule.
#include "store/store_internal.h"

#include <string>
#include <vector>

namespace stepscope::store
{

void Database::setSummary(std::int64_t runId, const RunSummary &summary)
{
    const bool versioned = d->version >= 5; // older files (tests of migrations) lack the two columns
    d->enqueue([runId, summary, versioned](sqlite3 *db) {
        Statement st(db, versioned ? "INSERT OR REPLACE INTO summaries (run_id, median_ms, p10_ms, p90_ms, iqr_ms, "
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
            st.bindTextOrNull(11, summary.timing).bind(12, summary.methodVersion);
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
            (version >= 5 ? "timing, method_version" : "NULL, 0") + " FROM summaries WHERE run_id = ?";
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
        r.timing = st.text(9);
        r.methodVersion = static_cast<int>(st.int64(10));
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
