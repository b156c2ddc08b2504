#include "controller/model_list_job.h"

#include <QPromise>
#include <QThread>
#include <QtConcurrent/QtConcurrentRun>

namespace stepscope::ui
{

using supervisor::ModelListing;

ModelListJob::ModelListJob(QObject *parent) : QObject(parent)
{
    thread_.setMaxThreadCount(1);
    connect(&watcher_, &QFutureWatcherBase::finished, this, [this] {
        Q_ASSERT(QThread::currentThread() == thread());
        const QFuture<ModelListing> future = watcher_.future();
        const QString python = asked_;
        running_ = false;
        if (future.isCanceled() || future.resultCount() == 0)
            return;
        const ModelListing listing = future.result();
        if (listing.complete())
            cache_.insert(python, listing);
        Q_EMIT listed(python, listing);
    });
}

ModelListJob::~ModelListJob()
{
    watcher_.disconnect(this);
    watcher_.future().cancel(); // listModels' stop flag
    thread_.waitForDone();
}

const ModelListing *ModelListJob::cached(const QString &configuredPython) const
{
    const auto it = cache_.constFind(configuredPython);
    return it == cache_.constEnd() ? nullptr : &it.value();
}

void ModelListJob::request(const QString &configuredPython)
{
    Q_ASSERT(QThread::currentThread() == thread());
    if (const ModelListing *kept = cached(configuredPython)) {
        const ModelListing copy = *kept;
        QMetaObject::invokeMethod(
            this, [this, configuredPython, copy] { Q_EMIT listed(configuredPython, copy); }, Qt::QueuedConnection);
        return;
    }
    if (isRunning() && asked_ == configuredPython)
        return; // its answer is on the way
    // Another Python's answer is no longer wanted: its process stops, and the watcher follows the new one.
    watcher_.future().cancel();
    asked_ = configuredPython;
    running_ = true;
    watcher_.setFuture(QtConcurrent::run(&thread_, [configuredPython](QPromise<ModelListing> &promise) {
        promise.addResult(supervisor::listModels(configuredPython, [&promise] { return promise.isCanceled(); }));
    }));
}

} // namespace stepscope::ui
