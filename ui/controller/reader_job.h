#pragma once
// Common base of the dashboard's background jobs over the open database (ledger, comparison,
// history and run queries, reports). Their work runs on the database's one reader thread
// (ReaderPool) and comes back through the job frame (latest.h): never to a job that is gone.
//
// Latest wins: a request of a kind makes every earlier one of that kind stale, and cancel() and
// setDatabase() make all of them stale. Work that is stale by the time it would start is skipped;
// work under way reads its ticket through a stats::CancelToken (a bootstrap stops at its next
// resample); a result is delivered only while its ticket is live. Subclasses add the typed requests
// and result signals.
#include "controller/latest.h"
#include "stats/stats.h"

#include <QObject>
#include <QString>

#include <functional>
#include <memory>

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
    bool isBusy() const { return latest_.isBusy(); }

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
    void start(const Ticket &ticket, Work work);

    QString path_;
    std::shared_ptr<ReaderPool> pool_; // of path_; none without a database
    Latest latest_;
};

} // namespace stepscope::ui
