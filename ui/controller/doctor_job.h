#pragma once
// The dashboard's doctor: the doctor service (supervisor/doctor_service.h: a blocking function) on a
// thread of this job's own, its rows brought back to the UI thread one by one as they come (through the
// job frame, latest.h), so the
// first show while the Python worker's tiny torch.compile still runs. A thread of its own because a
// run may take minutes, which the shared pool's few threads have better uses for. Destroying the job
// raises the service's stop flag and waits for the thread, which that ends within a tenth of a
// second (a torch lookup under way, about as long, finishes first): nothing runs on behind a closed
// window.
#include "controller/latest.h"
#include "supervisor/doctor_items.h"

#include <QList>
#include <QObject>
#include <QThreadPool>

namespace stepscope::ui
{

class DoctorJob : public QObject
{
    Q_OBJECT
  public:
    explicit DoctorJob(QObject *parent = nullptr);
    ~DoctorJob() override;

    // Returns at once. Locates torch for `configuredPython` (empty: choosePython's order), then asks
    // both workers about `device`; `self` names the program in the first row. A run under way is left
    // to finish.
    // `database`: the open database, whose traces folder the leftovers row looks at (empty: none).
    void start(const QString &self, const QString &configuredPython, const QString &device, const QString &database);
    // Until finished() is signalled: the future ends before its last rows reach this thread.
    bool isRunning() const { return running_; }

  Q_SIGNALS:
    void item(const stepscope::supervisor::DoctorItem &item);
    // The Python worker is being asked (the long part), about `device`.
    void askingPython(const QString &device);
    void finished(int fails, int warnings);

  private:
    QThreadPool thread_;
    Latest latest_{this};
    QList<supervisor::DoctorItem> items_; // of the run under way, for finished()'s counts
    bool running_ = false;
};

} // namespace stepscope::ui
