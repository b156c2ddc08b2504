#include "controller/doctor_job.h"

#include "supervisor/doctor_service.h"

#include <QPromise>
#include <QtConcurrent/QtConcurrentRun>

namespace stepscope::ui
{

using supervisor::DoctorItem;
using supervisor::DoctorStatus;

DoctorJob::DoctorJob(QObject *parent) : QObject(parent)
{
    thread_.setMaxThreadCount(1);
    connect(&watcher_, &QFutureWatcherBase::resultsReadyAt, this, [this](int begin, int end) {
        for (int i = begin; i < end; ++i)
            Q_EMIT item(watcher_.resultAt(i));
    });
    connect(&watcher_, &QFutureWatcherBase::finished, this, [this] {
        running_ = false;
        const QList<DoctorItem> items = watcher_.future().results();
        Q_EMIT finished(supervisor::countOf(items, DoctorStatus::Fail), supervisor::countOf(items, DoctorStatus::Warn));
    });
}

DoctorJob::~DoctorJob()
{
    watcher_.disconnect(this);
    watcher_.future().cancel(); // the service's stop flag
    thread_.waitForDone();
}

void DoctorJob::start(const QString &self, const QString &configuredPython, const QString &device,
                      const QString &database)
{
    if (running_)
        return;
    running_ = true;
    watcher_.setFuture(
        QtConcurrent::run(&thread_, [this, self, configuredPython, device, database](QPromise<DoctorItem> &promise) {
            supervisor::DoctorProgress progress;
            progress.item = [&promise](const DoctorItem &row) { promise.addResult(row); };
            // Queued to this thread after the rows before it; `this` outlives the run (the destructor waits).
            progress.askingPython = [this](const QString &asked) {
                QMetaObject::invokeMethod(
                    this, [this, asked] { Q_EMIT askingPython(asked); }, Qt::QueuedConnection);
            };
            progress.stop = [&promise] { return promise.isCanceled(); };
            auto request = supervisor::doctorRequest(self, configuredPython, device);
            request.database = database;
            supervisor::runDoctor(request, progress);
        }));
}

} // namespace stepscope::ui
