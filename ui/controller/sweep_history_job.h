#pragma once
// What the window wants of the open database's past, read off the UI thread in one pass: the newest
// sweep (File › Open shows it) and how long this host's runs took (the panel's preview estimates
// the next sweep from them, by the rules of supervisor/time_left.h the running sweep uses too).
#include "controller/reader_job.h"
#include "supervisor/time_left.h"

#include <memory>

namespace stepscope::ui
{

class SweepHistoryJob : public ReaderJob
{
    Q_OBJECT
  public:
    explicit SweepHistoryJob(QObject *parent = nullptr);

    // Reads again: after an open, and after a sweep ends (its runs are history now).
    void request();

  Q_SIGNALS:
    // `newestSweep` is 0 for a database without sweeps; `runTimes` holds this host's complete runs.
    void read(qint64 newestSweep, std::shared_ptr<const supervisor::TimeLeft> runTimes);
};

} // namespace stepscope::ui
