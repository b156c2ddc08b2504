// The small layer over the sqlite3 C API every other file of the store uses.
#include "store/store_internal.h"

namespace stepscope::store
{

[[noreturn]] void throwSql(sqlite3 *db, int rc)
{
    const char *msg = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    throw SqlFailure(rc, msg ? msg : sqlite3_errstr(rc), db ? sqlite3_system_errno(db) : 0);
}

void exec(sqlite3 *db, const char *sql)
{
    const int rc = sqlite3_exec(db, sql, nullptr, nullptr, nullptr);
    if (rc != SQLITE_OK)
        throwSql(db, rc);
}

std::int64_t queryInt(sqlite3 *db, const char *sql)
{
    Statement st(db, sql);
    return st.step() ? st.int64(0) : 0;
}

} // namespace stepscope::store
