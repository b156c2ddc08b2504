#include "controller/sweep_history_job.h"

#include "platform/platform.h"
#include "store/store.h"

namespace stepscope::ui
{

SweepHistoryJob::SweepHistoryJob(QObject *parent) : ReaderJob(1, parent) {}

void SweepHistoryJob::request()
{
    post(0, [this](const Context &context) -> Deliver {
        const auto sweeps = context.reader.sweeps(); // newest first
        const qint64 newest = sweeps.empty() ? 0 : sweeps.front().id;
        auto times =
            std::make_shared<supervisor::TimeLeft>(supervisor::timeLeftBefore(context.reader, platform::hostName()));
        return [this, newest, times] { Q_EMIT read(newest, times); };
    });
}

} // namespace stepscope::ui
