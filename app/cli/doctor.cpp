// `doctor`: can this machine run what Stepscope offers? The rows are the doctor service's
// (supervisor/doctor_service.h: Python and LibTorch, the native worker, the Python worker's
// --doctor), the same the dashboard's Environment page shows; the CLI prints them as a table.
#include "cli.h"
#include "cli_options.h"

#include "supervisor/doctor_service.h"

#include <QElapsedTimer>

#include <algorithm>
#include <cstdio>

namespace stepscope::cli
{
namespace
{

using supervisor::DoctorItem;
using supervisor::DoctorStatus;

void printTable(const QList<DoctorItem> &items)
{
    int itemWidth = 4;
    for (const auto &i : items)
        itemWidth = std::max(itemWidth, static_cast<int>(i.item.size()));
    std::printf("%-6s  %-*s  %s\n", "STATUS", itemWidth, "ITEM", "VALUE");
    for (const auto &i : items) {
        std::printf("%-6s  %-*s  %s\n", supervisor::toString(i.status), itemWidth, qPrintable(i.item),
                    qPrintable(i.value));
        if (i.status != DoctorStatus::Ok && !i.fix.isEmpty())
            std::printf("%-6s  %-*s  fix: %s\n", "", itemWidth, "", qPrintable(i.fix));
    }
}

} // namespace

int doctorCommand(const Options &options, const CommandLine &line)
{
    const QString device = line.value("device");
    if (!device.isEmpty() && device != "cpu" && device != "cuda") {
        std::fprintf(stderr, "stepscope-cli doctor: device '%s' is not allowed; use cpu or cuda\n", qPrintable(device));
        return kUsage;
    }
    auto request =
        supervisor::doctorRequest(QString("stepscope-cli %1").arg(STEPSCOPE_VERSION), line.value("python"), device);
    request.database = options.db; // its traces folder is where a killed profile leaves its scratch
    QElapsedTimer pythonClock;
    supervisor::DoctorProgress progress;
    progress.askingPython = [&](const QString &asked) {
        // Said before the wait, so that a silent minute does not look like a hang, and after it.
        std::fprintf(stderr,
                     "stepscope-cli doctor: asking the Python worker on %s: it imports torch and times a tiny "
                     "torch.compile, 5 s to a minute or two on a cold start (stopped after %d min)...\n",
                     qPrintable(asked), supervisor::kDoctorLimitMs / 60000);
        pythonClock.start();
    };
    const supervisor::DoctorReport report = supervisor::runDoctor(request, progress);
    if (pythonClock.isValid())
        std::fprintf(stderr, "stepscope-cli doctor: the Python worker answered in %.1f s\n",
                     static_cast<double>(pythonClock.elapsed()) / 1000.0);
    printTable(report.items);
    return supervisor::countOf(report.items, DoctorStatus::Fail) > 0 ? kRunsFailed : kOk;
}

} // namespace stepscope::cli
