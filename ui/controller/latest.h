#pragma once
// The one latest-wins frame of the dashboard's background jobs (reads, the open and writes of the
// database, the torch lookup, the doctor, the model list, comparisons, reports). A request takes a
// ticket; a newer ticket of the same kind makes the older ones stale, and so does cancel(). The work
// runs wherever its caller put it (a QFuture) and may look at its ticket to stop early; what it
// returns reaches the owner's thread only while its ticket is still live and the owner is alive (the
// watcher that brings it is the owner's child, so it goes with the owner). A stale result is dropped,
// never delivered late over a newer one.
//
// Not a QObject and not thread-safe but for Ticket: made, asked and cancelled on the owner's thread.
#include "stats/stats.h"

#include <QFutureWatcher>
#include <QObject>
#include <QThread>

#include <atomic>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

namespace stepscope::ui
{

// One request's say in whether it is still wanted; copied into the work, read on any thread.
class Ticket
{
  public:
    Ticket() = default;
    bool stale() const { return !flag_ || flag_->load(); }
    // For work that takes a stats::CancelToken (a bootstrap stops at its next resample).
    stats::CancelToken token() const { return flag_ ? stats::CancelToken(*flag_) : stats::CancelToken(); }
    // A stop function for work that polls one (a process that should end once nobody waits for it).
    std::function<bool()> stopper() const
    {
        return [flag = flag_] { return !flag || flag->load(); };
    }

  private:
    friend class Latest;
    using Flag = std::shared_ptr<std::atomic<bool>>;
    explicit Ticket(Flag flag) : flag_(std::move(flag)) {}
    Flag flag_;
};

class Latest
{
  public:
    // `kinds`: how many kinds of request supersede each other independently (0 .. kinds-1).
    explicit Latest(QObject *owner, int kinds = 1);
    ~Latest(); // every request is stale: nothing is delivered after the owner's members go
    Latest(const Latest &) = delete;
    Latest &operator=(const Latest &) = delete;

    // A request of `kind`: the earlier ones of that kind are stale from now on.
    Ticket next(int kind = 0);
    // A request that no other makes stale; only cancel() does (a report: each writes its own file).
    Ticket alongside();
    // The requests of `kind` made so far are stale.
    void drop(int kind = 0);
    // Every request made so far is stale.
    void cancel();
    // A future handed to when/each has not finished yet, stale ones included.
    bool isBusy() const { return state_->inFlight > 0; }
    // Called on the owner's thread when isBusy() changes.
    void onBusyChanged(std::function<void(bool busy)> f) { state_->busyChanged = std::move(f); }

    // `then(result)` on the owner's thread once `future` has its result, if `ticket` is still live
    // then; a future cancelled or without a result delivers nothing.
    template <typename T, typename Then> void when(const Ticket &ticket, QFuture<T> future, Then then)
    {
        auto *w = watcher<T>();
        QObject::connect(w, &QFutureWatcherBase::finished, w, [w, ticket, then = std::move(then)]() mutable {
            const QFuture<T> f = w->future();
            if (!ticket.stale() && !f.isCanceled() && f.resultCount() > 0)
                then(f.result());
        });
        follow(w, std::move(future));
    }
    // `each(result)` for every result the future reports, as it reports it, and `done()` once it has
    // finished: each only while `ticket` is live (done too, unless `always`).
    template <typename T, typename Each, typename Done>
    void each(const Ticket &ticket, QFuture<T> future, Each each, Done done, bool always = false)
    {
        auto *w = watcher<T>();
        QObject::connect(w, &QFutureWatcherBase::resultsReadyAt, w,
                         [w, ticket, each = std::move(each)](int begin, int end) mutable {
                             for (int i = begin; i < end && !ticket.stale(); ++i)
                                 each(w->resultAt(i));
                         });
        QObject::connect(w, &QFutureWatcherBase::finished, w, [ticket, done = std::move(done), always]() mutable {
            if (always || !ticket.stale())
                done();
        });
        follow(w, std::move(future));
    }

  private:
    // Shared with the watchers: one that finishes after this frame went finds the state still there.
    struct State {
        int inFlight = 0;
        std::function<void(bool)> busyChanged;
    };
    using Flag = Ticket::Flag;

    // A watcher, a child of the owner: it goes with the owner, so nothing reaches an owner that is gone.
    template <typename T> QFutureWatcher<T> *watcher()
    {
        Q_ASSERT(QThread::currentThread() == owner_->thread());
        return new QFutureWatcher<T>(owner_);
    }
    // Follows `future` once the caller's slots are connected; settled after them, then deleted.
    template <typename T> void follow(QFutureWatcher<T> *watcher, QFuture<T> future)
    {
        began();
        QObject::connect(watcher, &QFutureWatcherBase::finished, watcher, [watcher, state = state_] {
            watcher->deleteLater();
            settle(*state);
        });
        watcher->setFuture(std::move(future));
    }
    void began();
    static void settle(State &state);
    Flag fresh();

    QObject *owner_;
    std::shared_ptr<State> state_ = std::make_shared<State>();
    std::vector<Flag> latest_; // per kind, the flag of its newest request
    std::vector<std::weak_ptr<std::atomic<bool>>> all_; // every flag handed out and maybe still held
};

} // namespace stepscope::ui
