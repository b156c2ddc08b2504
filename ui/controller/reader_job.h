#pragma once
// Common frame of the dashboard's background jobs over the open database (ledger, comparison,
// history and run queries, reports): a worker thread with its own reader (ReaderWorker), requests
// of a kind that supersede each other, results delivered to the UI thread only while still wanted,
// and a busy state the window shows. Subclasses add the typed requests and result signals.
#include <QObject>
#include <QString>

#include <functional>
#include <memory>
#include <thread>

namespace stepscope::store
{
class Reader;
}

namespace stepscope::ui
{

class ReaderWorker;

class ReaderJob : public QObject
{
    Q_OBJECT
  public:
    ~ReaderJob() override;

    // The file later requests read; every pending result is dropped.
    void setDatabase(const QString &path);
    QString database() const;
    // Drops every pending result.
    void cancel();
    bool isBusy() const { return inFlight_ > 0; }
    std::thread::id workerThread() const;

  Q_SIGNALS:
    void failed(const QString &message);
    void busyChanged(bool busy);

  protected:
    // `kinds`: how many kinds of request supersede each other independently (0 .. kinds-1).
    ReaderJob(int kinds, QObject *parent);

    struct Ticket {
        int kind = -1; // -1: superseded by nothing but cancel()
        qint64 seq = 0;
        qint64 epoch = 0; // cancel() and setDatabase() start a new one
    };
    // A new request of `kind`: requests of that kind made before it are no longer wanted.
    Ticket supersede(int kind);
    // A request that only cancel() and setDatabase() make stale.
    Ticket standalone() const;
    // Results of `kind` requested so far are no longer wanted (another request made them stale).
    void drop(int kind);
    bool wanted(const Ticket &ticket) const;

    // Runs f on the UI thread if the ticket is still wanted then; for results on the way.
    using Deliver = std::function<void(std::function<void()>)>;
    // Runs on the worker; returns what to do with the result on the UI thread (may be empty).
    using Work = std::function<std::function<void()>(const store::Reader &reader, const Deliver &early)>;
    // Queues `work`. It is skipped when the ticket is stale by the time it would start; its result
    // runs on the UI thread only if the ticket is still wanted; a store::StoreError becomes failed().
    void post(const Ticket &ticket, Work work);

  private:
    struct Shared;
    void finishOne();

    std::unique_ptr<ReaderWorker> worker_;
    std::shared_ptr<Shared> shared_;
    int inFlight_ = 0;
};

} // namespace stepscope::ui
