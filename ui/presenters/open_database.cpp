#include "presenters/open_database.h"

#include "controller/reader_job.h"
#include "controller/run_controller.h"

namespace stepscope::ui
{

void followOpenDatabase(RunController *controller, ReaderJob *job)
{
    if (controller->hasDatabase() && !controller->isOpening())
        job->setDatabase(controller->databasePath());
    QObject::connect(controller, &RunController::databaseOpened, job, &ReaderJob::setDatabase);
}

} // namespace stepscope::ui
