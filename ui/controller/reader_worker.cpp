#include "controller/reader_worker.h"

#include "platform/platform.h"
#include "store/store.h"

#include <QCoreApplication>
#include <QMetaObject>
#include <QObject>
#include <QThread>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>

namespace stepscope::ui
{

struct ReaderWorker::State {
    struct Task {
        QString path;
        Work work;
        Failure failed;
    };

    std::mutex mutex;
    std::condition_variable wake, stopped, started;
    std::deque<Task> queue;
    bool stop = false, done = false;
    QObject *owner = nullptr; // null once the owner is gone (guarded by mutex)
    std::thread::id id;       // guarded by mutex until started

    // Touched by the worker thread only.
    std::unique_ptr<store::Reader> reader;
    QString readerPath;

    void run()
    {
        for (;;) {
            Task task;
            {
                std::unique_lock lock(mutex);
                wake.wait(lock, [this] { return stop || !queue.empty(); });
                if (stop)
                    break;
                task = std::move(queue.front());
                queue.pop_front();
            }
            execute(task);
        }
        reader.reset();
        std::lock_guard lock(mutex);
        done = true;
        stopped.notify_all();
    }

    void execute(const Task &task)
    {
        try {
            if (task.path.isEmpty())
                throw store::StoreError(store::StoreError::Kind::Io, "no database is open");
            if (!reader || readerPath != task.path) {
                reader.reset();
                readerPath.clear();
                reader = store::Reader::open(task.path.toStdString());
                readerPath = task.path;
            }
            task.work(*reader);
        } catch (const store::StoreError &e) {
            // A file that went bad is opened afresh next time.
            reader.reset();
            readerPath.clear();
            task.failed(QString::fromUtf8(e.what()));
        } catch (const std::exception &e) {
            task.failed(QString::fromUtf8(e.what()));
        }
    }
};

ReaderWorker::ReaderWorker(QObject *owner) : state_(std::make_shared<State>())
{
    state_->owner = owner;
    // A QThread (not a bare std::thread): Qt code on it, such as a PDF's text layout, may start timers.
    thread_ = QThread::create([state = state_] {
        platform::lowerCurrentThreadPriority();
        {
            std::lock_guard lock(state->mutex);
            state->id = std::this_thread::get_id();
        }
        state->started.notify_all();
        state->run();
    });
    thread_->setObjectName(QStringLiteral("stepscope-reader"));
    std::unique_lock lock(state_->mutex);
    thread_->start();
    state_->started.wait(lock, [this] { return state_->id != std::thread::id(); });
}

ReaderWorker::~ReaderWorker()
{
    std::unique_lock lock(state_->mutex);
    state_->owner = nullptr;
    state_->stop = true;
    state_->queue.clear();
    state_->wake.notify_all();
    // Work in progress ends within a moment unless it is a long computation; that one finishes on
    // its own and finds nobody to deliver to, and its thread object goes once it has.
    const bool done = state_->stopped.wait_for(lock, std::chrono::milliseconds(200), [this] { return state_->done; });
    lock.unlock();
    if (done) {
        thread_->wait();
        delete thread_;
    } else {
        QObject::connect(thread_, &QThread::finished, thread_, &QObject::deleteLater);
    }
}

void ReaderWorker::setDatabase(const QString &path)
{
    path_ = path;
}

void ReaderWorker::post(Work work, Failure failed)
{
    std::lock_guard lock(state_->mutex);
    state_->queue.push_back({path_, std::move(work), std::move(failed)});
    state_->wake.notify_one();
}

ReaderWorker::Deliver ReaderWorker::deliverer() const
{
    return [state = state_](std::function<void()> f) {
        std::lock_guard lock(state->mutex);
        if (state->owner)
            QMetaObject::invokeMethod(state->owner, std::move(f), Qt::QueuedConnection);
    };
}

std::thread::id ReaderWorker::threadId() const
{
    return state_->id;
}

} // namespace stepscope::ui
