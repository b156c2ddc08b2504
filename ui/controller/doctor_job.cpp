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
}

DoctorJob::~DoctorJob()
{
    latest_.cancel(); // the service's stop flag
    thread_.waitForDone();
}

void DoctorJob::start(const QString &self, const QString &configuredPython, const QString &device,
                      const QString &database)
{
    if (running_)
        return;
    running_ = true;
    items_.clear();
    const Ticket ticket = latest_.next();
    auto run = [this, ticket, self, configuredPython, device, database](QPromise<DoctorItem> &promise) {
        supervisor::DoctorProgress progress;
        progress.item = [&promise](const DoctorItem &row) { promise.addResult(row); };
        // Queued to this thread after the rows before it; `this` outlives the run (the destructor waits).
        progress.askingPython = [this](const QString &asked) {
            QMetaObject::invokeMethod(
                this, [this, asked] { Q_EMIT askingPython(asked); }, Qt::QueuedConnection);
        };
        progress.stop = ticket.stopper();
        auto request = supervisor::doctorRequest(self, configuredPython, device);
        request.database = database;
        supervisor::runDoctor(request, progress);
    };
    latest_.each(
        ticket, QtConcurrent::run(&thread_, std::move(run)),
        [this](const DoctorItem &row) {
            items_.append(row);
            Q_EMIT item(row);
        },
        [this] {
            running_ = false;
            Q_EMIT finished(supervisor::countOf(items_, DoctorStatus::Fail),
                            supervisor::countOf(items_, DoctorStatus::Warn));
        });
}

} // namespace stepscope::ui
