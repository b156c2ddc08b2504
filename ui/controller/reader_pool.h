#pragma once
// The one thread the dashboard reads a database file on: a QThreadPool of one thread per file,
// shared by every job that reads it (ledger, comparison, queries, reports) and by the summaries an
// open brings up to date. Work runs in the order it was queued (QtConcurrent::run on threads()),
// below the UI thread's priority, and each pool thread keeps its own store::Reader of the file in a
// thread-local (a SQLite connection is never shared between threads): opened on first use, again
// after it failed, closed by a last task of its own when the pool goes.
//
// A pool lives while someone holds it (of() hands out shared ownership). The last holder lets go
// without waiting: the pool is closed on another thread, after the work it still runs (a ledger's
// step reads cannot be interrupted; its flag says nobody wants the result). The application waits
// for that when it quits.
#include <QString>

#include <memory>

class QThreadPool;

namespace stepscope::store
{
class Reader;
}

namespace stepscope::ui
{

class ReaderPool
{
  public:
    // The pool of the file at `path` (made absolute), made on first use (UI thread).
    static std::shared_ptr<ReaderPool> of(const QString &path);
    ~ReaderPool();
    ReaderPool(const ReaderPool &) = delete;
    ReaderPool &operator=(const ReaderPool &) = delete;

    QString path() const { return path_; }
    QThreadPool *threads() const { return threads_; }

    // On a pool's thread: that thread's reader of `path` (the pool's path()). Throws
    // store::StoreError for a file that is not a readable Stepscope database.
    static const store::Reader &readerOnThisThread(const QString &path);
    // After a store::StoreError from the reader: the next readerOnThisThread() opens the file afresh.
    static void dropReaderOnThisThread();

  private:
    explicit ReaderPool(QString path);

    QString path_;
    QThreadPool *threads_;
};

} // namespace stepscope::ui
