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
}

ModelListJob::~ModelListJob()
{
    latest_.cancel(); // listModels' stop flag
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
    // Another Python's answer is no longer wanted: its process stops, and its answer is dropped.
    const Ticket ticket = latest_.next();
    asked_ = configuredPython;
    running_ = true;
    latest_.when(ticket,
                 QtConcurrent::run(&thread_, [configuredPython, stop = ticket.stopper()] {
                     return supervisor::listModels(configuredPython, stop);
                 }),
                 [this, configuredPython](const ModelListing &listing) {
                     running_ = false;
                     if (listing.complete())
                         cache_.insert(configuredPython, listing);
                     Q_EMIT listed(configuredPython, listing);
                 });
}

} // namespace stepscope::ui
