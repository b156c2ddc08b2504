#include "controller/reader_pool.h"

#include "platform/platform.h"
#include "store/store.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QPointer>
#include <QThreadPool>

#include <map>
#include <mutex>

namespace stepscope::ui
{
namespace
{

// The reader of the pool thread this runs on. A pool thread serves one file all its life.
struct ThreadReader {
    QString path;
    std::unique_ptr<store::Reader> reader;
    bool lowered = false;
};
thread_local ThreadReader threadReader;

// Where pools that nobody holds any longer are closed: one thread, gone after a second idle (the
// application's child, so it waits for what is left when the application quits).
QThreadPool *retirement()
{
    static QPointer<QThreadPool> pool;
    if (!pool) {
        pool = new QThreadPool(QCoreApplication::instance());
        pool->setMaxThreadCount(1);
        pool->setExpiryTimeout(1000);
    }
    return pool;
}

} // namespace

ReaderPool::ReaderPool(QString path) : path_(std::move(path)), threads_(new QThreadPool)
{
    threads_->setMaxThreadCount(1);
    // The thread, and with it its reader, stays while the pool does: no reopening after a pause.
    threads_->setExpiryTimeout(-1);
}

ReaderPool::~ReaderPool()
{
    // The reader closes in a task of its own, after the work still queued: closing removes the -wal
    // and -shm it may have made beside a file that had none. Left to the thread's end, it closed
    // after QThread::wait() had returned, and a program that ended then (stepscope --report) left
    // both files behind.
    threads_->start([] { dropReaderOnThisThread(); });
    // Closed elsewhere, never waited for here: work under way nobody wants any longer ends on its own
    // (its flag is raised), and closing the reader may checkpoint the file's write-ahead log.
    threads_->moveToThread(nullptr); // no thread owns the pool meanwhile
    retirement()->start([threads = threads_] { delete threads; });
}

std::shared_ptr<ReaderPool> ReaderPool::of(const QString &path)
{
    static std::mutex mutex;
    static std::map<QString, std::weak_ptr<ReaderPool>> pools;
    const QString absolute = QFileInfo(path).absoluteFilePath();
    std::lock_guard lock(mutex);
    for (auto it = pools.begin(); it != pools.end();)
        it = it->second.expired() ? pools.erase(it) : std::next(it);
    std::weak_ptr<ReaderPool> &slot = pools[absolute];
    if (auto pool = slot.lock())
        return pool;
    std::shared_ptr<ReaderPool> pool(new ReaderPool(absolute));
    slot = pool;
    return pool;
}

const store::Reader &ReaderPool::readerOnThisThread(const QString &path)
{
    ThreadReader &current = threadReader;
    if (!current.lowered) {
        // Reading every step of a sweep takes seconds: the UI thread keeps the first claim on a core.
        platform::lowerCurrentThreadPriority();
        current.lowered = true;
    }
    if (!current.reader || current.path != path) {
        current.reader.reset();
        current.reader = store::Reader::open(path.toStdString());
        current.path = path;
    }
    return *current.reader;
}

void ReaderPool::dropReaderOnThisThread()
{
    threadReader.reader.reset();
    threadReader.path.clear();
}

} // namespace stepscope::ui
