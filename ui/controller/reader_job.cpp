#include "controller/reader_job.h"

#include "controller/reader_worker.h"
#include "stats/stats.h"

#include <QThread>

#include <atomic>
#include <vector>

namespace stepscope::ui
{

struct ReaderJob::Shared {
    explicit Shared(int kinds) : latest(static_cast<std::size_t>(kinds)) {}
    // Per kind, the one request whose results are wanted; read by the worker to skip stale work.
    std::vector<std::atomic<qint64>> latest;
    std::atomic<qint64> epoch{0};
    qint64 seq = 0; // UI thread only

    bool wanted(const Ticket &t) const
    {
        return t.epoch == epoch.load() && (t.kind < 0 || latest[static_cast<std::size_t>(t.kind)].load() == t.seq);
    }
};

ReaderJob::ReaderJob(int kinds, QObject *parent)
    : QObject(parent), worker_(std::make_unique<ReaderWorker>(this)), shared_(std::make_shared<Shared>(kinds))
{
}

ReaderJob::~ReaderJob()
{
    // A bootstrap under way stops at its next resample, so the worker thread ends with the job.
    cancel();
}

void ReaderJob::setDatabase(const QString &path)
{
    cancel();
    worker_->setDatabase(path);
}

QString ReaderJob::database() const
{
    return worker_->database();
}

void ReaderJob::cancel()
{
    ++shared_->epoch;
}

std::thread::id ReaderJob::workerThread() const
{
    return worker_->threadId();
}

ReaderJob::Ticket ReaderJob::supersede(int kind)
{
    Q_ASSERT(QThread::currentThread() == thread());
    const Ticket ticket{kind, ++shared_->seq, shared_->epoch.load()};
    shared_->latest[static_cast<std::size_t>(kind)] = ticket.seq;
    return ticket;
}

ReaderJob::Ticket ReaderJob::standalone() const
{
    return {-1, 0, shared_->epoch.load()};
}

void ReaderJob::drop(int kind)
{
    shared_->latest[static_cast<std::size_t>(kind)] = ++shared_->seq;
}

bool ReaderJob::wanted(const Ticket &ticket) const
{
    return shared_->wanted(ticket);
}

void ReaderJob::finishOne()
{
    if (--inFlight_ == 0)
        Q_EMIT busyChanged(false);
}

void ReaderJob::post(const Ticket &ticket, Work work)
{
    Q_ASSERT(QThread::currentThread() == thread());
    if (inFlight_++ == 0)
        Q_EMIT busyChanged(true);
    const ReaderWorker::Deliver deliver = worker_->deliverer();
    // Everything the worker touches is captured by value: the job may be gone when it runs.
    const auto shared = shared_;
    worker_->post(
        [this, ticket, work = std::move(work), deliver, shared](const store::Reader &reader) {
            if (!shared->wanted(ticket)) {
                deliver([this] { finishOne(); });
                return;
            }
            const Deliver early = [deliver, shared, ticket](std::function<void()> f) {
                if (shared->wanted(ticket))
                    deliver([shared, ticket, f = std::move(f)] {
                        if (shared->wanted(ticket))
                            f();
                    });
            };
            std::function<void()> result;
            try {
                // A bootstrap of minutes stops as soon as a newer request makes this one stale.
                const stats::CancelScope scope([shared, ticket] { return !shared->wanted(ticket); });
                result = work(reader, early);
            } catch (const stats::Cancelled &) {
                deliver([this] { finishOne(); });
                return;
            }
            deliver([this, ticket, result = std::move(result)] {
                if (result && wanted(ticket))
                    result();
                finishOne();
            });
        },
        [this, ticket, deliver](const QString &message) {
            deliver([this, ticket, message] {
                if (wanted(ticket))
                    Q_EMIT failed(message);
                finishOne();
            });
        });
}

} // namespace stepscope::ui
