#include "controller/reader_job.h"

#include "controller/reader_pool.h"
#include "store/store.h"

#include <QPromise>
#include <QtConcurrent/QtConcurrentRun>

namespace stepscope::ui
{

ReaderJob::ReaderJob(int kinds, QObject *parent) : QObject(parent), latest_(this, kinds)
{
    latest_.onBusyChanged([this](bool busy) { Q_EMIT busyChanged(busy); });
}

// Work under way stops at its next check and delivers to nobody; the pool (if this was its last
// holder) closes after it without being waited for.
ReaderJob::~ReaderJob() = default;

void ReaderJob::setDatabase(const QString &path)
{
    cancel();
    path_ = path;
    pool_ = path.isEmpty() ? nullptr : ReaderPool::of(path);
}

void ReaderJob::cancel()
{
    latest_.cancel();
}

void ReaderJob::post(int kind, Work work)
{
    start(latest_.next(kind), std::move(work));
}

void ReaderJob::postStandalone(Work work)
{
    start(latest_.alongside(), std::move(work));
}

void ReaderJob::drop(int kind)
{
    latest_.drop(kind);
}

void ReaderJob::start(const Ticket &ticket, Work work)
{
    const auto deliver = [](const Deliver &d) {
        if (d)
            d();
    };
    if (!pool_) {
        // Said the same way as a refused file, and as late: after the request returned.
        QPromise<Deliver> refused;
        refused.start();
        refused.addResult([this] { Q_EMIT failed(tr("no database is open")); });
        refused.finish();
        latest_.each(ticket, refused.future(), deliver, [] {});
        return;
    }
    // Everything the work touches is captured by value: the job may be gone when it runs.
    latest_.each(
        ticket,
        QtConcurrent::run(pool_->threads(),
                          [this, path = pool_->path(), ticket, work = std::move(work)](QPromise<Deliver> &promise) {
                              if (ticket.stale())
                                  return; // stale before it started
                              const auto early = [&promise](Deliver d) {
                                  if (d)
                                      promise.addResult(std::move(d));
                              };
                              QString error;
                              try {
                                  early(work(Context{ReaderPool::readerOnThisThread(path), ticket.token(), early}));
                                  return;
                              } catch (const store::StoreError &e) {
                                  ReaderPool::dropReaderOnThisThread(); // a file that went bad is opened afresh next time
                                  error = QString::fromUtf8(e.what());
                              } catch (const std::exception &e) {
                                  error = QString::fromUtf8(e.what());
                              }
                              // `this` is reached on the UI thread only, and only while the job lives.
                              promise.addResult([this, error] { Q_EMIT failed(error); });
                          }),
        deliver, [] {});
}

} // namespace stepscope::ui
