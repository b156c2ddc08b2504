#pragma once
// The model picker's listing (supervisor/model_listing.h: the Python worker's --list-models, seconds
// of imports) on a thread of this job's own, brought back to the UI thread by the job frame
// (latest.h). Latest wins: asking for
// another Python stops the process under way and its answer is never delivered. Listings are kept
// per Python as the panel names it (empty: automatic), so that a Python asked again answers at once;
// one with a library missing is asked again, since the user may just have installed it. Destroying the
// job stops the process under way and waits for its thread (a tenth of a second).
#include "controller/latest.h"
#include "supervisor/model_listing.h"

#include <QHash>
#include <QObject>
#include <QThreadPool>

namespace stepscope::ui
{

class ModelListJob : public QObject
{
    Q_OBJECT
  public:
    explicit ModelListJob(QObject *parent = nullptr);
    ~ModelListJob() override;

    // Returns at once; listed() follows, from the cache within this event-loop turn.
    void request(const QString &configuredPython);
    // The listing kept for `configuredPython`; nullptr when there is none.
    const supervisor::ModelListing *cached(const QString &configuredPython) const;
    bool isRunning() const { return running_; }

  Q_SIGNALS:
    void listed(const QString &configuredPython, const stepscope::supervisor::ModelListing &listing);

  private:
    QThreadPool thread_;
    Latest latest_{this};
    QString asked_; // the Python of the request under way
    bool running_ = false;
    QHash<QString, supervisor::ModelListing> cache_;
};

} // namespace stepscope::ui
