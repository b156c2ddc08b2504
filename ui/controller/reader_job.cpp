#include "controller/reader_job.h"

#include "controller/reader_pool.h"
#include "store/store.h"

#include <QFutureWatcher>
#include <QPromise>
#include <QThread>
#include <QtConcurrent/QtConcurrentRun>

namespace stepscope::ui
{

ReaderJob::ReaderJob(int kinds, QObject *parent) : QObject(parent), latest_(static_cast<std::size_t>(kinds)) {}

ReaderJob::~ReaderJob()
{
    // Work under way stops at its next check; its watchers go with this object, so it delivers to
    // nobody, and the pool (if this was its last holder) closes after it without being waited for.
    cancel();
}

void ReaderJob::setDatabase(const QString &path)
{
    cancel();
    path_ = path;
    pool_ = path.isEmpty() ? nullptr : ReaderPool::of(path);
}

void ReaderJob::cancel()
{
    for (auto &[request, flag] : inFlight_)
        *flag = true;
    for (Flag &flag : latest_)
        flag.reset();
}

void ReaderJob::post(int kind, Work work)
{
    Q_ASSERT(QThread::currentThread() == thread());
    Flag &latest = latest_.at(static_cast<std::size_t>(kind));
    if (latest)
        *latest = true;
    latest = std::make_shared<std::atomic<bool>>(false);
    start(latest, std::move(work));
}

void ReaderJob::postStandalone(Work work)
{
    Q_ASSERT(QThread::currentThread() == thread());
    start(std::make_shared<std::atomic<bool>>(false), std::move(work));
}

void ReaderJob::drop(int kind)
{
    Flag &latest = latest_.at(static_cast<std::size_t>(kind));
    if (latest)
        *latest = true;
    latest.reset();
}

void ReaderJob::start(Flag flag, Work work)
{
    const quint64 request = ++requests_;
    const bool wasIdle = inFlight_.empty();
    inFlight_.emplace(request, flag);
    if (wasIdle)
        Q_EMIT busyChanged(true);

    auto *watcher = new QFutureWatcher<Deliver>(this);
    connect(watcher, &QFutureWatcherBase::resultReadyAt, this, [watcher, flag](int index) {
        if (flag->load())
            return; // made stale while the result was on its way
        if (const Deliver deliver = watcher->resultAt(index))
            deliver();
    });
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, request] {
        watcher->deleteLater();
        settle(request);
    });

    if (!pool_) {
        // Said the same way as a refused file, and as late: after the request returned.
        QPromise<Deliver> refused;
        refused.start();
        refused.addResult([this] { Q_EMIT failed(tr("no database is open")); });
        refused.finish();
        watcher->setFuture(refused.future());
        return;
    }
    // Everything the work touches is captured by value: the job may be gone when it runs.
    watcher->setFuture(QtConcurrent::run(
        pool_->threads(), [this, path = pool_->path(), flag, work = std::move(work)](QPromise<Deliver> &promise) {
            if (flag->load())
                return; // stale before it started
            const auto early = [&promise](Deliver deliver) {
                if (deliver)
                    promise.addResult(std::move(deliver));
            };
            QString error;
            try {
                early(work(Context{ReaderPool::readerOnThisThread(path), stats::CancelToken(*flag), early}));
                return;
            } catch (const store::StoreError &e) {
                ReaderPool::dropReaderOnThisThread(); // a file that went bad is opened afresh next time
                error = QString::fromUtf8(e.what());
            } catch (const std::exception &e) {
                error = QString::fromUtf8(e.what());
            }
            // `this` is reached on the UI thread only, through the watcher that lives and dies with it.
            promise.addResult([this, error] { Q_EMIT failed(error); });
        }));
}

void ReaderJob::settle(quint64 request)
{
    inFlight_.erase(request);
    if (inFlight_.empty())
        Q_EMIT busyChanged(false);
}

} // namespace stepscope::ui
