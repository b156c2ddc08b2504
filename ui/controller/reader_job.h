#pragma once
// Common frame of the dashboard's background jobs over the open database (ledger, comparison,
// history and run queries, reports). Their work runs on the database's one reader thread
// (ReaderPool) through QtConcurrent::run, and a QFutureWatcher, a child of the job, brings each
// result back to the UI thread: never to a job that is gone.
//
// Latest wins: a request of a kind makes every earlier one of that kind stale, and cancel() and
// setDatabase() make all of them stale. Each request has a flag that says so. Work whose flag is
// up by the time it would start is skipped; work under way reads it through a stats::CancelToken
// (a bootstrap stops at its next resample); a result is delivered only while the flag is down.
// Subclasses add the typed requests and result signals.
#include "stats/stats.h"

#include <QObject>
#include <QString>

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <vector>

namespace stepscope::store
{
class Reader;
}

namespace stepscope::ui
{

class ReaderPool;

class ReaderJob : public QObject
{
    Q_OBJECT
  public:
    ~ReaderJob() override;

    // The file later requests read; every pending result is dropped.
    void setDatabase(const QString &path);
    QString database() const { return path_; }
    // Drops every pending result.
    void cancel();
    // True while a request is queued or running, stale ones included.
    bool isBusy() const { return !inFlight_.empty(); }

  Q_SIGNALS:
    void failed(const QString &message);
    void busyChanged(bool busy);

  protected:
    // `kinds`: how many kinds of request supersede each other independently (0 .. kinds-1).
    ReaderJob(int kinds, QObject *parent);

    // Runs on the UI thread, and only while its request is still wanted.
    using Deliver = std::function<void()>;
    // What a request's work is given on the reader thread.
    struct Context {
        const store::Reader &reader;        // the thread's reader of the job's database
        stats::CancelToken cancel;          // raised once the request is stale
        std::function<void(Deliver)> early; // delivers a first part before the work ends
    };
    // Runs on the reader thread and returns what to deliver (may be empty). A store::StoreError (or
    // another std::exception) it throws becomes failed(), when still wanted.
    using Work = std::function<Deliver(const Context &)>;

    // A request of `kind`: the earlier ones of that kind are stale from now on.
    void post(int kind, Work work);
    // A request only cancel() and setDatabase() make stale (a report: each writes its own file).
    void postStandalone(Work work);
    // The requests of `kind` made so far are stale, and no new one is made.
    void drop(int kind);

  private:
    using Flag = std::shared_ptr<std::atomic<bool>>;
    void start(Flag flag, Work work);
    void settle(quint64 request);

    QString path_;
    std::shared_ptr<ReaderPool> pool_; // of path_; none without a database
    std::vector<Flag> latest_;         // per kind, the flag of its newest request
    std::map<quint64, Flag> inFlight_; // requests queued or running, by number
    quint64 requests_ = 0;
};

} // namespace stepscope::ui
