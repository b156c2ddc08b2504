#pragma once
// The thread a background job reads the database on. It has its own store::Reader (a SQLite
// connection is never shared between threads), opened on first use and again when the job moves to
// another file. Work runs in the order it was posted; results go back to the owner's (UI) thread
// through deliver(), and never to an owner that is gone.
//
// A ledger's bootstrap can take minutes and cannot be interrupted, and a window that closes
// meanwhile must not wait for it: the destructor waits a moment, then leaves a still-busy thread
// to finish on its own (it only touches its own state and delivers to nobody).
#include <QString>

#include <functional>
#include <memory>
#include <thread>

class QObject;
class QThread;

namespace stepscope::store
{
class Reader;
}

namespace stepscope::ui
{

class ReaderWorker
{
  public:
    // `owner` receives deliver()ed functions in its thread.
    explicit ReaderWorker(QObject *owner);
    ~ReaderWorker();
    ReaderWorker(const ReaderWorker &) = delete;
    ReaderWorker &operator=(const ReaderWorker &) = delete;

    // The file the work posted from now on reads (owner's thread).
    void setDatabase(const QString &path);
    QString database() const { return path_; }

    using Work = std::function<void(const store::Reader &)>;
    using Failure = std::function<void(const QString &message)>;
    // Queues `work`; it runs on the worker thread with a reader of the current file. When the file
    // cannot be read (a refused file, a store::StoreError thrown by the work), `failed` runs instead,
    // on the worker thread too. Without a file, `failed` says so.
    void post(Work work, Failure failed);
    // Runs `f` in the owner's thread later, unless the owner has gone by then. Callable from any
    // thread, and valid after this object is gone (work may outlive it): capture it in the work.
    using Deliver = std::function<void(std::function<void()>)>;
    Deliver deliverer() const;
    // The worker thread's id (for tests that check where work ran).
    std::thread::id threadId() const;

  private:
    struct State;
    std::shared_ptr<State> state_;
    QThread *thread_ = nullptr;
    QString path_;
};

} // namespace stepscope::ui
